//! End-to-end fetch tests: vertex and index bytes laid out by hand in a sparse test memory.

use crate::common;

use common::*;
use rsxtrace_fetch::*;
use rsxtrace_rrc::Location::{Local, Main};

const S1_HALF: f32 = 0.5 / 32767.5;

#[test]
fn f32_array_with_padding_stride() {
    // F size 2, stride 12: each element is followed by 4 bytes that must be skipped.
    let mut bytes = Vec::new();
    for v in 0..3 {
        let base = v as f32 * 10.0;
        bytes.extend(be_f32(&[base + 1.0, base + 2.0]));
        bytes.extend([0xDE, 0xAD, 0xBE, 0xEF]);
    }
    let mem = TestMemory::new().with(Local, 0x1000, bytes);
    let mut inp = inputs(1, arrays(&[(0, 3)]));
    inp.arrays[0] = Some(array(VertexType::F, 2, 12, 0x1000, Local));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![0, 1, 2]);
    assert_eq!(
        column(&out, 0),
        vec![
            [1.0, 2.0, 0.0, 1.0],
            [11.0, 12.0, 0.0, 1.0],
            [21.0, 22.0, 0.0, 1.0]
        ]
    );
    assert_eq!(out.range_starts, vec![0]);
    assert!(out.restarts.is_empty());
}

#[test]
fn every_format_through_memory() {
    // One attribute per format, each in its own block of main memory, vertex 1 of each read
    // (first = 1) so the stride is applied once.
    let s1 = [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* v1: */ 0x80, 0x00, 0x7F, 0xFF,
        0xFF, 0xFF, 0x00, 0x00,
    ];
    let sf = [
        0u8, 0, 0, 0, /* v1: 1.0, -inf */ 0x3C, 0x00, 0xFC, 0x00,
    ];
    let ub = [0u8, 0, 0, 0, /* v1 */ 0xFF, 0x00, 0x33, 0x66];
    let s32k = [
        0u8, 0, 0, 0, /* v1: -32768, 1234 */ 0x80, 0x00, 0x04, 0xD2,
    ];
    // CMP: x = 0x3FF, y = 0x400, z = 0x3FF -> 0x3FF | 0x400 << 11 | 0x3FF << 22 = 0xFFE0_03FF
    let cmp = [0u8, 0, 0, 0, 0xFF, 0xE0, 0x03, 0xFF];
    let ub256 = [0u8, 0, 0, 0, 0x01, 0x02, 0xFE, 0xFF];
    let mem = TestMemory::new()
        .with(Main, 0x100, s1.to_vec())
        .with(Main, 0x200, sf.to_vec())
        .with(Main, 0x300, ub.to_vec())
        .with(Main, 0x400, s32k.to_vec())
        .with(Main, 0x500, cmp.to_vec())
        .with(Main, 0x600, ub256.to_vec());
    let mut inp = inputs(0b11_1111, arrays(&[(1, 1)]));
    inp.arrays[0] = Some(array(VertexType::S1, 3, 8, 0x100, Main));
    inp.arrays[1] = Some(array(VertexType::SF, 2, 4, 0x200, Main));
    inp.arrays[2] = Some(array(VertexType::UB, 4, 4, 0x300, Main));
    inp.arrays[3] = Some(array(VertexType::S32K, 2, 4, 0x400, Main));
    inp.arrays[4] = Some(array(VertexType::CMP, 1, 4, 0x500, Main));
    inp.arrays[5] = Some(array(VertexType::UB256, 4, 4, 0x600, Main));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![1]);
    assert_eq!(column(&out, 0), vec![[-1.0, 1.0, -0.5 / 32767.5, 1.0]]);
    assert_eq!(column(&out, 1), vec![[1.0, f32::NEG_INFINITY, 0.0, 1.0]]);
    assert_eq!(column(&out, 2), vec![[1.0, 0.0, 0.2, 0.4]]);
    assert_eq!(column(&out, 3), vec![[-32768.0, 1234.0, 0.0, 1.0]]);
    assert_eq!(
        column(&out, 4),
        vec![[32736.0 / 32767.0, -32768.0 / 32767.0, -64.0 / 32767.0, 1.0]]
    );
    assert_eq!(column(&out, 5), vec![[1.0, 2.0, 254.0, 255.0]]);
}

