//! `rsxtrace export gltf`: draws of a capture as one glTF 2.0 binary (GLB), a mesh per draw.
//!
//! Brief overview:
//! - [`mesh`]: one draw's vertices, primitives (converted to lists by the rasterizer's
//!   primitive assembly), position in clip, object or world space and attributes decoded to
//!   floats.
//! - [`mapping`]: which input attribute becomes NORMAL, COLOR_n, TEXCOORD_n: `--attr NAME=N`,
//!   else a documented guess that the file marks as a guess.
//! - [`material`]: the draw's sampled textures as embedded PNG images of a material.
//! - [`write`](mod@write): the glTF document (`gltf-json`) and the GLB container (`gltf`).
//!
//! A draw that cannot be exported (no position output, no vertices, a fetch that fails, a
//! draw past the end of the frame) is left out with the reason ([`ExportReport::skipped`]); an
//! attribute or texture unit that cannot be written is left out of its mesh with a warning.
//!
//! Per-mesh `extras` (and the report): `capture`, `draw`, `primitive` (the draw's),
//! `mode` (the glTF one), `space`, `vp_hash`, `fp_hash` (the programs' content keys),
//! `vertex_count`, `attributes` (each glTF attribute with the input `attribute` or `output`
//! `HPOS` it came from and whether it is a `guess`), `raw_attributes`, `textures` (unit and
//! content hash of each material image) and `warnings`.

pub mod mapping;
pub mod material;
pub mod mesh;
pub mod write;

pub use mapping::{parse_mapping, Mapping, Target};
pub use mesh::{build_mesh, DrawMesh, Mode, Space};

use crate::probe::matrix::{inverse, Mat4};
use mapping::Chosen;
use rsxtrace_capture::frame::Frame;
use serde::Serialize;
use std::ops::Range;

/// What to export.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportOptions {
    /// The draws (may run past the frame: those are reported as skipped).
    pub draws: Range<usize>,
    /// Where positions come from.
    pub space: Space,
    /// `--attr NAME=N` mappings.
    pub mappings: Vec<Mapping>,
    /// For [`Space::World`]: the view-projection (row-vector convention) whose inverse takes
    /// clip positions to world space.
    pub view_projection: Option<Mat4>,
}

/// One exported mesh, as the report lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExportedMesh {
    /// Draw index.
    pub draw: usize,
    /// glTF mesh index.
    pub mesh: usize,
    /// The draw's primitive.
    pub primitive: &'static str,
    /// The glTF mode.
    pub mode: Mode,
    /// Vertices written.
    pub vertices: usize,
    /// Points, lines or triangles written.
    pub primitives: usize,
    /// Position bounds, `[min, max]`.
    pub bounds: [[f32; 3]; 2],
    /// How each attribute was chosen.
    pub attributes: Vec<Chosen>,
    /// Texture units embedded as images.
    pub textures: Vec<u8>,
    /// What was left out or changed.
    pub warnings: Vec<String>,
}

/// A draw left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SkippedDraw {
    /// Draw index.
    pub draw: usize,
    /// Why.
    pub reason: String,
}

/// What an export wrote and left out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExportReport {
    /// The capture's file name.
    pub capture: String,
    /// Where positions come from.
    pub space: Space,
    /// The meshes, in draw order.
    pub meshes: Vec<ExportedMesh>,
    /// Draws left out.
    pub skipped: Vec<SkippedDraw>,
    /// Warnings that concern no one draw (unknown mapping names).
    pub warnings: Vec<String>,
    /// Size of the GLB file.
    pub bytes: usize,
}

/// The GLB bytes and the report.
#[derive(Clone, Debug)]
pub struct GltfExport {
    /// The file.
    pub glb: Vec<u8>,
    /// What it holds.
    pub report: ExportReport,
}

/// Why nothing could be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// Every requested draw was left out.
    #[error("nothing to export: {}", reasons.join("; "))]
    NothingToExport {
        /// Why each draw was left out.
        reasons: Vec<String>,
    },
    /// The file would pass the 4 GiB a GLB can hold.
    #[error("the GLB would hold {bytes} bytes, more than the 4 GiB a GLB file can")]
    TooLarge {
        /// Bytes it would hold.
        bytes: u64,
    },
    /// The document could not be serialised.
    #[error("cannot encode the glTF document: {0}")]
    Encode(String),
    /// World space without a view-projection.
    #[error("world space needs the camera's view-projection (--view-proj)")]
    NoViewProjection,
    /// A view-projection without an inverse.
    #[error("the view-projection is singular: clip positions cannot be taken back to world space")]
    SingularViewProjection,
}

/// Export `options.draws` of `frame` (capture file name `capture`), advancing `progress` by
/// one per draw.
pub fn export_gltf(
    frame: &Frame,
    capture: &str,
    options: &ExportOptions,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<GltfExport, ExportError> {
    if let Some(bar) = progress {
        bar.set_length(options.draws.len() as u64);
    }
    let mut warnings = Vec::new();
    for m in &options.mappings {
        if m.target.is_none() {
            warnings.push(format!(
                "--attr {}={}: unknown attribute name {:?} (position, normal, color0, color1, texcoord0..texcoord7); ignored",
                m.name, m.attribute, m.name
            ));
        }
    }
    let world_from_clip = match (options.space, &options.view_projection) {
        (Space::World, Some(vp)) => Some(inverse(vp).ok_or(ExportError::SingularViewProjection)?),
        (Space::World, None) => return Err(ExportError::NoViewProjection),
        _ => None,
    };
    let mut skipped = Vec::new();
    let mut meshes = Vec::new();
    let count = frame.draws.len();
    for draw in options.draws.clone() {
        if let Some(bar) = progress {
            bar.inc(1);
        }
        if draw >= count {
            skipped.push(SkippedDraw {
                draw,
                reason: format!("draw {draw} does not exist: the capture has {count} draws"),
            });
            continue;
        }
        match build_mesh(
            frame,
            draw,
            options.space,
            world_from_clip.as_ref(),
            &options.mappings,
        ) {
            Ok(mesh) => meshes.push(mesh),
            Err(reason) => skipped.push(SkippedDraw { draw, reason }),
        }
    }
    // Draws past the end are one line, not one per draw.
    let past: Vec<usize> = skipped
        .iter()
        .filter(|s| s.draw >= count)
        .map(|s| s.draw)
        .collect();
    if past.len() > 1 {
        skipped.retain(|s| s.draw < count);
        skipped.push(SkippedDraw {
            draw: past[0],
            reason: format!(
                "draws {}..{} do not exist: the capture has {count} draws",
                past[0],
                past[past.len() - 1] + 1
            ),
        });
    }
    if meshes.is_empty() {
        let mut reasons: Vec<String> = skipped
            .iter()
            .map(|s| format!("draw {}: {}", s.draw, s.reason))
            .collect();
        if reasons.is_empty() {
            reasons.push(format!("no draw in {:?}", options.draws));
        }
        return Err(ExportError::NothingToExport { reasons });
    }
    write::write_glb(frame, capture, options.space, meshes, skipped, warnings)
}
