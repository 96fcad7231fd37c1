//! Render-target (surface) state: format, targets, offsets, pitches, DMA locations, clip and
//! window offset (rrc-format.md 4.8 "Surfaces"; names from RPCS3 `gcm_enums.h`).

use super::{bits, r, Named, Rect};
use crate::methods::reg;
use rsxtrace_rrc::Location;
use serde::Serialize;

const COLOR_FORMATS: &[(u32, &str)] = &[
    (1, "x1r5g5b5_z1r5g5b5"),
    (2, "x1r5g5b5_o1r5g5b5"),
    (3, "r5g6b5"),
    (4, "x8r8g8b8_z8r8g8b8"),
    (5, "x8r8g8b8_o8r8g8b8"),
    (8, "a8r8g8b8"),
    (9, "b8"),
    (10, "g8b8"),
    (11, "w16z16y16x16"),
    (12, "w32z32y32x32"),
    (13, "x32"),
    (14, "x8b8g8r8_z8b8g8r8"),
    (15, "x8b8g8r8_o8b8g8r8"),
    (16, "a8b8g8r8"),
];
const DEPTH_FORMATS: &[(u32, &str)] = &[(1, "z16"), (2, "z24s8")];
const SURFACE_TYPES: &[(u32, &str)] = &[(1, "pitch"), (2, "swizzle")];
const ANTIALIAS: &[(u32, &str)] = &[
    (0, "center_1_sample"),
    (3, "diagonal_centered_2_samples"),
    (4, "square_centered_4_samples"),
    (5, "square_rotated_4_samples"),
];
const TARGETS: &[(u32, &str)] = &[
    (0, "none"),
    (1, "a"),
    (2, "b"),
    (0x13, "a_b"),
    (0x17, "a_b_c"),
    (0x1F, "a_b_c_d"),
];

/// `SET_SURFACE_FORMAT` fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SurfaceFormat {
    /// Bits 0..4.
    pub color_format: Named,
    /// Bits 5..7.
    pub depth_format: Named,
    /// Bits 8..11: pitch (linear) or swizzle.
    pub surface_type: Named,
    /// Bits 12..15.
    pub antialias: Named,
    /// Bits 16..23.
    pub log2_width: u8,
    /// Bits 24..31.
    pub log2_height: u8,
}

impl SurfaceFormat {
    /// Decode a `SET_SURFACE_FORMAT` value.
    pub fn from_raw(v: u32) -> SurfaceFormat {
        SurfaceFormat {
            color_format: Named::lookup(bits(v, 0, 5), COLOR_FORMATS),
            depth_format: Named::lookup(bits(v, 5, 3), DEPTH_FORMATS),
            surface_type: Named::lookup(bits(v, 8, 4), SURFACE_TYPES),
            antialias: Named::lookup(bits(v, 12, 4), ANTIALIAS),
            log2_width: bits(v, 16, 8) as u8,
            log2_height: bits(v, 24, 8) as u8,
        }
    }
}

/// Decode a `SET_SURFACE_COLOR_TARGET` value.
pub fn color_target(v: u32) -> Named {
    Named::lookup(v, TARGETS)
}

/// One render target: offset, pitch and memory location (from its context DMA register).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SurfaceTarget {
    /// Offset register.
    pub offset: u32,
    /// Pitch register.
    pub pitch: u32,
    /// Context DMA: 0xFEED0000 local, 0xFEED0001 main; `None` for other handles.
    pub location: Option<Location>,
    /// The raw context DMA handle.
    pub dma: u32,
}

/// The complete surface state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Surface {
    /// `SET_SURFACE_FORMAT`.
    pub format: SurfaceFormat,
    /// `SET_SURFACE_COLOR_TARGET`.
    pub color_target: Named,
    /// Colour targets A, B, C, D.
    pub color: [SurfaceTarget; 4],
    /// Depth/stencil target.
    pub zeta: SurfaceTarget,
    /// `SET_SURFACE_CLIP_HORIZONTAL` / `VERTICAL`.
    pub clip: Rect,
    /// `SET_WINDOW_OFFSET` x (bits 0..15).
    pub window_offset_x: u16,
    /// `SET_WINDOW_OFFSET` y (bits 16..31).
    pub window_offset_y: u16,
    /// `SET_CONTROL0` bit 12: the depth buffer stores floats (Z16 an IEEE half, Z24S8 a
    /// 24-bit float with an 8-bit exponent and a 16-bit mantissa) instead of unsigned
    /// normalized integers (RPCS3 `rsx_decode.h` `depth_float`, `rsx_methods.h`
    /// `surface_depth_fmt`).
    pub depth_float: bool,
}

