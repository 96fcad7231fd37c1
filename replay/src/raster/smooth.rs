//! Smooth (antialiased) lines and polygons: coverage as the area of each pixel square inside
//! the primitive.
//!
//! Rule (OpenGL 2.1 sections 3.4.2 "Antialiasing" for lines and 3.5.1/3.5.6 for polygons, with
//! section 3.11's coverage application; the RSX's `SET_LINE_SMOOTH_ENABLE` /
//! `SET_POLY_SMOOTH_ENABLE` are GL's `LINE_SMOOTH` / `POLYGON_SMOOTH`, which Mesa `nv30` maps
//! one to one):
//! - an antialiased line is the rectangle of the line's width centred on the segment, as long
//!   as the segment (no end caps); a polygon is its own area;
//! - every pixel whose square `[x, x+1] × [y, y+1]` meets the primitive with a non-zero area
//!   produces a fragment whose **coverage** is that area (0..1), computed exactly here by
//!   clipping the square against the primitive's edges;
//! - the fragment's interpolated values are those at the pixel centre (extrapolated when the
//!   centre lies outside; a line's parameter is clamped to the segment), and in RGBA mode the
//!   coverage multiplies the alpha of the colour outputs before the per-fragment operations
//!   (alpha test, blending): GL 3.11 "Antialiasing Application".
//!
//! The GL specification leaves the exact coverage to the implementation ("the coverage value
//! is computed ... as an area"); the exact area is the rule chosen, documented here.

use super::coverage::{line_weights, triangle_weights_at_position, Covered, PixelRect};
use super::window::WindowVertex;

/// The area of the unit pixel square at (`x`, `y`) inside the convex polygon `poly` (either
/// winding).
pub fn pixel_coverage(poly: &[(f64, f64)], x: f64, y: f64) -> f64 {
    let mut square = vec![(x, y), (x + 1.0, y), (x + 1.0, y + 1.0), (x, y + 1.0)];
    let n = poly.len();
    if n < 3 {
        return 0.0;
    }
    let orientation = signed_area(poly).signum();
    if orientation == 0.0 {
        return 0.0;
    }
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        // Inside: the side the polygon's interior is on.
        let side =
            |p: (f64, f64)| orientation * ((b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0));
        let mut next = Vec::with_capacity(square.len() + 2);
        for k in 0..square.len() {
            let (p, q) = (square[k], square[(k + 1) % square.len()]);
            let (sp, sq) = (side(p), side(q));
            if sp >= 0.0 {
                next.push(p);
            }
            if (sp >= 0.0) != (sq >= 0.0) {
                let t = sp / (sp - sq);
                next.push((p.0 + (q.0 - p.0) * t, p.1 + (q.1 - p.1) * t));
            }
        }
        square = next;
        if square.len() < 3 {
            return 0.0;
        }
    }
    signed_area(&square).abs().min(1.0)
}

