//! Every decodable texel format: a 2x1 linear texture laid out byte by byte (big-endian texel
//! bytes, as in guest memory), read back with nearest filtering at both texel centres. The
//! expected values are computed here from the bit fields written by hand; the channel order
//! follows the slot table of `rsxtrace_replay::texture::format` with the identity remap 0xAAE4.

use crate::texture_util;

use rsxtrace_replay::texture::{CaptureSampler, Sampler, UnitSampler};
use texture_util::*;

/// Decode a 2x1 texture of `format` with `bytes` (two texels, `bpp` bytes each) and return
/// both texels.
fn two_texels(format: u8, bpp: u32, bytes: Vec<u8>) -> [[f32; 4]; 2] {
    assert_eq!(
        bytes.len() as u32,
        2 * bpp,
        "test data must hold two texels"
    );
    let tex = Tex::new(format, 2, 1).linear(2 * bpp).texture();
    let mem = Mem::local(0, bytes);
    let unit = UnitSampler::new(0, &tex, &mem).expect("decodes");
    [unit.sample(&at2(0.25, 0.5)), unit.sample(&at2(0.75, 0.5))]
}

fn n8(v: u32) -> f32 {
    v as f32 / 255.0
}

/// A 5-bit channel at the 8-bit precision the hardware reads it with: ⌊v·255/31⌋ / 255 (16
/// reads 131/255, not 16/31).
fn n5(v: u32) -> f32 {
    n8(v * 255 / 31)
}

/// A 6-bit channel, likewise: ⌊v·255/63⌋ / 255.
fn n6(v: u32) -> f32 {
    n8(v * 255 / 63)
}

#[test]
fn b8_replicates_to_rgb_with_alpha_one() {
    let t = two_texels(0x81, 1, vec![0x33, 0xCC]);
    assert_close(t[0], [n8(0x33), n8(0x33), n8(0x33), 1.0]);
    assert_close(t[1], [n8(0xCC), n8(0xCC), n8(0xCC), 1.0]);
}

#[test]
fn a1r5g5b5() {
    // 1 10000 01000 00100 = 0xC104 ; 0 00001 11111 00000 = 0x07E0
    let t = two_texels(0x82, 2, vec![0xC1, 0x04, 0x07, 0xE0]);
    assert_close(t[0], [n5(16), n5(8), n5(4), 1.0]);
    assert_close(t[1], [n5(1), 1.0, 0.0, 0.0]);
}

#[test]
fn a4r4g4b4() {
    // A=8 R=4 G=2 B=1 ; A=F R=0 G=C B=3
    let t = two_texels(0x83, 2, vec![0x84, 0x21, 0xF0, 0xC3]);
    assert_close(t[0], [4.0 / 15.0, 2.0 / 15.0, 1.0 / 15.0, 8.0 / 15.0]);
    assert_close(t[1], [0.0, 12.0 / 15.0, 3.0 / 15.0, 1.0]);
}

#[test]
fn r5g6b5() {
    // 10000 100000 00001 = 0x8401 ; 00011 000111 11111 = 0x18FF
    let t = two_texels(0x84, 2, vec![0x84, 0x01, 0x18, 0xFF]);
    assert_close(t[0], [n5(16), n6(32), n5(1), 1.0]);
    assert_close(t[1], [n5(3), n6(7), 1.0, 1.0]);
}

#[test]
fn a8r8g8b8() {
    let t = two_texels(
        0x85,
        4,
        vec![0x80, 0x10, 0x20, 0x30, 0xFF, 0x00, 0x7F, 0xFE],
    );
    assert_close(t[0], [n8(0x10), n8(0x20), n8(0x30), n8(0x80)]);
    assert_close(t[1], [0.0, n8(0x7F), n8(0xFE), 1.0]);
}

#[test]
fn g8b8() {
    // Slots (g, b, g, b): R = second byte, G = first byte, B = second, A = first.
    let t = two_texels(0x8B, 2, vec![0x11, 0xEE, 0x40, 0x80]);
    assert_close(t[0], [n8(0xEE), n8(0x11), n8(0xEE), n8(0x11)]);
    assert_close(t[1], [n8(0x80), n8(0x40), n8(0x80), n8(0x40)]);
}

