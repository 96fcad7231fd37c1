//! The CI runner behind `rsxtrace ci`: run a manifest of traces against reference images,
//! bisect failures to the draw, and report. A library so that every front end (the CLI, a
//! batch job, a report server) runs suites the same way; the CLI only parses arguments,
//! prints the table and maps the [`Verdict`] to its exit status.
//!
//! - [`manifest`]: the TOML schema and its validation.
//! - [`runner`]: one trace: render on each path, `--update`, compare, bisect.
//! - [`image_diff`], [`checksum`], [`bisect`]: the pieces it uses; [`shard`] (from
//!   `rsxtrace-verify`) splits a manifest across machines.
//! - [`report`]: the results as data; [`junit`], [`json`] and [`html`] write them.
//!
//! `docs/ci.md` documents the manifest, the reports and the exit statuses.

pub mod bisect;
pub mod checksum;
pub mod html;
pub mod image_diff;
pub mod json;
pub mod junit;
pub mod manifest;
pub mod report;
pub mod runner;
pub use rsxtrace_verify::shard;

pub use report::{Report, Summary, Verdict};
pub use runner::{GpuPath, Renderers, RunOptions};

use anyhow::Context;
use std::path::{Path, PathBuf};

/// Which renderers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
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

impl Renderers {
    /// Open the renderers `paths` asks for, the GPU path on `backend`. Under [`Paths::Auto`]
    /// a device that does not open leaves the GPU path [`GpuPath::Unavailable`]; under
    /// [`Paths::Gpu`] and [`Paths::Both`] it is an error.
    pub fn open(paths: Paths, backend: rsxtrace_gpu::Backend) -> anyhow::Result<Renderers> {
        let cpu = paths != Paths::Gpu;
        let gpu = if paths == Paths::Cpu {
            GpuPath::Off
        } else {
            match rsxtrace_gpu::Gpu::new(rsxtrace_gpu::GpuOptions {
                backend,
                ..Default::default()
            }) {
                Ok(gpu) => {
                    let key = checksum::gpu_key(gpu.info());
                    GpuPath::Ready {
                        gpu: Box::new(gpu),
                        key,
                    }
                }
                Err(e) if paths == Paths::Auto => GpuPath::Unavailable(e.to_string()),
                Err(e) => return Err(e).context("the GPU path needs a device"),
            }
        };
        Ok(Renderers { cpu, gpu })
    }
}

/// What to run of a manifest, and where the reports go.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Only shard K of N (the traces at manifest positions p with p mod N = K-1).
    pub shard: Option<shard::Shard>,
    /// Only the traces with these names (all when empty); the others are reported as skipped.
    pub traces: Vec<String>,
}

/// Where a run is, for a progress display: `done` of `total` traces finished, `current` the
/// name of the one starting (None once all are done).
pub struct Progress<'a> {
    pub done: usize,
    pub total: usize,
    pub current: Option<&'a str>,
}

/// A manifest loaded and its traces selected, ready to run.
pub struct Plan {
    manifest_path: PathBuf,
    manifest: manifest::Manifest,
    selection: Selection,
}

impl Plan {
    /// Load the manifest at `manifest_path` and check the selection against it (an unknown
    /// `--trace` name is an error).
    pub fn new(manifest_path: &Path, selection: Selection) -> anyhow::Result<Plan> {
        let manifest = manifest::load(manifest_path)?;
        for name in &selection.traces {
            if !manifest.traces.iter().any(|t| &t.name == name) {
                anyhow::bail!(
                    "--trace {name}: no trace of that name in {}",
                    manifest_path.display()
                );
            }
        }
        Ok(Plan {
            manifest_path: manifest_path.to_path_buf(),
            manifest,
            selection,
        })
    }

    /// The traces of this shard, in manifest order.
    fn selected(&self) -> Vec<&manifest::TraceSpec> {
        self.manifest
            .traces
            .iter()
            .enumerate()
            .filter(|(i, _)| self.selection.shard.is_none_or(|s| s.contains(*i)))
            .map(|(_, t)| t)
            .collect()
    }

    /// Run every selected trace on `renderers`, its images added to the HTML report in
    /// `html` when given (returns the report and the HTML index). Errors only for what stops
    /// the whole run (an unwritable report); a trace that cannot run is an error *of that
    /// trace* in the report, and the run goes on.
    pub fn run(
        &self,
        renderers: &Renderers,
        options: RunOptions,
        html: Option<&Path>,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> anyhow::Result<(Report, Option<PathBuf>)> {
        let selected = self.selected();
        let chosen = &self.selection.traces;
        let mut html = html.map(html::HtmlWriter::new).transpose()?;
        let mut traces = Vec::with_capacity(selected.len());
        for (done, spec) in selected.iter().enumerate() {
            progress(Progress {
                done,
                total: selected.len(),
                current: Some(&spec.name),
            });
            let (result, artifacts) = if !chosen.is_empty() && !chosen.contains(&spec.name) {
                (
                    runner::skipped(spec, "not selected by --trace"),
                    html::Artifacts::default(),
                )
            } else {
                runner::run_trace(spec, renderers, options)
            };
            if let Some(writer) = &mut html {
                writer.add(&result, &artifacts)?;
            }
            traces.push(result);
        }
        progress(Progress {
            done: selected.len(),
            total: selected.len(),
            current: None,
        });
        let report = Report::new(
            self.manifest_path.display().to_string(),
            self.selection.shard.map(|s| s.to_string()),
            renderers.paths(),
            match &renderers.gpu {
                GpuPath::Ready { gpu, key } => Some(format!("{} ({key})", gpu.info().adapter)),
                _ => None,
            },
            traces,
        );
        let index = html.map(|writer| writer.finish(&report)).transpose()?;
        Ok((report, index))
    }
}
