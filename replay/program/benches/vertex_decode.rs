//! Vertex decode throughput in instructions per second (criterion `Elements` = slots).
//!
//! Two programs: the ps3autotests cube VP repeated (`vertex_decode`), and a seeded
//! pseudo-random mix of 540 valid slots (`vertex_mix`: every vector and scalar opcode, random
//! registers, swizzles, masks and conditions), so the decoder sees varied fields.

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

/// 540 random valid slots: D0 bits 28 and 31 clear (refused), D0 bit 23 clear (keeps
/// immediate branch targets below 512 of the 544 slots), opcodes drawn from the defined
/// ones, every source type non-zero (rsx-microcode.md B.8; layout in src/vertex/fields.rs).
fn mix_program() -> Vec<u32> {
    let mut rng = rsxtrace_testkit::rng::XorShift64(0x9E37_79B9_7F4A_7C15);
    let mut next = move || (rng.next_u64() >> 32) as u32;
    let mut words = Vec::with_capacity(540 * 4);
    for _ in 0..540 {
        let d0 = next() & !((1 << 31) | (1 << 28) | (1 << 23));
        let vector = next() % 26;
        let scalar = next() % 21;
        let d1 = (next() & 0x3F_FFFF) | (vector << 22) | (scalar << 27);
        // Source type bits: src0 in D2 23–24, src1 in D2 6–7, src2 in D3 21–22; 1–3 each.
        let ty = |n: u32| 1 + n % 3;
        let d2 = (next() & !((3 << 23) | (3 << 6))) | (ty(next()) << 23) | (ty(next()) << 6);
        let d3 = (next() & !((3 << 21) | 1)) | (ty(next()) << 21);
        words.extend_from_slice(&[d0, d1, d2, d3]);
    }
    if let Some(last) = words.last_mut() {
        *last |= 1; // END
    }
    words
}

fn bench(c: &mut Criterion) {
    let mix = mix_program();
    let mut g = c.benchmark_group("vertex_mix");
    g.throughput(Throughput::Elements((mix.len() / 4) as u64));
    vertex::decode_words(&mix).expect("mix program decodes");
    g.bench_function("decode_words", |b| {
        b.iter(|| vertex::decode_words(black_box(&mix)))
    });
    g.finish();

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
