//! The CPU reference frame render (`rsxtrace_replay::render::cpu`) on small builder captures,
//! each pixel checked against a value computed here: clears, blending (several factor and
//! equation pairs; mixed blend constants and 32-bit float targets on the GPU render too, the
//! latter also on a device that cannot blend them), depth, stencil, alpha test, culling, scissor, colour-format round trips,
//! render to texture, and the sample trace as a whole.

use crate::gpu_support;
use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::vertex_ucode::{
    source, VecInstruction, MASK_W, MASK_X, MASK_Y, MASK_Z, REG_INPUT, SWIZZLE_XYZW, VEC_MOV,
};
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget, TextureDesc};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{read_file, Capture, Location};
use rsxtrace_replay::render::cpu::render_frame;
use rsxtrace_replay::render::state::{ColorFormat, FrameEvents};
use rsxtrace_replay::render::surface::{
    bytes_per_pixel, decode as decode_px, encode as encode_px, output_surface,
};
use rsxtrace_replay::render::target::frame_targets;
use rsxtrace_replay::render::{OutputSource, RenderOptions, RenderedFrame};

/// Surface size.
const W: u16 = 8;
const H: u16 = 8;
/// Colour target A, zeta, and a second target used as a texture (local memory).
const COLOR: u32 = 0x0010_0000;
const ZETA: u32 = 0x0020_0000;
const TEXTURE_TARGET: u32 = 0x0030_0000;

/// Register indices (byte offset / 4, rrc-format.md 4.8).
mod reg {
    pub const ALPHA_TEST_ENABLE: u32 = 0x0304 / 4;
    pub const ALPHA_FUNC: u32 = 0x0308 / 4;
    pub const ALPHA_REF: u32 = 0x030C / 4;
    pub const BLEND_COLOR: u32 = 0x031C / 4;
    pub const STENCIL_TEST_ENABLE: u32 = 0x0328 / 4;
    pub const STENCIL_MASK: u32 = 0x032C / 4;
    pub const STENCIL_FUNC: u32 = 0x0330 / 4;
    pub const STENCIL_FUNC_REF: u32 = 0x0334 / 4;
    pub const STENCIL_FUNC_MASK: u32 = 0x0338 / 4;
    pub const STENCIL_OP_FAIL: u32 = 0x033C / 4;
    pub const STENCIL_OP_ZFAIL: u32 = 0x0340 / 4;
    pub const STENCIL_OP_ZPASS: u32 = 0x0344 / 4;
    pub const SET_POLY_OFFSET_FILL_ENABLE: u32 = 0x0A68 / 4;
    pub const SET_POLYGON_OFFSET_BIAS: u32 = 0x0A7C / 4;
}

fn target(offset: u32, pitch: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch,
    }
}

fn surface(color_format: u32, color_offset: u32) -> SurfaceDesc {
    let bpp = ColorFormat::from_raw(color_format).map_or(4, bytes_per_pixel);
    SurfaceDesc {
        color_format,
        depth_format: 2, // Z24S8
        surface_type: 1,
        antialias: 0,
        log2_size: (3, 3),
        color_target: 1, // A
        colors: [
            target(color_offset, u32::from(W) * bpp),
            target(0, 64),
            target(0, 64),
            target(0, 64),
        ],
        zeta: target(ZETA, u32::from(W) * 4),
        clip: (0, 0, W, H),
    }
}

/// `MOV o[COL0], v[3]; MOV o[TEX0], v[8]; MOV o[HPOS], v[0]` (END).
fn vertex_program() -> Vec<u32> {
    let input = source(REG_INPUT, SWIZZLE_XYZW);
    let all = MASK_X | MASK_Y | MASK_Z | MASK_W;
    let mov = |attribute: u32, output: u32, end: bool| VecInstruction {
        opcode: VEC_MOV,
        input: attribute,
        constant: 0,
        sources: [input, input, input],
        output,
        mask: all,
        end,
    };
    [mov(3, 1, false), mov(8, 7, false), mov(0, 0, true)]
        .iter()
        .flat_map(VecInstruction::encode)
        .collect()
}

/// A builder with an 8×8 A8R8G8B8 + Z24S8 surface, viewport = identity on window pixels
/// (clip x, y are window pixels with w = 1, z is window z), full scissor, every colour
/// channel written, the pass-through vertex program and `MOV R0, f[COL0]`.
fn builder(name: &str, color_format: u32) -> CaptureBuilder {
    let mut b = CaptureBuilder::new(name);
    b.set_surface(&surface(color_format, COLOR));
    b.set_viewport(0, 0, W, H, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, W, H);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    b
}

/// A quad over pixels x0..x1 × y0..y1 at depth `z` in colour `rgba` (texture coordinate =
/// the pixel position / 8), its vertex data at `at` in main memory.
fn quad(b: &mut CaptureBuilder, at: u32, rect: [f32; 4], z: f32, rgba: [f32; 4]) {
    let vertices = corners(rect).map(|(x, y)| [[x, y, z, 1.0], rgba, [x / 8.0, y / 8.0, 0.0, 1.0]]);
    draw_vertices(b, at, 8, &vertices);
}

fn render(capture: &Capture) -> RenderedFrame {
    let frame = Frame::from_capture(capture).expect("frame");
    let events = FrameEvents::from_capture(capture, &frame);
    let out = cpu_render_tiled(&frame, &events, &RenderOptions::default()).expect("render");
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    out
}

