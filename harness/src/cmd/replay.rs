//! `rsxtrace replay`: render a captured frame headlessly to a PNG, on a GPU device (the
//! recompiled programs) or on the CPU (`--cpu`, the reference interpreter), optionally only a
//! range of draws and with the output target written after each draw.

use crate::cli::GpuBackend;
use crate::exit::Status;
use anyhow::Context;
use clap::Args;
use rsxtrace_gpu::{Backend, Gpu, GpuOptions};
use rsxtrace_replay::render::{self, RenderOptions, RenderedFrame};
use serde_json::json;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Output PNG (8-bit RGBA) of the frame's output target.
    #[arg(long)]
    pub out: PathBuf,
    /// Render only draws A..B (0-based, B excluded; `N` alone = N..N+1). Earlier draws are not
    /// rendered, so their effects on the targets are missing.
    #[arg(long, value_parser = parse_draw_range)]
    pub draws: Option<Range<usize>>,
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

/// Parse a draw range: `A..B` (B excluded, A < B), `A..=B`, or `N` (just draw N).
pub fn parse_draw_range(s: &str) -> Result<Range<usize>, String> {
    let number = |part: &str, what: &str| -> Result<usize, String> {
        part.trim()
            .parse::<usize>()
            .map_err(|e| format!("{s}: {what}: {e} (expected A..B, A..=B or N)"))
    };
    let range = if let Some((a, b)) = s.split_once("..=") {
        let end = number(b, "end")?
            .checked_add(1)
            .ok_or_else(|| format!("{s}: end too large"))?;
        number(a, "start")?..end
    } else if let Some((a, b)) = s.split_once("..") {
        number(a, "start")?..number(b, "end")?
    } else {
        let n = number(s, "draw")?;
        n..n.checked_add(1)
            .ok_or_else(|| format!("{s}: draw too large"))?
    };
    if range.start >= range.end {
        return Err(format!(
            "{s}: empty range (the start must be below the end)"
        ));
    }
    Ok(range)
}

/// The GPU backend a command-line choice means.
pub fn gpu_backend(choice: GpuBackend) -> Backend {
    match choice {
        GpuBackend::Auto => Backend::Auto,
        GpuBackend::Vulkan => Backend::Vulkan,
        GpuBackend::Gl => Backend::Gl,
    }
}

/// File name of the snapshot after `draw` in a `--per-draw` directory.
pub fn per_draw_name(draw: usize) -> String {
    format!("draw-{draw:04}.png")
}

/// Check a draw range against the frame's draw count.
pub fn check_range(range: &Option<Range<usize>>, draws: usize) -> anyhow::Result<()> {
    if let Some(r) = range {
        if r.end > draws {
            anyhow::bail!(
                "draws {}..{} do not exist: the capture has {draws} draws (0..{draws})",
                r.start,
                r.end
            );
        }
    }
    Ok(())
}

pub fn run(args: &ReplayArgs) -> anyhow::Result<Status> {
    let frame = super::load_scene(&args.file)?;
    check_range(&args.draws, frame.draws.len())?;
    let options = RenderOptions {
        draws: args.draws.clone(),
        per_draw: args.per_draw.is_some(),
    };
    let start = Instant::now();
    let (rendered, renderer) = if args.cpu {
        let rendered = render::cpu::render_frame(&frame, &frame.events, &options)
            .with_context(|| format!("cannot render {} on the CPU", args.file.display()))?;
        (rendered, "CPU reference interpreter".to_string())
    } else {
        crate::output::private_runtime_dir();
        let gpu = Gpu::new(GpuOptions {
            backend: gpu_backend(args.backend),
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
    let checksum = super::ci::checksum::hex(super::ci::checksum::image_checksum(&rendered.image));
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
        let sum = super::ci::checksum::hex(super::ci::checksum::image_checksum(&snapshot.image));
        written.push((snapshot.draw, path, sum));
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draw_ranges() {
        assert_eq!(parse_draw_range("2..5"), Ok(2..5));
        assert_eq!(parse_draw_range("2..=5"), Ok(2..6));
        assert_eq!(parse_draw_range("7"), Ok(7..8));
        assert_eq!(parse_draw_range(" 0 .. 1 "), Ok(0..1));
        for bad in [
            "5..5",
            "5..2",
            "a..2",
            "..3",
            "3..",
            "",
            "-1",
            "1..=18446744073709551615",
        ] {
            assert!(parse_draw_range(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn range_checked_against_the_frame() {
        assert!(check_range(&Some(0..3), 3).is_ok());
        assert!(check_range(&None, 0).is_ok());
        let e = check_range(&Some(2..4), 3).unwrap_err().to_string();
        assert!(e.contains("2..4") && e.contains("3 draws"), "{e}");
    }

    #[test]
    fn per_draw_names_sort_in_draw_order() {
        assert_eq!(per_draw_name(7), "draw-0007.png");
        assert_eq!(per_draw_name(12345), "draw-12345.png");
    }
}
