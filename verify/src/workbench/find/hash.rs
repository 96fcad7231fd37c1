//! Hash patterns: a whole memory block, or a draw's buffer region (`super::super::uses`),
//! whose xxh3-64 or SHA-256 equals the one given. Each distinct blob and each distinct region
//! (location, offset, length and the bytes there: `workbench::bytes::BytesKey`) is hashed
//! once, in parallel; a
//! region held by several overlapping blocks is read piece by piece (`workbench::bytes`). A
//! region that is exactly a matching block is reported once, as the block.

use super::{Hit, HitKind, HitUse, Pattern, UseMap};
use crate::workbench::bytes::{bytes_key, read_range, BytesKey};
use rayon::prelude::*;
use rsxtrace_capture::frame::search::{blobs, HitBlock};
use rsxtrace_capture::frame::Frame;
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

/// A draw region: its place and what decides its bytes.
type RegionKey = (Location, u32, u64, BytesKey);

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
    let groups = blobs(index);
    // Every blob hashed once, in parallel; a region that is a whole blob reuses the answer.
    let blob_matched: Vec<bool> = groups
        .par_iter()
        .map(|g| g.first().is_some_and(|b| matches(pattern, b.data)))
        .collect();
    let mut whole_blobs: HashMap<(usize, usize), bool> = HashMap::new();
    for (group, &matched) in groups.iter().zip(&blob_matched) {
        let Some(first) = group.first() else { continue };
        out.blobs += 1;
        out.bytes += first.data.len() as u64;
        whole_blobs.insert((first.data.as_ptr() as usize, first.data.len()), matched);
        if !matched {
            continue;
        }
        let mut places: BTreeMap<(Location, u32), Vec<HitBlock>> = BTreeMap::new();
        for b in group {
            places
                .entry((b.location, b.offset))
                .or_default()
                .push(HitBlock::of(b));
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
                location: Some(location),
                address: offset,
                len,
                uses: map.uses_at(frame, location, offset, first.data),
                blocks,
            });
        }
    }
    // Draw regions: hashed once per place and the blocks visible there (which decide the
    // bytes), in parallel.
    type Roles = BTreeMap<super::Role, Vec<usize>>;
    let mut regions: HashMap<RegionKey, Vec<usize>> = HashMap::new();
    for (i, u) in map.all.iter().enumerate() {
        let Some(draw) = frame.draws.get(u.draw) else {
            continue;
        };
        let bytes = bytes_key(index, draw.end_command, u.location, u.offset, u.len);
        regions
            .entry((u.location, u.offset, u.len, bytes))
            .or_default()
            .push(i);
    }
    out.regions = regions.len();
    let matched: Vec<(&RegionKey, &Vec<usize>)> = regions
        .par_iter()
        .filter(|((location, offset, len, bytes), uses)| {
            let Some(draw) = uses.first().and_then(|&i| frame.draws.get(map.all[i].draw)) else {
                return false;
            };
            if block_places.contains(&(*location, *offset, *len)) {
                return false;
            }
            if let BytesKey::Slices(parts) = bytes {
                if let [one] = parts.as_slice() {
                    if let Some(&known) = whole_blobs.get(one) {
                        return known;
                    }
                }
            }
            read_range(index, draw.end_command, *location, *offset, *len)
                .is_some_and(|bytes| matches(pattern, &bytes))
        })
        .collect();
    let mut found: BTreeMap<(Location, u32, u64), (Roles, Vec<HitBlock>)> = BTreeMap::new();
    for ((location, offset, len, _), uses) in matched {
        let (roles, blocks) = found.entry((*location, *offset, *len)).or_default();
        let mut sources = Vec::new();
        for &i in uses {
            let u = &map.all[i];
            roles.entry(u.role).or_default().push(u.draw);
            if let Some(draw) = frame.draws.get(u.draw) {
                sources.extend(index.overlapping_at(draw.end_command, *location, *offset, *len));
            }
        }
        for b in sources {
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
    for ((location, offset, len), (roles, blocks)) in found {
        if out.hits.len() >= max_hits {
            out.truncated = true;
            break;
        }
        out.hits.push(Hit {
            kind: HitKind::Region,
            location: Some(location),
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
