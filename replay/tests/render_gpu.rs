//! The GPU frame render (`rsxtrace_replay::render::gpu`) on small builder captures, each pixel
//! checked against a value computed here by hand: a clear colour and a channel-masked clear, a
//! blended quad (two factor/equation pairs), a depth-tested pair in both orders, culling by
//! winding, the scissor, a texture read back at chosen pixels, a draw that samples what an
//! earlier draw rendered, a depth surface read as an A8R8G8B8 texture, stencil (two-sided
//! too, on both renderers), alpha test, line polygon mode, per-draw snapshots, the unknown-constant warning, target upload and
//! readback in every device format, and the GPU render against the CPU reference render on
//! all these scenes, the sample capture and one scene per colour format (documented
//! tolerance: `AGREEMENT_CHANNEL`, `AGREEMENT_PIXELS`, `FIVE_BIT_STEP`).
//!
//! Every scene: a 64 × 64 A8R8G8B8 colour target A (local 0, pitch 256) and a Z24S8 zeta
//! surface (local 0x10_0000), the viewport mapping NDC x, y ∈ [−1, 1] onto the 64 × 64 window
//! with NDC +y at row 0 (`offset (32, 32, 0.5)`, `scale (32, −32, 0.5)`), and the MVP vertex
//! program with the identity in c32..c35, so a vertex at NDC (x, y) lands at window
//! (32x + 32, 32 − 32y) and its window z is z/2 + 1/2. The fragment program is `MOV R0,
//! f[COL0]` (colour = the vertex colour, given as 4 unsigned bytes R, G, B, A).

use crate::gpu_support;

use rsxtrace_testkit::image::{pixels_close, Comparison};

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget, TextureDesc};
use rsxtrace_capture::frame::{reg, Frame};
use rsxtrace_capture::rrc::{read_file, Capture, Location};
use rsxtrace_gpu::Gpu;
use rsxtrace_program::fragment::{self, FpOpcode, InputAttribute as FpInput};
use rsxtrace_program::vertex::{self, InputAttribute as VpInput, OutputRegister};
use rsxtrace_replay::render::gpu::render_frame;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame, Rgba8Image};

const SIZE: u16 = 64;
const TRIANGLES: u32 = 5;
const QUADS: u32 = 8;
const TYPE_F: u32 = 2;
const TYPE_UB: u32 = 4;
const COLOR_BASE: u32 = 0;
const ZETA_BASE: u32 = 0x0010_0000;
/// Where each draw's vertex data goes (main memory), one 4 KiB page per draw.
const VERTEX_BASE: u32 = 0x0001_0000;
const FP_OFFSET: u32 = 0x0030_0000;

/// NV4097 enumerants (rrc-format.md 4.8).
const LESS: u32 = 0x201;
const ALWAYS: u32 = 0x207;
const ONE: u16 = 1;
const ZERO: u16 = 0;
const SRC_ALPHA: u16 = 0x302;
const ONE_MINUS_SRC_ALPHA: u16 = 0x303;
const ADD: u16 = 0x8006;
const REVERSE_SUBTRACT: u16 = 0x800B;

type Vertex = ([f32; 4], [u8; 4]);

fn target(location: Location, offset: u32, pitch: u32) -> SurfaceTarget {
    SurfaceTarget {
        location,
        offset,
        pitch,
    }
}

/// A surface of `width` × `height` A8R8G8B8 at `color` and Z24S8 at `zeta` (local memory).
fn surface(width: u16, height: u16, color: u32, zeta: u32) -> SurfaceDesc {
    let pitch = u32::from(width) * 4;
    SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (0, 0),
        color_target: 1,
        colors: [
            target(Location::Local, color, pitch),
            target(Location::Local, 0x0080_0000, pitch),
            target(Location::Local, 0x0090_0000, pitch),
            target(Location::Local, 0x00A0_0000, pitch),
        ],
        zeta: target(Location::Local, zeta, pitch),
        clip: (0, 0, width, height),
    }
}

/// The viewport of a `width` × `height` window (NDC +y at row 0).
fn viewport(b: &mut CaptureBuilder, width: u16, height: u16) {
    let (w, h) = (f32::from(width) / 2.0, f32::from(height) / 2.0);
    b.set_viewport(
        0,
        0,
        width,
        height,
        (0.0, 1.0),
        [w, h, 0.5, 0.0],
        [w, -h, 0.5, 0.0],
    );
}

const IDENTITY: [[f32; 4]; 4] = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// The common scene setup: surface, viewport, full scissor, all channels written, depth test
/// off, the MVP program (identity constants unless `constants` is false) and `MOV R0, COL0`.
fn scene(name: &str, constants: bool) -> CaptureBuilder {
    let mut b = CaptureBuilder::new(name);
    b.set_surface(&surface(SIZE, SIZE, COLOR_BASE, ZETA_BASE));
    viewport(&mut b, SIZE, SIZE);
    b.set_scissor(0, 0, 4095, 4095);
    b.set_color_mask(0x0101_0101);
    b.set_depth(false, LESS, false);
    b.set_vertex_program(&mvp_vertex_program(32), 0, 0, 0b1001, 0b1)
        .unwrap();
    if constants {
        b.set_transform_constants(32, &IDENTITY).unwrap();
    }
    b.set_fragment_program(Location::Local, FP_OFFSET, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b
}

/// Draws `vertices` as `primitive` from float4 positions (v0) and UB4 colours (v3) placed in
/// main memory page `page`.
fn draw(b: &mut CaptureBuilder, page: u32, primitive: u32, vertices: &[Vertex]) {
    let at = VERTEX_BASE + page * 0x1000;
    let positions: Vec<u8> = vertices
        .iter()
        .flat_map(|(p, _)| p.iter().flat_map(|c| c.to_be_bytes()))
        .collect();
    let colours: Vec<u8> = vertices.iter().flat_map(|(_, c)| *c).collect();
    b.put_memory(Location::Main, at, &positions).unwrap();
    b.put_memory(Location::Main, at + 0x800, &colours).unwrap();
    b.set_vertex_array(0, TYPE_F, 4, 16, 0, Location::Main, at)
        .unwrap();
    b.set_vertex_array(3, TYPE_UB, 4, 4, 0, Location::Main, at + 0x800)
        .unwrap();
    b.draw_arrays(primitive, &[(0, vertices.len() as u32)])
        .unwrap();
}

/// An axis-aligned quad from NDC (x0, y0) to (x1, y1) at depth z, counter-clockwise on the
/// screen (row 0 at the top).
fn quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, c: [u8; 4]) -> [Vertex; 4] {
    [
        ([x0, y0, z, 1.0], c),
        ([x1, y0, z, 1.0], c),
        ([x1, y1, z, 1.0], c),
        ([x0, y1, z, 1.0], c),
    ]
}

/// `CLEAR_SURFACE` of every colour channel, depth and stencil.
fn clear(b: &mut CaptureBuilder, argb: u32) {
    b.clear_surface(0xF3, argb, 0xFFFF_FF00);
}

fn render(gpu: &Gpu, capture: &Capture, options: &RenderOptions) -> RenderedFrame {
    let frame = Frame::from_capture(capture).expect("frame model");
    let events = FrameEvents::from_capture(capture, &frame);
    render_frame(gpu, &frame, &events, options).expect("GPU render")
}

fn px(image: &Rgba8Image, x: u32, y: u32) -> [u8; 4] {
    image.pixel(x, y).expect("pixel inside the image")
}

fn assert_px(image: &Rgba8Image, x: u32, y: u32, want: [u8; 4], tolerance: u8, what: &str) {
    let got = px(image, x, y);
    assert!(
        pixels_close(got, want, tolerance),
        "{what}: pixel ({x}, {y}) is {got:?}, expected {want:?} (±{tolerance})"
    );
}

