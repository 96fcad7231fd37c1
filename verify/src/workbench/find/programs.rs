//! The search in vertex programs. A vertex program is not captured memory: it is uploaded
//! through the command stream into the RSX's program memory, so the block search does not see
//! it. Each distinct program (by `vp_hash`) is searched once, as the bytes a Sony or homebrew
//! container holds: its 32-bit words from the start slot through the slot with END, each
//! big-endian (rsx-microcode.md, the `.vpo` ucode layout). A byte pattern matches at any
//! offset; a hash matches the whole program. Each hit names the draws that run the program and
//! the 16-byte instruction slot where it starts.

use super::hash::matches;
use super::pattern::Pattern;
use super::{Hit, HitKind, HitUse};
use crate::workbench::uses::Role;
use memchr::memmem;
use rsxtrace_capture::frame::transform::scan_vertex_program;
use rsxtrace_capture::frame::Frame;
use std::collections::BTreeMap;

/// What the program search found.
#[derive(Debug, Default)]
pub struct ProgramSearch {
    /// Distinct programs searched.
    pub programs: usize,
    /// Bytes of those programs.
    pub bytes: u64,
    /// The hits, by program in order of first use, then offset.
    pub hits: Vec<Hit>,
    /// Stopped at the hit limit.
    pub truncated: bool,
}

/// A distinct program: its container bytes and the draws that run it.
struct Program {
    bytes: Vec<u8>,
    draws: Vec<usize>,
}

/// The frame's distinct vertex programs, in order of first use.
fn programs(frame: &Frame) -> Vec<Program> {
    let mut by_hash: BTreeMap<u64, usize> = BTreeMap::new();
    let mut out: Vec<Program> = Vec::new();
    for draw in &frame.draws {
        if let Some(&i) = by_hash.get(&draw.vp_hash) {
            out[i].draws.push(draw.index);
            continue;
        }
        let scan = scan_vertex_program(&draw.vertex_program, draw.vp_start);
        let start = draw.vp_start as usize * 4;
        let end = match scan.end_slot {
            Some(slot) => (slot as usize + 1) * 4,
            None => draw.vertex_program.len(),
        };
        let words = draw.vertex_program.get(start..end).unwrap_or(&[]);
        by_hash.insert(draw.vp_hash, out.len());
        out.push(Program {
            bytes: words.iter().flat_map(|w| w.to_be_bytes()).collect(),
            draws: vec![draw.index],
        });
    }
    out
}

fn hit(program: &Program, offset: usize, len: usize) -> Hit {
    Hit {
        kind: HitKind::VertexProgram,
        location: None,
        address: offset as u32,
        len: len as u64,
        blocks: Vec::new(),
        uses: vec![HitUse {
            role: Role::VertexProgram,
            draws: program.draws.clone(),
            element: Some((offset / 16) as u64),
            offset_in_element: Some((offset % 16) as u32),
            component: None,
        }],
    }
}

/// Search the frame's vertex programs for `pattern`, up to `max_hits` hits.
pub fn search(frame: &Frame, pattern: &Pattern, max_hits: usize) -> ProgramSearch {
    let mut out = ProgramSearch::default();
    for program in programs(frame) {
        out.programs += 1;
        out.bytes += program.bytes.len() as u64;
        let found: Vec<(usize, usize)> = match pattern {
            Pattern::Bytes(needle) => memmem::find_iter(&program.bytes, needle)
                .map(|at| (at, needle.len()))
                .collect(),
            Pattern::Xxh3(_) | Pattern::Sha256(_) => {
                if !program.bytes.is_empty() && matches(pattern, &program.bytes) {
                    vec![(0, program.bytes.len())]
                } else {
                    Vec::new()
                }
            }
        };
        for (offset, len) in found {
            if out.hits.len() >= max_hits {
                out.truncated = true;
                return out;
            }
            out.hits.push(hit(&program, offset, len));
        }
    }
    out
}
