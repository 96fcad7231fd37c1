//! Execution of one 2×2 quad: the four lanes run the program in lockstep, one instruction at
//! a time, with per-lane active masks for IF/ELSE, loops, BRK and RET (structured, as RPCS3
//! builds them, rsx-microcode.md B.5), so derivatives and implicit texture LODs can read the
//! neighbouring lanes.

use rsxtrace_program::fragment::{
    AluOperands, FlowKind, FpOpcode, FragmentInstruction, LoopFields, Precision, PrecisionModifier,
    Relation, Source, SourceKind,
};

use super::error::FragmentExecError;
use super::io::{attr, LaneOutputs, QuadInputs, QuadOutputs};
use super::ops;
use super::options::{
    FragmentOptions, FragmentState, LodOperand, LoopCounter, PerspectiveFlag,
    CONTROL_32_BIT_EXPORTS, CONTROL_DEPTH_EXPORT,
};
use super::precision::{fx12, fx9, saturate, scale_factor, source_modifier};
use super::prepare::{sources_read, Prepared};
use super::real::{idx4, map4, Real};
use super::regfile::RegisterFile;
use crate::texture::{LodSource, SampleRequest, Sampler};

type V<T> = [T; 4];

/// Deepest IF/LOOP nesting accepted (CG-FP40 allows four loop levels; IFs nest deeper).
pub const MAX_NESTING: usize = 64;

/// The state of one quad being executed.
pub struct Quad<'a, T: Real> {
    prog: &'a Prepared<'a>,
    opts: &'a FragmentOptions,
    control: u32,
    inputs: &'a QuadInputs,
    sampler: &'a dyn Sampler,
    regs: [RegisterFile<T>; 4],
    /// Condition registers CC0/CC1 per lane.
    cc: [[V<T>; 2]; 4],
    killed: u8,
    returned: u8,
    /// Lanes that executed BRK in the innermost loop.
    broken: u8,
    a0: i64,
    ended: bool,
    steps: u64,
    depth: usize,
}

impl<'a, T: Real> Quad<'a, T> {
    /// A quad with every register and condition code at 0 (B.3).
    pub fn new(
        prog: &'a Prepared<'a>,
        state: &'a FragmentState,
        inputs: &'a QuadInputs,
        sampler: &'a dyn Sampler,
    ) -> Self {
        Quad {
            prog,
            opts: &state.options,
            control: state.control,
            inputs,
            sampler,
            regs: Default::default(),
            cc: [[[T::ZERO; 4]; 2]; 4],
            killed: 0,
            returned: 0,
            broken: 0,
            a0: 0,
            ended: false,
            steps: 0,
            depth: 0,
        }
    }

    /// Runs the program and collects the outputs.
    pub fn run(mut self) -> Result<QuadOutputs, FragmentExecError> {
        self.block(0, u32::MAX, 0xF)?;
        Ok(self.outputs())
    }

    /// The register file of `lane` (for inspection).
    pub fn registers(&self, lane: usize) -> Option<&RegisterFile<T>> {
        self.regs.get(lane)
    }

    fn outputs(&self) -> QuadOutputs {
        let mut out = QuadOutputs::default();
        for (l, o) in out.lanes.iter_mut().enumerate() {
            let Some(regs) = self.regs.get(l) else {
                continue;
            };
            *o = lane_outputs(regs, self.control);
            o.killed = self.killed & (1 << l) != 0;
            o.covered = self.inputs.coverage & (1 << l) != 0;
        }
        out
    }

