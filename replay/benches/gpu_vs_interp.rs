//! The reference interpreter against the recompiled programs on the device, side by side in
//! one run:
//! - `vertex`: one 100 000-vertex batch of a 20-instruction transform-and-lighting program,
//!   `run_vertex` (f32) against `Gpu::run_vertex_compute` (pipeline already cached: one
//!   warm-up run first), plus `vertex_pipeline_creation`: the first run of a module the cache
//!   has not seen (shader compile and pipeline creation, with a 64-vertex dispatch);
//! - `shade`: `shade` of ps3autotests `rsx_fp_static_test2` at 720 × 480 against `shade_gpu`
//!   of its recompilation (pipeline cached by a warm-up run).
//!
//! Without an adapter the device benches are skipped after a loud message; without the corpus
//! (`../shared/corpus` beside the workspace root) the `shade` group is skipped after
//! "CORPUS MISSING". Before timing, the device's results are checked against the
//! interpreter's, so that a broken path is never timed.

#[path = "../tests/vertex_interp_support/mod.rs"]
mod vertex_interp_support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_gpu::{shade_gpu, Gpu, GpuError, GpuOptions, VP_CONSTANTS};
use rsxtrace_program::vertex::{ScalarOpcode as S, VectorOpcode as V, VertexProgram};
use rsxtrace_replay::interp::vertex::{run_vertex, VertexEnvironment, VertexOptions};
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::shade::{load_program_file, shade};
use rsxtrace_replay::texture::NoTextures;
use rsxtrace_wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_wgsl::vertex::{translate, VertexTranslateOptions};
use rsxtrace_wgsl::WgslModule;
use vertex_interp_support::*;

const VERTICES: usize = 100_000;
const SHADE_W: u32 = 720;
const SHADE_H: u32 = 480;

/// 20 slots: HPOS by 4 DP4 of v[0] with c[256..259]; the normal v[2] through c[260..262],
/// normalised (DP3, RSQ, MUL); N·L against c[263] clamped by MAX; diffuse and ambient
/// (MUL, ADD) times the vertex colour v[3] (MAD) to COL0; COL1 and two texture coordinates
/// from v[8] (MUL, ADD, MAD, MOV).
fn bench_program() -> VertexProgram {
    let mut insns = Vec::new();
    for (row, m) in ["x", "y", "z", "w"].into_iter().enumerate() {
        insns.push(
            I::vec_out(V::Dp4, 0, m)
                .s0(v())
                .s1(c())
                .input(0)
                .konst(256 + row as u16),
        );
    }
    for (row, m) in ["x", "y", "z"].into_iter().enumerate() {
        insns.push(
            I::vec_temp(V::Dp3, 0, m)
                .s0(v())
                .s1(c())
                .input(2)
                .konst(260 + row as u16),
        );
    }
    insns.extend([
        I::vec_temp(V::Dp3, 1, "x").s0(r(0)).s1(r(0)),
        I::sca_temp(S::Rsq, 1, "y").s2(sw(r(1), "xxxx")),
        I::vec_temp(V::Mul, 2, "xyz").s0(r(0)).s1(sw(r(1), "yyyy")),
        I::vec_temp(V::Dp3, 3, "x").s0(r(2)).s1(c()).konst(263),
        I::vec_temp(V::Max, 3, "x").s0(r(3)).s1(c()).konst(264),
        I::vec_temp(V::Mul, 4, "xyzw")
            .s0(sw(r(3), "xxxx"))
            .s1(c())
            .konst(265),
        I::vec_temp(V::Add, 4, "xyzw").s0(r(4)).s2(c()).konst(266),
        I::vec_out(V::Mad, 1, "xyzw")
            .s0(r(4))
            .s1(v())
            .s2(c())
            .input(3)
            .konst(267),
        I::vec_temp(V::Mul, 5, "xyzw")
            .s0(v())
            .s1(c())
            .input(8)
            .konst(268),
        I::vec_out(V::Add, 7, "xyzw").s0(r(5)).s2(c()).konst(269),
        I::vec_out(V::Mad, 8, "xyzw")
            .s0(v())
            .s1(c())
            .s2(r(5))
            .input(8)
            .konst(270),
        I::vec_out(V::Mov, 2, "xyzw").s0(r(2)),
        I::vec_out(V::Mul, 9, "xyzw").s0(r(4)).s1(r(5)).end(),
    ]);
    assert_eq!(insns.len(), 20);
    program(&insns)
}

/// c[256..270].
fn constant_values() -> Vec<(usize, [f32; 4])> {
    (256..=270)
        .map(|i| (i, [0.5 + i as f32 * 0.01, -0.25, 0.75, 1.0]))
        .collect()
}

/// Vertex i: position, normal, colour and texture coordinate varying with i.
fn inputs() -> Vec<[[f32; 4]; 16]> {
    (0..VERTICES)
        .map(|i| {
            let f = i as f32 * 1e-3;
            vertex_with(&[
                (0, [f, -f, 0.5 * f, 1.0]),
                (2, [0.3, 1.0, f.sin(), 0.0]),
                (3, [0.8, 0.5, 0.25, 1.0]),
                (8, [f, 1.0 - f, 0.0, 1.0]),
            ])
        })
        .collect()
}

/// A device, or `None` after a loud message (`rsxtrace-testkit`'s adapter policy).
fn device() -> Option<Gpu> {
    let gpu = rsxtrace_testkit::device::open_or_skip(
        "the device benches of gpu_vs_interp",
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )?;
    eprintln!("gpu_vs_interp: device {}", gpu.info());
    Some(gpu)
}

