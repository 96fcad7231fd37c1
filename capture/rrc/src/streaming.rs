//! Reading a compressed capture file without holding the compressed bytes: a second thread
//! reads the file in chunks and hashes them (the provenance's SHA-256 is of the stored bytes)
//! while the caller decompresses the chunks it hands over a bounded channel. Resident memory is
//! the decompressed stream (pre-sized from the container's size hint) plus a few chunks, instead
//! of the compressed file and the stream at once.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver};

use sha2::{Digest, Sha256};

use crate::compression::{self, sniff};
use crate::error::RrcError;
use crate::model::Compression;

/// Bytes per chunk read from the file.
const CHUNK: usize = 1 << 20;
/// Chunks in flight between the reading thread and the decoder.
const IN_FLIGHT: usize = 4;

/// The decoder's side of the channel: the chunks, in order, as one byte stream.
struct ChunkReader {
    chunks: Receiver<io::Result<Vec<u8>>>,
    current: Vec<u8>,
    pos: usize,
}

impl Read for ChunkReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            match self.chunks.recv() {
                Ok(Ok(chunk)) => {
                    self.current = chunk;
                    self.pos = 0;
                }
                Ok(Err(e)) => return Err(e),
                // The reading thread is done: end of file.
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..n + self.pos]);
        self.pos += n;
        Ok(n)
    }
}

/// The first `n` bytes of the file (fewer if it is shorter).
fn head(file: &mut File, n: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    file.by_ref().take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// The decompressed size the container announces: gzip's ISIZE trailer (size mod 2^32 of the
/// last member, RFC 1952 2.3.1), or the zstd frame header's content size (RFC 8878 3.1.1.1).
/// Untrusted: [`compression::bounded_hint`] bounds it before anything is allocated.
fn size_hint(file: &mut File, compression: Compression, head: &[u8]) -> io::Result<u64> {
    Ok(match compression {
        Compression::Gzip => {
            let len = file.metadata()?.len();
            if len < 18 {
                return Ok(0);
            }
            file.seek(SeekFrom::Start(len - 4))?;
            let mut t = [0u8; 4];
            file.read_exact(&mut t)?;
            u64::from(u32::from_le_bytes(t))
        }
        Compression::Zstd => zstd::zstd_safe::get_frame_content_size(head)
            .ok()
            .flatten()
            .unwrap_or(0),
        Compression::None => 0,
    })
}

/// Read the file at `path`: its compression (by content), the SHA-256 of its stored bytes, and
/// the decompressed stream. An uncompressed file is read as it is (the stream is the file).
pub fn read_path(path: &Path) -> Result<(Compression, [u8; 32], Vec<u8>), RrcError> {
    let mut file = File::open(path)?;
    let head = head(&mut file, 32)?;
    let compression = sniff(&head);
    if compression == Compression::None {
        drop(file);
        let stored = std::fs::read(path)?;
        let digest = Sha256::digest(&stored).into();
        return Ok((compression, digest, stored));
    }
    let stored_len = file.metadata()?.len();
    let hint = size_hint(&mut file, compression, &head)?;
    file.seek(SeekFrom::Start(0))?;
    let capacity = compression::bounded_hint(hint, usize::try_from(stored_len).unwrap_or(0));

    let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(IN_FLIGHT);
    std::thread::scope(|s| {
        let reader = s.spawn(move || {
            let mut hasher = Sha256::new();
            loop {
                let mut chunk = vec![0u8; CHUNK];
                let n = match read_full(&mut file, &mut chunk) {
                    Ok(n) => n,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return None;
                    }
                };
                if n == 0 {
                    return Some(hasher.finalize().into());
                }
                chunk.truncate(n);
                hasher.update(&chunk);
                if tx.send(Ok(chunk)).is_err() {
                    // The decoder stopped (an error): the digest is not needed.
                    return None;
                }
            }
        });
        let mut chunks = ChunkReader {
            chunks: rx,
            current: Vec::new(),
            pos: 0,
        };
        let mut stream = Vec::with_capacity(capacity);
        let decoded = compression::decode_into(&mut chunks, compression, &mut stream);
        // Whatever the decoder left unread (bytes after the last member or frame) is still
        // part of the stored file: drain it so the digest covers every byte.
        let drained =
            decoded.and_then(|()| io::copy(&mut chunks, &mut io::sink()).map_err(RrcError::Io));
        drop(chunks);
        let digest = reader
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        drained?;
        let digest = digest.ok_or_else(|| {
            RrcError::Io(io::Error::other("reading the file stopped before its end"))
        })?;
        Ok((compression, digest, stream))
    })
}

/// Fill `buf` from `file` as far as the file goes; the count read (0 at end of file).
fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
