//! A draw's vertex outputs to the vertex records the device rasterizes. The primitives are
//! the reference render's own ([`crate::render::cpu::geometry::build`]: assembly, clipping
//! against `w > ε`, viewport transform, facing, culling, polygon modes, polygon offset), so
//! both renderers cover the same primitives; the device only rasterizes, interpolates and
//! shades. Every primitive becomes triangles:
//! - filled triangles as they are (each corner carries the fragment inputs at its weights over
//!   the source vertices);
//! - lines as the parallelogram the reference rasterizer covers (`raster::rasterize_line`:
//!   `width` measured along the minor axis);
//! - points as the `size` × `size` square centred on the point (`raster::rasterize_point`'s
//!   half-open square, which the top-left fill rule reproduces).
//!
//! The device position of a window point `(x, y)` with 1/w `q` on a target of `W` × `H`
//! surface pixels, with the window offset `(ox, oy)`, is
//! `((2(x + ox)/W − 1)/q, (1 − 2(y + oy)/H)/q, 1/(2q), 1/q)`: the device's own viewport (the
//! whole target) lands it on surface pixel `(x + ox, y + oy)`, perspective-correct
//! interpolation uses the primitive's own `w`, and the device never clips it in z.

use crate::raster::{fragment_inputs_with, VaryingOptions, WindowVertex};
use crate::render::cpu::geometry::{build as build_primitives, RasterKind, RasterPrim};
use crate::render::state::DrawState;

use super::shader::VARYINGS;

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

/// The records of one draw: `shader::VERTEX_ATTRIBUTES` vec4 per vertex, triangle list.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Records {
    /// The vertex data.
    pub data: Vec<[f32; 4]>,
    /// Triangles emitted.
    pub triangles: usize,
}

/// One output corner: its window position and its fragment inputs 1..=13.
#[derive(Clone, Copy)]
struct Corner {
    window: WindowVertex,
    inputs: [[f32; 4]; VARYINGS],
}

impl Records {
    fn push(&mut self, map: &TargetMapping, c: &Corner, facing: f32, z_offset: f32) {
        let (ox, oy) = (f64::from(map.offset.0), f64::from(map.offset.1));
        let (tw, th) = (f64::from(map.width), f64::from(map.height));
        let w = 1.0 / f64::from(c.window.inv_w);
        let nx = 2.0 * (f64::from(c.window.x) + ox) / tw - 1.0;
        let ny = 1.0 - 2.0 * (f64::from(c.window.y) + oy) / th;
        self.data
            .push([(nx * w) as f32, (ny * w) as f32, (0.5 * w) as f32, w as f32]);
        self.data.extend_from_slice(&c.inputs);
        self.data.push([facing, z_offset, 0.0, 0.0]);
        self.data.push([c.window.z, 0.0, 0.0, 0.0]);
    }

    fn triangle(&mut self, map: &TargetMapping, c: [&Corner; 3], facing: f32, z_offset: f32) {
        for corner in c {
            self.push(map, corner, facing, z_offset);
        }
        self.triangles += 1;
    }

    fn quad(&mut self, map: &TargetMapping, q: [Corner; 4], facing: f32, z_offset: f32) {
        self.triangle(map, [&q[0], &q[1], &q[2]], facing, z_offset);
        self.triangle(map, [&q[0], &q[2], &q[3]], facing, z_offset);
    }
}

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

/// The half size of a point or line (at least one pixel wide).
fn half(size: f32) -> f32 {
    (if size.is_finite() { size.max(1.0) } else { 1.0 }) / 2.0
}

/// Converts one primitive.
fn convert(
    records: &mut Records,
    map: &TargetMapping,
    prim: &RasterPrim,
    outputs: &[[[f32; 4]; 16]],
    options: &VaryingOptions,
) {
    let Some(src) = prim
        .src
        .iter()
        .map(|&p| outputs.get(p as usize))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let src = [src[0], src[1], src[2]];
    let corner = |k: usize| {
        let lane = fragment_inputs_with(src, prim.to_src[k], [0.0; 4], prim.front, options);
        Corner {
            window: prim.verts[k],
            inputs: std::array::from_fn(|n| lane.attributes[n + 1]),
        }
    };
    let facing = if prim.front { 1.0 } else { -1.0 };
    match prim.kind {
        RasterKind::Triangle => {
            let c = [corner(0), corner(1), corner(2)];
            records.triangle(map, [&c[0], &c[1], &c[2]], facing, prim.z_offset);
        }
        RasterKind::Line => {
            let (a, b) = (corner(0), corner(1));
            let (dx, dy) = (b.window.x - a.window.x, b.window.y - a.window.y);
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
                    shifted(&a, -ox, -oy),
                    shifted(&b, -ox, -oy),
                    shifted(&b, ox, oy),
                    shifted(&a, ox, oy),
                ],
                facing,
                prim.z_offset,
            );
        }
        RasterKind::Point => {
            let c = corner(0);
            let h = half(prim.size);
            records.quad(
                map,
                [
                    shifted(&c, -h, -h),
                    shifted(&c, h, -h),
                    shifted(&c, h, h),
                    shifted(&c, -h, h),
                ],
                facing,
                prim.z_offset,
            );
        }
    }
}

/// Builds the records of a draw: `outputs` in processing order, `starts` where primitive
/// sequences restart, `point_size_from_vertex` when points take their size from PSZ
/// (`SET_VERTEX_ATTRIB_OUTPUT_MASK` bit 5, as the reference render decides).
pub(crate) fn build(
    state: &DrawState,
    outputs: &[[[f32; 4]; 16]],
    starts: &[usize],
    point_size_from_vertex: bool,
    map: &TargetMapping,
) -> Records {
    let options = state.shading.varyings();
    let mut records = Records::default();
    for prim in build_primitives(state, outputs, starts, point_size_from_vertex) {
        convert(&mut records, map, &prim, outputs, &options);
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut r = Records::default();
        // Window (12, 6) + offset (4, 2) = surface (16, 8): NDC (-0.5, 0.5); w = 2.
        r.push(&map, &corner(12.0, 6.0, 0.5), -1.0, 0.125);
        assert_eq!(r.data.len(), VARYINGS + 3);
        assert_eq!(r.data[0], [-1.0, 1.0, 1.0, 2.0]);
        assert_eq!(r.data[VARYINGS + 1], [-1.0, 0.125, 0.0, 0.0]);
        assert_eq!(r.data[VARYINGS + 2], [0.25, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn quads_are_two_triangles_sharing_a_diagonal() {
        let map = TargetMapping {
            width: 8,
            height: 8,
            offset: (0, 0),
        };
        let mut r = Records::default();
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
        );
        assert_eq!(r.triangles, 2);
        let stride = VARYINGS + 3;
        let pos: Vec<[f32; 4]> = r.data.chunks(stride).map(|v| v[0]).collect();
        // Window (3, 3) → NDC (-0.25, 0.25); (5, 5) → (0.25, -0.25).
        assert_eq!(pos[0], [-0.25, 0.25, 0.5, 1.0]);
        assert_eq!(pos[2], [0.25, -0.25, 0.5, 1.0]);
        assert_eq!(pos[3], pos[0]);
        assert_eq!(pos[4], pos[2]);
    }
}
