//! Conservative dependency analysis of a vertex program: which texture units (TXL) can
//! influence each output register, over every path of [`Paths`].
//!
//! Model (all sets over-approximate; the interpreter's write rules, rsx-microcode.md B.8):
//! - state per component of the 64 temps, both address registers, both condition-code
//!   registers and the 16 outputs; everything starts with no dependencies (outputs start at
//!   the constant (0, 0, 0, 1));
//! - lane-wise opcodes (MOV, MUL, ADD, MAD, MIN, MAX, the set-on opcodes, FRC, FLR, SSG) map
//!   output lane c to lane c of each swizzled source they read; DP3/DP4/DPH/DST, TXL and every
//!   scalar-unit opcode make each written lane depend on all four lanes of every source read;
//!   TXL adds its unit; SFL/STR depend on nothing;
//! - a source read through the address register (`c[A0+n]`, `v[A0+n]`) also depends on the
//!   address register's component; ARL writes the address register;
//! - destinations as the interpreter writes them: the output register of the result unit, the
//!   temp, and the CC register when updated or when nothing else is written; relation FL
//!   writes nothing; a conditional write (test enabled, relation other than TR) merges the old
//!   value, the new one and the tested CC lane;
//! - the states of all paths that reach a node are merged (a fixed point over loops); the
//!   outputs at every end are merged;
//! - a branch, call or return whose relation tests the CC (neither TR nor FL) may send the run
//!   elsewhere: what its CC lanes depend on influences the outputs ([`VertexFlow::control`]).

use super::deps::DepSet;
use super::vertex_paths::{Next, Paths};
use crate::vertex::{
    RegisterType, Relation, ScalarOpcode, Source, VectorOpcode, VertexInstruction, VertexProgram,
};

const TEMPS: usize = 64;
/// Output registers the interpreter keeps (`o[0]`..`o[15]`).
pub const OUTPUTS: usize = 16;

type Lanes = [DepSet; 4];
const NONE: Lanes = [DepSet::EMPTY; 4];

#[derive(Clone, PartialEq, Eq)]
struct State {
    temps: [Lanes; TEMPS],
    addr: [Lanes; 2],
    cc: [Lanes; 2],
    out: [Lanes; OUTPUTS],
}

impl State {
    fn new() -> State {
        State {
            temps: [NONE; TEMPS],
            addr: [NONE; 2],
            cc: [NONE; 2],
            out: [NONE; OUTPUTS],
        }
    }

    /// Merge `other` in; whether anything grew.
    fn join(&mut self, other: &State) -> bool {
        let mut grew = false;
        let pairs = self
            .temps
            .iter_mut()
            .zip(&other.temps)
            .chain(self.addr.iter_mut().zip(&other.addr))
            .chain(self.cc.iter_mut().zip(&other.cc))
            .chain(self.out.iter_mut().zip(&other.out));
        for (a, b) in pairs {
            for (x, y) in a.iter_mut().zip(b) {
                let u = x.union(*y);
                grew |= u != *x;
                *x = u;
            }
        }
        grew
    }
}

/// Result of [`analyze`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexFlow {
    /// What each output register `o[0]`..`o[15]` may depend on at the end of a run, per x, y, z, w.
    pub outputs: [[DepSet; 4]; OUTPUTS],
    /// What the conditions of branches, calls and returns that test the CC may depend on.
    pub control: DepSet,
    /// False when the paths are not complete ([`Paths::complete`]): a taken BRA goes where
    /// the analysis cannot follow, so the sets may miss something.
    pub complete: bool,
}

impl VertexFlow {
    /// Everything that can influence an output: the outputs' sets and [`VertexFlow::control`].
    pub fn influences(&self) -> DepSet {
        self.outputs
            .iter()
            .flatten()
            .fold(self.control, |a, b| a.union(*b))
    }
}

fn all(lanes: Lanes) -> DepSet {
    lanes.iter().fold(DepSet::EMPTY, |a, b| a.union(*b))
}

/// Lane-wise vector opcodes: output lane c reads lane c of each (swizzled) source.
fn lane_wise(op: VectorOpcode) -> bool {
    use VectorOpcode::*;
    matches!(
        op,
        Mov | Mul | Add | Mad | Min | Max | Slt | Sge | Seq | Sgt | Sle | Sne | Frc | Flr | Ssg
    )
}

fn cc_index(insn: &VertexInstruction) -> usize {
    match insn.cc_register {
        crate::vertex::CcRegister::CC0 => 0,
        crate::vertex::CcRegister::CC1 => 1,
    }
}

/// The CC lanes a condition tests, per written component.
fn condition_lanes(insn: &VertexInstruction, state: &State) -> Lanes {
    let cc = state.cc[cc_index(insn)];
    insn.condition.swizzle.0.map(|c| cc[c.code() as usize])
}

/// What source `s` may depend on, per lane after its swizzle.
fn source(insn: &VertexInstruction, s: &Source, state: &State) -> Lanes {
    let a = insn.address;
    let relative = state.addr[usize::from(a.register & 1)][a.component.code() as usize];
    let raw = match s.reg_type {
        RegisterType::Temp => state.temps[usize::from(s.temp_index) % TEMPS],
        RegisterType::Input if insn.index_input => [relative; 4],
        RegisterType::Constant if insn.index_const => [relative; 4],
        RegisterType::Input | RegisterType::Constant => NONE,
    };
    s.swizzle.0.map(|c| raw[c.code() as usize])
}

