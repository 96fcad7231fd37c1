//! CPU replay of the game-scale sample frame (`traces/samples/game.rrc.gz`, 2,400 draws) with
//! the texture cache and without it, side by side (issue 14: "a texture used by a thousand
//! draws is decoded once"). Both renders must give the same image; the bench checks that
//! first and prints the cache's hits and misses.
//!
//! The game sample's textures are small (nine, 67k texels in all), so the frame shows the
//! cache's overhead more than its gain; `texture_unit_1024` measures one mip-mapped
//! 1024x1024 A8R8G8B8 unit, decoded against answered from the cache, as a game's textures are.
//!
//! `replay_cpu_tiles` renders the same 400 draws with every draw on one tile
//! (`Tiling::Off`), with the default tiling (`Tiling::Auto`: bands of 32 rows, draws under
//! `tiles::AUTO_MIN_PIXELS` on one tile) and with bands of 32 rows for every draw that spans
//! two (`Tiling::Rows(32)`, no size threshold), side by side (issue 14 item 2, second half);
//! the three images must be equal.
//!
//! `replay_cpu_band` renders the whole game frame, then bands 1 and 2 of 4 (`replay --shard`,
//! `render::band`: the top band, above most of the geometry, and the busiest band), side by
//! side: what one machine of a 4-job matrix spends against the whole frame. The four bands,
//! merged, must be the whole image.
//!
//! `replay_cpu_early_depth` renders the whole game frame with early depth rejection
//! (`render::cpu::early_depth`: quads whose fragments all fail the depth test go unshaded)
//! and without it, side by side; the images must be equal.
//!
//! `replay_cpu_vertex_stage` runs the vertex stage alone (`render::cpu::vertex::shade_vertices`:
//! fetch of each distinct vertex, the vertex interpreter) over every draw of the game frame,
//! one draw after another as each of the renderer's threads ahead does.
//!
//! `cargo bench -p rsxtrace-replay --bench replay_cpu`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_capture::fetch::FlatMemory;
use rsxtrace_capture::frame::state::{Texture, TextureRegs};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::read_file;
use rsxtrace_replay::render::band::{self, Band, PartInfo};
use rsxtrace_replay::render::cpu::render_frame;
use rsxtrace_replay::render::cpu::vertex::{shade_vertices, OutputsByPosition};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, Tiling};
use rsxtrace_replay::texture::cache::TextureCache;
use rsxtrace_replay::texture::UnitSampler;
use std::time::Duration;

/// Draws rendered per iteration (the first ones of the frame: enough to sample every texture
/// many times, few enough for a bench on two cores).
const DRAWS: usize = 400;

fn bench(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let capture = read_file(&path).expect("read the game sample");
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = |no_texture_cache| RenderOptions {
        draws: Some(0..DRAWS.min(frame.draws.len())),
        no_texture_cache,
        ..Default::default()
    };
    let cached = render_frame(&frame, &events, &options(false)).expect("render");
    let uncached = render_frame(&frame, &events, &options(true)).expect("render");
    assert_eq!(cached.image, uncached.image, "the cache changed the image");
    eprintln!(
        "{} draws: texture cache {:?}; setup {:.3} s with it, {:.3} s without",
        cached.draws_rendered, cached.texture_cache, cached.timings.setup, uncached.timings.setup
    );
    let mut group = c.benchmark_group("replay_cpu_game_400_draws");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(cached.draws_rendered as u64));
    for (name, off) in [("texture cache", false), ("decode per draw", true)] {
        group.bench_function(name, |b| {
            b.iter(|| render_frame(&frame, &events, &options(off)).expect("render"))
        });
    }
    group.finish();
}

fn unit(c: &mut Criterion) {
    // A8R8G8B8 (0x85), swizzled, 2D, 11 levels, no border texels, 1024x1024, nearest
    // (rrc-format.md 4.7 register layout).
    let texture = Texture::from_regs(&TextureRegs {
        offset: 0,
        format: 1 | (1 << 3) | (2 << 4) | (0x85 << 8) | (11 << 16),
        address: 3 | (3 << 8) | (3 << 16),
        control0: (1 << 31) | (12 << 8 << 7),
        control1: 0xAAE4,
        control2: 0,
        filter: (1 << 16) | (1 << 24),
        image_rect: (1024 << 16) | 1024,
        border_color: 0,
        control3: 0,
    });
    let mut x = 0x9E37_79B9u32;
    let memory: FlatMemory = FlatMemory::local(
        (0..6 << 20)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect(),
    );
    let cache = TextureCache::default();
    let decoded = UnitSampler::new(0, &texture, &memory).expect("decode");
    let cached = UnitSampler::cached(0, &texture, &memory, &cache).expect("decode");
    assert_eq!(decoded, cached);
    let mut group = c.benchmark_group("texture_unit_1024");
    group.sample_size(20);
    group.bench_function("decode", |b| {
        b.iter(|| UnitSampler::new(0, &texture, &memory).expect("decode"))
    });
    group.bench_function("cache hit (hash the bytes)", |b| {
        b.iter(|| UnitSampler::cached(0, &texture, &memory, &cache).expect("decode"))
    });
    group.finish();
}

