//! Reading a ~200 MB (uncompressed) gzip capture with `read_file`, side by side with plain
//! in-process gzip decompression of the same file (the floor). The ratio of the two is the
//! figure of merit (target: read_file <= 1.3 x decompression); and side by side with what
//! `read_file` did before it streamed (read the whole file, then `read_bytes`).

use std::io::Read;
use std::path::Path;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_rrc::{
    read_bytes, read_file, write_v6, Capture, DisplayBuffersState, Entry, MemoryBlock,
    ReplayCommand, TileState,
};
use rsxtrace_testkit::rng::XorShift64Star as Rng;

/// Memory data in the synthetic capture.
const MEMORY_BYTES: usize = 200 << 20;
/// Draws (each one END command with memory attached, plus its state commands).
const DRAWS: u32 = 2000;

/// Vertex/texture-like bytes: big-endian floats with a random low mantissa, so gzip gets a
/// realistic ~2:1, not an absurd ratio.
fn blob(rng: &mut Rng, len: usize) -> Bytes {
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

fn synthetic() -> Capture {
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
    let per_draw = MEMORY_BYTES / DRAWS as usize;
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

fn gunzip_floor(path: &Path) -> usize {
    let stored = std::fs::read(path).unwrap();
    let isize = u32::from_le_bytes(stored[stored.len() - 4..].try_into().unwrap()) as usize;
    let mut out = Vec::with_capacity(isize);
    flate2::bufread::MultiGzDecoder::new(&stored[..])
        .read_to_end(&mut out)
        .unwrap();
    out.len()
}

fn bench(c: &mut Criterion) {
    let capture = synthetic();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench_capture.rrc.gz");
    let file = write_v6(&capture);
    std::fs::write(&path, &file).unwrap();
    let plain_len = gunzip_floor(&path);
    eprintln!(
        "synthetic capture: {} commands, {} blobs, {} MiB stream, {} MiB gzip",
        capture.commands.len(),
        capture.data.len(),
        plain_len >> 20,
        file.len() >> 20
    );
    drop(capture);

    let mut g = c.benchmark_group("rrc_200MB_gzip");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(plain_len as u64));
    g.bench_function("gunzip_floor", |b| b.iter(|| gunzip_floor(&path)));
    g.bench_function("read_file", |b| {
        b.iter(|| read_file(&path).unwrap().commands.len())
    });
    // What read_file did before it streamed: hold the whole stored file, then decompress.
    g.bench_function("read_bytes_of_whole_file", |b| {
        b.iter(|| {
            let stored = std::fs::read(&path).unwrap();
            read_bytes(&stored, "bench").unwrap().commands.len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
