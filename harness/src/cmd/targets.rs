//! `rsxtrace targets`: every render target of a frame (colour targets, and depth surfaces a
//! draw tests against), with the draws that render into each, whether it is the output
//! image, the later draws that sample it as a texture, and the tile and Z-cull regions the
//! game bound over it: the addresses `replay --target` and `history --target` take
//! (`rsxtrace_replay::render::target::frame_targets`).

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use clap::Args;
use rsxtrace_capture::rrc::compression_label;
use rsxtrace_replay::render::surface::output_surface;
use rsxtrace_replay::render::target::{frame_targets, FrameTarget};
use rsxtrace_replay::render::Scene;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TargetsArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Print the list as JSON (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &TargetsArgs) -> anyhow::Result<Status> {
    let frame = Scene::open(&args.file)?;
    super::warn_frame_problems(&args.file, &frame);
    let output = output_surface(&frame, &frame.events).map(|o| o.layout);
    let targets = frame_targets(&frame, output.as_ref());
    if args.json {
        print_json(&targets)?;
        return Ok(Status::Success);
    }
    let mut table = Table::new(&[
        "target",
        "kind",
        "format",
        "size",
        "pitch",
        "draws",
        "first..last",
        "sampled by",
        "tile",
        "notes",
    ]);
    for t in &targets {
        table.row(vec![
            format!("{}:0x{:08x}", t.location, t.address),
            if t.depth { "depth" } else { "colour" }.to_string(),
            t.format.to_string(),
            format!("{}x{}", t.width, t.height),
            if t.swizzled {
                "swizzled".to_string()
            } else {
                t.pitch.to_string()
            },
            t.draws.to_string(),
            format!("{}..={}", t.first_draw, t.last_draw),
            match t.first_sampled_by {
                Some(first) => format!("{} draws from {first}", t.sampled_by),
                None => "-".to_string(),
            },
            match t.tile {
                Some(tile) => format!("{} {}", tile.index, compression_label(tile.compression)),
                None => "-".to_string(),
            },
            notes(t),
        ]);
    }
    outln!("{}", table.render().trim_end());
    outln!(
        "{} targets; write one with: rsxtrace replay {} --target ADDRESS --out F.png",
        targets.len(),
        args.file.display()
    );
    Ok(Status::Success)
}

/// The notes column: the output image, stencil writes, the Z-cull region.
fn notes(t: &FrameTarget) -> String {
    let mut notes = Vec::new();
    if t.output {
        notes.push("output".to_string());
    }
    if t.stencil_writes > 0 {
        notes.push(format!("stencil written by {} draws", t.stencil_writes));
    }
    if let Some(zcull) = t.zcull {
        notes.push(format!("Z-cull region {zcull}"));
    }
    notes.join(", ")
}
