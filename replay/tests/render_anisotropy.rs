//! Anisotropic filtering on both renderers (the CPU reference and a GPU device), against
//! values computed here from the rule of `EXT_texture_filter_anisotropic` that
//! `rsxtrace_semantics::lod` documents: `N = min(ceil(Pmax / Pmin), max)` samples along the
//! longer derivative at `coord + d·(i / (N + 1) − ½)`, each at `lambda = log2(Pmax / N)`,
//! averaged. CONTROL0 bits 4..6 hold the maximum (x1, x2, x4, x6, x8, x10, x12, x16).
//!
//! The scene: an 8×8 target, one quad whose texture coordinate crosses a 32-texel side of
//! a one-level texture in 8 pixels (4 texels per pixel) and the 8-texel side in 8 (1 texel
//! per pixel), with nearest filters. Texel k along the long side holds `STRIPE[k % 4]`, so
//! each pixel's four texels are the same four values.

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::TextureDesc;
use rsxtrace_capture::rrc::{Capture, Location};

const TEXELS: u32 = 0x0030_0000;
/// Red of texel k along the long side is `STRIPE[k % 4]`.
const STRIPE: [u8; 4] = [0, 40, 200, 100];
const NEAREST: u32 = 0x0101_0000;

/// The scene with the long side along x (`along_x`) or y, the unit's CONTROL0 max
/// anisotropy field `aniso`.
fn scene(along_x: bool, aniso: u32) -> Capture {
    let (w, h) = if along_x { (32u16, 8u16) } else { (8, 32) };
    let texels: Vec<u8> = (0..u32::from(w) * u32::from(h))
        .flat_map(|i| {
            let (x, y) = (i % u32::from(w), i / u32::from(w));
            let k = if along_x { x } else { y };
            [255, STRIPE[(k % 4) as usize], 0, 0]
        })
        .collect();
    scene_of(along_x, aniso, 0x85 | 0x20, 0x0003_0303, &texels, 0.0)
}

/// The scene with a unit of `format` (linear layout) and ADDRESS word `address` holding
/// `texels`, the texture coordinate's z `z`.
fn scene_of(along_x: bool, aniso: u32, format: u8, address: u32, texels: &[u8], z: f32) -> Capture {
    let (w, h) = if along_x { (32u16, 8u16) } else { (8, 32) };
    let mut b = pixel_scene("anisotropy.rrc", 8, 2);
    b.clear_surface(0xF0, 0, 0);
    b.set_fragment_program(Location::Local, 0x1000, &tex_program(), 0x40)
        .unwrap();
    b.put_memory(Location::Local, TEXELS, texels).unwrap();
    b.set_texture(
        0,
        &TextureDesc {
            offset: TEXELS,
            format,
            width: w,
            height: h,
            pitch: u32::from(w) * 4,
            byte_size: texels.len() as u32,
            address,
            control0: aniso << 4,
            filter: NEAREST,
            ..TextureDesc::default()
        },
    )
    .unwrap();
    let vertices = corners([0.0, 0.0, 8.0, 8.0])
        .map(|(x, y)| [[x, y, 0.5, 1.0], [1.0; 4], [x / 8.0, y / 8.0, z, 1.0]]);
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    b.finish()
}

/// The red byte the rule gives pixel `p` along the long side with `n` samples: sample i at
/// texel `4p + 2 + 4·(i / (n + 1) − ½)` (nearest), the mean of their reds.
fn expected(p: u32, n: u32) -> u8 {
    let sum: f64 = (1..=n)
        .map(|i| {
            let u = f64::from(4 * p + 2) + 4.0 * (f64::from(i) / f64::from(n + 1) - 0.5);
            f64::from(STRIPE[(u.floor() as usize) % 4])
        })
        .sum();
    (sum / f64::from(n)).round() as u8
}

fn check(name: &str, along_x: bool, aniso: u32, samples: u32) {
    let capture = scene(along_x, aniso);
    let cpu = rsxtrace_replay::render::cpu::render_frame;
    for (renderer, image) in gpu_support::both_images(name, &capture, cpu) {
        for y in 0..8 {
            for x in 0..8 {
                let p = if along_x { x } else { y };
                let want = expected(p, samples);
                let got = image.pixel(x, y).unwrap()[0];
                assert!(
                    got.abs_diff(want) <= 1,
                    "{renderer}, aniso field {aniso}: pixel ({x}, {y}) red {got}, want {want}"
                );
            }
        }
    }
}

#[test]
fn an_x1_unit_samples_once_at_the_isotropic_lod() {
    // One sample at the pixel's centre texel, 4p + 2: red 200.
    assert_eq!(expected(3, 1), 200);
    check("aniso_x1", true, 0, 1);
}

#[test]
fn an_x4_unit_averages_four_samples_along_the_long_axis() {
    // Px 4, Py 1: N = 4 at lambda 0, texels 4p + 0.8i: each of the four once, mean 85.
    assert_eq!(expected(3, 4), 85);
    check("aniso_x4_along_x", true, 2, 4);
    check("aniso_x4_along_y", false, 2, 4);
}

#[test]
fn the_maximum_caps_the_samples() {
    // x2: N = 2 at lambda 1, texels 4p + 2 ∓ 2/3: 40 and 200, mean 120. x16 is still 4.
    assert_eq!(expected(3, 2), 120);
    check("aniso_x2", true, 1, 2);
    check("aniso_x16", true, 7, 4);
}

#[test]
fn a_shadow_map_compares_each_sample_then_averages() {
    // DEPTH24_D8 with ZFUNC LESS against z = 0.5; texel k along x at depth ((k % 4) + ½) / 4:
    // below 0.5 for k % 4 in {0, 1}. One sample (texel 4p + 2) reads 0; four read half.
    let texels: Vec<u8> = (0..32 * 8u32)
        .flat_map(|i| {
            let d = (f64::from(i % 32 % 4) + 0.5) / 4.0;
            (((d * 16_777_215.0).round() as u32) << 8).to_be_bytes()
        })
        .collect();
    for (aniso, want) in [(0, 0u8), (2, 128)] {
        let capture = scene_of(true, aniso, 0x90 | 0x20, 0x1003_0303, &texels, 0.5);
        let cpu = rsxtrace_replay::render::cpu::render_frame;
        for (renderer, image) in gpu_support::both_images("aniso_shadow", &capture, cpu) {
            for x in 0..8 {
                let got = image.pixel(x, 4).unwrap();
                assert!(
                    got.iter().all(|c| c.abs_diff(want) <= 1),
                    "{renderer}, aniso field {aniso}: pixel ({x}, 4) {got:?}, want {want}"
                );
            }
        }
    }
}
