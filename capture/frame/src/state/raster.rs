//! Viewport, scissor, depth range, rasterisation, depth/stencil, blend, colour mask, alpha test,
//! polygon offset, anti-aliasing, shader window and clear values (rrc-format.md 4.6, 4.8;
//! enumerant values from RPCS3 `gcm_enums.h`); point, line and polygon controls in
//! [`super::primitive_raster`].

use super::{bits, r, Named, PrimitiveControls, Rect, ShadingState};
use crate::methods::reg;
use serde::Serialize;

const COMPARE: &[(u32, &str)] = &[
    (0x200, "never"),
    (0x201, "less"),
    (0x202, "equal"),
    (0x203, "lequal"),
    (0x204, "greater"),
    (0x205, "notequal"),
    (0x206, "gequal"),
    (0x207, "always"),
];
const STENCIL_OPS: &[(u32, &str)] = &[
    (0, "zero"),
    (0x1E00, "keep"),
    (0x1E01, "replace"),
    (0x1E02, "incr"),
    (0x1E03, "decr"),
    (0x150A, "invert"),
    (0x8507, "incr_wrap"),
    (0x8508, "decr_wrap"),
];
const BLEND_FACTORS: &[(u32, &str)] = &[
    (0, "zero"),
    (1, "one"),
    (0x300, "src_color"),
    (0x301, "one_minus_src_color"),
    (0x302, "src_alpha"),
    (0x303, "one_minus_src_alpha"),
    (0x304, "dst_alpha"),
    (0x305, "one_minus_dst_alpha"),
    (0x306, "dst_color"),
    (0x307, "one_minus_dst_color"),
    (0x308, "src_alpha_saturate"),
    (0x8001, "constant_color"),
    (0x8002, "one_minus_constant_color"),
    (0x8003, "constant_alpha"),
    (0x8004, "one_minus_constant_alpha"),
];
const BLEND_EQUATIONS: &[(u32, &str)] = &[
    (0x8006, "add"),
    (0x8007, "min"),
    (0x8008, "max"),
    (0x800A, "subtract"),
    (0x800B, "reverse_subtract"),
    (0xF005, "reverse_subtract_signed"),
    (0xF006, "add_signed"),
    (0xF007, "reverse_add_signed"),
];
const POLYGON_MODES: &[(u32, &str)] = &[(0x1B00, "point"), (0x1B01, "line"), (0x1B02, "fill")];
const CULL_FACES: &[(u32, &str)] = &[
    (0x0404, "front"),
    (0x0405, "back"),
    (0x0408, "front_and_back"),
];
const FRONT_FACES: &[(u32, &str)] = &[(0x0900, "cw"), (0x0901, "ccw")];
const SHADE_MODES: &[(u32, &str)] = &[(0x1D00, "flat"), (0x1D01, "smooth")];
/// `SET_LOGIC_OP` values: OpenGL's logic operations (`GL_CLEAR` 0x1500 .. `GL_SET` 0x150F).
const LOGIC_OPS: &[(u32, &str)] = &[
    (0x1500, "clear"),
    (0x1501, "and"),
    (0x1502, "and_reverse"),
    (0x1503, "copy"),
    (0x1504, "and_inverted"),
    (0x1505, "noop"),
    (0x1506, "xor"),
    (0x1507, "or"),
    (0x1508, "nor"),
    (0x1509, "equiv"),
    (0x150A, "invert"),
    (0x150B, "or_reverse"),
    (0x150C, "copy_inverted"),
    (0x150D, "or_inverted"),
    (0x150E, "nand"),
    (0x150F, "set"),
];

