//! `rsxtrace stats`: a frame's statistics as RenderDoc's Statistics window shows an API
//! frame's (`rsxtrace_replay::render::statistics`; docs/stats.md): draws by primitive and
//! source, vertices and primitives, state changes between draws, clears, transfers and the
//! method calls by method.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use clap::Args;
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_replay::render::statistics::{statistics, FrameStatistics};
use rsxtrace_replay::render::Scene;
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Methods listed in the text table, the most called first (JSON lists them all).
const TOP_METHODS: usize = 15;

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
        print_json(&to_json(args, &s))?;
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

fn to_json(args: &StatsArgs, s: &FrameStatistics) -> Value {
    json!({
        "file": args.file.display().to_string(),
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
        "method_calls": s.method_calls,
        "methods": s.methods,
    })
}

fn share(n: u64, of: u64) -> String {
    format!("{:.1}%", n as f64 * 100.0 / of.max(1) as f64)
}

fn print_text(args: &StatsArgs, s: &FrameStatistics, frame_draws: usize) -> anyhow::Result<()> {
    for (draw, why) in &s.assembled.unknown {
        eprintln!("warning: draw {draw}: primitives not counted: {why}");
    }
    let draws = s.draws.len();
    let listed = |pairs: Vec<(String, usize)>| -> String {
        let shown: Vec<String> = pairs
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k} {n} ({})", share(n as u64, draws as u64)))
            .collect();
        if shown.is_empty() {
            "none".into()
        } else {
            shown.join(", ")
        }
    };
    let mut t = Table::new(&["field", "value"]);
    let mut row = |k: &str, v: String| t.row(vec![k.to_string(), v]);
    row("file", args.file.display().to_string());
    row(
        "draws",
        format!(
            "{}..{} ({draws} of {frame_draws}), {} method calls",
            s.draws.start, s.draws.end, s.method_calls
        ),
    );
    row(
        "by primitive",
        listed(
            s.by_primitive
                .iter()
                .map(|(p, n)| (p.name().to_string(), *n))
                .collect(),
        ),
    );
    let src = &s.by_source;
    row(
        "by source",
        listed(vec![
            ("indexed".into(), src.indexed),
            ("arrays".into(), src.arrays),
            ("inline".into(), src.inline),
            ("elements".into(), src.elements),
            ("immediate".into(), src.immediate),
        ]),
    );
    let v = &s.vertices;
    row(
        "vertices",
        format!(
            "{} submitted, {} to {} per draw, median {}",
            v.total, v.min, v.max, v.median
        ),
    );
    let a = &s.assembled;
    row(
        "assembled",
        format!(
            "{} triangles, {} lines, {} points{}",
            a.triangles,
            a.lines,
            a.points,
            if a.unknown.is_empty() {
                String::new()
            } else {
                format!(" ({} draws not counted)", a.unknown.len())
            }
        ),
    );
    let p = &s.programs;
    row(
        "programs",
        format!(
            "{} vertex, {} fragment ({} counting inline constants)",
            p.vertex, p.fragment, p.fragment_with_constants
        ),
    );
    let tx = &s.textures;
    row(
        "textures",
        format!(
            "{} fragment and {} vertex unit bindings, {} distinct images",
            tx.bindings, tx.vertex_bindings, tx.distinct
        ),
    );
    row("clears", s.clears.to_string());
    let transfers: Vec<String> = s
        .transfers
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    row(
        "transfers",
        if transfers.is_empty() {
            "none".into()
        } else {
            transfers.join(", ")
        },
    );
    row(
        "constants",
        format!(
            "{} transform constant registers changed between draws",
            s.constant_registers_changed
        ),
    );
    outln!("{}", t.render().trim_end());
    outln!();

    let mut h = Table::new(&["vertices per draw", ">draws", ">share"]);
    for b in &v.histogram {
        let bucket = if b.from == b.to {
            b.from.to_string()
        } else {
            format!("{}-{}", b.from, b.to)
        };
        h.row(vec![
            bucket,
            b.draws.to_string(),
            share(b.draws as u64, draws as u64),
        ]);
    }
    outln!("{}", h.render().trim_end());
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