fn tiles(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let capture = read_file(&path).expect("read the game sample");
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = |tiling| RenderOptions {
        draws: Some(0..DRAWS.min(frame.draws.len())),
        tiling,
        ..Default::default()
    };
    let cases = [
        ("one tile", Tiling::Off),
        ("tiles (auto)", Tiling::Auto),
        ("tiles of 32 rows, every draw", Tiling::Rows(32)),
    ];
    let serial = render_frame(&frame, &events, &options(Tiling::Off)).expect("render");
    // The render phase (coverage, shading, per-fragment operations) alone, the cases
    // interleaved over five rounds; the fastest round of each is printed.
    let mut best = [f64::INFINITY; 3];
    for _ in 0..5 {
        for (k, (name, tiling)) in cases.iter().enumerate() {
            let out = render_frame(&frame, &events, &options(*tiling)).expect("render");
            assert_eq!(out.image, serial.image, "{name} changed the image");
            best[k] = best[k].min(out.timings.render);
        }
    }
    for ((name, tiling), best) in cases.iter().zip(best) {
        let out = render_frame(&frame, &events, &options(*tiling)).expect("render");
        eprintln!(
            "{name}: {} of {} draws tiled; render phase {:.1} ms (fastest of 5)",
            out.tiled_draws,
            out.draws_rendered,
            best * 1e3
        );
    }
    let mut group = c.benchmark_group("replay_cpu_tiles_game_400_draws");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(serial.draws_rendered as u64));
    for (name, tiling) in cases {
        group.bench_function(name, |b| {
            b.iter(|| render_frame(&frame, &events, &options(tiling)).expect("render"))
        });
    }
    group.finish();
}

fn early_depth(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let capture = read_file(&path).expect("read the game sample");
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = |no_early_depth| RenderOptions {
        no_early_depth,
        ..Default::default()
    };
    let early = render_frame(&frame, &events, &options(false)).expect("render");
    let every = render_frame(&frame, &events, &options(true)).expect("render");
    assert_eq!(early.image, every.image, "early depth changed the image");
    eprintln!(
        "early depth: {:?}; without: {:?}",
        early.shading, every.shading
    );
    let mut group = c.benchmark_group("replay_cpu_early_depth_game");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(early.draws_rendered as u64));
    for (name, off) in [
        ("early depth rejection", false),
        ("every quad shaded", true),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| render_frame(&frame, &events, &options(off)).expect("render"))
        });
    }
    group.finish();
}

fn bands(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let capture = read_file(&path).expect("read the game sample");
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = |band| RenderOptions {
        band,
        ..Default::default()
    };
    let whole = render_frame(&frame, &events, &options(None)).expect("render");
    let parts: Vec<_> = (1..=4)
        .map(|index| {
            let part = render_frame(&frame, &events, &options(Some(Band { index, count: 4 })))
                .expect("render");
            let outcome = part.band.expect("band");
            assert_eq!(outcome.refused, None);
            eprintln!(
                "band {index}/4 rows {:?}: setup {:.3} s, render {:.3} s (whole: {:.3} s, {:.3} s)",
                outcome.rows,
                part.timings.setup,
                part.timings.render,
                whole.timings.setup,
                whole.timings.render
            );
            let info = PartInfo {
                shard: format!("{index}/4"),
                rows: outcome.rows,
                width: part.image.width,
                height: part.image.height,
                frame: "game".into(),
            };
            (index.to_string(), part.image, info)
        })
        .collect();
    assert_eq!(band::merge(&parts).expect("merge"), whole.image);
    let mut group = c.benchmark_group("replay_cpu_band");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for (name, band) in [
        ("whole frame", None),
        ("band 1 of 4", Some(Band { index: 1, count: 4 })),
        ("band 2 of 4", Some(Band { index: 2, count: 4 })),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| render_frame(&frame, &events, &options(band)).expect("render"))
        });
    }
    group.finish();
}

fn vertex_stage(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let capture = read_file(&path).expect("read the game sample");
    let frame = Frame::from_capture(&capture).expect("frame");
    let shade_all = || {
        let mut vertices = 0usize;
        for (index, draw) in frame.draws.iter().enumerate() {
            let memory = frame.memory(index).expect("memory view");
            let shaded = shade_vertices(draw, &memory).expect("vertex stage");
            vertices += shaded.outputs.len();
        }
        vertices
    };
    let vertices = shade_all();
    eprintln!("{} draws, {vertices} vertex positions", frame.draws.len());
    let mut group = c.benchmark_group("replay_cpu_vertex_stage");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(frame.draws.len() as u64));
    group.bench_function("game_frame", |b| b.iter(shade_all));
    group.finish();
}

criterion_group!(
    benches,
    bench,
    unit,
    tiles,
    early_depth,
    bands,
    vertex_stage
);
criterion_main!(benches);
