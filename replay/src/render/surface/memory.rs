//! The frame's surface memory ([`SurfaceMemory`]): the guest memory ranges draws rendered to,
//! lent to a draw to write in place, and put over the captured memory ([`Overlay`]).

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::rrc::Location;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::SurfaceLayout;

/// One rendered range of guest memory.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Region {
    location: Location,
    offset: u32,
    bytes: Vec<u8>,
}

impl Region {
    fn end(&self) -> u64 {
        u64::from(self.offset) + self.bytes.len() as u64
    }
}

/// Rendered regions lent out of a [`SurfaceMemory`] (see [`SurfaceMemory::lend`]) so that a
/// draw writes them in place, without copying its targets out and back.
#[derive(Debug, Default)]
pub struct LentRegions {
    regions: Vec<Region>,
}

impl LentRegions {
    /// The bytes of lent region `index` (as [`SurfaceMemory::lend`] numbered them).
    pub fn bytes_mut(&mut self, index: usize) -> Option<&mut [u8]> {
        self.regions.get_mut(index).map(|r| r.bytes.as_mut_slice())
    }

    /// The bytes of every lent region at once, by index.
    pub fn all_bytes_mut(&mut self) -> Vec<&mut [u8]> {
        self.regions
            .iter_mut()
            .map(|r| r.bytes.as_mut_slice())
            .collect()
    }
}

/// The memory ranges rendered during a frame (copies of guest memory that draws wrote).
#[derive(Debug, Default)]
pub struct SurfaceMemory {
    regions: Vec<Region>,
    stale_reads: AtomicUsize,
}

impl SurfaceMemory {
    /// Empty: nothing rendered yet.
    pub fn new() -> SurfaceMemory {
        SurfaceMemory::default()
    }

    /// The bytes of `layout`'s range for writing, created on first use from `base` (bytes the
    /// capture does not hold start as 0). Overlapping earlier regions are merged, newest bytes
    /// kept. `None` when the range's length does not fit in memory (checked by
    /// [`SurfaceLayout::of_target`]).
    pub fn surface_mut(
        &mut self,
        layout: &SurfaceLayout,
        base: &dyn GuestMemory,
    ) -> Option<&mut [u8]> {
        let len = u32::try_from(layout.byte_len()).ok()?;
        self.range_mut(layout.location, layout.offset, len, base)
    }

    /// `len` bytes at `offset` in `location` for writing (see [`Self::surface_mut`]).
    pub fn range_mut(
        &mut self,
        location: Location,
        offset: u32,
        len: u32,
        base: &dyn GuestMemory,
    ) -> Option<&mut [u8]> {
        let start = u64::from(offset);
        let end = start + u64::from(len);
        if end > 1 << 32 {
            return None;
        }
        let inside = self
            .regions
            .iter()
            .position(|r| r.location == location && u64::from(r.offset) <= start && r.end() >= end);
        let index = match inside {
            Some(i) => i,
            None => self.merge(location, start, end, base)?,
        };
        let region = self.regions.get_mut(index)?;
        let from = usize::try_from(start - u64::from(region.offset)).ok()?;
        region.bytes.get_mut(from..from + len as usize)
    }

    /// As [`Self::range_mut`], joined to a region that ends where the range starts, so that
    /// bytes written one small piece after another (an image sent inline, pixel by pixel)
    /// make one region that a later read finds whole, not many small ones side by side.
    pub fn range_mut_joined(
        &mut self,
        location: Location,
        offset: u32,
        len: u32,
        base: &dyn GuestMemory,
    ) -> Option<&mut [u8]> {
        let start = u64::from(offset);
        let before = self
            .regions
            .iter()
            .find(|r| r.location == location && r.end() == start && u64::from(r.offset) < start)
            .map(|r| r.offset);
        let Some(from) = before else {
            return self.range_mut(location, offset, len, base);
        };
        let joined = u32::try_from(start - u64::from(from) + u64::from(len)).ok()?;
        let bytes = self.range_mut(location, from, joined, base)?;
        let at = (offset - from) as usize;
        bytes.get_mut(at..)
    }

