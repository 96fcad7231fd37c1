//! The end-of-program scan RPCS3 runs on fragment microcode in guest memory to decide how
//! many bytes a capture keeps (rrc-format.md 4.9; RPCS3 `ProgramStateCache.cpp`,
//! `fragment_program_utils::analyse_fragment_program` and `is_any_src_constant`).
//!
//! The block is read as 16-byte slots, each as four little-endian u32 reads of the raw bytes
//! (w0..w3):
//! 1. leading slots whose opcode `(w0 >> 16) & 0x3F` is 0 are skipped; if one of them has the
//!    END bit (`w0` bit 8) the program is a NOP shader of one slot;
//! 2. from the first slot with an opcode on, a slot whose w1, w2 or w3 has source type 2
//!    (`(w & 0x300) == 0x200`) is followed by a 16-byte inline constant, unless it is a
//!    branch (`w2` bit 23, opcodes 0x40..0x45), whose source words hold offsets;
//! 3. the slot with the END bit is the last instruction (its constant, if any, is kept).

/// Bytes per slot.
pub const SLOT_BYTES: usize = 16;

/// Where the program starts and how long it is, as `analyse_fragment_program` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentExtent {
    /// Bytes of leading zero-opcode slots (`program_start_offset`).
    pub start_offset: u32,
    /// Bytes from the start to the end of the END slot, inline constants included
    /// (`program_ucode_length`).
    pub ucode_length: u32,
    /// The program was only NOP slots ending in an END slot.
    pub nop_shader: bool,
}

impl FragmentExtent {
    /// Bytes the capture keeps: `program_start_offset + program_ucode_length`.
    pub fn captured_len(&self) -> u32 {
        self.start_offset + self.ucode_length
    }
}

/// The scan ran out of bytes before it found the END slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("fragment program has no END flag within the {available} placed bytes (slot {slot}, byte {offset}, needs 16 bytes)")]
pub struct ScanError {
    /// Slot index the scan needed next.
    pub slot: u32,
    /// Byte offset of that slot from the program address.
    pub offset: u64,
    /// Bytes that were available.
    pub available: u64,
}

/// The four little-endian words of slot `slot`, or an error when it is not fully present.
fn slot_words(bytes: &[u8], slot: u32) -> Result<[u32; 4], ScanError> {
    let start = slot as usize * SLOT_BYTES;
    let err = ScanError {
        slot,
        offset: start as u64,
        available: bytes.len() as u64,
    };
    let raw = bytes.get(start..start + SLOT_BYTES).ok_or(err)?;
    let mut words = [0u32; 4];
    for (word, chunk) in words.iter_mut().zip(raw.chunks_exact(4)) {
        let mut b = [0u8; 4];
        b.copy_from_slice(chunk);
        *word = u32::from_le_bytes(b);
    }
    Ok(words)
}

fn opcode(w: &[u32; 4]) -> u32 {
    (w[0] >> 16) & 0x3F
}

fn is_end(w: &[u32; 4]) -> bool {
    (w[0] >> 8) & 1 == 1
}

/// `is_any_src_constant`: a source type of 2 in bits 8..9 of w1, w2 or w3.
fn uses_inline_constant(w: &[u32; 4]) -> bool {
    w[1..].iter().any(|&s| s & 0x300 == 0x200)
}

/// Branch instructions (opcode bit 6, stored in w2 bit 23) carry offsets, not sources.
fn is_branch(w: &[u32; 4]) -> bool {
    w[2] & (1 << 23) != 0
}

