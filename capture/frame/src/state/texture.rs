//! Texture sampler state of the 16 fragment and 4 vertex texture units (rrc-format.md 4.7;
//! RPCS3 `RSXTexture.cpp`, names from `gcm_enums.h`).

use super::{bits, r, Named};
use crate::methods::reg;
use rsxtrace_rrc::Location;
use serde::Serialize;

/// `CELL_GCM_TEXTURE_*` base formats (`gcm_enums.h`, enum `CellGcmTexture`).
const TEXTURE_FORMATS: &[(u32, &str)] = &[
    (0x81, "b8"),
    (0x82, "a1r5g5b5"),
    (0x83, "a4r4g4b4"),
    (0x84, "r5g6b5"),
    (0x85, "a8r8g8b8"),
    (0x86, "compressed_dxt1"),
    (0x87, "compressed_dxt23"),
    (0x88, "compressed_dxt45"),
    (0x8B, "g8b8"),
    (0x8D, "compressed_b8r8_g8r8"),
    (0x8E, "compressed_r8b8_r8g8"),
    (0x8F, "r6g5b5"),
    (0x90, "depth24_d8"),
    (0x91, "depth24_d8_float"),
    (0x92, "depth16"),
    (0x93, "depth16_float"),
    (0x94, "x16"),
    (0x95, "y16_x16"),
    (0x97, "r5g5b5a1"),
    (0x98, "compressed_hilo8"),
    (0x99, "compressed_hilo_s8"),
    (0x9A, "w16_z16_y16_x16_float"),
    (0x9B, "w32_z32_y32_x32_float"),
    (0x9C, "x32_float"),
    (0x9D, "d1r5g5b5"),
    (0x9E, "d8r8g8b8"),
    (0x9F, "y16_x16_float"),
];

/// Wrap modes 1..8 (rrc-format.md 4.7; RPCS3 `to_texture_wrap_mode`).
const WRAP_MODES: &[(u32, &str)] = &[
    (1, "wrap"),
    (2, "mirror"),
    (3, "clamp_to_edge"),
    (4, "border"),
    (5, "clamp"),
    (6, "mirror_once_clamp_to_edge"),
    (7, "mirror_once_border"),
    (8, "mirror_once_clamp"),
];

/// `CELL_GCM_TEXTURE_ZFUNC_*` (`gcm_enums.h`).
const ZFUNCS: &[(u32, &str)] = &[
    (0, "never"),
    (1, "less"),
    (2, "equal"),
    (3, "lequal"),
    (4, "greater"),
    (5, "notequal"),
    (6, "gequal"),
    (7, "always"),
];

/// Max anisotropy field values 0..7 (`gcm_enums.h`, `texture_max_anisotropy`).
const ANISO: &[(u32, &str)] = &[
    (0, "x1"),
    (1, "x2"),
    (2, "x4"),
    (3, "x6"),
    (4, "x8"),
    (5, "x10"),
    (6, "x12"),
    (7, "x16"),
];

/// Minify filters (libgcm `CELL_GCM_TEXTURE_NEAREST` = 1 ... `CONVOLUTION_MIN` = 7, as decoded
/// by RPCS3 `to_texture_minify_filter`).
const MIN_FILTERS: &[(u32, &str)] = &[
    (1, "nearest"),
    (2, "linear"),
    (3, "nearest_nearest"),
    (4, "linear_nearest"),
    (5, "nearest_linear"),
    (6, "linear_linear"),
    (7, "convolution_min"),
];

/// Magnify filters (RPCS3 `to_texture_magnify_filter`: 1 nearest, 2 linear, 4 convolution).
const MAG_FILTERS: &[(u32, &str)] = &[(1, "nearest"), (2, "linear"), (4, "convolution_mag")];

/// `FORMAT` register fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TextureFormat {
    /// Bits 0..1 minus one: local or main; `None` for 0 or 3.
    pub location: Option<Location>,
    /// Bit 2.
    pub cubemap: bool,
    /// Bit 3.
    pub border_type: u8,
    /// Bits 4..7: 1, 2 or 3.
    pub dimension: u8,
    /// Bits 8..15, with the LN and UN flags.
    pub format: u8,
    /// The format with the LN (0x20) and UN (0x40) flags cleared, named.
    pub base_format: Named,
    /// `CELL_GCM_TEXTURE_LN` (0x20): linear (pitch) layout rather than swizzled.
    pub linear: bool,
    /// `CELL_GCM_TEXTURE_UN` (0x40): unnormalised coordinates.
    pub unnormalized: bool,
    /// Bits 16..31.
    pub mip_count: u16,
}

