//! A draw's decoded state ([`DrawState`]) as an `rsxtrace_gpu` raster pipeline and its dynamic
//! state, with what the device cannot do exactly reported as notes:
//!
//! - colour formats: the 5-, 6- and 8-bit formats render into `Rgba8Unorm` (blending at 8-bit
//!   precision; the surface's own precision is applied when the target is written back to
//!   memory), `F_W16Z16Y16X16` into `Rgba16Float`, `F_W32Z32Y32X32` and `F_X32` into
//!   `Rgba32Float`; formats without alpha keep alpha at 1 (their alpha writes are masked), so a
//!   `DST_ALPHA` factor reads 1 as it does from memory;
//! - depth: Z16 as `Depth16Unorm` (exact), Z24S8 as 32-bit float depth with 8-bit stencil
//!   (rounded to 24 bits when written back);
//! - blending: wgpu has one blend constant, so `CONSTANT_ALPHA` factors use the constant's
//!   alpha in all four channels; a draw that mixes `CONSTANT_COLOR` and `CONSTANT_ALPHA` in
//!   the colour factors, or blends into an `F_W32Z32Y32X32` or `F_X32` target on a device
//!   without `FLOAT32_BLENDABLE`, blends in the fragment wrapper instead, with the targets
//!   read as they were before the draw ([`shader_blend`], `blend.rs`); the signed equations
//!   are the unsigned ones, as in RPCS3 (`state::BlendEquation`);
//! - stencil: wgpu has one compare mask, one write mask and one reference for both faces, so
//!   a draw whose back faces' stencil state differs from the front's (two-sided stencil) has
//!   a pipeline per face, each giving both device faces its state, and its primitives are
//!   drawn in runs of one facing in their order (`geometry::Records::faces`,
//!   `rsxtrace_gpu::FaceRuns`): exact, and the facing is the reference render's, not the
//!   device's (which sees lines and points as triangles of any winding);
//! - polygon offset, the depth range and the alpha test are done in the fragment wrapper
//!   (`shader.rs`), not by the pipeline.

use rsxtrace_capture::frame::state::ColorMask;
use rsxtrace_gpu::{
    BlendComponentDesc, BlendDesc, BlendFactor as GpuFactor, BlendOperation, ColorTargetDesc,
    Compare, DepthBias, DepthFormat as GpuDepth, DepthStencilDesc, RasterPipelineDesc, StencilDesc,
    StencilFaceDesc, StencilOperation, TargetFormat, Topology, Winding,
};

use crate::render::state::{
    BlendEquation, BlendFactor, BlendSettings, ColorFormat, CompareFunc, DepthFormat, DrawState,
    StencilFaceState, StencilOp,
};

use super::shader::{FS_ENTRY, VS_ENTRY};

/// The device format a colour surface renders into.
pub(crate) fn target_format(format: ColorFormat) -> TargetFormat {
    match format {
        ColorFormat::FloatW16Z16Y16X16 => TargetFormat::Rgba16Float,
        ColorFormat::FloatW32Z32Y32X32 | ColorFormat::FloatX32 => TargetFormat::Rgba32Float,
        _ => TargetFormat::Rgba8Unorm,
    }
}

/// The device format of a depth surface.
pub(crate) fn depth_format(format: DepthFormat) -> GpuDepth {
    match format {
        DepthFormat::Z16 => GpuDepth::Depth16,
        // Float depth is kept in f32 (exactly: the wrapper rounds it to the format's grid);
        // Z16Float's stencil plane goes unused.
        DepthFormat::Z24S8 | DepthFormat::Z24S8Float | DepthFormat::Z16Float => {
            GpuDepth::Depth32Stencil8
        }
    }
}

/// The format stores alpha.
pub(crate) fn has_alpha(format: ColorFormat) -> bool {
    matches!(
        format,
        ColorFormat::A8R8G8B8
            | ColorFormat::A8B8G8R8
            | ColorFormat::FloatW16Z16Y16X16
            | ColorFormat::FloatW32Z32Y32X32
    )
}

/// The device comparison of an RSX one.
pub(crate) fn compare(f: CompareFunc) -> Compare {
    match f {
        CompareFunc::Never => Compare::Never,
        CompareFunc::Less => Compare::Less,
        CompareFunc::Equal => Compare::Equal,
        CompareFunc::LessEqual => Compare::LessEqual,
        CompareFunc::Greater => Compare::Greater,
        CompareFunc::NotEqual => Compare::NotEqual,
        CompareFunc::GreaterEqual => Compare::GreaterEqual,
        CompareFunc::Always => Compare::Always,
    }
}

