//! The row executor: a program run one instruction at a time over a whole group of vertices
//! (a row), for the renderers ([`super::run_vertex_outputs`]). Each instruction's operands
//! are decoded once for the row (register file, fixed or relative index, swizzle, masks),
//! then applied lane by lane with the lane executor's own arithmetic (`math`), so every lane
//! computes exactly what [`super::lanes::Group`] computes for it.
//!
//! Control flow is taken while it is uniform: a branch, call or return that every lane of the
//! row takes the same way (BRB/CLB always are; BRI/CAL/CLI/RET when the lanes' condition codes
//! agree) moves the whole row, which is the lane executor's schedule too (all its lanes share
//! one program counter). A row whose lanes would part ways is given up, and so is one that
//! would fail (an index out of range, an input or constant that may not be read, the step
//! limit, a call too deep): the caller runs that group on the lane executor, which diverges
//! and reconverges per lane, or reports the error exactly.
//!
//! Programs it does not take at all ([`row_program`] returns `None`): TXL, BRA (a target per
//! lane), opcodes without semantics, a slot reachable from the entry that does not decode.

use super::constants::{UnknownConstantRead, CONSTANT_COUNT};
use super::lanes::Context;
use super::math::{self, Vec4};
use super::options::ArlRounding;
use super::output::OUTPUT_COUNT;
use super::real::Real;
use super::table::{Prepared, ProgramTable, Slot};
use rsxtrace_program::vertex::{RegisterType, Relation, ScalarOpcode, VectorOpcode};
use std::collections::BTreeSet;

/// Temp registers addressable by the 6-bit index.
const TEMPS: usize = 64;

/// A program ready for [`run_rows`].
pub(crate) struct RowProgram<'t> {
    table: &'t ProgramTable,
    /// Row of each temp register a reachable slot names in the compact temp file (unused
    /// temps have none: a lane's temps are only those it can read or write).
    temp_rows: [usize; TEMPS],
    /// Temps the reachable slots name.
    temp_count: usize,
}

/// `table`'s program for the row executor when every slot reachable from its entry (through
/// fall-through and immediate branch and call targets) is one it runs exactly (see the module
/// documentation).
pub(crate) fn row_program(table: &ProgramTable) -> Option<RowProgram<'_>> {
    let mut seen = vec![false; table.slots.len()];
    let mut work = vec![table.start];
    let mut temp_rows = [usize::MAX; TEMPS];
    let mut temp_count = 0;
    while let Some(pc) = work.pop() {
        if seen.get(pc).copied().unwrap_or(true) {
            // Past the table: running there is the lane executor's error.
            if pc >= seen.len() {
                return None;
            }
            continue;
        }
        seen[pc] = true;
        let Slot::Ready(p) = table.get(pc) else {
            return None;
        };
        let i = &p.insn;
        let vector_ok = match i.vector {
            VectorOpcode::Arr | VectorOpcode::Ara | VectorOpcode::Txl => false,
            VectorOpcode::Arl => matches!(i.vec_dst_temp, Some(0 | 1)),
            _ => true,
        };
        let scalar_ok = !matches!(
            i.scalar,
            ScalarOpcode::Psh | ScalarOpcode::Pop | ScalarOpcode::Bra
        );
        if !(vector_ok && scalar_ok) {
            return None;
        }
        let mut name = |t: usize| {
            if temp_rows[t] == usize::MAX {
                temp_rows[t] = temp_count;
                temp_count += 1;
            }
        };
        for (k, s) in i.sources.iter().enumerate() {
            if p.reads[k] && s.reg_type == RegisterType::Temp {
                name(usize::from(s.temp_index) % TEMPS);
            }
        }
        for t in [i.vec_dst_temp, i.sca_dst_temp].into_iter().flatten() {
            name(usize::from(t) % TEMPS);
        }
        if i.scalar.is_flow() {
            if let Some(t) = p.target {
                work.push(usize::from(t));
            }
        }
        // RET may end the vertex; END always does; everything else may fall through.
        if !i.end {
            work.push(pc + 1);
        }
    }
    Some(RowProgram {
        table,
        temp_rows,
        temp_count: temp_count.max(1),
    })
}

