//! Exact byte search over the captured memory blocks: every block is searched at every byte
//! offset (any alignment) with memchr's `memmem` finder. Attachments that share one data blob
//! (a block attached to many commands, rrc-format.md 3.3) are searched once and each hit is
//! reported at every attachment's address. A pattern split across adjacent blocks (each ends
//! where the next begins, in the same memory space) is found too: across two, three or more,
//! each chain of placements searched once over the bytes around its junctions (`junctions`).
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
    /// The search of patterns across adjacent blocks stopped at [`CHAIN_LIMIT`] chains: a hit
    /// across more blocks may be missing.
    pub chains_cut: bool,
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
        match junctions(index, &finder, pattern.len(), max_hits, &mut hits) {
            Stop::Done => {}
            Stop::HitLimit => out.truncated = true,
            Stop::ChainLimit => out.chains_cut = true,
        }
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

/// Most chains of adjacent placements `junctions` searches for one pattern; beyond it the
/// search stops and says so ([`BlockSearch::chains_cut`]). Only a pattern much longer than the
/// blocks it crosses, over addresses that many different blobs were attached to, comes near.
pub const CHAIN_LIMIT: usize = 1 << 20;

/// The attachments of one blob at one address: searched once, named together in a hit.
struct Placement<'a> {
    location: Location,
    offset: u32,
    data: &'a [u8],
    /// `(attach order, hit block)` of each attachment.
    members: Vec<(u32, HitBlock)>,
}

impl Placement<'_> {
    fn end(&self) -> u64 {
        u64::from(self.offset) + self.data.len() as u64
    }
}

/// Adds the matches of a `len`-byte pattern that start in one placement and end in another,
/// across a chain of adjacent placements (each begins where the one before it ends, in the
/// same location): two, three or more. Attachments of one blob at one address are one
/// placement. From each placement that another one follows, every chain is followed while the
/// bytes after the first placement are fewer than `len - 1` (a match starting in it can still
/// reach further); each chain is searched once, over the last `len - 1` bytes of its first
/// placement and the bytes after them up to `len - 1`, for the matches that start in the first
/// placement and end in the last.
fn junctions(
    index: &MemoryIndex,
    finder: &Finder<'_>,
    len: usize,
    max_hits: usize,
    hits: &mut BTreeMap<(Location, u32), Vec<(u32, HitBlock)>>,
) -> Stop {
    if len < 2 {
        return Stop::Done;
    }
    let mut placements: Vec<Placement<'_>> = Vec::new();
    let mut placement_of: HashMap<(Location, u32, usize, usize), usize> = HashMap::new();
    for b in index.blocks() {
        if b.data.is_empty() {
            continue;
        }
        let key = (b.location, b.offset, b.data.as_ptr() as usize, b.data.len());
        let at = *placement_of.entry(key).or_insert_with(|| {
            placements.push(Placement {
                location: b.location,
                offset: b.offset,
                data: b.data,
                members: Vec::new(),
            });
            placements.len() - 1
        });
        placements[at].members.push(hit_block(&b));
    }
    let mut starting: HashMap<(Location, u64), Vec<usize>> = HashMap::new();
    for (i, p) in placements.iter().enumerate() {
        starting
            .entry((p.location, u64::from(p.offset)))
            .or_default()
            .push(i);
    }
    let mut search = ChainSearch {
        placements: &placements,
        starting: &starting,
        finder,
        len,
        max_hits,
        chains: 0,
        hits,
    };
    for (first, p) in placements.iter().enumerate() {
        if !starting.contains_key(&(p.location, p.end())) {
            continue;
        }
        let head = p.data.len().min(len - 1);
        let mut window = p.data[p.data.len() - head..].to_vec();
        let mut chain = vec![first];
        let stop = search.extend(&mut chain, &mut window, head);
        if stop != Stop::Done {
            return stop;
        }
    }
    Stop::Done
}

/// Why [`junctions`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Every chain was searched.
    Done,
    /// The hit limit.
    HitLimit,
    /// [`CHAIN_LIMIT`].
    ChainLimit,
}

/// The state of [`junctions`]'s walk over chains.
struct ChainSearch<'s, 'a> {
    placements: &'s [Placement<'a>],
    starting: &'s HashMap<(Location, u64), Vec<usize>>,
    finder: &'s Finder<'s>,
    len: usize,
    max_hits: usize,
    chains: usize,
    hits: &'s mut BTreeMap<(Location, u32), Vec<(u32, HitBlock)>>,
}

