//! `rsxtrace verify`: per-draw divergence between the recompiled shaders and the interpreter.
//!
//! Prints the worst diverged stages first (a table), the first diverging draw with the state
//! changed since the draw before it, the negative control's tally, totals and a timing
//! breakdown; `--json FILE` and `--html FILE` write the full report (`docs/verify.md`).
//! Exit status: 0 nothing diverged, 1 something diverged, 2 on error (including a stage that
//! failed). The negative control only reports: a missed mutation does not change the status.
//! `--explain DRAW` names the first divergent instruction of one invocation instead
//! ([`super::verify_explain`]); `--explain-all` adds that to every diverged stage.

use crate::cli::GpuBackend;
use crate::exit::Status;
use crate::table::Table;
use anyhow::Context;
use clap::{Args, ValueEnum};
use rsxtrace_gpu::{Gpu, GpuOptions};
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_verify::divergence::report::{html, json, table};
use rsxtrace_verify::divergence::{
    run::DEFAULT_MAX_PIXELS, verify_frame, StageSelection, Tolerances, VerifyOptions,
};
use std::path::PathBuf;

/// Stages with substituted state listed in the text output (all of them are in `--json`).
const SUBSTITUTED_LINES: usize = 20;

/// Which stages `--stage` selects.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageArg {
    Vertex,
    Fragment,
    Both,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Draws to verify: `A..B` (B excluded), `A..=B`, `A..` or a single index `A`.
    #[arg(long, value_parser = draw_range::parse)]
    pub draws: Option<DrawRange>,
    /// Verify only shard K of N of those draws (the draws at positions p with p mod N = K-1),
    /// to split one capture across the machines of a CI matrix.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<rsxtrace_verify::shard::Shard>,
    /// Stages to verify.
    #[arg(long, value_enum, default_value_t = StageArg::Both)]
    pub stage: StageArg,
    /// Tolerance overrides, e.g. `fp32=4ulp,fp16=1ulp,fx12=1/2048,abs=1e-6,nan=match`
    /// (docs/verify.md).
    #[arg(long)]
    pub tolerance: Option<String>,
    /// Negative control: change N random single fields of the programs on the GPU side only
    /// and report how many changes were detected.
    #[arg(long, default_value_t = 0)]
    pub mutate: usize,
    /// Seed of the negative control.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the full report as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write an HTML report with the fragment stage's images.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// GPU backend.
    #[arg(long, value_enum, default_value_t = GpuBackend::Auto)]
    pub backend: GpuBackend,
    /// Most pixels compared per draw in the fragment stage (larger draws are sampled).
    #[arg(long, default_value_t = DEFAULT_MAX_PIXELS)]
    pub max_pixels: usize,
    /// Rows of the worst-first table.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Explain draw N: recompile its program with instrumentation, record every instruction's
    /// values for one invocation on the device, and name the first instruction where they
    /// part from the interpreter's (the worst diverged element by default; `docs/debug.md`).
    #[arg(long, value_name = "DRAW", conflicts_with_all = ["draws", "shard", "mutate", "explain_all"])]
    pub explain: Option<usize>,
    /// With --explain: the pixel X,Y (window coordinates).
    #[arg(long, value_parser = super::debug::parse_pixel, requires = "explain", conflicts_with = "vertex")]
    pub pixel: Option<(u32, u32)>,
    /// With --explain: the vertex K (processing order).
    #[arg(long, requires = "explain")]
    pub vertex: Option<usize>,
    /// Explain every diverged stage at its worst element (in --json, each stage's
    /// `explanation`; in text, one block per stage).
    #[arg(long)]
    pub explain_all: bool,
}

