//! The compression wrapper: recognise gzip, zstd or none by content (rrc-format.md 1.1
//! recommends sniffing, because files from 2023-11-09..15 were gzipped but named `.rrc`), and
//! decompress in one pass into a single buffer sized from the container's own size hint.

use std::io::Read;

use crate::error::RrcError;
use crate::model::Compression;

/// gzip member magic (RFC 1952 2.3.1).
const GZIP_MAGIC: [u8; 2] = [0x1F, 0x8B];
/// zstd frame magic 0xFD2FB528, little-endian (RFC 8878 3.1.1).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// Never pre-allocate more than this from a size hint (the hint is untrusted).
const HINT_CAP_ABSOLUTE: u64 = 4 << 30;
/// Never pre-allocate more than this multiple of the compressed size from a size hint.
const HINT_CAP_RATIO: u64 = 64;

/// Recognise the wrapper from the first bytes.
pub fn sniff(bytes: &[u8]) -> Compression {
    if bytes.starts_with(&GZIP_MAGIC) {
        Compression::Gzip
    } else if bytes.starts_with(&ZSTD_MAGIC) {
        Compression::Zstd
    } else {
        Compression::None
    }
}

/// Bound an untrusted decompressed-size hint: min(hint, 64 x compressed size, 4 GiB).
pub(crate) fn bounded_hint(hint: u64, compressed_len: usize) -> usize {
    let cap = (compressed_len as u64)
        .saturating_mul(HINT_CAP_RATIO)
        .min(HINT_CAP_ABSOLUTE);
    usize::try_from(hint.min(cap)).unwrap_or(0)
}

/// The gzip ISIZE trailer (last 4 bytes, LE, size mod 2^32) of the last member.
fn gzip_isize(bytes: &[u8]) -> u64 {
    match bytes.len().checked_sub(4).and_then(|s| bytes.get(s..)) {
        Some(t) if bytes.len() >= 18 => u64::from(u32::from_le_bytes([t[0], t[1], t[2], t[3]])),
        _ => 0,
    }
}

/// Decompress a whole gzip stream (every member, like `gzip -dc`).
pub fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, RrcError> {
    let mut out = Vec::with_capacity(bounded_hint(gzip_isize(bytes), bytes.len()));
    flate2::bufread::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| RrcError::Decompress {
            compression: Compression::Gzip,
            message: e.to_string(),
        })?;
    Ok(out)
}

/// Decompress a whole zstd stream (every frame).
pub fn unzstd(bytes: &[u8]) -> Result<Vec<u8>, RrcError> {
    let hint = zstd::zstd_safe::get_frame_content_size(bytes)
        .ok()
        .flatten()
        .unwrap_or(0);
    let mut out = Vec::with_capacity(bounded_hint(hint, bytes.len()));
    let err = |e: std::io::Error| RrcError::Decompress {
        compression: Compression::Zstd,
        message: e.to_string(),
    };
    zstd::stream::read::Decoder::with_buffer(bytes)
        .map_err(err)?
        .read_to_end(&mut out)
        .map_err(err)?;
    Ok(out)
}

/// Decompress a whole gzip (every member) or zstd (every frame) stream read from `input`,
/// appending to `out` (sized by the caller).
pub(crate) fn decode_into(
    input: &mut dyn Read,
    compression: Compression,
    out: &mut Vec<u8>,
) -> Result<(), RrcError> {
    let err = |e: std::io::Error| RrcError::Decompress {
        compression,
        message: e.to_string(),
    };
    match compression {
        Compression::Gzip => flate2::read::MultiGzDecoder::new(input)
            .read_to_end(out)
            .map_err(err)?,
        Compression::Zstd => zstd::stream::read::Decoder::new(input)
            .map_err(err)?
            .read_to_end(out)
            .map_err(err)?,
        Compression::None => input.read_to_end(out).map_err(err)?,
    };
    Ok(())
}

/// Decompress according to `compression`; `None` copies the bytes.
pub fn decompress(bytes: &[u8], compression: Compression) -> Result<Vec<u8>, RrcError> {
    match compression {
        Compression::Gzip => gunzip(bytes),
        Compression::Zstd => unzstd(bytes),
        Compression::None => Ok(bytes.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniff_by_content() {
        assert_eq!(sniff(&[0x1F, 0x8B, 8, 0]), Compression::Gzip);
        assert_eq!(sniff(&[0x28, 0xB5, 0x2F, 0xFD, 0]), Compression::Zstd);
        assert_eq!(sniff(b"RRC\0"), Compression::None);
        assert_eq!(sniff(&[0x1F]), Compression::None);
        assert_eq!(sniff(&[]), Compression::None);
    }

    #[test]
    fn hint_is_bounded() {
        assert_eq!(bounded_hint(1000, 100), 1000);
        assert_eq!(bounded_hint(u64::from(u32::MAX), 100), 6400);
        assert_eq!(bounded_hint(u64::MAX, usize::MAX / 2), (4usize << 30));
    }

    #[test]
    fn corrupt_streams_are_errors() {
        assert!(matches!(
            gunzip(&[0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3, 0xFF, 0xFF]),
            Err(RrcError::Decompress {
                compression: Compression::Gzip,
                ..
            })
        ));
        assert!(matches!(
            unzstd(&[0x28, 0xB5, 0x2F, 0xFD, 0xFF, 0xFF]),
            Err(RrcError::Decompress {
                compression: Compression::Zstd,
                ..
            })
        ));
    }
}
