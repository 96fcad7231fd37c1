//! The CONTROL1 channel remap and the per-channel sign / range / gamma conversions.
//!
//! CONTROL1 low 16 bits (libgcm `CELL_GCM_REMAP_MODE`; RPCS3 `RSXTexture.cpp`
//! `decoded_remap`), each field two bits, channels in A, R, G, B order:
//!
//! | bits | field |
//! |---|---|
//! | 0..1, 2..3, 4..5, 6..7 | input selector for output A, R, G, B: slot 0 = A, 1 = R, 2 = G, 3 = B |
//! | 8..9, 10..11, 12..13, 14..15 | output mode for A, R, G, B: 0 = ZERO, 1 = ONE, 2 = REMAP (3 is treated as REMAP, as RPCS3 does after logging) |
//!
//! CONTROL1 high 16 bits (the "override"): RPCS3 only uses whether they are non-zero, and only
//! for the two-channel 16-bit formats below. Format-specific rewrites of the selector byte
//! (RPCS3 `decoded_remap`):
//! * X32_FLOAT, W16Z16Y16X16_FLOAT, W32Z32Y32X32_FLOAT: selectors forced to 0xE4 (identity;
//!   "floating point textures cannot be remapped").
//! * Y16_X16_FLOAT: selectors forced to 0x56 with an override, else 0x66.
//! * X16, Y16_X16, HILO8, HILO_S8: 0xE4 becomes 0x56/0x66 (override / none), 0x4E becomes
//!   0xA9/0x99, 0xEE becomes 0xAA, 0x44 becomes 0x55 ("these are special formats whose remap
//!   encoding is in 16-bit blocks"). With X16's slots (x, 1, x, 1) the default remap reads
//!   (1, x, 1, x): the channels X16 lacks read 1, as on the hardware (ps3autotests
//!   `texture_formats.expected.png`: the X16 quad is (1, x, 1)).
//!
//! Conversions (RPCS3 `RSXFragmentTextureOps.glsl` `_process_texel`, flags from
//! `RSXTexture.cpp` `format_ex`), only where the format's features allow them
//! ([`Features`](super::format::Features)), precedence sign > gamma > bias; the sign is applied
//! to each texel before filtering, gamma and bias after it ([`Conversions`]):
//! * FILTER bits 28..31 (A, R, G, B signed): reinterpret the stored value as signed,
//!   `bits = floor(x * M + 0.5)` with `M` = 255 (65535 for 16-bit channels), sign-extended
//!   from 8 (16) bits, divided by 127 (32767) (`_sext_unorm8x4` / `_sext_unorm16x4`; -128
//!   reads as -128/127, unclamped). Applied to the input slot, so the mask follows the remap
//!   selectors ("a property of the incoming bytes and is therefore subject to remap").
//! * ADDRESS bits 20..23 (gamma, in R, G, B, A bit order): sRGB to linear on the output
//!   channel, unless that channel is signed.
//! * ADDRESS bits 12..15 (unsigned remap) = 1 (`CELL_GCM_TEXTURE_UNSIGNED_REMAP_BIASED`), on
//!   every remapped channel neither signed nor gamma-corrected: `(floor(x * 255 + 0.5) - 128)
//!   / 127`, or `(floor(x * 65535 + 0.5) - 32768) / 32767` for 16-bit channels ("expand to
//!   signed normalized by decompressing the signal"): the stored 128 (32768) reads as 0.
//!
//! Channels forced to ZERO or ONE are never converted.

use super::format::TexelFormat;
pub use rsxtrace_semantics::texel::{srgb_to_linear, TexelConversions};

/// A decoded remap: selectors and modes in A, R, G, B order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remap {
    /// Input slot (0 = A, 1 = R, 2 = G, 3 = B) for each output channel (A, R, G, B).
    pub inputs: [u8; 4],
    /// Output mode for each output channel (A, R, G, B): 0 zero, 1 one, 2 (or 3) remap.
    pub modes: [u8; 4],
}

