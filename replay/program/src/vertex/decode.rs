//! Decoding one slot's four words into a [`VertexInstruction`], and straight-line slices of
//! words or big-endian bytes into a [`VertexProgram`].
//!
//! Field layout: [`super::fields`] (RPCS3 `RSXVertexProgram.h`, rsx-microcode.md B.8).
//!
//! The hot path checks every refusal with a few bit tests and builds the instruction from
//! shifts and small tables; when the check fails, [`instruction_error`] works out which error
//! to report, in the documented order (unknown D0 bits, vector opcode, scalar opcode, source
//! types 0–2, branch target).

use super::error::VertexDecodeError;
use super::fields::{self as f, Field};
use super::instruction::{CcRegister, VertexInstruction, VertexProgram};
use super::opcode::{ScalarOpcode, VectorOpcode};
use super::operand::{
    AddressRegister, Component, ConditionTest, ConditionUpdate, InputAttribute, OutputRegister,
    RegisterType, Relation, Source, Swizzle, WriteMask,
};
use super::MEMORY_SLOTS;

#[inline(always)]
fn flag(field: Field, w: &[u32; 4]) -> bool {
    field.get(w) == 1
}

/// Fields of at most 8 bits fit a `u8`; the fallback is unreachable.
#[inline(always)]
fn small_u8(v: u32) -> u8 {
    u8::try_from(v).unwrap_or(u8::MAX)
}

#[inline(always)]
fn optional(v: u32, none: u32) -> Option<u8> {
    (v != none).then(|| small_u8(v))
}

/// The component for a 2-bit code (the same as [`Component::from_code`], usable in `const`).
const fn component(code: usize) -> Component {
    match code & 3 {
        0 => Component::X,
        1 => Component::Y,
        2 => Component::Z,
        _ => Component::W,
    }
}

/// Every 8-bit swizzle field decoded (w lowest, x in bits 6–7; the same as
/// [`Swizzle::from_field`]), so a swizzle is one load.
const SWIZZLES: [Swizzle; 256] = {
    let mut table = [Swizzle::IDENTITY; 256];
    let mut field = 0;
    while field < 256 {
        table[field] = Swizzle([
            component(field >> 6),
            component(field >> 4),
            component(field >> 2),
            component(field),
        ]);
        field += 1;
    }
    table
};

/// The swizzle in the low 8 bits of `field`.
#[inline(always)]
fn swizzle(field: u32) -> Swizzle {
    // Masked to 0..=255: the lookup never fails.
    SWIZZLES[(field & 0xFF) as usize]
}

/// Every 4-bit hardware write-mask field (x = bit 3) in logical order (x = bit 0); the same
/// as [`WriteMask::from_field`].
const WRITE_MASKS: [WriteMask; 16] = {
    let mut table = [WriteMask(0); 16];
    let mut field = 0;
    while field < 16 {
        let f = field as u8;
        table[field] = WriteMask(
            ((f >> 3) & 1) | (((f >> 2) & 1) << 1) | (((f >> 1) & 1) << 2) | ((f & 1) << 3),
        );
        field += 1;
    }
    table
};

/// The write mask in the low 4 bits of `field`.
#[inline(always)]
fn write_mask(field: u32) -> WriteMask {
    // Masked to 0..=15: the lookup never fails.
    WRITE_MASKS[(field & 0xF) as usize]
}

/// Register types for codes 1–3; code 0 is refused before a source is built.
const REGISTER_TYPES: [RegisterType; 4] = [
    RegisterType::Temp,
    RegisterType::Temp,
    RegisterType::Input,
    RegisterType::Constant,
];

/// Source `n` (0–2) from its 17-bit operand (type already checked non-zero) and its D0 abs bit.
#[inline(always)]
fn source(raw: u32, abs: bool) -> Source {
    Source {
        // Masked to 0..=3: the lookup never fails.
        reg_type: REGISTER_TYPES[((raw >> f::OP_REG_TYPE_SHIFT) & 3) as usize],
        temp_index: ((raw >> f::OP_TEMP_SHIFT) & 0x3F) as u8,
        swizzle: swizzle(raw >> f::OP_SWZ_SHIFT),
        negate: (raw >> f::OP_NEG_SHIFT) & 1 == 1,
        abs,
    }
}

/// Decode one slot. `slot` is recorded in the instruction and named in errors. Branch targets
/// are checked against the 544-slot transform program memory.
pub fn decode_instruction(
    words: [u32; 4],
    slot: usize,
) -> Result<VertexInstruction, VertexDecodeError> {
    decode_slot(words, slot)
}

