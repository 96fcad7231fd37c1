//! The whole `mvp` answer for one frame: the view-projection (given or estimated), the
//! convention, one entry per draw with c32..c35 (placement, residual, mesh, verdict, implied
//! world matrix) and the summary counts. Serialised as the documented JSON of `rsxtrace mvp`
//! (`docs/probes.md`).

use super::{
    detect_convention, draw_matrices_at, estimate_view_projection_with, match_draws, Convention,
    MatchOptions, MvpError, MvpRegisters, Verdict,
};
use crate::probe::matrix::{Mat4, Quaternion};
use crate::probe::mesh::{identify_meshes, Mesh, MeshMatch};
use crate::probe::placement::Placement;
use rsxtrace_capture::frame::Frame;
use serde::Serialize;

/// Where the view-projection came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewProjectionSource {
    /// Given by the user.
    Given,
    /// Estimated by consensus over the draws and placements.
    Estimated,
    /// Not given, and no draw has c32..c35 to estimate it from (a capture whose constants
    /// were set before the frame, rrc-format.md 3.4): nothing is matched.
    Unknown,
}

/// An implied world matrix and its decomposition.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImpliedWorld {
    /// `M x VP^-1`, row-vector, four rows.
    pub matrix: Mat4,
    /// Row 3.
    pub translation: [f64; 3],
    /// The rotation (see [`Quaternion`]).
    pub rotation: Quaternion,
    /// Its angle in degrees.
    pub rotation_degrees: f64,
    /// Row lengths of the 3x3 part.
    pub scale: [f64; 3],
    /// Deviation from scale x rotation.
    pub shear: f64,
    /// Whether it is a rotation and translation alone (part tolerance).
    pub rigid: bool,
    /// Whether it is the identity (part tolerance).
    pub identity: bool,
}

/// One draw with c32..c35.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawEntry {
    /// The draw's index in the frame.
    pub draw: usize,
    /// The matching placement's id, or null.
    pub placement: Option<String>,
    /// The smallest relative residual over the allowed placements (null when none is
    /// allowed).
    pub residual: Option<f64>,
    /// The mesh file (name without extension) holding the draw's vertex bytes, or null.
    pub mesh: Option<String>,
    /// Where in the mesh file the bytes are, when `mesh` is not null.
    pub mesh_match: Option<MeshMatch>,
    /// The placement with the smallest residual, matched or not.
    pub nearest: Option<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// The implied world matrix, for unmatched draws.
    pub implied_world: Option<ImpliedWorld>,
}

/// Counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Draws in the frame.
    pub draws: usize,
    /// Draws with c32..c35 that a placement fits.
    pub matched: usize,
    /// Draws with c32..c35 that no placement fits.
    pub unmatched: usize,
    /// Draws without c32..c35.
    pub without_constants: usize,
}

/// The `mvp` report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MvpReport {
    /// Row-vector view-projection used (`None` when [`ViewProjectionSource::Unknown`]).
    pub view_projection: Option<Mat4>,
    /// Given, estimated or unknown.
    pub view_projection_source: ViewProjectionSource,
    /// The convention that fits (`None` when no draw has c32..c35).
    pub convention: Option<Convention>,
    /// Draws fitted under the convention used.
    pub convention_support: usize,
    /// Draws fitted under the other convention.
    pub other_convention_support: usize,
    /// The match tolerance (relative residual).
    pub tolerance: f64,
    /// The verdicts' part tolerance.
    pub part_tolerance: f64,
    /// Whether mesh identity restricted the candidate placements.
    pub meshes_used: bool,
    /// One entry per draw with c32..c35, in draw order.
    pub draws: Vec<DrawEntry>,
    /// Counts.
    pub summary: Summary,
}

/// Inputs of [`analyse`] besides the frame and placements.
#[derive(Clone, Copy, Debug, Default)]
pub struct AnalyseOptions<'a> {
    /// The view-projection, when known; estimated otherwise.
    pub view_projection: Option<&'a Mat4>,
    /// Mesh files; when given, a draw whose bytes are in a file is matched only to placements
    /// of that mesh.
    pub meshes: Option<&'a [Mesh]>,
    /// Tolerances.
    pub match_options: MatchOptions,
    /// Where the model-view-projection rows are (`c[32..35]` by default).
    pub registers: MvpRegisters,
}

