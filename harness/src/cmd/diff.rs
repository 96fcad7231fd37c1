//! `rsxtrace diff A B`: two captures' frames side by side (apitrace's `diff-state`, across
//! draws): the draws aligned by what they draw, and per aligned pair the state, constants,
//! inline constants and vertex data that differ (`rsxtrace_capture::diff`; docs/diff.md).

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::{bail, Context};
use clap::Args;
use rsxtrace_capture::diff::{diff_draws, diff_frames_with, DiffOptions, DrawDiff, FrameDiff};
use rsxtrace_capture::frame::Frame;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::statistics::{statistics, FrameStatistics};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Differing draws listed in the text output unless `--all`.
const LISTED: usize = 40;
/// Differences named per draw in the text table.
const NAMED: usize = 3;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// Capture or trace file A.
    pub a: PathBuf,
    /// Capture or trace file B.
    pub b: PathBuf,
    /// Every difference of draw N of A and the draw of B aligned with it (or, with
    /// `--with M`, draw M of B).
    #[arg(long, value_name = "N")]
    pub draw: Option<usize>,
    /// With `--draw`: compare with this draw of B instead of the aligned one.
    #[arg(long, value_name = "M", requires = "draw")]
    pub with: Option<usize>,
    /// List every differing draw (the text lists the first 40).
    #[arg(long)]
    pub all: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A side's frame and, when `counted`, its statistics (`rsxtrace stats`), counted while its
/// capture is open.
fn frame(path: &Path, counted: bool) -> anyhow::Result<(Frame, Option<FrameStatistics>)> {
    let capture = rsxtrace_capture::open::open_capture(path)?;
    let frame = Frame::from_capture(&capture)
        .with_context(|| format!("cannot decode the frame of {}", path.display()))?;
    let stats = counted.then(|| {
        let events = FrameEvents::from_capture(&capture, &frame);
        statistics(&frame, &events, &capture.commands, None)
    });
    Ok((frame, stats))
}

pub fn run(args: &DiffArgs) -> anyhow::Result<Status> {
    // The two files are read and decoded side by side (most of the time on large captures).
    let (a, b) = std::thread::scope(|s| {
        // One draw's differences need no statistics.
        let counted = args.draw.is_none();
        let b = s.spawn(move || frame(&args.b, counted));
        let a = frame(&args.a, counted);
        (a, b.join())
    });
    let (a, stats_a) = a?;
    let (b, stats_b) = match b {
        Ok(b) => b?,
        Err(_) => bail!("reading {} failed", args.b.display()),
    };
    let spans = |unit, texture: &_| rsxtrace_replay::texture::texture_spans(unit, texture).ok();
    let options = DiffOptions {
        texture_spans: Some(&spans),
    };
    let diff = diff_frames_with(&a, &b, options);
    if let Some(n) = args.draw {
        return one_draw(args, &a, &b, &diff, n, options);
    }
    if args.json {
        print_json(&json!({
            "a": args.a.display().to_string(),
            "b": args.b.display().to_string(),
            "identical": diff.is_identical(),
            "diff": diff,
            "statistics": {
                "a": stats_a.as_ref().map(|s| super::stats::to_json(&args.a, s)),
                "b": stats_b.as_ref().map(|s| super::stats::to_json(&args.b, s)),
            },
        }))?;
    } else {
        print_frames(args, &a, &diff)?;
        if let (Some(sa), Some(sb)) = (&stats_a, &stats_b) {
            print_statistics(sa, sb)?;
        }
    }
    Ok(status(diff.is_identical()))
}

fn status(identical: bool) -> Status {
    if identical {
        Status::Success
    } else {
        Status::Finding
    }
}

fn one_draw(
    args: &DiffArgs,
    a: &Frame,
    b: &Frame,
    diff: &FrameDiff,
    n: usize,
    options: DiffOptions<'_>,
) -> anyhow::Result<Status> {
    if n >= a.draws.len() {
        bail!(
            "draw {n} is not in {} ({} draws)",
            args.a.display(),
            a.draws.len()
        );
    }
    let m = match args.with.or_else(|| diff.partner_of(n)) {
        Some(m) if m < b.draws.len() => m,
        Some(m) => bail!(
            "draw {m} is not in {} ({} draws)",
            args.b.display(),
            b.draws.len()
        ),
        None => bail!(
            "draw {n} of {} has no aligned draw in {} (its vertex program, primitive or \
             vertex count is not there in order); name one with --with M",
            args.a.display(),
            args.b.display()
        ),
    };
    let d = diff_draws(a, n, b, m, options)
        .with_context(|| format!("draw {n} of A or draw {m} of B is not in its frame"))?;
    if args.json {
        print_json(&json!({
            "a": args.a.display().to_string(),
            "b": args.b.display().to_string(),
            "aligned": args.with.is_none(),
            "identical": d.count() == 0,
            "draw": d,
        }))?;
        return Ok(status(d.count() == 0));
    }
    outln!(
        "draw {n} of {} and draw {m} of {}{}: {}",
        args.a.display(),
        args.b.display(),
        if args.with.is_some() {
            ""
        } else {
            " (aligned)"
        },
        count_text(d.count())
    );
    if !d.fields.is_empty() {
        let mut t = Table::new(&["state field", "A", "B"]);
        for f in &d.fields {
            t.row(vec![f.field.clone(), value_text(&f.a), value_text(&f.b)]);
        }
        outln!("\n{}", t.render().trim_end());
    }
    if !d.constants.is_empty() {
        let mut t = Table::new(&["constant", "A", "B"]);
        for c in &d.constants {
            t.row(vec![format!("c[{}]", c.register), vec4(c.a), vec4(c.b)]);
        }
        outln!("\n{}", t.render().trim_end());
    }
    if !d.inline_constants.is_empty() {
        let mut t = Table::new(&["inline constant", "A", "B"]);
        for c in &d.inline_constants {
            t.row(vec![format!("slot {}", c.slot), vec4(c.a), vec4(c.b)]);
        }
        outln!("\n{}", t.render().trim_end());
    }
    if !d.data.is_empty() {
        let mut t = Table::new(&["bytes read", "A (xxh3)", "B (xxh3)"]);
        for c in &d.data {
            let h = |x: &Option<String>| x.clone().unwrap_or_else(|| "-".into());
            t.row(vec![c.what.clone(), h(&c.a), h(&c.b)]);
        }
        outln!("\n{}", t.render().trim_end());
    }
    Ok(status(d.count() == 0))
}

