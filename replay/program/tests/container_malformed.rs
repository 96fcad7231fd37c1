//! Hand-built containers, laid out byte by byte, then broken one field at a time: every
//! malformed variant must be refused with the right error kind at the right byte offset, and
//! no truncation or byte corruption may panic.

use rsxtrace_program::container::{
    Binding, CgBase, CgResource, CgType, Container, ContainerError, ContainerErrorKind, Stage,
    VpLayout,
};

/// Breaks one field of a hand-built container.
type Mutate = fn(&mut Vec<u8>);

fn put32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn put16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

fn put_str(buf: &mut [u8], at: usize, s: &str) {
    buf[at..at + s.len()].copy_from_slice(s.as_bytes());
    buf[at + s.len()] = 0;
}

/// An RSX fragment word as stored: big-endian with the 16-bit halves swapped.
fn put_fp_word(buf: &mut [u8], at: usize, w: u32) {
    put32(buf, at, w.rotate_left(16));
}

/// A 0xF0-byte `CgBinaryProgram` (fragment):
///
/// ```text
/// 0x00 header            7004, 6, total 0xF0, 2 params @0x20, program @0x80, ucode 0x20 @0xD0
/// 0x20 param 0 (48 B)    float4 uColor, CG_UNDEFINED, uniform, default @0xB4, embedded @0xC4
/// 0x50 param 1 (48 B)    float4 main.COL0, COLOR0, varying, out, semantic @0xAA
/// 0x80 fragment desc     2 insns, regs 2, outputFromH0 0, depthReplace 1, pixelKill 1
/// 0x98 "uColor\0"        0xA0 "main.COL0\0"   0xAA "COLOR0\0"
/// 0xB4 default           0.5, 0.25, -1.0, 2.0
/// 0xC4 embedded const    count 1, offset 16
/// 0xD0 ucode             slot 0: MOV R0, c[0] + END; slot 1: the constant
/// ```
fn cg_fragment() -> Vec<u8> {
    let mut b = vec![0u8; 0xF0];
    for (i, v) in [7004, 6, 0xF0, 2, 0x20, 0x80, 0x20, 0xD0]
        .into_iter()
        .enumerate()
    {
        put32(&mut b, 4 * i, v);
    }
    // type, res, var, resIndex, name, default, embedded, semantic, dir, paramno, ref, shared
    let p0 = [
        1048,
        3256,
        4102,
        u32::MAX,
        0x98,
        0xB4,
        0xC4,
        0,
        4097,
        0,
        1,
        0,
    ];
    let p1 = [
        1048,
        2757,
        4101,
        u32::MAX,
        0xA0,
        0,
        0,
        0xAA,
        4098,
        u32::MAX,
        1,
        0,
    ];
    for (i, v) in p0.into_iter().enumerate() {
        put32(&mut b, 0x20 + 4 * i, v);
    }
    for (i, v) in p1.into_iter().enumerate() {
        put32(&mut b, 0x50 + 4 * i, v);
    }
    put32(&mut b, 0x80, 2); // instructionCount
    b[0x80 + 18] = 2; // registerCount
    b[0x80 + 19] = 0; // outputFromH0
    b[0x80 + 20] = 1; // depthReplace
    b[0x80 + 21] = 1; // pixelKill
    put_str(&mut b, 0x98, "uColor");
    put_str(&mut b, 0xA0, "main.COL0");
    put_str(&mut b, 0xAA, "COLOR0");
    for (i, v) in [0.5f32, 0.25, -1.0, 2.0].into_iter().enumerate() {
        put32(&mut b, 0xB4 + 4 * i, v.to_bits());
    }
    put32(&mut b, 0xC4, 1);
    put32(&mut b, 0xC8, 16);
    // OPDEST: END (bit 0) | mask xyzw (bits 9..12) | opcode MOV=1 (bits 24..29).
    put_fp_word(&mut b, 0xD0, 1 | 0xF << 9 | 1 << 24);
    // SRC0: type 2 = constant (bits 0..1), identity swizzle xyzw (bits 9..16 = 0b11_10_01_00).
    put_fp_word(&mut b, 0xD4, 2 | 0xE4 << 9);
    put_fp_word(&mut b, 0xD8, 0xE4 << 9);
    put_fp_word(&mut b, 0xDC, 0xE4 << 9);
    for (i, v) in [0.5f32, 0.25, -1.0, 2.0].into_iter().enumerate() {
        put_fp_word(&mut b, 0xE0 + 4 * i, v.to_bits());
    }
    b
}