#[test]
fn r6g5b5() {
    // 100000 10000 00001 = 0x8201
    let t = two_texels(0x8F, 2, vec![0x82, 0x01, 0xFF, 0xFF]);
    assert_close(t[0], [n6(32), n5(16), n5(1), 1.0]);
    assert_close(t[1], [1.0, 1.0, 1.0, 1.0]);
}

#[test]
fn depth24_d8_reads_depth_in_all_channels() {
    // Depth bits 8..31, stencil 0..7 ignored.
    let t = two_texels(
        0x90,
        4,
        vec![0x80, 0x00, 0x00, 0x12, 0xFF, 0xFF, 0xFF, 0x00],
    );
    let d = 0x80_0000 as f32 / 0xFF_FFFF as f32;
    assert_close(t[0], [d; 4]);
    assert_close(t[1], [1.0; 4]);
}

#[test]
fn depth16_and_depth16_float() {
    let t = two_texels(0x92, 2, vec![0x40, 0x00, 0xFF, 0xFF]);
    assert_close(t[0], [0x4000 as f32 / 65535.0; 4]);
    assert_close(t[1], [1.0; 4]);
    // Half 0x3800 = 0.5, 0xBC00 = -1.0.
    let t = two_texels(0x93, 2, vec![0x38, 0x00, 0xBC, 0x00]);
    assert_close(t[0], [0.5; 4]);
    assert_close(t[1], [-1.0; 4]);
}

#[test]
fn x16_reads_one_in_the_channels_it_lacks() {
    // The hardware's X16 quad (ps3autotests texture_formats) is (1, x, 1): red and blue read 1,
    // green and alpha the value.
    let t = two_texels(0x94, 2, vec![0x80, 0x00, 0x00, 0x01]);
    let x0 = 0x8000 as f32 / 65535.0;
    let x1 = 1.0 / 65535.0;
    assert_close(t[0], [1.0, x0, 1.0, x0]);
    assert_close(t[1], [1.0, x1, 1.0, x1]);
}

#[test]
fn y16_x16_reads_r_g_r_g() {
    // First word c0, second c1; remap 0xE4 becomes 0x66: (c0, c1, c0, c1).
    let t = two_texels(
        0x95,
        4,
        vec![0x00, 0x01, 0xFF, 0xFF, 0x80, 0x00, 0x40, 0x00],
    );
    let (a, b) = (1.0 / 65535.0, 1.0);
    assert_close(t[0], [a, b, a, b]);
    let (a, b) = (0x8000 as f32 / 65535.0, 0x4000 as f32 / 65535.0);
    assert_close(t[1], [a, b, a, b]);
}

#[test]
fn r5g5b5a1() {
    // 10000 01000 00100 1 = 0x8209
    let t = two_texels(0x97, 2, vec![0x82, 0x09, 0x00, 0x3E]);
    assert_close(t[0], [n5(16), n5(8), n5(4), 1.0]);
    // 00000 00000 11111 0
    assert_close(t[1], [0.0, 0.0, 1.0, 0.0]);
}

#[test]
fn hilo8_and_hilo_s8() {
    let t = two_texels(0x98, 2, vec![0x10, 0x20, 0xFF, 0x00]);
    assert_close(t[0], [n8(0x10), n8(0x20), n8(0x10), n8(0x20)]);
    assert_close(t[1], [1.0, 0.0, 1.0, 0.0]);
    // Signed bytes: 0x7F = 127 -> 1.0, 0x81 = -127 -> -1.0, 0xC0 = -64.
    let t = two_texels(0x99, 2, vec![0x7F, 0x81, 0xC0, 0x00]);
    assert_close(t[0], [1.0, -1.0, 1.0, -1.0]);
    assert_close(t[1], [-64.0 / 127.0, 0.0, -64.0 / 127.0, 0.0]);
}

#[test]
fn w16_z16_y16_x16_float_is_rgba_in_memory_order() {
    // Halves 1.0 (0x3C00), 0.5 (0x3800), -2.0 (0xC000), 0.25 (0x3400), then 0, 2, 4, 8.
    let t = two_texels(
        0x9A,
        8,
        vec![
            0x3C, 0x00, 0x38, 0x00, 0xC0, 0x00, 0x34, 0x00, //
            0x00, 0x00, 0x40, 0x00, 0x44, 0x00, 0x48, 0x00,
        ],
    );
    assert_close(t[0], [1.0, 0.5, -2.0, 0.25]);
    assert_close(t[1], [0.0, 2.0, 4.0, 8.0]);
}

