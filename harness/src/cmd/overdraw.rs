//! `rsxtrace overdraw`: how many fragments the frame's draws rasterize at each pixel of the
//! output image (or of another target), as a heat map PNG, with the draws that rasterize the
//! most (`rsxtrace_replay::render::overdraw`; docs/ci.md).

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::Context;
use clap::Args;
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::render::cpu::render_frame;
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_replay::render::overdraw::{
    overdraw, DrawFragments, Overdraw, PassedCounts, RAMP_TOP,
};
use rsxtrace_replay::render::target::{output_target, target_at, NamedTarget};
use rsxtrace_replay::render::{RenderOptions, Scene};
use serde_json::json;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// Draws listed in the text table, the most fragments first.
const TOP_DRAWS: usize = 10;

#[derive(Args, Debug)]
pub struct OverdrawArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Output PNG: the heat map (0 black; 1 blue, then cyan, green, yellow, to red at 16 and
    /// more fragments).
    #[arg(long)]
    pub out: PathBuf,
    /// Count on the colour target at this address instead of the output image, or on the
    /// depth surface there when no draw renders colour into it (as `replay --target`).
    #[arg(long, value_name = "[LOCATION:]ADDRESS", value_parser = super::history::parse_target)]
    pub target: Option<(Location, u32)>,
    /// Count only draws A..B (as `replay --draws`).
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Also render the draws on the CPU reference and count each one's fragments that passed
    /// every test (alpha, stencil, depth) and were written: what an occlusion query counts.
    /// A draw that rasterizes fragments none of which pass is hidden.
    #[arg(long)]
    pub passed: bool,
    /// With `--passed`: also write the per-pixel heat map of the fragments that passed (the
    /// same ramp), beside the rasterized one.
    #[arg(long, requires = "passed", value_name = "PNG")]
    pub passed_out: Option<PathBuf>,
    /// Print the summary as JSON (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

/// Per draw, the fragments that passed every test (`--passed`).
type Passed = BTreeMap<usize, u64>;

/// What `--passed` counted: per draw, and per pixel of the target.
struct PassedCounted {
    per_draw: Passed,
    per_pixel: Overdraw,
}

/// The CPU render of the range, for each rendered draw its fragments passed and per pixel of
/// `target` the fragments passed there; `None`, with a warning, when the frame cannot be
/// rendered (the rasterized counts still are).
fn passed_fragments(
    scene: &Scene,
    range: Option<Range<usize>>,
    target: &NamedTarget,
) -> Option<PassedCounted> {
    let counts = Arc::new(PassedCounts::new(target));
    let options = RenderOptions {
        draws: range,
        passed_counts: Some(Arc::clone(&counts)),
        ..Default::default()
    };
    let rendered = match render_frame(&scene.frame, &scene.events, &options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("warning: --passed: the CPU render failed, so no fragment is counted as passed: {e}");
            return None;
        }
    };
    for (draw, why) in &rendered.skipped {
        eprintln!(
            "warning: draw {draw}: not rendered, so its passed fragments are not counted: {why}"
        );
    }
    let per_draw: Passed = rendered
        .draw_shading
        .iter()
        .map(|d| (d.draw, d.shading.fragments_passed))
        .collect();
    let draws = rendered
        .draw_shading
        .iter()
        .filter(|d| d.shading.fragments_passed > 0)
        .filter(|d| {
            scene
                .frame
                .draws
                .get(d.draw)
                .is_some_and(|x| counts.counts(x))
        })
        .map(|d| DrawFragments {
            draw: d.draw,
            fragments: d.shading.fragments_passed,
        })
        .collect();
    let per_pixel = counts.to_overdraw(draws);
    Some(PassedCounted {
        per_draw,
        per_pixel,
    })
}

/// Draws of `o` that rasterized fragments and passed none.
fn hidden(o: &Overdraw, passed: &Passed) -> Vec<usize> {
    o.draws
        .iter()
        .filter(|d| d.fragments > 0 && passed.get(&d.draw) == Some(&0))
        .map(|d| d.draw)
        .collect()
}

