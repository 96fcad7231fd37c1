//! A draw's vertex outputs to the vertex records the device rasterizes. The primitives are
//! the reference render's own ([`crate::render::cpu::geometry::build_within`]: assembly on the
//! hardware's diagonals, clipping against `w > ε`, viewport transform, facing, culling,
//! polygon modes with boundary edges, polygon offset, point size, line width), so both
//! renderers cover the same primitives; the device only rasterizes, interpolates and shades.
//! Every primitive becomes indexed triangles:
//! - filled triangles as they are (each corner carries the fragment inputs at its weights over
//!   the source vertices); a corner that is a source vertex itself shares the vertex of the
//!   last corner that was the same source vertex with the same record (same window position,
//!   facing, polygon offset and, flat shaded, provoking vertex: `SharedCorner`), so a mesh's
//!   vertices are set up once each, not once per triangle around them;
//! - lines as the parallelogram the reference rasterizer covers (`raster::rasterize_line`:
//!   `width` measured along the minor axis);
//! - points as the `size` × `size` square centred on the point (`raster::rasterize_point`'s
//!   half-open square, which the top-left fill rule reproduces), each corner with its own
//!   point-sprite coordinate (`raster::sprite`, linear in the position, so exact);
//! - a primitive a stipple pattern masks (`geometry::covered_pixels`: line stipple, polygon
//!   stipple) as the reference coverage itself: the kept pixels of each row, run by run, as
//!   one-row rectangles whose corners carry the primitive's own interpolation at their
//!   positions (attributes/w and 1/w are affine in screen space, so the device interpolates
//!   every pixel of the run as the whole primitive would; window z is linear);
//! - an antialiased primitive (`raster::smooth`) likewise, one pixel per quad, with the pixel's
//!   coverage in location 14's z, which the wrapper multiplies into the alpha of every colour
//!   output (`shader.rs`).
//!
//! Each of those rectangles is two triangles over its four vertices.
//!
//! The corners' inputs follow the draw's shading rules (`raster::ShadingRules::varyings`):
//! flat shading makes COL0/COL1 the primitive's provoking vertex's (`RasterPrim::provoking`,
//! not always one of its vertices), so they are constant over the primitive; two-sided colour
//! reads BFC0/BFC1 on back faces; the fog factor is the wrapper's (`shader.rs`). User clip
//! planes have already cut the primitives (`geometry::build`).
//!
//! The device position of a window point `(x, y)` with 1/w `q` on a target of `W` × `H`
//! surface pixels, with the window offset `(ox, oy)`, is
//! `((2(x + ox)/W − 1)/q, (1 − 2(y + oy)/H)/q, 1/(2q), 1/q)`: the device's own viewport (the
//! whole target) lands it on surface pixel `(x + ox, y + oy)`, perspective-correct
//! interpolation uses the primitive's own `w`, and the device never clips it in z.

use crate::raster::sprite::{apply_point_sprite, sprite_coord};
use crate::raster::{fragment_inputs_with, Covered, VaryingOptions, WindowVertex};
use crate::render::cpu::geometry::{
    build_within as build_primitives, covered_pixels, CoverRules, RasterKind, RasterPrim,
};
use crate::render::cpu::vertex::OutputsByPosition;
use crate::render::state::DrawState;
use rsxtrace_capture::frame::state::PointSprite;

use super::shader::{varying_inputs, VARYINGS};

/// How the draw's vertices map onto the target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TargetMapping {
    /// Target width in pixels.
    pub width: u32,
    /// Target height in pixels.
    pub height: u32,
    /// Window offset: surface pixel = window pixel + offset.
    pub offset: (u32, u32),
}

/// The records of one draw: `shader::vertex_attributes(varyings)` vec4 per vertex, and a
/// triangle list indexing them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Records {
    /// The vertex data.
    pub data: Vec<[f32; 4]>,
    /// Three vertex indices per triangle.
    pub indices: Vec<u32>,
    /// Triangles emitted.
    pub triangles: usize,
    /// The triangles in runs of one facing (the reference render's: a line or point keeps the
    /// facing of the primitive it comes from), each as its first index in `indices` and
    /// whether it is back facing, in order.
    pub faces: Vec<(u32, bool)>,
    /// The fragment inputs each vertex carries (`shader::passed_varyings`).
    varyings: u16,
    /// Vertices in `data`.
    vertices: u32,
    /// Per source vertex (processing position), the last vertex written for a filled
    /// triangle's corner that is that source vertex itself, and what else its record depends
    /// on ([`SharedCorner`]).
    shared: Vec<Option<(SharedCorner, u32)>>,
}

