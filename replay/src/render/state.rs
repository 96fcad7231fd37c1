//! A draw's raster state decoded into enums (blend factors, compare functions, stencil
//! operations, cull, polygon modes, colour and depth formats) shared by both renderers, and the
//! frame events the draw list does not carry (clears, and registers `Draw` does not decode).
//!
//! Values are the NV4097 enumerants (OpenGL enums) listed in rrc-format.md 4.8 and RPCS3
//! `gcm_enums.h`; `rsxtrace_capture::frame::state` already names them, this module turns them
//! into closed enums and refuses an unknown value **only where the draw uses it** (an unknown
//! blend factor with blending off is not an error), naming the register and the value.
//!
//! Register reset values: a register the capture never set reads 0. Where 0 is not a valid
//! enumerant the OpenGL default is used (documented on each `from_raw`): polygon mode 0 = fill,
//! front face 0 = CCW, cull face 0 = back, blend equation 0 = add.

use crate::raster::{PixelRect, Primitive, ShadingRules, ViewportTransform};
use rsxtrace_capture::frame::state::{
    ColorMask, PrimitiveControls, Rect, ShaderWindow, StencilFace as RawStencilFace, Surface,
};
use rsxtrace_capture::frame::{method_calls, reg, Draw, Frame};
use rsxtrace_capture::rrc::{BufferState, Capture};

use super::msaa::{grid_pixels, to_sample_grid, Antialias, SampleMask};
use super::transfer::decode::decode_at as decode_transfer;
use super::transfer::TransferEvent;

/// A state value a renderer cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// An enumerated register holds a value that is not one of its enumerants.
    #[error("{register} = 0x{value:x} is not a valid value")]
    BadValue {
        /// Register (and field) name, e.g. `NV4097_SET_BLEND_FUNC_SFACTOR (rgb)`.
        register: &'static str,
        /// The raw value.
        value: u32,
    },
}

fn bad(register: &'static str, value: u32) -> StateError {
    StateError::BadValue { register, value }
}

/// A comparison function (depth, stencil, alpha test).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareFunc {
    /// 0x200.
    Never,
    /// 0x201.
    Less,
    /// 0x202.
    Equal,
    /// 0x203.
    LessEqual,
    /// 0x204.
    Greater,
    /// 0x205.
    NotEqual,
    /// 0x206.
    GreaterEqual,
    /// 0x207.
    Always,
}

impl CompareFunc {
    /// Decode 0x200..0x207; RPCS3 ORs in 0x200, so 0..7 name the same functions
    /// (rrc-format.md 4.8).
    pub fn from_raw(v: u32) -> Option<CompareFunc> {
        let v = if v < 8 { v | 0x200 } else { v };
        Some(match v {
            0x200 => CompareFunc::Never,
            0x201 => CompareFunc::Less,
            0x202 => CompareFunc::Equal,
            0x203 => CompareFunc::LessEqual,
            0x204 => CompareFunc::Greater,
            0x205 => CompareFunc::NotEqual,
            0x206 => CompareFunc::GreaterEqual,
            0x207 => CompareFunc::Always,
            _ => return None,
        })
    }

    /// `incoming FUNC stored` (GL order: the new value on the left).
    pub fn test<T: PartialOrd>(self, incoming: T, stored: T) -> bool {
        match self {
            CompareFunc::Never => false,
            CompareFunc::Less => incoming < stored,
            CompareFunc::Equal => incoming == stored,
            CompareFunc::LessEqual => incoming <= stored,
            CompareFunc::Greater => incoming > stored,
            CompareFunc::NotEqual => incoming != stored,
            CompareFunc::GreaterEqual => incoming >= stored,
            CompareFunc::Always => true,
        }
    }
}

/// A stencil operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StencilOp {
    /// 0x1E00.
    Keep,
    /// 0.
    Zero,
    /// 0x1E01.
    Replace,
    /// 0x1E02 (saturating).
    Increment,
    /// 0x1E03 (saturating).
    Decrement,
    /// 0x150A.
    Invert,
    /// 0x8507.
    IncrementWrap,
    /// 0x8508.
    DecrementWrap,
}

impl StencilOp {
    /// Decode a GL stencil-op enum.
    pub fn from_raw(v: u32) -> Option<StencilOp> {
        Some(match v {
            0x1E00 => StencilOp::Keep,
            0 => StencilOp::Zero,
            0x1E01 => StencilOp::Replace,
            0x1E02 => StencilOp::Increment,
            0x1E03 => StencilOp::Decrement,
            0x150A => StencilOp::Invert,
            0x8507 => StencilOp::IncrementWrap,
            0x8508 => StencilOp::DecrementWrap,
            _ => return None,
        })
    }

