//! Conservative dependency analysis of a fragment program: which texture units and input
//! attributes can influence each colour output, the depth output, the discard (KIL)
//! condition and each texture-sampling coordinate.
//!
//! Model (all sets over-approximate, never under-approximate, for structured programs):
//! - state per 16-bit half of the 64 × 128-bit register file, so that H(2n) and H(2n+1)
//!   alias R(n) (rsx-microcode.md B.3: R(n).x = H(2n).xy, R(n).y = H(2n).zw, R(n).z =
//!   H(2n+1).xy, R(n).w = H(2n+1).zw); registers start with no dependencies;
//! - per-component: lane-wise opcodes map output lane c to source lane `swizzle[c]`; every other
//!   opcode (dot products, scalar functions, pack/unpack, texture, NRM, …) makes each written
//!   lane depend on all four swizzled lanes of every source it reads;
//! - a conditional write (relation other than TR) merges the old value, the new value and the
//!   tested CC lane; FL never writes;
//! - IFE: both paths are analysed from the same state and merged, with the condition's
//!   dependencies added to everything written inside; LOOP/REP: the body is iterated to a
//!   fixed point (covering zero iterations); BRK and RET states are merged into the loop exit
//!   and program exit, and their conditions make everything after them control-dependent;
//! - KIL: the discard condition depends on the tested CC lanes (`any`) and the control
//!   dependencies in force;
//! - indexed input reads (`f[TEX(A0+n)]`) depend on all of TEX0–TEX9.
//!
//! CAL is not followed (RPCS3 does not implement it either; B.5): the result is marked
//! `complete: false`, as it is for flow regions that do not nest.

use serde::Serialize;

use super::deps::DepSet;
use crate::fragment::{
    FlowKind, FpOpcode, FragmentInstruction, FragmentProgram, InputAttribute, Operands, Relation,
    Source, SourceKind,
};

/// Registers modelled: 64 R (6-bit index), 8 halves each.
const HALVES: usize = 64 * 8;

#[derive(Clone, PartialEq, Eq)]
struct State {
    regs: Vec<DepSet>,
    cc: [[DepSet; 4]; 2],
}

impl State {
    fn new() -> State {
        State {
            regs: vec![DepSet::EMPTY; HALVES],
            cc: [[DepSet::EMPTY; 4]; 2],
        }
    }

    fn join(&mut self, other: &State) {
        for (a, b) in self.regs.iter_mut().zip(&other.regs) {
            *a = a.union(*b);
        }
        for (x, y) in self.cc.iter_mut().zip(&other.cc) {
            for (a, b) in x.iter_mut().zip(y) {
                *a = a.union(*b);
            }
        }
    }

    /// The halves holding component `c` of R(index) or H(index).
    fn halves(index: u8, fp16: bool, c: usize) -> std::ops::Range<usize> {
        let c = c & 3;
        if fp16 {
            let h = usize::from(index & 0x3F);
            let at = (h / 2) * 8 + (h % 2) * 4 + c;
            at..at + 1
        } else {
            let at = usize::from(index & 0x3F) * 8 + 2 * c;
            at..at + 2
        }
    }

    fn read(&self, index: u8, fp16: bool, c: usize) -> DepSet {
        self.regs[State::halves(index, fp16, c)]
            .iter()
            .fold(DepSet::EMPTY, |a, b| a.union(*b))
    }

    fn write(&mut self, index: u8, fp16: bool, c: usize, value: DepSet, merge: bool) {
        for h in &mut self.regs[State::halves(index, fp16, c)] {
            *h = if merge { h.union(value) } else { value };
        }
    }
}

/// Dependencies of one output register.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutputDeps {
    /// `"R0"`, `"H4"`, `"R1.z (depth)"`…
    pub register: String,
    /// Dependencies per component x, y, z, w.
    pub components: [DepSet; 4],
}

/// Dependencies of one texture instruction's coordinate (all its register sources).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextureSample {
    /// Slot of the instruction.
    pub slot: u32,
    /// Texture unit sampled.
    pub unit: u8,
    /// What the coordinate (and LOD/bias/gradient operands) may depend on.
    pub coordinate: DepSet,
}

/// Result of [`analyze`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FragmentFlow {
    /// Colour outputs for 32-bit exports (SHADER_CONTROL 0x40; R0, R2, R3, R4) and fp16
    /// exports (H0, H4, H6, H8), then the depth output R1.z (B.6).
    pub outputs: Vec<OutputDeps>,
    /// What the KIL condition(s) may depend on; empty when the program has no KIL.
    pub discard: DepSet,
    /// Whether the program contains KIL.
    pub has_kill: bool,
    /// One entry per texture instruction, in slot order.
    pub textures: Vec<TextureSample>,
    /// False when the analysis met CAL or flow regions that do not nest; the sets are then
    /// not guaranteed to be conservative.
    pub complete: bool,
}

struct Analyzer<'p> {
    program: &'p FragmentProgram,
    discard: DepSet,
    has_kill: bool,
    textures: Vec<TextureSample>,
    exit: Option<State>,
    complete: bool,
}

