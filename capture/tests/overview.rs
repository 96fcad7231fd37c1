//! `info` and `draws` from a trace's frame index give exactly what decoding the frame gives,
//! on every bundled sample; a trace without an index, or with one from another frame-model
//! version, is decoded instead.

use rsxtrace_capture::overview::{self, frame_index, Overview};
use rsxtrace_capture::{frame::Frame, rrc, trace};
use std::path::{Path, PathBuf};

fn samples() -> Vec<PathBuf> {
    let workspace = rsxtrace_testkit::workspace!();
    let mut paths = workspace.sample_paths();
    paths.push(workspace.level_dir().join("level.rrc.gz"));
    assert!(paths.len() >= 5, "{paths:?}");
    paths
}

/// `capture` written as a trace at `path`, with `index` when given.
fn write(path: &Path, capture: &rrc::Capture, index: Option<&trace::TraceIndex>) {
    let mut bytes = Vec::new();
    trace::write_trace_indexed(capture, index, &mut bytes).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn without_origin(mut o: Overview) -> Overview {
    o.from_index = false;
    o
}

#[test]
fn the_index_answers_as_the_decoded_frame_does() {
    let dir = tempfile::tempdir().unwrap();
    for sample in samples() {
        let name = sample.file_name().unwrap().to_string_lossy().to_string();
        let capture = rrc::read_file(&sample).unwrap();
        let frame = Frame::from_capture(&capture).unwrap();
        let index = frame_index(&frame);
        assert_eq!(index.draws.len(), frame.draws.len(), "{name}");

        let indexed = dir.path().join(format!("{name}.indexed.rsxt"));
        write(&indexed, &capture, Some(&index));
        let plain = dir.path().join(format!("{name}.plain.rsxt"));
        write(&plain, &capture, None);
        let mut stale_index = index.clone();
        stale_index.frame_model += 1;
        let stale = dir.path().join(format!("{name}.stale.rsxt"));
        write(&stale, &capture, Some(&stale_index));

        for draws in [false, true] {
            let decoded = overview::open(&sample, draws).unwrap();
            assert!(!decoded.from_index);
            assert_eq!(
                decoded.draws.len(),
                if draws { frame.draws.len() } else { 0 }
            );
            let from_index = overview::open(&indexed, draws).unwrap();
            assert!(from_index.from_index, "{name}");
            assert_eq!(
                without_origin(from_index),
                decoded,
                "{name} (draws: {draws})"
            );
            for fallback in [&plain, &stale] {
                let o = overview::open(fallback, draws).unwrap();
                assert!(!o.from_index, "{name}: {}", fallback.display());
                assert_eq!(o, decoded, "{name}: {}", fallback.display());
            }
        }
    }
}

#[test]
fn the_index_round_trips_every_field() {
    let capture = rrc::read_file(&samples()[0]).unwrap();
    let frame = Frame::from_capture(&capture).unwrap();
    let mut index = frame_index(&frame);
    index.frame_problems.push("a problem".into());
    if let Some(d) = index.draws.first_mut() {
        d.problems = vec!["first".into(), "second \u{e9}".into()];
        d.mvp = Some(std::array::from_fn(|k| k as f32 - 0.5));
        d.fp = Some((1, 0x1234_5670));
        d.fp_hash = Some(u64::MAX);
        d.index_width = Some(trace::IndexWidth::U16);
        d.ranges = vec![(0, 3), (u32::MAX, 1)];
    }
    let mut bytes = Vec::new();
    trace::write_trace_indexed(&capture, Some(&index), &mut bytes).unwrap();
    let t = trace::Trace::from_bytes(bytes).unwrap();
    assert_eq!(t.format_version(), (1, 1));
    let view = t.view().unwrap();
    assert_eq!(view.index(true).unwrap().as_ref(), Some(&index));
    let counts_only = view.index(false).unwrap().unwrap();
    assert!(counts_only.draws.is_empty());
    assert_eq!(counts_only.counts, index.counts);
    assert_eq!(counts_only.frame_problems, index.frame_problems);
    // A trace written without one has none, and reads as before.
    let t = trace::Trace::from_bytes(trace::to_bytes(&capture).unwrap()).unwrap();
    assert_eq!(t.view().unwrap().index(true).unwrap(), None);
    assert_eq!(t.to_capture().unwrap(), capture);
}
