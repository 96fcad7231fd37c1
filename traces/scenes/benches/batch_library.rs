//! `rsxtrace batch` work over a generated program library (`rsxtrace_scenes::program_library`,
//! the corpus's containers mixed in when `../shared/corpus` is present), issue 15 item 7:
//!
//! - `recompile/1500`: 1,500 programs discovered, decoded, disassembled, analysed, interpreted,
//!   recompiled and validated by naga, without a device (target < 30 s on 2 cores);
//! - `device/150`: 150 programs with the device check as well (lavapipe in CI; target for
//!   1,500: < 3 minutes, so < 12 s here); skipped loudly without an adapter (a failure under
//!   `CI=true`).
//!
//! Run with `cargo bench -p rsxtrace-scenes --bench batch_library`. Figures in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use rsxtrace_program::source::discover;
use rsxtrace_scenes::game_frame::GameFrameOptions;
use rsxtrace_scenes::program_library::write_generated_library;
use rsxtrace_verify::batch::{run_batch, BatchOptions, Status};
use std::path::PathBuf;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let workspace = rsxtrace_testkit::workspace!();
    let corpus = workspace.corpus().map(|c| c.dir().to_path_buf());
    let seed = GameFrameOptions::default().seed;
    let large = tempfile::tempdir().expect("temp dir");
    let small = tempfile::tempdir().expect("temp dir");
    write_generated_library(large.path(), 1_500, seed, corpus.as_deref()).expect("library");
    write_generated_library(small.path(), 150, seed ^ 0xBA7C, None).expect("library");
    let options = BatchOptions::default();
    let run = |dir: &tempfile::TempDir, gpu: Option<&Gpu>| {
        let found = discover(&[PathBuf::from(dir.path())]);
        run_batch(&found, gpu, &options, None).expect("batch runs")
    };
    let report = run(&large, None);
    assert_eq!(report.totals.programs, 1_500);
    assert!(report.all_proven(), "every generated program recompiles");
    eprintln!(
        "batch_library: {} programs ({} vertex, {} fragment)",
        report.totals.programs, report.totals.vertex, report.totals.fragment
    );

    let mut group = c.benchmark_group("batch_library");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("recompile/1500", |b| b.iter(|| run(&large, None)));
    let gpu = rsxtrace_testkit::device::open_or_skip(
        "batch_library",
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    );
    if let Some(gpu) = gpu {
        let checked = run(&small, Some(&gpu));
        let proven = checked
            .programs
            .iter()
            .filter(|p| p.status == Status::Proven)
            .count();
        eprintln!(
            "batch_library: device check of 150 programs on {}: {proven} proven",
            gpu.info()
        );
        group.bench_function("device/150", |b| b.iter(|| run(&small, Some(&gpu))));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