fn stencil_op(op: StencilOp) -> StencilOperation {
    match op {
        StencilOp::Keep => StencilOperation::Keep,
        StencilOp::Zero => StencilOperation::Zero,
        StencilOp::Replace => StencilOperation::Replace,
        StencilOp::Increment => StencilOperation::IncrementClamp,
        StencilOp::Decrement => StencilOperation::DecrementClamp,
        StencilOp::Invert => StencilOperation::Invert,
        StencilOp::IncrementWrap => StencilOperation::IncrementWrap,
        StencilOp::DecrementWrap => StencilOperation::DecrementWrap,
    }
}

fn stencil_face(f: &StencilFaceState) -> StencilFaceDesc {
    StencilFaceDesc {
        compare: compare(f.func),
        fail: stencil_op(f.fail),
        depth_fail: stencil_op(f.zfail),
        pass: stencil_op(f.zpass),
    }
}

fn factor(f: BlendFactor) -> GpuFactor {
    match f {
        BlendFactor::Zero => GpuFactor::Zero,
        BlendFactor::One => GpuFactor::One,
        BlendFactor::SrcColor => GpuFactor::Src,
        BlendFactor::OneMinusSrcColor => GpuFactor::OneMinusSrc,
        BlendFactor::SrcAlpha => GpuFactor::SrcAlpha,
        BlendFactor::OneMinusSrcAlpha => GpuFactor::OneMinusSrcAlpha,
        BlendFactor::DstAlpha => GpuFactor::DstAlpha,
        BlendFactor::OneMinusDstAlpha => GpuFactor::OneMinusDstAlpha,
        BlendFactor::DstColor => GpuFactor::Dst,
        BlendFactor::OneMinusDstColor => GpuFactor::OneMinusDst,
        BlendFactor::SrcAlphaSaturate => GpuFactor::SrcAlphaSaturated,
        BlendFactor::ConstantColor | BlendFactor::ConstantAlpha => GpuFactor::Constant,
        BlendFactor::OneMinusConstantColor | BlendFactor::OneMinusConstantAlpha => {
            GpuFactor::OneMinusConstant
        }
    }
}

fn equation(e: BlendEquation) -> BlendOperation {
    match e {
        // Signed variants: RPCS3's unsigned emulation (`state::BlendEquation`).
        BlendEquation::Add | BlendEquation::AddSigned | BlendEquation::ReverseAddSigned => {
            BlendOperation::Add
        }
        BlendEquation::Subtract => BlendOperation::Subtract,
        BlendEquation::ReverseSubtract | BlendEquation::ReverseSubtractSigned => {
            BlendOperation::ReverseSubtract
        }
        BlendEquation::Min => BlendOperation::Min,
        BlendEquation::Max => BlendOperation::Max,
    }
}

fn is_constant_alpha(f: BlendFactor) -> bool {
    matches!(
        f,
        BlendFactor::ConstantAlpha | BlendFactor::OneMinusConstantAlpha
    )
}

fn is_constant_color(f: BlendFactor) -> bool {
    matches!(
        f,
        BlendFactor::ConstantColor | BlendFactor::OneMinusConstantColor
    )
}

/// The blend constant wgpu gets for `b` (see the module documentation): the constant's alpha
/// in all four channels where an RGB factor is CONSTANT_ALPHA (wgpu has no constant-alpha
/// factor; a draw that also uses CONSTANT_COLOR there blends in the wrapper,
/// [`shader_blend`]).
fn device_blend_constant(b: &BlendSettings) -> [f64; 4] {
    let c = b.constant.map(f64::from);
    if [b.src_rgb, b.dst_rgb].iter().any(|f| is_constant_alpha(*f)) {
        return [c[3]; 4];
    }
    c
}

/// A draw's pipeline and dynamic state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DrawPipeline {
    /// The pipeline (of every primitive, or of the front-facing ones when `back` is given).
    pub desc: RasterPipelineDesc,
    /// The stencil reference (of the front faces when `back` is given).
    pub stencil_reference: u32,
    /// The pipeline and stencil reference of the back-facing primitives, when their stencil
    /// state differs from the front's (RSX two-sided stencil: a reference, compare mask and
    /// write mask per face, `SET_BACK_STENCIL_*`; a device pipeline has one of each for both
    /// faces). Differing only in `depth_stencil`.
    pub back: Option<(RasterPipelineDesc, u32)>,
    /// The blend constant.
    pub blend_constant: [f64; 4],
    /// Approximations.
    pub notes: Vec<String>,
}

