//! `rsxtrace history`: pixel history — every clear, image transfer and fragment that reached
//! one pixel of the frame's output image, in order, with each fragment's program output, the
//! test that stopped it or the value it left (the CPU reference render,
//! `rsxtrace_replay::render::history`; docs/history.md).

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::Context;
use clap::Args;
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_replay::render::history::{pixel_history, PixelEvent, PixelHistory};
use rsxtrace_replay::render::{OutputSource, RenderOptions, Scene};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// The output image's pixel as `X,Y` (column, row; row 0 at the top), as `replay` writes
    /// the image.
    #[arg(long, value_name = "X,Y", value_parser = parse_pixel)]
    pub pixel: (u32, u32),
    /// Render only draws A..B (as `replay --draws`): earlier draws' fragments are missing.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Print the history as JSON (docs/history.md).
    #[arg(long)]
    pub json: bool,
}

/// `X,Y` as two non-negative integers.
pub fn parse_pixel(text: &str) -> Result<(u32, u32), String> {
    let (x, y) = text
        .split_once(',')
        .ok_or_else(|| format!("`{text}`: expected X,Y"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|e| format!("`{text}`: {s}: {e}"))
    };
    Ok((number(x)?, number(y)?))
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
    let history = pixel_history(&frame, &frame.events, &options, x, y)
        .with_context(|| format!("cannot take the history of {}", args.file.display()))?;
    if args.json {
        print_json(&history)?;
    } else {
        print_text(&history)?;
    }
    Ok(Status::Success)
}

fn print_text(h: &PixelHistory) -> anyhow::Result<()> {
    let target = match &h.output {
        OutputSource::Displayed { address } => format!("displayed buffer at 0x{address:08x}"),
        OutputSource::LastColorTarget { address, .. } => {
            format!("last colour target at 0x{address:08x}")
        }
    };
    let samples: Vec<String> = h.addresses.iter().map(|a| format!("0x{a:08x}")).collect();
    outln!(
        "pixel ({}, {}) of the output image: {} {}, {} sample{} at {} {}",
        h.pixel.0,
        h.pixel.1,
        target,
        h.format,
        h.addresses.len(),
        if h.addresses.len() == 1 { "" } else { "s" },
        h.location,
        samples.join(", ")
    );
    let fragments = h
        .events
        .iter()
        .filter(|e| matches!(e, PixelEvent::Fragment(_)))
        .count();
    let l = h.last;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    outln!(
        "{} ({}); final value RGBA8 ({}, {}, {}, {})",
        plural(h.events.len(), "event"),
        plural(fragments, "fragment"),
        l[0],
        l[1],
        l[2],
        l[3]
    );
    if h.events.is_empty() {
        outln!("nothing in the rendered draws reached this pixel");
    } else {
        let mut t = Table::new(&[
            "event", ">prim", "face", "shader", ">depth", "result", "before", "after",
        ]);
        for e in &h.events {
            t.row(row(e));
        }
        out!("{}", t.render());
    }
    for (draw, reason) in &h.skipped {
        eprintln!("warning: draw {draw} skipped: {reason}");
    }
    for w in &h.warnings {
        match w.draw {
            Some(d) => eprintln!("warning: draw {d}: {}", w.message),
            None => eprintln!("warning: {}", w.message),
        }
    }
    Ok(())
}

/// A table row of one event.
fn row(e: &PixelEvent) -> Vec<String> {
    let dash = || "-".to_string();
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
            color(before),
            color(after),
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
            color(before),
            color(after),
        ],
        PixelEvent::Fragment(f) => vec![
            if f.sample > 0 || f.output > 0 {
                format!("draw {} (output {}, sample {})", f.draw, f.output, f.sample)
            } else {
                format!("draw {}", f.draw)
            },
            f.primitive.to_string(),
            if f.front { "front" } else { "back" }.into(),
            color(&Some(f.shader)),
            f.depth.map_or_else(dash, |z| format!("{z:.6}")),
            f.outcome.describe().into(),
            color(&f.before),
            color(&f.after),
        ],
    }
}

fn color(c: &Option<[f32; 4]>) -> String {
    match c {
        Some([r, g, b, a]) => format!("({r:.3}, {g:.3}, {b:.3}, {a:.3})"),
        None => "unknown".into(),
    }
}
