//! PSL1GHT containers in the layout `cgcomp` has written since July 2020
//! (`rsxtrace_testkit::psl1ght`): their facts, the words PSL1GHT's loader writes from them,
//! errors at the right offsets, and the scanner finding them inside other bytes. The earlier
//! layouts stay as they were read (`container_malformed`).

use rsxtrace_program::container::{Binding, Container, FpLayout, Stage, VpLayout, MAGIC_VERTEX};
use rsxtrace_program::source::scan::scan;
use rsxtrace_testkit::psl1ght::{
    fragment_2020, put16, put32, vertex_2020, FRAGMENT_CONSTANT, VERTEX_INSTRUCTION,
};

#[test]
fn vertex_program_of_the_2020_layout() {
    let b = vertex_2020();
    let c = Container::parse(&b).expect("parse");
    let Container::Psl1ghtVertex(p) = &c else {
        panic!("not a VP container: {c:?}")
    };
    assert_eq!(p.layout, VpLayout::RsxProgram2020);
    assert_eq!(VpLayout::detect(&b), Some(VpLayout::RsxProgram2020));
    assert_eq!(p.num_regs, Some(2));
    assert_eq!((p.input_mask, p.output_mask), (0x1, 0x4000));
    assert_eq!(
        (p.const_start, p.start_insn, p.instruction_count),
        (0, 0, 1)
    );
    assert_eq!(p.attributes.len(), 1);
    assert_eq!(p.attributes[0].name.as_deref(), Some("position"));
    assert_eq!((p.attributes[0].index, p.attributes[0].ty), (0, Some(9)));
    let scale = p.constant("scale").expect("scale");
    assert_eq!(
        (scale.index, scale.internal, scale.count),
        (4, false, Some(1))
    );
    assert_eq!(scale.values.map(f32::from_bits), [2.0, 2.0, 2.0, 1.0]);
    let literal = &p.constants[1];
    assert_eq!((literal.name.as_deref(), literal.index), (None, 5));
    assert!(literal.internal);
    assert_eq!(c.ucode(), &b[0x80..0x90]);
    assert_eq!(c.stage(), Stage::Vertex);
    // PSL1GHT's loader of this era adds the point size to the output mask.
    assert_eq!(c.vertex_load(), Some((0, 0x1, 0x4020)));
    let params = c.parameters();
    assert_eq!(params[0].binding, Binding::Attribute { index: 0 });
    assert_eq!(
        params[1].binding,
        Binding::Constant {
            index: 4,
            internal: false
        }
    );
}

#[test]
fn fragment_program_of_the_2020_layout() {
    let b = fragment_2020();
    let c = Container::parse(&b).expect("parse");
    let Container::Psl1ghtFragment(p) = &c else {
        panic!("not an FP container: {c:?}")
    };
    assert_eq!(p.layout, FpLayout::RsxProgram2020);
    assert_eq!((p.num_regs, p.fp_control), (3, 0x40));
    assert_eq!((p.texcoords, p.texcoord_2d, p.texcoord_3d), (1, 1, 0));
    assert_eq!((p.instruction_count, p.ucode_offset), (2, 0x70));
    assert_eq!(c.ucode(), &b[0x70..0x90]);
    assert_eq!(c.stage(), Stage::Fragment);
    // fp_control | max(num_regs, 2) << 24 | 1 << 10, as PSL1GHT's loader writes it.
    assert_eq!(c.control_word(), Some(0x0300_0440));
    assert_eq!(c.embedded_constants("uColor"), Some(&[16u32][..]));
    let params = c.parameters();
    assert_eq!(params[0].name, Some("inTex"));
    assert_eq!(params[0].binding, Binding::Attribute { index: 4 });
    assert_eq!(params[1].default_value, Some(FRAGMENT_CONSTANT.to_vec()));

    // One register: the loader still writes two.
    let mut one = fragment_2020();
    put16(&mut one, 4, 1);
    assert_eq!(
        Container::parse(&one).unwrap().control_word(),
        Some(0x0200_0440)
    );
}