    /// The new 8-bit stencil value (before the write mask).
    pub fn apply(self, value: u8, reference: u8) -> u8 {
        match self {
            StencilOp::Keep => value,
            StencilOp::Zero => 0,
            StencilOp::Replace => reference,
            StencilOp::Increment => value.saturating_add(1),
            StencilOp::Decrement => value.saturating_sub(1),
            StencilOp::Invert => !value,
            StencilOp::IncrementWrap => value.wrapping_add(1),
            StencilOp::DecrementWrap => value.wrapping_sub(1),
        }
    }
}

/// A blend factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendFactor {
    /// 0.
    Zero,
    /// 1.
    One,
    /// 0x300.
    SrcColor,
    /// 0x301.
    OneMinusSrcColor,
    /// 0x302.
    SrcAlpha,
    /// 0x303.
    OneMinusSrcAlpha,
    /// 0x304.
    DstAlpha,
    /// 0x305.
    OneMinusDstAlpha,
    /// 0x306.
    DstColor,
    /// 0x307.
    OneMinusDstColor,
    /// 0x308.
    SrcAlphaSaturate,
    /// 0x8001.
    ConstantColor,
    /// 0x8002.
    OneMinusConstantColor,
    /// 0x8003.
    ConstantAlpha,
    /// 0x8004.
    OneMinusConstantAlpha,
}

impl BlendFactor {
    /// Decode a GL blend-factor enum (rrc-format.md 4.8).
    pub fn from_raw(v: u32) -> Option<BlendFactor> {
        Some(match v {
            0 => BlendFactor::Zero,
            1 => BlendFactor::One,
            0x300 => BlendFactor::SrcColor,
            0x301 => BlendFactor::OneMinusSrcColor,
            0x302 => BlendFactor::SrcAlpha,
            0x303 => BlendFactor::OneMinusSrcAlpha,
            0x304 => BlendFactor::DstAlpha,
            0x305 => BlendFactor::OneMinusDstAlpha,
            0x306 => BlendFactor::DstColor,
            0x307 => BlendFactor::OneMinusDstColor,
            0x308 => BlendFactor::SrcAlphaSaturate,
            0x8001 => BlendFactor::ConstantColor,
            0x8002 => BlendFactor::OneMinusConstantColor,
            0x8003 => BlendFactor::ConstantAlpha,
            0x8004 => BlendFactor::OneMinusConstantAlpha,
            _ => return None,
        })
    }

    /// The factor for colour channel `c` (0..3 = r, g, b, a) given the source, destination and
    /// constant colours (GL 2.1 table 4.2; alpha of SRC_ALPHA_SATURATE is 1).
    pub fn factor(self, c: usize, src: [f32; 4], dst: [f32; 4], constant: [f32; 4]) -> f32 {
        let ch = |v: [f32; 4]| v.get(c).copied().unwrap_or(0.0);
        match self {
            BlendFactor::Zero => 0.0,
            BlendFactor::One => 1.0,
            BlendFactor::SrcColor => ch(src),
            BlendFactor::OneMinusSrcColor => 1.0 - ch(src),
            BlendFactor::SrcAlpha => src[3],
            BlendFactor::OneMinusSrcAlpha => 1.0 - src[3],
            BlendFactor::DstAlpha => dst[3],
            BlendFactor::OneMinusDstAlpha => 1.0 - dst[3],
            BlendFactor::DstColor => ch(dst),
            BlendFactor::OneMinusDstColor => 1.0 - ch(dst),
            BlendFactor::SrcAlphaSaturate => {
                if c == 3 {
                    1.0
                } else {
                    src[3].min(1.0 - dst[3])
                }
            }
            BlendFactor::ConstantColor => ch(constant),
            BlendFactor::OneMinusConstantColor => 1.0 - ch(constant),
            BlendFactor::ConstantAlpha => constant[3],
            BlendFactor::OneMinusConstantAlpha => 1.0 - constant[3],
        }
    }
}

