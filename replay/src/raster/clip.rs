//! Triangle clipping in clip space. A triangle is clipped against `w > W_EPSILON` (so that the
//! perspective divide is defined) and against any other planes given as signed distances per
//! vertex (user clip distances, z range); the pieces are returned as barycentric weights over
//! the original three vertices, so any vertex output is interpolated from them exactly as the
//! position is.
//!
//! x and y are not clipped: the rasterizer bounds coverage by the pixel rectangle and works in
//! f64, so a guard band is not needed. The z range is not clipped here either: the CPU render
//! applies `SET_ZMIN_MAX_CONTROL` per fragment on window z (a depth-clip discard or a clamp),
//! which covers the same pixels as clipping the primitive would: the clip tests the
//! interpolated z, before the polygon offset (`render::cpu::rop::depth_range`).
//!
//! Algorithm: Sutherland–Hodgman on the polygon of (weights, distances), plane after plane,
//! then a fan from the first vertex, which keeps the input winding.

/// The smallest clip-space w kept: points with `w <= W_EPSILON` are clipped away.
pub const W_EPSILON: f32 = 1e-6;

/// The identity weights: a triangle kept whole.
pub const IDENTITY: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// Whether [`clip_triangle`] keeps the triangle at `positions` whole: every vertex's w finite
/// and at least [`W_EPSILON`] (checked first, so that the common case allocates nothing).
#[inline]
pub fn in_front(positions: &[[f32; 4]; 3]) -> bool {
    positions
        .iter()
        .all(|p| p[3].is_finite() && p[3] - W_EPSILON >= 0.0)
}

/// Clip a triangle given by its clip-space positions against `w > W_EPSILON`. Each returned
/// triangle lists its vertices as barycentric weights over `positions` (each weight triple sums
/// to 1). A triangle wholly in front is returned unchanged (the identity weights), one wholly
/// behind gives nothing. Non-finite w counts as outside.
pub fn clip_triangle(positions: [[f32; 4]; 3]) -> Vec<[[f32; 3]; 3]> {
    if in_front(&positions) {
        return vec![IDENTITY];
    }
    let w = positions.map(|p| {
        if p[3].is_finite() {
            p[3] - W_EPSILON
        } else {
            -1.0
        }
    });
    clip_by_distances(&[w])
}

/// Clip a triangle against planes given as the signed distance of each of its three vertices
/// (inside where the distance is `>= 0`; NaN counts as outside). Returns the kept pieces as
/// barycentric weights over the three vertices, winding kept.
pub fn clip_by_distances(planes: &[[f32; 3]]) -> Vec<[[f32; 3]; 3]> {
    let inside = |d: f32| d >= 0.0;
    if planes.iter().all(|p| p.iter().all(|&d| inside(d))) {
        return vec![IDENTITY];
    }
    if planes.iter().any(|p| p.iter().all(|&d| !inside(d))) {
        return Vec::new();
    }
    // Polygon vertices as weights (f64); distances are linear in the weights.
    let mut poly: Vec<[f64; 3]> = IDENTITY.map(|w| w.map(f64::from)).to_vec();
    for plane in planes {
        let p = plane.map(|d| if d.is_nan() { -1.0 } else { f64::from(d) });
        let dist = |w: &[f64; 3]| w[0] * p[0] + w[1] * p[1] + w[2] * p[2];
        let mut next = Vec::with_capacity(poly.len() + 1);
        for (i, a) in poly.iter().enumerate() {
            let b = &poly[(i + 1) % poly.len()];
            let (da, db) = (dist(a), dist(b));
            if da >= 0.0 {
                next.push(*a);
            }
            if (da >= 0.0) != (db >= 0.0) {
                let t = da / (da - db);
                next.push([0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * t));
            }
        }
        poly = next;
        if poly.len() < 3 {
            return Vec::new();
        }
    }
    let as_f32 = |w: &[f64; 3]| w.map(|c| c as f32);
    (1..poly.len() - 1)
        .map(|k| [as_f32(&poly[0]), as_f32(&poly[k]), as_f32(&poly[k + 1])])
        .collect()
}
