//! The draw rasterized for the fragment stage: its primitives assembled and covered as the
//! renderers cover them, in bands of rows, the covered pixels grouped into 2x2 quads whose
//! four lanes get their inputs at their own pixel centres (see the parent module).

use crate::divergence::vertex_stage::VertexInterp;
use rsxtrace_capture::frame::Draw;
use rsxtrace_replay::interp::fragment::{LaneInputs, QuadInputs};
use rsxtrace_replay::raster::coverage::triangle_weights_at_position;
use rsxtrace_replay::raster::sprite::{apply_point_sprite, sprite_coord};
use rsxtrace_replay::raster::{
    apply_texcoord_2d, fragment_inputs_with, wpos, Covered, PixelRect, VaryingOptions, WindowVertex,
};
use rsxtrace_replay::render::cpu::geometry::{
    build as build_primitives, covered_pixels, CoverRules, RasterKind, RasterPrim,
};
use rsxtrace_replay::render::state::{window_clip, DrawState};
use std::collections::BTreeMap;

/// Bounds used when the surface clip is empty (the RSX's largest surface side).
const MAX_SIDE: u32 = 4096;

/// One rasterized quad: its inputs and which lanes are covered.
#[derive(Clone, Copy, Debug)]
pub struct Quad {
    /// Inputs (coverage bits set for covered lanes).
    pub inputs: QuadInputs,
    /// Window position of lane 0 (even x, even y).
    pub origin: [u32; 2],
}

/// A draw's rasterized quads.
#[derive(Clone, Debug, Default)]
pub struct Rasterized {
    /// Kept quads.
    pub quads: Vec<Quad>,
    /// Covered pixels of the whole draw (before sampling).
    pub covered: usize,
    /// Covered pixels in the kept quads.
    pub kept: usize,
}

/// A window-space triangle and how its vertices mix the draw's original vertices.
struct Piece {
    window: [WindowVertex; 3],
    /// Row k: vertex k of the piece as weights over the three original vertices.
    mix: [[f32; 3]; 3],
    /// Points: centre and size (point sprites).
    sprite: Option<((f32, f32), f32)>,
    /// The provoking vertex (flat colours), a processing position.
    provoking: usize,
}

/// The inputs of one lane at pixel (x, y) of `piece`, or of the covered pixel `c`; `outputs`
/// are the piece's three original vertices' and its provoking vertex's.
fn lane_inputs(
    piece: &Piece,
    (outputs, provoking): ([&[[f32; 4]; 16]; 3], &[[f32; 4]; 16]),
    (x, y): (u32, u32),
    fallback: &Covered,
    draw: &Draw,
    varyings: &VaryingOptions,
) -> LaneInputs {
    let (pw, z, inv_w) =
        triangle_weights_at_position(&piece.window, f64::from(x) + 0.5, f64::from(y) + 0.5)
            .unwrap_or((fallback.weights, fallback.z, fallback.inv_w));
    let mut w = [0f32; 3];
    for (k, row) in piece.mix.iter().enumerate() {
        for (j, m) in row.iter().enumerate() {
            w[j] += pw[k] * m;
        }
    }
    let window = wpos(x, y, z, inv_w, &draw.raster.shader_window);
    let mut lane = fragment_inputs_with(
        outputs,
        provoking,
        w,
        window,
        fallback.front_facing,
        varyings,
    );
    if let Some((centre, size)) = piece.sprite {
        let st = sprite_coord(centre, size, f64::from(x) + 0.5, f64::from(y) + 0.5);
        apply_point_sprite(&mut lane, &draw.raster.primitives.point_sprite, st);
    }
    apply_texcoord_2d(&mut lane, varyings.texcoord_2d);
    lane
}

/// What one primitive rasterizes as: the renderers' primitive, the draw's coverage rules and
/// its shading rules' interpolation switches.
struct Shape {
    prim: RasterPrim,
    rules: CoverRules,
    varyings: VaryingOptions,
}

