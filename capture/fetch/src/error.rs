//! Errors of vertex and index fetch: missing index memory (naming the range, the location and
//! the address range) and malformed vertex-array state. Attributes whose value was set before
//! the captured frame, or whose array elements the capture lacks, are not errors (see
//! [`crate::UnknownValues`]).

use rsxtrace_rrc::Location;
use thiserror::Error;

/// Why [`crate::fetch_draw`] could not produce the vertices of a draw.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FetchError {
    /// Index data the draw reads is not held by the capture.
    #[error("index range {range}: {len} bytes at {}+{offset:#010x} not in the capture", .location.name())]
    IndexMemory {
        /// Position of the `DRAW_INDEX_ARRAY` range in the draw.
        range: usize,
        location: Location,
        offset: u32,
        len: u32,
    },
    /// An index range whose byte length does not fit the 32-bit address space.
    #[error("index range {range}: {count} indices of {type_size} bytes exceed the address space")]
    IndexRangeTooLarge {
        range: usize,
        count: u32,
        type_size: u32,
    },
    /// An immediate-mode stream whose length is not the draw's vertex count.
    #[error(
        "attribute {attribute}: immediate-mode stream holds {len} values for {count} vertices"
    )]
    ImmediateStreamLength {
        attribute: u8,
        len: usize,
        count: u32,
    },
    /// `SET_VERTEX_DATA_ARRAY_FORMAT` size field outside 1..=4.
    #[error("attribute {attribute}: array size {size} is outside 1..=4")]
    InvalidSize { attribute: u8, size: u8 },
    /// An `INLINE_ARRAY` draw with no enabled vertex array, so no vertex layout.
    #[error("inline array draw with no enabled vertex array to give its layout")]
    InlineWithoutArrays,
    /// The draw submits more vertices than [`crate::MAX_VERTICES`].
    #[error("draw submits {count} vertices, more than the limit of {limit}")]
    TooManyVertices { count: u64, limit: u64 },
    /// The draw's attribute columns would be larger than [`crate::MAX_FETCH_BYTES`].
    #[error(
        "draw submits {count} vertices of {attributes} attributes: {} bytes of values, more than the limit of {}",
        u64::from(*count) * u64::from(*attributes) * 16,
        crate::MAX_FETCH_BYTES
    )]
    TooManyValues { count: u32, attributes: u8 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_stays_small() {
        // Returned on every fetch; keep it within three words.
        assert!(std::mem::size_of::<FetchError>() <= 24);
    }

    #[test]
    fn messages_name_location_and_address() {
        let e = FetchError::IndexMemory {
            range: 0,
            location: Location::Local,
            offset: 0xC0,
            len: 2,
        };
        assert_eq!(
            e.to_string(),
            "index range 0: 2 bytes at local+0x000000c0 not in the capture"
        );
    }
}
