//! End-to-end capture benchmark (issue: "read a 200 MB capture and build the frame model in at
//! most 1.3x the time of `gzip -dc`; open a trace in O(1) and walk it at 1 GB/s or more").
//!
//! One synthetic game-scale frame (2,000 draws, about 200 MB of captured memory, made by the
//! builder) is written as `.rrc.gz` and as a trace; the group then measures, side by side:
//! - `gzip -dc FILE > /dev/null` (the decompression floor, the system gzip),
//! - `rrc::read_file` + `Frame::from_capture` on the same file,
//! - `Trace::open` alone, and `Trace::open` + `to_capture` + `Frame::from_capture`.

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_capture::{builder, frame::Frame, rrc, trace};
use std::process::{Command, Stdio};
use std::time::Duration;

const DRAWS: usize = 2_000;
const BYTES: usize = 200 << 20;

fn open_frame(c: &mut Criterion) {
    let capture = builder::synthetic::large_frame(DRAWS, BYTES, 1);
    let dir = tempfile::tempdir().expect("temp dir");
    let gz = dir.path().join("large.rrc.gz");
    let rsxt = dir.path().join("large.rsxt");
    let uncompressed = rrc::write_v6_uncompressed(&capture);
    std::fs::write(&gz, rrc::write_v6(&capture)).expect("write rrc.gz");
    std::fs::write(&rsxt, trace::to_bytes(&capture).expect("trace")).expect("write trace");
    eprintln!(
        "synthetic frame: {} draws, {} commands, {} MB uncompressed, {} MB gzip",
        DRAWS,
        capture.commands.len(),
        uncompressed.len() >> 20,
        std::fs::metadata(&gz).map(|m| m.len() >> 20).unwrap_or(0)
    );
    drop(uncompressed);
    drop(capture);

    let mut group = c.benchmark_group("open_frame_200MB_2000_draws");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("gzip -dc (floor)", |b| {
        b.iter(|| {
            let status = Command::new("gzip")
                .arg("-dc")
                .arg(&gz)
                .stdout(Stdio::null())
                .status()
                .expect("run gzip");
            assert!(status.success());
        })
    });
    group.bench_function("rrc::read_file + Frame::from_capture", |b| {
        b.iter(|| {
            let capture = rrc::read_file(&gz).expect("read");
            let frame = Frame::from_capture(&capture).expect("frame");
            assert_eq!(frame.draws.len(), DRAWS);
        })
    });
    group.bench_function("Trace::open", |b| {
        b.iter(|| trace::Trace::open(&rsxt).expect("open"))
    });
    group.bench_function("Trace::open + to_capture + Frame::from_capture", |b| {
        b.iter(|| {
            let t = trace::Trace::open(&rsxt).expect("open");
            let capture = t.to_capture().expect("to_capture");
            let frame = Frame::from_capture(&capture).expect("frame");
            assert_eq!(frame.draws.len(), DRAWS);
        })
    });
    group.finish();
}

criterion_group!(benches, open_frame);
criterion_main!(benches);
