//! Geometry of the CPU render: assembled primitives clipped (`w > ε`, and the user clip planes
//! of [`crate::raster::shading`]), transformed to window coordinates, culled, turned into
//! points/lines/fills by the polygon mode, and given their polygon offset, point size, line
//! width and line-stipple counter. Each result refers back to the (up to) three vertices it
//! interpolates and to its provoking vertex (flat shading's source, not always one of the
//! three: a quad's first triangle). The GPU render and `verify`'s fragment stage build their
//! primitives here too, so all three share assembly, clipping, facing and culling.
//!
//! Polygon modes (GL 1.1 sections 2.6.2 and 3.5.4): LINE draws the **boundary edges** of the
//! source polygon ([`crate::raster::Triangle::boundary`]: not the diagonals that split a quad,
//! quad strip quad or polygon), each clipped as a line, the stipple counter running on along
//! one polygon's edges; POINT draws the vertices that start a boundary edge (each vertex of the
//! polygon once). Facing (the winding against `SET_FRONT_FACE`), culling and the polygon offset
//! come from the triangle clipped against `w > ε`.
//!
//! User clip planes ([`crate::raster::UserClip`]): a filled triangle is cut into the pieces
//! every applied plane keeps, a line (or a LINE-mode edge) is shortened to the part they keep,
//! and a point (or a POINT-mode vertex) outside one is dropped; the cut ends and pieces are
//! weights over the original vertices, so interpolation is unchanged.
//!
//! Speed: corners are read from the packed positions ([`OutputsByPosition::position`]), the
//! other outputs only where a plane or a mode needs them; most triangles (in front, no
//! plane, filled) take a path of their own; the renderers take [`build_within`], which leaves
//! out filled triangles that cover no pixel centre of the draw's bounds; and a draw of many
//! filled triangles assembles them in parallel chunks, joined in order (nothing carries from
//! one filled triangle to the next).

use super::vertex::{OutputsByPosition, VertexOutputs};
use crate::raster::clip::{in_front, IDENTITY};
use crate::raster::smooth::{rasterize_smooth_line, rasterize_smooth_triangle};
use crate::raster::stipple::{line_stipple_next, retain_line_stipple, retain_polygon_stipple};
use crate::raster::{
    assemble, clip_triangle, first_vertex_provoking, may_cover_centre, rasterize_line,
    rasterize_point, rasterize_triangle_facing, to_window, winding, Assembled, Covered, PixelRect,
    Primitive, Triangle, Winding, WindowVertex, W_EPSILON,
};
use crate::render::state::{CullFace, DrawState, FrontFace, PolygonMode};
use rayon::prelude::*;
use rsxtrace_capture::frame::state::{LineStipple, PolygonStipple, ShaderWindow};
use smallvec::SmallVec;

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
    /// Processing positions of the vertices it interpolates.
    pub src: [u32; 3],
    /// The provoking vertex (flat shading), a processing position; not always in `src` (a
    /// quad's first triangle).
    pub provoking: u32,
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
    /// Lines: the line-stipple counter at the line's first vertex
    /// ([`crate::raster::stipple`]).
    pub stipple_start: u32,
}

/// The coverage rules besides a primitive's own shape: the stipple patterns and the
/// antialiasing in effect.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoverRules {
    /// `SET_LINE_SMOOTH_ENABLE`: lines (and LINE-mode edges) are antialiased.
    pub line_smooth: bool,
    /// `SET_POLY_SMOOTH_ENABLE`: filled triangles are antialiased.
    pub polygon_smooth: bool,
    /// Line stipple (lines and LINE-mode edges), `None` when disabled.
    pub line_stipple: Option<LineStipple>,
    /// Polygon stipple (filled triangles), `None` when disabled.
    pub polygon_stipple: Option<PolygonStipple>,
    /// `SET_SHADER_WINDOW`: the polygon stipple counts rows as WPOS does.
    pub window: ShaderWindow,
    /// The sample grid (`DrawState::sample_grid`): the stipple counts pixels.
    pub grid: (u32, u32),
}

impl CoverRules {
    /// The rules of a draw.
    pub fn from_state(state: &DrawState) -> CoverRules {
        let p = &state.primitives;
        CoverRules {
            line_smooth: p.line_smooth,
            polygon_smooth: p.polygon_smooth,
            line_stipple: p.line_stipple.enabled.then_some(p.line_stipple),
            polygon_stipple: p.polygon_stipple.enabled.then_some(p.polygon_stipple),
            window: state.shader_window,
            grid: state.sample_grid,
        }
    }