impl Surface {
    /// Decode from a register file.
    pub fn from_regs(regs: &[u32]) -> Surface {
        let target = |offset: u16, pitch: u16, dma: u16| {
            let dma = r(regs, dma);
            SurfaceTarget {
                offset: r(regs, offset),
                pitch: r(regs, pitch),
                location: Location::from_raw(dma),
                dma,
            }
        };
        let window = r(regs, reg::SET_WINDOW_OFFSET);
        Surface {
            format: SurfaceFormat::from_raw(r(regs, reg::SET_SURFACE_FORMAT)),
            color_target: color_target(r(regs, reg::SET_SURFACE_COLOR_TARGET)),
            color: [
                target(
                    reg::SET_SURFACE_COLOR_AOFFSET,
                    reg::SET_SURFACE_PITCH_A,
                    reg::SET_CONTEXT_DMA_COLOR_A,
                ),
                target(
                    reg::SET_SURFACE_COLOR_BOFFSET,
                    reg::SET_SURFACE_PITCH_B,
                    reg::SET_CONTEXT_DMA_COLOR_B,
                ),
                target(
                    reg::SET_SURFACE_COLOR_COFFSET,
                    reg::SET_SURFACE_PITCH_C,
                    reg::SET_CONTEXT_DMA_COLOR_C,
                ),
                target(
                    reg::SET_SURFACE_COLOR_DOFFSET,
                    reg::SET_SURFACE_PITCH_D,
                    reg::SET_CONTEXT_DMA_COLOR_D,
                ),
            ],
            zeta: target(
                reg::SET_SURFACE_ZETA_OFFSET,
                reg::SET_SURFACE_PITCH_Z,
                reg::SET_CONTEXT_DMA_ZETA,
            ),
            clip: Rect::from_regs(
                r(regs, reg::SET_SURFACE_CLIP_HORIZONTAL),
                r(regs, reg::SET_SURFACE_CLIP_VERTICAL),
            ),
            window_offset_x: window as u16,
            window_offset_y: (window >> 16) as u16,
            depth_float: bits(r(regs, reg::SET_CONTROL0), 12, 1) != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surface_format_bits() {
        // log2 h 9, log2 w 10, aa 0, type 1 (pitch), depth 2 (z24s8 = 0b010 << 5 = 0x40), color 8.
        let f = SurfaceFormat::from_raw(0x090A_0148);
        assert_eq!(f.color_format.name, Some("a8r8g8b8"));
        assert_eq!(f.depth_format.name, Some("z24s8"));
        assert_eq!(f.surface_type.name, Some("pitch"));
        assert_eq!(f.antialias.name, Some("center_1_sample"));
        assert_eq!((f.log2_width, f.log2_height), (10, 9));
        let f = SurfaceFormat::from_raw(0x0000_5000 | 0x2 | (1 << 5) | 0x200);
        assert_eq!(f.color_format.name, Some("x1r5g5b5_o1r5g5b5"));
        assert_eq!(f.depth_format.name, Some("z16"));
        assert_eq!(f.surface_type.name, Some("swizzle"));
        assert_eq!(f.antialias.name, Some("square_rotated_4_samples"));
    }

    #[test]
    fn surface_registers() {
        let mut regs = vec![0u32; 0x4000];
        regs[0x0208 / 4] = 0x090A_0148;
        regs[0x0220 / 4] = 0x13;
        regs[0x0210 / 4] = 0x0010_0000;
        regs[0x020C / 4] = 5120;
        regs[0x0194 / 4] = 0xFEED_0000;
        regs[0x0218 / 4] = 0x0020_0000;
        regs[0x018C / 4] = 0xFEED_0001;
        regs[0x0198 / 4] = 0x1234;
        regs[0x0200 / 4] = (1280 << 16) | 4;
        regs[0x0204 / 4] = (720 << 16) | 8;
        regs[0x02B8 / 4] = (3 << 16) | 2;
        let s = Surface::from_regs(&regs);
        assert_eq!(s.color_target.name, Some("a_b"));
        assert_eq!(s.color[0].offset, 0x0010_0000);
        assert_eq!(s.color[0].pitch, 5120);
        assert_eq!(s.color[0].location, Some(Location::Local));
        assert_eq!(s.color[1].location, Some(Location::Main));
        assert_eq!(s.zeta.location, None);
        assert_eq!(
            s.clip,
            Rect {
                x: 4,
                y: 8,
                width: 1280,
                height: 720
            }
        );
        assert_eq!((s.window_offset_x, s.window_offset_y), (2, 3));
        assert!(!s.depth_float);
        regs[0x03B0 / 4] = 0x0010_0000; // CONTROL0 reset value: fixed-point depth
        assert!(!Surface::from_regs(&regs).depth_float);
        regs[0x03B0 / 4] = 0x0010_1000; // bit 12
        assert!(Surface::from_regs(&regs).depth_float);
        let j = serde_json::to_value(s).unwrap();
        assert_eq!(j["format"]["color_format"], "a8r8g8b8");
        assert_eq!(j["color"][1]["location"], "main");
    }
}
