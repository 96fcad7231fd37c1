//! `rsxtrace export-jsonl`: one JSON object per method call, one per line:
//! `{"command_index", "register", "method", "value", "decoded"}` (docs/json.md).

use crate::exit::Status;
use rsxtrace_capture::frame::{method_calls, method_record, FrameProblem};
use std::io::{BufWriter, Write};
use std::path::Path;

pub fn run(path: &Path) -> anyhow::Result<Status> {
    let capture = rsxtrace_capture::open::open_capture(path)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for call in method_calls(&capture.commands) {
        match call {
            Ok(call) => {
                serde_json::to_writer(&mut out, &method_record(&call))?;
                out.write_all(b"\n")?;
            }
            // A malformed stretch of the stream is treated as the frame model treats it, and
            // named as its frame problem names it.
            Err(e) => eprintln!("warning: {}: {}", path.display(), FrameProblem::Stream(e)),
        }
    }
    out.flush()?;
    Ok(Status::Success)
}
