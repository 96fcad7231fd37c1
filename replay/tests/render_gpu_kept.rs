//! GPU render surfaces kept on the device across surface switches (`render::gpu`'s
//! `resident.rs`, issue 14 item 3): a frame that renders into A, into B, into A again and into
//! B again, then samples A as a texture and copies B with a transfer, gives the image the
//! documented rules give (each expected pixel written here by hand) with and without keeping
//! (`RenderOptions::no_kept_surfaces`) and reads targets back and fills them fewer times when
//! kept ([`SurfaceTraffic`], counted here from the sequence); a depth target later bound as a
//! colour target over the same bytes, and two colour states whose targets overlap, keep the
//! order of their writes; and the small samples render byte for byte the same either way.
//!
//! Every surface is 8 × 8 A8R8G8B8, pitch 32, with a Z24S8 zeta; the viewport maps vertex
//! x, y (pixels) straight to the window; colour quads use `MOV R0, f[COL0]`, sampling quads
//! `TEX R0, f[TEX0], TEX0` over an 8 × 8 linear A8R8G8B8 texture, nearest (each pixel reads
//! the texel under it).

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::{
    CaptureBuilder, MemoryCopyDesc, SurfaceDesc, SurfaceTarget, TextureDesc,
};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{read_file, Capture, Location};
use rsxtrace_replay::render::gpu::render_frame;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame, SurfaceTraffic};

/// Surface A and its zeta.
const A: u32 = 0x0030_0000;
const ZA: u32 = 0x0031_0000;
/// Surface B and its zeta.
const B: u32 = 0x0040_0000;
const ZB: u32 = 0x0041_0000;
/// The output surface and its zeta.
const C: u32 = 0x0010_0000;
const ZC: u32 = 0x0011_0000;
/// Where the transfer copies B.
const D: u32 = 0x0050_0000;
/// Fragment programs.
const FP_COLOUR: u32 = 0x1000;
const FP_TEX: u32 = 0x1100;

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const WHITE: [u8; 4] = [255, 255, 255, 255];

fn target(offset: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: 32,
    }
}

/// An 8 × 8 A8R8G8B8 surface at `colour` with a Z24S8 zeta at `zeta`.
fn surface(colour: u32, zeta: u32) -> SurfaceDesc {
    SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (3, 3),
        color_target: 1,
        colors: [target(colour), target(0), target(0), target(0)],
        zeta: target(zeta),
        clip: (0, 0, 8, 8),
    }
}

/// The builder with the viewport, scissor, programs, and zero bytes at every surface.
fn builder(name: &str) -> CaptureBuilder {
    let mut b = CaptureBuilder::new(name);
    b.set_viewport(0, 0, 8, 8, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, 8, 8);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    for at in [A, ZA, B, ZB, C, ZC, D] {
        b.put_memory(Location::Local, at, &[0u8; 512]).unwrap();
    }
    b
}

/// A quad over pixels x0..x1, y0..y1 with colour `rgba` and texture coordinates = pixel / 8,
/// its vertex data on main memory page `page`.
fn quad(
    b: &mut CaptureBuilder,
    page: u32,
    (x0, x1): (f32, f32),
    (y0, y1): (f32, f32),
    rgba: [u8; 4],
) {
    let c = rgba.map(|v| f32::from(v) / 255.0);
    let vertices =
        corners([x0, y0, x1, y1]).map(|(x, y)| [[x, y, 0.5, 1.0], c, [x / 8.0, y / 8.0, 0.0, 1.0]]);
    draw_vertices(b, 0x1_0000 + page * 0x1000, 8, &vertices);
}

/// A colour quad (`MOV R0, f[COL0]`).
fn colour_quad(b: &mut CaptureBuilder, page: u32, x: (f32, f32), y: (f32, f32), rgba: [u8; 4]) {
    b.set_fragment_program(Location::Local, FP_COLOUR, &FP_MOV_COL0, 0x40)
        .unwrap();
    quad(b, page, x, y, rgba);
}

