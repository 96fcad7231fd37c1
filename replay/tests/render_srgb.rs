//! The sRGB framebuffer (`SET_SHADER_PACKER`) on both renderers, against RPCS3's rule
//! (`RSXROPEpilogue.glsl`: the colour outputs' R, G, B go through `linear_to_srgb` before the
//! 8-bit rounding, for integer surfaces and programs that export 16-bit registers) worked
//! out here: linear 0.5 is sRGB 1.055 · 0.5^(1/2.4) − 0.055 = 0.7354, which the 8-bit write
//! rule stores as floor(0.7354 · 4096) = 3012, (3012 · 255 + 2048) >> 12 = 188.

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_replay::render::Rgba8Image;

const W: u16 = 8;

/// `MOV H0, f[COL0]`: the colour in an fp16 register (exported with SHADER_CONTROL 0x40
/// clear).
fn mov_h0() -> Vec<u8> {
    let mut p = rsxtrace_program::fragment::decode(&FP_MOV_COL0).unwrap();
    p.instructions[0].dest.fp16 = true;
    rsxtrace_program::fragment::encode(&p)
}

/// An 8×8 A8R8G8B8 target, a quad of colour (0.5, 0.5, 0.5, 0.5) through `program` with
/// SHADER_CONTROL `control`, SHADER_PACKER `packer`.
fn scene(program: &[u8], control: u32, packer: u32) -> Capture {
    let mut b = pixel_scene("srgb.rrc", W, 2);
    b.method(0x1FEC >> 2, packer).unwrap(); // SET_SHADER_PACKER
    b.set_fragment_program(Location::Local, 0x1000, program, control)
        .unwrap();
    let vertices =
        corners([0.0, 0.0, 8.0, 8.0]).map(|(x, y)| [[x, y, 0.5, 1.0], [0.5; 4], [0.0; 4]]);
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    b.finish()
}

/// Both renderers' images (the GPU one when a device exists).
fn render(name: &str, capture: &Capture) -> Vec<(&'static str, Rgba8Image)> {
    gpu_support::both_images(name, capture, cpu_render_tiled)
}

#[test]
fn an_srgb_framebuffer_encodes_rgb_before_the_write() {
    for (name, image) in render("srgb_framebuffer", &scene(&mov_h0(), 0, 1)) {
        assert_eq!(image.pixel(3, 3), Some([188, 188, 188, 128]), "{name}");
    }
}

#[test]
fn without_the_packer_or_with_32_bit_exports_the_colour_is_linear() {
    // SHADER_PACKER 0: 0.5 is byte 128.
    for (name, image) in render("srgb_off", &scene(&mov_h0(), 0, 0)) {
        assert_eq!(image.pixel(3, 3), Some([128; 4]), "{name}");
    }
    // 32-bit exports (SHADER_CONTROL 0x40): RPCS3 "cannot output sRGB from 32-bit registers".
    for (name, image) in render("srgb_32bit", &scene(&FP_MOV_COL0, 0x40, 1)) {
        assert_eq!(image.pixel(3, 3), Some([128; 4]), "{name}");
    }
}
