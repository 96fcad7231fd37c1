//! [`run_batch`]: the unique programs of a discovery checked in parallel (rayon; device use is
//! serialised by the verify context's lock, so CPU work of other programs overlaps it),
//! exported, then the negative control over a sample of the proven ones.

use super::catalog::{catalog, Entry};
use super::check::{check, Checked, Status};
use super::control::{negative_control, Candidate};
use super::export::{export, Exported};
use super::report::{sort_worst_first, BatchReport, ProgramReport, Totals, SCHEMA};
use crate::divergence::context::{Context, FragmentHook, VertexHook};
use crate::divergence::report::model::Stage;
use crate::divergence::Tolerances;
use crate::shard::Shard;
use rayon::prelude::*;
use rsxtrace_gpu::Gpu;
use rsxtrace_program::source::Discovery;
use std::path::PathBuf;
use std::time::Instant;

/// How a batch runs.
#[derive(Clone, Debug, Default)]
pub struct BatchOptions {
    /// The sources, as given (for the report).
    pub sources: Vec<String>,
    /// Export folder (`--out`).
    pub out: Option<PathBuf>,
    /// Only the programs of this shard (by position in key order).
    pub shard: Option<Shard>,
    /// Negative-control mutations.
    pub mutate: usize,
    /// Seed of the negative control.
    pub seed: u64,
    /// Tolerances.
    pub tolerances: Tolerances,
    /// Test-only edit of a vertex program on the device side (batch index, program).
    pub vertex_hook: Option<VertexHook>,
    /// Test-only edit of a fragment program on the device side.
    pub fragment_hook: Option<FragmentHook>,
}

/// Why a batch cannot run at all.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The export folder cannot be written.
    #[error("cannot write {path}: {source}")]
    Output {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// One program's report from its check and export.
fn program_report(e: &Entry, c: &Checked, exported: Exported) -> ProgramReport {
    let (worst_error, compared, ill_conditioned) = match &c.comparison {
        Some(r) if !r.registers.is_empty() => (
            Some(r.worst_score()),
            r.registers.iter().map(|t| t.compared).sum(),
            r.ill_conditioned(),
        ),
        _ => (None, 0, 0),
    };
    ProgramReport {
        key: e.key_hex(),
        stage: e.stage,
        name: e.name(),
        sources: e.origins.clone(),
        formats: e.formats.clone(),
        state_source: e.state_source.clone(),
        state: e.state.clone(),
        notes: e.notes.clone(),
        control: (e.stage == Stage::Fragment).then_some(e.control),
        instructions: c.instructions,
        status: c.status,
        reason: c.reason.clone(),
        worst_error,
        compared,
        ill_conditioned,
        comparison: c.comparison.clone(),
        disassembly: c.disassembly.clone(),
        wgsl: c.module.as_ref().map(|m| m.source.clone()),
        files: exported.files,
        refused: exported.refused,
    }
}

/// Checks every unique program of `discovery` (on `gpu` when given), exporting to
/// `options.out`; `progress` is advanced once per program.
pub fn run_batch(
    discovery: &Discovery,
    gpu: Option<&Gpu>,
    options: &BatchOptions,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<BatchReport, BatchError> {
    let start = Instant::now();
    let entries: Vec<Entry> = catalog(discovery)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| options.shard.is_none_or(|s| s.contains(*i)))
        .map(|(_, e)| e)
        .collect();
    if let Some(out) = &options.out {
        std::fs::create_dir_all(out).map_err(|source| BatchError::Output {
            path: out.clone(),
            source,
        })?;
    }
    if let Some(p) = progress {
        p.set_length(entries.len() as u64);
    }
    let cx = gpu.map(|g| {
        let mut cx = Context::new(g, options.tolerances, usize::MAX);
        cx.vertex_hook = options.vertex_hook;
        cx.fragment_hook = options.fragment_hook;
        // Each program is checked once: its pipelines would only push others out.
        cx.pipelines = crate::divergence::context::Pipelines::Forget;
        cx
    });
    let checked: Vec<Result<(Checked, Exported), BatchError>> = entries
        .par_iter()
        .enumerate()
        .map(|(i, e)| {
            let c = check(i, e, cx.as_ref());
            let exported = match &options.out {
                Some(out) => export(
                    out,
                    e.stage.name(),
                    &e.key_hex(),
                    c.module.as_ref(),
                    &c.disassembly,
                )
                .map_err(|source| BatchError::Output {
                    path: out.clone(),
                    source,
                })?,
                None => Exported::default(),
            };
            if let Some(p) = progress {
                p.inc(1);
            }
            Ok((c, exported))
        })
        .collect();
    let mut programs = Vec::with_capacity(entries.len());
    let mut results = Vec::with_capacity(entries.len());
    for (e, r) in entries.iter().zip(checked) {
        let (c, exported) = r?;
        programs.push(program_report(e, &c, exported));
        results.push(c);
    }
    let mutation = match (&cx, options.mutate) {
        (Some(cx), n) if n > 0 => {
            let candidates: Vec<Candidate<'_>> = entries
                .iter()
                .zip(&results)
                .enumerate()
                .filter(|(_, (_, c))| c.status == Status::Proven)
                .filter_map(|(i, (e, c))| c.decoded.as_ref().map(|d| (i, e, d)))
                .collect();
            Some(negative_control(&candidates, n, options.seed, cx))
        }
        _ => None,
    };
    let mut totals = Totals {
        programs: programs.len(),
        vertex: programs.iter().filter(|p| p.stage == Stage::Vertex).count(),
        fragment: programs
            .iter()
            .filter(|p| p.stage == Stage::Fragment)
            .count(),
        locations: discovery.programs.len(),
        files_read: discovery.files_read,
        problems: discovery.problems.len(),
        ..Totals::default()
    };
    for p in &programs {
        *totals.by_status.entry(p.status.name()).or_default() += 1;
    }
    sort_worst_first(&mut programs);
    let report = BatchReport {
        schema: SCHEMA,
        sources: options.sources.clone(),
        shard: options.shard.map(|s| s.to_string()),
        device: gpu.map(|g| g.info().to_string()),
        programs,
        problems: discovery.problems.clone(),
        mutation,
        totals,
        wall_ms: start.elapsed().as_secs_f64() * 1000.0,
    };
    if let Some(out) = &options.out {
        super::report::write_manifest(&report, out).map_err(|source| BatchError::Output {
            path: out.join("manifest.json"),
            source,
        })?;
    }
    Ok(report)
}