/// Name a comparison function; RPCS3 ORs in 0x200, so 0..7 name the same functions
/// (rrc-format.md 4.8).
pub fn compare_func(v: u32) -> Named {
    let key = if v < 8 { v | 0x200 } else { v };
    Named {
        raw: v,
        name: Named::lookup(key, COMPARE).name,
    }
}
/// Name a stencil operation.
pub fn stencil_op(v: u32) -> Named {
    Named::lookup(v, STENCIL_OPS)
}
/// Name a blend factor.
pub fn blend_factor(v: u32) -> Named {
    Named::lookup(v, BLEND_FACTORS)
}
/// Name a blend equation.
pub fn blend_equation(v: u32) -> Named {
    Named::lookup(v, BLEND_EQUATIONS)
}
/// Name a polygon mode.
pub fn polygon_mode(v: u32) -> Named {
    Named::lookup(v, POLYGON_MODES)
}
/// Name a cull face.
pub fn cull_face(v: u32) -> Named {
    Named::lookup(v, CULL_FACES)
}
/// Name a front face winding.
pub fn front_face(v: u32) -> Named {
    Named::lookup(v, FRONT_FACES)
}
/// Name a shade mode.
pub fn shade_mode(v: u32) -> Named {
    Named::lookup(v, SHADE_MODES)
}

fn f(regs: &[u32], reg: u16) -> f32 {
    f32::from_bits(r(regs, reg))
}
fn on(regs: &[u32], reg: u16) -> bool {
    r(regs, reg) != 0
}

/// Viewport rectangle and transform.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Viewport {
    /// `SET_VIEWPORT_HORIZONTAL` / `VERTICAL`.
    pub rect: Rect,
    /// `SET_VIEWPORT_OFFSET[0..4]` floats.
    pub offset: [f32; 4],
    /// `SET_VIEWPORT_SCALE[0..4]` floats.
    pub scale: [f32; 4],
}

/// `SET_ZMIN_MAX_CONTROL` fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ZMinMaxControl {
    /// Bits 0..3.
    pub clip: u8,
    /// Bits 4..7.
    pub clamp: u8,
    /// Bits 8..11.
    pub ignore_w: u8,
}

impl ZMinMaxControl {
    /// Decode a register value.
    pub fn from_raw(v: u32) -> ZMinMaxControl {
        ZMinMaxControl {
            clip: bits(v, 0, 4) as u8,
            clamp: bits(v, 4, 4) as u8,
            ignore_w: bits(v, 8, 4) as u8,
        }
    }
}

/// Rasterisation state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RasterModes {
    /// `SET_FRONT_POLYGON_MODE`.
    pub front_polygon_mode: Named,
    /// `SET_BACK_POLYGON_MODE`.
    pub back_polygon_mode: Named,
    /// `SET_CULL_FACE`.
    pub cull_face: Named,
    /// `SET_FRONT_FACE`.
    pub front_face: Named,
    /// `SET_CULL_FACE_ENABLE`.
    pub cull_enabled: bool,
    /// `SET_SHADE_MODE`.
    pub shade_mode: Named,
}

/// Depth test state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DepthState {
    /// `SET_DEPTH_TEST_ENABLE`.
    pub test: bool,
    /// `SET_DEPTH_FUNC`.
    pub func: Named,
    /// `SET_DEPTH_MASK`: depth writes enabled.
    pub mask: bool,
}

/// The depth bounds test (`SET_DEPTH_BOUNDS_TEST_ENABLE`, `_MIN`, `_MAX` floats): a fragment
/// is discarded where the depth already stored at its pixel lies outside `[min, max]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DepthBounds {
    /// `SET_DEPTH_BOUNDS_TEST_ENABLE`.
    pub enabled: bool,
    /// `SET_DEPTH_BOUNDS_MIN`.
    pub min: f32,
    /// `SET_DEPTH_BOUNDS_MAX`.
    pub max: f32,
}

/// The colour logic operation (`SET_LOGIC_OP_ENABLE`, `SET_LOGIC_OP`): when enabled it
/// replaces blending (RPCS3 `GLDraw.cpp`: "LogicOp and Blend are mutually exclusive").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LogicOp {
    /// `SET_LOGIC_OP_ENABLE`.
    pub enabled: bool,
    /// `SET_LOGIC_OP` (a GL logic operation, 0x1500 CLEAR .. 0x150F SET).
    pub op: Named,
}

