//! What a texture unit does besides filtering, on both renderers (the CPU reference and a GPU
//! device), against values computed here from the documented rules
//! (`rsxtrace_semantics::shadow`; RPCS3 `RSXThread.cpp` `shadow_textures`,
//! `GL/glutils/sampler.cpp`, `RSXFragmentTextureOps.glsl`):
//! - a DEPTH24_D8 unit with ZFUNC LESS reads 1 where the texel is below the coordinate's z
//!   and 0 elsewhere; with a linear filter the four compared texels are blended;
//! - a unit with alpha kill discards the fragments whose texel has alpha 0;
//! - TEX with bx2 expands (2x − 1) a biased format's channels, not a float format's (RPCS3
//!   `_enable_texture_expand`, `get_format_features`);
//! - gamma (sRGB) and bias convert the filtered texel, after a linear filter has blended the
//!   stored values and after the alpha kill has tested them (`rsxtrace_semantics::texel`);
//! - the mirror-once wrap modes reflect the coordinate (`|s|`) before the filter takes its
//!   texels, then clamp or read the border (`TextureLod::mirror_once`, `texture::wrap`);
//! - a border colour none of wgpu's three (transparent black, opaque black, opaque white)
//!   is blended with the texels inside by the filter's weights, level by level
//!   (`rsxtrace_semantics::border`: the GPU shader adds it);
//! - a unit that is disabled or cannot be decoded reads (0, 0, 0, 0), RPCS3's null texture,
//!   with none of its state's comparison, kill, conversions or border;
//! - a 1D unit reads s alone and chooses its levels by the shared LOD rule, mip levels
//!   included (the GPU binds it as a 2D texture one texel high).

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::TextureDesc;
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_replay::render::Rgba8Image;

const W: u16 = 8;
const TEXELS: u32 = 0x0030_0000;
/// The colour the target is cleared to (A, R, G, B bytes 0x40 each: RGBA 64, 64, 64, 64).
const CLEAR: u32 = 0x4040_4040;

/// An 8×8 A8R8G8B8 target cleared to [`CLEAR`], one quad over it whose texture coordinate
/// at pixel centre `x` is `(x + ½ + shift) / 8` (y likewise without the shift) with z =
/// `reference`, sampling unit 0 = `texture` (8×8, linear layout) holding `texels`.
fn scene(texture: TextureDesc, texels: &[u8], shift: f32, reference: f32) -> Capture {
    scene_with(&tex_program(), texture, texels, shift, reference)
}

/// [`scene`] with another fragment program.
fn scene_with(
    program: &[u8],
    texture: TextureDesc,
    texels: &[u8],
    shift: f32,
    reference: f32,
) -> Capture {
    let mut b = pixel_scene("texture_units.rrc", W, 2);
    b.clear_surface(0xF0, CLEAR, 0);
    b.set_fragment_program(Location::Local, 0x1000, program, 0x40)
        .unwrap();
    b.put_memory(Location::Local, TEXELS, texels).unwrap();
    b.set_texture(
        0,
        &TextureDesc {
            offset: TEXELS,
            width: W,
            height: W,
            pitch: 32,
            byte_size: 256,
            ..texture
        },
    )
    .unwrap();
    let s = shift / 8.0;
    let vertices = corners([0.0, 0.0, 8.0, 8.0]).map(|(x, y)| {
        [
            [x, y, 0.5, 1.0],
            [1.0; 4],
            [x / 8.0 + s, y / 8.0, reference, 1.0],
        ]
    });
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    b.finish()
}

/// Both renderers' images (the GPU one when a device exists).
fn render(name: &str, capture: &Capture) -> Vec<(&'static str, Rgba8Image)> {
    gpu_support::both_images(name, capture, cpu_render_tiled)
}

