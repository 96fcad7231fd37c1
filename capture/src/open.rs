//! Opening any input by content: an RPCS3 capture (any version; plain, gzip or zstd) or an
//! rsxtrace trace, recognised from its first bytes rather than its name.

use crate::rrc::{self, Capture, RrcError};
use crate::trace::{self, TraceError};
use std::io::Read;
use std::path::{Path, PathBuf};

/// What a file is, judged from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// An rsxtrace trace.
    Trace,
    /// An RPCS3 capture (any version, any compression).
    Capture,
    /// Anything else: a program container or raw microcode, for instance.
    Other,
}

/// Why a capture or trace could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot open {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read trace {}", path.display())]
    Trace {
        path: PathBuf,
        #[source]
        source: TraceError,
    },
    #[error("cannot read capture {}", path.display())]
    Capture {
        path: PathBuf,
        #[source]
        source: RrcError,
    },
    #[error(
        "{} is neither an RPCS3 capture (.rrc, .rrc.gz, .rrc.zst) nor an rsxtrace trace: \
         its first bytes (at byte 0) are no RRC, gzip, zstd or trace magic",
        path.display()
    )]
    Unrecognised { path: PathBuf },
    #[error(
        "{} is empty (0 bytes): not an RPCS3 capture or an rsxtrace trace",
        path.display()
    )]
    Empty { path: PathBuf },
    #[error(
        "{} is not a regular file (a pipe, FIFO or device): inputs are read by their content, \
         then opened again (a trace is mapped), so save it to a file first",
        path.display()
    )]
    NotRegular { path: PathBuf },
}

/// Sniff the kind of a file from its first bytes (16 are enough).
pub fn kind_of(head: &[u8]) -> FileKind {
    if trace::is_trace(head) {
        FileKind::Trace
    } else if rrc::looks_like_capture(head) {
        FileKind::Capture
    } else {
        FileKind::Other
    }
}

/// The kind of the file at `path`, from its first 16 bytes. A path that is not a regular
/// file (a pipe, a FIFO, a device) is refused: its bytes could be read only once, and the
/// file is opened again to be read (a FIFO whose writer is gone would block that open
/// forever).
pub fn file_kind(path: &Path) -> Result<FileKind, OpenError> {
    let io = |source| OpenError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() && !meta.is_dir() {
        return Err(OpenError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    let mut head = [0u8; 16];
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut filled = 0;
    while filled < head.len() {
        let n = file.read(&mut head[filled..]).map_err(io)?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(kind_of(&head[..filled]))
}

/// Open any capture or trace file as a [`Capture`].
pub fn open_capture(path: &Path) -> Result<Capture, OpenError> {
    let trace_error = |source| OpenError::Trace {
        path: path.to_path_buf(),
        source,
    };
    match file_kind(path)? {
        FileKind::Trace => trace::Trace::open(path)
            .and_then(|t| t.to_capture())
            .map_err(trace_error),
        FileKind::Capture => rrc::read_file(path).map_err(|source| OpenError::Capture {
            path: path.to_path_buf(),
            source,
        }),
        FileKind::Other if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) => {
            Err(OpenError::Empty {
                path: path.to_path_buf(),
            })
        }
        FileKind::Other => Err(OpenError::Unrecognised {
            path: path.to_path_buf(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unrecognised_bytes_are_other_and_refused_by_name() {
        assert_eq!(kind_of(b"not a capture at all"), FileKind::Other);
        assert_eq!(kind_of(b""), FileKind::Other);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("program.fpo");
        std::fs::write(&path, b"\x00\x00\x1b\x5bjunk").unwrap();
        let err = open_capture(&path).unwrap_err();
        assert!(matches!(err, OpenError::Unrecognised { .. }), "{err}");
        assert!(err.to_string().contains("program.fpo"), "{err}");
    }

    #[test]
    fn an_empty_file_is_called_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frame.rrc.gz");
        std::fs::write(&path, b"").unwrap();
        let err = open_capture(&path).unwrap_err();
        assert!(matches!(err, OpenError::Empty { .. }), "{err}");
        assert!(err.to_string().contains("frame.rrc.gz is empty"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_by_name_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("capture.rrc");
        let status = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        // No writer: opening the FIFO would block; the refusal comes before any open.
        let err = open_capture(&path).unwrap_err();
        assert!(matches!(err, OpenError::NotRegular { .. }), "{err}");
        assert!(err.to_string().contains("capture.rrc"), "{err}");
    }

    #[test]
    fn a_missing_file_names_its_path() {
        let err = open_capture(Path::new("/nonexistent/x.rrc")).unwrap_err();
        assert!(matches!(err, OpenError::Io { .. }));
        assert!(err.to_string().contains("/nonexistent/x.rrc"), "{err}");
    }
}
