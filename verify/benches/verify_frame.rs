//! `verify_frame` on a game-scale frame, both stages, on the default device.
//!
//! The frame is the first `traces/samples/game*.rrc*` when present; otherwise the basic
//! sample with its draws replicated 100 times (300 draws). Each measured run opens a fresh
//! device, so pipeline creation is counted as in a real `rsxtrace verify`. One run's phase
//! breakdown (fetch, interpreter, pipelines, GPU, raster, compare) is printed first.
//!
//! Run with `cargo bench -p rsxtrace-verify --bench verify_frame`; set
//! `RAYON_NUM_THREADS=2` for the 2-core figure.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use rsxtrace_verify::divergence::{verify_frame, VerifyOptions};
use std::path::PathBuf;
use std::time::Duration;

/// Copies of the basic sample's draws when no game frame exists.
const REPLICAS: usize = 100;

fn samples() -> PathBuf {
    rsxtrace_testkit::workspace!().samples_dir()
}

/// The frame to verify and its name.
fn load() -> (Frame, String) {
    let game = std::fs::read_dir(samples()).ok().and_then(|dir| {
        let mut v: Vec<PathBuf> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("game") && n.contains(".rrc"))
            })
            .collect();
        v.sort();
        v.into_iter().next()
    });
    let path = game
        .clone()
        .unwrap_or_else(|| samples().join("basic.rrc.gz"));
    let capture = rsxtrace_capture::rrc::read_file(&path).expect("sample capture reads");
    let mut frame = Frame::from_capture(&capture).expect("sample frame decodes");
    if game.is_none() {
        let draws = frame.draws.clone();
        for _ in 1..REPLICAS {
            for d in &draws {
                let mut d = d.clone();
                d.index = frame.draws.len();
                frame.draws.push(d);
            }
        }
        return (frame, format!("basic.rrc.gz x{REPLICAS}"));
    }
    (frame, path.display().to_string())
}

fn bench(c: &mut Criterion) {
    let (frame, name) = load();
    let Some(gpu) = rsxtrace_testkit::device::open_or_skip(
        "verify_frame",
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    ) else {
        return;
    };
    let options = VerifyOptions {
        capture: name.clone(),
        ..VerifyOptions::default()
    };
    let report = verify_frame(&frame, &options, &gpu, None).expect("verifies");
    let t = &report.timings;
    eprintln!(
        "verify_frame {name}: {} draws, {} clean / {} diverged / {} skipped / {} failed stages; \
         wall {:.0} ms; summed over threads: fetch {:.0} ms, interpreter {:.0} ms, pipelines {:.0} ms, \
         GPU {:.0} ms, raster {:.0} ms, compare {:.0} ms; {} rayon threads; {}",
        report.totals.draws,
        report.totals.clean,
        report.totals.diverged,
        report.totals.skipped,
        report.totals.failed,
        t.wall_ms,
        t.fetch_ms,
        t.interpreter_ms,
        t.pipeline_ms,
        t.gpu_ms,
        t.raster_ms,
        t.compare_ms,
        rayon::current_num_threads(),
        report.device
    );
    drop(gpu);
    let mut group = c.benchmark_group("verify_frame");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("both_stages_fresh_device", |b| {
        b.iter_batched(
            || Gpu::new(GpuOptions::default()).expect("device"),
            |gpu| verify_frame(&frame, &options, &gpu, None).expect("verifies"),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
