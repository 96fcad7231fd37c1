//! Multisampled surfaces on both renderers (`render::msaa`): a white triangle with slanted
//! edges drawn into a 4×4-pixel surface with 4 samples square centred (antialias 4) over
//! black. Expected values are computed here from the documented rules:
//! - sample `i` of pixel `(x, y)` sits at `(x + (i mod 2 + ½)/2, y + (i div 2 + ½)/2)` and is
//!   covered when it lies inside the triangle (no sample lies near an edge, checked);
//! - in memory the surface is an 8×8 grid, sample `i` of pixel `(x, y)` at
//!   `(2x + i mod 2, 2y + i div 2)` (RPCS3 `VKResolveHelper.h`): checked by sampling the
//!   grid as an 8×8 texture in a later one-sample draw;
//! - the output image is the resolve: each channel the mean of the 4 samples, rounded half
//!   up; checked on the output, and again after a game-style resolve through an `NV3089`
//!   2:1 FOH scaled image (the mean of each 2×2 block of the grid);
//! - `SET_ANTI_ALIASING_CONTROL`: the sample mask keeps its samples' grid positions only,
//!   alpha to one blends with alpha 1, alpha to coverage keeps the samples of its ordered
//!   dither (on one-sample surfaces too) and is warned;
//! - WPOS counts pixels, not samples, whatever the shader window's origin.

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::{
    CaptureBuilder, ScaledImageDesc, SurfaceDesc, SurfaceTarget, TextureDesc, TransferSurfaceDesc,
};
use rsxtrace_capture::frame::{reg, Frame};
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame};

/// The multisampled surface: 4×4 pixels, an 8×8 grid of samples, pitch 32.
const AA: u32 = 0x0010_0000;
const AA_ZETA: u32 = 0x0020_0000;
/// A one-sample 8×8 surface for the later draws.
const COLOR: u32 = 0x0030_0000;
const ZETA: u32 = 0x0040_0000;
const DEST: u32 = 0x0050_0000;

/// The triangle, in pixels.
const TRIANGLE: [(f32, f32); 3] = [(0.07, 0.06), (3.68, 1.83), (0.15, 3.6)];

/// A triangle no sample of modes 3 and 5 (nor a grid-cell centre) lies within 0.04 pixel
/// of an edge of, and whose coverage differs at a few samples of each mode between the
/// samples' positions and their grid cells' centres.
const PATTERN_TRIANGLE: [(f32, f32); 3] = [(0.33, 0.49), (3.15, 1.88), (0.32, 3.4)];

fn target(offset: u32, pitch: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch,
    }
}

/// A `size`×`size` A8R8G8B8 + Z24S8 surface; `antialias` 4 or 5 doubles both sides in
/// memory, 3 the width.
fn surface(color: u32, zeta: u32, size: u16, antialias: u32) -> SurfaceDesc {
    let grid = if antialias == 0 { 1 } else { 2 };
    let pitch = u32::from(size) * grid * 4;
    SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias,
        log2_size: (3, 3),
        color_target: 1,
        colors: [
            target(color, pitch),
            target(0, 64),
            target(0, 64),
            target(0, 64),
        ],
        zeta: target(zeta, pitch),
        clip: (0, 0, size, size),
    }
}

/// Vertices `(x, y)` in window pixels, white, texture coordinates `(x, y) / 8`.
fn draw(b: &mut CaptureBuilder, at: u32, primitive: u32, points: &[(f32, f32)]) {
    let vertices: Vec<TestVertex> = points
        .iter()
        .map(|&(x, y)| [[x, y, 0.5, 1.0], [1.0; 4], [x / 8.0, y / 8.0, 0.0, 1.0]])
        .collect();
    draw_vertices(b, at, primitive, &vertices);
}

/// The multisampled surface bound and cleared to opaque black, the programs set.
fn aa_setup(name: &str) -> CaptureBuilder {
    setup(name, surface(AA, AA_ZETA, 4, 4))
}

/// `target` bound (`size`×`size` pixels, its viewport) and cleared to opaque black, the
/// programs set.
fn setup(name: &str, target: SurfaceDesc) -> CaptureBuilder {
    let size = target.clip.2;
    let mut b = CaptureBuilder::new(name);
    b.set_viewport(0, 0, size, size, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, 4096, 4096);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    b.set_surface(&target);
    b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
    b
}