    /// Whether any pattern removes pixels of `prim`, or antialiasing changes its coverage.
    pub fn masks(&self, prim: &RasterPrim) -> bool {
        self.smooth(prim)
            || match prim.kind {
                RasterKind::Triangle => self.polygon_stipple.is_some(),
                RasterKind::Line => self.line_stipple.is_some(),
                RasterKind::Point => false,
            }
    }

    /// Whether `prim` is antialiased (its pixels carry a partial coverage).
    pub fn smooth(&self, prim: &RasterPrim) -> bool {
        match prim.kind {
            RasterKind::Triangle => self.polygon_smooth,
            RasterKind::Line => self.line_smooth,
            RasterKind::Point => false,
        }
    }
}

/// Append the pixels `prim` covers inside `bounds` to `out` (cleared first), antialiased or
/// not and after the stipple patterns of `rules`: the coverage both renderers and `verify`
/// use.
pub fn covered_pixels(
    prim: &RasterPrim,
    bounds: PixelRect,
    rules: &CoverRules,
    out: &mut Vec<Covered>,
) {
    out.clear();
    match prim.kind {
        RasterKind::Triangle => {
            if rules.polygon_smooth {
                rasterize_smooth_triangle(prim.verts, bounds, prim.front, out);
            } else {
                rasterize_triangle_facing(prim.verts, bounds, prim.front, out);
            }
            if let Some(p) = &rules.polygon_stipple {
                retain_polygon_stipple(out, p, &rules.window, rules.grid);
            }
        }
        RasterKind::Line => {
            let (a, b) = (prim.verts[0], prim.verts[1]);
            if rules.line_smooth {
                rasterize_smooth_line([a, b], prim.size, bounds, out);
                for c in out.iter_mut() {
                    c.front_facing = prim.front;
                }
            } else {
                rasterize_line([a, b], prim.size, bounds, out);
            }
            if let Some(l) = &rules.line_stipple {
                retain_line_stipple(out, l, &a, &b, prim.stipple_start);
            }
        }
        RasterKind::Point => rasterize_point(prim.verts[0], prim.size, bounds, out),
    }
}

fn hpos(o: &VertexOutputs) -> [f32; 4] {
    o[0]
}

fn lerp4(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    [0, 1, 2, 3].map(|k| a[k] + (b[k] - a[k]) * t)
}

/// The point size of a draw: `SET_POINT_SIZE`, at least one pixel.
pub fn point_size(state: &DrawState) -> f32 {
    let p = state.primitives.point_size;
    if p.is_finite() && p > 0.0 {
        p
    } else {
        1.0
    }
}

/// The line width of a draw: `SET_LINE_WIDTH`, at least one pixel.
pub fn line_width(state: &DrawState) -> f32 {
    let w = state.primitives.line_width;
    if w.is_finite() && w > 0.0 {
        w
    } else {
        1.0
    }
}

/// Build the raster primitives of a draw, in submission order.
pub fn build<O: OutputsByPosition + ?Sized>(
    state: &DrawState,
    outputs: &O,
    starts: &[usize],
    point_size_from_vertex: bool,
) -> Vec<RasterPrim> {
    build_in(state, outputs, starts, point_size_from_vertex, None)
}

/// [`build`], less the filled triangles that cover no pixel inside `bounds`
/// ([`may_cover_centre`]; antialiased triangles, lines and points are all kept): what a
/// renderer that covers only `bounds` needs. Meshes of many small or off-screen triangles
/// lose most of theirs here, before the per-primitive work of binning and coverage.
pub fn build_within<O: OutputsByPosition + ?Sized>(
    state: &DrawState,
    outputs: &O,
    starts: &[usize],
    point_size_from_vertex: bool,
    bounds: PixelRect,
) -> Vec<RasterPrim> {
    build_in(state, outputs, starts, point_size_from_vertex, Some(bounds))
}

