//! Fragment program extraction from captured memory (rrc-format.md 4.6, 4.9).
//!
//! The program is read as 16-byte slots, each as four little-endian u32 reads of the raw bytes
//! (w0..w3). Leading slots whose opcode (`(w0 >> 16) & 0x3F`) is zero are skipped; if one of
//! them has END (bit 8 of w0) the program is that single NOP slot. From the first instruction
//! on, an instruction with a source type of 2 (bits 8..9) in w1, w2 or w3 is followed by a
//! 16-byte inline constant slot, and the instruction with END is the last one (its constant slot,
//! if any, still belongs to the program).
//!
//! **`fp_hash`**: xxh3-64 (seed 0) of the microcode bytes — from the first instruction slot
//! (after the skipped zero slots) through the END instruction and its constant slot — with every
//! inline-constant slot replaced by 16 zero bytes, so draws that use one program with different
//! inline constants share a hash. Printed as 16 lowercase hex digits.

use rsxtrace_fetch::GuestMemory;
use rsxtrace_rrc::Location;
use serde::Serialize;
use xxhash_rust::xxh3::xxh3_64;

/// Upper bound on slots scanned (64 KiB of microcode), so a corrupt program cannot run away.
pub const MAX_FRAGMENT_SLOTS: u32 = 4096;

/// Slots read through one gathering of the visible blocks (2 KiB; longer programs read the
/// rest slot by slot).
const WINDOW_SLOTS: u32 = 128;

/// Where a fragment program lives (`SET_SHADER_PROGRAM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramAddress {
    /// Bits 0..1 minus one.
    pub location: Location,
    /// `value & 0x7FFFFFFC`.
    pub offset: u32,
}

impl ProgramAddress {
    /// Decode `SET_SHADER_PROGRAM`: bits 0..1 = location + 1, offset = `value & 0x7FFFFFFC`
    /// (rrc-format.md 4.6). `None` when the location field is 0 or 3.
    pub fn from_raw(v: u32) -> Option<ProgramAddress> {
        let location = crate::state::location_plus_one(v)?;
        Some(ProgramAddress {
            location,
            offset: v & 0x7FFF_FFFC,
        })
    }
}

/// A fragment program read from memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FragmentProgram {
    /// Its address.
    pub address: ProgramAddress,
    /// Number of leading zero-opcode slots skipped before the first instruction.
    pub start_slot: u32,
    /// Microcode bytes from the first instruction through END (and its constant slot).
    #[serde(skip)]
    pub ucode: Vec<u8>,
    /// Slot indices (relative to `start_slot`) of inline constants.
    pub constant_slots: Vec<u32>,
    /// Number of slots in `ucode`.
    pub slot_count: u32,
    /// `fp_hash` (see the module docs).
    pub hash: u64,
}

impl FragmentProgram {
    /// The inline constant in slot `slot` (counted from the first instruction, as
    /// [`FragmentProgram::constant_slots`]) as four floats; `None` when the slot is past the
    /// microcode.
    pub fn constant(&self, slot: u32) -> Option<[f32; 4]> {
        inline_constant(&self.ucode, slot)
    }

    /// Every inline constant: `(slot, value)` per [`FragmentProgram::constant_slots`] entry
    /// inside the microcode.
    pub fn constants(&self) -> impl Iterator<Item = (u32, [f32; 4])> + '_ {
        self.constant_slots
            .iter()
            .filter_map(|&slot| Some((slot, self.constant(slot)?)))
    }
}

/// The four floats of slot `slot` of fragment microcode in guest byte order: each word is
/// stored big-endian with its 16-bit halves swapped (rsx-microcode.md, fragment encoding:
/// RPCS3's `fragment_program_decompiler` swaps them back). `None` past the end.
pub fn inline_constant(ucode: &[u8], slot: u32) -> Option<[f32; 4]> {
    let at = usize::try_from(slot).ok()?.checked_mul(16)?;
    let bytes = ucode.get(at..at.checked_add(16)?)?;
    let mut out = [0f32; 4];
    for (v, w) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        *v = f32::from_bits(u32::from_be_bytes([w[0], w[1], w[2], w[3]]).rotate_left(16));
    }
    Some(out)
}

/// Why a fragment program could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FragmentError {
    /// Slot `slot` (from the program address) is not in the memory this draw sees.
    #[error(
        "fragment program at {location:?} 0x{offset:08x}: slot {slot} is not in captured memory"
    )]
    MissingMemory {
        /// Location.
        location: Location,
        /// Program offset.
        offset: u32,
        /// Slot index from the program address.
        slot: u32,
    },
    /// No END within [`MAX_FRAGMENT_SLOTS`] slots.
    #[error("fragment program at {location:?} 0x{offset:08x}: no END within {slots} slots")]
    NoEnd {
        /// Location.
        location: Location,
        /// Program offset.
        offset: u32,
        /// Slots scanned.
        slots: u32,
    },
}

