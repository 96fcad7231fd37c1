//! The slots a translated vertex program can execute ([`SlotTable`]), built exactly as the
//! reference interpreter's `ProgramTable` is (`replay/src/interp/vertex/table.rs`): the decoded
//! program's instructions, plus every other slot of the transform program memory decoded on the
//! side, so that a static target outside the decoded extent or a BRA through the address
//! register lands on the same instruction. Also: which slots are reachable from the start slot,
//! and where the straight-line blocks of the dispatch loop begin.

use rsxtrace_program::vertex::{
    memory_slots, MemorySlot, ScalarOpcode, VertexInstruction, VertexProgram,
};

/// One slot.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Slot {
    /// An instruction; `from_program` when it came from the decoded program rather than the
    /// memory words.
    Ready {
        insn: VertexInstruction,
        from_program: bool,
    },
    /// Undecodable words, or no words: reaching it is a fault.
    Missing,
}

/// Slot-indexed table of a program and its surrounding memory.
pub(crate) struct SlotTable {
    /// Entry slot.
    pub start: usize,
    /// Slots `0..len` (the interpreter's table length: a BRA target at or above it faults).
    pub slots: Vec<Slot>,
}

/// The scalar ops that end a straight-line block (they set the program counter).
pub(crate) fn is_branch(op: ScalarOpcode) -> bool {
    matches!(
        op,
        ScalarOpcode::Bra
            | ScalarOpcode::Bri
            | ScalarOpcode::Cal
            | ScalarOpcode::Cli
            | ScalarOpcode::Ret
            | ScalarOpcode::Brb
            | ScalarOpcode::Clb
    )
}

impl SlotTable {
    /// The slots of `rsxtrace_program::vertex::memory_slots`, the same table the interpreter
    /// builds; undecodable and empty slots are faults when reached.
    pub fn build(program: &VertexProgram, memory_words: &[u32]) -> Self {
        let slots = memory_slots(program, memory_words)
            .into_iter()
            .map(|slot| match slot {
                MemorySlot::Instruction { insn, from_program } => {
                    Slot::Ready { insn, from_program }
                }
                MemorySlot::Invalid(_) | MemorySlot::Empty => Slot::Missing,
            })
            .collect();
        SlotTable {
            start: program.start_slot,
            slots,
        }
    }

    /// The instruction at `slot`, if any.
    pub fn insn(&self, slot: usize) -> Option<&VertexInstruction> {
        match self.slots.get(slot) {
            Some(Slot::Ready { insn, .. }) => Some(insn),
            _ => None,
        }
    }

    /// Whether the instruction at `slot` came from the decoded program.
    pub fn is_program_slot(&self, slot: usize) -> bool {
        matches!(
            self.slots.get(slot),
            Some(Slot::Ready {
                from_program: true,
                ..
            })
        )
    }

    /// Slots execution can reach from the start (an over-approximation: every branch may be
    /// taken or not, a BRA may reach any slot), and whether a reachable BRA exists.
    pub fn reachable(&self) -> (Vec<bool>, bool) {
        let mut seen = vec![false; self.slots.len()];
        let mut any_bra = false;
        let mut work = vec![self.start];
        while let Some(s) = work.pop() {
            let Some(flag) = seen.get_mut(s) else {
                continue;
            };
            if *flag {
                continue;
            }
            *flag = true;
            let Some(i) = self.insn(s) else {
                continue;
            };
            if i.end {
                // END ends the vertex whatever a branch in it decided (interpreter lanes.rs).
                continue;
            }
            work.push(s + 1);
            if let Some(t) = i.branch_target() {
                work.push(usize::from(t));
            }
            if i.scalar == ScalarOpcode::Bra && !any_bra {
                any_bra = true;
                work.extend(0..self.slots.len());
            }
        }
        (seen, any_bra)
    }

    /// Block leaders among the reachable slots: the start, every static target, every slot
    /// after a branch (return addresses and fall-through), and every slot when a BRA can jump
    /// anywhere.
    pub fn leaders(&self, reachable: &[bool], any_bra: bool) -> Vec<bool> {
        let mut lead = vec![any_bra; self.slots.len()];
        if let Some(l) = lead.get_mut(self.start) {
            *l = true;
        }
        for (s, _) in reachable.iter().enumerate().filter(|(_, r)| **r) {
            let Some(i) = self.insn(s) else {
                continue;
            };
            if let Some(t) = i.branch_target() {
                if let Some(l) = lead.get_mut(usize::from(t)) {
                    *l = true;
                }
            }
            if is_branch(i.scalar) {
                if let Some(l) = lead.get_mut(s + 1) {
                    *l = true;
                }
            }
        }
        lead
    }
}
