//! The slot table the interpreter executes from ([`ProgramTable`]): every slot of the decoded
//! program, plus every other slot of the transform program memory decoded on the side, so that
//! a branch through the address register (BRA) can land on a slot the static walk did not
//! reach. Each ready slot carries the fields the interpreter needs precomputed
//! ([`Prepared`]): swizzles as indices, masks as booleans, the branch target, the BRB/CLB bit
//! and the TXL unit (these alias other fields and are derived once here, not per vertex).

use rsxtrace_program::vertex::{
    memory_slots, BooleanBranch, MemorySlot, VertexDecodeError, VertexInstruction, VertexProgram,
    WriteMask,
};

/// One executable slot.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The decoded instruction.
    pub insn: VertexInstruction,
    /// Source swizzles as component indices (x = 0 .. w = 3), per source.
    pub swizzle: [[usize; 4]; 3],
    /// Condition swizzle as component indices.
    pub cc_swizzle: [usize; 4],
    /// Vector write mask per component (x..w).
    pub vec_mask: [bool; 4],
    /// Scalar write mask per component (x..w).
    pub sca_mask: [bool; 4],
    /// Immediate target of BRI, CAL, CLI, BRB, CLB.
    pub target: Option<u16>,
    /// BRB/CLB bit and polarity.
    pub boolean: Option<BooleanBranch>,
    /// TXL texture unit.
    pub texture_unit: Option<u8>,
    /// Which of src0..src2 the vector and scalar ops read (rsx-microcode.md B.8 "Operand
    /// slots": ADD is src0 + src2, scalar ops read src2).
    pub reads: [bool; 3],
}

fn mask(m: WriteMask) -> [bool; 4] {
    [0u8, 1, 2, 3].map(|c| (m.0 >> c) & 1 == 1)
}

impl Prepared {
    /// Precompute the derived fields of `insn`.
    pub fn new(insn: VertexInstruction) -> Self {
        let swz = |i: usize| insn.sources[i].swizzle.0.map(|c| c.code() as usize);
        let vec_reads = insn.vector.reads();
        let sca_reads = insn.scalar.reads_src2();
        Prepared {
            swizzle: [swz(0), swz(1), swz(2)],
            cc_swizzle: insn.condition.swizzle.0.map(|c| c.code() as usize),
            vec_mask: mask(insn.vec_mask),
            sca_mask: mask(insn.sca_mask),
            target: insn.branch_target(),
            boolean: insn.boolean_branch(),
            texture_unit: insn.texture_unit(),
            reads: [vec_reads[0], vec_reads[1], vec_reads[2] || sca_reads],
            insn,
        }
    }
}

/// What one slot holds.
#[derive(Clone, Debug)]
pub enum Slot {
    /// An instruction ready to run.
    Ready(Box<Prepared>),
    /// Words that do not decode; an error only if execution reaches them.
    Invalid(VertexDecodeError),
    /// No words at all (outside the program and the memory given).
    Empty,
}

/// Slot-indexed table of a program and its surrounding memory.
#[derive(Clone, Debug)]
pub struct ProgramTable {
    /// Entry slot.
    pub start: usize,
    /// Slots 0..len.
    pub slots: Vec<Slot>,
}

impl ProgramTable {
    /// Build from the decoded `program` (absolute slots) and the transform program memory
    /// `memory_words` (4 words per slot from slot 0; may be empty or shorter than 544 slots).
    /// Program instructions take precedence over the memory words at the same slot;
    /// instructions at slots beyond `max(544, instruction count)` are left out.
    pub fn build(program: &VertexProgram, memory_words: &[u32]) -> Self {
        let slots = memory_slots(program, memory_words)
            .into_iter()
            .map(|slot| match slot {
                MemorySlot::Instruction { insn, .. } => Slot::Ready(Box::new(Prepared::new(insn))),
                MemorySlot::Invalid(e) => Slot::Invalid(e),
                MemorySlot::Empty => Slot::Empty,
            })
            .collect();
        ProgramTable {
            start: program.start_slot,
            slots,
        }
    }

    /// The slot, `Empty` beyond the table.
    pub fn get(&self, slot: usize) -> &Slot {
        self.slots.get(slot).unwrap_or(&Slot::Empty)
    }
}