fn slot_words(b: &[u8]) -> [u32; 4] {
    let w = |i: usize| {
        let mut a = [0u8; 4];
        if let Some(s) = b.get(i * 4..i * 4 + 4) {
            a.copy_from_slice(s);
        }
        u32::from_le_bytes(a)
    };
    [w(0), w(1), w(2), w(3)]
}

/// Read and delimit the fragment program at `address` (see the module docs).
pub fn read_fragment_program(
    memory: &impl GuestMemory,
    address: ProgramAddress,
) -> Result<FragmentProgram, FragmentError> {
    let ProgramAddress { location, offset } = address;
    // The blocks visible over the first WINDOW_SLOTS slots, gathered once, answer each slot's
    // read as `read` would (one lookup instead of one per slot); slots past the window, or
    // all of them when too many blocks overlap it, are read one by one.
    let visible = memory.visible_blocks(location, offset, WINDOW_SLOTS * 16);
    let slot_at = |slot: u32| -> Result<[u32; 4], FragmentError> {
        let missing = FragmentError::MissingMemory {
            location,
            offset,
            slot,
        };
        let addr = offset
            .checked_add(slot.checked_mul(16).ok_or(missing.clone())?)
            .ok_or(missing.clone())?;
        match &visible {
            Some(v) if slot < WINDOW_SLOTS => v.read(addr, 16),
            _ => memory.read(location, addr, 16),
        }
        .map(|b| slot_words(&b))
        .ok_or(missing)
    };
    let mut ucode = Vec::with_capacity(1024);
    let mut constant_slots = Vec::new();
    let mut hashed = Vec::with_capacity(1024);
    let push = |v: &mut Vec<u8>, w: &[u32; 4]| {
        for x in w {
            v.extend_from_slice(&x.to_le_bytes());
        }
    };

    // Skip leading zero-opcode slots.
    let mut slot = 0u32;
    let start_slot = loop {
        if slot >= MAX_FRAGMENT_SLOTS {
            return Err(FragmentError::NoEnd {
                location,
                offset,
                slots: slot,
            });
        }
        let w = slot_at(slot)?;
        if (w[0] >> 16) & 0x3F != 0 {
            break slot;
        }
        if w[0] & 0x100 != 0 {
            // NOP-only program: this single slot.
            push(&mut ucode, &w);
            push(&mut hashed, &w);
            return Ok(FragmentProgram {
                address,
                start_slot: slot,
                hash: xxh3_64(&hashed),
                ucode,
                constant_slots,
                slot_count: 1,
            });
        }
        slot += 1;
    };

    loop {
        if slot >= MAX_FRAGMENT_SLOTS {
            return Err(FragmentError::NoEnd {
                location,
                offset,
                slots: slot,
            });
        }
        let w = slot_at(slot)?;
        push(&mut ucode, &w);
        push(&mut hashed, &w);
        slot += 1;
        // Flow-control instructions (opcode bit 6, w2 bit 23 in this read order) hold offsets
        // in their source words, never an inline constant (rsx-microcode.md B.3).
        let is_flow = w[2] & (1 << 23) != 0;
        if !is_flow && w[1..].iter().any(|s| (s >> 8) & 3 == 2) {
            let c = slot_at(slot)?;
            push(&mut ucode, &c);
            push(&mut hashed, &[0; 4]);
            constant_slots.push(slot - start_slot);
            slot += 1;
        }
        if w[0] & 0x100 != 0 {
            break;
        }
    }
    Ok(FragmentProgram {
        address,
        start_slot,
        hash: xxh3_64(&hashed),
        ucode,
        constant_slots,
        slot_count: slot - start_slot,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_fetch::FlatMemory;

    fn le(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn flow_instructions_never_take_a_constant_slot() {
        // Slot 0: an IFE-like flow word (opcode 0x02 in w0 bits 16..21, w2 bit 23 = opcode
        // bit 6) whose offset words happen to have 2 in bits 8..9; slot 1: END. Without the
        // flow exemption slot 1 would be taken as slot 0's constant and the scan would run on.
        let flow = [0x0002_0000, 0x0000_0200, 0x0080_0200, 0x0000_0200];
        let end = [0x0001_0100, 0, 0, 0];
        let mem = FlatMemory::at(Location::Local, 0x100, le(&[flow, end].concat()));
        let p = read_fragment_program(&mem, ProgramAddress::from_raw(0x101).unwrap()).unwrap();
        assert_eq!(p.slot_count, 2);
        assert!(p.constant_slots.is_empty());
        // The same word without the flow bit does take the next slot as a constant.
        let alu = [0x0002_0000, 0x0000_0200, 0x0000_0200, 0x0000_0200];
        let mem = FlatMemory::at(Location::Local, 0x100, le(&[alu, end, end].concat()));
        let p = read_fragment_program(&mem, ProgramAddress::from_raw(0x101).unwrap()).unwrap();
        assert_eq!(
            (p.slot_count, p.constant_slots.as_slice()),
            (3, &[1u32][..])
        );
    }

    #[test]
    fn address_decode() {
        assert_eq!(
            ProgramAddress::from_raw(0x0001_2341),
            Some(ProgramAddress {
                location: Location::Local,
                offset: 0x0001_2340
            })
        );
        assert_eq!(
            ProgramAddress::from_raw(0x8000_0102),
            Some(ProgramAddress {
                location: Location::Main,
                offset: 0x100
            })
        );
        assert_eq!(ProgramAddress::from_raw(0x100), None);
    }

    #[test]
    fn corpus_style_single_instruction() {
        // primitives.fpo microcode bytes 3e010100 c8011c9d c8000001 c8003fe1 (rsx-microcode.md
        // B.1): w0 = 0x0001013e, opcode 1, END set; sources of type 1 and 0 only.
        let bytes = vec![
            0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00,
            0x3f, 0xe1,
        ];
        let m = FlatMemory::at(Location::Local, 0x40, bytes.clone());
        let p = read_fragment_program(
            &m,
            ProgramAddress {
                location: Location::Local,
                offset: 0x40,
            },
        )
        .unwrap();
        assert_eq!(p.ucode, bytes);
        assert_eq!((p.start_slot, p.slot_count), (0, 1));
        assert!(p.constant_slots.is_empty());
        assert_eq!(p.hash, xxh3_64(&bytes));
    }

    #[test]
    fn leading_zero_slots_constants_and_end() {
        // Slot 0: zero opcode (skipped). Slot 1: opcode 2, w2 source type 2 -> slot 2 constant.
        // Slot 3: opcode 1, END, w3 source type 2 -> slot 4 constant (kept after END).
        // Slot 5: garbage after the program.
        let words = [
            0,
            0,
            0,
            0, //
            0x0002_0000,
            0x0000_0001,
            0x0000_0200,
            0, //
            0x3F80_0000,
            0x4000_0000,
            0,
            0, //
            0x0001_0100,
            0,
            0,
            0x0000_0201, //
            0x1111_1111,
            0x2222_2222,
            0x3333_3333,
            0x4444_4444, //
            0xFFFF_FFFF,
            0xFFFF_FFFF,
            0xFFFF_FFFF,
            0xFFFF_FFFF,
        ];
        let m = FlatMemory::at(Location::Local, 0x1000, le(&words));
        let addr = ProgramAddress {
            location: Location::Local,
            offset: 0x1000,
        };
        let p = read_fragment_program(&m, addr).unwrap();
        assert_eq!(p.start_slot, 1);
        assert_eq!(p.slot_count, 4);
        assert_eq!(p.constant_slots, vec![1, 3]);
        assert_eq!(p.ucode, le(&words[4..20]));
        let mut hashed = le(&words[4..20]);
        hashed[16..32].fill(0);
        hashed[48..64].fill(0);
        assert_eq!(p.hash, xxh3_64(&hashed));
        // Different constants, same hash.
        let mut other = words;
        other[8] = 0x4040_0000;
        other[16] = 0;
        let q = read_fragment_program(&FlatMemory::at(Location::Local, 0x1000, le(&other)), addr)
            .unwrap();
        assert_eq!(q.hash, p.hash);
        assert_ne!(q.ucode, p.ucode);
    }

    #[test]
    fn nop_program_missing_memory_and_no_end() {
        let addr = ProgramAddress {
            location: Location::Local,
            offset: 0,
        };
        let p = read_fragment_program(
            &FlatMemory::at(Location::Local, 0, le(&[0, 0, 0, 0, 0x100, 0, 0, 0])),
            addr,
        )
        .unwrap();
        assert_eq!((p.start_slot, p.slot_count), (1, 1));
        // Program runs off the captured bytes.
        let e = read_fragment_program(
            &FlatMemory::at(Location::Local, 0, le(&[0x0001_0000, 0, 0, 0])),
            addr,
        )
        .unwrap_err();
        assert_eq!(
            e,
            FragmentError::MissingMemory {
                location: Location::Local,
                offset: 0,
                slot: 1
            }
        );
        // Main location not captured at all.
        let main = ProgramAddress {
            location: Location::Main,
            offset: 0,
        };
        assert!(matches!(
            read_fragment_program(&FlatMemory::at(Location::Local, 0, vec![]), main),
            Err(FragmentError::MissingMemory { slot: 0, .. })
        ));
        // No END within the bound.
        let big = le(&[0x0001_0000, 0, 0, 0].repeat(MAX_FRAGMENT_SLOTS as usize + 1));
        assert!(matches!(
            read_fragment_program(&FlatMemory::at(Location::Local, 0, big), addr),
            Err(FragmentError::NoEnd { .. })
        ));
        // Offset near 4 GiB does not overflow.
        let high = ProgramAddress {
            location: Location::Local,
            offset: 0xFFFF_FFF0,
        };
        assert!(read_fragment_program(&FlatMemory::at(Location::Local, 0, vec![]), high).is_err());
    }
}
