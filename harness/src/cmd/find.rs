//! `rsxtrace find`: where a byte pattern (or a block or buffer region with a given hash) is in
//! a capture, and what the draws use it as (`rsxtrace_verify::workbench::find`). A listing:
//! exit 0 whether or not anything is found (the JSON says how many hits). A spinner on stderr
//! names the step while it works.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::Context;
use clap::Args;
use rsxtrace_verify::workbench::find::{find, FindOptions, Hit, HitKind, Pattern};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("pattern").required(true).multiple(false)))]
pub struct FindArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Search for the contents of this file.
    #[arg(long, group = "pattern")]
    pub bytes: Option<PathBuf>,
    /// Search for these bytes, in hex ("de ad be ef", "0xdeadbeef").
    #[arg(long, group = "pattern")]
    pub hex: Option<String>,
    /// Find blocks and draw buffer regions whose xxh3-64 is this (16 hex digits).
    #[arg(long, group = "pattern")]
    pub xxh3: Option<String>,
    /// Find blocks and draw buffer regions whose SHA-256 is this (64 hex digits).
    #[arg(long, group = "pattern")]
    pub sha256: Option<String>,
    /// Also search every draw's decoded vertex streams (little-endian f32 components).
    #[arg(long)]
    pub decoded: bool,
    /// Stop after this many hits.
    #[arg(long, default_value_t = 1000)]
    pub max_hits: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

fn pattern(args: &FindArgs) -> anyhow::Result<Pattern> {
    let parsed = if let Some(path) = &args.bytes {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Pattern::bytes(bytes).with_context(|| format!("{} is empty", path.display()))?
    } else if let Some(hex) = &args.hex {
        Pattern::hex(hex)?
    } else if let Some(h) = &args.xxh3 {
        Pattern::xxh3(h)?
    } else if let Some(h) = &args.sha256 {
        Pattern::sha256(h)?
    } else {
        anyhow::bail!("give one of --bytes, --hex, --xxh3, --sha256");
    };
    if args.decoded && !matches!(parsed, Pattern::Bytes(_)) {
        anyhow::bail!("--decoded searches for bytes (--bytes or --hex), not a hash");
    }
    Ok(parsed)
}

fn block_text(hit: &Hit) -> String {
    let Some(first) = hit.blocks.first() else {
        return "-".into();
    };
    let more = match hit.blocks.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    format!(
        "0x{:08x} ({} bytes, command {}{more})",
        first.offset, first.size, first.command
    )
}

/// A spinner on stderr naming the step (hidden when stderr is not a terminal): reading a
/// 650 MB capture takes seconds, the search itself a fraction of that.
fn spinner() -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("find {spinner} {wide_msg} {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

pub fn run(args: &FindArgs) -> anyhow::Result<Status> {
    let pattern = pattern(args)?;
    let bar = spinner();
    bar.set_message(format!("reading and decoding {}", args.file.display()));
    let loaded = super::load_frame(&args.file);
    let (_capture, frame) = match loaded {
        Ok(l) => l,
        Err(e) => {
            bar.finish_and_clear();
            return Err(e);
        }
    };
    let options = FindOptions {
        decoded: args.decoded,
        max_hits: args.max_hits,
    };
    bar.set_message(format!(
        "searching {} blocks and {} draws",
        frame.memory_index().attachments(),
        frame.draws.len()
    ));
    let report = find(&frame, &pattern, &options);
    bar.finish_and_clear();
    if args.json {
        print_json(&report)?;
        return Ok(Status::Success);
    }
    let p = &report.pattern;
    let what = match p.len {
        Some(n) => format!("{n} bytes {}", p.value),
        None => format!("{} {}", p.kind, p.value),
    };
    let s = &report.searched;
    let mut searched = format!(
        "{} blocks ({} distinct, {} bytes)",
        s.blocks, s.blobs, s.bytes
    );
    if s.regions > 0 {
        searched.push_str(&format!(", {} draw buffer regions", s.regions));
    }
    if args.decoded {
        searched.push_str(&format!(
            ", {} decoded vertex streams ({} bytes)",
            s.decoded_streams, s.decoded_bytes
        ));
    }
    searched.push_str(&format!(
        ", {} vertex programs ({} bytes)",
        s.vertex_programs, s.vertex_program_bytes
    ));
    outln!("pattern: {what}");
    outln!("searched: {searched}");
    let mut t = Table::new(&["location", "address", "kind", "block", "used as"]);
    for hit in &report.hits {
        let kind = match hit.kind {
            HitKind::Memory => "memory",
            HitKind::Block => "block",
            HitKind::Region => "region",
            HitKind::Decoded => "decoded",
            HitKind::VertexProgram => "vertex program",
        };
        let uses = if hit.uses.is_empty() {
            "no draw reads it".to_string()
        } else {
            hit.uses
                .iter()
                .map(|u| u.describe())
                .collect::<Vec<_>>()
                .join("; ")
        };
        t.row(vec![
            hit.location.map_or_else(
                || "program".to_string(),
                |l| format!("{l:?}").to_lowercase(),
            ),
            format!("0x{:08x}", hit.address),
            kind.into(),
            block_text(hit),
            uses,
        ]);
    }
    if !report.hits.is_empty() {
        out!("{}", t.render());
    }
    for s in &report.skipped {
        match s.draw {
            Some(d) => outln!("warning: draw {d} {}: {} (not searched)", s.what, s.reason),
            None => outln!("warning: {}: {} (not searched)", s.what, s.reason),
        }
    }
    if report.truncated {
        outln!(
            "warning: stopped at {} hits (--max-hits); there are more",
            args.max_hits
        );
    }
    outln!("{} hits", report.hits.len());
    Ok(Status::Success)
}
