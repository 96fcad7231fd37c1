//! The typed vertex instruction ([`VertexInstruction`]): one 16-byte slot, dual-issued to the
//! vector and the scalar unit, and the program ([`VertexProgram`]) that holds them.
//!
//! Every bit of the four words is represented (lossless: `encode(decode(w)) == w` for every
//! accepted `w`). Fields that alias others — the branch target, the BRB/CLB boolean index and
//! flag, the TXL texture unit — are not stored twice; they are derived from the operand bits by
//! [`VertexInstruction::branch_target`], [`VertexInstruction::boolean_branch`] and
//! [`VertexInstruction::texture_unit`], and appear in the JSON form.

use super::fields;
use super::opcode::{ScalarOpcode, VectorOpcode};
use super::operand::{
    AddressRegister, Component, ConditionTest, ConditionUpdate, InputAttribute, OutputRegister,
    RegisterType, Relation, Source, Swizzle, WriteMask,
};
use serde::ser::SerializeStruct;
use serde::Serialize;

/// Condition-code register selected by D0 bit 25, used by both the test and the update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CcRegister {
    /// CC0.
    CC0,
    /// CC1.
    CC1,
}

/// BRB/CLB operands: boolean constant index (D3 bits 23–27) and "branch if true" (D3 bit 28)
/// (RPCS3 `D3.branch_index`, `D3.brb_cond_true`; the booleans are `transform_branch_bits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct BooleanBranch {
    /// Bit index into the transform branch bits.
    pub index: u8,
    /// Taken when the bit is set (`true`) or clear (`false`).
    pub if_true: bool,
}

/// One decoded vertex-program slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VertexInstruction {
    /// Slot number: index in the decoded slice, or the absolute slot in the 544-slot transform
    /// program memory for [`super::decode_from_memory`].
    pub slot: usize,
    /// Vector opcode (D1 bits 22–26).
    pub vector: VectorOpcode,
    /// Scalar opcode (D1 bits 27–31).
    pub scalar: ScalarOpcode,
    /// Vector destination temp (D0 bits 15–20; 0x3F = none).
    pub vec_dst_temp: Option<u8>,
    /// Scalar destination temp (D3 bits 7–12; 0x3F = none).
    pub sca_dst_temp: Option<u8>,
    /// The single output register field (D3 bits 2–6; 0x1F = none).
    pub output: Option<OutputRegister>,
    /// D0 bit 30: the vector op writes [`Self::output`]; otherwise the scalar op does.
    pub vec_result: bool,
    /// Vector write mask (D3 bits 13–16).
    pub vec_mask: WriteMask,
    /// Scalar write mask (D3 bits 17–20).
    pub sca_mask: WriteMask,
    /// src0, src1, src2.
    pub sources: [Source; 3],
    /// The one input attribute the instruction can read (D1 bits 8–11).
    pub input: InputAttribute,
    /// The one constant the instruction can read (D1 bits 12–21, 10 bits).
    pub const_index: u16,
    /// D3 bit 1: constant index is relative to [`Self::address`].
    pub index_const: bool,
    /// D0 bit 27: input index is relative to [`Self::address`].
    pub index_input: bool,
    /// Address register and component used for relative addressing.
    pub address: AddressRegister,
    /// Condition test (D0 bits 2–13).
    pub condition: ConditionTest,
    /// Condition-code update enables.
    pub cc_update: ConditionUpdate,
    /// CC register tested and updated.
    pub cc_register: CcRegister,
    /// D0 bit 26: clamp the result to [0, 1].
    pub saturate: bool,
    /// D3 bit 0: last instruction.
    pub end: bool,
}

impl VertexInstruction {
    /// An idle slot: NOP on both units, no destination, condition test off, every source
    /// reading `v[0]` with the identity swizzle (what Sony's compiler leaves in unused source
    /// fields; register type 0 would be invalid). A starting point for building instructions.
    pub fn idle(slot: usize) -> VertexInstruction {
        let v0 = Source {
            reg_type: RegisterType::Input,
            temp_index: 0,
            swizzle: Swizzle::IDENTITY,
            negate: false,
            abs: false,
        };
        VertexInstruction {
            slot,
            vector: VectorOpcode::Nop,
            scalar: ScalarOpcode::Nop,
            vec_dst_temp: None,
            sca_dst_temp: None,
            output: None,
            vec_result: false,
            vec_mask: WriteMask(0),
            sca_mask: WriteMask(0),
            sources: [v0, v0, v0],
            input: InputAttribute(0),
            const_index: 0,
            index_const: false,
            index_input: false,
            address: AddressRegister {
                register: 0,
                component: Component::X,
            },
            condition: ConditionTest {
                enabled: false,
                relation: Relation::TR,
                swizzle: Swizzle::IDENTITY,
            },
            cc_update: ConditionUpdate {
                enable_0: false,
                enable_1: false,
            },
            cc_register: CcRegister::CC0,
            saturate: false,
            end: false,
        }
    }

    /// Four words as they lie in memory (big-endian u32 values, host order here).
    pub fn to_words(&self) -> [u32; 4] {
        super::encode::encode_instruction(self)
    }

    /// The immediate address held in the iaddr fields (D0 bit 23, D2 bits 0–5, D3 bits 29–31),
    /// whatever the opcode.
    pub fn raw_branch_address(&self) -> u16 {
        let w = self.to_words();
        // 10 bits at most: iaddrh2 (1) + iaddrh (6) + iaddrl (3).
        u16::try_from(fields::branch_address(&w)).unwrap_or(u16::MAX)
    }

    /// Absolute branch/call target for BRI, CAL, CLI, BRB and CLB; `None` for other opcodes
    /// (BRA jumps to the address register).
    pub fn branch_target(&self) -> Option<u16> {
        self.scalar
            .has_immediate_target()
            .then(|| self.raw_branch_address())
    }