fn err(bytes: &[u8]) -> ContainerError {
    Container::parse(bytes).expect_err("malformed container parsed")
}

#[test]
fn hand_built_cg_fragment_parses_field_by_field() {
    let b = cg_fragment();
    let c = Container::parse(&b).expect("parse");
    assert_eq!(c.stage(), Stage::Fragment);
    assert_eq!(c.ucode(), &b[0xD0..0xF0]);
    // 0x40 (R0 export) | 0xE (depth) | 0x80 (kill) | 2 registers << 24.
    assert_eq!(c.control_word(), Some(0x0200_00CE));
    assert_eq!(c.embedded_constants("uColor"), Some(&[16u32][..]));
    assert_eq!(c.embedded_constants("main.COL0"), Some(&[][..]));
    let params = c.parameters();
    assert_eq!(params.len(), 2);
    assert_eq!(params[0].name, Some("uColor"));
    assert_eq!(params[0].semantic, None);
    assert_eq!(params[0].default_value, Some(vec![0.5, 0.25, -1.0, 2.0]));
    assert_eq!(params[1].name, Some("main.COL0"));
    assert_eq!(params[1].semantic, Some("COLOR0"));
    assert!(matches!(
        params[1].binding,
        Binding::Cg {
            resource: CgResource::Color(0),
            resource_index: -1,
            ..
        }
    ));
    let Container::Cg(p) = &c else { panic!() };
    assert_eq!(p.parameters[0].ty, CgType::Vector(CgBase::Float, 4));
    assert_eq!(p.parameters[1].paramno, -1);
    // Bytes past totalSize are ignored.
    let mut longer = b.clone();
    longer.extend_from_slice(&[0xAB; 7]);
    assert_eq!(Container::parse(&longer).expect("parse"), c);
}

