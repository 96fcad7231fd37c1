//! The captured guest memory, indexed once per frame, and the per-draw view of it.
//!
//! Memory blocks are attached to commands (rrc-format.md 3.3) and applied in command order into
//! two sparse spaces, local and main (rrc-format.md 3.4, 4.1). A draw sees every block attached
//! to commands up to and including its END command.
//!
//! **Lookup rule.** A read of `len` bytes at `offset` sees guest memory as RPCS3's replay leaves
//! it after copying every block attached at or before the view's command into it, in order
//! (`rsx_replay.cpp`): each byte is the newest overlapping block's (latest command, then latest
//! in attach order). When the newest block holds the whole range the read borrows its bytes;
//! otherwise they are assembled from the blocks that hold them (an older block around a newer,
//! smaller one, or blocks side by side), and a range with a byte in no block reads `None`.
//!
//! **Index.** Blocks with the same (location, offset, length) are grouped into one extent with
//! a list of versions sorted by attach order. Extents are sorted by offset, with a max-end
//! segment tree over them, so finding the extents that overlap a range costs
//! O((k + 1) log n) for k overlapping extents, and picking the newest version visible to a
//! command is a binary search.

use crate::problem::FrameProblem;
use bytes::Bytes;
use rsxtrace_fetch::visible::MAX_VISIBLE_BLOCKS;
use rsxtrace_fetch::{compose, GuestMemory, VisibleBlock, VisibleBlocks};
use rsxtrace_rrc::{Capture, Location, MemoryBlock};
use std::borrow::Cow;
use std::collections::HashMap;

/// One attachment of an extent.
#[derive(Clone, Debug)]
struct Version {
    /// Command the block is attached to.
    command: usize,
    /// Global attach order (ties within one command broken by file order).
    seq: u32,
    /// The block's id in `Capture::blocks`.
    block: u64,
    data: Bytes,
}

/// Which captured block a read comes from (see [`MemoryIndex::source_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockSource {
    /// The block's id in `Capture::blocks` (the file's `memory_map` id).
    pub block: u64,
    /// Command the block is attached to (the newest attachment visible to the read).
    pub command: usize,
    /// Where the block lies.
    pub location: Location,
    /// Its first byte's offset.
    pub offset: u32,
    /// Its length in bytes.
    pub len: u32,
}

#[derive(Clone, Debug)]
struct Extent {
    offset: u32,
    end: u64,
    versions: Vec<Version>,
}

impl Extent {
    /// The newest version attached at or before `command`.
    fn newest_at(&self, command: usize) -> Option<&Version> {
        let n = self.versions.partition_point(|v| v.command <= command);
        n.checked_sub(1).and_then(|i| self.versions.get(i))
    }
}

#[derive(Clone, Debug, Default)]
struct Space {
    extents: Vec<Extent>,
    /// Max-end segment tree over `extents` (size 2 * leaves, 1-based).
    tree: Vec<u64>,
    leaves: usize,
}

impl Space {
    fn build(mut extents: Vec<Extent>) -> Space {
        extents.sort_by_key(|e| (e.offset, e.end));
        let leaves = extents.len().next_power_of_two().max(1);
        let mut tree = vec![0u64; 2 * leaves];
        for (i, e) in extents.iter().enumerate() {
            tree[leaves + i] = e.end;
        }
        for i in (1..leaves).rev() {
            tree[i] = tree[2 * i].max(tree[2 * i + 1]);
        }
        Space {
            extents,
            tree,
            leaves,
        }
    }

    /// Calls `f` for every extent overlapping `[start, end)`.
    fn overlapping<'a>(&'a self, start: u64, end: u64, f: &mut impl FnMut(&'a Extent)) {
        // Extents with offset < end form a prefix.
        let hi = self.extents.partition_point(|e| (e.offset as u64) < end);
        if hi == 0 {
            return;
        }
        self.visit(1, 0, self.leaves, hi, start, f);
    }

