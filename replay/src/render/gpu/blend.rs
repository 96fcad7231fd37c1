//! Blending in the render wrapper, for what the device cannot blend as the model does
//! (`pipeline::shader_blend`): RGB factors mixing CONSTANT_COLOR and CONSTANT_ALPHA (wgpu has
//! one blend constant and no constant-alpha factor), or a 32-bit float surface on a device
//! without `FLOAT32_BLENDABLE`. The wrapper reads the target as it was before the draw (a copy
//! the device makes, `rsxtrace_gpu::RasterPipelineDesc::colors_before`) and computes
//! `BlendSettings::blend`, the CPU render's rule, in WGSL ([`wgsl`]); the device's own
//! blending is off for those targets.

use std::fmt::Write as _;

use super::shader::lit;
use crate::render::state::{BlendEquation, BlendFactor, BlendSettings};

/// The factor `f` for the RGB channels, as a `vec3<f32>` expression of `s`, `d` (source and
/// destination colours) and `k` (the blend constant).
fn rgb_factor(f: BlendFactor) -> &'static str {
    match f {
        BlendFactor::Zero => "vec3<f32>(0.0)",
        BlendFactor::One => "vec3<f32>(1.0)",
        BlendFactor::SrcColor => "s.rgb",
        BlendFactor::OneMinusSrcColor => "vec3<f32>(1.0) - s.rgb",
        BlendFactor::SrcAlpha => "vec3<f32>(s.a)",
        BlendFactor::OneMinusSrcAlpha => "vec3<f32>(1.0 - s.a)",
        BlendFactor::DstAlpha => "vec3<f32>(d.a)",
        BlendFactor::OneMinusDstAlpha => "vec3<f32>(1.0 - d.a)",
        BlendFactor::DstColor => "d.rgb",
        BlendFactor::OneMinusDstColor => "vec3<f32>(1.0) - d.rgb",
        BlendFactor::SrcAlphaSaturate => "vec3<f32>(min(s.a, 1.0 - d.a))",
        BlendFactor::ConstantColor => "k.rgb",
        BlendFactor::OneMinusConstantColor => "vec3<f32>(1.0) - k.rgb",
        BlendFactor::ConstantAlpha => "vec3<f32>(k.a)",
        BlendFactor::OneMinusConstantAlpha => "vec3<f32>(1.0 - k.a)",
    }
}

/// The factor `f` for alpha, as an `f32` expression (`BlendFactor::factor` at channel 3).
fn alpha_factor(f: BlendFactor) -> &'static str {
    match f {
        BlendFactor::Zero => "0.0",
        BlendFactor::One | BlendFactor::SrcAlphaSaturate => "1.0",
        BlendFactor::SrcColor | BlendFactor::SrcAlpha => "s.a",
        BlendFactor::OneMinusSrcColor | BlendFactor::OneMinusSrcAlpha => "1.0 - s.a",
        BlendFactor::DstAlpha | BlendFactor::DstColor => "d.a",
        BlendFactor::OneMinusDstAlpha | BlendFactor::OneMinusDstColor => "1.0 - d.a",
        BlendFactor::ConstantColor | BlendFactor::ConstantAlpha => "k.a",
        BlendFactor::OneMinusConstantColor | BlendFactor::OneMinusConstantAlpha => "1.0 - k.a",
    }
}

/// `e` combining source `x` and destination `y` with factors `fx`, `fy`
/// (`BlendEquation::combine`: the signed variants as their unsigned ones).
fn combine(e: BlendEquation, x: &str, fx: &str, y: &str, fy: &str) -> String {
    match e {
        BlendEquation::Add | BlendEquation::AddSigned | BlendEquation::ReverseAddSigned => {
            format!("{x} * ({fx}) + {y} * ({fy})")
        }
        BlendEquation::Subtract => format!("{x} * ({fx}) - {y} * ({fy})"),
        BlendEquation::ReverseSubtract | BlendEquation::ReverseSubtractSigned => {
            format!("{y} * ({fy}) - {x} * ({fx})")
        }
        BlendEquation::Min => format!("min({x}, {y})"),
        BlendEquation::Max => format!("max({x}, {y})"),
    }
}

/// `fn rsx_blend(s: vec4<f32>, d: vec4<f32>) -> vec4<f32>`: `b.blend(s, d)` in WGSL.
pub(crate) fn wgsl(b: &BlendSettings) -> String {
    let [kr, kg, kb, ka] = b.constant;
    let mut s = String::from("\nfn rsx_blend(s: vec4<f32>, d: vec4<f32>) -> vec4<f32> {\n");
    let _ = writeln!(
        s,
        "    let k = vec4<f32>({}, {}, {}, {});",
        lit(kr),
        lit(kg),
        lit(kb),
        lit(ka)
    );
    let _ = writeln!(
        s,
        "    let rgb = {};",
        combine(
            b.equation_rgb,
            "s.rgb",
            rgb_factor(b.src_rgb),
            "d.rgb",
            rgb_factor(b.dst_rgb)
        )
    );
    let _ = writeln!(
        s,
        "    let a = {};",
        combine(
            b.equation_alpha,
            "s.a",
            alpha_factor(b.src_alpha),
            "d.a",
            alpha_factor(b.dst_alpha)
        )
    );
    s.push_str("    return vec4<f32>(rgb, a);\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blend_is_the_models_rule_in_wgsl() {
        let b = BlendSettings {
            enabled: [true, false, false, false],
            src_rgb: BlendFactor::ConstantColor,
            src_alpha: BlendFactor::One,
            dst_rgb: BlendFactor::OneMinusConstantAlpha,
            dst_alpha: BlendFactor::Zero,
            equation_rgb: BlendEquation::ReverseSubtract,
            equation_alpha: BlendEquation::Max,
            constant: [0.25, 0.5, 0.75, 0.125],
        };
        let w = wgsl(&b);
        for needle in [
            "let k = vec4<f32>(0.25f, 0.5f, 0.75f, 0.125f);",
            "let rgb = d.rgb * (vec3<f32>(1.0 - k.a)) - s.rgb * (k.rgb);",
            "let a = max(s.a, d.a);",
        ] {
            assert!(w.contains(needle), "missing {needle:?} in\n{w}");
        }
        // Every factor has an expression of its kind on both sides.
        for f in [
            BlendFactor::Zero,
            BlendFactor::SrcAlphaSaturate,
            BlendFactor::OneMinusDstColor,
        ] {
            assert!(rgb_factor(f).starts_with("vec3") || rgb_factor(f).contains(".rgb"));
            assert!(!alpha_factor(f).contains("rgb"));
        }
    }
}