/// Output mode ZERO (`CELL_GCM_TEXTURE_REMAP_ZERO`).
pub const REMAP_ZERO: u8 = 0;
/// Output mode ONE (`CELL_GCM_TEXTURE_REMAP_ONE`).
pub const REMAP_ONE: u8 = 1;

impl Remap {
    /// The identity remap (`0xAAE4`).
    pub const IDENTITY: Remap = Remap {
        inputs: [0, 1, 2, 3],
        modes: [2, 2, 2, 2],
    };

    /// Decode CONTROL1 for a texture of `format`.
    pub fn decode(control1: u32, format: TexelFormat) -> Remap {
        let over = (control1 >> 16) & 0xFFFF != 0;
        let mut lo = control1 & 0xFF;
        use TexelFormat::*;
        match format {
            X32Float | W16Z16Y16X16Float | W32Z32Y32X32Float => lo = 0xE4,
            Y16X16Float => lo = if over { 0x56 } else { 0x66 },
            X16 | Y16X16 | Hilo8 | HiloS8 => {
                lo = match lo {
                    0xE4 => {
                        if over {
                            0x56
                        } else {
                            0x66
                        }
                    }
                    0x4E => {
                        if over {
                            0xA9
                        } else {
                            0x99
                        }
                    }
                    0xEE => 0xAA,
                    0x44 => 0x55,
                    other => other,
                }
            }
            _ => {}
        }
        let field = |v: u32, i: u32| ((v >> (2 * i)) & 3) as u8;
        let modes_word = (control1 >> 8) & 0xFF;
        Remap {
            inputs: [field(lo, 0), field(lo, 1), field(lo, 2), field(lo, 3)],
            modes: [
                field(modes_word, 0),
                field(modes_word, 1),
                field(modes_word, 2),
                field(modes_word, 3),
            ],
        }
    }

    /// Apply to A, R, G, B slots; the result is in **R, G, B, A** order.
    #[inline]
    pub fn apply(&self, slots: [f32; 4]) -> [f32; 4] {
        let out = |c: usize| match self.modes[c] {
            REMAP_ZERO => 0.0,
            REMAP_ONE => 1.0,
            _ => slots[usize::from(self.inputs[c] & 3)],
        };
        [out(1), out(2), out(3), out(0)]
    }

    /// Move a per-slot mask (bit 0 = A ... bit 3 = B) to the output channels that read those
    /// slots; the result has bit 0 = A ... bit 3 = B of the output (RPCS3
    /// `shuffle_mask_bits`). Channels forced to 0 or 1 get no bit.
    pub fn shuffle_mask(&self, mask: u8) -> u8 {
        let mut out = 0;
        for c in 0..4 {
            if self.modes[c] != REMAP_ZERO
                && self.modes[c] != REMAP_ONE
                && mask & (1 << (self.inputs[c] & 3)) != 0
            {
                out |= 1 << c;
            }
        }
        out
    }

    /// Bits of the output channels (A, R, G, B order) that take a slot value.
    pub fn remapped_mask(&self) -> u8 {
        self.shuffle_mask(0xF)
    }
}

/// The texel conversions, per output channel in R, G, B, A order: the signed reinterpretation
/// of each texel before filtering, sRGB and bias after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conversions {
    /// Reinterpret as signed (8 or 16 bits, see `wide`).
    pub signed: [bool; 4],
    /// sRGB to linear.
    pub gamma: [bool; 4],
    /// Biased renormalisation (`UNSIGNED_REMAP_BIASED`).
    pub expand: [bool; 4],
    /// The channels are 16 bits wide (X16, Y16_X16): sign and bias quantise to 16 bits.
    pub wide: bool,
}

/// ARGB-order mask (bit 0 = A) to an RGBA-order bool array.
fn argb_mask_to_rgba(m: u8) -> [bool; 4] {
    [m & 2 != 0, m & 4 != 0, m & 8 != 0, m & 1 != 0]
}

