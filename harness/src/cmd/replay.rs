//! `rsxtrace replay`: render a captured frame headlessly to a PNG, on a GPU device (the
//! recompiled programs) or on the CPU (`--cpu`, the reference interpreter), optionally only a
//! range of draws and with the output target written after each draw; `--shard K/N` renders
//! one band of rows of the image (`rsxtrace_replay::render::band`) and `--merge` puts the N
//! bands together.

use crate::cli::GpuBackend;
use crate::exit::Status;
use crate::progress::DrawProgress;
use anyhow::Context;
use clap::Args;
use rsxtrace_capture::rrc::Location;
use rsxtrace_ci::checksum;
use rsxtrace_gpu::{Gpu, GpuOptions};
use rsxtrace_replay::render::band::{self, PartInfo};
use rsxtrace_replay::render::conditional::{ConditionalDraw, ReportSource};
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_replay::render::target::{depth_target_at, target_at, TargetGrab};
use rsxtrace_replay::render::{self, Both, RenderOptions, RenderedFrame, Rgba8Image, Scene};
use rsxtrace_verify::shard::Shard;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Capture or trace file.
    #[arg(required_unless_present = "merge")]
    pub file: Option<PathBuf>,
    /// Output PNG (8-bit RGBA) of the frame's output target.
    #[arg(long)]
    pub out: PathBuf,
    /// Render only band K of N of the image's rows (rows floor((K-1)·H/N) to floor(K·H/N)),
    /// to split one frame across the machines of a CI matrix: the other rows of the PNG are
    /// transparent black, and `--merge` puts the N PNGs together (docs/ci.md).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Merge the PNGs of `--shard` runs (every band once, same frame and size) into `--out`.
    #[arg(long, value_name = "PART", num_args = 1.., conflicts_with_all = ["file", "shard", "draws", "per_draw", "cpu"])]
    pub merge: Vec<PathBuf>,
    /// Render only draws A..B (0-based, B excluded; `A..=B`, `A..` to the last; `N` alone =
    /// N..N+1). Earlier draws are not
    /// rendered, so their effects on the targets are missing.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Also write the output target after each draw as DIR/draw-NNNN.png.
    #[arg(long, value_name = "DIR")]
    pub per_draw: Option<PathBuf>,
    /// Write the colour target at this address instead of the output image, or the depth
    /// surface there (as grey levels fitted to its range) when no draw renders colour into
    /// it (`local:0x100000`, `main:0x...`; local when no location is given): a
    /// render-to-texture target, a G-buffer target, a shadow map, as it is when the render
    /// ends. Laid out as the last draw that renders into it lays it out; a multisampled
    /// surface resolved, as the output image is.
    #[arg(long, value_name = "[LOCATION:]ADDRESS", value_parser = super::history::parse_target,
          conflicts_with_all = ["shard", "per_draw", "merge"])]
    pub target: Option<(Location, u32)>,
    /// With `--target`, write the stencil of the depth surface at that address instead:
    /// grey levels fitted to the stencil values present (lowest black, highest white), each
    /// value's pixel count printed (JSON `target.stencil_values`).
    #[arg(long, requires = "target")]
    pub stencil: bool,
    /// Render on the CPU with the reference interpreter instead of a GPU device.
    #[arg(long)]
    pub cpu: bool,
    /// Graphics backend of the GPU device.
    #[arg(long, value_enum, default_value_t = GpuBackend::Auto, conflicts_with = "cpu")]
    pub backend: GpuBackend,
    /// GPU: count the samples each draw passes (an occlusion query around each; the CPU
    /// render counts them anyway), in the JSON's `draw_shading` and the text's total.
    #[arg(long, conflicts_with = "cpu")]
    pub count_samples: bool,
    /// Print a JSON summary on stdout instead of text.
    #[arg(long)]
    pub json: bool,
}

/// File name of the snapshot after `draw` in a `--per-draw` directory.
pub fn per_draw_name(draw: usize) -> String {
    format!("draw-{draw:04}.png")
}

