//! Opening input files by content: RRC captures (plain, gzip, zstd), rsxtrace traces, and
//! program files (containers or raw microcode).

use anyhow::Context;
use rsxtrace_capture::rrc::{self, Capture};
use rsxtrace_capture::trace;
use std::io::Read;
use std::path::Path;

/// What a file is, judged from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// An rsxtrace trace.
    Trace,
    /// An RPCS3 capture (any version, any compression).
    Capture,
    /// Anything else: a program container or raw microcode.
    Other,
}

/// Sniff the kind of a file from its first bytes.
pub fn kind_of(head: &[u8]) -> FileKind {
    if trace::is_trace(head) {
        FileKind::Trace
    } else if rrc::looks_like_capture(head) {
        FileKind::Capture
    } else {
        FileKind::Other
    }
}

/// The kind of the file at `path`.
pub fn file_kind(path: &Path) -> anyhow::Result<FileKind> {
    let mut head = [0u8; 16];
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut filled = 0;
    while filled < head.len() {
        let n = file.read(&mut head[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(kind_of(&head[..filled]))
}

/// Open any capture or trace file as a [`Capture`].
pub fn open_capture(path: &Path) -> anyhow::Result<Capture> {
    match file_kind(path)? {
        FileKind::Trace => {
            let t = trace::Trace::open(path)
                .with_context(|| format!("cannot read trace {}", path.display()))?;
            t.to_capture()
                .with_context(|| format!("cannot read trace {}", path.display()))
        }
        FileKind::Capture => {
            rrc::read_file(path).with_context(|| format!("cannot read capture {}", path.display()))
        }
        FileKind::Other => anyhow::bail!(
            "{} is neither an RPCS3 capture (.rrc, .rrc.gz, .rrc.zst) nor an rsxtrace trace",
            path.display()
        ),
    }
}