fn print_frames(args: &DiffArgs, a: &Frame, diff: &FrameDiff) -> anyhow::Result<()> {
    outln!("A  {}: {} draws", args.a.display(), diff.draws_a);
    outln!("B  {}: {} draws", args.b.display(), diff.draws_b);
    outln!(
        "aligned {} draws in {} run{}: {} identical, {} differ; only in A: {}; only in B: {}",
        diff.matched,
        diff.aligned.len(),
        if diff.aligned.len() == 1 { "" } else { "s" },
        diff.identical,
        diff.differing.len(),
        ranges_text(&diff.only_a),
        ranges_text(&diff.only_b),
    );
    if diff.differing.is_empty() {
        return Ok(());
    }
    let shown = if args.all {
        diff.differing.len()
    } else {
        LISTED.min(diff.differing.len())
    };
    let mut t = Table::new(&[
        ">A",
        ">B",
        "primitive",
        ">vertices",
        ">differences",
        "first",
    ]);
    for d in &diff.differing[..shown] {
        let draw = &a.draws[d.a];
        t.row(vec![
            d.a.to_string(),
            d.b.to_string(),
            draw.primitive.name().to_string(),
            draw.vertex_count.to_string(),
            d.count().to_string(),
            first_differences(d),
        ]);
    }
    outln!("\n{}", t.render().trim_end());
    if shown < diff.differing.len() {
        outln!(
            "... {} more differing draws (--all lists them, --json gives everything)",
            diff.differing.len() - shown
        );
    }
    outln!(
        "\nEvery difference of one draw: rsxtrace diff {} {} --draw N",
        args.a.display(),
        args.b.display()
    );
    Ok(())
}

/// The two frames' statistics side by side where they differ (`rsxtrace stats` for the rest).
fn print_statistics(a: &FrameStatistics, b: &FrameStatistics) -> anyhow::Result<()> {
    // (name, A, B) of the totals that differ.
    let rows: Vec<(&str, u64, u64)> = super::stats::totals(a)
        .into_iter()
        .zip(super::stats::totals(b))
        .filter(|((_, x), (_, y))| x != y)
        .map(|((name, x), (_, y))| (name, x, y))
        .collect();
    if rows.is_empty() {
        outln!("\nstatistics: the same (rsxtrace stats gives them)");
        return Ok(());
    }
    let mut t = Table::new(&["statistic", ">A", ">B", ">B - A"]);
    for (name, x, y) in rows {
        t.row(vec![
            name.to_string(),
            x.to_string(),
            y.to_string(),
            format!("{:+}", i128::from(y) - i128::from(x)),
        ]);
    }
    outln!("\n{}", t.render().trim_end());
    Ok(())
}

/// The first few differences of a draw, named.
fn first_differences(d: &DrawDiff) -> String {
    let mut names: Vec<String> = Vec::new();
    names.extend(
        d.fields
            .iter()
            .map(|f| format!("{}: {} -> {}", f.field, value_text(&f.a), value_text(&f.b))),
    );
    names.extend(d.constants.iter().map(|c| format!("c[{}]", c.register)));
    names.extend(
        d.inline_constants
            .iter()
            .map(|c| format!("inline constant slot {}", c.slot)),
    );
    names.extend(d.data.iter().map(|c| format!("{} bytes", c.what)));
    let more = names.len().saturating_sub(NAMED);
    names.truncate(NAMED);
    let mut text = names.join("; ");
    if more > 0 {
        text.push_str(&format!("; {more} more"));
    }
    text
}

fn count_text(n: usize) -> String {
    match n {
        0 => "identical".into(),
        1 => "1 difference".into(),
        n => format!("{n} differences"),
    }
}

/// A JSON value for a table cell: strings without quotes, long values cut.
fn value_text(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

fn vec4(v: Option<[f32; 4]>) -> String {
    v.map_or_else(
        || "unknown".into(),
        |v| format!("({}, {}, {}, {})", v[0], v[1], v[2], v[3]),
    )
}

/// `none`, or the indices as ranges: `0..100, 120, 130..2400`.
fn ranges_text(indices: &[usize]) -> String {
    if indices.is_empty() {
        return "none".into();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut start = indices[0];
    let mut end = start + 1;
    for &i in &indices[1..] {
        if i == end {
            end += 1;
            continue;
        }
        parts.push(range_text(start, end));
        start = i;
        end = i + 1;
    }
    parts.push(range_text(start, end));
    let s = if indices.len() == 1 { "" } else { "s" };
    format!("{} draw{s} ({})", indices.len(), parts.join(", "))
}

fn range_text(start: usize, end: usize) -> String {
    if end == start + 1 {
        start.to_string()
    } else {
        format!("{start}..{end}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_compressed() {
        assert_eq!(ranges_text(&[]), "none");
        assert_eq!(ranges_text(&[3]), "1 draw (3)");
        assert_eq!(ranges_text(&[0, 1, 2, 5, 7, 8]), "6 draws (0..3, 5, 7..9)");
    }
}
