//! PSL1GHT and Tiny3D containers given other microcode (`psl1ght_vertex_with_microcode`,
//! `psl1ght_fragment_with_microcode`, what `rsxtrace asm --like` writes): a container given
//! its own program is the very file; a new program changes the counts, masks and registers
//! it needs and moves the constant offset tables with the inline constants; what cannot be
//! stated is refused. Every layout: `cgcomp`'s since July 2020, its earlier one, libreality.

use crate::container_malformed::{rsx_fragment, rsx_vertex};
use rsxtrace_program::container::{
    psl1ght_fragment_with_microcode, psl1ght_vertex_with_microcode, Container,
    Psl1ghtFragmentProgram, Psl1ghtVertexProgram, RewriteError,
};
use rsxtrace_program::{fragment, vertex};
use rsxtrace_testkit::psl1ght::{fragment_2020, vertex_2020};

fn vertex_of(bytes: &[u8]) -> Psl1ghtVertexProgram {
    match Container::parse(bytes).expect("parse") {
        Container::Psl1ghtVertex(p) => p,
        other => panic!("not a VP container: {other:?}"),
    }
}

fn fragment_of(bytes: &[u8]) -> Psl1ghtFragmentProgram {
    match Container::parse(bytes).expect("parse") {
        Container::Psl1ghtFragment(p) => p,
        other => panic!("not an FP container: {other:?}"),
    }
}

fn vertex_ucode(text: &str) -> Vec<u8> {
    vertex::encode_bytes(&vertex::assemble(text).expect("assembles"))
}

fn fragment_ucode(text: &str) -> Vec<u8> {
    fragment::encode(&fragment::assemble(text).expect("assembles"))
}

#[test]
fn its_own_program_gives_the_very_file() {
    for bytes in [vertex_2020(), rsx_vertex()] {
        let p = vertex_of(&bytes);
        let (out, notes) = psl1ght_vertex_with_microcode(&bytes, &p, &p.ucode, 0).unwrap();
        assert_eq!(out, bytes, "{:?}", p.layout);
        assert!(notes.fields.is_empty(), "{notes:?}");
    }
    for bytes in [fragment_2020(), rsx_fragment()] {
        let p = fragment_of(&bytes);
        let (out, notes) = psl1ght_fragment_with_microcode(&bytes, &p, &p.ucode).unwrap();
        assert_eq!(out, bytes, "{:?}", p.layout);
        assert!(notes.fields.is_empty() && notes.moved_uniforms.is_empty());
    }
    if let Some(corpus) = rsxtrace_testkit::workspace!().corpus() {
        let bytes = corpus.read(rsxtrace_testkit::tiny3d::VERTEX_PROGRAM);
        let p = vertex_of(&bytes);
        let (out, _) = psl1ght_vertex_with_microcode(&bytes, &p, &p.ucode, 0).unwrap();
        assert_eq!(out, bytes, "the Tiny3D program");
    }
}

#[test]
fn a_new_vertex_program_takes_the_fields_it_needs() {
    let bytes = vertex_2020();
    let p = vertex_of(&bytes);
    let ucode =
        vertex_ucode("000: MOV R5, v[3];\n001: MOV o[COL0], R5;\n002: MOV o[HPOS], v[0]; END\n");
    let (out, notes) = psl1ght_vertex_with_microcode(&bytes, &p, &ucode, 0).unwrap();
    assert_eq!(out.len(), 0x80 + 48);
    let q = vertex_of(&out);
    assert_eq!(q.ucode, ucode);
    assert_eq!(q.instruction_count, 3);
    // v[3] added to the inputs, COL0 (front diffuse, bit 0) to the outputs, R5 needs 6.
    assert_eq!(
        (q.input_mask, q.output_mask, q.num_regs),
        (0x9, 0x4001, Some(6))
    );
    assert_eq!(
        (q.attributes.clone(), q.constants.clone()),
        (p.attributes.clone(), p.constants.clone())
    );
    let fields: Vec<&str> = notes.fields.iter().map(|f| f.0).collect();
    assert_eq!(
        fields,
        ["num_insn", "input_mask", "output_mask", "num_regs"]
    );

    // Loaded elsewhere: start_insn says so (both rsxVertexProgram layouts); libreality
    // states no load slot.
    let (out, _) = psl1ght_vertex_with_microcode(&bytes, &p, &ucode, 40).unwrap();
    assert_eq!(vertex_of(&out).start_insn, 40);
    let old = rsx_vertex();
    let (out, _) = psl1ght_vertex_with_microcode(&old, &vertex_of(&old), &ucode, 40).unwrap();
    assert_eq!(vertex_of(&out).start_insn, 40);
    if let Some(corpus) = rsxtrace_testkit::workspace!().corpus() {
        let tiny3d = corpus.read(rsxtrace_testkit::tiny3d::VERTEX_PROGRAM);
        let e = psl1ght_vertex_with_microcode(&tiny3d, &vertex_of(&tiny3d), &ucode, 40)
            .expect_err("libreality has no load slot");
        assert!(matches!(e, RewriteError::LoadSlot { slot: 40, .. }), "{e}");
    }
}

