//! `diff_frames`: two frames made by the builder, one with a draw inserted, one draw's blend
//! state, a transform constant and a fragment inline constant changed, and another draw's
//! vertex bytes changed; the bundled game sample against itself, its trace and a trimmed copy.

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::{CaptureBuilder, TextureDesc};
use rsxtrace_capture::diff::{diff_draws, diff_frames, diff_frames_with, AlignedRun, DiffOptions};
use rsxtrace_capture::fetch::Span;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Capture, Location};
use serde_json::json;

/// Fragment microcode `MOV R0, c` (END) with its inline constant (slot 1) set to `value`:
/// each word stored big-endian with its 16-bit halves swapped (rsx-microcode.md).
fn fragment_with_constant(value: f32) -> Vec<u8> {
    let words = [0x0100_1E01u32, 0x0001_C802, 0x0001_C800, 0x0001_C800];
    words
        .iter()
        .copied()
        .chain([value.to_bits(); 4])
        .flat_map(|w| w.rotate_left(16).to_be_bytes())
        .collect()
}

/// Three draws of 3, 6 and 9 vertices from separate arrays; `variant` changes the second
/// draw's blend state and `c[5]`, the third draw's vertex bytes, and inserts a fourth draw
/// (12 vertices) between them.
fn capture(variant: bool) -> Capture {
    let mut b = CaptureBuilder::new(if variant { "b.rrc" } else { "a.rrc" });
    let floats = |n: usize, scale: f32| -> Vec<u8> {
        (0..n * 3)
            .flat_map(|i| (i as f32 * scale).to_be_bytes())
            .collect()
    };
    b.put_memory(Location::Main, 0x1000, &floats(3, 1.0))
        .unwrap();
    b.put_memory(Location::Main, 0x2000, &floats(6, 1.0))
        .unwrap();
    let third = if variant { 2.0 } else { 1.0 };
    b.put_memory(Location::Main, 0x3000, &floats(9, third))
        .unwrap();
    b.put_memory(Location::Main, 0x4000, &floats(12, 1.0))
        .unwrap();
    b.set_vertex_attrib_input_mask(1);
    b.set_fragment_program(Location::Local, 0x100, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b.set_transform_constants(5, &[[1.0, 2.0, 3.0, 4.0]])
        .unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
        .unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();

    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x2000)
        .unwrap();
    if variant {
        b.set_blend(true, (0x0302, 0x0302), (0x0303, 0x0303), (0x8006, 0x8006));
        b.set_transform_constants(5, &[[1.0, 2.0, 3.0, 5.0]])
            .unwrap();
    }
    let fragment = fragment_with_constant(if variant { 0.25 } else { 0.5 });
    b.set_fragment_program(Location::Local, 0x200, &fragment, 0x40)
        .unwrap();
    b.draw_arrays(5, &[(0, 6)]).unwrap();
    b.set_fragment_program(Location::Local, 0x100, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    if variant {
        // Back to the reset state (ONE, ZERO, FUNC_ADD) for the draws after.
        b.set_blend(false, (1, 1), (0, 0), (0x8006, 0x8006));
        b.set_transform_constants(5, &[[1.0, 2.0, 3.0, 4.0]])
            .unwrap();
        b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x4000)
            .unwrap();
        b.draw_arrays(5, &[(0, 12)]).unwrap();
    }

    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x3000)
        .unwrap();
    // The third draw samples a 2x2 texture whose texels differ in the variant.
    let texels: Vec<u8> = (0..16u8)
        .map(|i| if variant { i ^ 0x80 } else { i })
        .collect();
    b.put_memory(Location::Local, 0x8000, &texels).unwrap();
    let texture = TextureDesc {
        offset: 0x8000,
        width: 2,
        height: 2,
        pitch: 8,
        byte_size: 16,
        ..TextureDesc::default()
    };
    b.set_texture(0, &texture).unwrap();
    b.draw_arrays(5, &[(0, 9)]).unwrap();
    b.finish()
}

fn frame(variant: bool) -> Frame {
    Frame::from_capture(&capture(variant)).unwrap()
}

