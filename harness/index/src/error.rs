//! Why a database or a capture could not be indexed.

use std::path::PathBuf;

/// Why indexing failed. A capture-level error (the file cannot be read, its frame cannot be
/// decoded) stops only that capture; the database's errors stop the run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// The capture file cannot be opened or parsed.
    #[error(transparent)]
    Open(#[from] rsxtrace_capture::open::OpenError),
    /// The capture cannot be decoded into a frame (its register-state snapshot has no known
    /// size; what the command list holds that cannot be applied is a warning instead).
    #[error("cannot decode the frame of {}", path.display())]
    Frame {
        /// The capture.
        path: PathBuf,
        /// Why.
        #[source]
        source: rsxtrace_capture::frame::FrameError,
    },
    /// The database cannot be opened, created or written.
    #[error("database {}: {source}", path.display())]
    Database {
        /// The database file (`:memory:` for an in-memory one).
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A new database file cannot be made or put in place (`Database::create`, `finish`).
    #[error("database {}: {source}", path.display())]
    File {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The database was made by another schema version.
    #[error(
        "database {} has schema version {found}, this rsxtrace writes version {expected}: index into a new file",
        path.display()
    )]
    SchemaVersion {
        /// The database file.
        path: PathBuf,
        /// Its version.
        found: i32,
        /// Ours.
        expected: i32,
    },
}

impl IndexError {
    /// Whether the error concerns one capture only (the run can go on with the others).
    pub fn is_capture_error(&self) -> bool {
        matches!(self, IndexError::Open(_) | IndexError::Frame { .. })
    }
}
