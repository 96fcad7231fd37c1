//! The bytes of a range as one draw sees them, and the captured slices they are made of.
//!
//! The frame model reads a range byte by byte from the newest block that holds each byte
//! (`rsxtrace_capture::frame::memory`), borrowing one block's bytes when it holds the whole
//! range and assembling them otherwise. Captures often hold one buffer in several overlapping
//! blocks (RPCS3 attaches each vertex array's range on its own, so an interleaved buffer comes
//! as one block per attribute, offset by a few bytes). [`pieces`] names the slices of the
//! captured blocks a range is made of: the range is split in halves until every piece comes
//! from one block, so that equal ranges of many draws are recognised by their slices without
//! reading them.

use rsxtrace_capture::frame::MemoryIndex;
use rsxtrace_capture::rrc::Location;
use std::borrow::Cow;

/// The slices that make up `len` bytes at `offset` seen by command `command` (one when a
/// block holds the whole range), or `None` when some byte is not in the capture.
pub fn pieces(
    index: &MemoryIndex,
    command: usize,
    location: Location,
    offset: u32,
    len: u64,
) -> Option<Vec<&[u8]>> {
    let whole = u32::try_from(len).ok()?;
    if u64::from(offset) + len > 1 << 32 {
        return None;
    }
    let mut out = Vec::new();
    split(index, command, location, offset, whole, &mut out)?;
    Some(out)
}

fn split<'a>(
    index: &'a MemoryIndex,
    command: usize,
    location: Location,
    offset: u32,
    len: u32,
    out: &mut Vec<&'a [u8]>,
) -> Option<()> {
    match index.read_at(command, location, offset, len)? {
        Cow::Borrowed(bytes) => {
            out.push(bytes);
            return Some(());
        }
        // Assembled from several blocks: split until each piece is one block's.
        Cow::Owned(_) if len > 1 => {}
        Cow::Owned(_) => return None,
    }
    let half = len / 2;
    split(index, command, location, offset, half, out)?;
    split(index, command, location, offset + half, len - half, out)
}

/// The `len` bytes at `offset` seen by command `command`, or `None` when some byte is not in
/// the capture.
pub fn read_range<'a>(
    index: &'a MemoryIndex,
    command: usize,
    location: Location,
    offset: u32,
    len: u64,
) -> Option<Cow<'a, [u8]>> {
    if u64::from(offset) + len > 1 << 32 {
        return None;
    }
    index.read_at(command, location, offset, u32::try_from(len).ok()?)
}

/// Whether command `command` sees `expected` at `offset`.
pub fn sees(
    index: &MemoryIndex,
    command: usize,
    location: Location,
    offset: u32,
    expected: &[u8],
) -> bool {
    let Some(parts) = pieces(index, command, location, offset, expected.len() as u64) else {
        return false;
    };
    let mut rest = expected;
    for part in parts {
        let Some((head, tail)) = rest.split_at_checked(part.len()) else {
            return false;
        };
        if head != part {
            return false;
        }
        rest = tail;
    }
    rest.is_empty()
}

/// What decides the bytes of a range as one command sees them, without reading them: the
/// captured slices they are made of (blocks attached many times share one buffer, so equal
/// keys mean equal bytes), or, when some byte is missing, the range and the command.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BytesKey {
    /// The slices (address and length of each) the range is read from.
    Slices(Vec<(usize, usize)>),
    /// Not all in the capture: unique to the range and the command.
    Missing(Location, u32, u64, usize),
}

/// The [`BytesKey`] of `len` bytes at `offset` seen by command `command`.
pub fn bytes_key(
    index: &MemoryIndex,
    command: usize,
    location: Location,
    offset: u32,
    len: u64,
) -> BytesKey {
    match pieces(index, command, location, offset, len) {
        Some(parts) => BytesKey::Slices(
            parts
                .iter()
                .map(|p| (p.as_ptr() as usize, p.len()))
                .collect(),
        ),
        None => BytesKey::Missing(location, offset, len, command),
    }
}
