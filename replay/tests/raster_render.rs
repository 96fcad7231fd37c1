//! Point sprites, smooth-line coverage, joined draw ranges and the viewport rectangle rendered on the CPU reference renderer and on a GPU
//! device, against values computed here from the documented rules (`raster::sprite`:
//! GL 2.1 3.3.1 with the upper-left origin; `raster::smooth`: GL 2.1 3.4.2 coverage times
//! alpha).

use crate::gpu_support;

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_program::fragment::{self, InputAttribute as FpInput};
use rsxtrace_replay::render::Rgba8Image;

const SIZE: u16 = 64;

fn target(offset: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: u32::from(SIZE) * 4,
    }
}

/// A 64 × 64 A8R8G8B8 scene, identity transform, depth off, cleared to (0, 0, 0, 0), with
/// `program` as the fragment program.
fn scene(name: &str, program: &[u8]) -> CaptureBuilder {
    let mut b = CaptureBuilder::new(name);
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (6, 6),
        color_target: 1,
        colors: [
            target(0),
            target(0x10_0000),
            target(0x20_0000),
            target(0x30_0000),
        ],
        zeta: target(0x40_0000),
        clip: (0, 0, SIZE, SIZE),
    });
    let h = f32::from(SIZE) / 2.0;
    b.set_viewport(
        0,
        0,
        SIZE,
        SIZE,
        (0.0, 1.0),
        [h, h, 0.5, 0.0],
        [h, -h, 0.5, 0.0],
    );
    b.set_scissor(0, 0, SIZE, SIZE);
    b.set_color_mask(0x0101_0101);
    b.set_depth(false, 0x201, false);
    b.set_vertex_program(&mvp_vertex_program(32), 0, 0, 0b1001, 0b1)
        .unwrap();
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    b.set_transform_constants(32, &identity).unwrap();
    b.set_fragment_program(Location::Local, 0x50_0000, program, 0x40)
        .unwrap();
    b.clear_surface(0xF3, 0, 0xFFFF_FF00);
    b
}

/// Draw `positions` (NDC x, y) as `primitive`, every vertex white and opaque.
fn draw(b: &mut CaptureBuilder, primitive: u32, positions: &[[f32; 2]]) {
    let mut data = Vec::new();
    for p in positions {
        for c in [p[0], p[1], 0.0, 1.0] {
            data.extend_from_slice(&c.to_be_bytes());
        }
    }
    b.put_memory(Location::Main, 0x1_0000, &data).unwrap();
    b.put_memory(Location::Main, 0x2_0000, &vec![0xFF; 4 * positions.len()])
        .unwrap();
    b.set_vertex_array(0, 2, 4, 16, 0, Location::Main, 0x1_0000)
        .unwrap();
    b.set_vertex_array(3, 4, 4, 4, 0, Location::Main, 0x2_0000)
        .unwrap();
    b.draw_arrays(primitive, &[(0, positions.len() as u32)])
        .unwrap();
}

/// Both renderers' images (the GPU one when a device exists).
fn render(name: &str, capture: &Capture) -> Vec<(&'static str, Rgba8Image)> {
    gpu_support::both_images(name, capture, rsxtrace_replay::render::cpu::render_frame)
}

fn unorm(v: f32) -> i32 {
    (v.clamp(0.0, 1.0) * 255.0).round() as i32
}

#[test]
fn point_sprites_replace_the_named_texture_coordinates() {
    // MOV R0, f[TEX0]: the colour is the sprite coordinate (s, t, 0, 1).
    let mut program = fragment::decode(&FRAGMENT_MOV_COL0).unwrap();
    program.instructions[0].input = FpInput(4);
    let program = fragment::encode(&program);
    let mut b = scene("sprites", &program);
    b.method(0x1EE0 >> 2, 8f32.to_bits()).unwrap(); // SET_POINT_SIZE 8
                                                    // SET_POINT_SPRITE_CONTROL: enabled, R mode zero, TEX0 replaced.
    b.method(0x1EE8 >> 2, 1 | (1 << 8)).unwrap();
    draw(&mut b, 1, &[[0.0, 0.0]]); // POINTS, window (32, 32)
    let capture = b.finish();
    for (name, image) in render(
        "point_sprites_replace_the_named_texture_coordinates",
        &capture,
    ) {
        for y in 28..36u32 {
            for x in 28..36u32 {
                // s = 1/2 + (x + 1/2 − 32) / 8, t likewise down the rows (upper-left origin).
                let s = 0.5 + (x as f32 + 0.5 - 32.0) / 8.0;
                let t = 0.5 + (y as f32 + 0.5 - 32.0) / 8.0;
                let p = image.pixel(x, y).unwrap();
                let expected = [unorm(s), unorm(t), 0, 255];
                for k in 0..4 {
                    assert!(
                        (i32::from(p[k]) - expected[k]).abs() <= 1,
                        "{name}: ({x}, {y}) is {p:?}, expected {expected:?}"
                    );
                }
            }
        }
        assert_eq!(
            image.pixel(27, 30).unwrap(),
            [0, 0, 0, 0],
            "{name}: 8 pixels wide"
        );
        assert_eq!(
            image.pixel(30, 36).unwrap(),
            [0, 0, 0, 0],
            "{name}: 8 pixels high"
        );
    }
}

