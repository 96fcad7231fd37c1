//! Point, line and polygon rasterization controls: point size, point sprites, line width,
//! line and polygon stipple, smooth (antialiased) lines and polygons.
//!
//! Register layouts (addresses from RPCS3 `rsx_methods` / the frame model's method table):
//! - `SET_POINT_SIZE` 0x1EE0: an f32 (RPCS3 `rsx_decode.h` `point_size`).
//! - `SET_LINE_WIDTH` 0x03B8: 6.3 fixed point, `value / 8` (RPCS3 `rsx_decode.h`
//!   `line_width`: `(value >> 3) + (value & 7) / 8`; libgcm `cellGcmSetLineWidth(5*8)` is 5.0).
//! - `SET_LINE_SMOOTH_ENABLE` 0x03BC, `SET_POLY_SMOOTH_ENABLE` 0x1838,
//!   `SET_LINE_STIPPLE` 0x1DB4 (enable), `SET_POLYGON_STIPPLE` 0x147C (enable): booleans.
//! - `SET_LINE_STIPPLE_PATTERN` 0x1DB8: pattern in bits 16..31, factor field in bits 0..7
//!   (the primitives test's `cellGcmSetLineStipplePattern` disassembles to
//!   `pattern << 16 | (factor & 0xFF)`; Mesa `nv30_state.c` writes
//!   `line_stipple_pattern << 16 | line_stipple_factor`). The factor field holds the GL repeat
//!   count **minus one**: Mesa passes gallium's `line_stipple_factor`, which `p_state.h`
//!   defines as the repeat minus one (`st_atom_rasterizer.c`: `StippleFactor - 1`), so the
//!   repeat is `field + 1` (1..=256, GL's range, which an 8-bit field can only hold this way).
//! - `SET_POLYGON_STIPPLE_PATTERN` 0x1480..0x14FC: 32 words, word `k` is pattern row `k`, bit
//!   `31 − column` (GL's unpacking, most significant bit first; Mesa `nvfx` sends gallium's 32
//!   words unchanged and gallium tests `bit31 >> (x % 32)`, softpipe `sp_quad_stipple.c`).
//! - `SET_POINT_SPRITE_CONTROL` 0x1EE8: enable bit 0, R mode bits 1..2, texture-coordinate
//!   replace mask bits 8..17 (TEX0..TEX9; RPCS3 `rsx_decode.h` `enabled` / `texcoord_mask`,
//!   libgcm `enable | rmode << 1 | texcoordMask`).

use super::{bits, r};
use serde::Serialize;

/// Register indices of the controls (the one table, `crate::methods::reg`).
use crate::methods::reg as regs;

/// `SET_LINE_STIPPLE` and `SET_LINE_STIPPLE_PATTERN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LineStipple {
    /// `SET_LINE_STIPPLE`.
    pub enabled: bool,
    /// Pattern bits 16..31: bit `b` is fragment group `b` along the line.
    pub pattern: u16,
    /// Each pattern bit covers `repeat` fragments: the factor field (bits 0..7) plus one.
    pub repeat: u16,
}

/// `SET_POLYGON_STIPPLE` and its 32-word pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PolygonStipple {
    /// `SET_POLYGON_STIPPLE`.
    pub enabled: bool,
    /// `SET_POLYGON_STIPPLE_PATTERN[0..32]`: row `k`, bit `31 − column`.
    pub pattern: [u32; 32],
}

impl PolygonStipple {
    /// Whether the pattern keeps window pixel (`x`, `y`) (`y` counted as the fragment
    /// program's WPOS counts rows): bit `31 − x mod 32` of row `y mod 32` (GL 2.1 3.5.6).
    pub fn keeps(&self, x: u32, y: u32) -> bool {
        let row = self.pattern[(y % 32) as usize];
        row & (0x8000_0000u32 >> (x % 32)) != 0
    }
}

/// `SET_POINT_SPRITE_CONTROL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PointSprite {
    /// Raw value.
    pub raw: u32,
    /// Bit 0.
    pub enabled: bool,
    /// Bits 1..2: what the sprite's r coordinate is (0 zero, 1 the vertex's r, 2 s; libgcm
    /// `CELL_GCM_POINT_SPRITE_RMODE_*`).
    pub r_mode: u8,
    /// Bits 8..17: texture coordinates TEX0..TEX9 replaced by the sprite coordinate.
    pub texcoord_mask: u16,
}