/// One face of the stencil state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StencilFace {
    /// `*_STENCIL_FUNC`.
    pub func: Named,
    /// `*_STENCIL_FUNC_REF`.
    pub reference: u32,
    /// `*_STENCIL_FUNC_MASK`.
    pub func_mask: u32,
    /// `*_STENCIL_MASK`: write mask.
    pub write_mask: u32,
    /// `*_STENCIL_OP_FAIL`.
    pub fail: Named,
    /// `*_STENCIL_OP_ZFAIL`.
    pub zfail: Named,
    /// `*_STENCIL_OP_ZPASS`.
    pub zpass: Named,
}

/// Stencil state (registers 0x0328..0x0364, `gcm_enums.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StencilState {
    /// `SET_STENCIL_TEST_ENABLE`.
    pub enabled: bool,
    /// `SET_TWO_SIDED_STENCIL_TEST_ENABLE`.
    pub two_sided: bool,
    /// Front face (`SET_STENCIL_*`).
    pub front: StencilFace,
    /// Back face (`SET_BACK_STENCIL_*`).
    pub back: StencilFace,
}

/// Blend state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BlendState {
    /// `SET_BLEND_ENABLE`.
    pub enabled: bool,
    /// `SET_BLEND_ENABLE_MRT` raw.
    pub enabled_mrt: u32,
    /// `SET_BLEND_FUNC_SFACTOR` bits 0..15.
    pub src_rgb: Named,
    /// `SET_BLEND_FUNC_SFACTOR` bits 16..31.
    pub src_alpha: Named,
    /// `SET_BLEND_FUNC_DFACTOR` bits 0..15.
    pub dst_rgb: Named,
    /// `SET_BLEND_FUNC_DFACTOR` bits 16..31.
    pub dst_alpha: Named,
    /// `SET_BLEND_EQUATION` bits 0..15.
    pub equation_rgb: Named,
    /// `SET_BLEND_EQUATION` bits 16..31.
    pub equation_alpha: Named,
    /// `SET_BLEND_COLOR` raw.
    pub color: u32,
    /// `SET_BLEND_COLOR2` raw.
    pub color2: u32,
}

impl BlendState {
    /// Decode from a register file.
    pub fn from_regs(regs: &[u32]) -> BlendState {
        let s = r(regs, reg::SET_BLEND_FUNC_SFACTOR);
        let d = r(regs, reg::SET_BLEND_FUNC_DFACTOR);
        let e = r(regs, reg::SET_BLEND_EQUATION);
        BlendState {
            enabled: on(regs, reg::SET_BLEND_ENABLE),
            enabled_mrt: r(regs, reg::SET_BLEND_ENABLE_MRT),
            src_rgb: blend_factor(s & 0xFFFF),
            src_alpha: blend_factor(s >> 16),
            dst_rgb: blend_factor(d & 0xFFFF),
            dst_alpha: blend_factor(d >> 16),
            equation_rgb: blend_equation(e & 0xFFFF),
            equation_alpha: blend_equation(e >> 16),
            color: r(regs, reg::SET_BLEND_COLOR),
            color2: r(regs, reg::SET_BLEND_COLOR2),
        }
    }
}

/// `SET_COLOR_MASK` fields: B bits 0..7, G 8..15, R 16..23, A 24..31.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ColorMask {
    /// Red writes.
    pub r: bool,
    /// Green writes.
    pub g: bool,
    /// Blue writes.
    pub b: bool,
    /// Alpha writes.
    pub a: bool,
}

impl ColorMask {
    /// Decode a register value.
    pub fn from_raw(v: u32) -> ColorMask {
        ColorMask {
            b: bits(v, 0, 8) != 0,
            g: bits(v, 8, 8) != 0,
            r: bits(v, 16, 8) != 0,
            a: bits(v, 24, 8) != 0,
        }
    }
}

/// Alpha test state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AlphaTest {
    /// `SET_ALPHA_TEST_ENABLE`.
    pub enabled: bool,
    /// `SET_ALPHA_FUNC`.
    pub func: Named,
    /// `SET_ALPHA_REF` raw.
    pub reference: u32,
}