/// A quad sampling the 8 × 8 A8R8G8B8 bytes at `texture` (`TEX R0, f[TEX0], TEX0`).
fn sampling_quad(b: &mut CaptureBuilder, page: u32, texture: u32, y: (f32, f32)) {
    b.set_fragment_program(Location::Local, FP_TEX, &tex_program(), 0x40)
        .unwrap();
    let desc = TextureDesc {
        offset: texture,
        location: Location::Local,
        format: 0x85 | 0x20,
        width: 8,
        height: 8,
        pitch: 32,
        filter: 0x0101_0000,
        byte_size: 256,
        ..TextureDesc::default()
    };
    b.set_texture(0, &desc).unwrap();
    quad(b, page, (0.0, 8.0), y, WHITE);
}

fn render(gpu: &rsxtrace_gpu::Gpu, capture: &Capture, keep: bool) -> RenderedFrame {
    let frame = Frame::from_capture(capture).expect("frame");
    let events = FrameEvents::from_capture(capture, &frame);
    let options = RenderOptions {
        no_kept_surfaces: !keep,
        ..RenderOptions::default()
    };
    let out = render_frame(gpu, &frame, &events, &options).expect("GPU render");
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    out
}

/// Checks every pixel of `out` against `expect(x, y)`.
fn check(what: &str, out: &RenderedFrame, expect: impl Fn(u32, u32) -> [u8; 4]) {
    assert_eq!((out.image.width, out.image.height), (8, 8), "{what}");
    for y in 0..8 {
        for x in 0..8 {
            let got = out.image.pixel(x, y).unwrap();
            assert_eq!(got, expect(x, y), "{what}: pixel ({x}, {y})");
        }
    }
}

/// Into A (left half red), into B (all blue), into A again (right half green), into B
/// again (left half white); then C's top half samples A, a transfer copies B to D, and C's
/// bottom half samples D.
fn switching_scene() -> Capture {
    let mut b = builder("switching.rrc");
    b.set_surface(&surface(A, ZA));
    colour_quad(&mut b, 0, (0.0, 4.0), (0.0, 8.0), RED);
    b.set_surface(&surface(B, ZB));
    colour_quad(&mut b, 1, (0.0, 8.0), (0.0, 8.0), BLUE);
    b.set_surface(&surface(A, ZA));
    colour_quad(&mut b, 2, (4.0, 8.0), (0.0, 8.0), GREEN);
    b.set_surface(&surface(B, ZB));
    colour_quad(&mut b, 3, (0.0, 4.0), (0.0, 8.0), WHITE);
    b.set_surface(&surface(C, ZC));
    sampling_quad(&mut b, 4, A, (0.0, 4.0));
    b.transfer_memory(&MemoryCopyDesc {
        src: (Location::Local, B),
        dst: (Location::Local, D),
        pitch: (32, 32),
        line_length: 32,
        line_count: 8,
        strides: (1, 1),
    })
    .unwrap();
    sampling_quad(&mut b, 5, D, (4.0, 8.0));
    b.finish()
}

#[test]
fn surfaces_stay_on_the_device_across_switches() {
    let Some(gpu) = gpu_support::gpu("surfaces_stay_on_the_device_across_switches") else {
        return;
    };
    let capture = switching_scene();
    let expect = |x: u32, y: u32| match (x < 4, y < 4) {
        (true, true) => RED,
        (false, true) => GREEN,
        (true, false) => WHITE,
        (false, false) => BLUE,
    };
    let kept = render(&gpu, &capture, true);
    let before = render(&gpu, &capture, false);
    check("kept", &kept, expect);
    check("not kept", &before, expect);
    assert_eq!(kept.image, before.image);
    // Each state has a colour and a depth target. Kept: A and B are filled once each and
    // bound again twice each from the device; A's colour is read back when C samples it, B's
    // when the transfer reads it, and C's two targets for the output image.
    assert_eq!(
        kept.surface_traffic,
        SurfaceTraffic {
            uploads: 6,
            readbacks: 4,
            kept_binds: 4,
            aliased: 0,
            evicted: 0,
        }
    );
    // Before: every switch (A→B→A→B→C) writes back both targets of the state it leaves and
    // fills both of the one it enters, the transfer writes back C and drops it, the last
    // draw fills C again, and the output writes it back.
    assert_eq!(
        before.surface_traffic,
        SurfaceTraffic {
            uploads: 12,
            readbacks: 12,
            kept_binds: 0,
            aliased: 0,
            evicted: 0,
        }
    );
}