#[test]
fn s1_size_one_fills_missing_lanes_with_half_step() {
    let mem = TestMemory::new().with(Local, 0, vec![0x7F, 0xFF]);
    let mut inp = inputs(1, arrays(&[(0, 1)]));
    inp.arrays[0] = Some(array(VertexType::S1, 1, 2, 0, Local));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(column(&out, 0), vec![[1.0, S1_HALF, S1_HALF, 1.0]]);
}

#[test]
fn stride_zero_shares_one_element() {
    let mem = TestMemory::new().with(Local, 0x40, be_f32(&[7.0, 8.0, 9.0, 10.0]));
    let mut inp = inputs(1, arrays(&[(5, 3)]));
    inp.arrays[0] = Some(array(VertexType::F, 4, 0, 0x40, Local));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![5, 6, 7]);
    assert_eq!(column(&out, 0), vec![[7.0, 8.0, 9.0, 10.0]; 3]);
}

#[test]
fn frequency_divide_and_modulo() {
    // Elements 0..3 hold x = 100, 101, 102.
    let mem = TestMemory::new().with(Local, 0, be_f32(&[100.0, 101.0, 102.0]));
    let mut inp = inputs(0b11, arrays(&[(0, 6)]));
    let mut div = array(VertexType::F, 1, 4, 0, Local);
    div.frequency = 2;
    div.frequency_op = FrequencyOp::Divide;
    let mut modulo = div;
    modulo.frequency = 3;
    modulo.frequency_op = FrequencyOp::Modulo;
    inp.arrays[0] = Some(div);
    inp.arrays[1] = Some(modulo);
    let out = fetch_draw(&inp, &mem).expect("fetch");
    let x = |c: Vec<[f32; 4]>| c.iter().map(|v| v[0]).collect::<Vec<_>>();
    assert_eq!(
        x(column(&out, 0)),
        vec![100.0, 100.0, 101.0, 101.0, 102.0, 102.0]
    );
    assert_eq!(
        x(column(&out, 1)),
        vec![100.0, 101.0, 102.0, 100.0, 101.0, 102.0]
    );
}

#[test]
fn frequency_one_is_per_vertex() {
    let mem = TestMemory::new().with(Local, 0, be_f32(&[1.0, 2.0]));
    let mut inp = inputs(1, arrays(&[(0, 2)]));
    let mut a = array(VertexType::F, 1, 4, 0, Local);
    a.frequency = 1;
    a.frequency_op = FrequencyOp::Modulo;
    inp.arrays[0] = Some(a);
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(
        column(&out, 0),
        vec![[1.0, 0.0, 0.0, 1.0], [2.0, 0.0, 0.0, 1.0]]
    );
}

#[test]
fn base_offset_wraps_at_28_bits() {
    // (0x0FFF_FFF0 + 0x20) & 0x0FFF_FFFF = 0x10.
    let mem = TestMemory::new().with(Main, 0x10, be_f32(&[4.5]));
    let mut inp = inputs(1, arrays(&[(0, 1)]));
    inp.base_offset = 0x0FFF_FFF0;
    inp.arrays[0] = Some(array(VertexType::F, 1, 4, 0x20, Main));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(column(&out, 0), vec![[4.5, 0.0, 0.0, 1.0]]);
}

#[test]
fn base_index_is_added_and_masked_to_20_bits() {
    // u16 indices 0, 1, 0xFFFE with base index 0xFFFFF:
    //   0 + 0xFFFFF = 0xFFFFF; 1 + 0xFFFFF = 0x100000 -> 0; 0xFFFE + 0xFFFFF = 0x10FFFD -> 0xFFFD.
    let idx = be_u16(&[0, 1, 0xFFFE]);
    let mem = TestMemory::new()
        .with(Main, 0x8000, idx)
        // F size 1, stride 4: element n at 4n; three separate blocks (a sparse capture).
        .with(Local, 0, be_f32(&[10.0]))
        .with(Local, 0xFFFD * 4, be_f32(&[20.0]))
        .with(Local, 0xFFFFF * 4, be_f32(&[30.0]));
    let mut inp = inputs(1, indexed(IndexType::U16, 0x8000, Main, &[(0, 3)]));
    inp.base_index = 0xFFFFF;
    inp.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![0xFFFFF, 0, 0xFFFD]);
    let x: Vec<f32> = column(&out, 0).iter().map(|v| v[0]).collect();
    assert_eq!(x, vec![30.0, 10.0, 20.0]);
}

