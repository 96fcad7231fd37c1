//! `rsxtrace textures`: per draw, the texture units bound (enabled with a valid state) versus
//! the units the fragment program can sample, and the mismatches either way
//! (`rsxtrace_verify::probe::textures` defines each term). A listing: exit 0, unless
//! `--fail-on-mismatch` is given and some draw has a mismatch (then 1).

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use clap::Args;
use rsxtrace_verify::probe::textures::{frame_textures, DrawTextures, Reach};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TexturesArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Print a JSON array, one object per draw.
    #[arg(long)]
    pub json: bool,
    /// List only the draws with a mismatch.
    #[arg(long)]
    pub mismatches_only: bool,
    /// Exit with status 1 when some draw samples an unbound unit or binds an unsampled one.
    #[arg(long)]
    pub fail_on_mismatch: bool,
}

fn units(list: &[u8]) -> String {
    if list.is_empty() {
        "-".into()
    } else {
        list.iter().map(u8::to_string).collect::<Vec<_>>().join(" ")
    }
}

fn sampled_text(d: &DrawTextures) -> String {
    if d.sampled.is_empty() {
        return "-".into();
    }
    d.sampled
        .iter()
        .map(|s| {
            let reach = match s.reach {
                Reach::Always => "",
                Reach::Conditional => "?",
                Reach::Unreachable => "x",
            };
            let dead = if s.live { "" } else { "*" };
            format!("{}{reach}{dead}", s.unit)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run(args: &TexturesArgs) -> anyhow::Result<Status> {
    let (_capture, frame) = super::load_frame(&args.file)?;
    let all = frame_textures(&frame);
    let mismatched = all.iter().filter(|d| d.has_mismatch()).count();
    let listed: Vec<&DrawTextures> = all
        .iter()
        .filter(|d| !args.mismatches_only || d.has_mismatch())
        .collect();
    if args.json {
        print_json(&listed)?;
    } else {
        let mut t = Table::new(&[
            ">draw",
            "fp_hash",
            "bound",
            "sampled",
            "sampled_unbound",
            "bound_unsampled",
            "note",
        ]);
        for d in &listed {
            let mut notes: Vec<String> = d
                .invalid
                .iter()
                .map(|i| format!("unit {} enabled but {}", i.unit, i.reason))
                .collect();
            if let Some(p) = &d.problem {
                notes.push(p.clone());
            } else if !d.complete {
                notes.push("flow not fully analysed".into());
            }
            t.row(vec![
                d.draw.to_string(),
                d.fp_hash
                    .as_deref()
                    .map_or("-", |h| super::short_hash(h))
                    .to_string(),
                units(&d.bound),
                sampled_text(d),
                units(&d.sampled_unbound),
                units(&d.bound_unsampled),
                notes.join("; "),
            ]);
        }
        out!("{}", t.render());
        outln!(
            "sampled: ? only under a condition or loop, x unreachable, * cannot influence an output; {mismatched} of {} draws have a mismatch",
            all.len()
        );
    }
    Ok(if args.fail_on_mismatch && mismatched > 0 {
        Status::Finding
    } else {
        Status::Success
    })
}