    /// Executes instructions from index `i` while their slot is below `end_slot`, for the
    /// lanes in `mask`.
    fn block(&mut self, mut i: usize, end_slot: u32, mask: u8) -> Result<(), FragmentExecError> {
        while let Some(insn) = self.prog.insns.get(i) {
            if insn.slot >= end_slot || self.ended {
                break;
            }
            let active = mask & !self.returned & !self.broken;
            if active == 0 {
                break;
            }
            self.steps += 1;
            if self.steps > self.opts.max_steps {
                return Err(FragmentExecError::StepLimit {
                    slot: insn.slot,
                    limit: self.opts.max_steps,
                });
            }
            if let Some(flow) = insn.flow() {
                match flow.kind {
                    FlowKind::Ife {
                        else_slot,
                        end_slot: end,
                    } => {
                        let taken = self.flow_test(insn, active);
                        if taken != 0 {
                            self.nested(insn, |q| q.block(i + 1, else_slot, taken))?;
                        }
                        let other = active & !taken;
                        if other != 0 && else_slot < end {
                            let j = self.prog.index_of(else_slot, insn.slot)?;
                            self.nested(insn, |q| q.block(j, end, other))?;
                        }
                        if insn.end {
                            self.ended = true;
                            break;
                        }
                        i = self.prog.index_of(end, insn.slot)?;
                        continue;
                    }
                    FlowKind::Loop(l) | FlowKind::Rep(l) => {
                        self.run_loop(insn, i, l, active)?;
                        if insn.end {
                            self.ended = true;
                            break;
                        }
                        i = self.prog.index_of(l.end_slot, insn.slot)?;
                        continue;
                    }
                    // BRK leaves the innermost loop (B.5); outside a loop it stops the lanes
                    // like RET.
                    FlowKind::Brk => self.broken |= self.flow_test(insn, active),
                    // RET outside a subroutine ends the program for the passing lanes (B.5).
                    FlowKind::Ret => self.returned |= self.flow_test(insn, active),
                    FlowKind::Cal { .. } => {
                        return Err(FragmentExecError::UnsupportedOpcode {
                            slot: insn.slot,
                            opcode: insn.opcode,
                        })
                    }
                }
            } else {
                self.instruction(insn, active)?;
            }
            // END stops the program after this instruction (B.5).
            if insn.end {
                self.ended = true;
                break;
            }
            i += 1;
        }
        Ok(())
    }