/// DEPTH24_D8 texels, column x at depth (x + ½) / 8 in every row (bits 8..31 of the
/// big-endian word, the stencil byte 0).
fn depth_columns() -> Vec<u8> {
    (0..64u32)
        .flat_map(|i| {
            let d = ((i % 8) as f64 + 0.5) / 8.0;
            (((d * 16_777_215.0).round() as u32) << 8).to_be_bytes()
        })
        .collect()
}

/// A DEPTH24_D8 unit (linear layout), clamped to the edge, ZFUNC `zfunc`, `filter` the
/// FILTER word.
fn depth_unit(zfunc: u32, filter: u32) -> TextureDesc {
    TextureDesc {
        format: 0x90 | 0x20,
        address: 0x0003_0303 | (zfunc << 28),
        filter,
        ..TextureDesc::default()
    }
}

const NEAREST: u32 = 0x0101_0000;
const LINEAR: u32 = 0x0202_0000;

#[test]
fn a_depth_unit_with_a_compare_function_reads_the_comparison() {
    // LESS (1): texel < 0.5 in columns 0..4 (depths 1/16 .. 7/16): 1, else 0.
    let capture = scene(depth_unit(1, NEAREST), &depth_columns(), 0.0, 0.5);
    for (name, image) in render("a_depth_unit_with_a_compare_function", &capture) {
        for y in 0..8 {
            for x in 0..8 {
                let v = if x < 4 { 255 } else { 0 };
                assert_eq!(
                    image.pixel(x, y).unwrap(),
                    [v; 4],
                    "{name}: LESS at ({x}, {y})"
                );
            }
        }
    }
    // With ADDRESS's bias bit set (bits 12..15 = 1) the comparison is the same: a shadow map
    // is read without sign, gamma or bias (RPCS3 samples it without `_process_texel`).
    let mut biased = depth_unit(1, NEAREST);
    biased.address |= 1 << 12;
    let capture = scene(biased, &depth_columns(), 0.0, 0.5);
    for (name, image) in render("a_biased_depth_unit_with_a_compare_function", &capture) {
        for x in 0..8 {
            let v = if x < 4 { 255 } else { 0 };
            assert_eq!(
                image.pixel(x, 3).unwrap(),
                [v; 4],
                "{name}: biased at x {x}"
            );
        }
    }
    // GEQUAL (6) with the reference at a texel's own depth 5/16 (column 2): columns 2.. pass.
    let capture = scene(depth_unit(6, NEAREST), &depth_columns(), 0.0, 5.0 / 16.0);
    for (name, image) in render("a_depth_unit_with_gequal", &capture) {
        for x in 0..8 {
            let v = if x >= 2 { 255 } else { 0 };
            assert_eq!(
                image.pixel(x, 3).unwrap(),
                [v; 4],
                "{name}: GEQUAL at x {x}"
            );
        }
    }
    // ZFUNC ALWAYS (7): not a shadow map; the depth itself, (x + ½) / 8, in every channel.
    let capture = scene(depth_unit(7, NEAREST), &depth_columns(), 0.0, 0.5);
    for (name, image) in render("a_depth_unit_with_always", &capture) {
        for x in 0..8u32 {
            let d = ((x as f32 + 0.5) / 8.0 * 255.0).round() as i32;
            let p = image.pixel(x, 3).unwrap();
            assert!(
                p.iter().all(|&c| (i32::from(c) - d).abs() <= 1),
                "{name}: ALWAYS at x {x}: {p:?}, depth {d}"
            );
        }
    }
}

