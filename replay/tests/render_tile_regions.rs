//! Captured bytes read inside a bound tile region (`render::tile_regions`): RPCS3 keeps such
//! memory in the tiled order and rsxtrace reads it linearly, so both renderers warn where a
//! render reads captured bytes there, and only there. The scenes are the transfer tests'
//! (`render_transfer`): draw 0 samples PATTERN (captured) into SOURCE, a transfer copies
//! SOURCE to DEST, draw 1 samples DEST into COLOR. Each case binds one 64 KiB tile region
//! over one of those surfaces, as a game binds its render targets' regions.

use crate::gpu_support;
use crate::render_transfer::{
    bind, cpu, gpu, scaled, scene, source_pass, whole_copy, COLOR, DEST, PATTERN, SOURCE,
};
use rsxtrace_capture::builder::TransferSurfaceDesc;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Capture, Location, TileRegion};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::tile_regions::{tiled_reads, TiledUse};

/// The tile region index the cases bind.
const INDEX: usize = 3;

/// `capture` with tile region [`INDEX`] bound over the 64 KiB from `offset` at every
/// command (every tile state the capture holds rewritten, as RPCS3 records a state bound
/// before the frame).
fn with_tile(mut capture: Capture, offset: u32) -> Capture {
    let region = TileRegion {
        location: Location::Local,
        offset,
        size: 0x1_0000,
        pitch: 256,
        compression: 0,
        base_tag: 0,
        bank: 0,
    };
    assert!(
        !capture.tiles.is_empty(),
        "the builder records a tile state"
    );
    for entry in &mut capture.tiles {
        entry.value.tiles[INDEX] = region.pack();
    }
    capture
}

/// The scene: draw 0 renders PATTERN into SOURCE, an NV3089 1:1 copies SOURCE into DEST
/// (8×8 A8R8G8B8, pitch 32, a 2D surface), draw 1 samples DEST into COLOR; `before_draw_1`
/// runs after COLOR is set (a clear there clears COLOR).
fn copy_scene(
    before_draw_1: impl FnOnce(&mut rsxtrace_capture::builder::CaptureBuilder),
) -> Capture {
    scene(
        "tile_regions.rrc",
        |b| {
            b.set_transfer_surface(&TransferSurfaceDesc {
                location: Location::Local,
                offset: DEST,
                pitch: 32,
                format: 0xA,
            });
            b.transfer_scaled(&scaled(1 << 20, 0, (0, 0, 8, 8)))
                .unwrap();
        },
        |b| {
            before_draw_1(b);
            bind(b, DEST, 0x85, true, 8, 8, 32, 256);
        },
    )
}

/// The reads `tiled_reads` finds over the whole frame: (draw, use).
fn reads(capture: &Capture) -> Vec<(Option<usize>, TiledUse)> {
    let frame = Frame::from_capture(capture).expect("frame");
    let events = FrameEvents::from_capture(capture, &frame);
    let reads = tiled_reads(&frame, &events, 0..frame.draws.len());
    for r in &reads {
        assert_eq!(r.tile.index, INDEX);
        assert!(r.bytes > 0);
    }
    reads.iter().map(|r| (r.draw, r.what)).collect()
}

#[test]
fn only_captured_bytes_in_a_tile_region_are_tiled_reads() {
    // No region bound: nothing to say.
    assert_eq!(reads(&copy_scene(|_| {})), vec![]);
    // The pattern is captured and sampled by draw 0.
    assert_eq!(
        reads(&with_tile(copy_scene(|_| {}), PATTERN)),
        vec![(Some(0), TiledUse::Texture(0))]
    );
    // Nothing cleared SOURCE before draw 0 renders into it: it starts from the captured
    // bytes. The transfer then reads what draw 0 rendered: not captured.
    assert_eq!(
        reads(&with_tile(copy_scene(|_| {}), SOURCE)),
        vec![(Some(0), TiledUse::ColorTarget(0))]
    );
    // The transfer wrote DEST whole before draw 1 samples it.
    assert_eq!(reads(&with_tile(copy_scene(|_| {}), DEST)), vec![]);
    // COLOR starts from the captured bytes, unless a clear of the whole surface wrote it.
    assert_eq!(
        reads(&with_tile(copy_scene(|_| {}), COLOR)),
        vec![(Some(1), TiledUse::ColorTarget(0))]
    );
    let cleared = copy_scene(|b| b.clear_surface(0xF0, 0xFF00_00FF, 0));
    assert_eq!(reads(&with_tile(cleared, COLOR)), vec![]);
    // A clear of depth alone writes none of the colour target's bytes.
    let depth_only = copy_scene(|b| b.clear_surface(0x01, 0, 0));
    assert_eq!(
        reads(&with_tile(depth_only, COLOR)),
        vec![(Some(1), TiledUse::ColorTarget(0))]
    );
}

#[test]
fn a_transfer_from_captured_bytes_in_a_tile_region_is_a_tiled_read() {
    // An NV0039 copy of the captured pattern into DEST, before draw 1.
    let mut b = source_pass("tile_regions_copy.rrc");
    b.transfer_memory(&whole_copy(PATTERN, DEST)).unwrap();
    b.set_surface(&crate::render_transfer::surface(COLOR));
    bind(&mut b, DEST, 0x85, true, 8, 8, 32, 256);
    crate::render_transfer::quad(&mut b, 0x2_0000);
    let capture = with_tile(b.finish(), PATTERN);
    assert_eq!(
        reads(&capture),
        vec![
            (Some(0), TiledUse::Texture(0)),
            (Some(1), TiledUse::TransferSource)
        ]
    );
}

#[test]
fn both_renderers_warn_once_per_use_and_region() {
    // Draws 0 and 1 both sample the captured pattern: one warning names the first and
    // counts the other.
    let capture = with_tile(
        scene(
            "tile_regions_twice.rrc",
            |_| {},
            |b| bind(b, PATTERN, 0x85, true, 8, 8, 32, 256),
        ),
        PATTERN,
    );
    assert_eq!(
        reads(&capture),
        vec![
            (Some(0), TiledUse::Texture(0)),
            (Some(1), TiledUse::Texture(0))
        ]
    );
    let tiled = |warnings: &[rsxtrace_replay::render::RenderWarning]| -> Vec<String> {
        warnings
            .iter()
            .filter(|w| w.message.contains("tile region"))
            .map(|w| format!("{:?}: {}", w.draw, w.message))
            .collect()
    };
    let on_cpu = tiled(&cpu(&capture).warnings);
    assert_eq!(on_cpu.len(), 1, "{on_cpu:?}");
    let w = &on_cpu[0];
    assert!(
        w.starts_with("Some(0): texture unit 0 reads captured bytes"),
        "{w}"
    );
    assert!(w.contains(" and 1 later read);"), "{w}");
    assert!(
        w.contains("tile region 3 (local+0x380000, 0x10000 bytes, pitch 256, DISABLED)"),
        "{w}"
    );
    assert!(w.contains("may be out of place"), "{w}");
    if let Some(device) = gpu_support::gpu("both_renderers_warn_once_per_use_and_region") {
        assert_eq!(tiled(&gpu(&device, &capture).warnings), on_cpu);
    }
}
