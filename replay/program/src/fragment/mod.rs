//! Fragment-program microcode (NV40 FP with the RSX half-word swap): decode, encode,
//! disassemble and JSON.
//!
//! - [`opcode`] holds the opcode table ([`FpOpcode`]).
//! - [`ir`] holds the typed instruction ([`FragmentInstruction`]) and program ([`FragmentProgram`]).
//! - [`decode`](mod@decode) turns guest bytes to IR ([`decode()`], [`decode_until_end`],
//!   [`decode_words`], [`program_start`]).
//! - [`encode`](mod@encode) turns IR into guest bytes ([`encode()`], [`encode_words`]).
//! - [`disasm`] writes text ([`disassemble`]); [`assemble`](mod@assemble) reads it back
//!   ([`assemble()`]); [`json`] the `serde_json` form ([`to_json`]).
//! - [`error`] holds [`FragmentDecodeError`].
//!
//! Encodings: `shared/reference/rsx-microcode.md` B.1–B.7.
//!
//! ```
//! use rsxtrace_program::fragment::{decode, disassemble};
//! // primitives.fpo: MOV R0, f[COL0] with END (rsx-microcode.md B.1).
//! let ucode = [0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d,
//!              0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00, 0x3f, 0xe1];
//! let program = decode(&ucode).unwrap();
//! assert_eq!(disassemble(&program), "   0: MOVR R0, f[COL0]; END\n");
//! ```

pub mod assemble;
pub mod decode;
pub mod disasm;
pub mod encode;
pub mod error;
pub mod ir;
pub mod json;
pub mod opcode;

pub use assemble::{assemble, assembly_text, AssembleError};
pub use decode::{decode, decode_until_end, decode_words, program_start};
pub use disasm::disassemble;
pub use encode::{encode, encode_instruction, encode_words};
pub use error::{FlowField, FlowTargetProblem, FragmentDecodeError};
pub use ir::*;
pub use json::to_json;
pub use opcode::FpOpcode;