impl Conversions {
    /// The conversions of unit state `texture` whose texels are `format` through `remap`: its
    /// FILTER signed bits and ADDRESS unsigned-remap and gamma fields ([`Self::new`]).
    pub fn of_unit(
        format: TexelFormat,
        remap: &Remap,
        texture: &rsxtrace_capture::frame::state::Texture,
    ) -> Conversions {
        let a = &texture.address;
        Conversions::new(
            format,
            remap,
            texture.filter.argb_signed,
            a.unsigned_remap,
            a.gamma,
        )
    }

    /// The conversions of a unit: `argb_signed` = FILTER bits 28..31, `unsigned_remap` =
    /// ADDRESS bits 12..15, `gamma_rgba` = ADDRESS bits 20..23.
    pub fn new(
        format: TexelFormat,
        remap: &Remap,
        argb_signed: u8,
        unsigned_remap: u8,
        gamma_rgba: u8,
    ) -> Conversions {
        let features = format.features();
        let mut signed = 0u8;
        let mut gamma = 0u8;
        let mut expand = 0u8;
        if features.signed {
            signed = remap.shuffle_mask(argb_signed & 0xF);
        }
        if features.gamma {
            // RGBA bit order to ARGB bit order (RPCS3 `fragment_texture::gamma`).
            let g = gamma_rgba & 0xF;
            gamma = ((g << 1) & 0xF) | (g >> 3);
            gamma &= !signed;
            // Constants are not converted (sRGB leaves 0 and 1 as they are anyway).
            gamma &= remap.remapped_mask();
        }
        if features.biased && unsigned_remap & 0xF == 1 {
            expand = remap.remapped_mask() & !(signed | gamma);
        }
        Conversions {
            signed: argb_mask_to_rgba(signed),
            gamma: argb_mask_to_rgba(gamma),
            expand: argb_mask_to_rgba(expand),
            wide: features.wide,
        }
    }

    /// The channels (bit 0 R .. bit 3 A) a TEX with the bx2 modifier expands: with RPCS3's
    /// `_enable_texture_expand`, EXPAND goes on the channels the remap fills from a slot
    /// (`shuffle_mask_bits(0xF)`; ZERO and ONE stay), only for formats with biased
    /// renormalization (none of the float formats or HILO_S8), and a signed channel's sign
    /// extension keeps priority over it.
    pub fn bx2_channels(format: TexelFormat, remap: &Remap, argb_signed: u8) -> u8 {
        if !format.features().biased {
            return 0;
        }
        let signed = Conversions::new(format, remap, argb_signed, 0, 0).signed;
        argb_mask_to_rgba(remap.remapped_mask())
            .iter()
            .zip(signed)
            .enumerate()
            .filter(|(_, (&remapped, signed))| remapped && !signed)
            .fold(0, |mask, (c, _)| mask | 1 << c)
    }

    /// Whether any conversion applies.
    pub fn any(&self) -> bool {
        self.signed
            .iter()
            .chain(&self.gamma)
            .chain(&self.expand)
            .any(|b| *b)
    }

    /// Whether a channel is signed: that conversion is applied to each texel before filtering
    /// ([`Self::apply_signed`]), the others after it ([`Self::post_filter`]).
    pub fn any_signed(&self) -> bool {
        self.signed.iter().any(|b| *b)
    }

    /// The signed channels of one texel reinterpreted (the rest as they are): a signed texture
    /// is filtered in signed space, as a host samples RPCS3's SNORM view of it and as the
    /// hardware's signed formats filter (blending 0x7F and 0x81 gives about 0, not the
    /// reinterpretation of 0x80).
    pub fn apply_signed(&self, v: [f32; 4]) -> [f32; 4] {
        Conversions {
            gamma: [false; 4],
            expand: [false; 4],
            ..*self
        }
        .apply(v)
    }

    /// The gamma and bias conversions as the shared rule takes them
    /// (`rsxtrace_semantics::texel`, which the recompiled shader applies after filtering).
    pub fn post_filter(&self) -> TexelConversions {
        let mask = |m: [bool; 4]| {
            m.iter()
                .enumerate()
                .fold(0u8, |acc, (c, &on)| acc | u8::from(on) << c)
        };
        TexelConversions {
            gamma: mask(self.gamma),
            bias: mask(self.expand),
            wide: self.wide,
        }
    }