/// Draw 0: the triangle into the multisampled surface (cleared to opaque black first).
fn aa_scene(name: &str) -> CaptureBuilder {
    let mut b = aa_setup(name);
    draw(&mut b, 0x1_0000, 5, &TRIANGLE);
    b
}

/// The 8×8 one-sample surface, a full quad sampling texture unit 0 (`w`×`h` A8R8G8B8 at
/// `offset`, pitch `pitch`, nearest) at every pixel centre.
fn sample_into_color(b: &mut CaptureBuilder, offset: u32, w: u16, h: u16, pitch: u32) {
    b.set_surface(&surface(COLOR, ZETA, 8, 0));
    b.set_viewport(0, 0, 8, 8, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.put_memory(
        Location::Local,
        offset,
        &vec![0u8; (pitch * u32::from(h)) as usize],
    )
    .unwrap();
    let texture = TextureDesc {
        offset,
        width: w,
        height: h,
        pitch,
        filter: 0x0101_0000,
        byte_size: pitch * u32::from(h),
        ..TextureDesc::default()
    };
    b.set_texture(0, &texture).unwrap();
    b.set_fragment_program(Location::Local, 0x2000, &tex_program(), 0x40)
        .unwrap();
    draw(
        b,
        0x2_0000,
        8,
        &[(0.0, 0.0), (8.0, 0.0), (8.0, 8.0), (0.0, 8.0)],
    );
}

/// Edge function of `p` against edge `a → b`.
fn edge(a: (f32, f32), b: (f32, f32), p: (f64, f64)) -> f64 {
    let (ax, ay, bx, by) = (
        f64::from(a.0),
        f64::from(a.1),
        f64::from(b.0),
        f64::from(b.1),
    );
    (bx - ax) * (p.1 - ay) - (by - ay) * (p.0 - ax)
}

/// Sample `i` of pixel `(x, y)` is covered (four samples square centred).
fn covered(x: u32, y: u32, i: u32) -> bool {
    covered_at(
        TRIANGLE,
        x,
        y,
        (
            (f64::from(i % 2) + 0.5) / 2.0,
            (f64::from(i / 2) + 0.5) / 2.0,
        ),
    )
}

/// The sample at `(dx, dy)` within pixel `(x, y)` lies inside `triangle`.
fn covered_at(triangle: [(f32, f32); 3], x: u32, y: u32, (dx, dy): (f64, f64)) -> bool {
    let p = (f64::from(x) + dx, f64::from(y) + dy);
    let [a, b, c] = triangle;
    let e = [edge(a, b, p), edge(b, c, p), edge(c, a, p)];
    for (v, (s, t)) in e.iter().zip([(a, b), (b, c), (c, a)]) {
        let length = f64::from((t.0 - s.0).hypot(t.1 - s.1));
        assert!(
            v.abs() / length > 0.04,
            "sample ({x} + {dx}, {y} + {dy}) lies within 0.04 pixel of an edge"
        );
    }
    e.iter().all(|&v| v > 0.0) || e.iter().all(|&v| v < 0.0)
}

/// The resolved value of pixel `(x, y)`: white in proportion to its covered samples.
fn resolved(x: u32, y: u32) -> [u8; 4] {
    let n = (0..4).filter(|&i| covered(x, y, i)).count() as u32;
    let v = ((255 * n + 2) / 4) as u8;
    [v, v, v, 255]
}

/// Render on the CPU (tiled) or on `device`; nothing skipped, no warning.
fn render(capture: &Capture, device: Option<&rsxtrace_gpu::Gpu>) -> RenderedFrame {
    let out = render_warned(capture, device);
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    out
}

/// [`render`] that leaves the warnings to the caller.
fn render_warned(capture: &Capture, device: Option<&rsxtrace_gpu::Gpu>) -> RenderedFrame {
    let frame = Frame::from_capture(capture).expect("frame");
    let events = FrameEvents::from_capture(capture, &frame);
    let options = RenderOptions::default();
    let out = match device {
        None => cpu_render_tiled(&frame, &events, &options),
        Some(g) => rsxtrace_replay::render::gpu::render_frame(g, &frame, &events, &options),
    }
    .expect("render");
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    out
}

fn check_all(device: Option<&rsxtrace_gpu::Gpu>) {
    let what = if device.is_some() { "GPU" } else { "CPU" };
    // The coverage differs from pixel to pixel: some pixels have 1, 2 and 3 of 4 samples.
    let counts: Vec<usize> = (0..16)
        .map(|k| (0..4).filter(|&i| covered(k % 4, k / 4, i)).count())
        .collect();
    for n in 1..=3 {
        assert!(counts.contains(&n), "no pixel with {n} covered samples");
    }

    // The output is the resolved 4×4 image.
    let out = render(&aa_scene("msaa_resolve.rrc").finish(), device);
    assert_eq!((out.image.width, out.image.height), (4, 4), "{what}");
    for (x, y) in (0..4).flat_map(|y| (0..4).map(move |x| (x, y))) {
        assert_eq!(
            out.image.pixel(x, y),
            Some(resolved(x, y)),
            "{what} resolve ({x}, {y})"
        );
    }

    // The grid in memory, read as an 8×8 texture by a one-sample draw.
    let mut b = aa_scene("msaa_layout.rrc");
    sample_into_color(&mut b, AA, 8, 8, 32);
    let out = render(&b.finish(), device);
    for (gx, gy) in (0..8).flat_map(|y| (0..8).map(move |x| (x, y))) {
        let i = gx % 2 + 2 * (gy % 2);
        let v = if covered(gx / 2, gy / 2, i) { 255 } else { 0 };
        assert_eq!(
            out.image.pixel(gx, gy),
            Some([v, v, v, 255]),
            "{what} grid ({gx}, {gy})"
        );
    }

    // A game-style resolve: NV3089 2:1 FOH from the grid into a 4×4 surface, then sampled
    // (image pixel (x, y) shows resolved pixel (x / 2, y / 2)).
    let mut b = aa_scene("msaa_transfer_resolve.rrc");
    b.set_transfer_surface(&TransferSurfaceDesc {
        location: Location::Local,
        offset: DEST,
        pitch: 16,
        format: 0xA,
    });
    b.transfer_scaled(&ScaledImageDesc {
        src: (Location::Local, AA),
        conversion: 1,
        format: 3,
        operation: 3,
        clip: (0, 0, 4, 4),
        out: (0, 0, 4, 4),
        ratio: (2 << 20, 2 << 20),
        in_size: (8, 8),
        pitch: 32,
        origin: 2,
        interpolator: 1,
        in_point: (0, 0),
    })
    .unwrap();
    sample_into_color(&mut b, DEST, 4, 4, 16);
    let out = render(&b.finish(), device);
    for (x, y) in (0..8).flat_map(|y| (0..8).map(move |x| (x, y))) {
        assert_eq!(
            out.image.pixel(x, y),
            Some(resolved(x / 2, y / 2)),
            "{what} NV3089 resolve ({x}, {y})"
        );
    }
}

#[test]
fn a_four_sample_surface_is_laid_out_and_resolved_on_the_cpu() {
    check_all(None);
}

/// `replay --target`'s grab of the multisampled target is resolved as the output image is;
/// its depth surface too, to one grey level per pixel.
#[test]
fn a_grabbed_multisampled_target_is_resolved_as_the_output_is() {
    use rsxtrace_replay::render::target::{target_at, TargetGrab};
    let capture = aa_scene("msaa_grab.rrc").finish();
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let options = RenderOptions::default();
    for (address, depth) in [(AA, false), (AA_ZETA, true)] {
        let target = target_at(&frame, Location::Local, address).expect("a target");
        assert_eq!(target.format.is_depth(), depth);
        assert_eq!(
            (target.layout.width, target.layout.height),
            (8, 8),
            "the grid"
        );
        let mut grab = TargetGrab::new(target);
        let out = rsxtrace_replay::render::cpu::render_frame_observed(
            &frame, &events, &options, &mut grab,
        )
        .expect("render");
        let image = grab.image().expect("grabbed");
        assert_eq!((image.width, image.height), (4, 4));
        if !depth {
            assert_eq!(image, &out.image);
        }
    }
}

#[test]
fn a_four_sample_surface_is_laid_out_and_resolved_on_the_gpu() {
    let Some(device) =
        gpu_support::gpu("a_four_sample_surface_is_laid_out_and_resolved_on_the_gpu")
    else {
        return;
    };
    check_all(Some(&device));
}

/// Where a sample lies within its pixel.
type Position = (f64, f64);

/// Modes 3 (two samples, diagonal) and 5 (four, rotated): each sample is covered at its
/// position in the pixel, the Vulkan standard locations RPCS3's host uses, (¾, ¾), (¼, ¼) and
/// (⅜, ⅛), (⅞, ⅜), (⅛, ⅝), (⅝, ⅞), and stored at grid position `(i mod sx, i div sx)`; checked
/// on the grid read back as a texture. Neither mode is warned about.
fn check_off_grid_patterns(device: Option<&rsxtrace_gpu::Gpu>) {
    let what = if device.is_some() { "GPU" } else { "CPU" };
    let modes: [(u32, (u32, u32), &[Position]); 2] = [
        (3, (2, 1), &[(0.75, 0.75), (0.25, 0.25)]),
        (
            5,
            (2, 2),
            &[
                (0.375, 0.125),
                (0.875, 0.375),
                (0.125, 0.625),
                (0.625, 0.875),
            ],
        ),
    ];
    for (mode, (sx, sy), positions) in modes {
        let mut b = aa_setup("msaa_pattern.rrc");
        b.set_surface(&surface(AA, AA_ZETA, 4, mode));
        b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
        draw(&mut b, 0x1_0000, 5, &PATTERN_TRIANGLE);
        sample_into_color(&mut b, AA, (4 * sx) as u16, (4 * sy) as u16, 32);
        let out = render(&b.finish(), device);
        let mut off_centre = 0;
        for (gx, gy) in (0..4 * sy).flat_map(|y| (0..4 * sx).map(move |x| (x, y))) {
            let i = (gx % sx + (gy % sy) * sx) as usize;
            let (x, y) = (gx / sx, gy / sy);
            let on = covered_at(PATTERN_TRIANGLE, x, y, positions[i]);
            let centre = (
                (f64::from(gx % sx) + 0.5) / f64::from(sx),
                (f64::from(gy % sy) + 0.5) / f64::from(sy),
            );
            off_centre += usize::from(on != covered_at(PATTERN_TRIANGLE, x, y, centre));
            let v = if on { 255 } else { 0 };
            // The later 8x8 draw reads the grid texel by texel (a 4-row grid in rows 0, 2, ..).
            let shown = out.image.pixel(gx, gy * (2 / sy));
            assert_eq!(
                shown,
                Some([v, v, v, 255]),
                "{what} mode {mode} grid ({gx}, {gy}) sample {i}"
            );
        }
        assert!(
            off_centre > 0,
            "mode {mode}: the positions change nothing here"
        );
    }
}

#[test]
fn off_grid_sample_patterns_cover_each_sample_at_its_position() {
    check_off_grid_patterns(None);
    if let Some(g) = gpu_support::gpu("off_grid_sample_patterns_cover_each_sample_at_its_position")
    {
        check_off_grid_patterns(Some(&g));
    }
}

/// A full quad of colour `rgba` into the multisampled surface (cleared to opaque black) with
/// `SET_ANTI_ALIASING_CONTROL` = `control`, blending SRC_ALPHA / ONE_MINUS_SRC_ALPHA when
/// `blend`.
fn control_scene(name: &str, control: u32, rgba: [f32; 4], blend: bool) -> CaptureBuilder {
    let mut b = aa_setup(name);
    b.method(0x1D7C >> 2, control).unwrap(); // SET_ANTI_ALIASING_CONTROL
    if blend {
        b.method(0x0310 >> 2, 1).unwrap(); // SET_BLEND_ENABLE
        b.method(0x0314 >> 2, 0x0302_0302).unwrap(); // SFACTOR: SRC_ALPHA
        b.method(0x0318 >> 2, 0x0303_0303).unwrap(); // DFACTOR: ONE_MINUS_SRC_ALPHA
    }
    let quad = corners([0.0, 0.0, 4.0, 4.0]).map(|(x, y)| [[x, y, 0.5, 1.0], rgba, [0.0; 4]]);
    draw_vertices(&mut b, 0x1_0000, 8, &quad);
    b
}

fn check_control(device: Option<&rsxtrace_gpu::Gpu>) {
    let what = if device.is_some() { "GPU" } else { "CPU" };
    // Sample mask 0b1001 (samples 0 and 3; enable bit on): in the grid, (0, 0) and (1, 1) of
    // every 2×2 cell are written, the others keep the clear; resolved, half white.
    let mut b = control_scene("msaa_mask.rrc", 0x0009_0001, [1.0; 4], false);
    sample_into_color(&mut b, AA, 8, 8, 32);
    let out = render(&b.finish(), device);
    for (gx, gy) in (0..8).flat_map(|y| (0..8).map(move |x| (x, y))) {
        let i = gx % 2 + 2 * (gy % 2);
        let v = if i == 0 || i == 3 { 255 } else { 0 };
        assert_eq!(
            out.image.pixel(gx, gy),
            Some([v, v, v, 255]),
            "{what} masked grid ({gx}, {gy})"
        );
    }
    let out = render(
        &control_scene("msaa_mask_resolve.rrc", 0x0009_0001, [1.0; 4], false).finish(),
        device,
    );
    assert_eq!(out.image.pixel(2, 1), Some([128, 128, 128, 255]), "{what}");
    // Alpha to one (bit 8): alpha 0.25 blends as 1 (white, alpha 1); without it 0.25 over
    // opaque black gives 64 and alpha 0.25·0.25 + 0.75 = 0.8125.
    for (control, want) in [
        (0xFFFF_0101, [255, 255, 255, 255]),
        (0xFFFF_0001, [64, 64, 64, 207]),
    ] {
        let b = control_scene("msaa_a2one.rrc", control, [1.0, 1.0, 1.0, 0.25], true);
        let out = render(&b.finish(), device);
        assert_eq!(
            out.image.pixel(1, 2),
            Some(want),
            "{what} control {control:#x}"
        );
    }
}

#[test]
fn the_sample_mask_and_alpha_to_one_apply_to_multisampled_surfaces() {
    check_control(None);
    if let Some(device) =
        gpu_support::gpu("the_sample_mask_and_alpha_to_one_apply_to_multisampled_surfaces")
    {
        check_control(Some(&device));
    }
}

/// The documented alpha-to-coverage rule (`render::msaa`), written out here: the sample at grid
/// position `(x, y)` is kept when alpha exceeds `(B[y mod 4][x mod 4] + ½) / 16`, `B` the 4×4
/// Bayer matrix.
fn a2c_keeps(alpha: f32, x: u32, y: u32) -> bool {
    const B: [[u32; 4]; 4] = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]];
    f64::from(alpha) > (f64::from(B[(y % 4) as usize][(x % 4) as usize]) + 0.5) / 16.0
}

