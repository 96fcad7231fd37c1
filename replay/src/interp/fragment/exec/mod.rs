//! The block engine: runs a pre-decoded program ([`Compiled`]) on up to
//! [`QUADS_PER_BLOCK`] quads at once, one instruction at a time for every lane of the block,
//! with per-lane active masks (one bit per lane in a `u64`) for IF/ELSE, loops, BRK, RET,
//! KIL and END (structured, as RPCS3 builds them, rsx-microcode.md B.5). Values are stored
//! component-major ([`BlockRegisters`]), so a swizzle picks rows and each operation is a
//! loop over lanes; derivatives and implicit texture LODs read the other lanes of their quad.
//!
//! Every lane computes exactly what it would computing alone in its quad: a lane's state
//! only changes while it is active, and END stops all four lanes of each quad that reaches
//! it. Only the shared step and nesting counters can be higher for a block than for one of
//! its quads, so [`Engine::run_block`] re-runs a failing block quad by quad and reports the
//! first quad's own error (or its results, when no quad fails on its own).

mod flow;
mod observe;
mod texture;

use rsxtrace_program::fragment::{PrecisionModifier, Relation};

use super::carry;
use super::compile::{Clamp, Compiled, Kind, Op, Read};
use super::error::FragmentExecError;
use super::io::{attr, QuadInputs, QuadOutputs, ATTRIBUTE_COUNT};
use super::ops;
use super::options::{
    FragmentOptions, FragmentState, HalfRounding, CONTROL_32_BIT_EXPORTS, CONTROL_DEPTH_EXPORT,
};
use super::precision::{fx12, fx9, saturate_row, source_modifier, to_half_row};
use super::real::{idx4, Real};
use super::regfile::{masked_copy, BlockRegisters, Row, LANES};
use super::rowops::{alu_rows, Rows};
use super::trace::{Patch, Step};
use crate::texture::Sampler;

/// Deepest IF/LOOP nesting accepted (CG-FP40 allows four loop levels; IFs nest deeper).
pub const MAX_NESTING: usize = 64;

/// Quads run together in one block.
pub const QUADS_PER_BLOCK: usize = LANES / 4;

/// Bit 0 of every quad's four lane bits.
const QUAD_LOW_BITS: u64 = 0x1111_1111_1111_1111;

/// All four lanes of every quad that has a lane in `m`.
#[inline]
fn whole_quads(m: u64) -> u64 {
    ((m | (m >> 1) | (m >> 2) | (m >> 3)) & QUAD_LOW_BITS) * 0xF
}

/// The components set in `mask`.
#[inline(always)]
fn comps(mask: u8) -> impl Iterator<Item = usize> {
    (0..4).filter(move |c| mask & (1 << c) != 0)
}

/// Lanes `l` of `row` where `f(row[l])`.
#[inline(always)]
fn lanes_where<T: Real>(row: &Row<T>, f: impl Fn(T) -> bool) -> u64 {
    row.iter()
        .enumerate()
        .fold(0, |m, (l, &v)| m | (u64::from(f(v)) << l))
}

/// The execution state of one block; reusable from block to block.
pub struct Engine<'a, T: Real> {
    prog: &'a Compiled<T>,
    opts: &'a FragmentOptions,
    control: u32,
    sampler: &'a dyn Sampler,
    /// The block's quads, as given.
    quads: Vec<QuadInputs>,
    /// Quads being executed (all of `quads`, or one of them when re-running).
    range: (usize, usize),
    /// Input attributes, component-major, for the attributes the program reads.
    inputs: Vec<Rows<T>>,
    regs: BlockRegisters<T>,
    /// Condition registers CC0/CC1.
    cc: [Rows<T>; 2],
    /// Source and result scratch rows.
    src: [Rows<T>; 3],
    res: Rows<T>,
    killed: u64,
    returned: u64,
    /// Lanes that executed BRK in the innermost loop.
    broken: u64,
    /// Lanes of quads that reached END.
    ended: u64,
    a0: i64,
    steps: u64,
    depth: usize,
    /// Receives a [`Step`] of quad 0 after every executed instruction ([`Engine::observe`]).
    observer: Option<Observer<'a>>,
    /// The lane of quad 0 whose whole register file each [`Step`] carries.
    snapshot_lane: Option<usize>,
    /// Register writes to make before given steps ([`Engine::patch`]).
    patches: Vec<Patch>,
}

