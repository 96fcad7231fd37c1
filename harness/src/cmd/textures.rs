//! `rsxtrace textures`: per draw, the texture units bound (enabled with a valid state) versus
//! the units the fragment program can sample, and the mismatches either way
//! (`rsxtrace_verify::probe::textures` defines each term). A listing: exit 0, unless
//! `--fail-on-mismatch` is given and some draw has a mismatch (then 1).
//!
//! With `--dump DIR`: every distinct texture written as PNG (DXT also as DDS), named by content
//! hash, with `DIR/index.json` (`rsxtrace_verify::workbench::texture_dump`); units that cannot
//! be decoded are named in warnings (`skipped` in the index). Exit 0.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::Context;
use clap::Args;
use rsxtrace_capture::frame::Frame;
use rsxtrace_verify::probe::textures::{frame_textures, DrawTextures, Reach};
use rsxtrace_verify::workbench::find::collapse;
use rsxtrace_verify::workbench::texture_dump::{dump_textures, DumpOptions, Stage};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct TexturesArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Print a JSON array, one object per draw.
    #[arg(long)]
    pub json: bool,
    /// List only the draws with a mismatch.
    #[arg(long, conflicts_with = "dump")]
    pub mismatches_only: bool,
    /// Exit with status 1 when some draw samples an unbound unit or binds an unsampled one.
    #[arg(long, conflicts_with = "dump")]
    pub fail_on_mismatch: bool,
    /// Write every distinct texture to this directory (PNG, DXT also as DDS, named by content
    /// hash) with an index.json, instead of listing units.
    #[arg(long, value_name = "DIR")]
    pub dump: Option<PathBuf>,
    /// With --dump: only this draw's textures.
    #[arg(long, requires = "dump")]
    pub draw: Option<usize>,
    /// With --dump: every mip level, not only level 0.
    #[arg(long, requires = "dump")]
    pub mips: bool,
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

/// `--dump DIR`: write the textures and print what was written.
fn dump(args: &TexturesArgs, dir: &Path, frame: &Frame) -> anyhow::Result<Status> {
    if let Some(draw) = args.draw {
        super::draw_at(frame, draw)?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let capture = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let options = DumpOptions {
        draw: args.draw,
        mips: args.mips,
    };
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("textures {bar:30} {pos}/{len} draws {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let index = dump_textures(frame, &capture, &options, dir, Some(&bar))?;
    bar.finish_and_clear();
    if args.json {
        print_json(&index)?;
        return Ok(Status::Success);
    }
    let mut t = Table::new(&[
        "name", "format", "size", "layout", ">files", "dds", "used by",
    ]);
    for tex in &index.textures {
        let mut draws: Vec<usize> = tex.uses.iter().map(|u| u.draw).collect();
        draws.dedup();
        let size = match tex.dimension {
            "3d" => format!("{}x{}x{}", tex.width, tex.height, tex.depth),
            "cube" => format!("{}x{} cube", tex.width, tex.height),
            _ => format!("{}x{}", tex.width, tex.height),
        };
        t.row(vec![
            tex.name.clone(),
            tex.format.clone(),
            format!("{size}, {} mips", tex.levels),
            tex.layout.into(),
            tex.files.len().to_string(),
            if tex.dds.is_some() { "yes" } else { "-" }.into(),
            format!(
                "{} {}",
                if draws.len() == 1 { "draw" } else { "draws" },
                collapse(&draws)
            ),
        ]);
    }
    out!("{}", t.render());
    for tex in &index.textures {
        if let Some(region) = tex.tile_region {
            eprintln!(
                "warning: texture {} lies in tile region {region}: RPCS3 keeps that memory in \
                 the tiled order and the dump reads it linearly, so its image may be scrambled",
                tex.name
            );
        }
    }
    for s in &index.skipped {
        match (s.stage, s.unit) {
            (Some(stage), Some(unit)) => eprintln!(
                "warning: draw {} {} texture unit {unit} left out: {}",
                s.draw,
                match stage {
                    Stage::Fragment => "fragment",
                    Stage::Vertex => "vertex",
                },
                s.reason
            ),
            _ => eprintln!("warning: draw {} left out: {}", s.draw, s.reason),
        }
    }
    outln!(
        "wrote {} textures to {} (index.json)",
        index.textures.len(),
        dir.display()
    );
    Ok(Status::Success)
}

pub fn run(args: &TexturesArgs) -> anyhow::Result<Status> {
    let (_capture, frame) = super::load_frame(&args.file)?;
    if let Some(dir) = &args.dump {
        return dump(args, dir, &frame);
    }
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
