//! `rsxtrace index` end to end (issue 17 item 1): the samples and the level into one database,
//! a truncated capture among them reported and skipped with exit 2 while the others are
//! indexed, indexing again replaces instead of adding, `--remove` takes a capture out, and
//! the JSON summary follows
//! docs/index.md (parsed into types defined here, so a change to the contract breaks this
//! test).

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};

fn rsxtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace")
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Summary {
    captures: usize,
    indexed: usize,
    failed: usize,
    draws: usize,
    rows: BTreeMap<String, u64>,
    warnings: usize,
    database_bytes: u64,
    database_bytes_per_draw: Option<f64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct WarningJson {
    draw: Option<usize>,
    message: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct CaptureJson {
    path: String,
    capture_id: Option<i64>,
    file_name: Option<String>,
    sha256: Option<String>,
    replaced: Option<bool>,
    draws: Option<usize>,
    rows: Option<BTreeMap<String, u64>>,
    warnings: Vec<WarningJson>,
    error: Option<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RemovedJson {
    selector: String,
    capture_id: i64,
    file_name: String,
    sha256: String,
    draws: i64,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct IndexJson {
    database: String,
    removed: Vec<RemovedJson>,
    not_found: Vec<String>,
    captures: Vec<CaptureJson>,
    summary: Summary,
}

fn inputs() -> Vec<PathBuf> {
    let ws = rsxtrace_testkit::workspace!();
    let mut out: Vec<PathBuf> = ["basic", "game", "primitives", "texture_formats"]
        .iter()
        .map(|n| ws.sample(&format!("{n}.rrc.gz")))
        .collect();
    out.push(ws.level_dir().join("level.rrc.gz"));
    out
}

#[test]
fn index_the_samples_with_a_truncated_capture_among_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("all.sqlite");
    let game = std::fs::read(&inputs()[1]).unwrap();
    let truncated = dir.path().join("truncated.rrc.gz");
    std::fs::write(&truncated, &game[..game.len() / 2]).unwrap();
    let mut args: Vec<String> = inputs().iter().map(|p| p.display().to_string()).collect();
    args.insert(2, truncated.display().to_string());
    let db_arg = db.display().to_string();
    let mut full: Vec<&str> = vec!["index"];
    full.extend(args.iter().map(String::as_str));
    full.extend(["--db", &db_arg, "--json", "--quiet"]);
    let out = rsxtrace(&full);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: IndexJson = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report.database, db_arg);
    assert_eq!(report.captures.len(), 6);
    let s = &report.summary;
    assert_eq!((s.captures, s.indexed, s.failed, s.warnings), (6, 5, 1, 0));
    assert_eq!(s.draws, 3 + 2400 + 14 + 36 + 40);
    assert_eq!(s.rows["draw_rows"], s.draws as u64);
    // Each capture's distinct surface and raster states, at least one per capture.
    assert!((5..s.draws as u64).contains(&s.rows["draw_states"]));
    assert_eq!(s.rows["captures"], 5);
    assert!(s.database_bytes > 0);
    let per_draw = s.database_bytes_per_draw.unwrap();
    assert!((per_draw - s.database_bytes as f64 / s.draws as f64).abs() < 1e-6);
    // The new database was put in place whole: nothing else is left beside it.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["all.sqlite", "truncated.rrc.gz"]);
    let bad = &report.captures[2];
    assert_eq!(bad.path, truncated.display().to_string());
    assert!(bad.capture_id.is_none() && bad.rows.is_none() && bad.draws.is_none());
    let error = bad.error.as_deref().unwrap();
    assert!(error.contains("truncated.rrc.gz"), "{error}");
    for (c, path) in report
        .captures
        .iter()
        .filter(|c| c.error.is_none())
        .zip(inputs())
    {
        assert_eq!(c.path, path.display().to_string());
        assert_eq!(
            c.file_name.as_deref(),
            path.file_name().and_then(|n| n.to_str())
        );
        assert_eq!(c.sha256.as_ref().map(String::len), Some(64));
        assert_eq!(c.replaced, Some(false));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert!(c
            .warnings
            .iter()
            .all(|w| w.draw.is_some() || !w.message.is_empty()));
        assert_eq!(
            c.rows.as_ref().unwrap()["draw_rows"],
            c.draws.unwrap() as u64
        );
    }

    // The database holds the five captures; indexing the level again replaces it, exit 0,
    // and the text summary names it.
    let level = inputs()[4].display().to_string();
    let again = rsxtrace(&["index", &level, "--db", &db_arg, "--quiet"]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(text.contains("replaced"), "{text}");
    assert!(text.contains("1 of 1 captures indexed, 40 draws"), "{text}");
    // Per draw of every draw the database holds, not of this run's 40.
    let bytes = std::fs::metadata(&db).unwrap().len();
    let per_draw = format!(" ({:.0} per draw)", bytes as f64 / s.draws as f64);
    assert!(text.contains(&per_draw), "{text}\nexpected {per_draw}");
    let db = rsxtrace_index::Database::open(&db).unwrap();
    let captures: i64 = db
        .connection()
        .query_row("SELECT count(*) FROM captures", [], |r| r.get(0))
        .unwrap();
    assert_eq!(captures, 5);
    let draws: i64 = db
        .connection()
        .query_row("SELECT sum(draws) FROM captures", [], |r| r.get(0))
        .unwrap();
    assert_eq!(draws as usize, s.draws);
}

#[test]
fn a_missing_database_folder_is_an_error() {
    let level = inputs()[4].display().to_string();
    let out = rsxtrace(&[
        "index",
        &level,
        "--db",
        "/nonexistent/dir/x.sqlite",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/dir/x.sqlite"), "{err}");
}

/// `--remove` by file name, by SHA-256 prefix and by id; a selector that matches nothing is
/// exit 2 and the rest is still done; what the removed capture alone brought goes with it.
#[test]
fn remove_takes_a_capture_out() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let db_arg = db.to_str().unwrap();
    let ws = rsxtrace_testkit::workspace!();
    let basic = ws.sample("basic.rrc.gz");
    let level = ws.level_dir().join("level.rrc.gz");
    let out = rsxtrace(&[
        "index",
        basic.to_str().unwrap(),
        level.to_str().unwrap(),
        "--db",
        db_arg,
        "--quiet",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let count = |sql: &str| -> i64 {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    };
    let level_programs = count(
        "SELECT count(*) FROM programs p WHERE EXISTS (SELECT 1 FROM draws d \
         JOIN captures c USING (capture_id) WHERE c.file_name = 'level.rrc.gz' \
         AND (d.vp_key = p.key OR d.fp_key = p.key))",
    );
    assert!(count("SELECT count(*) FROM programs") > level_programs);

    let out = rsxtrace(&[
        "index",
        "--db",
        db_arg,
        "--remove",
        "basic.rrc.gz",
        "--remove",
        "nothing.rrc",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let json: IndexJson = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json.removed.len(), 1);
    assert_eq!(json.removed[0].selector, "basic.rrc.gz");
    assert_eq!(json.removed[0].draws, 3);
    assert_eq!(json.removed[0].file_name, "basic.rrc.gz");
    assert_eq!(json.removed[0].sha256.len(), 64);
    assert_eq!(json.not_found, vec!["nothing.rrc".to_string()]);
    assert!(json.captures.is_empty());
    for table in [
        "draws",
        "draw_rows",
        "draw_states",
        "draw_texture_rows",
        "texture_bindings",
        "constant_runs",
        "block_uses",
        "memory_blocks",
        "captures",
    ] {
        assert_eq!(
            count(&format!(
                "SELECT count(*) FROM {table} WHERE capture_id = {}",
                json.removed[0].capture_id
            )),
            0,
            "{table}"
        );
    }
    // Only the level's programs are left; its draws are all there.
    assert_eq!(count("SELECT count(*) FROM programs"), level_programs);
    assert_eq!(count("SELECT count(*) FROM draws"), 40);
    assert_eq!(
        count(
            "SELECT count(*) FROM textures t WHERE NOT EXISTS \
               (SELECT 1 FROM draw_textures u WHERE u.texture_key = t.key)"
        ),
        0
    );

    // By SHA-256 prefix, in text.
    let sha: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT sha256 FROM captures", [], |r| r.get(0))
        .unwrap();
    let out = rsxtrace(&["index", "--db", db_arg, "--remove", &sha[..12]]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("removed capture") && text.contains("level.rrc.gz"),
        "{text}"
    );
    assert_eq!(count("SELECT count(*) FROM captures"), 0);
    assert_eq!(count("SELECT count(*) FROM programs"), 0);
    assert_eq!(count("SELECT count(*) FROM textures"), 0);

    // Neither captures nor --remove: a usage error.
    assert_eq!(rsxtrace(&["index", "--db", db_arg]).status.code(), Some(2));
}