fn clear_scene() -> Capture {
    let mut b = scene("clear.rrc", true);
    clear(&mut b, 0xFF33_6699); // ARGB
                                // A small triangle in the top-left corner, so that the frame has a colour target.
    draw(
        &mut b,
        0,
        TRIANGLES,
        &[
            ([-1.0, 1.0, 0.0, 1.0], [255, 255, 255, 255]),
            ([-0.75, 1.0, 0.0, 1.0], [255, 255, 255, 255]),
            ([-1.0, 0.75, 0.0, 1.0], [255, 255, 255, 255]),
        ],
    );
    // Then clear red and alpha only (0x10 R, 0x80 A) to 0x80_F0_00_00, inside a scissor.
    b.set_scissor(32, 0, 32, 64);
    b.clear_surface(0x90, 0x80F0_0000, 0);
    b.finish()
}

fn blend_scene() -> Capture {
    let mut b = scene("blend.rrc", true);
    clear(&mut b, 0xFF00_00FF); // opaque blue
                                // Left half: SRC_ALPHA / ONE_MINUS_SRC_ALPHA (rgb), ONE / ZERO (alpha), ADD.
    b.set_blend(
        true,
        (SRC_ALPHA, ONE),
        (ONE_MINUS_SRC_ALPHA, ZERO),
        (ADD, ADD),
    );
    draw(
        &mut b,
        0,
        QUADS,
        &quad(-1.0, -1.0, 0.0, 1.0, 0.0, [255, 0, 0, 128]),
    );
    // Right half: ONE / ONE, REVERSE_SUBTRACT: dst − src.
    b.set_blend(
        true,
        (ONE, ONE),
        (ONE, ONE),
        (REVERSE_SUBTRACT, REVERSE_SUBTRACT),
    );
    draw(
        &mut b,
        1,
        QUADS,
        &quad(0.0, -1.0, 1.0, 1.0, 0.0, [0, 0, 64, 16]),
    );
    b.finish()
}

fn stencil_scene() -> Capture {
    let mut b = scene("stencil.rrc", true);
    clear(&mut b, 0xFF00_0000); // stencil cleared to 0
                                // Draw 0 writes stencil 1 (ALWAYS, REPLACE on pass) in the top-left quarter, no colour.
    set(&mut b, reg::SET_STENCIL_TEST_ENABLE, 1);
    set(&mut b, reg::SET_STENCIL_FUNC, ALWAYS);
    set(&mut b, reg::SET_STENCIL_FUNC_REF, 1);
    set(&mut b, reg::SET_STENCIL_FUNC_MASK, 0xFF);
    set(&mut b, reg::SET_STENCIL_MASK, 0xFF);
    set(&mut b, reg::SET_STENCIL_OP_FAIL, 0x1E00); // KEEP
    set(&mut b, reg::SET_STENCIL_OP_ZFAIL, 0x1E00);
    set(&mut b, reg::SET_STENCIL_OP_ZPASS, 0x1E01); // REPLACE
    b.set_color_mask(0);
    draw(
        &mut b,
        0,
        QUADS,
        &quad(-1.0, 0.0, 0.0, 1.0, 0.0, [255, 255, 255, 255]),
    );
    // Draw 1: a full-screen quad where stencil EQUAL 1.
    b.set_color_mask(0x0101_0101);
    set(&mut b, reg::SET_STENCIL_FUNC, 0x202); // EQUAL
    set(&mut b, reg::SET_STENCIL_OP_ZPASS, 0x1E00);
    draw(
        &mut b,
        1,
        QUADS,
        &quad(-1.0, -1.0, 1.0, 1.0, 0.0, [0, 200, 0, 255]),
    );
    b.finish()
}

fn alpha_scene() -> Capture {
    let mut b = scene("alpha.rrc", true);
    clear(&mut b, 0xFF00_0000);
    // Alpha test GREATER 0x80 (fixed-point surface: reference (raw & 0xFF) / 255).
    set(&mut b, reg::SET_ALPHA_TEST_ENABLE, 1);
    set(&mut b, reg::SET_ALPHA_FUNC, 0x204);
    set(&mut b, reg::SET_ALPHA_REF, 0x80);
    draw(
        &mut b,
        0,
        QUADS,
        &quad(-1.0, -1.0, 0.0, 1.0, 0.0, [255, 0, 0, 0x81]),
    );
    draw(
        &mut b,
        1,
        QUADS,
        // 0x7F, not 0x80: an alpha equal to the reference is decided by the last bit of the
        // interpolation, which the two renderers round differently.
        &quad(0.0, -1.0, 1.0, 1.0, 0.0, [255, 0, 0, 0x7F]),
    );
    b.finish()
}

fn line_scene() -> Capture {
    let mut b = scene("lines.rrc", true);
    clear(&mut b, 0xFF00_0000);
    set(&mut b, reg::SET_FRONT_POLYGON_MODE, 0x1B01); // LINE
    let white = [255, 255, 255, 255];
    // A CCW triangle with a horizontal bottom edge on row 48.5 → window y = 48.5:
    // NDC y = (32 − 48.5) / 32.
    let y = (32.0 - 48.5) / 32.0;
    draw(
        &mut b,
        0,
        TRIANGLES,
        &[
            ([-0.5, y, 0.0, 1.0], white),
            ([0.5, y, 0.0, 1.0], white),
            ([0.0, 0.5, 0.0, 1.0], white),
        ],
    );
    b.finish()
}

fn cull_scene() -> Capture {
    let mut b = scene("cull.rrc", true);
    clear(&mut b, 0xFF00_0000);
    b.set_cull(true, 0x0405, 0x0901); // cull BACK, front = CCW
    let white = [255, 255, 255, 255];
    // Left: counter-clockwise on the screen (y up in NDC is up on the screen): kept.
    // Right: the same triangle wound the other way: culled.
    draw(
        &mut b,
        0,
        TRIANGLES,
        &[
            ([-0.9, -0.5, 0.0, 1.0], white),
            ([-0.1, -0.5, 0.0, 1.0], white),
            ([-0.5, 0.5, 0.0, 1.0], white),
            ([0.1, -0.5, 0.0, 1.0], white),
            ([0.5, 0.5, 0.0, 1.0], white),
            ([0.9, -0.5, 0.0, 1.0], white),
        ],
    );
    b.finish()
}

fn scissor_scene() -> Capture {
    let mut b = scene("scissor.rrc", true);
    clear(&mut b, 0xFF00_0000);
    b.set_scissor(16, 8, 16, 24);
    draw(
        &mut b,
        0,
        QUADS,
        &quad(-1.0, -1.0, 1.0, 1.0, 0.0, [10, 20, 30, 40]),
    );
    b.finish()
}

fn texture_scene() -> Capture {
    texture_scene_wrapped("texture.rrc", 0x0003_0303, 0)
}

/// [`texture_scene`] with the texture's wrap modes (`SET_TEXTURE_ADDRESS`) and border colour.
fn texture_scene_wrapped(name: &str, address: u32, border_color: u32) -> Capture {
    let mut b = scene(name, true);
    clear(&mut b, 0xFF00_0000);
    let bytes: Vec<u8> = (0..16)
        .flat_map(|i| texel(i % 4, i / 4).to_be_bytes())
        .collect();
    b.put_memory(Location::Local, 0x0040_0000, &bytes).unwrap();
    textured_quad_wrapped(&mut b, 0, 0x0040_0000, 4, address, border_color);
    b.finish()
}

