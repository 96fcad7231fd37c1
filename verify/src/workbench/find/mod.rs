//! `rsxtrace find`: where a known piece of data is in a capture, and what the draws use it as.
//!
//! Brief overview:
//! - A [`Pattern`] is literal bytes or a content hash ([`pattern`]).
//! - Bytes are searched in every captured memory block at every byte offset
//!   (`rsxtrace_capture::frame::search`: memchr's `memmem`, shared blobs once); with
//!   [`FindOptions::decoded`] also in every draw's decoded vertex streams ([`decoded`]).
//! - A hash matches a whole block, or a draw's buffer region (index buffer, attribute array,
//!   texture, fragment program, surface: [`super::uses`]) whose bytes hash to it ([`hash`]).
//! - Vertex programs, which are uploaded through the command stream rather than captured as
//!   memory, are searched too, as big-endian words from the start slot through END
//!   ([`programs`]): bytes at any offset, a hash against the whole program.
//! - Every hit is mapped to the draws that read those bytes and to their roles
//!   ([`HitUse`]): "index buffer of draw 12 at element 36", "attribute 3 of draws 12–15",
//!   "texture unit 0 of draw 40", "fragment program of draw 7". A draw counts only when it
//!   sees those very bytes at that address (read as the frame model reads memory at the draw,
//!   piece by piece across overlapping blocks: [`super::bytes`]), so a buffer rewritten
//!   before the draw is told apart.
//!
//! # JSON shape ([`FindReport`])
//!
//! ```json
//! {
//!   "pattern": {"kind": "bytes", "len": 36, "value": "000100020003..."},
//!   "searched": {"blocks": 161, "blobs": 27, "bytes": 18760, "regions": 0,
//!                "decoded_streams": 0, "decoded_bytes": 0,
//!                "vertex_programs": 2, "vertex_program_bytes": 640},
//!   "hits": [
//!     {"kind": "memory", "location": "main", "address": 2097152, "len": 36,
//!      "blocks": [{"offset": 2097152, "size": 72, "command": 30, "block": 8195}],
//!      "uses": [{"role": {"kind": "index_buffer"}, "draws": [2, 5, 8], "element": 0,
//!                "offset_in_element": 0, "component": null}]}
//!   ],
//!   "truncated": false,
//!   "skipped": [{"draw": 39, "what": "texture unit 2", "reason": "..."}]
//! }
//! ```
//!
//! `kind` is `memory` (the bytes in a block), `block` (a whole block's hash), `region` (a
//! draw's buffer region's hash), `decoded` (the bytes in a decoded vertex stream, the address
//! being that of the element where the match starts) or `vertex_program` (in a vertex
//! program: `location` is null, `address` the byte offset from the program's start slot, and
//! its use's `element` the instruction slot counted from there). `element` counts from the index array's
//! or the attribute array's element 0; `component` (decoded hits) is the vector component the
//! match starts at.

pub mod decoded;
pub mod hash;
pub mod pattern;
pub mod programs;

pub use pattern::{parse_hex, Pattern, PatternError, PatternSummary};

use super::bytes::sees;
use super::uses::{frame_uses, MemoryUse, Role};
use rsxtrace_capture::frame::search::{search_blocks, HitBlock, CHAIN_LIMIT};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use serde::Serialize;
use std::collections::BTreeMap;

/// How to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FindOptions {
    /// Also search the decoded vertex streams (byte patterns only).
    pub decoded: bool,
    /// Stop after this many hits.
    pub max_hits: usize,
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            decoded: false,
            max_hits: 1000,
        }
    }
}

/// What kind of match a hit is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HitKind {
    /// The pattern's bytes in a memory block.
    Memory,
    /// A whole memory block whose hash matches.
    Block,
    /// A draw's buffer region whose hash matches.
    Region,
    /// The pattern's bytes in a decoded vertex stream.
    Decoded,
    /// The pattern's bytes in a vertex program, or its hash that of a whole program.
    VertexProgram,
}

/// What draws use a hit's bytes as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HitUse {
    /// The role.
    pub role: Role,
    /// The draws, ascending.
    pub draws: Vec<usize>,
    /// Index or vertex element holding the hit's first byte.
    pub element: Option<u64>,
    /// Byte of that element where the hit starts.
    pub offset_in_element: Option<u32>,
    /// Vector component where a decoded hit starts.
    pub component: Option<u8>,
}

impl HitUse {
    /// "index buffer of draw 12 at element 36", "attribute 3 of draws 12–15".
    pub fn describe(&self) -> String {
        let mut text = format!(
            "{} of {} {}",
            self.role,
            if self.draws.len() == 1 {
                "draw"
            } else {
                "draws"
            },
            collapse(&self.draws)
        );
        if let Some(element) = self.element {
            let unit = if self.role == Role::VertexProgram {
                "slot"
            } else {
                "element"
            };
            text.push_str(&format!(" at {unit} {element}"));
            match (self.component, self.offset_in_element) {
                (Some(c), _) if c > 0 => text.push_str(&format!(" component {c}")),
                (None, Some(b)) if b > 0 => text.push_str(&format!(" byte {b}")),
                _ => {}
            }
        }
        text
    }
}

