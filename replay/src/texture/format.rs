//! Texel formats (`CELL_GCM_TEXTURE_*` 0x81..0x9F, every one the RSX has): block geometry, the
//! format features (which sign / gamma / bias conversions apply), and the decoding of one
//! block's big-endian bytes into channel "slots".
//!
//! A slot vector is in **A, R, G, B order** (index 0 = A ... 3 = B): it is what the CONTROL1
//! remap selectors 0..3 pick from (RPCS3 `RSXTexture.cpp` `decoded_remap`, "format is A-R-G-B").
//! Each format fills the slots the way RPCS3 presents the texture to the remap: the host
//! texture's channels (what `TextureUtils.cpp` `upload_texture_subresource` writes: 16-bit
//! words and 32-bit words are byte-swapped one by one, so "first word" below is the first in
//! guest memory) through the format's component mapping (RPCS3 `VKFormats.cpp`
//! `get_component_mapping`, `GLTexture.cpp` `get_swizzle_remap`, "must be in ARGB order"):
//!
//! | format | slots A, R, G, B |
//! |---|---|
//! | B8 | 1, b, b, b |
//! | A1R5G5B5, A4R4G4B4, A8R8G8B8, R5G5B5A1, DXT1/23/45 | a, r, g, b |
//! | R5G6B5, R6G5B5, D1R5G5B5, D8R8G8B8 | 1, r, g, b (the D bits are ignored) |
//! | COMPRESSED_B8R8_G8R8, COMPRESSED_R8B8_R8G8 | 1, r, g, b (two texels per block, see below) |
//! | G8B8 | g, b, g, b (g = first byte, b = second byte) |
//! | DEPTH16, DEPTH16_FLOAT, DEPTH24_D8, DEPTH24_D8_FLOAT | d, d, d, d (depth read as colour) |
//! | X16 | x, 1, x, 1 |
//! | Y16_X16, HILO8, HILO_S8 | c1, c0, c1, c0 (c0 = first word / byte in memory) |
//! | Y16_X16_FLOAT | c0, c1, c0, c1 (`R16G16_SFLOAT` mapped `{R, G, R, G}`) |
//! | W16Z16Y16X16_FLOAT, W32Z32Y32X32_FLOAT | 4th, 1st, 2nd, 3rd component in memory (R = W) |
//! | X32_FLOAT | x, x, x, x |
//!
//! The channels of fewer than 8 bits (A1R5G5B5, R5G5B5A1, D1R5G5B5, R5G6B5, R6G5B5; A4R4G4B4 and
//! the 1-bit alphas are exact either way) read at 8-bit precision, rounded down:
//! `⌊v·255 / (2^bits − 1)⌋ / 255`, so a 5-bit 16 reads 131/255, not 16/31. NV hardware expands
//! such texels to 8 bits this way (RPCS3 f7842b765f, "NV hardware performs integer
//! normalization at 8 bits if the size is less than 8"; `VKGSRender.cpp`: "On NVIDIA cards going
//! back decades (including the PS3) there is a slight normalization inaccuracy in compressed
//! formats. Confirmed in BLES01916 (The Evil Within) which uses RGB565"). RPCS3 emulates it on
//! other hosts by flooring the filtered value (`RENORMALIZE`, noting that expanding the texels
//! to 8 bits first is the proper fix); here each texel is expanded, before filtering.
//!
//! With the remap rewrites of [`remap`](super::remap) (0xE4 becomes 0x66 for the two-channel
//! formats) this gives, for the default remap: Y16_X16 / HILO8 / HILO_S8 = (c0, c1, c0, c1),
//! Y16_X16_FLOAT = (c1, c0, c1, c0) in R, G, B, A, and X16 = (1, x, 1, x). The hardware image
//! of the public ps3autotests `texture_formats` test (`texture_formats.expected.png`) shows
//! exactly these: Y16_X16_FLOAT's red and blue are the second half-float, green the first;
//! X16's red and blue are 1.
//!
//! The two-texel formats hold a 2x1 block in one big-endian 32-bit word, one red per texel and
//! a shared green and blue (alpha is 1: RPCS3 `copy_decoded_rb_rg_block` writes 0xFF, and
//! `get_host_format_snorm_mask` lists them as "hardcoded alpha formats"):
//! * COMPRESSED_B8R8_G8R8 (0x8D): bytes B, R1, G, R0;
//! * COMPRESSED_R8B8_R8G8 (0x8E): bytes R1, B, R0, G;
//!
//! where R0 is the left texel's red. The byte roles are RPCS3's; which red belongs to which
//! texel is the hardware's: ps3autotests `Texture_Generate.py` stores the left texel's red in
//! byte 3 (B8R8_G8R8) and byte 2 (R8B8_R8G8), and the hardware image reproduces the source
//! image to the pixel along the glyph edges of its red band (identical to the A8R8G8B8 quad),
//! so the left texel takes that byte (RPCS3's `copy_decoded_rb_rg_block` swaps the pair).
//!
//! Depth formats read as colour: RPCS3 samples them through a depth view whose single channel
//! is replicated to all four (`{R, R, R, R}`), so the sample is the depth value:
//! DEPTH24_D8 = bits 8..31 of the big-endian word / 0xFFFFFF (the stencil byte is dropped),
//! DEPTH24_D8_FLOAT = the 24-bit float in bits 8..31 (8-bit exponent, 16-bit mantissa, no
//! sign), which is the f32 with those bits shifted left by 7 (RPCS3 `ShuffleBytes.glsl`
//! `d24f_to_f32(bits) = bits << 7`, applied to `value >> 8` in `VKCompute.h`
//! `cs_scatter_d32x8`), DEPTH16 = u16 / 0xFFFF, DEPTH16_FLOAT = IEEE half. Depth comparison
//! (shadow sampling, ADDRESS zfunc) is the sampler's (`rsxtrace_semantics::shadow`), not the
//! decoder's.