#[test]
fn changed_draws_are_aligned_and_their_differences_named() {
    let (a, b) = (frame(false), frame(true));
    assert_eq!((a.draws.len(), b.draws.len()), (3, 4));
    let d = diff_frames(&a, &b);
    assert!(!d.is_identical());
    assert_eq!(d.matched, 3);
    assert_eq!(d.identical, 1);
    assert_eq!(d.only_a, Vec::<usize>::new());
    assert_eq!(d.only_b, [2]);
    assert_eq!(
        d.aligned,
        [
            AlignedRun { a: 0, b: 0, len: 2 },
            AlignedRun { a: 2, b: 3, len: 1 }
        ]
    );
    assert_eq!(d.partner_of(2), Some(3));

    let second = &d.differing[0];
    assert_eq!((second.a, second.b), (1, 1));
    let blend = second
        .fields
        .iter()
        .find(|f| f.field == "raster.blend.enabled")
        .expect("the blend switch is named");
    assert_eq!((&blend.a, &blend.b), (&json!(false), &json!(true)));
    assert!(second
        .fields
        .iter()
        .all(|f| f.field.starts_with("raster.blend.")));
    assert_eq!(second.constants.len(), 1);
    let c = &second.constants[0];
    assert_eq!(c.register, 5);
    assert_eq!(c.a, Some([1.0, 2.0, 3.0, 4.0]));
    assert_eq!(c.b, Some([1.0, 2.0, 3.0, 5.0]));
    assert_eq!(second.inline_constants.len(), 1);
    let ic = &second.inline_constants[0];
    assert_eq!((ic.slot, ic.a, ic.b), (1, Some([0.5; 4]), Some([0.25; 4])));
    assert!(second.data.is_empty());

    let third = &d.differing[1];
    assert_eq!((third.a, third.b), (2, 3));
    assert!(third.fields.is_empty(), "{:?}", third.fields);
    assert!(third.constants.is_empty());
    assert_eq!(third.data.len(), 1);
    assert_eq!(third.data[0].what, "attribute 0");
    assert!(third.data[0].a.is_some() && third.data[0].a != third.data[0].b);
}

/// With the texture model's spans (here: the 16 bytes the builder's 2x2 texture holds), the
/// texels of each enabled unit are compared too.
#[test]
fn texels_are_compared_with_the_callers_texture_spans() {
    let (a, b) = (frame(false), frame(true));
    let spans = |_unit: u8, t: &rsxtrace_capture::frame::state::Texture| {
        Some(vec![Span {
            location: t.location?,
            offset: t.offset,
            len: 16,
        }])
    };
    let options = DiffOptions {
        texture_spans: Some(&spans),
    };
    let d = diff_frames_with(&a, &b, options);
    assert_eq!((d.matched, d.identical), (3, 1));
    let third = &d.differing[1];
    let whats: Vec<&str> = third.data.iter().map(|c| c.what.as_str()).collect();
    assert_eq!(whats, ["attribute 0", "texture fragment 0"]);
    // A frame against itself: the same texels.
    assert!(diff_frames_with(&b, &b, options).is_identical());
}

#[test]
fn a_frame_against_itself_is_identical() {
    let a = frame(true);
    let options = DiffOptions::default();
    assert_eq!(
        diff_draws(&a, 3, &a, 3, options).map(|d| d.count()),
        Some(0)
    );
    // A draw a frame lacks is no comparison, not a panic.
    assert!(diff_draws(&a, 4, &a, 0, options).is_none());
    assert!(diff_draws(&a, 0, &a, 4, options).is_none());
    let d = diff_frames(&a, &a);
    assert!(d.is_identical());
    assert_eq!((d.matched, d.identical), (4, 4));
    assert_eq!(d.aligned, [AlignedRun { a: 0, b: 0, len: 4 }]);
}

#[test]
fn the_game_sample_against_its_trimmed_copy() {
    let path = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let capture = rsxtrace_capture::open::open_capture(&path).unwrap();
    let whole = Frame::from_capture(&capture).unwrap();
    assert!(diff_frames(&whole, &whole).is_identical());
    let (trimmed, _) = rsxtrace_capture::trim::trim(&capture, &whole, 100..120).unwrap();
    let part = Frame::from_capture(&trimmed).unwrap();
    let d = diff_frames(&whole, &part);
    // The trimmed frame's draws are the whole frame's draws 100..120, state, constants and
    // vertex bytes included, and they pair with those (not with other draws of the same
    // meshes later in the frame).
    assert_eq!(
        d.aligned,
        [AlignedRun {
            a: 100,
            b: 0,
            len: 20
        }]
    );
    assert_eq!((d.matched, d.identical), (20, 20));
    assert_eq!(d.only_a.len(), 2380);
    assert!(d.only_b.is_empty());
}
