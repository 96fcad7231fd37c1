//! The container scanner: finds `CgBinaryProgram` and PSL1GHT `"VP"`/`"FP"` containers at any
//! 4-byte-aligned offset of a byte buffer (an executable image, or a file with a foreign
//! header in front of its container), with every header check of `rpcs3-shader-cache.md` §5.4
//! and §5.2, so a stray profile number or a two-letter magic in other data is not taken for a
//! program.
//!
//! Only big-endian headers are recognised (the little-endian mirror RPCS3 also accepts, §5.1,
//! is not). A profile number that fails the checks is listed in [`ScanReport::rejected`] with
//! the check it failed; PSL1GHT magics that fail are not listed (two bytes match too often in
//! ordinary data to be worth reporting).

use super::bytes::{be_u16, be_u32};
use super::fragment_slots;
use crate::container::psl1ght::{fragment_spans, vertex_spans, HeaderSpans};
use crate::container::{
    CgProgram, Container, Psl1ghtFragmentProgram, Psl1ghtVertexProgram, MAGIC_FRAGMENT,
    MAGIC_VERTEX, PROFILE_FRAGMENT, PROFILE_VERTEX,
};

/// A container found by the scan.
#[derive(Debug, Clone)]
pub struct Hit {
    /// Byte offset of the container in the scanned buffer.
    pub offset: u64,
    /// Bytes the container covers (`totalSize` for Cg; through the microcode for PSL1GHT).
    pub len: u64,
    /// The parsed container.
    pub container: Container,
}

/// A `CgBinaryProgram` profile number that the header checks refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// Byte offset of the profile word.
    pub offset: u64,
    /// The check that failed.
    pub reason: String,
}

/// What [`scan`] found.
#[derive(Debug, Clone, Default)]
pub struct ScanReport {
    /// Accepted containers, by offset.
    pub hits: Vec<Hit>,
    /// Profile numbers that were not containers.
    pub rejected: Vec<Rejection>,
}

/// `CgBinaryProgram` header bytes (§5.1).
const CG_HEADER: u64 = 32;
/// `CgBinaryParameter` record bytes (§5.1).
const CG_PARAMETER: u64 = 48;
/// Stage descriptor bytes the header check requires (§5.4 rule 2: `program + 24 <= totalSize`).
const CG_DESCRIPTOR: u64 = 24;

/// Scans `bytes` at 4-byte steps (§5.4 rule 1; blobs are only 4-byte aligned, §5.3). After a
/// hit the scan resumes past the container (§5.4 rule 4).
pub fn scan(bytes: &[u8]) -> ScanReport {
    let mut report = ScanReport::default();
    let len = bytes.len() as u64;
    let mut at = 0u64;
    while at + 4 <= len {
        let found = match be_u32(bytes, at) {
            Some(PROFILE_VERTEX | PROFILE_FRAGMENT) => match cg_at(bytes, at) {
                Ok(hit) => Some(hit),
                Err(reason) => {
                    report.rejected.push(Rejection { offset: at, reason });
                    None
                }
            },
            _ => match be_u16(bytes, at) {
                Some(MAGIC_VERTEX) => psl1ght_vertex_at(bytes, at),
                Some(MAGIC_FRAGMENT) => psl1ght_fragment_at(bytes, at),
                _ => None,
            },
        };
        match found {
            Some(hit) => {
                at += hit.len.max(4).div_ceil(4) * 4;
                report.hits.push(hit);
            }
            None => at += 4,
        }
    }
    report
}

fn rest(bytes: &[u8], at: u64) -> &[u8] {
    bytes.get(at as usize..).unwrap_or(&[])
}

/// Whether the last 16-byte vertex instruction of `ucode` has END (D3 bit 0, big-endian).
fn vertex_ends(ucode: &[u8]) -> bool {
    ucode.len() >= 16 && ucode.len() % 16 == 0 && ucode[ucode.len() - 1] & 1 != 0
}

/// Whether the fragment walk from the start of `ucode` reaches END inside it (§5.4 rule 3).
fn fragment_ends(ucode: &[u8]) -> bool {
    fragment_slots::program_length(ucode).is_some()
}

