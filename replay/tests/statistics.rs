//! `render::statistics` on a builder scene whose counts follow from what it records: a clear,
//! two quads from arrays, an indexed triangle strip cut by a restart index, a memory copy,
//! a blended line strip, a constant upload, points, and an indexed draw whose index buffer the
//! capture lacks (counted as a draw, its primitives unknown, the rest still counted).

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::{CaptureBuilder, IndexType, MemoryCopyDesc};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_replay::raster::Primitive;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::statistics::{statistics, Bucket, PassKind, Sources, PARTS};

fn vertices(rect: [f32; 4]) -> Vec<TestVertex> {
    corners(rect)
        .map(|(x, y)| [[x, y, 0.5, 1.0], [1.0; 4], [0.0; 4]])
        .to_vec()
}

fn scene() -> Capture {
    let mut b = pixel_scene("statistics.rrc", 8, 2);
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    b.clear_surface(0xF3, 0, 0);
    draw_vertices(&mut b, 0x1_0000, 8, &vertices([0.0, 0.0, 8.0, 8.0])); // draw 0: 2 triangles
    draw_vertices(&mut b, 0x2_0000, 8, &vertices([0.0, 0.0, 4.0, 4.0])); // draw 1: 2 triangles
                                                                         // Draw 2: a strip over draw 1's vertices, 0 1 2 3 | restart | 0 1 2: 2 + 1 triangles.
    let indices: Vec<u8> = [0u16, 1, 2, 3, 0xFFFF, 0, 1, 2]
        .iter()
        .flat_map(|i| i.to_be_bytes())
        .collect();
    b.put_memory(Location::Main, 0x9000, &indices).unwrap();
    // The arrays' spans as the builder checks them run past draw 1's last vertex.
    b.put_memory(Location::Main, 0x2_0000 + 4 * 48, &[0; 64])
        .unwrap();
    b.set_index_array(Location::Main, 0x9000, IndexType::U16)
        .unwrap();
    b.set_restart_index(true, 0xFFFF);
    b.draw_indexed(6, &[(0, 8)]).unwrap();
    b.transfer_memory(&MemoryCopyDesc {
        src: (Location::Local, 0x4_0000),
        dst: (Location::Local, 0x5_0000),
        pitch: (16, 16),
        line_length: 16,
        line_count: 1,
        strides: (1, 1),
    })
    .unwrap();
    b.set_blend(true, (1, 1), (1, 1), (0x8006, 0x8006));
    let mut strip = vertices([0.0, 0.0, 8.0, 8.0]);
    strip.push(strip[0]);
    draw_vertices(&mut b, 0x3_0000, 4, &strip); // draw 3: a line strip of 5, 4 lines
    b.set_transform_constants(40, &[[1.0, 2.0, 3.0, 4.0]])
        .unwrap();
    draw_vertices(&mut b, 0x6_0000, 1, &vertices([0.0, 0.0, 2.0, 2.0])[..3]); // draw 4: 3 points
                                                                              // Draw 5: quads from an index buffer the capture then loses (the builder refuses a draw
                                                                              // without its memory: the blocks attached to its END are taken away afterwards).
    b.put_memory(Location::Main, 0xF_0000, &[0; 8]).unwrap();
    b.set_index_array(Location::Main, 0xF_0000, IndexType::U16)
        .unwrap();
    b.set_restart_index(false, 0);
    b.draw_indexed(8, &[(0, 4)]).unwrap();
    let mut capture = b.finish();
    let last_end = capture
        .commands
        .iter_mut()
        .rev()
        .find(|c| !c.memory.is_empty())
        .expect("draw 5's END has its blocks");
    last_end.memory.clear();
    capture
}

fn count(changes: &[(&str, usize)], part: &str) -> usize {
    assert!(PARTS.contains(&part), "{part} is a part");
    changes.iter().find(|(p, _)| *p == part).unwrap().1
}

#[test]
fn counts_follow_what_the_frame_records() {
    let capture = scene();
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    assert_eq!(frame.draws.len(), 6);
    let s = statistics(&frame, &events, &capture.commands, None);
    assert_eq!(s.draws, 0..6);
    assert_eq!(
        s.by_primitive,
        [
            (Primitive::Points, 1),
            (Primitive::LineStrip, 1),
            (Primitive::TriangleStrip, 1),
            (Primitive::Quads, 3),
        ]
    );
    assert_eq!(
        s.by_source,
        Sources {
            arrays: 4,
            indexed: 2,
            ..Sources::default()
        }
    );
    // 4, 4, 7 (the restart is no vertex), 5, 3, 4.
    assert_eq!(s.vertices.total, 27);
    // Draw 2 shades its 4 distinct vertices once; draw 5 (unreadable) counts its 4.
    assert_eq!(s.vertices.shaded, 24);
    assert_eq!(
        (s.vertices.min, s.vertices.median, s.vertices.max),
        (3, 4, 7)
    );
    assert_eq!(
        s.vertices.histogram,
        [
            Bucket {
                from: 2,
                to: 3,
                draws: 1
            },
            Bucket {
                from: 4,
                to: 7,
                draws: 5
            }
        ]
    );
    assert_eq!(
        (s.assembled.triangles, s.assembled.lines, s.assembled.points),
        (2 + 2 + 3, 4, 3)
    );
    assert_eq!(s.assembled.unknown.len(), 1, "{:?}", s.assembled.unknown);
    assert_eq!(s.assembled.unknown[0].0, 5);
    assert_eq!(s.clears, 1);
    assert_eq!(s.transfers, [("memory_copy", 1)]);
    // Vertex arrays move at draws 1, 3 and 4 (draws 2 and 5 read the arrays before them).
    assert_eq!(count(&s.changes, "vertex_arrays"), 3);
    assert_eq!(count(&s.changes, "blend"), 1);
    assert_eq!(count(&s.changes, "transform_constants"), 1);
    assert_eq!(s.constant_registers_changed, 1);
    for part in [
        "surface",
        "vertex_program",
        "fragment_program",
        "textures",
        "depth",
    ] {
        assert_eq!(count(&s.changes, part), 0, "{part}");
    }
    assert_eq!((s.programs.vertex, s.programs.fragment), (1, 1));
    let begin_end = s
        .methods
        .iter()
        .find(|m| m.method == "NV4097_SET_BEGIN_END")
        .unwrap();
    assert_eq!(begin_end.calls, 12, "BEGIN and END of 6 draws");
    assert_eq!(
        s.method_calls,
        s.methods.iter().map(|m| m.calls).sum::<u64>()
    );
    assert!(s.methods.windows(2).all(|w| w[0].calls >= w[1].calls));
}

