//! `rsxtrace stats`: a frame's statistics as RenderDoc's Statistics window shows an API
//! frame's (`rsxtrace_replay::render::statistics`; docs/stats.md): draws by primitive and
//! source, vertices and primitives, passes, state changes between draws, clears, transfers and
//! the method calls by method.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use clap::Args;
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_replay::render::statistics::{share, statistics, FrameStatistics};
use rsxtrace_replay::render::surface::TARGET_NAMES;
use rsxtrace_replay::render::Scene;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// Methods listed in the text table, the most called first (JSON lists them all).
const TOP_METHODS: usize = 15;

/// Passes listed in the text table, in order (JSON lists them all).
const PASSES_SHOWN: usize = 30;

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Count only draws A..B (as `replay --draws`), and the commands and events among them.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Print the statistics as JSON (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &StatsArgs) -> anyhow::Result<Status> {
    let capture = rsxtrace_capture::open::open_capture(&args.file)?;
    let scene = Scene::from_capture(&args.file, &capture)?;
    super::warn_frame_problems(&args.file, &scene.frame);
    let range = draw_range::resolve(args.draws, scene.frame.draws.len())?;
    let s = statistics(&scene.frame, &scene.events, &capture.commands, range);
    drop(capture);
    if args.json {
        print_json(&to_json(&args.file, &s))?;
    } else {
        print_text(args, &s, scene.frame.draws.len())?;
    }
    Ok(Status::Success)
}

fn object<K: ToString, V: Into<Value>>(pairs: impl IntoIterator<Item = (K, V)>) -> Value {
    Value::Object(
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into()))
            .collect::<Map<String, Value>>(),
    )
}

/// The statistics as `stats --json` prints them (docs/stats.md); `diff --json` gives each
/// side's.
pub fn to_json(file: &Path, s: &FrameStatistics) -> Value {
    json!({
        "file": file.display().to_string(),
        "draws": {"start": s.draws.start, "end": s.draws.end},
        "by_primitive": object(s.by_primitive.iter().map(|(p, n)| (p.name(), *n))),
        "by_source": s.by_source,
        "vertices": s.vertices,
        "assembled": {
            "points": s.assembled.points,
            "lines": s.assembled.lines,
            "triangles": s.assembled.triangles,
            "unknown": s.assembled.unknown.iter()
                .map(|(draw, reason)| json!({"draw": draw, "reason": reason}))
                .collect::<Vec<_>>(),
        },
        "programs": s.programs,
        "changes": object(s.changes.iter().copied()),
        "constant_registers_changed": s.constant_registers_changed,
        "textures": s.textures,
        "clears": s.clears,
        "transfers": object(s.transfers.iter().copied()),
        "occlusion": s.occlusion,
        "method_calls": s.method_calls,
        "methods": s.methods,
        "passes": s.passes.iter().map(|p| json!({
            "draws": {"start": p.draws.start, "end": p.draws.end},
            "kind": p.kind.name(),
            "primitives": p.primitives,
            "clears": p.clears,
            "targets": p.targets.iter().map(|t| json!({
                "target": TARGET_NAMES.get(t.index).copied(),
                "location": t.layout.location.name(),
                "address": t.layout.offset,
                "format": t.format.name(),
                "width": t.layout.width,
                "height": t.layout.height,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// The totals two frames are compared on (`rsxtrace diff`), labelled.
pub fn totals(s: &FrameStatistics) -> Vec<(&'static str, u64)> {
    vec![
        ("draws", s.draws.len() as u64),
        ("vertices submitted", s.vertices.total),
        ("vertices shaded", s.vertices.shaded),
        ("triangles", s.assembled.triangles),
        ("lines", s.assembled.lines),
        ("points", s.assembled.points),
        ("passes", s.passes.len() as u64),
        ("clears", s.clears as u64),
        (
            "transfers",
            s.transfers.iter().map(|(_, n)| *n as u64).sum(),
        ),
        ("vertex programs", s.programs.vertex as u64),
        ("fragment programs", s.programs.fragment as u64),
        (
            "texture bindings",
            s.textures.bindings + s.textures.vertex_bindings,
        ),
        ("method calls", s.method_calls),
    ]
}

fn print_text(args: &StatsArgs, s: &FrameStatistics, frame_draws: usize) -> anyhow::Result<()> {
    for (draw, why) in &s.assembled.unknown {
        eprintln!("warning: draw {draw}: primitives not counted: {why}");
    }
    let draws = s.draws.len();
    let mut t = Table::new(&["field", "value"]);
    t.row(vec!["file".into(), args.file.display().to_string()]);
    t.row(vec![
        "draws".into(),
        format!(
            "{}..{} ({draws} of {frame_draws}), {} method calls",
            s.draws.start, s.draws.end, s.method_calls
        ),
    ]);
    for (k, v) in s.summary() {
        t.row(vec![k.to_string(), v]);
    }
    outln!("{}", t.render().trim_end());
    outln!();

    let mut h = Table::new(&["vertices per draw", ">draws", ">share"]);
    for b in &s.vertices.histogram {
        h.row(vec![
            b.label(),
            b.draws.to_string(),
            share(b.draws as u64, draws as u64),
        ]);
    }
    outln!("{}", h.render().trim_end());
    outln!();

    let mut passes = Table::new(&[
        ">pass",
        "draws",
        "kind",
        ">primitives",
        ">clears",
        "targets",
    ]);
    for (n, p) in s.passes.iter().enumerate().take(PASSES_SHOWN) {
        passes.row(vec![
            n.to_string(),
            format!("{}..{}", p.draws.start, p.draws.end),
            p.kind.name().to_string(),
            p.primitives.to_string(),
            p.clears.to_string(),
            p.targets_text(),
        ]);
    }
    outln!("{}", passes.render().trim_end());
    if s.passes.len() > PASSES_SHOWN {
        outln!(
            "({} more passes; --json lists them all)",
            s.passes.len() - PASSES_SHOWN
        );
    }
    outln!();

    let mut c = Table::new(&["state part", ">draws changing it", ">share"]);
    for (part, n) in &s.changes {
        c.row(vec![
            part.to_string(),
            n.to_string(),
            share(*n as u64, draws as u64),
        ]);
    }
    outln!("{}", c.render().trim_end());
    outln!();

    let mut m = Table::new(&["method", ">calls", ">share"]);
    for mc in s.methods.iter().take(TOP_METHODS) {
        m.row(vec![
            mc.method.clone(),
            mc.calls.to_string(),
            share(mc.calls, s.method_calls),
        ]);
    }
    outln!("{}", m.render().trim_end());
    if s.methods.len() > TOP_METHODS {
        outln!(
            "({} more methods; --json lists them all)",
            s.methods.len() - TOP_METHODS
        );
    }
    Ok(())
}
