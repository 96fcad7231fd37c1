//! Element decoding: the big-endian bytes of one vertex element to an f32x4, exactly as RPCS3's
//! `RSXVertexFetch.glsl` (`fetch_attribute`) computes it (rrc-format.md 4.3).
//!
//! Rules from `fetch_attribute`:
//! * the decode runs on all four lanes, with lanes past `size` holding raw 0, then `w` is set to
//!   the type's scale before the final division, so a missing `w` is always 1;
//! * S1 adds 0.5 to every lane before dividing by 32767.5, so a missing `y`/`z` of an S1
//!   element is `0.5 / 32767.5`, not 0 (the "0" of the reference table, "after scaling");
//! * UB and UB256 ignore byte swapping (single-byte lanes, read in memory order);
//! * CMP is one BE word: x = bits 0..10, y = bits 11..21, z = bits 22..31, each shifted to the
//!   top of 16 bits, sign-extended from 16 bits and divided by 32767; w = 1.

use crate::format::ElementFormat;
use crate::input::VertexType;

/// `scaling_table` of `fetch_attribute` for S1.
const S1_SCALE: f32 = 32767.5;
/// `scaling_table` of `fetch_attribute` for CMP.
const CMP_SCALE: f32 = 32767.0;

/// Decode one element from `bytes` (at least [`ElementFormat::read_bytes`] long; extra bytes are
/// ignored). Returns `None` when `bytes` is too short.
#[inline]
pub fn decode_element(format: ElementFormat, bytes: &[u8]) -> Option<[f32; 4]> {
    decode_as(format.ty(), format, bytes)
}