fn cg_at(bytes: &[u8], at: u64) -> Result<Hit, String> {
    let blob = rest(bytes, at);
    let field = |off: u64| be_u32(blob, off).map(u64::from).ok_or("header is cut off");
    let remaining = blob.len() as u64;
    let (total, count, array) = (field(8)?, field(12)?, field(16)?);
    let (program, ucode_size, ucode) = (field(20)?, field(24)?, field(28)?);
    // §5.4 rule 2, check by check.
    if total < CG_HEADER || total > remaining {
        return Err(format!(
            "totalSize {total} is not within 32..={remaining} (the bytes that remain)"
        ));
    }
    if program < CG_HEADER || program + CG_DESCRIPTOR > total {
        return Err(format!(
            "program descriptor at {program} does not fit in {total} bytes"
        ));
    }
    if count != 0 && (array < CG_HEADER || array + CG_PARAMETER * count > total) {
        return Err(format!(
            "{count} parameters at {array} do not fit in {total} bytes"
        ));
    }
    if ucode_size == 0 || ucode_size % 16 != 0 {
        return Err(format!(
            "ucodeSize {ucode_size} is not a non-zero multiple of 16"
        ));
    }
    if ucode < CG_HEADER || ucode % 4 != 0 || ucode + ucode_size > total {
        return Err(format!(
            "microcode at {ucode} ({ucode_size} bytes) does not fit in {total} bytes"
        ));
    }
    let code = &blob[ucode as usize..(ucode + ucode_size) as usize];
    // §5.4 rule 3.
    if be_u32(blob, 0) == Some(PROFILE_VERTEX) {
        if field(program)? * 16 != ucode_size {
            return Err("vertex instructionCount * 16 differs from ucodeSize".into());
        }
        if !vertex_ends(code) {
            return Err("last vertex instruction has no END".into());
        }
    } else if !fragment_ends(code) {
        return Err("fragment walk does not reach END inside the microcode".into());
    }
    let container = CgProgram::parse(&blob[..total as usize])
        .map_err(|e| format!("header checks pass but the container is malformed: {e}"))?;
    Ok(Hit {
        offset: at,
        len: total,
        container: Container::Cg(container),
    })
}

/// A table offset must lie after the header when the table is not empty (§5.2).
fn table_after_header(count: u16, offset: u32, header: u64) -> bool {
    count == 0 || u64::from(offset) >= header
}

/// Microcode `[off, off + 16 * count)` must be non-empty, 16-aligned after the header and
/// inside the bytes that remain (§5.2: `ucode_off` is 16-aligned).
fn ucode_span(blob: &[u8], off: u32, count: u16, header: u64) -> Option<&[u8]> {
    let (off, end) = (u64::from(off), u64::from(off) + 16 * u64::from(count));
    if count == 0 || off < header || off % 16 != 0 || end > blob.len() as u64 {
        return None;
    }
    blob.get(off as usize..end as usize)
}

/// The microcode of the PSL1GHT container whose header `spans` gives, when its tables lie
/// after its header and its microcode 16-aligned after them, inside `blob` (§5.2).
fn psl1ght_ucode(blob: &[u8], spans: HeaderSpans) -> Option<&[u8]> {
    let (header, tables, ucode_off, count) = spans;
    if !tables
        .iter()
        .all(|&(count, offset)| table_after_header(count, offset, header))
    {
        return None;
    }
    ucode_span(blob, ucode_off, count, header)
}

fn psl1ght_vertex_at(bytes: &[u8], at: u64) -> Option<Hit> {
    let blob = rest(bytes, at);
    if !vertex_ends(psl1ght_ucode(blob, vertex_spans(blob)?)?) {
        return None;
    }
    let container = Psl1ghtVertexProgram::parse(blob).ok()?;
    Some(Hit {
        offset: at,
        len: container.extent(),
        container: Container::Psl1ghtVertex(container),
    })
}

fn psl1ght_fragment_at(bytes: &[u8], at: u64) -> Option<Hit> {
    let blob = rest(bytes, at);
    if !fragment_ends(psl1ght_ucode(blob, fragment_spans(blob)?)?) {
        return None;
    }
    let container = Psl1ghtFragmentProgram::parse(blob).ok()?;
    Some(Hit {
        offset: at,
        len: container.extent(),
        container: Container::Psl1ghtFragment(container),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stray_profile_numbers_are_rejected_with_the_failed_check() {
        // A profile number followed by totalSize 0, as in the .symtab data of §5.5.
        let mut b = vec![0u8; 64];
        b[4..8].copy_from_slice(&PROFILE_FRAGMENT.to_be_bytes());
        let r = scan(&b);
        assert!(r.hits.is_empty());
        assert_eq!(r.rejected.len(), 1);
        assert_eq!(r.rejected[0].offset, 4);
        assert!(r.rejected[0].reason.contains("totalSize 0"), "{r:?}");
    }

    #[test]
    fn two_letter_magics_alone_are_not_containers() {
        let mut b = b"VP..FP..".to_vec();
        b.resize(256, 0);
        let r = scan(&b);
        assert!(r.hits.is_empty() && r.rejected.is_empty());
    }
}