/// A texel format of the RSX.
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
    CompressedB8R8G8R8,
    CompressedR8B8R8G8,
    R6G5B5,
    Depth24D8,
    Depth24D8Float,
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

/// Which post-filter conversions a format accepts (RPCS3 `TextureUtils.cpp`
/// `get_format_features`, whose comments record what the hardware does with each flag: depth
/// formats, X16 and HILO8 take only the biased renormalisation, Y16_X16 also the sign, HILO_S8
/// and the float formats none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// FILTER bits 28..31 (per-channel signed) apply.
    pub signed: bool,
    /// ADDRESS bits 20..23 (per-channel sRGB) apply.
    pub gamma: bool,
    /// ADDRESS bits 12..15 = 1 (`UNSIGNED_REMAP_BIASED`) applies.
    pub biased: bool,
    /// The channels are 16 bits wide: the sign and bias rules quantise to 16 bits, not 8.
    pub wide: bool,
}

impl TexelFormat {
    /// Every format, in code order.
    pub const ALL: [TexelFormat; 27] = {
        use TexelFormat::*;
        [
            B8,
            A1R5G5B5,
            A4R4G4B4,
            R5G6B5,
            A8R8G8B8,
            Dxt1,
            Dxt23,
            Dxt45,
            G8B8,
            CompressedB8R8G8R8,
            CompressedR8B8R8G8,
            R6G5B5,
            Depth24D8,
            Depth24D8Float,
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
        ]
    };

    /// The format for a base format code (FORMAT bits 8..15 with LN 0x20 and UN 0x40 cleared;
    /// codes from RPCS3 `gcm_enums.h`). 0x89, 0x8A and 0x96 are not formats.
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
            0x8D => CompressedB8R8G8R8,
            0x8E => CompressedR8B8R8G8,
            0x8F => R6G5B5,
            0x90 => Depth24D8,
            0x91 => Depth24D8Float,
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