/// [`decode_element`] with the type given apart, so that a caller looping over one array's
/// elements can name it as a constant and keep only its arm in the loop (`format.ty()` must
/// be `ty`).
#[inline(always)]
pub(crate) fn decode_as(ty: VertexType, format: ElementFormat, bytes: &[u8]) -> Option<[f32; 4]> {
    let bytes = bytes.get(..format.read_bytes() as usize)?;
    let mut out = [0.0, 0.0, 0.0, 1.0];
    match ty {
        VertexType::F => {
            for (lane, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                *lane = f32::from_bits(u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
            }
        }
        VertexType::SF => {
            for (lane, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *lane = half::f16::from_bits(u16::from_be_bytes([c[0], c[1]])).to_f32();
            }
        }
        VertexType::S1 => {
            let missing = 0.5 / S1_SCALE;
            out = [missing, missing, missing, 1.0];
            for (lane, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                let v = i16::from_be_bytes([c[0], c[1]]);
                *lane = (f32::from(v) + 0.5) / S1_SCALE;
            }
        }
        VertexType::S32K => {
            for (lane, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *lane = f32::from(i16::from_be_bytes([c[0], c[1]]));
            }
        }
        VertexType::UB => {
            for (lane, &b) in out.iter_mut().zip(bytes) {
                *lane = f32::from(b) / 255.0;
            }
        }
        VertexType::UB256 => {
            for (lane, &b) in out.iter_mut().zip(bytes) {
                *lane = f32::from(b);
            }
        }
        VertexType::CMP => {
            let word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            return Some(decode_cmp(word));
        }
    }
    // Lanes past `size` were never written: y and z keep their missing value, w keeps 1.
    Some(out)
}

/// Decode a packed CMP word (RSXVertexFetch.glsl: `sext(ivec4(x, y, z, 32767) << (5, 5, 6, 0))
/// / 32767`).
#[inline]
pub fn decode_cmp(word: u32) -> [f32; 4] {
    let x = ((word & 0x7FF) << 5) as u16 as i16;
    let y = (((word >> 11) & 0x7FF) << 5) as u16 as i16;
    let z = (((word >> 22) & 0x3FF) << 6) as u16 as i16;
    [
        f32::from(x) / CMP_SCALE,
        f32::from(y) / CMP_SCALE,
        f32::from(z) / CMP_SCALE,
        1.0,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(ty: VertexType, size: u8, bytes: &[u8]) -> [f32; 4] {
        let f = ElementFormat::new(0, ty, size).expect("valid format");
        decode_element(f, bytes).expect("enough bytes")
    }

    #[test]
    fn f32_sizes_fill_missing_with_zero_and_one() {
        // 1.0 = 3F800000, -2.5 = C0200000, 0.5 = 3F000000, 8.0 = 41000000
        let b = [
            0x3F, 0x80, 0x00, 0x00, 0xC0, 0x20, 0x00, 0x00, 0x3F, 0x00, 0x00, 0x00, 0x41, 0x00,
            0x00, 0x00,
        ];
        assert_eq!(dec(VertexType::F, 1, &b), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(dec(VertexType::F, 2, &b), [1.0, -2.5, 0.0, 1.0]);
        assert_eq!(dec(VertexType::F, 3, &b), [1.0, -2.5, 0.5, 1.0]);
        assert_eq!(dec(VertexType::F, 4, &b), [1.0, -2.5, 0.5, 8.0]);
    }

    #[test]
    fn s1_extremes_and_missing_lanes() {
        // -32768 = 8000, 32767 = 7FFF, 0 = 0000, -1 = FFFF
        let b = [0x80, 0x00, 0x7F, 0xFF, 0x00, 0x00, 0xFF, 0xFF];
        let r = dec(VertexType::S1, 4, &b);
        assert_eq!(r[0], -32767.5 / 32767.5);
        assert_eq!(r[0], -1.0);
        assert_eq!(r[1], 1.0);
        assert_eq!(r[2], 0.5 / 32767.5);
        assert_eq!(r[3], -0.5 / 32767.5);
        let r = dec(VertexType::S1, 1, &b);
        assert_eq!(r, [-1.0, 0.5 / 32767.5, 0.5 / 32767.5, 1.0]);
        let r = dec(VertexType::S1, 3, &b);
        assert_eq!(r, [-1.0, 1.0, 0.5 / 32767.5, 1.0]);
    }

    #[test]
    fn s32k_is_signed_integer() {
        let b = [0x80, 0x00, 0x7F, 0xFF, 0xFF, 0xFE];
        assert_eq!(dec(VertexType::S32K, 3, &b), [-32768.0, 32767.0, -2.0, 1.0]);
        assert_eq!(dec(VertexType::S32K, 2, &b), [-32768.0, 32767.0, 0.0, 1.0]);
    }

    #[test]
    fn sf_halves_incl_inf_nan() {
        // 1.0 = 3C00, -2.0 = C000, +inf = 7C00, NaN = 7E00
        let b = [0x3C, 0x00, 0xC0, 0x00, 0x7C, 0x00, 0x7E, 0x00];
        let r = dec(VertexType::SF, 4, &b);
        assert_eq!(r[0], 1.0);
        assert_eq!(r[1], -2.0);
        assert_eq!(r[2], f32::INFINITY);
        assert!(r[3].is_nan());
        assert_eq!(dec(VertexType::SF, 2, &b), [1.0, -2.0, 0.0, 1.0]);
        // -inf = FC00
        assert_eq!(dec(VertexType::SF, 1, &[0xFC, 0x00])[0], f32::NEG_INFINITY);
    }

    #[test]
    fn ub_normalised_and_ub256_raw() {
        let b = [0xFF, 0x00, 0x80, 0x01];
        assert_eq!(
            dec(VertexType::UB, 4, &b),
            [1.0, 0.0, 128.0 / 255.0, 1.0 / 255.0]
        );
        assert_eq!(dec(VertexType::UB, 3, &b), [1.0, 0.0, 128.0 / 255.0, 1.0]);
        assert_eq!(dec(VertexType::UB, 1, &b), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(dec(VertexType::UB256, 4, &b), [255.0, 0.0, 128.0, 1.0]);
    }

    #[test]
    fn cmp_fields_and_sign_extension() {
        // x = 0x3FF (max positive 11-bit): 0x3FF << 5 = 0x7FE0 = 32736.
        assert_eq!(decode_cmp(0x0000_03FF), [32736.0 / 32767.0, 0.0, 0.0, 1.0]);
        // x = 0x400 (most negative 11-bit): 0x8000 = -32768.
        assert_eq!(decode_cmp(0x0000_0400), [-32768.0 / 32767.0, 0.0, 0.0, 1.0]);
        // x = 0x7FF (-1 in 11 bits): 0xFFE0 = -32.
        assert_eq!(decode_cmp(0x0000_07FF), [-32.0 / 32767.0, 0.0, 0.0, 1.0]);
        // y = 0x400 in bits 11..21: word = 0x400 << 11 = 0x0020_0000.
        assert_eq!(decode_cmp(0x0020_0000), [0.0, -32768.0 / 32767.0, 0.0, 1.0]);
        // y = 0x3FF: word = 0x3FF << 11 = 0x001F_F800.
        assert_eq!(decode_cmp(0x001F_F800), [0.0, 32736.0 / 32767.0, 0.0, 1.0]);
        // z = 0x200 (most negative 10-bit) in bits 22..31: word = 0x8000_0000; 0x200 << 6 = 0x8000.
        assert_eq!(decode_cmp(0x8000_0000), [0.0, 0.0, -32768.0 / 32767.0, 1.0]);
        // z = 0x1FF: word = 0x1FF << 22 = 0x7FC0_0000; 0x1FF << 6 = 0x7FC0 = 32704.
        assert_eq!(decode_cmp(0x7FC0_0000), [0.0, 0.0, 32704.0 / 32767.0, 1.0]);
        // z = 0x3FF (-1): 0xFFC0 = -64.
        assert_eq!(decode_cmp(0xFFC0_0000), [0.0, 0.0, -64.0 / 32767.0, 1.0]);
        // The element bytes are big-endian: 80 00 00 00 is z = 0x200.
        assert_eq!(
            dec(VertexType::CMP, 1, &[0x80, 0x00, 0x00, 0x00]),
            [0.0, 0.0, -32768.0 / 32767.0, 1.0]
        );
    }

    #[test]
    fn short_input_is_none() {
        let f = ElementFormat::new(0, VertexType::F, 3).expect("valid");
        assert_eq!(decode_element(f, &[0; 11]), None);
        let f = ElementFormat::new(0, VertexType::CMP, 1).expect("valid");
        assert_eq!(decode_element(f, &[0; 3]), None);
    }
}