/// Render allowing only the alpha-to-coverage warning, which every draw with it carries.
fn render_a2c(capture: &Capture, device: Option<&rsxtrace_gpu::Gpu>) -> RenderedFrame {
    let out = render_warned(capture, device);
    assert!(
        out.warnings
            .iter()
            .all(|w| w.draw == Some(0) && w.message.contains("alpha to coverage")),
        "{:?}",
        out.warnings
    );
    assert!(!out.warnings.is_empty());
    out
}

fn check_alpha_to_coverage(device: Option<&rsxtrace_gpu::Gpu>) {
    let what = if device.is_some() { "GPU" } else { "CPU" };
    // Four samples: a white quad of alpha `a` with alpha to coverage (bit 4) over opaque
    // black, its grid then read back as a texture by a one-sample draw without it. The
    // 8-bit write rule moves alpha 0.5 to 127/255 or 128/255, both between the thresholds
    // 7.5/16 and 8.5/16: half of each 4x4 block of the grid, two samples of every pixel.
    for a in [0.0f32, 0.5, 1.0] {
        let mut b = control_scene("msaa_a2c.rrc", 0xFFFF_0011, [1.0, 1.0, 1.0, a], false);
        b.method(0x1D7C >> 2, 0xFFFF_0001).unwrap();
        sample_into_color(&mut b, AA, 8, 8, 32);
        let out = render_a2c(&b.finish(), device);
        let alpha = (a * 255.0).round() as u8;
        for (gx, gy) in (0..8).flat_map(|y| (0..8).map(move |x| (x, y))) {
            let want = if a2c_keeps(a, gx, gy) {
                [255, 255, 255, alpha]
            } else {
                [0, 0, 0, 255]
            };
            assert_eq!(
                out.image.pixel(gx, gy),
                Some(want),
                "{what} alpha {a} grid ({gx}, {gy})"
            );
        }
        if a == 0.5 {
            for (x, y) in (0..4).flat_map(|y| (0..4).map(move |x| (x, y))) {
                let kept = (0..4)
                    .filter(|i| a2c_keeps(a, 2 * x + i % 2, 2 * y + i / 2))
                    .count();
                assert_eq!(kept, 2, "pixel ({x}, {y})");
            }
        }
    }
    // One sample per pixel: the same rule on the pixel grid (RPCS3 applies alpha to coverage
    // at one sample too). Alpha 0.3 (76 or 77 of 255) lies between 4.5/16 and 5.5/16: five
    // pixels of every 4x4 block.
    let mut b = setup("a2c_one_sample.rrc", surface(COLOR, ZETA, 8, 0));
    b.method(0x1D7C >> 2, 0xFFFF_0010).unwrap(); // alpha to coverage, enable bit off
    let quad = corners([0.0, 0.0, 8.0, 8.0])
        .map(|(x, y)| [[x, y, 0.5, 1.0], [1.0, 1.0, 1.0, 0.3], [0.0; 4]]);
    draw_vertices(&mut b, 0x1_0000, 8, &quad);
    let out = render_a2c(&b.finish(), device);
    let mut kept = 0;
    for (x, y) in (0..8).flat_map(|y| (0..8).map(move |x| (x, y))) {
        let on = a2c_keeps(0.3, x, y);
        kept += usize::from(on);
        let want = if on {
            [255, 255, 255, 77]
        } else {
            [0, 0, 0, 255]
        };
        let got = out.image.pixel(x, y).unwrap();
        assert_eq!(
            (got[0], got[3] == 255),
            (want[0], want[3] == 255),
            "{what} one sample ({x}, {y}): {got:?}"
        );
    }
    assert_eq!(kept, 4 * 5);
}