/// `module` with a comment appended: equal code under a source hash the cache has not seen.
fn fresh_copy(module: &WgslModule, n: u64) -> WgslModule {
    let source = format!("{}\n// bench copy {n}\n", module.source);
    let (m, info) = rsxtrace_wgsl::validate(&source).expect("the copy validates");
    WgslModule {
        source,
        module: m,
        info,
        hash: module.hash,
    }
}

fn vertex_benches(c: &mut Criterion, gpu: Option<&Gpu>) {
    let p = bench_program();
    let steps = p.instructions.len();
    let values = constant_values();
    let bank = constants(&values);
    let env = VertexEnvironment::new(&bank);
    let inputs = inputs();
    let options = VertexOptions {
        arithmetic: Arithmetic::F32,
        ..VertexOptions::default()
    };
    let mut g = c.benchmark_group("gpu_vs_interp/vertex");
    g.sample_size(10);
    g.throughput(Throughput::Elements(VERTICES as u64));
    g.bench_function("interpreter_f32_100k_x_20", |b| {
        b.iter(|| {
            let out = run_vertex(&p, &[], &env, black_box(&inputs), &options).expect("runs");
            assert_eq!(out.total_steps, (VERTICES * steps) as u64);
            black_box(out)
        })
    });
    let Some(gpu) = gpu else {
        g.finish();
        return;
    };
    let module = translate(&p, &[], &VertexTranslateOptions::default()).expect("translates");
    let mut bank = Box::new([[0f32; 4]; VP_CONSTANTS]);
    for (i, v) in &values {
        bank[*i] = *v;
    }
    // Warm-up (creates and caches the pipeline), checked against the interpreter.
    let start = Instant::now();
    let out = gpu
        .run_vertex_compute(&module, &bank, &inputs, 0)
        .expect("device run");
    eprintln!(
        "gpu_vs_interp: first 100k-vertex device run (with pipeline creation) {:?}",
        start.elapsed()
    );
    let cpu = run_vertex(&p, &[], &env, &inputs, &options).expect("runs");
    let mut worst = 0f32;
    for (gv, cv) in out.iter().zip(&cpu.lanes) {
        assert_eq!(gv.written, cv.written, "written masks");
        for (gr, cr) in gv.registers.iter().zip(&cv.registers) {
            for (g, c) in gr.iter().zip(cr) {
                let c = *c as f32;
                worst = worst.max((g - c).abs() / c.abs().max(1.0));
            }
        }
    }
    eprintln!("gpu_vs_interp: device vs interpreter, largest relative difference {worst:e}");
    assert!(worst < 1e-5, "device and interpreter disagree ({worst})");
    g.bench_function("device_100k_x_20", |b| {
        b.iter(|| {
            black_box(
                gpu.run_vertex_compute(&module, &bank, black_box(&inputs), 0)
                    .expect("device run"),
            )
        })
    });
    g.finish();

    let mut g = c.benchmark_group("gpu_vs_interp/vertex_pipeline_creation");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    let small = &inputs[..64];
    let mut n = 0u64;
    g.bench_function("first_run_64_vertices", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                let copy = fresh_copy(&module, n);
                let start = Instant::now();
                black_box(
                    gpu.run_vertex_compute(&copy, &bank, small, 0)
                        .expect("device run"),
                );
                total += start.elapsed();
            }
            total
        })
    });
    g.bench_function("cached_run_64_vertices", |b| {
        b.iter(|| {
            black_box(
                gpu.run_vertex_compute(&module, &bank, black_box(small), 0)
                    .expect("device run"),
            )
        })
    });
    g.finish();
}

fn shade_benches(c: &mut Criterion, gpu: Option<&Gpu>) {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let loaded = load_program_file(corpus.path("ps3autotests/rsx_fp_static_test2.fpo"), &[])
        .expect("load rsx_fp_static_test2");
    let pixels = u64::from(SHADE_W) * u64::from(SHADE_H);
    let mut g = c.benchmark_group("gpu_vs_interp/shade");
    g.sample_size(10);
    g.throughput(Throughput::Elements(pixels));
    g.bench_function("interpreter_f32_rsx_fp_static_test2_720x480", |b| {
        b.iter(|| {
            black_box(
                shade(
                    &loaded.program,
                    loaded.control,
                    SHADE_W,
                    SHADE_H,
                    &NoTextures,
                    Arithmetic::F32,
                )
                .expect("shade"),
            )
        })
    });
    if let Some(gpu) = gpu {
        let module = rsxtrace_wgsl::fragment::translate(
            &loaded.program,
            &FragmentTranslateOptions::with_control(loaded.control),
        )
        .expect("translate rsx_fp_static_test2");
        let start = Instant::now();
        let image = shade_gpu(gpu, &module, SHADE_W, SHADE_H).expect("shade_gpu");
        eprintln!(
            "gpu_vs_interp: first shade_gpu (with pipeline creation) {:?}",
            start.elapsed()
        );
        assert_eq!(image.pixels.len() as u64, pixels);
        g.bench_function("device_rsx_fp_static_test2_720x480", |b| {
            b.iter(|| black_box(shade_gpu(gpu, &module, SHADE_W, SHADE_H).expect("shade_gpu")))
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let gpu = device();
    vertex_benches(c, gpu.as_ref());
    shade_benches(c, gpu.as_ref());
}

criterion_group!(benches, bench);
criterion_main!(benches);
