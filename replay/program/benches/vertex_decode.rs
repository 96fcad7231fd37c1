//! Vertex decode throughput in instructions per second (criterion `Elements` = slots).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_program::vertex;

/// The ps3autotests cube VP (6 slots; see tests/vertex_fields.rs for the field layout),
/// repeated to a 540-slot straight-line program, END on the last slot only.
fn program() -> Vec<u32> {
    const CUBE: [[u32; 4]; 6] = [
        [0x401f9c6c, 0x0040010d, 0x8106c083, 0x6041ff84],
        [0x401f9c6c, 0x0040020d, 0x8106c083, 0x6041ff9c],
        [0x401f9c6c, 0x01d0300d, 0x8106c0c3, 0x60403f80],
        [0x401f9c6c, 0x01d0200d, 0x8106c0c3, 0x60405f80],
        [0x401f9c6c, 0x01d0100d, 0x8106c0c3, 0x60409f80],
        [0x401f9c6c, 0x01d0000d, 0x8106c0c3, 0x60411f80],
    ];
    let mut words: Vec<u32> = CUBE.iter().cycle().take(540).flatten().copied().collect();
    if let Some(last) = words.last_mut() {
        *last |= 1; // END
    }
    words
}

fn bench(c: &mut Criterion) {
    let words = program();
    let slots = (words.len() / 4) as u64;
    let mut mem = vec![0u32; vertex::MEMORY_SLOTS * 4];
    mem[..words.len()].copy_from_slice(&words);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();

    let mut g = c.benchmark_group("vertex_decode");
    g.throughput(Throughput::Elements(slots));
    g.bench_function("decode_words", |b| {
        b.iter(|| vertex::decode_words(black_box(&words)))
    });
    g.bench_function("decode_bytes", |b| {
        b.iter(|| vertex::decode_bytes(black_box(&bytes)))
    });
    g.bench_function("decode_from_memory", |b| {
        b.iter(|| vertex::decode_from_memory(black_box(&mem), 0))
    });
    let p = vertex::decode_words(&words).expect("bench program decodes");
    g.bench_function("encode", |b| b.iter(|| vertex::encode(black_box(&p))));
    g.bench_function("disassemble", |b| {
        b.iter(|| vertex::disassemble(black_box(&p)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
