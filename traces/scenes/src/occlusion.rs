//! Occlusion queries deciding draws, as a lens flare does: an occluder over the left half of a
//! 64x64 frame, an occlusion query on a quad behind it (no sample passes) and one on a quad in
//! the open right half (256 pass), then a flare drawn under conditional rendering on each
//! report (`SET_RENDER_ENABLE` mode 2: the first is not drawn, the second is) and one on a
//! report no query of the frame wrote (a query made before the capture: the replay draws it
//! and warns). The queries write no colour and no depth. Z-cull is on, as games keep it
//! (RPCS3 counts no sample without it); [`occlusion_capture_with`] can leave it off.
//!
//! Draws, in order: [`OCCLUDER`], [`HIDDEN_QUERY`], [`VISIBLE_QUERY`], then the flares
//! [`HIDDEN_FLARE`], [`VISIBLE_FLARE`], [`UNKNOWN_FLARE`].
//!
//! Bundled as `traces/samples/occlusion.rrc.gz` ([`FILE`]), a frame of `rsxtrace ci`'s
//! manifest, so both renderers' conditional rendering is checked against a reference image.

use crate::square_target::square_target;
use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::CaptureBuilder;
use rsxtrace_capture::frame::state::REPORT_AREA_LOCAL;
use rsxtrace_capture::rrc::{Capture, Location};

/// The red occluder over the left half, at depth 0.2 (written).
pub const OCCLUDER: usize = 0;
/// The query on a quad behind the occluder (report [`HIDDEN_REPORT`]): 0 samples.
pub const HIDDEN_QUERY: usize = 1;
/// The query on a 16x16 quad in the open right half (report [`VISIBLE_REPORT`]): 256 samples.
pub const VISIBLE_QUERY: usize = 2;
/// The green flare on the hidden query's report: not drawn.
pub const HIDDEN_FLARE: usize = 3;
/// The blue flare on the visible query's report: drawn.
pub const VISIBLE_FLARE: usize = 4;
/// The white flare on [`UNKNOWN_REPORT`]: drawn, with a warning.
pub const UNKNOWN_FLARE: usize = 5;

/// The hidden query's report offset (local report area).
pub const HIDDEN_REPORT: u32 = 0x10;
/// The visible query's report offset.
pub const VISIBLE_REPORT: u32 = 0x20;
/// A report offset no query of the frame writes.
pub const UNKNOWN_REPORT: u32 = 0x30;

/// The bundled sample's file name in `traces/samples` (`rsxtrace ci`'s `occlusion` frame).
pub const FILE: &str = "occlusion.rrc.gz";

/// The surface's size in pixels.
pub const SIZE: u16 = 64;

/// `SET_DEPTH_FUNC` LESS.
const LESS: u32 = 0x201;

/// The frame (see the module).
pub fn occlusion_capture() -> Capture {
    occlusion_capture_with(true)
}

/// The frame with Z-cull on (`SET_ZCULL_EN` 3, depth and stencil) or off.
pub fn occlusion_capture_with(zcull: bool) -> Capture {
    let mut b = CaptureBuilder::new("occlusion.rrc");
    let side = u32::from(SIZE);
    crate::samples::show_target(&mut b, side, side, side * 4, 0);
    square_target(&mut b, SIZE, [0; 4], 0x4_0000);
    b.set_scissor(0, 0, SIZE, SIZE);
    b.set_color_mask(0x0101_0101);
    b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
    b.set_vertex_program(&mvp_vertex_program(32), 0, 0, 0b1001, 0b1)
        .unwrap();
    let identity: Vec<[f32; 4]> = (0..4)
        .map(|r| std::array::from_fn(|c| if c == r { 1.0 } else { 0.0 }))
        .collect();
    b.set_transform_constants(32, &identity).unwrap();
    b.set_fragment_program(Location::Local, 0x5_0000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    let mut at = 0x1_0000;
    let mut quad = |b: &mut CaptureBuilder, [x0, y0, x1, y1]: [f32; 4], z: f32, rgba: u32| {
        quad_at(b, at, [x0, y0, x1, y1], z, rgba);
        at += 0x1000;
    };
    b.set_depth(true, LESS, true);
    b.set_zcull(zcull, zcull);
    quad(&mut b, [-1.0, -1.0, 0.0, 1.0], 0.2, 0xFF00_00FF);
    // The queries: no colour, no depth written.
    b.set_color_mask(0);
    b.set_depth(true, LESS, false);
    b.begin_occlusion_query(REPORT_AREA_LOCAL);
    quad(&mut b, [-0.75, -0.25, -0.25, 0.25], 0.5, 0xFF00_FF00);
    b.end_occlusion_query(HIDDEN_REPORT);
    b.begin_occlusion_query(REPORT_AREA_LOCAL);
    quad(&mut b, [0.25, -0.25, 0.75, 0.25], 0.5, 0xFF00_FF00);
    b.end_occlusion_query(VISIBLE_REPORT);
    // The flares, in front of everything.
    b.set_color_mask(0x0101_0101);
    b.set_depth(false, LESS, false);
    for (report, rect, rgba) in [
        (HIDDEN_REPORT, [-1.0, -1.0, 0.0, 0.0], 0xFF00_FF00),
        (VISIBLE_REPORT, [0.0, -1.0, 1.0, 0.0], 0xFFFF_0000),
        (UNKNOWN_REPORT, [-0.5, 0.0, 0.5, 1.0], 0xFFFF_FFFF),
    ] {
        b.set_conditional_render(Some((REPORT_AREA_LOCAL, report)));
        quad(&mut b, rect, 0.1, rgba);
    }
    b.set_conditional_render(None);
    b.flip(0);
    b.finish()
}

/// A quad over clip-space `x0..x1 × y0..y1` at depth `z` in colour `rgba` (A8B8G8R8 bytes in
/// memory order R, G, B, A from the low byte), its vertices at `at` in main memory.
fn quad_at(b: &mut CaptureBuilder, at: u32, [x0, y0, x1, y1]: [f32; 4], z: f32, rgba: u32) {
    let positions: Vec<u8> = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
        .iter()
        .flat_map(|[x, y]| [*x, *y, z])
        .flat_map(f32::to_be_bytes)
        .collect();
    let colours: Vec<u8> = (0..4).flat_map(|_| rgba.to_le_bytes()).collect();
    b.put_memory(Location::Main, at, &positions).unwrap();
    b.put_memory(Location::Main, at + 0x100, &colours).unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, at) // float3
        .unwrap();
    b.set_vertex_array(3, 4, 4, 4, 0, Location::Main, at + 0x100) // ub4
        .unwrap();
    b.draw_arrays(8, &[(0, 4)]).unwrap(); // QUADS
}
