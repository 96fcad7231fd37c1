//! The batch report: one [`ProgramReport`] per unique program, the sources' problems, the
//! negative control and totals. Plain serde data (schema in `docs/batch.md`); the printers
//! here write the JSON file, the export manifest and the worst-first table rows; the HTML
//! page is [`super::html`].

use super::catalog::StateSource;
use super::check::Status;
use crate::divergence::report::model::{MutationSummary, Stage, StageReport};
use rsxtrace_program::source::{Note, Origin, PipelineState, SourceProblem};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Version of the JSON schema.
pub const SCHEMA: u32 = 1;

/// One unique program.
#[derive(Clone, Debug, Serialize)]
pub struct ProgramReport {
    /// Content key, 16 lowercase hex digits (a capture's `vp_hash` / `fp_hash`).
    pub key: String,
    /// `vertex` or `fragment`.
    pub stage: Stage,
    /// Short name (the first source's file name).
    pub name: String,
    /// Every place the program was found.
    pub sources: Vec<Origin>,
    /// The container formats it was found in (`CgBinaryProgram`, `PSL1GHT fragment program
    /// (cgcomp since July 2020)`...), each once; empty for raw cache files.
    pub formats: Vec<&'static str>,
    /// Where the state it was checked with came from.
    pub state_source: StateSource,
    /// The first RPCS3 pipeline state recorded with it.
    pub state: Option<PipelineState>,
    /// What the sources say about how it was found (default state, found through a symbol).
    pub notes: Vec<Note>,
    /// The fragment control word used (null for vertex programs).
    pub control: Option<u32>,
    /// Instructions decoded.
    pub instructions: usize,
    /// Status.
    pub status: Status,
    /// Why, when not proven.
    pub reason: Option<String>,
    /// Worst diverged score (0 when nothing diverged; null when nothing was compared).
    pub worst_error: Option<f64>,
    /// Components compared.
    pub compared: u64,
    /// Components marked ill-conditioned.
    pub ill_conditioned: u64,
    /// The comparison's per-register tallies.
    pub comparison: Option<StageReport>,
    /// Disassembly.
    pub disassembly: String,
    /// Recompiled WGSL (kept for the HTML page; not in JSON).
    #[serde(skip)]
    pub wgsl: Option<String>,
    /// Files of the export (`--out`), relative to its folder.
    pub files: Vec<String>,
    /// Languages naga could not write the module in, with the reason.
    pub refused: Vec<(String, String)>,
}

/// Counts.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    /// Unique programs.
    pub programs: usize,
    /// Unique vertex programs.
    pub vertex: usize,
    /// Unique fragment programs.
    pub fragment: usize,
    /// Programs per status name.
    pub by_status: BTreeMap<&'static str, usize>,
    /// Program locations found (before deduplication).
    pub locations: usize,
    /// Files read.
    pub files_read: usize,
    /// Problems in the sources.
    pub problems: usize,
}

/// The whole batch.
#[derive(Clone, Debug, Serialize)]
pub struct BatchReport {
    /// [`SCHEMA`].
    pub schema: u32,
    /// The sources given.
    pub sources: Vec<String>,
    /// `K/N` when sharded.
    pub shard: Option<String>,
    /// The device (null with `--no-gpu`).
    pub device: Option<String>,
    /// Programs, worst first.
    pub programs: Vec<ProgramReport>,
    /// Files or parts of files that could not be used.
    pub problems: Vec<SourceProblem>,
    /// The negative control (`--mutate`).
    pub mutation: Option<MutationSummary>,
    /// Counts.
    pub totals: Totals,
    /// Wall time in milliseconds.
    pub wall_ms: f64,
}

impl BatchReport {
    /// Every program is proven (with a device) or recompiled (without one).
    pub fn all_proven(&self) -> bool {
        let good = if self.device.is_some() {
            Status::Proven
        } else {
            Status::Recompiled
        };
        self.programs.iter().all(|p| p.status == good)
    }
}

/// Worst first: by status (diverged first), then by worst error, then by key.
pub fn sort_worst_first(programs: &mut [ProgramReport]) {
    programs.sort_by(|a, b| {
        a.status
            .cmp(&b.status)
            .then(
                b.worst_error
                    .unwrap_or(0.0)
                    .total_cmp(&a.worst_error.unwrap_or(0.0)),
            )
            .then(a.stage.cmp(&b.stage))
            .then(a.key.cmp(&b.key))
    });
}

/// Table headers of [`rows`].
pub const HEADERS: [&str; 7] = [
    "status",
    "stage",
    "key",
    "name",
    ">insns",
    ">worst err",
    "reason",
];

/// The first `top` programs as table rows.
pub fn rows(report: &BatchReport, top: usize) -> Vec<Vec<String>> {
    report
        .programs
        .iter()
        .take(top)
        .map(|p| {
            vec![
                p.status.name().to_string(),
                p.stage.name().to_string(),
                p.key.clone(),
                p.name.clone(),
                p.instructions.to_string(),
                p.worst_error
                    .map_or("-".to_string(), |e| format!("{e:.3e}")),
                p.reason.clone().unwrap_or_default(),
            ]
        })
        .collect()
}

/// One manifest entry (`--out DIR/manifest.json`).
#[derive(Serialize)]
struct ManifestEntry<'a> {
    key: &'a str,
    stage: Stage,
    sources: &'a [Origin],
    status: Status,
    worst_error: Option<f64>,
    files: &'a [String],
}

/// Writes the report as JSON to `path`.
pub fn write_json(report: &BatchReport, path: &Path) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
    std::fs::write(path, text)
}

/// Writes `dir/manifest.json`: `{schema, programs: [{key, stage, sources, status,
/// worst_error, files}]}` sorted by stage and key.
pub fn write_manifest(report: &BatchReport, dir: &Path) -> std::io::Result<()> {
    let mut entries: Vec<ManifestEntry<'_>> = report
        .programs
        .iter()
        .map(|p| ManifestEntry {
            key: &p.key,
            stage: p.stage,
            sources: &p.sources,
            status: p.status,
            worst_error: p.worst_error,
            files: &p.files,
        })
        .collect();
    entries.sort_by(|a, b| a.stage.cmp(&b.stage).then(a.key.cmp(b.key)));
    let value = serde_json::json!({ "schema": SCHEMA, "programs": entries });
    let text = serde_json::to_string_pretty(&value).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("manifest.json"), text)
}