fn mask_bits(m: &ColorMask, alpha_stored: bool) -> u8 {
    u8::from(m.r)
        | (u8::from(m.g) << 1)
        | (u8::from(m.b) << 2)
        | (u8::from(m.a && alpha_stored) << 3)
}

/// The logic operation the recompiled draw's wrapper applies (`DrawState::logic_op`, on its
/// colour targets read as they were before the draw), with each channel's largest stored
/// value (R, G, B, A: 255 for 8 bits, 31 and 63 for the 5- and 6-bit formats, whose device
/// targets hold 8-bit values that round to the stored bits): on every fixed-point surface; a
/// float surface ignores the operation on both renderers.
pub(crate) fn shader_logic_op(state: &DrawState) -> Option<(u32, [u32; 4])> {
    let format = state.color_format?;
    let max = match format {
        ColorFormat::R5G6B5 => [31, 63, 31, 255],
        ColorFormat::X1R5G5B5Z1R5G5B5 | ColorFormat::X1R5G5B5O1R5G5B5 => [31, 31, 31, 255],
        _ => [255; 4],
    };
    state
        .logic_op
        .filter(|_| !format.is_float())
        .map(|op| (op, max))
}

/// The blending the render wrapper does itself (`super::blend`, on the colour targets read as
/// they were before the draw), where the device cannot blend as the model does: RGB factors
/// that mix CONSTANT_COLOR and CONSTANT_ALPHA (one blend constant on the device), or a 32-bit
/// float surface on a device without `FLOAT32_BLENDABLE`. `None` where the device blends (or
/// nothing blends, or a logic operation replaces blending).
pub(crate) fn shader_blend(state: &DrawState, float32_blendable: bool) -> Option<BlendSettings> {
    let format = state.color_format?;
    if shader_logic_op(state).is_some() {
        return None;
    }
    let b = state.blend?;
    let outputs = state.color_targets.len().min(4);
    if !b.enabled.iter().take(outputs).any(|&e| e) {
        return None;
    }
    let rgb = [b.src_rgb, b.dst_rgb];
    let mixed =
        rgb.iter().any(|f| is_constant_alpha(*f)) && rgb.iter().any(|f| is_constant_color(*f));
    let unblendable = target_format(format) == TargetFormat::Rgba32Float && !float32_blendable;
    (mixed || unblendable).then_some(b)
}