#[test]
fn u32_indices_with_restart_and_repeats() {
    let idx = be_u32(&[2, 0, 0xFFFF_FFFF, 0xFFFF_FFFF, 1, 2, 2]);
    let mem = TestMemory::new()
        .with(Local, 0x100, idx)
        .with(Local, 0, be_f32(&[0.0, 1.0, 2.0]));
    let mut inp = inputs(1, indexed(IndexType::U32, 0x100, Local, &[(0, 7)]));
    inp.restart = Restart {
        enabled: true,
        index: 0xFFFF_FFFF,
    };
    inp.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![2, 0, 1, 2, 2]);
    assert_eq!(out.restarts, vec![2]);
    let x: Vec<f32> = column(&out, 0).iter().map(|v| v[0]).collect();
    assert_eq!(x, vec![2.0, 0.0, 1.0, 2.0, 2.0]);
}

/// A mesh's index list names each vertex several times: every position still gets its own
/// element's value (each element is decoded once and reused), interleaved attributes too, and
/// an element missing from memory is reported at its address though others repeat.
#[test]
fn a_grid_mesh_names_each_vertex_many_times() {
    // 4x4 vertices, 3x3 cells, two triangles per cell; x = vertex id, y = 100 + id.
    let mut positions = Vec::new();
    for id in 0..16 {
        positions.extend([id as f32, 100.0 + id as f32]);
    }
    let mut list = Vec::new();
    for row in 0..3u16 {
        for col in 0..3u16 {
            let v = row * 4 + col;
            list.extend([v, v + 1, v + 4, v + 1, v + 5, v + 4]);
        }
    }
    let mem =
        TestMemory::new()
            .with(Main, 0x400, be_u16(&list))
            .with(Local, 0x1000, be_f32(&positions));
    let mut inp = inputs(0b11, indexed(IndexType::U16, 0x400, Main, &[(0, 54)]));
    // Attribute 0 is the pair (x, y), attribute 1 only y: interleaved, stride 8.
    inp.arrays[0] = Some(array(VertexType::F, 2, 8, 0x1000, Local));
    inp.arrays[1] = Some(array(VertexType::F, 1, 8, 0x1004, Local));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices.len(), 54);
    let a0 = column(&out, 0);
    let a1 = column(&out, 1);
    for (p, &id) in out.indices.iter().enumerate() {
        assert_eq!(
            a0[p],
            [id as f32, 100.0 + id as f32, 0.0, 1.0],
            "position {p}"
        );
        assert_eq!(a1[p], [100.0 + id as f32, 0.0, 0.0, 1.0], "position {p}");
    }
    // The last vertex's bytes cut short: the first position that names it is the error.
    let short = TestMemory::new().with(Main, 0x400, be_u16(&list)).with(
        Local,
        0x1000,
        be_f32(&positions[..30]),
    );
    let cut = fetch_draw(&inp, &short).expect("fetched");
    let notes = cut.unknown_notes();
    assert!(
        notes[0].contains("(first 8 bytes at local+0x00001078)"),
        "the note names element 15's address: {notes:?}"
    );
    // Each distinct vertex fetched once names the same element.
    let distinct = fetch_distinct(&inp, &short).expect("fetched");
    assert_eq!(
        distinct.vertices.attribute(0).unwrap().missing,
        cut.attribute(0).unwrap().missing
    );
    assert_same_vertices(&inp, &mem, Some(16));
}

/// `positions` gives the indices, restarts and range starts `fetch_draw` gave (`all`).
pub fn assert_same_positions(inp: &VertexInputs, mem: &TestMemory, all: &FetchedVertices) {
    let list = positions(inp, mem).expect("positions");
    assert_eq!(
        (&list.indices, &list.restarts, &list.range_starts),
        (&all.indices, &all.restarts, &all.range_starts)
    );
}

