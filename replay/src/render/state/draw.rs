//! A draw's whole raster state ([`DrawState`]): stencil, depth, blend, alpha test, polygon
//! offset, surfaces, window and scissor, decoded from the frame model's draw.

use crate::raster::{PixelRect, Primitive, ShadingRules, ViewportTransform};
use rsxtrace_capture::frame::state::{
    ColorMask, PrimitiveControls, Rect, ShaderWindow, StencilFace as RawStencilFace, Surface,
};
use rsxtrace_capture::frame::Draw;

use super::{
    bad, color_targets, BlendEquation, BlendFactor, ColorFormat, CompareFunc, CullFace,
    DepthFormat, FrontFace, PolygonMode, StateError, StencilOp,
};
use crate::render::msaa::{to_sample_grid, Antialias, SampleMask};

/// One face of the stencil test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilFaceState {
    /// Test.
    pub func: CompareFunc,
    /// Reference (low 8 bits).
    pub reference: u8,
    /// Compare mask.
    pub func_mask: u8,
    /// Write mask.
    pub write_mask: u8,
    /// Stencil test fails.
    pub fail: StencilOp,
    /// Stencil passes, depth fails.
    pub zfail: StencilOp,
    /// Both pass.
    pub zpass: StencilOp,
}

impl StencilFaceState {
    fn decode(f: &RawStencilFace, back: bool) -> Result<StencilFaceState, StateError> {
        let name = |front: &'static str, b: &'static str| if back { b } else { front };
        Ok(StencilFaceState {
            func: CompareFunc::from_raw(f.func.raw).ok_or_else(|| {
                bad(
                    name("NV4097_SET_STENCIL_FUNC", "NV4097_SET_BACK_STENCIL_FUNC"),
                    f.func.raw,
                )
            })?,
            reference: f.reference as u8,
            func_mask: f.func_mask as u8,
            write_mask: f.write_mask as u8,
            fail: StencilOp::from_raw(f.fail.raw).ok_or_else(|| {
                bad(
                    name(
                        "NV4097_SET_STENCIL_OP_FAIL",
                        "NV4097_SET_BACK_STENCIL_OP_FAIL",
                    ),
                    f.fail.raw,
                )
            })?,
            zfail: StencilOp::from_raw(f.zfail.raw).ok_or_else(|| {
                bad(
                    name(
                        "NV4097_SET_STENCIL_OP_ZFAIL",
                        "NV4097_SET_BACK_STENCIL_OP_ZFAIL",
                    ),
                    f.zfail.raw,
                )
            })?,
            zpass: StencilOp::from_raw(f.zpass.raw).ok_or_else(|| {
                bad(
                    name(
                        "NV4097_SET_STENCIL_OP_ZPASS",
                        "NV4097_SET_BACK_STENCIL_OP_ZPASS",
                    ),
                    f.zpass.raw,
                )
            })?,
        })
    }

    /// The stencil test for a stored value.
    pub fn passes(&self, stored: u8) -> bool {
        self.func
            .test(self.reference & self.func_mask, stored & self.func_mask)
    }

    /// The value written back after `op`, through the write mask.
    pub fn update(&self, stored: u8, op: StencilOp) -> u8 {
        let new = op.apply(stored, self.reference);
        (stored & !self.write_mask) | (new & self.write_mask)
    }
}

/// Stencil test (when enabled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilState {
    /// Front faces (and everything when not two-sided).
    pub front: StencilFaceState,
    /// Back faces (equal to `front` when not two-sided).
    pub back: StencilFaceState,
}

/// Depth test (when enabled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthTest {
    /// Function.
    pub func: CompareFunc,
}