/// What a filled triangle's corner record depends on besides its source vertex (which the
/// corner is, unmoved and unmixed): its window position, the facing (two-sided colour), the
/// polygon offset and, under flat shading, the provoking vertex. Two corners with the same
/// source vertex and the same `SharedCorner` have the same record, so they share one vertex:
/// the device sets up each mesh vertex once, not once per triangle around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SharedCorner {
    window: [u32; 4],
    front: bool,
    z_offset: u32,
    provoking: Option<u32>,
}

/// One output corner: its window position and its fragment inputs 1..=13.
#[derive(Clone, Copy)]
struct Corner {
    window: WindowVertex,
    inputs: [[f32; 4]; VARYINGS],
}

impl Records {
    /// No records yet; each vertex will carry the fragment inputs `varyings`; the source
    /// vertices are `sources` processing positions.
    fn new(varyings: u16, sources: usize) -> Self {
        Records {
            varyings,
            shared: vec![None; sources],
            ..Records::default()
        }
    }

    /// Writes a vertex; its index.
    fn push(
        &mut self,
        map: &TargetMapping,
        c: &Corner,
        facing: f32,
        z_offset: f32,
        coverage: f32,
    ) -> u32 {
        let (ox, oy) = (f64::from(map.offset.0), f64::from(map.offset.1));
        let (tw, th) = (f64::from(map.width), f64::from(map.height));
        let w = 1.0 / f64::from(c.window.inv_w);
        let nx = 2.0 * (f64::from(c.window.x) + ox) / tw - 1.0;
        let ny = 1.0 - 2.0 * (f64::from(c.window.y) + oy) / th;
        self.data
            .push([(nx * w) as f32, (ny * w) as f32, (0.5 * w) as f32, w as f32]);
        for n in varying_inputs(self.varyings) {
            self.data.push(c.inputs[n - 1]);
        }
        self.data.push([facing, z_offset, coverage, 0.0]);
        self.data.push([c.window.z, 0.0, 0.0, 0.0]);
        self.vertices += 1;
        self.vertices - 1
    }

    /// The vertex of a filled triangle's corner that is source vertex `source` under `key`:
    /// the one written for an earlier corner with both the same, else a new one from `corner`.
    fn shared(
        &mut self,
        map: &TargetMapping,
        source: u32,
        key: SharedCorner,
        corner: impl FnOnce() -> Corner,
    ) -> u32 {
        let slot = source as usize;
        if let Some(Some((k, index))) = self.shared.get(slot) {
            if *k == key {
                return *index;
            }
        }
        let facing = if key.front { 1.0 } else { -1.0 };
        let index = self.push(map, &corner(), facing, f32::from_bits(key.z_offset), 1.0);
        if let Some(entry) = self.shared.get_mut(slot) {
            *entry = Some((key, index));
        }
        index
    }

    /// A triangle of the vertices `v`.
    fn indexed_triangle(&mut self, v: [u32; 3]) {
        self.indices.extend_from_slice(&v);
        self.triangles += 1;
    }

    /// Two triangles, (q0, q1, q2) and (q0, q2, q3), over four vertices.
    fn quad(
        &mut self,
        map: &TargetMapping,
        q: [Corner; 4],
        facing: f32,
        z_offset: f32,
        coverage: f32,
    ) {
        let v = q
            .each_ref()
            .map(|c| self.push(map, c, facing, z_offset, coverage));
        self.indexed_triangle([v[0], v[1], v[2]]);
        self.indexed_triangle([v[0], v[2], v[3]]);
    }
}

/// The half size of a point or line (at least one pixel wide).
fn half(size: f32) -> f32 {
    (if size.is_finite() { size.max(1.0) } else { 1.0 }) / 2.0
}

/// The source vertex (processing position) window vertex `k` of `prim` is, when it is one
/// unmixed (weight 1 on it, 0 on the others), as every corner of an unclipped triangle is.
fn source_of(prim: &RasterPrim, k: usize) -> Option<u32> {
    let w = prim.to_src[k];
    let j = w.iter().position(|&x| x == 1.0)?;
    w.iter()
        .enumerate()
        .all(|(i, &x)| i == j || x == 0.0)
        .then_some(prim.src[j])
}

/// What converting a draw's primitives needs besides the primitive.
struct Converter<'a, O: ?Sized> {
    outputs: &'a O,
    options: VaryingOptions,
    sprite: PointSprite,
    rules: CoverRules,
    bounds: crate::raster::PixelRect,
}