#[test]
fn a_fixed_point_shadow_map_clamps_its_reference() {
    // DEPTH24_D8 texels at depth 1.0 (0xFFFFFF) in columns 0..4, 0.25 in the others;
    // GEQUAL with a reference of 1.5: on a fixed-point depth format the reference is clamped
    // to 1 (GL 4.6 8.23.1; RPCS3 `min(z, 1)`), so columns 0..4 pass. Unclamped, none would.
    let texels: Vec<u8> = (0..64u32)
        .flat_map(|i| {
            let d: u32 = if i % 8 < 4 { 0xFF_FFFF } else { 0x40_0000 };
            (d << 8).to_be_bytes()
        })
        .collect();
    let capture = scene(depth_unit(6, NEAREST), &texels, 0.0, 1.5);
    for (name, image) in render("a_fixed_point_shadow_map_clamps_its_reference", &capture) {
        for x in 0..8 {
            let v = if x < 4 { 255 } else { 0 };
            assert_eq!(image.pixel(x, 3).unwrap(), [v; 4], "{name}: at x {x}");
        }
    }
}

#[test]
fn a_linear_filter_blends_the_compared_texels() {
    // Pixel x samples halfway between texels x and x + 1 (the last clamps to texel 7):
    // LESS 0.5 passes texels 0..4, so x < 3 reads 1, x = 3 reads ½ (texel 3 passes, texel 4
    // does not) and x > 3 reads 0. A blend of the depths (½·7/16 + ½·9/16 = 0.5, not below
    // 0.5) would give 0 at x = 3.
    let capture = scene(depth_unit(1, LINEAR), &depth_columns(), 0.5, 0.5);
    for (name, image) in render("a_linear_filter_blends_the_compared_texels", &capture) {
        for x in 0..8u32 {
            let want: i32 = match x {
                0..=2 => 255,
                3 => 128,
                _ => 0,
            };
            let p = image.pixel(x, 3).unwrap();
            assert!(
                p.iter().all(|&c| (i32::from(c) - want).abs() <= 1),
                "{name}: x {x} is {p:?}, want {want}"
            );
        }
    }
}

#[test]
fn alpha_kill_discards_fragments_whose_texel_has_no_alpha() {
    // A8R8G8B8 texels: alpha 0 in columns 0..4, 255 in 4..8; red 255 everywhere.
    let texels: Vec<u8> = (0..64u32)
        .flat_map(|i| [if i % 8 < 4 { 0 } else { 255 }, 255, 0, 0])
        .collect();
    let unit = |control0| TextureDesc {
        format: 0x85 | 0x20,
        filter: NEAREST,
        control0,
        ..TextureDesc::default()
    };
    // CONTROL0 bit 2: alpha kill. Columns 0..4 keep the clear colour.
    let capture = scene(unit(4), &texels, 0.0, 0.0);
    for (name, image) in render("alpha_kill_discards", &capture) {
        for x in 0..8 {
            let want = if x < 4 { [0x40; 4] } else { [255, 0, 0, 255] };
            assert_eq!(image.pixel(x, 5).unwrap(), want, "{name}: x {x}");
        }
    }
    // Without it every fragment is written (alpha 0 where the texel has none).
    let capture = scene(unit(0), &texels, 0.0, 0.0);
    for (name, image) in render("alpha_kill_off", &capture) {
        assert_eq!(image.pixel(1, 5).unwrap(), [255, 0, 0, 0], "{name}");
    }
}