/// [`decode_instruction`], always inlined so the slice decoders build each instruction in
/// place in their vector.
#[inline(always)]
fn decode_slot(words: [u32; 4], slot: usize) -> Result<VertexInstruction, VertexDecodeError> {
    let w = &words;
    let vector = VectorOpcode::from_code(f::VEC_OPCODE.get(w));
    let scalar = ScalarOpcode::from_code(f::SCA_OPCODE.get(w));
    let ops = [
        f::get_operand(w, 0),
        f::get_operand(w, 1),
        f::get_operand(w, 2),
    ];
    // Register type 0 in any operand: bits 0–1 both clear.
    let type0 = ops.iter().fold(0, |acc, &o| acc | u32::from(o & 3 == 0));
    let (Some(vector), Some(scalar)) = (vector, scalar) else {
        return Err(instruction_error(words, slot));
    };
    if w[0] & f::D0_UNKNOWN_MASK != 0 || type0 != 0 {
        return Err(instruction_error(words, slot));
    }
    // At most 10 bits (`branch_address`), so one compare suffices.
    if scalar.has_immediate_target() && f::branch_address(w) as usize >= MEMORY_SLOTS {
        return Err(instruction_error(words, slot));
    }
    let [op0, op1, op2] = ops;
    Ok(VertexInstruction {
        slot,
        vector,
        scalar,
        vec_dst_temp: optional(f::VEC_DST_TMP.get(w), f::NO_TEMP),
        sca_dst_temp: optional(f::SCA_DST_TMP.get(w), f::NO_TEMP),
        output: optional(f::DST.get(w), f::NO_OUTPUT).map(OutputRegister),
        vec_result: flag(f::VEC_RESULT, w),
        vec_mask: write_mask(f::VEC_WRITEMASK.get(w)),
        sca_mask: write_mask(f::SCA_WRITEMASK.get(w)),
        sources: [
            source(op0, flag(f::SRC_ABS[0], w)),
            source(op1, flag(f::SRC_ABS[1], w)),
            source(op2, flag(f::SRC_ABS[2], w)),
        ],
        input: InputAttribute(small_u8(f::INPUT_SRC.get(w))),
        // 10 bits.
        const_index: f::CONST_SRC.get(w) as u16,
        index_const: flag(f::INDEX_CONST, w),
        index_input: flag(f::INDEX_INPUT, w),
        address: AddressRegister {
            register: small_u8(f::ADDR_REG_SEL.get(w)),
            component: Component::from_code(f::ADDR_SWZ.get(w)),
        },
        condition: ConditionTest {
            enabled: flag(f::COND_TEST_ENABLE, w),
            relation: Relation::from_code(f::COND.get(w)),
            swizzle: swizzle(f::COND_SWZ.get(w)),
        },
        cc_update: ConditionUpdate {
            enable_0: flag(f::COND_UPDATE_0, w),
            enable_1: flag(f::COND_UPDATE_1, w),
        },
        cc_register: if flag(f::COND_REG_SEL, w) {
            CcRegister::CC1
        } else {
            CcRegister::CC0
        },
        saturate: flag(f::SATURATE, w),
        end: flag(f::END, w),
    })
}

/// The error for a slot the fast check in [`decode_instruction`] refused, in the documented
/// order: unknown D0 bits, vector opcode, scalar opcode, source types 0–2, branch target.
#[cold]
#[inline(never)]
fn instruction_error(words: [u32; 4], slot: usize) -> VertexDecodeError {
    let w = &words;
    let unknown = w[0] & f::D0_UNKNOWN_MASK;
    if unknown != 0 {
        return VertexDecodeError::UnsupportedBits {
            slot,
            mask: unknown,
        };
    }
    let vcode = f::VEC_OPCODE.get(w);
    if VectorOpcode::from_code(vcode).is_none() {
        return VertexDecodeError::UnsupportedVectorOpcode { slot, code: vcode };
    }
    let scode = f::SCA_OPCODE.get(w);
    if ScalarOpcode::from_code(scode).is_none() {
        return VertexDecodeError::UnsupportedScalarOpcode { slot, code: scode };
    }
    for (operand, n) in [0u8, 1, 2].into_iter().zip(0..) {
        if RegisterType::from_code(f::get_operand(w, n)).is_none() {
            return VertexDecodeError::InvalidSourceType { slot, operand };
        }
    }
    let target = f::branch_address(w);
    VertexDecodeError::BranchOutOfRange {
        slot,
        target: u16::try_from(target).unwrap_or(u16::MAX),
        limit: MEMORY_SLOTS,
    }
}

/// Decode every slot of `words` (4 words per slot; slots numbered from 0). No END is required:
/// the slice is taken as given.
pub fn decode_words(words: &[u32]) -> Result<VertexProgram, VertexDecodeError> {
    let chunks = words.chunks_exact(4);
    if !chunks.remainder().is_empty() {
        return Err(VertexDecodeError::IncompleteSlot {
            slot: words.len() / 4,
            len: words.len(),
        });
    }
    if words.is_empty() {
        return Err(VertexDecodeError::Empty);
    }
    // One instruction per slot, and the slots are there: the capacity is exact.
    let mut instructions = Vec::with_capacity(words.len() / 4);
    for (slot, c) in chunks.enumerate() {
        let mut s = [0u32; 4];
        s.copy_from_slice(c);
        instructions.push(decode_slot(s, slot)?);
    }
    Ok(VertexProgram {
        start_slot: 0,
        instructions,
    })
}