/// A ring buffer that wraps: draw 0 samples the 4 × 4 texture at 0x40_0000; then the same
/// address holds new bytes (the texture mirrored) and draw 1 samples it with the same state.
fn ring_buffer_scene() -> Capture {
    let mut b = scene("ring.rrc", true);
    clear(&mut b, 0xFF00_0000);
    let at = 0x0040_0000;
    let first: Vec<u8> = (0..16)
        .flat_map(|i| texel(i % 4, i / 4).to_be_bytes())
        .collect();
    b.put_memory(Location::Local, at, &first).unwrap();
    textured_quad(&mut b, 0, at, 4);
    let mirrored: Vec<u8> = (0..16)
        .flat_map(|i| texel(3 - i % 4, 3 - i / 4).to_be_bytes())
        .collect();
    b.put_memory(Location::Local, at, &mirrored).unwrap();
    textured_quad(&mut b, 1, at, 4);
    b.finish()
}

fn rtt_scene() -> Capture {
    let mut b = scene("rtt.rrc", true);
    // Draw 0 into a 4 × 4 surface at 0x50_0000: left half red, right half green.
    let small = 0x0050_0000;
    b.put_memory(Location::Local, small, &[0u8; 64]).unwrap();
    b.set_surface(&surface(4, 4, small, 0x0060_0000));
    viewport(&mut b, 4, 4);
    clear(&mut b, 0xFF00_0000);
    draw(
        &mut b,
        0,
        QUADS,
        &quad(-1.0, -1.0, 0.0, 1.0, 0.0, [255, 0, 0, 255]),
    );
    draw(
        &mut b,
        1,
        QUADS,
        &quad(0.0, -1.0, 1.0, 1.0, 0.0, [0, 255, 0, 255]),
    );
    // Draw 2 on the 64 × 64 surface samples that memory as a 4 × 4 texture.
    b.set_surface(&surface(SIZE, SIZE, COLOR_BASE, ZETA_BASE));
    viewport(&mut b, SIZE, SIZE);
    textured_quad(&mut b, 2, small, 4);
    b.finish()
}

fn depth_colour_scene() -> Capture {
    let mut b = scene("depth_colour.rrc", true);
    // A 4 × 4 surface whose Z24S8 zeta (at 0x60_0000) is cleared to depth 0x123456,
    // stencil 0x78, with a draw so that it is rendered.
    let zeta = 0x0060_0000;
    b.put_memory(Location::Local, zeta, &[0u8; 64]).unwrap();
    b.set_surface(&surface(4, 4, 0x0050_0000, zeta));
    viewport(&mut b, 4, 4);
    b.clear_surface(0x03, 0, 0x1234_5678);
    draw(&mut b, 0, TRIANGLES, &[([0.0, 0.0, 0.0, 1.0], [0; 4]); 3]);
    // Read the zeta memory as an A8R8G8B8 texture: A, R, G = depth bytes, B = stencil.
    b.set_surface(&surface(SIZE, SIZE, COLOR_BASE, ZETA_BASE));
    viewport(&mut b, SIZE, SIZE);
    textured_quad(&mut b, 1, zeta, 4);
    b.finish()
}

/// Two overlapping triangles with per-vertex colours and w from 1 to 4 (perspective-correct
/// interpolation), depth tested, the second one behind the first in part.
fn perspective_scene() -> Capture {
    let mut b = scene("perspective.rrc", true);
    clear(&mut b, 0xFF10_2030);
    b.set_depth(true, LESS, true);
    let at = |x: f32, y: f32, z: f32, w: f32| [x * w, y * w, z * w, w];
    draw(
        &mut b,
        0,
        TRIANGLES,
        &[
            (at(-0.9, -0.8, 0.1, 1.0), [255, 0, 0, 255]),
            (at(0.8, -0.6, -0.5, 4.0), [0, 255, 0, 128]),
            (at(-0.2, 0.9, 0.3, 2.0), [0, 0, 255, 0]),
            (at(-0.7, 0.7, -0.2, 3.0), [250, 250, 0, 255]),
            (at(0.9, -0.9, 0.4, 1.5), [0, 250, 250, 255]),
            (at(0.6, 0.8, -0.9, 1.0), [250, 0, 250, 255]),
        ],
    );
    b.finish()
}

/// Bytes per pixel of the RSX colour formats (rrc-format.md 4.8).
fn colour_bpp(format: u32) -> u32 {
    match format {
        9 => 1,
        1..=3 | 10 => 2,
        11 => 8,
        12 => 16,
        _ => 4,
    }
}

/// The perspective scene with blending (SRC_ALPHA, ONE_MINUS_SRC_ALPHA) on a surface of colour
/// format `color` and depth format `depth` (1 Z16, 2 Z24S8).
fn format_scene(color: u32, depth: u32) -> Capture {
    let mut b = scene("formats.rrc", true);
    let mut s = surface(SIZE, SIZE, COLOR_BASE, ZETA_BASE);
    s.color_format = color;
    s.depth_format = depth;
    s.colors[0].pitch = u32::from(SIZE) * colour_bpp(color);
    s.zeta.pitch = u32::from(SIZE) * if depth == 1 { 2 } else { 4 };
    b.set_surface(&s);
    clear(&mut b, 0xC010_2030);
    b.set_depth(true, LESS, true);
    b.set_blend(
        true,
        (SRC_ALPHA, SRC_ALPHA),
        (ONE_MINUS_SRC_ALPHA, ONE_MINUS_SRC_ALPHA),
        (ADD, ADD),
    );
    let at = |x: f32, y: f32, z: f32, w: f32| [x * w, y * w, z * w, w];
    draw(
        &mut b,
        0,
        TRIANGLES,
        &[
            (at(-0.9, -0.8, 0.1, 1.0), [255, 0, 0, 255]),
            (at(0.8, -0.6, -0.5, 4.0), [0, 255, 0, 128]),
            (at(-0.2, 0.9, 0.3, 2.0), [0, 0, 255, 0]),
            (at(-0.7, 0.7, -0.2, 3.0), [250, 250, 0, 200]),
            (at(0.9, -0.9, 0.4, 1.5), [0, 250, 250, 100]),
            (at(0.6, 0.8, -0.9, 1.0), [250, 0, 250, 255]),
        ],
    );
    b.finish()
}

#[test]
fn clear_colour_and_masked_clear() {
    let Some(gpu) = gpu_support::gpu("clear_colour_and_masked_clear") else {
        return;
    };
    let out = render(&gpu, &clear_scene(), &RenderOptions::default());
    assert_eq!(out.image.width, 64);
    assert_px(
        &out.image,
        10,
        40,
        [0x33, 0x66, 0x99, 0xFF],
        0,
        "first clear",
    );
    assert_px(&out.image, 1, 1, [255, 255, 255, 255], 0, "the triangle");
    // Right half: R and A from the second clear, G and B kept.
    assert_px(
        &out.image,
        40,
        40,
        [0xF0, 0x66, 0x99, 0x80],
        0,
        "masked clear",
    );
    assert_px(
        &out.image,
        31,
        40,
        [0x33, 0x66, 0x99, 0xFF],
        0,
        "left of the scissor",
    );
    assert_eq!(out.draws_rendered, 1);
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
}

#[test]
fn blended_quads() {
    let Some(gpu) = gpu_support::gpu("blended_quads") else {
        return;
    };
    let out = render(&gpu, &blend_scene(), &RenderOptions::default());
    // r = 1 × 128/255 + 0 = 128; b = 0 + 1 × (1 − 128/255) = 127/255; a = 128 × 1 + 255 × 0.
    assert_px(&out.image, 16, 32, [128, 0, 127, 128], 1, "alpha blend");
    // dst (0, 0, 255, 255) − src (0, 0, 64, 16) = (0, 0, 191, 239).
    assert_px(&out.image, 48, 32, [0, 0, 191, 239], 1, "reverse subtract");
}