#[test]
fn absurd_header_fields_are_refused_at_their_offsets() {
    type Case = (Mutate, u64, fn(&ContainerErrorKind) -> bool);
    let cases: Vec<(&str, Case)> = vec![
        (
            "parameterCount 0xFFFFFFFF",
            (
                |b| put32(b, 12, u32::MAX),
                12,
                |k| {
                    matches!(
                        k,
                        ContainerErrorKind::CountTooLarge {
                            count: 0xFFFF_FFFF,
                            ..
                        }
                    )
                },
            ),
        ),
        (
            "parameterArray past the end",
            (
                |b| put32(b, 16, 0x1_0000),
                12,
                |k| {
                    matches!(
                        k,
                        ContainerErrorKind::OutOfBounds {
                            value: 0x1_0000,
                            ..
                        }
                    )
                },
            ),
        ),
        (
            "totalSize past the buffer",
            (
                |b| put32(b, 8, 0xF1),
                8,
                |k| {
                    matches!(
                        k,
                        ContainerErrorKind::OutOfBounds {
                            value: 0xF1,
                            limit: 0xF0
                        }
                    )
                },
            ),
        ),
        (
            "totalSize below the header",
            (
                |b| put32(b, 8, 31),
                8,
                |k| matches!(k, ContainerErrorKind::Invalid { value: 31, .. }),
            ),
        ),
        (
            "revision 5",
            (
                |b| put32(b, 4, 5),
                4,
                |k| matches!(k, ContainerErrorKind::Unsupported { value: 5, .. }),
            ),
        ),
        (
            "program descriptor past totalSize",
            (
                |b| put32(b, 20, 0xE0),
                20,
                |k| matches!(k, ContainerErrorKind::OutOfBounds { value: 0xF6, .. }),
            ),
        ),
        (
            "ucodeSize not a slot multiple",
            (
                |b| put32(b, 24, 0x18),
                24,
                |k| {
                    matches!(
                        k,
                        ContainerErrorKind::Misaligned {
                            value: 0x18,
                            align: 16
                        }
                    )
                },
            ),
        ),
        (
            "ucode past totalSize",
            (
                |b| put32(b, 28, 0xE0),
                28,
                |k| matches!(k, ContainerErrorKind::OutOfBounds { value: 0x100, .. }),
            ),
        ),
        (
            "ucode offset wraps",
            (
                |b| put32(b, 28, u32::MAX),
                28,
                |k| matches!(k, ContainerErrorKind::OutOfBounds { .. }),
            ),
        ),
        (
            "name offset past the end",
            (
                |b| put32(b, 0x20 + 16, 0x5000),
                0x30,
                |k| matches!(k, ContainerErrorKind::OutOfBounds { value: 0x5000, .. }),
            ),
        ),
        (
            "unterminated name",
            (
                |b| {
                    b[0xEF] = b'A';
                    put32(b, 0x20 + 16, 0xEF);
                },
                0xEF,
                |k| matches!(k, ContainerErrorKind::UnterminatedString { limit: 0xF0 }),
            ),
        ),
        (
            "unterminated semantic",
            (
                |b| {
                    b[0xEF] = b'A';
                    put32(b, 0x20 + 28, 0xEF);
                },
                0xEF,
                |k| matches!(k, ContainerErrorKind::UnterminatedString { .. }),
            ),
        ),
        (
            "semantic offset past the end",
            (
                |b| put32(b, 0x50 + 28, 0xF0),
                0x50 + 28,
                |k| matches!(k, ContainerErrorKind::OutOfBounds { value: 0xF0, .. }),
            ),
        ),
        (
            "default value runs past totalSize",
            (
                |b| put32(b, 0x20 + 20, 0xE8),
                0x20 + 20,
                |k| matches!(k, ContainerErrorKind::CountTooLarge { count: 4, .. }),
            ),
        ),
        (
            "embedded-constant count 0xFFFFFFFF",
            (
                |b| put32(b, 0xC4, u32::MAX),
                0xC4,
                |k| matches!(k, ContainerErrorKind::CountTooLarge { .. }),
            ),
        ),
        (
            "embedded-constant table past the end",
            (
                |b| put32(b, 0x20 + 24, 0xEE),
                0x20 + 24,
                |k| matches!(k, ContainerErrorKind::OutOfBounds { .. }),
            ),
        ),
        (
            "embedded-constant offset not slot aligned",
            (
                |b| put32(b, 0xC8, 8),
                0xC8,
                |k| {
                    matches!(
                        k,
                        ContainerErrorKind::Misaligned {
                            value: 8,
                            align: 16
                        }
                    )
                },
            ),
        ),
        (
            "embedded-constant offset past the ucode",
            (
                |b| put32(b, 0xC8, 32),
                0xC8,
                |k| {
                    matches!(
                        k,
                        ContainerErrorKind::OutOfBounds {
                            value: 48,
                            limit: 32
                        }
                    )
                },
            ),
        ),
    ];
    for (what, (mutate, offset, kind)) in cases {
        let mut b = cg_fragment();
        mutate(&mut b);
        let e = err(&b);
        assert_eq!(e.offset, offset, "{what}: {e}");
        assert!(kind(&e.kind), "{what}: unexpected kind {e}");
        // The rendered message names the offset.
        assert!(
            e.to_string().contains(&format!("byte offset {offset}")),
            "{e}"
        );
    }
}

#[test]
fn unknown_profile_and_unknown_bytes() {
    let mut b = cg_fragment();
    put32(&mut b, 0, 7005);
    let e = err(&b);
    assert_eq!((e.offset, e.kind), (0, ContainerErrorKind::UnknownFormat));
    // Unknown bytes become raw microcode only when asked, and only whole slots.
    let raw = Container::parse_or_raw(&b[0xD0..0xF0], Stage::Fragment).expect("raw");
    assert_eq!(raw.stage(), Stage::Fragment);
    assert_eq!(raw.ucode(), &b[0xD0..0xF0]);
    assert_eq!(raw.slot_count(), 2);
    assert_eq!(raw.control_word(), None);
    assert!(raw.parameters().is_empty());
    let e = Container::parse_or_raw(&b[0xD0..0xEF], Stage::Vertex).expect_err("31 bytes");
    assert_eq!(e.offset, 31);
    assert!(Container::raw(Stage::Vertex, &[]).is_err());
    // A recognised container that is malformed stays an error.
    let mut bad = cg_fragment();
    put32(&mut bad, 12, u32::MAX);
    assert!(Container::parse_or_raw(&bad, Stage::Fragment).is_err());
}