/// Where one source operand comes from, for the whole row.
enum Operand<T> {
    /// The same value in every lane (a known constant at a fixed index, or a missing input).
    Uniform(Vec4<T>),
    /// Temp register row `t` (compacted).
    Temp(usize),
    /// Input attribute `a`.
    Input(usize),
    /// Input `base` + the lane's address register component.
    RelativeInput(i64),
    /// Constant `base` + the lane's address register component.
    RelativeConstant(i64),
}

/// What a source row reads besides the instruction: its slot, the inputs and the registers.
struct Row<'a, T> {
    slot: usize,
    inputs: &'a [[[f32; 4]; 16]],
    registers: &'a Registers<T>,
}

/// The registers of a row of lanes, lane-major.
struct Registers<T> {
    /// `width` temps per lane (the program's, compacted: [`RowProgram::temp_rows`]).
    temps: Vec<Vec4<T>>,
    width: usize,
    out: Vec<[Vec4<T>; OUTPUT_COUNT]>,
    cc: Vec<[Vec4<T>; 2]>,
    addr: Vec<[[i32; 4]; 2]>,
}

/// Runs `program` over `inputs` (one lane each), writing each lane's output registers through
/// `narrow` into `out` and the unknown constants read into `unknown`. `None` when the lanes
/// would part ways at a branch or one would fail (an index out of range, an input or constant
/// that may not be read, the step limit, a call too deep): the caller runs the group on the
/// lane executor instead, which diverges per lane or reports the error.
pub(crate) fn run_rows<T: Real, O>(
    ctx: &Context<'_>,
    program: &RowProgram<'_>,
    inputs: &[[[f32; 4]; 16]],
    out: &mut [O],
    narrow: impl Fn(&[Vec4<T>; OUTPUT_COUNT]) -> O,
    unknown: &mut BTreeSet<UnknownConstantRead>,
) -> Option<()> {
    let n = inputs.len();
    let rules = &ctx.options.rules;
    let width = program.temp_count;
    let mut r = Registers {
        temps: vec![[T::ZERO; 4]; width * n],
        width,
        // Outputs start at (0, 0, 0, 1) (RPCS3 `VertexInterpreter.glsl` main()).
        out: vec![[[T::ZERO, T::ZERO, T::ZERO, T::ONE]; OUTPUT_COUNT]; n],
        cc: vec![[[T::ZERO; 4]; 2]; n],
        addr: vec![[[0; 4]; 2]; n],
    };
    let mut src: [Vec<Vec4<T>>; 3] = std::array::from_fn(|_| vec![[T::ZERO; 4]; n]);
    let mut vres: Vec<Option<Vec4<T>>> = vec![None; n];
    let mut pc = program.table.start;
    let mut steps = 0u32;
    let mut stack: Vec<usize> = Vec::new();
    loop {
        let slot = pc;
        let Slot::Ready(p) = program.table.get(slot) else {
            return None;
        };
        let p: &Prepared = p;
        // The lane executor fails before an instruction once a lane has made `step_limit`.
        if steps >= rules.step_limit {
            return None;
        }
        steps += 1;
        let i = &p.insn;
        // BRB/CLB without branch bits are the lane executor's error.
        if matches!(i.scalar, ScalarOpcode::Brb | ScalarOpcode::Clb)
            && ctx.env.branch_bits.is_none()
        {
            return None;
        }
        // D0.cond == 0 (FL): nothing is written (RPCS3 SetDST; rsx-microcode.md B.8).
        if i.condition.relation != Relation::FL {
            execute_row(
                ctx, program, p, slot, inputs, &mut r, &mut src, &mut vres, unknown,
            )?;
        }
        // Flow after the writes (`lanes.rs` `flow`), the same for every lane or given up.
        let next = match flow(ctx, p, slot, &r, &mut stack)? {
            Some(next) => next,
            None => break,
        };
        if i.end {
            break;
        }
        pc = next;
    }
    for (o, regs) in out.iter_mut().zip(&r.out) {
        *o = narrow(regs);
    }
    Some(())
}