/// A blended value as the 8-bit surface stores it: round(clamp(v) · 255) (the blender's
/// result is converted like a host unorm target, as RPCS3's host does).
fn u8c(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn rgba8(v: [f64; 4]) -> [u8; 4] {
    v.map(u8c)
}

/// The RSX's 8-bit write rule for a fragment colour (rsx-microcode.md B.9, RPCS3
/// `RSXFragmentPrologue.glsl`): clamp, clear the low 12 mantissa bits of the f32, then
/// floor(x · 255 + 0.5).
fn rule8(v: f64) -> u8 {
    let c = (v as f32).clamp(0.0, 1.0);
    let t = f64::from(f32::from_bits(c.to_bits() & 0xFFFF_F000));
    (t * 255.0 + 0.5).floor() as u8
}

/// An unblended fragment colour in an 8-bit target.
fn out8(v: [f64; 4]) -> [u8; 4] {
    v.map(rule8)
}

const FULL: [f32; 4] = [0.0, 0.0, 8.0, 8.0];

#[test]
fn clear_colour_fills_the_scissored_surface() {
    let mut b = builder("clear.rrc", 8);
    b.set_scissor(2, 1, 4, 3);
    // ARGB 0x80FF4020 and depth/stencil cleared too.
    b.clear_surface(0xF3, 0x80FF_4020, 0xFFFF_FF00);
    b.set_scissor(0, 0, W, H);
    quad(
        &mut b,
        0x1_0000,
        [0.0, 0.0, 1.0, 1.0],
        0.5,
        [0.0, 1.0, 0.0, 1.0],
    );
    let out = render(&b.finish());
    assert_eq!(
        out.source,
        OutputSource::LastColorTarget {
            address: COLOR,
            format: "a8r8g8b8".into()
        }
    );
    assert_eq!((out.image.width, out.image.height), (8, 8));
    for y in 0..8 {
        for x in 0..8 {
            let expect = if (x, y) == (0, 0) {
                [0, 255, 0, 255]
            } else if (2..6).contains(&x) && (1..4).contains(&y) {
                [0xFF, 0x40, 0x20, 0x80]
            } else {
                [0, 0, 0, 0]
            };
            assert_eq!(out.image.pixel(x, y), Some(expect), "pixel {x},{y}");
        }
    }
    // Without the capture's events the clear is unknown: only the quad is there.
    let frame = Frame::from_capture(&{
        let mut b = builder("clear2.rrc", 8);
        b.clear_surface(0xF0, 0xFFFF_FFFF, 0);
        quad(&mut b, 0x1_0000, FULL, 0.5, [0.0, 0.0, 1.0, 1.0]);
        b.finish()
    })
    .unwrap();
    let plain = render_frame(&frame, &FrameEvents::default(), &RenderOptions::default()).unwrap();
    assert_eq!(plain.image.pixel(3, 3), Some([0, 0, 255, 255]));
}

/// Clear to `dst`, then draw a full quad of `src` with blending `(sf, df, eq)` for RGB and
/// alpha alike; returns pixel (3, 3).
fn blended(dst: u32, src: [f32; 4], sf: u16, df: u16, eq: u16, constant: Option<u32>) -> [u8; 4] {
    let mut b = builder("blend.rrc", 8);
    b.clear_surface(0xF0, dst, 0);
    b.set_blend(true, (sf, sf), (df, df), (eq, eq));
    if let Some(c) = constant {
        b.method(reg::BLEND_COLOR, c).unwrap();
    }
    quad(&mut b, 0x1_0000, FULL, 0.5, src);
    render(&b.finish()).image.pixel(3, 3).unwrap()
}

fn argb_f(v: u32) -> [f64; 4] {
    let c = |s: u32| f64::from((v >> s) & 0xFF) / 255.0;
    [c(16), c(8), c(0), c(24)]
}

#[test]
fn blending_factors_and_equations() {
    let dst = 0xC0_20_80_FF; // A 0.753, R 0.125, G 0.502, B 1.0
    let d = argb_f(dst);
    let src = [0.8f32, 0.4, 0.2, 0.25];
    // The fragment colour passes the 8-bit write rule before blending (render::color8).
    let s = src.map(|v| f64::from(rule8(f64::from(v))) / 255.0);
    // SRC_ALPHA, ONE_MINUS_SRC_ALPHA, ADD.
    let expect = [0, 1, 2, 3].map(|k| s[k] * s[3] + d[k] * (1.0 - s[3]));
    assert_eq!(blended(dst, src, 0x302, 0x303, 0x8006, None), rgba8(expect));
    // ONE, ONE, ADD saturates.
    let expect = [0, 1, 2, 3].map(|k| s[k] + d[k]);
    assert_eq!(blended(dst, src, 1, 1, 0x8006, None), rgba8(expect));
    // DST_COLOR, ZERO: modulate.
    let expect = [0, 1, 2, 3].map(|k| s[k] * d[k]);
    assert_eq!(blended(dst, src, 0x306, 0, 0x8006, None), rgba8(expect));
    // ONE, ONE, REVERSE_SUBTRACT: dst − src, clamped at 0.
    let expect = [0, 1, 2, 3].map(|k| d[k] - s[k]);
    assert_eq!(blended(dst, src, 1, 1, 0x800B, None), rgba8(expect));
    // ONE, ONE, SUBTRACT: src − dst.
    let expect = [0, 1, 2, 3].map(|k| s[k] - d[k]);
    assert_eq!(blended(dst, src, 1, 1, 0x800A, None), rgba8(expect));
    // MIN and MAX ignore the factors.
    let expect = [0, 1, 2, 3].map(|k| s[k].min(d[k]));
    assert_eq!(blended(dst, src, 0, 0, 0x8007, None), rgba8(expect));
    let expect = [0, 1, 2, 3].map(|k| s[k].max(d[k]));
    assert_eq!(blended(dst, src, 0, 0, 0x8008, None), rgba8(expect));
    // CONSTANT_COLOR, ONE_MINUS_CONSTANT_COLOR with blend colour ARGB 0x40_80_C0_FF.
    let c = argb_f(0x4080_C0FF);
    let expect = [0, 1, 2, 3].map(|k| s[k] * c[k] + d[k] * (1.0 - c[k]));
    assert_eq!(
        blended(dst, src, 0x8001, 0x8002, 0x8006, Some(0x4080_C0FF)),
        rgba8(expect)
    );
    // Signed ADD is rendered as ADD (and warned about).
    let expect = [0, 1, 2, 3].map(|k| s[k] + d[k]);
    assert_eq!(blended(dst, src, 1, 1, 0xF006, None), rgba8(expect));
}

#[test]
fn mixed_constant_colour_and_alpha_factors_blend_alike_on_both_renderers() {
    // CONSTANT_COLOR for the source and ONE_MINUS_CONSTANT_ALPHA for the destination (RGB;
    // alpha ONE, ZERO) with blend colour ARGB 0x40_80_C0_FF: wgpu has one blend constant, so
    // the GPU render blends this draw in its fragment wrapper, with the target copied before
    // the draw; both renderers give s·c + d·(1 − c.a) in RGB and s.a in alpha.
    let dst = 0xC0_20_80_FF;
    let (d, c) = (argb_f(dst), argb_f(0x4080_C0FF));
    let src = [0.8f32, 0.4, 0.2, 0.25];
    let s = src.map(|v| f64::from(rule8(f64::from(v))) / 255.0);
    let expect = [0, 1, 2].map(|k| s[k] * c[k] + d[k] * (1.0 - c[3]));
    let want = rgba8([expect[0], expect[1], expect[2], s[3]]);
    let mut b = builder("blend_mixed_constants.rrc", 8);
    b.clear_surface(0xF0, dst, 0);
    b.set_blend(true, (0x8001, 1), (0x8004, 0), (0x8006, 0x8006));
    b.method(reg::BLEND_COLOR, 0x4080_C0FF).unwrap();
    quad(&mut b, 0x1_0000, FULL, 0.5, src);
    let capture = b.finish();
    for (name, image) in
        gpu_support::both_images("blend_mixed_constants", &capture, cpu_render_tiled)
    {
        let got = image.pixel(3, 3).unwrap();
        for k in 0..4 {
            assert!(
                got[k].abs_diff(want[k]) <= 1,
                "{name}: channel {k} {got:?}, want {want:?}"
            );
        }
    }
}

#[test]
fn float32_targets_blend_alike_where_the_device_cannot_blend_them() {
    // F_W32Z32Y32X32 (12) filled with (0.2, 0.4, 0.6, 0.8) by a first draw (a float surface
    // is not cleared), then SRC_ALPHA / ONE_MINUS_SRC_ALPHA in RGB, ONE / ZERO in alpha, ADD
    // over its left half. A device without FLOAT32_BLENDABLE blends in the render wrapper
    // from a copy of the target made before the draw; every render stores s·a + d·(1 − a)
    // in RGB and a in alpha, in f32.
    let (d, src) = ([0.2f32, 0.4, 0.6, 0.8], [1.0f32, 0.5, 0.0, 0.25]);
    let a = src[3];
    let want = rgba8([0, 1, 2, 3].map(|k| {
        f64::from(if k == 3 {
            a
        } else {
            src[k] * a + d[k] * (1.0 - a)
        })
    }));
    let mut b = builder("blend_f32.rrc", 12);
    quad(&mut b, 0x1_0000, FULL, 0.5, d);
    b.set_blend(true, (0x302, 1), (0x303, 0), (0x8006, 0x8006));
    quad(&mut b, 0x2_0000, [0.0, 0.0, 4.0, 8.0], 0.5, src);
    let capture = b.finish();
    let mut images = gpu_support::both_images("blend_f32", &capture, cpu_render_tiled);
    if let Some(gpu) = gpu_support::gpu_without_float32_blending("blend_f32_in_the_wrapper") {
        assert!(!gpu.blends_float32());
        let frame = Frame::from_capture(&capture).expect("frame model");
        let events = FrameEvents::from_capture(&capture, &frame);
        let out = rsxtrace_replay::render::gpu::render_frame(
            &gpu,
            &frame,
            &events,
            &RenderOptions::default(),
        )
        .expect("GPU render");
        assert!(out.skipped.is_empty(), "{:?}", out.skipped);
        images.push(("gpu without float32 blending", out.image));
    }
    let kept = rgba8(d.map(f64::from));
    for (name, image) in images {
        for (x, want, what) in [(1, want, "blended"), (6, kept, "outside the quad")] {
            let got = image.pixel(x, 3).expect("pixel");
            assert!(
                (0..4).all(|k| got[k].abs_diff(want[k]) <= 1),
                "{name}: {what}: {got:?}, want {want:?}"
            );
        }
    }
}

#[test]
fn colour_mask_keeps_masked_channels() {
    let mut b = builder("mask.rrc", 8);
    b.clear_surface(0xF0, 0x1122_3344, 0);
    b.set_color_mask(0x0100_0100); // A and G only
    quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 1.0, 1.0, 1.0]);
    let out = render(&b.finish());
    assert_eq!(out.image.pixel(5, 5), Some([0x22, 0xFF, 0x44, 0xFF]));
}

#[test]
fn depth_test_keeps_the_nearer_quad_in_either_order() {
    for near_first in [true, false] {
        let mut b = builder("depth.rrc", 8);
        b.clear_surface(0xF3, 0, 0xFFFF_FF00);
        b.set_depth(true, 0x201, true); // LESS
        let near = (0.25, [1.0, 0.0, 0.0, 1.0]);
        let far = (0.75, [0.0, 0.0, 1.0, 1.0]);
        let order = if near_first { [near, far] } else { [far, near] };
        // The second quad only covers the left half, so the right half shows the first one.
        quad(&mut b, 0x1_0000, FULL, order[0].0, order[0].1);
        quad(
            &mut b,
            0x2_0000,
            [0.0, 0.0, 4.0, 8.0],
            order[1].0,
            order[1].1,
        );
        let out = render(&b.finish());
        assert_eq!(out.image.pixel(1, 4), Some([255, 0, 0, 255]), "near wins");
        let right = if near_first {
            [255, 0, 0, 255]
        } else {
            [0, 0, 255, 255]
        };
        assert_eq!(out.image.pixel(6, 4), Some(right));
    }
}

#[test]
fn stencil_masks_a_second_draw() {
    let mut b = builder("stencil.rrc", 8);
    b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
    // Draw 1: left half, stencil ALWAYS / REPLACE with 5, colour writes off.
    b.method(reg::STENCIL_TEST_ENABLE, 1).unwrap();
    b.method(reg::STENCIL_MASK, 0xFF).unwrap();
    b.method(reg::STENCIL_FUNC, 0x207).unwrap();
    b.method(reg::STENCIL_FUNC_REF, 5).unwrap();
    b.method(reg::STENCIL_FUNC_MASK, 0xFF).unwrap();
    b.method(reg::STENCIL_OP_FAIL, 0x1E00).unwrap();
    b.method(reg::STENCIL_OP_ZFAIL, 0x1E00).unwrap();
    b.method(reg::STENCIL_OP_ZPASS, 0x1E01).unwrap();
    b.set_color_mask(0);
    quad(
        &mut b,
        0x1_0000,
        [0.0, 0.0, 4.0, 8.0],
        0.5,
        [1.0, 1.0, 1.0, 1.0],
    );
    // Draw 2: everything, stencil EQUAL 5, keep.
    b.set_color_mask(0x0101_0101);
    b.method(reg::STENCIL_FUNC, 0x202).unwrap();
    b.method(reg::STENCIL_OP_ZPASS, 0x1E00).unwrap();
    quad(&mut b, 0x2_0000, FULL, 0.5, [0.0, 1.0, 0.0, 1.0]);
    let out = render(&b.finish());
    assert_eq!(out.image.pixel(2, 2), Some([0, 255, 0, 255]));
    assert_eq!(out.image.pixel(5, 2), Some([0, 0, 0, 255]));
}

