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

/// One operand of one instruction that reads a constant.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantRead {
    /// The instruction's slot.
    pub slot: usize,
    /// The operation reading it (`DP4`, `MAD`, the scalar unit's `RSQ`...).
    pub op: &'static str,
    /// Whether the vector unit reads it (else the scalar unit).
    pub vector: bool,
    /// The register.
    pub register: Register,
    /// The components the swizzle selects, in order (`xxxx` reads x alone).
    pub swizzle: Swizzle,
    /// For a product (DP3, DP4, DPH, MUL, MAD): the other factor.
    pub other: Option<Factor>,
    /// The instruction as the disassembly writes it, without its slot number.
    pub text: String,
}

/// The other factor of a product that reads a constant.
#[derive(Clone, Debug, PartialEq)]
pub struct Factor {
    /// As the disassembly writes it, swizzle included (`v[POS]`, `R1.xyz`): two dot
    /// products with the same vector agree here.
    pub text: String,
    /// Its register alone, without swizzle, sign or abs (`v[POS]`): the vector a column
    /// form scales component by component.
    pub register: String,
    /// The one component its swizzle selects for all four, if it does (`v[POS].yyyy`).
    pub replicated: Option<Component>,
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
fn other_factor(i: &VertexInstruction, operand: usize) -> Option<Factor> {
    let products = matches!(
        i.vector,
        VectorOpcode::Dp3
            | VectorOpcode::Dp4
            | VectorOpcode::Dph
            | VectorOpcode::Mul
            | VectorOpcode::Mad
    );
    let other = match operand {
        0 if products => i.sources[1],
        1 if products => i.sources[0],
        _ => return None,
    };
    if other.reg_type == RegisterType::Constant {
        return None;
    }
    let plain = Source {
        swizzle: Swizzle::IDENTITY,
        negate: false,
        abs: false,
        ..other
    };
    let [a, b, c, d] = other.swizzle.0;
    Some(Factor {
        text: operand_text(i, &other),
        register: operand_text(i, &plain),
        replicated: (a == b && b == c && c == d).then_some(a),
    })
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