impl TextureFormat {
    /// Decode a `FORMAT` register value.
    pub fn from_raw(v: u32) -> TextureFormat {
        let format = bits(v, 8, 8);
        TextureFormat {
            location: location_plus_one(v),
            cubemap: v & 4 != 0,
            border_type: bits(v, 3, 1) as u8,
            dimension: bits(v, 4, 4) as u8,
            format: format as u8,
            base_format: Named::lookup(format & !0x60, TEXTURE_FORMATS),
            linear: format & 0x20 != 0,
            unnormalized: format & 0x40 != 0,
            mip_count: (v >> 16) as u16,
        }
    }
}

/// Decode a "location + 1" field in bits 0..1 (rrc-format.md 4.1).
pub fn location_plus_one(v: u32) -> Option<Location> {
    match v & 3 {
        1 => Some(Location::Local),
        2 => Some(Location::Main),
        _ => None,
    }
}

/// `ADDRESS` register fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TextureAddress {
    /// Bits 0..3.
    pub wrap_s: Named,
    /// Bits 4..7.
    pub aniso_bias: u8,
    /// Bits 8..11.
    pub wrap_t: Named,
    /// Bits 12..15.
    pub unsigned_remap: u8,
    /// Bits 16..19.
    pub wrap_r: Named,
    /// Bits 20..23: gamma flags R, G, B, A.
    pub gamma: u8,
    /// Bits 24..27.
    pub signed_remap: u8,
    /// Bits 28..31: depth compare function.
    pub zfunc: Named,
}

impl TextureAddress {
    /// Decode an `ADDRESS` register value.
    pub fn from_raw(v: u32) -> TextureAddress {
        TextureAddress {
            wrap_s: Named::lookup(bits(v, 0, 4), WRAP_MODES),
            aniso_bias: bits(v, 4, 4) as u8,
            wrap_t: Named::lookup(bits(v, 8, 4), WRAP_MODES),
            unsigned_remap: bits(v, 12, 4) as u8,
            wrap_r: Named::lookup(bits(v, 16, 4), WRAP_MODES),
            gamma: bits(v, 20, 4) as u8,
            signed_remap: bits(v, 24, 4) as u8,
            zfunc: Named::lookup(bits(v, 28, 4), ZFUNCS),
        }
    }
}

/// `CONTROL0` register fields.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TextureControl0 {
    /// Bit 31.
    pub enabled: bool,
    /// Bits 19..30 as 4.8 fixed point.
    pub min_lod: f32,
    /// Bits 7..18 as 4.8 fixed point.
    pub max_lod: f32,
    /// Bits 4..6.
    pub max_aniso: Named,
    /// Bit 2.
    pub alpha_kill: bool,
}

impl TextureControl0 {
    /// Decode a `CONTROL0` register value.
    pub fn from_raw(v: u32) -> TextureControl0 {
        TextureControl0 {
            enabled: v >> 31 != 0,
            min_lod: bits(v, 19, 12) as f32 / 256.0,
            max_lod: bits(v, 7, 12) as f32 / 256.0,
            max_aniso: Named::lookup(bits(v, 4, 3), ANISO),
            alpha_kill: v & 4 != 0,
        }
    }
}

/// `FILTER` register fields.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TextureFilter {
    /// Bits 0..12: LOD bias, signed 4.8 fixed point.
    pub bias: f32,
    /// Bits 13..15.
    pub convolution: u8,
    /// Bits 16..18.
    pub min: Named,
    /// Bits 24..26.
    pub mag: Named,
    /// Bits 28..31: per-channel signed flags (A, R, G, B).
    pub argb_signed: u8,
}

impl TextureFilter {
    /// Decode a `FILTER` register value.
    pub fn from_raw(v: u32) -> TextureFilter {
        // Sign-extend the 13-bit bias.
        let bias = ((bits(v, 0, 13) << 19) as i32) >> 19;
        TextureFilter {
            bias: bias as f32 / 256.0,
            convolution: bits(v, 13, 3) as u8,
            min: Named::lookup(bits(v, 16, 3), MIN_FILTERS),
            mag: Named::lookup(bits(v, 24, 3), MAG_FILTERS),
            argb_signed: bits(v, 28, 4) as u8,
        }
    }
}