    /// Apply every conversion to one texel: the signed channels, then gamma and bias by the
    /// shared rule (which never mark a signed channel: sign > gamma > bias).
    pub fn apply(&self, mut v: [f32; 4]) -> [f32; 4] {
        // The stored range of a channel, its sign bit's value and its signed maximum.
        let (max, sign, smax) = if self.wide {
            (65535.0, 32768.0, 32767.0)
        } else {
            (255.0, 128.0, 127.0)
        };
        for (i, x) in v.iter_mut().enumerate() {
            if self.signed[i] {
                let bits = (*x * max + 0.5).floor();
                *x = if bits < sign { bits } else { bits - 2.0 * sign } / smax;
            }
        }
        self.post_filter().apply(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_bit_formats_read_their_selectors_in_blocks() {
        // X16, Y16_X16, HILO8, HILO_S8: 0xE4 -> 0x66 (A<-G, R<-R, G<-G, B<-R), 0x56 with an
        // override (A<-G, R, G, B<-R), 0x4E -> 0x99.
        for f in [
            TexelFormat::X16,
            TexelFormat::Y16X16,
            TexelFormat::Hilo8,
            TexelFormat::HiloS8,
        ] {
            assert_eq!(Remap::decode(0xAAE4, f).inputs, [2, 1, 2, 1], "{f:?}");
            assert_eq!(Remap::decode(0x1_AAE4, f).inputs, [2, 1, 1, 1], "{f:?}");
            assert_eq!(Remap::decode(0xAA4E, f).inputs, [1, 2, 1, 2], "{f:?}");
        }
        // Other formats take the selectors as written; the float ones ignore them.
        assert_eq!(
            Remap::decode(0xAA4E, TexelFormat::A8R8G8B8).inputs,
            [2, 3, 0, 1]
        );
        assert_eq!(
            Remap::decode(0xAA1B, TexelFormat::X32Float).inputs,
            [0, 1, 2, 3]
        );
        // Y16_X16_FLOAT is forced to 0x66 whatever is written.
        assert_eq!(
            Remap::decode(0xAA1B, TexelFormat::Y16X16Float).inputs,
            [2, 1, 2, 1]
        );
    }

    #[test]
    fn conversions_follow_the_format_features() {
        let id = Remap::IDENTITY;
        // A8R8G8B8 takes all three; X16 only the bias; the float formats nothing.
        let c = Conversions::new(TexelFormat::A8R8G8B8, &id, 0b0010, 1, 0b0010);
        assert_eq!(c.signed, [true, false, false, false]);
        assert_eq!(c.gamma, [false, true, false, false]);
        assert_eq!(c.expand, [false, false, true, true]);
        assert!(!c.wide);
        let c = Conversions::new(TexelFormat::X16, &id, 0xF, 1, 0xF);
        assert_eq!((c.signed, c.gamma), ([false; 4], [false; 4]));
        assert_eq!(c.expand, [true; 4]);
        assert!(c.wide);
        assert!(!Conversions::new(TexelFormat::X32Float, &id, 0xF, 1, 0xF).any());
    }

    #[test]
    fn sign_and_bias_quantise_to_the_channel_width() {
        let eight = Conversions {
            signed: [true, false, false, false],
            expand: [false, true, false, false],
            ..Conversions::default()
        };
        // 0x80 signed = -128 / 127; 0x80 biased = 0; 0xFF biased = 1.
        let v = eight.apply([128.0 / 255.0, 128.0 / 255.0, 0.5, 0.5]);
        assert_eq!(v[0], -128.0 / 127.0);
        assert_eq!(v[1], 0.0);
        assert_eq!(eight.apply([0.0, 1.0, 0.0, 0.0])[1], 1.0);
        let wide = Conversions {
            wide: true,
            ..eight
        };
        let v = wide.apply([0x8001 as f32 / 65535.0, 0x7FFF as f32 / 65535.0, 0.0, 0.0]);
        assert_eq!(v[0], -32767.0 / 32767.0);
        assert_eq!(v[1], -1.0 / 32767.0);
    }
}
