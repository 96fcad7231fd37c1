//! Writing a ~64 MB (uncompressed) capture as RRC v6 in one gzip member: `write_v6`, which
//! deflates on every core (`parallel_gzip`), side by side with one zlib-style encoder at the
//! same level over the same stream (what `write_v6` did before). The ratio is the figure of
//! merit; it grows with the cores.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_rrc::{write_v6, write_v6_uncompressed};
use std::io::Write;

mod support;
use support::synthetic;

fn one_encoder(stream: &[u8]) -> usize {
    let mut e = flate2::GzBuilder::new().operating_system(3).write(
        Vec::with_capacity(stream.len() / 2),
        flate2::Compression::new(8),
    );
    e.write_all(stream).unwrap();
    e.finish().unwrap().len()
}

fn bench(c: &mut Criterion) {
    let capture = synthetic(64 << 20);
    let stream = write_v6_uncompressed(&capture);
    eprintln!(
        "synthetic capture: {} MiB stream, {} MiB by write_v6, {} MiB by one encoder, {} threads",
        stream.len() >> 20,
        write_v6(&capture).len() >> 20,
        one_encoder(&stream) >> 20,
        rayon::current_num_threads()
    );
    let mut g = c.benchmark_group("rrc_write_64MB");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(stream.len() as u64));
    g.bench_function("write_v6", |b| b.iter(|| write_v6(&capture).len()));
    g.bench_function("one_encoder_of_the_stream", |b| {
        b.iter(|| one_encoder(&write_v6_uncompressed(&capture)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