/// A blend equation.
///
/// The signed variants (RPCS3 `FUNC_ADD_SIGNED` 0xF006, `FUNC_REVERSE_ADD_SIGNED` 0xF007,
/// `FUNC_REVERSE_SUBTRACT_SIGNED` 0xF005) have no public hardware description; RPCS3 emulates
/// them with the unsigned host equations (add, add, reverse subtract), and so do the renderers
/// here ([`BlendEquation::is_signed`] lets them warn).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendEquation {
    /// 0x8006: s·S + d·D.
    Add,
    /// 0x8007: min(S, D) (factors ignored).
    Min,
    /// 0x8008: max(S, D) (factors ignored).
    Max,
    /// 0x800A: s·S − d·D.
    Subtract,
    /// 0x800B: d·D − s·S.
    ReverseSubtract,
    /// 0xF006.
    AddSigned,
    /// 0xF007.
    ReverseAddSigned,
    /// 0xF005.
    ReverseSubtractSigned,
}

impl BlendEquation {
    /// Decode a blend-equation enum; 0 (never set) reads as ADD, the GL default.
    pub fn from_raw(v: u32) -> Option<BlendEquation> {
        Some(match v {
            0 | 0x8006 => BlendEquation::Add,
            0x8007 => BlendEquation::Min,
            0x8008 => BlendEquation::Max,
            0x800A => BlendEquation::Subtract,
            0x800B => BlendEquation::ReverseSubtract,
            0xF006 => BlendEquation::AddSigned,
            0xF007 => BlendEquation::ReverseAddSigned,
            0xF005 => BlendEquation::ReverseSubtractSigned,
            _ => return None,
        })
    }

    /// One of the signed variants.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            BlendEquation::AddSigned
                | BlendEquation::ReverseAddSigned
                | BlendEquation::ReverseSubtractSigned
        )
    }

    /// Combine `src·sf` and `dst·df` (the raw `src`, `dst` for MIN/MAX).
    pub fn combine(self, src: f32, sf: f32, dst: f32, df: f32) -> f32 {
        match self {
            BlendEquation::Add | BlendEquation::AddSigned | BlendEquation::ReverseAddSigned => {
                src * sf + dst * df
            }
            BlendEquation::Min => src.min(dst),
            BlendEquation::Max => src.max(dst),
            BlendEquation::Subtract => src * sf - dst * df,
            BlendEquation::ReverseSubtract | BlendEquation::ReverseSubtractSigned => {
                dst * df - src * sf
            }
        }
    }
}

/// Which faces are culled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CullFace {
    /// 0x0404.
    Front,
    /// 0x0405 (and 0, never set).
    Back,
    /// 0x0408.
    FrontAndBack,
}

impl CullFace {
    /// Decode; 0 reads as BACK, the GL default.
    pub fn from_raw(v: u32) -> Option<CullFace> {
        Some(match v {
            0x0404 => CullFace::Front,
            0 | 0x0405 => CullFace::Back,
            0x0408 => CullFace::FrontAndBack,
            _ => return None,
        })
    }
}

/// Which winding is front facing (on the image with row 0 at the top, see
/// [`crate::raster::coverage`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrontFace {
    /// 0x0900.
    Clockwise,
    /// 0x0901 (and 0, never set).
    CounterClockwise,
}

impl FrontFace {
    /// Decode; 0 reads as CCW, the GL default.
    pub fn from_raw(v: u32) -> Option<FrontFace> {
        Some(match v {
            0x0900 => FrontFace::Clockwise,
            0 | 0x0901 => FrontFace::CounterClockwise,
            _ => return None,
        })
    }
}

/// How a polygon face is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolygonMode {
    /// 0x1B00: vertices as points.
    Point,
    /// 0x1B01: edges as lines.
    Line,
    /// 0x1B02 (and 0, never set).
    Fill,
}

impl PolygonMode {
    /// Decode; 0 reads as FILL, the GL default.
    pub fn from_raw(v: u32) -> Option<PolygonMode> {
        Some(match v {
            0x1B00 => PolygonMode::Point,
            0x1B01 => PolygonMode::Line,
            0 | 0x1B02 => PolygonMode::Fill,
            _ => return None,
        })
    }
}