#[test]
fn w32_z32_y32_x32_float_is_rgba_in_memory_order() {
    let mut bytes = Vec::new();
    for v in [1.5f32, -3.0, 0.125, 100.0, 7.0, 6.0, 5.0, 4.0] {
        bytes.extend_from_slice(&v.to_bits().to_be_bytes());
    }
    let t = two_texels(0x9B, 16, bytes);
    assert_close(t[0], [1.5, -3.0, 0.125, 100.0]);
    assert_close(t[1], [7.0, 6.0, 5.0, 4.0]);
}

#[test]
fn x32_float_replicates() {
    // 0x40490FDB = 3.1415927, 0xC2280000 = -42.0
    let t = two_texels(
        0x9C,
        4,
        vec![0x40, 0x49, 0x0F, 0xDB, 0xC2, 0x28, 0x00, 0x00],
    );
    assert_close(t[0], [f32::from_bits(0x4049_0FDB); 4]);
    assert_close(t[1], [-42.0; 4]);
}

#[test]
fn d1r5g5b5_and_d8r8g8b8_force_alpha_one() {
    // D bit 0, R=31 G=0 B=16: 0 11111 00000 10000 = 0x7C10
    let t = two_texels(0x9D, 2, vec![0x7C, 0x10, 0x00, 0x00]);
    assert_close(t[0], [1.0, 0.0, n5(16), 1.0]);
    assert_close(t[1], [0.0, 0.0, 0.0, 1.0]);
    let t = two_texels(
        0x9E,
        4,
        vec![0x00, 0x10, 0x20, 0x30, 0x55, 0xFF, 0x00, 0x80],
    );
    assert_close(t[0], [n8(0x10), n8(0x20), n8(0x30), 1.0]);
    assert_close(t[1], [1.0, 0.0, n8(0x80), 1.0]);
}

#[test]
fn y16_x16_float_reads_x_in_red_and_blue_and_y_in_green() {
    // Memory: Y (first half) then X (second). The hardware's Y16_X16_FLOAT quad (ps3autotests
    // texture_formats) has red = blue = X and green = Y: R, G, B, A = (X, Y, X, Y).
    // 0x3C00 = 1.0, 0xB800 = -0.5.
    let t = two_texels(
        0x9F,
        4,
        vec![0x3C, 0x00, 0xB8, 0x00, 0x00, 0x00, 0x40, 0x00],
    );
    assert_close(t[0], [-0.5, 1.0, -0.5, 1.0]);
    assert_close(t[1], [2.0, 0.0, 2.0, 0.0]);
}

#[test]
fn compressed_b8r8_g8r8_and_r8b8_r8g8_share_green_and_blue_across_a_pair() {
    // Four texels (two blocks) per row. B8R8_G8R8 bytes: B, R1, G, R0 (R0 = left texel).
    let tex = Tex::new(0x8D, 4, 1).linear(8).texture();
    let mem = Mem::local(0, vec![0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80]);
    let unit = UnitSampler::new(0, &tex, &mem).expect("decodes");
    let px = |i| unit.sample(&at2(centre(i, 4), 0.5));
    assert_close(px(0), [n8(0x40), n8(0x30), n8(0x10), 1.0]);
    assert_close(px(1), [n8(0x20), n8(0x30), n8(0x10), 1.0]);
    assert_close(px(2), [n8(0x80), n8(0x70), n8(0x50), 1.0]);
    assert_close(px(3), [n8(0x60), n8(0x70), n8(0x50), 1.0]);
    // R8B8_R8G8 bytes: R1, B, R0, G.
    let tex = Tex::new(0x8E, 4, 1).linear(8).texture();
    let unit = UnitSampler::new(0, &tex, &mem).expect("decodes");
    let px = |i| unit.sample(&at2(centre(i, 4), 0.5));
    assert_close(px(0), [n8(0x30), n8(0x40), n8(0x20), 1.0]);
    assert_close(px(1), [n8(0x10), n8(0x40), n8(0x20), 1.0]);
    assert_close(px(2), [n8(0x70), n8(0x80), n8(0x60), 1.0]);
    assert_close(px(3), [n8(0x50), n8(0x80), n8(0x60), 1.0]);
}

