//! The border colour of a texture unit: BORDER_COLOR (ARGB8, rrc-format.md 4.7) read like a
//! texel through the CONTROL1 remap, with the hardware's quirk for signed channels.
//!
//! On the RSX a border channel marked signed (FILTER bits 28..31, by raw bit, before the remap)
//! does not read as the signed byte but as the biased one, `(b - 128) / 127` ("Border color is
//! broken on PS3. The SNORM behavior is completely broken and behaves like BIASED
//! renormalization instead", RPCS3 `RSXTexture.cpp` `fragment_texture::border_color`). The
//! post-filter sign conversion ([`Conversions`](super::remap::Conversions)) still applies to
//! the border like to any texel, so the stored byte is pre-biased here: `b - 128` wrapped to a
//! byte, whose sign extension is `b - 128`. Formats that ignore the sign flags keep the raw
//! byte.

use super::format::TexelFormat;
use super::remap::Remap;

/// The remapped border colour (R, G, B, A) of a unit of `format`, before the post-filter
/// conversions; `argb_signed` = FILTER bits 28..31 (bit 0 = A ... bit 3 = B).
pub fn border_colour(
    format: TexelFormat,
    remap: &Remap,
    border_color: u32,
    argb_signed: u8,
) -> [f32; 4] {
    let signed = if format.features().signed {
        argb_signed & 0xF
    } else {
        0
    };
    // Slot k (A, R, G, B) is byte 3 - k of the ARGB8 word.
    let slots: [f32; 4] = std::array::from_fn(|k| {
        let byte = (border_color >> (24 - 8 * k)) as u8;
        let byte = if signed & (1 << k) != 0 {
            byte.wrapping_sub(128)
        } else {
            byte
        };
        f32::from(byte) / 255.0
    });
    remap.apply(slots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::remap::Conversions;

    #[test]
    fn unsigned_border_is_the_remapped_argb8_word() {
        let b = border_colour(TexelFormat::A8R8G8B8, &Remap::IDENTITY, 0x80FF_4000, 0);
        assert_eq!(b, [1.0, 64.0 / 255.0, 0.0, 128.0 / 255.0]);
    }

    #[test]
    fn signed_border_channels_read_biased() {
        // R signed: the border's R byte 0xC0 reads (0xC0 - 128) / 127 = 0.5039 after the sign
        // conversion, not sext(0xC0) / 127 = -0.5039.
        let remap = Remap::IDENTITY;
        let b = border_colour(TexelFormat::A8R8G8B8, &remap, 0xFFC0_0000, 0b0010);
        let c = Conversions::new(TexelFormat::A8R8G8B8, &remap, 0b0010, 0, 0);
        let v = c.apply(b);
        assert_eq!(v[0], 64.0 / 127.0);
        assert_eq!(v[3], 1.0);
        // A format without the sign feature keeps the raw byte.
        let b = border_colour(TexelFormat::Hilo8, &remap, 0xFFC0_0000, 0b0010);
        assert_eq!(b[0], 0xC0 as f32 / 255.0);
    }
}