    fn visit<'a>(
        &'a self,
        node: usize,
        lo: usize,
        width: usize,
        hi: usize,
        start: u64,
        f: &mut impl FnMut(&'a Extent),
    ) {
        if lo >= hi || self.tree.get(node).is_none_or(|&m| m <= start) {
            return;
        }
        if width == 1 {
            if let Some(e) = self.extents.get(lo) {
                f(e);
            }
            return;
        }
        let half = width / 2;
        self.visit(2 * node, lo, half, hi, start, f);
        self.visit(2 * node + 1, lo + half, half, hi, start, f);
    }
}

/// Where attachment `id` of `command` goes: its block, bytes, location and end offset, or why
/// it cannot be placed.
fn place<'a>(
    blocks: &HashMap<u64, MemoryBlock>,
    data: &HashMap<u64, &'a Bytes>,
    command: usize,
    id: u64,
) -> Result<(MemoryBlock, &'a Bytes, Location, u64), FrameProblem> {
    let block = *blocks
        .get(&id)
        .ok_or(FrameProblem::UnknownBlock { command, id })?;
    let bytes = *data.get(&block.data_id).ok_or(FrameProblem::UnknownData {
        command,
        id,
        data_id: block.data_id,
    })?;
    let location = Location::from_raw(block.location).ok_or(FrameProblem::BadLocation {
        command,
        id,
        location: block.location,
    })?;
    let end = block.offset as u64 + bytes.len() as u64;
    if end > 1u64 << 32 {
        return Err(FrameProblem::BlockOverflow {
            command,
            id,
            offset: block.offset,
            len: bytes.len(),
        });
    }
    Ok((block, bytes, location, end))
}

/// All memory blocks of a capture, indexed by location and offset.
#[derive(Clone, Debug, Default)]
pub struct MemoryIndex {
    local: Space,
    main: Space,
    attachments: usize,
    attached_bytes: u64,
}

impl MemoryIndex {
    /// Resolve every command's block ids and index them. An attachment that cannot be placed
    /// (unknown id, unknown data, invalid location, running past 4 GiB) is left out and
    /// returned as a problem naming its command; the rest are indexed.
    pub fn build(capture: &Capture) -> (MemoryIndex, Vec<FrameProblem>) {
        let blocks: HashMap<u64, _> = capture.blocks.iter().map(|e| (e.id, e.value)).collect();
        let data: HashMap<u64, &Bytes> = capture.data.iter().map(|e| (e.id, &e.value)).collect();
        let mut groups: [HashMap<(u32, u64), Vec<Version>>; 2] = [HashMap::new(), HashMap::new()];
        let mut problems = Vec::new();
        let mut seq = 0u32;
        let mut attached_bytes = 0u64;
        for (command, cmd) in capture.commands.iter().enumerate() {
            for &id in &cmd.memory {
                let (block, bytes, location, end) = match place(&blocks, &data, command, id) {
                    Ok(placed) => placed,
                    Err(problem) => {
                        problems.push(problem);
                        continue;
                    }
                };
                let space = match location {
                    Location::Local => 0,
                    Location::Main => 1,
                };
                groups[space]
                    .entry((block.offset, end))
                    .or_default()
                    .push(Version {
                        command,
                        seq,
                        block: id,
                        data: (*bytes).clone(),
                    });
                seq = seq.wrapping_add(1);
                attached_bytes += bytes.len() as u64;
            }
        }
        let [local, main] = groups.map(|g| {
            Space::build(
                g.into_iter()
                    .map(|((offset, end), versions)| Extent {
                        offset,
                        end,
                        versions,
                    })
                    .collect(),
            )
        });
        let index = MemoryIndex {
            local,
            main,
            attachments: seq as usize,
            attached_bytes,
        };
        (index, problems)
    }

