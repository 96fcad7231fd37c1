//! A linear texture whose CONTROL3 pitch is narrower than a packed row, on both renderers:
//! the image is as wide as the pitch holds (RPCS3 `get_subresources_layout`) and a normalised
//! s still spans the register's width, multiplied by `packed / pitch` before sampling and
//! before its derivatives (RPCS3 `texture_cache.h` `upload_texture`: `scale.width *=
//! packed_pitch / pitch`). Values here are computed from that rule.
//!
//! The scene: an 8×8 target, one quad whose texture coordinate is `((x + ½) / 8, (y + ½) / 8)`
//! at pixel centre (x, y), sampling a 4×2 A8R8G8B8 texture with pitch 8: each row holds two
//! texels (row 0 red, green; row 1 blue, white), nearest filters.

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::TextureDesc;
use rsxtrace_capture::rrc::{Capture, Location};

const TEXELS: u32 = 0x0030_0000;
const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const WHITE: [u8; 4] = [255; 4];

/// The scene with ADDRESS word `address` (wrap s and t) and FORMAT flags `flags` (0x20 LN,
/// 0x40 UN); `texel_units` puts the quad's s, t in texels (×4, ×2) for an UN unit.
fn scene(address: u32, flags: u8, texel_units: bool) -> Capture {
    // A, R, G, B bytes per texel.
    let texels: Vec<u8> = [
        [255, 255, 0, 0],
        [255, 0, 255, 0],
        [255, 0, 0, 255],
        [255, 255, 255, 255],
    ]
    .concat();
    let mut b = pixel_scene("narrow-pitch.rrc", 8, 2);
    b.clear_surface(0xF0, 0, 0);
    b.set_fragment_program(Location::Local, 0x1000, &tex_program(), 0x40)
        .unwrap();
    b.put_memory(Location::Local, TEXELS, &texels).unwrap();
    b.set_texture(
        0,
        &TextureDesc {
            offset: TEXELS,
            format: 0x85 | flags,
            width: 4,
            height: 2,
            pitch: 8,
            byte_size: texels.len() as u32,
            address,
            filter: 0x0101_0000,
            ..TextureDesc::default()
        },
    )
    .unwrap();
    let (su, tu) = if texel_units { (4.0, 2.0) } else { (1.0, 1.0) };
    let vertices = corners([0.0, 0.0, 8.0, 8.0]).map(|(x, y)| {
        [
            [x, y, 0.5, 1.0],
            [1.0; 4],
            [x / 8.0 * su, y / 8.0 * tu, 0.0, 1.0],
        ]
    });
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    b.finish()
}

/// Each renderer's image checked against `texel(x, y)`: the texel (column, row) of the
/// narrowed 2×2 image pixel (x, y) shows.
fn check(name: &str, capture: &Capture, texel: impl Fn(u32, u32) -> (u32, u32)) {
    let cpu = rsxtrace_replay::render::cpu::render_frame;
    for (renderer, image) in gpu_support::both_images(name, capture, cpu) {
        for y in 0..8 {
            for x in 0..8 {
                let want = match texel(x, y) {
                    (0, 0) => RED,
                    (1, 0) => GREEN,
                    (0, 1) => BLUE,
                    _ => WHITE,
                };
                assert_eq!(
                    image.pixel(x, y),
                    Some(want),
                    "{renderer}: pixel ({x}, {y})"
                );
            }
        }
    }
}

#[test]
fn s_spans_the_register_width_clamped_to_the_pitch() {
    // s' = s · 16 / 8: texel ⌊s' · 2⌋ = ⌊(x + ½) / 2⌋, clamped to the two stored columns
    // (reading ⌊s · 2⌋ over the narrowed width would give columns 0 for x < 4, 1 after).
    let capture = scene(0x0003_0303, 0x20, false);
    check("narrow_pitch_clamp", &capture, |x, y| {
        ((x / 2).min(1), y / 4)
    });
}

#[test]
fn s_spans_the_register_width_repeated_over_the_pitch() {
    // WRAP: columns 0, 0, 1, 1, 0, 0, 1, 1.
    let capture = scene(0x0001_0101, 0x20, false);
    check("narrow_pitch_wrap", &capture, |x, y| ((x / 2) % 2, y / 4));
}

#[test]
fn unnormalised_coordinates_address_the_stored_texels() {
    // UN: s in texels of the narrowed width as it is (RPCS3's UN scale, 1 / register width,
    // times packed / pitch is 1 / stored width): texel ⌊(x + ½) / 2⌋, clamped.
    let capture = scene(0x0003_0303, 0x60, true);
    check("narrow_pitch_un", &capture, |x, y| ((x / 2).min(1), y / 4));
}