    /// Lend the regions holding `ranges` (location, offset, length) for writing in place:
    /// each range is created or merged from `base` as [`Self::range_mut`] does, then the
    /// regions holding them are taken out whole. Returns them with, per range, the index of
    /// its region among the lent ones and its byte offset in it. Until
    /// [`give_back`](Self::give_back) those bytes are absent from this memory. `None` when a
    /// range does not fit in the address space (nothing is lent then).
    pub fn lend(
        &mut self,
        ranges: &[(Location, u32, u32)],
        base: &dyn GuestMemory,
    ) -> Option<(LentRegions, Vec<(usize, usize)>)> {
        for &(location, offset, len) in ranges {
            self.range_mut(location, offset, len, base)?;
        }
        // Later merges only grow regions, so every range now lies inside one region.
        let mut holding = Vec::with_capacity(ranges.len());
        for &(location, offset, len) in ranges {
            let (start, end) = (u64::from(offset), u64::from(offset) + u64::from(len));
            let index = self.regions.iter().position(|r| {
                r.location == location && u64::from(r.offset) <= start && r.end() >= end
            })?;
            holding.push((index, start - u64::from(self.regions[index].offset)));
        }
        let mut taken: Vec<usize> = holding.iter().map(|&(i, _)| i).collect();
        taken.sort_unstable();
        taken.dedup();
        // Removed from the back, so the indices still to remove stay valid.
        let mut lent: Vec<(usize, Region)> = taken
            .iter()
            .rev()
            .map(|&i| (i, self.regions.remove(i)))
            .collect();
        lent.reverse();
        let places = holding
            .iter()
            .map(|&(i, from)| {
                let k = lent.iter().position(|(j, _)| *j == i).unwrap_or(0);
                (k, from as usize)
            })
            .collect();
        let regions = lent.into_iter().map(|(_, r)| r).collect();
        Some((LentRegions { regions }, places))
    }

    /// Return regions lent by [`lend`](Self::lend), with what was written into them.
    pub fn give_back(&mut self, lent: LentRegions) {
        self.regions.extend(lent.regions);
    }

    /// Create a region covering `start..end` and every region overlapping it.
    fn merge(
        &mut self,
        location: Location,
        mut start: u64,
        mut end: u64,
        base: &dyn GuestMemory,
    ) -> Option<usize> {
        let (overlapping, kept): (Vec<Region>, Vec<Region>) = std::mem::take(&mut self.regions)
            .into_iter()
            .partition(|r| r.location == location && u64::from(r.offset) < end && r.end() > start);
        self.regions = kept;
        for r in &overlapping {
            start = start.min(u64::from(r.offset));
            end = end.max(r.end());
        }
        let offset = u32::try_from(start).ok()?;
        let len = u32::try_from(end - start).ok()?;
        let mut bytes = match base.read(location, offset, len) {
            Some(b) => b.into_owned(),
            None => {
                // Fill what the capture holds: byte for byte from the blocks over the range
                // when the memory names them, else row-sized pieces at a time.
                let mut v = vec![0u8; len as usize];
                if let Some(blocks) = base.visible_blocks(location, offset, len) {
                    blocks.copy_into(u64::from(offset), &mut v);
                } else {
                    let chunk = 4096u32;
                    let mut at = 0u32;
                    while at < len {
                        let n = chunk.min(len - at);
                        if let Some(b) = base.read(location, offset + at, n) {
                            if let Some(d) = v.get_mut(at as usize..(at + n) as usize) {
                                d.copy_from_slice(&b);
                            }
                        }
                        at += n;
                    }
                }
                v
            }
        };
        for r in overlapping {
            let from = (u64::from(r.offset) - start) as usize;
            if let Some(d) = bytes.get_mut(from..from + r.bytes.len()) {
                d.copy_from_slice(&r.bytes);
            }
        }
        self.regions.push(Region {
            location,
            offset,
            bytes,
        });
        Some(self.regions.len() - 1)
    }

    /// Make `len` bytes at `offset` one region when they overlap a rendered region only in
    /// part (the rest is copied from `base`), so that a texture read covering more than the
    /// rendered surface (border texels, mip levels, a larger texture) still sees the rendered
    /// bytes. Ranges that touch nothing rendered are left alone.
    pub fn extend_over(
        &mut self,
        location: Location,
        offset: u32,
        len: u32,
        base: &dyn GuestMemory,
    ) {
        if len > 0 && self.overlaps(location, offset, len) {
            let _ = self.range_mut(location, offset, len, base);
        }
    }

