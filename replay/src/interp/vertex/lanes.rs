//! The lane-group executor: runs one group of vertices ("lanes") through the program in lock
//! step, with an active mask for divergent control flow.
//!
//! # Scheduling
//!
//! Every lane has its own program counter, return stack, registers and step count. Each step
//! picks the lowest program counter among the lanes still running and executes that slot for
//! exactly the lanes whose counter equals it (the active mask). Lanes that took different
//! branches therefore run separately and reconverge as soon as their counters meet again,
//! which for forward branches and loops happens at the join slot. Since every lane keeps its
//! own state, the schedule affects only speed, never results.
//!
//! # One instruction, per lane (rsx-microcode.md B.8)
//!
//! 1. The sources the vector and scalar ops read are fetched once (dual issue: both units see
//!    the registers as they were before the instruction).
//! 2. With relation FL (D0.cond = 0) nothing is written (RPCS3 `SetDST` returns early).
//! 3. The vector result is written through the vector mask and, when `cond_test_enable` is
//!    set, the per-component condition (RPCS3 `AddCodeCond`, a per-lane select on the CC
//!    before the instruction): to the output register when `vec_result`, to the temp when one
//!    is named, and to the selected CC register when a CC update is enabled or when it has no
//!    other destination (RPCS3 `GetDST`/`write_vec`, the "Far Cry 2" case). ARL writes the
//!    address register named by the vector temp field instead (RPCS3 `a[d0.dst_tmp]`).
//! 4. The scalar result likewise, with the scalar mask, to the output register when
//!    `!vec_result`.
//! 5. Flow control is evaluated last, after the vector write (RPCS3 decodes branches last "in
//!    case there was a dual-issued instruction"): BRI/CAL/CLI/RET/BRA test `any()` of the
//!    swizzled CC (TR always, FL never; RPCS3 `dynamic_branch`), BRB/CLB test a transform
//!    branch bit (`static_branch`). RET with an empty stack ends the vertex (RPCS3 `return`).
//! 6. END ends the vertex after its instruction, whatever a branch in it decided.

use super::constants::{UnknownConstantRead, CONSTANT_COUNT};
use super::error::VertexExecError;
use super::math::{self, Vec4};
use super::options::{ArlRounding, VertexOptions};
use super::output::{output_name, OUTPUT_COUNT};
use super::real::Real;
use super::table::{Prepared, ProgramTable, Slot};
use super::trace::{VertexPatch, VertexRegister, VertexStep};
use super::VertexEnvironment;
use rsxtrace_program::vertex::{RegisterType, Relation, ScalarOpcode, VectorOpcode};
use std::collections::BTreeSet;

/// Temp registers addressable by the 6-bit index.
const TEMPS: usize = 64;

/// Everything shared by the groups of one batch.
pub struct Context<'a> {
    pub table: &'a ProgramTable,
    pub env: &'a VertexEnvironment<'a>,
    pub options: &'a VertexOptions,
}

/// Per-lane registers.
#[derive(Clone)]
struct LaneState<T: Real> {
    temps: [Vec4<T>; TEMPS],
    addr: [[i32; 4]; 2],
    cc: [Vec4<T>; 2],
    out: [Vec4<T>; OUTPUT_COUNT],
    written: u16,
    stack: Vec<usize>,
    pc: usize,
    steps: u32,
    running: bool,
}

impl<T: Real> LaneState<T> {
    fn new(start: usize) -> Self {
        LaneState {
            temps: [[T::ZERO; 4]; TEMPS],
            addr: [[0; 4]; 2],
            cc: [[T::ZERO; 4]; 2],
            // Outputs start at (0, 0, 0, 1) (RPCS3 `VertexInterpreter.glsl` main()).
            out: [[T::ZERO, T::ZERO, T::ZERO, T::ONE]; OUTPUT_COUNT],
            written: 0,
            stack: Vec::new(),
            pc: start,
            steps: 0,
            running: true,
        }
    }
}

/// The result of one lane.
pub struct LaneResult<T> {
    pub out: [Vec4<T>; OUTPUT_COUNT],
    pub written: u16,
    pub steps: u32,
}

/// The result of one group.
pub struct GroupResult<T> {
    pub lanes: Vec<LaneResult<T>>,
    pub unknown: BTreeSet<UnknownConstantRead>,
}