#[test]
fn broken_fields_are_refused_at_their_offsets() {
    type Mutate = fn(&mut Vec<u8>);
    let vertex: [(Mutate, u64, &str); 4] = [
        (|b| put16(b, 10, 2), 20, "ucode runs past the end"),
        (|b| put16(b, 6, 0xFFFF), 6, "num_attr too large"),
        (|b| put16(b, 8, 0xFFFF), 8, "num_const too large"),
        (
            |b| put32(b, 0x24, 0x7000),
            0x24,
            "attribute name out of bounds",
        ),
    ];
    for (mutate, offset, what) in vertex {
        let mut m = vertex_2020();
        mutate(&mut m);
        let e = Container::parse(&m).expect_err(what);
        assert_eq!(e.offset, offset, "{what}: {e}");
    }
    let fragment: [(Mutate, u64, &str); 4] = [
        (|b| put16(b, 10, 3), 20, "ucode runs past the end"),
        (|b| put32(b, 0x34, 24), 0x34, "misaligned slot offset"),
        (|b| put32(b, 0x34, 32), 0x34, "slot offset past the ucode"),
        (|b| put32(b, 0x3C, 0x8E), 0x3C, "table past the end"),
    ];
    for (mutate, offset, what) in fragment {
        let mut m = fragment_2020();
        mutate(&mut m);
        let e = Container::parse(&m).expect_err(what);
        assert_eq!(e.offset, offset, "{what}: {e}");
    }
    for b in [vertex_2020(), fragment_2020()] {
        for len in 0..b.len() {
            assert!(Container::parse(&b[..len]).is_err(), "len {len}");
        }
    }
}

#[test]
fn the_scanner_finds_both_inside_other_bytes() {
    // An executable's data: junk, the vertex program at a 4-byte (not 16-byte) boundary,
    // more junk, the fragment program.
    let mut image = vec![0xA5u8; 0x24];
    let vertex_at = image.len();
    image.extend(vertex_2020());
    image.extend([0x5Au8; 12]);
    let fragment_at = image.len();
    image.extend(fragment_2020());
    image.extend([0u8; 8]);
    let report = scan(&image);
    let found: Vec<(u64, Stage, u64)> = report
        .hits
        .iter()
        .map(|h| (h.offset, h.container.stage(), h.len))
        .collect();
    assert_eq!(
        found,
        [
            (vertex_at as u64, Stage::Vertex, 0x90),
            (fragment_at as u64, Stage::Fragment, 0x90),
        ]
    );
    assert!(matches!(
        &report.hits[0].container,
        Container::Psl1ghtVertex(p) if p.layout == VpLayout::RsxProgram2020
    ));
    assert!(matches!(
        &report.hits[1].container,
        Container::Psl1ghtFragment(p) if p.layout == FpLayout::RsxProgram2020
    ));
    // Without END on its last instruction the vertex blob is data, not a program.
    let mut no_end = image.clone();
    no_end[vertex_at + 0x8F] &= !1;
    let report = scan(&no_end);
    assert_eq!(report.hits.len(), 1);
    assert_eq!(report.hits[0].offset, fragment_at as u64);
}

#[test]
fn a_libreality_program_is_not_taken_for_the_2020_layout() {
    // libreality keeps its instruction count where the 2020 layout has padding: a 28-byte
    // header, 1 instruction at 0x30, no tables, whose u32 at 12 (ConstantsOffset) is 36.
    let mut b = vec![0u8; 0x40];
    put16(&mut b, 0, MAGIC_VERTEX);
    put16(&mut b, 2, 1);
    put32(&mut b, 4, 0x30);
    put32(&mut b, 12, 36);
    put32(&mut b, 16, 28);
    for (i, w) in VERTEX_INSTRUCTION.into_iter().enumerate() {
        put32(&mut b, 0x30 + 4 * i, w);
    }
    assert_eq!(VpLayout::detect(&b), Some(VpLayout::Libreality));
    let Container::Psl1ghtVertex(p) = Container::parse(&b).expect("parse") else {
        panic!()
    };
    assert_eq!(
        (p.layout, p.instruction_count, p.num_regs),
        (VpLayout::Libreality, 1, None)
    );
}
