//! Immediate-mode draws (vertices from `SET_VERTEX_DATA*` writes inside BEGIN/END,
//! rrc-format.md 4.4) and per-draw transform branch bits (rrc-format.md 4.5), with command
//! lists laid out by hand.

use crate::stream_support;
use rsxtrace_fetch::{
    fetch_draw, AttributeSource, DrawRange, ImmediateValue, UnknownValues, VertexSource,
};
use rsxtrace_frame::DrawProblem;
use stream_support::B;

const BEGIN_END: u32 = 0x1808;
const INPUT_MASK: u32 = 0x1FF0;
const BRANCH_BITS: u32 = 0x1FF8;
/// `SET_VERTEX_DATA4F_M` attribute 0; attribute i at + 16 i.
const DATA4F: u32 = 0x1C00;
/// `SET_VERTEX_DATA2F_M` attribute 0; attribute i at + 8 i.
const DATA2F: u32 = 0x1880;
/// `SET_VERTEX_DATA4UB_M` attribute 0; attribute i at + 4 i.
const DATA4UB: u32 = 0x1940;
/// `SET_VERTEX_DATA2S_M` attribute 0; attribute i at + 4 i.
const DATA2S: u32 = 0x1900;
/// `SET_VERTEX_DATA_SCALED4S_M` attribute 0; attribute i at + 8 i.
const SCALED4S: u32 = 0x0A80;
/// `SET_VERTEX_DATA1F_M` attribute 0; attribute i at + 4 i.
const DATA1F: u32 = 0x1E40;

fn f(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn triangle_from_4f_writes_of_col0_then_pos() {
    let mut b = B::new();
    // Input mask: POS (attribute 0) and COL0 (attribute 3) = 0b1001.
    b.put(INPUT_MASK, &[0x0000_0009]);
    // Attribute 0 also has an array (format F, size 4, stride 16 = 0x0000_1042, offset 0)
    // with no memory behind it: immediate-mode draws ignore arrays, so fetch must not read it.
    b.put(0x1740, &[0x0000_1042]);
    b.put(BEGIN_END, &[5]); // TRIANGLES
    let pos = [
        [-1.0, -1.0, 0.0, 1.0],
        [1.0, -1.0, 0.0, 1.0],
        [0.0, 1.0, 0.5, 1.0],
    ];
    let col = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 0.5],
        [0.0, 0.0, 1.0, 0.25],
    ];
    for v in 0..3 {
        b.put(DATA4F + 16 * 3, &f(&col[v])); // COL0: four words, one packet
        b.put(DATA4F, &f(&pos[v])); // POS: completing it closes vertex v
    }
    b.put(BEGIN_END, &[0]);
    let frame = b.frame();
    assert_eq!(frame.draws.len(), 1);
    let d = &frame.draws[0];
    // No fragment program is set; nothing about the vertex source is a problem.
    assert!(
        d.problems
            .iter()
            .all(|p| matches!(p, DrawProblem::FragmentAddress { .. })),
        "{:?}",
        d.problems
    );
    assert_eq!(d.vertex_count, 3);
    assert!(!d.indexed);
    assert_eq!(d.ranges, vec![DrawRange { first: 0, count: 3 }]);
    let s = d.summary();
    assert_eq!((s.vertex_count, s.ranges.len()), (3, 1));
    let VertexSource::Immediate { count, streams } = &d.vertex_inputs.source else {
        panic!("not immediate: {:?}", d.vertex_inputs.source)
    };
    assert_eq!(*count, 3);
    let attrs: Vec<u8> = streams.iter().map(|s| s.attribute).collect();
    assert_eq!(attrs, vec![0, 3]);

    let mem = frame.memory(0).expect("view");
    let out = fetch_draw(&d.vertex_inputs, &mem).expect("fetch");
    assert_eq!(out.indices, vec![0, 1, 2]);
    for v in 0..3 {
        let vertex = out.vertex(v).expect("vertex");
        assert_eq!(vertex.get(0), Some(pos[v]), "POS of vertex {v}");
        assert_eq!(vertex.get(3), Some(col[v]), "COL0 of vertex {v}");
    }
    assert_eq!(
        out.attribute(0).map(|a| a.source),
        Some(AttributeSource::PushBuffer)
    );
}