#[test]
fn depth_test_keeps_the_nearer_quad_in_either_order() {
    let Some(gpu) = gpu_support::gpu("depth_test") else {
        return;
    };
    let near = quad(-0.5, -0.5, 0.5, 0.5, -0.6, [0, 255, 0, 255]); // window z 0.2
    let far = quad(-1.0, -1.0, 1.0, 1.0, 0.2, [255, 0, 0, 255]); // window z 0.6
    for (name, order) in [("near first", [&near, &far]), ("far first", [&far, &near])] {
        let mut b = scene("depth.rrc", true);
        clear(&mut b, 0xFF00_0000);
        b.set_depth(true, LESS, true);
        draw(&mut b, 0, QUADS, order[0]);
        draw(&mut b, 1, QUADS, order[1]);
        let out = render(&gpu, &b.finish(), &RenderOptions::default());
        assert_px(&out.image, 32, 32, [0, 255, 0, 255], 0, name);
        assert_px(&out.image, 4, 4, [255, 0, 0, 255], 0, name);
    }
}

/// Draws queued together share a render pass while they attach the same targets; a draw
/// without its depth test attaches no depth target and takes a pass of its own between them.
/// The depth the first draw wrote still stops the third, and every draw lands in order.
#[test]
fn draws_that_switch_attachments_keep_their_order_and_depth() {
    let Some(gpu) = gpu_support::gpu("switch_attachments") else {
        return;
    };
    let near = quad(-0.5, -0.5, 0.5, 0.5, -0.6, [0, 255, 0, 255]); // window z 0.2
    let overlay = quad(0.0, -1.0, 1.0, 1.0, 0.9, [0, 0, 255, 255]); // no depth test
    let far = quad(-1.0, -1.0, 1.0, 1.0, 0.2, [255, 0, 0, 255]); // window z 0.6
    let mut b = scene("switch.rrc", true);
    clear(&mut b, 0xFF00_0000);
    b.set_depth(true, LESS, true);
    draw(&mut b, 0, QUADS, &near);
    b.set_depth(false, LESS, true);
    draw(&mut b, 1, QUADS, &overlay);
    b.set_depth(true, LESS, true);
    draw(&mut b, 2, QUADS, &far);
    let out = render(&gpu, &b.finish(), &RenderOptions::default());
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    for (x, y, expected, what) in [
        (24, 32, [0, 255, 0, 255], "near, far behind it"),
        (40, 32, [0, 0, 255, 255], "overlay over near, far behind"),
        (56, 32, [255, 0, 0, 255], "far over the overlay"),
        (4, 4, [255, 0, 0, 255], "far alone"),
    ] {
        assert_px(&out.image, x, y, expected, 0, what);
    }
}

/// Writes one register through the raw method interface (the builder has no setter for it).
fn set(b: &mut CaptureBuilder, register: u16, value: u32) {
    b.method(u32::from(register), value).unwrap();
}

#[test]
fn stencil_masks_a_later_draw() {
    let Some(gpu) = gpu_support::gpu("stencil") else {
        return;
    };
    let out = render(&gpu, &stencil_scene(), &RenderOptions::default());
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_px(&out.image, 10, 10, [0, 200, 0, 255], 0, "stencil 1");
    assert_px(&out.image, 50, 10, [0, 0, 0, 255], 0, "stencil 0 (right)");
    assert_px(&out.image, 10, 50, [0, 0, 0, 255], 0, "stencil 0 (bottom)");
}

/// Two-sided stencil whose faces differ in reference and operations, with front- and
/// back-facing primitives interleaved in one draw (later ones overwriting earlier ones) and a
/// back-facing triangle drawn in line mode; then one full-screen quad per stencil value,
/// coloured by it. The RSX keeps a reference and masks per face (`SET_BACK_STENCIL_*`), wgpu
/// one per pipeline: the device draws the primitives in runs of one facing, in order.
fn two_sided_stencil_scene() -> Capture {
    let mut b = scene("stencil_faces.rrc", true);
    clear(&mut b, 0xFF00_0000); // stencil cleared to 0
    b.set_color_mask(0);
    set(&mut b, reg::SET_STENCIL_TEST_ENABLE, 1);
    set(&mut b, reg::SET_TWO_SIDED_STENCIL_TEST_ENABLE, 1);
    set(&mut b, reg::SET_STENCIL_FUNC, ALWAYS);
    set(&mut b, reg::SET_STENCIL_FUNC_REF, 1);
    set(&mut b, reg::SET_STENCIL_OP_ZPASS, 0x1E01); // REPLACE
    set(&mut b, reg::SET_BACK_STENCIL_FUNC, ALWAYS);
    set(&mut b, reg::SET_BACK_STENCIL_FUNC_REF, 2);
    set(&mut b, reg::SET_BACK_STENCIL_OP_ZPASS, 0x1E01);
    // Draw 0, three quads in order: front over the left half (1), back (wound clockwise)
    // over the top half (2), front over the top-left 16 × 16 pixels (1 again).
    let c = [255; 4];
    let mut quads: Vec<Vertex> = quad(-1.0, -1.0, 0.0, 1.0, 0.0, c).to_vec();
    let mut top = quad(-1.0, 0.0, 1.0, 1.0, 0.0, c);
    top.reverse();
    quads.extend(top);
    quads.extend(quad(-1.0, 0.5, -0.5, 1.0, 0.0, c));
    draw(&mut b, 0, QUADS, &quads);
    // Draw 1: the faces share reference 3, the front keeps and the back replaces; a
    // clockwise (back-facing) triangle in line mode in the bottom-right quarter, its bottom
    // edge on row 60 (window y 60.5), x from 34 to 62, apex (48, 52): the device sees its
    // edges' rectangles wound both ways.
    set(&mut b, reg::SET_STENCIL_FUNC_REF, 3);
    set(&mut b, reg::SET_STENCIL_OP_ZPASS, 0x1E00); // KEEP
    set(&mut b, reg::SET_BACK_STENCIL_FUNC_REF, 3);
    set(&mut b, reg::SET_FRONT_POLYGON_MODE, 0x1B01); // LINE
    set(&mut b, reg::SET_BACK_POLYGON_MODE, 0x1B01);
    let ndc = |x: f32, y: f32| [(x - 32.0) / 32.0, (32.0 - y) / 32.0, 0.0, 1.0];
    draw(
        &mut b,
        1,
        TRIANGLES,
        &[
            (ndc(34.0, 60.5), c),
            (ndc(48.0, 52.0), c),
            (ndc(62.0, 60.5), c),
        ],
    );
    // Draws 2..4: one-sided stencil EQUAL 1, 2, 3 in red, green and blue.
    set(&mut b, reg::SET_FRONT_POLYGON_MODE, 0x1B02); // FILL
    set(&mut b, reg::SET_BACK_POLYGON_MODE, 0x1B02);
    set(&mut b, reg::SET_TWO_SIDED_STENCIL_TEST_ENABLE, 0);
    set(&mut b, reg::SET_STENCIL_FUNC, 0x202); // EQUAL
    set(&mut b, reg::SET_STENCIL_OP_ZPASS, 0x1E00);
    b.set_color_mask(0x0101_0101);
    for (page, (value, colour)) in [
        (1, [255, 0, 0, 255]),
        (2, [0, 255, 0, 255]),
        (3, [0, 0, 255, 255]),
    ]
    .into_iter()
    .enumerate()
    {
        set(&mut b, reg::SET_STENCIL_FUNC_REF, value);
        draw(
            &mut b,
            2 + page as u32,
            QUADS,
            &quad(-1.0, -1.0, 1.0, 1.0, 0.0, colour),
        );
    }
    b.finish()
}

