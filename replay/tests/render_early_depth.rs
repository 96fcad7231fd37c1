//! Early depth rejection in the CPU render (`rsxtrace_replay::render::cpu::early_depth`):
//! quads whose fragments all fail the depth test go unshaded only where that cannot change
//! anything. Each scene is rendered with and without it (`RenderOptions::no_early_depth`):
//! the images must be equal, and the count of rejected quads says whether the rule applied.

use crate::render_support;
use render_support::{corners, cpu_render_tiled, draw_vertices, vertex_program, FP_MOV_COL0};
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{read_file, Capture, Location};
use rsxtrace_replay::render::cpu::render_frame;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame};

/// Surface size: 8 × 8 pixels.
const W: u16 = 8;
const H: u16 = 8;
const COLOR: u32 = 0x0010_0000;
const ZETA: u32 = 0x0020_0000;

/// Register indices (byte offset / 4, rrc-format.md 4.8).
mod reg {
    pub const STENCIL_TEST_ENABLE: u32 = 0x0328 / 4;
    pub const STENCIL_MASK: u32 = 0x032C / 4;
    pub const STENCIL_FUNC: u32 = 0x0330 / 4;
    pub const STENCIL_FUNC_REF: u32 = 0x0334 / 4;
    pub const STENCIL_FUNC_MASK: u32 = 0x0338 / 4;
    pub const STENCIL_OP_FAIL: u32 = 0x033C / 4;
    pub const STENCIL_OP_ZFAIL: u32 = 0x0340 / 4;
    pub const STENCIL_OP_ZPASS: u32 = 0x0344 / 4;
}

fn target(offset: u32, pitch: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch,
    }
}

/// An 8×8 A8R8G8B8 + Z24S8 surface, depth and stencil cleared to 1.0 and 0, colour to black;
/// viewport = window pixels, the pass-through vertex program and `MOV R0, f[COL0]`.
fn builder(name: &str) -> CaptureBuilder {
    let mut b = CaptureBuilder::new(name);
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (3, 3),
        color_target: 1,
        colors: [
            target(COLOR, u32::from(W) * 4),
            target(0, 64),
            target(0, 64),
            target(0, 64),
        ],
        zeta: target(ZETA, u32::from(W) * 4),
        clip: (0, 0, W, H),
    });
    b.set_viewport(0, 0, W, H, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, W, H);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
    b
}

/// A quad over pixels `rect` (x0, y0, x1, y1) at depth `z` in colour `rgba`.
fn quad(b: &mut CaptureBuilder, at: u32, rect: [f32; 4], z: f32, rgba: [f32; 4]) {
    let vertices = corners(rect).map(|(x, y)| [[x, y, z, 1.0], rgba, [0.0; 4]]);
    draw_vertices(b, at, 8, &vertices);
}

const FULL: [f32; 4] = [0.0, 0.0, 8.0, 8.0];
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

/// The render with early depth rejection, checked against the render without it (image and
/// per-draw snapshots, on one tile and on bands: `cpu_render_tiled`).
fn render(capture: &Capture) -> RenderedFrame {
    let frame = Frame::from_capture(capture).expect("frame");
    let events = FrameEvents::from_capture(capture, &frame);
    let options = RenderOptions {
        per_draw: true,
        ..Default::default()
    };
    let out = cpu_render_tiled(&frame, &events, &options).expect("render");
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    out
}

/// Quads shaded for one quad primitive over `rect` alone: a quad covered by both of its
/// triangles counts twice (the fragment program runs per primitive).
fn jobs(rect: [f32; 4]) -> u64 {
    let mut b = builder("one.rrc");
    quad(&mut b, 0x1_0000, rect, 0.5, RED);
    render(&b.finish()).shading.quads_shaded
}

