//! The paths a run of a vertex program can take ([`Paths`]): a graph whose nodes are the
//! places a run can be, a slot together with its return stack, so that a RET goes back to the
//! call it came from and nowhere else.
//!
//! Model (the interpreter's flow rules, `rsxtrace_replay::interp::vertex`, rsx-microcode.md
//! B.8), with every condition free to go either way:
//! - END ends the run after its instruction, whatever a branch in it decides.
//! - BRI, CAL, CLI and RET are taken under relation TR, never under FL, and may go either way
//!   under any other relation (they test the condition codes, which depend on the vertex).
//! - BRB and CLB test a transform branch bit: draw state, not the program, so both ways are
//!   possible for the program (a draw with known bits takes one).
//! - A call pushes the next slot and jumps; beyond `call_depth` returns it faults (the run
//!   ends). RET with an empty stack ends the run.
//! - BRA jumps to the address register, a run-time value: a taken BRA leaves the graph
//!   ([`Paths::unknown_jump`]), and where it lands is not known.
//! - PSH, POP, ARR and ARA have no semantics in the interpreter: the run faults there.
//!
//! A run that faults ends; it counts as an end here, so that "every run reaches this slot"
//! never claims more than the runs that finish do.

use crate::vertex::{Relation, ScalarOpcode, VectorOpcode, VertexInstruction, VertexProgram};
use std::collections::{HashMap, VecDeque};

/// Most nodes explored; a program whose calls make more gives up ([`Paths::truncated`]).
pub const NODE_LIMIT: usize = 8192;

/// Where a step goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Another node.
    Node(usize),
    /// The run ends (END, RET with an empty stack, a fault, or a taken BRA).
    End,
}

/// One place a run can be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Index of the instruction in the program.
    pub instruction: usize,
    /// Its slot.
    pub slot: usize,
    /// Return slots, innermost last.
    pub stack: Vec<usize>,
    /// Where the run can go after it.
    pub next: Vec<Next>,
}

/// Every place a run of a program can reach from its entry.
#[derive(Clone, Debug)]
pub struct Paths {
    /// Node 0 is the entry (when the entry slot holds an instruction).
    pub nodes: Vec<Node>,
    /// A reachable BRA may be taken: its target is only known at run time.
    pub unknown_jump: bool,
    /// A path led to a slot the program does not hold (counted as an end).
    pub missing_slot: bool,
    /// More than [`NODE_LIMIT`] nodes: the graph is partial.
    pub truncated: bool,
}

/// How the taken side of a flow instruction can go.
fn ways(relation: Relation) -> (bool, bool) {
    match relation {
        Relation::TR => (true, false),
        Relation::FL => (false, true),
        _ => (true, true),
    }
}

impl Paths {
    /// The paths of `program` (absolute slots, as from `decode_from_memory`) with a return
    /// stack of at most `call_depth` entries.
    pub fn of(program: &VertexProgram, call_depth: usize) -> Paths {
        let insns = &program.instructions;
        let index_of = |slot: usize| {
            insns
                .binary_search_by_key(&slot, |i| i.slot)
                .ok()
                .map(|k| (k, &insns[k]))
        };
        let mut paths = Paths {
            nodes: Vec::new(),
            unknown_jump: false,
            missing_slot: false,
            truncated: false,
        };
        let mut ids: HashMap<(usize, Vec<usize>), usize> = HashMap::new();
        let mut queue: VecDeque<usize> = VecDeque::new();
        // Returns the node for (slot, stack), creating it; `End` when the slot is empty.
        let mut visit = |paths: &mut Paths,
                         queue: &mut VecDeque<usize>,
                         slot: usize,
                         stack: Vec<usize>|
         -> Next {
            if let Some(&id) = ids.get(&(slot, stack.clone())) {
                return Next::Node(id);
            }
            let Some((k, _)) = index_of(slot) else {
                paths.missing_slot = true;
                return Next::End;
            };
            if paths.nodes.len() >= NODE_LIMIT {
                paths.truncated = true;
                return Next::End;
            }
            let id = paths.nodes.len();
            ids.insert((slot, stack.clone()), id);
            paths.nodes.push(Node {
                instruction: k,
                slot,
                stack,
                next: Vec::new(),
            });
            queue.push_back(id);
            Next::Node(id)
        };
        visit(&mut paths, &mut queue, program.start_slot, Vec::new());
        while let Some(id) = queue.pop_front() {
            let node = &paths.nodes[id];
            let insn = &insns[node.instruction];
            let (slot, stack) = (node.slot, node.stack.clone());
            let mut next = Vec::new();
            for (to, stack) in successors(insn, slot, &stack, call_depth, &mut paths) {
                let step = match to {
                    Some(to) => visit(&mut paths, &mut queue, to, stack),
                    None => Next::End,
                };
                if !next.contains(&step) {
                    next.push(step);
                }
            }
            paths.nodes[id].next = next;
        }
        paths
    }

    /// Whether the graph holds every path (no taken BRA, no missing slot, not truncated):
    /// then [`Paths::reaches`] and [`Paths::always_reaches`] are exact for free conditions.
    pub fn complete(&self) -> bool {
        !self.unknown_jump && !self.missing_slot && !self.truncated
    }

    /// Whether some run reaches `slot`.
    pub fn reaches(&self, slot: usize) -> bool {
        self.nodes.iter().any(|n| n.slot == slot)
    }

