//! File framing: the 8-byte magic, the format version constants, and the header check that
//! validates the Cap'n Proto segment table against the file length without reading the message.
//!
//! Layout (see `traces/schema/README.md`):
//!
//! | bytes | content |
//! |---|---|
//! | 0..8 | [`MAGIC`] `RSXTRACE` |
//! | 8.. | one unpacked Cap'n Proto message in standard stream framing: `u32` segment count - 1, one `u32` word count per segment, padding to 8 bytes, then the segments |
//!
//! Nothing may follow the message. Because the magic is 8 bytes, the message (and so every
//! segment) stays 8-byte aligned in a memory map, which the capnp reader requires.

use crate::TraceError;

/// The 8 bytes every trace file starts with.
pub const MAGIC: [u8; 8] = *b"RSXTRACE";

/// The format major version written in `Trace.majorVersion`; readers refuse any other.
pub const FORMAT_MAJOR: u32 = 1;

/// The format minor version written in `Trace.minorVersion` (raised when fields are appended).
pub const FORMAT_MINOR: u32 = 1;

/// Most segments a message may have (the capnp crate's `SEGMENTS_COUNT_LIMIT` is 512, exclusive).
const MAX_SEGMENTS: u64 = 511;

/// Whether `bytes` starts like a trace file (the 8-byte [`MAGIC`]). Cheap: looks at nothing else.
pub fn is_trace(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// What the header check learned about a trace file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// Total words in all segments (not counting the segment table).
    pub total_words: u64,
}

/// Check the magic and the segment table of a whole trace file, and that the message ends
/// exactly at the end of `file`. O(number of segments).
pub(crate) fn check_header(file: &[u8]) -> Result<Header, TraceError> {
    let magic_len = MAGIC.len();
    if !is_trace(file) {
        if MAGIC.starts_with(file) {
            return Err(TraceError::Truncated {
                offset: file.len() as u64,
                message: "shorter than the 8-byte magic".into(),
            });
        }
        return Err(TraceError::BadMagic {
            found: file.iter().take(magic_len).copied().collect(),
        });
    }
    let first = read_u32(file, magic_len, "segment count")?;
    let count = u64::from(first) + 1;
    if count > MAX_SEGMENTS {
        return Err(TraceError::Framing {
            offset: magic_len as u64,
            message: format!("{count} segments (at most {MAX_SEGMENTS} are allowed)"),
        });
    }
    let mut total_words: u64 = 0;
    for i in 0..count {
        // i < 512, so these offsets cannot overflow.
        let at = magic_len + 4 + 4 * i as usize;
        let words = read_u32(file, at, "segment table")?;
        total_words += u64::from(words);
    }
    // The table is 4 * (count + 1) bytes, padded to a multiple of 8.
    let table_bytes = (4 * (count + 1)).div_ceil(8) * 8;
    let message_start = magic_len as u64 + table_bytes;
    let message_end = message_start + total_words * 8;
    let len = file.len() as u64;
    if len < message_end {
        return Err(TraceError::Truncated {
            offset: len,
            message: format!(
                "the segment table announces {total_words} words, the message would end at byte {message_end}"
            ),
        });
    }
    if len > message_end {
        return Err(TraceError::TrailingBytes {
            offset: message_end,
            extra: len - message_end,
        });
    }
    Ok(Header { total_words })
}

/// Read a little-endian `u32` at `at`, or report where the input ran out.
fn read_u32(file: &[u8], at: usize, what: &str) -> Result<u32, TraceError> {
    let bytes = at
        .checked_add(4)
        .and_then(|end| file.get(at..end))
        .ok_or_else(|| TraceError::Truncated {
            offset: file.len() as u64,
            message: format!("{what} at byte {at}"),
        })?;
    let mut word = [0u8; 4];
    word.copy_from_slice(bytes);
    Ok(u32::from_le_bytes(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made file: magic, one segment of 1 word (table: count-1 = 0, size = 1), the word.
    fn one_word_file() -> Vec<u8> {
        let mut f = MAGIC.to_vec();
        f.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0]);
        f.extend_from_slice(&[0; 8]);
        f
    }

    #[test]
    fn header_of_a_hand_made_file() {
        assert_eq!(check_header(&one_word_file()).unwrap().total_words, 1);
    }

    #[test]
    fn two_segments_are_padded_to_eight_bytes() {
        // count-1 = 1, sizes 1 and 2, then 4 bytes of padding: table = 16 bytes.
        let mut f = MAGIC.to_vec();
        f.extend_from_slice(&[1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]);
        f.extend_from_slice(&[0; 24]);
        assert_eq!(check_header(&f).unwrap().total_words, 3);
        f.pop();
        assert!(matches!(
            check_header(&f),
            Err(TraceError::Truncated { offset: 47, .. })
        ));
    }

    #[test]
    fn magic_is_checked() {
        assert!(is_trace(b"RSXTRACE"));
        assert!(!is_trace(b"RSXTRAC"));
        assert!(!is_trace(b"RRC\0\x06\0\0\0\x01\0\0\0"));
        assert!(matches!(
            check_header(b"RRC\0\x06\0\0\0\x01\0\0\0"),
            Err(TraceError::BadMagic { .. })
        ));
        assert!(matches!(
            check_header(b"RSXT"),
            Err(TraceError::Truncated { offset: 4, .. })
        ));
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut f = one_word_file();
        f.push(0);
        assert!(matches!(
            check_header(&f),
            Err(TraceError::TrailingBytes {
                offset: 24,
                extra: 1
            })
        ));
    }

    #[test]
    fn too_many_segments_are_refused() {
        let mut f = MAGIC.to_vec();
        f.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            check_header(&f),
            Err(TraceError::Framing { offset: 8, .. })
        ));
    }
}
