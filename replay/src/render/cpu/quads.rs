//! Coverage grouped into 2×2 quads, and the fragment-program inputs of each quad's lanes.
//!
//! Quads are aligned to even window coordinates; lane `l` of quad (qx, qy) is pixel
//! (2qx + (l & 1), 2qy + (l >> 1)), the lane order of [`crate::interp::fragment::io`].
//! Uncovered lanes run as helpers: a triangle's helper lanes extrapolate its interpolation,
//! a line's or point's copy the first covered lane's (zero derivatives across them).

use super::geometry::{covered_pixels, CoverRules, RasterKind, RasterPrim};
use super::rop::WindowDepth;
use super::vertex::{OutputsByPosition, PositionOutputs, VertexOutputs};
use crate::interp::fragment::{LaneInputs, QuadInputs};
use crate::raster::sprite::{apply_point_sprite, sprite_coord};
use crate::raster::{
    apply_texcoord_2d, fragment_inputs_with, triangle_weights_at, wpos, Covered, PixelRect,
    VaryingOptions,
};
use rsxtrace_capture::frame::state::{PointSprite, ShaderWindow};

/// A covered lane: weights over the primitive's window vertices, window z (offset applied)
/// and 1/w.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaneCover {
    /// Weights over `RasterPrim::verts`.
    pub weights: [f32; 3],
    /// Window z: interpolated, and the primitive's polygon offset.
    pub z: WindowDepth,
    /// 1/w.
    pub inv_w: f32,
    /// The fraction of the pixel covered (smooth lines and polygons; else 1): multiplies the
    /// alpha of the colour outputs.
    pub coverage: f32,
}

/// One quad of one primitive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuadJob {
    /// Index into the draw's primitives.
    pub prim: u32,
    /// Quad column (pixel x / 2).
    pub qx: u32,
    /// Quad row (pixel y / 2).
    pub qy: u32,
    /// Covered lanes.
    pub lanes: [Option<LaneCover>; 4],
}

impl QuadJob {
    /// Window pixel of lane `l`.
    pub fn pixel(&self, l: usize) -> (u32, u32) {
        (2 * self.qx + (l as u32 & 1), 2 * self.qy + (l as u32 >> 1))
    }
}

/// Cover `prim` inside `bounds` under `rules` (stipples) and append its quads to `out`;
/// `scratch` is reused.
pub fn cover(
    index: u32,
    prim: &RasterPrim,
    bounds: PixelRect,
    rules: &CoverRules,
    scratch: &mut Vec<Covered>,
    out: &mut Vec<QuadJob>,
) {
    covered_pixels(prim, bounds, rules, scratch);
    scratch.sort_unstable_by_key(|c| (c.y >> 1, c.x >> 1, c.y & 1, c.x & 1));
    let mut current: Option<QuadJob> = None;
    for c in scratch.iter() {
        let (qx, qy) = (c.x >> 1, c.y >> 1);
        let lane = ((c.y & 1) * 2 + (c.x & 1)) as usize;
        let cover = LaneCover {
            weights: c.weights,
            z: WindowDepth {
                interpolated: c.z,
                offset: prim.z_offset,
            },
            inv_w: c.inv_w,
            coverage: c.coverage,
        };
        match &mut current {
            Some(q) if q.qx == qx && q.qy == qy => {
                if let Some(slot) = q.lanes.get_mut(lane) {
                    *slot = Some(cover);
                }
            }
            _ => {
                if let Some(q) = current.take() {
                    out.push(q);
                }
                let mut lanes = [None; 4];
                if let Some(slot) = lanes.get_mut(lane) {
                    *slot = Some(cover);
                }
                current = Some(QuadJob {
                    prim: index,
                    qx,
                    qy,
                    lanes,
                });
            }
        }
    }
    if let Some(q) = current {
        out.push(q);
    }
}

/// What building a quad's inputs needs.
pub struct InputContext<'a> {
    /// The draw's primitives.
    pub prims: &'a [RasterPrim],
    /// Vertex outputs by processing position.
    pub outputs: &'a PositionOutputs,
    /// `SET_SHADER_WINDOW`.
    pub window: ShaderWindow,
    /// The sample grid (`DrawState::sample_grid`): WPOS counts pixels, so a window position
    /// on the grid is divided by it.
    pub grid: (u32, u32),
    /// Flat colours, two-sided colour and fog (`ShadingRules::varyings`).
    pub varyings: VaryingOptions,
    /// `SET_POINT_SPRITE_CONTROL`: texture coordinates points replace.
    pub sprite: PointSprite,
}

const DEFAULT_OUTPUTS: VertexOutputs = [[0.0, 0.0, 0.0, 1.0]; 16];

impl InputContext<'_> {
    /// The inputs of a quad (helper lanes included) and its coverage mask.
    pub fn quad_inputs(&self, job: &QuadJob) -> QuadInputs {
        let mut quad = QuadInputs::default();
        let Some(prim) = self.prims.get(job.prim as usize) else {
            return quad;
        };
        let first = job.lanes.iter().flatten().next().copied();
        for (l, lane) in quad.lanes.iter_mut().enumerate() {
            let (x, y) = job.pixel(l);
            let cover = match job.lanes.get(l).copied().flatten() {
                Some(c) => {
                    quad.coverage |= 1 << l;
                    Some(c)
                }
                None => match prim.kind {
                    RasterKind::Triangle => {
                        triangle_weights_at(&prim.verts, x, y).map(|(weights, z, inv_w)| {
                            LaneCover {
                                weights,
                                z: WindowDepth {
                                    interpolated: z,
                                    offset: prim.z_offset,
                                },
                                inv_w,
                                coverage: 1.0,
                            }
                        })
                    }
                    _ => first,
                },
            };
            if let Some(c) = cover {
                *lane = self.lane_inputs(prim, x, y, &c);
            }
        }
        quad
    }

    fn lane_inputs(&self, prim: &RasterPrim, x: u32, y: u32, c: &LaneCover) -> LaneInputs {
        // Weights over the window vertices to weights over the source vertices.
        let mut w = [0f32; 3];
        for (k, wk) in c.weights.iter().enumerate() {
            for (j, wj) in w.iter_mut().enumerate() {
                *wj += wk * prim.to_src[k][j];
            }
        }
        let get = |p: u32| self.outputs.get(p as usize).unwrap_or(&DEFAULT_OUTPUTS);
        // Flat colours are the primitive's provoking vertex's, which a quad's first triangle
        // does not contain.
        let o = prim.src.map(get);
        let (gx, gy) = self.grid;
        let window = wpos(
            x / gx.max(1),
            y / gy.max(1),
            c.z.with_offset(),
            c.inv_w,
            &self.window,
        );
        let mut lane = fragment_inputs_with(
            o,
            get(prim.provoking),
            w,
            window,
            prim.front,
            &self.varyings,
        );
        if prim.kind == RasterKind::Point {
            let v = prim.verts[0];
            let st = sprite_coord(
                (v.x, v.y),
                prim.size,
                f64::from(x) + 0.5,
                f64::from(y) + 0.5,
            );
            apply_point_sprite(&mut lane, &self.sprite, st);
        }
        apply_texcoord_2d(&mut lane, self.varyings.texcoord_2d);
        lane
    }
}
