//! Vertex-program microcode: decode, encode, disassemble.
//!
//! A vertex program is a sequence of 16-byte slots, each four big-endian words D0–D3 with no
//! half swap (unlike fragment programs). Each slot dual-issues one vector-unit and one
//! scalar-unit operation. Field layout and opcode tables: rsx-microcode.md B.8, after RPCS3
//! `RSXVertexProgram.h` and PSL1GHT/Mesa `nv40_vertprog.h`.
//!
//! Brief overview:
//! - [`VertexInstruction`] / [`VertexProgram`]: the typed, lossless IR ([`instruction`]).
//! - [`decode_words`], [`decode_bytes`]: straight slices; [`decode_from_memory`]: the program
//!   reachable from a start slot in the 544-slot transform program memory ([`extent`] documents
//!   the rule).
//! - [`encode`], [`encode_bytes`], [`encode_memory`]: the inverse.
//! - [`disassemble`] and `Display`: text; [`to_json`] / `serde::Serialize`: JSON
//!   `{"stage": "vertex", "start_slot": .., "instructions": [..]}`.
//!
//! ```
//! use rsxtrace_program::vertex;
//! // MOV o[HPOS], v[POS]  (the first slot of the ps3autotests cube VP, with END set)
//! let p = vertex::decode_words(&[0x401f9c6c, 0x0040000d, 0x8106c083, 0x6041ff81]).unwrap();
//! assert_eq!(vertex::disassemble(&p), "000: MOV o[HPOS], v[POS]; END\n");
//! assert_eq!(vertex::encode(&p), [0x401f9c6c, 0x0040000d, 0x8106c083, 0x6041ff81]);
//! ```

pub mod assemble;
mod decode;
mod disasm;
mod encode;
mod error;
pub mod extent;
mod fields;
pub mod instruction;
pub mod memory_slots;
mod opcode;
mod operand;

pub use crate::assembly::{assembly_text, AssembleError};
pub use assemble::assemble;
pub use decode::{decode_bytes, decode_instruction, decode_words};
pub use disasm::{disassemble, operand_text};
pub use encode::{
    encode, encode_bytes, encode_instruction, encode_memory, encode_span, set_branch_target,
    words_of,
};
pub use error::VertexDecodeError;
pub use extent::{decode_from_memory, decode_image};
pub use instruction::{BooleanBranch, CcRegister, VertexInstruction, VertexProgram};
pub use memory_slots::{memory_slots, MemorySlot};
pub use opcode::{ScalarOpcode, VectorOpcode};
pub use operand::{
    AddressRegister, Component, ConditionTest, ConditionUpdate, InputAttribute, OutputRegister,
    RegisterType, Relation, Source, Swizzle, WriteMask,
};

/// Slots in the transform program memory (RPCS3 `program_util.h`
/// `max_vertex_program_instructions = 544`).
pub const MEMORY_SLOTS: usize = 544;

/// The program as a JSON value: `{"stage": "vertex", "start_slot": n, "instructions": [...]}`,
/// one object per instruction with `slot`, `vector`, `scalar` (names; `"NOP"` when idle) and
/// every decoded field, plus the derived `branch_target`, `boolean_branch` and `texture_unit`.
pub fn to_json(p: &VertexProgram) -> serde_json::Value {
    serde_json::to_value(p).unwrap_or(serde_json::Value::Null)
}