impl ChainSearch<'_, '_> {
    /// Search every chain that continues `chain` (whose bytes from the first placement's last
    /// `head` are `window`) by one placement, and go on from each placement the pattern can
    /// cross whole.
    fn extend(&mut self, chain: &mut Vec<usize>, window: &mut Vec<u8>, head: usize) -> Stop {
        let Some(&last) = chain.last() else {
            return Stop::Done;
        };
        let last = &self.placements[last];
        let Some(nexts) = self.starting.get(&(last.location, last.end())) else {
            return Stop::Done;
        };
        let covered = window.len() - head; // bytes after the first placement
        let need = self.len - 1 - covered;
        for &next in nexts {
            self.chains += 1;
            if self.chains > CHAIN_LIMIT {
                return Stop::ChainLimit;
            }
            let data = self.placements[next].data;
            let whole = data.len() < need;
            let take = if whole { data.len() } else { need };
            window.extend_from_slice(&data[..take]);
            chain.push(next);
            // Matches that start in the first placement and end in this one.
            let starts: Vec<usize> = overlapping(self.finder, window)
                .filter(|&at| at < head && at + self.len > head + covered)
                .collect();
            if self.record(chain, head, &starts) {
                return Stop::HitLimit;
            }
            if whole {
                let stop = self.extend(chain, window, head);
                if stop != Stop::Done {
                    return stop;
                }
            }
            chain.pop();
            window.truncate(head + covered);
        }
        Stop::Done
    }

    /// Add the hits at window positions `starts`, naming every attachment of the chain;
    /// whether the hit limit stopped it.
    fn record(&mut self, chain: &[usize], head: usize, starts: &[usize]) -> bool {
        let first = &self.placements[chain[0]];
        for &at in starts {
            let Some(address) = u32::try_from(first.data.len() - head + at)
                .ok()
                .and_then(|a| first.offset.checked_add(a))
            else {
                continue;
            };
            let place = (first.location, address);
            if !self.hits.contains_key(&place) && self.hits.len() >= self.max_hits {
                return true;
            }
            let entry = self.hits.entry(place).or_default();
            for &p in chain {
                for &h in &self.placements[p].members {
                    if !entry.iter().any(|(seq, _)| *seq == h.0) {
                        entry.push(h);
                    }
                }
            }
        }
        false
    }
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
        let index = MemoryIndex::build(&c).0;
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
        let index = MemoryIndex::build(&c).0;
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
    fn a_pattern_across_three_and_four_adjacent_blocks_is_found() {
        // "..AB" 0x100, "CD" 0x104 (and "cd" attached there by command 5), "E" 0x106,
        // "FG.." 0x107: one chain of four placements, and a second through "cd".
        let c = capture(
            &[
                (1, 0, 0x100, 0),
                (2, 0, 0x104, 1),
                (5, 0, 0x104, 4),
                (3, 0, 0x106, 2),
                (4, 0, 0x107, 3),
            ],
            &[b"..AB", b"CD", b"E", b"FG..", b"cd"],
        );
        let index = MemoryIndex::build(&c).0;
        let places = |pattern: &[u8]| -> Vec<(u32, Vec<usize>)> {
            search_blocks(&index, pattern, 100)
                .hits
                .iter()
                .map(|h| (h.address, h.blocks.iter().map(|b| b.command).collect()))
                .collect()
        };
        // Three blocks: starts in the first, crosses "CD" whole, ends in "E".
        assert_eq!(places(b"BCDE"), vec![(0x103, vec![1, 2, 3])]);
        // Four blocks, through either placement at 0x104.
        assert_eq!(places(b"ABCDEF"), vec![(0x102, vec![1, 2, 3, 4])]);
        assert_eq!(places(b"ABcdEFG"), vec![(0x102, vec![1, 3, 4, 5])]); // attach order
                                                                         // Starting in the second block, three blocks on.
        assert_eq!(places(b"DEF"), vec![(0x105, vec![2, 3, 4])]);
        // The whole chain, and one byte more than it holds.
        assert_eq!(places(b"..ABCDEFG.."), vec![(0x100, vec![1, 2, 3, 4])]);
        assert!(places(b"..ABCDEFG..!").is_empty());
        // A pattern inside one block or across two is still found once.
        assert_eq!(places(b"CD"), vec![(0x104, vec![2])]);
        assert_eq!(places(b"DE"), vec![(0x105, vec![2, 3])]);
    }

    #[test]
    fn too_many_chains_are_cut_and_said() {
        // Two one-byte blobs attached at each of 24 consecutive addresses: 2^24 chains for a
        // 25-byte pattern, more than CHAIN_LIMIT.
        let blocks: Vec<(usize, u32, u32, usize)> = (0..48)
            .map(|i| (i % 2 + 1, 0, 0x100 + i as u32 / 2, i % 2))
            .collect();
        let c = capture(&blocks, &[b"a", b"b"]);
        let index = MemoryIndex::build(&c).0;
        let found = search_blocks(&index, &[b'a'; 25], 100);
        assert!(found.chains_cut && !found.truncated);
        // A short pattern follows few chains: found at every address it fits, 0x100..=0x114.
        let found = search_blocks(&index, b"abab", 100);
        assert!(!found.chains_cut);
        assert_eq!(found.hits.len(), 21);
        assert_eq!(found.hits[0].address, 0x100);
        assert_eq!(found.hits[0].blocks.len(), 4, "one placement of each byte");
    }

    #[test]
    fn the_hit_limit_truncates() {
        let c = capture(&[(1, 0, 0, 0)], &[&[7u8; 64]]);
        let index = MemoryIndex::build(&c).0;
        let found = search_blocks(&index, &[7, 7], 10);
        assert_eq!(found.hits.len(), 10);
        assert!(found.truncated);
        assert_eq!(found.hits[9].address, 9);
    }
}
