//! `rsxtrace match`: names every draw's vertex and fragment program from a program library
//! (files or folders of program sources) by exact content key, with the nearest candidates by
//! structural fingerprint where there is none (`rsxtrace_verify::matching`, docs/batch.md).
//!
//! Text: one row per draw and stage (program names, match kind, score, inline constants),
//! then the programs without an exact match with their candidates and what differs, then
//! totals. `--json`: the report as one JSON document on standard output. Library files that
//! cannot be used are warnings on standard error (and in the JSON) and do not change the
//! status. Exit status: 0 every program named exactly, 1 some program only by nearest
//! candidates or not at all, 2 when the capture cannot be read or no library file can.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use clap::Args;
use rsxtrace_program::container::Stage;
use rsxtrace_program::source::discover;
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_verify::matching::{
    match_frame, DrawMatch, Library, MatchKind, MatchOptions, MatchReport, StageMatch,
    DEFAULT_CANDIDATES,
};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Program sources: files or folders (searched recursively) holding `.vpo`/`.fpo`
    /// containers, PSL1GHT containers, and whatever else `rsxtrace_program::source` reads.
    #[arg(long, value_name = "SOURCE", required = true, num_args = 1..)]
    pub library: Vec<PathBuf>,
    /// Print the report as JSON on standard output (schema in docs/batch.md).
    #[arg(long)]
    pub json: bool,
    /// Draws to match: `A..B` (B excluded), `A..=B`, `A..` or a single index `A`.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Nearest candidates listed per program without an exact match.
    #[arg(long, default_value_t = DEFAULT_CANDIDATES)]
    pub candidates: usize,
}

pub fn run(args: &MatchArgs) -> anyhow::Result<Status> {
    let (_capture, frame) = super::load_frame(&args.file)?;
    let draws = draw_range::resolve(args.draws, frame.draws.len())?;
    let discovery = discover(&args.library);
    for p in &discovery.problems {
        let at = p.offset.map(|o| format!(" at 0x{o:x}")).unwrap_or_default();
        eprintln!(
            "rsxtrace: warning: library file {}{at}: {}",
            p.path.display(),
            p.reason
        );
    }
    if discovery.files_read == 0 {
        let paths: Vec<String> = args
            .library
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        anyhow::bail!("no library file could be read under {}", paths.join(", "));
    }
    let library = Library::from_discovery(discovery);
    let report = match_frame(
        &frame,
        &library,
        &MatchOptions {
            draws,
            candidates: args.candidates,
            capture: args.file.display().to_string(),
        },
    );
    if args.json {
        print_json(&report)?;
    } else {
        print_text(&report)?;
    }
    Ok(if report.all_exact() {
        Status::Success
    } else {
        Status::Finding
    })
}

fn print_text(report: &MatchReport) -> anyhow::Result<()> {
    let mut t = Table::new(&[
        ">draw",
        "stage",
        "program",
        "match",
        ">score",
        "key",
        "inline constants",
    ]);
    for d in &report.draws {
        t.row(stage_row(d, "vertex", Some(&d.vertex), String::new()));
        let constants = d
            .inline_constants
            .iter()
            .map(|c| {
                let v = c.values.map(value);
                format!("slot {}: ({}, {}, {}, {})", c.slot, v[0], v[1], v[2], v[3])
            })
            .collect::<Vec<_>>()
            .join("; ");
        let mut row = stage_row(d, "fragment", d.fragment.as_ref(), constants);
        if d.fragment.is_none() {
            row[2] = d.fragment_problem.clone().unwrap_or_default();
        }
        t.row(row);
    }
    out!("{}", t.render());

    let inexact: Vec<_> = report
        .programs
        .iter()
        .filter(|p| p.kind != MatchKind::Exact)
        .collect();
    if !inexact.is_empty() {
        outln!();
        outln!("programs without an exact match:");
    }
    for p in inexact {
        outln!(
            "  {} {} ({} draws from draw {}): {}",
            stage_name(p.stage),
            p.key,
            p.draws,
            p.first_draw,
            p.kind.name()
        );
        if let Some(note) = &p.note {
            outln!("    {note}");
        }
        for c in &p.candidates {
            let differences = if c.differences.is_empty() {
                "same fingerprint".to_string()
            } else {
                c.differences.join("; ")
            };
            outln!(
                "    {:.3}  {}  {}",
                c.score,
                c.names.join(", "),
                differences
            );
        }
    }
    let s = &report.summary;
    let l = &report.library;
    outln!(
        "{} draws, {} unique programs: {} exact, {} nearest, {} unmatched; {} draws with both programs exact",
        s.draws,
        s.programs,
        s.exact,
        s.nearest,
        s.unmatched,
        s.draws_all_exact
    );
    outln!(
        "library: {} files read, {} vertex and {} fragment programs, {} problems (warnings above)",
        l.files_read,
        l.vertex_programs,
        l.fragment_programs,
        l.problems.len()
    );
    Ok(())
}

fn stage_row(d: &DrawMatch, stage: &str, m: Option<&StageMatch>, constants: String) -> Vec<String> {
    let (program, kind, score, key) = match m {
        Some(m) => (
            if m.names.is_empty() {
                "-".to_string()
            } else {
                m.names.join(", ")
            },
            m.kind.name().to_string(),
            m.score
                .map(|s| format!("{s:.3}"))
                .unwrap_or_else(|| "-".into()),
            super::short_hash(&m.key).to_string(),
        ),
        None => (String::new(), "-".into(), "-".into(), "-".into()),
    };
    vec![
        d.draw.to_string(),
        stage.to_string(),
        program,
        kind,
        score,
        key,
        constants,
    ]
}

/// A constant value, shortest form; very small or large magnitudes in exponent form.
fn value(v: f32) -> String {
    if v != 0.0 && v.is_finite() && (v.abs() < 1e-4 || v.abs() >= 1e7) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vertex",
        Stage::Fragment => "fragment",
    }
}
