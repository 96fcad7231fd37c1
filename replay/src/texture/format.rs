//! Texel formats (`CELL_GCM_TEXTURE_*` 0x81..0x9F): block geometry and the decoding of one
//! block's big-endian bytes into channel "slots".
//!
//! A slot vector is in **A, R, G, B order** (index 0 = A ... 3 = B): it is what the CONTROL1
//! remap selectors 0..3 pick from (RPCS3 `RSXTexture.cpp` `decoded_remap`, "format is A-R-G-B").
//! Each format fills the slots the way RPCS3 presents the texture to the remap, i.e. the
//! format's own component mapping (RPCS3 `GLTexture.cpp` / `VKTexture.cpp`
//! `get_swizzle_remap` / `get_component_mapping`, "must be in ARGB order"):
//!
//! | format | slots A, R, G, B |
//! |---|---|
//! | B8 | 1, b, b, b |
//! | A1R5G5B5, A4R4G4B4, A8R8G8B8, R5G5B5A1, DXT1/23/45 | a, r, g, b |
//! | R5G6B5, R6G5B5, D1R5G5B5, D8R8G8B8 | 1, r, g, b (the D bits are ignored) |
//! | G8B8 | g, b, g, b (g = first byte, b = second byte) |
//! | DEPTH16, DEPTH16_FLOAT, DEPTH24_D8 | d, d, d, d (depth read as colour, see below) |
//! | X16 | x, 1, x, x |
//! | Y16_X16, Y16_X16_FLOAT, HILO8, HILO_S8 | c1, c0, c1, c0 (c0 = first word in memory) |
//! | W16Z16Y16X16_FLOAT, W32Z32Y32X32_FLOAT | 4th, 1st, 2nd, 3rd component in memory (R = W) |
//! | X32_FLOAT | x, x, x, x |
//!
//! Depth formats read as colour: RPCS3 samples them through a depth view whose single channel
//! is replicated to all four (`{R, R, R, R}`), so the sample is the normalised depth:
//! DEPTH24_D8 = bits 8..31 of the big-endian word / 0xFFFFFF (the stencil byte is dropped),
//! DEPTH16 = u16 / 0xFFFF, DEPTH16_FLOAT = IEEE half. Depth comparison (shadow sampling, ADDRESS
//! zfunc) is not modelled here: the fragment interpreter receives the raw depth.
//!
//! Not decoded (an error names them): COMPRESSED_B8R8_G8R8 (0x8D), COMPRESSED_R8B8_R8G8 (0x8E),
//! DEPTH24_D8_FLOAT (0x91).

/// A decodable texel format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum TexelFormat {
    B8,
    A1R5G5B5,
    A4R4G4B4,
    R5G6B5,
    A8R8G8B8,
    Dxt1,
    Dxt23,
    Dxt45,
    G8B8,
    R6G5B5,
    Depth24D8,
    Depth16,
    Depth16Float,
    X16,
    Y16X16,
    R5G5B5A1,
    Hilo8,
    HiloS8,
    W16Z16Y16X16Float,
    W32Z32Y32X32Float,
    X32Float,
    D1R5G5B5,
    D8R8G8B8,
    Y16X16Float,
}

/// How a format's channels react to the ADDRESS/FILTER sign, bias and gamma flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelClass {
    /// Unsigned normalised channels of 8 bits or fewer: sign extension (FILTER bits 28..31),
    /// BX2 range expansion (unsigned remap) and gamma (ADDRESS bits 20..23) apply.
    Unorm8,
    /// 16-bit unsigned normalised channels: only the BX2 range expansion applies.
    Unorm16,
    /// Floating point, depth or already-signed channels: no conversion applies.
    Other,
}

impl TexelFormat {
    /// The format for a base format code (FORMAT bits 8..15 with LN 0x20 and UN 0x40 cleared;
    /// codes from `gcm_enums.h`).
    pub fn from_code(code: u8) -> Option<TexelFormat> {
        use TexelFormat::*;
        Some(match code {
            0x81 => B8,
            0x82 => A1R5G5B5,
            0x83 => A4R4G4B4,
            0x84 => R5G6B5,
            0x85 => A8R8G8B8,
            0x86 => Dxt1,
            0x87 => Dxt23,
            0x88 => Dxt45,
            0x8B => G8B8,
            0x8F => R6G5B5,
            0x90 => Depth24D8,
            0x92 => Depth16,
            0x93 => Depth16Float,
            0x94 => X16,
            0x95 => Y16X16,
            0x97 => R5G5B5A1,
            0x98 => Hilo8,
            0x99 => HiloS8,
            0x9A => W16Z16Y16X16Float,
            0x9B => W32Z32Y32X32Float,
            0x9C => X32Float,
            0x9D => D1R5G5B5,
            0x9E => D8R8G8B8,
            0x9F => Y16X16Float,
            _ => return None,
        })
    }

    /// Edge of a block in texels: 4 for the DXT formats, 1 otherwise.
    pub fn block_edge(self) -> u32 {
        if self.is_dxt() {
            4
        } else {
            1
        }
    }

    /// Bytes per block (RPCS3 `TextureUtils.cpp` `get_subresources_layout_impl` element types).
    pub fn block_bytes(self) -> u32 {
        use TexelFormat::*;
        match self {
            B8 => 1,
            A1R5G5B5 | A4R4G4B4 | R5G6B5 | G8B8 | R6G5B5 | Depth16 | Depth16Float | X16
            | R5G5B5A1 | Hilo8 | HiloS8 | D1R5G5B5 => 2,
            A8R8G8B8 | Depth24D8 | Y16X16 | X32Float | D8R8G8B8 | Y16X16Float => 4,
            Dxt1 | W16Z16Y16X16Float => 8,
            Dxt23 | Dxt45 | W32Z32Y32X32Float => 16,
        }
    }

