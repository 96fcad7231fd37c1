//! One draw as a mesh: its vertices (one per distinct vertex index, in order of first use),
//! its primitives converted to lists, the position in clip or object space and the other
//! attributes decoded to floats.
//!
//! - **Vertices**: the draw's fetched vertices (`rsxtrace_fetch::fetch_draw`) merged by vertex
//!   index, so an indexed mesh keeps its vertex count (the crate of the level: 24 vertices,
//!   not 36); immediate-mode and inline vertices are one vertex each.
//! - **Primitives**: the rasterizer's primitive assembly (`rsxtrace_replay::raster::assemble`,
//!   with restarts and draw ranges cutting strips): quads, quad strips, polygons, strips and
//!   fans become triangle lists on the hardware's diagonals, in the source winding; line strips
//!   and loops become line lists; points stay points.
//! - **Clip space** (default): the position is the vertex program's HPOS, run on the reference
//!   interpreter as `rsxtrace exec` runs it (constants the capture lacks read as 0, with a
//!   warning), divided by w (normalised device coordinates); w itself is kept as the
//!   `_CLIP_W` attribute. A vertex with w = 0 keeps its undivided x, y, z (warned).
//! - **Object space**: the position is an input attribute (`--attr position=N`, else 0).
//! - **Other attributes**: by mapping or guess ([`super::mapping`]); normals are normalised
//!   (zero ones written as (0, 0, 1), warned), colours clamped to 0..1, texture coordinates
//!   are x, y. Every input attribute with values is also written whole as `_ATTR<n>` (VEC4).
//!   Values that are not finite are written as 0 (warned).

use super::mapping::{resolve, Chosen, Mapping, Target};
use crate::probe::matrix::Mat4;
use rsxtrace_capture::fetch::{fetch_draw, AttributeSource, FetchedVertices};
use rsxtrace_capture::frame::{Frame, Primitive};
use rsxtrace_replay::exec::{execute_draw, ExecOptions, OutputValue};
use rsxtrace_replay::interp::vertex::VertexOptions;
use rsxtrace_replay::raster::{assemble, primitive_starts, Assembled};
use serde::Serialize;
use std::collections::HashMap;

/// Where the position comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Space {
    /// The vertex program's HPOS output, divided by w.
    #[default]
    Clip,
    /// An input attribute.
    Object,
    /// The vertex program's HPOS output times the inverse of a view-projection (row-vector
    /// convention: clip = world x VP, so world = clip x VP^-1), divided by w: every draw's
    /// mesh where the game placed it.
    World,
}

/// The glTF primitive mode of a mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One index per point.
    Points,
    /// Two indices per line.
    Lines,
    /// Three indices per triangle.
    Triangles,
}

/// What a channel holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelKind {
    /// A mapped or guessed glTF attribute (never `Position`: that is [`DrawMesh::positions`]).
    Mapped(Target),
    /// An input attribute, whole (`_ATTR<n>`).
    Raw(u8),
    /// The clip-space w (`_CLIP_W`).
    ClipW,
}

impl ChannelKind {
    /// The glTF attribute name.
    pub fn gltf_name(self) -> String {
        match self {
            ChannelKind::Mapped(t) => t.gltf_name(),
            ChannelKind::Raw(n) => format!("_ATTR{n}"),
            ChannelKind::ClipW => "_CLIP_W".into(),
        }
    }
}

/// One float attribute stream, `components` values per vertex.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// What it is.
    pub kind: ChannelKind,
    /// Components per vertex (1..=4).
    pub components: usize,
    /// `components` values per vertex.
    pub values: Vec<f32>,
}

/// One draw's mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawMesh {
    /// Draw index.
    pub draw: usize,
    /// The draw's primitive.
    pub primitive: Primitive,
    /// The glTF mode after conversion.
    pub mode: Mode,
    /// Indices into the vertices.
    pub indices: Vec<u32>,
    /// Position per vertex.
    pub positions: Vec<[f32; 3]>,
    /// The other attributes.
    pub channels: Vec<Channel>,
    /// How each glTF attribute was chosen (position included).
    pub chosen: Vec<Chosen>,
    /// The vertex index of each vertex.
    pub vertex_indices: Vec<u32>,
    /// What was left out or changed.
    pub warnings: Vec<String>,
}

impl DrawMesh {
    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Number of primitives (points, lines or triangles).
    pub fn primitive_count(&self) -> usize {
        self.indices.len()
            / match self.mode {
                Mode::Points => 1,
                Mode::Lines => 2,
                Mode::Triangles => 3,
            }
    }