/// An RSX colour surface format (`CELL_GCM_SURFACE_*`, `SET_SURFACE_FORMAT` bits 0..4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColorFormat {
    /// 1: X1R5G5B5, X bit written as 0.
    X1R5G5B5Z1R5G5B5,
    /// 2: X1R5G5B5, X bit written as 1.
    X1R5G5B5O1R5G5B5,
    /// 3.
    R5G6B5,
    /// 4: X8R8G8B8, X byte written as 0.
    X8R8G8B8Z8R8G8B8,
    /// 5: X8R8G8B8, X byte written as 0xFF.
    X8R8G8B8O8R8G8B8,
    /// 8.
    A8R8G8B8,
    /// 9: one byte, the blue channel.
    B8,
    /// 10: two bytes, green and blue.
    G8B8,
    /// 11: four fp16.
    FloatW16Z16Y16X16,
    /// 12: four fp32.
    FloatW32Z32Y32X32,
    /// 13: one fp32 (red).
    FloatX32,
    /// 14: X8B8G8R8, X byte written as 0.
    X8B8G8R8Z8B8G8R8,
    /// 15: X8B8G8R8, X byte written as 0xFF.
    X8B8G8R8O8B8G8R8,
    /// 16.
    A8B8G8R8,
}

impl ColorFormat {
    /// Decode `SET_SURFACE_FORMAT` bits 0..4 (rrc-format.md 4.8).
    pub fn from_raw(v: u32) -> Option<ColorFormat> {
        Some(match v {
            1 => ColorFormat::X1R5G5B5Z1R5G5B5,
            2 => ColorFormat::X1R5G5B5O1R5G5B5,
            3 => ColorFormat::R5G6B5,
            4 => ColorFormat::X8R8G8B8Z8R8G8B8,
            5 => ColorFormat::X8R8G8B8O8R8G8B8,
            8 => ColorFormat::A8R8G8B8,
            9 => ColorFormat::B8,
            10 => ColorFormat::G8B8,
            11 => ColorFormat::FloatW16Z16Y16X16,
            12 => ColorFormat::FloatW32Z32Y32X32,
            13 => ColorFormat::FloatX32,
            14 => ColorFormat::X8B8G8R8Z8B8G8R8,
            15 => ColorFormat::X8B8G8R8O8B8G8R8,
            16 => ColorFormat::A8B8G8R8,
            _ => return None,
        })
    }

    /// Every format, in register order.
    pub const ALL: [ColorFormat; 14] = [
        ColorFormat::X1R5G5B5Z1R5G5B5,
        ColorFormat::X1R5G5B5O1R5G5B5,
        ColorFormat::R5G6B5,
        ColorFormat::X8R8G8B8Z8R8G8B8,
        ColorFormat::X8R8G8B8O8R8G8B8,
        ColorFormat::A8R8G8B8,
        ColorFormat::B8,
        ColorFormat::G8B8,
        ColorFormat::FloatW16Z16Y16X16,
        ColorFormat::FloatW32Z32Y32X32,
        ColorFormat::FloatX32,
        ColorFormat::X8B8G8R8Z8B8G8R8,
        ColorFormat::X8B8G8R8O8B8G8R8,
        ColorFormat::A8B8G8R8,
    ];

    /// The lowercase name `rsxtrace_capture::frame::state` uses.
    pub fn name(self) -> &'static str {
        match self {
            ColorFormat::X1R5G5B5Z1R5G5B5 => "x1r5g5b5_z1r5g5b5",
            ColorFormat::X1R5G5B5O1R5G5B5 => "x1r5g5b5_o1r5g5b5",
            ColorFormat::R5G6B5 => "r5g6b5",
            ColorFormat::X8R8G8B8Z8R8G8B8 => "x8r8g8b8_z8r8g8b8",
            ColorFormat::X8R8G8B8O8R8G8B8 => "x8r8g8b8_o8r8g8b8",
            ColorFormat::A8R8G8B8 => "a8r8g8b8",
            ColorFormat::B8 => "b8",
            ColorFormat::G8B8 => "g8b8",
            ColorFormat::FloatW16Z16Y16X16 => "w16z16y16x16",
            ColorFormat::FloatW32Z32Y32X32 => "w32z32y32x32",
            ColorFormat::FloatX32 => "x32",
            ColorFormat::X8B8G8R8Z8B8G8R8 => "x8b8g8r8_z8b8g8r8",
            ColorFormat::X8B8G8R8O8B8G8R8 => "x8b8g8r8_o8b8g8r8",
            ColorFormat::A8B8G8R8 => "a8b8g8r8",
        }
    }

    /// A float format (no [0, 1] clamp on write, blending in float).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ColorFormat::FloatW16Z16Y16X16 | ColorFormat::FloatW32Z32Y32X32 | ColorFormat::FloatX32
        )
    }
}