pub fn run(args: &ReplayArgs) -> anyhow::Result<Status> {
    let Some(file) = &args.file else {
        return merge(args);
    };
    let frame = Scene::open(file)?;
    super::warn_frame_problems(file, &frame);
    let draws = draw_range::resolve(args.draws, frame.draws.len())?;
    let options = RenderOptions {
        draws: draws.clone(),
        per_draw: args.per_draw.is_some(),
        band: args.shard.map(|s| band::Band {
            index: s.index,
            count: s.count,
        }),
        count_samples: args.count_samples,
        ..Default::default()
    };
    // The named target, found before rendering (an address no draw renders into is an error).
    let (target, mut grab) = match args.target {
        Some((location, address)) if args.stencil => {
            let depth = depth_target_at(&frame, location, address).with_context(|| {
                format!(
                    "no draw's depth surface lies at {} 0x{address:08x}",
                    location.name()
                )
            })?;
            let target = depth.stencil().with_context(|| {
                format!(
                    "the depth surface at {} 0x{address:08x} is {}: it has no stencil",
                    location.name(),
                    depth.format.name()
                )
            })?;
            (Some(target), Some(TargetGrab::new(target)))
        }
        Some((location, address)) => {
            let target = target_at(&frame, location, address).with_context(|| {
                format!(
                    "no draw renders into a colour or depth target at {} 0x{address:08x}",
                    location.name()
                )
            })?;
            (Some(target), Some(TargetGrab::new(target)))
        }
        None => (None, None),
    };
    let start = Instant::now();
    let drawn = draws.as_ref().map_or(frame.draws.len(), |r| r.len());
    let mut progress = DrawProgress::new("replay", drawn);
    let mut no_grab = render::NoObserver;
    let grabber: &mut dyn render::DrawObserver = match grab.as_mut() {
        Some(g) => g,
        None => &mut no_grab,
    };
    let mut observer = Both(&mut progress, grabber);
    let (rendered, renderer, renderer_key) = if args.cpu {
        let rendered =
            render::cpu::render_frame_observed(&frame, &frame.events, &options, &mut observer)
                .with_context(|| format!("cannot render {} on the CPU", file.display()))?;
        (
            rendered,
            "CPU reference interpreter".to_string(),
            checksum::CPU_KEY.to_string(),
        )
    } else {
        crate::output::private_runtime_dir();
        let gpu = Gpu::new(GpuOptions {
            backend: args.backend.backend(),
            ..Default::default()
        })?;
        let rendered = render::gpu::render_frame_observed(
            &gpu,
            &frame,
            &frame.events,
            &options,
            &mut observer,
        )
        .with_context(|| format!("cannot render {} on the GPU", file.display()))?;
        (
            rendered,
            format!("GPU: {}", gpu.info().adapter),
            checksum::gpu_key(gpu.info()),
        )
    };
    progress.finish();
    let elapsed = start.elapsed().as_secs_f64();
    // With --target, the image written is that target's.
    let mut rendered = rendered;
    if let Some(grab) = &grab {
        rendered.image = grab
            .image()
            .cloned()
            .context("the render ended without showing the target's memory")?;
    }
    match (&rendered.band, args.shard) {
        (Some(outcome), Some(shard)) => {
            let info = PartInfo {
                shard: shard.to_string(),
                rows: outcome.rows.clone(),
                width: rendered.image.width,
                height: rendered.image.height,
                frame: frame_name(file, &draws, &renderer_key),
            };
            band::write_part(&rendered.image, &info, &args.out)
        }
        _ => rendered.image.write_png(&args.out),
    }
    .with_context(|| format!("cannot write {}", args.out.display()))?;
    let per_draw = match &args.per_draw {
        Some(dir) => write_per_draw(&rendered, dir)?,
        None => Vec::new(),
    };
    let checksum = checksum::hex(checksum::image_checksum(&rendered.image));
    let stencil_values = grab.as_ref().and_then(TargetGrab::stencil_values);
    let band = rendered.band.as_ref().map(|b| {
        let rows = band::rows_of(&rendered.image, b.rows.clone());
        (b, checksum::hex(checksum::image_checksum(&rows)))
    });
    if args.json {
        crate::output::print_json(&json!({
            "file": file.display().to_string(),
            "out": args.out.display().to_string(),
            "renderer": renderer,
            "width": rendered.image.width,
            "height": rendered.image.height,
            "checksum": checksum,
            "source": rendered.source,
            "target": target.map(|t| json!({
                "location": t.layout.location.name(),
                "address": t.layout.offset,
                "format": t.format.name(),
                "depth": t.format.is_depth(),
                "stencil": t.format.is_stencil(),
                "stencil_values": stencil_values.as_ref().map(|v| v.iter()
                    .map(|(value, pixels)| json!({"value": value, "pixels": pixels}))
                    .collect::<Vec<_>>()),
                "width": rendered.image.width,
                "height": rendered.image.height,
            })),
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
            "shading": rendered.shading,
            "draw_shading": rendered.draw_shading,
            "surface_traffic": rendered.surface_traffic,
            "conditional": rendered.conditional,
            "shard": args.shard.map(|s| s.to_string()),
            "band": band.as_ref().map(|(b, sum)| json!({
                "rows": [b.rows.start, b.rows.end],
                "checksum": sum,
                "banded_draws": b.banded_draws,
                "refused": b.refused,
            })),
            "seconds": elapsed,
        }))?;
    } else {
        crate::output::print_render_problems(&rendered.skipped, &rendered.warnings);
        if let Some((b, sum)) = &band {
            if let Some(why) = &b.refused {
                eprintln!("warning: every draw rendered whole, not cut to the band: {why}");
            }
            outln!(
                "band {}: rows {}..{} ({} draws cut to it), band checksum {sum}",
                args.shard.map(|s| s.to_string()).unwrap_or_default(),
                b.rows.start,
                b.rows.end,
                b.banded_draws
            );
        }
        let what = match target {
            Some(t) => format!(
                "the {} {} at {}+0x{:x}, ",
                t.format.name(),
                if t.format.is_stencil() {
                    "depth surface's stencil (grey levels fitted to its values)"
                } else if t.format.is_depth() {
                    "depth surface (grey levels fitted to its range)"
                } else {
                    "colour target"
                },
                t.layout.location.name(),
                t.layout.offset
            ),
            None => String::new(),
        };
        outln!(
            "wrote {} ({what}{}x{}, {} draws rendered, {} skipped, {} warnings, checksum {checksum}, \
             {renderer}, {:.0} ms)",
            args.out.display(),
            rendered.image.width,
            rendered.image.height,
            rendered.draws_rendered,
            rendered.skipped.len(),
            rendered.warnings.len(),
            elapsed * 1000.0
        );
        if !rendered.draw_shading.is_empty() {
            let passed: u64 = rendered
                .draw_shading
                .iter()
                .map(|d| d.shading.fragments_passed)
                .sum();
            let hidden = rendered
                .draw_shading
                .iter()
                .filter(|d| d.shading.fragments_passed == 0)
                .count();
            outln!(
                "samples passed: {passed} over {} draws ({hidden} passed none)",
                rendered.draw_shading.len()
            );
        }
        if let Some(line) = conditional_line(&rendered.conditional) {
            outln!("{line}");
        }
        if let Some(values) = &stencil_values {
            let listed: Vec<String> = values
                .iter()
                .map(|(value, pixels)| format!("{value} ({pixels} px)"))
                .collect();
            outln!("stencil values: {}", listed.join(", "));
        }
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

/// One line on the draws under conditional rendering: how many, which were not drawn (the
/// first ten), and how many were drawn on a report nobody knows.
fn conditional_line(decided: &[ConditionalDraw]) -> Option<String> {
    if decided.is_empty() {
        return None;
    }
    let not_drawn: Vec<String> = decided
        .iter()
        .filter(|c| !c.drawn)
        .map(|c| c.draw.to_string())
        .collect();
    let unknown = decided
        .iter()
        .filter(|c| c.source == ReportSource::Unknown)
        .count();
    let not = if not_drawn.is_empty() {
        "none not drawn".to_string()
    } else {
        format!(
            "{} not drawn ({})",
            not_drawn.len(),
            crate::output::first_of(&not_drawn, 10)
        )
    };
    Some(format!(
        "conditional rendering: {} draws decided by occlusion reports, {not}, {unknown} drawn \
         on a report the replay does not know",
        decided.len()
    ))
}

/// The frame a part shows, as parts name it: capture file name, draws, renderer.
fn frame_name(file: &Path, draws: &Option<std::ops::Range<usize>>, renderer: &str) -> String {
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    match draws {
        Some(r) => format!("{name} draws {}..{} on {renderer}", r.start, r.end),
        None => format!("{name} on {renderer}"),
    }
}

/// `--merge`: the parts' bands into `--out`.
fn merge(args: &ReplayArgs) -> anyhow::Result<Status> {
    let mut parts = Vec::with_capacity(args.merge.len());
    for path in &args.merge {
        let (image, info) = band::read_part(path)?;
        parts.push((path.display().to_string(), image, info));
    }
    let merged: Rgba8Image = band::merge(&parts)?;
    merged
        .write_png(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let checksum = checksum::hex(checksum::image_checksum(&merged));
    if args.json {
        crate::output::print_json(&json!({
            "out": args.out.display().to_string(),
            "width": merged.width,
            "height": merged.height,
            "checksum": checksum,
            "parts": parts.iter().map(|(file, _, info)| json!({
                "file": file,
                "shard": info.shard,
                "rows": [info.rows.start, info.rows.end],
            })).collect::<Vec<_>>(),
        }))?;
    } else {
        outln!(
            "merged {} parts into {} ({}x{}, checksum {checksum})",
            parts.len(),
            args.out.display(),
            merged.width,
            merged.height
        );
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
