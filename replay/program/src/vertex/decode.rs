//! Decoding one slot's four words into a [`VertexInstruction`], and straight-line slices of
//! words or big-endian bytes into a [`VertexProgram`].
//!
//! Field layout: [`super::fields`] (RPCS3 `RSXVertexProgram.h`, rsx-microcode.md B.8).

use super::error::VertexDecodeError;
use super::fields::{self as f, Field};
use super::instruction::{CcRegister, VertexInstruction, VertexProgram};
use super::opcode::{ScalarOpcode, VectorOpcode};
use super::operand::{
    AddressRegister, Component, ConditionTest, ConditionUpdate, InputAttribute, OutputRegister,
    RegisterType, Relation, Source, Swizzle, WriteMask,
};
use super::MEMORY_SLOTS;

fn flag(field: Field, w: &[u32; 4]) -> bool {
    field.get(w) == 1
}

/// Small fields (≤ 10 bits) fit their integer types; the fallbacks are unreachable.
fn small_u8(v: u32) -> u8 {
    u8::try_from(v).unwrap_or(u8::MAX)
}

fn optional(v: u32, none: u32) -> Option<u8> {
    (v != none).then(|| small_u8(v))
}

fn decode_source(w: &[u32; 4], n: usize, slot: usize) -> Result<Source, VertexDecodeError> {
    let raw = f::get_operand(w, n);
    let reg_type = RegisterType::from_code(raw >> f::OP_REG_TYPE_SHIFT).ok_or(
        VertexDecodeError::InvalidSourceType {
            slot,
            operand: small_u8(u32::try_from(n).unwrap_or(0)),
        },
    )?;
    Ok(Source {
        reg_type,
        temp_index: small_u8((raw >> f::OP_TEMP_SHIFT) & 0x3F),
        swizzle: Swizzle::from_field((raw >> f::OP_SWZ_SHIFT) & 0xFF),
        negate: (raw >> f::OP_NEG_SHIFT) & 1 == 1,
        abs: flag(f::SRC_ABS[n], w),
    })
}

/// Decode one slot. `slot` is recorded in the instruction and named in errors. Branch targets
/// are checked against the 544-slot transform program memory.
pub fn decode_instruction(
    words: [u32; 4],
    slot: usize,
) -> Result<VertexInstruction, VertexDecodeError> {
    let w = &words;
    let unknown = w[0] & f::D0_UNKNOWN_MASK;
    if unknown != 0 {
        return Err(VertexDecodeError::UnsupportedBits {
            slot,
            mask: unknown,
        });
    }
    let vcode = f::VEC_OPCODE.get(w);
    let vector = VectorOpcode::from_code(vcode)
        .ok_or(VertexDecodeError::UnsupportedVectorOpcode { slot, code: vcode })?;
    let scode = f::SCA_OPCODE.get(w);
    let scalar = ScalarOpcode::from_code(scode)
        .ok_or(VertexDecodeError::UnsupportedScalarOpcode { slot, code: scode })?;
    let sources = [
        decode_source(w, 0, slot)?,
        decode_source(w, 1, slot)?,
        decode_source(w, 2, slot)?,
    ];
    if scalar.has_immediate_target() {
        let target = f::branch_address(w);
        if usize::try_from(target).map_or(true, |t| t >= MEMORY_SLOTS) {
            return Err(VertexDecodeError::BranchOutOfRange {
                slot,
                target: u16::try_from(target).unwrap_or(u16::MAX),
                limit: MEMORY_SLOTS,
            });
        }
    }
    Ok(VertexInstruction {
        slot,
        vector,
        scalar,
        vec_dst_temp: optional(f::VEC_DST_TMP.get(w), f::NO_TEMP),
        sca_dst_temp: optional(f::SCA_DST_TMP.get(w), f::NO_TEMP),
        output: optional(f::DST.get(w), f::NO_OUTPUT).map(OutputRegister),
        vec_result: flag(f::VEC_RESULT, w),
        vec_mask: WriteMask::from_field(f::VEC_WRITEMASK.get(w)),
        sca_mask: WriteMask::from_field(f::SCA_WRITEMASK.get(w)),
        sources,
        input: InputAttribute(small_u8(f::INPUT_SRC.get(w))),
        const_index: u16::try_from(f::CONST_SRC.get(w)).unwrap_or(u16::MAX),
        index_const: flag(f::INDEX_CONST, w),
        index_input: flag(f::INDEX_INPUT, w),
        address: AddressRegister {
            register: small_u8(f::ADDR_REG_SEL.get(w)),
            component: Component::from_code(f::ADDR_SWZ.get(w)),
        },
        condition: ConditionTest {
            enabled: flag(f::COND_TEST_ENABLE, w),
            relation: Relation::from_code(f::COND.get(w)),
            swizzle: Swizzle::from_field(f::COND_SWZ.get(w)),
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
    let instructions = chunks
        .enumerate()
        .map(|(slot, c)| decode_instruction([c[0], c[1], c[2], c[3]], slot))
        .collect::<Result<Vec<_>, _>>()?;
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
    let words: Vec<u32> = be
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    decode_words(&words)
}
