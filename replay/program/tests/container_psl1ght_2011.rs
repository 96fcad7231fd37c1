//! PSL1GHT containers in `cgcomp`'s layout of early 2011 (`reality_program.h`,
//! `rsxtrace_testkit::psl1ght::{vertex_reality, fragment_reality}`): told from the later
//! layouts, their facts, what their loader (libreality `commands.c` @ e488c61) writes, the
//! scanner finding them, and `asm --like` writing over them.

use rsxtrace_program::container::{
    psl1ght_fragment_with_microcode, psl1ght_vertex_with_microcode, Container, FpLayout,
    RewriteError, Stage, VpLayout,
};
use rsxtrace_program::fragment;
use rsxtrace_program::source::scan::scan;
use rsxtrace_testkit::psl1ght::{fragment_reality, put32, vertex_reality};

#[test]
fn vertex_program_of_early_2011() {
    let b = vertex_reality();
    assert_eq!(VpLayout::detect(&b), Some(VpLayout::Reality));
    let c = Container::parse(&b).expect("parse");
    let Container::Psl1ghtVertex(p) = &c else {
        panic!("{c:?}")
    };
    assert_eq!(p.layout, VpLayout::Reality);
    assert_eq!(p.attributes.len(), 1);
    assert_eq!(
        (
            p.attributes[0].name.as_deref(),
            p.attributes[0].index,
            p.attributes[0].ty
        ),
        (Some("position"), 0, None)
    );
    assert_eq!(p.constants.len(), 2);
    assert_eq!(p.constant("scale").unwrap().index, 4);
    assert_eq!(c.ucode(), &b[0x70..0x80]);
    assert_eq!(
        c.format_name(),
        "PSL1GHT vertex program (cgcomp of early 2011)"
    );
    // Its loader uploads every constant at its index, and writes the masks as stored.
    let bits = |v: [f32; 4]| v.map(f32::to_bits);
    assert_eq!(
        c.vertex_constants(),
        [
            (4, bits([2.0, 2.0, 2.0, 1.0])),
            (5, bits([1.0, 1.0, 0.0, 1.0]))
        ]
    );
    assert_eq!(c.vertex_load(), Some((0, 0x1, 0x4000)));
    // The same header with 12-byte attributes (constants at 0x2C) is the later layout.
    let mut later = b.clone();
    put32(&mut later, 20, 0x2C);
    assert_eq!(VpLayout::detect(&later), Some(VpLayout::RsxProgram));
}

#[test]
fn fragment_program_of_early_2011() {
    let b = fragment_reality();
    let c = Container::parse(&b).expect("parse");
    let Container::Psl1ghtFragment(p) = &c else {
        panic!("{c:?}")
    };
    assert_eq!(p.layout, FpLayout::Reality);
    assert_eq!((p.num_regs, p.fp_control, p.texcoords), (3, 0x40, 0));
    assert_eq!((p.instruction_count, p.ucode_offset), (2, 0x60));
    assert_eq!(c.control_word(), Some(0x0300_0040));
    // The constant's index is its slot.
    assert_eq!(c.embedded_constants("uColor"), Some(&[16u32][..]));
    assert_eq!(c.parameters()[0].name, Some("inTex"));
    assert_eq!(c.stage(), Stage::Fragment);
    let p0 = fragment::decode(c.ucode()).unwrap();
    assert_eq!(p0.instructions.len(), 1);
    // Unused: cgcomp writes (-1 + row) * 16, no slot.
    let mut unused = fragment_reality();
    put32(&mut unused, 0x2C, (-16i32) as u32);
    assert_eq!(
        Container::parse(&unused)
            .unwrap()
            .embedded_constants("uColor"),
        Some(&[][..])
    );
    for len in 0..b.len() {
        assert!(Container::parse(&b[..len]).is_err(), "len {len}");
    }
}

#[test]
fn the_scanner_finds_them_and_asm_writes_over_them() {
    let mut image = vec![0xA5u8; 0x14];
    let vertex_at = image.len();
    image.extend(vertex_reality());
    let fragment_at = image.len();
    image.extend(fragment_reality());
    let found: Vec<(u64, Stage)> = scan(&image)
        .hits
        .iter()
        .map(|h| (h.offset, h.container.stage()))
        .collect();
    assert_eq!(
        found,
        [
            (vertex_at as u64, Stage::Vertex),
            (fragment_at as u64, Stage::Fragment)
        ]
    );

    // Their own programs: the very files.
    let v = vertex_reality();
    let Ok(Container::Psl1ghtVertex(vp)) = Container::parse(&v) else {
        panic!()
    };
    assert_eq!(
        psl1ght_vertex_with_microcode(&v, &vp, &vp.ucode, 0)
            .unwrap()
            .0,
        v
    );
    // Its loader loads at slot 0 whatever start_insn says.
    let e = psl1ght_vertex_with_microcode(&v, &vp, &vp.ucode, 8).expect_err("slot 8");
    assert!(matches!(e, RewriteError::LoadSlot { slot: 8, .. }), "{e}");
    assert!(e.to_string().ends_with("ignores: it loads at 0"), "{e}");
    let f = fragment_reality();
    let Ok(Container::Psl1ghtFragment(fp)) = Container::parse(&f) else {
        panic!()
    };
    assert_eq!(
        psl1ght_fragment_with_microcode(&f, &fp, &fp.ucode)
            .unwrap()
            .0,
        f
    );
    // A line in front moves the constant to slot 2: its index follows.
    let moved = fragment::encode(
        &fragment::assemble("0: MOVR R1, f[TEX1];\n1: MOVR R0, {0.0, 0.0, 1.0, 1.0}; END\n")
            .unwrap(),
    );
    let (out, notes) = psl1ght_fragment_with_microcode(&f, &fp, &moved).unwrap();
    assert_eq!(notes.moved_uniforms, [("uColor".to_string(), vec![32])]);
    let back = Container::parse(&out).unwrap();
    assert_eq!(back.embedded_constants("uColor"), Some(&[32u32][..]));
    assert_eq!(back.ucode(), moved.as_slice());
    assert!(notes.fields.iter().all(|f| f.0 != "texcoords"), "{notes:?}");
}
