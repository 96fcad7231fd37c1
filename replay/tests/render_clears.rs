//! Colour clears per surface format on both renderers, against RPCS3's rules
//! (`VKGSRender::clear_surface`, `color_utils.h`: "RSX clear color is just a memcpy"): the
//! clear value lands in the pixel as it is, so an R5G6B5 target takes its low 16 bits and an
//! A8B8G8R8 target the bytes in ARGB order; a float target is not cleared. A stencil clear
//! writes through the stencil write mask.

use crate::gpu_support;

use crate::render_support;
use render_support::*;

use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_replay::render::state::ColorFormat;
use rsxtrace_replay::render::surface::bytes_per_pixel;
use rsxtrace_replay::render::Rgba8Image;

const W: u16 = 8;

/// An 8×8 target of `color_format` at 0x10_0000, cleared by each of `clears` in turn
/// (colour channels `mask`, the CLEAR_SURFACE bits 0x10..0x80, to `value`).
fn scene(color_format: u32, clears: &[(u32, u32)]) -> Capture {
    scene_with_zeta(color_format, clears, 32, false)
}

/// [`scene`] with the zeta surface's pitch `zeta_pitch`, and the draw testing depth when
/// `depth_test`.
fn scene_with_zeta(
    color_format: u32,
    clears: &[(u32, u32)],
    zeta_pitch: u32,
    depth_test: bool,
) -> Capture {
    scene_with(color_format, zeta_pitch, depth_test, |b| {
        for &(mask, value) in clears {
            b.clear_surface(mask, value, 0);
        }
    })
}

/// [`scene_with_zeta`] with the commands `before_draw` records in place of its clears.
fn scene_with(
    color_format: u32,
    zeta_pitch: u32,
    depth_test: bool,
    before_draw: impl FnOnce(&mut CaptureBuilder),
) -> Capture {
    let bpp = ColorFormat::from_raw(color_format).map_or(4, bytes_per_pixel);
    let target = |offset, pitch| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch,
    };
    let mut b = CaptureBuilder::new("clears.rrc");
    b.set_surface(&SurfaceDesc {
        color_format,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (3, 3),
        color_target: 1,
        colors: [
            target(0x10_0000, u32::from(W) * bpp),
            target(0, 64),
            target(0, 64),
            target(0, 64),
        ],
        zeta: target(0x20_0000, zeta_pitch),
        clip: (0, 0, W, W),
    });
    b.set_scissor(0, 0, W, W);
    before_draw(&mut b);
    // A draw (the renderers render up to a draw) that covers no pixel: all corners at one
    // point (unless it tests depth).
    b.set_viewport(0, 0, W, W, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    if depth_test {
        b.set_depth(true, 0x201, true); // LESS, write
    }
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    // A draw testing depth covers the surface (it is to be skipped whole).
    let rect = if depth_test {
        [0.0, 0.0, f32::from(W), f32::from(W)]
    } else {
        [1.0; 4]
    };
    let vertices = corners(rect).map(|(x, y)| [[x, y, 0.5, 1.0], [1.0; 4], [0.0; 4]]);
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    b.finish()
}

/// Both renderers' images (the GPU one when a device exists).
fn render(name: &str, capture: &Capture) -> Vec<(&'static str, Rgba8Image)> {
    gpu_support::both_images(name, capture, rsxtrace_replay::render::cpu::render_frame)
}

#[test]
fn r5g6b5_takes_the_low_16_bits_of_the_clear_value() {
    // 0x0000F800: the pixel 0xF800 is red 31; the ARGB bytes would give green 0xF8.
    for (name, image) in render("r5g6b5_clear", &scene(3, &[(0xF0, 0x0000_F800)])) {
        assert_eq!(image.pixel(3, 3), Some([255, 0, 0, 255]), "{name}");
    }
}

#[test]
fn a8b8g8r8_stores_the_clear_bytes_in_argb_order() {
    // 0x00FF0000 in memory as 00 FF 00 00: A8B8G8R8 reads byte 1 as blue.
    for (name, image) in render("a8b8g8r8_clear", &scene(16, &[(0xF0, 0x00FF_0000)])) {
        assert_eq!(image.pixel(3, 3), Some([0, 0, 255, 0]), "{name}");
    }
    // After a clear to 0x11 everywhere, one with only the R mask bit (0x10): it clears the
    // channel that byte 2 (R) lands in, the format's blue; the others keep 0x11.
    let clears = [(0xF0, 0x1111_1111), (0x10, 0x00FF_0000)];
    for (name, image) in render("a8b8g8r8_clear_r", &scene(16, &clears)) {
        assert_eq!(image.pixel(3, 3), Some([0x11, 0x11, 0xFF, 0x11]), "{name}");
    }
}

