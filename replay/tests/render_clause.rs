//! A BEGIN/END whose vertex base offset changes between its ranges draws each range with the
//! offset in effect when it was submitted (RPCS3 `draw_clause` execution barriers, the frame
//! model's draw parts), on both renderers: two DRAW_ARRAYS of the same range, the second after
//! `SET_VERTEX_DATA_BASE_OFFSET`, draw two different triangles.

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;

const AT: u32 = 0x1_0000;
/// Bytes per vertex of `render_support::draw_vertices`' layout.
const STRIDE: u32 = 48;
/// Register indices (byte offset / 4).
const BEGIN_END: u32 = 0x1808 / 4;
const DRAW_ARRAYS: u32 = 0x1814 / 4;
const BASE_OFFSET: u32 = 0x1738 / 4;

#[test]
fn each_part_of_a_clause_draws_with_its_own_base_offset() {
    let mut b = pixel_scene("clause.rrc", 8, 2);
    b.clear_surface(0xF0, 0, 0);
    b.set_fragment_program(Location::Local, 0x1000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    // Left half red (vertices 0..3), right half green (3..6), as two triangles each covering
    // the pixels whose centre lies below the diagonal of their half.
    let red = [1.0, 0.0, 0.0, 1.0];
    let green = [0.0, 1.0, 0.0, 1.0];
    let v = |x: f32, y: f32, c: [f32; 4]| [[x, y, 0.5, 1.0], c, [0.0; 4]];
    let vertices = [
        v(0.0, 0.0, red),
        v(4.0, 8.0, red),
        v(0.0, 8.0, red),
        v(4.0, 0.0, green),
        v(8.0, 8.0, green),
        v(4.0, 8.0, green),
    ];
    // A first draw that writes no colour attaches the six vertices' memory.
    b.set_color_mask(0);
    draw_vertices(&mut b, AT, 5, &vertices);
    b.set_color_mask(0x0101_0101);
    // One clause: vertices 0..3 at base 0, then the same range at base 3 vertices.
    b.method(BEGIN_END, 5).unwrap();
    b.method(DRAW_ARRAYS, 2 << 24).unwrap();
    b.method(BASE_OFFSET, 3 * STRIDE).unwrap();
    b.method(DRAW_ARRAYS, 2 << 24).unwrap();
    b.method(BEGIN_END, 0).unwrap();
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).unwrap();
    let parts: Vec<(u32, u32)> = frame
        .draws
        .iter()
        .map(|d| (d.part, d.vertex_inputs.base_offset))
        .collect();
    assert_eq!(parts, vec![(0, 0), (0, 0), (1, 3 * STRIDE)]);
    for (name, image) in gpu_support::both_images("clause_parts", &capture, cpu_render_tiled) {
        // Pixel (1, 6) lies in the red triangle, (5, 6) in the green one.
        assert_eq!(image.pixel(1, 6).unwrap(), [255, 0, 0, 255], "{name}");
        assert_eq!(image.pixel(5, 6).unwrap(), [0, 255, 0, 255], "{name}");
    }
}
