//! Errors of the fragment-program decoder. Each names the slot (16-byte unit from the start of
//! the ucode), the byte offset, the source or the field at fault.

use thiserror::Error;

/// Which flow-control offset field is at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowField {
    /// IFE `SRC1`: else offset.
    Else,
    /// IFE/LOOP/REP `SRC2`: end offset.
    End,
    /// CAL `SRC1`: subroutine offset.
    Target,
}

impl std::fmt::Display for FlowField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FlowField::Else => "else offset",
            FlowField::End => "end offset",
            FlowField::Target => "call target",
        })
    }
}

/// Why a flow-control offset is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowTargetProblem {
    /// The dword offset is not a multiple of 4 (not at a slot start).
    Misaligned,
    /// The slot is at or past the end of the program.
    PastEnd,
    /// The slot holds an inline constant, not an instruction.
    ConstantSlot,
    /// IFE/LOOP/REP regions must lie after the instruction.
    NotForward,
    /// The IFE else offset lies after its end offset.
    ElseAfterEnd,
}

impl std::fmt::Display for FlowTargetProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FlowTargetProblem::Misaligned => "is not a multiple of 4 dwords (not a slot start)",
            FlowTargetProblem::PastEnd => "points at or past the end of the program",
            FlowTargetProblem::ConstantSlot => "points into an inline-constant slot",
            FlowTargetProblem::NotForward => "does not point forward",
            FlowTargetProblem::ElseAfterEnd => "lies after the end offset",
        })
    }
}

/// A fragment program the decoder refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FragmentDecodeError {
    /// No bytes at all.
    #[error("fragment program is empty")]
    Empty,
    /// Longer than the 31-bit dword offsets can address.
    #[error("fragment program of {len} bytes is too large")]
    TooLarge {
        /// Input length in bytes.
        len: usize,
    },
    /// The input ends inside a slot (length not a multiple of 16).
    #[error("truncated fragment program: slot at byte offset {offset:#x} has only {available} of 16 bytes")]
    Truncated {
        /// Byte offset of the partial slot.
        offset: usize,
        /// Bytes present there.
        available: usize,
    },
    /// An instruction with a constant source is the last slot.
    #[error("slot {slot}: inline constant slot at byte offset {offset:#x} is missing")]
    MissingConstant {
        /// Slot of the instruction.
        slot: u32,
        /// Byte offset where the constant should be.
        offset: usize,
    },
    /// The opcode has no name (0x30, 0x32, 0x3F, above 0x45).
    #[error("slot {slot}: invalid opcode {value:#04x}")]
    InvalidOpcode {
        /// Slot of the instruction.
        slot: u32,
        /// The 7-bit opcode value.
        value: u8,
    },
    /// A source has register type 3.
    #[error("slot {slot}: source {operand} has invalid register type 3")]
    InvalidSourceType {
        /// Slot of the instruction.
        slot: u32,
        /// 0, 1 or 2.
        operand: u8,
    },
    /// A flow-control offset is not a valid instruction boundary.
    #[error("slot {slot}: {field} {offset:#x} {problem}")]
    BadFlowTarget {
        /// Slot of the flow instruction.
        slot: u32,
        /// The field.
        field: FlowField,
        /// The encoded offset in dwords.
        offset: u32,
        /// What is wrong with it.
        problem: FlowTargetProblem,
    },
    /// The ucode ran out before an END instruction.
    #[error("no END instruction before the end of the ucode at byte offset {offset:#x}")]
    MissingEnd {
        /// Input length in bytes.
        offset: usize,
    },
    /// Bytes follow the END instruction (and its constant) in a strict decode.
    #[error("slot {slot}: unexpected data after the END instruction at byte offset {offset:#x}")]
    TrailingData {
        /// First slot after the program.
        slot: u32,
        /// Its byte offset.
        offset: usize,
    },
}
