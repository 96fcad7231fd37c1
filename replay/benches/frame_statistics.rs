//! `rsxtrace stats` on the game sample (`traces/samples/game.rrc.gz`, 2,400 draws): the
//! statistics (`render::statistics`: every draw's positions, index buffers read for restarts,
//! primitives counted, state compared with the draw before, the method census) beside the
//! frame decoding every command does first (`Frame::from_capture`), side by side.
//!
//! `cargo bench -p rsxtrace-replay --bench frame_statistics`

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::read_file;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::statistics::statistics;

fn bench(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let capture = read_file(&path).expect("read the game sample");
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let mut group = c.benchmark_group("frame_statistics_game");
    group.sample_size(20);
    group.bench_function("decode the frame (floor)", |b| {
        b.iter(|| Frame::from_capture(&capture).expect("frame"))
    });
    group.bench_function("statistics", |b| {
        b.iter(|| statistics(&frame, &events, &capture.commands, None))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