impl<O: OutputsByPosition + ?Sized> Converter<'_, O> {
    /// The fragment inputs 1..=13 of `prim` at weights `weights` over its window vertices,
    /// window position (`x`, `y`) (point sprites).
    fn inputs(
        &self,
        prim: &RasterPrim,
        src: [&[[f32; 4]; 16]; 3],
        weights: [f32; 3],
        (x, y): (f64, f64),
    ) -> [[f32; 4]; VARYINGS] {
        let mut w = [0f32; 3];
        for (k, wk) in weights.iter().enumerate() {
            for (j, wj) in w.iter_mut().enumerate() {
                *wj += wk * prim.to_src[k][j];
            }
        }
        // Flat colours are the provoking vertex's (not in a quad's first triangle).
        let provoking = self.outputs.get(prim.provoking as usize).unwrap_or(src[2]);
        let mut lane = fragment_inputs_with(src, provoking, w, [0.0; 4], prim.front, &self.options);
        if prim.kind == RasterKind::Point {
            let v = prim.verts[0];
            apply_point_sprite(
                &mut lane,
                &self.sprite,
                sprite_coord((v.x, v.y), prim.size, x, y),
            );
        }
        std::array::from_fn(|n| lane.attributes[n + 1])
    }

    /// Converts one primitive.
    fn convert(&self, records: &mut Records, map: &TargetMapping, prim: &RasterPrim) {
        let get = |p: u32| self.outputs.get(p as usize);
        let (Some(a), Some(b), Some(c)) = (get(prim.src[0]), get(prim.src[1]), get(prim.src[2]))
        else {
            return;
        };
        if self.options.flat && get(prim.provoking).is_none() {
            return;
        }
        let src = [a, b, c];
        let facing = if prim.front { 1.0 } else { -1.0 };
        if self.rules.masks(prim) {
            self.runs(records, map, prim, src, facing);
            return;
        }
        let unit = |k: usize| {
            let mut w = [0.0; 3];
            w[k] = 1.0;
            w
        };
        // A corner at window vertex k, moved by (dx, dy).
        let corner = |k: usize, dx: f32, dy: f32| {
            let v = prim.verts[k];
            let window = WindowVertex {
                x: v.x + dx,
                y: v.y + dy,
                ..v
            };
            Corner {
                window,
                inputs: self.inputs(
                    prim,
                    src,
                    unit(k),
                    (f64::from(window.x), f64::from(window.y)),
                ),
            }
        };
        match prim.kind {
            RasterKind::Triangle => {
                let v = std::array::from_fn(|k| match source_of(prim, k) {
                    Some(source) => {
                        let w = prim.verts[k];
                        let key = SharedCorner {
                            window: [w.x, w.y, w.z, w.inv_w].map(f32::to_bits),
                            front: prim.front,
                            z_offset: prim.z_offset.to_bits(),
                            provoking: self.options.flat.then_some(prim.provoking),
                        };
                        records.shared(map, source, key, || corner(k, 0.0, 0.0))
                    }
                    None => records.push(map, &corner(k, 0.0, 0.0), facing, prim.z_offset, 1.0),
                });
                records.indexed_triangle(v);
            }
            RasterKind::Line => {
                let (a, b) = (prim.verts[0], prim.verts[1]);
                let (dx, dy) = (b.x - a.x, b.y - a.y);
                if !(dx * dx + dy * dy).is_normal() {
                    return;
                }
                let h = half(prim.size);
                let (ox, oy) = if dx.abs() >= dy.abs() {
                    (0.0, h)
                } else {
                    (h, 0.0)
                };
                records.quad(
                    map,
                    [
                        corner(0, -ox, -oy),
                        corner(1, -ox, -oy),
                        corner(1, ox, oy),
                        corner(0, ox, oy),
                    ],
                    facing,
                    prim.z_offset,
                    1.0,
                );
            }
            RasterKind::Point => {
                let h = half(prim.size);
                records.quad(
                    map,
                    [
                        corner(0, -h, -h),
                        corner(0, h, -h),
                        corner(0, h, h),
                        corner(0, -h, h),
                    ],
                    facing,
                    prim.z_offset,
                    1.0,
                );
            }
        }
    }

    /// A masked primitive as the runs of its kept pixels (see the module doc).
    fn runs(
        &self,
        records: &mut Records,
        map: &TargetMapping,
        prim: &RasterPrim,
        src: [&[[f32; 4]; 16]; 3],
        facing: f32,
    ) {
        let mut covered: Vec<Covered> = Vec::new();
        covered_pixels(prim, self.bounds, &self.rules, &mut covered);
        covered.sort_unstable_by_key(|c| (c.y, c.x));
        // Antialiased pixels carry their own coverage (flat in `misc.z`): one pixel per run.
        let per_pixel = self.rules.smooth(prim);
        let mut i = 0;
        while let Some(first) = covered.get(i) {
            let mut last = first;
            let mut j = i + 1;
            while let Some(c) = covered.get(j) {
                if per_pixel || c.y != first.y || c.x != last.x + 1 {
                    break;
                }
                last = c;
                j += 1;
            }
            let (x0, x1) = (f64::from(first.x), f64::from(last.x) + 1.0);
            let (y0, y1) = (f64::from(first.y), f64::from(first.y) + 1.0);
            let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
                .map(|(x, y)| self.corner_at(prim, src, x, y));
            if let [Some(a), Some(b), Some(c), Some(d)] = corners {
                records.quad(map, [a, b, c, d], facing, prim.z_offset, first.coverage);
            }
            i = j;
        }
    }

    /// The corner of a run at window position (`x`, `y`): the primitive's interpolation there
    /// (triangles: their plane equations; lines: the projection on the segment, unclamped).
    fn corner_at(
        &self,
        prim: &RasterPrim,
        src: [&[[f32; 4]; 16]; 3],
        x: f64,
        y: f64,
    ) -> Option<Corner> {
        let (weights, z, inv_w) = match prim.kind {
            RasterKind::Triangle => {
                crate::raster::coverage::triangle_weights_at_position(&prim.verts, x, y)?
            }
            RasterKind::Line => crate::raster::coverage::line_weights_at_position(
                [prim.verts[0], prim.verts[1]],
                x,
                y,
            )?,
            RasterKind::Point => ([1.0, 0.0, 0.0], prim.verts[0].z, prim.verts[0].inv_w),
        };
        if !(inv_w.is_finite() && inv_w > 0.0) {
            return None;
        }
        Some(Corner {
            window: WindowVertex {
                x: x as f32,
                y: y as f32,
                z,
                inv_w,
            },
            inputs: self.inputs(prim, src, weights, (x, y)),
        })
    }
}

