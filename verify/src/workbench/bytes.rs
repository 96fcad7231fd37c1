//! The bytes of a range as one draw sees them, even when no single block holds the whole range.
//!
//! The frame model reads a range from the newest block that overlaps it and gives nothing when
//! that block holds only part of it (`rsxtrace_capture::frame::memory`). Captures often hold
//! one buffer in several overlapping blocks (RPCS3 attaches each vertex array's range on its
//! own, so an interleaved buffer comes as one block per attribute, offset by a few bytes). A
//! buffer region is then read piece by piece: the range is split in halves until every piece
//! comes from one block, each piece by the frame model's rule.

use rsxtrace_capture::frame::MemoryIndex;
use rsxtrace_capture::rrc::Location;
use std::borrow::Cow;

/// The `len` bytes at `offset` seen by command `command`, or `None` when some byte is not in
/// the capture.
pub fn read_range<'a>(
    index: &'a MemoryIndex,
    command: usize,
    location: Location,
    offset: u32,
    len: u64,
) -> Option<Cow<'a, [u8]>> {
    let whole = u32::try_from(len).ok()?;
    if u64::from(offset) + len > 1 << 32 {
        return None;
    }
    if let Some(bytes) = index.read_at(command, location, offset, whole) {
        return Some(Cow::Borrowed(bytes));
    }
    if len <= 1 {
        return None;
    }
    let mut out = Vec::with_capacity(len as usize);
    pieces(index, command, location, offset, whole, &mut out)?;
    Some(Cow::Owned(out))
}

fn pieces(
    index: &MemoryIndex,
    command: usize,
    location: Location,
    offset: u32,
    len: u32,
    out: &mut Vec<u8>,
) -> Option<()> {
    if let Some(bytes) = index.read_at(command, location, offset, len) {
        out.extend_from_slice(bytes);
        return Some(());
    }
    if len <= 1 {
        return None;
    }
    let half = len / 2;
    pieces(index, command, location, offset, half, out)?;
    pieces(index, command, location, offset + half, len - half, out)
}

/// Whether command `command` sees `expected` at `offset`.
pub fn sees(
    index: &MemoryIndex,
    command: usize,
    location: Location,
    offset: u32,
    expected: &[u8],
) -> bool {
    read_range(index, command, location, offset, expected.len() as u64)
        .is_some_and(|b| *b == *expected)
}
