//! Coverage: which pixels a triangle, line or point covers, with the weights to interpolate
//! its vertices' outputs at each covered pixel.
//!
//! Rules:
//! - Pixel `(x, y)` is sampled at its centre `(x + 0.5, y + 0.5)` in window coordinates
//!   (x right, y down the surface rows; see [`super::window`]).
//! - **Fill rule: top-left**, stated in these y-down coordinates (Direct3D's rule, which
//!   Vulkan implementations use and which RPCS3's host GPU applies): a centre exactly on an
//!   edge is covered only when the edge is a *top* edge (horizontal, the triangle below it) or
//!   a *left* edge (the triangle to its right). Two triangles sharing an edge therefore cover
//!   each pixel along it exactly once. The edge functions are evaluated in f64 with each edge's
//!   endpoints taken in one canonical order, so a shared edge gives exactly opposite values on
//!   both sides.
//! - Both windings are rasterized; a zero-area (or non-finite) triangle covers nothing.
//! - [`Winding`] is what a viewer sees on the image with row 0 at the top; RSX `SET_FRONT_FACE`
//!   is stated in this upper-left-origin frame whatever `SET_SHADER_WINDOW` says (RPCS3
//!   `GLGSRender.cpp` inverts CW/CCW for OpenGL's lower-left origin and not for Vulkan's).
//! - Weights: screen-space barycentrics `b` give window z linearly (`z = Σ b·z`); the weights
//!   reported for outputs are perspective-correct, `b_i·(1/w_i) / Σ b_j·(1/w_j)`.
//! - Lines are covered as a parallelogram of `width` measured along the minor axis (OpenGL's
//!   aliased wide-line rule) through the same triangle rule; the weight along the line is the
//!   projection of the pixel centre on the segment.
//! - Points cover the pixels whose centres lie in the half-open square
//!   `[x − size/2, x + size/2) × [y − size/2, y + size/2)`.

use super::window::WindowVertex;

/// A half-open pixel rectangle `x0..x1` × `y0..y1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PixelRect {
    /// First column.
    pub x0: u32,
    /// First row.
    pub y0: u32,
    /// Column past the last.
    pub x1: u32,
    /// Row past the last.
    pub y1: u32,
}

impl PixelRect {
    /// `x0..x0+width` × `y0..y0+height` (saturating).
    pub fn from_origin_size(x0: u32, y0: u32, width: u32, height: u32) -> PixelRect {
        PixelRect {
            x0,
            y0,
            x1: x0.saturating_add(width),
            y1: y0.saturating_add(height),
        }
    }

    /// The common part of two rectangles (may be empty).
    pub fn intersect(&self, other: &PixelRect) -> PixelRect {
        PixelRect {
            x0: self.x0.max(other.x0),
            y0: self.y0.max(other.y0),
            x1: self.x1.min(other.x1),
            y1: self.y1.min(other.y1),
        }
    }

    /// The rectangle moved by (`dx`, `dy`) (saturating).
    pub fn moved_by(&self, (dx, dy): (u32, u32)) -> PixelRect {
        PixelRect {
            x0: self.x0.saturating_add(dx),
            y0: self.y0.saturating_add(dy),
            x1: self.x1.saturating_add(dx),
            y1: self.y1.saturating_add(dy),
        }
    }

    /// No pixel.
    pub fn is_empty(&self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }

    /// Holds pixel (`x`, `y`).
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1
    }
}

/// One covered pixel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Covered {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// Perspective-correct weights over the primitive's vertices (lines use two, points one).
    pub weights: [f32; 3],
    /// Window z, interpolated linearly in screen space.
    pub z: f32,
    /// 1/w interpolated linearly in screen space (WPOS.w).
    pub inv_w: f32,
    /// The primitive is front facing (lines and points always are).
    pub front_facing: bool,
    /// The fraction of the pixel the primitive covers: 1 for aliased coverage, the area of the
    /// pixel square inside the primitive for smooth lines and polygons ([`super::smooth`]),
    /// which multiplies the fragment's alpha.
    pub coverage: f32,
}

/// Orientation of a triangle as seen on the image with row 0 at the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Winding {
    /// Clockwise.
    Clockwise,
    /// Counter-clockwise.
    CounterClockwise,
}

