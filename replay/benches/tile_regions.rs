//! The captured reads inside tile regions (`render::tile_regions::tiled_reads`, which both
//! renderers run before rendering a frame) on the game sample (`traces/samples/game.rrc.gz`,
//! 2,400 draws) with its tile states replaced by a game's: the colour buffer and the depth
//! buffer tiled, and a 64 KiB region over two of its textures. Beside it, the frame decoding
//! every command does first (`Frame::from_capture`), side by side.
//!
//! `cargo bench -p rsxtrace-replay --bench tile_regions`

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{read_file, Location, TileRegion};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::tile_regions::tiled_reads;

fn bench(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let mut capture = read_file(&path).expect("read the game sample");
    let region = |offset, size, pitch, compression| TileRegion {
        location: Location::Local,
        offset,
        size,
        pitch,
        compression,
        base_tag: 0,
        bank: 0,
    };
    for entry in &mut capture.tiles {
        let tiles = &mut entry.value.tiles;
        tiles[0] = region(0, 0x38_0000, 5120, 8).pack();
        tiles[1] = region(0x38_0000, 0x39_0000, 5120, 10).pack();
        tiles[2] = region(0x104_0000, 0x1_0000, 1024, 0).pack();
    }
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    assert!(!tiled_reads(&frame, &events, 0..frame.draws.len()).is_empty());
    let mut group = c.benchmark_group("tile_regions_game");
    group.sample_size(20);
    group.bench_function("decode the frame (floor)", |b| {
        b.iter(|| Frame::from_capture(&capture).expect("frame"))
    });
    group.bench_function("tiled reads", |b| {
        b.iter(|| tiled_reads(&frame, &events, 0..frame.draws.len()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
