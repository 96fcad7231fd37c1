//! The captured blocks visible over one range of guest memory, for many small reads inside
//! it (a vertex array's elements), and the rule that reads bytes from overlapping blocks.
//!
//! RPCS3 attaches one block per vertex attribute (`capture_draw_memory` in `rsx_capture.cpp`),
//! so the attributes of an interleaved buffer overlap one another's blocks and a single read
//! of a whole array's span has no one block that holds it. Each element is then read on its
//! own, by the lookup rule of the frame's memory ([`compose`]: every byte is the newest
//! overlapping block's, as RPCS3's replay copies each block into guest memory in command
//! order). [`VisibleBlocks`] applies the same rule to the few blocks that overlap the span,
//! found once, instead of searching the whole frame's memory per element.

use std::borrow::Cow;

/// Most blocks a [`VisibleBlocks`] holds: beyond it, a read per element through the memory's
/// own index is cheaper than scanning them.
pub const MAX_VISIBLE_BLOCKS: usize = 32;

/// One visible block: its first byte's address and its bytes.
#[derive(Clone, Copy, Debug)]
pub struct VisibleBlock<'a> {
    /// Offset of its first byte.
    pub offset: u64,
    /// Its bytes.
    pub bytes: &'a [u8],
}

impl VisibleBlock<'_> {
    fn end(&self) -> u64 {
        self.offset + self.bytes.len() as u64
    }
}

/// The blocks visible over a range, oldest first (the last one overlapping a read wins).
#[derive(Clone, Debug, Default)]
pub struct VisibleBlocks<'a> {
    blocks: Vec<VisibleBlock<'a>>,
}

impl<'a> VisibleBlocks<'a> {
    /// From blocks ordered oldest first, or `None` when there are more than
    /// [`MAX_VISIBLE_BLOCKS`].
    pub fn new(blocks: Vec<VisibleBlock<'a>>) -> Option<VisibleBlocks<'a>> {
        (blocks.len() <= MAX_VISIBLE_BLOCKS).then_some(VisibleBlocks { blocks })
    }

    /// The `len` bytes at `offset` by the lookup rule ([`compose`]). Only right for ranges
    /// inside the range the blocks were gathered over.
    pub fn read(&self, offset: u32, len: u32) -> Option<Cow<'a, [u8]>> {
        compose(&self.blocks, u64::from(offset), len)
    }

    /// The ranges `(start, end)` of `offset..offset + len` that some block holds, each block's
    /// part (they may overlap one another).
    pub fn held_ranges(&self, offset: u64, len: u64) -> Vec<(u64, u64)> {
        let end = offset + len;
        self.blocks
            .iter()
            .map(|b| (b.offset.max(offset), b.end().min(end)))
            .filter(|(from, to)| from < to)
            .collect()
    }

    /// Copy into `dst` (the bytes from `offset` on) every byte some block holds, each the
    /// newest block's, leaving the bytes no block holds as they are: what the capture holds of
    /// a range that is not all captured.
    pub fn copy_into(&self, offset: u64, dst: &mut [u8]) {
        let end = offset + dst.len() as u64;
        for b in &self.blocks {
            let (from, to) = (b.offset.max(offset), b.end().min(end));
            if from >= to {
                continue;
            }
            let src = b
                .bytes
                .get((from - b.offset) as usize..(to - b.offset) as usize);
            let place = dst.get_mut((from - offset) as usize..(to - offset) as usize);
            if let (Some(src), Some(place)) = (src, place) {
                place.copy_from_slice(src);
            }
        }
    }
}

/// The `len` bytes at `offset` as guest memory holds them after `blocks` (oldest first) were
/// copied into it in order, as RPCS3's replay copies each command's blocks (`rsx_replay.cpp`):
/// each byte is the newest overlapping block's. Borrowed from the newest overlapping block
/// when it holds the whole range; assembled from several otherwise; `None` when some byte of
/// the range is in no block.
pub fn compose<'a>(blocks: &[VisibleBlock<'a>], offset: u64, len: u32) -> Option<Cow<'a, [u8]>> {
    let start = offset;
    let end = start + u64::from(len);
    if len == 0 {
        return Some(Cow::Borrowed(&[]));
    }
    let overlaps = |b: &&VisibleBlock<'a>| b.offset < end && start < b.end();
    let newest = blocks.iter().rev().find(overlaps)?;
    if newest.offset <= start && end <= newest.end() {
        let from = usize::try_from(start - newest.offset).ok()?;
        return newest
            .bytes
            .get(from..from.checked_add(len as usize)?)
            .map(Cow::Borrowed);
    }
    // Every byte must be in some block before anything is allocated.
    let mut spans: Vec<(u64, u64)> = blocks
        .iter()
        .filter(overlaps)
        .map(|b| (b.offset.max(start), b.end().min(end)))
        .collect();
    spans.sort_unstable();
    let mut covered = start;
    for (from, to) in spans {
        if from > covered {
            return None;
        }
        covered = covered.max(to);
    }
    if covered < end {
        return None;
    }
    let mut bytes = vec![0u8; len as usize];
    for b in blocks.iter().filter(overlaps) {
        let (from, to) = (b.offset.max(start), b.end().min(end));
        let src = b
            .bytes
            .get((from - b.offset) as usize..(to - b.offset) as usize)?;
        bytes
            .get_mut((from - start) as usize..(to - start) as usize)?
            .copy_from_slice(src);
    }
    Some(Cow::Owned(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_overlapping_block_decides() {
        let old = [1u8; 16];
        let new = [2u8; 8];
        let blocks = VisibleBlocks::new(vec![
            VisibleBlock {
                offset: 0,
                bytes: &old,
            },
            VisibleBlock {
                offset: 4,
                bytes: &new,
            },
        ])
        .unwrap();
        let read = |offset, len| blocks.read(offset, len).map(|b| b.into_owned());
        assert_eq!(read(0, 4), Some(vec![1; 4]));
        assert_eq!(read(4, 4), Some(vec![2; 4]));
        assert!(matches!(blocks.read(4, 4), Some(Cow::Borrowed(_))));
        // Across the newer block's edge: each byte the newest block's that holds it.
        assert_eq!(read(2, 4), Some(vec![1, 1, 2, 2]));
        assert_eq!(read(10, 4), Some(vec![2, 2, 1, 1]));
        assert_eq!(read(0, 16), Some([[1; 4], [2; 4], [2; 4], [1; 4]].concat()));
        assert_eq!(read(12, 4), Some(vec![1; 4]));
        // A byte in no block: nothing.
        assert_eq!(read(14, 4), None);
        assert_eq!(read(20, 0), Some(vec![]));
        // What the blocks hold of a range that is not all held.
        let mut dst = [7u8; 8];
        blocks.copy_into(12, &mut dst);
        assert_eq!(dst, [1, 1, 1, 1, 7, 7, 7, 7]);
        assert!(VisibleBlocks::new(vec![
            VisibleBlock {
                offset: 0,
                bytes: &old
            };
            MAX_VISIBLE_BLOCKS + 1
        ])
        .is_none());
    }
}
