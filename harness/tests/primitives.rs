//! The `primitives` sample (the public ps3autotests `primitives` test, rebuilt by
//! `rsxtrace_scenes::primitives_sample`) rendered on the CPU reference renderer and on a GPU device,
//! feature by feature. Every expected value is computed here from the documented hardware rule
//! (OpenGL's, which the RSX follows; see `replay/src/raster`), not read from the renderer.

use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, Rgba8Image};
use rsxtrace_scenes::primitives_sample::{self as sample, Vertex};

const CLEAR: [u8; 4] = [0x40, 0x40, 0x40, 0x40];

fn frame() -> (Frame, FrameEvents) {
    let capture = sample::primitives().expect("build the primitives sample");
    let frame = Frame::from_capture(&capture).expect("frame model");
    let events = FrameEvents::from_capture(&capture, &frame);
    (frame, events)
}

fn cpu_image() -> Rgba8Image {
    let (frame, events) = frame();
    let r = rsxtrace_replay::render::cpu::render_frame(&frame, &events, &RenderOptions::default())
        .expect("CPU render");
    assert!(r.skipped.is_empty(), "skipped: {:?}", r.skipped);
    r.image
}

fn gpu_image(test: &str) -> Option<Rgba8Image> {
    let gpu = rsxtrace_testkit::device::open_or_skip(
        test,
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )?;
    let (frame, events) = frame();
    let r = rsxtrace_replay::render::gpu::render_frame(
        &gpu,
        &frame,
        &events,
        &RenderOptions::default(),
    )
    .expect("GPU render");
    assert!(r.skipped.is_empty(), "skipped: {:?}", r.skipped);
    Some(r.image)
}

/// Both renderers' images (the GPU one when a device exists).
fn images(test: &str) -> Vec<(&'static str, Rgba8Image)> {
    let mut out = vec![("cpu", cpu_image())];
    if let Some(g) = gpu_image(test) {
        out.push(("gpu", g));
    }
    out
}

fn px(image: &Rgba8Image, x: u32, y: u32) -> [u8; 4] {
    image.pixel(x, y).expect("pixel inside the image")
}

fn lit(image: &Rgba8Image, x: u32, y: u32) -> bool {
    px(image, x, y)[..3] != CLEAR[..3]
}

/// Window position of a vertex: the frustum maps (x, y, −1) to NDC (x, y) with w = 1; the
/// viewport is scale (640, −360), offset (640, 360), in f32 as the RSX computes it.
fn window(v: &Vertex) -> (f32, f32) {
    let (w, h) = (f32::from(sample::WIDTH), f32::from(sample::HEIGHT));
    (
        v.position[0] * (w * 0.5) + w * 0.5,
        v.position[1] * (h * -0.5) + h * 0.5,
    )
}

fn vertex(k: usize) -> Vertex {
    sample::vertices()[k]
}

#[test]
fn the_projection_is_the_identity_on_the_test_plane() {
    // glFrustum(-1, 1, -1, 1, 1, 10000) applied to (x, y, -1, 1) gives (x, y, z, 1).
    let m = sample::projection();
    let v = [0.3f32, -0.7, -1.0, 1.0];
    let clip: Vec<f32> = m
        .iter()
        .map(|row| row.iter().zip(&v).map(|(a, b)| a * b).sum())
        .collect();
    assert_eq!((clip[0], clip[1], clip[3]), (0.3, -0.7, 1.0));
    assert_eq!(sample::vertices().len(), 108);
}

#[test]
fn points_are_five_by_five_squares() {
    for (name, image) in images("points_are_five_by_five_squares") {
        for k in 0..4 {
            let (x, y) = window(&vertex(k));
            // Pixel centres c with x − 2.5 <= c < x + 2.5 (the half-open square).
            let cols: Vec<u32> = (0..1280u32)
                .filter(|&c| {
                    let c = c as f32 + 0.5;
                    x - 2.5 <= c && c < x + 2.5
                })
                .collect();
            let rows: Vec<u32> = (0..720u32)
                .filter(|&r| {
                    let r = r as f32 + 0.5;
                    y - 2.5 <= r && r < y + 2.5
                })
                .collect();
            assert_eq!((cols.len(), rows.len()), (5, 5), "{name} point {k}");
            for &r in &rows {
                for &c in &cols {
                    assert!(lit(&image, c, r), "{name} point {k}: ({c}, {r}) is lit");
                }
            }
            let (c0, c1, r0, r1) = (cols[0], cols[4], rows[0], rows[4]);
            for r in r0 - 1..=r1 + 1 {
                assert!(
                    !lit(&image, c0 - 1, r) && !lit(&image, c1 + 1, r),
                    "{name} point {k} width"
                );
            }
            for c in c0 - 1..=c1 + 1 {
                assert!(
                    !lit(&image, c, r0 - 1) && !lit(&image, c, r1 + 1),
                    "{name} point {k} height"
                );
            }
        }
    }
}