/// An RSX depth/stencil format (`SET_SURFACE_FORMAT` bits 5..7, and `SET_CONTROL0` bit 12 for
/// the float variants, `Surface::depth_float`). The float variants keep the unorm variants'
/// sizes and byte layout (RPCS3 `surface_depth_fmt`; `cs_shuffle_d32fx8_to_x8d24f`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DepthFormat {
    /// 1: 16-bit unsigned normalized depth, no stencil.
    Z16,
    /// 2: 24-bit depth and 8-bit stencil.
    Z24S8,
    /// 1 with float depth: an IEEE half, no stencil.
    Z16Float,
    /// 2 with float depth: a 24-bit float (8-bit exponent, 16-bit mantissa, no sign: the f32
    /// bits >> 7) and 8-bit stencil.
    Z24S8Float,
}

impl DepthFormat {
    /// The lowercase name (`z16`, `z24s8`, `z16_float`, `z24s8_float`).
    pub fn name(self) -> &'static str {
        match self {
            DepthFormat::Z16 => "z16",
            DepthFormat::Z24S8 => "z24s8",
            DepthFormat::Z16Float => "z16_float",
            DepthFormat::Z24S8Float => "z24s8_float",
        }
    }

    /// Decode bits 5..7 and the float switch.
    pub fn from_raw(v: u32, float: bool) -> Option<DepthFormat> {
        match (v, float) {
            (1, false) => Some(DepthFormat::Z16),
            (2, false) => Some(DepthFormat::Z24S8),
            (1, true) => Some(DepthFormat::Z16Float),
            (2, true) => Some(DepthFormat::Z24S8Float),
            _ => None,
        }
    }

    /// A surface's depth format.
    pub fn of(surface: &rsxtrace_capture::frame::state::Surface) -> Option<DepthFormat> {
        DepthFormat::from_raw(surface.format.depth_format.raw, surface.depth_float)
    }

    /// The format has a stencil byte.
    pub fn has_stencil(self) -> bool {
        matches!(self, DepthFormat::Z24S8 | DepthFormat::Z24S8Float)
    }

    /// The format stores floats.
    pub fn is_float(self) -> bool {
        matches!(self, DepthFormat::Z16Float | DepthFormat::Z24S8Float)
    }

    /// The polygon-offset unit r of a primitive whose largest depth is `max_z`: the smallest
    /// step of a fixed-point format, and 2^(e − m) for a float format, `e` the exponent of
    /// `max_z` and `m` the format's mantissa bits (GL 4.6 section 14.6.5).
    pub fn resolution(self, max_z: f64) -> f64 {
        let float_step = |mantissa_bits: i32, min_exponent: i32| {
            let e = if max_z > 0.0 {
                (max_z.log2().floor() as i32).max(min_exponent)
            } else {
                min_exponent
            };
            2f64.powi(e - mantissa_bits)
        };
        match self {
            DepthFormat::Z16 => 1.0 / 65535.0,
            DepthFormat::Z24S8 => 1.0 / 16_777_215.0,
            DepthFormat::Z16Float => float_step(10, -14),
            DepthFormat::Z24S8Float => float_step(16, -126),
        }
    }
}

/// The colour targets written, from `SET_SURFACE_COLOR_TARGET` (rrc-format.md 4.8: 0 none,
/// 1 A, 2 B, 0x13 A+B, 0x17 A+B+C, 0x1F A+B+C+D). Indices 0..4 = A..D; fragment colour output
/// `n` goes to the `n`-th listed target (RPCS3 `get_rtt_indexes`: B alone receives output 0).
pub fn color_targets(raw: u32) -> Option<Vec<usize>> {
    Some(match raw {
        0 => vec![],
        1 => vec![0],
        2 => vec![1],
        0x13 => vec![0, 1],
        0x17 => vec![0, 1, 2],
        0x1F => vec![0, 1, 2, 3],
        _ => return None,
    })
}

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
    /// replaces blending on fixed-point targets (RPCS3 `GLDraw.cpp`: "LogicOp and Blend are
    /// mutually exclusive. If both are enabled, LogicOp takes precedence").
    pub logic_op: Option<u32>,
    /// The colour outputs' R, G and B are encoded to sRGB before the 8-bit write rule, the
    /// alpha test and blending (`render::color8::linear_to_srgb`): `SET_SHADER_PACKER` is
    /// non-zero, the surface is not a float one and the program exports 16-bit registers
    /// (RPCS3 `RSX_SHADER_CONTROL_SRGB_FRAMEBUFFER`, "Cannot output sRGB from 32-bit
    /// registers"; `RSXROPEpilogue.glsl`).
    pub srgb_output: bool,
    /// The samples a draw into a multisampled surface may write (`None`: every one).
    pub sample_mask: Option<SampleMask>,
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
        let blend = blend_settings(draw, color_format)?;
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