/// `fetch_distinct` gives every position of `inp` the values `fetch_draw` gives it, with the
/// same restarts and range starts, and `distinct` rows (`None`: one row per position).
fn assert_same_vertices(inp: &VertexInputs, mem: &TestMemory, distinct: Option<usize>) {
    let all = fetch_draw(inp, mem).expect("fetch");
    assert_same_positions(inp, mem, &all);
    let d = fetch_distinct(inp, mem).expect("fetch distinct");
    assert_eq!(d.positions(), all.len());
    assert_eq!(d.rows.as_ref().map(|_| d.vertices.len()), distinct);
    assert_eq!(
        (&d.vertices.restarts, &d.vertices.range_starts),
        (&all.restarts, &all.range_starts)
    );
    for p in 0..all.len() {
        let row = d.rows.as_ref().map_or(p, |rows| rows[p] as usize);
        assert_eq!(d.vertices.indices[row], all.indices[p], "position {p}");
        for (c, column) in all.attributes.iter().enumerate() {
            let got = &d.vertices.attributes[c];
            assert_eq!(got.attribute, column.attribute);
            assert_eq!(got.values[row], column.values[p], "position {p}");
        }
    }
}

#[test]
fn distinct_fetch_agrees_with_the_fetch_of_every_position() {
    // Repeats with restarts (u32), array elements, and a draw without repeats.
    let idx = be_u32(&[2, 0, 0xFFFF_FFFF, 0xFFFF_FFFF, 1, 2, 2]);
    let mem =
        TestMemory::new()
            .with(Local, 0x100, idx)
            .with(Local, 0, be_f32(&[0.0, 1.0, 2.0, 3.0]));
    let restart = Restart {
        enabled: true,
        index: 0xFFFF_FFFF,
    };
    let mut inp = inputs(0b101, indexed(IndexType::U32, 0x100, Local, &[(0, 7)]));
    inp.restart = restart;
    inp.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    assert_same_vertices(&inp, &mem, Some(3));
    let mut elements = inputs(
        1,
        VertexSource::Elements {
            indices: vec![0, 2, 0xFFFF_FFFF, 1, 0, 2],
        },
    );
    elements.base_index = 1;
    elements.restart = restart;
    elements.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    assert_same_vertices(&elements, &mem, Some(3));
    let mut unique = inputs(1, indexed(IndexType::U32, 0x100, Local, &[(4, 2)]));
    unique.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    assert_same_vertices(&unique, &mem, None);
    // Array draws are fetched whole.
    let mut plain = inputs(1, arrays(&[(0, 4)]));
    plain.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    assert_same_vertices(&plain, &mem, None);
}

#[test]
fn u16_restart_and_first_offset() {
    // Index buffer at 0x200; range first = 2 skips 2 indices (4 bytes).
    let idx = be_u16(&[9, 9, 0, 0xFFFF, 1]);
    let mem = TestMemory::new().with(Main, 0x200, idx);
    let mut inp = inputs(1, indexed(IndexType::U16, 0x200, Main, &[(2, 3)]));
    inp.restart = Restart {
        enabled: true,
        index: 0xFFFF,
    };
    inp.immediate[0] = ImmediateValue::Known([1.0, 2.0, 3.0, 4.0]);
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![0, 1]);
    assert_eq!(out.restarts, vec![1]);
    assert_eq!(column(&out, 0), vec![[1.0, 2.0, 3.0, 4.0]; 2]);
}

#[test]
fn u16_restart_above_16_bits_is_ignored() {
    let idx = be_u16(&[0xFFFF, 3]);
    let mem = TestMemory::new().with(Main, 0, idx);
    let mut inp = inputs(1, indexed(IndexType::U16, 0, Main, &[(0, 2)]));
    inp.restart = Restart {
        enabled: true,
        index: 0x1_FFFF,
    };
    inp.immediate[0] = ImmediateValue::Known([0.0; 4]);
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![0xFFFF, 3]);
    assert!(out.restarts.is_empty());
}

#[test]
fn restart_compares_the_raw_index_before_base_index() {
    let idx = be_u32(&[5, 4]);
    let mem = TestMemory::new().with(Main, 0, idx);
    let mut inp = inputs(1, indexed(IndexType::U32, 0, Main, &[(0, 2)]));
    inp.base_index = 1;
    inp.restart = Restart {
        enabled: true,
        index: 5,
    };
    inp.immediate[0] = ImmediateValue::Known([0.0; 4]);
    let out = fetch_draw(&inp, &mem).expect("fetch");
    // Raw 5 is the restart; raw 4 becomes vertex 5.
    assert_eq!(out.indices, vec![5]);
    assert_eq!(out.restarts, vec![0]);
}

