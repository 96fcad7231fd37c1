//! Hash patterns: a whole memory block, or a draw's buffer region (`super::super::uses`),
//! whose xxh3-64 or SHA-256 equals the one given. Each distinct blob and each distinct region
//! (location, offset, length and the attachment it is read from) is hashed once. A region
//! whose bytes are not all in one attachment cannot be read as one piece and is not hashed; a
//! region that is exactly a matching block is reported once, as the block.

use super::{Hit, HitKind, HitUse, Pattern, UseMap};
use crate::workbench::bytes::read_range;
use rsxtrace_capture::frame::search::{blobs, HitBlock};
use rsxtrace_capture::frame::{BlockSource, Frame};
use rsxtrace_capture::rrc::Location;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use xxhash_rust::xxh3::xxh3_64;

/// The result of [`search`].
#[derive(Clone, Debug, Default)]
pub struct HashSearch {
    /// Block hits, then region hits.
    pub hits: Vec<Hit>,
    /// Distinct blobs hashed.
    pub blobs: usize,
    /// Bytes of those blobs.
    pub bytes: u64,
    /// Distinct draw regions hashed.
    pub regions: usize,
    /// The hit limit was reached.
    pub truncated: bool,
}

/// Where a region's bytes come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Source {
    /// One block holds the region.
    Block(BlockSource),
    /// Read piece by piece by this command.
    Command(usize),
}

/// Whether `bytes` hash to `pattern` (byte patterns never match).
pub fn matches(pattern: &Pattern, bytes: &[u8]) -> bool {
    match pattern {
        Pattern::Xxh3(h) => xxh3_64(bytes) == *h,
        Pattern::Sha256(h) => Sha256::digest(bytes).as_slice() == h,
        Pattern::Bytes(_) => false,
    }
}

/// Blocks and draw regions of `frame` whose hash is `pattern`.
pub fn search(frame: &Frame, map: &UseMap, pattern: &Pattern, max_hits: usize) -> HashSearch {
    let mut out = HashSearch::default();
    let index = frame.memory_index();
    let mut block_places: HashSet<(Location, u32, u64)> = HashSet::new();
    for group in blobs(index) {
        let Some(first) = group.first() else { continue };
        out.blobs += 1;
        out.bytes += first.data.len() as u64;
        if !matches(pattern, first.data) {
            continue;
        }
        let mut places: BTreeMap<(Location, u32), Vec<HitBlock>> = BTreeMap::new();
        for b in &group {
            places
                .entry((b.location, b.offset))
                .or_default()
                .push(HitBlock {
                    offset: b.offset,
                    size: b.data.len() as u64,
                    command: b.command,
                    block: b.block,
                });
        }
        for ((location, offset), blocks) in places {
            if out.hits.len() >= max_hits {
                out.truncated = true;
                break;
            }
            let len = first.data.len() as u64;
            block_places.insert((location, offset, len));
            out.hits.push(Hit {
                kind: HitKind::Block,
                location,
                address: offset,
                len,
                uses: map.uses_at(frame, location, offset, first.data),
                blocks,
            });
        }
    }
    // Draw regions: hashed once per place and source (the attachment a whole-region read
    // comes from, else the draw's command: such a region is read piece by piece).
    let mut hashed: HashMap<(Location, u32, u64, Source), bool> = HashMap::new();
    // Matches by place: the roles with their draws, and the attachments read whole.
    type Roles = BTreeMap<super::Role, Vec<usize>>;
    let mut found: BTreeMap<(Location, u32, u64), (Roles, Vec<HitBlock>)> = BTreeMap::new();
    for u in &map.all {
        let Some(draw) = frame.draws.get(u.draw) else {
            continue;
        };
        let source = u32::try_from(u.len)
            .ok()
            .and_then(|len| index.source_at(draw.end_command, u.location, u.offset, len))
            .map_or(Source::Command(draw.end_command), Source::Block);
        let key = (u.location, u.offset, u.len, source);
        let matched = *hashed.entry(key).or_insert_with(|| {
            out.regions += 1;
            read_range(index, draw.end_command, u.location, u.offset, u.len)
                .is_some_and(|bytes| matches(pattern, &bytes))
        });
        if matched && !block_places.contains(&(u.location, u.offset, u.len)) {
            let (roles, blocks) = found.entry((u.location, u.offset, u.len)).or_default();
            roles.entry(u.role).or_default().push(u.draw);
            if let Source::Block(b) = source {
                let block = HitBlock {
                    offset: b.offset,
                    size: u64::from(b.len),
                    command: b.command,
                    block: b.block,
                };
                if !blocks.contains(&block) {
                    blocks.push(block);
                }
            }
        }
    }
    for ((location, offset, len), (roles, blocks)) in found {
        if out.hits.len() >= max_hits {
            out.truncated = true;
            break;
        }
        out.hits.push(Hit {
            kind: HitKind::Region,
            location,
            address: offset,
            len,
            blocks,
            uses: roles
                .into_iter()
                .map(|(role, mut draws)| {
                    draws.sort_unstable();
                    draws.dedup();
                    HitUse {
                        role,
                        draws,
                        element: None,
                        offset_in_element: None,
                        component: None,
                    }
                })
                .collect(),
        });
    }
    out
}
