//! Errors of the method stream and of the frame model. Each names the command index (the
//! position in `Capture::commands`) where the problem was found.

/// The recorded command list does not form a valid method stream (rrc-format.md 3.2).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, thiserror::Error)]
#[serde(tag = "stream", rename_all = "snake_case")]
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
    /// A batch header announced more arguments than continuation entries follow it: RPCS3's
    /// recorder stops copying a batch's arguments at the FIFO's PUT (`RSXFIFO.cpp`,
    /// rrc-format.md 3.2), so the header's count can exceed what it recorded. The batch takes
    /// the recorded arguments; the next entry with a header word starts the next packet.
    #[error("command {command}: batch header announces {count} arguments but {recorded} were recorded (the recorder stopped at the FIFO's PUT); the next header is read as one")]
    ShortBatch {
        /// Index of the batch header.
        command: usize,
        /// The count the header announced.
        count: u32,
        /// Arguments recorded: the header's and its continuation entries.
        recorded: u32,
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

impl StreamError {
    /// The command the error names.
    pub fn command(&self) -> usize {
        match *self {
            StreamError::DanglingContinuation { command }
            | StreamError::NotAMethod { command, .. }
            | StreamError::UnterminatedBatch { command, .. }
            | StreamError::ShortBatch { command, .. }
            | StreamError::RegisterOverflow { command, .. } => command,
        }
    }

    /// What the frame model and `export-jsonl` do with the stretch ([`crate::stream::Packets`]).
    pub fn outcome(&self) -> &'static str {
        match self {
            StreamError::UnterminatedBatch { .. } => "the entries left are its arguments",
            _ => "skipped to the next method header",
        }
    }
}

/// Why [`crate::Frame::from_capture`] refused a capture: only a register-state snapshot of no
/// known size. Everything in the command list that cannot be applied (a malformed stretch of
/// the stream, a memory block that cannot be placed, a program upload past program memory) is
/// a [`crate::FrameProblem`] instead, and so are per-draw problems ([`crate::DrawProblem`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
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
