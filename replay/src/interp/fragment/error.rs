//! Errors of the fragment interpreter. Each names the instruction slot at fault (16-byte unit
//! from the start of the program) and what is wrong there.

use rsxtrace_program::fragment::FpOpcode;
use thiserror::Error;

/// Why a fragment program cannot be executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FragmentExecError {
    /// An opcode with no known semantics (BEMLUM, TIMESWTEX, CAL; rsx-microcode.md B.5, B.7).
    #[error("slot {slot}: opcode {} ({:#04x}) has no known semantics", opcode.name(), opcode.value())]
    UnsupportedOpcode {
        /// Instruction slot.
        slot: u32,
        /// The opcode.
        opcode: FpOpcode,
    },
    /// A temp register outside the 48-entry register file (rsx-microcode.md B.3).
    #[error("slot {slot}: {field} register R{index} is outside the 48-register file")]
    RegisterOutOfRange {
        /// Instruction slot.
        slot: u32,
        /// `"destination"` or `"source 0"`..`"source 2"`.
        field: &'static str,
        /// The R index (H indices are given as their R register).
        index: u8,
    },
    /// A constant-type source with no inline constant slot.
    #[error("slot {slot}: source {source_index} reads an inline constant but none follows")]
    MissingConstant {
        /// Instruction slot.
        slot: u32,
        /// Which source (0–2).
        source_index: u8,
    },
    /// Output-scale encoding 4, documented as invalid (rsx-microcode.md B.1).
    #[error("slot {slot}: output scale encoding 4 is invalid")]
    InvalidScale {
        /// Instruction slot.
        slot: u32,
    },
    /// An input-type source names attribute 15, which has no meaning (rsx-microcode.md B.3).
    #[error("slot {slot}: input attribute {attribute} does not exist")]
    InvalidInput {
        /// Instruction slot.
        slot: u32,
        /// The attribute number.
        attribute: u8,
    },
    /// A flow-control target that is not the slot of an instruction.
    #[error("slot {slot}: flow target slot {target} holds no instruction")]
    FlowTarget {
        /// Instruction slot.
        slot: u32,
        /// The target slot.
        target: u32,
    },
    /// IF/LOOP nesting deeper than the interpreter allows.
    #[error("slot {slot}: flow control nested deeper than {limit} levels")]
    NestingTooDeep {
        /// Instruction slot.
        slot: u32,
        /// The limit.
        limit: usize,
    },
    /// More instructions executed for one quad than [`FragmentOptions::max_steps`] allows.
    ///
    /// [`FragmentOptions::max_steps`]: super::FragmentOptions::max_steps
    #[error("slot {slot}: more than {limit} instructions executed for one quad")]
    StepLimit {
        /// Slot of the instruction that went over the limit.
        slot: u32,
        /// The limit.
        limit: u64,
    },
    /// The program has no instructions.
    #[error("fragment program has no instructions")]
    EmptyProgram,
}
