//! The builder's error type: every way a call can be refused, naming the argument, register,
//! slot or command involved.

use std::path::PathBuf;

use crate::fragment_scan::ScanError;
use crate::memory::MemoryError;

/// Why a builder call was refused. A refused call records nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// An initial-state setter was called after the first command was recorded.
    #[error("{setter}: the initial state is fixed once the first command is recorded")]
    AlreadyRecording {
        /// The setter that was called.
        setter: &'static str,
    },
    /// An index argument (register, slot, attribute, unit...) is out of range.
    #[error("{what} {value:#x} is out of range (must be below {limit:#x})")]
    OutOfRange {
        /// What the index names.
        what: &'static str,
        /// The value given.
        value: u64,
        /// The exclusive limit.
        limit: u64,
    },
    /// An argument is malformed.
    #[error("{what}: {detail}")]
    InvalidArgument {
        /// The argument.
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// Guest memory could not be placed.
    #[error("placing guest memory: {0}")]
    Placement(#[source] MemoryError),
    /// The END command of a draw could not attach its memory.
    #[error("draw ending at command {command}: {source}")]
    Draw {
        /// Index the END command would have had in `Capture::commands`.
        command: usize,
        /// What was missing or malformed.
        #[source]
        source: AttachError,
    },
    /// Writing the capture file failed.
    #[error("writing {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Why memory could not be attached to a draw's END command (rrc-format.md 3.3).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AttachError {
    /// A block's bytes were not (fully) placed with `put_memory`.
    #[error("{what}: {source}")]
    Missing {
        /// The block: "fragment program", "texture unit 2", "attribute 3 range 0"...
        what: String,
        /// The missing range.
        #[source]
        source: MemoryError,
    },
    /// The fragment program has no END within the placed bytes.
    #[error("fragment program at {location} offset {offset:#x}: {source}")]
    FragmentProgram {
        /// Location name.
        location: &'static str,
        /// Program offset.
        offset: u32,
        /// Where the scan stopped.
        #[source]
        source: ScanError,
    },
    /// A register holds a value the attachment rules cannot use.
    #[error("register {register:#06x} ({name}) holds {value:#x}: {detail}")]
    BadRegister {
        /// Register byte offset.
        register: u32,
        /// Method name.
        name: &'static str,
        /// Its value.
        value: u32,
        /// Why it is unusable.
        detail: &'static str,
    },
    /// A block's offset does not fit the 32-bit address space.
    #[error("{what}: block offset {offset:#x} is past the 32-bit address space")]
    OffsetOverflow {
        /// The block.
        what: String,
        /// The offset computed.
        offset: u64,
    },
}