    /// Number of block attachments (a block attached to two commands counts twice).
    pub fn attachments(&self) -> usize {
        self.attachments
    }

    /// Total bytes over all attachments.
    pub fn attached_bytes(&self) -> u64 {
        self.attached_bytes
    }

    fn space(&self, location: Location) -> &Space {
        match location {
            Location::Local => &self.local,
            Location::Main => &self.main,
        }
    }

    /// The newest version visible at `command` of the extents overlapping the non-empty
    /// range, and its extent, when that version holds the whole range.
    fn holder(
        &self,
        command: usize,
        location: Location,
        start: u64,
        end: u64,
    ) -> Option<(&Version, &Extent)> {
        let mut best: Option<(&Version, &Extent)> = None;
        self.space(location).overlapping(start, end, &mut |e| {
            if let Some(v) = e.newest_at(command) {
                if best.is_none_or(|(b, _)| v.seq > b.seq) {
                    best = Some((v, e));
                }
            }
        });
        best.filter(|(_, e)| (e.offset as u64) <= start && end <= e.end)
    }

    /// The `len` bytes at `offset` as seen after the blocks of commands `0..=command` were
    /// applied, by the rule in the module docs: borrowed from the newest overlapping block when
    /// it holds the whole range, assembled from the visible blocks otherwise.
    pub fn read_at(
        &self,
        command: usize,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<Cow<'_, [u8]>> {
        if len == 0 {
            return Some(Cow::Borrowed(&[]));
        }
        if let Some(bytes) = self.read_held_at(command, location, offset, len) {
            return Some(Cow::Borrowed(bytes));
        }
        let start = offset as u64;
        let blocks = self.visible(command, location, start, start + len as u64, usize::MAX)?;
        compose(&blocks, start, len)
    }