/// Where the row goes after `p` at `slot`: `Some(next slot)`, `None` when the vertex ends
/// (RET with an empty stack). `Err`-like `None` from the outer option when the lanes would
/// take it differently or a call is too deep (the lane executor then runs the group).
fn flow<T: Real>(
    ctx: &Context<'_>,
    p: &Prepared,
    slot: usize,
    r: &Registers<T>,
    stack: &mut Vec<usize>,
) -> Option<Option<usize>> {
    let i = &p.insn;
    let target = usize::from(p.target.unwrap_or(0));
    // The lanes' `any()` conditions; the row goes on only when all lanes agree.
    let uniform_taken = || -> Option<bool> {
        let first = p.branch_taken(r.cc.first()?);
        r.cc.iter()
            .all(|cc| p.branch_taken(cc) == first)
            .then_some(first)
    };
    let static_taken = || p.static_taken(ctx.env.branch_bits.unwrap_or(0));
    let call = |stack: &mut Vec<usize>| -> Option<Option<usize>> {
        if stack.len() >= ctx.options.rules.call_depth {
            return None;
        }
        stack.push(slot + 1);
        Some(Some(target))
    };
    Some(match i.scalar {
        ScalarOpcode::Bri if uniform_taken()? => Some(target),
        ScalarOpcode::Brb if static_taken() => Some(target),
        // CLI: RPCS3 treats it as CAL (`lanes.rs`).
        ScalarOpcode::Cal | ScalarOpcode::Cli if uniform_taken()? => return call(stack),
        ScalarOpcode::Clb if static_taken() => return call(stack),
        ScalarOpcode::Ret if uniform_taken()? => stack.pop(),
        _ => Some(slot + 1),
    })
}