#[test]
fn a_range_counts_its_draws_and_the_commands_among_them() {
    let capture = scene();
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let s = statistics(&frame, &events, &capture.commands, Some(2..4));
    assert_eq!(s.draws, 2..4);
    assert_eq!(
        s.by_primitive,
        [(Primitive::LineStrip, 1), (Primitive::TriangleStrip, 1)]
    );
    assert_eq!(s.vertices.total, 12);
    assert_eq!(s.clears, 0, "the clear is before draw 0");
    assert_eq!(s.transfers, [("memory_copy", 1)]);
    assert_eq!(count(&s.changes, "vertex_arrays"), 1, "draw 3 only");
    let begin_end = s
        .methods
        .iter()
        .find(|m| m.method == "NV4097_SET_BEGIN_END")
        .unwrap();
    assert_eq!(begin_end.calls, 4);
    // The first draws alone: no transfer, the clear.
    let first = statistics(&frame, &events, &capture.commands, Some(0..2));
    assert_eq!((first.clears, first.transfers.len()), (1, 0));
    assert!(first.assembled.unknown.is_empty());
    // A range past the frame is cut to it.
    let last = statistics(&frame, &events, &capture.commands, Some(4..99));
    assert_eq!(last.draws, 4..6);
    assert_eq!(last.assembled.unknown.len(), 1);
}

/// A frame of no draws at all (a capture of clears) gives zeros, not a panic.
#[test]
fn a_frame_without_draws_counts_nothing() {
    let mut b = CaptureBuilder::new("no_draws.rrc");
    b.clear_surface(0xF3, 0, 0);
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let s = statistics(&frame, &events, &capture.commands, None);
    assert_eq!(s.draws, 0..0);
    assert_eq!(s.vertices.total, 0);
    assert!(s.vertices.histogram.is_empty());
    assert_eq!(s.clears, 1);
    assert!(s.changes.iter().all(|(_, n)| *n == 0));
}

/// Two passes: a quad into the scene's colour target, then a clear and a depth-tested quad
/// into a second colour target with the depth surface: each pass names its targets (the
/// depth surface only where a draw tests depth), its primitives and its clear.
#[test]
fn passes_follow_the_surface_changes() {
    let mut b = pixel_scene("passes.rrc", 8, 2);
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    draw_vertices(&mut b, 0x1_0000, 8, &vertices([0.0, 0.0, 8.0, 8.0]));
    set_a8r8g8b8_surface(&mut b, 8, 0, (0x30_0000, SCENE_ZETA), 32);
    b.clear_surface(0xF3, 0, 0);
    b.set_depth(true, 0x201, true);
    draw_vertices(&mut b, 0x2_0000, 8, &vertices([0.0, 0.0, 8.0, 8.0]));
    draw_vertices(&mut b, 0x3_0000, 8, &vertices([0.0, 0.0, 4.0, 4.0]));
    // A third pass writes no colour into a square surface: the shape of a shadow map.
    set_a8r8g8b8_surface(&mut b, 8, 0, (0x40_0000, 0x50_0000), 32);
    b.set_color_mask(0);
    draw_vertices(&mut b, 0x4_0000, 8, &vertices([0.0, 0.0, 8.0, 8.0]));
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let s = statistics(&frame, &events, &capture.commands, None);
    assert_eq!(s.passes.len(), 3);
    let kinds: Vec<PassKind> = s.passes.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [PassKind::Colour, PassKind::Colour, PassKind::Shadow]
    );
    let (first, second) = (&s.passes[0], &s.passes[1]);
    assert_eq!(
        (first.draws.clone(), first.primitives, first.clears),
        (0..1, 2, 0)
    );
    assert_eq!(
        (second.draws.clone(), second.primitives, second.clears),
        (1..3, 4, 1)
    );
    let places = |p: &rsxtrace_replay::render::statistics::Pass| -> Vec<(usize, u32)> {
        p.targets
            .iter()
            .map(|t| (t.index, t.layout.offset))
            .collect()
    };
    assert_eq!(places(first), [(0, SCENE_COLOR)]);
    assert_eq!(places(second), [(0, 0x30_0000), (4, SCENE_ZETA)]);
    assert_eq!(
        second.targets_text(),
        format!("A a8r8g8b8 8x8 at local+0x300000, Z z24s8 8x8 at local+0x{SCENE_ZETA:x}")
    );
    // A range starting inside the second pass: one pass, its clear before the range.
    let last = statistics(&frame, &events, &capture.commands, Some(2..3));
    assert_eq!(last.passes[0].kind, PassKind::Colour);
    assert_eq!(last.passes.len(), 1);
    assert_eq!(
        (last.passes[0].draws.clone(), last.passes[0].clears),
        (2..3, 0)
    );
}
