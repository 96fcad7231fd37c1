//! Finding and decoding the program reachable from a start slot in the 544-slot transform
//! program memory of a capture ([`decode_from_memory`]).
//!
//! # Extent rule
//!
//! RPCS3's analyser (`ProgramStateCache.cpp`, `analyse_vertex_program`) says the program ends at
//! the first END "reachable without branching" and that "multiple exits may exist, usually
//! skipped over by branching". We make that precise and conservative with a worklist walk:
//!
//! 1. Walk straight on from the start slot, decoding each slot.
//! 2. BRI, BRB (branches) and CAL, CLI, CLB (calls) add their immediate target to the worklist:
//!    every target is included whether or not its condition can hold. A call also continues
//!    at the next slot (where RET comes back to).
//! 3. A path stops after a slot with END, after BRI whose relation is TR (an unconditional jump;
//!    RPCS3 treats `cond == 7` as a static jump), and after RET whose relation is TR. A
//!    conditional RET falls through.
//! 4. BRA jumps to the address register, which is only known at run time: it cannot be
//!    followed, and its path continues at the next slot.
//! 5. Already-visited slots end a path (loops terminate).
//!
//! The program is the set of visited slots, in slot order. A path that runs past the last slot
//! without stopping is refused, as is a walk that visits no END at all.

use super::decode::decode_instruction;
use super::error::VertexDecodeError;
use super::fields;
use super::instruction::{VertexInstruction, VertexProgram};
use super::opcode::ScalarOpcode;
use super::operand::Relation;
use super::MEMORY_SLOTS;

/// A program image as a container or an RPCS3 cache file holds it (big-endian words,
/// subroutines before the entry and after END included, branch targets counted from the
/// image's first slot) loaded at slot 0 of a zeroed transform program memory and decoded from
/// `entry` by [`decode_from_memory`]: the program and the memory's words. An image longer
/// than the memory is refused.
pub fn decode_image(
    be: &[u8],
    entry: usize,
) -> Result<(VertexProgram, Vec<u32>), VertexDecodeError> {
    if be.is_empty() {
        return Err(VertexDecodeError::Empty);
    }
    if be.len() % 16 != 0 {
        return Err(VertexDecodeError::TrailingBytes {
            offset: be.len() - be.len() % 16,
            len: be.len(),
        });
    }
    let slots = be.len() / 16;
    if slots > MEMORY_SLOTS {
        return Err(VertexDecodeError::ImageTooLong {
            slots,
            limit: MEMORY_SLOTS,
        });
    }
    let mut words = super::words_of(be);
    words.resize(MEMORY_SLOTS * 4, 0);
    let program = decode_from_memory(&words, entry)?;
    Ok((program, words))
}

/// Decode the program that starts at `start_slot` in `transform_program` (exactly
/// 544 × 4 words, RPCS3 `max_vertex_program_instructions`), following the extent rule in the
/// module documentation. Slots in the result are absolute.
pub fn decode_from_memory(
    transform_program: &[u32],
    start_slot: usize,
) -> Result<VertexProgram, VertexDecodeError> {
    if transform_program.len() != MEMORY_SLOTS * 4 {
        return Err(VertexDecodeError::MemorySize {
            len: transform_program.len(),
            expected: MEMORY_SLOTS * 4,
        });
    }
    if start_slot >= MEMORY_SLOTS {
        return Err(VertexDecodeError::StartOutOfRange {
            start: start_slot,
            limit: MEMORY_SLOTS,
        });
    }
    // Visited slots; the decoded instructions are collected unordered and sorted at the end.
    let mut visited = [false; MEMORY_SLOTS];
    let mut instructions: Vec<VertexInstruction> = Vec::new();
    let mut worklist = vec![start_slot];
    let mut saw_end = false;
    while let Some(from) = worklist.pop() {
        let mut slot = from;
        loop {
            let Some(seen) = visited.get_mut(slot) else {
                return Err(VertexDecodeError::RunsOffMemory {
                    slot: slot.saturating_sub(1),
                    from,
                    limit: MEMORY_SLOTS,
                });
            };
            if *seen {
                break;
            }
            *seen = true;
            let at = slot * 4;
            let words = match transform_program.get(at..at + 4) {
                Some(&[a, b, c, d]) => [a, b, c, d],
                _ => {
                    return Err(VertexDecodeError::RunsOffMemory {
                        slot,
                        from,
                        limit: MEMORY_SLOTS,
                    })
                }
            };
            let insn = decode_instruction(words, slot)?;
            // Same value as `insn.branch_target()`, read from the words at hand rather than
            // re-encoding the instruction (decode_instruction has range-checked it).
            if insn.scalar.has_immediate_target() {
                worklist.push(fields::branch_address(&words) as usize);
            }
            let unconditional = insn.condition.relation == Relation::TR;
            let stops = insn.end
                || (insn.scalar == ScalarOpcode::Bri && unconditional)
                || (insn.scalar == ScalarOpcode::Ret && unconditional);
            saw_end |= insn.end;
            instructions.push(insn);
            if stops {
                break;
            }
            slot += 1;
        }
    }
    if !saw_end {
        return Err(VertexDecodeError::NoEnd { start: start_slot });
    }
    // Slots are unique, so an unstable sort gives slot order exactly.
    instructions.sort_unstable_by_key(|i| i.slot);
    Ok(VertexProgram {
        start_slot,
        instructions,
    })
}