#[test]
fn two_sided_stencil_keeps_each_face_its_reference_in_draw_order() {
    let capture = two_sided_stencil_scene();
    let frame = Frame::from_capture(&capture).expect("frame model");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = RenderOptions::default();
    let mut images = vec![(
        "CPU",
        rsxtrace_replay::render::cpu::render_frame(&frame, &events, &options).expect("CPU render"),
    )];
    if let Some(gpu) = gpu_support::gpu("two_sided_stencil") {
        images.push((
            "GPU",
            render_frame(&gpu, &frame, &events, &options).expect("GPU render"),
        ));
    }
    let (red, green, blue, black) = (
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [0, 0, 0, 255],
    );
    for (name, out) in images {
        assert!(out.skipped.is_empty(), "{name}: {:?}", out.skipped);
        assert!(
            !out.warnings.iter().any(|w| w.message.contains("stencil")),
            "{name}: {:?}",
            out.warnings
        );
        for (x, y, want, what) in [
            (8, 8, red, "the last front quad (1) over the back quad"),
            (40, 8, green, "the back quad (2)"),
            (20, 24, green, "the back quad (2) over the first front quad"),
            (8, 40, red, "the first front quad (1)"),
            (
                48,
                60,
                blue,
                "the back-facing outline's bottom edge (back: REPLACE 3)",
            ),
            (41, 55, blue, "its left edge"),
            (55, 56, blue, "its right edge"),
            (48, 58, black, "inside the outline"),
            (62, 40, black, "outside everything"),
        ] {
            assert_px(&out.image, x, y, want, 0, &format!("{name}: {what}"));
        }
    }
}

/// Counts a render's observer calls; `looks` is its answer to `active`.
#[derive(Default)]
struct Calls {
    looks: bool,
    before: Vec<usize>,
    after: Vec<usize>,
    drawn: Vec<usize>,
}

impl rsxtrace_replay::render::DrawObserver for Calls {
    fn before(&mut self, draw: usize, _: &dyn rsxtrace_capture::fetch::GuestMemory) {
        self.before.push(draw);
    }
    fn after(&mut self, draw: usize, _: &dyn rsxtrace_capture::fetch::GuestMemory) {
        self.after.push(draw);
    }
    fn active(&self) -> bool {
        self.looks
    }
    fn drawn(&mut self, draw: usize) {
        self.drawn.push(draw);
    }
}

#[test]
fn an_observer_that_does_not_look_still_hears_of_every_draw() {
    // (A progress bar: `DrawObserver::drawn` on both renderers, at no cost to the GPU render,
    // which shows memory only to an observer that looks.)
    let capture = stencil_scene();
    let frame = Frame::from_capture(&capture).expect("frame model");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = RenderOptions::default();
    let mut cpu = Calls::default();
    rsxtrace_replay::render::cpu::render_frame_observed(&frame, &events, &options, &mut cpu)
        .expect("CPU render");
    assert_eq!(cpu.drawn, [0, 1]);
    let Some(gpu) = gpu_support::gpu("observer_drawn") else {
        return;
    };
    for looks in [false, true] {
        let mut calls = Calls {
            looks,
            ..Calls::default()
        };
        rsxtrace_replay::render::gpu::render_frame_observed(
            &gpu, &frame, &events, &options, &mut calls,
        )
        .expect("GPU render");
        assert_eq!(calls.drawn, [0, 1], "looks: {looks}");
        let shown: &[usize] = if looks { &[0, 1] } else { &[] };
        assert_eq!(
            (calls.before.as_slice(), calls.after.as_slice()),
            (shown, shown)
        );
    }
}

#[test]
fn alpha_test_discards_by_colour_zero_alpha() {
    let Some(gpu) = gpu_support::gpu("alpha_test") else {
        return;
    };
    let out = render(&gpu, &alpha_scene(), &RenderOptions::default());
    assert_px(
        &out.image,
        16,
        32,
        [255, 0, 0, 0x81],
        0,
        "alpha 0x81 > 0x80 passes",
    );
    assert_px(&out.image, 48, 32, [0, 0, 0, 255], 0, "alpha 0x7f fails");
}

#[test]
fn alpha_test_compares_the_8bit_alpha_with_the_reference() {
    // An alpha of exactly 0x80 against the reference 0x80: the test sees the byte the 8-bit
    // rule writes (RPCS3 rounds before it tests), so GEQUAL passes and GREATER fails whatever
    // the interpolation's last bit.
    let Some(gpu) = gpu_support::gpu("alpha_test_8bit") else {
        return;
    };
    for (func, drawn) in [(0x206, true), (0x204, false)] {
        let mut b = scene("alpha8.rrc", true);
        clear(&mut b, 0xFF00_0000);
        set(&mut b, reg::SET_ALPHA_TEST_ENABLE, 1);
        set(&mut b, reg::SET_ALPHA_FUNC, func);
        set(&mut b, reg::SET_ALPHA_REF, 0x80);
        draw(
            &mut b,
            0,
            QUADS,
            &quad(-1.0, -1.0, 1.0, 1.0, 0.0, [255, 0, 0, 0x80]),
        );
        let out = render(&gpu, &b.finish(), &RenderOptions::default());
        let want = if drawn {
            [255, 0, 0, 0x80]
        } else {
            [0, 0, 0, 255]
        };
        assert_px(&out.image, 20, 20, want, 0, "alpha 0x80");
    }
}

#[test]
fn line_mode_draws_the_edges_only() {
    let Some(gpu) = gpu_support::gpu("line_mode") else {
        return;
    };
    let out = render(&gpu, &line_scene(), &RenderOptions::default());
    assert_px(&out.image, 32, 48, [255, 255, 255, 255], 0, "bottom edge");
    assert_px(
        &out.image,
        32,
        40,
        [0, 0, 0, 255],
        0,
        "inside is not filled",
    );
}

#[test]
fn back_faces_are_culled() {
    let Some(gpu) = gpu_support::gpu("back_faces_are_culled") else {
        return;
    };
    let out = render(&gpu, &cull_scene(), &RenderOptions::default());
    // Triangle centroids: (-0.5, -0.17) → window (16, 37); (0.5, -0.17) → (48, 37).
    assert_px(&out.image, 16, 37, [255, 255, 255, 255], 0, "front face");
    assert_px(&out.image, 48, 37, [0, 0, 0, 255], 0, "back face");
}

#[test]
fn scissor_limits_a_full_screen_quad() {
    let Some(gpu) = gpu_support::gpu("scissor") else {
        return;
    };
    let out = render(&gpu, &scissor_scene(), &RenderOptions::default());
    let inside = [10, 20, 30, 40];
    let outside = [0, 0, 0, 255];
    assert_px(&out.image, 16, 8, inside, 0, "first scissor pixel");
    assert_px(&out.image, 31, 31, inside, 0, "last scissor pixel");
    assert_px(&out.image, 15, 8, outside, 0, "left of the scissor");
    assert_px(&out.image, 32, 20, outside, 0, "right of the scissor");
    assert_px(&out.image, 20, 32, outside, 0, "below the scissor");
    assert_px(&out.image, 20, 7, outside, 0, "above the scissor");
}

/// `MOV o[7] (TEX0), v[8]` instead of the colour: the MVP program writing TEX0 from v[8].
fn textured_vertex_program() -> Vec<u32> {
    let mut program = vertex::decode_words(&mvp_vertex_program(32)).unwrap();
    let first = &mut program.instructions[0];
    first.input = VpInput(8);
    first.output = Some(OutputRegister(7));
    vertex::encode(&program)
}