#[test]
fn pixel_history_lists_each_event_and_fragment_with_its_outcome() {
    use rsxtrace_replay::render::history::{pixel_history, FragmentOutcome, PixelEvent, Watched};
    // A clear (colour 0xFF000080, depth 1), then five full quads over pixel (3, 3): red at
    // z 0.5 (written), green at z 0.75 (fails LESS), alpha 0.25 under GREATER 0.5 (fails
    // the alpha test), yellow under stencil NEVER (fails the stencil test), blue at half
    // alpha z 0.25 blended SRC_ALPHA / ONE_MINUS_SRC_ALPHA.
    let mut b = builder("history.rrc", 8);
    b.clear_surface(0xF3, 0xFF00_0080, 0xFFFF_FF00);
    b.set_depth(true, 0x201, true); // LESS, writing
    quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 0.0, 0.0, 1.0]);
    quad(&mut b, 0x2_0000, FULL, 0.75, [0.0, 1.0, 0.0, 1.0]);
    b.method(reg::ALPHA_TEST_ENABLE, 1).unwrap();
    b.method(reg::ALPHA_FUNC, 0x204).unwrap(); // GREATER
    b.method(reg::ALPHA_REF, 0x80).unwrap();
    quad(&mut b, 0x3_0000, FULL, 0.25, [1.0, 1.0, 1.0, 0.25]);
    b.method(reg::ALPHA_TEST_ENABLE, 0).unwrap();
    b.method(reg::STENCIL_TEST_ENABLE, 1).unwrap();
    b.method(reg::STENCIL_FUNC, 0x200).unwrap(); // NEVER
    quad(&mut b, 0x4_0000, FULL, 0.25, [1.0, 1.0, 0.0, 1.0]);
    b.method(reg::STENCIL_TEST_ENABLE, 0).unwrap();
    b.set_blend(true, (0x302, 0x302), (0x303, 0x303), (0x8006, 0x8006));
    quad(&mut b, 0x5_0000, FULL, 0.25, [0.0, 0.0, 1.0, 0.5]);
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let h = pixel_history(
        &frame,
        &events,
        &RenderOptions::default(),
        Watched::Output,
        3,
        3,
    )
    .expect("history");
    let rendered = render(&capture);
    assert_eq!(h.last, rendered.image.pixel(3, 3), "the image's pixel");
    assert_eq!(h.addresses, vec![COLOR + 3 * 32 + 3 * 4]);
    // Source alpha a = the 8-bit rule's 0.5: red 1 − a, blue a, alpha a·a + 1 − a.
    let a = f64::from(rule8(0.5)) / 255.0;
    let blended = [1.0 - a, 0.0, a, a * a + 1.0 - a].map(|v| v as f32);
    match h.events.as_slice() {
        [PixelEvent::Clear {
            before_draw: 0,
            after: Some(cleared),
            ..
        }, PixelEvent::Fragment(red), PixelEvent::Fragment(green), PixelEvent::Fragment(alpha), PixelEvent::Fragment(stencil), PixelEvent::Fragment(blue)] =>
        {
            assert_eq!(*cleared, [0.0, 0.0, 128.0 / 255.0, 1.0]);
            assert_eq!((red.draw, red.outcome), (0, FragmentOutcome::Written));
            assert_eq!(red.before, Some(*cleared));
            assert_eq!(red.after, Some([1.0, 0.0, 0.0, 1.0]));
            assert_eq!((red.depth_before, red.depth), (Some(1.0), Some(0.5)));
            // The stored depth, 24-bit.
            assert!(red.depth_after.is_some_and(|z| (z - 0.5).abs() < 1e-6));
            assert_eq!((green.draw, green.outcome), (1, FragmentOutcome::DepthTest));
            assert_eq!(green.shader, [0.0, 1.0, 0.0, 1.0]);
            assert_eq!(green.after, red.after, "a failed fragment changes nothing");
            assert_eq!((alpha.draw, alpha.outcome), (2, FragmentOutcome::AlphaTest));
            assert_eq!(
                (stencil.draw, stencil.outcome),
                (3, FragmentOutcome::StencilTest)
            );
            assert_eq!(stencil.after, red.after);
            assert_eq!((blue.draw, blue.outcome), (4, FragmentOutcome::Written));
            let after = blue.after.expect("value");
            for k in 0..4 {
                assert!(
                    (after[k] - blended[k]).abs() <= 1.0 / 255.0,
                    "{after:?} vs {blended:?}"
                );
            }
            assert!(blue.sample == 0 && blue.output == Some(0));
            assert_eq!(blue.surface_pixel, (3, 3));
        }
        other => panic!("unexpected history: {other:#?}"),
    }
    // The tiled render records the same history.
    let tiled = RenderOptions {
        tiling: rsxtrace_replay::render::Tiling::Rows(2),
        ..RenderOptions::default()
    };
    let again = pixel_history(&frame, &events, &tiled, Watched::Output, 3, 3).expect("history");
    assert_eq!(again.events, h.events);
    // A pixel outside the output image is refused.
    assert!(pixel_history(
        &frame,
        &events,
        &RenderOptions::default(),
        Watched::Output,
        8,
        0
    )
    .is_err());
}

#[test]
fn a_depth_target_has_a_pixel_history_too() {
    use rsxtrace_replay::render::history::{pixel_history, FragmentOutcome, PixelEvent, Watched};
    // The zeta surface named as the target: the depth clear, a quad at z 0.5 written, one at
    // z 0.75 behind it; values (depth, stencil, 0, 0).
    let mut b = builder("history_depth.rrc", 8);
    b.clear_surface(0xF3, 0xFF00_0080, 0xFFFF_FF00);
    b.set_depth(true, 0x201, true); // LESS, writing
    quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 0.0, 0.0, 1.0]);
    quad(&mut b, 0x2_0000, FULL, 0.75, [0.0, 1.0, 0.0, 1.0]);
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let watched = Watched::Target(Location::Local, ZETA);
    let h =
        pixel_history(&frame, &events, &RenderOptions::default(), watched, 3, 3).expect("history");
    assert!(
        h.surface.depth && h.surface.format == "z24s8",
        "{:?}",
        h.surface
    );
    assert_eq!(h.addresses, vec![ZETA + 3 * 32 + 3 * 4]);
    match h.events.as_slice() {
        [PixelEvent::Clear {
            after: Some(cleared),
            ..
        }, PixelEvent::Fragment(near), PixelEvent::Fragment(far)] => {
            assert_eq!(*cleared, [1.0, 0.0, 0.0, 0.0]);
            assert_eq!(
                (near.draw, near.outcome, near.output),
                (0, FragmentOutcome::Written, None)
            );
            assert_eq!(near.depth_before, Some(1.0));
            assert!(near.depth_after.is_some_and(|z| (z - 0.5).abs() < 1e-6));
            assert_eq!(
                (near.before, near.after),
                (None, None),
                "no colour on a depth target"
            );
            assert_eq!((far.draw, far.outcome), (1, FragmentOutcome::DepthTest));
            assert_eq!(far.depth_after, near.depth_after);
        }
        other => panic!("unexpected history: {other:#?}"),
    }
    assert!(h.last.is_none());
    assert!(h
        .value
        .is_some_and(|v| (v[0] - 0.5).abs() < 1e-6 && v[1..] == [0.0; 3]));
}

#[test]
fn alpha_test_discards() {
    let mut b = builder("alpha.rrc", 8);
    b.clear_surface(0xF0, 0xFF00_0000, 0);
    b.method(reg::ALPHA_TEST_ENABLE, 1).unwrap();
    b.method(reg::ALPHA_FUNC, 0x204).unwrap(); // GREATER
    b.method(reg::ALPHA_REF, 0x80).unwrap();
    quad(
        &mut b,
        0x1_0000,
        [0.0, 0.0, 4.0, 8.0],
        0.5,
        [1.0, 0.0, 0.0, 0.25],
    );
    quad(
        &mut b,
        0x2_0000,
        [4.0, 0.0, 8.0, 8.0],
        0.5,
        [1.0, 0.0, 0.0, 0.75],
    );
    let out = render(&b.finish());
    assert_eq!(
        out.image.pixel(1, 1),
        Some([0, 0, 0, 255]),
        "0.25 > 0.5 fails"
    );
    assert_eq!(out.image.pixel(6, 1), Some([255, 0, 0, 191]));
}

#[test]
fn alpha_test_sees_the_8bit_alpha() {
    // GEQUAL 0x80 (128/255 = 0.50196): alpha 0.5015 is written as byte 128 by the 8-bit rule
    // (floor(0.5015 · 4096) = 2054, (2054 · 255 + 2048) >> 12 = 128), and the test sees that
    // byte, as RPCS3's ROP epilogue rounds before it tests; the float alone would fail.
    let mut b = builder("alpha8.rrc", 8);
    b.clear_surface(0xF0, 0xFF00_0000, 0);
    b.method(reg::ALPHA_TEST_ENABLE, 1).unwrap();
    b.method(reg::ALPHA_FUNC, 0x206).unwrap(); // GEQUAL
    b.method(reg::ALPHA_REF, 0x80).unwrap();
    quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 0.0, 0.0, 0.5015]);
    let out = render(&b.finish());
    assert_eq!(out.image.pixel(3, 3), Some([255, 0, 0, 128]));
}

#[test]
fn a_5_6_5_target_takes_the_8_bit_rule_first() {
    // RPCS3 sets its 8-bit framebuffer flag for every fixed-point format, so R = 0.112 is
    // first the byte 29 (floor(0.112 · 4096) = 458, (458 · 255 + 2048) >> 12 = 29), then
    // round(29 · 31 / 255) = 4 in the 5-bit channel (directly, round(0.112 · 31) = 3). The
    // image shows round(4 · 255 / 31) = 33. Both renderers (the GPU's 8-bit device target
    // makes the same two steps).
    let mut b = builder("r5g6b5_rule.rrc", 3); // R5G6B5
    b.clear_surface(0xF0, 0, 0);
    quad(&mut b, 0x1_0000, FULL, 0.5, [0.112, 0.0, 0.0, 1.0]);
    let capture = b.finish();
    for (name, image) in gpu_support::both_images("r5g6b5_rule", &capture, cpu_render_tiled) {
        assert_eq!(image.pixel(3, 3), Some([33, 0, 0, 255]), "{name}");
    }
}

#[test]
fn an_exported_depth_is_not_clipped_by_the_depth_range() {
    // MOV R0, f[COL0]; MOV R1, f[TEX0] with depth export: R1.z = 1.5 is the fragment's depth.
    // The depth range [0, 1] with the clip bit clips the interpolated z (0.5 here, kept), not
    // the exported one (RPCS3 clips primitives; its exported depth is only clamped): the
    // fragment is written, its depth saturating to 0xFFFFFF.
    let mut program = rsxtrace_program::fragment::decode(&FP_MOV_COL0).unwrap();
    let mut second = program.instructions[0];
    program.instructions[0].end = false;
    second.dest.index = 1;
    second.dest.fp16 = false;
    second.slot = 1;
    second.input = rsxtrace_program::fragment::InputAttribute(4);
    second.end = true;
    program.instructions.push(second);
    let ucode = rsxtrace_program::fragment::encode(&program);
    let mut b = builder("depth_export.rrc", 8);
    b.set_fragment_program(Location::Local, 0x1000, &ucode, 0x40 | 0x0E)
        .unwrap();
    b.clear_surface(0xF3, 0xFF00_0000, 0);
    b.set_depth(true, 0x207, true); // ALWAYS, written
    let vertices =
        corners(FULL).map(|(x, y)| [[x, y, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.5, 1.0]]);
    draw_vertices(&mut b, 0x1_0000, 8, &vertices);
    let out = render(&b.finish());
    assert_eq!(out.image.pixel(3, 3), Some([0, 255, 0, 255]), "written");
}