/// One group of lanes.
pub struct Group<'a, T: Real> {
    ctx: &'a Context<'a>,
    first_lane: usize,
    inputs: &'a [[[f32; 4]; 16]],
    lanes: Vec<LaneState<T>>,
    unknown: BTreeSet<UnknownConstantRead>,
    /// Receives lane 0's [`VertexStep`] after each of its instructions ([`Group::observe`]).
    observer: Option<VertexObserver<'a>>,
    /// Register writes made to lane 0 before given steps ([`Group::patch`]).
    patches: Vec<VertexPatch>,
}

/// A step observer ([`super::trace`]).
pub type VertexObserver<'a> = Box<dyn FnMut(VertexStep) + 'a>;

/// What an instruction does to one lane's control flow.
enum Flow {
    Next,
    Jump(usize),
    Exit,
}

impl<'a, T: Real> Group<'a, T> {
    /// A group for `inputs`, whose first vertex is lane `first_lane` of the batch.
    pub fn new(ctx: &'a Context<'a>, first_lane: usize, inputs: &'a [[[f32; 4]; 16]]) -> Self {
        let start = ctx.table.start;
        Group {
            ctx,
            first_lane,
            inputs,
            lanes: vec![LaneState::new(start); inputs.len()],
            unknown: BTreeSet::new(),
            observer: None,
            patches: Vec::new(),
        }
    }

    /// Makes each patch's register write to lane 0 just before its instruction numbered
    /// `patch.step` (debuggers: a register written by the user takes effect).
    pub fn patch(mut self, patches: Vec<VertexPatch>) -> Self {
        self.patches = patches;
        self
    }

    /// Lane 0's patches due before its step `step`.
    fn apply_patches(&mut self, step: u32) {
        let Some(lane) = self.lanes.first_mut() else {
            return;
        };
        for p in self.patches.iter().filter(|p| p.step == step) {
            let v = p.value.map(T::from_f64);
            match p.register {
                VertexRegister::Temp(r) => {
                    if let Some(t) = lane.temps.get_mut(usize::from(r)) {
                        *t = v;
                    }
                }
                VertexRegister::Output(o) => {
                    if let Some(t) = lane.out.get_mut(usize::from(o)) {
                        *t = v;
                        lane.written |= 1 << o;
                    }
                }
                VertexRegister::Cc(c) => {
                    if let Some(t) = lane.cc.get_mut(usize::from(c)) {
                        *t = v;
                    }
                }
                VertexRegister::Addr(a) => {
                    if let Some(t) = lane.addr.get_mut(usize::from(a)) {
                        *t = p.value.map(|x| x as i32);
                    }
                }
            }
        }
    }