#[test]
fn every_truncation_and_byte_corruption_is_handled_without_panic() {
    let b = cg_fragment();
    for len in 0..b.len() {
        let e = err(&b[..len]);
        assert!(e.offset <= b.len() as u64, "len {len}: {e}");
    }
    // Corrupt each byte in turn with several values: parse must return, never panic.
    let mut accepted = 0;
    for at in 0..b.len() {
        for v in [0x00, 0x01, 0x7F, 0x80, 0xFF] {
            let mut m = b.clone();
            m[at] = v;
            if let Ok(c) = Container::parse(&m) {
                accepted += 1;
                let _ = (c.ucode(), c.parameters(), c.control_word(), c.stage());
            }
        }
    }
    // Many corruptions (flags, masks, float values, string bytes) are legal input.
    assert!(accepted > 100, "only {accepted} corrupted variants parsed");
}

/// A 112-byte PSL1GHT `rsxVertexProgram` (rsx_program.h layout):
///
/// ```text
/// 0x00 header   'VP', 1 attrib @0x20, in 0x1, out 0x4001, const_start 0, 1 const @0x2C,
///               start_insn 0, 1 insn @0x60
/// 0x20 attrib   name @0x48 "position", index 0, type 3
/// 0x2C const    name @0x51 "mvp", index 256, type 4, internal 0, count 4, 1.0 0 0 2.5
/// 0x48 strings  0x60 ucode (16 B)
/// ```
pub(crate) fn rsx_vertex() -> Vec<u8> {
    let mut b = vec![0u8; 0x70];
    put16(&mut b, 0, 0x5650);
    put16(&mut b, 2, 1);
    put32(&mut b, 4, 0x20);
    put32(&mut b, 8, 0x1);
    put32(&mut b, 12, 0x4001);
    put16(&mut b, 16, 0);
    put16(&mut b, 18, 1);
    put32(&mut b, 20, 0x2C);
    put16(&mut b, 24, 0);
    put16(&mut b, 26, 1);
    put32(&mut b, 28, 0x60);
    put32(&mut b, 0x20, 0x48);
    put32(&mut b, 0x24, 0);
    b[0x28] = 3;
    put32(&mut b, 0x2C, 0x51);
    put32(&mut b, 0x30, 256);
    b[0x34] = 4;
    b[0x36] = 4;
    for (i, v) in [1.0f32, 0.0, 0.0, 2.5].into_iter().enumerate() {
        put32(&mut b, 0x38 + 4 * i, v.to_bits());
    }
    put_str(&mut b, 0x48, "position");
    put_str(&mut b, 0x51, "mvp");
    for (i, w) in [0x401F_9C6Cu32, 0x0040_0D81, 0x06C0_8360, 0x4041_FF81]
        .into_iter()
        .enumerate()
    {
        put32(&mut b, 0x60 + 4 * i, w);
    }
    b
}

#[test]
fn hand_built_rsx_vertex_program() {
    let b = rsx_vertex();
    let c = Container::parse(&b).expect("parse");
    let Container::Psl1ghtVertex(p) = &c else {
        panic!()
    };
    assert_eq!(p.layout, VpLayout::RsxProgram);
    assert_eq!((p.input_mask, p.output_mask), (1, 0x4001));
    assert_eq!(p.attributes[0].name.as_deref(), Some("position"));
    assert_eq!(p.attributes[0].ty, Some(3));
    let mvp = p.constant("mvp").expect("mvp");
    assert_eq!((mvp.index, mvp.ty, mvp.count), (256, 4, Some(4)));
    assert_eq!(mvp.values.map(f32::from_bits), [1.0, 0.0, 0.0, 2.5]);
    assert_eq!(c.ucode(), &b[0x60..0x70]);
    assert_eq!(c.stage(), Stage::Vertex);
    assert_eq!(c.embedded_constants("mvp"), None);

    let cases: [(Mutate, u64); 5] = [
        (|b| put16(b, 26, 2), 28),          // ucode runs past the end
        (|b| put16(b, 2, 0xFFFF), 2),       // num_attrib too large
        (|b| put16(b, 18, 0xFFFF), 18),     // num_const too large
        (|b| put32(b, 0x20, 0x7000), 0x20), // attribute name out of bounds
        (|b| put32(b, 0x2C, 0x6F), 0x6F),   // name at the last byte: unterminated
    ];
    for (i, (mutate, offset)) in cases.into_iter().enumerate() {
        let mut m = rsx_vertex();
        if i == 4 {
            m[0x6F] = b'x';
        }
        mutate(&mut m);
        let e = err(&m);
        assert_eq!(e.offset, offset, "case {i}: {e}");
    }
    for len in 0..b.len() {
        assert!(Container::parse(&b[..len]).is_err(), "len {len}");
    }
}

