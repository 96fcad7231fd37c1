//! The colour each texel of the texture-format sample (`rsxtrace_scenes::texture_formats`)
//! must read, written out from the stored fields (`texture_formats::fields`), not taken from
//! the decoder under test (`rsxtrace_replay::texture`): shared by the render tests
//! (`texture_formats_capture.rs`) and the texture dump tests (`workbench.rs`).
//!
//! * unsigned normalised fields: `v / (2^bits - 1)`; IEEE half and single floats; the 24-bit
//!   depth float is the f32 with its bits shifted left by 7 (RPCS3 `ShuffleBytes.glsl`);
//! * channel placement, default remap (R, G, B, A): B8 (b, b, b, 1); G8B8 (second, first,
//!   second, first); X16 (1, x, 1, x) and Y16_X16_FLOAT (X, Y, X, Y) as the hardware image of
//!   ps3autotests `texture_formats` shows them; Y16_X16 / HILO8 / HILO_S8 (first, second,
//!   first, second); depth formats (d, d, d, d); W16/W32 formats in memory order; the formats
//!   without alpha read alpha 1;
//! * DXT (S3TC): four-colour palette c0, c1, (2c0 + c1) / 3, (c0 + 2c1) / 3 from R5G6B5
//!   endpoints; DXT3 4-bit alpha / 15; DXT5 eight-value alpha ((8 - k) a0 + (k - 1) a1) / 7;
//! * the unit rules (RPCS3 `RSXFragmentTextureOps.glsl` `_process_texel`): sRGB decode
//!   (IEC 61966-2-1), signed `sext8(v) / 127`, biased `(v - 128) / 127`; the remap selectors
//!   and ZERO / ONE modes; the 16-bit formats' remap rewrites (RPCS3 `decoded_remap`).

#![allow(dead_code)]

use rsxtrace_scenes::texture_formats::{self as tf, Cell};

pub fn unorm(v: u32, bits: u32) -> f32 {
    v as f32 / ((1u64 << bits) - 1) as f32
}

/// IEEE 754 binary16 (the fields are non-negative).
pub fn half(bits: u32) -> f32 {
    let (e, m) = ((bits >> 10) & 0x1F, (bits & 0x3FF) as f32);
    if e == 0 {
        m / 1024.0 * 2f32.powi(-14)
    } else {
        (1.0 + m / 1024.0) * 2f32.powi(e as i32 - 15)
    }
}

pub fn srgb_to_linear(x: f32) -> f32 {
    if x <= 0.04045 {
        x / 12.92
    } else {
        ((x + 0.055) / 1.055).powf(2.4)
    }
}

pub fn rgb565(c: u16) -> [f32; 3] {
    [
        unorm(u32::from(c >> 11), 5),
        unorm(u32::from((c >> 5) & 0x3F), 6),
        unorm(u32::from(c & 0x1F), 5),
    ]
}

/// The DXT colour of palette index `i` (four-colour mode: c0 > c1).
pub fn dxt_colour(i: u32) -> [f32; 3] {
    let (c0, c1) = (rgb565(tf::DXT_COLOURS.0), rgb565(tf::DXT_COLOURS.1));
    let mix = |w0: f32, w1: f32| std::array::from_fn(|k| (c0[k] * w0 + c1[k] * w1) / 3.0);
    match i {
        0 => c0,
        1 => c1,
        2 => mix(2.0, 1.0),
        _ => mix(1.0, 2.0),
    }
}

/// DXT5 alpha of code `k` (eight-value mode: a0 > a1).
pub fn dxt5_alpha(k: u32) -> f32 {
    let (a0, a1) = (f32::from(tf::DXT5_ALPHA.0), f32::from(tf::DXT5_ALPHA.1));
    let v = match k {
        0 => a0,
        1 => a1,
        k => ((8 - k) as f32 * a0 + (k - 1) as f32 * a1) / 7.0,
    };
    v / 255.0
}

