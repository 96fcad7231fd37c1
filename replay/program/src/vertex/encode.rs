//! Encoding [`VertexInstruction`]s back to words: the inverse of [`super::decode`].
//!
//! Values wider than their field are truncated to it (a temp index of 64 encodes as 0,
//! `Some(63)` as "none"); `decode(encode(x)) == x` holds for every `x` the decoder produces.

use super::fields::{self as f};
use super::instruction::{CcRegister, VertexInstruction, VertexProgram};
use super::operand::Source;
use super::MEMORY_SLOTS;

fn operand_bits(s: &Source) -> u32 {
    (s.reg_type.code() << f::OP_REG_TYPE_SHIFT)
        | ((u32::from(s.temp_index) & 0x3F) << f::OP_TEMP_SHIFT)
        | (s.swizzle.to_field() << f::OP_SWZ_SHIFT)
        | (u32::from(s.negate) << f::OP_NEG_SHIFT)
}

/// Encode one instruction into its four words.
pub fn encode_instruction(i: &VertexInstruction) -> [u32; 4] {
    let mut w = [0u32; 4];
    let o = |v: Option<u8>, none: u32| v.map_or(none, u32::from);
    f::ADDR_SWZ.put(&mut w, i.address.component.code());
    f::COND_SWZ.put(&mut w, i.condition.swizzle.to_field());
    f::COND.put(&mut w, i.condition.relation.code());
    f::COND_TEST_ENABLE.put(&mut w, u32::from(i.condition.enabled));
    f::COND_UPDATE_0.put(&mut w, u32::from(i.cc_update.enable_0));
    f::VEC_DST_TMP.put(&mut w, o(i.vec_dst_temp, f::NO_TEMP));
    for (n, s) in i.sources.iter().enumerate() {
        f::SRC_ABS[n].put(&mut w, u32::from(s.abs));
        f::put_operand(&mut w, n, operand_bits(s));
    }
    f::ADDR_REG_SEL.put(&mut w, u32::from(i.address.register));
    f::COND_REG_SEL.put(&mut w, u32::from(i.cc_register == CcRegister::CC1));
    f::SATURATE.put(&mut w, u32::from(i.saturate));
    f::INDEX_INPUT.put(&mut w, u32::from(i.index_input));
    f::COND_UPDATE_1.put(&mut w, u32::from(i.cc_update.enable_1));
    f::VEC_RESULT.put(&mut w, u32::from(i.vec_result));
    f::INPUT_SRC.put(&mut w, u32::from(i.input.0));
    f::CONST_SRC.put(&mut w, u32::from(i.const_index));
    f::VEC_OPCODE.put(&mut w, i.vector.code());
    f::SCA_OPCODE.put(&mut w, i.scalar.code());
    f::END.put(&mut w, u32::from(i.end));
    f::INDEX_CONST.put(&mut w, u32::from(i.index_const));
    f::DST.put(&mut w, i.output.map_or(f::NO_OUTPUT, |r| u32::from(r.0)));
    f::SCA_DST_TMP.put(&mut w, o(i.sca_dst_temp, f::NO_TEMP));
    f::VEC_WRITEMASK.put(&mut w, i.vec_mask.to_field());
    f::SCA_WRITEMASK.put(&mut w, i.sca_mask.to_field());
    w
}

/// Set an instruction's immediate branch target (bits shared with src2 and its abs flag:
/// iaddrh2 = D0 bit 23, iaddrh = D2 bits 0–5, iaddrl = D3 bits 29–31).
pub fn set_branch_target(i: &mut VertexInstruction, target: u16) {
    let t = u32::from(target);
    let mut w = encode_instruction(i);
    f::IADDRH2.put(&mut w, t >> 9);
    f::IADDRH.put(&mut w, t >> 3);
    f::IADDRL.put(&mut w, t);
    let src2 = f::get_operand(&w, 2);
    let s = &mut i.sources[2];
    s.abs = f::SRC_ABS[2].get(&w) == 1;
    s.temp_index = u8::try_from((src2 >> f::OP_TEMP_SHIFT) & 0x3F).unwrap_or(0);
    s.swizzle = super::operand::Swizzle::from_field((src2 >> f::OP_SWZ_SHIFT) & 0xFF);
    s.negate = (src2 >> f::OP_NEG_SHIFT) & 1 == 1;
}

/// Encode a program's instructions one after another (slot numbers are not encoded).
pub fn encode(p: &VertexProgram) -> Vec<u32> {
    p.instructions.iter().flat_map(encode_instruction).collect()
}

/// The words of every slot from the program's lowest through its highest, an idle slot
/// ([`VertexInstruction::idle`]) where it has none: what to load at its first slot for every
/// instruction to lie at its own (a program decoded from memory, or assembled, can skip
/// slots).
pub fn encode_span(p: &VertexProgram) -> Vec<u32> {
    let slots = p.instructions.iter().map(|i| i.slot);
    let (Some(first), Some(last)) = (slots.clone().min(), slots.max()) else {
        return Vec::new();
    };
    let span = (last - first + 1).min(MEMORY_SLOTS);
    let idle = VertexInstruction::idle(0).to_words();
    let mut words: Vec<u32> = std::iter::repeat_n(idle, span).flatten().collect();
    for i in &p.instructions {
        let at = (i.slot - first) * 4;
        if let Some(dst) = words.get_mut(at..at + 4) {
            dst.copy_from_slice(&encode_instruction(i));
        }
    }
    words
}

/// Vertex microcode's bytes (big-endian words, as a `.vpo` stores them) as words; a tail of
/// fewer than four bytes is left out.
pub fn words_of(be: &[u8]) -> Vec<u32> {
    be.chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Encode to big-endian bytes.
pub fn encode_bytes(p: &VertexProgram) -> Vec<u8> {
    encode(p).into_iter().flat_map(u32::to_be_bytes).collect()
}

/// Place each instruction at its slot in a zeroed 544-slot transform program memory
/// (the inverse of [`super::decode_from_memory`]). Instructions whose slot lies outside the
/// memory are skipped.
pub fn encode_memory(p: &VertexProgram) -> Vec<u32> {
    let mut mem = vec![0u32; MEMORY_SLOTS * 4];
    for i in &p.instructions {
        let at = i.slot.checked_mul(4);
        if let Some(dst) = at.and_then(|a| mem.get_mut(a..a.checked_add(4)?)) {
            dst.copy_from_slice(&encode_instruction(i));
        }
    }
    mem
}