#[test]
fn compressed_pair_formats_ignore_swizzling() {
    // A swizzled (no LN) 4x2 B8R8_G8R8 texture is read row-major, two blocks per row, like
    // DXT: the second row starts at byte 8.
    let tex = Tex::new(0x8D, 4, 2).texture();
    let mut bytes = vec![0u8; 16];
    bytes[8..12].copy_from_slice(&[0x11, 0x22, 0x33, 0x44]);
    let mem = Mem::local(0, bytes);
    let unit = UnitSampler::new(0, &tex, &mem).expect("decodes");
    let v = unit.sample(&at2(centre(0, 4), centre(1, 2)));
    assert_close(v, [n8(0x44), n8(0x33), n8(0x11), 1.0]);
}

#[test]
fn wide_texels_are_swizzled_as_four_byte_words() {
    // A swizzled 2x2 W16_Z16_Y16_X16_FLOAT texture is stored as a 4x2 grid of 4-byte words in
    // Z-order (RPCS3 `TextureUtils.cpp`: "Maximum block size on RSX is 4 bytes"): texel (1, 0)
    // is words (2, 0), (3, 0) = Z-order 4, 5 = bytes 16..24, texel (0, 1) words 2, 3 = bytes
    // 8..16. Each texel's four halves all hold its value.
    let half = |v: f32| half::f16::from_f32(v).to_bits().to_be_bytes();
    let mut bytes = vec![0u8; 32];
    for (range, v) in [(0..8, 0.25f32), (16..24, 0.5), (8..16, 0.75), (24..32, 1.0)] {
        for k in range.step_by(2) {
            bytes[k..k + 2].copy_from_slice(&half(v));
        }
    }
    let check = |format: u8, bytes: Vec<u8>| {
        assert_quarter_steps(&Tex::new(format, 2, 2).texture(), bytes);
    };
    check(0x9A, bytes);
    // W32_Z32_Y32_X32_FLOAT: 2x2 texels, 8x2 words; texel (1, 0) is words (4..8, 0) = Z-order
    // 8, 9, 12, 13; texel (0, 1) words 2, 3, 6, 7.
    let mut bytes = vec![0u8; 64];
    let words = |texel: [u64; 4], v: f32, bytes: &mut Vec<u8>| {
        for w in texel {
            let at = (w * 4) as usize;
            bytes[at..at + 4].copy_from_slice(&v.to_be_bytes());
        }
    };
    words([0, 1, 4, 5], 0.25, &mut bytes);
    words([8, 9, 12, 13], 0.5, &mut bytes);
    words([2, 3, 6, 7], 0.75, &mut bytes);
    words([10, 11, 14, 15], 1.0, &mut bytes);
    check(0x9B, bytes);
}

#[test]
fn wide_texels_with_border_texels_are_swizzled_as_words_of_the_padded_grid() {
    // A swizzled 2x2 W16_Z16_Y16_X16_FLOAT texture with border texels (FORMAT bit 3 clear)
    // is padded to next_pow2(2 + 2·4) = 16 texels a side and swizzled as a 32x16 grid of
    // 4-byte words (RPCS3 3574677): word j of texel (x, y) is grid word ((x + 4)·2 + j,
    // y + 4) in Z-order (x and y bits alternating from the lowest, x first, the wider x's
    // last bit on top).
    fn morton(mut x: u64, mut y: u64, mut lw: u32, mut lh: u32) -> u64 {
        let (mut out, mut shift) = (0, 0);
        while lw > 0 || lh > 0 {
            if lw > 0 {
                out |= (x & 1) << shift;
                (x, shift, lw) = (x >> 1, shift + 1, lw - 1);
            }
            if lh > 0 {
                out |= (y & 1) << shift;
                (y, shift, lh) = (y >> 1, shift + 1, lh - 1);
            }
        }
        out
    }
    let half = |v: f32| half::f16::from_f32(v).to_bits().to_be_bytes();
    let mut bytes = vec![0u8; 16 * 16 * 8];
    for (x, y, v) in [(0, 0, 0.25f32), (1, 0, 0.5), (0, 1, 0.75), (1, 1, 1.0)] {
        for j in 0..2 {
            let at = (morton((x + 4) * 2 + j, y + 4, 5, 4) * 4) as usize;
            bytes[at..at + 2].copy_from_slice(&half(v));
            bytes[at + 2..at + 4].copy_from_slice(&half(v));
        }
    }
    let mut regs = Tex::new(0x9A, 2, 2).regs();
    regs.format &= !(1 << 3);
    let tex = rsxtrace_capture::frame::state::Texture::from_regs(&regs);
    assert_quarter_steps(&tex, bytes);
}