fn build_in<O: OutputsByPosition + ?Sized>(
    state: &DrawState,
    outputs: &O,
    starts: &[usize],
    point_size_from_vertex: bool,
    within: Option<PixelRect>,
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
                    point_size(state)
                };
                out.push(point(p, v, size, 0.0));
            }
        }
        Assembled::Lines(lines) => {
            // Strips and loops do not reset the stipple counter between their segments.
            let connected = matches!(state.primitive, Primitive::LineStrip | Primitive::LineLoop);
            let mut previous: Option<(u32, u32)> = None;
            for [a, b] in lines {
                let (Some(oa), Some(ob)) = (get(a), get(b)) else {
                    previous = None;
                    continue;
                };
                let start = match previous {
                    Some((end, next)) if connected && end == a => next,
                    _ => 0,
                };
                let line = clip_line([oa, ob], [a, b, b], IDENTITY, state);
                previous = line
                    .as_ref()
                    .map(|l| (b, line_stipple_next(&l.verts[0], &l.verts[1], start)));
                if let Some(mut l) = line {
                    // GL 3.2 table 2.12: a line provokes at its second vertex, or at its first
                    // under SET_FLAT_SHADE_OP's first-vertex convention.
                    l.provoking = if state.shading.first_vertex_provokes {
                        a
                    } else {
                        b
                    };
                    l.stipple_start = start;
                    out.push(l);
                }
            }
        }
        Assembled::Triangles(tris) => {
            let keep = within.filter(|_| !state.primitives.polygon_smooth);
            let filled = state.front_polygon_mode == PolygonMode::Fill
                && state.back_polygon_mode == PolygonMode::Fill;
            if filled && tris.len() >= PARALLEL_TRIANGLES {
                // Filled triangles carry nothing from one to the next (the stipple counter is
                // LINE mode's): chunks in parallel, joined in order.
                let parts: Vec<Vec<RasterPrim>> = tris
                    .par_chunks(TRIANGLES_PER_JOB)
                    .map(|chunk| {
                        let mut part = Vec::new();
                        triangles(state, chunk, outputs, keep, &mut part);
                        part
                    })
                    .collect();
                out = parts.concat();
            } else {
                triangles(state, &tris, outputs, keep, &mut out);
            }
        }
    }
    out
}

/// Draws with at least this many filled triangles assemble them in parallel.
const PARALLEL_TRIANGLES: usize = 1 << 13;

/// Triangles per parallel job.
const TRIANGLES_PER_JOB: usize = 1 << 12;

/// The raster primitives of assembled triangles `tris`, in order, appended to `out`.
fn triangles<O: OutputsByPosition + ?Sized>(
    state: &DrawState,
    tris: &[Triangle],
    outputs: &O,
    keep: Option<PixelRect>,
    out: &mut Vec<RasterPrim>,
) {
    // LINE mode's stipple counter runs on along one polygon's edges: the triangles of one
    // quad, quad strip quad or polygon are consecutive and share the provoking vertex; any
    // other triangle is a polygon of its own.
    let mut counter: Option<(u32, u32)> = None;
    // Most are kept when `keep` is not given; fewer are otherwise.
    out.reserve(if keep.is_some() {
        tris.len() / 4
    } else {
        tris.len()
    });
    let pos = |p: u32| outputs.position(p as usize);
    for &t in tris {
        let mut t = t;
        let (Some(p0), Some(p1), Some(p2)) = (pos(t.v[0]), pos(t.v[1]), pos(t.v[2])) else {
            continue;
        };
        if state.shading.first_vertex_provokes {
            // Still shared by the triangles of one quad or polygon, distinct otherwise.
            t.provoking = first_vertex_provoking(state.primitive, &t);
        }
        let start = match counter {
            Some((provoking, next)) if provoking == t.provoking => next,
            _ => 0,
        };
        let corners = Corners {
            clip: [p0, p1, p2],
            v: t.v,
            outputs,
        };
        let next = triangle(state, &t, &corners, start, keep, out);
        counter = Some((t.provoking, next));
    }
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
        provoking: p,
        kind: RasterKind::Point,
        verts: [v; 3],
        to_src: IDENTITY,
        front: true,
        z_offset,
        size,
        stipple_start: 0,
    }
}