#[test]
fn index_address_is_aligned_to_the_index_size() {
    // Offset 0x102 with u32 indices reads from 0x100 (RPCS3 get_raw_index_array).
    let mem = TestMemory::new().with(Local, 0x100, be_u32(&[7]));
    let mut inp = inputs(1, indexed(IndexType::U32, 0x102, Local, &[(0, 1)]));
    inp.immediate[0] = ImmediateValue::Known([0.0; 4]);
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![7]);
}

#[test]
fn immediate_values_fill_attributes_without_arrays() {
    let mem = TestMemory::new().with(Local, 0, be_f32(&[1.0, 2.0]));
    let mut inp = inputs(0b1001, arrays(&[(0, 2)]));
    inp.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    // An immediate on an attribute that has an array is ignored.
    inp.immediate[0] = ImmediateValue::Known([9.0; 4]);
    inp.immediate[3] = ImmediateValue::Known([0.25, 0.5, 0.75, 1.0]);
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(
        column(&out, 0),
        vec![[1.0, 0.0, 0.0, 1.0], [2.0, 0.0, 0.0, 1.0]]
    );
    assert_eq!(column(&out, 3), vec![[0.25, 0.5, 0.75, 1.0]; 2]);
    assert_eq!(
        out.attribute(3).map(|a| a.source),
        Some(AttributeSource::Immediate)
    );
    let v1 = out.vertex(1).expect("vertex 1");
    assert_eq!(v1.index(), 1);
    let all: Vec<(u8, [f32; 4])> = v1.values().collect();
    assert_eq!(
        all,
        vec![(0, [2.0, 0.0, 0.0, 1.0]), (3, [0.25, 0.5, 0.75, 1.0])]
    );
    assert_eq!(out.iter().len(), 2);
    assert!(out.vertex(2).is_none());
}