#[test]
fn a_float_target_is_not_cleared() {
    // W16Z16Y16X16 (11), memory zero: RPCS3 NOPs the colour clear, so it stays (0, 0, 0, 0).
    for (name, image) in render("float_clear", &scene(11, &[(0xF0, 0xFFFF_FFFF)])) {
        assert_eq!(image.pixel(3, 3), Some([0, 0, 0, 0]), "{name}");
    }
    // An A8R8G8B8 target is cleared: the control.
    for (name, image) in render("argb_clear", &scene(8, &[(0xF0, 0xFFFF_FFFF)])) {
        assert_eq!(image.pixel(3, 3), Some([255; 4]), "{name}");
    }
}

/// A depth surface whose pitch register holds garbage (0xFFFFFF00: 4096 rows of it would span
/// 4 GiB): its clear is refused with a warning, not allocated (a fuzzed capture asked the CPU
/// renderer for 4 GiB here), and the colour clear beside it still lands; a draw that tests
/// depth against it is skipped, saying why, on both renderers. No surface ends past the 256
/// MiB of its memory (RPCS3 `rsx::get_address`).
#[test]
fn a_depth_surface_past_its_memory_is_refused_not_allocated() {
    use rsxtrace_capture::frame::Frame;
    use rsxtrace_replay::render::{state::FrameEvents, RenderOptions};
    let capture = scene_with_zeta(8, &[(0xF3, 0xFFFF_FFFF)], 0xFFFF_FF00, true);
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = RenderOptions::default();
    let mut rendered = vec![(
        "cpu",
        rsxtrace_replay::render::cpu::render_frame(&frame, &events, &options).expect("CPU"),
    )];
    if let Some(gpu) = gpu_support::gpu("zeta_past_memory") {
        let g = rsxtrace_replay::render::gpu::render_frame(&gpu, &frame, &events, &options)
            .expect("GPU");
        rendered.push(("gpu", g));
    }
    for (name, r) in rendered {
        assert_eq!(
            r.image.pixel(3, 3),
            Some([255; 4]),
            "{name}: the colour clear"
        );
        let said: Vec<&str> = r.warnings.iter().map(|w| w.message.as_str()).collect();
        assert!(
            said.iter().any(|w| w.contains("256 MiB")),
            "{name}: {said:?}"
        );
        assert_eq!(r.skipped.len(), 1, "{name}: the draw testing depth");
        assert!(
            r.skipped[0].1.contains("256 MiB"),
            "{name}: {:?}",
            r.skipped
        );
    }
}

#[test]
fn a_stencil_clear_writes_through_the_stencil_write_mask() {
    use rsxtrace_capture::frame::Frame;
    use rsxtrace_replay::render::state::FrameEvents;
    use rsxtrace_replay::render::target::{depth_target_at, TargetGrab};
    use rsxtrace_replay::render::RenderOptions;
    // SET_STENCIL_MASK (0x032C): RPCS3 clears the stencil through it, and not at all when it
    // is 0 (`VKGSRender::clear_surface`), as GL's clear honours the stencil write mask.
    const STENCIL_MASK: u32 = 0x032C >> 2;
    let capture = scene_with(8, 32, true, |b| {
        // Depth 1.0 and stencil 0xA5 everywhere; then stencil 0x3C through mask 0x0F: 0xAC;
        // then stencil 0 through mask 0: nothing.
        b.clear_surface(0x03, 0, 0xFFFF_FFA5);
        b.method(STENCIL_MASK, 0x0F).unwrap();
        b.clear_surface(0x02, 0, 0x3C);
        b.method(STENCIL_MASK, 0).unwrap();
        b.clear_surface(0x02, 0, 0);
    });
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    assert!(
        !events.clears[2].mask.stencil,
        "a stencil clear through mask 0 is dropped"
    );
    let options = RenderOptions::default();
    let stencil = || {
        let target = depth_target_at(&frame, Location::Local, 0x20_0000).expect("depth");
        TargetGrab::new(target.stencil().expect("Z24S8 has a stencil"))
    };
    let mut grab = stencil();
    rsxtrace_replay::render::cpu::render_frame_observed(&frame, &events, &options, &mut grab)
        .expect("CPU");
    assert_eq!(grab.stencil_values(), Some(vec![(0xAC, 64)]), "CPU");
    if let Some(gpu) = gpu_support::gpu("a_stencil_clear_writes_through_the_stencil_write_mask") {
        let mut grab = stencil();
        rsxtrace_replay::render::gpu::render_frame_observed(
            &gpu, &frame, &events, &options, &mut grab,
        )
        .expect("GPU");
        assert_eq!(grab.stencil_values(), Some(vec![(0xAC, 64)]), "GPU");
    }
}