    /// The base format code (the inverse of [`from_code`](Self::from_code)).
    pub fn code(self) -> u8 {
        use TexelFormat::*;
        match self {
            B8 => 0x81,
            A1R5G5B5 => 0x82,
            A4R4G4B4 => 0x83,
            R5G6B5 => 0x84,
            A8R8G8B8 => 0x85,
            Dxt1 => 0x86,
            Dxt23 => 0x87,
            Dxt45 => 0x88,
            G8B8 => 0x8B,
            CompressedB8R8G8R8 => 0x8D,
            CompressedR8B8R8G8 => 0x8E,
            R6G5B5 => 0x8F,
            Depth24D8 => 0x90,
            Depth24D8Float => 0x91,
            Depth16 => 0x92,
            Depth16Float => 0x93,
            X16 => 0x94,
            Y16X16 => 0x95,
            R5G5B5A1 => 0x97,
            Hilo8 => 0x98,
            HiloS8 => 0x99,
            W16Z16Y16X16Float => 0x9A,
            W32Z32Y32X32Float => 0x9B,
            X32Float => 0x9C,
            D1R5G5B5 => 0x9D,
            D8R8G8B8 => 0x9E,
            Y16X16Float => 0x9F,
        }
    }

    /// Width of a block in texels: 4 for the DXT formats, 2 for the two-texel
    /// COMPRESSED_B8R8_G8R8 / R8B8_R8G8 (RPCS3 `get_format_block_size_in_texel`), 1 otherwise.
    pub fn block_width(self) -> u32 {
        if self.is_dxt() {
            4
        } else if self.is_texel_pair() {
            2
        } else {
            1
        }
    }

    /// Height of a block in texels: 4 for the DXT formats, 1 otherwise ("only the width is
    /// compressed" for the two-texel formats, RPCS3 `get_subresources_layout_impl`).
    pub fn block_height(self) -> u32 {
        if self.is_dxt() {
            4
        } else {
            1
        }
    }