/// A step observer ([`super::trace`]).
pub type Observer<'a> = Box<dyn FnMut(Step) + 'a>;

impl<'a, T: Real> Engine<'a, T> {
    /// An engine for `prog` under `state`.
    pub fn new(prog: &'a Compiled<T>, state: &'a FragmentState, sampler: &'a dyn Sampler) -> Self {
        let zero_rows = [[T::ZERO; LANES]; 4];
        Engine {
            prog,
            opts: &state.options,
            control: state.control,
            sampler,
            quads: Vec::with_capacity(QUADS_PER_BLOCK),
            range: (0, 0),
            inputs: vec![zero_rows; ATTRIBUTE_COUNT],
            regs: if state.options.half_rounding == HalfRounding::Keep {
                BlockRegisters::new(prog.registers).keeping_halves()
            } else {
                BlockRegisters::new(prog.registers)
            },
            cc: [zero_rows; 2],
            src: [zero_rows; 3],
            res: zero_rows,
            killed: 0,
            returned: 0,
            broken: 0,
            ended: 0,
            a0: 0,
            steps: 0,
            depth: 0,
            observer: None,
            snapshot_lane: None,
            patches: Vec::new(),
        }
    }

    /// Runs the quads `first..first + out.len()` (at most [`QUADS_PER_BLOCK`]; `inputs(i)`
    /// is called once for each) and stores their outputs in `out`.
    pub fn run_block(
        &mut self,
        first: usize,
        out: &mut [QuadOutputs],
        inputs: &impl Fn(usize) -> QuadInputs,
    ) -> Result<(), FragmentExecError> {
        let n = out.len().min(QUADS_PER_BLOCK);
        self.quads.clear();
        self.quads
            .extend((0..n).map(|q| inputs(first.saturating_add(q))));
        if self.run_range(0, n).is_ok() {
            self.store(out);
            return Ok(());
        }
        // A shared counter may have gone over a limit no single quad reaches: re-run alone.
        for (q, o) in out.iter_mut().enumerate().take(n) {
            self.run_range(q, q + 1)?;
            self.store(std::slice::from_mut(o));
        }
        Ok(())
    }

    /// Runs the loaded quads `start..end` from a clean state.
    fn run_range(&mut self, start: usize, end: usize) -> Result<(), FragmentExecError> {
        self.range = (start, end);
        self.load_inputs();
        self.regs.reset();
        self.cc = [[[T::ZERO; LANES]; 4]; 2];
        (self.killed, self.returned, self.broken, self.ended) = (0, 0, 0, 0);
        (self.a0, self.steps, self.depth) = (0, 0, 0);
        let count = end.saturating_sub(start);
        let lanes = match u32::try_from(count * 4) {
            Ok(b) if b < 64 => (1u64 << b) - 1,
            _ => u64::MAX,
        };
        self.block(0, u32::MAX, lanes)
    }

    /// The quads being executed.
    fn running(&self) -> &[QuadInputs] {
        self.quads.get(self.range.0..self.range.1).unwrap_or(&[])
    }

    /// Transposes the attributes the program reads into rows.
    fn load_inputs(&mut self) {
        let (start, end) = self.range;
        let quads = self.quads.get(start..end).unwrap_or(&[]);
        for (a, rows) in self.inputs.iter_mut().enumerate() {
            if self.prog.attributes & (1 << a) == 0 {
                continue;
            }
            for (c, row) in rows.iter_mut().enumerate() {
                row.fill(T::ZERO);
                for (q, quad) in quads.iter().enumerate() {
                    for (l, lane) in quad.lanes.iter().enumerate() {
                        let v = lane.attributes.get(a).map_or(0.0, |v| v[c]);
                        if let Some(x) = row.get_mut(q * 4 + l) {
                            *x = T::from_f32(v);
                        }
                    }
                }
            }
        }
    }

