//! The slot walk over fragment microcode in guest-memory layout (`rpcs3-shader-cache.md` §2.2):
//! 16-byte slots; after an instruction with an inline-constant source the next slot is the
//! constant; the program ends after the instruction with END (and its constant slot).
//!
//! Bit positions are for a slot's words read as little-endian `u32` (§2.2 "word layout"):
//! END is bit 8 of word 0, a source's register type is bits 8..=9 of words 1..=3, and type 2
//! is an inline constant.

use super::bytes::le_u32;

/// One fragment slot.
pub(crate) const SLOT: usize = 16;

/// Whether the instruction in `slot` (16 bytes) has END set.
pub(crate) fn is_end(slot: &[u8]) -> bool {
    le_u32(slot, 0).is_some_and(|w| w & 0x100 != 0)
}

/// Whether the instruction in `slot` reads an inline constant (the next slot).
pub(crate) fn has_constant_source(slot: &[u8]) -> bool {
    (1..=3).any(|k| le_u32(slot, 4 * k).is_some_and(|w| (w >> 8) & 3 == 2))
}

/// Byte length of the program that starts at `ucode[0]`: through the END instruction and, when
/// it reads one, its constant slot. `None` when the bytes end first.
pub(crate) fn program_length(ucode: &[u8]) -> Option<usize> {
    let mut at = 0usize;
    loop {
        let slot = ucode.get(at..at.checked_add(SLOT)?)?;
        let next = at
            + if has_constant_source(slot) {
                2 * SLOT
            } else {
                SLOT
            };
        if is_end(slot) {
            return (next <= ucode.len()).then_some(next);
        }
        at = next;
    }
}

/// Indices of the instruction slots (constant slots left out) from the start through END, or
/// through the last whole slot when there is no END.
pub(crate) fn instruction_slots(ucode: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0usize;
    while let Some(slot) = ucode.get(i * SLOT..(i + 1) * SLOT) {
        out.push(i);
        if is_end(slot) {
            break;
        }
        i += if has_constant_source(slot) { 2 } else { 1 };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(end: bool, constant: bool) -> [u8; 16] {
        let mut s = [0u8; 16];
        s[2] = 1; // opcode 1
        if end {
            s[1] = 1; // bit 8 of the little-endian word 0
        }
        if constant {
            s[5] = 2; // word 1, bits 8..9 = 2
        }
        s
    }

    #[test]
    fn walk_follows_constants_and_stops_after_end() {
        let mut p = Vec::new();
        p.extend(slot(false, true));
        p.extend([0xAA; 16]); // constant
        p.extend(slot(true, true));
        p.extend([0xBB; 16]); // END's constant
        assert_eq!(program_length(&p), Some(64));
        assert_eq!(instruction_slots(&p), vec![0, 2]);
        assert_eq!(program_length(&p[..48]), None, "END's constant is cut off");
        assert_eq!(program_length(&slot(false, false)), None);
        assert_eq!(program_length(&slot(true, false)), Some(16));
    }
}