#[test]
fn bx2_expands_an_argb8_texel_but_not_a_float_one() {
    // `TEX R0, f[TEX0], TEX0.bx2`: R = 0xC0 (0.7529) expands to 0.5059 (byte 129); an
    // X32_FLOAT texel 0.75 stays 0.75 (191), where a blanket 2x − 1 would give 0.5. The
    // signed case takes the GPU's per-channel expansion.
    let mut p = rsxtrace_program::fragment::decode(&tex_program()).unwrap();
    p.instructions[0].exp_tex = true;
    let program = rsxtrace_program::fragment::encode(&p);
    let unit = |format: u8| TextureDesc {
        format: format | 0x20,
        address: 0x0003_0303,
        filter: NEAREST,
        ..TextureDesc::default()
    };
    let argb: Vec<u8> = (0..64).flat_map(|_| [0xFF, 0xC0, 0x00, 0x00]).collect();
    // R signed (FILTER bit 29): 0x40 reads 64/127 = 0.5039 (byte 128 by the 8-bit rule),
    // not expanded (the sign extension wins; 2x − 1 would give 0.0079); G, B, A expand.
    let signed_r = TextureDesc {
        filter: NEAREST | (1 << 29),
        ..unit(0x85)
    };
    let argb_40: Vec<u8> = (0..64).flat_map(|_| [0xFF, 0x40, 0x00, 0x00]).collect();
    let float: Vec<u8> = (0..64).flat_map(|_| 0.75f32.to_be_bytes()).collect();
    // The expansion replaces the unit's gamma and bias (RPCS3 `_enable_texture_expand` erases
    // the gamma flags and expands a biased channel by 2x − 1): 0xC0 still reads 129, where
    // sRGB first would give 2 · 0.527 − 1 (byte 14) and the bias first 2 · 0.504 − 1 (2).
    let srgb = TextureDesc {
        address: 0x0003_0303 | (0b0111 << 20),
        ..unit(0x85)
    };
    let biased = TextureDesc {
        address: 0x0003_0303 | (1 << 12),
        ..unit(0x85)
    };
    for (name, texture, texels, red) in [
        ("bx2_argb8", unit(0x85), argb.clone(), 129),
        ("bx2_x32", unit(0x9C), float, 191),
        ("bx2_signed_r", signed_r, argb_40, 128),
        ("bx2_srgb", srgb, argb.clone(), 129),
        ("bx2_biased", biased, argb, 129),
    ] {
        let capture = scene_with(&program, texture, &texels, 0.0, 0.0);
        for (r, image) in render(name, &capture) {
            assert_eq!(image.pixel(3, 3).map(|p| p[0]), Some(red), "{name} {r}");
        }
    }
}

#[test]
fn gamma_converts_the_filtered_texel() {
    // Columns alternate 0 and 255 in R, G, B; shifted by half a texel, a linear filter blends
    // two columns equally: 0.5, then sRGB to linear, 0.2140 (byte 55). Converting each texel
    // first would blend 0 and 1 to 0.5 (byte 128).
    let texels: Vec<u8> = (0..64u32)
        .flat_map(|i| {
            let v = if i % 2 == 0 { 0 } else { 255 };
            [255, v, v, v]
        })
        .collect();
    let unit = TextureDesc {
        format: 0x85 | 0x20,
        // Clamp s, t, r; gamma on R, G, B (ADDRESS bits 20..22).
        address: 0x0003_0303 | (0b0111 << 20),
        filter: LINEAR,
        ..TextureDesc::default()
    };
    let capture = scene(unit, &texels, 0.5, 0.0);
    for (name, image) in render("gamma_after_filtering", &capture) {
        for x in 0..7 {
            assert_eq!(
                image.pixel(x, 3).unwrap(),
                [55, 55, 55, 255],
                "{name}: x {x}"
            );
        }
    }
}

#[test]
fn alpha_kill_tests_the_alpha_before_its_bias() {
    // Alpha 128 with ADDRESS's bias (bits 12..15 = 1): the filtered alpha 0.502 passes the
    // kill, then the bias reads it as 0. A kill after the bias would discard every fragment.
    let texels: Vec<u8> = (0..64).flat_map(|_| [128, 255, 0, 0]).collect();
    let unit = TextureDesc {
        format: 0x85 | 0x20,
        address: 0x0003_0303 | (1 << 12),
        filter: NEAREST,
        control0: 4,
        ..TextureDesc::default()
    };
    let capture = scene(unit, &texels, 0.0, 0.0);
    for (name, image) in render("alpha_kill_before_bias", &capture) {
        // R 255 biased: (255 - 128) / 127 = 1; alpha (128 - 128) / 127 = 0.
        assert_eq!(image.pixel(3, 3).unwrap(), [255, 0, 0, 0], "{name}");
    }
}