/// Polygon offset state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PolygonOffset {
    /// `SET_POLY_OFFSET_POINT_ENABLE`.
    pub point: bool,
    /// `SET_POLY_OFFSET_LINE_ENABLE`.
    pub line: bool,
    /// `SET_POLY_OFFSET_FILL_ENABLE`.
    pub fill: bool,
    /// `SET_POLYGON_OFFSET_SCALE_FACTOR` float.
    pub scale: f32,
    /// `SET_POLYGON_OFFSET_BIAS` float.
    pub bias: f32,
}

/// `SET_ANTI_ALIASING_CONTROL` fields (RPCS3 `rsx_decode.h`: enable bit 0, alpha-to-coverage
/// bit 4, alpha-to-one bit 8, sample mask bits 16..31).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AntiAliasing {
    /// Raw value.
    pub raw: u32,
    /// Bit 0.
    pub enabled: bool,
    /// Bit 4.
    pub alpha_to_coverage: bool,
    /// Bit 8.
    pub alpha_to_one: bool,
    /// Bits 16..31.
    pub sample_mask: u16,
}

impl AntiAliasing {
    /// Decode a register value.
    pub fn from_raw(v: u32) -> AntiAliasing {
        AntiAliasing {
            raw: v,
            enabled: v & 1 != 0,
            alpha_to_coverage: v & 0x10 != 0,
            alpha_to_one: v & 0x100 != 0,
            sample_mask: (v >> 16) as u16,
        }
    }
}

/// `SET_RENDER_ENABLE`: conditional rendering (RPCS3 `nv4097::set_render_mode`). Mode 1
/// renders every draw; mode 2 renders a draw only when the report at `report_offset` holds a
/// non-zero sample count (an occlusion query's `ZPASS_PIXEL_CNT`; RPCS3
/// `thread::enable_conditional_rendering`); other modes leave the mode as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RenderEnable {
    /// Bits 24..31.
    pub mode: u8,
    /// Bits 0..23: the report's offset in the report area.
    pub report_offset: u32,
}

impl RenderEnable {
    /// Decode a register value.
    pub fn from_raw(v: u32) -> RenderEnable {
        RenderEnable {
            mode: (v >> 24) as u8,
            report_offset: v & 0x00FF_FFFF,
        }
    }

    /// Whether draws render only when an occlusion query passed (mode 2).
    pub fn conditional(self) -> bool {
        self.mode == 2
    }
}

/// Occlusion counting and where reports go (RPCS3 `nv4097::get_report`,
/// `rsx::get_address`, `ZCULL_control`): while `SET_ZPASS_PIXEL_COUNT_ENABLE` is on, the
/// samples a draw lets through every test (kill, alpha, stencil, depth) are added to a
/// counter that `CLEAR_REPORT_VALUE` (type 1, `ZPASS_PIXEL_CNT`) zeroes and `GET_REPORT`
/// (type 1) writes as a 16-byte report (`CellGcmReportData`: big-endian timer u64, value
/// u32, padding u32) at an offset in the report area `SET_CONTEXT_DMA_REPORT` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Occlusion {
    /// `SET_ZPASS_PIXEL_COUNT_ENABLE`: the draw's samples are counted.
    pub zpass_pixel_count: bool,
    /// `SET_CONTEXT_DMA_REPORT` raw: [`REPORT_AREA_LOCAL`] (the RSX's own report memory,
    /// which captures do not hold) or [`REPORT_AREA_MAIN`] (IO offset `0x0E000000` +
    /// offset).
    pub report_dma: u32,
    /// `SET_ZCULL_EN` non-zero: Z-cull on. RPCS3 counts samples only while it is on
    /// (`ZCULL_control::check_state` runs its host queries when both it and the pixel count
    /// are on); no source ties the hardware's count to it.
    pub zcull: bool,
}

/// `CELL_GCM_CONTEXT_DMA_REPORT_LOCATION_LOCAL` (RPCS3 `gcm_enums.h`).
pub const REPORT_AREA_LOCAL: u32 = 0x6662_6660;
/// `CELL_GCM_CONTEXT_DMA_REPORT_LOCATION_MAIN` (RPCS3 `gcm_enums.h`).
pub const REPORT_AREA_MAIN: u32 = 0xBAD6_8000;
/// The IO offset of the main report area (RPCS3 `rsx::get_address`: `0x0e000000 + offset`).
pub const REPORT_AREA_MAIN_IO_OFFSET: u32 = 0x0E00_0000;