/// The writes of instruction `p` (relation not FL) for every lane of the row.
// The lane index addresses the three source rows and the register file together.
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
fn execute_row<T: Real>(
    ctx: &Context<'_>,
    program: &RowProgram<'_>,
    p: &Prepared,
    slot: usize,
    inputs: &[[[f32; 4]; 16]],
    r: &mut Registers<T>,
    src: &mut [Vec<Vec4<T>>; 3],
    vres: &mut [Option<Vec4<T>>],
    unknown: &mut BTreeSet<UnknownConstantRead>,
) -> Option<()> {
    let n = inputs.len();
    let rules = &ctx.options.rules;
    let i = &p.insn;
    for (k, row) in src.iter_mut().enumerate() {
        if p.reads[k] {
            let operand = operand::<T>(ctx, program, p, k, slot, unknown)?;
            let at = Row {
                slot,
                inputs,
                registers: r,
            };
            fill(ctx, p, k, &operand, &at, row, unknown)?;
        }
    }
    let cc_sel = p.cc_index();
    let floor = rules.arl == ArlRounding::Floor;
    let row_of = |t: u8| program.temp_rows[usize::from(t) % TEMPS];
    let vec_temp = i.vec_dst_temp.map(row_of);
    let sca_temp = i.sca_dst_temp.map(row_of);
    let output = i
        .output
        .map(|o| usize::from(o.0))
        .filter(|o| *o < OUTPUT_COUNT);
    // Where each unit's result goes, the same for every lane (`lanes.rs` `write`).
    let vec_to = (
        output.filter(|_| i.vec_result),
        vec_temp,
        p.writes_cc(i.vec_dst_temp, i.vec_result).then_some(cc_sel),
    );
    let sca_to = (
        output.filter(|_| !i.vec_result),
        sca_temp,
        p.writes_cc(i.sca_dst_temp, !i.vec_result).then_some(cc_sel),
    );
    // Masks the same for every lane when the write is unconditional (`cond_mask` then ignores
    // the CC registers); the scalar unit computes nothing for NOP and flow opcodes.
    let uniform_masks = (!p.conditional()).then_some((p.vec_mask, p.sca_mask));
    let scalar_runs = !(i.scalar == ScalarOpcode::Nop || i.scalar.is_flow());
    let saturated = |v: Vec4<T>| {
        if i.saturate {
            math::saturate(v, rules.saturate_nan)
        } else {
            v
        }
    };
    // The vector op's results, one loop per opcode (`vector_op` inlined with a constant
    // opcode keeps only its arm). With unconditional masks they are written as they are made
    // (the sources are copies, and a lane's scalar write after its vector write keeps the
    // lane executor's order); otherwise they wait in `vres` for the lane loop's masks. ARL is
    // applied in the lane loop.
    let vector = i.vector != VectorOpcode::Arl;
    let vector_written = vector && uniform_masks.is_some();
    if vector {
        let reassociate = ctx.options.reassociate;
        match uniform_masks {
            Some((vmask, _)) => vector_row(i.vector, src, rules, reassociate, n, |lane, v| {
                if let Some(v) = v {
                    write(r, lane, saturated(v), vmask, vec_to);
                }
            }),
            None => vector_row(i.vector, src, rules, reassociate, n, |lane, v| {
                vres[lane] = v
            }),
        }
    }
    if vector_written && !scalar_runs {
        return Some(());
    }
    for lane in 0..n {
        let (vmask, smask) = match uniform_masks {
            Some(masks) => masks,
            None => {
                let c = p.cond_mask(&r.cc[lane]);
                let (v, s) = (p.vec_mask, p.sca_mask);
                (
                    [v[0] && c[0], v[1] && c[1], v[2] && c[2], v[3] && c[3]],
                    [s[0] && c[0], s[1] && c[1], s[2] && c[2], s[3] && c[3]],
                )
            }
        };
        if !vector {
            let a = src[0][lane].map(|v| math::address(v, floor));
            let reg = usize::from(i.vec_dst_temp.unwrap_or(0) & 1);
            for c in 0..4 {
                if vmask[c] {
                    r.addr[lane][reg][c] = a[c];
                }
            }
        } else if !vector_written {
            if let Some(v) = vres[lane] {
                write(r, lane, saturated(v), vmask, vec_to);
            }
        }
        if scalar_runs {
            if let Some(v) = math::scalar_op(i.scalar, src[2][lane], rules) {
                write(r, lane, saturated(v), smask, sca_to);
            }
        }
    }
    Some(())
}

/// `math::vector_op` of `op` for each of the `n` lanes of the source rows, given to `sink`
/// with its lane.
#[inline(always)]
fn vector_row<T: Real>(
    op: VectorOpcode,
    src: &[Vec<Vec4<T>>; 3],
    rules: &super::options::VertexRules,
    reassociate: super::options::Reassociation,
    n: usize,
    mut sink: impl FnMut(usize, Option<Vec4<T>>),
) {
    macro_rules! each_lane {
        ($op:expr) => {
            for lane in 0..n {
                let s = [src[0][lane], src[1][lane], src[2][lane]];
                sink(lane, math::vector_op($op, &s, rules, reassociate));
            }
        };
    }
    use VectorOpcode as V;
    match op {
        V::Mov => each_lane!(V::Mov),
        V::Mul => each_lane!(V::Mul),
        V::Add => each_lane!(V::Add),
        V::Mad => each_lane!(V::Mad),
        V::Dp3 => each_lane!(V::Dp3),
        V::Dph => each_lane!(V::Dph),
        V::Dp4 => each_lane!(V::Dp4),
        V::Min => each_lane!(V::Min),
        V::Max => each_lane!(V::Max),
        op => each_lane!(op),
    }
}