/// Scan `bytes` (guest memory from the program address on) for the program's extent.
pub fn scan(bytes: &[u8]) -> Result<FragmentExtent, ScanError> {
    // At most one slot per 16 bytes, so the slot counter cannot overflow u32 on any input
    // shorter than 64 GiB; `slot_words` fails first.
    let mut slot: u32 = 0;
    loop {
        let w = slot_words(bytes, slot)?;
        if opcode(&w) != 0 {
            break;
        }
        if is_end(&w) {
            let start = slot * SLOT_BYTES as u32;
            return Ok(FragmentExtent {
                start_offset: start,
                ucode_length: SLOT_BYTES as u32,
                nop_shader: true,
            });
        }
        slot += 1;
    }
    let start_slot = slot;
    loop {
        let w = slot_words(bytes, slot)?;
        if !is_branch(&w) && uses_inline_constant(&w) {
            // The constant slot must be present too: RPCS3 copies it.
            slot_words(bytes, slot + 1)?;
            slot += 1;
        }
        slot += 1;
        if is_end(&w) {
            break;
        }
    }
    Ok(FragmentExtent {
        start_offset: start_slot * SLOT_BYTES as u32,
        ucode_length: (slot - start_slot) * SLOT_BYTES as u32,
        nop_shader: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lay out slots given as little-endian words (the 4.9 read order).
    fn slots(words: &[[u32; 4]]) -> Vec<u8> {
        words
            .iter()
            .flat_map(|s| s.iter().flat_map(|w| w.to_le_bytes()))
            .collect()
    }

    // w0 fields (4.9 read order): opcode in bits 16..21, END in bit 8.
    const MOV: u32 = 0x01 << 16;
    const MUL: u32 = 0x02 << 16;
    const END: u32 = 1 << 8;
    // Source words: type in bits 8..9 (1 = input, 2 = constant).
    const SRC_INPUT: u32 = 0x100;
    const SRC_CONST: u32 = 0x200;

    #[test]
    fn corpus_mov_col0_is_one_slot() {
        // rsx-microcode.md B.1: primitives.fpo raw bytes 3e010100 c8011c9d c8000001 c8003fe1.
        let bytes = [
            0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00,
            0x3f, 0xe1, // Trailing garbage that must not be counted.
            0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let e = scan(&bytes).unwrap();
        assert_eq!(
            e,
            FragmentExtent {
                start_offset: 0,
                ucode_length: 16,
                nop_shader: false
            }
        );
        assert_eq!(e.captured_len(), 16);
    }

    #[test]
    fn leading_nops_and_inline_constants() {
        let bytes = slots(&[
            [0, 0, 0, 0],                                         // slot 0: leading NOP
            [0, 0, 0, 0],                                         // slot 1: leading NOP
            [MUL, SRC_INPUT, SRC_CONST, 0], // slot 2: MUL with constant in src1
            [0x3F80_0000, 0x0000_0000, 0x4000_0000, 0x0000_0000], // slot 3: constant data
            [MOV | END, 0, 0, SRC_CONST],   // slot 4: MOV END, constant in src2
            [0x1234_5678, 0x0101_0101, 0, 0], // slot 5: its constant
            [MOV, 0, 0, 0],                 // slot 6: after the program, not kept
        ]);
        let e = scan(&bytes).unwrap();
        assert_eq!(
            e,
            FragmentExtent {
                start_offset: 32,
                ucode_length: 64,
                nop_shader: false
            }
        );
        assert_eq!(e.captured_len(), 96);
    }

    #[test]
    fn nop_with_constant_inside_the_program_skips_a_slot() {
        let bytes = slots(&[
            [MOV, 0, 0, 0],       // slot 0: program start
            [0, SRC_CONST, 0, 0], // slot 1: NOP referencing a constant (RPCS3 HW quirk)
            [MOV | END, 0, 0, 0], // slot 2: the constant: its END bit is data
            [MOV | END, 0, 0, 0], // slot 3: the real END
        ]);
        assert_eq!(scan(&bytes).unwrap().ucode_length, 64);
    }

    #[test]
    fn branches_do_not_skip_constant_slots() {
        // A branch (w2 bit 23) whose offset words happen to look like constant sources.
        let bytes = slots(&[
            [0x02 << 16, SRC_CONST, (1 << 23) | SRC_CONST, SRC_CONST],
            [MOV | END, 0, 0, 0],
        ]);
        assert_eq!(scan(&bytes).unwrap().ucode_length, 32);
    }

    #[test]
    fn nop_shader() {
        let bytes = slots(&[[0, 0, 0, 0], [END, 0, 0, 0], [MOV, 0, 0, 0]]);
        assert_eq!(
            scan(&bytes).unwrap(),
            FragmentExtent {
                start_offset: 16,
                ucode_length: 16,
                nop_shader: true
            }
        );
    }

    #[test]
    fn truncated_programs_are_errors() {
        assert_eq!(
            scan(&[]),
            Err(ScanError {
                slot: 0,
                offset: 0,
                available: 0
            })
        );
        let no_end = slots(&[[MOV, 0, 0, 0], [MOV, 0, 0, 0]]);
        assert_eq!(
            scan(&no_end),
            Err(ScanError {
                slot: 2,
                offset: 32,
                available: 32
            })
        );
        // The END instruction's constant slot is missing.
        let no_const = slots(&[[MOV | END, SRC_CONST, 0, 0]]);
        assert_eq!(
            scan(&no_const),
            Err(ScanError {
                slot: 1,
                offset: 16,
                available: 16
            })
        );
        // A partial slot.
        assert_eq!(
            scan(&[1, 2, 3]),
            Err(ScanError {
                slot: 0,
                offset: 0,
                available: 3
            })
        );
    }
}