#[test]
fn a_depth_target_bound_again_as_colour_is_written_back_first() {
    let Some(gpu) = gpu_support::gpu("a_depth_target_bound_again_as_colour") else {
        return;
    };
    // A's zeta is cleared to depth 0x123456, stencil 0x78 (kept on the device, not written
    // back); then a state binds those bytes as its colour target and draws its left half
    // red; C samples them: left red, right the depth bytes read as A8R8G8B8 (A, R, G = depth
    // bytes high to low, B = stencil).
    let mut b = builder("depth_as_colour.rrc");
    b.set_surface(&surface(A, ZA));
    b.clear_surface(0x03, 0, 0x1234_5678);
    colour_quad(&mut b, 0, (0.0, 8.0), (0.0, 8.0), BLUE);
    b.set_surface(&surface(ZA, ZB));
    colour_quad(&mut b, 1, (0.0, 4.0), (0.0, 8.0), RED);
    b.set_surface(&surface(C, ZC));
    sampling_quad(&mut b, 2, ZA, (0.0, 8.0));
    let capture = b.finish();
    let expect = |x: u32, _y: u32| {
        if x < 4 {
            RED
        } else {
            [0x34, 0x56, 0x78, 0x12]
        }
    };
    let kept = render(&gpu, &capture, true);
    check("kept", &kept, expect);
    check("not kept", &render(&gpu, &capture, false), expect);
    assert!(
        kept.surface_traffic.aliased >= 1,
        "{:?}",
        kept.surface_traffic
    );
}

#[test]
fn overlapping_colour_states_keep_the_order_of_their_writes() {
    let Some(gpu) = gpu_support::gpu("overlapping_colour_states") else {
        return;
    };
    // S1 at A (rows 0..8) and S2 at A + 4 rows (its rows 0..4 are S1's rows 4..8). S1 all
    // red, S2 all green, S1 again: left half blue. C samples S1's bytes: left blue, right
    // red above row 4 and green (S2's write, later than S1's red) below.
    let s2 = A + 4 * 32;
    let mut b = builder("overlapping.rrc");
    b.set_surface(&surface(A, ZA));
    colour_quad(&mut b, 0, (0.0, 8.0), (0.0, 8.0), RED);
    b.set_surface(&surface(s2, ZB));
    colour_quad(&mut b, 1, (0.0, 8.0), (0.0, 8.0), GREEN);
    b.set_surface(&surface(A, ZA));
    colour_quad(&mut b, 2, (0.0, 4.0), (0.0, 8.0), BLUE);
    b.set_surface(&surface(C, ZC));
    sampling_quad(&mut b, 3, A, (0.0, 8.0));
    let capture = b.finish();
    let expect = |x: u32, y: u32| match (x < 4, y < 4) {
        (true, _) => BLUE,
        (false, true) => RED,
        (false, false) => GREEN,
    };
    let kept = render(&gpu, &capture, true);
    check("kept", &kept, expect);
    check("not kept", &render(&gpu, &capture, false), expect);
    // S1's colour is dropped when S2 is bound over it, S2's when S1 is bound again.
    assert_eq!(
        kept.surface_traffic.aliased, 2,
        "{:?}",
        kept.surface_traffic
    );
}

/// A 64 × 64 quad (pixels) whose depth runs across the corners' `z` (many distinct depth
/// values), vertex data on page `page`.
fn sloped_quad(b: &mut CaptureBuilder, page: u32, z: [f32; 4], rgba: [u8; 4]) {
    let c = rgba.map(|v| f32::from(v) / 255.0);
    let mut vertices = [[[0.0; 4]; 3]; 4];
    for ((v, (x, y)), z) in vertices
        .iter_mut()
        .zip(corners([0.0, 0.0, 64.0, 64.0]))
        .zip(z)
    {
        *v = [[x, y, z, 1.0], c, [0.0, 0.0, 0.0, 1.0]];
    }
    draw_vertices(b, 0x1_0000 + page * 0x1000, 8, &vertices);
}