#[test]
fn alpha_to_coverage_keeps_the_samples_of_the_ordered_dither() {
    check_alpha_to_coverage(None);
    if let Some(g) = gpu_support::gpu("alpha_to_coverage_keeps_the_samples_of_the_ordered_dither") {
        check_alpha_to_coverage(Some(&g));
    }
}

/// `COL0 = WPOS · (1/8, 1/8, 0, 0) + (0, 0, 0, 1)`, as `disasm` writes it.
fn wpos_program() -> Vec<u8> {
    let text = "0: MULR R0, f[WPOS], {0.125, 0.125, 0.0, 0.0};\n\
                2: ADDR R0.w, R0, {0.0, 0.0, 0.0, 1.0}.wwww; END\n";
    let program = rsxtrace_program::fragment::assemble(text).expect("assembles");
    rsxtrace_program::fragment::encode(&program)
}

fn check_wpos(device: Option<&rsxtrace_gpu::Gpu>) {
    // A full-surface quad into the 4×4-pixel, 4-sample surface (half-pixel centre): the RSX
    // shades a pixel once, and WPOS counts pixels, not samples (RPCS3 gives the host's pixel
    // position). So every sample of pixel (x, y) holds ((x + ½)/8, (y' + ½)/8, 0, 1), y' = y
    // with the shader window's origin at the top, 3 − y with it at the bottom of its 4-pixel
    // height, and so does the resolved pixel; WPOS on the sample grid would give about twice.
    for origin_bottom in [false, true] {
        let mut b = aa_setup("msaa_wpos.rrc");
        // SET_SHADER_WINDOW: height 4 pixels, the origin, half-pixel centre.
        b.method(0x1D88 >> 2, 4 | u32::from(origin_bottom) << 12)
            .unwrap();
        b.set_fragment_program(Location::Local, 0x2000, &wpos_program(), 0x40)
            .unwrap();
        draw(
            &mut b,
            0x1_0000,
            7,
            &[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0)],
        );
        let out = render(&b.finish(), device);
        let byte = |v: f64| (v * 255.0).round() as u8;
        for y in 0..4 {
            let wy = if origin_bottom { 3 - y } else { y };
            for x in 0..4 {
                let want = [
                    byte((f64::from(x) + 0.5) / 8.0),
                    byte((f64::from(wy) + 0.5) / 8.0),
                    0,
                    255,
                ];
                let at = format!("({x}, {y}), origin bottom {origin_bottom}");
                assert_eq!(out.image.pixel(x, y), Some(want), "{at}");
            }
        }
    }
}