    /// `len` bytes at `offset` if they lie inside one rendered region.
    pub fn read_rendered(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]> {
        let start = u64::from(offset);
        let end = start + u64::from(len);
        let r = self
            .regions
            .iter()
            .find(|r| r.location == location && u64::from(r.offset) <= start && r.end() >= end)?;
        let from = usize::try_from(start - u64::from(r.offset)).ok()?;
        r.bytes.get(from..from + len as usize)
    }

    /// Reads that overlapped a rendered region only in part and were answered from the
    /// captured memory (stale bytes) since the last call.
    pub fn take_stale_reads(&self) -> usize {
        self.stale_reads.swap(0, Ordering::Relaxed)
    }

    /// How many of the `len` bytes at `offset` neither a region of this replay nor the
    /// captured memory `base` holds (what a read of them fills with 0).
    pub fn unheld_bytes(
        &self,
        location: Location,
        offset: u32,
        len: u32,
        base: &dyn GuestMemory,
    ) -> u64 {
        let start = u64::from(offset);
        let end = start + u64::from(len);
        if len == 0 || base.read(location, offset, len).is_some() {
            return 0;
        }
        let mut held: Vec<(u64, u64)> = self
            .regions
            .iter()
            .filter(|r| r.location == location)
            .map(|r| (u64::from(r.offset).max(start), r.end().min(end)))
            .filter(|(a, b)| a < b)
            .collect();
        match base.visible_blocks(location, offset, len) {
            Some(blocks) => held.extend(blocks.held_ranges(start, u64::from(len))),
            None => {
                // Held pieces of 64 bytes, a piece not wholly held looked at 4 bytes at a
                // time (a partly held word counts as not held).
                let mut pieces = |size: u32, from: u32, to: u32, failed: &mut Vec<u32>| {
                    let mut at = from;
                    while at < to {
                        let n = size.min(to - at);
                        if base.read(location, offset + at, n).is_some() {
                            held.push((start + u64::from(at), start + u64::from(at + n)));
                        } else {
                            failed.push(at);
                        }
                        at += n;
                    }
                };
                let mut failed = Vec::new();
                pieces(64, 0, len, &mut failed);
                for at in failed {
                    pieces(4, at, (at + 64).min(len), &mut Vec::new());
                }
            }
        }
        held.sort_unstable();
        let (mut covered, mut reach) = (0u64, start);
        for (a, b) in held {
            let a = a.max(reach);
            if b > a {
                covered += b - a;
                reach = b;
            }
        }
        u64::from(len) - covered
    }

    /// Whether `len` bytes at `offset` overlap a region written in this replay.
    pub fn overlaps(&self, location: Location, offset: u32, len: u32) -> bool {
        let start = u64::from(offset);
        let end = start + u64::from(len);
        self.regions
            .iter()
            .any(|r| r.location == location && u64::from(r.offset) < end && r.end() > start)
    }
}

/// Guest memory with the rendered surfaces on top: a read wholly inside a rendered region
/// returns the rendered bytes, any other read the captured memory (a partial overlap is
/// counted, see [`SurfaceMemory::take_stale_reads`]).
pub struct Overlay<'a> {
    /// The captured memory the draw sees.
    pub base: &'a dyn GuestMemory,
    /// What the frame rendered so far.
    pub surfaces: &'a SurfaceMemory,
}