    /// Colour and depth outputs (B.6) of the running quads into `out`.
    fn store(&self, out: &mut [QuadOutputs]) {
        let r32 = self.control & CONTROL_32_BIT_EXPORTS != 0;
        // R0, R2, R3, R4 or H0, H4, H6, H8 (B.6).
        const R_REGS: [u8; 4] = [0, 2, 3, 4];
        const H_REGS: [u8; 4] = [0, 4, 6, 8];
        for (q, (o, quad)) in out.iter_mut().zip(self.running()).enumerate() {
            for (l, lo) in o.lanes.iter_mut().enumerate() {
                let lane = q * 4 + l;
                for (k, col) in lo.colors.iter_mut().enumerate() {
                    *col = idx4(|c| {
                        if r32 {
                            self.regs.read_r(R_REGS[k], c, lane).to_f64()
                        } else {
                            self.regs.read_h(H_REGS[k], c, lane).to_f64()
                        }
                    });
                }
                lo.depth = (self.control & CONTROL_DEPTH_EXPORT != 0)
                    .then(|| self.regs.read_r(1, 2, lane).to_f64());
                lo.killed = (self.killed >> lane) & 1 != 0;
                lo.covered = quad.coverage & (1 << l) != 0;
            }
        }
    }

    fn instruction(&mut self, op: &Op<T>, active: u64) -> Result<(), FragmentExecError> {
        match op.kind {
            // KIL: discard where any(CC test) (B.5). Killed lanes keep running as helper
            // lanes so their neighbours' derivatives stay defined; the output is flagged.
            Kind::Kil => {
                self.killed |= self.flow_test(&op.cond, active);
                Ok(())
            }
            Kind::Ddx | Kind::Ddy => {
                self.fetch(op, 0)?;
                let s = &self.src[0];
                for c in comps(op.dst.mask) {
                    let (v, r) = (&s[c], &mut self.res[c]);
                    for q in 0..QUADS_PER_BLOCK {
                        let b = q * 4;
                        let (Some(v), Some(r)) = (v.get(b..b + 4), r.get_mut(b..b + 4)) else {
                            continue;
                        };
                        let d = if op.kind == Kind::Ddx {
                            // Right − left in each row (lanes 0 1 / 2 3).
                            let (top, bottom) = (v[1] - v[0], v[3] - v[2]);
                            [top, top, bottom, bottom]
                        } else {
                            // Bottom − top in each column, along increasing image rows.
                            let (left, right) = (v[2] - v[0], v[3] - v[1]);
                            [left, right, left, right]
                        };
                        r.copy_from_slice(&d);
                    }
                }
                self.write(op, active);
                Ok(())
            }
            Kind::Texture => self.texture(op, active),
            Kind::Alu => {
                for k in 0..op.sources {
                    self.fetch(op, k)?;
                }
                if !alu_rows(op.opcode, &self.src, &mut self.res, op.dst.mask, self.opts) {
                    self.alu_by_lane(op, active)?;
                }
                self.write(op, active);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Opcodes without a row form: [`ops::alu`] on each active lane.
    fn alu_by_lane(&mut self, op: &Op<T>, active: u64) -> Result<(), FragmentExecError> {
        for l in (0..LANES).filter(|l| (active >> l) & 1 != 0) {
            let s = [0, 1, 2].map(|k| idx4(|c| self.src[k][c][l]));
            let Some(v) = ops::alu(op.opcode, &s, self.opts) else {
                return Err(FragmentExecError::UnsupportedOpcode {
                    slot: op.slot,
                    opcode: op.opcode,
                });
            };
            for (row, x) in self.res.iter_mut().zip(v) {
                row[l] = x;
            }
        }
        Ok(())
    }

    /// Fills `self.src[k]` (the components in `op.need[k]`) with source `k`: register,
    /// input or constant, swizzle, abs, precision modifier, negate (B.2, RPCS3 `GetSRC`).
    fn fetch(&mut self, op: &Op<T>, k: usize) -> Result<(), FragmentExecError> {
        let (Some(s), Some(&need), Some(dst)) =
            (op.src.get(k), op.need.get(k), self.src.get_mut(k))
        else {
            return Ok(());
        };
        let sw = s.swizzle;
        match s.read {
            Read::Unused => {
                for c in comps(need) {
                    dst[c] = [T::ZERO; LANES];
                }
            }
            Read::R(r) => {
                for c in comps(need) {
                    match self.regs.r_row(r, usize::from(sw[c])) {
                        Some(row) => dst[c] = *row,
                        None => dst[c] = [T::ZERO; LANES],
                    }
                }
            }
            Read::H(h) => {
                for c in comps(need) {
                    self.regs.read_h_row(h, usize::from(sw[c]), &mut dst[c]);
                }
            }
            Read::Value(v) => {
                for c in comps(need) {
                    dst[c] = [v[c]; LANES];
                }
            }
            Read::Input { attr, perspective } => {
                read_input(
                    &self.inputs,
                    usize::from(attr),
                    perspective,
                    sw,
                    need,
                    dst,
                    op.slot,
                )?;
            }
            Read::Indexed {
                displacement,
                perspective,
            } => {
                // TEX[A0 + displacement] (B.3; RPCS3 `_indexed_load(i + addr_reg)`); outside
                // TEX0..TEX9 it reads (0, 0, 0, 1), as RPCS3's `_indexed_load` returns.
                let t = self.a0 + i64::from(displacement);
                match usize::try_from(t).ok().filter(|&t| t <= 9) {
                    Some(index) => read_input(
                        &self.inputs,
                        attr::TEX0 + index,
                        perspective,
                        sw,
                        need,
                        dst,
                        op.slot,
                    )?,
                    None => {
                        let w = self.inputs.get(attr::WPOS).map(|p| p[3]);
                        for c in comps(need) {
                            let v = if sw[c] & 3 == 3 { T::ONE } else { T::ZERO };
                            dst[c] = [v; LANES];
                            if let (true, Some(w)) = (perspective, w) {
                                for (x, w) in dst[c].iter_mut().zip(w) {
                                    *x = *x * w;
                                }
                            }
                        }
                    }
                }
            }
        }
        if s.abs {
            for c in comps(need) {
                dst[c] = dst[c].map(T::abs);
            }
        }
        if s.modifier != PrecisionModifier::None {
            let (m, opts) = (s.modifier, self.opts);
            for c in comps(need) {
                for x in dst[c].iter_mut() {
                    *x = source_modifier(*x, m, opts);
                }
            }
        }
        if s.negate {
            for c in comps(need) {
                for x in dst[c].iter_mut() {
                    *x = -*x;
                }
            }
        }
        Ok(())
    }

    /// Writes `self.res` following RPCS3's `SetDst` order (B.2): FL skips; scale; H
    /// destination converts to fp16 (truncation or nearest, [`FragmentOptions::half_rounding`]); saturate (NaN → 0) or the precision clamp (with the B.2
    /// exceptions); masked, per-component conditional write; CC update with the same value.
    /// The condition is tested on the CC as it was before the instruction, for every
    /// component (RPCS3 `AddCodeCond` selects with one vector test; the recompiled shader
    /// does the same), so a CC the instruction updates does not steer its own later
    /// components. Compiled for AVX2 where the CPU has it, as `rowops::alu_rows` is (the
    /// same operations lane by lane, so the same bits but for which NaN a NaN is).
    fn write(&mut self, op: &Op<T>, active: u64) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { self.write_avx2(op, active) };
            return;
        }
        self.write_portable(op, active);
    }

    /// [`Self::write_portable`] compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn write_avx2(&mut self, op: &Op<T>, active: u64) {
        self.write_portable(op, active);
    }

