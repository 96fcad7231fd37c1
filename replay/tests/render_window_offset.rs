//! The window offset and the surface clip on both renderers, against RPCS3's framebuffer
//! layout (`RSXThread.cpp` `get_framebuffer_layout`): the framebuffer is the clip's width ×
//! height, its origin ignored, at the surface base moved by `SET_WINDOW_OFFSET` ("Window
//! offset is what affects the raster position!"). Window pixel (x, y) of a draw or a clear
//! lands on surface pixel (x + offset x, y + offset y), for x < clip width, y < clip height.

use crate::gpu_support;

use crate::render_support;
use render_support::*;

use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::rrc::{Capture, Location};

/// Clip size (window pixels) of every scene.
const CLIP: u16 = 8;
/// Surface row length in pixels: room for an offset of up to 8.
const PITCH_PIXELS: u32 = 16;
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const RED8: [u8; 4] = [255, 0, 0, 255];
/// Memory nothing wrote (zeros) reads as transparent black.
const UNTOUCHED: [u8; 4] = [0; 4];

/// An A8R8G8B8 surface 16 pixels to the row with an 8×8 clip at `clip_origin`, the window
/// offset `offset`, cleared to blue under scissor `clear_scissor`, then a red quad over window
/// pixels `quad` (scissor and viewport the whole 8×8 window).
fn scene(
    clip_origin: (u16, u16),
    offset: (u32, u32),
    clear_scissor: (u16, u16, u16, u16),
    quad: [f32; 4],
) -> Capture {
    let target = |offset| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: PITCH_PIXELS * 4,
    };
    let mut b = CaptureBuilder::new("window-offset.rrc");
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (4, 4),
        color_target: 1,
        colors: [target(SCENE_COLOR), target(0), target(0), target(0)],
        zeta: target(SCENE_ZETA),
        clip: (clip_origin.0, clip_origin.1, CLIP, CLIP),
    });
    b.method(0x02B8 / 4, offset.0 | (offset.1 << 16)).unwrap(); // SET_WINDOW_OFFSET
    let (x, y, w, h) = clear_scissor;
    b.set_scissor(x, y, w, h);
    b.clear_surface(0xF0, 0xFF00_00FF, 0);
    b.set_scissor(0, 0, CLIP, CLIP);
    b.set_viewport(0, 0, CLIP, CLIP, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    let vertices = corners(quad).map(|(x, y)| [[x, y, 0.5, 1.0], RED, [0.0; 4]]);
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    b.finish()
}

/// Each renderer's output image, with `expect(x, y)` checked at every pixel.
fn check(name: &str, capture: &Capture, size: (u32, u32), expect: impl Fn(u32, u32) -> [u8; 4]) {
    let cpu = rsxtrace_replay::render::cpu::render_frame;
    for (renderer, image) in gpu_support::both_images(name, capture, cpu) {
        assert_eq!((image.width, image.height), size, "{renderer}: image size");
        for y in 0..size.1 {
            for x in 0..size.0 {
                assert_eq!(
                    image.pixel(x, y),
                    Some(expect(x, y)),
                    "{renderer}: surface pixel {x},{y}"
                );
            }
        }
    }
}

fn inside(x: u32, y: u32, [x0, y0, x1, y1]: [u32; 4]) -> bool {
    (x0..x1).contains(&x) && (y0..y1).contains(&y)
}

#[test]
fn a_window_offset_moves_the_whole_clip_and_the_clears_with_it() {
    // Offset (3, 2): the 8×8 window lands on surface pixels 3..11 × 2..10, all of it (the
    // replay used to drop window pixels past the clip's far corner in surface pixels, 8), and
    // the clear covers the same pixels (it used to clear 0..8 × 0..8, unmoved). The quad at
    // window 6..8 × 0..2 lands on 9..11 × 2..4.
    let capture = scene((0, 0), (3, 2), (0, 0, CLIP, CLIP), [6.0, 0.0, 8.0, 2.0]);
    check("window_offset_moves_clip", &capture, (11, 10), |x, y| {
        if inside(x, y, [9, 2, 11, 4]) {
            RED8
        } else if inside(x, y, [3, 2, 11, 10]) {
            BLUE
        } else {
            UNTOUCHED
        }
    });
}

#[test]
fn a_cleared_scissor_is_in_window_pixels() {
    // Scissor 0..2 × 0..2 with offset (3, 2) clears surface pixels 3..5 × 2..4; the quad
    // covers nothing (zero area).
    let capture = scene((0, 0), (3, 2), (0, 0, 2, 2), [0.0, 0.0, 0.0, 0.0]);
    check("window_offset_clear_scissor", &capture, (11, 10), |x, y| {
        if inside(x, y, [3, 2, 5, 4]) {
            BLUE
        } else {
            UNTOUCHED
        }
    });
}

#[test]
fn the_clip_origin_does_not_cut_the_window() {
    // Clip at (4, 4) without an offset: RPCS3 ignores the origin, so the whole 8×8 window is
    // drawn from surface pixel 0 (the replay used to drop window pixels below 4).
    let capture = scene((4, 4), (0, 0), (0, 0, CLIP, CLIP), [0.0, 0.0, 8.0, 8.0]);
    check("window_clip_origin_ignored", &capture, (8, 8), |_, _| RED8);
}

#[test]
fn libgcm_surfaces_with_the_clip_origin_as_window_offset_land_there() {
    // cellGcmSetSurface / PSL1GHT rsxSetSurface write the surface origin to both the clip
    // and the window offset: the 8×8 window lands on 2..10 × 1..9.
    let capture = scene((2, 1), (2, 1), (0, 0, CLIP, CLIP), [0.0, 0.0, 4.0, 8.0]);
    check("window_offset_libgcm", &capture, (10, 9), |x, y| {
        if inside(x, y, [2, 1, 6, 9]) {
            RED8
        } else if inside(x, y, [2, 1, 10, 9]) {
            BLUE
        } else {
            UNTOUCHED
        }
    });
}
