//! Execution barriers inside BEGIN/END (RPCS3 `draw_clause::insert_command_barrier`): a
//! vertex base, array offset or transform constant changed after a range applies to the ranges
//! after it only, so the frame model draws each part as a draw of its own; a write before any
//! range splits nothing, and one that changes nothing still does (as in RPCS3). Command lists
//! laid out by hand.

use crate::stream_support;
use rsxtrace_fetch::DrawRange;
use rsxtrace_frame::Frame;
use stream_support::B;

const BEGIN_END: u32 = 0x1808;
const DRAW_ARRAYS: u32 = 0x1814;
const BASE_OFFSET: u32 = 0x1738;
const BASE_INDEX: u32 = 0x173C;
/// `SET_VERTEX_DATA_ARRAY_OFFSET` of attribute 0; attribute i at + 4 i.
const ARRAY_OFFSET: u32 = 0x1680;
/// `SET_VERTEX_DATA_ARRAY_FORMAT` of attribute 0; attribute i at + 4 i.
const ARRAY_FORMAT: u32 = 0x1740;
const CONSTANT_LOAD: u32 = 0x1EFC;
/// `SET_TRANSFORM_CONSTANT` x of the loaded slot; y, z, w and the next slots follow.
const CONSTANT: u32 = 0x1F00;
const TRIANGLES: u32 = 5;

/// `DRAW_ARRAYS` of `count` vertices from `first` (count − 1 in bits 24..31).
fn range(first: u32, count: u32) -> u32 {
    ((count - 1) << 24) | first
}

fn ranges(frame: &Frame) -> Vec<(u32, Vec<DrawRange>)> {
    frame
        .draws
        .iter()
        .map(|d| (d.part, d.ranges.clone()))
        .collect()
}

fn r(first: u32, count: u32) -> DrawRange {
    DrawRange { first, count }
}

#[test]
fn a_base_offset_changed_between_ranges_applies_to_the_ranges_after_it() {
    let mut b = B::new();
    b.put(BASE_OFFSET, &[0x40]);
    b.put(BEGIN_END, &[TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(BASE_OFFSET, &[0x100]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(DRAW_ARRAYS, &[range(3, 3)]);
    b.put(BASE_INDEX, &[7]);
    b.put(DRAW_ARRAYS, &[range(9, 3)]);
    b.put(BEGIN_END, &[0]);
    let f = b.frame();
    assert_eq!(
        ranges(&f),
        vec![
            (0, vec![r(0, 3)]),
            // The range equal to the first part's is not a repeat: parts hold their own.
            (1, vec![r(0, 6)]),
            (2, vec![r(9, 3)]),
        ]
    );
    let bases: Vec<(u32, u32)> = f
        .draws
        .iter()
        .map(|d| (d.vertex_inputs.base_offset, d.vertex_inputs.base_index))
        .collect();
    assert_eq!(bases, vec![(0x40, 0), (0x100, 0), (0x100, 7)]);
    // One BEGIN/END: the parts share its commands and are numbered in order.
    let first = &f.draws[0];
    assert!(f
        .draws
        .iter()
        .all(|d| d.begin_command == first.begin_command && d.end_command == first.end_command));
    assert_eq!(
        f.draws.iter().map(|d| d.index).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    assert_eq!(f.draws[1].summary().part, 1);
    // The register ends with the last value written, as the clause leaves it.
    assert_eq!(f.final_registers[(BASE_OFFSET / 4) as usize], 0x100);
}

#[test]
fn an_array_offset_or_a_constant_changed_between_ranges_splits_the_draw() {
    let mut b = B::new();
    // Attribute 2's array: format F, size 4, stride 16; offset in main memory (bit 31).
    b.put(ARRAY_FORMAT + 8, &[0x0000_1042]);
    b.put(ARRAY_OFFSET + 8, &[0x8000_1000]);
    b.put(CONSTANT_LOAD, &[10]);
    b.put(CONSTANT, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    b.put(BEGIN_END, &[TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(ARRAY_OFFSET + 8, &[0x8000_2000]);
    b.put(DRAW_ARRAYS, &[range(3, 3)]);
    // Back to back: the load slot, then c[11]; one barrier.
    b.put(CONSTANT_LOAD, &[11]);
    b.put(CONSTANT, &f32s(&[5.0, 6.0, 7.0, 8.0]));
    b.put(DRAW_ARRAYS, &[range(6, 3)]);
    b.put(BEGIN_END, &[0]);
    let f = b.frame();
    assert_eq!(
        ranges(&f),
        vec![(0, vec![r(0, 3)]), (1, vec![r(3, 3)]), (2, vec![r(6, 3)])]
    );
    let offsets: Vec<u32> = f
        .draws
        .iter()
        .map(|d| d.vertex_inputs.arrays[2].map_or(0, |a| a.offset))
        .collect();
    assert_eq!(offsets[0] + 0x1000, offsets[1]);
    assert_eq!(offsets[1], offsets[2]);
    // c[10] in every part; c[11] only from the part after its write.
    for d in &f.draws {
        assert_eq!(
            d.constants.get(10),
            Some([1.0, 2.0, 3.0, 4.0]),
            "part {}",
            d.part
        );
    }
    assert_eq!(f.draws[1].constants.get(11), None);
    assert_eq!(f.draws[2].constants.get(11), Some([5.0, 6.0, 7.0, 8.0]));
}

#[test]
fn a_write_before_any_range_splits_nothing_and_an_unchanged_one_still_splits() {
    let mut b = B::new();
    b.put(CONSTANT_LOAD, &[4]);
    b.put(CONSTANT, &f32s(&[1.0, 1.0, 1.0, 1.0]));
    b.put(BEGIN_END, &[TRIANGLES]);
    // Before the first range: the whole draw has it.
    b.put(BASE_OFFSET, &[0x80]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    // The same value again after a range: still a barrier in RPCS3, so the range repeated
    // after it is a new part's, drawn again rather than dropped as a duplicate.
    b.put(BASE_OFFSET, &[0x80]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(BEGIN_END, &[0]);
    // A change after the last range: the part after it is empty and draws nothing.
    b.put(BEGIN_END, &[TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(BASE_OFFSET, &[0x200]);
    b.put(BEGIN_END, &[0]);
    let f = b.frame();
    assert_eq!(
        ranges(&f),
        vec![(0, vec![r(0, 3)]), (1, vec![r(0, 3)]), (0, vec![r(0, 3)])]
    );
    let bases: Vec<u32> = f
        .draws
        .iter()
        .map(|d| d.vertex_inputs.base_offset)
        .collect();
    assert_eq!(bases, vec![0x80, 0x80, 0x80]);
}

#[test]
fn a_constant_write_past_c467_is_no_barrier() {
    // LOAD 470: the write lands nowhere, and RPCS3's handler returns before it inserts a
    // barrier, so the repeated range is a duplicate of the same part and dropped (one draw).
    let mut b = B::new();
    b.put(CONSTANT_LOAD, &[470]);
    b.put(BEGIN_END, &[TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(CONSTANT, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(BEGIN_END, &[0]);
    // LOAD 467: c[467] lands, a barrier; the range after it is a part of its own.
    b.put(CONSTANT_LOAD, &[467]);
    b.put(BEGIN_END, &[TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(CONSTANT, &f32s(&[1.0, 2.0, 3.0, 4.0]));
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(BEGIN_END, &[0]);
    let f = b.frame();
    assert_eq!(
        ranges(&f),
        vec![(0, vec![r(0, 3)]), (0, vec![r(0, 3)]), (1, vec![r(0, 3)])]
    );
}

fn f32s(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}
