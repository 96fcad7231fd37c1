//! An edited program that keeps the original's encoding of every instruction the edit left
//! alone (`rsxtrace asm --like`).
//!
//! A disassembly prints what an instruction does, not the bits no unit reads (the fields of
//! an operand the operation ignores, a disabled unit's registers), so assembling it gives
//! each instruction's canonical encoding, and a program file written from an edited
//! disassembly would differ from the game's in slots nobody touched. Here every instruction
//! of the new program whose words are the canonical encoding of an instruction of the
//! original (the one at the same slot first, else any) takes that instruction's own words.
//!
//! This keeps meaning because the canonical encoding of an instruction means what the
//! instruction does: the assemblers' round trip (`assemble(disassemble(p))`) is tested field
//! by field on thousands of generated programs and every corpus and sample program, and
//! fuzzed. An instruction encodes no slot of its own (branch and flow targets are absolute
//! slots, compared with the rest of its words), so a line an insertion moved keeps its
//! original words too. Inline constants are the new program's: every bit of them is read.

use crate::{fragment, vertex};
use serde::Serialize;
use std::collections::HashMap;

/// How much of the original's encoding the new program kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KeptEncoding {
    /// Instruction slots of the new program.
    pub instructions: usize,
    /// Those that now hold an original instruction's words.
    pub kept: usize,
    /// Those whose words the original's differ from only in bits no unit reads (so the
    /// canonical encoding would have changed them): a subset of `kept`.
    pub restored: usize,
}

/// Swap canonical slots for original ones: `canonical[k]` is the canonical encoding of
/// `original[k]`; each instruction `i` of `new` equal to a canonical one (the original's
/// `same_place(i)` first) becomes that one's original words.
fn swap_slots<T: Copy + Eq + std::hash::Hash>(
    new: &mut [T],
    canonical: &[T],
    original: &[T],
    same_place: impl Fn(usize) -> Option<usize>,
) -> KeptEncoding {
    let mut any: HashMap<T, T> = HashMap::new();
    for (c, o) in canonical.iter().zip(original) {
        any.entry(*c).or_insert(*o);
    }
    let mut kept = KeptEncoding::default();
    for (i, slot) in new.iter_mut().enumerate() {
        kept.instructions += 1;
        let here = same_place(i)
            .filter(|&k| canonical.get(k) == Some(slot))
            .and_then(|k| original.get(k));
        if let Some(o) = here.or_else(|| any.get(slot)).copied() {
            kept.kept += 1;
            if o != *slot {
                kept.restored += 1;
            }
            *slot = o;
        }
    }
    kept
}