#[test]
fn a_name_after_the_microcode_is_refused() {
    // The attribute's name moved behind the microcode, where no tool puts it.
    let mut bytes = vertex_2020();
    bytes.extend(b"late\0");
    rsxtrace_testkit::psl1ght::put32(&mut bytes, 0x24, 0x90);
    let p = vertex_of(&bytes);
    assert_eq!(p.attributes[0].name.as_deref(), Some("late"));
    let e = psl1ght_vertex_with_microcode(&bytes, &p, &p.ucode, 0).expect_err("not last");
    assert!(matches!(e, RewriteError::NotLast), "{e}");
}

/// Found by the `container` fuzz target: an `rsxFragmentProgram` whose microcode starts at
/// byte 0, over its own header. Writing the new header fields would change the microcode:
/// refused.
#[test]
fn microcode_over_the_header_is_refused() {
    let bytes = [
        0x46, 0x50, 0x00, 0x01, 0x00, 0x00, 0x00, 0x1E, 0x00, 0x00, 0x00, 0x00, 0x31, 0x20, 0x00,
        0x32, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xC5, 0x00, 0x20,
        0x3A, 0x00, 0x00, 0x02,
    ];
    let p = fragment_of(&bytes);
    assert_eq!(p.ucode_offset, 0);
    let e = psl1ght_fragment_with_microcode(&bytes, &p, &p.ucode).expect_err("overlaps");
    assert!(matches!(e, RewriteError::NotLast), "{e}");
}

#[test]
fn a_new_fragment_program_moves_the_constant_tables() {
    let text = "0: MOVR R1, f[TEX1];\n1: KIL;\n2: MOVR R0, {0.0, 0.0, 1.0, 1.0}; END\n";
    let ucode = fragment_ucode(text);
    for bytes in [fragment_2020(), rsx_fragment()] {
        let p = fragment_of(&bytes);
        let (out, notes) = psl1ght_fragment_with_microcode(&bytes, &p, &ucode).unwrap();
        let q = fragment_of(&out);
        assert_eq!((q.ucode.clone(), q.instruction_count), (ucode.clone(), 4));
        assert_eq!(out.len(), p.ucode_offset as usize + ucode.len());
        // The constant is now the slot after instruction 2: byte 48.
        assert_eq!(q.constant("uColor").unwrap().embedded_constants, [48]);
        assert_eq!(
            notes.moved_uniforms,
            [("uColor".to_string(), vec![48])],
            "{:?}",
            p.layout
        );
        // KIL in fp_control, TEX1 among the coordinates; three registers were enough.
        assert_eq!(q.fp_control, p.fp_control | 0x80);
        assert_eq!(q.texcoords, p.texcoords | 0b10);
        assert_eq!(q.num_regs, 3);
        assert_eq!(q.layout, p.layout);
        let c = Container::parse(&out).unwrap();
        assert_eq!(
            c.control_word().unwrap() & 0xFF,
            (p.fp_control | 0x80) & 0xFF
        );
    }

    // A program of two inline constants: the table cannot follow.
    let two = fragment_ucode(
        "0: MOVR R1, {1.0, 0.0, 0.0, 0.0};\n1: ADDR R0, R1, {0.0, 1.0, 0.0, 0.0}; END\n",
    );
    let bytes = fragment_2020();
    let e = psl1ght_fragment_with_microcode(&bytes, &fragment_of(&bytes), &two)
        .expect_err("two constants");
    assert!(
        matches!(e, RewriteError::ConstantsMoved { old: 1, new: 2, .. }),
        "{e}"
    );
    // Vertex microcode is no fragment program.
    let e = psl1ght_fragment_with_microcode(&bytes, &fragment_of(&bytes), &[0xFF; 16]);
    assert!(matches!(e, Err(RewriteError::Decode { .. })), "{e:?}");
}