/// One texture unit's complete state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Texture {
    /// `OFFSET & 0x7FFFFFFF`.
    pub offset: u32,
    /// From `FORMAT` bits 0..1.
    pub location: Option<Location>,
    /// `FORMAT`.
    pub format: TextureFormat,
    /// `ADDRESS`.
    pub address: TextureAddress,
    /// `CONTROL0`.
    pub control0: TextureControl0,
    /// `CONTROL1` low 16 bits: channel remap (fragment units only, else 0).
    pub remap: u16,
    /// `CONTROL1` high 16 bits: remap override (fragment units only, else 0).
    pub remap_override: u16,
    /// `CONTROL2` raw (fragment units only, else 0).
    pub control2: u32,
    /// `FILTER`.
    pub filter: TextureFilter,
    /// `IMAGE_RECT` bits 16..31.
    pub width: u16,
    /// `IMAGE_RECT` bits 0..15.
    pub height: u16,
    /// `BORDER_COLOR` (ARGB8).
    pub border_color: u32,
    /// `CONTROL3` bits 0..19.
    pub pitch: u32,
    /// `CONTROL3` bits 20..31.
    pub depth: u16,
}

/// The raw register words of one texture unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextureRegs {
    /// OFFSET.
    pub offset: u32,
    /// FORMAT.
    pub format: u32,
    /// ADDRESS.
    pub address: u32,
    /// CONTROL0.
    pub control0: u32,
    /// CONTROL1 (0 for vertex units).
    pub control1: u32,
    /// CONTROL2 (0 for vertex units).
    pub control2: u32,
    /// FILTER.
    pub filter: u32,
    /// IMAGE_RECT.
    pub image_rect: u32,
    /// BORDER_COLOR.
    pub border_color: u32,
    /// CONTROL3.
    pub control3: u32,
}

impl Texture {
    /// Decode from the raw register words.
    pub fn from_regs(t: &TextureRegs) -> Texture {
        let format = TextureFormat::from_raw(t.format);
        Texture {
            offset: t.offset & 0x7FFF_FFFF,
            location: format.location,
            format,
            address: TextureAddress::from_raw(t.address),
            control0: TextureControl0::from_raw(t.control0),
            remap: t.control1 as u16,
            remap_override: (t.control1 >> 16) as u16,
            control2: t.control2,
            filter: TextureFilter::from_raw(t.filter),
            width: (t.image_rect >> 16) as u16,
            height: t.image_rect as u16,
            border_color: t.border_color,
            pitch: bits(t.control3, 0, 20),
            depth: (t.control3 >> 20) as u16,
        }
    }

    /// Fragment texture unit `i` (0..16) from a register file (stride 0x20 bytes).
    pub fn fragment(regs: &[u32], i: u16) -> Texture {
        let b = reg::TEXTURE_UNIT_STRIDE * i;
        Texture::from_regs(&TextureRegs {
            offset: r(regs, reg::SET_TEXTURE_OFFSET + b),
            format: r(regs, reg::SET_TEXTURE_FORMAT + b),
            address: r(regs, reg::SET_TEXTURE_ADDRESS + b),
            control0: r(regs, reg::SET_TEXTURE_CONTROL0 + b),
            control1: r(regs, reg::SET_TEXTURE_CONTROL1 + b),
            control2: r(regs, reg::SET_TEXTURE_CONTROL2 + i),
            filter: r(regs, reg::SET_TEXTURE_FILTER + b),
            image_rect: r(regs, reg::SET_TEXTURE_IMAGE_RECT + b),
            border_color: r(regs, reg::SET_TEXTURE_BORDER_COLOR + b),
            control3: r(regs, reg::SET_TEXTURE_CONTROL3 + i),
        })
    }

