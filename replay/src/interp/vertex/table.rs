//! The slot table the interpreter executes from ([`ProgramTable`]): every slot of the decoded
//! program, plus every other slot of the transform program memory decoded on the side, so that
//! a branch through the address register (BRA) can land on a slot the static walk did not
//! reach. Each ready slot carries the fields the interpreter needs precomputed
//! ([`Prepared`]): swizzles as indices, masks as booleans, the branch target, the BRB/CLB bit
//! and the TXL unit (these alias other fields and are derived once here, not per vertex).

use super::math::{self, Vec4};
use super::real::Real;
use rsxtrace_program::vertex::{
    memory_slots, BooleanBranch, CcRegister, MemorySlot, Relation, VertexDecodeError,
    VertexInstruction, VertexProgram, WriteMask,
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

/// The per-lane rules both executors apply (`lanes.rs`, `rows.rs`), from the instruction and
/// one lane's registers.
impl Prepared {
    /// The CC register the instruction tests and updates (0 or 1).
    #[inline]
    pub fn cc_index(&self) -> usize {
        usize::from(self.insn.cc_register == CcRegister::CC1)
    }

    /// Whether writes depend on the CC registers (a condition test other than TR is enabled).
    #[inline]
    pub fn conditional(&self) -> bool {
        let c = &self.insn.condition;
        c.enabled && c.relation != Relation::TR
    }

    /// Per-component condition of conditional writes on a lane's CC registers `cc` (all true
    /// when the test is disabled or TR; RPCS3 `AddCodeCond`).
    #[inline]
    pub fn cond_mask<T: Real>(&self, cc: &[Vec4<T>; 2]) -> [bool; 4] {
        if !self.conditional() {
            return [true; 4];
        }
        let (cc, rel) = (cc[self.cc_index()], self.insn.condition.relation);
        let s = self.cc_swizzle;
        [
            math::test(cc[s[0]], rel),
            math::test(cc[s[1]], rel),
            math::test(cc[s[2]], rel),
            math::test(cc[s[3]], rel),
        ]
    }

    /// The `any()` branch condition on a lane's CC registers `cc` (RPCS3 `dynamic_branch`:
    /// TR always, FL never, else any swizzled component passing the relation).
    #[inline]
    pub fn branch_taken<T: Real>(&self, cc: &[Vec4<T>; 2]) -> bool {
        let rel = self.insn.condition.relation;
        match rel {
            Relation::TR => true,
            Relation::FL => false,
            _ => {
                let cc = cc[self.cc_index()];
                self.cc_swizzle.iter().any(|s| math::test(cc[*s], rel))
            }
        }
    }

    /// BRB/CLB: whether transform branch bit `index` of `bits` has the value the instruction
    /// branches on (RPCS3 `static_branch`).
    #[inline]
    pub fn static_taken(&self, bits: u32) -> bool {
        self.boolean
            .is_some_and(|b| ((bits >> (b.index & 31)) & 1 == 1) == b.if_true)
    }

    /// Source `n` as read from its register `raw`: swizzle, then abs, then negate (RPCS3
    /// `GetSRC` / `read_src`: `-abs(x.swz)`).
    #[inline]
    pub fn modify<T: Real>(&self, n: usize, raw: Vec4<T>) -> Vec4<T> {
        let s = &self.insn.sources[n];
        let swz = self.swizzle[n];
        let mut v = [raw[swz[0]], raw[swz[1]], raw[swz[2]], raw[swz[3]]];
        if s.abs {
            v = [v[0].abs(), v[1].abs(), v[2].abs(), v[3].abs()];
        }
        if s.negate {
            v = [-v[0], -v[1], -v[2], -v[3]];
        }
        v
    }

    /// Whether a unit's result also goes to the CC register: when a CC update is enabled, or
    /// when it has no other destination (no temp `temp`, not the output writer; RPCS3
    /// `GetDST`, the "Far Cry 2" case).
    #[inline]
    pub fn writes_cc(&self, temp: Option<u8>, is_writer: bool) -> bool {
        self.insn.cc_update.any() || (temp.is_none() && !is_writer)
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
