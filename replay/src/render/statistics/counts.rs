//! Draws by primitive and vertex source, vertices (submitted, shaded, their spread and
//! histogram) and the primitives they assemble into, distinct programs and texture bindings.

use crate::raster::{assembled_count, primitive_starts_of, Primitive};
use rayon::prelude::*;
use rsxtrace_capture::fetch::{distinct_count, positions, VertexSource};
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_capture::frame::{Draw, Frame};
use serde::Serialize;
use std::collections::HashSet;

/// Draws by vertex source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sources {
    /// `DRAW_ARRAYS`.
    pub arrays: usize,
    /// `DRAW_INDEX_ARRAY`.
    pub indexed: usize,
    /// `INLINE_ARRAY`.
    pub inline: usize,
    /// `ARRAY_ELEMENT16` / `ARRAY_ELEMENT32`.
    pub elements: usize,
    /// Immediate mode (`SET_VERTEX_DATA*` inside the scope).
    pub immediate: usize,
}

/// Vertices submitted (index positions; restart indices excluded where read).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Vertices {
    /// Over all draws.
    pub total: u64,
    /// Vertex program runs: each distinct vertex of an indexed or array-element draw once (as
    /// both renderers shade them, and the hardware's post-transform cache at best), every
    /// vertex of the other draws; a draw whose positions cannot be read counts its vertex
    /// count.
    pub shaded: u64,
    /// Fewest in one draw.
    pub min: u64,
    /// Median per draw (the lower middle value for an even count).
    pub median: u64,
    /// Most in one draw.
    pub max: u64,
    /// Draws per bucket of vertex counts: `0`, `1`, `2-3`, `4-7`, ... (powers of two), empty
    /// buckets left out.
    pub histogram: Vec<Bucket>,
}

/// One histogram bucket: draws with `from..=to` vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// Fewest vertices in the bucket.
    pub from: u64,
    /// Most vertices in the bucket.
    pub to: u64,
    /// Draws in it.
    pub draws: usize,
}

impl Bucket {
    /// `N` for a bucket of one count, else `FROM-TO`.
    pub fn label(&self) -> String {
        if self.from == self.to {
            self.from.to_string()
        } else {
            format!("{}-{}", self.from, self.to)
        }
    }
}

/// Primitives assembled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assembled {
    /// Points.
    pub points: u64,
    /// Lines.
    pub lines: u64,
    /// Triangles (a quad two, a polygon of n vertices n - 2).
    pub triangles: u64,
    /// Draws whose primitives could not be counted (their index buffer is not in the
    /// capture, their vertex source is invalid), with why.
    pub unknown: Vec<(usize, String)>,
}

/// Distinct programs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Programs {
    /// Vertex programs (by content hash).
    pub vertex: usize,
    /// Fragment programs (by content hash, inline constants masked).
    pub fragment: usize,
    /// Fragment programs by their whole microcode, inline constants included.
    pub fragment_with_constants: usize,
}

/// Texture units in use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Textures {
    /// Enabled fragment texture units, summed over the draws.
    pub bindings: u64,
    /// Enabled vertex texture units, summed over the draws.
    pub vertex_bindings: u64,
    /// Distinct images bound (location, offset, format, size, pitch), both kinds of unit.
    pub distinct: usize,
}

pub(super) fn kinds(draws: &[Draw]) -> (Vec<(Primitive, usize)>, Sources) {
    // Indexed by `SET_BEGIN_END` code - 1 (`Primitive` lists the codes in order).
    let mut by_code = [0usize; 10];
    let mut sources = Sources::default();
    for d in draws {
        if let Some(n) = by_code.get_mut(d.primitive as usize) {
            *n += 1;
        }
        match d.vertex_inputs.source {
            VertexSource::Arrays { .. } => sources.arrays += 1,
            VertexSource::Indexed { .. } => sources.indexed += 1,
            VertexSource::Inline { .. } => sources.inline += 1,
            VertexSource::Elements { .. } => sources.elements += 1,
            VertexSource::Immediate { .. } => sources.immediate += 1,
        }
    }
    let by_primitive = (1u32..)
        .zip(by_code)
        .filter(|&(_, n)| n > 0)
        .filter_map(|(code, n)| Some((Primitive::from_raw(code)?, n)))
        .collect();
    (by_primitive, sources)
}