/// Builds the records of a draw: `outputs` in processing order, `starts` where primitive
/// sequences restart, `point_size_from_vertex` when points take their size from PSZ
/// (`SET_VERTEX_ATTRIB_OUTPUT_MASK` bit 5, as the reference render decides); each vertex
/// carries the fragment inputs `varyings` (`shader::passed_varyings`). Filled triangles that
/// cover no pixel centre of `whole` are left out ([`build_primitives`]): `whole` is the
/// draw's bounds before a band cuts them, so that a band keeps the whole frame's primitives
/// (and marks the targets written as the whole frame does).
pub(crate) fn build<O: OutputsByPosition + ?Sized>(
    state: &DrawState,
    outputs: &O,
    starts: &[usize],
    point_size_from_vertex: bool,
    map: &TargetMapping,
    varyings: u16,
    whole: crate::raster::PixelRect,
) -> Records {
    let converter = Converter {
        outputs,
        options: state.shading.varyings(),
        sprite: state.primitives.point_sprite,
        rules: CoverRules::from_state(state),
        bounds: state.window_bounds(),
    };
    let mut records = Records::new(varyings, outputs.len());
    for prim in build_primitives(state, outputs, starts, point_size_from_vertex, whole) {
        let first = records.indices.len();
        converter.convert(&mut records, map, &prim);
        let back = !prim.front;
        if records.indices.len() > first && records.faces.last().is_none_or(|r| r.1 != back) {
            records.faces.push((first as u32, back));
        }
    }
    records
}

#[cfg(test)]
mod tests {
    use super::super::shader::passed_varyings;
    use super::*;

    fn shifted(c: &Corner, dx: f32, dy: f32) -> Corner {
        Corner {
            window: WindowVertex {
                x: c.window.x + dx,
                y: c.window.y + dy,
                ..c.window
            },
            inputs: c.inputs,
        }
    }

    /// A target of `width` × `height` pixels without a window offset.
    fn target(width: u32, height: u32) -> TargetMapping {
        TargetMapping {
            width,
            height,
            offset: (0, 0),
        }
    }

