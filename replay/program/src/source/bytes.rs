//! Bounds-checked integer reads over untrusted bytes: every read returns `None` past the end
//! instead of panicking, and offsets are `u64` so that file-supplied values cannot overflow.

/// The `n` bytes at `offset`, when they all lie inside `bytes`.
pub(crate) fn get(bytes: &[u8], offset: u64, n: usize) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    bytes.get(start..start.checked_add(n)?)
}

fn array<const N: usize>(bytes: &[u8], offset: u64) -> Option<[u8; N]> {
    get(bytes, offset, N)?.try_into().ok()
}

/// Big-endian `u16` at `offset`.
pub(crate) fn be_u16(bytes: &[u8], offset: u64) -> Option<u16> {
    array(bytes, offset).map(u16::from_be_bytes)
}

/// Big-endian `u32` at `offset`.
pub(crate) fn be_u32(bytes: &[u8], offset: u64) -> Option<u32> {
    array(bytes, offset).map(u32::from_be_bytes)
}

/// Big-endian `u64` at `offset`.
pub(crate) fn be_u64(bytes: &[u8], offset: u64) -> Option<u64> {
    array(bytes, offset).map(u64::from_be_bytes)
}

/// Little-endian `u16` at `offset`.
pub(crate) fn le_u16(bytes: &[u8], offset: u64) -> Option<u16> {
    array(bytes, offset).map(u16::from_le_bytes)
}

/// Little-endian `u32` at `offset`.
pub(crate) fn le_u32(bytes: &[u8], offset: u64) -> Option<u32> {
    array(bytes, offset).map(u32::from_le_bytes)
}

/// Little-endian `u64` at `offset`.
pub(crate) fn le_u64(bytes: &[u8], offset: u64) -> Option<u64> {
    array(bytes, offset).map(u64::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_at_the_end_without_panicking() {
        let b = [1u8, 2, 3, 4, 5];
        assert_eq!(be_u32(&b, 0), Some(0x0102_0304));
        assert_eq!(le_u32(&b, 1), Some(0x0504_0302));
        assert_eq!(be_u32(&b, 2), None);
        assert_eq!(be_u64(&b, u64::MAX), None);
        assert_eq!(get(&b, 5, 0), Some(&[][..]));
        assert_eq!(get(&b, 6, 0), None);
    }
}
