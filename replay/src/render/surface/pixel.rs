//! One pixel's bytes: colour and depth formats encoded and decoded as the RSX stores them
//! (the byte order and rounding of the parent module's table).

use crate::render::state::{ColorFormat, DepthFormat};

/// Bytes per pixel of a colour format.
pub fn bytes_per_pixel(format: ColorFormat) -> u32 {
    match format {
        ColorFormat::B8 => 1,
        ColorFormat::X1R5G5B5Z1R5G5B5
        | ColorFormat::X1R5G5B5O1R5G5B5
        | ColorFormat::R5G6B5
        | ColorFormat::G8B8 => 2,
        ColorFormat::FloatW16Z16Y16X16 => 8,
        ColorFormat::FloatW32Z32Y32X32 => 16,
        _ => 4,
    }
}

/// Bytes per pixel of a depth format.
pub fn depth_bytes_per_pixel(format: DepthFormat) -> u32 {
    if format.has_stencil() {
        4
    } else {
        2
    }
}

/// One encoded pixel (up to 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelBytes {
    bytes: [u8; 16],
    len: usize,
}

impl PixelBytes {
    /// The bytes, in memory order.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }
}

/// `round(clamp(v, 0, 1) × max)`, NaN → 0.
pub fn unorm(v: f32, max: u32) -> u32 {
    if v.is_nan() {
        return 0;
    }
    (f64::from(v.clamp(0.0, 1.0)) * f64::from(max)).round() as u32
}

/// Encode straight RGBA as `format`'s bytes in guest memory.
pub fn encode(format: ColorFormat, rgba: [f32; 4]) -> PixelBytes {
    let [r, g, b, a] = rgba;
    let mut bytes = [0u8; 16];
    let len = bytes_per_pixel(format) as usize;
    let u8c = |v: f32| unorm(v, 255) as u8;
    let b16 = |v: u32| (v as u16).to_be_bytes();
    let mut put = |at: usize, src: &[u8]| {
        if let Some(d) = bytes.get_mut(at..at + src.len()) {
            d.copy_from_slice(src);
        }
    };
    match format {
        ColorFormat::X1R5G5B5Z1R5G5B5 | ColorFormat::X1R5G5B5O1R5G5B5 => {
            let x = u32::from(format == ColorFormat::X1R5G5B5O1R5G5B5);
            put(
                0,
                &b16(x << 15 | unorm(r, 31) << 10 | unorm(g, 31) << 5 | unorm(b, 31)),
            );
        }
        ColorFormat::R5G6B5 => put(
            0,
            &b16(unorm(r, 31) << 11 | unorm(g, 63) << 5 | unorm(b, 31)),
        ),
        ColorFormat::X8R8G8B8Z8R8G8B8 => put(0, &[0, u8c(r), u8c(g), u8c(b)]),
        ColorFormat::X8R8G8B8O8R8G8B8 => put(0, &[0xFF, u8c(r), u8c(g), u8c(b)]),
        ColorFormat::A8R8G8B8 => put(0, &[u8c(a), u8c(r), u8c(g), u8c(b)]),
        ColorFormat::B8 => put(0, &[u8c(b)]),
        ColorFormat::G8B8 => put(0, &[u8c(g), u8c(b)]),
        ColorFormat::FloatW16Z16Y16X16 => {
            for (i, v) in rgba.iter().enumerate() {
                put(2 * i, &half::f16::from_f32(*v).to_bits().to_be_bytes());
            }
        }
        ColorFormat::FloatW32Z32Y32X32 => {
            for (i, v) in rgba.iter().enumerate() {
                put(4 * i, &v.to_be_bytes());
            }
        }
        ColorFormat::FloatX32 => put(0, &r.to_be_bytes()),
        ColorFormat::X8B8G8R8Z8B8G8R8 => put(0, &[0, u8c(b), u8c(g), u8c(r)]),
        ColorFormat::X8B8G8R8O8B8G8R8 => put(0, &[0xFF, u8c(b), u8c(g), u8c(r)]),
        ColorFormat::A8B8G8R8 => put(0, &[u8c(a), u8c(b), u8c(g), u8c(r)]),
    }
    PixelBytes { bytes, len }
}

