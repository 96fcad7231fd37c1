//! Conditional rendering (`SET_RENDER_ENABLE` mode 2, `render::conditional`): the frame model
//! decodes the mode and the report offset, and both renderers draw such a draw (occlusion
//! queries are not modelled) with a warning that names the report; a draw after mode 1 has
//! none.

use crate::gpu_support;
use crate::render_support::*;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame};

/// `NV4097_SET_RENDER_ENABLE` (RPCS3 `gcm_enums.h`).
const SET_RENDER_ENABLE: u32 = 0x1E98 >> 2;

/// Two red quads over the whole 8x8 surface: the first while conditional rendering on the
/// report at 0x40 is on, the second after mode 1.
fn capture() -> Capture {
    let mut b = pixel_scene("conditional.rrc", 8, 2);
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    let quad = corners([0.0, 0.0, 8.0, 8.0])
        .map(|(x, y)| [[x, y, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0], [0.0; 4]]);
    b.method(SET_RENDER_ENABLE, 0x0200_0040).unwrap();
    draw_vertices(&mut b, 0x1_0000, 8, &quad);
    b.method(SET_RENDER_ENABLE, 0x0100_0000).unwrap();
    draw_vertices(&mut b, 0x2_0000, 8, &quad);
    b.finish()
}

fn check(out: &RenderedFrame, what: &str) {
    assert!(out.skipped.is_empty(), "{what}: {:?}", out.skipped);
    assert_eq!(out.draws_rendered, 2, "{what}");
    let notes: Vec<_> = out
        .warnings
        .iter()
        .filter(|w| w.message.contains("conditional rendering"))
        .collect();
    assert_eq!(notes.len(), 1, "{what}: {:?}", out.warnings);
    assert_eq!(notes[0].draw, Some(0), "{what}");
    assert!(
        notes[0].message.contains("offset 0x40"),
        "{what}: {}",
        notes[0].message
    );
    // Drawn: the surface is red.
    assert_eq!(out.image.pixel(3, 3), Some([255, 0, 0, 255]), "{what}");
}

#[test]
fn the_frame_model_decodes_the_mode_and_the_report() {
    let frame = Frame::from_capture(&capture()).unwrap();
    let first = frame.draws[0].raster.render_enable;
    assert!(first.conditional());
    assert_eq!(first.report_offset, 0x40);
    assert!(!frame.draws[1].raster.render_enable.conditional());
}

#[test]
fn a_conditionally_rendered_draw_is_drawn_and_warned_on_the_cpu() {
    let capture = capture();
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let out = cpu_render_tiled(&frame, &events, &RenderOptions::default()).unwrap();
    check(&out, "CPU");
}

#[test]
fn a_conditionally_rendered_draw_is_drawn_and_warned_on_the_gpu() {
    let Some(g) = gpu_support::gpu("a_conditionally_rendered_draw_is_drawn_and_warned_on_the_gpu")
    else {
        return;
    };
    let capture = capture();
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let out =
        rsxtrace_replay::render::gpu::render_frame(&g, &frame, &events, &RenderOptions::default())
            .unwrap();
    check(&out, "GPU");
}
