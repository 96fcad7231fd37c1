//! Container parse errors: every error names the byte offset (from the start of the container
//! buffer) and the field being read when the input was refused.

use serde::Serialize;

/// A container was refused. `offset` is a byte offset from the start of the buffer given to the
/// parser; `field` names the header field, table entry or string being read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{kind} at byte offset {offset} ({field})")]
pub struct ContainerError {
    /// Byte offset (from the start of the container) where the problem was found.
    pub offset: u64,
    /// The field, table entry or string being read.
    pub field: &'static str,
    /// What went wrong.
    pub kind: ContainerErrorKind,
}

impl ContainerError {
    /// Builds an error at `offset` while reading `field`.
    pub fn new(offset: u64, field: &'static str, kind: ContainerErrorKind) -> Self {
        Self {
            offset,
            field,
            kind,
        }
    }
}

/// The kinds of refusal. Truncated input, out-of-range offsets and unknown formats are kept
/// apart so that a bad file never looks like a gap in the parser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[non_exhaustive]
pub enum ContainerErrorKind {
    /// The buffer ends before a fixed-size field does.
    #[error("truncated: {needed} bytes needed, {available} available")]
    Truncated {
        /// Bytes the field needs.
        needed: u64,
        /// Bytes left in the buffer from the field's offset.
        available: u64,
    },
    /// An offset or offset + size stored in the file points past the usable bytes.
    #[error("offset/size {value:#x} is out of bounds (limit {limit:#x})")]
    OutOfBounds {
        /// The offending offset (or end of the referenced range).
        value: u64,
        /// The first byte past the usable region.
        limit: u64,
    },
    /// A count times its element size does not fit in the bytes that remain.
    #[error(
        "count {count} of {element_size}-byte elements exceeds the {available} bytes available"
    )]
    CountTooLarge {
        /// The count read from the file.
        count: u64,
        /// Size of one element in bytes.
        element_size: u64,
        /// Bytes available for the array.
        available: u64,
    },
    /// A string offset points at bytes with no NUL terminator before the limit.
    #[error("string is not NUL-terminated before {limit:#x}")]
    UnterminatedString {
        /// The first byte past the region the string must end in.
        limit: u64,
    },
    /// A value must be a multiple of `align`.
    #[error("value {value:#x} is not a multiple of {align}")]
    Misaligned {
        /// The offending value.
        value: u64,
        /// Required alignment in bytes.
        align: u64,
    },
    /// The header names a profile or revision this parser does not know.
    #[error("unsupported {what} {value:#x}")]
    Unsupported {
        /// What the value is (profile, revision...).
        what: &'static str,
        /// The value found.
        value: u64,
    },
    /// A field holds a value that contradicts the rest of the container.
    #[error("invalid value {value:#x}: {reason}")]
    Invalid {
        /// The value found.
        value: u64,
        /// Why it is refused.
        reason: &'static str,
    },
    /// The bytes are none of the known container formats.
    #[error("not a CgBinaryProgram or PSL1GHT program container")]
    UnknownFormat,
    /// There are no bytes at all.
    #[error("the file is empty (a program has at least one 16-byte instruction)")]
    Empty,
}
