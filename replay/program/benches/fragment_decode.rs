//! Fragment decode throughput, in instructions per second (criterion `Throughput::Elements`).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_program::fragment::{decode, disassemble, encode};

/// A 1024-instruction program: MAD R0, R1, f[TEX0], {c} with its constant every fourth
/// instruction, plain MUL R0, R0, R1 otherwise; MOV R0, f[COL0] END last. Nouveau-order words,
/// swapped to guest order below.
fn program() -> (Vec<u8>, u64) {
    let mut words: Vec<u32> = Vec::new();
    let mut count = 0u64;
    for i in 0..1023 {
        if i % 4 == 0 {
            // MAD R0, R1, f[TEX0], {c}: SRC2 type 2.
            words.extend_from_slice(&[0x04009E00, 0x1C9DC804, 0x0001C801, 0x0001C802]);
            words.extend_from_slice(&[0x3F800000, 0x3F000000, 0, 0xBF800000]);
        } else {
            words.extend_from_slice(&[0x02001E00, 0x1C9DC800, 0x0001C804, 0]);
        }
        count += 1;
    }
    words.extend_from_slice(&[0x01003E01, 0x1C9DC801, 0, 0]);
    count += 1;
    let bytes = words
        .iter()
        .flat_map(|w| w.rotate_left(16).to_be_bytes())
        .collect();
    (bytes, count)
}

fn bench(c: &mut Criterion) {
    let (bytes, count) = program();
    let decoded = decode(&bytes).expect("bench program decodes");
    assert_eq!(decoded.instructions.len() as u64, count);
    let mut g = c.benchmark_group("fragment");
    g.throughput(Throughput::Elements(count));
    g.bench_function("decode", |b| b.iter(|| decode(black_box(&bytes))));
    g.bench_function("encode", |b| b.iter(|| encode(black_box(&decoded))));
    g.bench_function("disassemble", |b| {
        b.iter(|| disassemble(black_box(&decoded)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
