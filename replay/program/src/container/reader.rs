//! Bounds-checked reads over an untrusted container buffer, big-endian unless the container
//! says otherwise. Every read either succeeds or returns a [`ContainerError`] naming the
//! offset and field; nothing here panics.

use super::error::{ContainerError, ContainerErrorKind};

/// The byte order of a container's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ByteOrder {
    /// As the PS3 and `sce-cgc` write them.
    Big,
    /// A `CgBinaryProgram` already swapped to the host's order ([`super::cg`]).
    Little,
}

/// A read-only view of a container buffer with checked accessors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    order: ByteOrder,
}

impl<'a> Reader<'a> {
    /// Big-endian reads.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self::with_order(bytes, ByteOrder::Big)
    }

    /// Reads in `order`.
    pub(crate) fn with_order(bytes: &'a [u8], order: ByteOrder) -> Self {
        Self { bytes, order }
    }

    /// The same bytes read in `order`.
    pub(crate) fn in_order(&self, order: ByteOrder) -> Self {
        Self::with_order(self.bytes, order)
    }

    pub(crate) fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The `len` bytes at `offset`, or a `Truncated` error.
    pub(crate) fn bytes(
        &self,
        offset: u64,
        len: u64,
        field: &'static str,
    ) -> Result<&'a [u8], ContainerError> {
        let available = self.len().saturating_sub(offset);
        let truncated = || {
            ContainerError::new(
                offset,
                field,
                ContainerErrorKind::Truncated {
                    needed: len,
                    available,
                },
            )
        };
        let start = usize::try_from(offset).map_err(|_| truncated())?;
        let n = usize::try_from(len).map_err(|_| truncated())?;
        let end = start.checked_add(n).ok_or_else(truncated)?;
        self.bytes.get(start..end).ok_or_else(truncated)
    }

    /// The `len` bytes at `offset` where `offset`/`len` came from the file itself and must lie
    /// within `limit` (the declared size); an `OutOfBounds` error names the field otherwise.
    pub(crate) fn range(
        &self,
        offset: u64,
        len: u64,
        limit: u64,
        field_offset: u64,
        field: &'static str,
    ) -> Result<&'a [u8], ContainerError> {
        let limit = limit.min(self.len());
        let end = offset.saturating_add(len);
        if end > limit {
            let value = if offset > limit { offset } else { end };
            return Err(ContainerError::new(
                field_offset,
                field,
                ContainerErrorKind::OutOfBounds { value, limit },
            ));
        }
        self.bytes(offset, len, field)
    }

    pub(crate) fn u8(&self, offset: u64, field: &'static str) -> Result<u8, ContainerError> {
        let b = self.bytes(offset, 1, field)?;
        Ok(b.first().copied().unwrap_or(0))
    }

    pub(crate) fn u16(&self, offset: u64, field: &'static str) -> Result<u16, ContainerError> {
        let b = self.bytes(offset, 2, field)?;
        let mut a = [0u8; 2];
        a.copy_from_slice(b);
        Ok(match self.order {
            ByteOrder::Big => u16::from_be_bytes(a),
            ByteOrder::Little => u16::from_le_bytes(a),
        })
    }

    pub(crate) fn u32(&self, offset: u64, field: &'static str) -> Result<u32, ContainerError> {
        let b = self.bytes(offset, 4, field)?;
        let mut a = [0u8; 4];
        a.copy_from_slice(b);
        Ok(match self.order {
            ByteOrder::Big => u32::from_be_bytes(a),
            ByteOrder::Little => u32::from_le_bytes(a),
        })
    }

    pub(crate) fn i32(&self, offset: u64, field: &'static str) -> Result<i32, ContainerError> {
        self.u32(offset, field).map(|v| v as i32)
    }

    pub(crate) fn f32(&self, offset: u64, field: &'static str) -> Result<f32, ContainerError> {
        self.u32(offset, field).map(f32::from_bits)
    }

    /// Checks that `count` elements of `element_size` bytes starting at `offset` fit below
    /// `limit` **before** anything is allocated for them.
    pub(crate) fn check_array(
        &self,
        offset: u64,
        count: u64,
        element_size: u64,
        limit: u64,
        field_offset: u64,
        field: &'static str,
    ) -> Result<(), ContainerError> {
        let limit = limit.min(self.len());
        if offset > limit {
            return Err(ContainerError::new(
                field_offset,
                field,
                ContainerErrorKind::OutOfBounds {
                    value: offset,
                    limit,
                },
            ));
        }
        let available = limit - offset;
        match count.checked_mul(element_size) {
            Some(total) if total <= available => Ok(()),
            _ => Err(ContainerError::new(
                field_offset,
                field,
                ContainerErrorKind::CountTooLarge {
                    count,
                    element_size,
                    available,
                },
            )),
        }
    }

    /// The NUL-terminated string at `offset`, which must end before `limit`. Invalid UTF-8 is
    /// replaced (names in these containers are ASCII).
    pub(crate) fn cstr(
        &self,
        offset: u64,
        limit: u64,
        field_offset: u64,
        field: &'static str,
    ) -> Result<String, ContainerError> {
        let limit = limit.min(self.len());
        if offset >= limit {
            return Err(ContainerError::new(
                field_offset,
                field,
                ContainerErrorKind::OutOfBounds {
                    value: offset,
                    limit,
                },
            ));
        }
        let region = self.bytes(offset, limit - offset, field)?;
        match region.iter().position(|&b| b == 0) {
            Some(n) => Ok(String::from_utf8_lossy(region.get(..n).unwrap_or(&[])).into_owned()),
            None => Err(ContainerError::new(
                offset,
                field,
                ContainerErrorKind::UnterminatedString { limit },
            )),
        }
    }
}