    /// BRB/CLB boolean index and flag; `None` for other opcodes.
    pub fn boolean_branch(&self) -> Option<BooleanBranch> {
        if !matches!(self.scalar, ScalarOpcode::Brb | ScalarOpcode::Clb) {
            return None;
        }
        let w = self.to_words();
        Some(BooleanBranch {
            index: u8::try_from(fields::BRANCH_INDEX.get(&w)).unwrap_or(u8::MAX),
            if_true: fields::BRB_COND_TRUE.get(&w) == 1,
        })
    }

    /// TXL texture unit (D2 bits 8–9); `None` for other vector opcodes.
    pub fn texture_unit(&self) -> Option<u8> {
        if self.vector != VectorOpcode::Txl {
            return None;
        }
        let w = self.to_words();
        Some(u8::try_from(fields::TEX_NUM.get(&w)).unwrap_or(u8::MAX))
    }

    /// The source operands (src0, src1, src2) the active units read: the vector opcode's,
    /// and src2 for a scalar opcode that reads it.
    pub fn operands_read(&self) -> [bool; 3] {
        let mut reads = if self.vector_active() {
            self.vector.reads()
        } else {
            [false; 3]
        };
        reads[2] |= self.scalar_active() && self.scalar.reads_src2();
        reads
    }

    /// Whether the vector unit does anything.
    pub fn vector_active(&self) -> bool {
        self.vector != VectorOpcode::Nop
    }

    /// Whether the scalar unit does anything.
    pub fn scalar_active(&self) -> bool {
        self.scalar != ScalarOpcode::Nop
    }

    /// The output register it writes, if any: the vector unit's when it is the output
    /// writer (`vec_result`, not ARL), else the scalar unit's (not a flow operation), each
    /// only when active, and none under the condition FL, which writes nothing (RPCS3
    /// `SetDST` returns before it; rsx-microcode.md B.8).
    pub fn output_written(&self) -> Option<u8> {
        let o = self.output?;
        if self.condition.relation == Relation::FL {
            return None;
        }
        let writes = if self.vec_result {
            self.vector_active() && self.vector != VectorOpcode::Arl
        } else {
            self.scalar_active() && !self.scalar.is_flow()
        };
        writes.then_some(o.0)
    }
}

impl Serialize for VertexInstruction {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("VertexInstruction", 24)?;
        st.serialize_field("slot", &self.slot)?;
        st.serialize_field("vector", &self.vector)?;
        st.serialize_field("scalar", &self.scalar)?;
        st.serialize_field("scalar_mesa", &self.scalar.mesa_name())?;
        st.serialize_field("vec_dst_temp", &self.vec_dst_temp)?;
        st.serialize_field("sca_dst_temp", &self.sca_dst_temp)?;
        st.serialize_field("output", &self.output)?;
        st.serialize_field("vec_result", &self.vec_result)?;
        st.serialize_field("vec_mask", &self.vec_mask)?;
        st.serialize_field("sca_mask", &self.sca_mask)?;
        st.serialize_field("sources", &self.sources)?;
        st.serialize_field("input", &self.input)?;
        st.serialize_field("input_index", &self.input.0)?;
        st.serialize_field("const_index", &self.const_index)?;
        st.serialize_field("index_const", &self.index_const)?;
        st.serialize_field("index_input", &self.index_input)?;
        st.serialize_field("address", &self.address)?;
        st.serialize_field("condition", &self.condition)?;
        st.serialize_field("cc_update", &self.cc_update)?;
        st.serialize_field("cc_register", &self.cc_register)?;
        st.serialize_field("saturate", &self.saturate)?;
        st.serialize_field("end", &self.end)?;
        st.serialize_field("branch_target", &self.branch_target())?;
        st.serialize_field("boolean_branch", &self.boolean_branch())?;
        st.serialize_field("texture_unit", &self.texture_unit())?;
        st.end()
    }
}

/// A decoded vertex program: its instructions in slot order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VertexProgram {
    /// Entry slot: 0 for [`super::decode_words`], the `start_slot` for
    /// [`super::decode_from_memory`].
    pub start_slot: usize,
    /// Instructions, ascending by slot. From memory, only reachable slots are present.
    pub instructions: Vec<VertexInstruction>,
}

impl VertexProgram {
    /// The input attributes the program reads, bit n = `v[n]` (all sixteen when one is read
    /// as `v[A0 + n]`): the attribute of every instruction with an input-type source among
    /// the operands its active units read.
    pub fn inputs_read(&self) -> u32 {
        let mut read = 0u32;
        for i in &self.instructions {
            let reads_input = i
                .sources
                .iter()
                .zip(i.operands_read())
                .any(|(s, r)| r && s.reg_type == RegisterType::Input);
            if reads_input {
                read |= if i.index_input {
                    0xFFFF
                } else {
                    1 << (i.input.0 & 15)
                };
            }
        }
        read
    }

    /// The program with its slots numbered from `slot`, where it is loaded and starts
    /// (branch targets are absolute slots): for microcode decoded from a file whose
    /// container or assembly states its load slot.
    pub fn loaded_at(mut self, slot: usize) -> VertexProgram {
        let shift = slot.saturating_sub(self.start_slot);
        for i in &mut self.instructions {
            i.slot += shift;
        }
        self.start_slot += shift;
        self
    }
}

impl Serialize for VertexProgram {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("VertexProgram", 3)?;
        st.serialize_field("stage", "vertex")?;
        st.serialize_field("start_slot", &self.start_slot)?;
        st.serialize_field("instructions", &self.instructions)?;
        st.end()
    }
}