impl Shape {
    /// Window rows the shape may cover (before the bounds).
    fn rows(&self) -> (f32, f32) {
        let p = &self.prim;
        let n = if p.kind == RasterKind::Triangle { 3 } else { 2 };
        let ys = p.verts[..n].iter().map(|v| v.y);
        let margin = 1.0
            + if p.kind == RasterKind::Triangle {
                0.0
            } else {
                // The size the rasterizer covers (`rasterize_point`, `rasterize_line`): a
                // non-finite size (a vertex program's PSZ) is 1, any other at least 1.
                if p.size.is_finite() {
                    p.size.max(1.0) / 2.0
                } else {
                    0.5
                }
            };
        let lo = ys.clone().fold(f32::INFINITY, f32::min) - margin;
        let hi = ys.fold(f32::NEG_INFINITY, f32::max) + margin;
        (lo, hi)
    }

    /// Covered pixels inside `bounds`.
    fn cover(&self, bounds: PixelRect, out: &mut Vec<Covered>) {
        covered_pixels(&self.prim, bounds, &self.rules, out);
    }

    /// The piece lanes interpolate over (lines and points: a degenerate one, so every lane
    /// falls back to a covered pixel's weights).
    fn piece(&self) -> Piece {
        let p = &self.prim;
        Piece {
            window: p.verts,
            mix: p.to_src,
            sprite: (p.kind == RasterKind::Point).then_some(((p.verts[0].x, p.verts[0].y), p.size)),
            provoking: p.provoking as usize,
        }
    }
}

/// Rows per rasterization band: a band is rasterized at a time, so a primitive's covered
/// pixels held at once stay below `BAND_ROWS × 4096` whatever its size. Even, so that no
/// 2×2 quad straddles two bands.
const BAND_ROWS: u32 = 64;

/// Call `f` with each band of `bounds` that rows `lo..=hi` may touch.
fn bands(bounds: PixelRect, (lo, hi): (f32, f32), mut f: impl FnMut(PixelRect)) {
    if bounds.is_empty() || lo.is_nan() || hi.is_nan() || lo > hi {
        return;
    }
    let first = (lo.max(bounds.y0 as f32).floor() as u32).max(bounds.y0);
    let last = if hi.is_finite() {
        (hi.min(bounds.y1 as f32).ceil() as u32).min(bounds.y1)
    } else {
        bounds.y1
    };
    let mut y = first - first % BAND_ROWS;
    while y < last {
        let band = PixelRect {
            y0: y.max(bounds.y0),
            y1: y.saturating_add(BAND_ROWS).min(bounds.y1),
            ..bounds
        };
        if !band.is_empty() {
            f(band);
        }
        y = y.saturating_add(BAND_ROWS);
    }
}

/// The draw's primitives in window space, each with its three original vertices: the
/// renderers' own ([`build_primitives`]); none when the draw's raster state does not decode.
fn shapes(d: &Draw, outputs: &[[[f32; 4]; 16]], vi: &VertexInterp) -> Vec<([usize; 3], Shape)> {
    let mut starts: Vec<usize> = vi
        .restarts
        .iter()
        .chain(&vi.range_starts)
        .copied()
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let Ok(state) = DrawState::from_draw(d) else {
        return Vec::new();
    };
    let rules = CoverRules::from_state(&state);
    let varyings = state.shading.varyings();
    let point_size_from_vertex = rsxtrace_replay::render::cpu::vertex::point_size_from_vertex(d);
    build_primitives(&state, outputs, &starts, point_size_from_vertex)
        .into_iter()
        .map(|prim| {
            let idx = prim.src.map(|i| i as usize);
            (
                idx,
                Shape {
                    prim,
                    rules,
                    varyings,
                },
            )
        })
        .collect()
}