fn signed_area(p: &[(f64, f64)]) -> f64 {
    let n = p.len();
    (0..n)
        .map(|i| {
            let (a, b) = (p[i], p[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum::<f64>()
        / 2.0
}

/// The pixels of `poly`'s bounding box inside `bounds`, each with its coverage when non-zero.
fn cover_polygon(poly: &[(f64, f64)], bounds: PixelRect, mut each: impl FnMut(u32, u32, f64)) {
    if bounds.is_empty() || poly.iter().any(|p| !(p.0.is_finite() && p.1.is_finite())) {
        return;
    }
    let minx = poly.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let maxx = poly.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let miny = poly.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let maxy = poly.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let x0 = minx.floor().max(f64::from(bounds.x0));
    let x1 = maxx.ceil().min(f64::from(bounds.x1));
    let y0 = miny.floor().max(f64::from(bounds.y0));
    let y1 = maxy.ceil().min(f64::from(bounds.y1));
    if !(x0 < x1 && y0 < y1) {
        return;
    }
    for y in y0 as u32..y1 as u32 {
        for x in x0 as u32..x1 as u32 {
            let c = pixel_coverage(poly, f64::from(x), f64::from(y));
            if c > 0.0 {
                each(x, y, c);
            }
        }
    }
}

/// Rasterize an antialiased triangle: every pixel it touches, with its coverage and the
/// interpolation at the pixel centre.
pub fn rasterize_smooth_triangle(
    v: [WindowVertex; 3],
    bounds: PixelRect,
    front_facing: bool,
    out: &mut Vec<Covered>,
) {
    let poly = v.map(|v| (f64::from(v.x), f64::from(v.y)));
    cover_polygon(&poly, bounds, |x, y, c| {
        let at = triangle_weights_at_position(&v, f64::from(x) + 0.5, f64::from(y) + 0.5);
        if let Some((weights, z, inv_w)) = at {
            out.push(Covered {
                x,
                y,
                weights,
                z,
                inv_w,
                front_facing,
                coverage: c as f32,
            });
        }
    });
}

/// Rasterize an antialiased line of `width` (at least 1): the rectangle of that width centred
/// on the segment.
pub fn rasterize_smooth_line(
    v: [WindowVertex; 2],
    width: f32,
    bounds: PixelRect,
    out: &mut Vec<Covered>,
) {
    let (ax, ay) = (f64::from(v[0].x), f64::from(v[0].y));
    let (dx, dy) = (f64::from(v[1].x) - ax, f64::from(v[1].y) - ay);
    let len2 = dx * dx + dy * dy;
    if !len2.is_finite() || len2 == 0.0 {
        return;
    }
    let half = f64::from(if width.is_finite() {
        width.max(1.0)
    } else {
        1.0
    }) / 2.0;
    let len = len2.sqrt();
    // The unit normal times half the width.
    let (nx, ny) = (-dy / len * half, dx / len * half);
    let (bx, by) = (ax + dx, ay + dy);
    let poly = [
        (ax + nx, ay + ny),
        (bx + nx, by + ny),
        (bx - nx, by - ny),
        (ax - nx, ay - ny),
    ];
    cover_polygon(&poly, bounds, |x, y, c| {
        let (cx, cy) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        let t = (((cx - ax) * dx + (cy - ay) * dy) / len2).clamp(0.0, 1.0);
        let (weights, z, inv_w) = line_weights(v, t);
        out.push(Covered {
            x,
            y,
            weights,
            z,
            inv_w,
            front_facing: true,
            coverage: c as f32,
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wv(x: f32, y: f32) -> WindowVertex {
        WindowVertex {
            x,
            y,
            z: 0.0,
            inv_w: 1.0,
        }
    }

    #[test]
    fn coverage_is_the_area_inside() {
        let square = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)];
        assert_eq!(pixel_coverage(&square, 3.0, 3.0), 1.0);
        assert_eq!(pixel_coverage(&square, 12.0, 3.0), 0.0);
        // The diagonal x = y halves the pixels it crosses.
        let tri = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)];
        assert!((pixel_coverage(&tri, 4.0, 4.0) - 0.5).abs() < 1e-12);
        // Reversed winding gives the same areas.
        let rev = [(10.0, 10.0), (10.0, 0.0), (0.0, 0.0)];
        assert!((pixel_coverage(&rev, 4.0, 4.0) - 0.5).abs() < 1e-12);
        assert_eq!(pixel_coverage(&rev, 5.0, 2.0), 1.0);
    }

    #[test]
    fn a_smooth_horizontal_line_straddling_rows_covers_half_of_each() {
        // Width 1 centred on y = 10: the band 9.5..10.5 covers half of row 9 (9..10) and half
        // of row 10 (10..11).
        let mut out = Vec::new();
        let bounds = PixelRect::from_origin_size(0, 0, 64, 64);
        rasterize_smooth_line([wv(2.0, 10.0), wv(12.0, 10.0)], 1.0, bounds, &mut out);
        assert_eq!(out.len(), 20);
        assert!(out
            .iter()
            .all(|c| (c.coverage - 0.5).abs() < 1e-6 && (c.y == 9 || c.y == 10)));
        // On a pixel row's centre it covers one row fully.
        out.clear();
        rasterize_smooth_line([wv(2.0, 10.5), wv(12.0, 10.5)], 1.0, bounds, &mut out);
        assert_eq!(out.len(), 10);
        assert!(out.iter().all(|c| c.coverage == 1.0 && c.y == 10));
        // The total coverage is the rectangle's area.
        out.clear();
        rasterize_smooth_line([wv(2.3, 4.1), wv(20.7, 15.2)], 3.0, bounds, &mut out);
        let area: f32 = out.iter().map(|c| c.coverage).sum();
        let len = ((20.7f32 - 2.3).powi(2) + (15.2f32 - 4.1).powi(2)).sqrt();
        assert!((area - 3.0 * len).abs() < 1e-3, "{area} vs {}", 3.0 * len);
    }

    #[test]
    fn a_smooth_triangle_covers_its_area() {
        let mut out = Vec::new();
        let bounds = PixelRect::from_origin_size(0, 0, 64, 64);
        let v = [wv(1.25, 2.5), wv(30.5, 7.75), wv(9.0, 40.0)];
        rasterize_smooth_triangle(v, bounds, true, &mut out);
        let area: f64 = out.iter().map(|c| f64::from(c.coverage)).sum();
        let expected = ((30.5 - 1.25) * (40.0 - 2.5) - (9.0 - 1.25) * (7.75 - 2.5)) / 2.0f64;
        assert!((area - expected.abs()).abs() < 1e-3, "{area} vs {expected}");
    }
}