/// A line between the vertices whose outputs are `ends` (weights over `src` at its ends given
/// by `to_src[0]` and `to_src[1]`), cut by the user clip planes, then clipped against `w > ε`.
fn clip_line(
    ends: [&VertexOutputs; 2],
    src: [u32; 3],
    to_src: [[f32; 3]; 3],
    state: &DrawState,
) -> Option<RasterPrim> {
    let (t0, t1) = state.shading.clip.segment(ends[0], ends[1])?;
    let (pa, pb) = (hpos(ends[0]), hpos(ends[1]));
    // The ends themselves where no plane cuts (no rounding).
    let end = |t: f32| {
        if t <= 0.0 {
            (pa, to_src[0])
        } else if t >= 1.0 {
            (pb, to_src[1])
        } else {
            let w = [0, 1, 2].map(|k| to_src[0][k] + (to_src[1][k] - to_src[0][k]) * t);
            (lerp4(pa, pb, t), w)
        }
    };
    let ((a, mut wa), (b, mut wb)) = (end(t0), end(t1));
    let (da, db) = (a[3] - W_EPSILON, b[3] - W_EPSILON);
    if !(da >= 0.0 || db >= 0.0) {
        return None;
    }
    let (mut pa, mut pb) = (a, b);
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
        provoking: src[2],
        kind: RasterKind::Line,
        verts: [va, vb, vb],
        to_src: [wa, wb, wb],
        front: true,
        z_offset: 0.0,
        size: line_width(state),
        stipple_start: 0,
    })
}

/// Polygon offset of a triangle: `factor × max(|dz/dx|, |dz/dy|) + units × r` (GL 2.1
/// section 3.5.5; r is the depth format's resolution at the triangle's largest depth). The
/// slope is per window pixel: on a multisampled surface the vertices are on the sample grid
/// (`DrawState::sample_grid`), so each derivative is scaled back to pixels (RPCS3 renders
/// such a surface at pixel resolution and leaves the slope to the host's depth bias).
fn polygon_offset(state: &DrawState, v: &[WindowVertex; 3]) -> f32 {
    let po = &state.polygon_offset;
    let p = v.map(|v| (f64::from(v.x), f64::from(v.y), f64::from(v.z)));
    let (x1, y1, z1) = (p[1].0 - p[0].0, p[1].1 - p[0].1, p[1].2 - p[0].2);
    let (x2, y2, z2) = (p[2].0 - p[0].0, p[2].1 - p[0].1, p[2].2 - p[0].2);
    let det = x1 * y2 - x2 * y1;
    let slope = if det != 0.0 {
        let (gx, gy) = state.sample_grid;
        let dzdx = (z1 * y2 - z2 * y1) / det * f64::from(gx);
        let dzdy = (x1 * z2 - x2 * z1) / det * f64::from(gy);
        dzdx.abs().max(dzdy.abs())
    } else {
        0.0
    };
    let max_z = p.iter().fold(0f64, |m, v| m.max(v.2.abs()));
    let r = state.depth_format.map_or(0.0, |f| f.resolution(max_z));
    (f64::from(po.scale) * slope + f64::from(po.bias) * r) as f32
}

/// A clipped triangle's pieces: weights over its vertices and the pieces' window vertices
/// (one piece, or two where w = ε cuts it, without user clip planes).
type Pieces = SmallVec<[([[f32; 3]; 3], [WindowVertex; 3]); 2]>;

/// An assembled triangle's vertices: their clip-space positions (HPOS, packed) and where their
/// outputs are (read only for user clip planes and the LINE and POINT modes).
struct Corners<'o, O: ?Sized> {
    clip: [[f32; 4]; 3],
    v: [u32; 3],
    outputs: &'o O,
}

impl<O: OutputsByPosition + ?Sized> Corners<'_, O> {
    /// The outputs of the three vertices (there when their positions are).
    fn outputs(&self) -> Option<[&VertexOutputs; 3]> {
        let get = |k: usize| self.outputs.get(self.v[k] as usize);
        Some([get(0)?, get(1)?, get(2)?])
    }
}

/// Whether a triangle of winding `w` is front facing, and its polygon mode; `None` when it
/// is culled.
fn face(state: &DrawState, w: Winding) -> Option<(bool, PolygonMode)> {
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
    let mode = if front {
        state.front_polygon_mode
    } else {
        state.back_polygon_mode
    };
    (!culled).then_some((front, mode))
}

/// The polygon offset of a triangle of polygon mode `mode` whose first piece is `first`
/// (0 when the mode's offset is disabled).
fn z_offset(state: &DrawState, mode: PolygonMode, first: &[WindowVertex; 3]) -> f32 {
    let po = &state.polygon_offset;
    let enabled = match mode {
        PolygonMode::Fill => po.fill,
        PolygonMode::Line => po.line,
        PolygonMode::Point => po.point,
    };
    if enabled {
        polygon_offset(state, first)
    } else {
        0.0
    }
}