    /// Bytes per block (RPCS3 `TextureUtils.cpp` `get_format_block_size_in_bytes`).
    pub fn block_bytes(self) -> u32 {
        use TexelFormat::*;
        match self {
            B8 => 1,
            A1R5G5B5 | A4R4G4B4 | R5G6B5 | G8B8 | R6G5B5 | Depth16 | Depth16Float | X16
            | R5G5B5A1 | Hilo8 | HiloS8 | D1R5G5B5 => 2,
            A8R8G8B8 | Depth24D8 | Depth24D8Float | Y16X16 | X32Float | D8R8G8B8 | Y16X16Float
            | CompressedB8R8G8R8 | CompressedR8B8R8G8 => 4,
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

    /// Whether this is one of the two-texel formats COMPRESSED_B8R8_G8R8 / R8B8_R8G8.
    pub fn is_texel_pair(self) -> bool {
        matches!(
            self,
            TexelFormat::CompressedB8R8G8R8 | TexelFormat::CompressedR8B8R8G8
        )
    }

    /// Whether the blocks are always row-major, without border texels, whatever the LN and
    /// border flags say: the DXT formats and the two-texel formats (RPCS3 uploads both without
    /// deswizzling: "other compressed_* formats ignore this option", `TextureUtils.cpp`).
    pub fn is_compressed(self) -> bool {
        self.is_dxt() || self.is_texel_pair()
    }

    /// Whether the format holds depth (read as colour here).
    pub fn is_depth(self) -> bool {
        use TexelFormat::*;
        matches!(self, Depth24D8 | Depth24D8Float | Depth16 | Depth16Float)
    }

    /// The conversions the format accepts (RPCS3 `get_format_features`).
    pub fn features(self) -> Features {
        use TexelFormat::*;
        let all = Features {
            signed: true,
            gamma: true,
            biased: true,
            wide: false,
        };
        let biased = Features {
            biased: true,
            ..Features::default()
        };
        match self {
            B8 | A1R5G5B5 | A4R4G4B4 | R5G6B5 | A8R8G8B8 | Dxt1 | Dxt23 | Dxt45 | G8B8
            | CompressedB8R8G8R8 | CompressedR8B8R8G8 | R6G5B5 | R5G5B5A1 | D1R5G5B5 | D8R8G8B8 => {
                all
            }
            // "Depth textures will hang the hardware if BX2 or GAMMA is active. ARGB8_SIGNED
            // has no impact. UNSIGNED_REMAP=BIASED works on all formats".
            Depth24D8 | Depth24D8Float | Depth16 | Depth16Float | Hilo8 => biased,
            // "X16 - GAMMA causes hangs. ARGB8_SIGNED is ignored. UNSIGNED_REMAP=BIASED works."
            X16 => Features {
                wide: true,
                ..biased
            },
            // "X16 | Y16 - GAMMA causes hangs. ARGB8_SIGNED works. UNSIGNED_REMAP=BIASED also
            // works."
            Y16X16 => Features {
                signed: true,
                biased: true,
                wide: true,
                gamma: false,
            },
            // HILO_S8: "Other flags ignored"; floating point: "Nothing works".
            HiloS8 | W16Z16Y16X16Float | W32Z32Y32X32Float | X32Float | Y16X16Float => {
                Features::default()
            }
        }
    }

    /// Decode one single-texel block (not DXT, not a two-texel format) from its
    /// `block_bytes()` big-endian bytes into A, R, G, B slots. Returns `None` when `b` is too
    /// short or the format's blocks hold more than one texel.
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
        // A channel of fewer than 8 bits reads at 8-bit precision: v·255 / (2^bits − 1),
        // rounded down (module docs).
        let field = |v: u16, shift: u32, bits: u32| -> f32 {
            let max = (1u32 << bits) - 1;
            let v = (u32::from(v) >> shift) & max;
            (v * 255 / max) as f32 / 255.0
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
            Depth24D8Float => [depth24_float(be32(0)? >> 8); 4],
            Depth16 => [u16n(be16(0)?); 4],
            Depth16Float => [half(be16(0)?); 4],
            X16 => {
                let x = u16n(be16(0)?);
                [x, 1.0, x, 1.0]
            }
            Y16X16 => {
                let (c0, c1) = (u16n(be16(0)?), u16n(be16(2)?));
                [c1, c0, c1, c0]
            }
            Y16X16Float => {
                let (c0, c1) = (half(be16(0)?), half(be16(2)?));
                [c0, c1, c0, c1]
            }
            Hilo8 => {
                let (c0, c1) = (u8n(*b.first()?), u8n(*b.get(1)?));
                [c1, c0, c1, c0]
            }
            HiloS8 => {
                // Signed normalised bytes (`R8G8_SNORM`): -128 reads as -1, like -127.
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
            Dxt1 | Dxt23 | Dxt45 | CompressedB8R8G8R8 | CompressedR8B8R8G8 => return None,
        })
    }

    /// Decode one block of a two-texel format (4 big-endian bytes) into the A, R, G, B slots
    /// of its left and right texel. `None` for other formats or when `b` is too short.
    pub fn decode_pair(self, b: &[u8]) -> Option<[[f32; 4]; 2]> {
        let byte = |i: usize| b.get(i).map(|v| f32::from(*v) / 255.0);
        // (blue, green, left red, right red) byte indices; see the module table.
        let (bi, gi, r0, r1) = match self {
            TexelFormat::CompressedB8R8G8R8 => (0, 2, 3, 1),
            TexelFormat::CompressedR8B8R8G8 => (1, 3, 2, 0),
            _ => return None,
        };
        let (blue, green) = (byte(bi)?, byte(gi)?);
        Some([[1.0, byte(r0)?, green, blue], [1.0, byte(r1)?, green, blue]])
    }
}

/// The value of a 24-bit depth float (bits: 8-bit exponent, 16-bit mantissa, no sign): the
/// f32 whose bits are these shifted left by 7 (RPCS3 `ShuffleBytes.glsl` `d24f_to_f32`).
pub fn depth24_float(bits24: u32) -> f32 {
    f32::from_bits((bits24 & 0x00FF_FFFF) << 7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_gaps_are_not_formats() {
        for f in TexelFormat::ALL {
            assert_eq!(TexelFormat::from_code(f.code()), Some(f));
        }
        for code in [0x80, 0x89, 0x8A, 0x8C, 0x96, 0xA0, 0x00, 0xFF] {
            assert_eq!(TexelFormat::from_code(code), None, "{code:#x}");
        }
        // Every code 0x81..=0x9F but the four holes of gcm_enums.h is a format.
        let decoded = (0x81..=0x9Fu8)
            .filter(|c| TexelFormat::from_code(*c).is_some())
            .count();
        assert_eq!(decoded, 31 - 4);
    }

    #[test]
    fn pair_formats_put_the_left_red_where_the_hardware_reads_it() {
        // B8R8_G8R8: B, R1, G, R0.
        let [l, r] = TexelFormat::CompressedB8R8G8R8
            .decode_pair(&[0x10, 0x20, 0x30, 0x40])
            .unwrap();
        let n = |v: u8| f32::from(v) / 255.0;
        assert_eq!(l, [1.0, n(0x40), n(0x30), n(0x10)]);
        assert_eq!(r, [1.0, n(0x20), n(0x30), n(0x10)]);
        // R8B8_R8G8: R1, B, R0, G.
        let [l, r] = TexelFormat::CompressedR8B8R8G8
            .decode_pair(&[0x10, 0x20, 0x30, 0x40])
            .unwrap();
        assert_eq!(l, [1.0, n(0x30), n(0x40), n(0x20)]);
        assert_eq!(r, [1.0, n(0x10), n(0x40), n(0x20)]);
        assert_eq!(TexelFormat::A8R8G8B8.decode_pair(&[0; 4]), None);
        assert_eq!(TexelFormat::CompressedB8R8G8R8.decode_texel(&[0; 4]), None);
        assert_eq!(TexelFormat::CompressedB8R8G8R8.decode_pair(&[0; 3]), None);
    }

    #[test]
    fn depth24_float_is_an_unsigned_float_with_16_mantissa_bits() {
        // 1.0 = exponent 127, mantissa 0: 127 << 16. 0.75 = 126 << 16 | 0x8000.
        assert_eq!(depth24_float(127 << 16), 1.0);
        assert_eq!(depth24_float((126 << 16) | 0x8000), 0.75);
        assert_eq!(depth24_float(0), 0.0);
        // The stencil byte below the depth is not part of it.
        let d = TexelFormat::Depth24D8Float
            .decode_texel(&[0x7E, 0x80, 0x00, 0xAB])
            .unwrap();
        assert_eq!(d, [0.75; 4]);
    }

    #[test]
    fn two_channel_formats_fill_the_slots_of_their_component_mapping() {
        // Y16_X16_FLOAT halves 1.0 (0x3C00) then 0.5 (0x3800): slots c0, c1, c0, c1.
        let s = TexelFormat::Y16X16Float
            .decode_texel(&[0x3C, 0x00, 0x38, 0x00])
            .unwrap();
        assert_eq!(s, [1.0, 0.5, 1.0, 0.5]);
        // X16: x, 1, x, 1.
        let s = TexelFormat::X16.decode_texel(&[0xFF, 0xFF]).unwrap();
        assert_eq!(s, [1.0; 4]);
        let s = TexelFormat::X16.decode_texel(&[0, 0]).unwrap();
        assert_eq!(s, [0.0, 1.0, 0.0, 1.0]);
    }

    #[test]
    fn block_geometry() {
        use TexelFormat::*;
        assert_eq!((Dxt1.block_width(), Dxt1.block_height()), (4, 4));
        let pair = CompressedR8B8R8G8;
        assert_eq!((pair.block_width(), pair.block_height()), (2, 1));
        assert_eq!((X16.block_width(), X16.block_height()), (1, 1));
        assert!(pair.is_compressed() && Dxt45.is_compressed() && !Hilo8.is_compressed());
        assert_eq!(Depth24D8Float.block_bytes(), 4);
    }
}
