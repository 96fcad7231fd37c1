//! One gzip member compressed by every core (pigz's scheme): the stream is cut into chunks,
//! each chunk is deflated on its own thread and ended with a sync flush (which closes its
//! last block on a byte boundary without marking it final), the last chunk with the final
//! block; the chunks' deflate streams laid end to end are one deflate stream, and the
//! member's CRC-32 and length are the whole stream's (RFC 1951 3.2.3, RFC 1952 2.3). A
//! single-member reader (RPCS3's, zlib's `gzread`) reads it as it reads zlib's output.
//!
//! Each chunk starts without the previous chunk's 32 KiB as a dictionary, so the file is a
//! little larger than one encoder's (under 1% at 1 MiB chunks on captures).

use flate2::{Compress, Compression, Crc, FlushCompress, Status};
use rayon::prelude::*;

/// Bytes per independently deflated chunk.
const CHUNK: usize = 1 << 20;

/// The gzip header zlib writes with mtime 0, no name, XFL 0 (levels 2 to 8) and the given OS
/// byte.
fn header(os: u8) -> [u8; 10] {
    [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, os]
}

/// A gzip member being written: bytes are staged and deflated a batch of chunks at a time.
pub(crate) struct ParallelGzip {
    out: Vec<u8>,
    pending: Vec<u8>,
    crc: Crc,
    level: Compression,
    /// Bytes staged before a batch is deflated: a chunk per thread, twice over.
    batch: usize,
}

impl ParallelGzip {
    /// A member at `level` with OS byte `os`, its output vector reserved for `capacity` bytes.
    pub(crate) fn new(level: u32, os: u8, capacity: usize) -> ParallelGzip {
        let mut out = Vec::with_capacity(capacity);
        out.extend_from_slice(&header(os));
        let batch = CHUNK * 2 * rayon::current_num_threads().max(1);
        ParallelGzip {
            out,
            pending: Vec::with_capacity(batch + CHUNK),
            crc: Crc::new(),
            level: Compression::new(level),
            batch,
        }
    }

    /// Append bytes of the stream.
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= self.batch {
            self.deflate_pending(false);
        }
    }

    /// Deflate the whole chunks staged (all of them, the last as the final block, when
    /// `last`).
    fn deflate_pending(&mut self, last: bool) {
        let whole = if last {
            self.pending.len()
        } else {
            self.pending.len() / CHUNK * CHUNK
        };
        let staged = &self.pending[..whole];
        self.crc.update(staged);
        let mut chunks: Vec<&[u8]> = staged.chunks(CHUNK).collect();
        if last && chunks.is_empty() {
            // The stream still needs its final (empty) block.
            chunks.push(&[]);
        }
        let n = chunks.len();
        let level = self.level;
        let deflated: Vec<Vec<u8>> = chunks
            .into_par_iter()
            .enumerate()
            .map(|(i, chunk)| deflate_chunk(chunk, level, last && i + 1 == n))
            .collect();
        for d in deflated {
            self.out.extend_from_slice(&d);
        }
        self.pending.drain(..whole);
    }

    /// The whole member: the rest deflated, then CRC-32 and length (mod 2^32).
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.deflate_pending(true);
        let (crc, len) = (self.crc.sum(), self.crc.amount());
        self.out.extend_from_slice(&crc.to_le_bytes());
        self.out.extend_from_slice(&len.to_le_bytes());
        self.out
    }
}

/// `data` as raw deflate: closed with a sync flush, or with the final block when `last`.
fn deflate_chunk(data: &[u8], level: Compression, last: bool) -> Vec<u8> {
    let mut c = Compress::new(level, false);
    let mut out = Vec::with_capacity(data.len() / 2 + 1024);
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    loop {
        if out.len() == out.capacity() {
            out.reserve(out.capacity().max(4096));
        }
        let consumed = usize::try_from(c.total_in()).unwrap_or(data.len());
        let status = c
            .compress_vec(&data[consumed.min(data.len())..], &mut out, flush)
            // Deflating from memory into memory cannot fail: errors only follow misuse.
            .expect("in-memory deflate");
        let done_in = usize::try_from(c.total_in()).unwrap_or(data.len()) >= data.len();
        match status {
            Status::StreamEnd => break,
            // A flush is complete when it returns with output space left.
            _ if !last && done_in && out.len() < out.capacity() => break,
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Bytes that compress somewhat: a counter mixed with noise.
    fn stream(len: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..len)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i % 7 == 0 {
                    x as u8
                } else {
                    (i / 64) as u8
                }
            })
            .collect()
    }

    #[test]
    fn one_member_that_single_member_readers_read_whole() {
        for len in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 5 * CHUNK + 12345] {
            let data = stream(len);
            let mut gz = ParallelGzip::new(8, 3, 0);
            // Written in uneven pieces, across batch and chunk boundaries.
            for piece in data.chunks(777_777) {
                gz.write(piece);
            }
            let bytes = gz.finish();
            assert_eq!(&bytes[..10], &header(3), "{len}");
            // GzDecoder reads one member only: all of the data must be in it.
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back.len(), data.len(), "{len}");
            assert!(back == data, "{len}: the data differ");
            let trailer = &bytes[bytes.len() - 8..];
            assert_eq!(
                u32::from_le_bytes(trailer[4..].try_into().unwrap()),
                len as u32
            );
        }
    }
}