#[test]
fn without_clip_or_clamp_the_depth_is_clamped_to_the_range() {
    // ZMIN_MAX_CONTROL = 0 and the range [0, 0.5]: RPCS3 turns depth clamping on
    // (`enable_depth_clamp(clamp || !clip)`), so a red quad at z 0.8 stores 0.5, and a green
    // one at z 0.6 (clamped to 0.5 too) fails LESS against it. Unclamped, 0.6 < 0.8 would
    // pass and the pixel turn green.
    let mut b = builder("zminmax0.rrc", 8);
    b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
    b.method(0x1D78 >> 2, 0).unwrap(); // SET_ZMIN_MAX_CONTROL: no clip, no clamp
    b.method(0x0398 >> 2, 0.5f32.to_bits()).unwrap(); // SET_CLIP_MAX
    b.set_depth(true, 0x201, true); // LESS, written
    quad(&mut b, 0x1_0000, FULL, 0.8, [1.0, 0.0, 0.0, 1.0]);
    quad(&mut b, 0x2_0000, FULL, 0.6, [0.0, 1.0, 0.0, 1.0]);
    let out = render(&b.finish());
    assert_eq!(out.image.pixel(3, 3), Some([255, 0, 0, 255]));
}

#[test]
fn the_depth_range_clips_before_the_polygon_offset() {
    // ZMIN_MAX_CONTROL = 1 (clip, RPCS3's reset value), range [0, 1]: a red quad at window z
    // 1e-5 (about 168 Z24 units) with a fill offset of -1000 units lies inside the range, so
    // it is drawn, its depth 1e-5 - 1000 / 2^24 below 0 saturating to 0 (GL 4.6 14.6.5: the
    // offset is added to the fragments of the clipped primitive; RPCS3's host depth bias).
    // A green quad at 0.5 under LESS then fails against 0. Clipping the offset depth would
    // drop the red quad and let the green one pass.
    let mut b = builder("offset_clip.rrc", 8);
    b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
    b.method(0x1D78 >> 2, 1).unwrap(); // SET_ZMIN_MAX_CONTROL: clip
    b.method(reg::SET_POLY_OFFSET_FILL_ENABLE, 1).unwrap();
    b.method(reg::SET_POLYGON_OFFSET_BIAS, (-1000.0f32).to_bits())
        .unwrap();
    b.set_depth(true, 0x207, true); // ALWAYS, written
    quad(&mut b, 0x1_0000, FULL, 1e-5, [1.0, 0.0, 0.0, 1.0]);
    b.method(reg::SET_POLY_OFFSET_FILL_ENABLE, 0).unwrap();
    b.set_depth(true, 0x201, false); // LESS
    quad(&mut b, 0x2_0000, FULL, 0.5, [0.0, 1.0, 0.0, 1.0]);
    let capture = b.finish();
    for (name, image) in gpu_support::both_images("offset_clip", &capture, cpu_render_tiled) {
        assert_eq!(image.pixel(3, 3), Some([255, 0, 0, 255]), "{name}");
    }
}

#[test]
fn the_depth_range_clips_draws_that_do_not_test_depth() {
    // ZMIN_MAX_CONTROL = 1 (clip), range [0, 1], the depth test off: a red quad at window z
    // 1.25 lies outside the range and is clipped, with or without a depth surface (RPCS3 maps
    // the range to the host's clip volume in its vertex epilogue, `apply_zclip_xform`, for
    // every draw); a green one at 0.75 is drawn. Both renderers.
    for depth_surface in [true, false] {
        let mut b = builder("clip_nodepth.rrc", 8);
        if !depth_surface {
            // A zeta pitch of 64 or less binds no depth surface (RPCS3 `get_framebuffer_layout`).
            let mut s = surface(8, COLOR);
            s.zeta = target(ZETA, 64);
            b.set_surface(&s);
        }
        b.clear_surface(0xF0, 0xFF00_0000, 0);
        b.method(0x1D78 >> 2, 1).unwrap(); // SET_ZMIN_MAX_CONTROL: clip
        b.set_depth(false, 0x207, false);
        quad(
            &mut b,
            0x1_0000,
            [0.0, 0.0, 4.0, 8.0],
            1.25,
            [1.0, 0.0, 0.0, 1.0],
        );
        quad(
            &mut b,
            0x2_0000,
            [4.0, 0.0, 8.0, 8.0],
            0.75,
            [0.0, 1.0, 0.0, 1.0],
        );
        let capture = b.finish();
        for (name, image) in gpu_support::both_images("clip_nodepth", &capture, cpu_render_tiled) {
            let what = format!("{name}, depth surface {depth_surface}");
            assert_eq!(image.pixel(1, 1), Some([0, 0, 0, 255]), "clipped: {what}");
            assert_eq!(image.pixel(6, 1), Some([0, 255, 0, 255]), "drawn: {what}");
        }
    }
}

#[test]
fn a_unorm_depth_is_rounded_exactly_on_both_renderers() {
    // Depth cleared to round(z · (2^k − 1)) (the exact product, half away from zero), then a
    // quad at window z under EQUAL: it is drawn where the fragment's stored depth is the same
    // grid point. These z are ones where rounding the f32 product first lands one step high
    // (0.8374691 · 16777215 = 14050399.4..., rounded in f32 to 14050400), and 0.5, whose Z24
    // product is a tie (8388607.5, rounded up).
    let cases: [(u32, u32, f32); 6] = [
        (2, 16_777_215, f32::from_bits(0x3f56_6460)),
        (2, 16_777_215, f32::from_bits(0x3f7e_e294)),
        (2, 16_777_215, 0.5),
        (1, 65_535, f32::from_bits(0x3f5b_045b)),
        (1, 65_535, f32::from_bits(0x3ebf_03bf)),
        (1, 65_535, 0.5),
    ];
    for (depth_format, top, z) in cases {
        let n = (f64::from(z) * f64::from(top)).round() as u32;
        let mut b = builder("depth_round.rrc", 8);
        let mut s = surface(8, COLOR);
        s.depth_format = depth_format;
        if depth_format == 1 {
            s.zeta = target(ZETA, u32::from(W) * 2);
        }
        b.set_surface(&s);
        let clear = if depth_format == 2 { n << 8 } else { n };
        b.clear_surface(0xF3, 0xFF00_0000, clear);
        b.set_depth(true, 0x202, false); // EQUAL
        quad(&mut b, 0x1_0000, FULL, z, [0.0, 1.0, 0.0, 1.0]);
        let capture = b.finish();
        for (name, image) in gpu_support::both_images("depth_round", &capture, cpu_render_tiled) {
            let what = format!("{name}, depth format {depth_format}, z {z} = {n} / {top}");
            assert_eq!(image.pixel(3, 3), Some([0, 255, 0, 255]), "{what}");
        }
    }
}

#[test]
fn the_depth_bounds_test_reads_the_stored_depth() {
    // Depth cleared to 0.9 (Z24S8 value 0.9 · 0xFFFFFF); a first quad over the left half,
    // depth test ALWAYS and written, stores 0.3 there. Then, depth test off, a red quad at z
    // 0.5 under bounds [0.2, 0.5] is written where the stored depth is 0.3 (the left half)
    // and not where it is 0.9 (EXT_depth_bounds_test: the stored depth, not the fragment's).
    // Then the left half stores 0.95 and a green quad under bounds [0.8, 1] passes over the
    // whole target: each draw reads the depth the draws before it left, on both renderers
    // (the GPU copies the depth target before each such draw).
    let mut b = builder("depth_bounds.rrc", 8);
    let z = (0.9f64 * 16_777_215.0).round() as u32;
    b.clear_surface(0xF3, 0xFF00_0000, z << 8);
    let bounds = |b: &mut CaptureBuilder, on: bool, lo: f32, hi: f32| {
        b.method(0x0380 >> 2, u32::from(on)).unwrap(); // SET_DEPTH_BOUNDS_TEST_ENABLE
        b.method(0x0384 >> 2, lo.to_bits()).unwrap();
        b.method(0x0388 >> 2, hi.to_bits()).unwrap();
    };
    let left = [0.0, 0.0, 4.0, 8.0];
    b.set_depth(true, 0x207, true); // ALWAYS, written
    quad(&mut b, 0x1_0000, left, 0.3, [0.0, 0.0, 1.0, 1.0]);
    b.set_depth(false, 0x207, false);
    bounds(&mut b, true, 0.2, 0.5);
    quad(&mut b, 0x2_0000, FULL, 0.5, [1.0, 0.0, 0.0, 1.0]);
    let first = b.finish();
    let mut b = builder("depth_bounds_twice.rrc", 8);
    b.clear_surface(0xF3, 0xFF00_0000, z << 8);
    b.set_depth(true, 0x207, true);
    quad(&mut b, 0x1_0000, left, 0.3, [0.0, 0.0, 1.0, 1.0]);
    b.set_depth(false, 0x207, false);
    bounds(&mut b, true, 0.2, 0.5);
    quad(&mut b, 0x2_0000, FULL, 0.5, [1.0, 0.0, 0.0, 1.0]);
    bounds(&mut b, false, 0.2, 0.5);
    b.set_depth(true, 0x207, true);
    quad(&mut b, 0x3_0000, left, 0.95, [0.0, 0.0, 1.0, 1.0]);
    b.set_depth(false, 0x207, false);
    bounds(&mut b, true, 0.8, 1.0);
    quad(&mut b, 0x4_0000, FULL, 0.5, [0.0, 1.0, 0.0, 1.0]);
    let second = b.finish();
    let red = [255, 0, 0, 255];
    let blue = [0, 0, 255, 255];
    let black = [0, 0, 0, 255];
    let green = [0, 255, 0, 255];
    for (name, image) in gpu_support::both_images("depth_bounds", &first, cpu_render_tiled) {
        assert_eq!(
            image.pixel(1, 3),
            Some(red),
            "{name}: stored 0.3 in [0.2, 0.5]"
        );
        assert_eq!(image.pixel(6, 3), Some(black), "{name}: stored 0.9 outside");
        assert_ne!(image.pixel(1, 3), Some(blue), "{name}");
    }
    for (name, image) in gpu_support::both_images("depth_bounds_twice", &second, cpu_render_tiled) {
        assert_eq!(
            image.pixel(1, 3),
            Some(green),
            "{name}: stored 0.95 in [0.8, 1]"
        );
        assert_eq!(
            image.pixel(6, 3),
            Some(green),
            "{name}: stored 0.9 in [0.8, 1]"
        );
    }
}