/// `TEX R0, f[TEX0], TEX0`.
fn textured_fragment_program() -> Vec<u8> {
    let mut program = fragment::decode(&FRAGMENT_MOV_COL0).unwrap();
    let insn = &mut program.instructions[0];
    insn.opcode = FpOpcode::Tex;
    insn.input = FpInput(4);
    insn.texture_unit = 0;
    fragment::encode(&program)
}

/// The device keeps recompiled programs for later frames, by content: a second frame whose
/// fragment program differs at the same address renders as it does on a fresh device, not
/// with the first frame's module.
#[test]
fn a_later_frame_on_the_device_gets_its_own_programs() {
    let (Some(gpu), Some(fresh)) = (
        gpu_support::gpu("later_frame_programs"),
        gpu_support::gpu("later_frame_programs (fresh device)"),
    ) else {
        return;
    };
    let frame = |fragment: &[u8]| {
        let mut b = scene("programs.rrc", true);
        clear(&mut b, 0xFF00_0000);
        b.set_fragment_program(Location::Local, FP_OFFSET, fragment, 0x40)
            .unwrap();
        draw(
            &mut b,
            0,
            QUADS,
            &quad(-1.0, -1.0, 1.0, 1.0, 0.0, [10, 20, 30, 40]),
        );
        b.finish()
    };
    // `MOV R0, f[COL1]`: the vertex program writes no COL1.
    let mut program = fragment::decode(&FRAGMENT_MOV_COL0).unwrap();
    program.instructions[0].input = FpInput(2);
    let (first, second) = (
        frame(&FRAGMENT_MOV_COL0),
        frame(&fragment::encode(&program)),
    );
    let a = render(&gpu, &first, &RenderOptions::default());
    let b = render(&gpu, &second, &RenderOptions::default());
    let b_fresh = render(&fresh, &second, &RenderOptions::default());
    assert_px(&a.image, 32, 32, [10, 20, 30, 40], 0, "first frame");
    assert_ne!(px(&b.image, 32, 32), px(&a.image, 32, 32), "second frame");
    assert_eq!(
        b.image, b_fresh.image,
        "second frame after the first vs on a fresh device"
    );
}

/// The device keeps uploaded textures for later frames: a second render of a frame on the
/// same device, which takes its texture from there, draws as the first and warns as it did
/// (its conversion's notes travel with it, `render::gpu::kept`). A border colour none of
/// wgpu's three is no reason for a note: the shader adds it (`TextureLod::border`).
#[test]
fn a_texture_kept_for_a_later_frame_draws_as_the_first() {
    let Some(gpu) = gpu_support::gpu("kept_texture") else {
        return;
    };
    let capture = texture_scene_wrapped("border.rrc", 0x0004_0404, 0x8040_2010);
    let first = render(&gpu, &capture, &RenderOptions::default());
    let second = render(&gpu, &capture, &RenderOptions::default());
    assert!(
        !first
            .warnings
            .iter()
            .any(|w| w.message.contains("border colour")),
        "{:?}",
        first.warnings
    );
    assert_eq!(second.warnings, first.warnings);
    assert_eq!(second.image, first.image);
}

/// A full-screen quad with TEX0 = (u, v) running 0..1 left to right and top to bottom, using
/// texture unit 0 = an A8R8G8B8 linear `side` × `side` texture at `offset` (nearest, clamp).
fn textured_quad(b: &mut CaptureBuilder, page: u32, offset: u32, side: u16) {
    textured_quad_wrapped(b, page, offset, side, 0x0003_0303, 0);
}

/// [`textured_quad`] with the texture's wrap modes (`SET_TEXTURE_ADDRESS`) and border colour.
fn textured_quad_wrapped(
    b: &mut CaptureBuilder,
    page: u32,
    offset: u32,
    side: u16,
    address: u32,
    border_color: u32,
) {
    b.set_vertex_program(&textured_vertex_program(), 16, 16, 0b1_0000_0001, 0x4001)
        .unwrap();
    b.set_fragment_program(
        Location::Local,
        FP_OFFSET + 0x100,
        &textured_fragment_program(),
        0x40,
    )
    .unwrap();
    let desc = TextureDesc {
        offset,
        location: Location::Local,
        format: 0x85 | 0x20, // A8R8G8B8, linear
        dimension: 2,
        cubemap: false,
        mipmaps: 1,
        width: side,
        height: side,
        depth: 1,
        pitch: u32::from(side) * 4,
        address,
        control0: 0x8000_0000 | ((12 << 8) << 7),
        remap: 0x0000_AAE4,
        filter: (1 << 16) | (1 << 24),
        border_color,
        byte_size: u32::from(side) * u32::from(side) * 4,
        border_texels: false,
    };
    b.set_texture(0, &desc).unwrap();
    let at = VERTEX_BASE + page * 0x1000;
    let data: Vec<u8> = [
        [-1.0f32, -1.0, 0.0, 1.0, 0.0, 1.0],
        [1.0, -1.0, 0.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0, 1.0, 0.0],
        [-1.0, 1.0, 0.0, 1.0, 0.0, 0.0],
    ]
    .iter()
    .flat_map(|v| v.iter().flat_map(|c| c.to_be_bytes()))
    .collect();
    b.put_memory(Location::Main, at, &data).unwrap();
    b.disable_vertex_array(3).unwrap();
    b.set_vertex_array(0, TYPE_F, 4, 24, 0, Location::Main, at)
        .unwrap();
    b.set_vertex_array(8, TYPE_F, 2, 24, 0, Location::Main, at + 16)
        .unwrap();
    b.draw_arrays(QUADS, &[(0, 4)]).unwrap();
}

/// The ARGB texel of a 4 × 4 test texture: distinct in every texel.
fn texel(x: u32, y: u32) -> u32 {
    0xFF00_0000 | ((x * 60 + 10) << 16) | ((y * 60 + 20) << 8) | (x * 16 + y * 4 + 100)
}

fn argb_to_rgba(argb: u32) -> [u8; 4] {
    let [a, r, g, b] = argb.to_be_bytes();
    [r, g, b, a]
}

#[test]
fn texture_read_back_at_chosen_pixels() {
    let Some(gpu) = gpu_support::gpu("texture_read_back") else {
        return;
    };
    let out = render(&gpu, &texture_scene(), &RenderOptions::default());
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    // Pixel (x, y) samples u = (x + 0.5) / 64: texel column x / 16, row y / 16.
    for (x, y) in [(0, 0), (17, 3), (40, 20), (63, 63), (5, 50), (60, 33)] {
        let want = argb_to_rgba(texel(x / 16, y / 16));
        assert_px(&out.image, x, y, want, 0, "texel");
    }
}

#[test]
fn a_texture_whose_bytes_change_between_draws_is_read_anew() {
    // Both renderers: the second draw covers the first, so every pixel shows the mirrored
    // texture; a texture cache keyed on the unit state alone would show the first one.
    let capture = ring_buffer_scene();
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let cpu =
        rsxtrace_replay::render::cpu::render_frame(&frame, &events, &RenderOptions::default())
            .unwrap();
    assert_eq!(cpu.texture_cache.misses, 2, "{:?}", cpu.texture_cache);
    for (x, y) in [(0, 0), (17, 3), (40, 20), (63, 63)] {
        let want = argb_to_rgba(texel(3 - x / 16, 3 - y / 16));
        assert_px(&cpu.image, x, y, want, 0, "cpu");
    }
    let Some(gpu) = gpu_support::gpu("ring_buffer_texture") else {
        return;
    };
    let out = render(&gpu, &capture, &RenderOptions::default());
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    for (x, y) in [(0, 0), (17, 3), (40, 20), (63, 63)] {
        let want = argb_to_rgba(texel(3 - x / 16, 3 - y / 16));
        assert_px(&out.image, x, y, want, 0, "gpu");
    }
}

