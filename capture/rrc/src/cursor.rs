//! A bounded little-endian reader over the decompressed stream: fixed-size scalars, LEB128
//! varints and checked sub-slices. Every read names the offset where it failed; nothing panics.

use crate::error::RrcError;

/// Reader over a byte slice; `pos` is the offset of the next byte.
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, pos: 0 }
    }

    /// Offset of the next byte to read.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.pos as u64
    }

    #[cold]
    fn truncated(&self, what: &'static str, needed: usize) -> RrcError {
        RrcError::Truncated {
            offset: self.pos as u64,
            what,
            needed: needed as u64,
            available: self.remaining() as u64,
        }
    }

    /// Take the next `n` bytes.
    #[inline]
    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], RrcError> {
        match self.buf.get(self.pos..).and_then(|rest| rest.get(..n)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.truncated(what, n)),
        }
    }

    /// Take exactly `N` bytes as an array.
    #[inline]
    pub(crate) fn array<const N: usize>(
        &mut self,
        what: &'static str,
    ) -> Result<[u8; N], RrcError> {
        let s = self.take(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    #[inline]
    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, RrcError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    #[inline]
    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64, RrcError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    #[inline]
    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, RrcError> {
        Ok(self.array::<1>(what)?[0])
    }

    /// Unsigned LEB128 (`utils::serial` "VLE", rrc-format.md 1.2): 7 bits per byte, low group
    /// first, high bit = more. At most 10 bytes; the 10th may only carry bit 63. Overlong
    /// encodings (a final 0x00 group after the first byte) are refused, as RPCS3 never writes them.
    #[inline]
    pub(crate) fn varint(&mut self, what: &'static str) -> Result<u64, RrcError> {
        let start = self.pos;
        // Fast path: one byte.
        if let Some(&b) = self.buf.get(start) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        let mut value: u64 = 0;
        for i in 0..10usize {
            let Some(&b) = self.buf.get(start + i) else {
                return Err(RrcError::Truncated {
                    offset: (start + i) as u64,
                    what,
                    needed: 1,
                    available: 0,
                });
            };
            let group = u64::from(b & 0x7F);
            if i == 9 && b > 1 {
                return Err(RrcError::BadVarint {
                    offset: start as u64,
                    reason: "value does not fit in 64 bits",
                });
            }
            value |= group << (7 * i);
            if b & 0x80 == 0 {
                if b == 0 && i > 0 {
                    return Err(RrcError::BadVarint {
                        offset: start as u64,
                        reason: "overlong encoding",
                    });
                }
                self.pos = start + i + 1;
                return Ok(value);
            }
        }
        Err(RrcError::BadVarint {
            offset: start as u64,
            reason: "longer than 10 bytes",
        })
    }

    /// Check that `count` items of at least `min_size` bytes each can fit in what remains;
    /// `at` is the offset of the count itself (named in the error). Returns the count as usize.
    #[inline]
    pub(crate) fn check_count(
        &self,
        count: u64,
        min_size: usize,
        what: &'static str,
        at: u64,
    ) -> Result<usize, RrcError> {
        let need = u128::from(count) * min_size as u128;
        if need > self.remaining() as u128 {
            return Err(RrcError::CountTooLarge {
                offset: at,
                what,
                count,
                min_bytes: need,
                available: self.remaining() as u64,
            });
        }
        // need <= remaining <= usize::MAX, so count fits (min_size >= 1 at every call site).
        usize::try_from(count).map_err(|_| RrcError::CountTooLarge {
            offset: at,
            what,
            count,
            min_bytes: need,
            available: self.remaining() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(bytes: &[u8]) -> Result<(u64, usize), RrcError> {
        let mut c = Cursor::new(bytes);
        let x = c.varint("test")?;
        Ok((x, c.pos()))
    }

    #[test]
    fn varint_examples_from_spec() {
        assert_eq!(v(&[0x00]).unwrap(), (0, 1));
        assert_eq!(v(&[0x7F]).unwrap(), (127, 1));
        assert_eq!(v(&[0x80, 0x01]).unwrap(), (128, 2));
        assert_eq!(v(&[0xAC, 0x02]).unwrap(), (300, 2));
        // Trailing bytes are left alone.
        assert_eq!(v(&[0xAC, 0x02, 0xFF]).unwrap(), (300, 2));
    }

    #[test]
    fn varint_max_is_ten_bytes() {
        let max = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01];
        assert_eq!(v(&max).unwrap(), (u64::MAX, 10));
        // 2^63 exactly.
        let b63 = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01];
        assert_eq!(v(&b63).unwrap(), (1u64 << 63, 10));
    }

    #[test]
    fn varint_overflow_and_overlong_refused() {
        // 10th byte carrying more than bit 63.
        let over = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02];
        assert!(matches!(
            v(&over),
            Err(RrcError::BadVarint { offset: 0, .. })
        ));
        // 11 bytes.
        let eleven = [
            0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
        ];
        assert!(matches!(
            v(&eleven),
            Err(RrcError::BadVarint { offset: 0, .. })
        ));
        // Overlong zero and overlong 1.
        assert!(matches!(v(&[0x80, 0x00]), Err(RrcError::BadVarint { .. })));
        assert!(matches!(
            v(&[0x81, 0x80, 0x00]),
            Err(RrcError::BadVarint { .. })
        ));
    }

    #[test]
    fn varint_truncated_names_offset() {
        let err = v(&[0x80, 0x80]).unwrap_err();
        assert!(
            matches!(err, RrcError::Truncated { offset: 2, .. }),
            "{err}"
        );
        assert!(matches!(v(&[]), Err(RrcError::Truncated { offset: 0, .. })));
    }

    #[test]
    fn scalars_are_little_endian_and_bounded() {
        let mut c = Cursor::new(&[0x78, 0x56, 0x34, 0x12, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(c.u32("a").unwrap(), 0x1234_5678);
        let err = c.u64("b").unwrap_err();
        assert!(matches!(
            err,
            RrcError::Truncated {
                offset: 4,
                needed: 8,
                available: 7,
                ..
            }
        ));
        assert_eq!(c.pos(), 4, "a failed read consumes nothing");
    }

    #[test]
    fn check_count_refuses_absurd_counts() {
        let c = Cursor::new(&[0u8; 100]);
        assert_eq!(c.check_count(4, 25, "x", 0).unwrap(), 4);
        assert!(c.check_count(5, 25, "x", 0).is_err());
        assert!(c.check_count(u64::MAX, 25, "x", 0).is_err());
        assert!(c.check_count(1 << 40, 1, "x", 0).is_err());
    }
}
