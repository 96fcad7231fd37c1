//! The 8-bit colour write rule: how a float fragment colour becomes a byte of an 8-bit colour
//! surface (and of `shade`'s 8-bit image). One definition for the CPU render's ROP, `shade`,
//! and (as [`WGSL`]) the GPU render's fragment epilogue. It applies to the fragment's colour
//! before blending, as in RPCS3; a blended result is stored by the surface encoder's plain
//! rounding (what RPCS3's host blender and unorm target do, and what the GPU render's device
//! does), and a quantised colour (byte / 255) is stored as its byte either way.
//!
//! Rule (rsx-microcode.md B.9 "ROP 8-bit output rounding", from RPCS3
//! `GLSLSnippets/RSXProg/RSXFragmentPrologue.glsl`, which applies it in the shader epilogue
//! when the framebuffer is 8-bit): NaN → 0 and clamp to [0, 1] (a fixed-point target clamps,
//! GL 2.1 section 4.1.8), clear the low 12 mantissa bits of the f32 value, then
//! floor(x · 255 + 0.5). With fp16 truncation this rule raises exact-pixel agreement with the
//! ps3autotests hardware images (B.9; measured in `replay/tests/hardware_images.rs`).
//!
//! The arithmetic is exact in f32: the truncated value has at most 12 significant bits, so
//! x · 255 is exact and adding 0.5 rounds only where the sum stays below 1; a fused or unfused
//! device gives the same byte.

use crate::render::state::ColorFormat;

/// The byte an 8-bit surface stores for the float channel `v`.
pub fn unorm8(v: f32) -> u8 {
    if v.is_nan() {
        return 0;
    }
    let clamped = v.clamp(0.0, 1.0);
    let truncated = f32::from_bits(clamped.to_bits() & 0xFFFF_F000);
    (truncated * 255.0 + 0.5).floor() as u8
}

/// `v` quantised by [`unorm8`], as the float the fragment epilogue passes on (byte / 255).
pub fn quantise(v: f32) -> f32 {
    f32::from(unorm8(v)) / 255.0
}

/// Whether `format` stores 8-bit colour channels (the rule applies); the 5/6-bit and float
/// formats are not covered by it.
pub fn is_8bit(format: ColorFormat) -> bool {
    matches!(
        format,
        ColorFormat::X8R8G8B8Z8R8G8B8
            | ColorFormat::X8R8G8B8O8R8G8B8
            | ColorFormat::A8R8G8B8
            | ColorFormat::B8
            | ColorFormat::G8B8
            | ColorFormat::X8B8G8R8Z8B8G8R8
            | ColorFormat::X8B8G8R8O8B8G8R8
            | ColorFormat::A8B8G8R8
    )
}

/// `rsx_unorm8`: [`quantise`] on a `vec4<f32>` in WGSL, for the GPU render's colour outputs
/// into 8-bit targets (the device's unorm conversion of byte / 255 gives the byte back).
pub const WGSL: &str = r#"
// The 8-bit colour write rule (replay/src/render/color8.rs; RPCS3 RSXFragmentPrologue.glsl):
// NaN -> 0, clamp to [0, 1], clear the low 12 mantissa bits, floor(x * 255 + 0.5), / 255.
fn rsx_unorm8(v: vec4<f32>) -> vec4<f32> {
    let nan = (bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u);
    let c = select(clamp(v, vec4<f32>(0.0), vec4<f32>(1.0)), vec4<f32>(0.0), nan);
    let t = bitcast<vec4<f32>>(bitcast<vec4<u32>>(c) & vec4<u32>(0xfffff000u));
    return floor(t * 255.0 + vec4<f32>(0.5)) / 255.0;
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_on_worked_values() {
        // 0.5 · 255 = 127.5: floor(128.0) = 128 (plain rounding agrees here).
        assert_eq!(unorm8(0.5), 128);
        assert_eq!(unorm8(1.0), 255);
        assert_eq!(unorm8(2.0), 255);
        assert_eq!(unorm8(-1.0), 0);
        assert_eq!(unorm8(f32::NAN), 0);
        // 0.5 / 255 · (1 + 2^-20) would round to 1 without the truncation; its f32 value has
        // mantissa bits below the 12 kept ones, and clearing them puts it below 0.5 / 255.
        let just_above_half_step = f32::from_bits((0.5f32 / 255.0).to_bits() + 8);
        assert!(f64::from(just_above_half_step) * 255.0 > 0.5);
        assert_eq!((f64::from(just_above_half_step) * 255.0).round(), 1.0);
        let kept = f32::from_bits(just_above_half_step.to_bits() & 0xFFFF_F000);
        assert!(f64::from(kept) * 255.0 < 0.5);
        assert_eq!(unorm8(just_above_half_step), 0);
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