impl GuestMemory for Overlay<'_> {
    fn read(
        &self,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<std::borrow::Cow<'_, [u8]>> {
        if let Some(b) = self.surfaces.read_rendered(location, offset, len) {
            return Some(std::borrow::Cow::Borrowed(b));
        }
        if self.surfaces.overlaps(location, offset, len) {
            self.surfaces.stale_reads.fetch_add(1, Ordering::Relaxed);
        }
        self.base.read(location, offset, len)
    }

    fn read_held(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]> {
        if let Some(b) = self.surfaces.read_rendered(location, offset, len) {
            return Some(b);
        }
        if self.surfaces.overlaps(location, offset, len) {
            self.surfaces.stale_reads.fetch_add(1, Ordering::Relaxed);
        }
        self.base.read_held(location, offset, len)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn unheld_bytes_count_what_neither_the_capture_nor_the_render_holds() {
        // Captured 0x110..0x120, rendered 0x130..0x138: of 0x100..0x140, 0x100..0x110,
        // 0x120..0x130 and 0x138..0x140 are held by neither (40 bytes).
        let base = FlatMemory::at(Location::Local, 0x110, vec![1u8; 16]);
        let mut m = SurfaceMemory::new();
        m.range_mut(Location::Local, 0x130, 8, &base).unwrap();
        assert_eq!(m.unheld_bytes(Location::Local, 0x100, 0x40, &base), 40);
        assert_eq!(m.unheld_bytes(Location::Local, 0x110, 16, &base), 0);
        assert_eq!(m.unheld_bytes(Location::Main, 0x110, 16, &base), 16);
    }
    use super::*;
    use rsxtrace_capture::fetch::FlatMemory;

    #[test]
    fn lent_regions_are_written_in_place_and_given_back() {
        let base = FlatMemory::local((0..64).collect::<Vec<u8>>());
        let mut memory = SurfaceMemory::new();
        // An earlier render at 8..16, then two targets: 4..20 (overlapping it, so merged) and
        // 40..48 (its own region).
        memory
            .range_mut(Location::Local, 8, 8, &base)
            .unwrap()
            .fill(0xAA);
        let ranges = [(Location::Local, 4, 16), (Location::Local, 40, 8)];
        let (mut lent, places) = memory.lend(&ranges, &base).unwrap();
        assert_eq!(places.len(), 2);
        assert_ne!(places[0].0, places[1].0);
        // While lent, the bytes are absent from the surface memory.
        assert!(memory.read_rendered(Location::Local, 4, 16).is_none());
        let (r, from) = places[0];
        let first = &mut lent.bytes_mut(r).unwrap()[from..from + 16];
        assert_eq!(
            &first[..4],
            &[4, 5, 6, 7],
            "captured bytes around the earlier render"
        );
        assert_eq!(&first[4..12], &[0xAA; 8], "the earlier render kept");
        first[0] = 0x11;
        let (r, from) = places[1];
        lent.bytes_mut(r).unwrap()[from + 7] = 0x22;
        memory.give_back(lent);
        let back = memory.read_rendered(Location::Local, 4, 16).unwrap();
        assert_eq!(back[0], 0x11);
        assert_eq!(
            memory.read_rendered(Location::Local, 47, 1),
            Some(&[0x22u8][..])
        );
    }

    #[test]
    fn two_targets_in_one_region_share_it() {
        let base = FlatMemory::local(vec![0u8; 64]);
        let mut memory = SurfaceMemory::new();
        let ranges = [(Location::Local, 0, 32), (Location::Local, 16, 8)];
        let (mut lent, places) = memory.lend(&ranges, &base).unwrap();
        assert_eq!(places[0].0, places[1].0);
        assert_eq!(places[1].1 - places[0].1, 16);
        lent.bytes_mut(places[1].0).unwrap()[places[1].1] = 7;
        memory.give_back(lent);
        assert_eq!(
            memory.read_rendered(Location::Local, 16, 1),
            Some(&[7u8][..])
        );
        // A range past the address space lends nothing.
        assert!(memory
            .lend(&[(Location::Local, u32::MAX, 2)], &base)
            .is_none());
    }
    /// Captured memory holding one block, `bytes` at `at`, that names it to `visible_blocks`.
    struct OneBlock {
        at: u32,
        bytes: Vec<u8>,
    }

    impl GuestMemory for OneBlock {
        fn read(&self, _: Location, offset: u32, len: u32) -> Option<std::borrow::Cow<'_, [u8]>> {
            let from = offset.checked_sub(self.at)? as usize;
            self.bytes
                .get(from..from.checked_add(len as usize)?)
                .map(std::borrow::Cow::Borrowed)
        }

        fn visible_blocks(
            &self,
            _: Location,
            _: u32,
            _: u32,
        ) -> Option<rsxtrace_capture::fetch::VisibleBlocks<'_>> {
            rsxtrace_capture::fetch::VisibleBlocks::new(vec![
                rsxtrace_capture::fetch::VisibleBlock {
                    offset: u64::from(self.at),
                    bytes: &self.bytes,
                },
            ])
        }
    }

    #[test]
    fn a_range_the_capture_holds_in_part_keeps_the_part_it_holds() {
        // The capture holds bytes 4..12 of 0..16: a region over all of it takes those bytes
        // and zeros around them (not zeros for the whole row-sized piece).
        let base = OneBlock {
            at: 4,
            bytes: (1..=8).collect(),
        };
        let mut memory = SurfaceMemory::new();
        let region = memory.range_mut(Location::Local, 0, 16, &base).unwrap();
        let mut want = [0u8; 16];
        want[4..12].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&region[..], &want[..]);
    }
}
