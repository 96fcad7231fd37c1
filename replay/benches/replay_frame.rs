//! Replay time of the game-scale sample frame (`traces/samples/game.rrc.gz`) on the GPU
//! render (`rsxtrace_replay::render::gpu`), on whatever adapter `Gpu::new` opens (lavapipe on
//! machines without a GPU), with pipeline creation measured apart from rendering:
//!
//! - `replay_frame/cold`: a fresh device per iteration, so every program is recompiled and
//!   every pipeline created (the first replay of a frame);
//! - `replay_frame/warm`: one device whose pipeline cache already holds every pipeline (a
//!   replay after the first); throughput is in draws, so criterion also reports the time per
//!   draw.
//!
//! Before measuring, one cold and one warm render print their `RenderTimings` breakdown
//! (setup, pipelines, render, readback) and the per-draw times to stderr.
//!
//! Without the frame or without an adapter the bench says so loudly and measures nothing.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::read_file;
use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use rsxtrace_replay::render::gpu::render_frame;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame};

fn frame_path() -> PathBuf {
    rsxtrace_testkit::workspace!().sample("game.rrc.gz")
}

fn open_gpu() -> Option<Gpu> {
    rsxtrace_testkit::device::open_or_skip(
        "replay_frame",
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )
}

fn report(label: &str, out: &RenderedFrame, wall: Duration) {
    let t = &out.timings;
    let draws = out.draws_rendered.max(1) as f64;
    eprintln!(
        "{label}: {:.3} s wall, {} draws rendered, {} skipped, {} warnings; setup {:.3} s, \
         pipelines {:.3} s, render {:.3} s, readback {:.3} s; per draw: {:.3} ms total, \
         {:.3} ms render, {:.3} ms pipelines",
        wall.as_secs_f64(),
        out.draws_rendered,
        out.skipped.len(),
        out.warnings.len(),
        t.setup,
        t.pipelines,
        t.render,
        t.readback,
        wall.as_secs_f64() * 1e3 / draws,
        t.render * 1e3 / draws,
        t.pipelines * 1e3 / draws,
    );
}

fn replay_frame(c: &mut Criterion) {
    let path = frame_path();
    let capture = match read_file(&path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "GAME FRAME MISSING: {}: {e}; nothing measured",
                path.display()
            );
            return;
        }
    };
    let frame = Frame::from_capture(&capture).expect("frame model of the game frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = RenderOptions::default();
    let Some(gpu) = open_gpu() else {
        return;
    };
    eprintln!("adapter: {}", gpu.info());
    let t = Instant::now();
    let cold = render_frame(&gpu, &frame, &events, &options).expect("cold render");
    report("cold (fresh device)", &cold, t.elapsed());
    let t = Instant::now();
    let warm = render_frame(&gpu, &frame, &events, &options).expect("warm render");
    report("warm (pipelines cached)", &warm, t.elapsed());

    let mut group = c.benchmark_group("replay_frame");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(warm.draws_rendered as u64));
    group.bench_function("warm", |b| {
        b.iter(|| render_frame(&gpu, &frame, &events, &options).expect("render"))
    });
    group.bench_function("cold", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let Some(fresh) = open_gpu() else {
                    return total;
                };
                let t = Instant::now();
                let _ = render_frame(&fresh, &frame, &events, &options).expect("render");
                total += t.elapsed();
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, replay_frame);
criterion_main!(benches);