#[test]
fn depth_kept_on_the_device_compares_as_depth_written_back() {
    let Some(gpu) = gpu_support::gpu("depth_kept_compares_as_written_back") else {
        return;
    };
    // A 64 × 64 state draws a sloped quad (4,096 distinct Z24S8 values) with depth writes,
    // another state is drawn, then the first is bound again and the same quad drawn with
    // EQUAL: every pixel passes only if the depth the device kept compares like the depth
    // written back to memory and filled again (both on the 24-bit grid, `shader.rs`).
    const LESS: u32 = 0x201;
    const EQUAL: u32 = 0x202;
    let z = [0.1234567, 0.3141593, 0.8765432, 0.5772157];
    let mut b = builder("depth_kept.rrc");
    let big = |colour, zeta| SurfaceDesc {
        colors: [
            SurfaceTarget {
                location: Location::Local,
                offset: colour,
                pitch: 256,
            },
            target(0),
            target(0),
            target(0),
        ],
        zeta: SurfaceTarget {
            location: Location::Local,
            offset: zeta,
            pitch: 256,
        },
        log2_size: (6, 6),
        clip: (0, 0, 64, 64),
        ..surface(colour, zeta)
    };
    b.set_viewport(0, 0, 64, 64, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, 64, 64);
    b.set_fragment_program(Location::Local, FP_COLOUR, &FP_MOV_COL0, 0x40)
        .unwrap();
    b.set_surface(&big(0x0060_0000, 0x0070_0000));
    b.clear_surface(0xF3, 0, 0xFFFF_FF00);
    b.set_depth(true, LESS, true);
    sloped_quad(&mut b, 0, z, RED);
    b.set_surface(&big(0x0080_0000, 0x0090_0000));
    sloped_quad(&mut b, 1, z, BLUE);
    b.set_surface(&big(0x0060_0000, 0x0070_0000));
    b.set_depth(true, EQUAL, false);
    sloped_quad(&mut b, 2, z, GREEN);
    let capture = b.finish();
    let kept = render(&gpu, &capture, true);
    let before = render(&gpu, &capture, false);
    assert_eq!(kept.image, before.image);
    assert_eq!(
        kept.surface_traffic.kept_binds, 2,
        "{:?}",
        kept.surface_traffic
    );
    let green = kept.image.pixels.chunks(4).filter(|p| *p == GREEN).count();
    assert_eq!(green, 64 * 64, "pixels passing EQUAL on the kept depth");
}

#[test]
fn samples_render_the_same_with_and_without_kept_surfaces() {
    let Some(gpu) = gpu_support::gpu("samples_render_the_same_kept") else {
        return;
    };
    let ws = rsxtrace_testkit::workspace!();
    let mut paths: Vec<_> = [
        "basic.rrc.gz",
        "primitives.rrc.gz",
        "texture_formats.rrc.gz",
    ]
    .iter()
    .map(|name| ws.sample(name))
    .collect();
    paths.push(ws.level_dir().join("level.rrc.gz"));
    for path in paths {
        let capture = read_file(&path).expect("read the sample");
        let frame = Frame::from_capture(&capture).expect("frame");
        let events = FrameEvents::from_capture(&capture, &frame);
        let with = |no_kept_surfaces, per_draw| RenderOptions {
            no_kept_surfaces,
            per_draw,
            ..RenderOptions::default()
        };
        for per_draw in [false, true] {
            let kept = render_frame(&gpu, &frame, &events, &with(false, per_draw)).unwrap();
            let before = render_frame(&gpu, &frame, &events, &with(true, per_draw)).unwrap();
            let what = format!("{} (per draw: {per_draw})", path.display());
            assert_eq!(kept.image, before.image, "{what}");
            assert_eq!(kept.skipped, before.skipped, "{what}");
            assert_eq!(kept.warnings, before.warnings, "{what}");
            let snapshots = |f: &RenderedFrame| -> Vec<_> {
                f.per_draw
                    .iter()
                    .map(|s| (s.draw, s.image.clone()))
                    .collect()
            };
            assert_eq!(snapshots(&kept), snapshots(&before), "{what}");
            assert!(
                kept.surface_traffic.readbacks <= before.surface_traffic.readbacks,
                "{what}: {:?} vs {:?}",
                kept.surface_traffic,
                before.surface_traffic
            );
        }
    }
}
