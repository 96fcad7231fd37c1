//! PSL1GHT program containers in the layout `cgcomp` has written since July 2020 (PSL1GHT
//! d0eea6e: `rsxVertexProgram` and `rsxFragmentProgram` with 36-byte headers) and in its
//! early-2011 one (PSL1GHT e488c61: `realityVertexProgram`, `realityFragmentProgram`), laid
//! out byte by byte as `tools/cgcomp/source/main.cpp` of each lays them out (header,
//! attributes, constant offset tables, constants, names, microcode 16-aligned last). The corpus has no program
//! built by a PSL1GHT of these years; these stand for one, written from the layout alone (no
//! rsxtrace code), so a reader's mistake is not mirrored here.

/// `'V' << 8 | 'P'` (cgcomp main.cpp).
pub const MAGIC_VERTEX: u16 = 0x5650;
/// `'F' << 8 | 'P'` (cgcomp main.cpp).
pub const MAGIC_FRAGMENT: u16 = 0x4650;

/// A big-endian u32 at `at`.
pub fn put32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// A big-endian u16 at `at`.
pub fn put16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// A NUL-terminated string at `at`.
pub fn put_str(buf: &mut [u8], at: usize, s: &str) {
    buf[at..at + s.len()].copy_from_slice(s.as_bytes());
    buf[at + s.len()] = 0;
}

/// An RSX fragment word as stored: big-endian with the 16-bit halves swapped.
pub fn put_fp_word(buf: &mut [u8], at: usize, w: u32) {
    put32(buf, at, w.rotate_left(16));
}

/// A 28-byte `rsxProgramConst` at `at`: `(name_off, index, type, is_internal)`, count 1, the
/// four values.
fn put_constant(
    b: &mut [u8],
    at: usize,
    (name, index, ty, internal): (u32, u32, u8, u8),
    values: [f32; 4],
) {
    put32(b, at, name);
    put32(b, at + 4, index);
    b[at + 8] = ty;
    b[at + 9] = internal;
    b[at + 10] = 1;
    for (i, v) in values.into_iter().enumerate() {
        put32(b, at + 12 + 4 * i, v.to_bits());
    }
}

/// `MOV o[HPOS], v[0]; END` (big-endian words), the vertex fixture's one instruction.
pub const VERTEX_INSTRUCTION: [u32; 4] = [0x401F_9C6C, 0x0040_000D, 0x8106_C083, 0x6041_FF81];

/// A 0x90-byte `rsxVertexProgram` of the July 2020 layout:
///
/// ```text
/// 0x00 header   'VP', pad 0, num_regs 2, 1 attr, 2 consts, 1 insn, attr @0x24, const @0x30,
///               ucode @0x80, in 0x1, out 0x4000, const_start 0, insn_start 0
/// 0x24 attr     name @0x68 "position", index 0, type 9 (PARAM_FLOAT4 since 2020-10)
/// 0x30 const    name @0x71 "scale", index 4, type 9, internal 0, count 1, 2.0 2.0 2.0 1.0
/// 0x4C const    name 0, index 5, type 9, internal 1, count 1, 0 0.5 1 0 (a literal)
/// 0x68 strings  "position\0scale\0"; 0x80 ucode (16 B)
/// ```
pub fn vertex_2020() -> Vec<u8> {
    let mut b = vec![0u8; 0x90];
    put16(&mut b, 0, MAGIC_VERTEX);
    put16(&mut b, 4, 2);
    put16(&mut b, 6, 1);
    put16(&mut b, 8, 2);
    put16(&mut b, 10, 1);
    put32(&mut b, 12, 0x24);
    put32(&mut b, 16, 0x30);
    put32(&mut b, 20, 0x80);
    put32(&mut b, 24, 0x1);
    put32(&mut b, 28, 0x4000);
    put32(&mut b, 0x24, 0x68);
    b[0x2C] = 9;
    let constants: [(u32, u32, u8, [f32; 4]); 2] = [
        (0x71, 4, 0, [2.0, 2.0, 2.0, 1.0]),
        (0, 5, 1, [0.0, 0.5, 1.0, 0.0]),
    ];
    for (k, (name, index, internal, values)) in constants.into_iter().enumerate() {
        put_constant(&mut b, 0x30 + 28 * k, (name, index, 9, internal), values);
    }
    put_str(&mut b, 0x68, "position");
    put_str(&mut b, 0x71, "scale");
    for (i, w) in VERTEX_INSTRUCTION.into_iter().enumerate() {
        put32(&mut b, 0x80 + 4 * i, w);
    }
    b
}

/// `MOVR R0, c[0]; END` (the four words as the RSX reads them, before the half swap), the
/// fragment fixture's one instruction.
pub const FRAGMENT_INSTRUCTION: [u32; 4] = [0x0100_1E01, 0x1C9D_C802, 0x0001_C800, 0x0001_C800];

/// The value of [`fragment_2020`]'s uniform `uColor`, the colour its program writes.
pub const FRAGMENT_CONSTANT: [f32; 4] = [0.0, 0.0, 1.0, 1.0];

