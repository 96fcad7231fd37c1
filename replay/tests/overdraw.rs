//! `render::overdraw` on a builder scene whose counts follow from its geometry: an 8x8
//! surface, two quads over all of it, a 2x2 quad at (2, 2), a quad the scissor cuts to its
//! left half, a back-facing quad with back faces culled (nothing) and a depth-tested quad
//! over pixel (0, 0); every pixel is then 2, the small quad's 3, the left half of the cut
//! quad's rows and pixel (0, 0) one more. A draw range counts only its draws; the depth
//! surface counts the one draw that tests depth against it.

use crate::render_support;
use render_support::*;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::render::overdraw::{overdraw, ramp};
use rsxtrace_replay::render::target::target_at;

fn quad(b: &mut rsxtrace_capture::builder::CaptureBuilder, at: u32, rect: [f32; 4]) {
    let vertices = corners(rect).map(|(x, y)| [[x, y, 0.5, 1.0], [1.0; 4], [0.0; 4]]);
    draw_vertices(b, at, 8, &vertices);
}

/// The fragment program writing COL0.
fn mov_col0(b: &mut rsxtrace_capture::builder::CaptureBuilder) {
    b.set_fragment_program(
        Location::Local,
        0x1000,
        &rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0,
        0x40,
    )
    .unwrap();
}

fn scene() -> Frame {
    let mut b = pixel_scene("overdraw.rrc", 8, 2);
    mov_col0(&mut b);
    quad(&mut b, 0x1_0000, [0.0, 0.0, 8.0, 8.0]); // draw 0
    quad(&mut b, 0x2_0000, [0.0, 0.0, 8.0, 8.0]); // draw 1
    quad(&mut b, 0x3_0000, [2.0, 2.0, 4.0, 4.0]); // draw 2
    b.set_scissor(0, 0, 4, 8);
    quad(&mut b, 0x4_0000, [0.0, 6.0, 8.0, 8.0]); // draw 3: rows 6..8, columns 0..4
    b.set_scissor(0, 0, 8, 8);
    b.method(0x1830 >> 2, 0x0405).unwrap(); // SET_CULL_FACE: BACK
    b.method(0x183C >> 2, 1).unwrap(); // SET_CULL_FACE_ENABLE
                                       // The quads' corner order is back facing under the default front face (the reverse
                                       // order is front facing: checked by the renderers' own tests); culled.
    quad(&mut b, 0x5_0000, [0.0, 0.0, 8.0, 8.0]); // draw 4
    b.method(0x183C >> 2, 0).unwrap();
    b.set_depth(true, 0x207, true); // ALWAYS, write
    quad(&mut b, 0x6_0000, [0.0, 0.0, 1.0, 1.0]); // draw 5: one pixel, depth tested
    let capture = b.finish();
    Frame::from_capture(&capture).expect("frame")
}

#[test]
fn fragments_per_pixel_follow_the_geometry_scissor_and_culling() {
    let frame = scene();
    let colour = target_at(&frame, Location::Local, SCENE_COLOR).expect("colour target");
    let o = overdraw(&frame, &colour, None);
    assert!(o.skipped.is_empty(), "{:?}", o.skipped);
    assert_eq!((o.width, o.height), (8, 8));
    let want = |x: u32, y: u32| {
        let mut n = 2;
        if (2..4).contains(&x) && (2..4).contains(&y) {
            n += 1;
        }
        if x < 4 && y >= 6 {
            n += 1;
        }
        if (x, y) == (0, 0) {
            n += 1;
        }
        n
    };
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(o.counts[(y * 8 + x) as usize], want(x, y), "({x}, {y})");
        }
    }
    let per_draw: Vec<(usize, u64)> = o.draws.iter().map(|d| (d.draw, d.fragments)).collect();
    assert_eq!(per_draw, [(0, 64), (1, 64), (2, 4), (3, 8), (5, 1)]);
    assert_eq!(o.total(), 141);
    assert_eq!(o.max(), (3, 0, 0), "the first pixel of the largest count");
    assert_eq!(o.heat_map().pixel(0, 0), Some(ramp(3)));
    assert_eq!(o.heat_map().pixel(7, 0), Some(ramp(2)));
    // A range counts its draws alone.
    let first = overdraw(&frame, &colour, Some(0..1));
    assert!(first.counts.iter().all(|&c| c == 1));
    // The depth surface: only the draw that tests depth.
    let depth = target_at(&frame, Location::Local, SCENE_ZETA).expect("depth surface");
    let z = overdraw(&frame, &depth, None);
    assert_eq!(z.draws.len(), 1);
    assert_eq!(z.counts.iter().filter(|&&c| c > 0).count(), 1);
}