/// Twice the signed area in y-down window coordinates: positive for clockwise on the image.
fn area2(v: &[WindowVertex; 3]) -> f64 {
    let p = v.map(|v| (f64::from(v.x), f64::from(v.y)));
    (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[2].0 - p[0].0) * (p[1].1 - p[0].1)
}

/// The winding of a triangle, `None` for zero or non-finite area.
pub fn winding(v: &[WindowVertex; 3]) -> Option<Winding> {
    let a = area2(v);
    if !a.is_finite() || a == 0.0 {
        None
    } else if a > 0.0 {
        Some(Winding::Clockwise)
    } else {
        Some(Winding::CounterClockwise)
    }
}

/// Rasterize a triangle, reporting counter-clockwise triangles as front facing (the RSX's
/// default `SET_FRONT_FACE` CCW). Appends covered pixels inside `bounds` to `out`.
pub fn rasterize_triangle(v: [WindowVertex; 3], bounds: PixelRect, out: &mut Vec<Covered>) {
    let front = winding(&v) == Some(Winding::CounterClockwise);
    rasterize_triangle_facing(v, bounds, front, out);
}

/// One edge a→b: its function at a point, with the endpoints in canonical order so that the
/// edge b→a gives exactly the negated value.
#[derive(Clone, Copy)]
struct Edge {
    ax: f64,
    ay: f64,
    dx: f64,
    dy: f64,
    sign: f64,
    /// A centre exactly on the edge is covered.
    inclusive: bool,
}

impl Edge {
    /// Edge a→b of a triangle oriented clockwise on the image (area2 > 0).
    fn new(a: (f64, f64), b: (f64, f64)) -> Edge {
        let (p, q, sign) = if a <= b { (a, b, 1.0) } else { (b, a, -1.0) };
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        // Clockwise on a y-down image: a top edge runs right (dy = 0, dx > 0), a left edge
        // runs up (dy < 0).
        let inclusive = (dy == 0.0 && dx > 0.0) || dy < 0.0;
        Edge {
            ax: p.0,
            ay: p.1,
            dx: q.0 - p.0,
            dy: q.1 - p.1,
            sign,
            inclusive,
        }
    }

    /// Positive inside (right of a→b on the y-down image, for clockwise triangles).
    #[inline]
    fn eval(&self, x: f64, y: f64) -> f64 {
        self.sign * (self.dx * (y - self.ay) - self.dy * (x - self.ax))
    }

    #[inline]
    fn covers(&self, e: f64) -> bool {
        e > 0.0 || (e == 0.0 && self.inclusive)
    }
}

/// The columns and rows of the pixel centres inside the bounding box of `p` and inside
/// `bounds`; `None` when there is none (then the triangle covers no pixel there).
fn centre_box(p: [(f64, f64); 3], bounds: PixelRect) -> Option<((u32, u32), (u32, u32))> {
    let (minx, maxx) = (
        p[0].0.min(p[1].0).min(p[2].0),
        p[0].0.max(p[1].0).max(p[2].0),
    );
    let (miny, maxy) = (
        p[0].1.min(p[1].1).min(p[2].1),
        p[0].1.max(p[1].1).max(p[2].1),
    );
    Some((
        centre_range(minx, maxx, bounds.x0, bounds.x1)?,
        centre_range(miny, maxy, bounds.y0, bounds.y1)?,
    ))
}

/// Whether a filled (not antialiased) triangle may cover a pixel inside `bounds`: `false`
/// when no pixel centre there lies in its bounding box, the test
/// [`rasterize_triangle_facing`] starts with (then it covers nothing).
pub fn may_cover_centre(v: &[WindowVertex; 3], bounds: PixelRect) -> bool {
    centre_box(v.map(|v| (f64::from(v.x), f64::from(v.y))), bounds).is_some()
}

