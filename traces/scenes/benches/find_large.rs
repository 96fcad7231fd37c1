//! `rsxtrace find` on the 650 MiB synthetic capture (`rsxtrace_scenes::large_capture`, built
//! once and kept under the target directory), issue 17 item 2 (target: a search in under 2 s):
//!
//! - `load`: read the gzip file and decode the frame (what every command does first; not part
//!   of the search);
//! - `blocks/hit`: the raw block search (`rsxtrace_capture::frame::search::search_blocks`)
//!   for 64 bytes of a mid-frame draw's index buffer;
//! - `find/index_buffer`: the whole `find` for the same bytes, its hits mapped to the draws and
//!   roles that read them (every draw's memory uses worked out);
//! - `find/texture`: the whole `find` for 4 KiB of a texture in the middle of the frame;
//! - `find/miss`: 16 bytes that are nowhere (a full scan, no mapping);
//! - `find/xxh3`, `find/sha256`: a hash pattern: every blob and every distinct draw buffer
//!   region hashed;
//! - `find/decoded`: 12 bytes (an attribute 0 element read as big-endian floats, written as
//!   little-endian ones) searched in every decoded vertex stream too.
//!
//! Run with `cargo bench -p rsxtrace-scenes --bench find_large`. The first run builds and
//! writes the capture (about a minute). The bench sits in this crate because the generator is
//! here and a verify dev-dependency on this crate would point against the layering.

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_capture::frame::search::search_blocks;
use rsxtrace_capture::frame::Frame;
use rsxtrace_scenes::large_capture::{cached_file, LargeCaptureOptions};
use rsxtrace_verify::workbench::bytes::read_range;
use rsxtrace_verify::workbench::find::{find, FindOptions, Pattern};
use rsxtrace_verify::workbench::uses::{frame_uses, Role};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where the capture is kept: the target directory's `tmp` (cargo's own, whatever
/// `CARGO_TARGET_DIR` was when the bench was built).
fn capture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-captures")
}

/// `len` bytes of the first use with `role` of the draw halfway through the frame (or later).
fn pattern_of(frame: &Frame, wanted: fn(&Role) -> bool, len: u64) -> Vec<u8> {
    let uses = frame_uses(frame);
    let half = frame.draws.len() / 2;
    let u = uses
        .uses
        .iter()
        .find(|u| u.draw >= half && wanted(&u.role) && u.len >= len)
        .expect("a use to take a pattern from");
    let draw = &frame.draws[u.draw];
    read_range(
        frame.memory_index(),
        draw.end_command,
        u.location,
        u.offset,
        len,
    )
    .expect("its bytes")
    .into_owned()
}

fn bench(c: &mut Criterion) {
    let options = LargeCaptureOptions::default();
    let started = Instant::now();
    let path = cached_file(&options, &capture_dir()).expect("the large capture");
    eprintln!(
        "find_large: {} ready in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
    let load = || {
        let capture = rsxtrace_capture::rrc::read_file(&path).expect("capture reads");
        let frame = Frame::from_capture(&capture).expect("frame decodes");
        (capture, frame)
    };
    let (capture, frame) = load();
    eprintln!(
        "find_large: {} draws, {} MiB of distinct memory in {} blobs",
        frame.draws.len(),
        capture.memory_bytes() >> 20,
        capture.data.len()
    );
    let indices = pattern_of(&frame, |r| *r == Role::IndexBuffer, 64);
    let texels = pattern_of(&frame, |r| matches!(r, Role::Texture { .. }), 4096);
    let decoded = pattern_of(&frame, |r| *r == Role::Attribute { attribute: 0 }, 12);
    let options = FindOptions::default();
    let mut group = c.benchmark_group("find_large");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("load", |b| b.iter(load));
    group.bench_function("blocks/hit", |b| {
        b.iter(|| search_blocks(frame.memory_index(), &indices, 1000))
    });
    let hit = Pattern::Bytes(indices.clone());
    let report = find(&frame, &hit, &options);
    eprintln!(
        "find_large: index buffer pattern: {} hits, {} uses",
        report.hits.len(),
        report.hits.iter().map(|h| h.uses.len()).sum::<usize>()
    );
    group.bench_function("find/index_buffer", |b| {
        b.iter(|| find(&frame, &hit, &options))
    });
    let texture = Pattern::Bytes(texels);
    group.bench_function("find/texture", |b| {
        b.iter(|| find(&frame, &texture, &options))
    });
    let miss = Pattern::Bytes(b"\x00rsxtrace-miss\xFF".to_vec());
    group.bench_function("find/miss", |b| b.iter(|| find(&frame, &miss, &options)));
    let xxh3 = Pattern::Xxh3(xxhash_rust::xxh3::xxh3_64(&indices));
    group.bench_function("find/xxh3", |b| b.iter(|| find(&frame, &xxh3, &options)));
    let mut sha = [0u8; 32];
    sha[0] = 1; // matches nothing: every blob and region hashed
    let sha256 = Pattern::Sha256(sha);
    group.bench_function("find/sha256", |b| {
        b.iter(|| find(&frame, &sha256, &options))
    });
    let with_decoded = FindOptions {
        decoded: true,
        ..options
    };
    let floats: Vec<u8> = decoded
        .chunks(4)
        .flat_map(|c| f32::from_be_bytes([c[0], c[1], c[2], c[3]]).to_le_bytes())
        .collect();
    let decoded = Pattern::Bytes(floats);
    group.bench_function("find/decoded", |b| {
        b.iter(|| find(&frame, &decoded, &with_decoded))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
