//! Every transform-constant read of a vertex program: which unit reads which register (or
//! which base relative to which address register), with which operation and beside which
//! other operand. The groups ([`super::groups`]) are made from these.

use rsxtrace_program::vertex::{
    operand_text, Component, RegisterType, Source, Swizzle, VectorOpcode, VertexInstruction,
    VertexProgram,
};
use serde::Serialize;

/// A constant register as an instruction names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Register {
    /// `Some((n, component))` for `c[An.component + index]`: relative to an address register.
    pub relative: Option<(u8, char)>,
    /// The register, or the base added to the address register.
    pub index: u16,
}

impl std::fmt::Display for Register {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.relative {
            Some((n, c)) => write!(f, "c[A{n}.{c}+{}]", self.index),
            None => write!(f, "c[{}]", self.index),
        }
    }
}

/// One operand of one instruction that reads a constant.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantRead {
    /// The instruction's slot.
    pub slot: usize,
    /// The operation reading it (`DP4`, `MAD`, the scalar unit's `RSQ`...).
    pub op: &'static str,
    /// Whether the vector unit reads it (else the scalar unit).
    pub vector: bool,
    /// Which source operand (0, 1, 2).
    pub operand: usize,
    /// The register.
    pub register: Register,
    /// The components the swizzle selects, in order (`xxxx` reads x alone).
    pub swizzle: Swizzle,
    /// For a product (DP3, DP4, DPH, MUL, MAD): the other factor, with its swizzle.
    pub other: Option<Source>,
    /// The instruction as the disassembly writes it.
    pub text: String,
}

impl ConstantRead {
    /// Whether the swizzle selects one component for all four (a scalar read).
    pub fn replicated(&self) -> Option<Component> {
        let [a, b, c, d] = self.swizzle.0;
        (a == b && b == c && c == d).then_some(a)
    }
}

/// The register instruction `i` names through a constant-type operand.
fn register(i: &VertexInstruction) -> Register {
    Register {
        relative: i
            .index_const
            .then_some((i.address.register, i.address.component.letter())),
        index: i.const_index,
    }
}

/// The other factor of a product reading a constant through `operand`.
fn other_factor(i: &VertexInstruction, operand: usize) -> Option<Source> {
    match (i.vector, operand) {
        (VectorOpcode::Dp3 | VectorOpcode::Dp4 | VectorOpcode::Dph, 0) => Some(i.sources[1]),
        (VectorOpcode::Dp3 | VectorOpcode::Dp4 | VectorOpcode::Dph, 1) => Some(i.sources[0]),
        (VectorOpcode::Mul | VectorOpcode::Mad, 0) => Some(i.sources[1]),
        (VectorOpcode::Mul | VectorOpcode::Mad, 1) => Some(i.sources[0]),
        _ => None,
    }
    .filter(|s| s.reg_type != RegisterType::Constant)
}

/// The operand's register without its swizzle, sign or abs, as the disassembly names it: two
/// factors are the same vector when these agree.
pub fn register_name(i: &VertexInstruction, s: &Source) -> String {
    let plain = Source {
        swizzle: Swizzle::IDENTITY,
        negate: false,
        abs: false,
        ..*s
    };
    operand_text(i, &plain)
}

/// The instruction as the disassembly writes it, without its slot number.
pub fn instruction_text(i: &VertexInstruction) -> String {
    let text = i.to_string();
    match text.split_once(": ") {
        Some((slot, rest)) if slot.trim().parse::<usize>().is_ok() => rest.to_string(),
        _ => text,
    }
}

/// Every constant read of `program`'s active units, in slot order.
pub fn constant_reads(program: &VertexProgram) -> Vec<ConstantRead> {
    let mut reads = Vec::new();
    for i in &program.instructions {
        let text = instruction_text(i);
        let vector_reads = if i.vector_active() {
            i.vector.reads()
        } else {
            [false; 3]
        };
        for (operand, s) in i.sources.iter().enumerate() {
            if s.reg_type != RegisterType::Constant {
                continue;
            }
            if vector_reads[operand] {
                reads.push(ConstantRead {
                    slot: i.slot,
                    op: i.vector.name(),
                    vector: true,
                    operand,
                    register: register(i),
                    swizzle: s.swizzle,
                    other: other_factor(i, operand),
                    text: text.clone(),
                });
            }
            if operand == 2 && i.scalar_active() && i.scalar.reads_src2() {
                reads.push(ConstantRead {
                    slot: i.slot,
                    op: i.scalar.name(),
                    vector: false,
                    operand,
                    register: register(i),
                    swizzle: s.swizzle,
                    other: None,
                    text: text.clone(),
                });
            }
        }
    }
    reads
}

/// The instructions that write address register `n` (ARL, ARR, ARA name it through their
/// destination temp field, as the disassembly shows), with their text.
pub fn address_writers(program: &VertexProgram, n: u8) -> Vec<(usize, String)> {
    program
        .instructions
        .iter()
        .filter(|i| {
            matches!(
                i.vector,
                VectorOpcode::Arl | VectorOpcode::Arr | VectorOpcode::Ara
            ) && i.vec_dst_temp == Some(n)
        })
        .map(|i| (i.slot, instruction_text(i)))
        .collect()
}
