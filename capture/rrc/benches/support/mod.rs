//! The synthetic capture the read and write benches share: 2,000 draws of state commands, a
//! batched constant upload and an END carrying three blocks of vertex-like memory.
#![allow(dead_code)]

use bytes::Bytes;
use rsxtrace_rrc::{Capture, DisplayBuffersState, Entry, MemoryBlock, ReplayCommand, TileState};
use rsxtrace_testkit::rng::XorShift64Star as Rng;

/// Draws (each one END command with memory attached, plus its state commands).
const DRAWS: u32 = 2000;

/// Vertex/texture-like bytes: big-endian floats with a random low mantissa, so gzip gets a
/// realistic ~2:1, not an absurd ratio.
pub fn blob(rng: &mut Rng, len: usize) -> Bytes {
    let mut v = Vec::with_capacity(len + 8);
    while v.len() < len {
        let r = rng.next_u64();
        v.extend_from_slice(&[
            0x3F,
            0x80 | (r as u8 & 0x3F),
            (r >> 8) as u8,
            (r >> 16) as u8,
        ]);
        v.extend_from_slice(&[0x42, 0x48, (r >> 24) as u8 & 0x0F, 0]);
    }
    v.truncate(len);
    Bytes::from(v)
}

/// A capture of `memory_bytes` of memory data over 2,000 draws.
pub fn synthetic(memory_bytes: usize) -> Capture {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut c = Capture::empty("bench");
    c.tiles.push(Entry {
        id: 0x1236,
        value: TileState::default(),
    });
    c.display_buffers.push(Entry {
        id: 0x1235,
        value: DisplayBuffersState::default(),
    });
    c.commands.push(ReplayCommand {
        first: 0x40,
        tile_state: 0x1236,
        display_buffer_state: 0x1235,
        ..Default::default()
    });
    let per_draw = memory_bytes / DRAWS as usize;
    let mut id = 0x2000u64;
    for d in 0..DRAWS {
        // ~30 state commands per draw, one batched transform-constant upload of 16 words.
        for k in 0..30u32 {
            c.commands.push(ReplayCommand {
                first: (0x1740 + 4 * (k % 16)) | 1 << 18,
                second: rng.next_u64() as u32,
                ..Default::default()
            });
        }
        c.commands.push(ReplayCommand {
            first: 0x1F00 | 16 << 18,
            second: d,
            ..Default::default()
        });
        for w in 1..16 {
            c.commands.push(ReplayCommand {
                first: 0,
                second: w ^ d,
                ..Default::default()
            });
        }
        // END with three blocks (program, vertices, indices).
        let mut memory = Vec::new();
        for part in [
            per_draw / 16,
            per_draw * 3 / 4,
            per_draw - per_draw / 16 - per_draw * 3 / 4,
        ] {
            let data_id = id;
            c.data.push(Entry {
                id: data_id,
                value: blob(&mut rng, part),
            });
            c.blocks.push(Entry {
                id: id + 1,
                value: MemoryBlock {
                    offset: (rng.next_u64() as u32) & 0x0FFF_FFF0,
                    location: d & 1,
                    data_id,
                },
            });
            memory.push(id + 1);
            id += 2;
        }
        c.commands.push(ReplayCommand {
            first: 0x1808 | 1 << 18,
            second: 0,
            memory,
            tile_state: 0x1236,
            display_buffer_state: 0x1235,
        });
    }
    c
}