#[test]
fn wpos_counts_pixels_on_a_multisampled_surface() {
    check_wpos(None);
    if let Some(device) = gpu_support::gpu("wpos_counts_pixels_on_a_multisampled_surface") {
        check_wpos(Some(&device));
    }
}

/// A plane with depth `0.5 + x / 256 + dz` (window pixels) over the whole 4×4 surface of
/// `antialias`, in colour `rgba`, its vertices at `at`.
fn sloped_plane(b: &mut CaptureBuilder, at: u32, dz: f32, rgba: [f32; 4]) {
    let z = |x: f32| 0.5 + x / 256.0 + dz;
    let corners = [
        (0.0, 0.0),
        (4.0, 0.0),
        (0.0, 4.0),
        (4.0, 0.0),
        (4.0, 4.0),
        (0.0, 4.0),
    ];
    let vertices: Vec<TestVertex> = corners
        .iter()
        .map(|&(x, y)| [[x, y, z(x), 1.0], rgba, [0.0, 0.0, 0.0, 1.0]])
        .collect();
    draw_vertices(b, at, 5, &vertices);
}

fn check_polygon_offset_slope(device: Option<&rsxtrace_gpu::Gpu>) {
    let what = if device.is_some() { "GPU" } else { "CPU" };
    // A blue plane of slope 1/256 per pixel, then the same plane 0.75/256 behind it with a
    // slope factor of -1 under LESS: the offset is -1/256 (the slope per window pixel, GL 4.6
    // 14.6.5; RPCS3 leaves it to the host's depth bias at pixel resolution), so the green
    // plane lands 0.25/256 in front and is drawn, on one-sample and multisampled surfaces
    // alike. Measured on the sample grid, the 2×-wide grid would halve the slope and reject it.
    for antialias in [0, 3, 4] {
        let mut b = setup("offset_slope.rrc", surface(AA, AA_ZETA, 4, antialias));
        b.set_depth(true, 0x201, true); // LESS, written
        sloped_plane(&mut b, 0x1_0000, 0.0, [0.0, 0.0, 1.0, 1.0]);
        b.method(u32::from(reg::SET_POLY_OFFSET_FILL_ENABLE), 1)
            .unwrap();
        b.method(
            u32::from(reg::SET_POLYGON_OFFSET_SCALE_FACTOR),
            (-1.0f32).to_bits(),
        )
        .unwrap();
        sloped_plane(&mut b, 0x2_0000, 0.75 / 256.0, [0.0, 1.0, 0.0, 1.0]);
        let out = render_warned(&b.finish(), device);
        for (x, y) in [(1, 1), (2, 3)] {
            assert_eq!(
                out.image.pixel(x, y),
                Some([0, 255, 0, 255]),
                "{what}, antialias {antialias}: pixel ({x}, {y})"
            );
        }
    }
}

#[test]
fn the_polygon_offset_slope_is_per_pixel_on_multisampled_surfaces() {
    check_polygon_offset_slope(None);
    if let Some(device) =
        gpu_support::gpu("the_polygon_offset_slope_is_per_pixel_on_multisampled_surfaces")
    {
        check_polygon_offset_slope(Some(&device));
    }
}
