//! `rsxtrace index CAPTURE... --db F.sqlite [--json]`: every capture into one SQLite database
//! (`rsxtrace_index`; schema and example queries in docs/index.md), with a progress bar and a
//! summary: per capture, rows per table, warnings.
//!
//! `--remove SELECTOR` (repeatable) first takes captures out: a capture id, a SHA-256 (or a
//! prefix of 8 digits or more) or a file name as indexed; with the programs and textures no
//! other capture uses.
//!
//! Exit status: 0 when every capture was indexed whole (and every `--remove` matched); 2 when
//! something was left out (a capture that cannot be read or decoded, or a part of one, listed
//! as a warning and in the `warnings` table), a `--remove` matched nothing, or the database
//! cannot be written. The other captures are indexed either way.
//!
//! A database that does not exist yet is written aside and put at its path when the run ends
//! (`Database::create`): it appears whole, or not at all.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use clap::Args;
use rsxtrace_index::{index_file, CaptureReport, Database, IndexError, RemovedCapture, Step};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct IndexArgs {
    /// Capture or trace files.
    #[arg(required_unless_present = "remove")]
    pub captures: Vec<PathBuf>,
    /// Remove the captures this names first (a capture id, a SHA-256 or a prefix of 8 hex
    /// digits or more, or a file name as indexed); repeatable.
    #[arg(long, value_name = "SELECTOR")]
    pub remove: Vec<String>,
    /// The database: created when missing; a capture already in it (same SHA-256) is replaced.
    #[arg(long)]
    pub db: PathBuf,
    /// Print the summary as JSON (docs/index.md).
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Warnings printed per capture in text (all are in the database and in --json).
const WARNING_LINES: usize = 10;

#[derive(Serialize)]
struct WarningJson {
    draw: Option<usize>,
    message: String,
}

#[derive(Serialize)]
struct CaptureJson {
    path: String,
    capture_id: Option<i64>,
    file_name: Option<String>,
    sha256: Option<String>,
    replaced: Option<bool>,
    draws: Option<usize>,
    rows: Option<BTreeMap<&'static str, u64>>,
    warnings: Vec<WarningJson>,
    error: Option<String>,
}

#[derive(Serialize)]
struct SummaryJson {
    captures: usize,
    indexed: usize,
    failed: usize,
    draws: usize,
    rows: BTreeMap<&'static str, u64>,
    warnings: usize,
    database_bytes: u64,
    database_bytes_per_draw: Option<f64>,
}

#[derive(Serialize)]
struct RemovedJson {
    selector: String,
    capture_id: i64,
    file_name: String,
    sha256: String,
    draws: i64,
}

#[derive(Serialize)]
struct IndexJson {
    database: String,
    removed: Vec<RemovedJson>,
    not_found: Vec<String>,
    captures: Vec<CaptureJson>,
    summary: SummaryJson,
}

fn bar(quiet: bool, total: usize) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "index {prefix} {bar:30} {pos}/{len} draws {wide_msg} {elapsed}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_prefix(format!("0/{total}"));
    bar
}