/// The 2x2 texture `tex` over `bytes` reads 0.25, 0.5, 0.75 and 1 in every channel at texels
/// (0, 0), (1, 0), (0, 1) and (1, 1).
fn assert_quarter_steps(tex: &rsxtrace_capture::frame::state::Texture, bytes: Vec<u8>) {
    let mem = Mem::local(0, bytes);
    let unit = UnitSampler::new(0, tex, &mem).expect("decodes");
    let c = |x, y| unit.sample(&at2(centre(x, 2), centre(y, 2)));
    assert_close(c(0, 0), [0.25; 4]);
    assert_close(c(1, 0), [0.5; 4]);
    assert_close(c(0, 1), [0.75; 4]);
    assert_close(c(1, 1), [1.0; 4]);
}

#[test]
fn depth24_d8_float_reads_the_24_bit_float() {
    // Bits 8..31 hold exponent (8 bits) and mantissa (16 bits): 1.0 = 0x7F0000, 0.75 =
    // 0x7E8000 (exponent 126, mantissa 0.5); the stencil byte is ignored.
    let t = two_texels(
        0x91,
        4,
        vec![0x7F, 0x00, 0x00, 0x55, 0x7E, 0x80, 0x00, 0xFF],
    );
    assert_close(t[0], [1.0; 4]);
    assert_close(t[1], [0.75; 4]);
}

/// A 4x4 DXT texture (one block) read at four texels of row 0 and one of row 3.
fn dxt_row(format: u8, block: Vec<u8>) -> [[f32; 4]; 5] {
    let tex = Tex::new(format, 4, 4).texture();
    let mem = Mem::local(0, block);
    let unit = UnitSampler::new(0, &tex, &mem).expect("decodes");
    let c = |x, y| unit.sample(&at2(centre(x, 4), centre(y, 4)));
    [c(0, 0), c(1, 0), c(2, 0), c(3, 0), c(3, 3)]
}