#[test]
fn quads_behind_the_depth_buffer_go_unshaded() {
    // A near red quad, then a far blue one over it and a nearer green one over its left half.
    let out = render(&near_far_near());
    assert_eq!(out.image.pixel(6, 4), Some([255, 0, 0, 255]));
    assert_eq!(out.image.pixel(1, 4), Some([0, 255, 0, 255]));
    // Every quad of the blue draw fails everywhere; the green one passes.
    let (full, left) = (jobs(FULL), jobs([0.0, 0.0, 4.0, 8.0]));
    assert!(full >= 16 && left >= 8, "{full} {left}");
    assert_eq!(out.shading.quads_rejected_early, full);
    assert_eq!(out.shading.quads_shaded, full + left);
    // Per draw, the fragments that passed every test (what an occlusion query counts): all
    // 64 of the red quad, none of the blue one, the green half's 32; the same without early
    // rejection (the blue fragments then fail the depth test one by one).
    let passed = |out: &RenderedFrame| -> Vec<(usize, u64)> {
        out.draw_shading
            .iter()
            .map(|d| (d.draw, d.shading.fragments_passed))
            .collect()
    };
    assert_eq!(passed(&out), vec![(0, 64), (1, 0), (2, 32)]);
    assert_eq!(out.shading.fragments_passed, 96);
    let capture = near_far_near();
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let every = render_frame(
        &frame,
        &events,
        &RenderOptions {
            no_early_depth: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(every.shading.quads_rejected_early, 0);
    assert_eq!(passed(&every), vec![(0, 64), (1, 0), (2, 32)]);
}

/// The scene of [`quads_behind_the_depth_buffer_go_unshaded`].
fn near_far_near() -> Capture {
    let mut b = builder("early.rrc");
    b.set_depth(true, 0x201, true); // LESS
    quad(&mut b, 0x1_0000, FULL, 0.25, RED);
    quad(&mut b, 0x2_0000, FULL, 0.75, BLUE);
    quad(&mut b, 0x3_0000, [0.0, 0.0, 4.0, 8.0], 0.125, GREEN);
    b.finish()
}

#[test]
fn a_quad_with_one_passing_fragment_is_shaded_whole() {
    // Red covers every pixel but (5, 5) at depth 0.5; blue at 0.75 then passes only at
    // (5, 5): the quad holding it is shaded whole (its other lanes feed derivatives), the
    // others are not (that quad also lies under the other triangle, where it is rejected).
    let mut b = builder("partial.rrc");
    b.set_depth(true, 0x203, true); // LEQUAL
    let around = [
        [0.0, 0.0, 8.0, 5.0],
        [0.0, 5.0, 5.0, 6.0],
        [6.0, 5.0, 8.0, 6.0],
        [0.0, 6.0, 8.0, 8.0],
    ];
    for (k, rect) in around.into_iter().enumerate() {
        quad(&mut b, 0x1_0000 + 0x1000 * k as u32, rect, 0.5, RED);
    }
    let red_only = render(&b.clone().finish()).shading;
    quad(&mut b, 0x2_0000, FULL, 0.75, BLUE);
    let out = render(&b.finish());
    assert_eq!(out.image.pixel(5, 5), Some([0, 0, 255, 255]));
    assert_eq!(out.image.pixel(4, 5), Some([255, 0, 0, 255]));
    assert_eq!(out.image.pixel(1, 1), Some([255, 0, 0, 255]));
    assert_eq!(out.shading.quads_rejected_early, jobs(FULL) - 1);
    assert_eq!(out.shading.quads_shaded, red_only.quads_shaded + 1);
}

#[test]
fn failing_fragments_that_update_the_stencil_are_shaded() {
    // zfail INCR: a fragment failing the depth test still counts in the stencil buffer, so
    // the rule stays off; the third draw shows the counts (stencil EQUAL 1 where blue went).
    let mut b = builder("stencil.rrc");
    b.set_depth(true, 0x201, true);
    quad(&mut b, 0x1_0000, FULL, 0.25, RED);
    for (m, v) in [
        (reg::STENCIL_TEST_ENABLE, 1),
        (reg::STENCIL_MASK, 0xFF),
        (reg::STENCIL_FUNC, 0x207),
        (reg::STENCIL_FUNC_REF, 0),
        (reg::STENCIL_FUNC_MASK, 0xFF),
        (reg::STENCIL_OP_FAIL, 0x1E00),
        (reg::STENCIL_OP_ZFAIL, 0x1E02), // INCR
        (reg::STENCIL_OP_ZPASS, 0x1E00),
    ] {
        b.method(m, v).unwrap();
    }
    quad(&mut b, 0x2_0000, [0.0, 0.0, 4.0, 8.0], 0.75, BLUE);
    b.set_depth(false, 0x207, false);
    b.method(reg::STENCIL_FUNC, 0x202).unwrap(); // EQUAL 1
    b.method(reg::STENCIL_FUNC_REF, 1).unwrap();
    b.method(reg::STENCIL_OP_ZFAIL, 0x1E00).unwrap();
    quad(&mut b, 0x3_0000, FULL, 0.5, GREEN);
    let out = render(&b.finish());
    assert_eq!(out.image.pixel(1, 1), Some([0, 255, 0, 255]));
    assert_eq!(out.image.pixel(6, 1), Some([255, 0, 0, 255]));
    assert_eq!(out.shading.quads_rejected_early, 0);
}

#[test]
fn functions_that_do_not_keep_failures_are_left_alone() {
    // NOTEQUAL: a failing value may pass after a later write; ALWAYS never fails.
    for func in [0x205, 0x207] {
        let mut b = builder("notequal.rrc");
        b.set_depth(true, func, true);
        quad(&mut b, 0x1_0000, FULL, 0.25, RED);
        quad(&mut b, 0x2_0000, FULL, 0.25, BLUE);
        let out = render(&b.finish());
        assert_eq!(out.shading.quads_rejected_early, 0, "func {func:#x}");
        assert_eq!(out.shading.quads_shaded, 2 * jobs(FULL));
    }
    // NEVER and EQUAL do: nothing passes NEVER; EQUAL writes only the value it found.
    for (func, rejected) in [(0x200, 2 * jobs(FULL)), (0x202, jobs(FULL))] {
        let mut b = builder("never.rrc");
        b.set_depth(true, func, true);
        quad(&mut b, 0x1_0000, FULL, 0.25, RED);
        quad(&mut b, 0x2_0000, FULL, 1.0, BLUE);
        let out = render(&b.finish());
        assert_eq!(out.shading.quads_rejected_early, rejected, "func {func:#x}");
    }
}

#[test]
fn the_game_sample_renders_the_same_with_and_without_it() {
    let capture = read_file(&rsxtrace_testkit::workspace!().sample("game.rrc.gz")).unwrap();
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = |no_early_depth| RenderOptions {
        draws: Some(0..600),
        no_early_depth,
        ..Default::default()
    };
    let early = render_frame(&frame, &events, &options(false)).unwrap();
    let every = render_frame(&frame, &events, &options(true)).unwrap();
    assert!(early.image == every.image, "early depth changed the image");
    assert_eq!(early.warnings, every.warnings);
    assert_eq!(every.shading.quads_rejected_early, 0);
    assert!(
        early.shading.quads_rejected_early > 0,
        "{:?}",
        early.shading
    );
    assert_eq!(
        early.shading.quads_shaded + early.shading.quads_rejected_early,
        every.shading.quads_shaded
    );
}
