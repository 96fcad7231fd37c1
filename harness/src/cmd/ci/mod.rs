//! `rsxtrace ci`: run a manifest of traces against reference images and report.
//!
//! - [`manifest`]: the TOML schema and its validation.
//! - [`runner`]: one trace: render on each path, `--update`, compare, bisect.
//! - [`image_diff`], [`checksum`], [`bisect`], [`shard`]: the pieces it uses.
//! - [`report`]: the results as data; [`junit`], [`json`], [`html`] and the text table print
//!   them.
//!
//! Exit status: 0 when every trace passes (or is new and `--update` wrote its reference, or is
//! skipped), 1 when any fails or is new without `--update`, 2 on any error (bad manifest,
//! unreadable capture, failed render). `docs/ci.md` documents it all.

pub mod bisect;
pub mod checksum;
pub mod html;
pub mod image_diff;
pub mod json;
pub mod junit;
pub mod manifest;
pub mod report;
pub mod runner;
pub mod shard;

use crate::cli::GpuBackend;
use crate::exit::Status;
use crate::table::Table;
use anyhow::Context;
use clap::{Args, ValueEnum};
use report::{Outcome, Report, Summary};
use runner::{GpuPath, Renderers, RunOptions};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Which renderers run.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paths {
    /// The CPU render, and the GPU render when a device opens (its results are "skip" otherwise).
    Auto,
    /// The CPU reference render only.
    Cpu,
    /// The GPU render only (no bisection: it needs the CPU render too).
    Gpu,
    /// Both; a missing GPU device is an error.
    Both,
}

#[derive(Args, Debug)]
pub struct CiArgs {
    /// Manifest (TOML; schema in docs/ci.md).
    pub file: PathBuf,
    /// Run only shard K of N (1-based): the traces at manifest positions p with p mod N = K-1.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<shard::Shard>,
    /// Write missing references, and rewrite those the CPU render departs from, from the CPU
    /// render (the GPU render with --paths gpu).
    #[arg(long)]
    pub update: bool,
    /// Write a JUnit XML report.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the JSON report (`-`: standard output, instead of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write an HTML report (index.html and images) into this directory.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Renderers to run.
    #[arg(long, value_enum, default_value_t = Paths::Auto)]
    pub paths: Paths,
    /// Graphics backend of the GPU device.
    #[arg(long, value_enum, default_value_t = GpuBackend::Auto)]
    pub backend: GpuBackend,
    /// Run only the traces with these names (repeatable).
    #[arg(long = "trace", value_name = "NAME")]
    pub traces: Vec<String>,
    /// Do not bisect failing traces to the draw.
    #[arg(long)]
    pub no_bisect: bool,
}

fn open_renderers(args: &CiArgs) -> anyhow::Result<Renderers> {
    let cpu = args.paths != Paths::Gpu;
    let gpu = if args.paths == Paths::Cpu {
        GpuPath::Off
    } else {
        crate::output::private_runtime_dir();
        match rsxtrace_gpu::Gpu::new(rsxtrace_gpu::GpuOptions {
            backend: crate::cmd::replay::gpu_backend(args.backend),
        }) {
            Ok(gpu) => {
                let key = checksum::gpu_key(gpu.info());
                GpuPath::Ready {
                    gpu: Box::new(gpu),
                    key,
                }
            }
            Err(e) if args.paths == Paths::Auto => GpuPath::Unavailable(e.to_string()),
            Err(e) => return Err(e).context("the GPU path needs a device"),
        }
    };
    Ok(Renderers { cpu, gpu })
}

