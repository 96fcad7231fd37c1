//! The fixed-function enumerants a draw uses: comparison functions, stencil operations, blend
//! factors and equations, cull face, front face and polygon mode, each decoded from both
//! encodings the registers take.

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
}
