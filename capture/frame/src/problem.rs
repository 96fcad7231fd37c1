//! What the frame model skips without stopping: [`FrameProblem`], one per command that could
//! not be applied (the draw structure, malformed stretches of the method stream, memory blocks
//! that cannot be placed, program uploads past program memory), each naming its command.

use crate::error::StreamError;
use serde::Serialize;

/// A problem with the command list that does not stop decoding: the draw structure, a
/// malformed stretch of the method stream (skipped), a memory block that cannot be placed
/// (left out of guest memory: draws that read there report missing memory), a program upload
/// past program memory (the words that fit are written). Each names its command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FrameProblem {
    /// `SET_BEGIN_END(primitive)` while a scope was open; the open scope is dropped.
    #[error("command {command}: BEGIN while the draw begun at command {open} is open; that draw is dropped")]
    BeginWhileOpen {
        /// The new BEGIN.
        command: usize,
        /// The open scope's BEGIN.
        open: usize,
    },
    /// `SET_BEGIN_END(0)` with no open scope.
    #[error("command {command}: END without BEGIN")]
    EndWithoutBegin {
        /// The END.
        command: usize,
    },
    /// `SET_BEGIN_END` with a primitive above 10; the scope gives no draw.
    #[error("command {command}: invalid primitive {value}")]
    InvalidPrimitive {
        /// The BEGIN.
        command: usize,
        /// Its argument.
        value: u32,
    },
    /// A draw method (`DRAW_ARRAYS`, `INLINE_ARRAY`, ...) outside BEGIN/END; ignored.
    #[error("command {command}: {method} outside BEGIN/END")]
    DrawMethodOutsideScope {
        /// The command.
        command: usize,
        /// Method name.
        method: &'static str,
    },
    /// The frame ends inside a BEGIN/END scope.
    #[error("command {begin}: draw never ended")]
    UnclosedDraw {
        /// The BEGIN.
        begin: usize,
    },
    /// A malformed stretch of the method stream: skipped to the next method header, or, for
    /// a batch that runs off the end, its entries left applied ([`StreamError::outcome`]).
    #[error("{error}; {outcome}", error = .0, outcome = .0.outcome())]
    Stream(StreamError),
    /// A write the RSX front end refuses ([`crate::write_rules`]): an invalid blend, stencil,
    /// face, colour mask or index array value; the register keeps its value.
    #[error("command {command}: {method} 0x{value:08x} is not a valid value; the register keeps 0x{kept:08x}, as RPCS3 rolls such a write back")]
    RefusedWrite {
        /// The command.
        command: usize,
        /// Method name.
        method: &'static str,
        /// The value written.
        value: u32,
        /// The value the register keeps.
        kept: u32,
    },
    /// A command attaches a memory block id that is not in the memory map; left out.
    #[error("command {command}: memory block id 0x{id:x} is not in the memory map; left out")]
    UnknownBlock {
        /// The command carrying the id.
        command: usize,
        /// The id.
        id: u64,
    },
    /// A command carries a tile state id that is not in the tile map; the tile and Z-cull
    /// regions stay as they were.
    #[error("command {command}: tile state id 0x{id:x} is not in the tile map; the regions stay as they were")]
    UnknownTileState {
        /// The command carrying the id.
        command: usize,
        /// The id.
        id: u64,
    },
    /// A memory block names a data id that is not in the data map; left out.
    #[error("command {command}: memory block id 0x{id:x} names data id 0x{data_id:x}, which is not in the data map; left out")]
    UnknownData {
        /// The command carrying the block.
        command: usize,
        /// The block id.
        id: u64,
        /// The missing data id.
        data_id: u64,
    },
    /// A memory block whose location word is neither local nor main; left out.
    #[error("command {command}: memory block id 0x{id:x} has invalid location 0x{location:08x}; left out")]
    BadLocation {
        /// The command carrying the block.
        command: usize,
        /// The block id.
        id: u64,
        /// The raw location word.
        location: u32,
    },
    /// A memory block running past the 4 GiB of its location; left out.
    #[error("command {command}: memory block id 0x{id:x} at offset 0x{offset:08x} with {len} bytes runs past 4 GiB; left out")]
    BlockOverflow {
        /// The command carrying the block.
        command: usize,
        /// The block id.
        id: u64,
        /// Its offset.
        offset: u32,
        /// Its data length.
        len: usize,
    },
    /// A transform program upload past the end of program memory: the words that fit are
    /// written, the rest dropped (RPCS3 trims such a write the same way and warns "Program
    /// buffer overflow", `set_transform_program` in `rsx_methods.cpp`).
    #[error("command {command}: transform program upload to word {word} is past the {words}-word program memory; {dropped} words dropped")]
    ProgramOverflow {
        /// The entry of the first word that does not fit.
        command: usize,
        /// The program word it would write.
        word: u64,
        /// Size of program memory in words.
        words: usize,
        /// Words dropped.
        dropped: u64,
    },
}

impl FrameProblem {
    /// The command the problem names (for a draw never ended, its BEGIN).
    pub fn command(&self) -> usize {
        match *self {
            FrameProblem::BeginWhileOpen { command, .. }
            | FrameProblem::EndWithoutBegin { command }
            | FrameProblem::InvalidPrimitive { command, .. }
            | FrameProblem::DrawMethodOutsideScope { command, .. }
            | FrameProblem::RefusedWrite { command, .. }
            | FrameProblem::UnknownBlock { command, .. }
            | FrameProblem::UnknownTileState { command, .. }
            | FrameProblem::UnknownData { command, .. }
            | FrameProblem::BadLocation { command, .. }
            | FrameProblem::BlockOverflow { command, .. }
            | FrameProblem::ProgramOverflow { command, .. } => command,
            FrameProblem::UnclosedDraw { begin } => begin,
            FrameProblem::Stream(ref e) => e.command(),
        }
    }
}