/// The pixel range whose centres lie in `[lo, hi]`, clamped to `[min, max)`; `None` if empty.
fn centre_range(lo: f64, hi: f64, min: u32, max: u32) -> Option<(u32, u32)> {
    if min >= max || !(lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let first = (lo - 0.5).ceil().max(f64::from(min));
    let last = (hi - 0.5).floor().min(f64::from(max) - 1.0);
    (first <= last).then_some((first as u32, last as u32))
}

/// Rasterize a triangle with the facing given by the caller. Appends covered pixels inside
/// `bounds` to `out`.
pub fn rasterize_triangle_facing(
    v: [WindowVertex; 3],
    bounds: PixelRect,
    front_facing: bool,
    out: &mut Vec<Covered>,
) {
    let a = area2(&v);
    if !a.is_finite() || a == 0.0 {
        return;
    }
    // Orient clockwise: order[k] is the input vertex at oriented position k.
    let order = if a > 0.0 { [0, 1, 2] } else { [0, 2, 1] };
    let p = order.map(|i| (f64::from(v[i].x), f64::from(v[i].y)));
    let area = a.abs();
    // Edge k is opposite oriented vertex k.
    let edges = [
        Edge::new(p[1], p[2]),
        Edge::new(p[2], p[0]),
        Edge::new(p[0], p[1]),
    ];
    let Some(((x0, x1), (y0, y1))) = centre_box(p, bounds) else {
        return;
    };
    let z = order.map(|i| f64::from(v[i].z));
    let iw = order.map(|i| f64::from(v[i].inv_w));
    for y in y0..=y1 {
        let cy = f64::from(y) + 0.5;
        for x in x0..=x1 {
            let cx = f64::from(x) + 0.5;
            let e = edges.map(|e| e.eval(cx, cy));
            if !(0..3).all(|k| edges[k].covers(e[k])) {
                continue;
            }
            let b = e.map(|e| e / area);
            let zi = b[0] * z[0] + b[1] * z[1] + b[2] * z[2];
            let q = [b[0] * iw[0], b[1] * iw[1], b[2] * iw[2]];
            let inv_w = q[0] + q[1] + q[2];
            let mut weights = [0f32; 3];
            for k in 0..3 {
                let w = if inv_w != 0.0 { q[k] / inv_w } else { b[k] };
                weights[order[k]] = w as f32;
            }
            out.push(Covered {
                x,
                y,
                weights,
                z: zi as f32,
                inv_w: inv_w as f32,
                front_facing,
                coverage: 1.0,
            });
        }
    }
}

/// Rasterize a line of `width` pixels (at least 1) between two window vertices. Covered
/// pixels carry weights `[1 − t', t', 0]` (perspective-correct) and are front facing.
pub fn rasterize_line(v: [WindowVertex; 2], width: f32, bounds: PixelRect, out: &mut Vec<Covered>) {
    let (ax, ay) = (f64::from(v[0].x), f64::from(v[0].y));
    let (bx, by) = (f64::from(v[1].x), f64::from(v[1].y));
    let (dx, dy) = (bx - ax, by - ay);
    let len2 = dx * dx + dy * dy;
    if !len2.is_finite() || len2 == 0.0 {
        return;
    }
    let half = f64::from(if width.is_finite() {
        width.max(1.0)
    } else {
        1.0
    }) / 2.0;
    // Offset along the minor axis.
    let (ox, oy) = if dx.abs() >= dy.abs() {
        (0.0, half)
    } else {
        (half, 0.0)
    };
    let corner = |x: f64, y: f64| WindowVertex {
        x: x as f32,
        y: y as f32,
        z: 0.0,
        inv_w: 1.0,
    };
    let quad = [
        corner(ax - ox, ay - oy),
        corner(bx - ox, by - oy),
        corner(bx + ox, by + oy),
        corner(ax + ox, ay + oy),
    ];
    let start = out.len();
    rasterize_triangle_facing([quad[0], quad[1], quad[2]], bounds, true, out);
    rasterize_triangle_facing([quad[0], quad[2], quad[3]], bounds, true, out);
    for c in out.iter_mut().skip(start) {
        let (cx, cy) = (f64::from(c.x) + 0.5, f64::from(c.y) + 0.5);
        let t = (((cx - ax) * dx + (cy - ay) * dy) / len2).clamp(0.0, 1.0);
        (c.weights, c.z, c.inv_w) = line_weights(v, t);
    }
}

/// Rasterize a point of `size` pixels (at least 1) centred on `v`. Covered pixels carry
/// weights `[1, 0, 0]` and are front facing.
pub fn rasterize_point(v: WindowVertex, size: f32, bounds: PixelRect, out: &mut Vec<Covered>) {
    let half = f64::from(if size.is_finite() { size.max(1.0) } else { 1.0 }) / 2.0;
    let (x, y) = (f64::from(v.x), f64::from(v.y));
    // Centres c with x − half <= c < x + half: c = k + 0.5.
    let range = |lo: f64, hi: f64, min: u32, max: u32| -> Option<(u32, u32)> {
        if min >= max || !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let first = (lo - 0.5).ceil().max(f64::from(min));
        let last = ((hi - 0.5).ceil() - 1.0).min(f64::from(max) - 1.0);
        (first <= last).then_some((first as u32, last as u32))
    };
    let Some((x0, x1)) = range(x - half, x + half, bounds.x0, bounds.x1) else {
        return;
    };
    let Some((y0, y1)) = range(y - half, y + half, bounds.y0, bounds.y1) else {
        return;
    };
    for py in y0..=y1 {
        for px in x0..=x1 {
            out.push(Covered {
                x: px,
                y: py,
                weights: [1.0, 0.0, 0.0],
                z: v.z,
                inv_w: v.inv_w,
                front_facing: true,
                coverage: 1.0,
            });
        }
    }
}

/// The interpolation of a triangle at the centre of any pixel, inside it or not (helper lanes
/// of a 2×2 quad extrapolate): `(perspective-correct weights, window z, 1/w)`, `None` for a
/// zero-area or non-finite triangle.
pub fn triangle_weights_at(v: &[WindowVertex; 3], x: u32, y: u32) -> Option<([f32; 3], f32, f32)> {
    triangle_weights_at_position(v, f64::from(x) + 0.5, f64::from(y) + 0.5)
}

/// [`triangle_weights_at`] at any window position (`cx`, `cy`) (the plane equations extend
/// outside the triangle).
pub fn triangle_weights_at_position(
    v: &[WindowVertex; 3],
    cx: f64,
    cy: f64,
) -> Option<([f32; 3], f32, f32)> {
    let a = area2(v);
    if !a.is_finite() || a == 0.0 {
        return None;
    }
    let p = v.map(|v| (f64::from(v.x), f64::from(v.y)));
    // b_k = area of the sub-triangle opposite vertex k over the whole area.
    let e = |i: usize, j: usize| {
        let (a, b) = (p[i], p[j]);
        (b.0 - a.0) * (cy - a.1) - (b.1 - a.1) * (cx - a.0)
    };
    let b = [e(1, 2) / a, e(2, 0) / a, e(0, 1) / a];
    let z: f64 = (0..3).map(|k| b[k] * f64::from(v[k].z)).sum();
    let q = [0, 1, 2].map(|k| b[k] * f64::from(v[k].inv_w));
    let inv_w = q[0] + q[1] + q[2];
    let weights = [0, 1, 2].map(|k| {
        if inv_w != 0.0 {
            (q[k] / inv_w) as f32
        } else {
            b[k] as f32
        }
    });
    Some((weights, z as f32, inv_w as f32))
}

/// The interpolation of a line at window position (`cx`, `cy`), with `t` the projection of
/// the position on the segment (not clamped: [`rasterize_line`] clamps it to the segment):
/// `(perspective-correct weights [1 − t', t', 0], window z, 1/w)`, `None` for a zero-length
/// or non-finite line.
pub fn line_weights_at_position(
    v: [WindowVertex; 2],
    cx: f64,
    cy: f64,
) -> Option<([f32; 3], f32, f32)> {
    let (ax, ay) = (f64::from(v[0].x), f64::from(v[0].y));
    let (dx, dy) = (f64::from(v[1].x) - ax, f64::from(v[1].y) - ay);
    let len2 = dx * dx + dy * dy;
    if !len2.is_finite() || len2 == 0.0 {
        return None;
    }
    let t = ((cx - ax) * dx + (cy - ay) * dy) / len2;
    Some(line_weights(v, t))
}

/// The interpolation of a line at parameter `t` along it.
pub(crate) fn line_weights(v: [WindowVertex; 2], t: f64) -> ([f32; 3], f32, f32) {
    let (z0, z1) = (f64::from(v[0].z), f64::from(v[1].z));
    let (w0, w1) = (f64::from(v[0].inv_w), f64::from(v[1].inv_w));
    let (q0, q1) = ((1.0 - t) * w0, t * w1);
    let inv_w = q0 + q1;
    let tp = if inv_w != 0.0 { q1 / inv_w } else { t };
    (
        [(1.0 - tp) as f32, tp as f32, 0.0],
        ((1.0 - t) * z0 + t * z1) as f32,
        inv_w as f32,
    )
}