/// `SET_SHADER_WINDOW` fields (rrc-format.md 4.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ShaderWindow {
    /// Bits 0..11.
    pub height: u16,
    /// Bits 12..15: 0 top, 1 bottom.
    pub origin: u8,
    /// Bits 16..19: 0 half, 1 integer.
    pub pixel_center: u8,
}

impl ShaderWindow {
    /// Decode a register value.
    pub fn from_raw(v: u32) -> ShaderWindow {
        ShaderWindow {
            height: bits(v, 0, 12) as u16,
            origin: bits(v, 12, 4) as u8,
            pixel_center: bits(v, 16, 4) as u8,
        }
    }
}

/// `SET_SHADER_CONTROL` flags (rrc-format.md 4.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ShaderControl {
    /// Raw value.
    pub raw: u32,
    /// 0x0E: the program exports depth.
    pub depth_export: bool,
    /// 0x40: 32-bit colour outputs (R0, R2, R3, R4) rather than fp16 (H0, H4, H6, H8).
    pub outputs_32bit: bool,
    /// 0x80: the program uses KIL.
    pub uses_kil: bool,
    /// Bits 24..31: temporary register count.
    pub temp_registers: u8,
}

impl ShaderControl {
    /// Decode a register value.
    pub fn from_raw(v: u32) -> ShaderControl {
        ShaderControl {
            raw: v,
            depth_export: v & 0x0E != 0,
            outputs_32bit: v & 0x40 != 0,
            uses_kil: v & 0x80 != 0,
            temp_registers: (v >> 24) as u8,
        }
    }
}

/// All fixed-function state of a draw other than surfaces and textures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RasterState {
    /// Viewport.
    pub viewport: Viewport,
    /// `SET_SCISSOR_HORIZONTAL` / `VERTICAL`.
    pub scissor: Rect,
    /// `SET_CLIP_MIN` float.
    pub clip_min: f32,
    /// `SET_CLIP_MAX` float.
    pub clip_max: f32,
    /// `SET_ZMIN_MAX_CONTROL`.
    pub zmin_max_control: ZMinMaxControl,
    /// Polygon modes, culling, shading.
    pub modes: RasterModes,
    /// Depth test.
    pub depth: DepthState,
    /// Depth bounds test.
    pub depth_bounds: DepthBounds,
    /// Colour logic operation.
    pub logic_op: LogicOp,
    /// Stencil test.
    pub stencil: StencilState,
    /// Blending.
    pub blend: BlendState,
    /// `SET_COLOR_MASK`.
    pub color_mask: ColorMask,
    /// `SET_COLOR_MASK_MRT` raw.
    pub color_mask_mrt: u32,
    /// Alpha test.
    pub alpha_test: AlphaTest,
    /// Polygon offset.
    pub polygon_offset: PolygonOffset,
    /// `SET_ANTI_ALIASING_CONTROL`.
    pub anti_aliasing: AntiAliasing,
    /// `SET_SHADER_WINDOW`.
    pub shader_window: ShaderWindow,
    /// `SET_RENDER_ENABLE` (conditional rendering).
    pub render_enable: RenderEnable,
    /// Occlusion counting and the report area.
    pub occlusion: Occlusion,
    /// `SET_COLOR_CLEAR_VALUE` raw.
    pub color_clear_value: u32,
    /// `SET_ZSTENCIL_CLEAR_VALUE` raw.
    pub zstencil_clear_value: u32,
    /// Point size, line width, stipples, smoothing and point sprites.
    pub primitives: PrimitiveControls,
    /// Two-sided colour, flat-shade op, fog and user clip planes.
    pub shading: ShadingState,
}