/// `CLEAR_SURFACE` mask bits (rrc-format.md 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClearMask {
    /// 0x01.
    pub depth: bool,
    /// 0x02.
    pub stencil: bool,
    /// 0x10, 0x20, 0x40, 0x80: R, G, B, A.
    pub color: [bool; 4],
}

impl ClearMask {
    /// Decode a `CLEAR_SURFACE` argument.
    pub fn from_raw(v: u32) -> ClearMask {
        ClearMask {
            depth: v & 0x01 != 0,
            stencil: v & 0x02 != 0,
            color: [v & 0x10 != 0, v & 0x20 != 0, v & 0x40 != 0, v & 0x80 != 0],
        }
    }

    /// Clears any colour channel.
    pub fn any_color(&self) -> bool {
        self.color.iter().any(|&c| c)
    }
}

/// One `CLEAR_SURFACE` with the state it clears under.
#[derive(Clone, Debug, PartialEq)]
pub struct ClearEvent {
    /// Command index of the `CLEAR_SURFACE`.
    pub command: usize,
    /// It happens before draw `before_draw` (= the number of draws ended before it).
    pub before_draw: usize,
    /// What it clears.
    pub mask: ClearMask,
    /// Surface state at the clear.
    pub surface: Surface,
    /// Scissor at the clear (RPCS3 clears the scissored area).
    pub scissor: Rect,
    /// `SET_COLOR_CLEAR_VALUE` (ARGB8).
    pub color_value: u32,
    /// `SET_ZSTENCIL_CLEAR_VALUE` (Z24S8: depth << 8 | stencil; Z16: low 16 bits).
    pub zstencil_value: u32,
}

impl ClearEvent {
    /// The pixels it writes, in the surface's memory grid: the scissor (RPCS3 clears the
    /// scissored area, `VKGSRender::clear_surface`) within the surface clip's size, in window
    /// pixels as a draw's bounds ([`window_clip`]), moved by the window offset (RPCS3 clears
    /// the framebuffer whose base the offset moved), all scaled to the sample grid of a
    /// multisampled surface, which clears its whole grid (`super::msaa`). Both renderers
    /// clear this area (clipped to their targets).
    pub fn area(&self) -> PixelRect {
        let s = &self.surface;
        let grid = Antialias::of(s).grid();
        let window = rect_pixels(&self.scissor).intersect(&window_clip(s));
        let offset = (u32::from(s.window_offset_x), u32::from(s.window_offset_y));
        grid_pixels(window.moved_by(offset), grid)
    }

    /// The clear colour of a `format` target as RGBA floats (which the target's encoding
    /// stores), with the channels the mask clears; `None` where a colour clear writes
    /// nothing. RPCS3's rules (`VKGSRender::clear_surface`, `color_utils.h`): the clear
    /// value is copied to the pixel as it is, "RSX clear color is just a memcpy":
    /// - ARGB8 formats: A, R, G, B from bytes 3, 2, 1, 0 of `SET_COLOR_CLEAR_VALUE`;
    /// - A8B8G8R8 and the X8B8G8R8 pair: the same bytes in memory, so the format's R channel
    ///   takes byte 0 and its B channel byte 2, and the R and B mask bits trade places
    ///   (`get_abgr8_clear_color`, `get_abgr8_clearmask`);
    /// - R5G6B5: the low 16 bits are the pixel (`get_rgb565_clear_color`); X1R5G5B5: the low
    ///   15 bits, the X bit as the format writes it (`get_a1rgb555_clear_color`);
    /// - fp16 and fp32 targets: no colour clear (RPCS3 NOPs it).
    pub fn color_for(&self, format: ColorFormat) -> Option<([f32; 4], [bool; 4])> {
        let v = self.color_value;
        let c = |shift: u32| ((v >> shift) & 0xFF) as f32 / 255.0;
        let field = |shift: u32, bits: u32| {
            ((v >> shift) & ((1 << bits) - 1)) as f32 / ((1u32 << bits) - 1) as f32
        };
        let mask = self.mask.color;
        Some(match format {
            ColorFormat::FloatW16Z16Y16X16
            | ColorFormat::FloatW32Z32Y32X32
            | ColorFormat::FloatX32 => return None,
            ColorFormat::A8B8G8R8
            | ColorFormat::X8B8G8R8Z8B8G8R8
            | ColorFormat::X8B8G8R8O8B8G8R8 => (
                [c(0), c(8), c(16), c(24)],
                [mask[2], mask[1], mask[0], mask[3]],
            ),
            ColorFormat::R5G6B5 => ([field(11, 5), field(5, 6), field(0, 5), 1.0], mask),
            ColorFormat::X1R5G5B5Z1R5G5B5 | ColorFormat::X1R5G5B5O1R5G5B5 => {
                ([field(10, 5), field(5, 5), field(0, 5), 1.0], mask)
            }
            _ => ([c(16), c(8), c(0), c(24)], mask),
        })
    }

