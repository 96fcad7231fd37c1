//! The content key of a program and its canonical microcode, by the frame model's own
//! definitions (`rsxtrace_frame::transform::scan_vertex_program` for `vp_hash`,
//! `rsxtrace_frame::fragment::read_fragment_program` for `fp_hash`), so that a key computed
//! here equals the one a capture's draw carries.

use crate::container::Stage;
use crate::vertex::MEMORY_SLOTS;
use rsxtrace_fetch::FlatMemory;
use rsxtrace_frame::fragment::{read_fragment_program, FragmentError, ProgramAddress};
use rsxtrace_frame::transform::scan_vertex_program;
use rsxtrace_rrc::Location;

/// Canonical microcode and content key of `ucode` as stored in a container or a cache file
/// (vertex programs as big-endian words, executed from slot `entry`; fragment programs as
/// guest-memory bytes, `entry` 0).
///
/// Vertex programs are kept whole: a subroutine after END, or before the entry (RPCS3 cache
/// files run from the lowest slot the program reaches, `rpcs3-shader-cache.md` §2.1), is part
/// of what runs. The key is the frame model's `vp_hash` of the slots from the entry through
/// the first END, as a capture's draw has it. An image longer than the 544-slot transform
/// program memory, an entry outside the image, or no END from the entry is refused.
/// Fragment programs are delimited by the frame model's walk (leading NOP slots skipped,
/// inline-constant slots followed, END's constant slot included); one without END is refused.
pub fn canonical(stage: Stage, ucode: &[u8], entry: u32) -> Result<(Vec<u8>, u64), String> {
    match stage {
        Stage::Vertex => vertex(ucode, entry),
        Stage::Fragment if entry != 0 => Err(format!(
            "fragment programs start at their first slot, not at slot {entry}"
        )),
        Stage::Fragment => fragment(ucode),
    }
}

/// The slots of vertex microcode (big-endian words) through the first END, or all of them
/// when none has END: what the key hashes from an entry slot, and the extent of microcode
/// whose end is unknown (a blob recovered through a symbol runs to the blob's end).
pub fn vertex_through_end(ucode: &[u8]) -> &[u8] {
    let end = ucode
        .chunks_exact(16)
        .position(|slot| slot[15] & 1 != 0)
        .map_or(ucode.len(), |s| (s + 1) * 16);
    &ucode[..end]
}

fn vertex(ucode: &[u8], entry: u32) -> Result<(Vec<u8>, u64), String> {
    if ucode.is_empty() || ucode.len() % 16 != 0 {
        return Err(format!(
            "vertex microcode of {} bytes is not a whole number of 16-byte instructions",
            ucode.len()
        ));
    }
    let slots = ucode.len() / 16;
    if slots > MEMORY_SLOTS {
        return Err(format!(
            "vertex program of {slots} instructions does not fit the {MEMORY_SLOTS}-slot \
             transform program memory"
        ));
    }
    if entry as usize >= slots {
        return Err(format!(
            "entry slot {entry} is outside the program's {slots} instructions"
        ));
    }
    let words = crate::vertex::words_of(ucode);
    let scan = scan_vertex_program(&words, entry);
    if scan.end_slot.is_none() {
        return Err(format!(
            "vertex program has no instruction with END from slot {entry}"
        ));
    }
    Ok((ucode.to_vec(), scan.hash))
}

fn fragment(ucode: &[u8]) -> Result<(Vec<u8>, u64), String> {
    let address = ProgramAddress {
        location: Location::Local,
        offset: 0,
    };
    // Said of the file, not of a capture's memory (the reader's own words).
    let p = read_fragment_program(&FlatMemory::local(ucode), address).map_err(|e| match e {
        FragmentError::MissingMemory { .. } if ucode.is_empty() => {
            "fragment program: the file is empty".to_string()
        }
        FragmentError::MissingMemory { slot, .. } => {
            format!("fragment program: no instruction with END in the file's {slot} instructions")
        }
        FragmentError::NoEnd { slots, .. } => {
            format!("fragment program: no instruction with END within {slots} instructions")
        }
    })?;
    Ok((p.ucode, p.hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vertex_program_is_kept_whole_and_keyed_from_its_entry_to_end() {
        // Slot 0: a subroutine before the entry; slot 1: END; slot 2: one after END.
        let mut ucode = vec![0u8; 48];
        ucode[..16].fill(0x11);
        ucode[16 + 15] = 1; // slot 1, word 3 bit 0
        ucode[32..].fill(0x22);
        let (canon, key) = canonical(Stage::Vertex, &ucode, 1).unwrap();
        assert_eq!(canon, ucode);
        let words = crate::vertex::words_of(&ucode);
        assert_eq!(key, scan_vertex_program(&words, 1).hash);
        assert_eq!(key, scan_vertex_program(&words[4..8], 0).hash);
        assert!(canonical(Stage::Vertex, &ucode, 3).is_err());
        // A fragment program file is spoken of as a file, not as captured memory.
        let empty = canonical(Stage::Fragment, &[], 0).unwrap_err();
        assert_eq!(empty, "fragment program: the file is empty");
        let no_end = canonical(Stage::Fragment, &[0u8; 32], 0).unwrap_err();
        assert_eq!(
            no_end,
            "fragment program: no instruction with END in the file's 2 instructions"
        );
        assert!(canonical(Stage::Vertex, &vec![0u8; 16 * (MEMORY_SLOTS + 1)], 0).is_err());
    }

    #[test]
    fn programs_without_end_are_refused() {
        assert!(canonical(Stage::Vertex, &[0u8; 32], 0).is_err());
        assert!(canonical(Stage::Vertex, &[0u8; 20], 0).is_err());
        let mut fp = vec![0u8; 32];
        fp[2] = 1; // opcode 1 in both slots, no END
        fp[18] = 1;
        assert!(canonical(Stage::Fragment, &fp, 0).is_err());
    }
}