    /// Whether this is one of the block-compressed DXT formats.
    pub fn is_dxt(self) -> bool {
        matches!(
            self,
            TexelFormat::Dxt1 | TexelFormat::Dxt23 | TexelFormat::Dxt45
        )
    }

    /// Which sign/bias/gamma conversions apply (RPCS3 `RSXTexture.cpp` `format_ex`, format
    /// features; this model assigns them by channel width).
    pub fn channel_class(self) -> ChannelClass {
        use TexelFormat::*;
        match self {
            B8 | A1R5G5B5 | A4R4G4B4 | R5G6B5 | A8R8G8B8 | Dxt1 | Dxt23 | Dxt45 | G8B8 | R6G5B5
            | R5G5B5A1 | D1R5G5B5 | D8R8G8B8 => ChannelClass::Unorm8,
            X16 | Y16X16 | Hilo8 => ChannelClass::Unorm16,
            _ => ChannelClass::Other,
        }
    }

    /// Decode one (non-DXT) texel from its `block_bytes()` big-endian bytes into A, R, G, B
    /// slots. Returns `None` when `b` is too short or the format is a DXT format.
    pub fn decode_texel(self, b: &[u8]) -> Option<[f32; 4]> {
        use TexelFormat::*;
        let u8n = |v: u8| f32::from(v) / 255.0;
        let be16 =
            |i: usize| -> Option<u16> { Some(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?])) };
        let be32 = |i: usize| -> Option<u32> {
            Some(u32::from_be_bytes([
                *b.get(i)?,
                *b.get(i + 1)?,
                *b.get(i + 2)?,
                *b.get(i + 3)?,
            ]))
        };
        let field = |v: u16, shift: u32, bits: u32| -> f32 {
            let max = (1u32 << bits) - 1;
            ((u32::from(v) >> shift) & max) as f32 / max as f32
        };
        let u16n = |v: u16| f32::from(v) / 65535.0;
        let half = |v: u16| half::f16::from_bits(v).to_f32();
        Some(match self {
            B8 => {
                let v = u8n(*b.first()?);
                [1.0, v, v, v]
            }
            A8R8G8B8 => [
                u8n(*b.first()?),
                u8n(*b.get(1)?),
                u8n(*b.get(2)?),
                u8n(*b.get(3)?),
            ],
            D8R8G8B8 => [1.0, u8n(*b.get(1)?), u8n(*b.get(2)?), u8n(*b.get(3)?)],
            A1R5G5B5 => {
                let v = be16(0)?;
                [
                    field(v, 15, 1),
                    field(v, 10, 5),
                    field(v, 5, 5),
                    field(v, 0, 5),
                ]
            }
            D1R5G5B5 => {
                let v = be16(0)?;
                [1.0, field(v, 10, 5), field(v, 5, 5), field(v, 0, 5)]
            }
            R5G5B5A1 => {
                let v = be16(0)?;
                [
                    field(v, 0, 1),
                    field(v, 11, 5),
                    field(v, 6, 5),
                    field(v, 1, 5),
                ]
            }
            A4R4G4B4 => {
                let v = be16(0)?;
                [
                    field(v, 12, 4),
                    field(v, 8, 4),
                    field(v, 4, 4),
                    field(v, 0, 4),
                ]
            }
            R5G6B5 => {
                let v = be16(0)?;
                [1.0, field(v, 11, 5), field(v, 5, 6), field(v, 0, 5)]
            }
            R6G5B5 => {
                // R in bits 10..15 (6 bits), G 5..9, B 0..4 (RPCS3 `copy_rgb655_block`).
                let v = be16(0)?;
                [1.0, field(v, 10, 6), field(v, 5, 5), field(v, 0, 5)]
            }
            G8B8 => {
                let g = u8n(*b.first()?);
                let bb = u8n(*b.get(1)?);
                [g, bb, g, bb]
            }
            Depth24D8 => {
                let d = (be32(0)? >> 8) as f32 / 16_777_215.0;
                [d; 4]
            }
            Depth16 => [u16n(be16(0)?); 4],
            Depth16Float => [half(be16(0)?); 4],
            X16 => {
                let x = u16n(be16(0)?);
                [x, 1.0, x, x]
            }
            Y16X16 => {
                let (c0, c1) = (u16n(be16(0)?), u16n(be16(2)?));
                [c1, c0, c1, c0]
            }
            Y16X16Float => {
                let (c0, c1) = (half(be16(0)?), half(be16(2)?));
                [c1, c0, c1, c0]
            }
            Hilo8 => {
                let (c0, c1) = (u8n(*b.first()?), u8n(*b.get(1)?));
                [c1, c0, c1, c0]
            }
            HiloS8 => {
                let s = |v: u8| (f32::from(v as i8) / 127.0).max(-1.0);
                let (c0, c1) = (s(*b.first()?), s(*b.get(1)?));
                [c1, c0, c1, c0]
            }
            W16Z16Y16X16Float => [
                half(be16(6)?),
                half(be16(0)?),
                half(be16(2)?),
                half(be16(4)?),
            ],
            W32Z32Y32X32Float => {
                let f = |i| be32(i).map(f32::from_bits);
                [f(12)?, f(0)?, f(4)?, f(8)?]
            }
            X32Float => [f32::from_bits(be32(0)?); 4],
            Dxt1 | Dxt23 | Dxt45 => return None,
        })
    }
}