/// Decode big-endian bytes (16 per slot). A length that is not a multiple of 16 is refused,
/// naming the byte offset of the incomplete slot.
pub fn decode_bytes(be: &[u8]) -> Result<VertexProgram, VertexDecodeError> {
    if be.len() % 16 != 0 {
        return Err(VertexDecodeError::TrailingBytes {
            offset: be.len() - be.len() % 16,
            len: be.len(),
        });
    }
    if be.is_empty() {
        return Err(VertexDecodeError::Empty);
    }
    // One instruction per 16 bytes, and the bytes are there: the capacity is exact.
    let mut instructions = Vec::with_capacity(be.len() / 16);
    let mut rest = be;
    let mut slot = 0;
    while let Some((s, tail)) = rest.split_first_chunk::<16>() {
        let words = [
            u32::from_be_bytes([s[0], s[1], s[2], s[3]]),
            u32::from_be_bytes([s[4], s[5], s[6], s[7]]),
            u32::from_be_bytes([s[8], s[9], s[10], s[11]]),
            u32::from_be_bytes([s[12], s[13], s[14], s[15]]),
        ];
        instructions.push(decode_slot(words, slot)?);
        rest = tail;
        slot += 1;
    }
    Ok(VertexProgram {
        start_slot: 0,
        instructions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slot 2 of the ps3autotests cube VP (DP4 o[HPOS].w, v[POS], c[259]; the fields are laid
    /// out in tests/vertex_fields.rs): every check passes.
    const CUBE: [u32; 4] = [0x401f9c6c, 0x01d0300d, 0x8106c0c3, 0x60403f80];

    #[test]
    fn tables_match_the_field_decoders() {
        for field in 0..256u32 {
            assert_eq!(swizzle(field), Swizzle::from_field(field), "{field:#04x}");
        }
        for field in 0..16u32 {
            assert_eq!(
                write_mask(field),
                WriteMask::from_field(field),
                "{field:#x}"
            );
        }
        for code in 1..4u32 {
            assert_eq!(
                Some(REGISTER_TYPES[code as usize]),
                RegisterType::from_code(code)
            );
        }
    }

    /// With several faults in one slot, the first in the documented order is reported.
    #[test]
    fn first_fault_is_reported() {
        assert!(decode_instruction(CUBE, 0).is_ok());
        let with = |f: &dyn Fn(&mut [u32; 4])| {
            let mut w = CUBE;
            f(&mut w);
            decode_instruction(w, 7)
        };
        // D0 bit 28 and vector opcode 0x1F (D1 22–26).
        assert_eq!(
            with(&|w| {
                w[0] |= 1 << 28;
                w[1] |= 0x1F << 22;
            }),
            Err(VertexDecodeError::UnsupportedBits {
                slot: 7,
                mask: 1 << 28
            })
        );
        // Vector opcode 0x1A and scalar opcode 0x15 (D1 27–31).
        assert_eq!(
            with(&|w| w[1] = (w[1] & !(0x3FF << 22)) | (0x1A << 22) | (0x15 << 27)),
            Err(VertexDecodeError::UnsupportedVectorOpcode {
                slot: 7,
                code: 0x1A
            })
        );
        // Scalar opcode 0x15 and src0 type 0 (src0 = D1 0–7 : D2 23–31, type in D2 23–24).
        assert_eq!(
            with(&|w| {
                w[1] |= 0x15 << 27;
                w[2] &= !(3 << 23);
            }),
            Err(VertexDecodeError::UnsupportedScalarOpcode {
                slot: 7,
                code: 0x15
            })
        );
        // src1 (type in D2 6–7) and src2 (type in D3 21–22) of type 0: src1 is reported.
        assert_eq!(
            with(&|w| {
                w[2] &= !(3 << 6);
                w[3] &= !(3 << 21);
            }),
            Err(VertexDecodeError::InvalidSourceType {
                slot: 7,
                operand: 1
            })
        );
    }

    /// BRI (scalar 0x09): target = D0 bit 23 << 9 | D2 0–5 << 3 | D3 29–31.
    #[test]
    fn branch_target_limit() {
        let bri = |d2_low: u32| {
            let mut w = CUBE;
            w[0] |= 1 << 23;
            w[1] = (w[1] & !(0x1F << 27)) | (0x09 << 27);
            w[2] = (w[2] & !0x3F) | d2_low;
            w
        };
        // 512 + 3 * 8 + 3 = 539: inside the 544 slots.
        let i = decode_instruction(bri(3), 0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(i.branch_target(), Some(539));
        // 512 + 5 * 8 + 3 = 555.
        assert_eq!(
            decode_instruction(bri(5), 4),
            Err(VertexDecodeError::BranchOutOfRange {
                slot: 4,
                target: 555,
                limit: MEMORY_SLOTS
            })
        );
    }

    #[test]
    fn bytes_and_words_agree() {
        let words: Vec<u32> = CUBE.iter().chain(CUBE.iter()).copied().collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(decode_bytes(&bytes), decode_words(&words));
        assert_eq!(decode_bytes(&bytes).map(|p| p.instructions.len()), Ok(2));
        assert_eq!(decode_bytes(&[]), Err(VertexDecodeError::Empty));
    }
}
