//! `rsxtrace report`: a static HTML site for one capture (`rsxtrace_report`, docs/report.md).
//! This module parses the arguments, opens the devices asked for and prints the summary.
//! Exit status: 0 the site was written; 1 with `--verify` when a draw diverged; 2 on error.

use crate::cli::GpuBackend;
use crate::exit::Status;
use anyhow::Context;
use clap::Args;
use rsxtrace_gpu::{Gpu, GpuOptions};
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_report::{build, Loaded, Renderer, ReportOptions};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Output folder (created; a folder holding anything but an earlier report is refused).
    #[arg(long, value_name = "DIR")]
    pub html: PathBuf,
    /// Report only draws A..B (0-based, B excluded; `A..=B`, `A..`, or `N` alone). Earlier
    /// draws are not rendered, so their effects on the targets are missing.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Also verify each draw's shaders (recompiled on a GPU device against the interpreter)
    /// and show the results.
    #[arg(long)]
    pub verify: bool,
    /// Render the images on a GPU device with the recompiled programs.
    #[arg(long, conflicts_with = "cpu")]
    pub gpu: bool,
    /// Render the images on the CPU with the reference interpreter (the default).
    #[arg(long)]
    pub cpu: bool,
    /// Graphics backend of the GPU device (`--gpu`, `--verify`).
    #[arg(long, value_enum, default_value_t = GpuBackend::Auto)]
    pub backend: GpuBackend,
    /// Picture the depth surface of every draw that tests depth or stencil, beside its colour
    /// targets (by default only draws without a colour target show their depth surface).
    #[arg(long)]
    pub depth: bool,
    /// Print a JSON summary on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: &ReportArgs) -> anyhow::Result<Status> {
    let loaded = Loaded::open(&args.file)?;
    let draws = draw_range::resolve(args.draws, loaded.scene.frame.draws.len())?;
    let gpu = if args.gpu || args.verify {
        crate::output::private_runtime_dir();
        Some(
            Gpu::new(GpuOptions {
                backend: args.backend.backend(),
                ..Default::default()
            })
            .context("cannot open a GPU device")?,
        )
    } else {
        None
    };
    let renderer = match (&gpu, args.gpu) {
        (Some(gpu), true) => Renderer::Gpu(gpu),
        _ => Renderer::Cpu,
    };
    let bar = (!args.quiet).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "report {msg:14} {bar:30} {pos}/{len} draws {elapsed}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let options = ReportOptions {
        draws,
        depth: args.depth,
        ..ReportOptions::new(&args.html)
    };
    let verify_on = if args.verify { gpu.as_ref() } else { None };
    let summary = build(&loaded, &options, renderer, verify_on, bar.as_ref())
        .with_context(|| format!("cannot report {}", args.file.display()))?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if !summary.rendered {
        eprintln!(
            "warning: the frame could not be rendered: the site has no images (see its index)"
        );
    }
    if args.json {
        crate::output::print_json(&summary)?;
    } else {
        outln!(
            "wrote {} ({} draws, {} events, {} pages, {} images, {:.1} MB, {} skipped, {} warnings{}) in {:.1} s",
            args.html.join("index.html").display(),
            summary.draws,
            summary.events,
            summary.pages,
            summary.images,
            summary.bytes as f64 / 1e6,
            summary.skipped,
            summary.warnings,
            summary
                .diverged
                .map_or(String::new(), |d| format!(", {d} draws diverged")),
            summary.seconds
        );
    }
    Ok(match summary.diverged {
        Some(d) if d > 0 => Status::Finding,
        _ => Status::Success,
    })
}