#[test]
fn a_draw_samples_what_an_earlier_draw_rendered() {
    let Some(gpu) = gpu_support::gpu("render_to_texture") else {
        return;
    };
    let out = render(&gpu, &rtt_scene(), &RenderOptions::default());
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_eq!(out.draws_rendered, 3);
    assert_px(
        &out.image,
        10,
        30,
        [255, 0, 0, 255],
        0,
        "left half of the rendered texture",
    );
    assert_px(&out.image, 50, 30, [0, 255, 0, 255], 0, "right half");
}

#[test]
fn depth_surface_read_as_colour() {
    let Some(gpu) = gpu_support::gpu("depth_as_colour") else {
        return;
    };
    let out = render(&gpu, &depth_colour_scene(), &RenderOptions::default());
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_px(
        &out.image,
        20,
        20,
        [0x34, 0x56, 0x78, 0x12],
        0,
        "depth read as colour",
    );
}

#[test]
fn per_draw_snapshots_follow_the_draws() {
    let Some(gpu) = gpu_support::gpu("per_draw") else {
        return;
    };
    let mut b = scene("per_draw.rrc", true);
    clear(&mut b, 0xFF00_0000);
    draw(
        &mut b,
        0,
        QUADS,
        &quad(-1.0, -1.0, 0.0, 1.0, 0.0, [255, 0, 0, 255]),
    );
    draw(
        &mut b,
        1,
        QUADS,
        &quad(0.0, -1.0, 1.0, 1.0, 0.0, [0, 0, 255, 255]),
    );
    let options = RenderOptions {
        per_draw: true,
        ..Default::default()
    };
    let out = render(&gpu, &b.finish(), &options);
    assert_eq!(out.per_draw.len(), 2);
    let first = &out.per_draw[0].image;
    assert_px(first, 10, 10, [255, 0, 0, 255], 0, "after draw 0");
    assert_px(first, 50, 10, [0, 0, 0, 255], 0, "after draw 0");
    assert_px(
        &out.per_draw[1].image,
        50,
        10,
        [0, 0, 255, 255],
        0,
        "after draw 1",
    );
    assert_eq!(out.per_draw[1].image, out.image);
    // Only draw 1: draw 0's quad is missing.
    let options = RenderOptions {
        draws: Some(1..2),
        ..Default::default()
    };
    let mut b = scene("per_draw.rrc", true);
    clear(&mut b, 0xFF00_0000);
    draw(
        &mut b,
        0,
        QUADS,
        &quad(-1.0, -1.0, 0.0, 1.0, 0.0, [255, 0, 0, 255]),
    );
    draw(
        &mut b,
        1,
        QUADS,
        &quad(0.0, -1.0, 1.0, 1.0, 0.0, [0, 0, 255, 255]),
    );
    let out = render(&gpu, &b.finish(), &options);
    assert_eq!(out.draws_rendered, 1);
    assert_px(&out.image, 50, 10, [0, 0, 255, 255], 0, "draw 1 alone");
    assert_ne!(
        px(&out.image, 10, 10),
        [255, 0, 0, 255],
        "draw 0 was not rendered"
    );
}

#[test]
fn unknown_constants_read_as_zero_with_a_warning() {
    let Some(gpu) = gpu_support::gpu("unknown_constants") else {
        return;
    };
    let mut b = scene("constants.rrc", false);
    clear(&mut b, 0xFF00_0000);
    draw(
        &mut b,
        0,
        QUADS,
        &quad(-1.0, -1.0, 1.0, 1.0, 0.0, [255, 255, 255, 255]),
    );
    let out = render(&gpu, &b.finish(), &RenderOptions::default());
    let w: Vec<&str> = out
        .warnings
        .iter()
        .filter(|w| w.draw == Some(0))
        .map(|w| w.message.as_str())
        .collect();
    assert!(
        w.iter()
            .any(|m| m.contains("c[32], c[33], c[34], c[35]") && m.contains("read as 0")),
        "{w:?}"
    );
    // Every position is 0 (w = 0): nothing is drawn.
    assert_px(&out.image, 32, 32, [0, 0, 0, 255], 0, "nothing drawn");
}

#[test]
fn basic_sample_renders() {
    let Some(gpu) = gpu_support::gpu("basic_sample_renders") else {
        return;
    };
    let path = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    let capture = read_file(&path).expect("read the sample capture");
    let out = render(&gpu, &capture, &RenderOptions::default());
    assert_eq!((out.image.width, out.image.height), (256, 256));
    assert_eq!(out.draws_rendered + out.skipped.len(), 3);
    // The clear (ARGB 0xFF202020) is in the corner, where no draw reaches.
    assert_px(&out.image, 0, 0, [0x20, 0x20, 0x20, 0xFF], 0, "clear");
}

/// How far two renders of one frame are apart: pixels with a channel more than `channel`/255
/// apart, and the largest channel difference.
fn difference(a: &Rgba8Image, b: &Rgba8Image, channel: u8) -> (usize, u8) {
    assert_eq!((a.width, a.height), (b.width, b.height), "image sizes");
    let c = Comparison::of(&a.pixels, &b.pixels);
    (c.count_over(channel), c.max_difference())
}

/// The documented GPU-versus-CPU tolerance: a pixel agrees when every channel is within
/// 2/255; at most 0.1% of the pixels of a frame may disagree (edge pixels, where the device's
/// fixed-point rasterizer and the reference's f64 edge functions may decide a centre lying on
/// an edge differently).
const AGREEMENT_CHANNEL: u8 = 2;
const AGREEMENT_PIXELS: f64 = 0.001;
/// The channel tolerance of the 5- and 6-bit formats when blending: one 5-bit step
/// (255/31 ≈ 8.2, rounded up). The device blends into an 8-bit target and rounds to the
/// surface's precision when the target is written back; the reference reads the destination
/// back from the 5-bit surface for every fragment, so blended pixels may differ by a step.
const FIVE_BIT_STEP: u8 = 9;