    /// The axis-aligned bounds of the positions, `(min, max)`.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in &self.positions {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        (lo, hi)
    }

    /// The channel for `target`, if the mesh has it.
    pub fn channel(&self, target: Target) -> Option<&Channel> {
        self.channels
            .iter()
            .find(|c| c.kind == ChannelKind::Mapped(target))
    }
}

/// Build draw `draw`'s mesh, or say why it cannot be exported.
pub fn build_mesh(
    frame: &Frame,
    draw: usize,
    space: Space,
    world_from_clip: Option<&Mat4>,
    mappings: &[Mapping],
) -> Result<DrawMesh, String> {
    let d = frame
        .draws
        .get(draw)
        .ok_or_else(|| format!("draw {draw} does not exist"))?;
    let memory = frame
        .memory(draw)
        .ok_or_else(|| format!("draw {draw} does not exist"))?;
    let fetched =
        fetch_draw(&d.vertex_inputs, &memory).map_err(|e| format!("vertex fetch: {e}"))?;
    if fetched.is_empty() {
        return Err("the draw submits no vertex".into());
    }
    let assembled = assemble(d.primitive, fetched.len(), &primitive_starts(&fetched));
    if assembled.is_empty() {
        return Err(format!(
            "{} vertices make no complete {}",
            fetched.len(),
            d.primitive.name()
        ));
    }
    let mut warnings = fetched.unknown_notes();
    // One vertex per distinct vertex index, in order of first use.
    let mut out_of: HashMap<u32, u32> = HashMap::new();
    let mut first_position: Vec<usize> = Vec::new();
    let mut vertex_indices: Vec<u32> = Vec::new();
    let mut remap = Vec::with_capacity(fetched.len());
    for (position, &index) in fetched.indices.iter().enumerate() {
        let next = first_position.len() as u32;
        let v = *out_of.entry(index).or_insert_with(|| {
            first_position.push(position);
            vertex_indices.push(index);
            next
        });
        remap.push(v);
    }
    let at = |p: u32| remap.get(p as usize).copied().unwrap_or(0);
    let (mode, indices) = match &assembled {
        Assembled::Points(p) => (Mode::Points, p.iter().map(|&p| at(p)).collect()),
        Assembled::Lines(l) => (
            Mode::Lines,
            l.iter().flat_map(|l| l.map(at)).collect::<Vec<u32>>(),
        ),
        Assembled::Triangles(t) => (
            Mode::Triangles,
            t.iter().flat_map(|t| t.v.map(at)).collect::<Vec<u32>>(),
        ),
    };
    let present: Vec<u8> = fetched
        .attributes
        .iter()
        .filter(|a| a.source != AttributeSource::Unset)
        .map(|a| a.attribute)
        .collect();
    let (targets, mapping_warnings) = resolve(mappings, &present, space != Space::Object);
    warnings.extend(mapping_warnings);
    let mut chosen = Vec::new();
    let mut channels = Vec::new();
    let mut non_finite = 0usize;
    let positions = match space {
        Space::Clip | Space::World => {
            // World space: the clip position through the inverse view-projection.
            let world = match space {
                Space::World => Some(
                    world_from_clip.ok_or("world space needs the view-projection (--view-proj)")?,
                ),
                _ => None,
            };
            let (positions, w) = clip_positions(
                frame,
                draw,
                &first_position,
                world,
                &mut warnings,
                &mut non_finite,
            )?;
            if world.is_none() {
                channels.push(Channel {
                    kind: ChannelKind::ClipW,
                    components: 1,
                    values: w,
                });
            }
            chosen.push(Chosen {
                gltf: "POSITION".into(),
                attribute: None,
                output: Some("HPOS"),
                guess: false,
            });
            positions
        }
        Space::Object => {
            let Some(&(_, attribute, guess)) =
                targets.iter().find(|(t, _, _)| *t == Target::Position)
            else {
                return Err(
                    "no position: attribute 0 has no values and no --attr position=N names another"
                        .into(),
                );
            };
            chosen.push(Chosen {
                gltf: "POSITION".into(),
                attribute: Some(attribute),
                output: None,
                guess,
            });
            column(&fetched, attribute, &first_position)
                .iter()
                .map(|v| [v[0], v[1], v[2]].map(|c| finite(c, &mut non_finite)))
                .collect()
        }
    };
    let mut zero_normals = 0usize;
    for &(target, attribute, guess) in &targets {
        if target == Target::Position {
            continue;
        }
        let values = column(&fetched, attribute, &first_position);
        let mut flat = Vec::with_capacity(values.len() * target.components());
        for v in &values {
            let v = v.map(|c| finite(c, &mut non_finite));
            match target {
                Target::Normal => flat.extend(unit(v, &mut zero_normals)),
                Target::Color(_) => flat.extend(v.map(|c| c.clamp(0.0, 1.0))),
                Target::TexCoord(_) => flat.extend([v[0], v[1]]),
                Target::Position => {}
            }
        }
        channels.push(Channel {
            kind: ChannelKind::Mapped(target),
            components: target.components(),
            values: flat,
        });
        chosen.push(Chosen {
            gltf: target.gltf_name(),
            attribute: Some(attribute),
            output: None,
            guess,
        });
    }
    for &attribute in &present {
        let values = column(&fetched, attribute, &first_position);
        channels.push(Channel {
            kind: ChannelKind::Raw(attribute),
            components: 4,
            values: values
                .iter()
                .flat_map(|v| v.map(|c| finite(c, &mut non_finite)))
                .collect(),
        });
    }
    if zero_normals > 0 {
        warnings.push(format!(
            "{zero_normals} normals of zero length written as (0, 0, 1)"
        ));
    }
    if non_finite > 0 {
        warnings.push(format!(
            "{non_finite} values that are not finite written as 0"
        ));
    }
    Ok(DrawMesh {
        draw,
        primitive: d.primitive,
        mode,
        indices,
        positions,
        channels,
        chosen,
        vertex_indices,
        warnings,
    })
}