/// The colour (R, G, B, A) the default remap gives for `format` with stored fields `f`.
pub fn format_rule(format: u8, f: [u32; 4]) -> [f32; 4] {
    let u8n = |v: u32| unorm(v, 8);
    let s8 = |v: u32| (f32::from(v as u8 as i8) / 127.0).max(-1.0);
    match format {
        0x81 => [u8n(f[0]), u8n(f[0]), u8n(f[0]), 1.0],
        0x82 | 0x97 => [
            unorm(f[1], 5),
            unorm(f[2], 5),
            unorm(f[3], 5),
            unorm(f[0], 1),
        ],
        0x83 => [
            unorm(f[1], 4),
            unorm(f[2], 4),
            unorm(f[3], 4),
            unorm(f[0], 4),
        ],
        0x84 => [unorm(f[1], 5), unorm(f[2], 6), unorm(f[3], 5), 1.0],
        0x85 => [u8n(f[1]), u8n(f[2]), u8n(f[3]), u8n(f[0])],
        0x86..=0x88 => {
            let [r, g, b] = dxt_colour(f[0]);
            let a = match format {
                0x86 => 1.0,
                0x87 => unorm(f[1], 4),
                _ => dxt5_alpha(f[1]),
            };
            [r, g, b, a]
        }
        0x8B => [u8n(f[1]), u8n(f[0]), u8n(f[1]), u8n(f[0])],
        0x8D | 0x8E => [u8n(f[0]), u8n(f[1]), u8n(f[2]), 1.0],
        0x8F => [unorm(f[1], 6), unorm(f[2], 5), unorm(f[3], 5), 1.0],
        0x90 => [unorm(f[0], 24); 4],
        0x91 => [f32::from_bits(f[0] << 7); 4],
        0x92 => [unorm(f[0], 16); 4],
        0x93 => [half(f[0]); 4],
        0x94 => {
            let x = unorm(f[0], 16);
            [1.0, x, 1.0, x]
        }
        0x95 => {
            let (c0, c1) = (unorm(f[0], 16), unorm(f[1], 16));
            [c0, c1, c0, c1]
        }
        0x98 => [u8n(f[0]), u8n(f[1]), u8n(f[0]), u8n(f[1])],
        0x99 => [s8(f[0]), s8(f[1]), s8(f[0]), s8(f[1])],
        0x9A => f.map(half),
        0x9B => f.map(f32::from_bits),
        0x9C => [f32::from_bits(f[0]); 4],
        0x9D => [unorm(f[1], 5), unorm(f[2], 5), unorm(f[3], 5), 1.0],
        0x9E => [u8n(f[1]), u8n(f[2]), u8n(f[3]), 1.0],
        0x9F => {
            let (y, x) = (half(f[0]), half(f[1]));
            [x, y, x, y]
        }
        other => panic!("no rule for format {other:#x}"),
    }
}

/// The colour of texel `(x, y)` of `cell`, with the cell's unit rules.
pub fn expected(cell: &Cell, x: u32, y: u32) -> [f32; 4] {
    let f = tf::fields(cell, x, y);
    let base = format_rule(cell.format, f);
    let stored = |v: u32| v as f32;
    match cell.name {
        // A8R8G8B8: fields a, r, g, b. Selectors R<-B, B<-R; G ZERO, A ONE.
        "A8R8G8B8 remap B0R1" => [base[2], 0.0, base[0], 1.0],
        "A8R8G8B8 gamma RGB" => [
            srgb_to_linear(base[0]),
            srgb_to_linear(base[1]),
            srgb_to_linear(base[2]),
            base[3],
        ],
        // FILTER bits 29 (R) and 30 (G): the stored byte read as a signed byte / 127.
        "A8R8G8B8 signed RG" => [
            f32::from(f[1] as u8 as i8) / 127.0,
            f32::from(f[2] as u8 as i8) / 127.0,
            base[2],
            base[3],
        ],
        "A8R8G8B8 biased" => [
            (stored(f[1]) - 128.0) / 127.0,
            (stored(f[2]) - 128.0) / 127.0,
            (stored(f[3]) - 128.0) / 127.0,
            (stored(f[0]) - 128.0) / 127.0,
        ],
        // 0x4E becomes 0x99 for the 16-bit formats: A<-R, R<-G, G<-R, B<-G of (x, 1, x, 1).
        "X16 remap 0x4E" => {
            let v = unorm(f[0], 16);
            [v, 1.0, v, 1.0]
        }
        // A non-zero override turns 0xE4 into 0x56: R-R-R-G.
        "HILO8 override" => [base[0], base[0], base[0], base[1]],
        _ => base,
    }
}