impl RasterState {
    /// The state registers in use (the depth, alpha and stencil functions of the tests that
    /// are on, the polygon modes) whose value is none of the documented ones: `(method,
    /// value)`, for a draw problem, since the renderers cannot draw with them.
    pub fn invalid(&self) -> Vec<(&'static str, u32)> {
        let mut out = Vec::new();
        let mut check = |on: bool, method: &'static str, field: &Named| {
            if on && field.name.is_none() {
                out.push((method, field.raw));
            }
        };
        // A polygon mode of 0 (never written) reads as FILL, GL's default.
        let (front, back) = (
            &self.modes.front_polygon_mode,
            &self.modes.back_polygon_mode,
        );
        check(front.raw != 0, "NV4097_SET_FRONT_POLYGON_MODE", front);
        check(back.raw != 0, "NV4097_SET_BACK_POLYGON_MODE", back);
        check(self.depth.test, "NV4097_SET_DEPTH_FUNC", &self.depth.func);
        check(
            self.alpha_test.enabled,
            "NV4097_SET_ALPHA_FUNC",
            &self.alpha_test.func,
        );
        let stencil = &self.stencil;
        check(
            stencil.enabled,
            "NV4097_SET_STENCIL_FUNC",
            &stencil.front.func,
        );
        check(
            stencil.enabled && stencil.two_sided,
            "NV4097_SET_BACK_STENCIL_FUNC",
            &stencil.back.func,
        );
        out
    }

    /// Decode from a register file.
    pub fn from_regs(regs: &[u32]) -> RasterState {
        let face = |func, reference, func_mask, write_mask, fail, zfail, zpass| StencilFace {
            func: compare_func(r(regs, func)),
            reference: r(regs, reference),
            func_mask: r(regs, func_mask),
            write_mask: r(regs, write_mask),
            fail: stencil_op(r(regs, fail)),
            zfail: stencil_op(r(regs, zfail)),
            zpass: stencil_op(r(regs, zpass)),
        };
        let vo = reg::SET_VIEWPORT_OFFSET;
        let vs = reg::SET_VIEWPORT_SCALE;
        RasterState {
            viewport: Viewport {
                rect: Rect::from_regs(
                    r(regs, reg::SET_VIEWPORT_HORIZONTAL),
                    r(regs, reg::SET_VIEWPORT_VERTICAL),
                ),
                offset: [
                    f(regs, vo),
                    f(regs, vo + 1),
                    f(regs, vo + 2),
                    f(regs, vo + 3),
                ],
                scale: [
                    f(regs, vs),
                    f(regs, vs + 1),
                    f(regs, vs + 2),
                    f(regs, vs + 3),
                ],
            },
            scissor: Rect::from_regs(
                r(regs, reg::SET_SCISSOR_HORIZONTAL),
                r(regs, reg::SET_SCISSOR_VERTICAL),
            ),
            clip_min: f(regs, reg::SET_CLIP_MIN),
            clip_max: f(regs, reg::SET_CLIP_MAX),
            zmin_max_control: ZMinMaxControl::from_raw(r(regs, reg::SET_ZMIN_MAX_CONTROL)),
            modes: RasterModes {
                front_polygon_mode: polygon_mode(r(regs, reg::SET_FRONT_POLYGON_MODE)),
                back_polygon_mode: polygon_mode(r(regs, reg::SET_BACK_POLYGON_MODE)),
                cull_face: cull_face(r(regs, reg::SET_CULL_FACE)),
                front_face: front_face(r(regs, reg::SET_FRONT_FACE)),
                cull_enabled: on(regs, reg::SET_CULL_FACE_ENABLE),
                shade_mode: shade_mode(r(regs, reg::SET_SHADE_MODE)),
            },
            depth: DepthState {
                test: on(regs, reg::SET_DEPTH_TEST_ENABLE),
                func: compare_func(r(regs, reg::SET_DEPTH_FUNC)),
                mask: on(regs, reg::SET_DEPTH_MASK),
            },
            depth_bounds: DepthBounds {
                enabled: on(regs, reg::SET_DEPTH_BOUNDS_TEST_ENABLE),
                min: f(regs, reg::SET_DEPTH_BOUNDS_MIN),
                max: f(regs, reg::SET_DEPTH_BOUNDS_MAX),
            },
            logic_op: LogicOp {
                enabled: on(regs, reg::SET_LOGIC_OP_ENABLE),
                op: Named::lookup(r(regs, reg::SET_LOGIC_OP), LOGIC_OPS),
            },
            stencil: StencilState {
                enabled: on(regs, reg::SET_STENCIL_TEST_ENABLE),
                two_sided: on(regs, reg::SET_TWO_SIDED_STENCIL_TEST_ENABLE),
                front: face(
                    reg::SET_STENCIL_FUNC,
                    reg::SET_STENCIL_FUNC_REF,
                    reg::SET_STENCIL_FUNC_MASK,
                    reg::SET_STENCIL_MASK,
                    reg::SET_STENCIL_OP_FAIL,
                    reg::SET_STENCIL_OP_ZFAIL,
                    reg::SET_STENCIL_OP_ZPASS,
                ),
                back: face(
                    reg::SET_BACK_STENCIL_FUNC,
                    reg::SET_BACK_STENCIL_FUNC_REF,
                    reg::SET_BACK_STENCIL_FUNC_MASK,
                    reg::SET_BACK_STENCIL_MASK,
                    reg::SET_BACK_STENCIL_OP_FAIL,
                    reg::SET_BACK_STENCIL_OP_ZFAIL,
                    reg::SET_BACK_STENCIL_OP_ZPASS,
                ),
            },
            blend: BlendState::from_regs(regs),
            color_mask: ColorMask::from_raw(r(regs, reg::SET_COLOR_MASK)),
            color_mask_mrt: r(regs, reg::SET_COLOR_MASK_MRT),
            alpha_test: AlphaTest {
                enabled: on(regs, reg::SET_ALPHA_TEST_ENABLE),
                func: compare_func(r(regs, reg::SET_ALPHA_FUNC)),
                reference: r(regs, reg::SET_ALPHA_REF),
            },
            polygon_offset: PolygonOffset {
                point: on(regs, reg::SET_POLY_OFFSET_POINT_ENABLE),
                line: on(regs, reg::SET_POLY_OFFSET_LINE_ENABLE),
                fill: on(regs, reg::SET_POLY_OFFSET_FILL_ENABLE),
                scale: f(regs, reg::SET_POLYGON_OFFSET_SCALE_FACTOR),
                bias: f(regs, reg::SET_POLYGON_OFFSET_BIAS),
            },
            anti_aliasing: AntiAliasing::from_raw(r(regs, reg::SET_ANTI_ALIASING_CONTROL)),
            shader_window: ShaderWindow::from_raw(r(regs, reg::SET_SHADER_WINDOW)),
            render_enable: RenderEnable::from_raw(r(regs, reg::SET_RENDER_ENABLE)),
            occlusion: Occlusion {
                zpass_pixel_count: on(regs, reg::SET_ZPASS_PIXEL_COUNT_ENABLE),
                report_dma: r(regs, reg::SET_CONTEXT_DMA_REPORT),
                zcull: on(regs, reg::SET_ZCULL_EN),
            },
            color_clear_value: r(regs, reg::SET_COLOR_CLEAR_VALUE),
            zstencil_clear_value: r(regs, reg::SET_ZSTENCIL_CLEAR_VALUE),
            primitives: PrimitiveControls::from_regs(regs),
            shading: ShadingState::from_regs(regs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_registers() {
        let mut regs = vec![0u32; 0x4000];
        regs[0x0310 / 4] = 1;
        // src: rgb SRC_ALPHA 0x302, alpha ONE 1; dst: rgb ONE_MINUS_SRC_ALPHA 0x303, alpha ZERO.
        regs[0x0314 / 4] = (1 << 16) | 0x302;
        regs[0x0318 / 4] = 0x303;
        // equation: rgb ADD 0x8006, alpha MAX 0x8008.
        regs[0x0320 / 4] = (0x8008 << 16) | 0x8006;
        regs[0x031C / 4] = 0x8040_2010;
        let b = BlendState::from_regs(&regs);
        assert!(b.enabled);
        assert_eq!(b.src_rgb.name, Some("src_alpha"));
        assert_eq!(b.src_alpha.name, Some("one"));
        assert_eq!(b.dst_rgb.name, Some("one_minus_src_alpha"));
        assert_eq!(b.dst_alpha.name, Some("zero"));
        assert_eq!(b.equation_rgb.name, Some("add"));
        assert_eq!(b.equation_alpha.name, Some("max"));
        assert_eq!(b.color, 0x8040_2010);
    }

    #[test]
    fn depth_stencil_raster_registers() {
        let mut regs = vec![0u32; 0x4000];
        regs[0x0A74 / 4] = 1;
        regs[0x0A6C / 4] = 0x203;
        regs[0x0A70 / 4] = 1;
        regs[0x0328 / 4] = 1;
        regs[0x0348 / 4] = 1;
        regs[0x0330 / 4] = 0x207;
        regs[0x0334 / 4] = 0x80;
        regs[0x0338 / 4] = 0xFF;
        regs[0x032C / 4] = 0x0F;
        regs[0x033C / 4] = 0x1E00;
        regs[0x0340 / 4] = 0x8507;
        regs[0x0344 / 4] = 0x1E01;
        regs[0x0350 / 4] = 2; // RPCS3 ORs in 0x200: equal
        regs[0x0364 / 4] = 0x150A;
        regs[0x1830 / 4] = 0x0405;
        regs[0x1834 / 4] = 0x0901;
        regs[0x183C / 4] = 1;
        regs[0x1828 / 4] = 0x1B02;
        regs[0x0368 / 4] = 0x1D00;
        regs[0x0324 / 4] = 0x0101_0001; // A, R, B on; G off
        regs[0x0A00 / 4] = (640 << 16) | 10;
        regs[0x0A04 / 4] = (360 << 16) | 20;
        regs[0x0A30 / 4] = 320.0f32.to_bits();
        regs[0x0A34 / 4] = (-180.0f32).to_bits();
        regs[0x0398 / 4] = 1.0f32.to_bits();
        regs[0x1D78 / 4] = 0x0000_0110;
        regs[0x1D88 / 4] = 0x0001_12D0;
        let s = RasterState::from_regs(&regs);
        assert!(s.depth.test && s.depth.mask);
        assert_eq!(s.depth.func.name, Some("lequal"));
        assert!(s.stencil.enabled && s.stencil.two_sided);
        assert_eq!(s.stencil.front.func.name, Some("always"));
        assert_eq!(
            (s.stencil.front.reference, s.stencil.front.func_mask),
            (0x80, 0xFF)
        );
        assert_eq!(s.stencil.front.write_mask, 0x0F);
        assert_eq!(s.stencil.front.fail.name, Some("keep"));
        assert_eq!(s.stencil.front.zfail.name, Some("incr_wrap"));
        assert_eq!(s.stencil.front.zpass.name, Some("replace"));
        assert_eq!(s.stencil.back.func.name, Some("equal"));
        assert_eq!(s.stencil.back.zpass.name, Some("invert"));
        assert_eq!(s.modes.cull_face.name, Some("back"));
        assert_eq!(s.modes.front_face.name, Some("ccw"));
        assert!(s.modes.cull_enabled);
        assert_eq!(s.modes.front_polygon_mode.name, Some("fill"));
        assert_eq!(s.modes.shade_mode.name, Some("flat"));
        assert_eq!(
            s.color_mask,
            ColorMask {
                r: true,
                g: false,
                b: true,
                a: true
            }
        );
        assert_eq!(
            s.viewport.rect,
            Rect {
                x: 10,
                y: 20,
                width: 640,
                height: 360
            }
        );
        assert_eq!(s.viewport.scale[..2], [320.0, -180.0]);
        assert_eq!(s.clip_max, 1.0);
        assert_eq!(
            s.zmin_max_control,
            ZMinMaxControl {
                clip: 0,
                clamp: 1,
                ignore_w: 1
            }
        );
        assert_eq!(
            s.shader_window,
            ShaderWindow {
                height: 720,
                origin: 1,
                pixel_center: 1
            }
        );
    }
}
