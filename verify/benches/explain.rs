//! `verify --explain` on the game-scale sample (`traces/samples/game.rrc.gz`): the fragment
//! invocation of the draw with the longest fragment program (among the first 200 draws) at
//! a covered pixel, and vertex 0 of the draw with the longest vertex program. Each iteration
//! runs on a fresh device (opened outside the measurement), so both modules' pipeline
//! creation is counted as in one `rsxtrace verify --explain` run; the interpreter's traces
//! (f32 and f64), the instrumented run and the comparison are all inside.
//!
//! Run with `cargo bench -p rsxtrace-verify --bench explain`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use rsxtrace_verify::divergence::context::Context;
use rsxtrace_verify::divergence::fragment_stage::rasterize;
use rsxtrace_verify::divergence::tolerance::Tolerances;
use rsxtrace_verify::divergence::vertex_stage::{prepare, Prepared};
use rsxtrace_verify::explain::fragment::explain_pixel;
use rsxtrace_verify::explain::vertex::explain_vertex;
use std::time::Duration;

fn open() -> Option<Gpu> {
    rsxtrace_testkit::device::open_or_skip(
        "explain",
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )
}

fn bench(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!()
        .samples_dir()
        .join("game.rrc.gz");
    let capture = rsxtrace_capture::rrc::read_file(&path).expect("game sample reads");
    let frame = rsxtrace_capture::frame::Frame::from_capture(&capture).expect("frame decodes");
    let Some(gpu) = open() else {
        return;
    };
    // The longest programs with a covered pixel.
    let mut fragment = None;
    let mut vertex = None;
    for draw in 0..frame.draws.len().min(200) {
        let cx = Context::new(&gpu, Tolerances::default(), usize::MAX);
        let Prepared::Ready(vi) = prepare(&frame, draw, &cx) else {
            continue;
        };
        let vn = vi.program.instructions.len();
        if vertex.is_none_or(|(_, n)| vn > n) {
            vertex = Some((draw, vn));
        }
        let Some(fp) = frame.draws[draw].fragment_program.as_ref() else {
            continue;
        };
        let Ok(p) = rsxtrace_program::fragment::decode(&fp.ucode) else {
            continue;
        };
        let r = rasterize(&frame.draws[draw], &vi, 64);
        let Some(q) = r.quads.first() else {
            continue;
        };
        let Some(lane) = (0..4u32).find(|l| q.inputs.coverage & (1 << l) != 0) else {
            continue;
        };
        let px = (q.origin[0] + (lane & 1), q.origin[1] + (lane >> 1));
        let n = p.instructions.len();
        if fragment.is_none_or(|(_, _, m)| n > m) {
            fragment = Some((draw, px, n));
        }
    }
    drop(gpu);
    let mut g = c.benchmark_group("explain");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    if let Some((draw, px, n)) = fragment {
        eprintln!("explain: fragment draw {draw} pixel {px:?}, {n} instructions");
        g.bench_function("fragment pixel, fresh device", |b| {
            b.iter_batched(
                || open().expect("device"),
                |gpu| {
                    let cx = Context::new(&gpu, Tolerances::default(), usize::MAX);
                    explain_pixel(&frame, draw, px, None, &cx).expect("explains")
                },
                BatchSize::PerIteration,
            )
        });
    }
    if let Some((draw, n)) = vertex {
        eprintln!("explain: vertex draw {draw} vertex 0, {n} instructions");
        g.bench_function("vertex, fresh device", |b| {
            b.iter_batched(
                || open().expect("device"),
                |gpu| {
                    let cx = Context::new(&gpu, Tolerances::default(), usize::MAX);
                    explain_vertex(&frame, draw, 0, None, &cx).expect("explains")
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