pub fn run(args: &CiArgs) -> anyhow::Result<Status> {
    let manifest = manifest::load(&args.file)?;
    for name in &args.traces {
        if !manifest.traces.iter().any(|t| &t.name == name) {
            anyhow::bail!(
                "--trace {name}: no trace of that name in {}",
                args.file.display()
            );
        }
    }
    let selected: Vec<&manifest::TraceSpec> = manifest
        .traces
        .iter()
        .enumerate()
        .filter(|(i, _)| args.shard.is_none_or(|s| s.contains(*i)))
        .map(|(_, t)| t)
        .collect();
    let renderers = open_renderers(args)?;
    if let GpuPath::Unavailable(reason) = &renderers.gpu {
        eprintln!("rsxtrace ci: GPU path skipped: {reason}");
    }
    let mut html = args
        .html
        .as_deref()
        .map(html::HtmlWriter::new)
        .transpose()?;
    let options = RunOptions {
        update: args.update,
        bisect: !args.no_bisect,
    };
    let progress = (selected.len() > 1 && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(selected.len() as u64);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}")
        {
            bar.set_style(style);
        }
        bar
    });
    let mut traces = Vec::with_capacity(selected.len());
    for spec in selected {
        if let Some(bar) = &progress {
            bar.set_message(spec.name.clone());
        }
        let (result, artifacts) = if !args.traces.is_empty() && !args.traces.contains(&spec.name) {
            (
                runner::skipped(spec, "not selected by --trace"),
                html::Artifacts::default(),
            )
        } else {
            runner::run_trace(spec, &renderers, options)
        };
        if let Some(writer) = &mut html {
            writer.add(&result, &artifacts)?;
        }
        traces.push(result);
        if let Some(bar) = &progress {
            bar.inc(1);
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let report = Report {
        version: 1,
        manifest: args.file.display().to_string(),
        shard: args.shard.map(|s| s.to_string()),
        paths: renderers.paths(),
        gpu: match &renderers.gpu {
            GpuPath::Ready { gpu, key } => Some(format!("{} ({key})", gpu.info().adapter)),
            _ => None,
        },
        summary: Summary::of(&traces),
        traces,
    };
    if let Some(path) = &args.junit {
        std::fs::write(path, junit::write(&report))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let json_to_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    if let Some(path) = &args.json {
        json::write(&report, path)?;
    }
    if let Some(writer) = html {
        let index = writer.finish(&report)?;
        eprintln!("rsxtrace ci: HTML report {}", index.display());
    }
    if !json_to_stdout {
        out!("{}", text_report(&report));
    }
    Ok(report.status())
}

/// The table and the failure details printed on standard output.
pub fn text_report(report: &Report) -> String {
    let mut table = Table::new(&[
        "trace", "path", "backend", "status", ">over", ">mean", "checksum", "note",
    ]);
    for t in &report.traces {
        if t.paths.is_empty() {
            table.row(vec![
                t.name.clone(),
                "-".into(),
                "-".into(),
                t.status.name().into(),
                "-".into(),
                "-".into(),
                "-".into(),
                t.reasons.first().cloned().unwrap_or_default(),
            ]);
        }
        for p in &t.paths {
            let note = if t.updated && p.path == report::RenderPath::Cpu {
                "reference written".to_string()
            } else {
                p.reasons.first().cloned().unwrap_or_default()
            };
            table.row(vec![
                t.name.clone(),
                p.path.name().into(),
                p.backend.clone(),
                p.status.name().into(),
                p.diff
                    .as_ref()
                    .map_or("-".into(), |d| d.pixels_over.to_string()),
                p.diff
                    .as_ref()
                    .map_or("-".into(), |d| format!("{:.3}", d.mean_error)),
                p.checksum.clone().unwrap_or_else(|| "-".into()),
                note,
            ]);
        }
    }
    let mut text = table.render();
    for t in report
        .traces
        .iter()
        .filter(|t| t.is_failure() || t.status == Outcome::Error)
    {
        text.push_str(&format!("\n{} ({}):\n", t.name, t.status.name()));
        for line in junit::details(t).lines() {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text.push_str(&format!("\n{}\n", report.summary.line()));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use report::tests::{report, trace};
    use report::{PathResult, RenderPath};

    #[test]
    fn text_report_rows_details_and_summary() {
        let mut fail = trace("broken", Outcome::Fail, false);
        let mut path = PathResult::without_render(
            RenderPath::Gpu,
            "lavapipe",
            Outcome::Fail,
            "image departs from the reference: 3 pixels over 8".into(),
        );
        path.checksum = Some("00000000000000aa".into());
        fail.paths = vec![path];
        let mut skip = trace("later", Outcome::Skip, false);
        skip.reasons = vec!["skipped by the manifest: issue 4".into()];
        let text = text_report(&report(vec![
            trace("fine", Outcome::Pass, false),
            fail,
            skip,
        ]));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("trace"), "{text}");
        assert!(
            lines.iter().any(|l| l.starts_with("broken")
                && l.contains("gpu")
                && l.contains("lavapipe")
                && l.contains("00000000000000aa")),
            "{text}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("later") && l.contains("issue 4")),
            "{text}"
        );
        // Details only for the failing trace.
        assert!(
            text.contains("\nbroken (fail):\n  gpu (lavapipe): fail"),
            "{text}"
        );
        assert!(!text.contains("fine (pass):"), "{text}");
        assert!(text.ends_with("\n3 traces: 1 pass, 1 fail, 0 new, 1 skip, 0 error\n"));
    }
}
