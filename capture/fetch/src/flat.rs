//! [`FlatMemory`]: guest memory that is one run of bytes in one location, for memory that is
//! not a capture's (a texture or program read from a file, a pattern made in place, tests and
//! benches).

use crate::GuestMemory;
use rsxtrace_rrc::Location;
use std::borrow::Cow;

/// `bytes` at `offset` of `location`; every other byte is missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatMemory<B = Vec<u8>> {
    /// Where the bytes lie.
    pub location: Location,
    /// Offset of the first byte.
    pub offset: u32,
    /// The bytes.
    pub bytes: B,
}

impl<B> FlatMemory<B> {
    /// `bytes` from offset 0 of local memory.
    pub fn local(bytes: B) -> FlatMemory<B> {
        FlatMemory {
            location: Location::Local,
            offset: 0,
            bytes,
        }
    }

    /// `bytes` from `offset` of `location`.
    pub fn at(location: Location, offset: u32, bytes: B) -> FlatMemory<B> {
        FlatMemory {
            location,
            offset,
            bytes,
        }
    }
}

impl<B: AsRef<[u8]>> GuestMemory for FlatMemory<B> {
    fn read(&self, location: Location, offset: u32, len: u32) -> Option<Cow<'_, [u8]>> {
        (location == self.location).then_some(())?;
        let from = usize::try_from(offset.checked_sub(self.offset)?).ok()?;
        self.bytes
            .as_ref()
            .get(from..from.checked_add(usize::try_from(len).ok()?)?)
            .map(Cow::Borrowed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_its_bytes() {
        let m = FlatMemory::at(Location::Main, 0x100, vec![1u8, 2, 3, 4]);
        assert_eq!(
            m.read(Location::Main, 0x101, 2).as_deref(),
            Some(&[2u8, 3][..])
        );
        assert_eq!(m.read(Location::Main, 0x104, 0).as_deref(), Some(&[][..]));
        assert_eq!(m.read(Location::Main, 0xFF, 2), None);
        assert_eq!(m.read(Location::Main, 0x103, 2), None);
        assert_eq!(m.read(Location::Local, 0x100, 1), None);
        assert_eq!(m.read(Location::Main, u32::MAX, 1), None);
        let local = FlatMemory::local(&[9u8, 8][..]);
        assert_eq!(
            local.read(Location::Local, 1, 1).as_deref(),
            Some(&[8u8][..])
        );
    }
}
