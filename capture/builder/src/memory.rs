//! Guest memory placement: the two sparse byte spaces (RSX local memory and IO-mapped main
//! memory) that the builder reads when a draw attaches memory blocks.
//!
//! RPCS3 captures memory only when a draw uses it (rrc-format.md 3.3), so placing bytes here
//! records nothing by itself. Each space keeps non-overlapping, non-adjacent regions; a new
//! placement overwrites older bytes and merges with every region it touches, so one
//! contiguous placement (however it was built up) is always one region.

use std::collections::BTreeMap;

use rsxtrace_rrc::Location;

/// Size of each address space: offsets are 32-bit (rrc-format.md 1.4 `memory_block.offset`).
const SPACE_END: u64 = 1 << 32;

/// A read or placement that the placed memory cannot satisfy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// Part of the requested range was never placed.
    #[error(
        "{len} bytes of {} memory at offset {offset:#x} are needed, but the bytes from {missing_at:#x} on were never placed",
        location.name()
    )]
    Missing {
        /// Space that was read.
        location: Location,
        /// First byte requested.
        offset: u64,
        /// Bytes requested.
        len: u64,
        /// First requested byte that is not placed.
        missing_at: u64,
    },
    /// The range does not fit in the 32-bit address space.
    #[error(
        "{len} bytes of {} memory at offset {offset:#x} run past the 4 GiB address space",
        location.name()
    )]
    OutOfSpace {
        /// Space that was addressed.
        location: Location,
        /// First byte of the range.
        offset: u64,
        /// Length of the range.
        len: u64,
    },
}

/// One sparse address space.
#[derive(Debug, Default, Clone)]
struct Space {
    /// Region start -> bytes. Regions never overlap and never touch.
    regions: BTreeMap<u64, Vec<u8>>,
}

impl Space {
    fn put(&mut self, offset: u64, bytes: &[u8]) {
        let end = offset + bytes.len() as u64;
        // Every region that overlaps or touches [offset, end].
        let mut touching: Vec<u64> = Vec::new();
        if let Some((&start, data)) = self.regions.range(..offset).next_back() {
            if start + data.len() as u64 >= offset {
                touching.push(start);
            }
        }
        touching.extend(self.regions.range(offset..=end).map(|(&start, _)| start));

        let new_start = touching.first().map_or(offset, |&s| s.min(offset));
        let first_is_base = touching.first() == Some(&new_start);
        let mut base = if first_is_base {
            // The first touching region starts the merged one: extend it in place, which keeps
            // repeated appends linear.
            self.regions.remove(&new_start).unwrap_or_default()
        } else {
            Vec::new()
        };
        let mut merged_end = new_start + base.len() as u64;
        for &start in touching.iter().skip(usize::from(first_is_base)) {
            if let Some(data) = self.regions.remove(&start) {
                let rel = (start - new_start) as usize;
                let data_end = rel + data.len();
                if base.len() < data_end {
                    base.resize(data_end, 0);
                }
                base[rel..data_end].copy_from_slice(&data);
                merged_end = merged_end.max(start + data.len() as u64);
            }
        }
        merged_end = merged_end.max(end);
        let total = (merged_end - new_start) as usize;
        if base.len() < total {
            base.resize(total, 0);
        }
        let rel = (offset - new_start) as usize;
        base[rel..rel + bytes.len()].copy_from_slice(bytes);
        self.regions.insert(new_start, base);
    }

    /// The placed bytes from `offset` to the end of the region containing it (empty if none).
    fn contiguous(&self, offset: u64) -> &[u8] {
        match self.regions.range(..=offset).next_back() {
            Some((&start, data)) if start + data.len() as u64 > offset => {
                &data[(offset - start) as usize..]
            }
            _ => &[],
        }
    }
}

/// The builder's guest memory: one sparse space per location.
#[derive(Debug, Default, Clone)]
pub struct GuestMemory {
    local: Space,
    main: Space,
}

impl GuestMemory {
    /// An empty memory: nothing placed.
    pub fn new() -> GuestMemory {
        GuestMemory::default()
    }

    fn space(&self, location: Location) -> &Space {
        match location {
            Location::Local => &self.local,
            Location::Main => &self.main,
        }
    }