    /// The colour targets it clears (0..4 = A..D); an invalid target register clears none.
    pub fn color_targets(&self) -> Vec<usize> {
        color_targets(self.surface.color_target.raw).unwrap_or_default()
    }
}

/// An occlusion report command with its place in the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportEvent {
    /// Its command index.
    pub command: usize,
    /// It happens before draw `before_draw` (= the number of draws ended before it).
    pub before_draw: usize,
    /// What it does.
    pub op: ReportOp,
}

/// What a report command does (RPCS3 `nv4097::clear_report_value`, `nv4097::get_report`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportOp {
    /// `CLEAR_REPORT_VALUE`: zero the counter of `report_type` (1: `ZPASS_PIXEL_CNT`).
    Clear {
        /// The value written (the report type).
        report_type: u32,
    },
    /// `SET_RENDER_ENABLE`: mode 1 renders every draw after it; mode 2 only while the report
    /// at `offset` of `report_dma`, as it is at this command, holds a sample (RPCS3
    /// `nv4097::set_render_mode` evaluates it here, `thread::enable_conditional_rendering`);
    /// another mode changes nothing.
    RenderEnable {
        /// Bits 24..31.
        mode: u8,
        /// Bits 0..23.
        offset: u32,
        /// `SET_CONTEXT_DMA_REPORT` raw.
        report_dma: u32,
    },
    /// `GET_REPORT`: write the counter of `report_type` as a report at `offset` in the report
    /// area `report_dma` (`SET_CONTEXT_DMA_REPORT` at the command).
    Get {
        /// Bits 24..31.
        report_type: u8,
        /// Bits 0..23.
        offset: u32,
        /// `SET_CONTEXT_DMA_REPORT` raw.
        report_dma: u32,
    },
}

impl ReportOp {
    /// The report command of a method call (`regs`: the register file after it), if it is
    /// one.
    pub fn decode(register: u16, value: u32, regs: &[u32]) -> Option<ReportOp> {
        let report_dma = regs
            .get(usize::from(reg::SET_CONTEXT_DMA_REPORT))
            .copied()
            .unwrap_or(0);
        match register {
            reg::CLEAR_REPORT_VALUE => Some(ReportOp::Clear { report_type: value }),
            reg::SET_RENDER_ENABLE => Some(ReportOp::RenderEnable {
                mode: (value >> 24) as u8,
                offset: value & 0x00FF_FFFF,
                report_dma,
            }),
            reg::GET_REPORT => Some(ReportOp::Get {
                report_type: (value >> 24) as u8,
                offset: value & 0x00FF_FFFF,
                report_dma,
            }),
            _ => None,
        }
    }
}

/// What a frame's method stream says besides its draws: clears, image transfers and the
/// display buffers. (Every register a draw reads is decoded into its `Draw`, so no per-draw
/// registers are scanned here.) The default holds no clears, no transfers and no display
/// buffers: what a renderer knows from a `Frame` alone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameEvents {
    /// Clears in stream order.
    pub clears: Vec<ClearEvent>,
    /// Image transfers (`NV0039`, `NV3089`) in stream order.
    pub transfers: Vec<TransferEvent>,
    /// Display buffers recorded with the capture (the last state attached to any command).
    pub display_buffers: Vec<BufferState>,
    /// Occlusion report commands (`CLEAR_REPORT_VALUE`, `GET_REPORT`, `SET_RENDER_ENABLE`)
    /// in stream order.
    pub reports: Vec<ReportEvent>,
    /// `SET_RENDER_ENABLE` as the frame begins (the capture's register state: set before
    /// it), as a [`ReportOp::RenderEnable`]; `None` for no conditional rendering.
    pub initial_render_enable: Option<ReportOp>,
}

