//! Trace read benchmarks on a synthetic capture (~200 MB of data blobs, 100k commands) written
//! to a temporary file: (a) `Trace::open` (must be O(1)), (b) a full walk touching every command
//! field and every data byte, (c) `to_capture` (zero-copy data).

use std::hint::black_box;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_rrc::{Capture, Entry, MemoryBlock, ReplayCommand};
use rsxtrace_trace::{write_trace, Trace};

const BLOBS: u64 = 800;
const BLOB_BYTES: usize = 256 * 1024;
const COMMANDS: u32 = 100_000;

fn synthetic_capture() -> Capture {
    let mut capture = Capture::empty("synthetic-bench");
    for i in 0..BLOBS {
        let blob: Vec<u8> = (0..BLOB_BYTES)
            .map(|j| (j as u64).wrapping_mul(31).wrapping_add(i) as u8)
            .collect();
        capture.data.push(Entry {
            id: 0x10_0000 + i,
            value: Bytes::from(blob),
        });
        capture.blocks.push(Entry {
            id: 0x20_0000 + i,
            value: MemoryBlock {
                offset: (i as u32) << 18,
                location: (i & 1) as u32,
                data_id: 0x10_0000 + i,
            },
        });
    }
    for i in 0..COMMANDS {
        let memory = if i % 125 == 124 {
            let block = 0x20_0000 + u64::from(i / 125) % BLOBS;
            vec![block, 0x20_0000 + (block + 1) % BLOBS]
        } else {
            Vec::new()
        };
        capture.commands.push(ReplayCommand {
            first: (1 << 18) | ((i % 0x800) << 2),
            second: i.wrapping_mul(0x9E37_79B9),
            memory,
            tile_state: 0,
            display_buffer_state: 0,
        });
    }
    capture
}

/// Cheap checksum over every byte: wrapping sum of little-endian u64 words (vectorises).
fn checksum(bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    let mut sum = 0u64;
    for c in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(c);
        sum = sum.wrapping_add(u64::from_le_bytes(word));
    }
    for &b in chunks.remainder() {
        sum = sum.wrapping_add(u64::from(b));
    }
    sum
}

fn full_walk(trace: &Trace) -> u64 {
    let view = trace.view().unwrap();
    let mut acc = 0u64;
    for command in view.commands().unwrap() {
        let c = command.unwrap();
        acc = acc
            .wrapping_add(u64::from(c.first) ^ u64::from(c.second))
            .wrapping_add(c.tile_state ^ c.display_buffer_state);
        for id in c.memory.iter() {
            acc = acc.wrapping_add(id);
        }
    }
    for blob in view.data().unwrap() {
        let d = blob.unwrap();
        acc = acc.wrapping_add(d.id ^ checksum(d.bytes));
    }
    acc
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("synthetic.rsxtrace");
    {
        let capture = synthetic_capture();
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        write_trace(&capture, &mut out).unwrap();
    }
    let len = std::fs::metadata(&path).unwrap().len();
    eprintln!("synthetic trace: {len} bytes, {COMMANDS} commands");

    let mut group = c.benchmark_group("trace");
    group.sample_size(10);
    group.bench_function("open", |b| {
        b.iter(|| black_box(Trace::open(&path).unwrap()))
    });
    let trace = Trace::open(&path).unwrap();
    group.throughput(Throughput::Bytes(len));
    group.bench_function("full_walk", |b| b.iter(|| black_box(full_walk(&trace))));
    group.bench_function("to_capture", |b| {
        b.iter(|| black_box(trace.to_capture().unwrap()))
    });
    group.finish();
}

criterion_group!(trace_benches, benches);
criterion_main!(trace_benches);
