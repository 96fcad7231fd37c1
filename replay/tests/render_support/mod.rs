//! Programs the render tests share: the ps3autotests `MOV R0, f[COL0]` fragment program (the
//! builder's `FRAGMENT_MOV_COL0`, rsx-microcode.md B.1) and its `TEX R0, f[TEX0], TEX0`
//! variant.
#![allow(dead_code)]

use rsxtrace_program::fragment::{decode, encode, FpOpcode, InputAttribute};

pub use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0 as FP_MOV_COL0;

/// `TEX R0, f[TEX0], TEX0; END`: `MOV R0, f[COL0]` with the opcode and input changed.
pub fn tex_program() -> Vec<u8> {
    let mut p = decode(&FP_MOV_COL0).unwrap();
    let insn = &mut p.instructions[0];
    insn.opcode = FpOpcode::Tex;
    insn.input = InputAttribute(4);
    insn.texture_unit = 0;
    encode(&p)
}