impl FrameEvents {
    /// Scan `capture` (the one `frame` was decoded from): the register file is replayed from
    /// the captured one through every method call, recording each `CLEAR_SURFACE` with the
    /// surface state in effect and the number of draws before it, and each transfer with its
    /// registers decoded ([`crate::render::transfer::decode`]). A malformed stretch of the
    /// method stream is skipped as the frame model skips it (its problems name it).
    pub fn from_capture(capture: &Capture, frame: &Frame) -> FrameEvents {
        let mut regs = capture.reg_state.registers.clone();
        let initial_render_enable = regs
            .get(usize::from(reg::SET_RENDER_ENABLE))
            .and_then(|&v| ReportOp::decode(reg::SET_RENDER_ENABLE, v, &regs));
        let mut clears = Vec::new();
        let mut transfers = Vec::new();
        let mut reports = Vec::new();
        let mut next_draw = 0usize;
        let r = |regs: &[u32], i: u16| regs.get(usize::from(i)).copied().unwrap_or(0);
        for call in method_calls(&capture.commands) {
            let Ok(call) = call else { continue };
            while let Some(d) = frame.draws.get(next_draw) {
                if d.end_command >= call.command_index {
                    break;
                }
                next_draw += 1;
            }
            if let Some(x) = regs.get_mut(usize::from(call.reg)) {
                *x = call.value;
            }
            if call.reg == reg::CLEAR_SURFACE {
                clears.push(ClearEvent {
                    command: call.command_index,
                    before_draw: next_draw,
                    mask: ClearMask::from_raw(call.value),
                    surface: Surface::from_regs(&regs),
                    scissor: Rect::from_regs(
                        r(&regs, reg::SET_SCISSOR_HORIZONTAL),
                        r(&regs, reg::SET_SCISSOR_VERTICAL),
                    ),
                    color_value: r(&regs, reg::SET_COLOR_CLEAR_VALUE),
                    zstencil_value: r(&regs, reg::SET_ZSTENCIL_CLEAR_VALUE),
                });
            }
            if let Some(op) = ReportOp::decode(call.reg, call.value, &regs) {
                reports.push(ReportEvent {
                    command: call.command_index,
                    before_draw: next_draw,
                    op,
                });
            }
            if let Some(transfer) = decode_transfer(call.reg, &regs, call.command_index) {
                transfers.push(TransferEvent {
                    command: call.command_index,
                    before_draw: next_draw,
                    transfer,
                });
            }
        }
        let display_buffers = capture
            .commands
            .iter()
            .rev()
            .find(|c| c.display_buffer_state != 0)
            .and_then(|c| {
                capture
                    .display_buffers
                    .iter()
                    .find(|e| e.id == c.display_buffer_state)
            })
            .map(|e| {
                let n = (e.value.count as usize).min(e.value.buffers.len());
                e.value.buffers.iter().take(n).copied().collect()
            })
            .unwrap_or_default();
        FrameEvents {
            clears,
            transfers,
            display_buffers,
            reports,
            initial_render_enable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_functions_accept_both_encodings() {
        assert_eq!(CompareFunc::from_raw(0x203), Some(CompareFunc::LessEqual));
        assert_eq!(CompareFunc::from_raw(3), Some(CompareFunc::LessEqual));
        assert_eq!(CompareFunc::from_raw(0x208), None);
        assert!(CompareFunc::Less.test(1, 2) && !CompareFunc::Less.test(2, 2));
        assert!(CompareFunc::GreaterEqual.test(2, 2) && !CompareFunc::Never.test(0, 0));
    }

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

    #[test]
    fn colour_targets_and_formats() {
        assert_eq!(color_targets(0x17), Some(vec![0, 1, 2]));
        assert_eq!(color_targets(2), Some(vec![1]));
        assert_eq!(color_targets(3), None);
        for f in ColorFormat::ALL {
            let raw = (1..=16)
                .find(|&r| ColorFormat::from_raw(r) == Some(f))
                .unwrap();
            // The names match the frame model's table.
            let named = rsxtrace_capture::frame::state::SurfaceFormat::from_raw(raw);
            assert_eq!(named.color_format.name, Some(f.name()));
        }
        assert_eq!(ColorFormat::from_raw(6), None);
    }
}