/// Blending of one draw (when enabled for at least one target).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlendSettings {
    /// Targets (by output index 0..4) that blend: output 0 from `SET_BLEND_ENABLE`, outputs
    /// 1..3 from `SET_BLEND_ENABLE_MRT` bits 1..3 (RPCS3 `blend_enabled_surface_1..3`).
    pub enabled: [bool; 4],
    /// RGB source factor.
    pub src_rgb: BlendFactor,
    /// Alpha source factor.
    pub src_alpha: BlendFactor,
    /// RGB destination factor.
    pub dst_rgb: BlendFactor,
    /// Alpha destination factor.
    pub dst_alpha: BlendFactor,
    /// RGB equation.
    pub equation_rgb: BlendEquation,
    /// Alpha equation.
    pub equation_alpha: BlendEquation,
    /// `SET_BLEND_COLOR` (and `COLOR2`) decoded for the surface format: ARGB8 for fixed-point
    /// targets; for fp16 targets R, G are the halves of `BLEND_COLOR` and B, A of
    /// `BLEND_COLOR2` (the fields of RPCS3's `blend_color_16b_*`), read as binary16, as the
    /// NV30/NV40 driver in Mesa writes them (`nv30_validate_blend_colour`:
    /// `_mesa_float_to_half`). RPCS3 divides them by 65535 instead (`get_constant_blend_colors`,
    /// marked "TODO: check another color formats").
    pub constant: [f32; 4],
}

impl BlendSettings {
    /// Blend `src` over `dst` (both straight RGBA); the result is not clamped.
    pub fn blend(&self, src: [f32; 4], dst: [f32; 4]) -> [f32; 4] {
        let mut out = [0f32; 4];
        for (c, o) in out.iter_mut().enumerate() {
            let (sf, df, eq) = if c < 3 {
                (self.src_rgb, self.dst_rgb, self.equation_rgb)
            } else {
                (self.src_alpha, self.dst_alpha, self.equation_alpha)
            };
            let s = sf.factor(c, src, dst, self.constant);
            let d = df.factor(c, src, dst, self.constant);
            *o = eq.combine(src[c], s, dst[c], d);
        }
        out
    }
}

/// Alpha test (when enabled).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AlphaTestState {
    /// Function (`alpha FUNC reference`).
    pub func: CompareFunc,
    /// Reference: `(raw & 0xFF) / 255` for fixed-point surfaces, the fp16 low half for fp16
    /// surfaces, the f32 bits for fp32 surfaces (RPCS3 `alpha_ref`).
    pub reference: f32,
}

/// Polygon offset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolygonOffsetState {
    /// Enabled for point-mode polygons.
    pub point: bool,
    /// Enabled for line-mode polygons.
    pub line: bool,
    /// Enabled for filled polygons.
    pub fill: bool,
    /// Slope factor.
    pub scale: f32,
    /// Units (times the depth format's resolution).
    pub bias: f32,
}

