//! The slots a vertex program can reach at run time: the decoded program laid over the
//! transform program memory it came from. The interpreter and the WGSL recompiler both build
//! their slot tables from [`memory_slots`], so they agree on which slot holds what.

use super::{
    decode_instruction, VertexDecodeError, VertexInstruction, VertexProgram, MEMORY_SLOTS,
};

/// What one slot of [`memory_slots`] holds.
#[derive(Clone, Debug, PartialEq)]
pub enum MemorySlot {
    /// An instruction; `from_program` when it came from the decoded program rather than the
    /// memory words around it.
    Instruction {
        insn: VertexInstruction,
        from_program: bool,
    },
    /// Memory words that do not decode.
    Invalid(VertexDecodeError),
    /// No words for this slot.
    Empty,
}

/// The slot table of `program` (absolute slots) inside `memory_words` (4 words per slot from
/// slot 0; may be empty or shorter than 544 slots). Its length is
/// `max(last program slot + 1, min(544, memory slots))`; program instructions take precedence
/// over the memory words at the same slot; instructions at slots beyond
/// `max(544, instruction count)` are left out, so a hand-built program with a huge slot number
/// cannot make the table allocate without bound. Slots past the memory words are reached only
/// through branches (BRA through the address register, or calls), rsx-microcode.md B.8.
pub fn memory_slots(program: &VertexProgram, memory_words: &[u32]) -> Vec<MemorySlot> {
    let bound = MEMORY_SLOTS.max(program.instructions.len());
    let max_program_slot = program
        .instructions
        .iter()
        .map(|i| i.slot.saturating_add(1))
        .filter(|end| *end <= bound)
        .max()
        .unwrap_or(0);
    let len = max_program_slot.max(MEMORY_SLOTS.min(memory_words.len() / 4));
    let mut slots: Vec<MemorySlot> = (0..len)
        .map(|slot| {
            let at = slot * 4;
            match memory_words.get(at..at + 4) {
                Some(&[a, b, c, d]) => match decode_instruction([a, b, c, d], slot) {
                    Ok(insn) => MemorySlot::Instruction {
                        insn,
                        from_program: false,
                    },
                    Err(e) => MemorySlot::Invalid(e),
                },
                _ => MemorySlot::Empty,
            }
        })
        .collect();
    for insn in &program.instructions {
        if let Some(s) = slots.get_mut(insn.slot) {
            *s = MemorySlot::Instruction {
                insn: *insn,
                from_program: true,
            };
        }
    }
    slots
}
