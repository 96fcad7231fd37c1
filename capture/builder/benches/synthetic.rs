//! Benchmarks: generating a game-scale synthetic frame.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_builder::synthetic::large_frame;

fn bench_large_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("synthetic");
    group.sample_size(10);
    let bytes = 16 << 20;
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("large_frame_2000_draws_16MiB", |b| {
        b.iter(|| large_frame(2000, bytes, 7))
    });
    group.finish();
}

criterion_group!(benches, bench_large_frame);
criterion_main!(benches);
