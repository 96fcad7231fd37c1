//! Errors of the vertex-program decoder ([`VertexDecodeError`]). Every variant names where the
//! problem is: a byte offset, or a slot and the field.

/// Why a vertex program was refused.
///
/// `Unsupported*` variants mark encodings no source defines (the decoder cannot say what they
/// do); the others are malformed input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VertexDecodeError {
    /// Byte input whose length is not a multiple of 16.
    #[error("vertex program is {len} bytes, not a multiple of 16: incomplete slot at byte offset {offset}")]
    TrailingBytes {
        /// Byte offset of the incomplete slot.
        offset: usize,
        /// Input length in bytes.
        len: usize,
    },
    /// Word input whose length is not a multiple of 4.
    #[error("vertex program is {len} words, not a multiple of 4: slot {slot} is incomplete")]
    IncompleteSlot {
        /// The incomplete slot.
        slot: usize,
        /// Input length in words.
        len: usize,
    },
    /// No instruction at all.
    #[error("vertex program is empty")]
    Empty,
    /// Vector opcode 0x1A–0x1F.
    #[error("slot {slot} (byte offset {}): field vec_opcode: undefined vector opcode {code:#04x}", byte_offset(*slot))]
    UnsupportedVectorOpcode {
        /// Slot.
        slot: usize,
        /// The 5-bit code.
        code: u32,
    },
    /// Scalar opcode 0x15–0x1F.
    #[error("slot {slot} (byte offset {}): field sca_opcode: undefined scalar opcode {code:#04x}", byte_offset(*slot))]
    UnsupportedScalarOpcode {
        /// Slot.
        slot: usize,
        /// The 5-bit code.
        code: u32,
    },
    /// D0 bits 28 or 31, which no source names.
    #[error("slot {slot} (byte offset {}): field D0 unknown bits {mask:#010x} set", byte_offset(*slot))]
    UnsupportedBits {
        /// Slot.
        slot: usize,
        /// The set unknown bits.
        mask: u32,
    },
    /// A source operand with register type 0 (RPCS3 aborts such programs).
    #[error("slot {slot} (byte offset {}): field src{operand}.reg_type: register type 0 is invalid", byte_offset(*slot))]
    InvalidSourceType {
        /// Slot.
        slot: usize,
        /// Operand number 0–2.
        operand: u8,
    },
    /// A branch or call target at or beyond the end of the transform program memory.
    #[error("slot {slot} (byte offset {}): field branch target: slot {target} is beyond the {limit}-slot transform program memory", byte_offset(*slot))]
    BranchOutOfRange {
        /// Slot of the branch.
        slot: usize,
        /// The target.
        target: u16,
        /// Memory size in slots.
        limit: usize,
    },
    /// Transform program memory of the wrong size.
    #[error("transform program memory is {len} words; expected {expected}")]
    MemorySize {
        /// Words given.
        len: usize,
        /// Words expected.
        expected: usize,
    },
    /// A program image longer than the memory ([`super::decode_image`]).
    #[error("vertex program image of {slots} slots does not fit the {limit}-slot transform program memory")]
    ImageTooLong {
        /// Slots in the image.
        slots: usize,
        /// Memory size in slots.
        limit: usize,
    },
    /// Start slot outside the memory.
    #[error("start slot {start} is beyond the {limit}-slot transform program memory")]
    StartOutOfRange {
        /// The start slot.
        start: usize,
        /// Memory size in slots.
        limit: usize,
    },
    /// A path runs off the end of memory without END.
    #[error("slot {slot}: no END reachable: the path from slot {from} runs off the end of the {limit}-slot memory")]
    RunsOffMemory {
        /// Last slot of the path.
        slot: usize,
        /// First slot of the path (the start slot or a branch target).
        from: usize,
        /// Memory size in slots.
        limit: usize,
    },
    /// Every reachable path stops (loop, return) without reaching an END.
    #[error("slot {start}: no END reachable from the start slot")]
    NoEnd {
        /// The start slot.
        start: usize,
    },
}

fn byte_offset(slot: usize) -> usize {
    slot.saturating_mul(16)
}