/// A 0x90-byte `rsxFragmentProgram` of the July 2020 layout:
///
/// ```text
/// 0x00 header  'FP', pad 0, num_regs 3, 1 attr, 1 const, 2 insns, attr @0x24, const @0x38,
///              ucode @0x70, fp_control 0x40, texcoords 1, 2D 1, 3D 0
/// 0x24 attr    name @0x54 "inTex", index 4, type 9
/// 0x30 table   num 1, offset 16 (the inline constant of slot 1)
/// 0x38 const   name @0x5A "uColor", index 0x30 (the table), type 9, count 1, 0 0 1 1
/// 0x54 strings "inTex\0uColor\0"; 0x70 ucode (2 slots: MOV R0, c[0] + END; the constant,
///              0 0 1 1: blue)
/// ```
pub fn fragment_2020() -> Vec<u8> {
    let mut b = vec![0u8; 0x90];
    put16(&mut b, 0, MAGIC_FRAGMENT);
    put16(&mut b, 4, 3);
    put16(&mut b, 6, 1);
    put16(&mut b, 8, 1);
    put16(&mut b, 10, 2);
    put32(&mut b, 12, 0x24);
    put32(&mut b, 16, 0x38);
    put32(&mut b, 20, 0x70);
    put32(&mut b, 24, 0x40);
    put16(&mut b, 28, 1);
    put16(&mut b, 30, 1);
    put32(&mut b, 0x24, 0x54);
    put32(&mut b, 0x28, 4);
    b[0x2C] = 9;
    put32(&mut b, 0x30, 1);
    put32(&mut b, 0x34, 16);
    put32(&mut b, 0x38, 0x5A);
    put32(&mut b, 0x3C, 0x30);
    b[0x40] = 9;
    b[0x42] = 1;
    for (i, v) in FRAGMENT_CONSTANT.into_iter().enumerate() {
        put32(&mut b, 0x44 + 4 * i, v.to_bits());
        put_fp_word(&mut b, 0x80 + 4 * i, v.to_bits());
    }
    put_str(&mut b, 0x54, "inTex");
    put_str(&mut b, 0x5A, "uColor");
    for (i, w) in FRAGMENT_INSTRUCTION.into_iter().enumerate() {
        put_fp_word(&mut b, 0x70 + 4 * i, w);
    }
    b
}

/// A 0x80-byte `realityVertexProgram` of cgcomp's early-2011 layout (PSL1GHT e488c61
/// `reality_program.h`, `main.cpp`): the 32-byte header, 8-byte attributes.
///
/// ```text
/// 0x00 header   'VP', 1 attrib @0x20, in 0x1, out 0x4000, const_start 0, 2 consts @0x28,
///               start_insn 0, 1 insn @0x70
/// 0x20 attrib   name @0x60 "position", index 0
/// 0x28 const    name @0x69 "scale", index 4, type 3, internal 0, count 1, 2.0 2.0 2.0 1.0
/// 0x44 const    name 0, index 5, type 3, internal 1, count 1, 1 1 0 1 (a literal)
/// 0x60 strings  "position\0scale\0"; 0x70 ucode (16 B)
/// ```
pub fn vertex_reality() -> Vec<u8> {
    let mut b = vec![0u8; 0x80];
    put16(&mut b, 0, MAGIC_VERTEX);
    put16(&mut b, 2, 1);
    put32(&mut b, 4, 0x20);
    put32(&mut b, 8, 0x1);
    put32(&mut b, 12, 0x4000);
    put16(&mut b, 18, 2);
    put32(&mut b, 20, 0x28);
    put16(&mut b, 26, 1);
    put32(&mut b, 28, 0x70);
    put32(&mut b, 0x20, 0x60);
    let constants: [(u32, u32, u8, [f32; 4]); 2] = [
        (0x69, 4, 0, [2.0, 2.0, 2.0, 1.0]),
        (0, 5, 1, [1.0, 1.0, 0.0, 1.0]),
    ];
    for (k, (name, index, internal, values)) in constants.into_iter().enumerate() {
        put_constant(&mut b, 0x28 + 28 * k, (name, index, 3, internal), values);
    }
    put_str(&mut b, 0x60, "position");
    put_str(&mut b, 0x69, "scale");
    for (i, w) in VERTEX_INSTRUCTION.into_iter().enumerate() {
        put32(&mut b, 0x70 + 4 * i, w);
    }
    b
}

/// A 0x80-byte `realityFragmentProgram` of cgcomp's early-2011 layout: a 32-byte header
/// without texture coordinate masks, 8-byte attributes, a constant whose `index` is its slot.
///
/// ```text
/// 0x00 header  'FP', 1 attrib @0x20, num_regs 3, fp_control 0x40, 1 const @0x28,
///              2 insns @0x60
/// 0x20 attrib  name @0x44 "inTex", index 4
/// 0x28 const   name @0x4A "uColor", index 16 (slot 1), type 3, count 1, 0 0 1 1
/// 0x44 strings "inTex\0uColor\0"; 0x60 ucode (MOVR R0, c[0] + END; the constant)
/// ```
pub fn fragment_reality() -> Vec<u8> {
    let mut b = vec![0u8; 0x80];
    put16(&mut b, 0, MAGIC_FRAGMENT);
    put16(&mut b, 2, 1);
    put32(&mut b, 4, 0x20);
    put32(&mut b, 8, 3);
    put32(&mut b, 12, 0x40);
    put16(&mut b, 18, 1);
    put32(&mut b, 20, 0x28);
    put16(&mut b, 24, 2);
    put32(&mut b, 28, 0x60);
    put32(&mut b, 0x20, 0x44);
    put32(&mut b, 0x24, 4);
    put32(&mut b, 0x28, 0x4A);
    put32(&mut b, 0x2C, 16);
    b[0x30] = 3;
    b[0x32] = 1;
    for (i, v) in FRAGMENT_CONSTANT.into_iter().enumerate() {
        put32(&mut b, 0x34 + 4 * i, v.to_bits());
        put_fp_word(&mut b, 0x70 + 4 * i, v.to_bits());
    }
    put_str(&mut b, 0x44, "inTex");
    put_str(&mut b, 0x4A, "uColor");
    for (i, w) in FRAGMENT_INSTRUCTION.into_iter().enumerate() {
        put_fp_word(&mut b, 0x60 + 4 * i, w);
    }
    b
}
