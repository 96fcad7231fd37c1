//! `rsxtrace info` / `rsxtrace draws` on a converted trace (issue 14: "converted traces answer
//! `info` and `draws` from an index in the trace"): `overview::open` on a trace written with
//! its frame index, side by side with the same trace without one (the frame decoded, as
//! before the index), for the counts only (`info`) and with the draw list (`draws`).
//!
//! `cargo bench -p rsxtrace-capture --bench overview`

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_capture::overview::{self, frame_index};
use rsxtrace_capture::{builder, frame::Frame, trace};
use std::time::Duration;

const DRAWS: usize = 20_000;
const BYTES: usize = 256 << 20;

fn bench(c: &mut Criterion) {
    let capture = builder::synthetic::large_frame(DRAWS, BYTES, 1);
    let index = frame_index(&Frame::from_capture(&capture).expect("frame"));
    let dir = tempfile::tempdir().expect("temp dir");
    let indexed = dir.path().join("indexed.rsxt");
    let plain = dir.path().join("plain.rsxt");
    let mut bytes = Vec::new();
    trace::write_trace_indexed(&capture, Some(&index), &mut bytes).expect("trace");
    std::fs::write(&indexed, &bytes).expect("write");
    std::fs::write(&plain, trace::to_bytes(&capture).expect("trace")).expect("write");
    eprintln!(
        "synthetic frame: {DRAWS} draws, {} commands, trace {} MiB (+{} KiB of index)",
        capture.commands.len(),
        bytes.len() >> 20,
        (bytes.len() as u64).saturating_sub(std::fs::metadata(&plain).map_or(0, |m| m.len())) >> 10
    );
    drop((capture, bytes));

    let mut group = c.benchmark_group("overview_20000_draws_256MiB");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (name, path, draws) in [
        ("info, indexed trace", &indexed, false),
        ("info, trace without index (decoded)", &plain, false),
        ("draws, indexed trace", &indexed, true),
        ("draws, trace without index (decoded)", &plain, true),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let o = overview::open(path, draws).expect("overview");
                assert_eq!(o.stats.draws, DRAWS);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
