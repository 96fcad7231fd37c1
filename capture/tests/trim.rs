//! `rsxtrace_capture::trim` on command lists laid out by hand: the kept draws decode as they
//! do in the whole frame (state written by the removed draws included), the removed draws'
//! memory and their data go, a batch that mixes removed and kept writes is split, tile and
//! display-buffer changes of removed commands move on, the parts of one BEGIN/END stay
//! together, and an empty range is refused.

use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Entry, MemoryBlock};
use rsxtrace_capture::trim::{trim, TrimError};

const BEGIN_END: u32 = 0x1808;
const DRAW_ARRAYS: u32 = 0x1814;
const BASE_OFFSET: u32 = 0x1738;
/// A register just below `SET_BEGIN_END`, written in the same batch as it.
const BELOW_BEGIN_END: u32 = 0x1804;
const TRIANGLES: u32 = 5;

/// `DRAW_ARRAYS` of `count` vertices from `first`.
fn range(first: u32, count: u32) -> u32 {
    ((count - 1) << 24) | first
}

// The frame-model tests' hand layout (`B::put`, `B::frame`).
use crate::stream_support;
use stream_support::B;

/// A block of `len` bytes at local `offset`, id `id`, attached to `b`'s last command.
fn attach(b: &mut B, id: u64, offset: u32, len: usize) {
    b.c.data.push(Entry {
        id: id + 1000,
        value: vec![id as u8; len].into(),
    });
    b.c.blocks.push(Entry {
        id,
        value: MemoryBlock {
            offset,
            location: 0,
            data_id: id + 1000,
        },
    });
    if let Some(last) = b.c.commands.last_mut() {
        last.memory.push(id);
    }
}

/// Three draws: the first writes the base offset inside its BEGIN/END and starts with a batch
/// that also writes the register below `SET_BEGIN_END`; each END carries a block, the first a
/// display-buffer change.
fn three_draws() -> B {
    let mut b = B::new();
    b.put(BELOW_BEGIN_END, &[0x77, TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(BASE_OFFSET, &[0x40]);
    b.put(BEGIN_END, &[0]);
    attach(&mut b, 1, 0x1000, 64);
    b.c.commands.last_mut().unwrap().display_buffer_state = 9;
    for k in 1..3 {
        b.put(BEGIN_END, &[TRIANGLES]);
        b.put(DRAW_ARRAYS, &[range(3 * k, 3)]);
        b.put(BEGIN_END, &[0]);
        attach(&mut b, 1 + u64::from(k), 0x1000 * (1 + k), 32);
    }
    b
}

#[test]
fn kept_draws_decode_as_in_the_whole_frame() {
    let b = three_draws();
    let whole = b.frame();
    assert_eq!(whole.draws.len(), 3);
    let (trimmed, report) = trim(&b.c, &whole, 1..2).expect("trim");
    assert_eq!(report.draws, 1..2);
    let t = Frame::from_capture(&trimmed).expect("trimmed frame decodes");
    assert_eq!(t.draws.len(), 1, "{:?}", t.problems);
    let (a, k) = (&whole.draws[1], &t.draws[0]);
    assert_eq!(k.ranges, a.ranges);
    assert_eq!(k.primitive, a.primitive);
    // The base offset the removed draw wrote inside its BEGIN/END still holds.
    assert_eq!(k.vertex_inputs.base_offset, 0x40);
    assert_eq!(
        format!("{:?}", k.vertex_inputs),
        format!("{:?}", a.vertex_inputs)
    );
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    // The commands after the last kept END are gone.
    assert_eq!(trimmed.commands.len(), report.commands.1);
    assert!(report.commands.1 < report.commands.0);
    // Only draw 1's block and its data remain.
    let ids: Vec<u64> = trimmed.blocks.iter().map(|e| e.id).collect();
    assert_eq!(ids, [2]);
    assert_eq!(trimmed.data.len(), 1);
    assert_eq!(report.data_bytes, (64 + 32 + 32, 32));
    // The batch lost its SET_BEGIN_END write: the write below it is a command of its own.
    assert!(trimmed
        .commands
        .iter()
        .any(|c| c.first == (BELOW_BEGIN_END | (1 << 18)) && c.second == 0x77));
    // The removed END's display-buffer change moved to the next kept command.
    assert_eq!(
        trimmed
            .commands
            .iter()
            .filter(|c| c.display_buffer_state == 9)
            .count(),
        1
    );
}

/// The frame's flip after the cut is kept, with the display-buffer state the commands after
/// the cut carried, so that RPCS3 shows the buffer the game flipped.
#[test]
fn the_frames_last_flip_is_kept() {
    let mut b = three_draws();
    b.put(0xFEAC, &[1]);
    let n = b.c.commands.len();
    b.c.commands[n - 1].display_buffer_state = 11;
    let whole = b.frame();
    let (trimmed, _) = trim(&b.c, &whole, 0..1).expect("trim");
    let last = trimmed.commands.last().unwrap();
    assert_eq!((last.first, last.second), (0xFEAC | (1 << 18), 1));
    assert_eq!(last.display_buffer_state, 11);
    let t = Frame::from_capture(&trimmed).expect("trimmed frame decodes");
    assert_eq!(t.draws.len(), 1, "{:?}", t.problems);
    // Without a flip after the cut nothing is added.
    let plain = three_draws();
    let (trimmed, _) = trim(&plain.c, &plain.frame(), 0..1).unwrap();
    assert!(trimmed.commands.iter().all(|c| c.first & 0xFFFC != 0xFEAC));
}

#[test]
fn the_parts_of_one_begin_end_stay_together() {
    // One BEGIN/END in two parts (the base offset changes between its ranges), then a draw.
    let mut b = B::new();
    b.put(BEGIN_END, &[TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(BASE_OFFSET, &[0x100]);
    b.put(DRAW_ARRAYS, &[range(3, 3)]);
    b.put(BEGIN_END, &[0]);
    b.put(BEGIN_END, &[TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(6, 3)]);
    b.put(BEGIN_END, &[0]);
    let whole = b.frame();
    assert_eq!(whole.draws.len(), 3);
    let (trimmed, report) = trim(&b.c, &whole, 1..2).expect("trim");
    assert_eq!(report.draws, 0..2, "grown to the first part");
    assert_eq!(Frame::from_capture(&trimmed).unwrap().draws.len(), 2);
    let (_, report) = trim(&b.c, &whole, 2..3).expect("trim");
    assert_eq!(report.draws, 2..3);
}

#[test]
fn an_empty_range_is_refused() {
    let b = three_draws();
    let whole = b.frame();
    for r in [3..5, 1..1] {
        assert!(
            matches!(
                trim(&b.c, &whole, r),
                Err(TrimError::EmptyRange { draws: 3, .. })
            ),
            "{:?}",
            trim(&b.c, &whole, 3..5).err()
        );
    }
}
