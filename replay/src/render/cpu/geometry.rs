//! Geometry of the CPU render: assembled primitives clipped (`w > ε`, then the user clip planes
//! of [`crate::raster::shading`]), transformed to window coordinates, culled, turned into
//! points/lines/fills by the polygon mode, and given their polygon offset. Each result refers
//! back to the (up to) three vertices it interpolates.

use super::vertex::VertexOutputs;
use crate::raster::{
    assemble, clip_triangle, to_window, winding, Assembled, Winding, WindowVertex, W_EPSILON,
};
use crate::render::state::{CullFace, DrawState, FrontFace, PolygonMode};

/// How a raster primitive is covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RasterKind {
    /// A filled triangle.
    Triangle,
    /// A line (its vertices 0 and 1).
    Line,
    /// A point (vertex 0).
    Point,
}

/// One primitive ready for coverage.
#[derive(Clone, Copy, Debug)]
pub struct RasterPrim {
    /// Processing positions of the vertices it interpolates; the provoking vertex is `src[2]`.
    pub src: [u32; 3],
    /// Coverage kind.
    pub kind: RasterKind,
    /// Window vertices (lines use 0..2, points 0).
    pub verts: [WindowVertex; 3],
    /// Each window vertex as weights over `src`.
    pub to_src: [[f32; 3]; 3],
    /// Front facing.
    pub front: bool,
    /// Added to window z (polygon offset).
    pub z_offset: f32,
    /// Point size or line width.
    pub size: f32,
}

const IDENTITY: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn hpos(o: &VertexOutputs) -> [f32; 4] {
    o[0]
}

fn lerp4(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    [0, 1, 2, 3].map(|k| a[k] + (b[k] - a[k]) * t)
}

/// Build the raster primitives of a draw, in submission order.
pub fn build(
    state: &DrawState,
    outputs: &[VertexOutputs],
    starts: &[usize],
    point_size_from_vertex: bool,
) -> Vec<RasterPrim> {
    let vp = &state.viewport;
    let mut out = Vec::new();
    let get = |p: u32| outputs.get(p as usize);
    match assemble(state.primitive, outputs.len(), starts) {
        Assembled::Points(points) => {
            for p in points {
                let Some(o) = get(p) else { continue };
                if !state.shading.clip.keeps_point(o) {
                    continue;
                }
                let Some(v) = to_window(hpos(o), vp) else {
                    continue;
                };
                let size = if point_size_from_vertex {
                    o[6][0]
                } else {
                    state.extra.point_size
                };
                out.push(point(p, v, size, 0.0));
            }
        }
        Assembled::Lines(lines) => {
            for [a, b] in lines {
                let (Some(oa), Some(ob)) = (get(a), get(b)) else {
                    continue;
                };
                let Some((t0, t1)) = state.shading.clip.segment(oa, ob) else {
                    continue;
                };
                let (pa, pb) = (hpos(oa), hpos(ob));
                // The ends themselves when a plane does not cut (no rounding).
                let end = |t: f32| {
                    if t <= 0.0 {
                        (pa, [1.0, 0.0, 0.0])
                    } else if t >= 1.0 {
                        (pb, [0.0, 1.0, 0.0])
                    } else {
                        (lerp4(pa, pb, t), [1.0 - t, t, 0.0])
                    }
                };
                let ((ca, wa), (cb, wb)) = (end(t0), end(t1));
                if let Some(l) = clip_line(ca, cb, [a, b, b], [wa, wb, wb], state) {
                    out.push(l);
                }
            }
        }
        Assembled::Triangles(tris) => {
            for src in tris {
                let (Some(o0), Some(o1), Some(o2)) = (get(src[0]), get(src[1]), get(src[2])) else {
                    continue;
                };
                let clip = [hpos(o0), hpos(o1), hpos(o2)];
                let pieces = clip_triangle(clip)
                    .into_iter()
                    .flat_map(|b| state.shading.clip.clip_piece(b, [o0, o1, o2]));
                for bary in pieces {
                    let pos = bary.map(|w| {
                        [0, 1, 2, 3]
                            .map(|k| w[0] * clip[0][k] + w[1] * clip[1][k] + w[2] * clip[2][k])
                    });
                    let Some(verts) = window3(pos, vp) else {
                        continue;
                    };
                    triangle(state, src, verts, bary, &mut out);
                }
            }
        }
    }
    out
}

fn window3(pos: [[f32; 4]; 3], vp: &crate::raster::ViewportTransform) -> Option<[WindowVertex; 3]> {
    Some([
        to_window(pos[0], vp)?,
        to_window(pos[1], vp)?,
        to_window(pos[2], vp)?,
    ])
}