/// Everything a renderer needs for one draw, decoded once for both renderers. On a
/// multisampled surface the window-space fields (viewport, scissor, clip, window offset,
/// shader window height, line width, point size) are in sample-grid units
/// ([`crate::render::msaa::to_sample_grid`]).
#[derive(Clone, Debug, PartialEq)]
pub struct DrawState {
    /// Primitive.
    pub primitive: Primitive,
    /// Viewport transform.
    pub viewport: ViewportTransform,
    /// Scissor rectangle in window pixels, intersected with the viewport rectangle
    /// (`SET_VIEWPORT_HORIZONTAL`/`VERTICAL`).
    pub scissor: PixelRect,
    /// The surface clip (`SET_SURFACE_CLIP_*`) in window pixels: `[0, width) × [0, height)`,
    /// its origin ignored, as RPCS3 lays the framebuffer out (`thread::get_framebuffer_layout`:
    /// the clip origin lines are commented out, the window offset moves the base address).
    pub clip: PixelRect,
    /// `SET_WINDOW_OFFSET` (x, y): added to window pixels to get surface pixels.
    pub window_offset: (u32, u32),
    /// `SET_CLIP_MIN`, `SET_CLIP_MAX`.
    pub depth_range: (f32, f32),
    /// `SET_ZMIN_MAX_CONTROL` clip bits: fragments outside the depth range are discarded.
    pub depth_clip: bool,
    /// `SET_ZMIN_MAX_CONTROL` clamp bits, or no clip bits: window z is clamped to the depth
    /// range.
    pub depth_clamp: bool,
    /// Culled faces, `None` when culling is off.
    pub cull: Option<CullFace>,
    /// Front winding.
    pub front_face: FrontFace,
    /// Front polygon mode.
    pub front_polygon_mode: PolygonMode,
    /// Back polygon mode.
    pub back_polygon_mode: PolygonMode,
    /// Flat colours, two-sided colour, fog and user clip planes (`Draw::raster::shading` and
    /// the shade mode, decoded by [`ShadingRules::from_draw`]).
    pub shading: ShadingRules,
    /// Depth test, `None` when disabled (then depth is neither tested nor written).
    pub depth_test: Option<DepthTest>,
    /// `SET_DEPTH_MASK`.
    pub depth_write: bool,
    /// Stencil test, `None` when disabled.
    pub stencil: Option<StencilState>,
    /// Blending, `None` when no target blends.
    pub blend: Option<BlendSettings>,
    /// Colour write masks per output 0..4 (output 0 from `SET_COLOR_MASK`, outputs 1..3 from
    /// `SET_COLOR_MASK_MRT` nibbles 1..3, each nibble bit 0 A, 1 R, 2 G, 3 B as RPCS3
    /// `rsx_decode.h` reads it).
    pub color_masks: [ColorMask; 4],
    /// Alpha test, `None` when disabled and on fp32 targets (RPCS3 `alpha_test_enabled`).
    pub alpha_test: Option<AlphaTestState>,
    /// Polygon offset.
    pub polygon_offset: PolygonOffsetState,
    /// Colour format, `None` when no colour target is written.
    pub color_format: Option<ColorFormat>,
    /// Depth format of the zeta surface, `None` when it is not valid (no depth buffer).
    pub depth_format: Option<DepthFormat>,
    /// Colour targets written (0..4 = A..D), output `n` to `color_targets[n]`.
    pub color_targets: Vec<usize>,
    /// `SET_SHADER_WINDOW`.
    pub shader_window: ShaderWindow,
    /// Point size, line width, stipples, smoothing, point sprites (the frame model's
    /// `RasterState::primitives`, as written; the rasterizer applies its minimums).
    pub primitives: PrimitiveControls,
    /// The depth bounds test `[min, max]` (`SET_DEPTH_BOUNDS_*`), `None` when off: a fragment
    /// is discarded where the depth stored at its pixel lies outside, with no depth or
    /// stencil update (EXT_depth_bounds_test, which RPCS3 maps it to: after the alpha test,
    /// before the stencil test; it needs a depth buffer, not the depth test).
    pub depth_bounds: Option<(f32, f32)>,
    /// The colour logic operation (a GL logic op, 0x1500..0x150F), `None` when off: it
    /// replaces blending (RPCS3 `GLDraw.cpp`: "LogicOp and Blend are mutually exclusive. If
    /// both are enabled, LogicOp takes precedence"; `blend` is then `None`) and applies on
    /// fixed-point targets; a float target takes the fragment's colour.
    pub logic_op: Option<u32>,
    /// The colour outputs' R, G and B are encoded to sRGB before the 8-bit write rule, the
    /// alpha test and blending (`render::color8::linear_to_srgb`): `SET_SHADER_PACKER` is
    /// non-zero, the surface is not a float one and the program exports 16-bit registers
    /// (RPCS3 `RSX_SHADER_CONTROL_SRGB_FRAMEBUFFER`, "Cannot output sRGB from 32-bit
    /// registers"; `RSXROPEpilogue.glsl`).
    pub srgb_output: bool,
    /// The samples a draw into a multisampled surface may write (`None`: every one).
    pub sample_mask: Option<SampleMask>,
    /// The sample grid the window-space state is scaled to (`msaa::to_sample_grid`): (1, 1),
    /// or (2, 1) and (2, 2) on a multisampled surface. WPOS and the polygon stipple still
    /// count pixels, so they divide window positions by it; `shader_window` stays in pixels.
    pub sample_grid: (u32, u32),
    /// `SET_ANTI_ALIASING_CONTROL` alpha to one on a multisampled surface: after the alpha
    /// test, every colour output's alpha is replaced by 1 (GL 4.6 14.9.3; RPCS3 sets the
    /// host's alpha-to-one, whose alpha test ran in its shader before).
    pub alpha_to_one: bool,
    /// `SET_ANTI_ALIASING_CONTROL` alpha to coverage, on any surface: after the alpha test, a
    /// sample is written only when colour 0's alpha (as the alpha test sees it) exceeds its
    /// grid position's threshold (`msaa::alpha_to_coverage_keeps`).
    pub alpha_to_coverage: bool,
    /// The surface's antialiasing mode: its sample grid and where its samples lie
    /// (`msaa::sample_passes`).
    pub antialias: Antialias,
}

