//! [`TraceError`]: everything that can go wrong writing or reading a trace, naming the byte
//! offset or the message field where it was found.

use std::path::PathBuf;

/// An error writing or reading a trace.
///
/// Field paths are written the way the schema names them, with list indices, for example
/// `commands[12].memory` or `regState.registers`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The file could not be opened or mapped.
    #[error("cannot open trace {path}: {source}")]
    Open {
        /// The path given to [`crate::Trace::open`].
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Writing the trace to its output failed.
    #[error("i/o error writing trace: {0}")]
    Io(#[from] std::io::Error),
    /// The first 8 bytes are not [`crate::MAGIC`].
    #[error("at byte 0: not an rsxtrace trace (starts with {found:02x?}, expected \"RSXTRACE\")")]
    BadMagic {
        /// The first bytes of the input (at most 8).
        found: Vec<u8>,
    },
    /// The input ends before the framing says it should.
    #[error("at byte {offset}: trace truncated ({message})")]
    Truncated {
        /// The input length, which is where more bytes were expected.
        offset: u64,
        /// What was being read.
        message: String,
    },
    /// The message framing (segment table) is malformed.
    #[error("at byte {offset}: bad message framing ({message})")]
    Framing {
        /// Byte offset in the file of the offending segment-table entry.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// Bytes follow the end of the message.
    #[error("at byte {offset}: {extra} unexpected bytes after the end of the message")]
    TrailingBytes {
        /// Where the message ends.
        offset: u64,
        /// How many bytes follow it.
        extra: u64,
    },
    /// The message has a format major version this reader does not know.
    #[error("unsupported trace format version {major}.{minor} (this reader reads major version {known})")]
    UnsupportedVersion {
        /// `Trace.majorVersion` from the file.
        major: u32,
        /// `Trace.minorVersion` from the file.
        minor: u32,
        /// The major version this reader supports ([`crate::FORMAT_MAJOR`]).
        known: u32,
    },
    /// Cap'n Proto refused to read a field (bad pointer, traversal limit, invalid UTF-8...).
    #[error("in {field}: {message}")]
    Capnp {
        /// The field being read.
        field: String,
        /// Cap'n Proto's description of the problem.
        message: String,
    },
    /// A field holds the wrong number of elements.
    #[error("in {field}: expected {expected} elements, found {found}")]
    InvalidLength {
        /// The offending field.
        field: String,
        /// The allowed element count(s), in words.
        expected: &'static str,
        /// The element count found.
        found: u64,
    },
    /// A capture cannot be written: it exceeds a limit of the Cap'n Proto encoding.
    #[error("cannot write {field}: {len} exceeds the format limit of {max}")]
    TooLarge {
        /// The offending field.
        field: String,
        /// Its size (elements, bytes or words, as `max`).
        len: u64,
        /// The largest size the encoding allows.
        max: u64,
    },
}

impl TraceError {
    /// A Cap'n Proto error met while reading `field`.
    pub(crate) fn capnp(field: impl Into<String>, err: &capnp::Error) -> TraceError {
        TraceError::Capnp {
            field: field.into(),
            message: err.to_string(),
        }
    }
}

/// Attach a field name (computed only on error) to a Cap'n Proto result.
pub(crate) trait Context<T> {
    /// Map the error to [`TraceError::Capnp`] naming `field()`.
    fn field<S: Into<String>>(self, field: impl FnOnce() -> S) -> Result<T, TraceError>;
}

impl<T> Context<T> for capnp::Result<T> {
    fn field<S: Into<String>>(self, field: impl FnOnce() -> S) -> Result<T, TraceError> {
        self.map_err(|e| TraceError::capnp(field(), &e))
    }
}

impl<T> Context<T> for Result<T, capnp::NotInSchema> {
    fn field<S: Into<String>>(self, field: impl FnOnce() -> S) -> Result<T, TraceError> {
        self.map_err(|e| TraceError::capnp(field(), &capnp::Error::from(e)))
    }
}
