//! Errors of the vertex interpreter ([`VertexExecError`]). Every variant names the slot of the
//! instruction, and where a single vertex is at fault its lane (the vertex's position in the
//! batch).

use rsxtrace_program::vertex::VertexDecodeError;

/// Why a vertex batch could not be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VertexExecError {
    /// A constant the capture never set was read (and unknown constants are not allowed).
    #[error("slot {slot}: constant c[{constant}] was never set by the capture (lane {lane})")]
    UnknownConstant {
        /// Slot of the reading instruction.
        slot: usize,
        /// Constant index.
        constant: usize,
        /// Lane.
        lane: usize,
    },
    /// A (relative) constant index outside 0..468.
    #[error("slot {slot}: constant index {index} is outside c[0..468] (lane {lane})")]
    ConstantOutOfRange {
        /// Slot.
        slot: usize,
        /// The computed index.
        index: i64,
        /// Lane.
        lane: usize,
    },
    /// A (relative) input index outside 0..16.
    #[error("slot {slot}: input index {index} is outside v[0..16] (lane {lane})")]
    InputOutOfRange {
        /// Slot.
        slot: usize,
        /// The computed index.
        index: i64,
        /// Lane.
        lane: usize,
    },
    /// An input attribute the batch does not provide was read (and missing inputs are not
    /// allowed).
    #[error("slot {slot}: input attribute v[{attribute}] is not provided (lane {lane})")]
    MissingInput {
        /// Slot.
        slot: usize,
        /// Attribute number.
        attribute: u8,
        /// Lane.
        lane: usize,
    },
    /// An opcode whose semantics no source defines (ARR, ARA, PSH, POP).
    #[error("slot {slot}: opcode {opcode} is unimplemented (no source defines its semantics)")]
    Unimplemented {
        /// Slot.
        slot: usize,
        /// Mnemonic.
        opcode: &'static str,
    },
    /// TXL without a vertex texture sampler.
    #[error("slot {slot}: TXL samples vertex texture unit {unit} but no sampler was given")]
    NoSampler {
        /// Slot.
        slot: usize,
        /// Texture unit.
        unit: u8,
    },
    /// ARL whose destination is not address register 0 or 1.
    #[error("slot {slot}: ARL destination {dst:?} is not an address register (A0 or A1)")]
    AddressRegister {
        /// Slot.
        slot: usize,
        /// The vector destination field (`None` = 0x3F).
        dst: Option<u8>,
    },
    /// BRB/CLB without known transform branch bits.
    #[error("slot {slot}: branch on boolean b[{index}] but the transform branch bits are unknown")]
    UnknownBranchBits {
        /// Slot.
        slot: usize,
        /// Bit index.
        index: u8,
    },
    /// A call nested deeper than the return stack.
    #[error("slot {slot}: call exceeds the return stack depth {depth} (lane {lane})")]
    CallStackOverflow {
        /// Slot of the call.
        slot: usize,
        /// The depth limit.
        depth: usize,
        /// Lane.
        lane: usize,
    },
    /// A vertex executed more instructions than the step limit (likely an infinite loop).
    #[error(
        "slot {slot}: vertex executed {limit} instructions without reaching END (lane {lane})"
    )]
    StepLimit {
        /// Slot about to execute when the limit was hit.
        slot: usize,
        /// The limit.
        limit: u32,
        /// Lane.
        lane: usize,
    },
    /// BRA to an address-register value outside the 544-slot memory.
    #[error(
        "slot {slot}: branch target {target} is outside the transform program memory (lane {lane})"
    )]
    BranchOutOfRange {
        /// Slot of the branch.
        slot: usize,
        /// The target.
        target: i64,
        /// Lane.
        lane: usize,
    },
    /// Execution reached a slot with no instruction (outside the program and the memory).
    #[error("slot {slot}: execution reached a slot that holds no instruction (lane {lane})")]
    NoInstruction {
        /// The slot.
        slot: usize,
        /// Lane.
        lane: usize,
    },
    /// Execution reached a slot whose words do not decode.
    #[error("slot {slot}: execution reached an undecodable slot: {source}")]
    Undecodable {
        /// The slot.
        slot: usize,
        /// The decoder's reason.
        source: VertexDecodeError,
    },
    /// The program's start slot holds no instruction.
    #[error("start slot {start} holds no instruction")]
    NoEntry {
        /// The start slot.
        start: usize,
    },
}
