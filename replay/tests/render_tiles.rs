//! Screen tiles of the CPU render (`render::cpu::tiles`, issue 14 item 2): the bundled
//! samples rendered with every draw on one tile and with draws split into bands of 8 and of 2
//! rows give the same image, per-draw snapshots, warnings and skipped draws, bit for bit; the
//! forced tilings must really split draws, and `Tiling::Auto` must agree too. The builder
//! captures of `render_cpu`, `render_msaa`, `render_transfer` and `render_shading` are
//! checked the same way through `render_support::cpu_render_tiled`.

use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::read_file;
use rsxtrace_replay::render::cpu::render_frame;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame, Tiling};
use std::ops::Range;
use std::path::Path;

/// Render `path` (draws `draws`, snapshots after each when `per_draw`) on one tile and under
/// each forced tiling, and compare.
fn same_with_tiles(path: &Path, draws: Option<Range<usize>>, per_draw: bool) {
    let capture = read_file(path).expect("read sample");
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let render = |tiling| -> RenderedFrame {
        let options = RenderOptions {
            draws: draws.clone(),
            per_draw,
            tiling,
            ..Default::default()
        };
        render_frame(&frame, &events, &options).expect("render")
    };
    let name = path.display();
    let serial = render(Tiling::Off);
    assert!(serial.draws_rendered > 0, "{name}: nothing rendered");
    assert_eq!(serial.tiled_draws, 0, "{name}: Tiling::Off split a draw");
    for tiling in [Tiling::Rows(8), Tiling::Rows(2), Tiling::Auto] {
        let tiled = render(tiling);
        if tiling != Tiling::Auto {
            assert!(tiled.tiled_draws > 0, "{name}: {tiling:?} split no draw");
        }
        assert!(
            tiled.image == serial.image,
            "{name}: {tiling:?} changed the image"
        );
        assert_eq!(tiled.per_draw.len(), serial.per_draw.len());
        for (a, b) in serial.per_draw.iter().zip(&tiled.per_draw) {
            assert!(
                a.draw == b.draw && a.image == b.image,
                "{name}: {tiling:?} changed the snapshot after draw {}",
                a.draw
            );
        }
        assert_eq!(tiled.warnings, serial.warnings, "{name}: {tiling:?}");
        assert_eq!(tiled.skipped, serial.skipped, "{name}: {tiling:?}");
        assert_eq!(tiled.draws_rendered, serial.draws_rendered);
    }
}

#[test]
fn basic_sample_same_with_tiles() {
    let ws = rsxtrace_testkit::workspace!();
    same_with_tiles(&ws.sample("basic.rrc.gz"), None, true);
}

#[test]
fn primitives_sample_same_with_tiles() {
    // Points, lines, strips, fans, quads, polygon modes.
    let ws = rsxtrace_testkit::workspace!();
    same_with_tiles(&ws.sample("primitives.rrc.gz"), None, true);
}

#[test]
fn texture_formats_sample_same_with_tiles() {
    let ws = rsxtrace_testkit::workspace!();
    same_with_tiles(&ws.sample("texture_formats.rrc.gz"), None, true);
}

#[test]
fn game_sample_same_with_tiles() {
    // The first 60 draws of the 2,400 (1280x720 targets, depth, blending, textures) keep the
    // debug build fast; snapshots after each of the first 12.
    let ws = rsxtrace_testkit::workspace!();
    let path = ws.sample("game.rrc.gz");
    same_with_tiles(&path, Some(0..12), true);
    same_with_tiles(&path, Some(0..60), false);
}

#[test]
fn level_trace_same_with_tiles() {
    let ws = rsxtrace_testkit::workspace!();
    same_with_tiles(&ws.level_dir().join("level.rrc.gz"), None, true);
}