/// `lanes.rs` `write` for one lane: through `mask` to the output register, the temp and the
/// CC register named.
#[inline(always)]
fn write<T: Real>(
    r: &mut Registers<T>,
    lane: usize,
    value: Vec4<T>,
    mask: [bool; 4],
    (output, temp, cc): (Option<usize>, Option<usize>, Option<usize>),
) {
    #[inline(always)]
    fn put<T: Copy>(dst: &mut [T; 4], value: [T; 4], mask: [bool; 4]) {
        for c in 0..4 {
            if mask[c] {
                dst[c] = value[c];
            }
        }
    }
    if let Some(o) = output {
        put(&mut r.out[lane][o], value, mask);
    }
    if let Some(t) = temp {
        put(&mut r.temps[lane * r.width + t], value, mask);
    }
    if let Some(c) = cc {
        put(&mut r.cc[lane][c], value, mask);
    }
}

/// Where source `k` of `p` comes from. `None` where the lane executor fails (a fixed index out
/// of range, a missing input or unknown constant that may not be read).
fn operand<T: Real>(
    ctx: &Context<'_>,
    program: &RowProgram<'_>,
    p: &Prepared,
    k: usize,
    slot: usize,
    unknown: &mut BTreeSet<UnknownConstantRead>,
) -> Option<Operand<T>> {
    let i = &p.insn;
    let s = &i.sources[k];
    Some(match s.reg_type {
        RegisterType::Temp => Operand::Temp(program.temp_rows[usize::from(s.temp_index) % TEMPS]),
        RegisterType::Input => {
            let base = i64::from(i.input.0);
            // D0 bit 27 index_input (rsx-microcode.md B.8 "VP registers").
            if i.index_input && ctx.options.rules.relative_inputs {
                return Some(Operand::RelativeInput(base));
            }
            let a = usize::try_from(base).ok().filter(|a| *a < 16)?;
            if ctx.env.input_mask & (1 << a) == 0 {
                if !ctx.options.allow_missing_inputs {
                    return None;
                }
                Operand::Uniform([T::ZERO, T::ZERO, T::ZERO, T::ONE])
            } else {
                Operand::Input(a)
            }
        }
        RegisterType::Constant => {
            let base = i64::from(i.const_index);
            // D3 bit 1 index_const: const_src + A[sel].component (RPCS3 `vc[const_src + a]`).
            if i.index_const {
                return Some(Operand::RelativeConstant(base));
            }
            let c = usize::try_from(base).ok().filter(|c| *c < CONSTANT_COUNT)?;
            Operand::Uniform(constant(ctx, c, slot, unknown)?)
        }
    })
}

/// Constant `c` (in range), or zeros recorded as an unknown read where allowed.
fn constant<T: Real>(
    ctx: &Context<'_>,
    c: usize,
    slot: usize,
    unknown: &mut BTreeSet<UnknownConstantRead>,
) -> Option<Vec4<T>> {
    match ctx.env.constants.get(c) {
        Some(v) => Some(v.map(T::from_f32)),
        None if ctx.options.allow_unknown_constants => {
            unknown.insert(UnknownConstantRead { constant: c, slot });
            Some([T::ZERO; 4])
        }
        None => None,
    }
}

