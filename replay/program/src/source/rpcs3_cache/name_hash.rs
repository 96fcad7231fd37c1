//! The two hashes RPCS3 has named raw program files with (`rpcs3-shader-cache.md` §2.3), so a
//! file can be told to belong to one era or the other:
//!
//! * **checksum** (from 2025-02-14): the sum over slots *i* of `rotr64(lo_i, 2i mod 64) +
//!   rotr64(hi_i, (2i+1) mod 64)`, `lo_i`/`hi_i` the little-endian `u64` halves of the slot;
//!   fragment programs count only instruction slots, but *i* still counts constant slots;
//! * **FNV-1a** over 64-bit lanes (before 2025-02-14): `h = (h ^ lane) * 0x100000001B3` from
//!   `0xCBF29CE484222325`, over the masked vertex slots (the instruction mask of a pipeline
//!   file; without one, every slot) or the fragment instruction slots until END.
//!
//! All arithmetic wraps mod 2^64.

use super::super::bytes::le_u64;
use super::super::fragment_slots::instruction_slots;
use crate::container::Stage;
use serde::Serialize;

/// Which RPCS3 era a raw file's name belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NameEra {
    /// The rotated-sum checksum (RPCS3 from 2025-02-14, d891b83e4b).
    Checksum,
    /// FNV-1a (RPCS3 before 2025-02-14).
    Fnv,
    /// The name is neither hash of the content (renamed, damaged, or another scheme).
    Neither,
}

const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;

fn lanes(file: &[u8], slot: usize) -> (u64, u64) {
    let at = (slot * 16) as u64;
    (
        le_u64(file, at).unwrap_or(0),
        le_u64(file, at + 8).unwrap_or(0),
    )
}

fn rotated(file: &[u8], slot: usize) -> u64 {
    let (lo, hi) = lanes(file, slot);
    let i = slot as u32;
    lo.rotate_right((2 * i) % 64)
        .wrapping_add(hi.rotate_right((2 * i + 1) % 64))
}

fn fnv(file: &[u8], slots: impl Iterator<Item = usize>) -> u64 {
    slots.fold(FNV_OFFSET, |h, slot| {
        let (lo, hi) = lanes(file, slot);
        ((h ^ lo).wrapping_mul(FNV_PRIME) ^ hi).wrapping_mul(FNV_PRIME)
    })
}

fn slots_of(stage: Stage, file: &[u8]) -> Vec<usize> {
    match stage {
        // Unmasked slots of a .vp are all-zero (§2.1), so every slot gives the masked sum.
        Stage::Vertex => (0..file.len() / 16).collect(),
        Stage::Fragment => instruction_slots(file),
    }
}

/// The checksum-era name of raw file content `file` (a `.vp` as stored: little-endian words).
pub fn checksum(stage: Stage, file: &[u8]) -> u64 {
    slots_of(stage, file)
        .into_iter()
        .fold(0u64, |sum, slot| sum.wrapping_add(rotated(file, slot)))
}

/// The FNV-era name of `file`; `mask` is a vertex instruction mask from a pipeline file
/// (bit *b* of word *n* = slot 64n + b), `None` for every slot.
pub fn fnv_name(stage: Stage, file: &[u8], mask: Option<&[u64]>) -> u64 {
    let slots = slots_of(stage, file).into_iter();
    match (stage, mask) {
        (Stage::Vertex, Some(mask)) => fnv(
            file,
            slots.filter(|&i| mask.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)),
        ),
        _ => fnv(file, slots),
    }
}

/// The era whose hash equals `name`, trying the FNV hash with no mask and with each of
/// `masks`.
pub fn era_of(stage: Stage, file: &[u8], name: u64, masks: &[&[u64]]) -> NameEra {
    if checksum(stage, file) == name {
        NameEra::Checksum
    } else if fnv_name(stage, file, None) == name
        || masks.iter().any(|m| fnv_name(stage, file, Some(m)) == name)
    {
        NameEra::Fnv
    } else {
        NameEra::Neither
    }
}