/// Draw numbers with runs collapsed: `2, 5–8, 12`.
pub fn collapse(draws: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < draws.len() {
        let start = draws[i];
        let mut end = start;
        while i + 1 < draws.len() && draws[i + 1] == end + 1 {
            i += 1;
            end = draws[i];
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        i += 1;
    }
    parts.join(", ")
}

/// One place the pattern was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hit {
    /// Kind of match.
    pub kind: HitKind,
    /// Memory space; `None` for a vertex program hit (program memory is not addressable).
    pub location: Option<Location>,
    /// Address of the match (for decoded hits: of the element where it starts; for vertex
    /// program hits: the byte offset from the program's start slot).
    pub address: u32,
    /// Bytes matched in memory (for decoded hits: in the decoded stream).
    pub len: u64,
    /// The block attachments holding the bytes (memory and block hits).
    pub blocks: Vec<HitBlock>,
    /// What draws use the bytes as; empty when no draw reads them.
    pub uses: Vec<HitUse>,
}

/// Something the search could not look at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The draw, when it is one draw's.
    pub draw: Option<usize>,
    /// What: "texture unit 2", "attribute 3", "index buffer".
    pub what: String,
    /// Why.
    pub reason: String,
}

/// How much was searched.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Searched {
    /// Block attachments.
    pub blocks: usize,
    /// Distinct data blobs (each searched once).
    pub blobs: usize,
    /// Bytes of those blobs.
    pub bytes: u64,
    /// Draw buffer regions hashed (hash patterns).
    pub regions: usize,
    /// Distinct decoded vertex streams searched.
    pub decoded_streams: usize,
    /// Bytes of those streams.
    pub decoded_bytes: u64,
    /// Distinct vertex programs searched.
    pub vertex_programs: usize,
    /// Bytes of those programs.
    pub vertex_program_bytes: u64,
}

/// The result of [`find`]; the JSON shape is in the module documentation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FindReport {
    /// The pattern.
    pub pattern: PatternSummary,
    /// How much was searched.
    pub searched: Searched,
    /// The hits: memory and block hits by location and address, then region and decoded hits,
    /// then vertex program hits.
    pub hits: Vec<Hit>,
    /// The search stopped at [`FindOptions::max_hits`].
    pub truncated: bool,
    /// Draw buffers that could not be placed or decoded.
    pub skipped: Vec<Skipped>,
}

/// Search `frame` for `pattern`.
pub fn find(frame: &Frame, pattern: &Pattern, options: &FindOptions) -> FindReport {
    let mut report = FindReport {
        pattern: pattern.summary(),
        searched: Searched {
            blocks: frame.memory_index().attachments(),
            ..Searched::default()
        },
        hits: Vec::new(),
        truncated: false,
        skipped: Vec::new(),
    };
    // The draws' uses are only worked out when something needs them.
    let mut uses: Option<UseMap> = None;
    let use_map = |report: &mut FindReport| -> UseMap {
        let all = frame_uses(frame);
        report.skipped.extend(all.problems.iter().map(|p| Skipped {
            draw: Some(p.draw),
            what: p.role.to_string(),
            reason: p.reason.clone(),
        }));
        UseMap::new(all.uses)
    };
    match pattern {
        Pattern::Bytes(bytes) => {
            let found = search_blocks(frame.memory_index(), bytes, options.max_hits);
            report.searched.blobs = found.blobs;
            report.searched.bytes = found.searched_bytes;
            report.truncated = found.truncated;
            if found.chains_cut {
                report.skipped.push(Skipped {
                    draw: None,
                    what: "patterns across adjacent blocks".into(),
                    reason: format!(
                        "more than {CHAIN_LIMIT} chains of adjacent blocks; a hit across more blocks may be missing"
                    ),
                });
            }
            if !found.hits.is_empty() || options.decoded {
                uses = Some(use_map(&mut report));
            }
            for hit in found.hits {
                let hit_uses = uses.as_ref().map_or_else(Vec::new, |m| {
                    m.uses_at(frame, hit.location, hit.address, bytes)
                });
                report.hits.push(Hit {
                    kind: HitKind::Memory,
                    location: Some(hit.location),
                    address: hit.address,
                    len: bytes.len() as u64,
                    blocks: hit.blocks,
                    uses: hit_uses,
                });
            }
            if options.decoded {
                if let Some(map) = &uses {
                    let room = options.max_hits.saturating_sub(report.hits.len());
                    let found = decoded::search(frame, &map.all, bytes, room);
                    report.searched.decoded_streams = found.streams;
                    report.searched.decoded_bytes = found.bytes;
                    report.truncated |= found.truncated;
                    report.skipped.extend(found.skipped);
                    report.hits.extend(found.hits);
                }
            }
        }
        Pattern::Xxh3(_) | Pattern::Sha256(_) => {
            let map = use_map(&mut report);
            let found = hash::search(frame, &map, pattern, options.max_hits);
            report.searched.blobs = found.blobs;
            report.searched.bytes = found.bytes;
            report.searched.regions = found.regions;
            report.truncated = found.truncated;
            report.hits = found.hits;
        }
    }
    let room = options.max_hits.saturating_sub(report.hits.len());
    let found = programs::search(frame, pattern, room);
    report.searched.vertex_programs = found.programs;
    report.searched.vertex_program_bytes = found.bytes;
    report.truncated |= found.truncated;
    report.hits.extend(found.hits);
    report
}