#[test]
fn a_logic_operation_replaces_blending() {
    // Cleared to ARGB 0xFF00FF00 (RGBA bytes 0, 255, 0, 255), blending ONE/ONE on as well;
    // a quad of colour (0.2, 0.4, 0.6, 0.8), bytes 51, 102, 153, 204 after the 8-bit rule,
    // under each GL logic operation, applied to the stored bytes (GL 4.6 17.3.9) on both
    // renderers, not the saturated sum. XOR twice gives the cleared bytes back: each draw
    // reads what the one before it wrote (the GPU copies the target before each).
    let (s, d) = ([51u8, 102, 153, 204], [0u8, 255, 0, 255]);
    let each = |f: fn(u8, u8) -> u8| -> [u8; 4] { std::array::from_fn(|k| f(s[k], d[k])) };
    let cases: [(u32, [u8; 4]); 7] = [
        (0x1500, [0; 4]),                // CLEAR
        (0x1501, each(|s, d| s & d)),    // AND
        (0x1506, each(|s, d| s ^ d)),    // XOR
        (0x1507, each(|s, d| s | d)),    // OR
        (0x150C, each(|s, _| !s)),       // COPY_INVERTED
        (0x150E, each(|s, d| !(s & d))), // NAND
        (0x150F, [255; 4]),              // SET
    ];
    for (op, want) in cases {
        let mut b = builder("logic_op.rrc", 8);
        b.clear_surface(0xF0, 0xFF00_FF00, 0);
        b.method(0x0374 >> 2, 1).unwrap(); // SET_LOGIC_OP_ENABLE
        b.method(0x0378 >> 2, op).unwrap();
        b.method(0x0310 >> 2, 1).unwrap(); // SET_BLEND_ENABLE (reset factors ONE, ONE)
        quad(&mut b, 0x1_0000, FULL, 0.5, [0.2, 0.4, 0.6, 0.8]);
        let capture = b.finish();
        for (name, image) in gpu_support::both_images("logic_op", &capture, cpu_render_tiled) {
            assert_eq!(image.pixel(3, 3), Some(want), "{name}: op 0x{op:04X}");
        }
    }
    let mut b = builder("logic_op_twice.rrc", 8);
    b.clear_surface(0xF0, 0xFF00_FF00, 0);
    b.method(0x0374 >> 2, 1).unwrap();
    b.method(0x0378 >> 2, 0x1506).unwrap();
    quad(&mut b, 0x1_0000, FULL, 0.5, [0.2, 0.4, 0.6, 0.8]);
    quad(&mut b, 0x2_0000, FULL, 0.5, [0.2, 0.4, 0.6, 0.8]);
    let capture = b.finish();
    for (name, image) in gpu_support::both_images("logic_op_twice", &capture, cpu_render_tiled) {
        assert_eq!(image.pixel(3, 3), Some(d), "{name}: XOR twice");
    }
    // A float target (F_W16Z16Y16X16, 11) with a logic operation and blending ONE/ONE: the
    // operation turns blending off and the float target ignores the operation, so the second
    // quad's 0.25 is written as it is, not added to the first's (RPCS3: "LogicOp takes
    // precedence", never enabling blending; the host ignores it on float targets).
    let mut b = builder("logic_op_f16.rrc", 11);
    quad(&mut b, 0x1_0000, FULL, 0.5, [0.25; 4]);
    b.method(0x0374 >> 2, 1).unwrap();
    b.method(0x0378 >> 2, 0x150C).unwrap(); // COPY_INVERTED
    b.method(0x0310 >> 2, 1).unwrap(); // SET_BLEND_ENABLE (ONE, ONE)
    quad(&mut b, 0x2_0000, FULL, 0.5, [0.25; 4]);
    let capture = b.finish();
    for (name, image) in gpu_support::both_images("logic_op_f16", &capture, cpu_render_tiled) {
        assert_eq!(image.pixel(3, 3), Some([64; 4]), "{name}: float target");
    }
    // On a 5- or 6-bit surface the operation works on the stored bits (each field of the
    // packed word), on both renderers (the GPU's 8-bit device value rounds to them). The clear
    // stores the clear word's low half, 0xFF00 (R 31, G 56, B 0; RPCS3 copies the raw word to
    // a 16-bit surface); XOR white gives 0x00FF: R 0, G 7 (7 · 255 / 63 = 28), B 31.
    let mut b = builder("logic_op_565.rrc", 3); // R5G6B5
    b.clear_surface(0xF0, 0xFF00_FF00, 0);
    b.method(0x0374 >> 2, 1).unwrap();
    b.method(0x0378 >> 2, 0x1506).unwrap();
    quad(&mut b, 0x1_0000, FULL, 0.5, [1.0; 4]);
    let capture = b.finish();
    for (name, image) in gpu_support::both_images("logic_op_565", &capture, cpu_render_tiled) {
        assert_eq!(
            image.pixel(3, 3),
            Some([0, 28, 255, 255]),
            "{name}: XOR on 5-6-5"
        );
    }
}

#[test]
fn alpha_test_is_off_on_fp32_targets() {
    // W32Z32Y32X32 (12): the alpha test stays off whatever ALPHA_TEST_ENABLE says (RPCS3
    // `alpha_test_enabled`), so alpha 0.25 passes GREATER 0.5.
    let mut b = builder("alpha_fp32.rrc", 12);
    b.method(reg::ALPHA_TEST_ENABLE, 1).unwrap();
    b.method(reg::ALPHA_FUNC, 0x204).unwrap(); // GREATER
    b.method(reg::ALPHA_REF, 0.5f32.to_bits()).unwrap();
    quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 0.0, 0.0, 0.25]);
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).unwrap();
    let state = rsxtrace_replay::render::state::DrawState::from_draw(&frame.draws[0]).unwrap();
    assert!(state.alpha_test.is_none());
    let out = render(&capture);
    assert_eq!(out.image.pixel(1, 1).map(|p| p[0]), Some(255), "written");
}

#[test]
fn culling_by_winding_and_front_face() {
    // The quad helper's vertices run TL, TR, BR, BL: clockwise on the image.
    for (cull_face, front_face, drawn) in [
        (0x405, 0x901, false), // cull back, front CCW: the CW quad is a back face
        (0x404, 0x901, true),  // cull front
        (0x405, 0x900, true),  // front CW: the quad is front facing
        (0x408, 0x900, false), // cull both
    ] {
        let mut b = builder("cull.rrc", 8);
        b.clear_surface(0xF0, 0xFF00_0000, 0);
        b.set_cull(true, cull_face, front_face);
        quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 1.0, 0.0, 1.0]);
        let out = render(&b.finish());
        let expect = if drawn {
            [255, 255, 0, 255]
        } else {
            [0, 0, 0, 255]
        };
        assert_eq!(
            out.image.pixel(4, 4),
            Some(expect),
            "cull {cull_face:#x} front {front_face:#x}"
        );
    }
}

#[test]
fn scissor_limits_the_draw() {
    let mut b = builder("scissor.rrc", 8);
    b.clear_surface(0xF0, 0xFF00_0000, 0);
    b.set_scissor(2, 3, 3, 2);
    quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 1.0, 1.0, 1.0]);
    let out = render(&b.finish());
    for y in 0..8 {
        for x in 0..8 {
            let inside = (2..5).contains(&x) && (3..5).contains(&y);
            let expect = if inside { [255; 4] } else { [0, 0, 0, 255] };
            assert_eq!(out.image.pixel(x, y), Some(expect), "{x},{y}");
        }
    }
}

#[test]
fn a_draw_with_invalid_state_is_skipped_naming_the_register() {
    // 0x1234 lies in the range of values RPCS3's handler lets through (`to_blend_factor`
    // checks SRC_COLOR..ONE_MINUS_CONSTANT_ALPHA) but names no factor.
    let mut b = builder("bad_state.rrc", 8);
    b.set_blend(true, (0x1234, 1), (0, 0), (0x8006, 0x8006));
    quad(&mut b, 0x1_0000, FULL, 0.5, [1.0; 4]);
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let out = render_frame(&frame, &events, &RenderOptions::default()).unwrap();
    assert_eq!(out.draws_rendered, 0);
    assert_eq!(out.skipped.len(), 1);
    assert_eq!(out.skipped[0].0, 0);
    assert!(
        out.skipped[0]
            .1
            .contains("NV4097_SET_BLEND_FUNC_SFACTOR (rgb) = 0x1234"),
        "{}",
        out.skipped[0].1
    );
}

#[test]
fn per_draw_snapshots_and_draw_ranges() {
    let mut b = builder("snapshots.rrc", 8);
    b.clear_surface(0xF0, 0xFF00_0000, 0);
    quad(
        &mut b,
        0x1_0000,
        [0.0, 0.0, 4.0, 8.0],
        0.5,
        [1.0, 0.0, 0.0, 1.0],
    );
    quad(
        &mut b,
        0x2_0000,
        [4.0, 0.0, 8.0, 8.0],
        0.5,
        [0.0, 0.0, 1.0, 1.0],
    );
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = RenderOptions {
        draws: None,
        per_draw: true,
        ..Default::default()
    };
    let out = render_frame(&frame, &events, &options).unwrap();
    assert_eq!(out.per_draw.len(), 2);
    assert_eq!(out.per_draw[0].image.pixel(6, 1), Some([0, 0, 0, 255]));
    assert_eq!(out.per_draw[1].image.pixel(6, 1), Some([0, 0, 255, 255]));
    // Only draw 1: draw 0 is skipped, the clear before it still applies.
    let only = RenderOptions {
        draws: Some(1..2),
        per_draw: false,
        ..Default::default()
    };
    let out = render_frame(&frame, &events, &only).unwrap();
    assert_eq!(out.draws_rendered, 1);
    assert_eq!(out.image.pixel(1, 1), Some([0, 0, 0, 255]));
    assert_eq!(out.image.pixel(6, 1), Some([0, 0, 255, 255]));
    let none = RenderOptions {
        draws: Some(5..9),
        per_draw: false,
        ..Default::default()
    };
    assert!(render_frame(&frame, &events, &none).is_err());
}