/// Analyse a decoded program. Conservative for structured flow (see the module docs).
pub fn analyze(program: &FragmentProgram) -> FragmentFlow {
    let mut a = Analyzer {
        program,
        discard: DepSet::EMPTY,
        has_kill: false,
        textures: Vec::new(),
        exit: None,
        complete: true,
    };
    let mut state = State::new();
    let mut ctrl = DepSet::EMPTY;
    a.run(0, u32::MAX, &mut state, &mut ctrl, None);
    if let Some(exit) = &a.exit {
        state.join(exit);
    }
    let out = |name: String, index: u8, fp16: bool| OutputDeps {
        register: name,
        components: [0, 1, 2, 3].map(|c| state.read(index, fp16, c)),
    };
    let mut outputs = Vec::new();
    for r in [0u8, 2, 3, 4] {
        outputs.push(out(format!("R{r}"), r, false));
    }
    for h in [0u8, 4, 6, 8] {
        outputs.push(out(format!("H{h}"), h, true));
    }
    let depth = state.read(1, false, 2);
    outputs.push(OutputDeps {
        register: "R1.z (depth)".into(),
        components: [DepSet::EMPTY, DepSet::EMPTY, depth, DepSet::EMPTY],
    });
    a.textures.sort_by_key(|t| t.slot);
    FragmentFlow {
        outputs,
        discard: a.discard,
        has_kill: a.has_kill,
        textures: a.textures,
        complete: a.complete,
    }
}

/// Early exits met while analysing a region.
#[derive(Clone, Copy, Default)]
struct Exits {
    brk: bool,
    ret: bool,
}

impl Exits {
    fn or(self, other: Exits) -> Exits {
        Exits {
            brk: self.brk || other.brk,
            ret: self.ret || other.ret,
        }
    }
}

/// Where [`Analyzer::run`] stopped and which exits it met.
struct Stop {
    next: usize,
    exits: Exits,
}

/// Lane-wise opcodes: output lane c reads lane `swizzle[c]` of each source.
fn lane_wise(op: FpOpcode) -> bool {
    use FpOpcode::*;
    matches!(
        op,
        Mov | Mul
            | Add
            | Mad
            | Min
            | Max
            | Slt
            | Sge
            | Sle
            | Sgt
            | Sne
            | Seq
            | Frc
            | Flr
            | Lrp
            | Ddx
            | Ddy
            | Div
            | Divsq
    )
}

