//! `_binary_<file>_[fv]po_start/_end/_size` symbols (`rpcs3-shader-cache.md` §5.3): the
//! programs an executable links in as binary objects, for cross-checking the header scan and
//! for recovering a blob whose header is damaged (§5.5, `ppu_vpu.ppu.elf`).

use super::super::bytes::be_u32;
use super::super::fragment_slots;
use super::elf::{Elf, BINARY_SYMBOL_PREFIX};
use crate::container::Stage;

/// A blob named by `_binary_*_start` and its `_end` or `_size` partner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NamedBlob {
    /// The `_start` symbol.
    pub symbol: String,
    /// The stage its name gives (`fpo` fragment, `vpo` vertex).
    pub stage: Stage,
    /// Offset of the blob in the image, when a segment maps its address from the file.
    pub offset: Option<u64>,
    /// Its length, when `_end` or `_size` gives one.
    pub len: Option<u64>,
}

/// Every `_binary_*_fpo_start` / `_binary_*_vpo_start` symbol of `elf`, by name.
pub(crate) fn named_blobs(elf: &Elf) -> Vec<NamedBlob> {
    let mut out = Vec::new();
    for s in &elf.symbols {
        let Some(base) = s.name.strip_suffix("_start") else {
            continue;
        };
        let stage = if base.ends_with("_fpo") {
            Stage::Fragment
        } else if base.ends_with("_vpo") {
            Stage::Vertex
        } else {
            continue;
        };
        debug_assert!(base.starts_with(BINARY_SYMBOL_PREFIX));
        let len = elf
            .symbol(&format!("{base}_end"))
            .and_then(|end| end.checked_sub(s.value))
            .or_else(|| elf.symbol(&format!("{base}_size")));
        out.push(NamedBlob {
            symbol: s.name.clone(),
            stage,
            offset: elf.offset_of(s.value),
            len,
        });
    }
    out.sort_by(|a, b| a.symbol.cmp(&b.symbol));
    out
}

/// Finds the microcode of a `CgBinaryProgram` blob whose header is unusable, from parts that
/// stay intact: in every container of the corpus (all 11 `.vpo`/`.fpo` of ps3autotests, the
/// layout `sce-cgc` writes) the microcode is the last thing in the blob, starts 16-aligned,
/// and the stage descriptor, whose first word is `instructionCount` (16-byte slots, §5.1),
/// sits 32 bytes before it. A start is accepted when that count covers exactly the rest of
/// the blob and the microcode ends as the stage requires (vertex: END on the last instruction;
/// fragment: the slot walk ends exactly at the blob's end). Returns the microcode's offset in
/// the blob.
pub(crate) fn recover_ucode(blob: &[u8], stage: Stage) -> Option<usize> {
    let len = blob.len();
    (32..len).step_by(16).find(|&start| {
        let count = be_u32(blob, (start - 32) as u64).map(u64::from);
        let ucode = &blob[start..];
        count.is_some_and(|c| c * 16 == ucode.len() as u64)
            && match stage {
                Stage::Vertex => ucode[ucode.len() - 1] & 1 != 0,
                Stage::Fragment => fragment_slots::program_length(ucode) == Some(ucode.len()),
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microcode_is_found_behind_its_descriptor() {
        let mut blob = vec![0xEEu8; 96];
        blob[48..52].copy_from_slice(&1u32.to_be_bytes()); // instructionCount 1 at 80 - 32
        blob[80..96].fill(0);
        blob[95] = 1; // END
        assert_eq!(recover_ucode(&blob, Stage::Vertex), Some(80));
        blob[95] = 0;
        assert_eq!(recover_ucode(&blob, Stage::Vertex), None);
    }
}