fn finite(c: f32, count: &mut usize) -> f32 {
    if c.is_finite() {
        c
    } else {
        *count += 1;
        0.0
    }
}

/// `v.xyz` normalised; a zero (or tiny) vector becomes (0, 0, 1).
fn unit(v: [f32; 4], zero: &mut usize) -> [f32; 3] {
    let (x, y, z) = (f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
    let len = (x * x + y * y + z * z).sqrt();
    if len < 1e-12 || !len.is_finite() {
        *zero += 1;
        return [0.0, 0.0, 1.0];
    }
    [(x / len) as f32, (y / len) as f32, (z / len) as f32]
}

/// Attribute `attribute`'s value at each processing position of `positions`.
fn column(fetched: &FetchedVertices, attribute: u8, positions: &[usize]) -> Vec<[f32; 4]> {
    let Some(column) = fetched.attribute(attribute) else {
        return vec![[0.0, 0.0, 0.0, 1.0]; positions.len()];
    };
    positions
        .iter()
        .map(|&p| {
            column
                .values
                .get(p)
                .copied()
                .unwrap_or([0.0, 0.0, 0.0, 1.0])
        })
        .collect()
}

/// HPOS / w of each vertex (by its first processing position) and w.
fn clip_positions(
    frame: &Frame,
    draw: usize,
    positions: &[usize],
    world_from_clip: Option<&Mat4>,
    warnings: &mut Vec<String>,
    non_finite: &mut usize,
) -> Result<(Vec<[f32; 3]>, Vec<f32>), String> {
    let options = ExecOptions {
        vertex: VertexOptions {
            allow_unknown_constants: true,
            ..VertexOptions::default()
        },
        branch_bits: None,
        max_vertices: None,
    };
    let run = execute_draw(frame, draw, &options).map_err(|e| e.to_string())?;
    warnings.extend(run.texture_warnings.iter().cloned());
    if !run.unknown_constants.is_empty() {
        let mut constants: Vec<usize> = run.unknown_constants.iter().map(|r| r.constant).collect();
        constants.sort_unstable();
        constants.dedup();
        warnings.push(format!(
            "constants {} are not in the capture (read as 0)",
            super::super::find::collapse(&constants)
        ));
    }
    let mut out = Vec::with_capacity(positions.len());
    let mut ws = Vec::with_capacity(positions.len());
    let mut w_zero = 0usize;
    for &p in positions {
        let hpos = run
            .vertices
            .get(p)
            .and_then(|v| v.output("HPOS"))
            .map(|o| match o.value {
                OutputValue::F32(v) => v,
                OutputValue::F64(v) => v.map(|c| c as f32),
            })
            .ok_or("the vertex program writes no position (HPOS)")?;
        // World space: the clip position (a row vector) times the inverse view-projection.
        let hpos = match world_from_clip {
            Some(m) => std::array::from_fn(|j| {
                (0..4).map(|k| f64::from(hpos[k]) * m[k][j]).sum::<f64>() as f32
            }),
            None => hpos,
        };
        let w = hpos[3];
        let divided = if w.abs() > f32::MIN_POSITIVE {
            [hpos[0] / w, hpos[1] / w, hpos[2] / w]
        } else {
            w_zero += 1;
            [hpos[0], hpos[1], hpos[2]]
        };
        out.push(divided.map(|c| finite(c, non_finite)));
        ws.push(finite(w, non_finite));
    }
    if w_zero > 0 {
        warnings.push(format!(
            "{w_zero} vertices have clip w = 0: their position is x, y, z undivided"
        ));
    }
    Ok((out, ws))
}
