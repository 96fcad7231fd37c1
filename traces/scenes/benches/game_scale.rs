//! Issue 14 item 5's targets on the generator's captures (`rsxtrace_scenes::game_scale`:
//! full mip chains of DXT and swizzled textures, a ring buffer that wraps, the corpus's
//! genuine programs when `../shared/corpus` is present), one size per run, side by side:
//!
//! - `cpu_replay`: the CPU renderer over the frame's draws (target: 1.5 ms per draw on the
//!   20,000-draw frame); throughput is in draws, so criterion reports draws per second;
//! - `lavapipe_replay_warm`: the GPU render on the default adapter (lavapipe where there is no
//!   GPU) with one device that rendered the frame before, so its pipelines, recompiled
//!   programs and uploaded textures are kept already (target: 2 ms per draw warm);
//! - `verify`: `verify_frame`, both stages, over the first 500 draws (the issue's
//!   `verify --draws 0..500`), a fresh device per run as in a real `rsxtrace verify`.
//!
//! Before measuring, one run of each prints its breakdown and its milliseconds per draw.
//!
//! `RSXTRACE_GAME_SCALE` picks the size: `2k` (the default: 2,000 draws, 62 MB), `8k`
//! (8,000, 257 MB) or `20k` (20,000, 661 MB; every replay takes about a minute, so run it by
//! hand, not in CI). `RSXTRACE_GAME_SCALE_DRAWS=N` replays only the first N draws;
//! `RSXTRACE_GAME_SCALE_ONCE=1` makes only the single timed runs (for the largest size). The
//! capture is built once and kept under the target directory (`CARGO_TARGET_TMPDIR`).
//!
//! `cargo bench -p rsxtrace-scenes --bench game_scale`. The bench sits in this crate because
//! the generator is here and a replay or verify dev-dependency on this crate would point
//! against the layering.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{read_file, Capture};
use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{cpu, gpu, RenderOptions, RenderedFrame};
use rsxtrace_scenes::game_scale::{cached_file, GameScaleOptions, Size};
use rsxtrace_verify::divergence::{verify_frame, VerifyOptions};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Draws `verify` checks (the issue's `verify --draws 0..500`).
const VERIFY_DRAWS: usize = 500;

fn size() -> Size {
    match std::env::var("RSXTRACE_GAME_SCALE") {
        Ok(name) => Size::from_name(&name)
            .unwrap_or_else(|| panic!("RSXTRACE_GAME_SCALE={name:?}: expected 2k, 8k or 20k")),
        Err(_) => Size::Draws2k,
    }
}

fn load(size: Size) -> (Capture, Frame, String) {
    let workspace = rsxtrace_testkit::workspace!();
    let corpus = workspace.corpus().map(|c| c.dir().to_path_buf());
    let options = GameScaleOptions::of(size, corpus);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-captures");
    let started = Instant::now();
    let path = cached_file(&options, &dir).expect("the game-scale capture");
    let capture = read_file(&path).expect("capture reads");
    let frame = Frame::from_capture(&capture).expect("frame decodes");
    let name = format!(
        "{} ({} draws, {} MB of memory{})",
        size.name(),
        frame.draws.len(),
        capture.memory_bytes() / 1_000_000,
        if options.corpus.is_some() {
            ", corpus programs"
        } else {
            ""
        }
    );
    eprintln!(
        "game_scale: {name}: {} ready and read in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
    (capture, frame, name)
}

fn report(label: &str, out: &RenderedFrame, wall: Duration) {
    let t = &out.timings;
    let draws = out.draws_rendered.max(1) as f64;
    eprintln!(
        "{label}: {:.2} s wall, {} draws, {} skipped, {} warnings; setup {:.2} s, pipelines \
         {:.2} s, render {:.2} s, readback {:.2} s; {:.3} ms per draw; texture cache {:?}",
        wall.as_secs_f64(),
        out.draws_rendered,
        out.skipped.len(),
        out.warnings.len(),
        t.setup,
        t.pipelines,
        t.render,
        t.readback,
        wall.as_secs_f64() * 1e3 / draws,
        out.texture_cache,
    );
}

fn open_gpu() -> Option<Gpu> {
    rsxtrace_testkit::device::open_or_skip(
        "game_scale",
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )
}

fn bench(c: &mut Criterion) {
    let size = size();
    let (capture, frame, name) = load(size);
    let events = FrameEvents::from_capture(&capture, &frame);
    drop(capture);
    let draws = std::env::var("RSXTRACE_GAME_SCALE_DRAWS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(frame.draws.len())
        .min(frame.draws.len());
    let options = RenderOptions {
        draws: Some(0..draws),
        ..Default::default()
    };
    let once_only = std::env::var_os("RSXTRACE_GAME_SCALE_ONCE").is_some();
    let mut group = c.benchmark_group(format!("game_scale_{}", size.name()));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(draws as u64));
    eprintln!("game_scale: {name}, replaying {draws} draws");

    let t = Instant::now();
    let once = cpu::render_frame(&frame, &events, &options).expect("CPU render");
    report("cpu_replay", &once, t.elapsed());
    drop(once);
    if !once_only {
        group.bench_function("cpu_replay", |b| {
            b.iter(|| cpu::render_frame(&frame, &events, &options).expect("CPU render"))
        });
    }

    let Some(device) = open_gpu() else {
        group.finish();
        return;
    };
    eprintln!("adapter: {}", device.info());
    let t = Instant::now();
    let cold = gpu::render_frame(&device, &frame, &events, &options).expect("GPU render");
    report("gpu_replay cold", &cold, t.elapsed());
    let t = Instant::now();
    let warm = gpu::render_frame(&device, &frame, &events, &options).expect("GPU render");
    report("gpu_replay warm", &warm, t.elapsed());
    drop((cold, warm));
    if !once_only {
        group.bench_function("lavapipe_replay_warm", |b| {
            b.iter(|| gpu::render_frame(&device, &frame, &events, &options).expect("GPU render"))
        });
    }
    drop(device);

    let verify = VerifyOptions {
        capture: name.clone(),
        draws: Some(0..VERIFY_DRAWS.min(frame.draws.len())),
        ..VerifyOptions::default()
    };
    let device = Gpu::new(GpuOptions::default()).expect("device");
    let report = verify_frame(&frame, &verify, &device, None).expect("verifies");
    let t = &report.timings;
    eprintln!(
        "verify {name}, draws 0..{VERIFY_DRAWS}: {} clean / {} diverged / {} skipped / {} failed \
         stages; wall {:.0} ms; summed over threads: fetch {:.0} ms, interpreter {:.0} ms, \
         pipelines {:.0} ms, GPU {:.0} ms, raster {:.0} ms, compare {:.0} ms",
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
    );
    drop(device);
    if once_only {
        group.finish();
        return;
    }
    group.throughput(Throughput::Elements(
        VERIFY_DRAWS.min(frame.draws.len()) as u64
    ));
    group.bench_function("verify_500_draws_fresh_device", |b| {
        b.iter_batched(
            || Gpu::new(GpuOptions::default()).expect("device"),
            |device| verify_frame(&frame, &verify, &device, None).expect("verifies"),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
