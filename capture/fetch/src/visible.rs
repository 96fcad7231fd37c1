//! The captured blocks visible over one range of guest memory, for many small reads inside
//! it (a vertex array's elements).
//!
//! RPCS3 attaches one block per vertex attribute (`capture_draw_memory` in `rsx_capture.cpp`),
//! so the attributes of an interleaved buffer overlap one another's blocks and a single read
//! of a whole array's span has no one block that holds it. Each element is then read on its
//! own, by the lookup rule of the frame's memory (`rsxtrace_frame::memory`: the newest block
//! that overlaps the read gives the bytes when it holds all of them, otherwise there are
//! none). [`VisibleBlocks`] applies the same rule to the few blocks that overlap the span,
//! found once, instead of searching the whole frame's memory per element.

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

    /// The `len` bytes at `offset` by the lookup rule: the newest block overlapping the range
    /// gives them if it holds all of them; otherwise `None`. Only right for ranges inside the
    /// range the blocks were gathered over.
    pub fn read(&self, offset: u32, len: u32) -> Option<&'a [u8]> {
        let start = u64::from(offset);
        let end = start + u64::from(len);
        if len == 0 {
            return Some(&[]);
        }
        let newest = self
            .blocks
            .iter()
            .rev()
            .find(|b| b.offset < end && start < b.end())?;
        if newest.offset > start || end > newest.end() {
            return None;
        }
        let from = usize::try_from(start - newest.offset).ok()?;
        newest.bytes.get(from..from.checked_add(len as usize)?)
    }
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
        assert_eq!(blocks.read(0, 4), Some(&old[..4]));
        assert_eq!(blocks.read(4, 4), Some(&new[..4]));
        // Overlaps the newer block without lying inside it: no bytes, though the older holds it.
        assert_eq!(blocks.read(2, 4), None);
        assert_eq!(blocks.read(12, 4), Some(&old[..4]));
        assert_eq!(blocks.read(14, 4), None);
        assert_eq!(blocks.read(20, 0), Some(&[][..]));
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