    /// Calls `observer` with lane 0's [`VertexStep`] after each of its instructions.
    pub fn observe(mut self, observer: VertexObserver<'a>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Lane 0's registers that differ between `before` and now, named.
    fn changes(&self, before: &LaneState<T>) -> Vec<(String, [f64; 4])> {
        let Some(now) = self.lanes.first() else {
            return Vec::new();
        };
        let f = |v: &Vec4<T>| v.map(T::to_f64);
        let mut out = Vec::new();
        for (r, (a, b)) in before.temps.iter().zip(&now.temps).enumerate() {
            if a != b {
                out.push((format!("R{r}"), f(b)));
            }
        }
        for (o, (a, b)) in before.out.iter().zip(&now.out).enumerate() {
            if a != b || (now.written & !before.written) & (1 << o) != 0 {
                let name = output_name(o as u8).map_or(format!("o[{o}]"), |n| format!("o[{n}]"));
                out.push((name, f(b)));
            }
        }
        for (c, (a, b)) in before.cc.iter().zip(&now.cc).enumerate() {
            if a != b {
                out.push((format!("CC{c}"), f(b)));
            }
        }
        for (n, (a, b)) in before.addr.iter().zip(&now.addr).enumerate() {
            if a != b {
                out.push((format!("A{n}"), b.map(f64::from)));
            }
        }
        out
    }

    /// Run every lane to its end.
    pub fn run(mut self) -> Result<GroupResult<T>, VertexExecError> {
        self.run_lanes()?;
        Ok(GroupResult {
            lanes: self
                .lanes
                .into_iter()
                .map(|l| LaneResult {
                    out: l.out,
                    written: l.written,
                    steps: l.steps,
                })
                .collect(),
            unknown: self.unknown,
        })
    }

    /// [`run`](Self::run) for a renderer: each lane's output registers, through `narrow`,
    /// straight into `out` (one per lane, in order; no per-lane result kept), and the unknown
    /// constant reads.
    pub fn run_into<O>(
        mut self,
        out: &mut [O],
        narrow: impl Fn(&[Vec4<T>; OUTPUT_COUNT]) -> O,
    ) -> Result<BTreeSet<UnknownConstantRead>, VertexExecError> {
        self.run_lanes()?;
        for (o, l) in out.iter_mut().zip(&self.lanes) {
            *o = narrow(&l.out);
        }
        Ok(self.unknown)
    }

    /// Runs every lane to its end.
    fn run_lanes(&mut self) -> Result<(), VertexExecError> {
        while let Some(pc) = self.lanes.iter().filter(|l| l.running).map(|l| l.pc).min() {
            let table = self.ctx.table;
            match table.get(pc) {
                Slot::Ready(p) => self.step(p, pc)?,
                Slot::Invalid(e) => {
                    return Err(VertexExecError::Undecodable {
                        slot: pc,
                        source: e.clone(),
                    })
                }
                Slot::Empty => {
                    return Err(VertexExecError::NoInstruction {
                        slot: pc,
                        lane: self.first_lane + self.first_at(pc),
                    })
                }
            }
        }
        Ok(())
    }

    fn first_at(&self, pc: usize) -> usize {
        self.lanes
            .iter()
            .position(|l| l.running && l.pc == pc)
            .unwrap_or(0)
    }

    /// Checks that do not depend on the lane: opcodes without semantics, missing sampler or
    /// branch bits, impossible destinations.
    fn check(&self, p: &Prepared, slot: usize) -> Result<(), VertexExecError> {
        let i = &p.insn;
        let unimplemented = |opcode| Err(VertexExecError::Unimplemented { slot, opcode });
        match i.vector {
            // ARR/ARA: nouveau only; RPCS3 lists them as NULL (rsx-microcode.md B.8).
            VectorOpcode::Arr | VectorOpcode::Ara => return unimplemented(i.vector.name()),
            VectorOpcode::Txl if self.ctx.env.sampler.is_none() => {
                return Err(VertexExecError::NoSampler {
                    slot,
                    unit: p.texture_unit.unwrap_or(0),
                })
            }
            VectorOpcode::Arl if !matches!(i.vec_dst_temp, Some(0 | 1)) => {
                return Err(VertexExecError::AddressRegister {
                    slot,
                    dst: i.vec_dst_temp,
                })
            }
            _ => {}
        }
        match i.scalar {
            // PSH/POP: RPCS3 "Unimplemented sca_opcode" (VertexProgramDecompiler.cpp).
            ScalarOpcode::Psh | ScalarOpcode::Pop => return unimplemented(i.scalar.name()),
            ScalarOpcode::Brb | ScalarOpcode::Clb if self.ctx.env.branch_bits.is_none() => {
                return Err(VertexExecError::UnknownBranchBits {
                    slot,
                    index: p.boolean.map_or(0, |b| b.index),
                })
            }
            _ => {}
        }
        Ok(())
    }

    fn step(&mut self, p: &Prepared, slot: usize) -> Result<(), VertexExecError> {
        self.check(p, slot)?;
        let limit = self.ctx.options.rules.step_limit;
        for k in 0..self.lanes.len() {
            let lane = &self.lanes[k];
            if !lane.running || lane.pc != slot {
                continue;
            }
            if lane.steps >= limit {
                return Err(VertexExecError::StepLimit {
                    slot,
                    limit,
                    lane: self.first_lane + k,
                });
            }
            if k == 0 && !self.patches.is_empty() {
                let step = self.lanes[k].steps;
                self.apply_patches(step);
            }
            let before = (k == 0 && self.observer.is_some()).then(|| self.lanes[k].clone());
            let flow = self.execute(p, slot, k)?;
            let lane = &mut self.lanes[k];
            lane.steps += 1;
            match flow {
                _ if p.insn.end => lane.running = false,
                Flow::Exit => lane.running = false,
                Flow::Jump(t) => lane.pc = t,
                Flow::Next => lane.pc = slot + 1,
            }
            if let Some(before) = before {
                let changed = self.changes(&before);
                let lane = &self.lanes[k];
                let step = VertexStep {
                    step: lane.steps - 1,
                    slot,
                    changed,
                    next: lane.running.then_some(lane.pc),
                    depth: lane.stack.len(),
                };
                if let Some(observer) = self.observer.as_mut() {
                    observer(step);
                }
            }
        }
        Ok(())
    }

    /// Fetch source `n` for lane `k`: register, swizzle, abs, then negate (RPCS3 `GetSRC` /
    /// `read_src`: `-abs(x.swz)`).
    fn source(
        &mut self,
        p: &Prepared,
        slot: usize,
        k: usize,
        n: usize,
    ) -> Result<Vec4<T>, VertexExecError> {
        let i = &p.insn;
        let s = &i.sources[n];
        let lane_no = self.first_lane + k;
        let lane = &self.lanes[k];
        let rel = || {
            i64::from(
                lane.addr[usize::from(i.address.register & 1)][i.address.component.code() as usize],
            )
        };
        let raw: Vec4<T> = match s.reg_type {
            RegisterType::Temp => lane.temps[usize::from(s.temp_index) % TEMPS],
            RegisterType::Input => {
                let mut index = i64::from(i.input.0);
                // D0 bit 27 index_input (rsx-microcode.md B.8 "VP registers").
                if i.index_input && self.ctx.options.rules.relative_inputs {
                    index += rel();
                }
                let attribute = u8::try_from(index).ok().filter(|a| *a < 16).ok_or(
                    VertexExecError::InputOutOfRange {
                        slot,
                        index,
                        lane: lane_no,
                    },
                )?;
                if self.ctx.env.input_mask & (1 << attribute) == 0 {
                    if !self.ctx.options.allow_missing_inputs {
                        return Err(VertexExecError::MissingInput {
                            slot,
                            attribute,
                            lane: lane_no,
                        });
                    }
                    [T::ZERO, T::ZERO, T::ZERO, T::ONE]
                } else {
                    match self
                        .inputs
                        .get(k)
                        .and_then(|v| v.get(usize::from(attribute)))
                    {
                        Some(v) => v.map(T::from_f32),
                        None => {
                            return Err(VertexExecError::MissingInput {
                                slot,
                                attribute,
                                lane: lane_no,
                            })
                        }
                    }
                }
            }
            RegisterType::Constant => {
                let mut index = i64::from(i.const_index);
                // D3 bit 1 index_const: const_src + A[sel].component (RPCS3 `vc[const_src + a]`).
                if i.index_const {
                    index += rel();
                }
                let constant = usize::try_from(index)
                    .ok()
                    .filter(|c| *c < CONSTANT_COUNT)
                    .ok_or(VertexExecError::ConstantOutOfRange {
                        slot,
                        index,
                        lane: lane_no,
                    })?;
                match self.ctx.env.constants.get(constant) {
                    Some(v) => v.map(T::from_f32),
                    None if self.ctx.options.allow_unknown_constants => {
                        self.unknown.insert(UnknownConstantRead { constant, slot });
                        [T::ZERO; 4]
                    }
                    None => {
                        return Err(VertexExecError::UnknownConstant {
                            slot,
                            constant,
                            lane: lane_no,
                        })
                    }
                }
            }
        };
        Ok(p.modify(n, raw))
    }

    /// `any()` branch condition of lane `k` (`Prepared::branch_taken`).
    fn branch_taken(&self, p: &Prepared, k: usize) -> bool {
        p.branch_taken(&self.lanes[k].cc)
    }

    /// Write `value` for lane `k` through `mask`: output register when this unit is the
    /// result writer, temp when named, CC when updated or when there is no other destination.
    fn write(
        &mut self,
        p: &Prepared,
        k: usize,
        value: Vec4<T>,
        mask: [bool; 4],
        temp: Option<u8>,
        is_writer: bool,
    ) {
        if !mask.iter().any(|m| *m) {
            return;
        }
        let i = &p.insn;
        let cc_sel = p.cc_index();
        let lane = &mut self.lanes[k];
        let put = |dst: &mut Vec4<T>| {
            for c in 0..4 {
                if mask[c] {
                    dst[c] = value[c];
                }
            }
        };
        if is_writer {
            if let Some(o) = i.output {
                if let Some(dst) = lane.out.get_mut(usize::from(o.0)) {
                    put(dst);
                    lane.written |= 1 << o.0;
                }
            }
        }
        if let Some(t) = temp {
            put(&mut lane.temps[usize::from(t) % TEMPS]);
        }
        if p.writes_cc(temp, is_writer) {
            put(&mut lane.cc[cc_sel]);
        }
    }

    fn execute(&mut self, p: &Prepared, slot: usize, k: usize) -> Result<Flow, VertexExecError> {
        let i = &p.insn;
        let o = &self.ctx.options.rules;
        // D0.cond == 0 (FL): nothing is written (RPCS3 SetDST; rsx-microcode.md B.8).
        let writes = i.condition.relation != Relation::FL;
        if writes {
            let mut src = [[T::ZERO; 4]; 3];
            for (n, value) in src.iter_mut().enumerate() {
                if p.reads[n] {
                    *value = self.source(p, slot, k, n)?;
                }
            }
            let cmask = p.cond_mask(&self.lanes[k].cc);
            let vmask = [0, 1, 2, 3].map(|c| p.vec_mask[c] && cmask[c]);
            let smask = [0, 1, 2, 3].map(|c| p.sca_mask[c] && cmask[c]);
            let vector = match i.vector {
                VectorOpcode::Arl => {
                    let floor = o.arl == ArlRounding::Floor;
                    let a = src[0].map(|v| math::address(v, floor));
                    let reg = usize::from(i.vec_dst_temp.unwrap_or(0) & 1);
                    let lane = &mut self.lanes[k];
                    for c in 0..4 {
                        if vmask[c] {
                            lane.addr[reg][c] = a[c];
                        }
                    }
                    None
                }
                VectorOpcode::Txl => self.ctx.env.sampler.map(|s| {
                    // TXL: coordinate src0, explicit LOD src1.x (RPCS3; rsx-microcode.md open
                    // question 1).
                    let coord = src[0].map(|v| v.to_f64() as f32);
                    let lod = src[1][0].to_f64() as f32;
                    s.sample_lod(p.texture_unit.unwrap_or(0), coord, lod)
                        .map(T::from_f32)
                }),
                op => math::vector_op(op, &src, o, self.ctx.options.reassociate),
            };
            let scalar = math::scalar_op(i.scalar, src[2], o);
            if let Some(v) = vector {
                let v = if i.saturate {
                    math::saturate(v, o.saturate_nan)
                } else {
                    v
                };
                self.write(p, k, v, vmask, i.vec_dst_temp, i.vec_result);
            }
            if let Some(v) = scalar {
                let v = if i.saturate {
                    math::saturate(v, o.saturate_nan)
                } else {
                    v
                };
                self.write(p, k, v, smask, i.sca_dst_temp, !i.vec_result);
            }
        }
        self.flow(p, slot, k)
    }

    fn flow(&mut self, p: &Prepared, slot: usize, k: usize) -> Result<Flow, VertexExecError> {
        let i = &p.insn;
        let lane_no = self.first_lane + k;
        let target = || usize::from(p.target.unwrap_or(0));
        let static_taken = || p.static_taken(self.ctx.env.branch_bits.unwrap_or(0));
        Ok(match i.scalar {
            ScalarOpcode::Bri if self.branch_taken(p, k) => Flow::Jump(target()),
            ScalarOpcode::Brb if static_taken() => Flow::Jump(target()),
            ScalarOpcode::Bra if self.branch_taken(p, k) => {
                let lane = &self.lanes[k];
                let t = i64::from(
                    lane.addr[usize::from(i.address.register & 1)]
                        [i.address.component.code() as usize],
                );
                match usize::try_from(t)
                    .ok()
                    .filter(|t| *t < self.ctx.table.slots.len())
                {
                    Some(t) => Flow::Jump(t),
                    None => {
                        return Err(VertexExecError::BranchOutOfRange {
                            slot,
                            target: t,
                            lane: lane_no,
                        })
                    }
                }
            }
            // CLI: RPCS3 treats it as CAL ("works same as BRI"); Mesa's CAL is 0x0B.
            ScalarOpcode::Cal | ScalarOpcode::Cli if self.branch_taken(p, k) => {
                self.call(slot, k, target())?
            }
            ScalarOpcode::Clb if static_taken() => self.call(slot, k, target())?,
            ScalarOpcode::Ret if self.branch_taken(p, k) => match self.lanes[k].stack.pop() {
                Some(r) => Flow::Jump(r),
                None => Flow::Exit,
            },
            _ => Flow::Next,
        })
    }

    fn call(&mut self, slot: usize, k: usize, target: usize) -> Result<Flow, VertexExecError> {
        let depth = self.ctx.options.rules.call_depth;
        let lane = &mut self.lanes[k];
        if lane.stack.len() >= depth {
            return Err(VertexExecError::CallStackOverflow {
                slot,
                depth,
                lane: self.first_lane + k,
            });
        }
        lane.stack.push(slot + 1);
        Ok(Flow::Jump(target))
    }
}
