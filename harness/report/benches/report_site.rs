//! `rsxtrace report` on the game-scale sample (`traces/samples/game.rrc.gz`): the whole site
//! (one CPU render with the snapshot observer, the images, the pages) for the frame's first
//! 400 draws, and the CPU render of the same draws alone, side by side, so that the cost of
//! the report over the render it needs is read off directly. The bench prints the site's size.
//!
//! `cargo bench -p rsxtrace-report --bench report_site`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_replay::render::cpu::render_frame;
use rsxtrace_replay::render::RenderOptions;
use rsxtrace_report::{build, Loaded, Renderer, ReportOptions};
use std::time::Duration;

/// Draws per iteration (enough for every kind of page work, few enough for two cores).
const DRAWS: usize = 400;

fn bench(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let loaded = Loaded::open(&path).expect("open the game sample");
    let draws = 0..DRAWS.min(loaded.scene.frame.draws.len());
    let out = tempfile::tempdir().expect("tempdir");
    let options = ReportOptions {
        draws: Some(draws.clone()),
        ..ReportOptions::new(&out.path().join("site"))
    };
    let summary = build(&loaded, &options, Renderer::Cpu, None, None).expect("report");
    eprintln!(
        "{} draws: {} pages, {} images, {:.1} MB",
        summary.draws,
        summary.pages,
        summary.images,
        summary.bytes as f64 / 1e6
    );
    let mut group = c.benchmark_group("report_game_400_draws");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(summary.draws as u64));
    group.bench_function("site", |b| {
        b.iter(|| build(&loaded, &options, Renderer::Cpu, None, None).expect("report"))
    });
    let render = RenderOptions {
        draws: Some(draws.clone()),
        ..Default::default()
    };
    group.bench_function("render only", |b| {
        b.iter(|| render_frame(&loaded.scene.frame, &loaded.scene.events, &render).expect("render"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
