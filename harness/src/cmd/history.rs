//! `rsxtrace history`: pixel history — every clear, image transfer and fragment that reached
//! one pixel of the frame's output image, in order, with each fragment's program output, the
//! test that stopped it or the value it left (the CPU reference render,
//! `rsxtrace_replay::render::history`; docs/history.md).

use crate::exit::Status;
use crate::output::print_json;
use crate::progress::DrawProgress;
use crate::table::Table;
use anyhow::Context;
use clap::Args;
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_replay::render::history::{
    pixel_history_observed, FragmentOutcome, PixelEvent, PixelHistory, Watched,
};
use rsxtrace_replay::render::{OutputSource, RenderOptions, Scene};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// The pixel as `X,Y` (column, row; row 0 at the top): of the output image, as `replay`
    /// writes it, or of the `--target` surface.
    #[arg(long, value_name = "X,Y", value_parser = super::debug::parse_pixel)]
    pub pixel: (u32, u32),
    /// Watch a pixel of the colour target at this address instead of the output image, or
    /// of the depth target there when no draw renders colour into it (`local:0x100000`,
    /// `main:0x...`; local when no location is given): a render-to-texture target, a
    /// G-buffer target, a shadow map. Its layout is that of the last draw that renders into
    /// it.
    #[arg(long, value_name = "[LOCATION:]ADDRESS", value_parser = parse_target)]
    pub target: Option<(Location, u32)>,
    /// Render only draws A..B (as `replay --draws`): earlier draws' fragments are missing.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Print the history as JSON (docs/history.md).
    #[arg(long)]
    pub json: bool,
}

/// `[local:|main:]ADDRESS`, the address in hex (`0x`) or decimal.
pub fn parse_target(text: &str) -> Result<(Location, u32), String> {
    let (location, address) = match text.split_once(':') {
        Some(("local", a)) => (Location::Local, a),
        Some(("main", a)) => (Location::Main, a),
        Some((other, _)) => return Err(format!("`{other}`: the location is local or main")),
        None => (Location::Local, text),
    };
    Ok((location, crate::cli::parse_u32(address)?))
}

pub fn run(args: &HistoryArgs) -> anyhow::Result<Status> {
    let frame = Scene::open(&args.file)?;
    super::warn_frame_problems(&args.file, &frame);
    let draws = draw_range::resolve(args.draws, frame.draws.len())?;
    let options = RenderOptions {
        draws,
        ..Default::default()
    };
    let (x, y) = args.pixel;
    let watched = match args.target {
        Some((location, address)) => Watched::Target(location, address),
        None => Watched::Output,
    };
    let drawn = options
        .draws
        .as_ref()
        .map_or(frame.draws.len(), |r| r.len());
    let mut progress = DrawProgress::new("history", drawn);
    let history = pixel_history_observed(
        &frame,
        &frame.events,
        &options,
        watched,
        (x, y),
        &mut progress,
    );
    progress.finish();
    let history =
        history.with_context(|| format!("cannot take the history of {}", args.file.display()))?;
    if args.json {
        print_json(&history)?;
    } else {
        print_text(&history)?;
        // The fragment that set the final value, to step through its program.
        let last_written = history.events.iter().rev().find_map(|e| match e {
            PixelEvent::Fragment(f) if f.outcome == FragmentOutcome::Written => Some(f),
            _ => None,
        });
        if let Some(f) = last_written {
            outln!(
                "last written by draw {}: rsxtrace debug {} --draw {} --pixel {},{} --trace",
                f.draw,
                args.file.display(),
                f.draw,
                f.window_pixel.0,
                f.window_pixel.1
            );
        }
    }
    Ok(Status::Success)
}

