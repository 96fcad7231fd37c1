//! Line and polygon stipple: which covered pixels a stipple pattern keeps.
//!
//! Rules (OpenGL 2.1, which the RSX's NV4097 class follows; register layouts in
//! `rsxtrace_capture::frame::state::primitive_raster`):
//! - **Line stipple** (GL 2.1 section 3.4.2): a counter `s` counts the fragments along the
//!   line's major axis; a fragment is kept when bit `(s / repeat) mod 16` of the 16-bit pattern
//!   is set. Every fragment of a wide line's column (across the minor axis) shares the column's
//!   `s`. Here `s = start + ⌊|c − a|⌋` with `c` the pixel centre and `a` the line's first
//!   window vertex, both along the major axis: the first pixel centre at or past `a` is
//!   fragment 0. `start` is 0 for each independent line; a line strip, a line loop and the
//!   boundary edges of a polygon drawn in LINE mode do not reset the counter between their
//!   segments (GL 3.4.2 and `glPolygonMode`: "connected line segments for line stippling"), so
//!   each segment starts where the previous one stopped: `start += ⌊|b − a|⌋` along the major
//!   axis (the fragment count GL's diamond-exit rule gives a segment).
//! - **Polygon stipple** (GL 2.1 section 3.5.6): a filled polygon's fragment at window
//!   (`x`, `y`) is kept when bit `31 − (x mod 32)` of pattern row `y mod 32` is set, `y` counted
//!   as WPOS counts rows (`SET_SHADER_WINDOW` origin: from the bottom row up for origin bottom,
//!   as GL's window coordinates count, from the top row down for origin top).

use super::coverage::Covered;
use super::window::WindowVertex;
use rsxtrace_capture::frame::state::{LineStipple, PolygonStipple, ShaderWindow};

/// The line's major axis: true when it is x (|dx| >= |dy|, the same choice as the wide-line
/// offset of [`super::rasterize_line`]).
fn x_major(a: &WindowVertex, b: &WindowVertex) -> bool {
    (b.x - a.x).abs() >= (b.y - a.y).abs()
}

/// The stipple counter of the fragment at pixel (`x`, `y`) on the line `a`→`b` that starts
/// at counter `start`.
pub fn line_stipple_counter(a: &WindowVertex, b: &WindowVertex, start: u32, x: u32, y: u32) -> u32 {
    let along = if x_major(a, b) {
        (f64::from(x) + 0.5 - f64::from(a.x)).abs()
    } else {
        (f64::from(y) + 0.5 - f64::from(a.y)).abs()
    };
    let step = if along.is_finite() {
        along.floor().min(f64::from(u32::MAX)) as u32
    } else {
        0
    };
    start.wrapping_add(step)
}

/// The counter the segment after `a`→`b` starts at, when the counter is not reset.
pub fn line_stipple_next(a: &WindowVertex, b: &WindowVertex, start: u32) -> u32 {
    let len = if x_major(a, b) {
        f64::from(b.x - a.x).abs()
    } else {
        f64::from(b.y - a.y).abs()
    };
    let n = if len.is_finite() {
        len.floor().min(f64::from(u32::MAX)) as u32
    } else {
        0
    };
    start.wrapping_add(n)
}

/// Whether the pattern keeps the fragment with counter `s`.
pub fn line_stipple_keeps(stipple: &LineStipple, s: u32) -> bool {
    let bit = (s / u32::from(stipple.repeat.max(1))) % 16;
    stipple.pattern & (1 << bit) != 0
}

/// Keep the pixels of the line `a`→`b` (counter `start`) the pattern keeps.
pub fn retain_line_stipple(
    covered: &mut Vec<Covered>,
    stipple: &LineStipple,
    a: &WindowVertex,
    b: &WindowVertex,
    start: u32,
) {
    covered.retain(|c| line_stipple_keeps(stipple, line_stipple_counter(a, b, start, c.x, c.y)));
}

