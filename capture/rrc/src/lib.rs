//! RPCS3 RSX capture files: read every version (3, 4, 5, 6), write version 6.
//!
//! Brief overview:
//! - [`model`] holds [`Capture`], the version-independent in-memory form of a file.
//! - [`read_file`] / [`read_bytes`] recognise gzip, zstd or no compression by content (not by
//!   name), then parse the `utils::serial` family (v5, v6) or the cereal family (v3, v4).
//!   Every gzip member is read; bytes after the last one that start no member are ignored, as
//!   zlib and `gzip -d` ignore them. A decompression error names the compressed byte reached.
//! - [`write_v6`] writes a capture the way RPCS3's serializer does (one gzip member), as RPCS3
//!   HEAD reads it ([`rpcs3_form`]: one map entry per content, a constants block uploaded by
//!   commands; a 512-slot program of an older capture padded to 544 slots).
//!
//! Modules: `compression` (sniffing, one-pass decompression), `cursor` (bounded reads,
//! varints), [`regions`] (tile and Z-cull regions decoded from their packed words), `serial`
//! (v5/v6), `cereal` (v3/v4 and the v3 normalisation), `structs` (the fixed bitwise structs),
//! `tail` (register state), `writer` (v6 output), `error`.
//!
//! Memory blobs are never copied: the decompressed stream becomes one [`bytes::Bytes`] and each
//! `memory_data_map` entry is a slice of it.
//!
//! The byte layout is specified in `shared/reference/rrc-format.md`; every rule the code relies
//! on cites its section there.
//!
//! ```
//! let mut capture = rsxtrace_rrc::Capture::empty("demo");
//! capture.commands.push(rsxtrace_rrc::ReplayCommand { first: 0x40, ..Default::default() });
//! let file = rsxtrace_rrc::write_v6(&capture);
//! let back = rsxtrace_rrc::read_bytes(&file, "demo.rrc.gz").unwrap();
//! assert_eq!(back.commands, capture.commands);
//! assert_eq!(back.provenance.compression, rsxtrace_rrc::Compression::Gzip);
//! ```

mod cereal;
pub mod compression;
mod cursor;
mod error;
pub mod model;
mod parallel_gzip;
pub mod regions;
#[cfg(test)]
mod robustness;
pub mod rpcs3_form;
mod serial;
mod streaming;
mod structs;
mod tail;
mod writer;

pub use error::RrcError;
pub use model::*;
pub use regions::{compression_label, compression_name, TileRegion, ZcullRegion};
pub use writer::{write_v6, write_v6_uncompressed};

use std::path::Path;

use bytes::Bytes;
use sha2::{Digest, Sha256};

use cursor::Cursor;

/// `"RRC"_u32` as bytes: the v5/v6 magic (rrc-format.md 1.3).
const SERIAL_MAGIC: [u8; 4] = [0x52, 0x52, 0x43, 0x00];
/// `0x52524300` written LE: the v1-v4 cereal magic (rrc-format.md 2.2).
const CEREAL_MAGIC: [u8; 4] = [0x00, 0x43, 0x52, 0x52];
/// Whether `head` (the first bytes of a file) looks like an RPCS3 capture: gzip or zstd
/// compressed (judged by [`compression::sniff`]), or an uncompressed stream starting with
/// either family's magic. A cheap check for telling captures from other files; reading is what
/// proves a file valid.
pub fn looks_like_capture(head: &[u8]) -> bool {
    compression::sniff(head) != Compression::None
        || head.starts_with(&SERIAL_MAGIC)
        || head.starts_with(&CEREAL_MAGIC)
}

/// Below this many stored bytes, hashing on a second thread is not worth it.
const PARALLEL_HASH_MIN: usize = 1 << 20;

/// Everything after the header, common to both families.
pub(crate) struct Body {
    pub tiles: Vec<Entry<TileState>>,
    pub blocks: Vec<Entry<MemoryBlock>>,
    pub data: Vec<Entry<Bytes>>,
    pub display_buffers: Vec<Entry<DisplayBuffersState>>,
    pub commands: Vec<ReplayCommand>,
    pub reg_state: RegState,
}

/// Read a capture file from disk. The provenance records the file name without directories.
/// A compressed file is streamed: its compressed bytes are never all in memory, so reading
/// needs about the decompressed size (see `streaming`).
pub fn read_file(path: &Path) -> Result<Capture, RrcError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (compression, digest, stream) = streaming::read_path(path)?;
    from_stream(compression, digest, Bytes::from(stream), &name)
}

/// Read a capture from bytes as stored on disk (compressed or not). `source_name` is recorded in
/// the provenance.
pub fn read_bytes(raw: &[u8], source_name: &str) -> Result<Capture, RrcError> {
    fn sha256(bytes: &[u8]) -> [u8; 32] {
        Sha256::digest(bytes).into()
    }
    let compression = compression::sniff(raw);
    let (digest, stream) = match compression {
        Compression::None => (sha256(raw), Bytes::copy_from_slice(raw)),
        _ if raw.len() >= PARALLEL_HASH_MIN => std::thread::scope(|s| {
            let hasher = s.spawn(|| sha256(raw));
            let stream = compression::decompress(raw, compression);
            // The hashing thread cannot panic on any input; if it did, re-raise it here.
            let digest = hasher
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            stream.map(|v| (digest, Bytes::from(v)))
        })?,
        _ => (
            sha256(raw),
            Bytes::from(compression::decompress(raw, compression)?),
        ),
    };
    from_stream(compression, digest, stream, source_name)
}

/// The capture in a decompressed `stream`, with the stored file's provenance.
fn from_stream(
    compression: Compression,
    digest: [u8; 32],
    stream: Bytes,
    source_name: &str,
) -> Result<Capture, RrcError> {
    let (rrc_version, body) = parse_stream(&stream)?;
    Ok(Capture {
        provenance: Provenance {
            source_name: base_name(source_name).to_string(),
            rrc_version,
            compression,
            sha256: digest,
        },
        tiles: body.tiles,
        blocks: body.blocks,
        data: body.data,
        display_buffers: body.display_buffers,
        commands: body.commands,
        reg_state: body.reg_state,
    })
}

/// The file-name part of a path-like name (either separator).
fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// Parse a decompressed stream: header, then the family's body.
fn parse_stream(stream: &Bytes) -> Result<(u32, Body), RrcError> {
    let mut c = Cursor::new(stream);
    let magic = c.array::<4>("magic")?;
    match magic {
        SERIAL_MAGIC => {
            let version = c.u32("version")?;
            if !matches!(version, 5 | 6) {
                return Err(RrcError::UnsupportedVersion { offset: 4, version });
            }
            let le = c.u32("LE_format")?;
            if le != 1 {
                return Err(RrcError::BadLeFormat {
                    offset: 8,
                    value: le,
                });
            }
            Ok((version, serial::parse_body(&mut c, stream, version)?))
        }
        CEREAL_MAGIC => {
            let version = c.u32("version")?;
            if !matches!(version, 3 | 4) {
                return Err(RrcError::UnsupportedVersion { offset: 4, version });
            }
            Ok((version, cereal::parse_body(&mut c, stream, version)?))
        }
        other => Err(RrcError::BadMagic {
            offset: 0,
            found: other.to_vec(),
        }),
    }
}