    fn nested(
        &mut self,
        insn: &FragmentInstruction,
        f: impl FnOnce(&mut Self) -> Result<(), FragmentExecError>,
    ) -> Result<(), FragmentExecError> {
        if self.depth >= MAX_NESTING {
            return Err(FragmentExecError::NestingTooDeep {
                slot: insn.slot,
                limit: MAX_NESTING,
            });
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// LOOP/REP: `count` iterations of the body (B.5; RPCS3 `for (i = 0; i < count; i++)`),
    /// A0 per [`LoopCounter`]; BRK removes lanes until the loop ends.
    fn run_loop(
        &mut self,
        insn: &FragmentInstruction,
        i: usize,
        l: LoopFields,
        active: u8,
    ) -> Result<(), FragmentExecError> {
        let saved_broken = self.broken;
        let saved_a0 = self.a0;
        self.broken = 0;
        for k in 0..i64::from(l.count) {
            let m = active & !self.returned & !self.broken;
            if m == 0 || self.ended {
                break;
            }
            self.a0 = match self.opts.loop_counter {
                LoopCounter::Iteration => k,
                LoopCounter::InitIncrement => i64::from(l.init) + k * i64::from(l.increment),
            };
            self.nested(insn, |q| q.block(i + 1, l.end_slot, m))?;
        }
        self.broken = saved_broken;
        self.a0 = saved_a0;
        Ok(())
    }

    /// Whether the condition passes for component `c` of `lane` (B.2).
    #[inline]
    fn cond_passes(&self, insn: &FragmentInstruction, lane: usize, c: usize) -> bool {
        let cond = &insn.condition;
        let Some(v) = self
            .cc
            .get(lane)
            .and_then(|cc| cc.get(usize::from(cond.cc & 1)))
            .and_then(|v| v.get(usize::from(cond.swizzle.0[c & 3] & 3)))
        else {
            return false;
        };
        let v = *v;
        // IEEE comparisons: a NaN passes only NE and TR (B.2).
        match cond.relation {
            Relation::Fl => false,
            Relation::Lt => v < T::ZERO,
            Relation::Eq => v == T::ZERO,
            Relation::Le => v <= T::ZERO,
            Relation::Gt => v > T::ZERO,
            Relation::Ne => v != T::ZERO,
            Relation::Ge => v >= T::ZERO,
            Relation::Tr => true,
        }
    }

    /// The lanes of `active` where any swizzled component passes (flow ops and KIL use
    /// `any()`, B.2 / RPCS3 `AddFlowOp`).
    fn flow_test(&self, insn: &FragmentInstruction, active: u8) -> u8 {
        (0..4)
            .filter(|&l| active & (1 << l) != 0 && (0..4).any(|c| self.cond_passes(insn, l, c)))
            .fold(0, |m, l| m | (1 << l))
    }

    fn instruction(
        &mut self,
        insn: &FragmentInstruction,
        active: u8,
    ) -> Result<(), FragmentExecError> {
        let Some(alu) = insn.alu() else {
            return Ok(());
        };
        match insn.opcode {
            // FENCT/FENCB: no-ops (RPCS3 emits a comment only, B.5).
            FpOpcode::Nop | FpOpcode::Fenct | FpOpcode::Fencb => Ok(()),
            // KIL: discard where any(CC test) (B.5). Killed lanes keep running as helper
            // lanes so their neighbours' derivatives stay defined; the output is flagged.
            FpOpcode::Kil => {
                self.killed |= self.flow_test(insn, active);
                Ok(())
            }
            FpOpcode::Ddx | FpOpcode::Ddy => {
                let s = self.quad_source(insn, alu, 0)?;
                let d = if insn.opcode == FpOpcode::Ddx {
                    ddx(&s)
                } else {
                    ddy(&s)
                };
                for (l, v) in d.into_iter().enumerate() {
                    if active & (1 << l) != 0 {
                        self.write(insn, alu, l, v);
                    }
                }
                Ok(())
            }
            op if op.is_texture() => self.texture(insn, alu, active),
            op => {
                let n = sources_read(op);
                for l in 0..4 {
                    if active & (1 << l) == 0 {
                        continue;
                    }
                    let mut s = [[T::ZERO; 4]; 3];
                    for (k, slot) in s.iter_mut().enumerate().take(n) {
                        *slot = self.source(insn, alu, l, k)?;
                    }
                    let Some(v) = ops::alu(op, &s, self.opts) else {
                        return Err(FragmentExecError::UnsupportedOpcode {
                            slot: insn.slot,
                            opcode: op,
                        });
                    };
                    self.write(insn, alu, l, v);
                }
                Ok(())
            }
        }
    }

    /// Source `k` for all four lanes.
    fn quad_source(
        &self,
        insn: &FragmentInstruction,
        alu: &AluOperands,
        k: usize,
    ) -> Result<[V<T>; 4], FragmentExecError> {
        let mut out = [[T::ZERO; 4]; 4];
        for (l, o) in out.iter_mut().enumerate() {
            *o = self.source(insn, alu, l, k)?;
        }
        Ok(out)
    }

    /// TEX, TXP, TXD, TXL, TXB, TEXBEM, TXPBEM (B.4).
    fn texture(
        &mut self,
        insn: &FragmentInstruction,
        alu: &AluOperands,
        active: u8,
    ) -> Result<(), FragmentExecError> {
        let op = insn.opcode;
        let n = sources_read(op);
        let mut src = [[[T::ZERO; 4]; 3]; 4];
        for (l, s) in src.iter_mut().enumerate() {
            for (k, v) in s.iter_mut().enumerate().take(n) {
                *v = self.source(insn, alu, l, k)?;
            }
        }
        let coords: [V<T>; 4] = src.map(|[a, b, c]| {
            let base = match op {
                // x2d = src0.xyxy + src1.xxxx·src2.xzxz + src1.yyyy·src2.ywyw, then TEX/TXP
                // with it (RPCS3, "untested", B.4).
                FpOpcode::Texbem | FpOpcode::Txpbem => {
                    let x = ops::bem(a, b, c);
                    // The projective variant keeps src0's q.
                    [x[0], x[1], a[2], a[3]]
                }
                _ => a,
            };
            match op {
                // TXP divides xyz by q before sampling (RPCS3 interpreter, B.4).
                FpOpcode::Txp | FpOpcode::Txpbem => [
                    base[0] / base[3],
                    base[1] / base[3],
                    base[2] / base[3],
                    base[3],
                ],
                _ => base,
            }
        });
        let dx = ddx(&coords);
        let dy = ddy(&coords);
        for l in 0..4 {
            if active & (1 << l) == 0 {
                continue;
            }
            let [a, b, c] = src[l];
            let lod_value = match self.opts.lod_operand {
                LodOperand::Src1X => b[0],
                LodOperand::Src0W => a[3],
            };
            let lod = match op {
                FpOpcode::Txl => LodSource::Explicit(lod_value.to_f32()),
                FpOpcode::Txb => LodSource::Bias(lod_value.to_f32()),
                // TXD: src1 = d/dx, src2 = d/dy (B.4).
                FpOpcode::Txd => LodSource::Gradients {
                    ddx: map4(b, T::to_f32),
                    ddy: map4(c, T::to_f32),
                },
                _ => LodSource::Implicit,
            };
            let request = SampleRequest {
                coord: map4(coords[l], T::to_f32),
                ddx: map4(dx[l], T::to_f32),
                ddy: map4(dy[l], T::to_f32),
                lod,
            };
            let texel = self.sampler.sample(insn.texture_unit, &request);
            let mut v = map4(texel, T::from_f32);
            if insn.exp_tex {
                // bx2: 2x − 1 (B.4, RPCS3 `_enable_texture_expand`).
                v = map4(v, |x| T::from_f32(2.0) * x - T::ONE);
            }
            self.write(insn, alu, l, v);
        }
        Ok(())
    }

    /// Reads source `k` of `insn` for `lane`: register/input/constant, swizzle, abs,
    /// precision modifier, negate (B.2 "Source precision modifiers", RPCS3 `GetSRC`).
    #[inline]
    fn source(
        &self,
        insn: &FragmentInstruction,
        alu: &AluOperands,
        lane: usize,
        k: usize,
    ) -> Result<V<T>, FragmentExecError> {
        let Some(src) = alu.sources.get(k) else {
            return Ok([T::ZERO; 4]);
        };
        let mut exempt_modifier = false;
        let raw: V<T> = match src.kind {
            SourceKind::Temp => self.read_temp(lane, src),
            SourceKind::Constant => insn
                .constant
                .map(|c| map4(c.0, |w| T::from_f32(f32::from_bits(w))))
                .unwrap_or([T::ZERO; 4]),
            SourceKind::Input => {
                let (v, is_colour) = self.read_input(insn, alu, lane)?;
                exempt_modifier = is_colour;
                v
            }
        };
        let sw = src.swizzle.0;
        let mut v = idx4(|c| raw[usize::from(sw[c] & 3)]);
        if src.abs {
            v = map4(v, T::abs);
        }
        // fp16 temps with an fp16 modifier are not re-clamped (a no-op here: H values are
        // already binary16); COL0/COL1 are exempt from the modifier (B.2).
        if !exempt_modifier && src.modifier != PrecisionModifier::None {
            v = map4(v, |x| {
                source_modifier(x, src.modifier, self.opts.fx12, self.opts.fx9)
            });
        }
        if src.negate {
            v = map4(v, |x| -x);
        }
        Ok(v)
    }

    #[inline]
    fn read_temp(&self, lane: usize, src: &Source) -> V<T> {
        let Some(regs) = self.regs.get(lane) else {
            return [T::ZERO; 4];
        };
        if src.fp16 {
            idx4(|c| regs.read_h(src.index, c))
        } else {
            idx4(|c| regs.read_r(src.index, c))
        }
    }

    /// The instruction's input attribute for `lane`, and whether it is COL0/COL1.
    #[inline]
    fn read_input(
        &self,
        insn: &FragmentInstruction,
        alu: &AluOperands,
        lane: usize,
    ) -> Result<(V<T>, bool), FragmentExecError> {
        let index = if alu.indexed_input {
            // TEX[A0 + displacement] (B.3; RPCS3 `_indexed_load(i + addr_reg)`).
            let t = self.a0 + i64::from(alu.input_displacement);
            if !(0..=9).contains(&t) {
                return Err(FragmentExecError::IndexedInputOutOfRange {
                    slot: insn.slot,
                    index: t,
                });
            }
            attr::TEX0 + t as usize
        } else {
            usize::from(insn.input.0)
        };
        let lane_in = self.inputs.lanes.get(lane);
        let Some(a) = lane_in.and_then(|li| li.attributes.get(index)) else {
            return Err(FragmentExecError::InvalidInput {
                slot: insn.slot,
                attribute: insn.input.0,
            });
        };
        let mut v = map4(*a, T::from_f32);
        if alu.perspective
            && self.opts.perspective == PerspectiveFlag::MultiplyByWposW
            && index != attr::WPOS
            && index != attr::COL0
            && index != attr::COL1
        {
            let w = lane_in
                .and_then(|li| li.attributes.get(attr::WPOS))
                .map_or(T::ONE, |p| T::from_f32(p[3]));
            v = map4(v, |x| x * w);
        }
        let colour = index == attr::COL0 || index == attr::COL1;
        if colour {
            // COL0/COL1 are clamped to [0, 1] on read (B.3, RPCS3 "Hw testing showed").
            v = map4(v, saturate);
        }
        if index == attr::FOGC {
            // The hardware puts 0 in FOGC.w (B.3, Mesa nvfx_fragprog.c).
            v[3] = T::ZERO;
        }
        Ok((v, colour))
    }

    /// Writes `value` for `lane` following RPCS3's `SetDst` order (B.2): FL skips; scale;
    /// H destination rounds to fp16; saturate (NaN → 0) or the precision clamp (with the B.2
    /// exceptions); masked, per-component conditional write; CC update with the same value.
    #[inline]
    fn write(&mut self, insn: &FragmentInstruction, alu: &AluOperands, lane: usize, value: V<T>) {
        let d = insn.dest;
        if insn.condition.relation == Relation::Fl {
            return;
        }
        let mut v = value;
        if let Some(f) = scale_factor::<T>(alu.scale) {
            if f != T::ONE {
                v = map4(v, |x| x * f);
            }
        }
        if d.fp16 {
            v = map4(v, T::half_round_trip);
        }
        if d.saturate {
            v = map4(v, saturate);
        } else if !precision_exempt(insn) {
            match d.precision {
                Precision::Fp32 => {}
                // fp16 precision on an R register is ignored (B.2); on an H register the
                // value was already rounded above.
                Precision::Fp16 => {}
                Precision::Fx12 => v = map4(v, |x| fx12(x, self.opts.fx12)),
                Precision::Fx9 => v = map4(v, |x| fx9(x, self.opts.fx9)),
            }
        }
        let conditional = insn.condition.is_conditional();
        for (c, &x) in v.iter().enumerate() {
            if !d.mask.has(c) || (conditional && !self.cond_passes(insn, lane, c)) {
                continue;
            }
            if !d.no_dest {
                if let Some(regs) = self.regs.get_mut(lane) {
                    if d.fp16 {
                        regs.write_h(d.index, c, x);
                    } else {
                        regs.write_r(d.index, c, x);
                    }
                }
            }
            if d.set_cond {
                if let Some(cc) = self
                    .cc
                    .get_mut(lane)
                    .and_then(|cc| cc.get_mut(usize::from(d.cc_write & 1)))
                {
                    cc[c] = x;
                }
            }
        }
    }
}

/// The opcodes whose result skips the precision clamp, and MOV from an H temp to an H
/// destination (B.2 step 4 exceptions).
fn precision_exempt(insn: &FragmentInstruction) -> bool {
    match insn.opcode {
        FpOpcode::Nrm
        | FpOpcode::Max
        | FpOpcode::Min
        | FpOpcode::Cos
        | FpOpcode::Sin
        | FpOpcode::Refl
        | FpOpcode::Frc
        | FpOpcode::Lit
        | FpOpcode::Lif
        | FpOpcode::Lg2 => true,
        FpOpcode::Mov => {
            insn.dest.fp16
                && insn.alu().is_some_and(|a| {
                    let s = &a.sources[0];
                    s.kind == SourceKind::Temp && s.fp16
                })
        }
        _ => false,
    }
}

/// Coarse d/dx: right − left in each row of the quad (lanes 0 1 / 2 3).
fn ddx<T: Real>(v: &[V<T>; 4]) -> [V<T>; 4] {
    let top = idx4(|c| v[1][c] - v[0][c]);
    let bottom = idx4(|c| v[3][c] - v[2][c]);
    [top, top, bottom, bottom]
}

/// Coarse d/dy: bottom − top in each column of the quad, i.e. along increasing image rows.
fn ddy<T: Real>(v: &[V<T>; 4]) -> [V<T>; 4] {
    let left = idx4(|c| v[2][c] - v[0][c]);
    let right = idx4(|c| v[3][c] - v[1][c]);
    [left, right, left, right]
}

/// Colour and depth outputs of one lane (B.6).
fn lane_outputs<T: Real>(regs: &RegisterFile<T>, control: u32) -> LaneOutputs {
    let mut o = LaneOutputs::default();
    let r32 = control & CONTROL_32_BIT_EXPORTS != 0;
    // R0, R2, R3, R4 or H0, H4, H6, H8 (B.6).
    const R_REGS: [u8; 4] = [0, 2, 3, 4];
    const H_REGS: [u8; 4] = [0, 4, 6, 8];
    for (k, col) in o.colors.iter_mut().enumerate() {
        *col = idx4(|c| {
            if r32 {
                regs.read_r(R_REGS[k], c).to_f64()
            } else {
                regs.read_h(H_REGS[k], c).to_f64()
            }
        });
    }
    if control & CONTROL_DEPTH_EXPORT != 0 {
        o.depth = Some(regs.read_r(1, 2).to_f64());
    }
    o
}