pub fn run(args: &OverdrawArgs) -> anyhow::Result<Status> {
    let frame = Scene::open(&args.file)?;
    super::warn_frame_problems(&args.file, &frame);
    let range = draw_range::resolve(args.draws, frame.draws.len())?;
    let target: NamedTarget = match args.target {
        Some((location, address)) => target_at(&frame, location, address).with_context(|| {
            format!(
                "no draw renders into a colour or depth target at {} 0x{address:08x}",
                location.name()
            )
        })?,
        None => output_target(&frame, &frame.events)
            .context("no draw writes a usable colour target (no output image)")?,
    };
    let counted = overdraw(&frame, &target, range.clone());
    let counted_passed = if args.passed {
        passed_fragments(&frame, range, &target)
    } else {
        None
    };
    counted
        .heat_map()
        .write_png(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    if let (Some(path), Some(c)) = (&args.passed_out, &counted_passed) {
        c.per_pixel
            .heat_map()
            .write_png(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let passed = counted_passed.as_ref().map(|c| &c.per_draw);
    let per_pixel = counted_passed.as_ref().map(|c| &c.per_pixel);
    if args.json {
        print_json(&summary_json(args, &target, &counted, passed, per_pixel))?;
    } else {
        print_text(args, &target, &counted, passed, per_pixel)?;
    }
    Ok(Status::Success)
}

fn summary_json(
    args: &OverdrawArgs,
    target: &NamedTarget,
    o: &Overdraw,
    passed: Option<&Passed>,
    per_pixel: Option<&Overdraw>,
) -> serde_json::Value {
    let (max, x, y) = o.max();
    let covered = o.covered_pixels();
    let draws: Vec<serde_json::Value> = o
        .draws
        .iter()
        .map(|d| match passed {
            Some(p) => json!({"draw": d.draw, "fragments": d.fragments, "passed": p.get(&d.draw)}),
            None => json!({"draw": d.draw, "fragments": d.fragments}),
        })
        .collect();
    let passed_summary = passed.map(|p| {
        let pixels = per_pixel.map(|m| {
            let (max, x, y) = m.max();
            json!({
                "covered_pixels": m.covered_pixels(),
                "mean_per_covered_pixel": m.mean_per_covered_pixel(),
                "max": {"fragments": max, "x": x, "y": y},
                "histogram": m.histogram(),
                "out": args.passed_out.as_ref().map(|p| p.display().to_string()),
            })
        });
        json!({
            "fragments": o.draws.iter().filter_map(|d| p.get(&d.draw)).sum::<u64>(),
            "hidden_draws": hidden(o, p),
            "pixels": pixels,
        })
    });
    json!({
        "file": args.file.display().to_string(),
        "out": args.out.display().to_string(),
        "target": {
            "location": target.layout.location.name(),
            "address": target.layout.offset,
            "format": target.format.name(),
            "depth": target.format.is_depth(),
        },
        "width": o.width,
        "height": o.height,
        "fragments": o.total(),
        "covered_pixels": covered,
        "mean_per_covered_pixel": o.mean_per_covered_pixel(),
        "max": {"fragments": max, "x": x, "y": y},
        "histogram": o.histogram(),
        "draws": draws,
        "passed": passed_summary,
        "skipped": o.skipped.iter()
            .map(|(draw, reason)| json!({"draw": draw, "reason": reason}))
            .collect::<Vec<_>>(),
    })
}

fn print_text(
    args: &OverdrawArgs,
    target: &NamedTarget,
    o: &Overdraw,
    passed: Option<&Passed>,
    per_pixel: Option<&Overdraw>,
) -> anyhow::Result<()> {
    for (draw, why) in &o.skipped {
        eprintln!("warning: draw {draw}: not counted: {why}");
    }
    let (max, x, y) = o.max();
    let covered = o.covered_pixels();
    let pixels = u64::from(o.width) * u64::from(o.height);
    outln!(
        "{} {}x{} at {}+0x{:x}: {} fragments from {} draws over {} of {} pixels ({:.2} per \
         covered pixel), at most {} at ({}, {})",
        if target.format.is_depth() {
            "depth surface"
        } else {
            "colour target"
        },
        o.width,
        o.height,
        target.layout.location.name(),
        target.layout.offset,
        o.total(),
        o.draws.len(),
        covered,
        pixels,
        o.mean_per_covered_pixel(),
        max,
        x,
        y
    );
    let histogram = o.histogram();
    let listed: Vec<String> = histogram
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, &n)| n > 0)
        .map(|(k, n)| {
            if k as u32 == RAMP_TOP {
                format!("{k}+: {n}")
            } else {
                format!("{k}: {n}")
            }
        })
        .collect();
    outln!("pixels by fragments: {}", listed.join(", "));
    if let Some(p) = passed {
        let total: u64 = o.draws.iter().filter_map(|d| p.get(&d.draw)).sum();
        let hidden: Vec<String> = hidden(o, p).iter().map(|d| d.to_string()).collect();
        outln!(
            "passed every test and written: {total} of {} fragments ({:.1}%); {} draws hidden \
             (fragments rasterized, none passed){}",
            o.total(),
            total as f64 * 100.0 / o.total().max(1) as f64,
            hidden.len(),
            if hidden.is_empty() {
                String::new()
            } else {
                format!(": {}", crate::output::first_of(&hidden, TOP_DRAWS))
            }
        );
    }
    if let Some(m) = per_pixel {
        let (max, x, y) = m.max();
        outln!(
            "passed per pixel: {} of {} pixels written ({:.2} passed fragments per written \
             pixel), at most {max} at ({x}, {y}){}",
            m.covered_pixels(),
            u64::from(m.width) * u64::from(m.height),
            m.mean_per_covered_pixel(),
            args.passed_out
                .as_ref()
                .map(|p| format!("; heat map {}", p.display()))
                .unwrap_or_default()
        );
    }
    let mut top = o.draws.clone();
    top.sort_by(|a, b| b.fragments.cmp(&a.fragments).then(a.draw.cmp(&b.draw)));
    let headers: &[&str] = if passed.is_some() {
        &["draw", "fragments", "share", "passed"]
    } else {
        &["draw", "fragments", "share"]
    };
    let mut table = Table::new(headers);
    let total = o.total().max(1) as f64;
    for d in top.iter().take(TOP_DRAWS) {
        let mut row = vec![
            d.draw.to_string(),
            d.fragments.to_string(),
            format!("{:.1}%", d.fragments as f64 * 100.0 / total),
        ];
        if let Some(p) = passed {
            row.push(p.get(&d.draw).map_or("-".into(), |n| n.to_string()));
        }
        table.row(row);
    }
    outln!("{}", table.render().trim_end());
    outln!(
        "wrote {} (heat map: 0 black; 1 blue, cyan, green, yellow, {RAMP_TOP}+ red)",
        args.out.display()
    );
    Ok(())
}