#[test]
fn smooth_line_coverage_scales_alpha() {
    let mut b = scene("smooth line", &FRAGMENT_MOV_COL0);
    b.method(0x03BC >> 2, 1).unwrap(); // SET_LINE_SMOOTH_ENABLE
                                       // Window (8, 40) to (56, 40): the width-1 rectangle covers half of rows 39 and 40.
    draw(&mut b, 2, &[[-0.75, -0.25], [0.75, -0.25]]);
    let capture = b.finish();
    for (name, image) in render("smooth_line_coverage_scales_alpha", &capture) {
        for x in 10..54u32 {
            for y in [39u32, 40] {
                let p = image.pixel(x, y).unwrap();
                assert_eq!(p[..3], [255, 255, 255], "{name}: ({x}, {y}) colour");
                assert!(
                    (i32::from(p[3]) - 128).abs() <= 1,
                    "{name}: ({x}, {y}) alpha {}",
                    p[3]
                );
            }
            for y in [38u32, 41] {
                assert_eq!(
                    image.pixel(x, y).unwrap(),
                    [0, 0, 0, 0],
                    "{name}: ({x}, {y})"
                );
            }
        }
    }
}

#[test]
fn a_strip_split_into_libgcm_pieces_is_one_strip() {
    // 300 vertices: libgcm (and the builder) send DRAW_ARRAYS (0, 256) and (256, 44); RPCS3
    // joins them (`draw_clause::append`), so the strip goes on across the split. Vertices
    // 0..=254 sit on the left edge, 255 and 256 at the centre, the rest on the right edge,
    // y alternating +0.5 / −0.5: the band |y| < 0.5 is covered only if the two triangles that
    // span the split, (254, 255, 256) and (255, 256, 257), are drawn.
    let positions: Vec<[f32; 2]> = (0..300u32)
        .map(|k| {
            let x = match k {
                0..=254 => -1.0,
                255 | 256 => 0.0,
                _ => 1.0,
            };
            [x, if k % 2 == 0 { -0.5 } else { 0.5 }]
        })
        .collect();
    let mut b = scene("split strip", &FRAGMENT_MOV_COL0);
    draw(&mut b, 6, &positions); // TRIANGLE_STRIP
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).unwrap();
    let ranges: Vec<(u32, u32)> = frame.draws[0]
        .ranges
        .iter()
        .map(|r| (r.first, r.count))
        .collect();
    assert_eq!(ranges, vec![(0, 300)], "the two pieces are one range");
    for (name, image) in render("a_strip_split_into_libgcm_pieces_is_one_strip", &capture) {
        for y in 18..46u32 {
            for x in 0..u32::from(SIZE) {
                assert_eq!(
                    image.pixel(x, y).unwrap(),
                    [255, 255, 255, 255],
                    "{name}: ({x}, {y}) inside the band"
                );
            }
        }
    }
}

#[test]
fn the_viewport_rectangle_limits_draws_but_not_clears() {
    // The viewport transform still maps NDC to the whole 64 × 64 target; only the rectangle
    // (`SET_VIEWPORT_HORIZONTAL`/`VERTICAL`) is (8, 16) + 24 × 20. RPCS3 cuts a draw's
    // scissor with it (`thread::get_scissor` with `clip_viewport`), so a full-screen quad
    // fills only the rectangle; a clear uses the scissor alone.
    let h = f32::from(SIZE) / 2.0;
    let small_viewport = |b: &mut CaptureBuilder| {
        b.set_viewport(
            8,
            16,
            24,
            20,
            (0.0, 1.0),
            [h, h, 0.5, 0.0],
            [h, -h, 0.5, 0.0],
        );
    };
    let full_screen = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]];
    let mut b = scene("viewport rect", &FRAGMENT_MOV_COL0);
    small_viewport(&mut b);
    b.clear_surface(0xF0, 0xFF00_FF00, 0xFFFF_FF00); // opaque green, the whole target
    draw(&mut b, 8, &full_screen); // QUADS
    let capture = b.finish();
    for (name, image) in render("the_viewport_rectangle_limits_draws", &capture) {
        for y in 0..u32::from(SIZE) {
            for x in 0..u32::from(SIZE) {
                let inside = (8..32).contains(&x) && (16..36).contains(&y);
                let want = if inside { [255; 4] } else { [0, 255, 0, 255] };
                assert_eq!(image.pixel(x, y).unwrap(), want, "{name}: ({x}, {y})");
            }
        }
    }
}