/// Decode `format`'s bytes (at least [`bytes_per_pixel`]) to RGBA. Channels the format does
/// not store read as 0 (colour) or 1 (alpha); X formats read alpha 1. `None` when `bytes` is
/// too short.
pub fn decode(format: ColorFormat, bytes: &[u8]) -> Option<[f32; 4]> {
    let n = bytes_per_pixel(format) as usize;
    let b = bytes.get(..n)?;
    let u8f = |v: u8| f32::from(v) / 255.0;
    let be16 = |i: usize| -> u32 { u32::from(u16::from_be_bytes([b[i], b[i + 1]])) };
    let be32 = |i: usize| f32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let f5 = |v: u32| (v & 31) as f32 / 31.0;
    Some(match format {
        ColorFormat::X1R5G5B5Z1R5G5B5 | ColorFormat::X1R5G5B5O1R5G5B5 => {
            let v = be16(0);
            [f5(v >> 10), f5(v >> 5), f5(v), 1.0]
        }
        ColorFormat::R5G6B5 => {
            let v = be16(0);
            [f5(v >> 11), ((v >> 5) & 63) as f32 / 63.0, f5(v), 1.0]
        }
        ColorFormat::X8R8G8B8Z8R8G8B8 | ColorFormat::X8R8G8B8O8R8G8B8 => {
            [u8f(b[1]), u8f(b[2]), u8f(b[3]), 1.0]
        }
        ColorFormat::A8R8G8B8 => [u8f(b[1]), u8f(b[2]), u8f(b[3]), u8f(b[0])],
        ColorFormat::B8 => [0.0, 0.0, u8f(b[0]), 1.0],
        ColorFormat::G8B8 => [0.0, u8f(b[0]), u8f(b[1]), 1.0],
        ColorFormat::FloatW16Z16Y16X16 => {
            let h = |i: usize| half::f16::from_bits(be16(i) as u16).to_f32();
            [h(0), h(2), h(4), h(6)]
        }
        ColorFormat::FloatW32Z32Y32X32 => [be32(0), be32(4), be32(8), be32(12)],
        ColorFormat::FloatX32 => [be32(0), 0.0, 0.0, 1.0],
        ColorFormat::X8B8G8R8Z8B8G8R8 | ColorFormat::X8B8G8R8O8B8G8R8 => {
            [u8f(b[3]), u8f(b[2]), u8f(b[1]), 1.0]
        }
        ColorFormat::A8B8G8R8 => [u8f(b[3]), u8f(b[2]), u8f(b[1]), u8f(b[0])],
    })
}

/// Window depth in [0, 1] to the value the format stores (clamped, NaN → 0): a unorm format's
/// fixed-point value (rounded), a float format's bits (truncated: RPCS3 converts its host f32
/// depth to the 24-bit float by dropping the low 7 bits, `f32_to_d24f`; the half is truncated
/// the same way). Stored values of either kind order as the depths do.
pub fn depth_to_fixed(format: DepthFormat, z: f32) -> u32 {
    let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
    match format {
        DepthFormat::Z16 => unorm(z, 0xFFFF),
        DepthFormat::Z24S8 => unorm(z, 0xFF_FFFF),
        DepthFormat::Z24S8Float => z.to_bits() >> 7,
        DepthFormat::Z16Float => {
            if z < HALF_MIN_NORMAL {
                // A subnormal half: its bits count steps of 2^-24.
                (z * 16_777_216.0).floor() as u32
            } else {
                let bits = z.to_bits();
                let exponent = (bits >> 23) + 15 - 127;
                (exponent << 10) | ((bits >> 13) & 0x3FF)
            }
        }
    }
}

/// The smallest normal IEEE half, 2^-14.
const HALF_MIN_NORMAL: f32 = 6.103_515_6e-5;

/// A stored depth value back to a depth: [0, 1] for what a draw or clear stores. A float
/// format's bits from elsewhere (memory never cleared) may read above 1; a NaN pattern reads
/// as infinity, so that depths order as the stored values do on the device as in the CPU
/// render's comparison of stored values.
pub fn fixed_to_depth(format: DepthFormat, v: u32) -> f32 {
    let unorm = |max: u32| (f64::from(v.min(max)) / f64::from(max)) as f32;
    let float = |f: f32| if f.is_nan() { f32::INFINITY } else { f };
    match format {
        DepthFormat::Z16 => unorm(0xFFFF),
        DepthFormat::Z24S8 => unorm(0xFF_FFFF),
        DepthFormat::Z24S8Float => float(f32::from_bits((v & 0xFF_FFFF) << 7)),
        DepthFormat::Z16Float => float(half::f16::from_bits(v as u16).to_f32()),
    }
}

/// The depth and stencil a clear stores from `SET_ZSTENCIL_CLEAR_VALUE`: Z16 the low 16 bits,
/// Z24S8 bits 8..31 and the stencil byte. A float format reads the same bits as a unorm depth
/// and stores that depth as a float (RPCS3 clears with `clear_depth / max_depth_value`).
pub fn clear_depth_value(format: DepthFormat, zstencil: u32) -> (u32, u8) {
    let (unorm_format, bits, stencil) = if format.has_stencil() {
        (DepthFormat::Z24S8, zstencil >> 8, zstencil as u8)
    } else {
        (DepthFormat::Z16, zstencil & 0xFFFF, 0)
    };
    if format.is_float() {
        let depth = fixed_to_depth(unorm_format, bits);
        (depth_to_fixed(format, depth), stencil)
    } else {
        (bits, stencil)
    }
}