/// The stipple row of surface row `row` under the shader window (WPOS's row count).
pub fn polygon_stipple_row(row: u32, window: &ShaderWindow) -> u32 {
    if window.origin == 1 {
        u32::from(window.height).wrapping_sub(1).wrapping_sub(row)
    } else {
        row
    }
}

/// Whether the polygon stipple keeps window pixel (`x`, `row`).
pub fn polygon_stipple_keeps(
    stipple: &PolygonStipple,
    window: &ShaderWindow,
    x: u32,
    row: u32,
) -> bool {
    stipple.keeps(x, polygon_stipple_row(row, window))
}

/// Keep the pixels of a filled polygon the pattern keeps.
/// Positions are on the sample grid `(gx, gy)` of a multisampled surface ((1, 1) otherwise);
/// the pattern counts pixels.
pub fn retain_polygon_stipple(
    covered: &mut Vec<Covered>,
    stipple: &PolygonStipple,
    window: &ShaderWindow,
    (gx, gy): (u32, u32),
) {
    let (gx, gy) = (gx.max(1), gy.max(1));
    covered.retain(|c| polygon_stipple_keeps(stipple, window, c.x / gx, c.y / gy));
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
    fn counter_counts_pixel_centres_along_the_major_axis() {
        let (a, b) = (wv(10.0, 4.0), wv(30.0, 9.0));
        // Centres 10.5, 11.5, ... are fragments 0, 1, ...
        assert_eq!(line_stipple_counter(&a, &b, 0, 10, 4), 0);
        assert_eq!(line_stipple_counter(&a, &b, 0, 19, 7), 9);
        assert_eq!(line_stipple_counter(&a, &b, 5, 19, 7), 14);
        // Leftwards and y-major lines count the same way.
        let (c, d) = (wv(10.0, 0.0), wv(2.0, 1.0));
        assert_eq!(line_stipple_counter(&c, &d, 0, 9, 0), 0);
        assert_eq!(line_stipple_counter(&c, &d, 0, 5, 0), 4);
        let (e, f) = (wv(3.0, 2.0), wv(4.0, 12.0));
        assert_eq!(line_stipple_counter(&e, &f, 0, 3, 7), 5);
        assert_eq!(line_stipple_next(&a, &b, 3), 23);
        assert_eq!(line_stipple_next(&e, &f, 0), 10);
    }

    #[test]
    fn pattern_bits_repeat() {
        let s = LineStipple {
            enabled: true,
            pattern: 0b1010_0000_0000_0011,
            repeat: 2,
        };
        let kept: Vec<bool> = (0..8).map(|n| line_stipple_keeps(&s, n)).collect();
        assert_eq!(kept, [true, true, true, true, false, false, false, false]);
        // Bits 13 and 15 (counters 26..=27 and 30..=31), then the pattern wraps at 32.
        assert!(line_stipple_keeps(&s, 26) && !line_stipple_keeps(&s, 28));
        assert!(line_stipple_keeps(&s, 31) && line_stipple_keeps(&s, 32));
    }

    #[test]
    fn polygon_rows_follow_the_window_origin() {
        let mut pattern = [0u32; 32];
        pattern[0] = 0x8000_0000; // row 0, column 0
        let stipple = PolygonStipple {
            enabled: true,
            pattern,
        };
        let top = ShaderWindow {
            height: 100,
            origin: 0,
            pixel_center: 0,
        };
        let bottom = ShaderWindow { origin: 1, ..top };
        assert!(polygon_stipple_keeps(&stipple, &top, 0, 0));
        assert!(polygon_stipple_keeps(&stipple, &top, 64, 32));
        assert!(!polygon_stipple_keeps(&stipple, &top, 1, 0));
        // Origin bottom: row 99 is y 0, row 67 is y 32.
        assert!(polygon_stipple_keeps(&stipple, &bottom, 0, 99));
        assert!(polygon_stipple_keeps(&stipple, &bottom, 32, 67));
        assert!(!polygon_stipple_keeps(&stipple, &bottom, 0, 0));
    }
}