    /// Place `bytes` at `offset` in `location`, overwriting what was there.
    pub fn put(
        &mut self,
        location: Location,
        offset: u32,
        bytes: &[u8],
    ) -> Result<(), MemoryError> {
        let start = u64::from(offset);
        let len = bytes.len() as u64;
        if start + len > SPACE_END {
            return Err(MemoryError::OutOfSpace {
                location,
                offset: start,
                len,
            });
        }
        if bytes.is_empty() {
            return Ok(());
        }
        let space = match location {
            Location::Local => &mut self.local,
            Location::Main => &mut self.main,
        };
        space.put(start, bytes);
        Ok(())
    }

    /// The placed bytes from `offset` to the end of their region: what a scan that does not
    /// know its length in advance (the fragment program, rrc-format.md 4.9) may look at.
    pub fn contiguous(&self, location: Location, offset: u32) -> &[u8] {
        self.space(location).contiguous(u64::from(offset))
    }

    /// Exactly `len` placed bytes at `offset`, or an error naming the first missing byte.
    pub fn read(&self, location: Location, offset: u64, len: u64) -> Result<&[u8], MemoryError> {
        if offset.checked_add(len).is_none_or(|end| end > SPACE_END) {
            return Err(MemoryError::OutOfSpace {
                location,
                offset,
                len,
            });
        }
        let available = self.space(location).contiguous(offset);
        match usize::try_from(len) {
            Ok(n) if n <= available.len() => Ok(&available[..n]),
            _ => Err(MemoryError::Missing {
                location,
                offset,
                len,
                missing_at: offset + available.len() as u64,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_placements_form_one_region() {
        let mut m = GuestMemory::new();
        m.put(Location::Local, 0x100, &[1, 2, 3, 4]).unwrap();
        m.put(Location::Local, 0x104, &[5, 6]).unwrap();
        assert_eq!(m.read(Location::Local, 0x101, 5).unwrap(), &[2, 3, 4, 5, 6]);
        assert_eq!(m.contiguous(Location::Local, 0x100), &[1, 2, 3, 4, 5, 6]);
        // The other space is untouched.
        assert!(m.contiguous(Location::Main, 0x100).is_empty());
    }

    #[test]
    fn overlapping_placement_overwrites_and_bridges_regions() {
        let mut m = GuestMemory::new();
        m.put(Location::Main, 10, &[1, 1, 1]).unwrap(); // 10..13
        m.put(Location::Main, 20, &[2, 2, 2]).unwrap(); // 20..23
        m.put(Location::Main, 12, &[9; 9]).unwrap(); // 12..21 bridges both
        assert_eq!(
            m.read(Location::Main, 10, 13).unwrap(),
            &[1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 2, 2]
        );
        // A placement starting before an existing region.
        m.put(Location::Main, 8, &[7, 7, 7]).unwrap();
        assert_eq!(m.read(Location::Main, 8, 5).unwrap(), &[7, 7, 7, 1, 9]);
    }

    #[test]
    fn missing_bytes_are_named() {
        let mut m = GuestMemory::new();
        m.put(Location::Local, 0x1000, &[0; 16]).unwrap();
        assert_eq!(
            m.read(Location::Local, 0x1008, 16),
            Err(MemoryError::Missing {
                location: Location::Local,
                offset: 0x1008,
                len: 16,
                missing_at: 0x1010
            })
        );
        assert_eq!(
            m.read(Location::Local, 0x2000, 1),
            Err(MemoryError::Missing {
                location: Location::Local,
                offset: 0x2000,
                len: 1,
                missing_at: 0x2000
            })
        );
    }

    #[test]
    fn ranges_past_4gib_are_refused() {
        let mut m = GuestMemory::new();
        assert!(matches!(
            m.put(Location::Local, 0xFFFF_FFFF, &[1, 2]),
            Err(MemoryError::OutOfSpace { .. })
        ));
        m.put(Location::Local, 0xFFFF_FFFF, &[1]).unwrap();
        assert_eq!(m.read(Location::Local, 0xFFFF_FFFF, 1).unwrap(), &[1]);
        assert!(matches!(
            m.read(Location::Local, u64::MAX, 2),
            Err(MemoryError::OutOfSpace { .. })
        ));
    }
}