#[test]
fn mixed_families_current_values_and_masked_attributes() {
    let mut b = B::new();
    // Mask: POS 0, NORMAL 2, COL0 3, TEX0 8 = 0x010D.
    b.put(INPUT_MASK, &[0x0000_010D]);
    // TEX0 2S before the scope: x = low half 3, y = high half -4 (0xFFFC) -> 0xFFFC_0003.
    b.put(DATA2S + 4 * 8, &[0xFFFC_0003]);
    b.put(BEGIN_END, &[6]); // TRIANGLE_STRIP
                            // Vertex 0: COL0 4UB 0x8000_00FF (x = bits 0..7), NORMAL SCALED4S, POS 2F.
    b.put(DATA4UB + 4 * 3, &[0x8000_00FF]);
    // SCALED4S: word 0 = x low (32767 = 0x7FFF) / y high (-32768 = 0x8000); word 1 = 0.
    b.put(SCALED4S + 8 * 2, &[0x8000_7FFF, 0]);
    b.put(DATA2F, &f(&[0.0, 0.0]));
    // Vertex 1: POS only.
    b.put(DATA2F, &f(&[1.0, 0.0]));
    // Attribute 5 (not in the mask) written inside the scope: not pushed.
    b.put(DATA1F + 4 * 5, &f(&[9.0]));
    // Vertex 2: new COL0 0x0000_FF00, then POS.
    b.put(DATA4UB + 4 * 3, &[0x0000_FF00]);
    b.put(DATA2F, &f(&[0.0, 1.0]));
    // Vertex 3: POS only.
    b.put(DATA2F, &f(&[1.0, 1.0]));
    b.put(BEGIN_END, &[0]);
    let frame = b.frame();
    let d = &frame.draws[0];
    assert_eq!(d.vertex_count, 4);
    let VertexSource::Immediate { streams, .. } = &d.vertex_inputs.source else {
        panic!("not immediate")
    };
    // NORMAL was pushed for one vertex only and TEX0 not at all: both read their register
    // value; attribute 5 is outside the mask.
    let attrs: Vec<u8> = streams.iter().map(|s| s.attribute).collect();
    assert_eq!(attrs, vec![0, 3]);
    assert_eq!(
        d.vertex_inputs.immediate[5],
        ImmediateValue::Known([9.0, 0.0, 0.0, 1.0])
    );

    let out = fetch_draw(&d.vertex_inputs, &frame.memory(0).expect("view")).expect("fetch");
    let col = |a: u8| out.attribute(a).expect("column").values.clone();
    assert_eq!(
        col(0),
        vec![
            [0.0, 0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
            [1.0, 1.0, 0.0, 1.0]
        ]
    );
    // COL0: vertex 1 is padded with the value before vertex 2's write, vertex 3 with the value
    // at END.
    let red = [1.0, 0.0, 0.0, 128.0 / 255.0];
    let green = [0.0, 1.0, 0.0, 0.0];
    assert_eq!(col(3), vec![red, red, green, green]);
    let s1_zero = 0.5 / 32767.5;
    assert_eq!(col(2), vec![[1.0, -1.0, s1_zero, s1_zero]; 4]);
    assert_eq!(col(8), vec![[3.0, -4.0, 0.0, 1.0]; 4]);
    assert_eq!(
        out.attribute(8).map(|a| a.source),
        Some(AttributeSource::Immediate)
    );
}

#[test]
fn pushed_vertices_padded_with_an_uncaptured_register_value_are_unknown() {
    let mut b = B::new();
    b.put(INPUT_MASK, &[0b11]);
    b.put(BEGIN_END, &[2]); // LINES
    b.put(DATA1F, &f(&[0.0])); // vertex 0: POS only
    b.put(DATA1F + 4, &f(&[5.0])); // vertex 1: attribute 1 first written here
    b.put(DATA1F, &f(&[1.0]));
    b.put(BEGIN_END, &[0]);
    let frame = b.frame();
    let d = &frame.draws[0];
    assert_eq!(d.vertex_count, 2);
    let out = fetch_draw(&d.vertex_inputs, &frame.memory(0).expect("view")).expect("goes on");
    let a1 = out.attribute(1).expect("attribute 1");
    // Vertex 0 took the register value set before the frame: RPCS3's replay pads with zeroed
    // register words, which 1F decodes as (0, 0, 0, 1).
    assert_eq!(a1.values, vec![[0.0, 0.0, 0.0, 1.0], [5.0, 0.0, 0.0, 1.0]]);
    assert_eq!(a1.unknown, UnknownValues::Positions(vec![0]));
}

#[test]
fn writes_inside_a_scope_with_a_draw_command_are_register_writes() {
    let mut b = B::new();
    b.put(INPUT_MASK, &[1]);
    b.put(BEGIN_END, &[1]); // POINTS
    b.put(DATA4F, &f(&[1.0, 2.0, 3.0, 4.0]));
    b.put(DATA4F, &f(&[5.0, 6.0, 7.0, 8.0]));
    b.put(0x1814, &[0x0100_0000]); // DRAW_ARRAYS first 0, count 2
    b.put(BEGIN_END, &[0]);
    // A scope with neither a draw command nor pushed vertices draws nothing.
    b.put(BEGIN_END, &[1]);
    b.put(BEGIN_END, &[0]);
    let frame = b.frame();
    let d = &frame.draws[0];
    assert_eq!(
        d.vertex_inputs.source,
        VertexSource::Arrays {
            ranges: vec![DrawRange { first: 0, count: 2 }]
        }
    );
    assert_eq!(
        d.vertex_inputs.immediate[0],
        ImmediateValue::Known([5.0, 6.0, 7.0, 8.0])
    );
    let e = &frame.draws[1];
    assert_eq!(e.vertex_count, 0);
    assert_eq!(
        e.vertex_inputs.source,
        VertexSource::Arrays { ranges: vec![] }
    );
}

#[test]
fn immediate_draw_after_writes_outside_any_scope_is_not_affected_by_them() {
    let mut b = B::new();
    b.put(INPUT_MASK, &[1]);
    // Writes outside BEGIN/END only set the register.
    b.put(DATA1F, &f(&[7.0]));
    b.put(DATA1F, &f(&[8.0]));
    b.put(BEGIN_END, &[1]);
    b.put(DATA1F, &f(&[1.0]));
    b.put(BEGIN_END, &[0]);
    let frame = b.frame();
    let d = &frame.draws[0];
    assert_eq!(d.vertex_count, 1);
    let out = fetch_draw(&d.vertex_inputs, &frame.memory(0).expect("view")).expect("fetch");
    // One pushed vertex: read through the register, which holds the same value.
    assert_eq!(
        out.vertex(0).and_then(|v| v.get(0)),
        Some([1.0, 0.0, 0.0, 1.0])
    );
    assert_eq!(
        out.attribute(0).map(|a| a.source),
        Some(AttributeSource::Immediate)
    );
}

#[test]
fn branch_bits_come_from_the_register_file_then_from_writes() {
    let mut b = B::new();
    // Captured register file: SET_TRANSFORM_BRANCH_BITS (0x1FF8 / 4) = 0b101.
    b.c.reg_state.registers[(BRANCH_BITS / 4) as usize] = 0b101;
    for bits in [None, Some(0x8000_0002u32)] {
        if let Some(v) = bits {
            b.put(BRANCH_BITS, &[v]);
        }
        b.put(BEGIN_END, &[5]);
        b.put(0x1814, &[0x0200_0000]);
        b.put(BEGIN_END, &[0]);
    }
    let frame = b.frame();
    assert_eq!(frame.draws[0].transform_branch_bits, 0b101);
    assert_eq!(frame.draws[1].transform_branch_bits, 0x8000_0002);
}
