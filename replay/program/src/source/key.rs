//! The content key of a program and its canonical microcode, by the frame model's own
//! definitions (`rsxtrace_frame::transform::scan_vertex_program` for `vp_hash`,
//! `rsxtrace_frame::fragment::read_fragment_program` for `fp_hash`), so that a key computed
//! here equals the one a capture's draw carries.

use crate::container::Stage;
use rsxtrace_fetch::FlatMemory;
use rsxtrace_frame::fragment::{read_fragment_program, ProgramAddress};
use rsxtrace_frame::transform::scan_vertex_program;
use rsxtrace_rrc::Location;

/// Canonical microcode and content key of `ucode` as stored in a container (vertex programs
/// as big-endian words starting at the entry slot; fragment programs as guest-memory bytes).
///
/// Vertex programs are cut after the first slot with END; one without END is refused.
/// Fragment programs are delimited by the frame model's walk (leading NOP slots skipped,
/// inline-constant slots followed, END's constant slot included); one without END is refused.
pub fn canonical(stage: Stage, ucode: &[u8]) -> Result<(Vec<u8>, u64), String> {
    match stage {
        Stage::Vertex => vertex(ucode),
        Stage::Fragment => fragment(ucode),
    }
}

fn vertex(ucode: &[u8]) -> Result<(Vec<u8>, u64), String> {
    if ucode.is_empty() || ucode.len() % 16 != 0 {
        return Err(format!(
            "vertex microcode of {} bytes is not a whole number of 16-byte instructions",
            ucode.len()
        ));
    }
    let words = crate::vertex::words_of(ucode);
    let scan = scan_vertex_program(&words, 0);
    let end = scan
        .end_slot
        .ok_or_else(|| "vertex program has no instruction with END".to_string())?;
    let len = (end as usize + 1) * 16;
    Ok((ucode[..len].to_vec(), scan.hash))
}

fn fragment(ucode: &[u8]) -> Result<(Vec<u8>, u64), String> {
    let address = ProgramAddress {
        location: Location::Local,
        offset: 0,
    };
    let p = read_fragment_program(&FlatMemory::local(ucode), address)
        .map_err(|e| format!("fragment program: {e}"))?;
    Ok((p.ucode, p.hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertex_program_is_cut_after_end() {
        let mut ucode = vec![0u8; 48];
        ucode[16 + 15] = 1; // slot 1, word 3 bit 0
        let (canon, key) = canonical(Stage::Vertex, &ucode).unwrap();
        assert_eq!(canon.len(), 32);
        let words: Vec<u32> = canon
            .chunks_exact(4)
            .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(key, scan_vertex_program(&words, 0).hash);
    }

    #[test]
    fn programs_without_end_are_refused() {
        assert!(canonical(Stage::Vertex, &[0u8; 32]).is_err());
        assert!(canonical(Stage::Vertex, &[0u8; 20]).is_err());
        let mut fp = vec![0u8; 32];
        fp[2] = 1; // opcode 1 in both slots, no END
        fp[18] = 1;
        assert!(canonical(Stage::Fragment, &fp).is_err());
    }
}
