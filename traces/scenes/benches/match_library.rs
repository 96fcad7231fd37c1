//! `rsxtrace match` work on the 2,400-draw game sample (`traces/samples/game.rrc.gz`) against
//! a generated 1,500-program library (`rsxtrace_scenes::program_library`, the corpus's
//! containers mixed in when `../shared/corpus` is present), issue 15 item 7 (target < 2 s):
//!
//! - `library`: discover the library folder and build the [`Library`] (read, parse, key and
//!   fingerprint every program);
//! - `match/exact`: [`match_frame`] against a library holding the frame's programs (the
//!   generator's seed is the frame's): every draw by hash lookup;
//! - `match/nearest`: against a library from another seed: the frame's programs it lacks
//!   (most of them) searched by fingerprint over the library's programs of their stage.
//!
//! Frame decoding is not counted (`rsxtrace verify` and `match` share it). Run with
//! `cargo bench -p rsxtrace-scenes --bench match_library`. The bench sits in this crate, not in
//! `verify/benches`, because the library generator is here and a verify dev-dependency on this
//! crate would point against the layering (`harness/tests/layout.rs`).

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::source::discover;
use rsxtrace_scenes::game_frame::GameFrameOptions;
use rsxtrace_scenes::program_library::write_generated_library;
use rsxtrace_verify::matching::{match_frame, Library, MatchOptions};
use std::path::PathBuf;
use std::time::Duration;

/// Programs in the benchmark library.
const PROGRAMS: usize = 1_500;

fn bench(c: &mut Criterion) {
    let workspace = rsxtrace_testkit::workspace!();
    let capture = rsxtrace_capture::rrc::read_file(&workspace.sample("game.rrc.gz"))
        .expect("game sample reads");
    let frame = Frame::from_capture(&capture).expect("game frame decodes");
    let corpus = workspace.corpus().map(|c| c.dir().to_path_buf());
    let seed = GameFrameOptions::default().seed;
    let same = tempfile::tempdir().expect("temp dir");
    let other = tempfile::tempdir().expect("temp dir");
    let written = write_generated_library(same.path(), PROGRAMS, seed, corpus.as_deref())
        .expect("library written");
    write_generated_library(other.path(), PROGRAMS, seed ^ 0x5EED, corpus.as_deref())
        .expect("library written");
    let paths = |dir: &tempfile::TempDir| vec![PathBuf::from(dir.path())];
    let build = |dir: &tempfile::TempDir| Library::from_discovery(discover(&paths(dir)));
    let exact_library = build(&same);
    let nearest_library = build(&other);
    let options = MatchOptions::default();
    let exact = match_frame(&frame, &exact_library, &options);
    let nearest = match_frame(&frame, &nearest_library, &options);
    assert!(exact.all_exact(), "the frame's programs are in the library");
    assert!(
        nearest.summary.nearest > 0,
        "the other seed's library misses programs"
    );
    eprintln!(
        "match_library: {} draws, {} unique programs; library {} programs ({} from the corpus), {} distinct; other seed: {} exact, {} nearest",
        frame.draws.len(),
        exact.summary.programs,
        written.programs(),
        written.corpus,
        exact_library.programs().len(),
        nearest.summary.exact,
        nearest.summary.nearest
    );

    let mut group = c.benchmark_group("match_library");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("library", |b| b.iter(|| build(&same)));
    group.bench_function("match/exact", |b| {
        b.iter(|| match_frame(&frame, &exact_library, &options))
    });
    group.bench_function("match/nearest", |b| {
        b.iter(|| match_frame(&frame, &nearest_library, &options))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