fn print_text(h: &PixelHistory) -> anyhow::Result<()> {
    let s = &h.surface;
    let surface = format!(
        "{} 0x{:08x}, {} {}x{}",
        s.location, s.address, s.format, s.width, s.height
    );
    let what = match &s.output {
        Some(OutputSource::Displayed { .. }) => {
            format!("the output image (the displayed buffer, {surface})")
        }
        Some(OutputSource::LastColorTarget { .. }) => {
            format!("the output image (the last colour target, {surface})")
        }
        Some(OutputSource::NoColorTarget) => format!("the target {surface}"),
        None if s.depth => format!("the depth target {surface}"),
        None => format!("the colour target {surface}"),
    };
    let samples: Vec<String> = h.addresses.iter().map(|a| format!("0x{a:08x}")).collect();
    outln!(
        "pixel ({}, {}) of {what}; {} at {}",
        h.pixel.0,
        h.pixel.1,
        if h.addresses.len() == 1 {
            "1 sample".to_string()
        } else {
            format!("{} samples", h.addresses.len())
        },
        samples.join(", ")
    );
    let fragments = h
        .events
        .iter()
        .filter(|e| matches!(e, PixelEvent::Fragment(_)))
        .count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let last = match (h.last, h.value) {
        (Some(l), _) => format!(
            "RGBA8 ({}, {}, {}, {}) in the image",
            l[0], l[1], l[2], l[3]
        ),
        (None, Some([z, s, ..])) if h.surface.depth => depth(
            Some(z),
            h.surface.format.starts_with("z24").then_some(s as u8),
        ),
        (None, value) => color(&value),
    };
    outln!(
        "{} ({}); final value {last}",
        plural(h.events.len(), "event"),
        plural(fragments, "fragment"),
    );
    if h.events.is_empty() {
        outln!("nothing in the rendered draws reached this pixel");
    } else {
        let mut t = Table::new(&[
            "event", ">prim", "face", "shader", ">depth", "result", "before", "after",
        ]);
        for e in &h.events {
            t.row(row(e, h.surface.depth, h.surface.format.starts_with("z24")));
        }
        out!("{}", t.render());
    }
    if !h.not_drawn.is_empty() {
        let listed: Vec<String> = h.not_drawn.iter().map(|c| c.draw.to_string()).collect();
        outln!(
            "left out by conditional rendering (their occlusion report counted no sample): {} \
             ({})",
            plural(h.not_drawn.len(), "draw"),
            crate::output::first_of(&listed, 10)
        );
    }
    crate::output::print_render_problems(&h.skipped, &h.warnings);
    Ok(())
}

/// A table row of one event; `on_depth`: the watched surface is a depth target (with a
/// stencil byte: `stencil`).
fn row(e: &PixelEvent, on_depth: bool, stencil: bool) -> Vec<String> {
    let dash = || "-".to_string();
    // A clear's or a transfer's value: RGBA, or (depth, stencil, 0, 0).
    let value = |v: &Option<[f32; 4]>| match v {
        Some([z, s, ..]) if on_depth => depth(Some(*z), stencil.then_some(*s as u8)),
        _ => color(v),
    };
    match e {
        PixelEvent::Clear {
            command,
            before,
            after,
            ..
        } => vec![
            format!("clear (command {command})"),
            dash(),
            dash(),
            dash(),
            dash(),
            "cleared".into(),
            value(before),
            value(after),
        ],
        PixelEvent::Transfer {
            command,
            before,
            after,
            ..
        } => vec![
            format!("transfer (command {command})"),
            dash(),
            dash(),
            dash(),
            dash(),
            "copied".into(),
            value(before),
            value(after),
        ],
        PixelEvent::Fragment(f) => vec![
            match f.output {
                Some(n) if f.sample > 0 || n > 0 => {
                    format!("draw {} (output {n}, sample {})", f.draw, f.sample)
                }
                None if f.sample > 0 => format!("draw {} (sample {})", f.draw, f.sample),
                _ => format!("draw {}", f.draw),
            },
            f.primitive.to_string(),
            if f.front { "front" } else { "back" }.into(),
            color(&Some(f.shader)),
            f.depth.map_or_else(dash, |z| format!("{z:.6}")),
            f.outcome.describe().into(),
            match f.output {
                Some(_) => color(&f.before),
                None => depth(f.depth_before, f.stencil_before),
            },
            match f.output {
                Some(_) => color(&f.after),
                None => depth(f.depth_after, f.stencil_after),
            },
        ],
    }
}

/// A depth target's value: depth, and stencil when the format has it.
fn depth(z: Option<f32>, stencil: Option<u8>) -> String {
    match (z, stencil) {
        (Some(z), Some(s)) => format!("z {z:.6}, stencil {s}"),
        (Some(z), None) => format!("z {z:.6}"),
        _ => "unknown".into(),
    }
}

fn color(c: &Option<[f32; 4]>) -> String {
    match c {
        Some([r, g, b, a]) => format!("({r:.3}, {g:.3}, {b:.3}, {a:.3})"),
        None => "unknown".into(),
    }
}