/// The draws' uses, by location and offset, for overlap queries.
pub struct UseMap {
    /// Every use, in draw order.
    pub all: Vec<MemoryUse>,
    /// Indices into `all` per location (local, main), sorted by offset.
    sorted: [Vec<usize>; 2],
    /// The longest use per location.
    longest: [u64; 2],
}

fn space(location: Location) -> usize {
    match location {
        Location::Local => 0,
        Location::Main => 1,
    }
}

impl UseMap {
    /// Index `uses`.
    pub fn new(all: Vec<MemoryUse>) -> UseMap {
        let mut sorted: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
        let mut longest = [0u64; 2];
        for (i, u) in all.iter().enumerate() {
            let s = space(u.location);
            sorted[s].push(i);
            longest[s] = longest[s].max(u.len);
        }
        for list in &mut sorted {
            list.sort_by_key(|&i| all[i].offset);
        }
        UseMap {
            all,
            sorted,
            longest,
        }
    }

    /// The uses overlapping `[address, address + len)` in `location`.
    pub fn overlapping(
        &self,
        location: Location,
        address: u32,
        len: u64,
    ) -> impl Iterator<Item = &MemoryUse> + '_ {
        let s = space(location);
        let list = &self.sorted[s];
        let end = u64::from(address) + len;
        let lowest = u64::from(address).saturating_sub(self.longest[s]);
        let from = list.partition_point(|&i| u64::from(self.all[i].offset) < lowest);
        let to = list.partition_point(|&i| u64::from(self.all[i].offset) < end);
        list[from..to.max(from)]
            .iter()
            .map(|&i| &self.all[i])
            .filter(move |u| u.overlaps(location, address, len))
    }

    /// The uses of the bytes `found` at `address` by draws that see those very bytes there
    /// (a buffer rewritten before the draw does not count), grouped by role and element.
    pub fn uses_at(
        &self,
        frame: &Frame,
        location: Location,
        address: u32,
        found: &[u8],
    ) -> Vec<HitUse> {
        let len = found.len() as u64;
        let mut groups: BTreeMap<(Role, Option<u64>, Option<u32>), Vec<usize>> = BTreeMap::new();
        for u in self.overlapping(location, address, len) {
            // The part of the hit inside the use is what the draw reads.
            let start = address.max(u.offset);
            let stop = (u64::from(address) + len).min(u.end());
            let from = (start - address) as usize;
            let to = (stop - u64::from(address)) as usize;
            let (Some(draw), Some(expected)) = (frame.draws.get(u.draw), found.get(from..to))
            else {
                continue;
            };
            if !sees(
                frame.memory_index(),
                draw.end_command,
                location,
                start,
                expected,
            ) {
                continue;
            }
            let at = u.elements.and_then(|e| e.element_at(address));
            groups
                .entry((u.role, at.map(|a| a.0), at.map(|a| a.1)))
                .or_default()
                .push(u.draw);
        }
        groups
            .into_iter()
            .map(|((role, element, offset_in_element), mut draws)| {
                draws.sort_unstable();
                draws.dedup();
                HitUse {
                    role,
                    draws,
                    element,
                    offset_in_element,
                    component: None,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_collapse_into_runs() {
        assert_eq!(collapse(&[2, 5, 6, 7, 8, 12]), "2, 5–8, 12");
        assert_eq!(collapse(&[4]), "4");
        assert_eq!(collapse(&[]), "");
    }

    #[test]
    fn a_use_reads_like_the_issue_says() {
        let u = HitUse {
            role: Role::IndexBuffer,
            draws: vec![12],
            element: Some(36),
            offset_in_element: Some(0),
            component: None,
        };
        assert_eq!(u.describe(), "index buffer of draw 12 at element 36");
        let u = HitUse {
            role: Role::Attribute { attribute: 3 },
            draws: vec![12, 13, 14, 15],
            element: Some(0),
            offset_in_element: Some(4),
            component: None,
        };
        assert_eq!(
            u.describe(),
            "attribute 3 of draws 12–15 at element 0 byte 4"
        );
        let u = HitUse {
            role: Role::Texture { unit: 0 },
            draws: vec![40],
            element: None,
            offset_in_element: None,
            component: None,
        };
        assert_eq!(u.describe(), "texture unit 0 of draw 40");
    }
}