#[test]
fn dxt1_four_and_three_colour_blocks() {
    // c0 = 0xF800 (red) > c1 = 0x001F (blue): 4-colour mode. Indices (LE u32): texel 0 -> 0,
    // 1 -> 1, 2 -> 2, 3 -> 3, texel 15 -> 1: bits 0b01_..._11_10_01_00.
    let idx: u32 = 0b11_10_01_00 | (1 << 30);
    let mut block = vec![0x00, 0xF8, 0x1F, 0x00];
    block.extend_from_slice(&idx.to_le_bytes());
    let t = dxt_row(0x86, block);
    assert_close(t[0], [1.0, 0.0, 0.0, 1.0]);
    assert_close(t[1], [0.0, 0.0, 1.0, 1.0]);
    assert_close(t[2], [2.0 / 3.0, 0.0, 1.0 / 3.0, 1.0]);
    assert_close(t[3], [1.0 / 3.0, 0.0, 2.0 / 3.0, 1.0]);
    assert_close(t[4], [0.0, 0.0, 1.0, 1.0]);
    // c0 = 0x001F < c1 = 0xF800: 3 colours + transparent black.
    let mut block = vec![0x1F, 0x00, 0x00, 0xF8];
    block.extend_from_slice(&idx.to_le_bytes());
    let t = dxt_row(0x86, block);
    assert_close(t[0], [0.0, 0.0, 1.0, 1.0]);
    assert_close(t[1], [1.0, 0.0, 0.0, 1.0]);
    assert_close(t[2], [0.5, 0.0, 0.5, 1.0]);
    assert_close(t[3], [0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn dxt3_explicit_alpha() {
    // Alpha nibbles: texel 0 = 0xF, 1 = 0x0, 2 = 0x5, 3 = 0xA, texel 15 = 0x3.
    let alpha: u64 = 0xF | (0x5 << 8) | (0xA << 12) | (0x3 << 60);
    let mut block = alpha.to_le_bytes().to_vec();
    // Colour: c0 = 0x07E0 (green), c1 = 0x0000; all indices 0 except texel 1 -> 1.
    block.extend_from_slice(&[0xE0, 0x07, 0x00, 0x00]);
    block.extend_from_slice(&(0b01_00u32).to_le_bytes());
    let t = dxt_row(0x87, block);
    assert_close(t[0], [0.0, 1.0, 0.0, 1.0]);
    assert_close(t[1], [0.0, 0.0, 0.0, 0.0]);
    assert_close(t[2], [0.0, 1.0, 0.0, 5.0 / 15.0]);
    assert_close(t[3], [0.0, 1.0, 0.0, 10.0 / 15.0]);
    assert_close(t[4], [0.0, 1.0, 0.0, 3.0 / 15.0]);
}

#[test]
fn dxt5_interpolated_alpha() {
    // a0 = 255 > a1 = 0: 8-value mode. Codes: texel 0 = 0, 1 = 1, 2 = 2 (6/7), 3 = 7 (1/7),
    // texel 15 = 4 (4/7).
    let codes: u64 = (1 << 3) | (2 << 6) | (7 << 9) | (4 << 45);
    let mut block = vec![255, 0];
    block.extend_from_slice(&codes.to_le_bytes()[..6]);
    // White colour block: c0 = c1 = 0xFFFF, indices 0.
    block.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    let t = dxt_row(0x88, block);
    assert_close(t[0], [1.0, 1.0, 1.0, 1.0]);
    assert_close(t[1], [1.0, 1.0, 1.0, 0.0]);
    assert_close(t[2], [1.0, 1.0, 1.0, 6.0 / 7.0]);
    assert_close(t[3], [1.0, 1.0, 1.0, 1.0 / 7.0]);
    assert_close(t[4], [1.0, 1.0, 1.0, 4.0 / 7.0]);
    // a0 = 0 <= a1 = 100: 6-value mode with code 6 = 0 and 7 = 255; code 2 = (4*0 + 100)/5.
    let codes: u64 = 6 | (7 << 3) | (2 << 6) | (5 << 9);
    let mut block = vec![0, 100];
    block.extend_from_slice(&codes.to_le_bytes()[..6]);
    block.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    let t = dxt_row(0x88, block);
    assert_close(t[0], [1.0, 1.0, 1.0, 0.0]);
    assert_close(t[1], [1.0, 1.0, 1.0, 1.0]);
    assert_close(t[2], [1.0, 1.0, 1.0, 20.0 / 255.0]);
    assert_close(t[3], [1.0, 1.0, 1.0, 80.0 / 255.0]);
}

#[test]
fn codes_that_are_no_format_are_an_error_naming_them() {
    // 0x89, 0x8A, 0x8C and 0x96 are holes in the CELL_GCM_TEXTURE_* codes (gcm_enums.h).
    for code in [0x89u8, 0x8A, 0x8C, 0x96] {
        let tex = Tex::new(code, 2, 1).linear(8).texture();
        let mem = Mem::local(0, vec![0; 8]);
        let err = UnitSampler::new(5, &tex, &mem).unwrap_err();
        assert_eq!(
            err,
            rsxtrace_replay::texture::TextureError::UnsupportedFormat {
                unit: 5,
                format: code
            }
        );
    }
}

#[test]
fn remap_swaps_r_and_b_and_forces_alpha_one() {
    // Inputs A<-A(0), R<-B(3), G<-G(2), B<-R(1): 0b01_10_11_00 = 0x6C.
    // Modes A ONE(1), R/G/B REMAP(2): 0b10_10_10_01 = 0xA9.
    let mut t = Tex::new(0x85, 1, 1).linear(4);
    t.remap = 0xA96C;
    let mem = Mem::local(0, vec![0x40, 0x10, 0x20, 0x30]);
    let unit = UnitSampler::new(0, &t.texture(), &mem).unwrap();
    assert_close(
        unit.sample(&at2(0.5, 0.5)),
        [n8(0x30), n8(0x20), n8(0x10), 1.0],
    );
    // Modes all ZERO except G: only G survives.
    t.remap = (0b00_10_00_00 << 8) | 0xE4;
    let unit = UnitSampler::new(0, &t.texture(), &mem).unwrap();
    assert_close(unit.sample(&at2(0.5, 0.5)), [0.0, n8(0x20), 0.0, 0.0]);
}

#[test]
fn signed_gamma_and_biased_flags() {
    let mem = Mem::local(0, vec![0x80, 0x80, 0x40, 0xC0]);
    let base = Tex::new(0x85, 1, 1).linear(4);
    // FILTER bit 29 = R signed: 0x80 -> -128 / 127.
    let mut t = base;
    t.argb_signed = 0b0010;
    let v = UnitSampler::new(0, &t.texture(), &mem)
        .unwrap()
        .sample(&at2(0.5, 0.5));
    assert_close(v, [-128.0 / 127.0, n8(0x40), n8(0xC0), n8(0x80)]);
    // ADDRESS gamma bit 20 = R: sRGB decode of 128/255.
    let mut t = base;
    t.gamma = 0b0001;
    let v = UnitSampler::new(0, &t.texture(), &mem)
        .unwrap()
        .sample(&at2(0.5, 0.5));
    let x = n8(0x80);
    let lin = ((x + 0.055) / 1.055).powf(2.4);
    assert_close(v, [lin, n8(0x40), n8(0xC0), n8(0x80)]);
    // Unsigned remap = 1 (biased): (stored - 128) / 127 on every channel.
    let mut t = base;
    t.unsigned_remap = 1;
    let v = UnitSampler::new(0, &t.texture(), &mem)
        .unwrap()
        .sample(&at2(0.5, 0.5));
    let bx2 = |b: u32| (b as f32 - 128.0) / 127.0;
    assert_close(v, [bx2(0x80), bx2(0x40), bx2(0xC0), bx2(0x80)]);
    assert_eq!(v[0], 0.0, "the stored 128 reads as exactly 0");
}

/// One texel of `format` (`bytes`) read with the flags set by `set`.
fn one_texel(format: u8, bytes: Vec<u8>, set: impl Fn(&mut Tex)) -> [f32; 4] {
    let mut t = Tex::new(format, 1, 1).linear(bytes.len() as u32);
    set(&mut t);
    let mem = Mem::local(0, bytes);
    UnitSampler::new(0, &t.texture(), &mem)
        .unwrap()
        .sample(&at2(0.5, 0.5))
}

#[test]
fn signed_channels_are_filtered_as_signed_values() {
    // R of texel 0 is 0x7F (+1.0 signed), of texel 1 0x81 (-1.0); R is signed (FILTER bit 29)
    // and the mag filter linear: halfway between the texels R reads 0, the blend of the signed
    // values. Blending the stored bytes first would give 0x80, read as -128/127.
    let mut t = Tex::new(0x85, 2, 1).linear(8);
    t.argb_signed = 0b0010;
    t.mag_filter = 2;
    t.min_filter = 2;
    let mem = Mem::local(0, vec![0xFF, 0x7F, 0x00, 0x00, 0xFF, 0x81, 0x00, 0x00]);
    let unit = UnitSampler::new(0, &t.texture(), &mem).expect("decodes");
    let v = unit.sample(&at2(0.5, 0.5));
    assert!(v[0].abs() < 1e-6, "{v:?}");
    // At the texel centres the values themselves.
    assert_close(unit.sample(&at2(0.25, 0.5)), [1.0, 0.0, 0.0, 1.0]);
    assert_close(unit.sample(&at2(0.75, 0.5)), [-1.0, 0.0, 0.0, 1.0]);
}

#[test]
fn sixteen_bit_channels_sign_and_bias_at_16_bits() {
    // Y16_X16 accepts the sign flags (RPCS3 get_format_features): FILTER bit 29 (R) signs the
    // R slot, i.e. the first word, which the default remap reads into R and B.
    let bytes = vec![0x80, 0x00, 0x40, 0x00];
    let v = one_texel(0x95, bytes.clone(), |t| t.argb_signed = 0b0010);
    let (s, u) = (-32768.0 / 32767.0, 0x4000 as f32 / 65535.0);
    assert_close(v, [s, u, s, u]);
    // Biased: (stored - 32768) / 32767.
    let v = one_texel(0x95, bytes, |t| t.unsigned_remap = 1);
    let b = (0x4000 as f32 - 32768.0) / 32767.0;
    assert_close(v, [0.0, b, 0.0, b]);
    // X16 ignores the sign flags and gamma, but takes the bias; R and B stay 1 (constants).
    let x = 0x8000 as f32 / 65535.0;
    let v = one_texel(0x94, vec![0x80, 0x00], |t| {
        t.argb_signed = 0xF;
        t.gamma = 0xF;
    });
    assert_close(v, [1.0, x, 1.0, x]);
    let v = one_texel(0x94, vec![0xC0, 0x00], |t| t.unsigned_remap = 1);
    let b = (0xC000 as f32 - 32768.0) / 32767.0;
    assert_close(v, [1.0, b, 1.0, b]);
}

#[test]
fn formats_without_a_feature_ignore_its_flag() {
    // HILO8: biased only; HILO_S8 and the float formats: nothing; depth: biased only.
    let hilo = vec![0x80, 0xFF];
    let plain = one_texel(0x98, hilo.clone(), |_| {});
    assert_close(
        one_texel(0x98, hilo.clone(), |t| {
            t.argb_signed = 0xF;
            t.gamma = 0xF;
        }),
        plain,
    );
    let v = one_texel(0x98, hilo, |t| t.unsigned_remap = 1);
    assert_close(v, [0.0, 1.0, 0.0, 1.0]);
    let s8 = vec![0x40, 0xC0];
    let plain = one_texel(0x99, s8.clone(), |_| {});
    assert_close(
        one_texel(0x99, s8, |t| {
            t.argb_signed = 0xF;
            t.gamma = 0xF;
            t.unsigned_remap = 1;
        }),
        plain,
    );
    let half = vec![0x38, 0x00, 0x38, 0x00, 0x38, 0x00, 0x38, 0x00];
    let v = one_texel(0x9A, half, |t| {
        t.argb_signed = 0xF;
        t.gamma = 0xF;
        t.unsigned_remap = 1;
    });
    assert_close(v, [0.5; 4]);
    // DEPTH16 0xFFFF with the bias: (65535/65535 * 255 rounded = 255 - 128) / 127 = 1.
    let v = one_texel(0x92, vec![0xFF, 0xFF], |t| {
        t.unsigned_remap = 1;
        t.gamma = 0xF;
    });
    assert_close(v, [1.0; 4]);
}

#[test]
fn remap_zero_and_one_apply_to_every_format() {
    // Modes A ONE, R ZERO, G/B REMAP on X16 (0xE4 rewritten to 0x66): R, G, B, A = 0, x, 1, 1.
    let x = 0x1234 as f32 / 65535.0;
    let v = one_texel(0x94, vec![0x12, 0x34], |t| {
        t.remap = (0b10_10_00_01 << 8) | 0xE4;
    });
    assert_close(v, [0.0, x, 1.0, 1.0]);
    // Even the float formats whose selectors cannot be remapped take the modes.
    let v = one_texel(0x9C, 2.5f32.to_bits().to_be_bytes().to_vec(), |t| {
        t.remap = (0b00_01_10_10 << 8) | 0x1B;
    });
    assert_close(v, [2.5, 1.0, 0.0, 2.5]);
}

#[test]
fn disabled_and_absent_units_read_zero() {
    let mut textures = [Tex::new(0x85, 1, 1).linear(4).texture(); 16];
    let mut off = Tex::new(0x85, 1, 1).linear(4);
    off.enabled = false;
    textures[0] = off.texture();
    let mem = Mem::local(0, vec![0xFF, 0x10, 0x20, 0x30]);
    let s = CaptureSampler::new(&textures, &mem).unwrap();
    assert_eq!(s.sample(0, &at2(0.5, 0.5)), [0.0; 4]);
    assert_close(
        s.sample(1, &at2(0.5, 0.5)),
        [n8(0x10), n8(0x20), n8(0x30), 1.0],
    );
    assert_eq!(s.sample(16, &at2(0.5, 0.5)), [0.0; 4]);
    // Units outside the mask are not decoded.
    let s = CaptureSampler::with_units(&textures, &mem, 0b100).unwrap();
    assert!(s.unit(1).is_none() && s.unit(2).is_some());
}

#[test]
fn signed_border_channels_read_biased_as_on_the_hardware() {
    // Wrap BORDER on s and t; border ARGB 0xFF_C0_40_80 with R signed. The hardware reads a
    // signed border channel as (b - 128) / 127 (RPCS3 RSXTexture.cpp border_color: "behaves
    // like BIASED renormalization"); unsigned channels as b / 255.
    let mut t = Tex::new(0x85, 1, 1).linear(4);
    t.wrap = [4, 4, 4];
    t.border_color = 0xFFC0_4080;
    t.argb_signed = 0b0010;
    let mem = Mem::local(0, vec![0xFF, 0x00, 0x00, 0x00]);
    let v = UnitSampler::new(0, &t.texture(), &mem)
        .unwrap()
        .sample(&at2(-0.5, -0.5));
    assert_close(v, [64.0 / 127.0, n8(0x40), n8(0x80), 1.0]);
}
