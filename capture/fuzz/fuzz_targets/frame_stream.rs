//! Fuzz target: an arbitrary method stream into the frame model. Each 5 input bytes are one
//! method call: byte 0 picks the register (mostly from the methods that open, fill and split
//! draw clauses: BEGIN/END, DRAW_ARRAYS, DRAW_INDEX_ARRAY, INLINE_ARRAY, the vertex bases and
//! array offsets, the transform constant load slot and constants, immediate vertex data, the
//! index array and the input mask; else any register), bytes 1..5 the value (little-endian).
//! The frame model must return Ok or Err, never panic, and its draws must be numbered in
//! order with the parts of one BEGIN/END numbered 0, 1, ... sharing its commands. The frame
//! trimmed to a range of its draws (the last input byte picks it) must decode to those
//! draws, with the same ranges, primitives and vertex inputs. `diff_frames` of the frame with
//! itself must find it identical, and of the frame with the trimmed one must pair every
//! trimmed draw.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_capture::diff::diff_frames;
use rsxtrace_capture::trim::trim;
use rsxtrace_fetch::fetch_draw;
use rsxtrace_frame::Frame;
use rsxtrace_rrc::{Capture, ReplayCommand};

/// Register byte offsets the stream is built from (byte 0 below their count).
const METHODS: [u32; 16] = [
    0x1808, // SET_BEGIN_END
    0x1814, // DRAW_ARRAYS
    0x1824, // DRAW_INDEX_ARRAY
    0x1818, // INLINE_ARRAY
    0x1738, // SET_VERTEX_DATA_BASE_OFFSET
    0x173C, // SET_VERTEX_DATA_BASE_INDEX
    0x1680, // SET_VERTEX_DATA_ARRAY_OFFSET (attribute 0)
    0x1684, // SET_VERTEX_DATA_ARRAY_OFFSET (attribute 1)
    0x1740, // SET_VERTEX_DATA_ARRAY_FORMAT (attribute 0)
    0x1EFC, // SET_TRANSFORM_CONSTANT_LOAD
    0x1F00, // SET_TRANSFORM_CONSTANT (x)
    0x1F04, // SET_TRANSFORM_CONSTANT (y)
    0x1C00, // SET_VERTEX_DATA4F_M (attribute 0, x)
    0x1800, // SET_INDEX_ARRAY_ADDRESS
    0x1804, // SET_INDEX_ARRAY_DMA
    0x1FF0, // SET_VERTEX_ATTRIB_INPUT_MASK
];

fuzz_target!(|data: &[u8]| {
    let mut capture = Capture::empty("fuzz.rrc");
    // Slot 0 of program memory holds an END so the default vertex program is valid.
    capture.reg_state.transform_program[3] = 1;
    capture.commands.push(ReplayCommand {
        first: 0x40,
        ..Default::default()
    });
    for call in data.chunks_exact(5) {
        let byte = match METHODS.get(usize::from(call[0])) {
            Some(&b) => b,
            // Any register of the 16,384 (byte offsets below 0x10000).
            None => (u32::from(call[0]) * 0x101) & 0xFFFC,
        };
        let value = u32::from_le_bytes([call[1], call[2], call[3], call[4]]);
        capture.commands.push(ReplayCommand {
            // One method, one argument (rrc-format.md 3.2).
            first: byte | (1 << 18),
            second: value,
            ..Default::default()
        });
    }
    let Ok(frame) = Frame::from_capture(&capture) else {
        return;
    };
    let mut part = None::<(usize, u32)>;
    for (i, draw) in frame.draws.iter().enumerate() {
        assert_eq!(draw.index, i);
        match part {
            Some((begin, k)) if begin == draw.begin_command && draw.part > 0 => {
                assert_eq!(draw.part, k + 1, "parts of one BEGIN/END in order");
            }
            _ => assert_eq!(draw.part, 0, "a clause's first draw is part 0"),
        }
        part = Some((draw.begin_command, draw.part));
        let _ = draw.summary();
        if let Some(memory) = frame.memory(i) {
            let _ = fetch_draw(&draw.vertex_inputs, &memory);
        }
    }
    let itself = diff_frames(&frame, &frame);
    assert!(itself.is_identical(), "a frame against itself: {itself:?}");
    assert_eq!(itself.matched, frame.draws.len());
    let n = frame.draws.len();
    if n == 0 {
        return;
    }
    let pick = usize::from(*data.last().unwrap_or(&0));
    let (a, b) = (pick % n, (pick / 7) % n);
    let range = a.min(b)..a.max(b) + 1;
    let (trimmed, report) = trim(&capture, &frame, range).expect("a range of draws trims");
    let t = Frame::from_capture(&trimmed).expect("a trimmed frame decodes");
    let kept = &frame.draws[report.draws.clone()];
    assert_eq!(t.draws.len(), kept.len(), "the kept draws, no more");
    for (k, (d, w)) in t.draws.iter().zip(kept).enumerate() {
        assert_eq!(d.ranges, w.ranges, "draw {k}: ranges");
        assert_eq!(d.primitive, w.primitive, "draw {k}");
        assert_eq!(d.part, w.part, "draw {k}");
        assert_eq!(
            format!("{:?}", d.vertex_inputs),
            format!("{:?}", w.vertex_inputs),
            "draw {k}: vertex inputs"
        );
    }
    let d = diff_frames(&frame, &t);
    assert_eq!(d.matched, t.draws.len(), "every trimmed draw pairs");
    assert!(d.only_b.is_empty());
});