    /// [`Self::write`] for any CPU.
    #[inline(always)]
    fn write_portable(&mut self, op: &Op<T>, active: u64) {
        let d = op.dst;
        if d.skip {
            return;
        }
        let conditional = op.cond.relation != Relation::Tr;
        let carry = d.fp16
            && !T::WIDE
            && op.kind == Kind::Alu
            && self.opts.half_rounding == HalfRounding::Truncate
            && carry::carries(op.opcode);
        let mut cond_lanes = [active; 4];
        if conditional {
            for c in comps(d.mask) {
                cond_lanes[c] = active & self.cond_lanes(&op.cond, c);
            }
        }
        for c in comps(d.mask) {
            let v = &mut self.res[c];
            if let Some(f) = d.scale {
                for x in v.iter_mut() {
                    *x = *x * f;
                }
            }
            if carry {
                carry::carry_row(v, c, op.opcode, &self.src, d.scale, active, self.opts);
            }
            if d.fp16 {
                to_half_row(v, self.opts.half_rounding);
            }
            match d.clamp {
                Clamp::None => {}
                Clamp::Saturate => saturate_row(v),
                Clamp::Fx12 => {
                    for x in v.iter_mut() {
                        *x = fx12(*x, self.opts.fx12);
                    }
                }
                Clamp::Fx9 => {
                    for x in v.iter_mut() {
                        *x = fx9(*x, self.opts.fx9);
                    }
                }
            }
            let lanes = cond_lanes[c];
            if lanes == 0 {
                continue;
            }
            let v = &self.res[c];
            if d.write {
                if d.fp16 {
                    self.regs.write_h_row(d.index, c, v, lanes);
                } else {
                    self.regs.write_r_row(d.index, c, v, lanes);
                }
            }
            if d.set_cond {
                masked_copy(&mut self.cc[usize::from(d.cc & 1)][c], v, lanes);
            }
        }
    }
}