/// A 144-byte PSL1GHT `rsxFragmentProgram`:
///
/// ```text
/// 0x00 header  'FP', 1 attrib @0x28, num_regs 3, fp_control 0x40, texcoords 1, 2D 1, 3D 0,
///              1 const @0x3C, 2 insns @0x70
/// 0x28 attrib  name @0x58 "inTex", index 4, type 3
/// 0x34 table   num 1, offset 16
/// 0x3C const   name @0x5E "uColor", index 0x34 (the table), type 3, count 1, 0.5 0.25 -1 2
/// 0x70 ucode   2 slots
/// ```
pub(crate) fn rsx_fragment() -> Vec<u8> {
    let mut b = vec![0u8; 0x90];
    put16(&mut b, 0, 0x4650);
    put16(&mut b, 2, 1);
    put32(&mut b, 4, 0x28);
    put32(&mut b, 8, 3);
    put32(&mut b, 12, 0x40);
    put16(&mut b, 16, 1);
    put16(&mut b, 18, 1);
    put16(&mut b, 24, 1);
    put32(&mut b, 28, 0x3C);
    put16(&mut b, 32, 2);
    put32(&mut b, 36, 0x70);
    put32(&mut b, 0x28, 0x58);
    put32(&mut b, 0x2C, 4);
    b[0x30] = 3;
    put32(&mut b, 0x34, 1);
    put32(&mut b, 0x38, 16);
    put32(&mut b, 0x3C, 0x5E);
    put32(&mut b, 0x40, 0x34);
    b[0x44] = 3;
    b[0x46] = 1;
    for (i, v) in [0.5f32, 0.25, -1.0, 2.0].into_iter().enumerate() {
        put32(&mut b, 0x48 + 4 * i, v.to_bits());
    }
    put_str(&mut b, 0x58, "inTex");
    put_str(&mut b, 0x5E, "uColor");
    put_fp_word(&mut b, 0x70, 1 | 0xF << 9 | 1 << 24);
    put_fp_word(&mut b, 0x74, 2 | 0xE4 << 9);
    b
}

#[test]
fn hand_built_rsx_fragment_program() {
    let b = rsx_fragment();
    let c = Container::parse(&b).expect("parse");
    assert_eq!(c.stage(), Stage::Fragment);
    assert_eq!(c.ucode(), &b[0x70..0x90]);
    // fp_control | num_regs << 24.
    assert_eq!(c.control_word(), Some(0x0300_0040));
    assert_eq!(c.embedded_constants("uColor"), Some(&[16u32][..]));
    assert_eq!(c.embedded_constants("inTex"), None);
    let params = c.parameters();
    assert_eq!(params[0].binding, Binding::Attribute { index: 4 });
    assert_eq!(params[1].default_value, Some(vec![0.5, 0.25, -1.0, 2.0]));

    let cases: [(Mutate, u64, &str); 4] = [
        (|b| put32(b, 0x38, 24), 0x38, "misaligned slot offset"),
        (|b| put32(b, 0x38, 32), 0x38, "slot offset past the ucode"),
        (|b| put32(b, 0x34, u32::MAX), 0x34, "table count too large"),
        (|b| put32(b, 0x40, 0x8E), 0x40, "table past the end"),
    ];
    for (mutate, offset, what) in cases {
        let mut m = rsx_fragment();
        mutate(&mut m);
        let e = err(&m);
        assert_eq!(e.offset, offset, "{what}: {e}");
    }
    // index -1: unused constant, no table.
    let mut m = rsx_fragment();
    put32(&mut m, 0x40, u32::MAX);
    let c = Container::parse(&m).expect("unused constant");
    assert_eq!(c.embedded_constants("uColor"), Some(&[][..]));
    for len in 0..b.len() {
        assert!(Container::parse(&b[..len]).is_err(), "len {len}");
    }
}