/// 16-byte slots of vertex words.
fn vertex_slots(words: &[u32]) -> Vec<[u32; 4]> {
    words
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

/// `new` (vertex words loaded at `new_slot`) with the words of `original` (loaded at
/// `original_slot`) wherever an instruction is one of the original's; `new` unchanged when
/// the original does not decode or its disassembly does not assemble.
pub fn keep_vertex(
    new: &[u32],
    new_slot: usize,
    original: &[u32],
    original_slot: usize,
) -> (Vec<u32>, KeptEncoding) {
    let program = vertex::decode_words(original)
        .ok()
        .map(|p| p.loaded_at(original_slot));
    keep_vertex_program(new, new_slot, program, |slot| {
        let k = slot.checked_sub(original_slot)?;
        let o = original.get(4 * k..4 * k + 4)?;
        Some([o[0], o[1], o[2], o[3]])
    })
}

/// [`keep_vertex`] against the program a draw runs: the slots reachable from `start` in the
/// 544-slot transform program memory `memory` (`vertex::decode_from_memory`; the slots it
/// does not reach may hold anything).
pub fn keep_vertex_from_memory(
    new: &[u32],
    new_slot: usize,
    memory: &[u32],
    start: usize,
) -> (Vec<u32>, KeptEncoding) {
    let program = vertex::decode_from_memory(memory, start).ok();
    keep_vertex_program(new, new_slot, program, |slot| {
        let o = memory.get(4 * slot..4 * slot + 4)?;
        Some([o[0], o[1], o[2], o[3]])
    })
}

/// `new` with the words of `original` (its instructions at their absolute slots, whose
/// words `words_at` gives) wherever an instruction is one of its.
fn keep_vertex_program(
    new: &[u32],
    new_slot: usize,
    original: Option<vertex::VertexProgram>,
    words_at: impl Fn(usize) -> Option<[u32; 4]>,
) -> (Vec<u32>, KeptEncoding) {
    let mut out = vertex_slots(new);
    // Each slot the original's disassembly assembles to: its absolute slot, its canonical
    // words and the original's words there.
    type Pair = (usize, [u32; 4], [u32; 4]);
    let pairs: Option<Vec<Pair>> = original.and_then(|p| {
        let c = vertex::assemble(&vertex::disassemble(&p)).ok()?;
        Some(
            c.instructions
                .iter()
                .filter_map(|i| Some((i.slot, vertex::encode_instruction(i), words_at(i.slot)?)))
                .collect(),
        )
    });
    let kept = match pairs {
        Some(pairs) => {
            let at: HashMap<usize, usize> =
                pairs.iter().enumerate().map(|(n, p)| (p.0, n)).collect();
            let canonical: Vec<[u32; 4]> = pairs.iter().map(|p| p.1).collect();
            let originals: Vec<[u32; 4]> = pairs.iter().map(|p| p.2).collect();
            swap_slots(&mut out, &canonical, &originals, |i| {
                at.get(&(new_slot + i)).copied()
            })
        }
        None => KeptEncoding {
            instructions: out.len(),
            ..Default::default()
        },
    };
    (out.into_iter().flatten().collect(), kept)
}

/// The 16 bytes of slot `slot` of fragment microcode.
fn fragment_slot(bytes: &[u8], slot: u32) -> Option<[u8; 16]> {
    let at = slot as usize * 16;
    bytes.get(at..at + 16)?.try_into().ok()
}

/// `new` (fragment microcode as in guest memory) with the instruction words of `original`
/// wherever an instruction is one of the original's; `new` unchanged when either does not
/// decode or the original's disassembly does not assemble back to as many instructions.
///
/// An original instruction whose words would imply another inline-constant slot than its
/// canonical encoding does (a constant-type operand the operation does not read: the
/// hardware still skips the slot after it) is not swapped in, so every slot stays where the
/// new program put it; nor is a flow instruction when the canonical program's slots are not
/// the original's (its targets are slots).
pub fn keep_fragment(new: &[u8], original: &[u8]) -> (Vec<u8>, KeptEncoding) {
    let Ok(program) = fragment::decode(new) else {
        return (new.to_vec(), KeptEncoding::default());
    };
    let new_slots: Vec<u32> = program.instructions.iter().map(|i| i.slot).collect();
    let mut words: Vec<Option<[u8; 16]>> =
        new_slots.iter().map(|&s| fragment_slot(new, s)).collect();
    let canonical = fragment::decode(original).ok().and_then(|p| {
        let c = fragment::assemble(&fragment::disassemble(&p)).ok()?;
        if c.instructions.len() != p.instructions.len() {
            return None;
        }
        let encoded = fragment::encode(&c);
        let same_slots = c
            .instructions
            .iter()
            .zip(&p.instructions)
            .all(|(c, o)| c.slot == o.slot);
        let (canonical, kept): (Vec<_>, Vec<_>) = c
            .instructions
            .iter()
            .zip(&p.instructions)
            .map(|(c, o)| {
                // A flow instruction's words hold slots: they mean the same only when every
                // slot is where the original has it.
                let same_layout = c.constant.is_some() == o.constant.is_some()
                    && (same_slots || !o.opcode.is_flow());
                (
                    fragment_slot(&encoded, c.slot).filter(|_| same_layout),
                    fragment_slot(original, o.slot).filter(|_| same_layout),
                )
            })
            .unzip();
        Some((canonical, kept))
    });
    let kept = match canonical {
        Some((canonical, original)) => swap_slots(&mut words, &canonical, &original, Some),
        None => KeptEncoding {
            instructions: new_slots.len(),
            ..Default::default()
        },
    };
    let mut out = new.to_vec();
    for (slot, w) in new_slots.iter().zip(&words) {
        let at = *slot as usize * 16;
        if let (Some(w), Some(dst)) = (w, out.get_mut(at..at + 16)) {
            dst.copy_from_slice(w);
        }
    }
    (out, kept)
}