#[test]
fn stippled_lines_have_the_patterns_runs() {
    let (pattern, factor) = sample::LINE_STIPPLE;
    // The factor field holds the repeat minus one (see `primitive_raster.rs`).
    let repeat = u32::from(factor) + 1;
    for (name, image) in images("stippled_lines_have_the_patterns_runs") {
        // Lines v4→v5 and v6→v7: horizontal; fragment s is the s-th pixel centre from the
        // line's first vertex; kept when bit (s / repeat) mod 16 is set (GL 2.1 3.4.2).
        for (a, b) in [(4, 5), (6, 7)] {
            let (ax, ay) = window(&vertex(a));
            let (bx, _) = window(&vertex(b));
            let row = (0..720u32)
                .find(|&r| {
                    (ax as u32..bx as u32).any(|c| lit(&image, c, r)) && (r as f32 - ay).abs() < 2.0
                })
                .expect("the line's row");
            let mut mismatches = Vec::new();
            for c in (ax.ceil() as u32)..(bx.floor() as u32) {
                let s = ((c as f32 + 0.5) - ax).floor() as u32;
                let expected = pattern & (1 << ((s / repeat) % 16)) != 0;
                if lit(&image, c, row) != expected {
                    mismatches.push(c);
                }
            }
            assert!(
                mismatches.is_empty(),
                "{name} line {a}: columns {mismatches:?} differ from the stipple rule"
            );
        }
    }
}

#[test]
fn the_thick_line_strip_is_five_pixels_wide() {
    for (name, image) in images("the_thick_line_strip_is_five_pixels_wide") {
        // Segment v8→v9 is horizontal: a column through its middle has 5 lit rows (width 5.0
        // measured along the minor axis, GL's aliased wide line).
        let (ax, ay) = window(&vertex(8));
        let (bx, _) = window(&vertex(9));
        let c = ((ax + bx) / 2.0) as u32;
        let lit_rows: Vec<u32> = (ay as u32 - 6..=ay as u32 + 6)
            .filter(|&r| lit(&image, c, r))
            .collect();
        assert_eq!(lit_rows.len(), 5, "{name}: rows {lit_rows:?}");
        assert_eq!(lit_rows[4] - lit_rows[0], 4, "{name}: contiguous");
    }
}

#[test]
fn line_mode_draws_the_polygon_outline_only() {
    for (name, image) in images("line_mode_draws_the_polygon_outline_only") {
        let v: Vec<(f32, f32)> = (96..102).map(|k| window(&vertex(k))).collect();
        let cx = v.iter().map(|p| p.0).sum::<f32>() / 6.0;
        let cy = v.iter().map(|p| p.1).sum::<f32>() / 6.0;
        assert!(
            !lit(&image, cx as u32, cy as u32),
            "{name}: the inside is not filled"
        );
        // The fan's inner diagonal v0→v2 is not drawn (its middle is inside the polygon).
        let (dx, dy) = ((v[0].0 + v[2].0) / 2.0, (v[0].1 + v[2].1) / 2.0);
        for (x, y) in [(dx, dy), ((v[0].0 + v[3].0) / 2.0, (v[0].1 + v[3].1) / 2.0)] {
            assert!(
                !lit(&image, x as u32, y as u32),
                "{name}: no diagonal at ({x}, {y})"
            );
        }
        // Every outline edge is drawn: its middle is lit (within a pixel of the edge).
        for e in 0..6 {
            let (p, q) = (v[e], v[(e + 1) % 6]);
            let (mx, my) = ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0);
            let near = (-1..=1).any(|dy: i32| {
                (-1..=1)
                    .any(|dx: i32| lit(&image, (mx as i32 + dx) as u32, (my as i32 + dy) as u32))
            });
            assert!(near, "{name}: edge {e} is drawn near ({mx}, {my})");
        }
    }
}

/// Colour of a pixel as floats.
fn rgb(image: &Rgba8Image, x: u32, y: u32) -> [f32; 3] {
    let p = px(image, x, y);
    [0, 1, 2].map(|k| f32::from(p[k]) / 255.0)
}