    /// Vertex texture unit `i` (0..4) from a register file (0x900 + 0x20 i).
    pub fn vertex(regs: &[u32], i: u16) -> Texture {
        let b = reg::TEXTURE_UNIT_STRIDE * i;
        Texture::from_regs(&TextureRegs {
            offset: r(regs, reg::SET_VERTEX_TEXTURE_OFFSET + b),
            format: r(regs, reg::SET_VERTEX_TEXTURE_FORMAT + b),
            address: r(regs, reg::SET_VERTEX_TEXTURE_ADDRESS + b),
            control0: r(regs, reg::SET_VERTEX_TEXTURE_CONTROL0 + b),
            control3: r(regs, reg::SET_VERTEX_TEXTURE_CONTROL3 + b),
            filter: r(regs, reg::SET_VERTEX_TEXTURE_FILTER + b),
            image_rect: r(regs, reg::SET_VERTEX_TEXTURE_IMAGE_RECT + b),
            border_color: r(regs, reg::SET_VERTEX_TEXTURE_BORDER_COLOR + b),
            control1: 0,
            control2: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_bits() {
        // location+1 = 2 (main), cubemap, dimension 2, format 0xA5 = A8R8G8B8 | LN, 10 mips:
        // 0x000A_A5_2_6: bits 0..1 = 2, bit 2 = 1, bits 4..7 = 2, bits 8..15 = 0xA5, 16.. = 10.
        let f = TextureFormat::from_raw(0x000A_A526);
        assert_eq!(f.location, Some(Location::Main));
        assert!(f.cubemap);
        assert_eq!(f.dimension, 2);
        assert_eq!(f.format, 0xA5);
        assert_eq!(f.base_format.name, Some("a8r8g8b8"));
        assert!(f.linear);
        assert!(!f.unnormalized);
        assert_eq!(f.mip_count, 10);
        let f = TextureFormat::from_raw(0x0001_E619);
        // bits 0..1 = 1 local, bit 3 border, dimension 1, format 0xE6 = DXT1 | LN | UN.
        assert_eq!(f.location, Some(Location::Local));
        assert_eq!(f.border_type, 1);
        assert_eq!(f.base_format.name, Some("compressed_dxt1"));
        assert!(f.linear && f.unnormalized);
    }

    #[test]
    fn address_control_filter_bits() {
        // wrap_s 1, aniso 0, wrap_t 3, uremap 0, wrap_r 8, gamma 0xF, sremap 0, zfunc 7.
        let a = TextureAddress::from_raw(0x70F8_0301);
        assert_eq!(a.wrap_s.name, Some("wrap"));
        assert_eq!(a.wrap_t.name, Some("clamp_to_edge"));
        assert_eq!(a.wrap_r.name, Some("mirror_once_clamp"));
        assert_eq!(a.gamma, 0xF);
        assert_eq!(a.zfunc.name, Some("always"));
        // enable | min lod 1.0 (256 << 19) | max lod 12.0 (3072 << 7) | aniso x16 (7 << 4).
        let v = (1 << 31) | (256 << 19) | (3072 << 7) | (7 << 4);
        let c = TextureControl0::from_raw(v);
        assert!(c.enabled);
        assert_eq!(c.min_lod, 1.0);
        assert_eq!(c.max_lod, 12.0);
        assert_eq!(c.max_aniso.name, Some("x16"));
        // bias -0.5 = -128 in 13-bit two's complement = 0x1F80; min 6; mag 2.
        let f = TextureFilter::from_raw((2 << 24) | (6 << 16) | 0x1F80);
        assert_eq!(f.bias, -0.5);
        assert_eq!(f.min.name, Some("linear_linear"));
        assert_eq!(f.mag.name, Some("linear"));
    }

    #[test]
    fn unit_registers() {
        let mut regs = vec![0u32; 0x4000];
        regs[(0x1A00 + 0x20 * 3) / 4] = 0x8012_3400;
        regs[(0x1A04 + 0x20 * 3) / 4] = 0x0001_8521;
        regs[(0x1A18 + 0x20 * 3) / 4] = (256 << 16) | 128;
        regs[(0x1840 + 4 * 3) / 4] = (1 << 20) | 1024;
        let t = Texture::fragment(&regs, 3);
        assert_eq!(t.offset, 0x0012_3400);
        assert_eq!(t.location, Some(Location::Local));
        assert_eq!((t.width, t.height), (256, 128));
        assert_eq!((t.pitch, t.depth), (1024, 1));
        regs[(0x0910 + 0x20) / 4] = 0x0020_0000;
        regs[(0x090C + 0x20) / 4] = 0x8000_0000;
        let v = Texture::vertex(&regs, 1);
        assert_eq!(v.depth, 2);
        assert!(v.control0.enabled);
    }
}
