//! Exact byte search over the captured memory blocks: every block is searched at every byte
//! offset (any alignment) with memchr's `memmem` finder. Attachments that share one data blob
//! (a block attached to many commands, rrc-format.md 3.3) are searched once and each hit is
//! reported at every attachment's address. A pattern split across two adjacent blocks (one
//! ends where the other begins, in the same memory space) is found too, at the junction of
//! each such pair of placements; a pattern that spans three blocks or more is not.
//!
//! What a hit means to the draws (index buffer, attribute, texture...) is the caller's
//! business: [`MemoryHit::blocks`] names the attachments, and [`MemoryIndex::source_at`] tells
//! whether a draw reads a given attachment at an address.

use crate::memory::{BlockRef, MemoryIndex};
use memchr::memmem::Finder;
use rsxtrace_rrc::Location;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// One attachment holding a hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HitBlock {
    /// Offset of the block's first byte.
    pub offset: u32,
    /// Block size in bytes.
    pub size: u64,
    /// Command the block is attached to.
    pub command: usize,
    /// The block's id in `Capture::blocks` (the file's `memory_map` id).
    pub block: u64,
}

impl HitBlock {
    /// The attachment `block`.
    pub fn of(block: &BlockRef<'_>) -> HitBlock {
        HitBlock {
            offset: block.offset,
            size: block.data.len() as u64,
            command: block.command,
            block: block.block,
        }
    }
}

/// Where the pattern occurs: one address of one memory space, with every attachment that holds
/// the pattern there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemoryHit {
    /// Memory space.
    pub location: Location,
    /// Address of the pattern's first byte.
    pub address: u32,
    /// The attachments holding it, in attach order.
    pub blocks: Vec<HitBlock>,
}

/// The result of [`search_blocks`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BlockSearch {
    /// Hits by location (local first) and address.
    pub hits: Vec<MemoryHit>,
    /// The search stopped at the hit limit: more hits exist.
    pub truncated: bool,
    /// Distinct data blobs searched.
    pub blobs: usize,
    /// Bytes searched (each blob once).
    pub searched_bytes: u64,
}

/// The attachments of `index` grouped by the data blob they share, in order of first
/// appearance in [`MemoryIndex::blocks`].
pub fn blobs(index: &MemoryIndex) -> Vec<Vec<BlockRef<'_>>> {
    let mut order: HashMap<(usize, usize), usize> = HashMap::new();
    let mut groups: Vec<Vec<BlockRef<'_>>> = Vec::new();
    for block in index.blocks() {
        let key = (block.data.as_ptr() as usize, block.data.len());
        let at = *order.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        if let Some(group) = groups.get_mut(at) {
            group.push(block);
        }
    }
    groups
}

/// Every start of the finder's pattern in `haystack`, overlapping ones included (memmem's own
/// iterator skips past each match).
pub fn overlapping<'a>(
    finder: &'a Finder<'a>,
    haystack: &'a [u8],
) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0usize;
    std::iter::from_fn(move || {
        let rest = haystack.get(from..)?;
        let at = from + finder.find(rest)?;
        from = at + 1;
        Some(at)
    })
}

/// Every occurrence of `pattern` in the captured memory, at most `max_hits` distinct
/// addresses (then [`BlockSearch::truncated`] is set). An empty pattern finds nothing.
pub fn search_blocks(index: &MemoryIndex, pattern: &[u8], max_hits: usize) -> BlockSearch {
    let mut out = BlockSearch::default();
    if pattern.is_empty() {
        return out;
    }
    let finder = Finder::new(pattern);
    let mut hits: BTreeMap<(Location, u32), Vec<(u32, HitBlock)>> = BTreeMap::new();
    'blobs: for group in blobs(index) {
        let Some(first) = group.first() else { continue };
        out.blobs += 1;
        out.searched_bytes += first.data.len() as u64;
        for at in overlapping(&finder, first.data) {
            for block in &group {
                let Some(address) = u32::try_from(at)
                    .ok()
                    .and_then(|a| block.offset.checked_add(a))
                else {
                    continue;
                };
                let key = (block.location, address);
                if !hits.contains_key(&key) && hits.len() >= max_hits {
                    out.truncated = true;
                    break 'blobs;
                }
                hits.entry(key).or_default().push(hit_block(block));
            }
        }
    }
    if !out.truncated {
        out.truncated = junctions(index, &finder, pattern.len(), max_hits, &mut hits);
    }
    out.hits = hits
        .into_iter()
        .map(|((location, address), mut blocks)| {
            blocks.sort_by_key(|(seq, _)| *seq);
            MemoryHit {
                location,
                address,
                blocks: blocks.into_iter().map(|(_, b)| b).collect(),
            }
        })
        .collect();
    out
}

