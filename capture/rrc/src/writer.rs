//! The version 6 writer: the byte layout RPCS3's `utils::serial` produces for
//! `rsx::frame_capture_data` (rrc-format.md 1.3), optionally wrapped in one gzip member at
//! level 8 as `compressed_serialization_file_handler` does (rrc-format.md 1.1).
//!
//! It writes whatever the model holds, in the model's order, so a v3/v4/v5 capture comes out as
//! v6 (v5 hash ids are kept as they are: ids are opaque), after the changes RPCS3 HEAD's reader
//! needs ([`crate::rpcs3_form`]: one map entry per content, a constants block uploaded by
//! commands). The tail follows [`crate::tail::v6_layout`]: the state's own layout, with a
//! 512-slot program (v3, v4, early v5) padded to the 544 slots every v6 reader expects. Each
//! of its arrays is written at exactly the layout's length (zero-padded or cut), so the output
//! is always a file RPCS3 reads.

use crate::model::Capture;
use crate::parallel_gzip::ParallelGzip;
use crate::rpcs3_form::for_rpcs3;
use crate::structs;
use crate::tail;

/// `"RRC"_u32` on disk, version 6, `LE_format` 1 (rrc-format.md 1.3).
const HEADER: [u8; 12] = [0x52, 0x52, 0x43, 0x00, 6, 0, 0, 0, 1, 0, 0, 0];
/// Staged commands are handed to the sink in pieces of at least this many bytes.
const DIRECT_WRITE: usize = 1 << 16;

/// Where the serialized bytes go.
trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl Sink for ParallelGzip {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.write(bytes);
    }
}

/// Encode an unsigned LEB128 varint (rrc-format.md 1.2): the bytes and how many are used.
#[inline]
fn encode_varint(mut v: u64) -> ([u8; 10], usize) {
    let mut buf = [0u8; 10];
    let mut n = 0;
    while v >= 0x80 {
        buf[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    buf[n] = v as u8;
    (buf, n + 1)
}

/// Append an unsigned LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, v: u64) {
    let (buf, n) = encode_varint(v);
    out.extend_from_slice(&buf[..n]);
}

fn varint(sink: &mut impl Sink, v: u64) {
    let (buf, n) = encode_varint(v);
    sink.put(&buf[..n]);
}

/// Serialize the whole v6 stream into `sink`.
fn serialize(c: &Capture, sink: &mut impl Sink) {
    sink.put(&HEADER);
    let mut scratch = Vec::with_capacity(512);

    // tile_map: [tile_state 432 B][u64 id]
    varint(sink, c.tiles.len() as u64);
    for e in &c.tiles {
        scratch.clear();
        structs::put_tile_state(&mut scratch, &e.value);
        scratch.extend_from_slice(&e.id.to_le_bytes());
        sink.put(&scratch);
    }
    // memory_map: [memory_block 16 B][u64 id]
    varint(sink, c.blocks.len() as u64);
    for e in &c.blocks {
        scratch.clear();
        structs::put_memory_block(&mut scratch, &e.value);
        scratch.extend_from_slice(&e.id.to_le_bytes());
        sink.put(&scratch);
    }
    // memory_data_map: [varint len][bytes][u64 id]
    varint(sink, c.data.len() as u64);
    for e in &c.data {
        varint(sink, e.value.len() as u64);
        sink.put(&e.value);
        sink.put(&e.id.to_le_bytes());
    }
    // display_buffers_map: [display_buffers_state 132 B][u64 id]
    varint(sink, c.display_buffers.len() as u64);
    for e in &c.display_buffers {
        scratch.clear();
        structs::put_display_state(&mut scratch, &e.value);
        scratch.extend_from_slice(&e.id.to_le_bytes());
        sink.put(&scratch);
    }
    // replay_commands (rrc-format.md 1.5), staged in batches.
    varint(sink, c.commands.len() as u64);
    scratch.clear();
    for cmd in &c.commands {
        scratch.extend_from_slice(&cmd.first.to_le_bytes());
        scratch.extend_from_slice(&cmd.second.to_le_bytes());
        put_varint(&mut scratch, cmd.memory.len() as u64);
        for id in &cmd.memory {
            scratch.extend_from_slice(&id.to_le_bytes());
        }
        scratch.extend_from_slice(&cmd.tile_state.to_le_bytes());
        scratch.extend_from_slice(&cmd.display_buffer_state.to_le_bytes());
        if scratch.len() >= DIRECT_WRITE {
            sink.put(&scratch);
            scratch.clear();
        }
    }
    sink.put(&scratch);
    scratch.clear();
    tail::write(&mut scratch, &c.reg_state);
    sink.put(&scratch);
}

/// Exact size of the uncompressed v6 stream.
fn stream_len(c: &Capture) -> usize {
    let vlen = |v: u64| (64 - (v | 1).leading_zeros() as usize).div_ceil(7);
    let mut n = HEADER.len();
    n += vlen(c.tiles.len() as u64) + c.tiles.len() * (structs::TILE_STATE_SIZE + 8);
    n += vlen(c.blocks.len() as u64) + c.blocks.len() * (structs::MEMORY_BLOCK_SIZE + 8);
    n += vlen(c.data.len() as u64);
    for e in &c.data {
        n += vlen(e.value.len() as u64) + e.value.len() + 8;
    }
    n += vlen(c.display_buffers.len() as u64)
        + c.display_buffers.len() * (structs::DISPLAY_STATE_SIZE + 8);
    n += vlen(c.commands.len() as u64);
    for cmd in &c.commands {
        n += 24 + vlen(cmd.memory.len() as u64) + cmd.memory.len() * 8;
    }
    n + tail::v6_layout(&c.reg_state).byte_len()
}

/// The uncompressed v6 stream, of the capture as RPCS3 HEAD reads it
/// ([`crate::rpcs3_form::for_rpcs3`]).
pub fn write_v6_uncompressed(capture: &Capture) -> Vec<u8> {
    let capture = for_rpcs3(capture);
    let mut out = Vec::with_capacity(stream_len(&capture));
    serialize(&capture, &mut out);
    out
}

/// The v6 stream in one gzip member, level 8, OS byte 3 and mtime 0 as zlib writes it,
/// deflated on every core (pigz's scheme: `parallel_gzip`).
pub fn write_v6(capture: &Capture) -> Vec<u8> {
    let capture = for_rpcs3(capture);
    let mut sink = ParallelGzip::new(8, 3, stream_len(&capture) / 2);
    serialize(&capture, &mut sink);
    sink.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_encoding() {
        for (v, bytes) in [
            (0u64, vec![0x00]),
            (127, vec![0x7F]),
            (128, vec![0x80, 0x01]),
            (300, vec![0xAC, 0x02]),
            (
                u64::MAX,
                vec![0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
            ),
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out, bytes, "{v}");
        }
    }

    #[test]
    fn predicted_length_is_exact() {
        let mut c = Capture::empty("x");
        c.commands.push(crate::model::ReplayCommand {
            first: 0x40,
            memory: vec![1, 2, 3],
            ..Default::default()
        });
        c.data.push(crate::model::Entry {
            id: 7,
            value: bytes::Bytes::from(vec![9u8; 300]),
        });
        assert_eq!(write_v6_uncompressed(&c).len(), stream_len(&c));
    }
}