/// The surface clip of `s` in window pixels: its size from the window origin. RPCS3 sizes the
/// framebuffer by the clip's width and height alone and moves its base by the window offset
/// (`RSXThread.cpp` `get_framebuffer_layout`, "Window offset is what affects the raster
/// position!"), so libgcm's habit (clip origin = window offset) and a window offset alone
/// both draw the clip's size from the offset on.
pub fn window_clip(s: &Surface) -> PixelRect {
    PixelRect::from_origin_size(0, 0, u32::from(s.clip.width), u32::from(s.clip.height))
}

/// `x..x+width` of a register rectangle as a pixel rectangle.
pub fn rect_pixels(r: &Rect) -> PixelRect {
    PixelRect::from_origin_size(
        u32::from(r.x),
        u32::from(r.y),
        u32::from(r.width),
        u32::from(r.height),
    )
}

impl DrawState {
    /// Whether the draw touches no target: no colour target, no depth test, no stencil test
    /// (the CPU render draws nothing for it).
    pub fn writes_nothing(&self) -> bool {
        self.color_targets.is_empty() && self.depth_test.is_none() && self.stencil.is_none()
    }

    /// Whether the colour surface is a fixed-point one, so that the 8-bit write rule
    /// (`render::color8::applies_to`) applies to its outputs and the alpha test sees their
    /// rounded alpha.
    pub fn takes_8bit_rule(&self) -> bool {
        self.color_format
            .is_some_and(crate::render::color8::applies_to)
    }

    /// Whether the draw reads the depth buffer: the depth or stencil test, or the depth
    /// bounds test (which needs the buffer, not the depth test).
    pub fn reads_depth_buffer(&self) -> bool {
        self.depth_test.is_some() || self.stencil.is_some() || self.depth_bounds.is_some()
    }

