//! The reader's error type: every variant that concerns the stream names the byte offset in the
//! decompressed stream where the problem was found.

use crate::model::Compression;

/// Everything that can go wrong reading a capture. Each error about the stream's content names
/// the byte offset in the decompressed stream where the problem was found.
#[derive(Debug, thiserror::Error)]
pub enum RrcError {
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// `offset`: the byte of the compressed file the decoder had read up to.
    #[error("at compressed byte {offset}: decompression failed ({compression:?}): {message}")]
    Decompress {
        compression: Compression,
        offset: u64,
        message: String,
    },
    #[error("at byte {offset}: {message}")]
    Malformed { offset: u64, message: String },
    #[error("at byte {offset}: unsupported capture version {version}")]
    UnsupportedVersion { offset: u64, version: u32 },
    /// The stream ended inside an item.
    #[error("at byte {offset}: truncated {what}: need {needed} bytes, {available} remain")]
    Truncated {
        offset: u64,
        what: &'static str,
        needed: u64,
        available: u64,
    },
    /// The first four bytes are neither `52 52 43 00` (v5/v6) nor `00 43 52 52` (v3/v4).
    #[error("at byte {offset}: not an RRC capture (magic {found:02x?})")]
    BadMagic { offset: u64, found: Vec<u8> },
    /// v5/v6 `LE_format` is not 1 (rrc-format.md 1.3).
    #[error("at byte {offset}: LE_format is {value}, expected 1 (little-endian writer)")]
    BadLeFormat { offset: u64, value: u32 },
    /// An LEB128 count longer than 10 bytes or larger than u64.
    #[error("at byte {offset}: invalid varint ({reason})")]
    BadVarint { offset: u64, reason: &'static str },
    /// A count that cannot fit in the bytes that remain (checked before allocating).
    #[error("at byte {offset}: {what} count {count} needs at least {min_bytes} bytes, {available} remain")]
    CountTooLarge {
        offset: u64,
        what: &'static str,
        count: u64,
        min_bytes: u128,
        available: u64,
    },
    /// The bytes after the replay commands match no known register-state tail (rrc-format.md 1.6).
    #[error("at byte {offset}: register-state tail of {remaining} bytes matches no known layout (expected {expected})")]
    BadTail {
        offset: u64,
        remaining: u64,
        expected: &'static str,
    },
}

impl RrcError {
    /// The byte offset in the decompressed stream this error names, if it concerns the stream.
    pub fn offset(&self) -> Option<u64> {
        match self {
            // A decompression error names a byte of the compressed file, not of the stream.
            RrcError::Io(_) | RrcError::Decompress { .. } => None,
            RrcError::Malformed { offset, .. }
            | RrcError::UnsupportedVersion { offset, .. }
            | RrcError::Truncated { offset, .. }
            | RrcError::BadMagic { offset, .. }
            | RrcError::BadLeFormat { offset, .. }
            | RrcError::BadVarint { offset, .. }
            | RrcError::CountTooLarge { offset, .. }
            | RrcError::BadTail { offset, .. } => Some(*offset),
        }
    }
}