impl PointSprite {
    /// Decode a register value.
    pub fn from_raw(v: u32) -> PointSprite {
        PointSprite {
            raw: v,
            enabled: v & 1 != 0,
            r_mode: bits(v, 1, 2) as u8,
            texcoord_mask: bits(v, 8, 10) as u16,
        }
    }
}

/// Point, line and polygon rasterization controls of a draw.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PrimitiveControls {
    /// `SET_POINT_SIZE` as written (the renderers draw at least one pixel).
    pub point_size: f32,
    /// `SET_LINE_WIDTH` in pixels (6.3 fixed point).
    pub line_width: f32,
    /// `SET_LINE_SMOOTH_ENABLE`.
    pub line_smooth: bool,
    /// `SET_POLY_SMOOTH_ENABLE`.
    pub polygon_smooth: bool,
    /// Line stipple.
    pub line_stipple: LineStipple,
    /// Polygon stipple.
    pub polygon_stipple: PolygonStipple,
    /// Point sprites.
    pub point_sprite: PointSprite,
}

impl PrimitiveControls {
    /// Decode from a register file.
    pub fn from_regs(regs: &[u32]) -> PrimitiveControls {
        let stipple = r(regs, regs::SET_LINE_STIPPLE_PATTERN);
        PrimitiveControls {
            point_size: f32::from_bits(r(regs, regs::SET_POINT_SIZE)),
            line_width: r(regs, regs::SET_LINE_WIDTH) as f32 / 8.0,
            line_smooth: r(regs, regs::SET_LINE_SMOOTH_ENABLE) != 0,
            polygon_smooth: r(regs, regs::SET_POLY_SMOOTH_ENABLE) != 0,
            line_stipple: LineStipple {
                enabled: r(regs, regs::SET_LINE_STIPPLE) != 0,
                pattern: (stipple >> 16) as u16,
                repeat: bits(stipple, 0, 8) as u16 + 1,
            },
            polygon_stipple: PolygonStipple {
                enabled: r(regs, regs::SET_POLYGON_STIPPLE) != 0,
                pattern: std::array::from_fn(|k| {
                    r(regs, regs::SET_POLYGON_STIPPLE_PATTERN + k as u16)
                }),
            },
            point_sprite: PointSprite::from_raw(r(regs, regs::SET_POINT_SPRITE_CONTROL)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_decode_from_their_registers() {
        let mut regs = vec![0u32; 0x4000];
        regs[0x1EE0 / 4] = 5.0f32.to_bits();
        regs[0x03B8 / 4] = 5 * 8 + 4; // 5.5 in 6.3 fixed point
        regs[0x03BC / 4] = 1;
        regs[0x1DB4 / 4] = 1;
        regs[0x1DB8 / 4] = 0xF0F0_0002; // pattern 0xF0F0, factor field 2: repeat 3
        regs[0x147C / 4] = 1;
        regs[0x1480 / 4] = 0x8000_0001;
        regs[0x1480 / 4 + 31] = 0x4000_0000;
        regs[0x1EE8 / 4] = 1 | (2 << 1) | (0x201 << 8);
        let c = PrimitiveControls::from_regs(&regs);
        assert_eq!((c.point_size, c.line_width), (5.0, 5.5));
        assert!(c.line_smooth && !c.polygon_smooth);
        assert_eq!(
            c.line_stipple,
            LineStipple {
                enabled: true,
                pattern: 0xF0F0,
                repeat: 3
            }
        );
        let p = c.polygon_stipple;
        assert!(p.enabled);
        // Row 0: columns 0 and 31; row 31: column 1; rows and columns wrap every 32.
        assert!(p.keeps(0, 0) && p.keeps(31, 0) && !p.keeps(1, 0));
        assert!(p.keeps(32, 32) && p.keeps(1, 31) && p.keeps(33, 63) && !p.keeps(0, 31));
        assert_eq!(
            c.point_sprite,
            PointSprite {
                raw: 0x2_0105,
                enabled: true,
                r_mode: 2,
                texcoord_mask: 0x201
            }
        );
        let d = PrimitiveControls::from_regs(&[]);
        assert_eq!(d.line_stipple.repeat, 1);
        assert!(!d.polygon_stipple.enabled && !d.point_sprite.enabled);
    }
}