    /// Decode a draw's state (every register it reads is in the frame model's `Draw`).
    pub fn from_draw(draw: &Draw) -> Result<DrawState, StateError> {
        let r = &draw.raster;
        let s = &draw.surface;
        let targets = color_targets(s.color_target.raw)
            .ok_or_else(|| bad("NV4097_SET_SURFACE_COLOR_TARGET", s.color_target.raw))?;
        let color_format = if targets.is_empty() {
            None
        } else {
            Some(
                ColorFormat::from_raw(s.format.color_format.raw).ok_or_else(|| {
                    bad(
                        "NV4097_SET_SURFACE_FORMAT (color)",
                        s.format.color_format.raw,
                    )
                })?,
            )
        };
        let depth_format = DepthFormat::of(s);
        let depth_used = r.depth.test || r.stencil.enabled;
        if depth_used && depth_format.is_none() {
            return Err(bad(
                "NV4097_SET_SURFACE_FORMAT (depth)",
                s.format.depth_format.raw,
            ));
        }
        let cull = if r.modes.cull_enabled {
            Some(
                CullFace::from_raw(r.modes.cull_face.raw)
                    .ok_or_else(|| bad("NV4097_SET_CULL_FACE", r.modes.cull_face.raw))?,
            )
        } else {
            None
        };
        let front_face = FrontFace::from_raw(r.modes.front_face.raw)
            .ok_or_else(|| bad("NV4097_SET_FRONT_FACE", r.modes.front_face.raw))?;
        let front_polygon_mode =
            PolygonMode::from_raw(r.modes.front_polygon_mode.raw).ok_or_else(|| {
                bad(
                    "NV4097_SET_FRONT_POLYGON_MODE",
                    r.modes.front_polygon_mode.raw,
                )
            })?;
        let back_polygon_mode =
            PolygonMode::from_raw(r.modes.back_polygon_mode.raw).ok_or_else(|| {
                bad(
                    "NV4097_SET_BACK_POLYGON_MODE",
                    r.modes.back_polygon_mode.raw,
                )
            })?;
        let depth_test = if r.depth.test {
            Some(DepthTest {
                func: CompareFunc::from_raw(r.depth.func.raw)
                    .ok_or_else(|| bad("NV4097_SET_DEPTH_FUNC", r.depth.func.raw))?,
            })
        } else {
            None
        };
        let stencil = if r.stencil.enabled && depth_format.is_some_and(DepthFormat::has_stencil) {
            let front = StencilFaceState::decode(&r.stencil.front, false)?;
            let back = if r.stencil.two_sided {
                StencilFaceState::decode(&r.stencil.back, true)?
            } else {
                front
            };
            Some(StencilState { front, back })
        } else {
            None
        };
        // "LogicOp and Blend are mutually exclusive. If both are enabled, LogicOp takes
        // precedence" (RPCS3 `GLDraw.cpp`, `VKGSRender.cpp` `decode_rsx_state`): with a logic
        // operation nothing blends, on a float target too, where the host then ignores the
        // operation and writes the fragment's colour.
        let blend = if r.logic_op.enabled {
            None
        } else {
            blend_settings(draw, color_format)?
        };
        let mrt = r.color_mask_mrt;
        let nibble = |i: u32| {
            let n = (mrt >> (4 * i)) & 0xF;
            ColorMask {
                a: n & 1 != 0,
                r: n & 2 != 0,
                g: n & 4 != 0,
                b: n & 8 != 0,
            }
        };
        let color_masks = [r.color_mask, nibble(1), nibble(2), nibble(3)];
        // RPCS3 turns the alpha test off on fp32 targets whatever the register says
        // (`alpha_test_enabled`, rsx_methods.h).
        let fp32 = matches!(
            color_format,
            Some(ColorFormat::FloatX32 | ColorFormat::FloatW32Z32Y32X32)
        );
        let alpha_test = if r.alpha_test.enabled && !fp32 {
            Some(AlphaTestState {
                func: CompareFunc::from_raw(r.alpha_test.func.raw)
                    .ok_or_else(|| bad("NV4097_SET_ALPHA_FUNC", r.alpha_test.func.raw))?,
                reference: alpha_reference(r.alpha_test.reference, color_format),
            })
        } else {
            None
        };
        let po = &r.polygon_offset;
        let mut state = DrawState {
            primitive: draw.primitive,
            viewport: ViewportTransform::from_raster(r),
            // A draw's scissor is cut by the viewport rectangle (RPCS3 `thread::get_scissor`
            // with `clip_viewport` for draws; clears use the scissor alone).
            scissor: rect_pixels(&r.scissor).intersect(&rect_pixels(&r.viewport.rect)),
            clip: window_clip(s),
            window_offset: (u32::from(s.window_offset_x), u32::from(s.window_offset_y)),
            depth_range: (r.clip_min, r.clip_max),
            depth_clip: r.zmin_max_control.clip != 0,
            // With neither clip nor clamp, RPCS3 clamps (`enable_depth_clamp(clamp || !clip)`,
            // GLDraw.cpp / VKGSRender.cpp): depth never leaves the range unclipped.
            depth_clamp: r.zmin_max_control.clamp != 0 || r.zmin_max_control.clip == 0,
            cull,
            front_face,
            front_polygon_mode,
            back_polygon_mode,
            shading: ShadingRules::from_draw(draw),
            depth_test,
            depth_write: r.depth.mask,
            stencil,
            blend,
            color_masks,
            alpha_test,
            polygon_offset: PolygonOffsetState {
                point: po.point,
                line: po.line,
                fill: po.fill,
                scale: po.scale,
                bias: po.bias,
            },
            color_format,
            depth_format,
            color_targets: targets,
            shader_window: r.shader_window,
            primitives: r.primitives,
            depth_bounds: r
                .depth_bounds
                .enabled
                .then_some((r.depth_bounds.min, r.depth_bounds.max)),
            logic_op: r.logic_op.enabled.then_some(r.logic_op.op.raw),
            srgb_output: draw.shader_packer != 0
                && draw.shader_control.raw & 0x40 == 0
                && color_format.is_some_and(|f| !f.is_float()),
            sample_mask: None,
            sample_grid: (1, 1),
            alpha_to_one: false,
            alpha_to_coverage: r.anti_aliasing.alpha_to_coverage,
            antialias: Antialias::Center1,
        };
        // A multisampled surface is drawn at sample resolution (`render::msaa`).
        let aa = Antialias::of(s);
        to_sample_grid(&mut state, aa);
        state.antialias = aa;
        state.sample_mask = SampleMask::of(aa, r.anti_aliasing.sample_mask);
        state.alpha_to_one = aa.grid() != (1, 1) && r.anti_aliasing.alpha_to_one;
        Ok(state)
    }