    /// The `len` bytes at `offset` when the newest block overlapping them holds them all (the
    /// bytes [`read_at`](Self::read_at) borrows), else `None`, without assembling anything.
    pub fn read_held_at(
        &self,
        command: usize,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<&[u8]> {
        if len == 0 {
            return Some(&[]);
        }
        let start = offset as u64;
        let (v, e) = self.holder(command, location, start, start + len as u64)?;
        let from = (start - e.offset as u64) as usize;
        v.data.get(from..from + len as usize)
    }

    /// The block that [`read_at`](Self::read_at) takes the same non-empty range from, or
    /// `None` when it gives no bytes or assembles them from several blocks.
    pub fn source_at(
        &self,
        command: usize,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<BlockSource> {
        if len == 0 {
            return None;
        }
        let start = offset as u64;
        let (v, e) = self.holder(command, location, start, start + len as u64)?;
        Some(source(location, v, e))
    }

    /// Every block visible at `command` that overlaps the range, oldest attachment first:
    /// for each group of blocks with the same place and length, the newest attached at or
    /// before `command`. A read of the range sees, byte by byte, the newest of these that
    /// holds it; a write to it (a render target) lands on all.
    pub fn overlapping_at(
        &self,
        command: usize,
        location: Location,
        offset: u32,
        len: u64,
    ) -> Vec<BlockSource> {
        let mut out: Vec<(u32, BlockSource)> = Vec::new();
        let start = offset as u64;
        if len == 0 {
            return Vec::new();
        }
        self.space(location)
            .overlapping(start, start + len, &mut |e| {
                if let Some(v) = e.newest_at(command) {
                    out.push((v.seq, source(location, v, e)));
                }
            });
        out.sort_by_key(|(seq, _)| *seq);
        out.into_iter().map(|(_, s)| s).collect()
    }

    /// The blocks visible at `command` over the range, oldest attachment first
    /// ([`overlapping_at`](Self::overlapping_at)'s blocks with their bytes), for reads inside
    /// the range by the same rule as [`read_at`](Self::read_at); `None` when more than
    /// [`rsxtrace_fetch::visible::MAX_VISIBLE_BLOCKS`] overlap it.
    pub fn visible_at(
        &self,
        command: usize,
        location: Location,
        offset: u32,
        len: u64,
    ) -> Option<VisibleBlocks<'_>> {
        let start = offset as u64;
        let blocks = self.visible(command, location, start, start + len, MAX_VISIBLE_BLOCKS)?;
        VisibleBlocks::new(blocks)
    }

    /// The newest version visible at `command` of each extent overlapping `start..end` with
    /// its bytes, oldest attachment first; `None` when more than `limit` overlap it (the
    /// search stops there).
    fn visible(
        &self,
        command: usize,
        location: Location,
        start: u64,
        end: u64,
        limit: usize,
    ) -> Option<Vec<VisibleBlock<'_>>> {
        let mut found: Vec<(u32, VisibleBlock<'_>)> = Vec::new();
        let mut too_many = false;
        if end > start {
            self.space(location).overlapping(start, end, &mut |e| {
                if found.len() > limit {
                    too_many = true;
                    return;
                }
                if let Some(v) = e.newest_at(command) {
                    let block = VisibleBlock {
                        offset: e.offset as u64,
                        bytes: &v.data,
                    };
                    found.push((v.seq, block));
                }
            });
        }
        if too_many {
            return None;
        }
        found.sort_by_key(|(seq, _)| *seq);
        Some(found.into_iter().map(|(_, b)| b).collect())
    }

    /// Every attachment of every block, local memory first, then main, each space in
    /// address order (and attach order at one address).
    pub fn blocks(&self) -> impl Iterator<Item = BlockRef<'_>> + '_ {
        [(Location::Local, &self.local), (Location::Main, &self.main)]
            .into_iter()
            .flat_map(|(location, space)| {
                space.extents.iter().flat_map(move |e| {
                    e.versions.iter().map(move |v| BlockRef {
                        location,
                        offset: e.offset,
                        command: v.command,
                        block: v.block,
                        seq: v.seq,
                        data: &v.data,
                    })
                })
            })
    }

    /// A view of memory as seen by the command `command` (normally a draw's END).
    pub fn view_at(&self, command: usize) -> MemoryView<'_> {
        MemoryView {
            index: self,
            command,
        }
    }
}

fn source(location: Location, v: &Version, e: &Extent) -> BlockSource {
    BlockSource {
        block: v.block,
        command: v.command,
        location,
        offset: e.offset,
        len: (e.end - e.offset as u64) as u32,
    }
}

/// One attachment of a memory block: where it lies, the command it is attached to and its
/// bytes. Attachments of one data blob share their bytes (`data` points at the same buffer).
#[derive(Clone, Copy, Debug)]
pub struct BlockRef<'a> {
    /// Memory space.
    pub location: Location,
    /// Offset of the first byte.
    pub offset: u32,
    /// Command the block is attached to.
    pub command: usize,
    /// The block's id in `Capture::blocks` (the file's `memory_map` id).
    pub block: u64,
    /// Global attach order (unique per attachment).
    pub seq: u32,
    /// The bytes.
    pub data: &'a Bytes,
}

impl BlockRef<'_> {
    /// One past the last byte's offset.
    pub fn end(&self) -> u64 {
        u64::from(self.offset) + self.data.len() as u64
    }
}

/// Guest memory as seen at one command; implements [`GuestMemory`].
#[derive(Clone, Copy, Debug)]
pub struct MemoryView<'a> {
    index: &'a MemoryIndex,
    command: usize,
}

impl MemoryView<'_> {
    /// The command this view sees memory at.
    pub fn command(&self) -> usize {
        self.command
    }

    /// The block a read of the range comes from ([`MemoryIndex::source_at`]).
    pub fn source(&self, location: Location, offset: u32, len: u32) -> Option<BlockSource> {
        self.index.source_at(self.command, location, offset, len)
    }

    /// The visible blocks overlapping the range ([`MemoryIndex::overlapping_at`]).
    pub fn overlapping(&self, location: Location, offset: u32, len: u64) -> Vec<BlockSource> {
        self.index
            .overlapping_at(self.command, location, offset, len)
    }
}

