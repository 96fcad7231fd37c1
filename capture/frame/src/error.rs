//! Errors of the method stream and of the frame model. Each names the command index (the
//! position in `Capture::commands`) where the problem was found.

/// The recorded command list does not form a valid method stream (rrc-format.md 3.2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// A continuation entry (`first == 0`) appeared while no batch countdown was pending.
    #[error("command {command}: continuation entry (first = 0) with no batch pending")]
    DanglingContinuation {
        /// Index of the offending command.
        command: usize,
    },
    /// A batch header announced more arguments than the capture holds.
    #[error("command {command}: batch header announces {count} arguments but only {available} entries remain")]
    UnterminatedBatch {
        /// Index of the batch header.
        command: usize,
        /// The count the header announced.
        count: u32,
        /// Entries left in the capture, header included.
        available: usize,
    },
    /// The header word has jump, call or return bits set; those never appear in a capture.
    #[error("command {command}: 0x{first:08x} is not a method header")]
    NotAMethod {
        /// Index of the offending command.
        command: usize,
        /// The header word.
        first: u32,
    },
    /// An increment-mode batch would advance the register index past 0x3FFF.
    #[error("command {command}: increment batch of {count} from register 0x{reg:04x} runs past the register file")]
    RegisterOverflow {
        /// Index of the batch header.
        command: usize,
        /// First register index of the batch.
        reg: u16,
        /// The count the header announced.
        count: u32,
    },
}

/// Why [`crate::Frame::from_capture`] refused a capture. Problems that concern one draw only
/// (missing memory, bad program addresses) are not errors: they are listed per draw.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The command list is not a valid method stream.
    #[error(transparent)]
    Stream(#[from] StreamError),
    /// A command refers to a memory block id that is not in the memory map.
    #[error("command {command}: memory block id 0x{id:x} is not in the memory map")]
    UnknownBlock {
        /// Index of the command carrying the id.
        command: usize,
        /// The unknown block id.
        id: u64,
    },
    /// A memory block refers to a data id that is not in the data map.
    #[error("command {command}: memory block id 0x{id:x} names data id 0x{data_id:x}, which is not in the data map")]
    UnknownData {
        /// Index of the command carrying the block.
        command: usize,
        /// The block id.
        id: u64,
        /// The unknown data id.
        data_id: u64,
    },
    /// A memory block has a location word that is neither local nor main.
    #[error("command {command}: memory block id 0x{id:x} has invalid location 0x{location:08x}")]
    BadLocation {
        /// Index of the command carrying the block.
        command: usize,
        /// The block id.
        id: u64,
        /// The raw location word.
        location: u32,
    },
    /// A memory block extends past the 32-bit address space of its location.
    #[error("command {command}: memory block id 0x{id:x} at offset 0x{offset:08x} with {len} bytes runs past 4 GiB")]
    BlockOverflow {
        /// Index of the command carrying the block.
        command: usize,
        /// The block id.
        id: u64,
        /// The block offset.
        offset: u32,
        /// The data length.
        len: usize,
    },
    /// A transform program upload writes past the end of program memory (rrc-format.md 4.5).
    #[error("command {command}: transform program upload to word {word} is past the {words}-word program memory")]
    ProgramOverflow {
        /// Index of the command carrying the word.
        command: usize,
        /// The word index it would write.
        word: u64,
        /// Size of the program memory in words.
        words: usize,
    },
    /// The register-state snapshot does not have the size of any known layout.
    #[error("register state: {what} has {len} words, expected {expected}")]
    BadRegState {
        /// Which part of the snapshot.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The expected length(s).
        expected: &'static str,
    },
}