/// Source `k` of `p` for every lane into `row`: the register, then swizzle, abs and negate
/// (RPCS3 `read_src`: `-abs(x.swz)`). `None` where a lane's relative index fails.
fn fill<T: Real>(
    ctx: &Context<'_>,
    p: &Prepared,
    k: usize,
    operand: &Operand<T>,
    at: &Row<'_, T>,
    row: &mut [Vec4<T>],
    unknown: &mut BTreeSet<UnknownConstantRead>,
) -> Option<()> {
    let (inputs, r) = (at.inputs, at.registers);
    let i = &p.insn;
    let finish = |raw: Vec4<T>| p.modify(k, raw);
    let rel = |lane: usize| {
        i64::from(
            r.addr[lane][usize::from(i.address.register & 1)][i.address.component.code() as usize],
        )
    };
    match operand {
        Operand::Uniform(v) => row.fill(finish(*v)),
        Operand::Temp(t) => {
            for (lane, dst) in row.iter_mut().enumerate() {
                *dst = finish(r.temps[lane * r.width + t]);
            }
        }
        Operand::Input(a) => {
            for (dst, v) in row.iter_mut().zip(inputs) {
                *dst = finish(v[*a].map(T::from_f32));
            }
        }
        Operand::RelativeInput(base) => {
            for (lane, dst) in row.iter_mut().enumerate() {
                let a = usize::try_from(base + rel(lane)).ok().filter(|a| *a < 16)?;
                let raw = if ctx.env.input_mask & (1 << a) == 0 {
                    if !ctx.options.allow_missing_inputs {
                        return None;
                    }
                    [T::ZERO, T::ZERO, T::ZERO, T::ONE]
                } else {
                    inputs[lane][a].map(T::from_f32)
                };
                *dst = finish(raw);
            }
        }
        Operand::RelativeConstant(base) => {
            for (lane, dst) in row.iter_mut().enumerate() {
                let c = usize::try_from(base + rel(lane))
                    .ok()
                    .filter(|c| *c < CONSTANT_COUNT)?;
                *dst = finish(constant(ctx, c, at.slot, unknown)?);
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::vertex::{OutputRegister, VertexInstruction, VertexProgram, WriteMask};

    fn mov(slot: usize, temp: u8) -> VertexInstruction {
        let mut i = VertexInstruction::idle(slot);
        i.vector = VectorOpcode::Mov;
        i.vec_dst_temp = Some(temp);
        i.vec_mask = WriteMask(0xF);
        i
    }

    fn table(instructions: Vec<VertexInstruction>) -> ProgramTable {
        ProgramTable::build(
            &VertexProgram {
                start_slot: 0,
                instructions,
            },
            &[],
        )
    }

    #[test]
    fn reachable_code_is_taken_with_its_temps_compacted() {
        let mut last = mov(2, 40);
        last.output = Some(OutputRegister(0));
        last.vec_result = true;
        last.vec_dst_temp = None;
        last.sources[0].reg_type = RegisterType::Temp;
        last.sources[0].temp_index = 40;
        last.end = true;
        // Slot 3 (R9) lies past the END: not reachable, not in the temp file.
        let t = table(vec![mov(0, 40), mov(1, 7), last, mov(3, 9)]);
        let s = row_program(&t).expect("taken");
        assert_eq!(s.temp_count, 2);
        assert_eq!(
            (s.temp_rows[40], s.temp_rows[7], s.temp_rows[9]),
            (0, 1, usize::MAX)
        );
    }

    #[test]
    fn bra_txl_and_missing_ends_go_to_the_lane_executor() {
        let mut end = mov(1, 0);
        end.end = true;
        let mut bra = mov(0, 0);
        bra.scalar = ScalarOpcode::Bra;
        assert!(row_program(&table(vec![bra, end])).is_none());
        let mut txl = mov(0, 0);
        txl.vector = VectorOpcode::Txl;
        assert!(row_program(&table(vec![txl, end])).is_none());
        // No END: execution runs off the program.
        assert!(row_program(&table(vec![mov(0, 0)])).is_none());
        assert!(row_program(&table(vec![mov(0, 0), end])).is_some());
        // A branch (its target reachable) is taken: its flow is checked for uniformity as it
        // runs.
        let mut bri = mov(0, 0);
        bri.scalar = ScalarOpcode::Bri;
        rsxtrace_program::vertex::set_branch_target(&mut bri, 1);
        assert!(row_program(&table(vec![bri, end])).is_some());
        // A target where nothing decodes: the lane executor's error, if reached.
        rsxtrace_program::vertex::set_branch_target(&mut bri, 7);
        assert!(row_program(&table(vec![bri, end])).is_none());
    }
}