    /// The pixels a fragment may be written to, in **window** pixels: the scissor within the
    /// surface clip's size ([`DrawState::clip`]). Window pixel (x, y) lands on surface pixel
    /// (x, y) + the window offset.
    pub fn window_bounds(&self) -> PixelRect {
        self.scissor.intersect(&self.clip)
    }
}

fn blend_settings(
    draw: &Draw,
    format: Option<ColorFormat>,
) -> Result<Option<BlendSettings>, StateError> {
    let b = &draw.raster.blend;
    let mrt = b.enabled_mrt;
    let enabled = [b.enabled, mrt & 2 != 0, mrt & 4 != 0, mrt & 8 != 0];
    if !enabled.iter().any(|&e| e) {
        return Ok(None);
    }
    let factor = |n: &rsxtrace_capture::frame::state::Named, register| {
        BlendFactor::from_raw(n.raw).ok_or_else(|| bad(register, n.raw))
    };
    let equation = |n: &rsxtrace_capture::frame::state::Named, register| {
        BlendEquation::from_raw(n.raw).ok_or_else(|| bad(register, n.raw))
    };
    let constant = match format {
        Some(ColorFormat::FloatW16Z16Y16X16) => {
            let h = |v: u32| half::f16::from_bits(v as u16).to_f32();
            [h(b.color), h(b.color >> 16), h(b.color2), h(b.color2 >> 16)]
        }
        _ => {
            let c = |shift: u32| ((b.color >> shift) & 0xFF) as f32 / 255.0;
            [c(16), c(8), c(0), c(24)]
        }
    };
    Ok(Some(BlendSettings {
        enabled,
        src_rgb: factor(&b.src_rgb, "NV4097_SET_BLEND_FUNC_SFACTOR (rgb)")?,
        src_alpha: factor(&b.src_alpha, "NV4097_SET_BLEND_FUNC_SFACTOR (alpha)")?,
        dst_rgb: factor(&b.dst_rgb, "NV4097_SET_BLEND_FUNC_DFACTOR (rgb)")?,
        dst_alpha: factor(&b.dst_alpha, "NV4097_SET_BLEND_FUNC_DFACTOR (alpha)")?,
        equation_rgb: equation(&b.equation_rgb, "NV4097_SET_BLEND_EQUATION (rgb)")?,
        equation_alpha: equation(&b.equation_alpha, "NV4097_SET_BLEND_EQUATION (alpha)")?,
        constant,
    }))
}

fn alpha_reference(raw: u32, format: Option<ColorFormat>) -> f32 {
    match format {
        Some(ColorFormat::FloatW16Z16Y16X16) => half::f16::from_bits(raw as u16).to_f32(),
        Some(ColorFormat::FloatW32Z32Y32X32 | ColorFormat::FloatX32) => f32::from_bits(raw),
        _ => (raw & 0xFF) as f32 / 255.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stencil_operations_saturate_wrap_and_mask() {
        assert_eq!(StencilOp::Increment.apply(255, 0), 255);
        assert_eq!(StencilOp::IncrementWrap.apply(255, 0), 0);
        assert_eq!(StencilOp::Decrement.apply(0, 0), 0);
        assert_eq!(StencilOp::DecrementWrap.apply(0, 0), 255);
        assert_eq!(StencilOp::Invert.apply(0x0F, 0), 0xF0);
        assert_eq!(StencilOp::Replace.apply(1, 9), 9);
        let face = StencilFaceState {
            func: CompareFunc::Equal,
            reference: 0x35,
            func_mask: 0x0F,
            write_mask: 0xF0,
            fail: StencilOp::Keep,
            zfail: StencilOp::Keep,
            zpass: StencilOp::Replace,
        };
        // 0x35 & 0x0F == 0xA5 & 0x0F.
        assert!(face.passes(0xA5) && !face.passes(0xA4));
        // Replace writes only the high nibble: 0x3_ from the reference, low nibble kept.
        assert_eq!(face.update(0xA5, StencilOp::Replace), 0x35);
        assert_eq!(face.update(0x0C, StencilOp::Replace), 0x3C);
    }
}