/// Answer the `mvp` question for `frame`.
pub fn analyse(
    frame: &Frame,
    placements: &[Placement],
    options: &AnalyseOptions<'_>,
) -> Result<MvpReport, MvpError> {
    let draws = draw_matrices_at(frame, options.registers);
    let meshes_by_draw: Vec<Option<MeshMatch>> = match options.meshes {
        Some(meshes) => identify_meshes(frame, meshes),
        None => Vec::new(),
    };
    let draw_mesh: Vec<Option<&MeshMatch>> = draws
        .iter()
        .map(|d| meshes_by_draw.get(d.draw).and_then(Option::as_ref))
        .collect();
    let allowed = |d: usize, p: usize| -> bool {
        match (draw_mesh.get(d).copied().flatten(), placements.get(p)) {
            (Some(m), Some(placement)) => placement.mesh.as_deref() == Some(m.name.as_str()),
            (None, Some(_)) => true,
            (_, None) => false,
        }
    };
    let tolerance = options.match_options.tolerance;
    if draws.is_empty() {
        // Nothing to estimate from or to match: every draw lacks c32..c35.
        return Ok(MvpReport {
            view_projection: options.view_projection.copied(),
            view_projection_source: match options.view_projection {
                Some(_) => ViewProjectionSource::Given,
                None => ViewProjectionSource::Unknown,
            },
            convention: None,
            convention_support: 0,
            other_convention_support: 0,
            tolerance,
            part_tolerance: options.match_options.part_tolerance,
            meshes_used: options.meshes.is_some(),
            draws: Vec::new(),
            summary: Summary {
                draws: frame.draws.len(),
                matched: 0,
                unmatched: 0,
                without_constants: frame.draws.len(),
            },
        });
    }
    let (view_projection, source, convention, support, other) = match options.view_projection {
        Some(vp) => {
            let (c, n, other) = detect_convention(&draws, placements, vp, tolerance, &allowed);
            (*vp, ViewProjectionSource::Given, c, n, other)
        }
        None => {
            let e = estimate_view_projection_with(&draws, placements, tolerance, &allowed)?;
            (
                e.view_projection,
                ViewProjectionSource::Estimated,
                e.convention,
                e.support,
                e.other_convention_support,
            )
        }
    };
    let matches = match_draws(
        &draws,
        placements,
        &view_projection,
        convention,
        &options.match_options,
        &allowed,
    )?;
    let part = options.match_options.part_tolerance;
    let entries: Vec<DrawEntry> = matches
        .iter()
        .zip(&draw_mesh)
        .map(|(m, mesh)| {
            let id = |p: Option<usize>| p.and_then(|i| placements.get(i)).map(|p| p.id.clone());
            let implied_world = match (&m.placement, &m.decomposition) {
                (None, Some(d)) => Some(ImpliedWorld {
                    matrix: m.implied_world,
                    translation: d.translation,
                    rotation: d.rotation,
                    rotation_degrees: d.rotation.angle_degrees(),
                    scale: d.scale,
                    shear: d.shear,
                    rigid: d.is_rigid(part),
                    identity: d.is_identity(part),
                }),
                _ => None,
            };
            DrawEntry {
                draw: m.draw,
                placement: id(m.placement),
                residual: m.residual.is_finite().then_some(m.residual),
                mesh: mesh.map(|x| x.name.clone()),
                mesh_match: mesh.cloned(),
                nearest: id(m.nearest),
                verdict: m.verdict.clone(),
                implied_world,
            }
        })
        .collect();
    let matched = entries.iter().filter(|e| e.placement.is_some()).count();
    let summary = Summary {
        draws: frame.draws.len(),
        matched,
        unmatched: entries.len() - matched,
        without_constants: frame.draws.len().saturating_sub(entries.len()),
    };
    Ok(MvpReport {
        view_projection: Some(view_projection),
        view_projection_source: source,
        convention: Some(convention),
        convention_support: support,
        other_convention_support: other,
        tolerance,
        part_tolerance: part,
        meshes_used: options.meshes.is_some(),
        draws: entries,
        summary,
    })
}