    /// Whether every run that ends passes through `slot`: no path from the entry to an end
    /// avoids it (false when no run reaches it).
    pub fn always_reaches(&self, slot: usize) -> bool {
        if !self.reaches(slot) {
            return false;
        }
        if self.nodes.first().is_some_and(|n| n.slot == slot) {
            return true;
        }
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(id) = stack.pop() {
            for step in &self.nodes[id].next {
                match *step {
                    Next::End => return false,
                    Next::Node(to) if !seen[to] && self.nodes[to].slot != slot => {
                        seen[to] = true;
                        stack.push(to);
                    }
                    Next::Node(_) => {}
                }
            }
        }
        true
    }
}

/// Where a run at `slot` with `stack` can go after `insn`: `(Some(slot), stack)` or `(None, _)`
/// for an end. Records a possibly taken BRA in `paths`.
fn successors(
    insn: &VertexInstruction,
    slot: usize,
    stack: &[usize],
    call_depth: usize,
    paths: &mut Paths,
) -> Vec<(Option<usize>, Vec<usize>)> {
    let here = || stack.to_vec();
    if insn.end {
        return vec![(None, here())];
    }
    if matches!(insn.vector, VectorOpcode::Arr | VectorOpcode::Ara)
        || matches!(insn.scalar, ScalarOpcode::Psh | ScalarOpcode::Pop)
    {
        return vec![(None, here())]; // the interpreter faults
    }
    let fall = (Some(slot + 1), here());
    let target = usize::from(insn.branch_target().unwrap_or(0));
    let call = || {
        if stack.len() >= call_depth {
            (None, here()) // stack overflow: the run faults
        } else {
            let mut s = here();
            s.push(slot + 1);
            (Some(target), s)
        }
    };
    let relation = insn.condition.relation;
    let mut out = Vec::new();
    match insn.scalar {
        ScalarOpcode::Bri | ScalarOpcode::Cal | ScalarOpcode::Cli | ScalarOpcode::Ret => {
            let (taken, not_taken) = ways(relation);
            if taken {
                out.push(match insn.scalar {
                    ScalarOpcode::Bri => (Some(target), here()),
                    ScalarOpcode::Ret => match stack.split_last() {
                        Some((&back, rest)) => (Some(back), rest.to_vec()),
                        None => (None, here()),
                    },
                    _ => call(),
                });
            }
            if not_taken {
                out.push(fall);
            }
        }
        ScalarOpcode::Brb => out.extend([(Some(target), here()), fall]),
        ScalarOpcode::Clb => out.extend([call(), fall]),
        ScalarOpcode::Bra => {
            let (taken, not_taken) = ways(relation);
            if taken {
                paths.unknown_jump = true;
                out.push((None, here()));
            }
            if not_taken {
                out.push(fall);
            }
        }
        _ => out.push(fall),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vertex::{set_branch_target, VertexInstruction};

    fn at(slot: usize, scalar: ScalarOpcode, relation: Relation, target: u16) -> VertexInstruction {
        let mut i = VertexInstruction::idle(slot);
        i.scalar = scalar;
        i.condition.relation = relation;
        if scalar.has_immediate_target() {
            set_branch_target(&mut i, target);
        }
        i
    }

    fn nop(slot: usize) -> VertexInstruction {
        VertexInstruction::idle(slot)
    }

    fn end(slot: usize) -> VertexInstruction {
        VertexInstruction {
            end: true,
            ..VertexInstruction::idle(slot)
        }
    }

    fn program(instructions: Vec<VertexInstruction>) -> VertexProgram {
        VertexProgram {
            start_slot: 0,
            instructions,
        }
    }

    #[test]
    fn branches_split_paths_and_never_taken_targets_are_unreached() {
        use ScalarOpcode::*;
        // 0: BRI 4 (FL, never) | 1: BRI 3 (GT) | 2: NOP | 3: NOP; END | 4: NOP; END
        let p = program(vec![
            at(0, Bri, Relation::FL, 4),
            at(1, Bri, Relation::GT, 3),
            nop(2),
            end(3),
            end(4),
        ]);
        let paths = Paths::of(&p, 8);
        assert!(paths.complete());
        assert!(paths.always_reaches(1));
        assert!(paths.reaches(2) && !paths.always_reaches(2));
        assert!(paths.always_reaches(3));
        assert!(!paths.reaches(4));
    }

    #[test]
    fn returns_go_back_to_their_own_call() {
        use ScalarOpcode::*;
        // 0: CAL 5 | 1: BRI 3 (TR) | 2: NOP (skipped) | 3: CAL 5 | 4: NOP; END | 5: RET (TR)
        let p = program(vec![
            at(0, Cal, Relation::TR, 5),
            at(1, Bri, Relation::TR, 3),
            nop(2),
            at(3, Cal, Relation::TR, 5),
            end(4),
            at(5, Ret, Relation::TR, 0),
        ]);
        let paths = Paths::of(&p, 8);
        // Context-free returns would let the second call come back to slot 1, then 2.
        assert!(!paths.reaches(2));
        assert!(paths.always_reaches(4) && paths.always_reaches(5));
        // A depth of 1 still fits; 0 makes the first call fault.
        assert!(Paths::of(&p, 1).always_reaches(4));
        let shallow = Paths::of(&p, 0);
        assert!(!shallow.reaches(5) && !shallow.reaches(4));
    }

    #[test]
    fn a_taken_bra_leaves_the_graph_and_boolean_branches_go_both_ways() {
        use ScalarOpcode::*;
        let p = program(vec![
            at(0, Bra, Relation::GT, 0),
            at(1, Brb, Relation::TR, 3),
            nop(2),
            end(3),
        ]);
        let paths = Paths::of(&p, 8);
        assert!(paths.unknown_jump && !paths.complete());
        assert!(paths.reaches(2) && !paths.always_reaches(2));
        assert!(!paths.always_reaches(1), "the BRA may leave first");
    }
}
