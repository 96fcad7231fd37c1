//! Colour and depth surface formats (`SET_SURFACE_FORMAT`) and the colour targets
//! `SET_SURFACE_COLOR_TARGET` selects.

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

#[cfg(test)]
mod tests {
    use super::*;

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
