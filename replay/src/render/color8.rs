//! The 8-bit colour write rule: how a float fragment colour becomes a byte of an 8-bit colour
//! surface (and of `shade`'s 8-bit image). One definition for the CPU render's ROP, `shade`,
//! and (as [`WGSL`]) the GPU render's fragment epilogue. It applies to the fragment's colour
//! before blending, as in RPCS3; a blended result is stored by the surface encoder's plain
//! rounding (what RPCS3's host blender and unorm target do, and what the GPU render's device
//! does), and a quantised colour (byte / 255) is stored as its byte either way.
//!
//! Rule (fitted to PS3 hardware images; measured in `replay/tests/hardware_images.rs`): NaN → 0
//! and clamp to [0, 1] (a fixed-point target clamps, GL 2.1 section 4.1.8), truncate to a
//! 12-bit fixed-point fraction n = floor(x · 4096), then round that to 8 bits:
//! (n · 255 + 2048) >> 12. The evidence is ps3autotests `rsx_fp_static_test1`, whose program
//! writes its interpolated TEX0 (`COL0 = (0, tex.y, tex.x, 1)`), so that its image samples the
//! conversion at 720 + 480 known values: this rule gives 719 of 720 columns and 480 of 480 rows,
//! RPCS3's rule (rsx-microcode.md B.9 "ROP 8-bit output rounding", from RPCS3
//! `RSXFragmentPrologue.glsl`: clear the low 12 mantissa bits of the f32, then
//! floor(x · 255 + 0.5); [`unorm8_rpcs3`]) 710 and 473, and the same fixed-point truncation at
//! 11 or 13 bits, or with 4095 or 4097 steps, 697–712 columns. On the other seen images the
//! exact-pixel agreement rises from 99.00% to 99.96% (test2) and 96.64% to 99.68% (test5).
//!
//! The arithmetic is exact in f32: x · 4096 only shifts the exponent, and n · 255 + 2048 is
//! below 2^24, so a device computing it in f32 ([`WGSL`]) gives the same byte.

use crate::render::state::ColorFormat;

/// The byte an 8-bit surface stores for the float channel `v`.
pub fn unorm8(v: f32) -> u8 {
    if v.is_nan() {
        return 0;
    }
    let fixed = (v.clamp(0.0, 1.0) * 4096.0).floor() as u32;
    ((fixed * 255 + 2048) >> 12) as u8
}

/// RPCS3's 8-bit rule (`RSXFragmentPrologue.glsl`): NaN → 0, clamp to [0, 1], clear the low 12
/// mantissa bits of the f32, floor(x · 255 + 0.5). Kept to compare against (the hardware
/// images agree with [`unorm8`] more often; see the module doc).
pub fn unorm8_rpcs3(v: f32) -> u8 {
    if v.is_nan() {
        return 0;
    }
    let truncated = f32::from_bits(v.clamp(0.0, 1.0).to_bits() & 0xFFFF_F000);
    (truncated * 255.0 + 0.5).floor() as u8
}

/// `v` quantised by [`unorm8`], as the float the fragment epilogue passes on (byte / 255).
pub fn quantise(v: f32) -> f32 {
    f32::from(unorm8(v)) / 255.0
}

/// Whether the rule applies to a target of `format`: every fixed-point format. RPCS3 sets
/// `RSX_SHADER_CONTROL_8BIT_FRAMEBUFFER` for every surface format but the three float ones
/// (`RSXThread.cpp`), so an R5G6B5 or X1R5G5B5 target's channel is first rounded to 8 bits by
/// the rule, then converted from that byte to 5 or 6 bits by the surface encoder (as the GPU
/// render's 8-bit device target does).
pub fn applies_to(format: ColorFormat) -> bool {
    !format.is_float()
}