#[test]
fn unset_attribute_reads_rpcs3_replay_default_and_is_marked_unknown() {
    // Attribute 6 has no array and no value written in the frame. RPCS3's replay gives it an
    // all-zero descriptor, which RSXVertexFetch.glsl decodes as (0, 0, 0, 1).
    let mem = TestMemory::new().with(Local, 0, be_f32(&[1.0, 2.0]));
    let mut inp = inputs(1 | 1 << 6, arrays(&[(0, 2)]));
    inp.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    let out = fetch_draw(&inp, &mem).expect("an unknown attribute does not stop the fetch");
    assert_eq!(column(&out, 6), vec![[0.0, 0.0, 0.0, 1.0]; 2]);
    let a6 = out.attribute(6).expect("column 6");
    assert_eq!(a6.source, AttributeSource::Unset);
    assert_eq!(a6.unknown, UnknownValues::All);
    assert!(!a6.is_known(0) && !a6.is_known(1));
    assert!(out.attribute(0).expect("column 0").is_known(1));
    assert_eq!(out.unknown_attributes(), vec![6]);
    let v = out.vertex(1).expect("vertex 1");
    assert_eq!(v.get(6), Some([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(v.get_known(6), Some(None));
    assert_eq!(v.get_known(0), Some(Some([2.0, 0.0, 0.0, 1.0])));
    let known: Vec<_> = v.known_values().collect();
    assert_eq!(known, vec![(0, Some([2.0, 0.0, 0.0, 1.0])), (6, None)]);
}

#[test]
fn partially_written_immediate_reads_its_replayed_value() {
    let mut inp = inputs(1 << 2, arrays(&[(0, 3)]));
    inp.immediate[2] = ImmediateValue::Partial {
        replayed: [4.0, 0.0, 0.0, 1.0],
    };
    let out = fetch_draw(&inp, &TestMemory::new()).expect("fetch");
    assert_eq!(column(&out, 2), vec![[4.0, 0.0, 0.0, 1.0]; 3]);
    let a = out.attribute(2).expect("column");
    assert_eq!(a.source, AttributeSource::Immediate);
    assert_eq!(a.unknown, UnknownValues::All);
}

#[test]
fn inline_array_interleaves_every_enabled_array() {
    // Enabled arrays: 0 = F x3 (12 bytes), 3 = UB x4 (4 bytes), 5 = S1 x3 (host 8 bytes, not
    // in the input mask but still part of the layout). Stride 24 bytes = 6 words.
    // Array stride/offset registers are ignored for inline draws.
    let words = [
        // vertex 0
        0x3F80_0000,
        0x4000_0000,
        0x4040_0000, // 1.0, 2.0, 3.0
        0xFF00_8040, // UB bytes FF 00 80 40
        0x0001_0002,
        0x0003_0000, // S1 x3 + pad
        // vertex 1
        0xBF80_0000,
        0x0000_0000,
        0x4080_0000, // -1.0, 0.0, 4.0
        0x0102_0304,
        0,
        0,
        // trailing partial vertex, dropped
        0x1234_5678,
    ];
    let mut inp = inputs(
        0b1001 | 1 << 1,
        VertexSource::Inline {
            words: words.to_vec(),
        },
    );
    inp.arrays[0] = Some(array(VertexType::F, 3, 99, 0xABC, Main));
    inp.arrays[3] = Some(array(VertexType::UB, 4, 0, 0, Local));
    inp.arrays[5] = Some(array(VertexType::S1, 3, 8, 0, Local));
    inp.immediate[1] = ImmediateValue::Known([5.0, 6.0, 7.0, 8.0]);
    let out = fetch_draw(&inp, &TestMemory::new()).expect("fetch");
    assert_eq!(out.indices, vec![0, 1]);
    assert_same_positions(&inp, &TestMemory::new(), &out);
    assert_eq!(
        column(&out, 0),
        vec![[1.0, 2.0, 3.0, 1.0], [-1.0, 0.0, 4.0, 1.0]]
    );
    assert_eq!(
        column(&out, 3),
        vec![
            [1.0, 0.0, 128.0 / 255.0, 64.0 / 255.0],
            [1.0 / 255.0, 2.0 / 255.0, 3.0 / 255.0, 4.0 / 255.0]
        ]
    );
    assert_eq!(column(&out, 1), vec![[5.0, 6.0, 7.0, 8.0]; 2]);
    assert!(out.attribute(5).is_none());
    assert_eq!(
        out.attribute(0).map(|a| a.source),
        Some(AttributeSource::Inline)
    );
}

#[test]
fn inline_array_without_arrays_is_an_error() {
    let mut inp = inputs(1, VertexSource::Inline { words: vec![0; 4] });
    inp.immediate[0] = ImmediateValue::Known([0.0; 4]);
    assert_eq!(
        fetch_draw(&inp, &TestMemory::new()),
        Err(FetchError::InlineWithoutArrays)
    );
    assert_eq!(
        positions(&inp, &TestMemory::new()),
        Err(FetchError::InlineWithoutArrays)
    );
}

#[test]
fn array_elements_are_u32_indices_with_base_and_restart() {
    let mem = TestMemory::new().with(Local, 0, be_f32(&[0.0, 10.0, 20.0, 30.0]));
    let mut inp = inputs(
        1,
        VertexSource::Elements {
            indices: vec![0, 2, 0xFFFF_FFFF, 1],
        },
    );
    inp.base_index = 1;
    inp.restart = Restart {
        enabled: true,
        index: 0xFFFF_FFFF,
    };
    inp.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![1, 3, 2]);
    assert_eq!(out.restarts, vec![2]);
    let x: Vec<f32> = column(&out, 0).iter().map(|v| v[0]).collect();
    assert_eq!(x, vec![10.0, 30.0, 20.0]);
}

#[test]
fn several_array_ranges_in_separate_blocks() {
    // The capture attaches one block per DRAW_ARRAYS range (rrc-format.md 3.3).
    let mem = TestMemory::new()
        .with(Main, 0x1000, be_f32(&[0.0, 1.0]))
        .with(Main, 0x1000 + 40, be_f32(&[10.0]));
    let mut inp = inputs(1, arrays(&[(0, 2), (10, 1)]));
    inp.arrays[0] = Some(array(VertexType::F, 1, 4, 0x1000, Main));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(out.indices, vec![0, 1, 10]);
    assert_eq!(out.range_starts, vec![0, 2]);
    let x: Vec<f32> = column(&out, 0).iter().map(|v| v[0]).collect();
    assert_eq!(x, vec![0.0, 1.0, 10.0]);
}

#[test]
fn missing_vertex_memory_names_attribute_location_and_address() {
    let mut inp = inputs(1 << 3, arrays(&[(0, 1)]));
    inp.arrays[3] = Some(array(VertexType::F, 3, 12, 0x0012_3450, Main));
    let out = fetch_draw(&inp, &TestMemory::new()).expect("fetched");
    assert_eq!(
        out.unknown_notes(),
        vec!["attribute 3: every vertex reads array memory the capture does not hold (first 12 bytes at main+0x00123450); read as zero bytes, as RPCS3's replay reads memory no captured block wrote".to_string()]
    );
}

#[test]
fn vertex_elements_the_capture_lacks_read_as_zero_bytes_and_are_unknown() {
    // Vertices 0 and 1 present, vertex 2 (at 0x100 + 2 * 8) missing: the draw is fetched,
    // vertex 2 reads zero bytes (F size 2: (0, 0, 0, 1)) and is unknown, and the note names
    // the first missing element.
    let mem = TestMemory::new().with(Local, 0x100, be_f32(&[1.0, 2.0, 3.0, 4.0]));
    let mut inp = inputs(1, arrays(&[(0, 3)]));
    inp.arrays[0] = Some(array(VertexType::F, 2, 8, 0x100, Local));
    let v = fetch_draw(&inp, &mem).expect("fetched");
    let a = v.attribute(0).unwrap();
    assert_eq!(
        a.values,
        vec![
            [1.0, 2.0, 0.0, 1.0],
            [3.0, 4.0, 0.0, 1.0],
            [0.0, 0.0, 0.0, 1.0]
        ]
    );
    assert_eq!(a.unknown, UnknownValues::Positions(vec![2]));
    assert_eq!(
        a.missing,
        Some(MissingElement {
            location: Local,
            offset: 0x110,
            len: 8
        })
    );
    assert_eq!(v.unknown_attributes(), vec![0]);
    assert_eq!(v.vertex(2).unwrap().get_known(0), Some(None));
    assert_eq!(
        v.unknown_notes(),
        vec![
            "attribute 0: 1 vertex reads array memory the capture does not hold (first 8 bytes at local+0x00000110); read as zero bytes, as RPCS3's replay reads memory no captured block wrote"
                .to_string()
        ]
    );
    // An instanced attribute (divide by 2) of a draw from vertex 4: RPCS3's recorder keeps
    // elements 4..6 of the array, the draw reads elements 2 and 3; CMP zero bytes are
    // (0, 0, 0, 1). A stride-0 array with no bytes at all is unknown at every vertex.
    let mem = TestMemory::new().with(Local, 0x200, vec![0x40; 8]);
    let mut inp = inputs(0b11, arrays(&[(4, 2)]));
    let mut divided = array(VertexType::CMP, 1, 4, 0x1F0, Local);
    divided.frequency = 2;
    divided.frequency_op = FrequencyOp::Divide;
    inp.arrays[0] = Some(divided);
    inp.arrays[1] = Some(array(VertexType::F, 1, 0, 0x300, Local));
    let v = fetch_draw(&inp, &mem).expect("fetched");
    let a0 = v.attribute(0).unwrap();
    assert_eq!(a0.unknown, UnknownValues::All);
    assert_eq!(a0.values, vec![[0.0, 0.0, 0.0, 1.0]; 2]);
    assert_eq!(a0.missing.map(|m| m.offset), Some(0x1F8));
    let a1 = v.attribute(1).unwrap();
    assert_eq!(a1.unknown, UnknownValues::All);
    assert!(v.unknown_notes()[1].starts_with("attribute 1: every vertex reads array memory"));
}

#[test]
fn missing_index_memory_names_the_range_and_address() {
    let mem = TestMemory::new().with(Main, 0x200, be_u16(&[0, 1]));
    let mut inp = inputs(1, indexed(IndexType::U16, 0x200, Main, &[(0, 2), (4, 3)]));
    inp.immediate[0] = ImmediateValue::Known([0.0; 4]);
    let err = fetch_draw(&inp, &mem).expect_err("second range missing");
    assert_eq!(
        err.to_string(),
        "index range 1: 6 bytes at main+0x00000208 not in the capture"
    );
}

#[test]
fn malformed_array_formats_are_named() {
    let mut inp = inputs(1 << 2, arrays(&[(0, 1)]));
    inp.arrays[2] = Some(array(VertexType::F, 5, 4, 0, Local));
    let mem = TestMemory::new().with(Local, 0, vec![0; 64]);
    assert_eq!(
        fetch_draw(&inp, &mem),
        Err(FetchError::InvalidSize {
            attribute: 2,
            size: 5,
        })
    );
}

#[test]
fn cmp_arrays_of_any_size_and_short_ub256_arrays_are_fetched_as_rpcs3_does() {
    // CMP size 3: one packed word (RPCS3 forces size 1); x = 0, y = 0, z = -512 << 6 = -32768.
    let mut inp = inputs(1 << 2, arrays(&[(0, 1)]));
    inp.arrays[2] = Some(array(VertexType::CMP, 3, 4, 0, Local));
    let mem = TestMemory::new().with(Local, 0, 0x8000_0000u32.to_be_bytes().to_vec());
    let out = fetch_draw(&inp, &mem).expect("CMP size 3");
    assert_eq!(column(&out, 2)[0], [0.0, 0.0, -32768.0 / 32767.0, 1.0]);
    // UB256 size 2: two raw bytes, z = 0, w = 1.
    inp.arrays[2] = Some(array(VertexType::UB256, 2, 4, 0, Local));
    let mem = TestMemory::new().with(Local, 0, vec![1, 2, 3, 4]);
    let out = fetch_draw(&inp, &mem).expect("UB256 size 2");
    assert_eq!(column(&out, 2)[0], [1.0, 2.0, 0.0, 1.0]);
}

#[test]
fn too_many_vertices_is_refused_before_allocating() {
    let mut inp = inputs(1, arrays(&[(0, u32::MAX), (0, u32::MAX)]));
    inp.immediate[0] = ImmediateValue::Known([0.0; 4]);
    assert_eq!(
        fetch_draw(&inp, &TestMemory::new()),
        Err(FetchError::TooManyVertices {
            count: 2 * u64::from(u32::MAX),
            limit: MAX_VERTICES
        })
    );
}

/// Sixteen attributes with no array over 2^24 vertices would be 4 GiB of values the capture
/// holds no bytes for: refused before a column is allocated, and a draw within the bound is
/// fetched.
#[test]
fn too_many_values_are_refused_before_allocating() {
    let mut inp = inputs(0xFFFF, arrays(&[(0, 1 << 24)]));
    inp.immediate = [ImmediateValue::Known([1.0; 4]); 16];
    assert_eq!(
        fetch_draw(&inp, &TestMemory::new()),
        Err(FetchError::TooManyValues {
            count: 1 << 24,
            attributes: 16
        })
    );
    let message = fetch_draw(&inp, &TestMemory::new())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains(&format!("{} bytes of values", 1u64 << 32)),
        "{message}"
    );
    assert!(message.contains(&MAX_FETCH_BYTES.to_string()), "{message}");
    let mut small = inputs(0xFFFF, arrays(&[(0, 1 << 10)]));
    small.immediate = inp.immediate;
    let out = fetch_draw(&small, &TestMemory::new()).expect("within the bound");
    assert_eq!(out.attributes.len(), 16);
}

#[test]
fn vertex_address_wraps_the_32_bit_space() {
    // Base 0x0FFF_FFFC, stride 255, vertex 0x0101_0101: 0x0101_0101 * 255 = 0xFFFF_FFFF, and
    // adding the base wraps the 32-bit address to 0x0FFF_FFFB.
    let wrapped = 0x0FFF_FFFCu32.wrapping_add(0x0101_0101u32.wrapping_mul(255));
    assert_eq!(wrapped, 0x0FFF_FFFB);
    let mem = TestMemory::new().with(Main, wrapped, be_f32(&[6.0]));
    let mut inp = inputs(1, arrays(&[(0x0101_0101, 1)]));
    inp.arrays[0] = Some(array(VertexType::F, 1, 255, 0x0FFF_FFFC, Main));
    let out = fetch_draw(&inp, &mem).expect("fetch");
    assert_eq!(column(&out, 0), vec![[6.0, 0.0, 0.0, 1.0]]);
}

#[test]
fn empty_draw_fetches_nothing() {
    let mut inp = inputs(1, arrays(&[]));
    inp.arrays[0] = Some(array(VertexType::F, 1, 4, 0, Local));
    let out = fetch_draw(&inp, &TestMemory::new()).expect("fetch");
    assert!(out.is_empty());
    assert_eq!(column(&out, 0), Vec::<[f32; 4]>::new());
}