#[test]
fn quads_split_on_the_hardware_diagonal() {
    // Quad v48..v51: v0 bottom-left green, v1 bottom-right blue, v2 top-left red, v3 top-right
    // black (the README's colours, 0xRRGGBBAA). The hardware draws (v0, v1, v2) then
    // (v0, v2, v3); w = 1, so colours interpolate linearly in the square's own (u, v).
    let (x0, y0) = window(&vertex(48));
    let (x1, y1) = window(&vertex(51));
    for (name, image) in images("quads_split_on_the_hardware_diagonal") {
        for (u, v) in [(0.8f32, 0.1f32), (0.25, 0.15), (0.8, 0.9), (0.6, 0.85)] {
            let x = (x0 + u * (x1 - x0)) as u32;
            let y = (y0 + v * (y1 - y0)) as u32;
            // (u, v) of the pixel centre itself.
            let (pu, pv) = (
                (x as f32 + 0.5 - x0) / (x1 - x0),
                (y as f32 + 0.5 - y0) / (y1 - y0),
            );
            let expected = if pu + pv < 1.0 {
                // (v0, v1, v2): weights 1 − u − v, u, v over green, blue, red.
                [pv, 1.0 - pu - pv, pu]
            } else {
                // (v0, v2, v3): weights 1 − v, v − u, u over green, red, black.
                [pv - pu, 1.0 - pv, 0.0]
            };
            let got = rgb(&image, x, y);
            for k in 0..3 {
                assert!(
                    (got[k] - expected[k]).abs() <= 2.5 / 255.0,
                    "{name}: ({x}, {y}) (u {pu}, v {pv}) is {got:?}, expected {expected:?}"
                );
            }
        }
    }
}

#[test]
fn polygon_stipple_leaves_the_patterns_holes() {
    // polyPattern[i] = 1 << i; the shader window's origin is bottom (cellGcmSetSurface), so
    // pattern row = (719 − surface row) mod 32, and bit 31 − (x mod 32) of it keeps x
    // (GL 2.1 3.5.6): pixel kept iff x mod 32 + y mod 32 == 31.
    let v: Vec<(f32, f32)> = (102..108).map(|k| window(&vertex(k))).collect();
    let cx = (v.iter().map(|p| p.0).sum::<f32>() / 6.0) as u32;
    let cy = (v.iter().map(|p| p.1).sum::<f32>() / 6.0) as u32;
    for (name, image) in images("polygon_stipple_leaves_the_patterns_holes") {
        let mut kept = 0;
        for row in cy - 16..cy + 16 {
            for x in cx - 16..cx + 16 {
                let y = 719 - row;
                let expected = (x % 32) + (y % 32) == 31;
                kept += usize::from(expected);
                assert_eq!(lit(&image, x, row), expected, "{name}: ({x}, {row})");
            }
        }
        assert_eq!(kept, 32, "one kept pixel per pattern row");
    }
}

#[test]
fn the_smooth_line_loop_lights_every_pixel_its_rectangle_touches() {
    // GL 2.1 3.4.2: an antialiased line is the width-1 rectangle centred on the segment; every
    // pixel square it overlaps with a non-zero area is drawn (its alpha scaled by the area;
    // without blending the colour is written whole). The bottom edge v12→v13 is horizontal
    // at window y = wy: rows r with (r, r + 1) overlapping (wy − 0.5, wy + 0.5).
    let (ax, wy) = window(&vertex(12));
    let (bx, _) = window(&vertex(13));
    let c = ((ax + bx) / 2.0) as u32;
    let expected: Vec<u32> = (0..720u32)
        .filter(|&r| (r as f32) < wy + 0.5 && (r as f32 + 1.0) > wy - 0.5)
        .collect();
    assert!(
        expected.len() >= 2,
        "a line off the pixel centres touches two rows"
    );
    for (name, image) in images("the_smooth_line_loop_lights_every_pixel_its_rectangle_touches") {
        let rows: Vec<u32> = (wy as u32 - 4..=wy as u32 + 4)
            .filter(|&r| lit(&image, c, r))
            .collect();
        assert_eq!(rows, expected, "{name}");
    }
}

#[test]
fn the_smooth_polygon_lights_the_pixels_its_edges_cross() {
    // GL 2.1 3.5 (POLYGON_SMOOTH): every pixel square the polygon overlaps is drawn, also those
    // whose centre lies outside. Polygon v84..v89 (v0 top-left, v5 the left point): in a row
    // r crossed by the edge v0→v5, the first drawn column is the one holding the edge's
    // leftmost point within the row, floor(min(x(r), x(r + 1))).
    let v: Vec<(f32, f32)> = (84..90).map(|k| window(&vertex(k))).collect();
    let (top, left) = (v[0], v[5]);
    let x_at = |y: f32| top.0 + (left.0 - top.0) * (y - top.1) / (left.1 - top.1);
    for (name, image) in images("the_smooth_polygon_lights_the_pixels_its_edges_cross") {
        for r in [
            top.1.ceil() as u32 + 2,
            ((top.1 + left.1) / 2.0) as u32,
            left.1 as u32 - 3,
        ] {
            let first = x_at(r as f32).min(x_at(r as f32 + 1.0)).floor() as u32;
            assert!(lit(&image, first, r), "{name}: ({first}, {r}) is drawn");
            assert!(
                !lit(&image, first - 1, r),
                "{name}: ({}, {r}) is not",
                first - 1
            );
        }
    }
}