pub fn run(args: &VerifyArgs) -> anyhow::Result<Status> {
    let tolerances = match &args.tolerance {
        Some(spec) => Tolerances::parse(spec)?,
        None => Tolerances::default(),
    };
    if args.max_pixels == 0 {
        anyhow::bail!("--max-pixels must be at least 1");
    }
    let (_capture, frame) = super::load_frame(&args.file)?;
    if let Some(draw) = args.explain {
        return super::verify_explain::run(args, &frame, draw, tolerances);
    }
    let draws = draw_range::resolve(args.draws, frame.draws.len())?;
    crate::output::private_runtime_dir();
    let gpu = Gpu::new(GpuOptions {
        backend: args.backend.backend(),
        ..Default::default()
    })
    .context("cannot open a GPU device")?;
    let options = VerifyOptions {
        draws,
        shard: args.shard,
        stage: match args.stage {
            StageArg::Vertex => StageSelection::Vertex,
            StageArg::Fragment => StageSelection::Fragment,
            StageArg::Both => StageSelection::Both,
        },
        tolerances,
        max_pixels: args.max_pixels,
        mutate: args.mutate,
        seed: args.seed,
        images: args.html.is_some(),
        capture: args.file.display().to_string(),
        explain_all: args.explain_all,
        ..VerifyOptions::default()
    };
    let bar = if args.quiet {
        None
    } else {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("verify {bar:30} {pos}/{len} draws {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(bar)
    };
    let report = verify_frame(&frame, &options, &gpu, bar.as_ref())?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(path) = &args.json {
        json::write(&report, path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.html {
        html::write(&report, path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let rows = table::worst_rows(&report, args.top);
    if !rows.is_empty() {
        let mut t = Table::new(&[
            ">draw",
            "stage",
            "register",
            "worst at",
            ">gpu",
            ">interpreter",
            ">abs err",
            ">rel err",
            ">ulps",
            ">ill-cond",
        ]);
        for r in rows {
            t.row(r);
        }
        out!("{}", t.render());
    }
    if let Some(fd) = &report.first_divergence {
        outln!(
            "first divergence: draw {} ({} stage{}); state changed since draw {}:",
            fd.draw,
            fd.stage.name(),
            fd.register
                .as_ref()
                .map_or(String::new(), |r| format!(", {r}")),
            fd.previous.map_or("-".to_string(), |p| p.to_string())
        );
        for c in &fd.changed {
            outln!("  {}: {} -> {}", c.key, c.before, c.after);
        }
    }
    for d in &report.draws {
        for s in &d.stages {
            if let rsxtrace_verify::divergence::Outcome::Failed { error } = &s.outcome {
                eprintln!("draw {} {} stage failed: {error}", d.draw, s.stage.name());
            }
        }
    }
    if let Some(m) = &report.mutation {
        outln!(
            "negative control (seed {}): {} mutations applied, {} rejected, {} effective, {} detected ({:.1}%), {} detected but ineffective",
            m.seed,
            m.applied,
            m.rejected,
            m.effective,
            m.detected,
            m.detection_rate * 100.0,
            m.detected_ineffective
        );
    }
    if args.explain_all {
        for d in &report.draws {
            for s in &d.stages {
                if let Some(e) = &s.explanation {
                    super::verify_explain::print_explained(d.draw, s.stage.name(), e)?;
                }
            }
        }
    }
    let substituted: Vec<String> = report
        .draws
        .iter()
        .flat_map(|d| d.stages.iter().map(move |s| (d.draw, s)))
        .filter_map(|(draw, s)| {
            let sub = s.substituted.as_ref()?;
            Some(format!(
                "draw {draw} {}: {}",
                s.stage.name(),
                sub.describe()
            ))
        })
        .collect();
    for line in substituted.iter().take(SUBSTITUTED_LINES) {
        outln!("substituted: {line}");
    }
    if substituted.len() > SUBSTITUTED_LINES {
        outln!(
            "substituted: ... {} more stages (all in --json)",
            substituted.len() - SUBSTITUTED_LINES
        );
    }
    let t = &report.totals;
    let tm = &report.timings;
    outln!(
        "{} draws: {} stages clean, {} diverged, {} skipped, {} failed ({} with substituted state); {} ill-conditioned components",
        t.draws, t.clean, t.diverged, t.skipped, t.failed, t.substituted, t.ill_conditioned
    );
    eprintln!(
        "time {:.0} ms (summed over threads: fetch {:.0}, interpreter {:.0}, pipelines {:.0}, GPU {:.0}, raster {:.0}, compare {:.0}) on {}",
        tm.wall_ms,
        tm.fetch_ms,
        tm.interpreter_ms,
        tm.pipeline_ms,
        tm.gpu_ms,
        tm.raster_ms,
        tm.compare_ms,
        report.device
    );
    Ok(if report.failed() {
        Status::Error
    } else if report.diverged() {
        Status::Finding
    } else {
        Status::Success
    })
}