pub fn run(args: &IndexArgs) -> anyhow::Result<Status> {
    // A new database is written aside and put in place whole at the end (`Database::create`).
    let mut db = if args.db.exists() {
        Database::open(&args.db)?
    } else {
        Database::create(&args.db)?
    };
    let mut removed: Vec<(String, RemovedCapture)> = Vec::new();
    let mut not_found: Vec<String> = Vec::new();
    for selector in &args.remove {
        let gone = db.remove(selector)?;
        if gone.is_empty() {
            not_found.push(selector.clone());
        }
        removed.extend(gone.into_iter().map(|c| (selector.clone(), c)));
    }
    let bar = bar(args.quiet, args.captures.len());
    let mut results: Vec<(PathBuf, Result<CaptureReport, IndexError>)> = Vec::new();
    for (k, path) in args.captures.iter().enumerate() {
        bar.set_prefix(format!("{}/{}", k + 1, args.captures.len()));
        bar.set_position(0);
        let name = path.display().to_string();
        let result = index_file(&mut db, path, &|step| match step {
            Step::Read => bar.set_message(format!("{name}: reading")),
            Step::Decode => bar.set_message(format!("{name}: decoding")),
            Step::Draws { done, total } => {
                bar.set_length(total);
                bar.set_position(done);
                if done == 1 {
                    bar.set_message(format!("{name}: analysing"));
                }
            }
            Step::Write => bar.set_message(format!("{name}: writing")),
        });
        match result {
            Err(e) if !e.is_capture_error() => {
                bar.finish_and_clear();
                // The failed capture's transaction was rolled back: keep the captures before.
                let error = anyhow::Error::from(e);
                return Err(match db.finish() {
                    Ok(()) => error,
                    Err(f) => error.context(format!("and the database was not kept: {f}")),
                });
            }
            result => results.push((path.clone(), result)),
        }
    }
    bar.finish_and_clear();
    // Every draw the database holds (other runs' too), for its size per draw.
    let database_draws: Option<i64> = db
        .connection()
        .query_row("SELECT count(*) FROM draws", [], |r| r.get(0))
        .ok();
    db.finish()?;
    let database_bytes = std::fs::metadata(&args.db).map(|m| m.len()).unwrap_or(0);

    let mut rows: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut draws, mut warnings, mut failed) = (0usize, 0usize, 0usize);
    for (_, r) in &results {
        match r {
            Ok(r) => {
                draws += r.draws;
                warnings += r.warnings.len();
                for &(table, n) in &r.rows {
                    *rows.entry(table).or_default() += n;
                }
            }
            Err(_) => failed += 1,
        }
    }
    let status = if failed > 0 || warnings > 0 || !not_found.is_empty() {
        Status::Error
    } else {
        Status::Success
    };
    let per_draw = database_draws
        .filter(|&n| n > 0)
        .map(|n| database_bytes as f64 / n as f64);

    if args.json {
        print_json(&IndexJson {
            database: args.db.display().to_string(),
            removed: removed
                .iter()
                .map(|(selector, c)| RemovedJson {
                    selector: selector.clone(),
                    capture_id: c.capture_id,
                    file_name: c.file_name.clone(),
                    sha256: c.sha256.clone(),
                    draws: c.draws,
                })
                .collect(),
            not_found: not_found.clone(),
            captures: results.iter().map(|(p, r)| capture_json(p, r)).collect(),
            summary: SummaryJson {
                captures: results.len(),
                indexed: results.len() - failed,
                failed,
                draws,
                rows,
                warnings,
                database_bytes,
                database_bytes_per_draw: per_draw,
            },
        })?;
        return Ok(status);
    }

    for (selector, c) in &removed {
        outln!(
            "removed capture {} ({}, {} draws, sha256 {}) named by {selector:?}",
            c.capture_id,
            c.file_name,
            c.draws,
            c.sha256
        );
    }
    for selector in &not_found {
        eprintln!(
            "rsxtrace: error: no capture in {} matches {selector:?}",
            args.db.display()
        );
    }
    if results.is_empty() {
        return Ok(status);
    }
    let mut t = Table::new(&["capture", ">id", ">draws", ">rows", ">warnings", "status"]);
    for (path, r) in &results {
        let name = path.display().to_string();
        t.row(match r {
            Ok(r) => vec![
                name,
                r.capture_id.to_string(),
                r.draws.to_string(),
                r.rows.iter().map(|(_, n)| n).sum::<u64>().to_string(),
                r.warnings.len().to_string(),
                if r.replaced { "replaced" } else { "added" }.to_string(),
            ],
            Err(_) => vec![
                name,
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
                "not indexed".into(),
            ],
        });
    }
    out!("{}", t.render());
    for (path, r) in &results {
        match r {
            Err(e) => eprintln!("rsxtrace: error: {}: {}", path.display(), error_text(e)),
            Ok(r) => {
                for w in r.warnings.iter().take(WARNING_LINES) {
                    let at = w.draw.map(|d| format!(" draw {d}")).unwrap_or_default();
                    eprintln!("warning: {}{at}: {}", path.display(), w.message);
                }
                if r.warnings.len() > WARNING_LINES {
                    eprintln!(
                        "warning: {}: ... {} more (table warnings, --json)",
                        path.display(),
                        r.warnings.len() - WARNING_LINES
                    );
                }
            }
        }
    }
    let mut t = Table::new(&["table", ">rows"]);
    for (table, n) in &rows {
        t.row(vec![table.to_string(), n.to_string()]);
    }
    out!("{}", t.render());
    outln!(
        "{} of {} captures indexed, {draws} draws, {warnings} warnings; {} is {} bytes{}",
        results.len() - failed,
        results.len(),
        args.db.display(),
        database_bytes,
        per_draw
            .map(|b| format!(" ({b:.0} per draw)"))
            .unwrap_or_default()
    );
    Ok(status)
}

/// An error with its causes, as `main` prints them.
fn error_text(e: &IndexError) -> String {
    format!("{e}{}", chain(e))
}

fn chain(e: &IndexError) -> String {
    let mut out = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        out.push_str(&format!(": {s}"));
        source = s.source();
    }
    out
}

fn capture_json(path: &std::path::Path, r: &Result<CaptureReport, IndexError>) -> CaptureJson {
    match r {
        Ok(r) => CaptureJson {
            path: path.display().to_string(),
            capture_id: Some(r.capture_id),
            file_name: Some(r.file_name.clone()),
            sha256: Some(r.sha256.clone()),
            replaced: Some(r.replaced),
            draws: Some(r.draws),
            rows: Some(r.rows.iter().copied().collect()),
            warnings: r
                .warnings
                .iter()
                .map(|w| WarningJson {
                    draw: w.draw,
                    message: w.message.clone(),
                })
                .collect(),
            error: None,
        },
        Err(e) => CaptureJson {
            path: path.display().to_string(),
            capture_id: None,
            file_name: None,
            sha256: None,
            replaced: None,
            draws: None,
            rows: None,
            warnings: Vec::new(),
            error: Some(error_text(e)),
        },
    }
}