#[test]
fn mirror_once_reflects_negative_coordinates_under_a_linear_filter() {
    // Column k holds red 30k. s = (x + ½ + shift) / 8: pixel x reads at u = x + ½ + shift
    // texels, reflected (|u|, `super::wrap`), blending texels ⌊|u| − ½⌋ and the next: with
    // shift −4.25 pixel 0 reads at 3.75, blending texels 3 and 4 with weights ¾ and ¼: 97.5.
    // Past the last column (shift 4.25), and at |u| < ½, mode 6 clamps to the edge and mode 7
    // reads the border (opaque black).
    let texels: Vec<u8> = (0..64u32)
        .flat_map(|i| [255, (i % 8 * 30) as u8, 0, 0])
        .collect();
    // The filtered red at u texels (bilinear: texels ⌊|u| − ½⌋ and the next).
    let red_at = |u: f64, border: bool| -> f64 {
        let a = u.abs() - 0.5;
        let i = a.floor() as i64;
        let w = a - a.floor();
        let texel = |i: i64| match (i, border) {
            (i, true) if !(0..8).contains(&i) => 0.0,
            (i, _) => f64::from(i.clamp(0, 7) as u32 * 30),
        };
        texel(i) * (1.0 - w) + texel(i + 1) * w
    };
    for (wrap, border) in [(6u32, false), (7, true)] {
        let unit = TextureDesc {
            format: 0x85 | 0x20,
            address: wrap | (3 << 8) | (3 << 16),
            filter: LINEAR,
            border_color: 0xFF00_0000,
            ..TextureDesc::default()
        };
        for (shift, name) in [(-4.25f32, "left"), (4.25, "right")] {
            let capture = scene(unit, &texels, shift, 0.0);
            for (r, image) in render(&format!("mirror_once_{wrap}_{name}"), &capture) {
                for x in 0..8 {
                    let u = f64::from(x) + 0.5 + f64::from(shift);
                    let want = red_at(u, border).round() as u8;
                    let got = image.pixel(x, 3).unwrap()[0];
                    assert!(
                        got.abs_diff(want) <= 1,
                        "{r}, wrap {wrap}, shift {shift}: pixel {x} red {got}, want {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_mipmapped_1d_unit_reads_s_alone_at_the_rules_level() {
    // An 8-texel 1D A8R8G8B8 texture (linear, pitch 32) with 4 levels: level 0 column k red
    // 30k, level 1 column k red 200 + k. s = (x + ½) / 8 (one texel a pixel: lambda 0) and
    // LOD bias +1 with NEAREST_MIPMAP_NEAREST: level 1, column ⌊s · 4⌋ = ⌊x / 2⌋, whatever t.
    let mut texels = vec![0u8; 128];
    for k in 0..8 {
        texels[k * 4..k * 4 + 4].copy_from_slice(&[255, (k * 30) as u8, 0, 0]);
    }
    for k in 0..4 {
        texels[32 + k * 4..32 + k * 4 + 4].copy_from_slice(&[255, 200 + k as u8, 0, 0]);
    }
    let mut b = pixel_scene("texture_1d.rrc", W, 2);
    b.clear_surface(0xF0, CLEAR, 0);
    b.set_fragment_program(Location::Local, 0x1000, &tex_program(), 0x40)
        .unwrap();
    b.put_memory(Location::Local, TEXELS, &texels).unwrap();
    b.set_texture(
        0,
        &TextureDesc {
            offset: TEXELS,
            format: 0x85 | 0x20,
            dimension: 1,
            mipmaps: 4,
            width: 8,
            height: 1,
            pitch: 32,
            byte_size: 128,
            // Border on t: a 1D unit never reads it.
            address: 0x0003_0403,
            control0: (12 << 8) << 7,
            // Bias +1.0 (256 in 4.8), min NEAREST_MIPMAP_NEAREST (3), mag NEAREST (1).
            filter: 256 | (3 << 16) | (1 << 24),
            ..TextureDesc::default()
        },
    )
    .unwrap();
    let vertices = corners([0.0, 0.0, 8.0, 8.0]).map(|(x, y)| {
        [
            [x, y, 0.5, 1.0],
            [1.0; 4],
            [x / 8.0, y * 3.0 - 5.0, 0.0, 1.0],
        ]
    });
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    let capture = b.finish();
    for (name, image) in render("texture_1d_mipmapped", &capture) {
        for y in 0..8 {
            for x in 0..8 {
                let want = [200 + (x / 2) as u8, 0, 0, 255];
                assert_eq!(image.pixel(x, y).unwrap(), want, "{name}: pixel ({x}, {y})");
            }
        }
    }
}

/// The filtered channel of a row of `n` texels (`value(k)`) at normalised s, texels outside
/// reading `border`: linear blends texels ⌊s·n − ½⌋ and the next, nearest reads ⌊s·n⌋.
fn row_filter(s: f64, n: u32, linear: bool, value: impl Fn(u32) -> f64, border: f64) -> f64 {
    let texel = |i: i64| {
        if (0..i64::from(n)).contains(&i) {
            value(i as u32)
        } else {
            border
        }
    };
    let u = s * f64::from(n);
    if !linear {
        return texel(u.floor() as i64);
    }
    let a = u - 0.5;
    let w = a - a.floor();
    let i = a.floor() as i64;
    texel(i) * (1.0 - w) + texel(i + 1) * w
}

/// BORDER_COLOR ARGB 0xFF_80_40_C0: RGBA (128, 64, 192, 255), none of wgpu's three.
const ODD_BORDER: u32 = 0xFF80_40C0;

#[test]
fn a_border_colour_the_device_lacks_is_blended_by_the_filter() {
    // Column k holds red 30k (green and blue 0, alpha 255); s reads the border (mode 4, or 7:
    // mirror once first), t clamps. Pixel x reads s = (x + ½ + shift) / 8: with shift ±4.25
    // half the row lies outside, where the linear filter blends the edge texel with the
    // border and the nearest filter reads the border alone.
    let texels: Vec<u8> = (0..64u32)
        .flat_map(|i| [255, (i % 8 * 30) as u8, 0, 0])
        .collect();
    let border = [128.0, 64.0, 192.0];
    for (wrap, filter) in [(4u32, LINEAR), (4, NEAREST), (7, LINEAR)] {
        let unit = TextureDesc {
            format: 0x85 | 0x20,
            address: wrap | (3 << 8) | (3 << 16),
            filter,
            border_color: ODD_BORDER,
            ..TextureDesc::default()
        };
        for shift in [-4.25f32, 4.25] {
            let capture = scene(unit, &texels, shift, 0.0);
            let name = format!("odd_border_{wrap}_{filter:08x}_{shift}");
            for (r, image) in render(&name, &capture) {
                for x in 0..8 {
                    let mut s = (f64::from(x) + 0.5 + f64::from(shift)) / 8.0;
                    if wrap == 7 {
                        s = s.abs();
                    }
                    let linear = filter == LINEAR;
                    let got = image.pixel(x, 3).unwrap();
                    for c in 0..3 {
                        let value = |k: u32| if c == 0 { f64::from(k * 30) } else { 0.0 };
                        let want = row_filter(s, 8, linear, value, border[c]).round() as u8;
                        assert!(
                            got[c].abs_diff(want) <= 1,
                            "{r}, wrap {wrap}, filter {filter:08x}, shift {shift}: pixel {x} \
                             channel {c} {got:?}, want {want}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_border_colour_the_device_lacks_is_blended_on_each_mip_level() {
    // Two levels (8×8 red 30k in column k, 4×4 red 200 + 10k), LINEAR_MIPMAP_LINEAR at LOD
    // bias ½ (one texel a pixel: lambda ½): each level blends its own texels with the border
    // at its own size, and the two levels are averaged.
    let mut texels = vec![0u8; 384];
    for i in 0..64usize {
        let k = (i % 8) as u8;
        texels[i * 4..i * 4 + 4].copy_from_slice(&[255, k * 30, 0, 0]);
    }
    for row in 0..4usize {
        for k in 0..4usize {
            let at = 256 + row * 32 + k * 4;
            texels[at..at + 4].copy_from_slice(&[255, 200 + 10 * k as u8, 0, 0]);
        }
    }
    let unit = TextureDesc {
        offset: TEXELS,
        format: 0x85 | 0x20,
        mipmaps: 2,
        width: W,
        height: W,
        pitch: 32,
        byte_size: 384,
        address: 4 | (3 << 8) | (3 << 16),
        control0: (12 << 8) << 7,
        // Bias +0.5 (128 in 4.8), min LINEAR_MIPMAP_LINEAR (6), mag LINEAR (2).
        filter: 128 | (6 << 16) | (2 << 24),
        border_color: ODD_BORDER,
        ..TextureDesc::default()
    };
    let border = [128.0, 64.0, 192.0];
    for shift in [-4.25f32, 4.25] {
        let mut b = pixel_scene("texture_border_mips.rrc", W, 2);
        b.clear_surface(0xF0, CLEAR, 0);
        b.set_fragment_program(Location::Local, 0x1000, &tex_program(), 0x40)
            .unwrap();
        b.put_memory(Location::Local, TEXELS, &texels).unwrap();
        b.set_texture(0, &unit).unwrap();
        let sh = shift / 8.0;
        let vertices = corners([0.0, 0.0, 8.0, 8.0]).map(|(x, y)| {
            [
                [x, y, 0.5, 1.0],
                [1.0; 4],
                [x / 8.0 + sh, y / 8.0, 0.0, 1.0],
            ]
        });
        draw_vertices(&mut b, 0x1_0000, 8, &vertices);
        let capture = b.finish();
        for (r, image) in render(&format!("odd_border_mips_{shift}"), &capture) {
            for x in 0..8 {
                let s = (f64::from(x) + 0.5 + f64::from(shift)) / 8.0;
                let got = image.pixel(x, 3).unwrap();
                for c in 0..3 {
                    let level0 = |k: u32| if c == 0 { f64::from(k * 30) } else { 0.0 };
                    let level1 = |k: u32| if c == 0 { f64::from(200 + 10 * k) } else { 0.0 };
                    let a = row_filter(s, 8, true, level0, border[c]);
                    let b = row_filter(s, 4, true, level1, border[c]);
                    let want = (a + (b - a) * 0.5).round() as u8;
                    assert!(
                        got[c].abs_diff(want) <= 1,
                        "{r}, shift {shift}: pixel {x} channel {c} {got:?}, want {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_shadow_map_compares_a_border_depth_the_device_lacks() {
    // LESS (1) against z = ¼, s reading the border (mode 4) whose depth is 0x80 / 255 ≈ ½
    // (BORDER_COLOR 0x0080_0000: R, which a depth unit compares), neither wgpu border's 0
    // nor 1: outside the image ½ < ¼ fails (0; a device border of 0 would pass); inside,
    // columns 0 and 1 (depths 1/16, 3/16) pass. Nearest, shift −4: pixel x reads texel
    // x − 4. Linear, shift −4.5: pixel x blends texels x − 5 and x − 4 half and half, so
    // pixel 4 blends the border with column 0.
    let cases = [
        (NEAREST, -4.0, [0, 0, 0, 0, 255, 255, 0, 0]),
        (LINEAR, -4.5, [0, 0, 0, 0, 128, 255, 128, 0]),
    ];
    for (filter, shift, want) in cases {
        let mut unit = depth_unit(1, filter);
        unit.address = (unit.address & !0xF) | 4;
        unit.border_color = 0x0080_0000;
        let capture = scene(unit, &depth_columns(), shift, 0.25);
        let name = format!("shadow_odd_border_{filter:08x}");
        for (r, image) in render(&name, &capture) {
            for (x, want) in (0..8u32).zip(want) {
                let p = image.pixel(x, 3).unwrap();
                assert!(
                    p.iter().all(|&c| (i32::from(c) - want).abs() <= 1),
                    "{r}, filter {filter:08x}: x {x} is {p:?}, want {want}"
                );
            }
        }
    }
}

#[test]
fn a_unit_that_samples_the_null_texture_reads_zeros_on_both_renderers() {
    // A disabled DEPTH24_D8 unit with ZFUNC LESS and alpha kill: RPCS3 binds its null
    // texture, which the program reads as (0, 0, 0, 0): no comparison (which would read 1
    // against z = ½), no kill, so the quad writes zeros over the clear colour.
    let mut b = pixel_scene("null_unit.rrc", W, 2);
    b.clear_surface(0xF0, CLEAR, 0);
    b.set_fragment_program(Location::Local, 0x1000, &tex_program(), 0x40)
        .unwrap();
    b.put_memory(Location::Local, TEXELS, &depth_columns())
        .unwrap();
    b.set_texture(
        0,
        &TextureDesc {
            offset: TEXELS,
            width: W,
            height: W,
            pitch: 32,
            byte_size: 256,
            control0: 1 << 2, // alpha kill
            ..depth_unit(1, NEAREST)
        },
    )
    .unwrap();
    b.disable_texture(0).unwrap();
    let vertices = corners([0.0, 0.0, 8.0, 8.0])
        .map(|(x, y)| [[x, y, 0.5, 1.0], [1.0; 4], [x / 8.0, y / 8.0, 0.5, 1.0]]);
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    let capture = b.finish();
    for (name, image) in render("null_unit", &capture) {
        assert_eq!(image.pixel(3, 3).unwrap(), [0, 0, 0, 0], "{name}");
    }
}

#[test]
fn a_unit_whose_texture_cannot_be_decoded_reads_zeros_on_both_renderers() {
    // An A8R8G8B8 unit with the bias conversion (ADDRESS bits 12..15 = 1: 2x − 1, which
    // turns a zero texel into −1) and an odd border colour on s and t, 4096 × 4096 texels of
    // which the capture holds 256 bytes: it cannot be decoded, and both renderers read it as
    // the null texture (0, 0, 0, 0), neither biased nor bordered (the GPU recompiles the
    // program with the null unit's state).
    let mut b = pixel_scene("undecodable_unit.rrc", W, 2);
    b.clear_surface(0xF0, CLEAR, 0);
    b.set_fragment_program(Location::Local, 0x1000, &tex_program(), 0x40)
        .unwrap();
    b.put_memory(Location::Local, TEXELS, &[0x80; 256]).unwrap();
    b.set_texture(
        0,
        &TextureDesc {
            offset: TEXELS,
            format: 0x85 | 0x20,
            width: 4096,
            height: 4096,
            pitch: 4 * 4096,
            byte_size: 256,
            address: 4 | (4 << 8) | (1 << 12),
            border_color: ODD_BORDER,
            filter: LINEAR,
            ..TextureDesc::default()
        },
    )
    .unwrap();
    let vertices = corners([0.0, 0.0, 8.0, 8.0]).map(|(x, y)| {
        [
            [x, y, 0.5, 1.0],
            [1.0; 4],
            [x / 8.0 - 1.0, y / 8.0, 0.0, 1.0],
        ]
    });
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    let capture = b.finish();
    for (name, image) in render("undecodable_unit", &capture) {
        assert_eq!(image.pixel(3, 3).unwrap(), [0, 0, 0, 0], "{name}");
    }
}