impl GuestMemory for MemoryView<'_> {
    fn read(
        &self,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<std::borrow::Cow<'_, [u8]>> {
        self.index.read_at(self.command, location, offset, len)
    }

    fn read_held(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]> {
        self.index.read_held_at(self.command, location, offset, len)
    }

    fn visible_blocks(
        &self,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<VisibleBlocks<'_>> {
        self.index
            .visible_at(self.command, location, offset, u64::from(len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_rrc::{Entry, MemoryBlock, ReplayCommand};

    fn capture(blocks: &[(usize, u32, u32, Vec<u8>)], commands: usize) -> Capture {
        let mut c = Capture::empty("test");
        c.commands = vec![ReplayCommand::default(); commands];
        for (i, (cmd, location, offset, bytes)) in blocks.iter().enumerate() {
            let id = 0x2000 + i as u64;
            let data_id = 0x3000 + i as u64;
            c.blocks.push(Entry {
                id,
                value: MemoryBlock {
                    offset: *offset,
                    location: *location,
                    data_id,
                },
            });
            c.data.push(Entry {
                id: data_id,
                value: Bytes::from(bytes.clone()),
            });
            c.commands[*cmd].memory.push(id);
        }
        c
    }

    #[test]
    fn each_byte_is_the_newest_blocks() {
        let c = capture(
            &[
                (1, 0, 0x100, vec![1; 16]),
                (3, 0, 0x104, vec![2; 4]),
                (5, 0xFEED_0001, 0x100, vec![3; 8]),
            ],
            8,
        );
        let m = MemoryIndex::build(&c).0;
        let at = |cmd, loc, off, len| m.view_at(cmd).read(loc, off, len).map(|s| s.to_vec());
        // Before any block.
        assert_eq!(at(0, Location::Local, 0x100, 4), None);
        // Only the first block.
        assert_eq!(at(2, Location::Local, 0x104, 4), Some(vec![1; 4]));
        assert_eq!(at(2, Location::Local, 0x100, 16), Some(vec![1; 16]));
        assert_eq!(at(2, Location::Local, 0x100, 17), None);
        // The newer block holds the range: it wins.
        assert_eq!(at(3, Location::Local, 0x104, 4), Some(vec![2; 4]));
        // The newer block overlaps part of the range: each byte from the newest block that
        // holds it, as RPCS3's replay copies the blocks in order.
        assert_eq!(
            at(3, Location::Local, 0x100, 8),
            Some(vec![1, 1, 1, 1, 2, 2, 2, 2])
        );
        assert_eq!(
            at(3, Location::Local, 0x100, 16),
            Some([vec![1; 4], vec![2; 4], vec![1; 8]].concat())
        );
        assert_eq!(
            m.source_at(3, Location::Local, 0x100, 8),
            None,
            "no one block"
        );
        // A byte in no block: nothing.
        assert_eq!(at(3, Location::Local, 0x10C, 8), None);
        // A range the newer block does not touch still comes from the older one.
        assert_eq!(at(3, Location::Local, 0x108, 8), Some(vec![1; 8]));
        // Main is a separate space (0xFEED0001 normalises to main).
        assert_eq!(at(5, Location::Main, 0x100, 8), Some(vec![3; 8]));
        assert_eq!(at(4, Location::Main, 0x100, 8), None);
        assert_eq!(m.attachments(), 3);
        assert_eq!(m.attached_bytes(), 28);
    }

    #[test]
    fn visible_blocks_read_as_the_index_does() {
        // Interleaved attributes as RPCS3 attaches them: one block per attribute over the
        // same buffer, each from its own offset, plus a later block over part of it.
        let buffer: Vec<u8> = (0..96u8).collect();
        let c = capture(
            &[
                (2, 0, 0x200, buffer[..76].to_vec()),
                (2, 0, 0x20C, buffer[12..84].to_vec()),
                (2, 0, 0x218, buffer[24..96].to_vec()),
                (4, 0, 0x230, vec![9; 8]),
            ],
            6,
        );
        let m = MemoryIndex::build(&c).0;
        for command in [1, 2, 3, 5] {
            let visible = m.visible_at(command, Location::Local, 0x1F8, 0x80).unwrap();
            for offset in 0x1F8..0x270u32 {
                for len in [0, 1, 4, 8, 12, 16] {
                    assert_eq!(
                        visible.read(offset, len),
                        m.read_at(command, Location::Local, offset, len),
                        "command {command}, {len} bytes at {offset:#x}"
                    );
                }
            }
        }
        assert!(m
            .visible_at(5, Location::Local, 0x200, 0x60)
            .unwrap()
            .read(0x230, 4)
            .is_some_and(|b| *b == [9; 4]));
    }

    #[test]
    fn sources_name_the_block_a_read_comes_from() {
        let c = capture(
            &[
                (1, 0, 0x100, vec![1; 16]),
                (3, 0, 0x104, vec![2; 4]),
                (5, 0, 0x100, vec![3; 16]),
            ],
            8,
        );
        let m = MemoryIndex::build(&c).0;
        let id = |i: u64| 0x2000 + i;
        let src = |cmd, off, len| m.source_at(cmd, Location::Local, off, len).map(|s| s.block);
        assert_eq!(src(2, 0x104, 4), Some(id(0)));
        assert_eq!(src(3, 0x104, 4), Some(id(1)));
        assert_eq!(src(3, 0x100, 8), None); // partly covered by the newer block
        assert_eq!(src(6, 0x100, 8), Some(id(2)));
        assert_eq!(src(0, 0x100, 4), None);
        let s = m.source_at(6, Location::Local, 0x108, 4).unwrap();
        assert_eq!((s.command, s.offset, s.len), (5, 0x100, 16));
        // Writes land on every visible block overlapping them, oldest attachment first.
        let over: Vec<u64> = m
            .overlapping_at(4, Location::Local, 0x100, 0x10)
            .iter()
            .map(|s| s.block)
            .collect();
        assert_eq!(over, vec![id(0), id(1)]);
        let over: Vec<u64> = m
            .overlapping_at(7, Location::Local, 0x100, 0x10)
            .iter()
            .map(|s| s.block)
            .collect();
        assert_eq!(over, vec![id(1), id(2)]);
        assert!(m.overlapping_at(7, Location::Main, 0x100, 0x10).is_empty());
    }

    #[test]
    fn blocks_list_every_attachment() {
        let c = capture(
            &[
                (1, 0, 0x100, vec![1; 16]),
                (3, 0, 0x104, vec![2; 4]),
                (5, 0xFEED_0001, 0x100, vec![3; 8]),
            ],
            8,
        );
        let m = MemoryIndex::build(&c).0;
        let blocks: Vec<_> = m
            .blocks()
            .map(|b| {
                (
                    b.location,
                    b.offset,
                    b.command,
                    b.seq,
                    b.data.len(),
                    b.end(),
                )
            })
            .collect();
        assert_eq!(
            blocks,
            vec![
                (Location::Local, 0x100, 1, 0, 16, 0x110),
                (Location::Local, 0x104, 3, 1, 4, 0x108),
                (Location::Main, 0x100, 5, 2, 8, 0x108),
            ]
        );
        let ids: Vec<u64> = m.blocks().map(|b| b.block).collect();
        assert_eq!(ids, vec![0x2000, 0x2001, 0x2002]);
    }

    #[test]
    fn same_extent_many_versions() {
        let blocks: Vec<_> = (0..50)
            .map(|i| (i * 2, 0, 0x1000, vec![i as u8; 32]))
            .collect();
        let m = MemoryIndex::build(&capture(&blocks, 100)).0;
        for i in 0..50 {
            assert_eq!(
                m.read_at(i * 2 + 1, Location::Local, 0x1010, 4).as_deref(),
                Some(&[i as u8; 4][..])
            );
        }
    }

    #[test]
    fn attachments_that_cannot_be_placed_are_left_out_naming_the_command() {
        // The good block stays readable whatever is wrong with the others.
        let good = |m: &MemoryIndex| m.read_at(5, Location::Local, 0, 4).is_some();
        let mut c = capture(&[(1, 0, 0, vec![0; 4])], 3);
        c.commands[2].memory.push(0x9999);
        let (m, problems) = MemoryIndex::build(&c);
        assert_eq!(
            problems,
            [FrameProblem::UnknownBlock {
                command: 2,
                id: 0x9999
            }]
        );
        assert!(good(&m));
        assert_eq!(m.attachments(), 1);
        let c = capture(&[(0, 0, 0, vec![0; 4]), (1, 7, 0, vec![0; 4])], 3);
        let (m, problems) = MemoryIndex::build(&c);
        assert!(matches!(
            problems[..],
            [FrameProblem::BadLocation {
                command: 1,
                location: 7,
                ..
            }]
        ));
        assert!(good(&m));
        let mut c = capture(&[(0, 0, 0, vec![0; 4]), (1, 0, 0, vec![0; 4])], 3);
        c.blocks[1].value.data_id = 1;
        let (m, problems) = MemoryIndex::build(&c);
        assert!(matches!(
            problems[..],
            [FrameProblem::UnknownData {
                command: 1,
                data_id: 1,
                ..
            }]
        ));
        assert!(good(&m));
        let c = capture(
            &[(0, 0, 0, vec![0; 4]), (1, 0, u32::MAX - 1, vec![0; 4])],
            2,
        );
        let (m, problems) = MemoryIndex::build(&c);
        assert!(matches!(
            problems[..],
            [FrameProblem::BlockOverflow { command: 1, .. }]
        ));
        assert!(good(&m));
    }

    #[test]
    fn overlap_query_against_brute_force() {
        // Pseudo-random blocks; compare with a direct scan, byte by byte: the newest block
        // attached at or before the command that holds the byte.
        let mut x: u32 = 99;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let blocks: Vec<_> = (0..200)
            .map(|i| {
                (
                    i,
                    0,
                    rnd() % 4096,
                    vec![(i % 251) as u8; (rnd() % 300 + 1) as usize],
                )
            })
            .collect();
        let c = capture(&blocks, 200);
        let m = MemoryIndex::build(&c).0;
        for _ in 0..2000 {
            let cmd = (rnd() % 200) as usize;
            let off = rnd() % 4400;
            let len = rnd() % 64 + 1;
            let expect: Option<Vec<u8>> = (off..off + len)
                .map(|a| {
                    blocks
                        .iter()
                        .filter(|b| b.0 <= cmd)
                        .rev()
                        .find_map(|b| b.3.get(a.checked_sub(b.2)? as usize).copied())
                })
                .collect();
            let got = m.read_at(cmd, Location::Local, off, len);
            assert_eq!(
                got.as_deref(),
                expect.as_deref(),
                "cmd {cmd} off {off} len {len}"
            );
            let newest_holds = m.source_at(cmd, Location::Local, off, len).is_some();
            assert_eq!(
                matches!(got, Some(Cow::Borrowed(_))),
                newest_holds,
                "borrowed exactly when one block gives the range"
            );
            let held = m.read_held_at(cmd, Location::Local, off, len);
            match &got {
                Some(Cow::Borrowed(b)) => assert_eq!(held, Some(*b)),
                _ => assert_eq!(held, None),
            }
        }
    }
}
