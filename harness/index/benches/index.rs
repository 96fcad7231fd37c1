//! `rsxtrace index` speed (issue 17 item 7: "index of the game-scale sample and of a 650 MB
//! synthetic capture, as a ratio to `gzip -dc` of the same file in one run (target at most
//! 2x); database size per draw").
//!
//! One group per file, each measuring three things side by side:
//! - `gzip -dc FILE > /dev/null` (the system gzip: the decompression floor);
//! - [`index_file`] of the file into a new database file (read, decode, analyse, write,
//!   commit, put in place), what `rsxtrace index FILE --db F` does for a new `F`;
//! - SQLite alone writing the same rows (`sqlite floor`): a new database made the same way,
//!   every table's rows copied by `INSERT INTO … SELECT * FROM` the database `index_file`
//!   made, in one transaction. No reading, decoding, analysis or parameter binding: what the
//!   schema's rows cost to store, below which no `index_file` can go.
//!
//! The files: `traces/samples/game.rrc.gz` (2,400 draws); issue 14's game-scale capture
//! (`rsxtrace_scenes::game_scale`, 2,000 draws and 57 MB, or the size `RSXTRACE_GAME_SCALE`
//! names: `2k`, `8k`, `20k`); and the benchmarks' 650 MiB capture of
//! `rsxtrace_scenes::large_capture` (4,000 draws). The generated ones are written once under
//! `$CARGO_TARGET_DIR/bench-data/` (about a minute the first time) and reused. Before the
//! groups, the bench prints the database size per draw of each and the ratio of the two
//! medians of a few untimed-by-criterion runs, so the figures of one run sit together.
//!
//! `cargo bench -p rsxtrace-index --bench index` (`-- index_game/`, `-- game_scale` or
//! `-- large` for one group).

use criterion::{criterion_group, criterion_main, Criterion};
use rsxtrace_index::{index_file, Database};
use rsxtrace_scenes::large_capture::{cached_file, LargeCaptureOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn gzip_dc(path: &Path) {
    let status = Command::new("gzip")
        .arg("-dc")
        .arg(path)
        .stdout(Stdio::null())
        .status()
        .expect("run gzip (the bench compares with the system gzip)");
    assert!(status.success(), "gzip -dc {}", path.display());
}

/// Index `path` into a new database under `dir`; returns the database's size and the draws.
fn index(path: &Path, dir: &Path) -> (u64, usize) {
    let db_path = dir.join("bench.sqlite");
    remove_database(&db_path);
    let mut db = Database::create(&db_path).expect("database");
    let report = index_file(&mut db, path, &|_| {}).expect("index");
    db.finish().expect("put the database in place");
    let bytes = std::fs::metadata(&db_path).map(|m| m.len()).unwrap_or(0);
    (bytes, report.draws)
}

/// Remove a database file and its WAL files.
fn remove_database(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

/// SQLite alone storing the rows of the database at `source`: a new database under `dir`
/// made as [`index`] makes it ([`Database::create`]), every table copied in one transaction,
/// put in place.
fn copy_rows(source: &Path, dir: &Path) {
    let db_path = dir.join("floor.sqlite");
    remove_database(&db_path);
    let db = Database::create(&db_path).expect("database");
    let conn = db.connection();
    conn.execute("ATTACH ?1 AS source", [source.to_string_lossy()])
        .expect("attach");
    let copies: String = rsxtrace_index::tables::all()
        .iter()
        .filter(|t| t.view.is_none())
        .map(|t| format!("INSERT INTO main.{0} SELECT * FROM source.{0};", t.name))
        .collect();
    conn.execute_batch(&format!("BEGIN; {copies} COMMIT; DETACH source;"))
        .expect("copy rows");
    db.finish().expect("put the database in place");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Print the database size per draw and the index / gzip and SQLite floor / gzip ratios of
/// `runs` runs of each, interleaved. Leaves the last index in `dir/bench.sqlite`.
fn summary(name: &str, path: &Path, dir: &Path, runs: usize) {
    let (mut ix, mut gz, mut floor) = (Vec::new(), Vec::new(), Vec::new());
    let mut size = (0, 0);
    let source = dir.join("bench.sqlite");
    for _ in 0..runs {
        let t = Instant::now();
        gzip_dc(path);
        gz.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        size = index(path, dir);
        ix.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        copy_rows(&source, dir);
        floor.push(t.elapsed().as_secs_f64());
    }
    let (i, g, f) = (median(ix), median(gz), median(floor));
    eprintln!(
        "{name}: {} draws, file {} bytes; index {:.3} s, gzip -dc {:.3} s: ratio {:.2}x; \
         SQLite alone storing the same rows {:.3} s = {:.2}x gzip -dc; database {} bytes, \
         {:.0} bytes per draw",
        size.1,
        std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        i,
        g,
        i / g,
        f,
        f / g,
        size.0,
        size.0 as f64 / size.1.max(1) as f64
    );
}

fn group(c: &mut Criterion, name: &str, path: &Path, measurement: Duration) {
    let dir = tempfile::tempdir().expect("temp dir");
    summary(name, path, dir.path(), 3);
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.measurement_time(measurement);
    group.bench_function("gzip -dc (floor)", |b| b.iter(|| gzip_dc(path)));
    group.bench_function("index_file", |b| b.iter(|| index(path, dir.path())));
    // A copy of the database: `index` above rewrites `bench.sqlite` on every iteration.
    let source = dir.path().join("source.sqlite");
    std::fs::copy(dir.path().join("bench.sqlite"), &source).expect("copy the index");
    group.bench_function("sqlite floor", |b| {
        b.iter(|| copy_rows(&source, dir.path()))
    });
    group.finish();
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| rsxtrace_testkit::workspace!().root().join("target"))
}

fn game(c: &mut Criterion) {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    group(c, "index_game", &path, Duration::from_secs(10));
}

fn game_scale(c: &mut Criterion) {
    use rsxtrace_scenes::game_scale::{self, GameScaleOptions, Size};
    let size = match std::env::var("RSXTRACE_GAME_SCALE") {
        Ok(name) => Size::from_name(&name)
            .unwrap_or_else(|| panic!("RSXTRACE_GAME_SCALE={name:?}: expected 2k, 8k or 20k")),
        Err(_) => Size::Draws2k,
    };
    let workspace = rsxtrace_testkit::workspace!();
    let corpus = workspace.corpus().map(|c| c.dir().to_path_buf());
    let options = GameScaleOptions::of(size, corpus);
    let path = game_scale::cached_file(&options, &target_dir().join("bench-data"))
        .expect("game-scale capture");
    group(
        c,
        &format!("index_game_scale_{}", size.name()),
        &path,
        Duration::from_secs(20),
    );
}

fn large(c: &mut Criterion) {
    let options = LargeCaptureOptions::default();
    let dir = target_dir().join("bench-data");
    let started = Instant::now();
    let path = cached_file(&options, &dir).expect("large capture");
    eprintln!(
        "large capture {} ready in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
    group(c, "index_large_650MiB", &path, Duration::from_secs(90));
}

criterion_group!(benches, game, game_scale, large);
criterion_main!(benches);
