//! Float depth buffers (`SET_CONTROL0` bit 12) on both renderers (the CPU reference and a GPU
//! device): the bytes a draw leaves in the depth surface, read back by a later draw that
//! samples that memory as an A8R8G8B8 texture, against values computed here from the
//! documented layout (`rsxtrace_replay::render::surface::depth_to_fixed`; RPCS3
//! `surface_depth_fmt`, `f32_to_d24f`): Z24S8 stores the f32's bits >> 7 in bits 8..31, Z16
//! an IEEE half (truncated), and without the bit the unorm values.

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::TextureDesc;
use rsxtrace_capture::rrc::{Capture, Location};

const W: u16 = 8;
/// `SET_CONTROL0` (0x03B0): RPCS3's reset value, and with bit 12 (float depth).
const CONTROL0: u32 = 0x03B0 >> 2;
const CONTROL0_RESET: u32 = 0x0010_0000;
const DEPTH_FLOAT: u32 = 1 << 12;

/// An 8×8 A8R8G8B8 target with a `depth_format` zeta surface (1 Z16, 2 Z24S8), `control0`
/// written, depth cleared to 1.0; a quad at z = `z` with depth test LESS and writes; then,
/// depth off, a quad sampling the zeta memory as an A8R8G8B8 texture (linear, nearest, one
/// texel per 4 bytes of a row) so that each pixel shows the bytes of its depth word(s).
fn scene(depth_format: u32, control0: u32, z: f32) -> Capture {
    let depth_bytes = if depth_format == 1 { 2 } else { 4 };
    let mut b = pixel_scene("float_depth.rrc", W, depth_format);
    b.method(CONTROL0, control0).unwrap();
    // The zeta memory exists in the capture (the texture reads it); the draws overwrite it.
    b.put_memory(Location::Local, SCENE_ZETA, &vec![0xEE; 256])
        .unwrap();
    b.clear_surface(0xF3, 0, 0xFFFF_FF00);
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    b.set_depth(true, 0x201, true); // LESS, written
    let full = [0.0, 0.0, 8.0, 8.0];
    let first = corners(full).map(|(x, y)| [[x, y, z, 1.0], [1.0; 4], [0.0; 4]]);
    draw_vertices(&mut b, 0x1_0000, 8, &first);

    b.set_depth(false, 0x201, false);
    b.set_fragment_program(Location::Local, 0x2000, &tex_program(), 0x40)
        .unwrap();
    let texels_wide = W * depth_bytes as u16 / 4;
    b.set_texture(
        0,
        &TextureDesc {
            offset: SCENE_ZETA,
            format: 0x85 | 0x20, // A8R8G8B8, linear
            width: texels_wide,
            height: W,
            pitch: u32::from(W) * depth_bytes,
            byte_size: u32::from(W) * u32::from(W) * depth_bytes,
            address: 0x0003_0303,
            filter: 0x0101_0000, // nearest
            ..TextureDesc::default()
        },
    )
    .unwrap();
    let second =
        corners(full).map(|(x, y)| [[x, y, 0.5, 1.0], [1.0; 4], [x / 8.0, y / 8.0, 0.0, 1.0]]);
    draw_vertices(&mut b, 0x2_0000, 8, &second);
    b.finish()
}

/// Both renderers' pixel (3, 5) of [`scene`] at z = 0.3 is `want`: RGBA = the texel's R, G,
/// B, A bytes, i.e. bytes 1, 2, 3, 0 of the depth word(s) under it.
fn expect(name: &str, depth_format: u32, control0: u32, want: [u8; 4]) {
    let capture = scene(depth_format, control0, 0.3);
    for (r, image) in gpu_support::both_images(name, &capture, cpu_render_tiled) {
        assert_eq!(image.pixel(3, 5), Some(want), "{name} {r}");
    }
}

#[test]
fn a_float_z24s8_surface_stores_the_f32_bits_shifted_right_by_7() {
    // 0.3 = 0x3E99999A: >> 7 = 0x7D3333; the stencil byte stays 0 (cleared).
    expect(
        "float_z24s8",
        2,
        CONTROL0_RESET | DEPTH_FLOAT,
        [0x33, 0x33, 0x00, 0x7D],
    );
    // Without the bit: round(0.3 · 0xFFFFFF) = 0x4CCCCD.
    expect("unorm_z24s8", 2, CONTROL0_RESET, [0xCC, 0xCD, 0x00, 0x4C]);
}

#[test]
fn a_float_z16_surface_stores_a_half() {
    // 0.3 as a half, truncated: 0x34CC; one texel spans two depth words.
    expect(
        "float_z16",
        1,
        CONTROL0_RESET | DEPTH_FLOAT,
        [0xCC, 0x34, 0xCC, 0x34],
    );
    // Without the bit: round(0.3 · 0xFFFF) = 0x4CCD.
    expect("unorm_z16", 1, CONTROL0_RESET, [0xCD, 0x4C, 0xCD, 0x4C]);
}