/// The hit of `block` as [`MemoryHit::blocks`] lists it, with its attach order.
fn hit_block(block: &BlockRef<'_>) -> (u32, HitBlock) {
    (block.seq, HitBlock::of(block))
}

/// Adds the matches of a `len`-byte pattern that start in one placement and end in the
/// placement that begins where it ends (same location), each distinct pair of placements
/// searched once over the `len - 1` bytes either side of their junction. Returns whether the
/// hit limit stopped it.
fn junctions(
    index: &MemoryIndex,
    finder: &Finder<'_>,
    len: usize,
    max_hits: usize,
    hits: &mut BTreeMap<(Location, u32), Vec<(u32, HitBlock)>>,
) -> bool {
    if len < 2 {
        return false;
    }
    let blocks: Vec<BlockRef<'_>> = index.blocks().collect();
    let mut starting: HashMap<(Location, u64), Vec<usize>> = HashMap::new();
    for (i, b) in blocks.iter().enumerate() {
        if !b.data.is_empty() {
            starting
                .entry((b.location, u64::from(b.offset)))
                .or_default()
                .push(i);
        }
    }
    // (location, junction address, left blob, right blob) already searched.
    let mut searched: HashMap<(Location, u64, usize, usize), Vec<usize>> = HashMap::new();
    for left in &blocks {
        let Some(rights) = starting.get(&(left.location, left.end())) else {
            continue;
        };
        for &j in rights {
            let right = &blocks[j];
            let key = (
                left.location,
                left.end(),
                left.data.as_ptr() as usize,
                right.data.as_ptr() as usize,
            );
            let starts = searched.entry(key).or_insert_with(|| {
                let head = left.data.len().min(len - 1);
                let tail = right.data.len().min(len - 1);
                let mut window = Vec::with_capacity(head + tail);
                window.extend_from_slice(&left.data[left.data.len() - head..]);
                window.extend_from_slice(&right.data[..tail]);
                // Only matches that start in the left part and end in the right one.
                overlapping(finder, &window)
                    .filter(|&at| at < head && at + len > head)
                    .map(|at| left.data.len() - head + at)
                    .collect()
            });
            for &start in starts.iter() {
                let Some(address) = u32::try_from(start)
                    .ok()
                    .and_then(|a| left.offset.checked_add(a))
                else {
                    continue;
                };
                let place = (left.location, address);
                if !hits.contains_key(&place) && hits.len() >= max_hits {
                    return true;
                }
                let entry = hits.entry(place).or_default();
                for b in [left, right] {
                    let h = hit_block(b);
                    if !entry.iter().any(|(seq, _)| *seq == h.0) {
                        entry.push(h);
                    }
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use rsxtrace_rrc::{Capture, Entry, MemoryBlock, ReplayCommand};

    /// Blocks `(command, location, offset, data id)` over the data blobs `data`.
    fn capture(blocks: &[(usize, u32, u32, usize)], data: &[&[u8]]) -> Capture {
        let mut c = Capture::empty("search");
        c.commands = vec![ReplayCommand::default(); 8];
        for (i, bytes) in data.iter().enumerate() {
            c.data.push(Entry {
                id: 0x3000 + i as u64,
                value: Bytes::from(bytes.to_vec()),
            });
        }
        for (i, &(command, location, offset, data_id)) in blocks.iter().enumerate() {
            let id = 0x2000 + i as u64;
            c.blocks.push(Entry {
                id,
                value: MemoryBlock {
                    offset,
                    location,
                    data_id: 0x3000 + data_id as u64,
                },
            });
            c.commands[command].memory.push(id);
        }
        c
    }

    #[test]
    fn finds_every_alignment_and_every_attachment_of_a_shared_blob() {
        let c = capture(
            &[
                (1, 0, 0x100, 0),
                (2, 0, 0x100, 0),
                (3, 0xFEED_0001, 0x2000, 0),
                (4, 0, 0x400, 1),
            ],
            &[b"xxABCxABCABC", b"..AB"],
        );
        let index = MemoryIndex::build(&c).unwrap();
        let found = search_blocks(&index, b"ABC", 100);
        assert_eq!(found.blobs, 2);
        assert_eq!(found.searched_bytes, 16);
        assert!(!found.truncated);
        let places: Vec<_> = found
            .hits
            .iter()
            .map(|h| {
                (
                    h.location,
                    h.address,
                    h.blocks.iter().map(|b| b.command).collect::<Vec<_>>(),
                )
            })
            .collect();
        assert_eq!(
            places,
            vec![
                (Location::Local, 0x102, vec![1, 2]),
                (Location::Local, 0x106, vec![1, 2]),
                (Location::Local, 0x109, vec![1, 2]),
                (Location::Main, 0x2002, vec![3]),
                (Location::Main, 0x2006, vec![3]),
                (Location::Main, 0x2009, vec![3]),
            ]
        );
        // "CABC" and "ABCA" overlap at 0x109's "A": both found.
        assert_eq!(search_blocks(&index, b"CABC", 100).hits.len(), 2);
        assert_eq!(search_blocks(&index, b"ABCA", 100).hits.len(), 2);
        // A pattern running past a block's end is not found there (no block follows it).
        assert!(search_blocks(&index, b"ABD", 100).hits.is_empty());
        assert!(search_blocks(&index, b"", 100).hits.is_empty());
    }

    #[test]
    fn a_pattern_across_two_adjacent_blocks_is_found_at_their_junction() {
        // "..ABC" at 0x100 and "DE.." at 0x105 are adjacent; "XY" at 0x200 and the second
        // placement of "DE.." at 0x2FE touch nothing.
        let c = capture(
            &[
                (1, 0, 0x100, 0),
                (2, 0, 0x105, 1),
                (3, 0, 0x200, 2),
                (4, 0, 0x2FE, 1),
            ],
            &[b"..ABC", b"DE..", b"XY"],
        );
        let index = MemoryIndex::build(&c).unwrap();
        let found = search_blocks(&index, b"BCDE", 100);
        assert_eq!(found.hits.len(), 1, "{found:?}");
        let hit = &found.hits[0];
        assert_eq!((hit.location, hit.address), (Location::Local, 0x103));
        assert_eq!(
            hit.blocks.iter().map(|b| b.command).collect::<Vec<_>>(),
            vec![1, 2]
        );
        // One byte either side; and a pattern that fits in one block is not reported twice.
        assert_eq!(search_blocks(&index, b"CD", 100).hits.len(), 1);
        assert_eq!(search_blocks(&index, b"ABC", 100).hits.len(), 1);
        assert_eq!(search_blocks(&index, b"ABC", 100).hits[0].blocks.len(), 1);
        // Longer than both blocks together: not found.
        assert!(search_blocks(&index, b"..ABCDE..!", 100).hits.is_empty());
        assert_eq!(search_blocks(&index, b"..ABCDE..", 100).hits.len(), 1);
    }

    #[test]
    fn the_hit_limit_truncates() {
        let c = capture(&[(1, 0, 0, 0)], &[&[7u8; 64]]);
        let index = MemoryIndex::build(&c).unwrap();
        let found = search_blocks(&index, &[7, 7], 10);
        assert_eq!(found.hits.len(), 10);
        assert!(found.truncated);
        assert_eq!(found.hits[9].address, 9);
    }
}
