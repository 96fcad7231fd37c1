//! Reading a ~200 MB (uncompressed) gzip capture with `read_file`, side by side with plain
//! in-process gzip decompression of the same file (the floor). The ratio of the two is the
//! figure of merit (target: read_file <= 1.3 x decompression); and side by side with what
//! `read_file` did before it streamed (read the whole file, then `read_bytes`).

use std::io::Read;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_rrc::{read_bytes, read_file, write_v6};

/// Memory data in the synthetic capture.
const MEMORY_BYTES: usize = 200 << 20;

mod support;
use support::synthetic;

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
    let capture = synthetic(MEMORY_BYTES);
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