#[test]
fn gpu_and_cpu_renders_agree() {
    let Some(gpu) = gpu_support::gpu("gpu_and_cpu_renders_agree") else {
        return;
    };
    let path = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    let scenes: Vec<(&str, Capture, u8)> = vec![
        (
            "basic.rrc.gz",
            read_file(&path).expect("read the sample capture"),
            AGREEMENT_CHANNEL,
        ),
        ("clear", clear_scene(), AGREEMENT_CHANNEL),
        ("perspective", perspective_scene(), AGREEMENT_CHANNEL),
        ("blend", blend_scene(), AGREEMENT_CHANNEL),
        ("stencil", stencil_scene(), AGREEMENT_CHANNEL),
        ("alpha", alpha_scene(), AGREEMENT_CHANNEL),
        ("lines", line_scene(), AGREEMENT_CHANNEL),
        ("cull", cull_scene(), AGREEMENT_CHANNEL),
        ("scissor", scissor_scene(), AGREEMENT_CHANNEL),
        ("texture", texture_scene(), AGREEMENT_CHANNEL),
        ("render to texture", rtt_scene(), AGREEMENT_CHANNEL),
        ("depth as colour", depth_colour_scene(), AGREEMENT_CHANNEL),
    ];
    let formats = [
        (1, 2, "X1R5G5B5_Z1R5G5B5", FIVE_BIT_STEP),
        (3, 1, "R5G6B5 + Z16", FIVE_BIT_STEP),
        (5, 2, "X8R8G8B8_O8R8G8B8", AGREEMENT_CHANNEL),
        (9, 2, "B8", AGREEMENT_CHANNEL),
        (10, 1, "G8B8 + Z16", AGREEMENT_CHANNEL),
        (11, 2, "F_W16Z16Y16X16", AGREEMENT_CHANNEL),
        (12, 2, "F_W32Z32Y32X32", AGREEMENT_CHANNEL),
        (13, 2, "F_X32", AGREEMENT_CHANNEL),
        (16, 2, "A8B8G8R8", AGREEMENT_CHANNEL),
    ];
    let scenes = scenes
        .into_iter()
        .chain(formats.map(|(c, d, name, t)| (name, format_scene(c, d), t)));
    for (name, capture, channel) in scenes {
        let frame = Frame::from_capture(&capture).expect("frame model");
        let events = FrameEvents::from_capture(&capture, &frame);
        let options = RenderOptions::default();
        let g = render_frame(&gpu, &frame, &events, &options).expect("GPU render");
        let c = rsxtrace_replay::render::cpu::render_frame(&frame, &events, &options)
            .expect("CPU render");
        assert_eq!(g.source, c.source, "{name}: output source");
        assert_eq!(g.draws_rendered, c.draws_rendered, "{name}: draws rendered");
        let (over, worst) = difference(&g.image, &c.image, channel);
        let pixels = g.image.pixels.len() / 4;
        println!("{name}: {over} of {pixels} pixels differ by more than {channel}/255; largest difference {worst}/255");
        assert!(
            over as f64 <= AGREEMENT_PIXELS * pixels as f64,
            "{name}: {over} of {pixels} pixels differ by more than {channel}/255 \
             (largest {worst})"
        );
    }
}

/// The game-scale sample frame (`traces/samples/game.rrc.gz`, 2,400 draws) on both
/// renderers, under the same tolerance. Ignored: the CPU render of that frame takes minutes
/// in a debug build (`cargo test --release -- --ignored`).
#[test]
#[ignore]
fn game_frame_gpu_and_cpu_agree() {
    let Some(gpu) = gpu_support::gpu("game_frame_gpu_and_cpu_agree") else {
        return;
    };
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let capture = read_file(&path).expect("read the game frame");
    let frame = Frame::from_capture(&capture).expect("frame model");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = RenderOptions::default();
    let g = render_frame(&gpu, &frame, &events, &options).expect("GPU render");
    let c =
        rsxtrace_replay::render::cpu::render_frame(&frame, &events, &options).expect("CPU render");
    assert_eq!(g.draws_rendered, c.draws_rendered);
    let (over, worst) = difference(&g.image, &c.image, AGREEMENT_CHANNEL);
    let pixels = g.image.pixels.len() / 4;
    println!(
        "game: {over} of {pixels} pixels differ by more than {AGREEMENT_CHANNEL}/255; \
         largest difference {worst}/255; GPU {:?}; CPU {:?}",
        g.timings, c.timings
    );
    assert!(over as f64 <= AGREEMENT_PIXELS * pixels as f64);
}

/// `rsxtrace_gpu` targets keep what is written to them: every colour format and both depth
/// formats round-trip (8-bit channels exactly at multiples of 1/255, binary16 exactly at
/// values it represents, Depth16 at multiples of 1/65535, float depth and stencil exactly).
#[test]
fn targets_round_trip_their_contents() {
    use rsxtrace_gpu::{DepthFormat, TargetFormat};
    let Some(gpu) = gpu_support::gpu("targets_round_trip") else {
        return;
    };
    let (w, h) = (5, 3);
    let n = (w * h) as usize;
    let texels: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            let v = i as f32;
            [v / 255.0, (255.0 - v) / 255.0, 128.0 / 255.0, 1.0]
        })
        .collect();
    for format in [
        TargetFormat::Rgba8Unorm,
        TargetFormat::Rgba16Float,
        TargetFormat::Rgba32Float,
    ] {
        let t = gpu
            .create_color_target(format, w, h)
            .expect("colour target");
        gpu.write_color_target(&t, &texels).expect("upload");
        let back = gpu.read_color_target(&t).expect("readback");
        assert_eq!(back.len(), n);
        for (i, (got, want)) in back.iter().zip(&texels).enumerate() {
            let tolerance = match format {
                TargetFormat::Rgba8Unorm => 0.0,
                // binary16 keeps 11 significant bits.
                TargetFormat::Rgba16Float => 1.0 / 2048.0,
                TargetFormat::Rgba32Float => 0.0,
            };
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (g - w).abs() <= tolerance * w.abs().max(1.0),
                    "{format:?} texel {i}: {got:?} vs {want:?}"
                );
            }
        }
    }
    let depth: Vec<f32> = (0..n).map(|i| i as f32 * 4096.0 / 65535.0).collect();
    let stencil: Vec<u8> = (0..n).map(|i| (i * 17) as u8).collect();
    let t = gpu
        .create_depth_target(DepthFormat::Depth16, w, h)
        .expect("depth16");
    gpu.write_depth_target(&t, &depth, None).expect("upload");
    let back = gpu.read_depth_target(&t).expect("readback");
    assert_eq!(back.depth, depth);
    assert_eq!(back.stencil, None);
    let t = gpu
        .create_depth_target(DepthFormat::Depth32Stencil8, w, h)
        .expect("depth32 + stencil8");
    let depth: Vec<f32> = (0..n).map(|i| i as f32 / 7.0 / n as f32).collect();
    gpu.write_depth_target(&t, &depth, Some(&stencil))
        .expect("upload");
    let back = gpu.read_depth_target(&t).expect("readback");
    assert_eq!(back.depth, depth);
    assert_eq!(back.stencil.as_deref(), Some(stencil.as_slice()));
}

/// A vertex program that never ends (a BRI to itself, taken while cc0 is zero) skips its
/// draw on both renderers, with the step limit named: llvmpipe ends such a loop itself after
/// 65,535 iterations, which the GPU render took for a vertex without HPOS and counted as drawn.
#[test]
fn a_vertex_program_that_never_ends_skips_its_draw_on_both_renderers() {
    let Some(gpu) = gpu_support::gpu("vertex_program_never_ends") else {
        return;
    };
    let text = "0: MOV o[COL0], v[3]\n1: NOP; BRI 1 (EQ.xxxx)\n2: MOV o[HPOS], v[0]; END\n";
    let words = vertex::encode(&vertex::assemble(text).unwrap());
    let mut b = scene("never_ends.rrc", true);
    clear(&mut b, 0xFF00_0000);
    let quad_vertices = quad(-1.0, -1.0, 1.0, 1.0, 0.0, [10, 20, 30, 40]);
    draw(&mut b, 0, QUADS, &quad_vertices);
    b.set_vertex_program(&words, 0, 0, 0b1001, 0b1).unwrap();
    draw(&mut b, 1, QUADS, &quad_vertices);
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = RenderOptions::default();
    let on_gpu = render_frame(&gpu, &frame, &events, &options).expect("GPU render");
    let on_cpu =
        rsxtrace_replay::render::cpu::render_frame(&frame, &events, &options).expect("CPU render");
    for (name, out) in [("GPU", &on_gpu), ("CPU", &on_cpu)] {
        assert_eq!(out.skipped.len(), 1, "{name}: {:?}", out.skipped);
        let (draw, why) = &out.skipped[0];
        assert_eq!(*draw, 1, "{name}");
        assert!(
            why.contains("step limit") || why.contains("without reaching END"),
            "{name}: {why}"
        );
        assert_px(&out.image, 32, 32, [10, 20, 30, 40], 0, name);
    }
}