/// A full quad into a 4x4 surface with two samples diagonal (antialias 3, an 8x4 grid), drawn
/// once per sample: each sample is counted once (32 fragments), each pixel's count is 1; with
/// a sample mask that keeps sample 0 alone, its 16 cells.
#[test]
fn a_multisampled_target_counts_each_sample_once() {
    for (mask, fragments) in [(None, 32), (Some(0x0001_0001), 16)] {
        let o = two_sample_quad(mask);
        assert_eq!((o.width, o.height), (4, 4));
        assert_eq!(o.total(), fragments, "mask {mask:?}");
        assert!(o.counts.iter().all(|&c| c == 1), "{:?}", o.counts);
    }
}

/// [`a_multisampled_target_counts_each_sample_once`]'s frame, with `SET_ANTI_ALIASING_CONTROL`
/// = `control` when given.
fn two_sample_quad(control: Option<u32>) -> rsxtrace_replay::render::overdraw::Overdraw {
    use rsxtrace_capture::builder::CaptureBuilder;
    let mut b = CaptureBuilder::new("overdraw_msaa.rrc");
    // Two samples diagonal: an 8x4 grid of 4-byte samples, 32 bytes a row.
    set_a8r8g8b8_surface(&mut b, 4, 3, (SCENE_COLOR, SCENE_ZETA), 32);
    b.set_viewport(0, 0, 4, 4, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, 4, 4);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    mov_col0(&mut b);
    if let Some(control) = control {
        b.method(0x1D7C >> 2, control).unwrap();
    }
    quad(&mut b, 0x1_0000, [0.0, 0.0, 4.0, 4.0]);
    let frame = Frame::from_capture(&b.finish()).expect("frame");
    let colour = target_at(&frame, Location::Local, SCENE_COLOR).expect("colour target");
    overdraw(&frame, &colour, None)
}

/// One draw's coverage (`draw_coverage`, the report's "rasterized" overlay): the 2x2 quad's
/// four pixels, nothing for the culled quad, and for every draw of the one-sample scene as
/// many pixels as the overdraw counts it fragments.
#[test]
fn a_draws_coverage_is_its_own_fragments() {
    use rsxtrace_replay::render::overdraw::draw_coverage;
    let frame = scene();
    let colour = target_at(&frame, Location::Local, SCENE_COLOR).expect("colour target");
    let small = draw_coverage(&frame, 2, &colour).expect("draw 2");
    assert_eq!((small.width, small.height), (8, 8));
    let covered: Vec<(u32, u32)> = small.covered_pixels().collect();
    assert_eq!(covered, [(2, 2), (3, 2), (2, 3), (3, 3)]);
    let by_pixel = (0..64u32).filter(|&i| small.covered(i % 8, i / 8)).count();
    assert_eq!(by_pixel, 4);
    assert!(!small.covered(8, 0), "outside the target");
    assert_eq!(
        draw_coverage(&frame, 4, &colour).expect("draw 4").pixels(),
        0
    );
    let o = overdraw(&frame, &colour, None);
    for d in 0..frame.draws.len() {
        let c = draw_coverage(&frame, d, &colour).expect("coverage");
        assert_eq!(c.pixels(), o.fragments_of(d), "draw {d}");
    }
    assert!(draw_coverage(&frame, 99, &colour).is_err());
}