/// The sRGB encoding of a linear colour channel as RPCS3 writes it to an sRGB framebuffer
/// (`RSXFragmentPrologue.glsl` `linear_to_srgb`): 12.92·x below 0.0031308, else
/// 1.055·x^(1/2.4) − 0.055, clamped to [0, 1] (NaN stays NaN for the write rule to zero).
pub fn linear_to_srgb(x: f32) -> f32 {
    let v = if x < 0.003_130_8 {
        x * 12.92
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    };
    if v.is_nan() {
        v
    } else {
        v.clamp(0.0, 1.0)
    }
}

/// `rsx_srgb`: [`linear_to_srgb`] on R, G and B of a `vec4<f32>` in WGSL.
pub const SRGB_WGSL: &str = r#"
// sRGB framebuffer encoding (replay/src/render/color8.rs linear_to_srgb, RPCS3's rule).
fn rsx_srgb(v: vec4<f32>) -> vec4<f32> {
    let c = v.rgb;
    let low = c * 12.92;
    let high = 1.055 * pow(max(c, vec3<f32>(0.0)), vec3<f32>(1.0 / 2.4)) - vec3<f32>(0.055);
    return vec4<f32>(clamp(select(high, low, c < vec3<f32>(0.0031308)), vec3<f32>(0.0), vec3<f32>(1.0)), v.a);
}
"#;

/// `rsx_unorm8`: [`quantise`] on a `vec4<f32>` in WGSL, for the GPU render's colour outputs
/// into 8-bit targets (the device's unorm conversion of byte / 255 gives the byte back).
pub const WGSL: &str = r#"
// The 8-bit colour write rule (replay/src/render/color8.rs, fitted to PS3 images): NaN -> 0,
// clamp to [0, 1], n = floor(x * 4096), byte = (n * 255 + 2048) >> 12, / 255 (exact in f32).
fn rsx_unorm8(v: vec4<f32>) -> vec4<f32> {
    let nan = (bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u);
    let c = select(clamp(v, vec4<f32>(0.0), vec4<f32>(1.0)), vec4<f32>(0.0), nan);
    let n = floor(c * 4096.0);
    return floor((n * 255.0 + vec4<f32>(2048.0)) / 4096.0) / 255.0;
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_on_worked_values() {
        assert_eq!(unorm8(0.5), 128);
        assert_eq!(unorm8(1.0), 255);
        assert_eq!(unorm8(2.0), 255);
        assert_eq!(unorm8(-1.0), 0);
        assert_eq!(unorm8(f32::NAN), 0);
        // rsx_fp_static_test1's TEX0.x at columns 1, 32 and 49 of its 720: (x + 0.5) / 720
        // times 255 is 0.531, 11.510, 17.531; the PS3 stored 0, 11, 17 where plain rounding and
        // RPCS3's rule give 1, 12, 18 (floor(x · 4096) = 8, 184, 281).
        for (column, hardware) in [(1u32, 0u8), (32, 11), (49, 17)] {
            let tex = (column as f32 + 0.5) / 720.0;
            assert_eq!(unorm8(tex), hardware, "column {column}");
            assert_eq!(unorm8_rpcs3(tex), hardware + 1, "column {column}");
        }
        // Column 128 (45.509): the fixed-point value stays above the half step.
        assert_eq!(unorm8(128.5 / 720.0), 46);
    }

    #[test]
    fn the_device_arithmetic_gives_the_same_byte() {
        // rsx_unorm8's f32 steps, on a sweep of every 2^-20 in [0, 1] and around it.
        for i in -16..=(1 << 20) + 16 {
            let v = i as f32 / (1 << 20) as f32;
            let c = v.clamp(0.0, 1.0);
            let n = (c * 4096.0).floor();
            let byte = ((n * 255.0 + 2048.0) / 4096.0).floor();
            assert_eq!(byte, f32::from(unorm8(v)), "{v}");
        }
    }

    #[test]
    fn every_byte_over_255_reads_back_as_itself() {
        // Decoding a stored byte (b / 255) and writing it again must keep it: masked channels
        // and the GPU's unorm readback go through this.
        for b in 0..=255u8 {
            assert_eq!(unorm8(f32::from(b) / 255.0), b);
            assert_eq!(quantise(f32::from(b) / 255.0), f32::from(b) / 255.0);
        }
    }
}