#[test]
fn triangle_interpolates_colour() {
    // A triangle (0,0) (8,0) (0,8) with red, green, blue corners: pixel (1, 2) has
    // barycentrics b1 = 1.5/8, b2 = 2.5/8, b0 = 4/8 (w = 1 everywhere).
    let mut b = builder("tri.rrc", 8);
    b.clear_surface(0xF0, 0, 0);
    let vs = [
        ([0.0f32, 0.0], [1.0f32, 0.0, 0.0, 1.0]),
        ([8.0, 0.0], [0.0, 1.0, 0.0, 1.0]),
        ([0.0, 8.0], [0.0, 0.0, 1.0, 1.0]),
    ];
    let mut bytes = Vec::new();
    for (p, c) in vs {
        for v in [p[0], p[1], 0.5, 1.0].into_iter().chain(c).chain([0.0; 4]) {
            bytes.extend(v.to_be_bytes());
        }
    }
    b.put_memory(Location::Main, 0x1_0000, &bytes).unwrap();
    b.set_vertex_array(0, 2, 4, 48, 0, Location::Main, 0x1_0000)
        .unwrap();
    b.set_vertex_array(3, 2, 4, 48, 0, Location::Main, 0x1_0010)
        .unwrap();
    b.set_vertex_array(8, 2, 4, 48, 0, Location::Main, 0x1_0020)
        .unwrap();
    b.set_vertex_attrib_input_mask(0b1_0000_1001);
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    let out = render(&b.finish());
    let expect = out8([4.0 / 8.0, 1.5 / 8.0, 2.5 / 8.0, 1.0]);
    assert_eq!(out.image.pixel(1, 2), Some(expect));
    // (7, 7) is outside the triangle.
    assert_eq!(out.image.pixel(7, 7), Some([0, 0, 0, 0]));
}

#[test]
fn every_colour_format_round_trips() {
    // Values exactly representable in every format's precision for the channels it stores.
    let v = [1.0f32, 0.0, 1.0, 1.0];
    for f in ColorFormat::ALL {
        let bytes = encode_px(f, v);
        assert_eq!(bytes.as_bytes().len(), bytes_per_pixel(f) as usize, "{f:?}");
        let back = decode_px(f, bytes.as_bytes()).unwrap();
        let stored: &[usize] = match f {
            ColorFormat::B8 => &[2],
            ColorFormat::G8B8 => &[1, 2],
            ColorFormat::FloatX32 => &[0],
            ColorFormat::A8R8G8B8
            | ColorFormat::A8B8G8R8
            | ColorFormat::FloatW16Z16Y16X16
            | ColorFormat::FloatW32Z32Y32X32 => &[0, 1, 2, 3],
            _ => &[0, 1, 2],
        };
        for &k in stored {
            assert_eq!(back[k], v[k], "{f:?} channel {k}");
        }
        assert!(
            decode_px(f, &bytes.as_bytes()[1..]).is_none(),
            "{f:?} short"
        );
    }
    // Byte order, by hand.
    let c = [
        0x11 as f32 / 255.0,
        0x22 as f32 / 255.0,
        0x33 as f32 / 255.0,
        0x44 as f32 / 255.0,
    ];
    assert_eq!(
        encode_px(ColorFormat::A8R8G8B8, c).as_bytes(),
        [0x44, 0x11, 0x22, 0x33]
    );
    assert_eq!(
        encode_px(ColorFormat::A8B8G8R8, c).as_bytes(),
        [0x44, 0x33, 0x22, 0x11]
    );
    assert_eq!(
        encode_px(ColorFormat::X8R8G8B8O8R8G8B8, c).as_bytes(),
        [0xFF, 0x11, 0x22, 0x33]
    );
    assert_eq!(
        encode_px(ColorFormat::X8B8G8R8Z8B8G8R8, c).as_bytes(),
        [0x00, 0x33, 0x22, 0x11]
    );
    assert_eq!(encode_px(ColorFormat::G8B8, c).as_bytes(), [0x22, 0x33]);
    assert_eq!(encode_px(ColorFormat::B8, c).as_bytes(), [0x33]);
    // R5G6B5: r = 31, g = 0, b = 31 → 0xF81F, big-endian.
    assert_eq!(encode_px(ColorFormat::R5G6B5, v).as_bytes(), [0xF8, 0x1F]);
    // X1R5G5B5: O variant sets bit 15: 0x8000 | 31 << 10 | 31 = 0xFC1F.
    assert_eq!(
        encode_px(ColorFormat::X1R5G5B5O1R5G5B5, v).as_bytes(),
        [0xFC, 0x1F]
    );
    assert_eq!(
        encode_px(ColorFormat::X1R5G5B5Z1R5G5B5, v).as_bytes(),
        [0x7C, 0x1F]
    );
    // fp16 1.0 = 0x3C00; fp32 1.0 = 0x3F800000.
    assert_eq!(
        encode_px(ColorFormat::FloatW16Z16Y16X16, v).as_bytes(),
        [0x3C, 0, 0, 0, 0x3C, 0, 0x3C, 0]
    );
    assert_eq!(
        encode_px(ColorFormat::FloatX32, v).as_bytes(),
        [0x3F, 0x80, 0, 0]
    );
}

#[test]
fn each_colour_format_renders_and_reads_back() {
    // A quad of (1, 0, 1, 1) on a cleared surface of every format; the output image reads the
    // stored channels back.
    for f in ColorFormat::ALL {
        let raw = match f {
            ColorFormat::X1R5G5B5Z1R5G5B5 => 1,
            ColorFormat::X1R5G5B5O1R5G5B5 => 2,
            ColorFormat::R5G6B5 => 3,
            ColorFormat::X8R8G8B8Z8R8G8B8 => 4,
            ColorFormat::X8R8G8B8O8R8G8B8 => 5,
            ColorFormat::A8R8G8B8 => 8,
            ColorFormat::B8 => 9,
            ColorFormat::G8B8 => 10,
            ColorFormat::FloatW16Z16Y16X16 => 11,
            ColorFormat::FloatW32Z32Y32X32 => 12,
            ColorFormat::FloatX32 => 13,
            ColorFormat::X8B8G8R8Z8B8G8R8 => 14,
            ColorFormat::X8B8G8R8O8B8G8R8 => 15,
            ColorFormat::A8B8G8R8 => 16,
        };
        assert_eq!(ColorFormat::from_raw(raw), Some(f));
        let mut b = builder("formats.rrc", raw);
        quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 0.0, 1.0, 1.0]);
        let out = render(&b.finish());
        let expect = decode_px(f, encode_px(f, [1.0, 0.0, 1.0, 1.0]).as_bytes())
            .unwrap()
            .map(|c| u8c(f64::from(c)));
        assert_eq!(out.image.pixel(4, 4), Some(expect), "{f:?}");
        assert_ne!(expect, [0, 0, 0, 0], "{f:?}");
    }
}

/// Draws 0 and 1 render into TEXTURE_TARGET (columns 0..4 red, 4..8 green); draw 2 renders
/// to COLOR with TEXTURE_TARGET as texture 0 (nearest), coordinates = the pixel position / 8,
/// so each pixel reads the texel under it; `border`: the texture stores border texels.
fn render_to_texture_capture(border: bool) -> Capture {
    let mut b = builder("rtt.rrc", 8);
    b.set_surface(&surface(8, TEXTURE_TARGET));
    b.clear_surface(0xF0, 0xFF00_00FF, 0);
    quad(
        &mut b,
        0x1_0000,
        [0.0, 0.0, 4.0, 8.0],
        0.5,
        [1.0, 0.0, 0.0, 1.0],
    );
    quad(
        &mut b,
        0x2_0000,
        [4.0, 0.0, 8.0, 8.0],
        0.5,
        [0.0, 1.0, 0.0, 1.0],
    );
    b.set_surface(&surface(8, COLOR));
    b.put_memory(Location::Local, TEXTURE_TARGET, &[0u8; 512])
        .unwrap();
    let texture = TextureDesc {
        offset: TEXTURE_TARGET,
        location: Location::Local,
        width: 8,
        height: 8,
        pitch: 32,
        filter: 0x0101_0000, // nearest min and mag
        byte_size: 512,
        // FORMAT bit 3 (border type): 0 = border texels stored (rrc-format.md 4.7).
        border_texels: border,
        ..TextureDesc::default()
    };
    b.set_texture(0, &texture).unwrap();
    b.set_fragment_program(Location::Local, 0x2000, &tex_program(), 0x40)
        .unwrap();
    quad(&mut b, 0x3_0000, FULL, 0.5, [0.0, 0.0, 0.0, 1.0]);
    b.finish()
}

#[test]
fn a_draw_samples_what_an_earlier_draw_rendered() {
    // Without border texels texel (x, y) is surface pixel (x, y); with them (FORMAT bit 3 = 0,
    // one texel each side for linear textures) texel (x, y) is surface pixel (x + 1, y + 1),
    // and the texture read reaches one row and column past the rendered surface.
    for border in [false, true] {
        let out = render(&render_to_texture_capture(border));
        assert_eq!(
            out.source,
            OutputSource::LastColorTarget {
                address: COLOR,
                format: "a8r8g8b8".into()
            }
        );
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let red = [255, 0, 0, 255];
        let green = [0, 255, 0, 255];
        assert_eq!(out.image.pixel(1, 3), Some(red), "border {border}");
        // Texel 3 is surface pixel 3 (red) or 4 (green).
        let third = if border { green } else { red };
        assert_eq!(out.image.pixel(3, 3), Some(third), "border {border}");
        assert_eq!(out.image.pixel(5, 3), Some(green), "border {border}");
        // Texel (7, 3) with a border lies at byte (3 + 1) × 32 + (7 + 1) × 4: the pitch has no
        // padding, so that is pixel (0, 5) of the surface, red.
        let last = if border { red } else { green };
        assert_eq!(out.image.pixel(7, 3), Some(last), "border {border}");
    }
}