/// Rasterize draw `d` from the interpreter's vertex outputs into quads (sampled to
/// `max_pixels` covered pixels). Two passes over bands: one to count the covered pixels (for
/// the sampling stride), one to build the kept quads.
pub fn rasterize(d: &Draw, vi: &VertexInterp, max_pixels: usize) -> Rasterized {
    let outputs: Vec<[[f32; 4]; 16]> = (0..vi.f32_out.len())
        .filter_map(|v| vi.outputs_f32(v))
        .collect();
    // Window pixels, as the renderers bound a draw (the clip's size from the origin).
    let clip = window_clip(&d.surface);
    let bounds = if clip.is_empty() {
        PixelRect::from_origin_size(0, 0, MAX_SIDE, MAX_SIDE)
    } else {
        clip
    };
    let prims = shapes(d, &outputs, vi);
    let mut covered = Vec::new();
    let mut covered_total = 0usize;
    for (_, shape) in &prims {
        bands(bounds, shape.rows(), |band| {
            covered.clear();
            shape.cover(band, &mut covered);
            covered_total += covered.len();
        });
    }
    let stride = covered_total.div_ceil(max_pixels.max(1)).max(1);
    let mut out = Rasterized {
        covered: covered_total,
        ..Rasterized::default()
    };
    let mut quad_number = 0usize;
    for (idx, shape) in &prims {
        let piece = shape.piece();
        let (Some(o0), Some(o1), Some(o2), Some(op)) = (
            outputs.get(idx[0]),
            outputs.get(idx[1]),
            outputs.get(idx[2]),
            outputs.get(piece.provoking),
        ) else {
            continue;
        };
        let vertices = ([o0, o1, o2], op);
        let varyings = &shape.varyings;
        bands(bounds, shape.rows(), |band| {
            if out.kept >= max_pixels {
                return;
            }
            covered.clear();
            shape.cover(band, &mut covered);
            let mut quads: BTreeMap<(u32, u32), Vec<&Covered>> = BTreeMap::new();
            for c in &covered {
                quads.entry((c.y / 2, c.x / 2)).or_default().push(c);
            }
            for ((qy, qx), lanes) in quads {
                quad_number += 1;
                if (quad_number - 1) % stride != 0 || out.kept >= max_pixels {
                    continue;
                }
                let Some(first) = lanes.first() else { continue };
                let mut q = QuadInputs::default();
                for lane in 0..4u32 {
                    let (x, y) = (qx * 2 + (lane & 1), qy * 2 + (lane >> 1));
                    q.lanes[lane as usize] =
                        lane_inputs(&piece, vertices, (x, y), first, d, varyings);
                }
                for c in &lanes {
                    let lane = (c.x & 1) + 2 * (c.y & 1);
                    q.coverage |= 1 << lane;
                    // Covered lanes use the rasterizer's own facing.
                    q.lanes[lane as usize] =
                        lane_inputs(&piece, vertices, (c.x, c.y), c, d, varyings);
                }
                out.kept += lanes.len();
                out.quads.push(Quad {
                    inputs: q,
                    origin: [qx * 2, qy * 2],
                });
            }
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_aligned_and_cover_the_rows() {
        let mut got = Vec::new();
        bands(
            PixelRect::from_origin_size(0, 3, 100, 147),
            (10.0, 140.0),
            |b| got.push((b.y0, b.y1, b.x0, b.x1)),
        );
        assert_eq!(
            got,
            [(3, 64, 0, 100), (64, 128, 0, 100), (128, 150, 0, 100)]
        );
        got.clear();
        bands(
            PixelRect::from_origin_size(0, 0, 100, 100),
            (f32::NAN, 5.0),
            |b| got.push((b.y0, b.y1, b.x0, b.x1)),
        );
        assert!(got.is_empty());
        bands(
            PixelRect::from_origin_size(0, 0, 100, 100),
            (-1e30, 1e30),
            |b| got.push((b.y0, b.y1, b.x0, b.x1)),
        );
        assert_eq!(got, [(0, 64, 0, 100), (64, 100, 0, 100)]);
        got.clear();
        bands(
            PixelRect::from_origin_size(0, 0, 100, 100),
            (200.0, 300.0),
            |b| got.push((b.y0, b.y1, b.x0, b.x1)),
        );
        assert!(got.is_empty());
    }
}