    fn corner(x: f32, y: f32, inv_w: f32) -> Corner {
        Corner {
            window: WindowVertex {
                x,
                y,
                z: 0.25,
                inv_w,
            },
            inputs: [[0.0; 4]; VARYINGS],
        }
    }

    #[test]
    fn window_points_land_on_their_surface_pixel() {
        let map = TargetMapping {
            width: 64,
            height: 32,
            offset: (4, 2),
        };
        let mut r = Records::new(passed_varyings(u16::MAX), 0);
        // Window (12, 6) + offset (4, 2) = surface (16, 8): NDC (-0.5, 0.5); w = 2.
        r.push(&map, &corner(12.0, 6.0, 0.5), -1.0, 0.125, 0.75);
        assert_eq!(r.data.len(), VARYINGS + 3);
        assert_eq!(r.data[0], [-1.0, 1.0, 1.0, 2.0]);
        assert_eq!(r.data[VARYINGS + 1], [-1.0, 0.125, 0.75, 0.0]);
        assert_eq!(r.data[VARYINGS + 2], [0.25, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn vertices_carry_only_the_varyings_passed() {
        let map = target(8, 8);
        let mut c = corner(1.0, 1.0, 1.0);
        for (k, input) in c.inputs.iter_mut().enumerate() {
            *input = [k as f32 + 1.0; 4];
        }
        // COL0 (1) and TEX2 (6): WPOS (0) and FACING (14) are never varyings.
        let mut r = Records::new(
            passed_varyings((1 << 0) | (1 << 1) | (1 << 6) | (1 << 14)),
            0,
        );
        r.push(&map, &c, 1.0, 0.0, 1.0);
        assert_eq!(r.data.len(), 2 + 3);
        assert_eq!((r.data[1], r.data[2]), ([1.0; 4], [6.0; 4]));
        assert_eq!(r.data[3], [1.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn quads_are_two_triangles_sharing_a_diagonal() {
        let map = target(8, 8);
        let mut r = Records::new(passed_varyings(u16::MAX), 0);
        let c = corner(4.0, 4.0, 1.0);
        r.quad(
            &map,
            [
                shifted(&c, -1.0, -1.0),
                shifted(&c, 1.0, -1.0),
                shifted(&c, 1.0, 1.0),
                shifted(&c, -1.0, 1.0),
            ],
            1.0,
            0.0,
            1.0,
        );
        assert_eq!(r.triangles, 2);
        let stride = VARYINGS + 3;
        let pos: Vec<[f32; 4]> = r.data.chunks(stride).map(|v| v[0]).collect();
        assert_eq!(pos.len(), 4);
        // Window (3, 3) → NDC (-0.25, 0.25); (5, 5) → (0.25, -0.25).
        assert_eq!(pos[0], [-0.25, 0.25, 0.5, 1.0]);
        assert_eq!(pos[2], [0.25, -0.25, 0.5, 1.0]);
        assert_eq!(r.indices, [0, 1, 2, 0, 2, 3]);
    }

    #[test]
    fn corners_share_a_vertex_only_with_the_same_source_and_key() {
        let map = target(8, 8);
        let mut r = Records::new(passed_varyings(u16::MAX), 3);
        let key = SharedCorner {
            window: [1.0f32, 2.0, 0.5, 1.0].map(f32::to_bits),
            front: true,
            z_offset: 0.0f32.to_bits(),
            provoking: None,
        };
        let c = || corner(1.0, 2.0, 1.0);
        let first = r.shared(&map, 1, key, c);
        assert_eq!(r.shared(&map, 1, key, c), first, "same source, same key");
        let back = SharedCorner {
            front: false,
            ..key
        };
        let offset = SharedCorner {
            z_offset: 0.25f32.to_bits(),
            ..key
        };
        let flat = SharedCorner {
            provoking: Some(2),
            ..key
        };
        let mut seen = vec![first];
        for (what, source, k) in [
            ("another source", 2, key),
            ("back facing", 1, back),
            ("another offset", 1, offset),
            ("another provoking vertex", 1, flat),
        ] {
            let v = r.shared(&map, source, k, c);
            assert!(!seen.contains(&v), "{what}: shares vertex {v}");
            seen.push(v);
        }
        assert_eq!(r.vertices as usize, seen.len());
        // The back-facing record carries its own facing.
        let stride = VARYINGS + 3;
        assert_eq!(r.data[2 * stride + VARYINGS + 1][0], -1.0);
        // A source beyond the table writes a vertex of its own each time.
        assert_ne!(r.shared(&map, 9, key, c), r.shared(&map, 9, key, c));
    }
}