/// The pipeline of a draw: its outputs go to colour targets of `state.color_format`, its
/// depth target (when `with_depth`) has `state.depth_format`; `float32_blendable`: the device
/// blends `Rgba32Float` targets; each vertex has `vertex_attributes` vec4
/// (`shader::vertex_attributes`).
pub(crate) fn draw_pipeline(
    state: &DrawState,
    with_depth: bool,
    float32_blendable: bool,
    vertex_attributes: u32,
) -> DrawPipeline {
    let mut notes = Vec::new();
    let mut targets = Vec::new();
    let mut blend_constant = [0.0; 4];
    // A logic operation replaces blending; the wrapper reads the targets from before the draw.
    let logic = shader_logic_op(state);
    // So does blending the device cannot do as the model does.
    let in_shader = shader_blend(state, float32_blendable);
    let mut colors_before = 0u8;
    if let Some(format) = state.color_format {
        let tf = target_format(format);
        let blendable = tf != TargetFormat::Rgba32Float || float32_blendable;
        for n in 0..state.color_targets.len().min(4) {
            if logic.is_some() || in_shader.is_some_and(|b| b.enabled[n]) {
                colors_before |= 1 << n;
            }
            if let Some(b) = in_shader.filter(|b| b.enabled[n]) {
                if b.equation_rgb.is_signed() || b.equation_alpha.is_signed() {
                    notes.push(
                        "signed blend equation approximated by the unsigned one (as RPCS3)"
                            .to_string(),
                    );
                }
            }
            let blend = match &state.blend {
                _ if logic.is_some() || in_shader.is_some() => None,
                Some(b) if b.enabled[n] && blendable => {
                    if b.equation_rgb.is_signed() || b.equation_alpha.is_signed() {
                        notes.push(
                            "signed blend equation approximated by the unsigned one (as RPCS3)"
                                .to_string(),
                        );
                    }
                    blend_constant = device_blend_constant(b);
                    Some(BlendDesc {
                        color: BlendComponentDesc {
                            src: factor(b.src_rgb),
                            dst: factor(b.dst_rgb),
                            operation: equation(b.equation_rgb),
                        },
                        alpha: BlendComponentDesc {
                            src: factor(b.src_alpha),
                            dst: factor(b.dst_alpha),
                            operation: equation(b.equation_alpha),
                        },
                    })
                }
                _ => None,
            };
            targets.push(Some(ColorTargetDesc {
                format: tf,
                blend,
                write_mask: mask_bits(&state.color_masks[n], has_alpha(format)),
            }));
        }
    }
    let stencil_reference = state
        .stencil
        .as_ref()
        .map_or(0, |s| u32::from(s.front.reference));
    let depth_stencil = match (with_depth, state.depth_format) {
        (true, Some(df)) => {
            let stencil = state.stencil.as_ref().map(|s| one_face(&s.front));
            Some(DepthStencilDesc {
                format: depth_format(df),
                compare: state
                    .depth_test
                    .map_or(Compare::Always, |t| compare(t.func)),
                write: state.depth_test.is_some() && state.depth_write,
                stencil,
                bias: DepthBias::default(),
            })
        }
        _ => None,
    };
    notes.dedup();
    let desc = RasterPipelineDesc {
        vertex_entry: VS_ENTRY.to_string(),
        fragment_entry: FS_ENTRY.to_string(),
        vertex_attributes,
        topology: Topology::TriangleList,
        // Culling is done on the CPU (geometry.rs) with the reference rule.
        cull: Default::default(),
        front_face: match state.front_face {
            crate::render::state::FrontFace::CounterClockwise => Winding::Ccw,
            crate::render::state::FrontFace::Clockwise => Winding::Cw,
        },
        targets,
        depth_bounds: depth_stencil.is_some() && state.depth_bounds.is_some(),
        colors_before,
        depth_stencil,
    };
    // The back faces' pipeline, where their stencil state differs from the front's.
    let back = depth_stencil
        .zip(state.stencil.filter(|s| s.front != s.back))
        .map(|(ds, s)| {
            let desc = RasterPipelineDesc {
                depth_stencil: Some(DepthStencilDesc {
                    stencil: Some(one_face(&s.back)),
                    ..ds
                }),
                ..desc.clone()
            };
            (desc, u32::from(s.back.reference))
        });
    DrawPipeline {
        desc,
        back,
        stencil_reference,
        blend_constant,
        notes,
    }
}

/// The device stencil state that gives both of the device's faces `f`: the primitives are
/// drawn in runs of one facing, the facing the reference render decides
/// ([`DrawPipeline::back`]), so the device's own facing (lines and points are drawn as
/// triangles of any winding) never chooses.
fn one_face(f: &StencilFaceState) -> StencilDesc {
    StencilDesc {
        front: stencil_face(f),
        back: stencil_face(f),
        read_mask: f.func_mask,
        write_mask: f.write_mask,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(src: BlendFactor, dst: BlendFactor) -> BlendSettings {
        BlendSettings {
            enabled: [true, false, false, false],
            src_rgb: src,
            src_alpha: BlendFactor::One,
            dst_rgb: dst,
            dst_alpha: BlendFactor::Zero,
            equation_rgb: BlendEquation::Add,
            equation_alpha: BlendEquation::Add,
            constant: [0.25, 0.5, 0.75, 0.125],
        }
    }

    #[test]
    fn constant_alpha_replicates_the_constant_alpha() {
        let b = settings(
            BlendFactor::ConstantAlpha,
            BlendFactor::OneMinusConstantAlpha,
        );
        assert_eq!(device_blend_constant(&b), [0.125; 4]);
        let b = settings(BlendFactor::ConstantColor, BlendFactor::Zero);
        assert_eq!(device_blend_constant(&b), [0.25, 0.5, 0.75, 0.125]);
    }

    #[test]
    fn formats_and_masks() {
        assert_eq!(target_format(ColorFormat::R5G6B5), TargetFormat::Rgba8Unorm);
        assert_eq!(
            target_format(ColorFormat::FloatW16Z16Y16X16),
            TargetFormat::Rgba16Float
        );
        assert_eq!(
            target_format(ColorFormat::FloatX32),
            TargetFormat::Rgba32Float
        );
        let all = ColorMask {
            r: true,
            g: true,
            b: true,
            a: true,
        };
        assert_eq!(mask_bits(&all, true), 0xF);
        assert_eq!(mask_bits(&all, false), 0x7);
        assert!(!has_alpha(ColorFormat::X8R8G8B8O8R8G8B8));
        assert_eq!(
            equation(BlendEquation::ReverseSubtractSigned),
            BlendOperation::ReverseSubtract
        );
    }
}
