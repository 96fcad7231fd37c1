//! Bit positions of every vertex-instruction field, shared by the decoder and the encoder.
//!
//! Each instruction is four big-endian words D0–D3 (no half swap). Layout: RPCS3
//! `RSXVertexProgram.h` unions `D0`..`D3`/`SRC`, cross-checked with PSL1GHT `nv40_vertprog.h`;
//! restated in rsx-microcode.md B.8.

/// A field: word index (0–3), lowest bit, width in bits (1–31).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    pub word: usize,
    pub lo: u32,
    pub width: u32,
}

impl Field {
    const fn new(word: usize, lo: u32, width: u32) -> Self {
        Field { word, lo, width }
    }

    const fn mask(self) -> u32 {
        (1u32 << self.width) - 1
    }

    /// Read the field from an instruction's four words.
    pub fn get(self, w: &[u32; 4]) -> u32 {
        (w[self.word] >> self.lo) & self.mask()
    }

    /// Write `value` (truncated to the width) into the field.
    pub fn put(self, w: &mut [u32; 4], value: u32) {
        let m = self.mask() << self.lo;
        w[self.word] = (w[self.word] & !m) | ((value << self.lo) & m);
    }
}

// D0 — RPCS3 union D0.
pub(crate) const ADDR_SWZ: Field = Field::new(0, 0, 2);
pub(crate) const COND_SWZ: Field = Field::new(0, 2, 8);
pub(crate) const COND: Field = Field::new(0, 10, 3);
pub(crate) const COND_TEST_ENABLE: Field = Field::new(0, 13, 1);
pub(crate) const COND_UPDATE_0: Field = Field::new(0, 14, 1);
pub(crate) const VEC_DST_TMP: Field = Field::new(0, 15, 6);
pub(crate) const SRC_ABS: [Field; 3] = [
    Field::new(0, 21, 1),
    Field::new(0, 22, 1),
    Field::new(0, 23, 1),
];
pub(crate) const ADDR_REG_SEL: Field = Field::new(0, 24, 1);
pub(crate) const COND_REG_SEL: Field = Field::new(0, 25, 1);
pub(crate) const SATURATE: Field = Field::new(0, 26, 1);
pub(crate) const INDEX_INPUT: Field = Field::new(0, 27, 1);
pub(crate) const COND_UPDATE_1: Field = Field::new(0, 29, 1);
pub(crate) const VEC_RESULT: Field = Field::new(0, 30, 1);
/// D0 bits no source names (28 and 31); refused when set.
pub(crate) const D0_UNKNOWN_MASK: u32 = (1 << 28) | (1 << 31);
/// Branch target bit 9 (aliases src2 abs).
pub(crate) const IADDRH2: Field = Field::new(0, 23, 1);

// D1 — RPCS3 union D1.
pub(crate) const SRC0H: Field = Field::new(1, 0, 8);
pub(crate) const INPUT_SRC: Field = Field::new(1, 8, 4);
/// 10 bits in RPCS3; nouveau declares 8 (rsx-microcode.md B.8; the cube VP reads c[256..259]).
pub(crate) const CONST_SRC: Field = Field::new(1, 12, 10);
pub(crate) const VEC_OPCODE: Field = Field::new(1, 22, 5);
pub(crate) const SCA_OPCODE: Field = Field::new(1, 27, 5);

// D2 — RPCS3 union D2.
pub(crate) const SRC2H: Field = Field::new(2, 0, 6);
pub(crate) const SRC1: Field = Field::new(2, 6, 17);
pub(crate) const SRC0L: Field = Field::new(2, 23, 9);
/// Branch target bits 3–8 (aliases src2h).
pub(crate) const IADDRH: Field = Field::new(2, 0, 6);
/// TXL texture unit (aliases src1 temp index bits 0–1).
pub(crate) const TEX_NUM: Field = Field::new(2, 8, 2);

// D3 — RPCS3 union D3.
pub(crate) const END: Field = Field::new(3, 0, 1);
pub(crate) const INDEX_CONST: Field = Field::new(3, 1, 1);
pub(crate) const DST: Field = Field::new(3, 2, 5);
pub(crate) const SCA_DST_TMP: Field = Field::new(3, 7, 6);
pub(crate) const VEC_WRITEMASK: Field = Field::new(3, 13, 4);
pub(crate) const SCA_WRITEMASK: Field = Field::new(3, 17, 4);
pub(crate) const SRC2L: Field = Field::new(3, 21, 11);
/// BRB/CLB boolean constant index (aliases src2 temp index bits 0–4).
pub(crate) const BRANCH_INDEX: Field = Field::new(3, 23, 5);
/// BRB/CLB "branch if true" (aliases src2 temp index bit 5).
pub(crate) const BRB_COND_TRUE: Field = Field::new(3, 28, 1);
/// Branch target bits 0–2 (aliases src2 swizzle bits).
pub(crate) const IADDRL: Field = Field::new(3, 29, 3);

/// "No register" value of the 6-bit temp destination fields.
pub(crate) const NO_TEMP: u32 = 0x3F;
/// "No output" value of the 5-bit output field.
pub(crate) const NO_OUTPUT: u32 = 0x1F;

/// Read the 17-bit operand `n` (0–2): src0 = D1.src0h:D2.src0l (8+9 bits), src1 = D2.src1,
/// src2 = D2.src2h:D3.src2l (6+11 bits).
pub(crate) fn get_operand(w: &[u32; 4], n: usize) -> u32 {
    match n {
        0 => (SRC0H.get(w) << 9) | SRC0L.get(w),
        1 => SRC1.get(w),
        _ => (SRC2H.get(w) << 11) | SRC2L.get(w),
    }
}

/// Write the 17-bit operand `n` (inverse of [`get_operand`]).
pub(crate) fn put_operand(w: &mut [u32; 4], n: usize, value: u32) {
    match n {
        0 => {
            SRC0H.put(w, value >> 9);
            SRC0L.put(w, value);
        }
        1 => SRC1.put(w, value),
        _ => {
            SRC2H.put(w, value >> 11);
            SRC2L.put(w, value);
        }
    }
}

/// Branch target = iaddrh2 << 9 | iaddrh << 3 | iaddrl (RPCS3 `VertexProgramDecompiler::GetAddr`).
pub(crate) fn branch_address(w: &[u32; 4]) -> u32 {
    (IADDRH2.get(w) << 9) | (IADDRH.get(w) << 3) | IADDRL.get(w)
}

// Operand sub-fields (RPCS3 union SRC).
pub(crate) const OP_REG_TYPE_SHIFT: u32 = 0;
pub(crate) const OP_TEMP_SHIFT: u32 = 2;
pub(crate) const OP_SWZ_SHIFT: u32 = 8;
pub(crate) const OP_NEG_SHIFT: u32 = 16;