impl Analyzer<'_> {
    fn index_of_slot(&self, slot: u32) -> usize {
        self.program.instructions.partition_point(|i| i.slot < slot)
    }

    /// Analyse instructions from index `from` while their slot is below `until`; returns
    /// where it stopped. `breaks` collects states at BRK inside a loop; `ctrl` grows with the
    /// conditions of BRK/RET met on the way.
    fn run(
        &mut self,
        from: usize,
        until: u32,
        state: &mut State,
        ctrl: &mut DepSet,
        mut breaks: Option<&mut State>,
    ) -> Stop {
        let mut n = from;
        let mut exits = Exits::default();
        while let Some(insn) = self.program.instructions.get(n) {
            if insn.slot >= until {
                break;
            }
            let cond = self.condition_deps(insn, state);
            match &insn.operands {
                Operands::Alu(_) => {
                    self.alu(insn, state, *ctrl);
                    n += 1;
                }
                Operands::Flow(flow) => match flow.kind {
                    FlowKind::Ife {
                        else_slot,
                        end_slot,
                    } => {
                        if end_slot > until {
                            self.complete = false;
                        }
                        let mut inner = ctrl.union(cond);
                        let mut then_state = state.clone();
                        let then_stop = self.run(
                            n + 1,
                            else_slot,
                            &mut then_state,
                            &mut inner,
                            breaks.as_deref_mut(),
                        );
                        let mut inner_else = ctrl.union(cond);
                        let else_from = self.index_of_slot(else_slot).max(then_stop.next);
                        let else_stop = self.run(
                            else_from,
                            end_slot,
                            state,
                            &mut inner_else,
                            breaks.as_deref_mut(),
                        );
                        state.join(&then_state);
                        let inside = then_stop.exits.or(else_stop.exits);
                        if inside.brk || inside.ret {
                            // An exit taken inside either path (and so the IF condition)
                            // decides whether what follows runs.
                            *ctrl = ctrl.union(inner).union(inner_else);
                        }
                        exits = exits.or(inside);
                        n = self.index_of_slot(end_slot).max(n + 1);
                    }
                    FlowKind::Loop(l) | FlowKind::Rep(l) => {
                        if l.end_slot > until {
                            self.complete = false;
                        }
                        let mut body_ctrl = ctrl.union(cond);
                        let mut broken = state.clone();
                        let mut ret = false;
                        loop {
                            let mut iter = state.clone();
                            let mut iter_ctrl = body_ctrl;
                            let stop = self.run(
                                n + 1,
                                l.end_slot,
                                &mut iter,
                                &mut iter_ctrl,
                                Some(&mut broken),
                            );
                            ret |= stop.exits.ret;
                            let before = state.clone();
                            state.join(&iter);
                            if *state == before && iter_ctrl == body_ctrl {
                                break;
                            }
                            body_ctrl = iter_ctrl;
                        }
                        state.join(&broken);
                        if ret {
                            // A RET inside the loop decides whether what follows runs.
                            *ctrl = ctrl.union(body_ctrl);
                            exits.ret = true;
                        }
                        n = self.index_of_slot(l.end_slot).max(n + 1);
                    }
                    FlowKind::Brk => {
                        if insn.condition.relation != Relation::Fl {
                            if let Some(b) = breaks.as_deref_mut() {
                                b.join(state);
                            }
                            *ctrl = ctrl.union(cond);
                            exits.brk = true;
                        }
                        n += 1;
                    }
                    FlowKind::Ret => {
                        if insn.condition.relation != Relation::Fl {
                            match &mut self.exit {
                                Some(e) => e.join(state),
                                None => self.exit = Some(state.clone()),
                            }
                            *ctrl = ctrl.union(cond);
                            exits.ret = true;
                        }
                        n += 1;
                    }
                    FlowKind::Cal { .. } => {
                        self.complete = false;
                        n += 1;
                    }
                },
            }
        }
        Stop { next: n, exits }
    }

    /// Dependencies of the condition test: the union of the tested CC lanes.
    fn condition_deps(&self, insn: &FragmentInstruction, state: &State) -> DepSet {
        if !insn.condition.is_conditional() {
            return DepSet::EMPTY;
        }
        let cc = &state.cc[usize::from(insn.condition.cc & 1)];
        insn.condition
            .swizzle
            .0
            .iter()
            .fold(DepSet::EMPTY, |a, &l| a.union(cc[usize::from(l & 3)]))
    }

    fn source_lane(
        &self,
        insn: &FragmentInstruction,
        s: &Source,
        lane: u8,
        state: &State,
    ) -> DepSet {
        match s.kind {
            SourceKind::Temp => state.read(s.index, s.fp16, usize::from(lane & 3)),
            SourceKind::Constant => DepSet::EMPTY,
            SourceKind::Input => match insn.alu() {
                Some(a) if a.indexed_input => (0..10).fold(DepSet::EMPTY, |d, t| {
                    d.union(DepSet::input(InputAttribute::tex(t)))
                }),
                _ => DepSet::input(insn.input),
            },
        }
    }

    fn alu(&mut self, insn: &FragmentInstruction, state: &mut State, ctrl: DepSet) {
        let Some(alu) = insn.alu() else { return };
        let op = insn.opcode;
        let sources = &alu.sources[..op.source_count().min(3)];
        let all_lanes = sources.iter().fold(DepSet::EMPTY, |d, s| {
            s.swizzle
                .0
                .iter()
                .fold(d, |d, &l| d.union(self.source_lane(insn, s, l, state)))
        });
        if op == FpOpcode::Kil {
            self.has_kill = true;
            self.discard = self
                .discard
                .union(self.condition_deps(insn, state))
                .union(ctrl);
            return;
        }
        if op.is_texture() {
            let coordinate = all_lanes.union(ctrl);
            match self.textures.iter_mut().find(|t| t.slot == insn.slot) {
                Some(t) => t.coordinate = t.coordinate.union(coordinate),
                None => self.textures.push(TextureSample {
                    slot: insn.slot,
                    unit: insn.texture_unit,
                    coordinate,
                }),
            }
        }
        let relation = insn.condition.relation;
        if relation == Relation::Fl
            || matches!(op, FpOpcode::Nop | FpOpcode::Fenct | FpOpcode::Fencb)
        {
            return;
        }
        let mut values = [DepSet::EMPTY; 4];
        for (c, v) in values.iter_mut().enumerate() {
            let base = if lane_wise(op) {
                sources.iter().enumerate().fold(DepSet::EMPTY, |d, (k, s)| {
                    // DIV/DIVSQ read src1.x only.
                    let lane = if k == 1 && matches!(op, FpOpcode::Div | FpOpcode::Divsq) {
                        s.swizzle.0[0]
                    } else {
                        s.swizzle.0[c]
                    };
                    d.union(self.source_lane(insn, s, lane, state))
                })
            } else {
                all_lanes
            };
            let base = if op.is_texture() {
                base.union(DepSet::texture(insn.texture_unit))
            } else {
                base
            };
            *v = base.union(ctrl);
        }
        let conditional = relation != Relation::Tr;
        let cc = state.cc[usize::from(insn.condition.cc & 1)];
        let d = insn.dest;
        for (c, &value) in values.iter().enumerate() {
            if !d.mask.has(c) {
                continue;
            }
            let test = if conditional {
                cc[usize::from(insn.condition.swizzle.0[c] & 3)]
            } else {
                DepSet::EMPTY
            };
            let value = value.union(test);
            if !d.no_dest {
                state.write(d.index, d.fp16, c, value, conditional);
            }
            if d.set_cond {
                let slot = &mut state.cc[usize::from(d.cc_write & 1)][c];
                *slot = if conditional {
                    slot.union(value)
                } else {
                    value
                };
            }
        }
    }
}
