//! `rsxtrace mvp`: match each draw's model-view-projection constants (c32..c35, or where
//! `--registers auto` finds them) to level
//! placements, with the view-projection given or estimated by consensus, mesh identity from
//! vertex bytes, and the implied world matrix of every unmatched draw. The JSON (`--json`) is
//! [`rsxtrace_verify::probe::mvp::MvpReport`], documented in `docs/probes.md`.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::Context;
use clap::Args;
use rsxtrace_verify::probe::matrix::Mat4;
use rsxtrace_verify::probe::mesh::read_meshes;
use rsxtrace_verify::probe::mvp::{
    analyse, AnalyseOptions, DrawEntry, MatchOptions, MvpRegisters, MvpReport, Verdict,
    ViewProjectionSource, DEFAULT_PART_TOLERANCE, DEFAULT_TOLERANCE,
};
use rsxtrace_verify::probe::placement::{read_placements, read_view_projection};
use std::fmt::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MvpArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Placements file: a JSON list of {"id", "mesh" (optional), "world": [16 numbers,
    /// row-major, row-vector convention]} (docs/probes.md).
    #[arg(long)]
    pub placements: PathBuf,
    /// View-projection file ({"view_projection": [4 rows]}, row-vector); estimated from the
    /// capture by consensus when absent.
    #[arg(long = "view-proj")]
    pub view_proj: Option<PathBuf>,
    /// Directory of mesh files (vertex bytes as stored by the game); a draw whose vertex bytes
    /// are in a file is matched only to placements of that mesh.
    #[arg(long)]
    pub meshes: Option<PathBuf>,
    /// Largest relative residual of a match.
    #[arg(long, default_value_t = DEFAULT_TOLERANCE)]
    pub tolerance: f64,
    /// Tolerance of the verdicts on implied world matrices (rigid, identity, same part).
    #[arg(long, default_value_t = DEFAULT_PART_TOLERANCE)]
    pub part_tolerance: f64,
    /// Where the model-view-projection rows are: `auto` (per vertex program, the
    /// four-register matrix whose products write `o[HPOS]`, as `probe constants` finds it),
    /// or the first register N of `c[N..N+3]`.
    #[arg(long, default_value = "32", value_parser = parse_registers)]
    pub registers: MvpRegisters,
    /// Print the documented JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

fn parse_registers(s: &str) -> Result<MvpRegisters, String> {
    if s == "auto" {
        return Ok(MvpRegisters::Auto);
    }
    match s.trim_start_matches("c").parse::<u16>() {
        Ok(n) if n <= 464 => Ok(MvpRegisters::At(n)),
        _ => Err(format!(
            "{s:?}: `auto`, or the first of four constant registers (0..=464)"
        )),
    }
}

pub fn run(args: &MvpArgs) -> anyhow::Result<Status> {
    let positive = |t: f64| t.is_finite() && t > 0.0;
    if !positive(args.tolerance) || !positive(args.part_tolerance) {
        anyhow::bail!("tolerances must be positive numbers");
    }
    let placements = read_placements(&args.placements)
        .with_context(|| format!("placements file {}", args.placements.display()))?;
    let view_projection = match &args.view_proj {
        Some(path) => Some(
            read_view_projection(path)
                .with_context(|| format!("view-projection file {}", path.display()))?,
        ),
        None => None,
    };
    let meshes = match &args.meshes {
        Some(dir) => {
            Some(read_meshes(dir).with_context(|| format!("meshes directory {}", dir.display()))?)
        }
        None => None,
    };
    let (_capture, frame) = super::load_frame(&args.file)?;
    let report = analyse(
        &frame,
        &placements,
        &AnalyseOptions {
            view_projection: view_projection.as_ref(),
            meshes: meshes.as_deref(),
            match_options: MatchOptions {
                tolerance: args.tolerance,
                part_tolerance: args.part_tolerance,
            },
            registers: args.registers,
        },
    )
    .with_context(|| format!("mvp of {}", args.file.display()))?;
    if args.json {
        print_json(&report)?;
    } else {
        out!("{}", render(&report));
    }
    Ok(Status::Success)
}

fn matrix_lines(m: &Mat4) -> String {
    let mut out = String::new();
    for row in m {
        let cells: Vec<String> = row.iter().map(|v| format!("{v:>12.6}")).collect();
        let _ = writeln!(out, "  [{}]", cells.join(", "));
    }
    out
}

fn verdict_text(v: &Verdict) -> String {
    match v {
        Verdict::Placement => "placement".into(),
        Verdict::Identity => "identity world (the view-projection itself)".into(),
        Verdict::Near {
            placement,
            differs: Some(part),
        } => format!("{placement} except its {}", part.name()),
        Verdict::Near {
            placement,
            differs: None,
        } => format!("close to {placement} in every part, outside the tolerance"),
        Verdict::Rigid => "rigid (rotation + translation), no placement".into(),
        Verdict::Scaled => "scaled, no placement".into(),
        Verdict::Sheared => "not scale x rotation x translation".into(),
        Verdict::Degenerate => "degenerate".into(),
    }
}

fn residual_text(e: &DrawEntry) -> String {
    e.residual
        .map(|r| format!("{r:.2e}"))
        .unwrap_or_else(|| "-".into())
}

/// The text report.
pub fn render(report: &MvpReport) -> String {
    let mut out = String::new();
    let how = match report.view_projection_source {
        ViewProjectionSource::Given => "given".to_string(),
        ViewProjectionSource::Estimated => format!(
            "estimated by consensus: {} draws fit it",
            report.convention_support
        ),
        ViewProjectionSource::Unknown => "unknown".to_string(),
    };
    match &report.view_projection {
        Some(vp) => {
            let _ = writeln!(out, "view-projection ({how}), row-vector:");
            out.push_str(&matrix_lines(vp));
        }
        None => {
            let _ = writeln!(out, "view-projection: unknown");
        }
    }
    match report.convention {
        Some(c) => {
            let _ = writeln!(
                out,
                "convention: {} ({} draws fit; {} under the other)",
                c.name(),
                report.convention_support,
                report.other_convention_support
            );
        }
        None => {
            let _ = writeln!(
                out,
                "warning: no draw has c32..c35 (transform constants set before the captured frame are not in the capture); nothing to match"
            );
        }
    }
    let _ = writeln!(
        out,
        "tolerance: relative residual {:e}; parts {:e}{}\n",
        report.tolerance,
        report.part_tolerance,
        if report.meshes_used {
            "; placements restricted to each draw's mesh"
        } else {
            ""
        }
    );
    let mut t = Table::new(&[">draw", "placement", "mesh", ">residual", "verdict"]);
    for e in &report.draws {
        t.row(vec![
            e.draw.to_string(),
            e.placement.clone().unwrap_or_else(|| "-".into()),
            e.mesh.clone().unwrap_or_else(|| "-".into()),
            residual_text(e),
            verdict_text(&e.verdict),
        ]);
    }
    out.push_str(&t.render());
    let unmatched: Vec<&DrawEntry> = report
        .draws
        .iter()
        .filter(|e| e.placement.is_none())
        .collect();
    if !unmatched.is_empty() {
        out.push_str(
            "\nunmatched draws, implied world matrix (W with W x VP = the draw's matrix):\n",
        );
    }
    for e in unmatched {
        let _ = writeln!(out, "draw {}: {}", e.draw, verdict_text(&e.verdict));
        if let Some(w) = &e.implied_world {
            let q = &w.rotation;
            let _ = writeln!(
                out,
                "  translation ({:.4}, {:.4}, {:.4}); rotation {:.3} deg, quaternion (w {:.5}, x {:.5}, y {:.5}, z {:.5}); scale ({:.4}, {:.4}, {:.4}); shear {:.1e}; {}",
                w.translation[0],
                w.translation[1],
                w.translation[2],
                w.rotation_degrees,
                q.w,
                q.x,
                q.y,
                q.z,
                w.scale[0],
                w.scale[1],
                w.scale[2],
                w.shear,
                if w.identity {
                    "identity"
                } else if w.rigid {
                    "rigid"
                } else {
                    "not rigid"
                }
            );
        }
        if let Some(nearest) = &e.nearest {
            let _ = writeln!(
                out,
                "  nearest placement {nearest}, residual {}",
                residual_text(e)
            );
        }
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "\nsummary: {} matched, {} unmatched, {} without c32..c35 ({} draws)",
        s.matched, s.unmatched, s.without_constants, s.draws
    );
    out
}
