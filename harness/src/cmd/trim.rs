//! `rsxtrace trim`: a capture cut down to a range of draws (apitrace's `trim`), for a bug
//! report or a test case: it replays those draws as `replay --draws` does from the whole file
//! (`rsxtrace_capture::trim`; docs/trim.md).

use crate::exit::Status;
use crate::output::print_json;
use anyhow::Context;
use clap::Args;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::trim::trim;
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use serde_json::json;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TrimArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// The draws to keep, A..B (0-based, B excluded; `A..=B`, `A..` to the last; `N` alone =
    /// N..N+1). The parts of one BEGIN/END stay together.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: DrawRange,
    /// The trimmed capture, written as RPCS3 writes RRC v6 (one gzip member).
    #[arg(long)]
    pub out: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &TrimArgs) -> anyhow::Result<Status> {
    let capture = rsxtrace_capture::open::open_capture(&args.file)?;
    let frame = Frame::from_capture(&capture)
        .with_context(|| format!("cannot decode the frame of {}", args.file.display()))?;
    let range = args.draws.resolve(frame.draws.len())?;
    let (trimmed, report) = trim(&capture, &frame, range)?;
    let written = super::rrc_out::write(&trimmed, &args.out)?;
    let file_bytes = std::fs::metadata(&args.file).map(|m| m.len()).ok();
    if args.json {
        print_json(&json!({
            "out": args.out.display().to_string(),
            "draws": [report.draws.start, report.draws.end],
            "commands": [report.commands.0, report.commands.1],
            "blocks": [report.blocks.0, report.blocks.1],
            "data_bytes": [report.data_bytes.0, report.data_bytes.1],
            "file_bytes": [file_bytes, written],
        }))?;
    } else {
        let r = &report;
        outln!(
            "wrote {}: draws {}..{} of {} (the trimmed frame's draws 0..{}), {} of {} commands, {} of {} memory blocks, {} of {} bytes of memory, {} bytes{}",
            args.out.display(),
            r.draws.start,
            r.draws.end,
            frame.draws.len(),
            r.draws.len(),
            r.commands.1,
            r.commands.0,
            r.blocks.1,
            r.blocks.0,
            r.data_bytes.1,
            r.data_bytes.0,
            written,
            file_bytes.map_or(String::new(), |f| format!(" (was {f})")),
        );
    }
    Ok(Status::Success)
}
