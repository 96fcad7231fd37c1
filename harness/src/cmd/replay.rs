//! `rsxtrace replay`: render a captured frame headlessly to a PNG, on a GPU device (the
//! recompiled programs) or on the CPU (`--cpu`, the reference interpreter), optionally only a
//! range of draws and with the output target written after each draw.

use crate::cli::GpuBackend;
use crate::exit::Status;
use anyhow::Context;
use clap::Args;
use rsxtrace_ci::checksum;
use rsxtrace_gpu::{Gpu, GpuOptions};
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_replay::render::{self, RenderOptions, RenderedFrame, Scene};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Output PNG (8-bit RGBA) of the frame's output target.
    #[arg(long)]
    pub out: PathBuf,
    /// Render only draws A..B (0-based, B excluded; `A..=B`, `A..` to the last; `N` alone =
    /// N..N+1). Earlier draws are not
    /// rendered, so their effects on the targets are missing.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Also write the output target after each draw as DIR/draw-NNNN.png.
    #[arg(long, value_name = "DIR")]
    pub per_draw: Option<PathBuf>,
    /// Render on the CPU with the reference interpreter instead of a GPU device.
    #[arg(long)]
    pub cpu: bool,
    /// Graphics backend of the GPU device.
    #[arg(long, value_enum, default_value_t = GpuBackend::Auto, conflicts_with = "cpu")]
    pub backend: GpuBackend,
    /// Print a JSON summary on stdout instead of text.
    #[arg(long)]
    pub json: bool,
}

/// File name of the snapshot after `draw` in a `--per-draw` directory.
pub fn per_draw_name(draw: usize) -> String {
    format!("draw-{draw:04}.png")
}

pub fn run(args: &ReplayArgs) -> anyhow::Result<Status> {
    let frame = Scene::open(&args.file)?;
    let draws = draw_range::resolve(args.draws, frame.draws.len())?;
    let options = RenderOptions {
        draws,
        per_draw: args.per_draw.is_some(),
        ..Default::default()
    };
    let start = Instant::now();
    let (rendered, renderer) = if args.cpu {
        let rendered = render::cpu::render_frame(&frame, &frame.events, &options)
            .with_context(|| format!("cannot render {} on the CPU", args.file.display()))?;
        (rendered, "CPU reference interpreter".to_string())
    } else {
        crate::output::private_runtime_dir();
        let gpu = Gpu::new(GpuOptions {
            backend: args.backend.backend(),
        })?;
        let rendered = render::gpu::render_frame(&gpu, &frame, &frame.events, &options)
            .with_context(|| format!("cannot render {} on the GPU", args.file.display()))?;
        (rendered, format!("GPU: {}", gpu.info().adapter))
    };
    let elapsed = start.elapsed().as_secs_f64();
    rendered
        .image
        .write_png(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let per_draw = match &args.per_draw {
        Some(dir) => write_per_draw(&rendered, dir)?,
        None => Vec::new(),
    };
    let checksum = checksum::hex(checksum::image_checksum(&rendered.image));
    if args.json {
        crate::output::print_json(&json!({
            "file": args.file.display().to_string(),
            "out": args.out.display().to_string(),
            "renderer": renderer,
            "width": rendered.image.width,
            "height": rendered.image.height,
            "checksum": checksum,
            "source": rendered.source,
            "draws_rendered": rendered.draws_rendered,
            "skipped": rendered.skipped.iter()
                .map(|(draw, reason)| json!({"draw": draw, "reason": reason}))
                .collect::<Vec<_>>(),
            "warnings": rendered.warnings,
            "per_draw": per_draw.iter()
                .map(|(draw, path, sum)| json!({
                    "draw": draw, "file": path.display().to_string(), "checksum": sum}))
                .collect::<Vec<_>>(),
            "timings": rendered.timings,
            "texture_cache": rendered.texture_cache,
            "seconds": elapsed,
        }))?;
    } else {
        for (draw, reason) in &rendered.skipped {
            eprintln!("skipped draw {draw}: {reason}");
        }
        for w in &rendered.warnings {
            match w.draw {
                Some(d) => eprintln!("warning: draw {d}: {}", w.message),
                None => eprintln!("warning: {}", w.message),
            }
        }
        outln!(
            "wrote {} ({}x{}, {} draws rendered, {} skipped, {} warnings, checksum {checksum}, \
             {renderer}, {:.0} ms)",
            args.out.display(),
            rendered.image.width,
            rendered.image.height,
            rendered.draws_rendered,
            rendered.skipped.len(),
            rendered.warnings.len(),
            elapsed * 1000.0
        );
        if let Some(dir) = &args.per_draw {
            outln!(
                "wrote {} per-draw images to {}",
                per_draw.len(),
                dir.display()
            );
        }
    }
    Ok(Status::Success)
}

/// Write every snapshot to `dir`; returns (draw, path, checksum) per file.
fn write_per_draw(
    rendered: &RenderedFrame,
    dir: &Path,
) -> anyhow::Result<Vec<(usize, PathBuf, String)>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::with_capacity(rendered.per_draw.len());
    for snapshot in &rendered.per_draw {
        let path = dir.join(per_draw_name(snapshot.draw));
        snapshot
            .image
            .write_png(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let sum = checksum::hex(checksum::image_checksum(&snapshot.image));
        written.push((snapshot.draw, path, sum));
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_draw_names_sort_in_draw_order() {
        assert_eq!(per_draw_name(7), "draw-0007.png");
        assert_eq!(per_draw_name(12345), "draw-12345.png");
    }
}
