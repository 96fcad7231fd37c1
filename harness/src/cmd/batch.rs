//! `rsxtrace batch SOURCE...`: every unique program of RPCS3 shader caches, executables and
//! loose containers checked end to end (`rsxtrace_verify::batch`), with a worst-first table,
//! `--json`, `--html DIR`, and the recompiled cache export `--out DIR`.
//!
//! Exit status: 0 when every program is proven (recompiled, with `--no-gpu`); 1 when one is
//! not (diverges, cannot be recompiled, ...); 2 only when the run cannot proceed (no source
//! readable, no program found, output not writable, no device). A bad input file is reported
//! and does not change the status by itself.

use crate::cli::GpuBackend;
use crate::exit::Status;
use crate::table::Table;
use anyhow::Context;
use clap::Args;
use rsxtrace_gpu::{Gpu, GpuOptions};
use rsxtrace_program::source::discover;
use rsxtrace_verify::batch::{html, report, run_batch, BatchOptions};
use rsxtrace_verify::divergence::Tolerances;
use std::path::PathBuf;

/// Problems listed in the text output (all of them are in `--json`).
const PROBLEM_LINES: usize = 20;

#[derive(Args, Debug)]
pub struct BatchArgs {
    /// RPCS3 shader caches (a `shaders_cache` folder or any folder above one), executables
    /// (ELF, debug SELF), containers (.vpo/.fpo, PSL1GHT) or folders of them.
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
    /// Export every recompiled program (WGSL, SPIR-V, HLSL, MSL, GLSL) and a manifest here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write the full report as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write an HTML page (DIR/index.html) with every program's disassembly and WGSL.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Check on the device (default).
    #[arg(long, overrides_with = "no_gpu")]
    pub gpu: bool,
    /// Decode, interpret and recompile only; no device check.
    #[arg(long)]
    pub no_gpu: bool,
    /// GPU backend.
    #[arg(long, value_enum, default_value_t = GpuBackend::Auto)]
    pub backend: GpuBackend,
    /// Only shard K of N of the unique programs (by position in key order).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<rsxtrace_verify::shard::Shard>,
    /// Negative control: N random single-field changes on the device side of proven programs
    /// (0 turns it off).
    #[arg(long, default_value_t = 32)]
    pub mutate: usize,
    /// Seed of the negative control.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Tolerance overrides (as `verify --tolerance`).
    #[arg(long)]
    pub tolerance: Option<String>,
    /// Rows of the worst-first table.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: &BatchArgs) -> anyhow::Result<Status> {
    let tolerances = match &args.tolerance {
        Some(spec) => Tolerances::parse(spec)?,
        None => Tolerances::default(),
    };
    if let Some(jobs) = args.jobs {
        if jobs == 0 {
            anyhow::bail!("--jobs must be at least 1");
        }
        // The global pool is built once per process; the first call wins.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build_global();
    }
    let discovery = discover(&args.sources);
    if discovery.programs.is_empty() {
        for p in &discovery.problems {
            eprintln!("{}: {}", p.path.display(), p.reason);
        }
        anyhow::bail!(
            "no program found in {} ({} files read)",
            args.sources
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            discovery.files_read
        );
    }
    let gpu = if args.no_gpu {
        None
    } else {
        crate::output::private_runtime_dir();
        Some(
            Gpu::new(GpuOptions {
                backend: args.backend.backend(),
                ..Default::default()
            })
            .context("cannot open a GPU device (--no-gpu checks without one)")?,
        )
    };
    let options = BatchOptions {
        sources: args
            .sources
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        out: args.out.clone(),
        shard: args.shard,
        mutate: args.mutate,
        seed: args.seed,
        tolerances,
        ..BatchOptions::default()
    };
    let bar = (!args.quiet).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "batch {bar:30} {pos}/{len} programs {elapsed}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let report = run_batch(&discovery, gpu.as_ref(), &options, bar.as_ref())?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(path) = &args.json {
        report::write_json(&report, path)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(dir) = &args.html {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let page = dir.join("index.html");
        html::write(&report, &page).with_context(|| format!("cannot write {}", page.display()))?;
    }
    for p in report.problems.iter().take(PROBLEM_LINES) {
        let at = p.offset.map_or(String::new(), |o| format!(" at {o:#x}"));
        eprintln!("warning: {}{at}: {}", p.path.display(), p.reason);
    }
    if report.problems.len() > PROBLEM_LINES {
        eprintln!(
            "warning: ... {} more problems (all in --json)",
            report.problems.len() - PROBLEM_LINES
        );
    }
    let mut t = Table::new(&report::HEADERS);
    for row in report::rows(&report, args.top) {
        t.row(row);
    }
    out!("{}", t.render());
    if let Some(m) = &report.mutation {
        outln!(
            "negative control (seed {}): {} mutations applied, {} rejected, {} effective, {} detected ({:.1}%)",
            m.seed,
            m.applied,
            m.rejected,
            m.effective,
            m.detected,
            m.detection_rate * 100.0
        );
    }
    let t = &report.totals;
    let by_status: Vec<String> = t
        .by_status
        .iter()
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    outln!(
        "{} unique programs ({} vertex, {} fragment) from {} locations in {} files: {}; {} problems",
        t.programs,
        t.vertex,
        t.fragment,
        t.locations,
        t.files_read,
        by_status.join(", "),
        t.problems
    );
    eprintln!(
        "time {:.0} ms on {}",
        report.wall_ms,
        report.device.as_deref().unwrap_or("no device")
    );
    Ok(if report.all_proven() {
        Status::Success
    } else {
        Status::Finding
    })
}