fn point(p: u32, v: WindowVertex, size: f32, z_offset: f32) -> RasterPrim {
    RasterPrim {
        src: [p, p, p],
        kind: RasterKind::Point,
        verts: [v; 3],
        to_src: IDENTITY,
        front: true,
        z_offset,
        size,
    }
}

/// A line between clip positions `a`, `b` (weights `wa`, `wb` of `src` at its ends given by
/// `to_src[0]` and `to_src[1]`), clipped against `w > ε`.
fn clip_line(
    a: [f32; 4],
    b: [f32; 4],
    src: [u32; 3],
    to_src: [[f32; 3]; 3],
    state: &DrawState,
) -> Option<RasterPrim> {
    let (da, db) = (a[3] - W_EPSILON, b[3] - W_EPSILON);
    if !(da >= 0.0 || db >= 0.0) {
        return None;
    }
    let (mut pa, mut pb) = (a, b);
    let (mut wa, mut wb) = (to_src[0], to_src[1]);
    if da < 0.0 || db < 0.0 {
        let t = da / (da - db);
        let cut = lerp4(a, b, t);
        let wcut = [0, 1, 2].map(|k| wa[k] + (wb[k] - wa[k]) * t);
        if da < 0.0 {
            pa = cut;
            wa = wcut;
        } else {
            pb = cut;
            wb = wcut;
        }
    }
    let va = to_window(pa, &state.viewport)?;
    let vb = to_window(pb, &state.viewport)?;
    Some(RasterPrim {
        src,
        kind: RasterKind::Line,
        verts: [va, vb, vb],
        to_src: [wa, wb, wb],
        front: true,
        z_offset: 0.0,
        size: state.extra.line_width,
    })
}

/// Polygon offset of a triangle: `factor × max(|dz/dx|, |dz/dy|) + units × r` (GL 2.1
/// section 3.5.5; r is the depth format's resolution).
fn polygon_offset(state: &DrawState, v: &[WindowVertex; 3]) -> f32 {
    let po = &state.polygon_offset;
    let p = v.map(|v| (f64::from(v.x), f64::from(v.y), f64::from(v.z)));
    let (x1, y1, z1) = (p[1].0 - p[0].0, p[1].1 - p[0].1, p[1].2 - p[0].2);
    let (x2, y2, z2) = (p[2].0 - p[0].0, p[2].1 - p[0].1, p[2].2 - p[0].2);
    let det = x1 * y2 - x2 * y1;
    let slope = if det != 0.0 {
        let dzdx = (z1 * y2 - z2 * y1) / det;
        let dzdy = (x1 * z2 - x2 * z1) / det;
        dzdx.abs().max(dzdy.abs())
    } else {
        0.0
    };
    let r = state.depth_format.map_or(0.0, |f| f.resolution());
    (f64::from(po.scale) * slope + f64::from(po.bias) * r) as f32
}

/// Cull, then cover a clipped triangle by its face's polygon mode.
fn triangle(
    state: &DrawState,
    src: [u32; 3],
    verts: [WindowVertex; 3],
    bary: [[f32; 3]; 3],
    out: &mut Vec<RasterPrim>,
) {
    let Some(w) = winding(&verts) else {
        return;
    };
    let front = match state.front_face {
        FrontFace::CounterClockwise => w == Winding::CounterClockwise,
        FrontFace::Clockwise => w == Winding::Clockwise,
    };
    let culled = match state.cull {
        None => false,
        Some(CullFace::Front) => front,
        Some(CullFace::Back) => !front,
        Some(CullFace::FrontAndBack) => true,
    };
    if culled {
        return;
    }
    let mode = if front {
        state.front_polygon_mode
    } else {
        state.back_polygon_mode
    };
    let po = &state.polygon_offset;
    let enabled = match mode {
        PolygonMode::Fill => po.fill,
        PolygonMode::Line => po.line,
        PolygonMode::Point => po.point,
    };
    let z_offset = if enabled {
        polygon_offset(state, &verts)
    } else {
        0.0
    };
    match mode {
        PolygonMode::Fill => out.push(RasterPrim {
            src,
            kind: RasterKind::Triangle,
            verts,
            to_src: bary,
            front,
            z_offset,
            size: 1.0,
        }),
        PolygonMode::Line => {
            for (i, j) in [(0, 1), (1, 2), (2, 0)] {
                out.push(RasterPrim {
                    src,
                    kind: RasterKind::Line,
                    verts: [verts[i], verts[j], verts[j]],
                    to_src: [bary[i], bary[j], bary[j]],
                    front,
                    z_offset,
                    size: state.extra.line_width,
                });
            }
        }
        PolygonMode::Point => {
            for i in 0..3 {
                out.push(RasterPrim {
                    src,
                    kind: RasterKind::Point,
                    verts: [verts[i]; 3],
                    to_src: [bary[i]; 3],
                    front,
                    z_offset,
                    size: state.extra.point_size,
                });
            }
        }
    }
}
