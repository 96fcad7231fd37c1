//! The compression wrapper: recognise gzip, zstd or none by content (rrc-format.md 1.1
//! recommends sniffing, because files from 2023-11-09..15 were gzipped but named `.rrc`), and
//! decompress in one pass into a single buffer sized from the container's own size hint.

use std::io::{BufRead, Read};

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

/// A reader that counts the bytes its consumer takes, so that a decompression error can name
/// the compressed byte the decoder had reached.
struct Counted<R> {
    inner: R,
    taken: u64,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.taken += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
        self.taken += n as u64;
    }
}

/// Decode every gzip member of `input` into `out`, as `gzip -dc` does. A member follows
/// another only where the next byte starts the gzip magic; bytes after the last member that
/// do not are ignored, as zlib (whose inflate RPCS3's reader stops at `Z_STREAM_END`, rrc-format.md
/// 1.1) and `gzip -d` ("trailing garbage ignored") ignore them.
fn gunzip_into(input: impl BufRead, out: &mut Vec<u8>) -> Result<(), RrcError> {
    let mut input = Counted {
        inner: input,
        taken: 0,
    };
    loop {
        let member = flate2::bufread::GzDecoder::new(&mut input).read_to_end(out);
        member.map_err(|e| decompress_error(Compression::Gzip, input.taken, e))?;
        let taken = input.taken;
        let next = input
            .fill_buf()
            .map_err(|e| decompress_error(Compression::Gzip, taken, e))?;
        if next.first() != Some(&GZIP_MAGIC[0]) {
            return Ok(());
        }
    }
}

/// Whether `next` starts a zstd frame or a skippable frame (magic 0x184D2A50..5F, RFC 8878
/// 3.1.2).
fn starts_zstd_frame(next: &[u8]) -> bool {
    next.starts_with(&ZSTD_MAGIC)
        || (next.len() >= 4 && next[0] & 0xF0 == 0x50 && next[1..4] == [0x2A, 0x4D, 0x18])
}

/// Decode every zstd frame of `input` into `out`. A frame follows another only where the
/// next bytes start one; bytes after the last frame that do not are ignored, as they are
/// after the last gzip member: RPCS3's zstd reader decompresses only as far as the capture's
/// own structure reads (`compressed_zstd_serialization_file_handler::read_at`), so it never
/// looks at them.
fn unzstd_into(input: impl BufRead, out: &mut Vec<u8>) -> Result<(), RrcError> {
    let mut input = Counted {
        inner: input,
        taken: 0,
    };
    loop {
        let frame = zstd::stream::read::Decoder::with_buffer(&mut input)
            .and_then(|d| d.single_frame().read_to_end(out));
        frame.map_err(|e| decompress_error(Compression::Zstd, input.taken, e))?;
        let taken = input.taken;
        let next = input
            .fill_buf()
            .map_err(|e| decompress_error(Compression::Zstd, taken, e))?;
        if !starts_zstd_frame(next) {
            return Ok(());
        }
    }
}

fn decompress_error(compression: Compression, offset: u64, e: std::io::Error) -> RrcError {
    RrcError::Decompress {
        compression,
        offset,
        message: e.to_string(),
    }
}

/// Decompress a whole gzip stream (every member, like `gzip -dc`; bytes after the last
/// member ignored).
pub fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, RrcError> {
    let mut out = Vec::with_capacity(bounded_hint(gzip_isize(bytes), bytes.len()));
    gunzip_into(bytes, &mut out)?;
    Ok(out)
}

/// Decompress a whole zstd stream (every frame; bytes after the last frame ignored).
pub fn unzstd(bytes: &[u8]) -> Result<Vec<u8>, RrcError> {
    let hint = zstd::zstd_safe::get_frame_content_size(bytes)
        .ok()
        .flatten()
        .unwrap_or(0);
    let mut out = Vec::with_capacity(bounded_hint(hint, bytes.len()));
    unzstd_into(bytes, &mut out)?;
    Ok(out)
}

/// Decompress a whole gzip (every member) or zstd (every frame) stream read from `input`,
/// appending to `out` (sized by the caller).
pub(crate) fn decode_into(
    input: &mut dyn Read,
    compression: Compression,
    out: &mut Vec<u8>,
) -> Result<(), RrcError> {
    let buffered = std::io::BufReader::with_capacity(1 << 16, input);
    match compression {
        Compression::Gzip => gunzip_into(buffered, out),
        Compression::Zstd => unzstd_into(buffered, out),
        Compression::None => {
            let mut input = buffered;
            input.read_to_end(out).map(drop).map_err(RrcError::Io)
        }
    }
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

    /// Frames are concatenated (a skippable frame between them adds nothing); bytes after the
    /// last frame that start none are ignored, as after the last gzip member (they made the
    /// whole file an error); a damaged frame after the first is still an error.
    #[test]
    fn zstd_frames_concatenate_and_trailing_bytes_are_ignored() {
        let a = zstd::encode_all(&b"first frame "[..], 3).unwrap();
        let b = zstd::encode_all(&b"second"[..], 3).unwrap();
        let skippable = [0x5A, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 0xAA, 0xBB];
        let joined = [a.as_slice(), &skippable, &b].concat();
        assert_eq!(unzstd(&joined).unwrap(), b"first frame second");
        for tail in [&b"garbage"[..], &[0u8; 3], &[0x28, 0xB5]] {
            let trailing = [joined.as_slice(), tail].concat();
            assert_eq!(
                unzstd(&trailing).unwrap(),
                b"first frame second",
                "{tail:?}"
            );
        }
        let damaged = [a.as_slice(), &[0x28, 0xB5, 0x2F, 0xFD, 0xFF, 0xFF]].concat();
        assert!(matches!(
            unzstd(&damaged),
            Err(RrcError::Decompress {
                compression: Compression::Zstd,
                ..
            })
        ));
    }
}
