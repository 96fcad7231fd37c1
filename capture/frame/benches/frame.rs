//! Benchmark: `Frame::from_capture` on a synthetic 2,000-draw capture with ~6,000 attached
//! blocks and ~200 MB of data.

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_frame::Frame;
use rsxtrace_rrc::{Capture, Entry, MemoryBlock, ReplayCommand};

fn cmd(reg_byte: u32, count: u32, second: u32) -> ReplayCommand {
    ReplayCommand {
        first: reg_byte | (count << 18),
        second,
        ..Default::default()
    }
}

fn synthetic(draws: usize, block_bytes: usize) -> Capture {
    let mut c = Capture::empty("bench");
    c.commands.push(ReplayCommand {
        first: 0x40,
        ..Default::default()
    });
    // One backing buffer; every data blob is a distinct slice of it.
    let total = draws * 3 * block_bytes;
    let backing = Bytes::from(
        (0..total)
            .map(|i| (i * 31 % 251) as u8)
            .collect::<Vec<u8>>(),
    );
    // A one-instruction fragment program (opcode 1, END) at the start of every program block.
    let fp: [u8; 16] = [
        0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0, 0, 1, 0xc8, 0, 0x3f, 0xe1,
    ];
    let mut next_id = 0x1235u64;
    for d in 0..draws {
        c.commands.push(cmd(0x0A6C, 1, 0x203));
        c.commands.push(cmd(0x1D60, 1, 0x40));
        c.commands.push(cmd(0x1740, 1, 0x0000_1032));
        c.commands
            .push(cmd(0x1680, 1, (d * 3 * block_bytes + block_bytes) as u32));
        c.commands.push(cmd(0x08E4, 1, ((d * 0x100) as u32) | 1));
        c.commands.push(cmd(0x1EFC, 1, 32));
        c.commands.push(cmd(0x1F00, 16, 0x3F80_0000));
        for k in 1..16u32 {
            c.commands.push(ReplayCommand {
                first: 0,
                second: k,
                ..Default::default()
            });
        }
        c.commands.push(cmd(0x1808, 1, 5));
        c.commands.push(cmd(0x1814, 1, 0x2F00_0000));
        let mut end = cmd(0x1808, 1, 0);
        for b in 0..3 {
            let (offset, bytes) = if b == 0 {
                let mut v = fp.to_vec();
                v.resize(64, 0);
                ((d * 0x100) as u32, Bytes::from(v))
            } else {
                let start = (d * 3 + b) * block_bytes;
                (start as u32, backing.slice(start..start + block_bytes))
            };
            let (id, data_id) = (next_id, next_id + 1);
            next_id += 2;
            c.blocks.push(Entry {
                id,
                value: MemoryBlock {
                    offset,
                    location: 0,
                    data_id,
                },
            });
            c.data.push(Entry {
                id: data_id,
                value: bytes,
            });
            end.memory.push(id);
        }
        c.commands.push(end);
    }
    c
}

fn bench(c: &mut Criterion) {
    let capture = synthetic(2000, 100 * 1024 / 3 * 3 / 2);
    let frame = Frame::from_capture(&capture).expect("synthetic capture decodes");
    assert_eq!(frame.draws.len(), 2000);
    let stats = frame.stats();
    eprintln!(
        "synthetic capture: {} commands, {} blocks, {} MB attached",
        stats.commands,
        stats.memory_blocks,
        stats.memory_bytes / 1_000_000
    );
    let mut g = c.benchmark_group("frame");
    g.sample_size(10);
    g.bench_function("from_capture_2000_draws", |b| {
        b.iter(|| Frame::from_capture(&capture).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