/// `render::target::frame_targets`: the render-to-texture capture's two colour targets, in
/// the order the frame first renders into them, with their draws, the output, and the draw
/// that samples the first one.
#[test]
fn the_frames_targets_are_listed_with_who_renders_and_who_samples_them() {
    let capture = render_to_texture_capture(false);
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let output = output_surface(&frame, &events).map(|o| o.layout);
    let targets = frame_targets(&frame, output.as_ref());
    let listed: Vec<String> = targets
        .iter()
        .map(|t| {
            format!(
                "0x{:x} depth {} draws {} ({}..={}) output {} sampled by {} from {:?}",
                t.address,
                t.depth,
                t.draws,
                t.first_draw,
                t.last_draw,
                t.output,
                t.sampled_by,
                t.first_sampled_by
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            format!("0x{TEXTURE_TARGET:x} depth false draws 2 (0..=1) output false sampled by 1 from Some(2)"),
            format!("0x{COLOR:x} depth false draws 1 (2..=2) output true sampled by 0 from None"),
        ]
    );
    assert_eq!(
        (targets[0].width, targets[0].height, targets[0].format),
        (8, 8, "a8r8g8b8")
    );
}

/// Texture cache (issue 14): the same texture state sampled before and after a clear rewrote
/// its bytes must read the new texels. Draw 0 samples TEXTURE_TARGET (cleared blue) into the
/// left half of COLOR; TEXTURE_TARGET is then cleared red; draw 1 samples it, with the same
/// state, into the right half. A cache keyed on the state alone would paint both halves blue.
#[test]
fn the_texture_cache_reads_a_texture_rewritten_between_two_draws() {
    let mut b = builder("cache.rrc", 8);
    b.put_memory(Location::Local, TEXTURE_TARGET, &[0u8; 512])
        .unwrap();
    b.set_surface(&surface(8, TEXTURE_TARGET));
    b.clear_surface(0xF0, 0xFF00_00FF, 0);
    b.set_surface(&surface(8, COLOR));
    let texture = TextureDesc {
        offset: TEXTURE_TARGET,
        location: Location::Local,
        width: 8,
        height: 8,
        pitch: 32,
        filter: 0x0101_0000, // nearest min and mag
        byte_size: 512,
        border_texels: false,
        ..TextureDesc::default()
    };
    b.set_texture(0, &texture).unwrap();
    b.set_fragment_program(Location::Local, 0x2000, &tex_program(), 0x40)
        .unwrap();
    quad(&mut b, 0x3_0000, [0.0, 0.0, 4.0, 8.0], 0.5, [0.0; 4]);
    b.set_surface(&surface(8, TEXTURE_TARGET));
    b.clear_surface(0xF0, 0xFFFF_0000, 0);
    b.set_surface(&surface(8, COLOR));
    quad(&mut b, 0x4_0000, [4.0, 0.0, 8.0, 8.0], 0.5, [0.0; 4]);
    let capture = b.finish();
    let out = render(&capture);
    assert_eq!(out.image.pixel(1, 3), Some([0, 0, 255, 255]));
    assert_eq!(out.image.pixel(6, 3), Some([255, 0, 0, 255]));
    // Two different contents: two decodes, no stale hit.
    assert_eq!(out.texture_cache.misses, 2, "{:?}", out.texture_cache);
    // And exactly what decoding per draw gives.
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let uncached = render_frame(
        &frame,
        &events,
        &RenderOptions {
            no_texture_cache: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(uncached.image, out.image);
    assert_eq!(uncached.texture_cache.misses, 0);
}

#[test]
fn unknown_constants_are_warned() {
    // DP4-free program reading c[40]: MOV o[COL0], c[40] then the usual outputs.
    let mut b = builder("const.rrc", 8);
    let mut words = vec![];
    let constant = source(3, SWIZZLE_XYZW);
    words.extend(
        VecInstruction {
            opcode: VEC_MOV,
            input: 0,
            constant: 40,
            sources: [constant, constant, constant],
            output: 1,
            mask: MASK_X | MASK_Y | MASK_Z | MASK_W,
            end: false,
        }
        .encode(),
    );
    let input = source(REG_INPUT, SWIZZLE_XYZW);
    words.extend(
        VecInstruction {
            opcode: VEC_MOV,
            input: 0,
            constant: 0,
            sources: [input, input, input],
            output: 0,
            mask: MASK_X | MASK_Y | MASK_Z | MASK_W,
            end: true,
        }
        .encode(),
    );
    b.set_vertex_program(&words, 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 1.0, 1.0, 1.0]);
    let out = render(&b.finish());
    assert_eq!(
        out.image.pixel(2, 2),
        Some([0, 0, 0, 0]),
        "c[40] reads as 0"
    );
    assert!(
        out.warnings
            .iter()
            .any(|w| w.draw == Some(0) && w.message.contains("c[40]")),
        "{:?}",
        out.warnings
    );
}

#[test]
fn the_sample_trace_renders() {
    let path = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    let mut capture = read_file(&path).expect("read the sample capture");
    // The builder's initial register file is all zeros, where RPCS3's holds its reset state
    // (`rsx_state::init`: every colour channel written); the sample never sets the mask.
    capture.reg_state.registers[0x0324 / 4] = 0x0101_0101;
    let frame = Frame::from_capture(&capture).expect("frame model");
    let events = FrameEvents::from_capture(&capture, &frame);
    let started = std::time::Instant::now();
    let out = render_frame(&frame, &events, &RenderOptions::default()).expect("render");
    let took = started.elapsed();
    out.image.write_png("/tmp/basic_cpu.png").unwrap();
    eprintln!("{:?}", out.warnings);
    eprintln!(
        "sample: {} draws rendered, skipped {:?}, {} warnings, {:?} in {took:?}",
        out.draws_rendered,
        out.skipped,
        out.warnings.len(),
        out.source
    );
    assert_eq!(out.draws_rendered, frame.draws.len());
    // Something was drawn: not every pixel is the same.
    let first = out.image.pixel(0, 0);
    let differs = (0..out.image.height)
        .flat_map(|y| (0..out.image.width).map(move |x| (x, y)))
        .any(|(x, y)| out.image.pixel(x, y) != first);
    assert!(differs, "the sample frame rendered a flat image");
}

/// Texture unit 0 over `offset` (2D, nearest, no border texels), `format` with the linear
/// flag, `w` × `h` texels of `pitch` bytes.
fn bind_texture(b: &mut CaptureBuilder, offset: u32, format: u8, w: u16, h: u16, pitch: u32) {
    let texture = TextureDesc {
        offset,
        location: Location::Local,
        format: format | 0x20,
        width: w,
        height: h,
        pitch,
        filter: 0x0101_0000, // nearest min and mag
        byte_size: pitch * u32::from(h),
        ..TextureDesc::default()
    };
    b.set_texture(0, &texture).unwrap();
    b.set_fragment_program(Location::Local, 0x2000, &tex_program(), 0x40)
        .unwrap();
}

#[test]
fn depth_is_read_back_as_colour() {
    // Draw 0 writes depth 0.25 (Z24: round(0.25 × (2^24 − 1)) = 0x400000) and stencil 0x5A
    // into ZETA; draw 1 samples ZETA as an A8R8G8B8 texture: bytes 0x40 0x00 0x00 0x5A are
    // A, R, G, B.
    let mut b = builder("depth_as_colour.rrc", 8);
    b.clear_surface(0xF3, 0, 0xFFFF_FF00);
    b.set_depth(true, 0x207, true); // ALWAYS, write
    b.method(reg::STENCIL_TEST_ENABLE, 1).unwrap();
    b.method(reg::STENCIL_MASK, 0xFF).unwrap();
    b.method(reg::STENCIL_FUNC, 0x207).unwrap();
    b.method(reg::STENCIL_FUNC_REF, 0x5A).unwrap();
    b.method(reg::STENCIL_FUNC_MASK, 0xFF).unwrap();
    b.method(reg::STENCIL_OP_ZPASS, 0x1E01).unwrap(); // REPLACE
    quad(&mut b, 0x1_0000, FULL, 0.25, [1.0, 1.0, 1.0, 1.0]);
    b.set_depth(false, 0x207, false);
    b.method(reg::STENCIL_TEST_ENABLE, 0).unwrap();
    b.put_memory(Location::Local, ZETA, &[0u8; 256]).unwrap();
    bind_texture(&mut b, ZETA, 0x85, 8, 8, 32);
    quad(&mut b, 0x2_0000, FULL, 0.5, [0.0; 4]);
    let out = render(&b.finish());
    assert_eq!(out.image.pixel(3, 5), Some([0x00, 0x00, 0x5A, 0x40]));
}

#[test]
fn textures_in_several_formats_are_sampled() {
    // 2×2 textures; pixel (1, 1) reads texel (0, 0), (6, 1) texel (1, 0), (1, 6) texel (0, 1),
    // (6, 6) texel (1, 1). Expected colours from the texel bits, by hand.
    // 5- and 6-bit channels read at 8-bit precision: ⌊v·255 / (2^bits − 1)⌋ / 255.
    let c5 = |v: u16| f64::from(u32::from(v) * 255 / 31) / 255.0;
    let c6 = |v: u16| f64::from(u32::from(v) * 255 / 63) / 255.0;
    let c4 = |v: u16| f64::from(v) / 15.0;
    let c8 = |v: u8| f64::from(v) / 255.0;
    // (format, bytes per texel, texels big-endian, expected RGBA per texel)
    type Case = (u8, u32, Vec<u8>, [[f64; 4]; 4]);
    let argb8: [[u8; 4]; 4] = [
        [0xFF, 0x10, 0x20, 0x30],
        [0x80, 0xFF, 0x00, 0x00],
        [0x40, 0x00, 0xFF, 0x00],
        [0x00, 0x00, 0x00, 0xFF],
    ];
    let r5g6b5: [u16; 4] = [0xF800, 0x07E0, 0x001F, 0x8410];
    let a4r4g4b4: [u16; 4] = [0xF123, 0x8F00, 0x40F0, 0x000F];
    let cases: Vec<Case> = vec![
        (
            0x85, // A8R8G8B8
            4,
            argb8.iter().flatten().copied().collect(),
            argb8.map(|[a, r, g, b]| [c8(r), c8(g), c8(b), c8(a)]),
        ),
        (
            0x84, // R5G6B5
            2,
            r5g6b5.iter().flat_map(|v| v.to_be_bytes()).collect(),
            r5g6b5.map(|v| [c5(v >> 11), c6((v >> 5) & 63), c5(v & 31), 1.0]),
        ),
        (
            0x83, // A4R4G4B4
            2,
            a4r4g4b4.iter().flat_map(|v| v.to_be_bytes()).collect(),
            a4r4g4b4.map(|v| {
                [
                    c4((v >> 8) & 15),
                    c4((v >> 4) & 15),
                    c4(v & 15),
                    c4(v >> 12),
                ]
            }),
        ),
    ];
    for (format, bpp, texels, expect) in cases {
        let mut b = builder("texture_formats.rrc", 8);
        b.put_memory(Location::Local, 0x0050_0000, &texels).unwrap();
        bind_texture(&mut b, 0x0050_0000, format, 2, 2, 2 * bpp);
        quad(&mut b, 0x1_0000, FULL, 0.5, [0.0; 4]);
        let out = render(&b.finish());
        for (k, (x, y)) in [(1, 1), (6, 1), (1, 6), (6, 6)].into_iter().enumerate() {
            assert_eq!(
                out.image.pixel(x, y),
                Some(out8(expect[k])),
                "format {format:#x} texel {k}"
            );
        }
    }
}

/// `n` full-surface quads (8×8, 2×2-pixel quads), quad k red (k mod 256) / 255 with no depth
/// test or blending, each fragment incrementing the stencil (INCR_WRAP); then a draw that
/// reads the stencil back through ZETA as an A8R8G8B8 texture (B = stencil, A R G = depth
/// 0xFFFFFF) on the left half. Returns pixels (6, 1) (the last quad's red) and (1, 1) (the
/// stencil: fragments per pixel mod 256).
fn overdraw(n: u32) -> ([u8; 4], [u8; 4]) {
    let mut b = builder("overdraw.rrc", 8);
    b.clear_surface(0xF3, 0, 0xFFFF_FF00);
    b.method(reg::STENCIL_TEST_ENABLE, 1).unwrap();
    b.method(reg::STENCIL_MASK, 0xFF).unwrap();
    b.method(reg::STENCIL_FUNC, 0x207).unwrap();
    b.method(reg::STENCIL_FUNC_MASK, 0xFF).unwrap();
    b.method(reg::STENCIL_OP_ZPASS, 0x8507).unwrap(); // INCR_WRAP
    let mut bytes = Vec::new();
    for k in 0..n {
        let red = (k % 256) as f32 / 255.0;
        for (x, y) in [(0.0f32, 0.0f32), (8.0, 0.0), (8.0, 8.0), (0.0, 8.0)] {
            for v in [x, y, 0.5, 1.0, red, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0] {
                bytes.extend(v.to_be_bytes());
            }
        }
    }
    const AT: u32 = 0x10_0000;
    b.put_memory(Location::Main, AT, &bytes).unwrap();
    b.set_vertex_array(0, 2, 4, 48, 0, Location::Main, AT)
        .unwrap();
    b.set_vertex_array(3, 2, 4, 48, 0, Location::Main, AT + 0x10)
        .unwrap();
    b.set_vertex_array(8, 2, 4, 48, 0, Location::Main, AT + 0x20)
        .unwrap();
    b.set_vertex_attrib_input_mask(0b1_0000_1001);
    // DRAW_ARRAYS ranges hold at most 256 vertices each (64 whole quads).
    let ranges: Vec<(u32, u32)> = (0..n * 4)
        .step_by(256)
        .map(|f| (f, 256.min(n * 4 - f)))
        .collect();
    b.draw_arrays(8, &ranges).unwrap();
    b.method(reg::STENCIL_TEST_ENABLE, 0).unwrap();
    b.put_memory(Location::Local, ZETA, &[0u8; 256]).unwrap();
    bind_texture(&mut b, ZETA, 0x85, 8, 8, 32);
    quad(&mut b, 0x8_0000, [0.0, 0.0, 4.0, 8.0], 0.5, [0.0; 4]);
    let out = render(&b.finish());
    (
        out.image.pixel(6, 1).expect("pixel"),
        out.image.pixel(1, 1).expect("pixel"),
    )
}

#[test]
fn overdraw_past_one_shading_batch_keeps_primitive_order() {
    // 1100 quads, 17600 2×2 quads: more than one shading batch (16384). The last one written
    // shows, 1099 mod 256 = 75 (a lost second batch would leave quad 1023's 255); the
    // stencil, 1100 mod 256 = 76, counts every fragment exactly once.
    let (last, stencil) = overdraw(1100);
    assert_eq!(last, [75, 0, 0, 255]);
    assert_eq!(stencil, [0xFF, 0xFF, 76, 0xFF]);
}

#[test]
fn triangles_assembled_in_parallel_keep_their_order() {
    // 4200 quads: 8400 triangles, past `geometry`'s parallel assembly (8192, in chunks of
    // 4096). The last quad shows (4199 mod 256 = 103) and every fragment counts once
    // (4200 mod 256 = 104): a chunk out of order or lost would show another red or count.
    let (last, stencil) = overdraw(4200);
    assert_eq!(last, [103, 0, 0, 255]);
    assert_eq!(stencil, [0xFF, 0xFF, 104, 0xFF]);
}

/// Targets whose bytes a split into bands of rows cannot keep apart (`Targets::split`, issue
/// 14 item 2): a swizzled surface (a band is not one byte range of it) and a zeta surface
/// over the colour target's bytes. Their draws stay on one tile even under `Tiling::Rows(2)`
/// and render as on one tile; the same draws on linear, separate targets are split.
#[test]
fn swizzled_and_aliased_targets_stay_on_one_tile() {
    use rsxtrace_replay::render::Tiling;
    for (name, swizzled, zeta, split) in [
        ("swizzled.rrc", true, ZETA, false),
        ("aliased.rrc", false, COLOR + 16, false),
        ("separate.rrc", false, ZETA, true),
    ] {
        let mut b = builder(name, 8);
        let mut s = surface(8, COLOR);
        if swizzled {
            s.surface_type = 2;
        }
        s.zeta = target(zeta, u32::from(W) * 4);
        b.set_surface(&s);
        b.set_depth(true, 0x0201, true); // LESS
        b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
        quad(&mut b, 0x1_0000, FULL, 0.5, [1.0, 0.0, 0.0, 1.0]);
        quad(
            &mut b,
            0x2_0000,
            [2.0, 1.0, 6.0, 7.0],
            0.25,
            [0.0, 0.0, 1.0, 1.0],
        );
        let capture = b.finish();
        let frame = Frame::from_capture(&capture).unwrap();
        let events = FrameEvents::from_capture(&capture, &frame);
        let with = |tiling| RenderOptions {
            tiling,
            per_draw: true,
            ..Default::default()
        };
        let serial = render_frame(&frame, &events, &with(Tiling::Off)).unwrap();
        let tiled = render_frame(&frame, &events, &with(Tiling::Rows(2))).unwrap();
        assert_eq!(serial.draws_rendered, 2, "{name}: {:?}", serial.skipped);
        let expect = if split { 2 } else { 0 };
        assert_eq!(tiled.tiled_draws, expect, "{name}");
        assert!(tiled.image == serial.image, "{name}");
        for (a, b) in serial.per_draw.iter().zip(&tiled.per_draw) {
            assert!(a.image == b.image, "{name}: after draw {}", a.draw);
        }
    }
}

/// A frame with no usable colour target says why: the last draw's target and what is wrong
/// with it (a pitch below a row, a format the RSX lacks, no set of targets), or that the frame
/// writes depth only; the history of a pixel says the same.
#[test]
fn nothing_to_render_says_why() {
    let frame_with = |name: &str, edit: &dyn Fn(&mut SurfaceDesc)| {
        let mut b = builder(name, 8);
        let mut s = surface(8, COLOR);
        edit(&mut s);
        b.set_surface(&s);
        quad(&mut b, 0, [0.0, 0.0, 8.0, 8.0], 0.5, [1.0, 0.0, 0.0, 1.0]);
        b.finish()
    };
    type Edit<'a> = &'a dyn Fn(&mut SurfaceDesc);
    let cases: [(&str, Edit, &str); 4] = [
        (
            "pitch",
            &|s| s.colors[0].pitch = 0,
            "no draw writes a usable colour target: draw 0's surface A: pitch 0 is smaller \
             than a row of 32 bytes",
        ),
        (
            "format",
            &|s| s.color_format = 0x1F,
            "draw 0's colour format 0x1f is none of the RSX's",
        ),
        (
            "targets",
            &|s| s.color_target = 0xFF,
            "draw 0's SURFACE_COLOR_TARGET 0xff names no set of targets",
        ),
        (
            "depth only",
            &|s| s.color_target = 0,
            "no draw writes colour (a depth-only frame",
        ),
    ];
    for (name, edit, says) in cases {
        let capture = frame_with(name, edit);
        let frame = Frame::from_capture(&capture).expect("frame");
        let events = FrameEvents::from_capture(&capture, &frame);
        let err = cpu_render_tiled(&frame, &events, &RenderOptions::default()).unwrap_err();
        assert!(err.to_string().contains(says), "{name}: {err}");
        use rsxtrace_replay::render::history::{pixel_history, Watched};
        let options = RenderOptions::default();
        let history = pixel_history(&frame, &events, &options, Watched::Output, 1, 1);
        let Err(err) = history else {
            panic!("{name}: a history without an output")
        };
        assert!(err.to_string().contains(says), "{name} (history): {err}");
    }
}
