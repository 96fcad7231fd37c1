//! The texture coordinates the RSX interpolates across a full-screen quad whose TEX0 runs from
//! (0, 1) at the top left to (1, 0) at the bottom right, as the ps3autotests `rsx_fp_*` tests
//! draw it: what `shade` (the interpreter's and the device's) feeds each pixel.
//!
//! The rule, fitted to the PS3 images of the corpus (docs/arithmetic.md, "Texture coordinates
//! of the full-screen quad"): the gradient is the reciprocal of the size truncated to f32,
//! the coordinate at the pixel centre `p = x + 0.5` is computed whole and truncated to f32
//! (rounded toward zero), like the RSX's other conversions (fp32 to fp16, the 8-bit write):
//!
//! - `u = RZ(p_x · RZ(1 / width))`
//! - `v = RZ(1 − p_y · RZ(1 / height))`
//!
//! The coordinates are within 2^-22 of the exact ones (u at or below them; v, one minus a
//! product that is a hair low, can be a hair above them before its truncation).
//!
//! Against the exact `(x + 0.5) / width` rounded to nearest, this takes the pixels that equal
//! the PS3's from 99.86% to 100% on `rsx_fp_static_test1` (an identity of TEX0: its column
//! 337, where the exact u is 0.46875, shows the hardware one step below), 99.956% to 99.974% on
//! test2 and 99.682% to 99.785% on test5; each part alone does worse.

/// `v` rounded toward zero to f32 (`v` finite and within f32's range).
fn toward_zero(v: f64) -> f32 {
    let f = v as f32;
    if f64::from(f).abs() > v.abs() {
        f32::from_bits(f.to_bits() - 1)
    } else {
        f
    }
}

/// TEX0's (u, v) at the centre of pixel (`x`, `y`) (row 0 at the top) of a `width` ×
/// `height` full-screen quad, by the module's rule. Sizes are at least 1.
pub fn full_screen_texcoord(x: u32, y: u32, width: u32, height: u32) -> [f32; 2] {
    // p · g is exact in f64 (p has 1 fractional bit and at most 33 bits, g 24), and so is
    // 1 − p · g for p · g ≤ 1: the one rounding is the final one.
    let step = |size: u32| f64::from(toward_zero(1.0 / f64::from(size.max(1))));
    let px = f64::from(x) + 0.5;
    let py = f64::from(y) + 0.5;
    [
        toward_zero(px * step(width)),
        toward_zero(1.0 - py * step(height)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_337_of_720_is_one_step_below_its_exact_value() {
        // (337 + 0.5) / 720 = 0.46875 exactly; the PS3 image of test1 shows the step below.
        let [u, _] = full_screen_texcoord(337, 0, 720, 480);
        assert_eq!(u, f32::from_bits(0.46875f32.to_bits() - 1));
    }

    #[test]
    fn coordinates_are_within_2_to_the_minus_22_of_the_exact_ones_u_at_or_below() {
        for (w, h) in [(720, 480), (1280, 720), (64, 64), (1, 1)] {
            for (x, y) in [(0, 0), (w - 1, h - 1), (w / 3, h / 7), (w / 2, h / 2)] {
                let [u, v] = full_screen_texcoord(x, y, w, h);
                let exact_u = (f64::from(x) + 0.5) / f64::from(w);
                let exact_v = 1.0 - (f64::from(y) + 0.5) / f64::from(h);
                // u: a product below the exact one, truncated. v: one minus such a product,
                // so a hair above the exact one before the truncation (near v = 0 that hair is
                // many steps of f32: the error is absolute, about p · 2^-24 / size).
                assert!(
                    f64::from(u) <= exact_u,
                    "{w}x{h} ({x}, {y}): {u} > {exact_u}"
                );
                for (got, exact) in [(u, exact_u), (v, exact_v)] {
                    let off = (exact - f64::from(got)).abs();
                    assert!(off <= 2f64.powi(-22), "{w}x{h} ({x}, {y}): {got} {exact}");
                }
            }
        }
    }

    #[test]
    fn worked_example() {
        // RZ(1/720) = 0x3AB60B60 (0.0013888889..., below 1/720); 0.5 times it is exact.
        assert_eq!(toward_zero(1.0 / 720.0).to_bits(), 0x3AB6_0B60);
        let [u, _] = full_screen_texcoord(0, 0, 720, 480);
        assert_eq!(u, f32::from_bits(0x3AB6_0B60) * 0.5);
    }
}