/// Rows of input attribute `index` for the components in `need` of swizzle `sw`: the
/// perspective factor, the COL0/COL1 clamp and FOGC.w = 0 (B.3).
fn read_input<T: Real>(
    inputs: &[Rows<T>],
    index: usize,
    perspective: bool,
    sw: [u8; 4],
    need: u8,
    dst: &mut Rows<T>,
    slot: u32,
) -> Result<(), FragmentExecError> {
    let Some(rows) = inputs.get(index) else {
        return Err(FragmentExecError::InvalidInput {
            slot,
            attribute: u8::try_from(index).unwrap_or(u8::MAX),
        });
    };
    let w = inputs.get(attr::WPOS).map(|p| &p[3]);
    for c in comps(need) {
        let r = usize::from(sw[c] & 3);
        let out = &mut dst[c];
        *out = rows[r];
        if let (true, Some(w)) = (perspective, w) {
            for (x, &w) in out.iter_mut().zip(w) {
                *x = *x * w;
            }
        }
        // COL0/COL1 are clamped to [0, 1] on read (B.3, RPCS3 "Hw testing showed").
        if index == attr::COL0 || index == attr::COL1 {
            saturate_row(out);
        }
        // The hardware puts 0 in FOGC.w (B.3, Mesa nvfx_fragprog.c).
        if index == attr::FOGC && r == 3 {
            out.fill(T::ZERO);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rsxtrace_program::fragment::{
        AluOperands, Condition, Destination, FlowKind, FlowOperands, FpOpcode, FragmentInstruction,
        FragmentProgram, InlineConstant, InputAttribute, Operands, OutputScale, Precision,
        Relation, Source, SourceKind, Swizzle, WriteMask,
    };

    use super::super::{run_fragment, run_single_quad, FragmentExecError, FragmentState};
    use super::*;
    use crate::texture::NoTextures;

    fn dest(index: u8, mask: u8) -> Destination {
        Destination {
            index,
            fp16: false,
            mask: WriteMask(mask),
            precision: Precision::Fp32,
            saturate: false,
            no_dest: false,
            set_cond: false,
            cc_write: 0,
        }
    }

    fn alu(slot: u32, opcode: FpOpcode, d: Destination, s: [Source; 3]) -> FragmentInstruction {
        FragmentInstruction {
            slot,
            opcode,
            end: false,
            dest: d,
            input: InputAttribute::tex(0),
            texture_unit: 0,
            exp_tex: false,
            condition: Condition::ALWAYS,
            operands: Operands::Alu(AluOperands {
                sources: s,
                scale: OutputScale::None,
                perspective: false,
                indexed_input: false,
                input_displacement: 0,
            }),
            constant: None,
        }
    }

    /// 0: MOV R0, f[TEX0] (sets CC0); 1: IFE GT CC0.x, else @4, end @5;
    /// 2: ADD R0, R0, {1, 2, 3, 4}; 4: MUL R0.y, R0, R0 + END (else branch: ends the quad);
    /// 5: DDX R2, R0; 6: MAD R0, R2, R0, R0 + END.
    fn divergent_program() -> FragmentProgram {
        let (r0, r2) = (Source::temp(0), Source::temp(2));
        let input = Source {
            kind: SourceKind::Input,
            ..r0
        };
        let konst = Source {
            kind: SourceKind::Constant,
            ..r0
        };
        let mut mov = alu(0, FpOpcode::Mov, dest(0, 0xF), [input, r0, r0]);
        mov.dest.set_cond = true;
        let ife = FragmentInstruction {
            opcode: FpOpcode::Ife,
            condition: Condition {
                relation: Relation::Gt,
                swizzle: Swizzle([0; 4]),
                cc: 0,
            },
            operands: Operands::Flow(FlowOperands {
                kind: FlowKind::Ife {
                    else_slot: 4,
                    end_slot: 5,
                },
                reserved: [0; 3],
            }),
            ..alu(1, FpOpcode::Ife, dest(0, 0), [r0; 3])
        };
        let mut add = alu(2, FpOpcode::Add, dest(0, 0xF), [r0, konst, r0]);
        add.constant = Some(InlineConstant([1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits)));
        let mut mul = alu(4, FpOpcode::Mul, dest(0, 0b0010), [r0, r0, r0]);
        mul.end = true;
        let ddx = alu(5, FpOpcode::Ddx, dest(2, 0xF), [r0, r0, r0]);
        let mut mad = alu(6, FpOpcode::Mad, dest(0, 0xF), [r2, r0, r0]);
        mad.end = true;
        FragmentProgram::new(vec![mov, ife, add, mul, ddx, mad])
    }

    /// 37 quads (two full blocks and a partial one); every third quad has a lane with a
    /// negative TEX0.x, so it takes the else branch and ends there.
    fn quads() -> Vec<QuadInputs> {
        (0..37u16)
            .map(|q| {
                let mut quad = QuadInputs {
                    coverage: 0xF,
                    ..Default::default()
                };
                for (l, lane) in quad.lanes.iter_mut().enumerate() {
                    let l16 = l as u16;
                    let x = if q % 3 == 0 && l == 2 {
                        -1.0
                    } else {
                        f32::from(q * 4 + l16) * 0.5 + 0.25
                    };
                    lane.attributes[attr::TEX0] = [x, f32::from(l16), 0.5, -2.0];
                }
                quad
            })
            .collect()
    }

    #[test]
    fn blocks_agree_with_quads_run_alone() {
        let program = divergent_program();
        let state = FragmentState::new(CONTROL_32_BIT_EXPORTS);
        let quads = quads();
        let all = run_fragment(&program, &state, &quads, &NoTextures).expect("runs");
        for (q, (got, input)) in all.iter().zip(&quads).enumerate() {
            let alone = run_single_quad(&program, &state, input, &NoTextures).expect("runs");
            assert_eq!(got, &alone, "quad {q}");
        }
        // Quad 1, lane 0: TEX0 = (2.25, 0, 0.5, -2); R0 = (3.25, 2, 3.5, 2) after ADD; DDX
        // (lane 1 − lane 0) = (0.5, 1, 0, 0); MAD R0 = R2·R0 + R0 = (4.875, 4, 3.5, 2).
        assert_eq!(all[1].lanes[0].colors[0], [4.875, 4.0, 3.5, 2.0]);
        // Quad 0 ended in the else branch (lane 2 negative): lane 0 keeps R0 from the ADD.
        assert_eq!(all[0].lanes[0].colors[0], [1.25, 2.0, 3.5, 2.0]);
        // Lane 2 of quad 0: TEX0 = (−1, 2, 0.5, −2), then MUL R0.y = 2·2.
        assert_eq!(all[0].lanes[2].colors[0], [-1.0, 4.0, 0.5, -2.0]);
    }

    #[test]
    fn shared_step_counter_does_not_fail_a_block() {
        // A mixed block executes 6 instructions, no single quad more than 5 (B.5 steps are
        // counted per quad).
        let program = divergent_program();
        let quads = quads();
        let reference =
            run_fragment(&program, &FragmentState::new(0x40), &quads, &NoTextures).expect("runs");
        let mut state = FragmentState::new(0x40);
        state.options.max_steps = 5;
        let limited = run_fragment(&program, &state, &quads, &NoTextures).expect("runs");
        assert_eq!(limited, reference);
        // With 4 the quads that skip the else branch run out at their fifth instruction.
        state.options.max_steps = 4;
        assert_eq!(
            run_fragment(&program, &state, &quads, &NoTextures),
            Err(FragmentExecError::StepLimit { slot: 6, limit: 4 })
        );
    }

    #[test]
    fn whole_quads_covers_each_touched_quad() {
        assert_eq!(whole_quads(0), 0);
        assert_eq!(whole_quads(0b0100), 0xF);
        assert_eq!(whole_quads(1 << 63 | 1 << 4), 0xF << 60 | 0xF0);
    }
}