/// Vertices per draw and the primitives they assemble into; draws in parallel (an indexed
/// draw reads its index buffer for restarts).
/// Also each draw's primitives (`None`: not counted), in draw order.
pub(super) fn vertices(frame: &Frame, draws: &[Draw]) -> (Vertices, Assembled, Vec<Option<u64>>) {
    // Per draw: (vertices, vertex program runs, primitives).
    let counted: Vec<(u64, u64, Result<usize, String>)> = draws
        .par_iter()
        .map(|d| {
            let memory = frame.memory(d.index);
            let list = match memory {
                Some(m) => positions(&d.vertex_inputs, &m).map_err(|e| e.to_string()),
                None => Err("no memory view".to_string()),
            };
            match list {
                Ok(list) => {
                    let starts = primitive_starts_of(&list);
                    let n = list.indices.len();
                    let primitives = assembled_count(d.primitive, n, &starts);
                    let shaded = match d.vertex_inputs.source {
                        VertexSource::Indexed { .. } | VertexSource::Elements { .. } => {
                            distinct_count(&list.indices)
                        }
                        _ => n,
                    };
                    (n as u64, shaded as u64, Ok(primitives))
                }
                Err(e) => (d.vertex_count, d.vertex_count, Err(e)),
            }
        })
        .collect();
    let mut assembled = Assembled::default();
    for (d, (_, _, primitives)) in draws.iter().zip(&counted) {
        match primitives {
            Ok(n) => {
                let n = *n as u64;
                match d.primitive {
                    Primitive::Points => assembled.points += n,
                    Primitive::Lines | Primitive::LineLoop | Primitive::LineStrip => {
                        assembled.lines += n
                    }
                    _ => assembled.triangles += n,
                }
            }
            Err(e) => assembled.unknown.push((d.index, e.clone())),
        }
    }
    let mut counts: Vec<u64> = counted.iter().map(|(n, _, _)| *n).collect();
    counts.sort_unstable();
    let mut histogram: Vec<Bucket> = Vec::new();
    for &n in &counts {
        let (from, to) = bucket_of(n);
        match histogram.last_mut() {
            Some(b) if b.from == from => b.draws += 1,
            _ => histogram.push(Bucket { from, to, draws: 1 }),
        }
    }
    let vertices = Vertices {
        total: counts.iter().sum(),
        shaded: counted.iter().map(|(_, shaded, _)| shaded).sum(),
        min: counts.first().copied().unwrap_or(0),
        median: counts
            .get(counts.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0),
        max: counts.last().copied().unwrap_or(0),
        histogram,
    };
    let per_draw = counted
        .iter()
        .map(|(_, _, n)| n.as_ref().ok().map(|&n| n as u64))
        .collect();
    (vertices, assembled, per_draw)
}

/// The power-of-two bucket `from..=to` holding `n` (`0` alone, then `1`, `2-3`, `4-7`, ...).
fn bucket_of(n: u64) -> (u64, u64) {
    if n == 0 {
        return (0, 0);
    }
    let from = 1u64 << (63 - n.leading_zeros());
    (from, from.checked_mul(2).map_or(u64::MAX, |next| next - 1))
}

pub(super) fn programs(draws: &[Draw]) -> Programs {
    let vertex: HashSet<u64> = draws.iter().map(|d| d.vp_hash).collect();
    let fragment: HashSet<u64> = draws
        .iter()
        .filter_map(|d| d.fragment_program.as_ref().map(|p| p.hash))
        .collect();
    let whole: HashSet<&[u8]> = draws
        .iter()
        .filter_map(|d| d.fragment_program.as_ref().map(|p| p.ucode.as_slice()))
        .collect();
    Programs {
        vertex: vertex.len(),
        fragment: fragment.len(),
        fragment_with_constants: whole.len(),
    }
}

/// What tells one bound image from another: location, offset, format, size, pitch.
#[derive(PartialEq, Eq, Hash)]
struct ImageKey {
    location: Option<u8>,
    offset: u32,
    format: u8,
    size: (u16, u16, u16),
    pitch: u32,
}

pub(super) fn textures(draws: &[Draw]) -> Textures {
    let mut t = Textures::default();
    let mut images: HashSet<ImageKey> = HashSet::new();
    let enabled = |units: &[Texture]| -> Vec<ImageKey> {
        units
            .iter()
            .filter(|u| u.control0.enabled)
            .map(|u| ImageKey {
                location: u.location.map(|l| l as u8),
                offset: u.offset,
                format: u.format.format,
                size: (u.width, u.height, u.depth),
                pitch: u.pitch,
            })
            .collect()
    };
    for d in draws {
        let fragment = enabled(&d.textures[..]);
        let vertex = enabled(&d.vertex_textures[..]);
        t.bindings += fragment.len() as u64;
        t.vertex_bindings += vertex.len() as u64;
        images.extend(fragment.into_iter().chain(vertex));
    }
    t.distinct = images.len();
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_powers_of_two() {
        assert_eq!(bucket_of(0), (0, 0));
        assert_eq!(bucket_of(1), (1, 1));
        assert_eq!(bucket_of(2), (2, 3));
        assert_eq!(bucket_of(3), (2, 3));
        assert_eq!(bucket_of(4), (4, 7));
        assert_eq!(bucket_of(1000), (512, 1023));
        assert_eq!(bucket_of(u64::MAX), (1 << 63, u64::MAX));
    }
}
