//! `rsxtrace probe maininv`: which space a fog shader's `MainInv` matrix lives in.
//!
//! Reads the 4x4 uniform (rows `NAME[0]`..`NAME[3]`, through the container's embedded
//! constants) at every draw that uses the program, takes the camera's view-projection from a
//! file (`--view-proj`) or estimates it from the draws' c32..c35 and the level's placements
//! (`--placements`, as `rsxtrace mvp` does), and judges `X = view-projection x MainInv`
//! (`rsxtrace_verify::probe::maininv`, where the residuals and the threshold are defined).
//!
//! Exit status: 0 for a verdict (`world` or `view`), 1 when undecided, 2 on error.

use super::super::uniforms::load_program;
use crate::exit::Status;
use crate::output::print_json;
use anyhow::Context;
use clap::Args;
use rsxtrace_program::container::Container;
use rsxtrace_verify::probe::maininv::{judge, MainInvReport, Verdict, DEFAULT_TOLERANCE};
use rsxtrace_verify::probe::matrix::Mat4;
use rsxtrace_verify::probe::mvp::{draw_matrices, estimate_view_projection};
use rsxtrace_verify::probe::placement::{read_placements, read_view_projection};
use rsxtrace_verify::probe::uniforms::{container_uniforms, matrix_rows, read_uniforms};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MainInvArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// The fog program: a CgBinaryProgram or PSL1GHT fragment container that names the
    /// uniform's rows.
    #[arg(long)]
    pub program: PathBuf,
    /// The matrix uniform; its rows are the parameters `NAME[0]`..`NAME[3]`.
    #[arg(long, default_value = "MainInv")]
    pub uniform: String,
    /// The camera's view-projection (row-vector convention): {"view_projection": [4 rows]},
    /// four rows, or 16 numbers.
    #[arg(long, conflicts_with = "placements")]
    pub view_proj: Option<PathBuf>,
    /// Estimate the view-projection from these placements and the draws' c32..c35.
    #[arg(long)]
    pub placements: Option<PathBuf>,
    /// Largest residual that still fits a hypothesis.
    #[arg(long, default_value_t = DEFAULT_TOLERANCE)]
    pub tolerance: f64,
    /// Print JSON: {"verdict", "residual_view", "residual_world", "draws", ...}.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    report: &'a MainInvReport,
    uniform: &'a str,
    view_projection_source: String,
}

pub fn run(args: &MainInvArgs) -> anyhow::Result<Status> {
    let (_capture, frame) = crate::cmd::load_frame(&args.file)?;
    let loaded = load_program(&args.program)?;
    if matches!(loaded.container, Container::Raw(_)) {
        anyhow::bail!(
            "{} is raw microcode: a container is needed to find the rows of {}",
            args.program.display(),
            args.uniform
        );
    }
    let uniforms = container_uniforms(&loaded.container, &loaded.key)
        .with_context(|| format!("bad uniform table in {}", args.program.display()))?;
    let rows = matrix_rows(&uniforms, &args.uniform)
        .with_context(|| format!("in {}", args.program.display()))?;
    let values = read_uniforms(&frame, &loaded.key, &rows);
    let main_invs: Vec<(usize, Mat4)> = values
        .iter()
        .filter_map(|d| {
            let mut m = [[0.0f64; 4]; 4];
            for (row, u) in m.iter_mut().zip(&d.uniforms) {
                *row = u.value.map(f64::from);
            }
            (d.uniforms.len() == 4).then_some((d.draw, m))
        })
        .collect();
    if main_invs.is_empty() {
        anyhow::bail!(
            "no draw of {} uses the program of {}",
            args.file.display(),
            args.program.display()
        );
    }
    let (view_projection, source) = match (&args.view_proj, &args.placements) {
        (Some(path), _) => (
            read_view_projection(path)
                .with_context(|| format!("cannot read {}", path.display()))?,
            format!("file {}", path.display()),
        ),
        (None, Some(path)) => {
            let placements =
                read_placements(path).with_context(|| format!("cannot read {}", path.display()))?;
            let estimate = estimate_view_projection(&draw_matrices(&frame), &placements)
                .context("cannot estimate the view-projection")?;
            (
                estimate.view_projection,
                format!(
                    "estimated from {} ({} draws support it, residual {:.3e})",
                    path.display(),
                    estimate.support,
                    estimate.residual
                ),
            )
        }
        (None, None) => {
            anyhow::bail!("give the camera: --view-proj FILE, or --placements FILE to estimate it")
        }
    };
    let report = judge(&view_projection, &main_invs, args.tolerance)?;
    let status = match report.verdict {
        Verdict::Undecided => Status::Finding,
        Verdict::View | Verdict::World => Status::Success,
    };
    if args.json {
        print_json(&Output {
            report: &report,
            uniform: &args.uniform,
            view_projection_source: source,
        })?;
        return Ok(status);
    }
    outln!("verdict: {}", report.verdict.name());
    outln!("  {}", report.reason);
    outln!(
        "  residual world {:.3e}, residual view {:.3e} (tolerance {:.1e})",
        report.residual_world,
        report.residual_view,
        report.tolerance
    );
    outln!("  view-projection: {source}");
    outln!("  {} draws: {:?}", report.draws.len(), report.draws);
    if let Some(first) = report.evidence.first() {
        outln!(
            "  X = view-projection x {} at draw {}:",
            args.uniform,
            first.draw
        );
        for row in &first.x {
            outln!(
                "    [{:>12.6} {:>12.6} {:>12.6} {:>12.6}]",
                row[0],
                row[1],
                row[2],
                row[3]
            );
        }
    }
    Ok(status)
}