/// Clip an assembled triangle (its vertices `c`), cull it, and cover it by its face's polygon
/// mode; filled pieces that cover no pixel centre inside `keep` are left out. `stipple_start`
/// is the line-stipple counter at its first boundary edge in LINE mode; returns the counter
/// after its last one.
fn triangle<O: OutputsByPosition + ?Sized>(
    state: &DrawState,
    t: &Triangle,
    c: &Corners<'_, O>,
    stipple_start: u32,
    keep: Option<PixelRect>,
    out: &mut Vec<RasterPrim>,
) -> u32 {
    let clip = c.clip;
    let user = &state.shading.clip;
    // Most triangles: wholly in front of w = ε, no user clip plane, filled. One piece, its own
    // vertices, without the clipper or the vertices' other outputs.
    if in_front(&clip) && !user.is_active() {
        let Some(verts) = window3(clip, &state.viewport) else {
            return stipple_start;
        };
        let Some((front, mode)) = winding(&verts).and_then(|w| face(state, w)) else {
            return stipple_start;
        };
        if mode == PolygonMode::Fill {
            if keep.is_none_or(|k| may_cover_centre(&verts, k)) {
                out.push(RasterPrim {
                    src: t.v,
                    provoking: t.provoking,
                    kind: RasterKind::Triangle,
                    verts,
                    to_src: IDENTITY,
                    front,
                    z_offset: z_offset(state, mode, &verts),
                    size: 1.0,
                    stipple_start: 0,
                });
            }
            return stipple_start;
        }
    }
    let Some(o) = c.outputs() else {
        return stipple_start;
    };
    let window = |bary: [[f32; 3]; 3]| {
        let pos = bary.map(|w| {
            [0, 1, 2, 3].map(|k| w[0] * clip[0][k] + w[1] * clip[1][k] + w[2] * clip[2][k])
        });
        window3(pos, &state.viewport).map(|verts| (bary, verts))
    };
    let pieces: Pieces = if in_front(&clip) {
        window3(clip, &state.viewport)
            .map(|verts| (IDENTITY, verts))
            .into_iter()
            .collect()
    } else {
        clip_triangle(clip).into_iter().filter_map(window).collect()
    };
    // Every piece has the winding of the whole triangle; the first one with an area decides.
    let Some((w, first)) = pieces.iter().find_map(|(_, v)| winding(v).map(|w| (w, *v))) else {
        return stipple_start;
    };
    let Some((front, mode)) = face(state, w) else {
        return stipple_start;
    };
    let z_offset = z_offset(state, mode, &first);
    match mode {
        PolygonMode::Fill => {
            let kept: Pieces = if user.is_active() {
                pieces
                    .iter()
                    .flat_map(|(bary, _)| user.clip_piece(*bary, o))
                    .filter_map(window)
                    .collect()
            } else {
                pieces
            };
            for (bary, verts) in kept {
                if keep.is_some_and(|k| !may_cover_centre(&verts, k)) {
                    continue;
                }
                out.push(RasterPrim {
                    src: t.v,
                    provoking: t.provoking,
                    kind: RasterKind::Triangle,
                    verts,
                    to_src: bary,
                    front,
                    z_offset,
                    size: 1.0,
                    stipple_start: 0,
                });
            }
        }
        PolygonMode::Line => {
            let mut start = stipple_start;
            for e in (0..3).filter(|&e| t.boundary[e]) {
                let (i, j) = (e, (e + 1) % 3);
                let Some(mut l) = clip_line(
                    [o[i], o[j]],
                    t.v,
                    [IDENTITY[i], IDENTITY[j], IDENTITY[j]],
                    state,
                ) else {
                    continue;
                };
                l.provoking = t.provoking;
                l.front = front;
                l.z_offset = z_offset;
                l.stipple_start = start;
                start = line_stipple_next(&l.verts[0], &l.verts[1], start);
                out.push(l);
            }
            return start;
        }
        PolygonMode::Point => {
            for i in (0..3).filter(|&i| t.boundary[i]) {
                if !state.shading.clip.keeps_point(o[i]) {
                    continue;
                }
                let Some(v) = to_window(clip[i], &state.viewport) else {
                    continue;
                };
                out.push(RasterPrim {
                    src: t.v,
                    provoking: t.provoking,
                    kind: RasterKind::Point,
                    verts: [v; 3],
                    to_src: [IDENTITY[i]; 3],
                    front,
                    z_offset,
                    size: point_size(state),
                    stipple_start: 0,
                });
            }
        }
    }
    stipple_start
}