/// Apply one instruction's writes to `state` (flow is the graph's business).
fn step(insn: &VertexInstruction, state: &mut State) {
    if insn.condition.relation == Relation::FL {
        return; // nothing is written
    }
    let reads = insn.operands_read();
    let src: [Lanes; 3] = [0, 1, 2].map(|n| {
        if reads[n] {
            source(insn, &insn.sources[n], state)
        } else {
            NONE
        }
    });
    let conditional = insn.condition.enabled && insn.condition.relation != Relation::TR;
    let cond = if conditional {
        Some(condition_lanes(insn, state))
    } else {
        None
    };
    let vector_reads = insn.vector.reads();
    let read_all = || {
        (0..3)
            .filter(|&n| vector_reads[n])
            .fold(DepSet::EMPTY, |a, n| a.union(all(src[n])))
    };
    let vector: Option<Lanes> = match insn.vector {
        VectorOpcode::Nop => None,
        VectorOpcode::Arl | VectorOpcode::Arr | VectorOpcode::Ara => {
            let reg = usize::from(insn.vec_dst_temp.unwrap_or(0) & 1);
            for c in 0..4 {
                if insn.vec_mask.0 >> c & 1 == 1 {
                    put(&mut state.addr[reg][c], src[0][c], cond.map(|l| l[c]));
                }
            }
            None
        }
        VectorOpcode::Sfl | VectorOpcode::Str => Some(NONE),
        VectorOpcode::Txl => {
            let unit = insn.texture_unit().unwrap_or(0);
            let d = all(src[0]).union(all(src[1])).union(DepSet::texture(unit));
            Some([d; 4])
        }
        op if lane_wise(op) => Some([0, 1, 2, 3].map(|c| {
            (0..3)
                .filter(|&n| vector_reads[n])
                .fold(DepSet::EMPTY, |a, n| a.union(src[n][c]))
        })),
        _ => Some([read_all(); 4]),
    };
    let scalar = (insn.scalar_active() && !insn.scalar.is_flow()).then(|| [all(src[2]); 4]);
    if let Some(v) = vector {
        write(
            insn,
            state,
            v,
            insn.vec_mask.0,
            insn.vec_dst_temp,
            insn.vec_result,
            cond,
        );
    }
    if let Some(v) = scalar {
        write(
            insn,
            state,
            v,
            insn.sca_mask.0,
            insn.sca_dst_temp,
            !insn.vec_result,
            cond,
        );
    }
}

/// One lane: replaced, or merged with the old value and the tested CC lane when conditional.
fn put(dst: &mut DepSet, value: DepSet, cond: Option<DepSet>) {
    *dst = match cond {
        Some(c) => dst.union(value).union(c),
        None => value,
    };
}

/// The interpreter's `write`: output register when this unit is the result writer, temp when
/// named, CC when updated or when there is no other destination.
fn write(
    insn: &VertexInstruction,
    state: &mut State,
    value: Lanes,
    mask: u8,
    temp: Option<u8>,
    is_writer: bool,
    cond: Option<Lanes>,
) {
    if mask & 0xF == 0 {
        return;
    }
    let put_lanes = |dst: &mut Lanes| {
        for c in 0..4 {
            if mask >> c & 1 == 1 {
                put(&mut dst[c], value[c], cond.map(|l| l[c]));
            }
        }
    };
    if is_writer {
        if let Some(dst) = insn
            .output
            .and_then(|o| state.out.get_mut(usize::from(o.0)))
        {
            put_lanes(dst);
        }
    }
    if let Some(t) = temp {
        put_lanes(&mut state.temps[usize::from(t) % TEMPS]);
    }
    if insn.cc_update.any() || (temp.is_none() && !is_writer) {
        put_lanes(&mut state.cc[cc_index(insn)]);
    }
}

/// Whether `insn`'s flow tests the condition codes (a data-dependent way).
fn tests_cc(insn: &VertexInstruction) -> bool {
    matches!(
        insn.scalar,
        ScalarOpcode::Bri
            | ScalarOpcode::Bra
            | ScalarOpcode::Cal
            | ScalarOpcode::Cli
            | ScalarOpcode::Ret
    ) && !matches!(insn.condition.relation, Relation::TR | Relation::FL)
}

/// Analyse `program` over `paths` (made from the same program).
pub fn analyze(program: &VertexProgram, paths: &Paths) -> VertexFlow {
    let n = paths.nodes.len();
    let mut input: Vec<Option<State>> = vec![None; n];
    let mut exit = State::new();
    let mut ended = false;
    if n > 0 {
        input[0] = Some(State::new());
    }
    let mut work: Vec<usize> = if n > 0 { vec![0] } else { Vec::new() };
    let mut queued = vec![false; n];
    if n > 0 {
        queued[0] = true;
    }
    while let Some(id) = work.pop() {
        queued[id] = false;
        let node = &paths.nodes[id];
        let Some(mut state) = input[id].clone() else {
            continue;
        };
        step(&program.instructions[node.instruction], &mut state);
        for next in &node.next {
            match *next {
                Next::End => {
                    exit.join(&state);
                    ended = true;
                }
                Next::Node(to) => {
                    let grew = match &mut input[to] {
                        Some(s) => s.join(&state),
                        slot @ None => {
                            *slot = Some(state.clone());
                            true
                        }
                    };
                    if grew && !queued[to] {
                        queued[to] = true;
                        work.push(to);
                    }
                }
            }
        }
    }
    let mut control = DepSet::EMPTY;
    for (node, state) in paths.nodes.iter().zip(&input) {
        let insn = &program.instructions[node.instruction];
        if let (true, Some(state)) = (tests_cc(insn), state) {
            control = control.union(all(condition_lanes(insn, state)));
            if insn.scalar == ScalarOpcode::Bra {
                let a = insn.address;
                control = control
                    .union(state.addr[usize::from(a.register & 1)][a.component.code() as usize]);
            }
        }
    }
    VertexFlow {
        outputs: if ended { exit.out } else { [NONE; OUTPUTS] },
        control,
        complete: paths.complete(),
    }
}