/// Encode fixed-point depth and stencil (ignored by Z16) into `out` (at least
/// [`depth_bytes_per_pixel`] bytes); returns false when `out` is too short.
pub fn encode_depth(format: DepthFormat, depth: u32, stencil: u8, out: &mut [u8]) -> bool {
    match depth_bytes_per_pixel(format) {
        2 => match out.get_mut(..2) {
            Some(d) => {
                d.copy_from_slice(&(depth.min(0xFFFF) as u16).to_be_bytes());
                true
            }
            None => false,
        },
        _ => match out.get_mut(..4) {
            Some(d) => {
                d.copy_from_slice(
                    &((depth.min(0xFF_FFFF) << 8) | u32::from(stencil)).to_be_bytes(),
                );
                true
            }
            None => false,
        },
    }
}

/// Decode fixed-point depth and stencil (0 for Z16); `None` when `bytes` is too short.
pub fn decode_depth(format: DepthFormat, bytes: &[u8]) -> Option<(u32, u8)> {
    match depth_bytes_per_pixel(format) {
        2 => {
            let b = bytes.get(..2)?;
            Some((u32::from(u16::from_be_bytes([b[0], b[1]])), 0))
        }
        _ => {
            let b = bytes.get(..4)?;
            let v = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            Some((v >> 8, v as u8))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_depth_stores_truncated_float_bits() {
        // The 24-bit float is the f32's bits >> 7 (RPCS3 `f32_to_d24f`): 0.3 = 0x3E99999A.
        let f24 = DepthFormat::Z24S8Float;
        assert_eq!(depth_to_fixed(f24, 0.3), 0x7D_3333);
        assert_eq!(fixed_to_depth(f24, 0x7D_3333), f32::from_bits(0x3E99_9980));
        assert_eq!(depth_to_fixed(f24, 1.0), 0x7F_0000);
        assert_eq!(depth_to_fixed(f24, 2.0), 0x7F_0000, "clamped");
        assert_eq!(depth_to_fixed(f24, f32::NAN), 0);
        // The half: 0.3 = 0x34CC truncated (nearest would be 0x34CD); 2^-20 is subnormal.
        let f16 = DepthFormat::Z16Float;
        assert_eq!(depth_to_fixed(f16, 0.3), 0x34CC);
        assert_eq!(depth_to_fixed(f16, 1.0), 0x3C00);
        assert_eq!(depth_to_fixed(f16, 2f32.powi(-20)), 16);
        assert_eq!(fixed_to_depth(f16, 16), 2f32.powi(-20));
        // Patterns above 1.0 (memory never cleared) order as stored; NaN reads infinity.
        assert_eq!(fixed_to_depth(f24, 0xFF_FFFF), f32::INFINITY);
        assert!(fixed_to_depth(f24, 0x7F_0001) > 1.0);
        assert_eq!(fixed_to_depth(f16, 0x7E00), f32::INFINITY);
        // Every stored value reads back to a depth that stores the same value, and stored
        // values order as the depths do.
        for format in [f16, f24] {
            let mut last = 0;
            for i in 0..=10_000 {
                let z = i as f32 / 10_000.0;
                let v = depth_to_fixed(format, z);
                assert!(v >= last, "{format:?} at {z}");
                assert_eq!(depth_to_fixed(format, fixed_to_depth(format, v)), v);
                assert!(fixed_to_depth(format, v) <= z);
                last = v;
            }
        }
        // Byte layout as the unorm variants: depth in bits 8..31 and the stencil byte.
        let mut px = [0u8; 4];
        assert!(encode_depth(f24, 0x7D_3333, 0x5A, &mut px));
        assert_eq!(px, [0x7D, 0x33, 0x33, 0x5A]);
        assert_eq!(decode_depth(f24, &px), Some((0x7D_3333, 0x5A)));
        assert_eq!(depth_bytes_per_pixel(f16), 2);
    }

    #[test]
    fn a_float_depth_clear_reads_the_clear_value_as_unorm() {
        // RPCS3 clears with clear_depth / max_depth_value, then the host stores a float.
        let (z, s) = clear_depth_value(DepthFormat::Z24S8Float, 0xFFFF_FF07);
        assert_eq!((z, s), (0x7F_0000, 7));
        assert_eq!(
            clear_depth_value(DepthFormat::Z24S8, 0x8000_0007),
            (0x80_0000, 7)
        );
        assert_eq!(
            clear_depth_value(DepthFormat::Z16Float, 0xFFFF),
            (0x3C00, 0)
        );
        assert_eq!(
            clear_depth_value(DepthFormat::Z16, 0x1234_5678),
            (0x5678, 0)
        );
    }

    #[test]
    fn the_polygon_offset_unit_of_float_depth_follows_the_exponent() {
        // GL 4.6 14.6.5: 2^(e − m).
        let f24 = DepthFormat::Z24S8Float;
        assert_eq!(f24.resolution(0.75), 2f64.powi(-1 - 16));
        assert_eq!(f24.resolution(1.0), 2f64.powi(-16));
        assert_eq!(DepthFormat::Z16Float.resolution(0.3), 2f64.powi(-2 - 10));
        assert_eq!(DepthFormat::Z16Float.resolution(0.0), 2f64.powi(-24));
        assert_eq!(DepthFormat::Z24S8.resolution(0.3), 1.0 / 16_777_215.0);
    }
}
