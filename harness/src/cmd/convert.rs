//! `rsxtrace convert`: RRC (any version) to trace, and trace (or RRC) to RRC v6.

use crate::cli::ConvertFormat;
use crate::exit::Status;
use anyhow::Context;
use clap::ValueEnum;
use rsxtrace_capture::trace;
use serde_json::json;
use std::path::Path;

/// The output format: as asked, or from the output file name (an RRC name as RPCS3 reads it,
/// `super::rrc_out`; any other name a trace).
fn format_for(output: &Path, to: Option<ConvertFormat>) -> ConvertFormat {
    if let Some(f) = to {
        return f;
    }
    if super::rrc_out::is_rrc_name(output) {
        super::rrc_out::format_for_name(output)
    } else {
        ConvertFormat::Trace
    }
}

pub fn run(
    input: &Path,
    output: &Path,
    to: Option<ConvertFormat>,
    json: bool,
) -> anyhow::Result<Status> {
    let capture = rsxtrace_capture::open::open_capture(input)?;
    let format = format_for(output, to);
    let mut warnings = Vec::new();
    // Whether the trace carries a frame index (None: not a trace).
    let mut frame_index = None;
    let written = if format == ConvertFormat::Trace {
        // The frame index lets `info` and `draws` answer without decoding the frame; a frame
        // that does not decode is written without one (readers then decode and report).
        let index = match rsxtrace_capture::frame::Frame::from_capture(&capture) {
            Ok(frame) => Some(rsxtrace_capture::overview::frame_index(&frame)),
            Err(e) => {
                warnings.push(format!(
                    "no frame index ({e}); `info` and `draws` will decode the frame"
                ));
                None
            }
        };
        frame_index = Some(index.is_some());
        if super::rrc_out::is_rrc_name(output) {
            warnings.push(format!(
                "{} is named as an RPCS3 capture but holds an rsxtrace trace (--to trace)",
                output.display()
            ));
        }
        // Streamed to a new file beside the output, then renamed over it: a trace is as
        // large as the capture's memory (no second copy), and a trace input is mapped, so
        // truncating the output in place when it is the input would pull the bytes from
        // under the capture being written.
        let dir = output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let file = tempfile::NamedTempFile::new_in(dir)
            .with_context(|| format!("cannot create a file in {}", dir.display()))?;
        let mut out = std::io::BufWriter::new(file);
        trace::write_trace_indexed(&capture, index.as_ref(), &mut out)
            .context("cannot write the trace")?;
        let file = out
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("cannot write {}", output.display()))?;
        let written = file.as_file().metadata()?.len();
        file.persist(output)
            .with_context(|| format!("cannot write {}", output.display()))?;
        written
    } else {
        let named = super::rrc_out::format_for_name(output);
        if format != named {
            let kind = |f: ConvertFormat| match f {
                ConvertFormat::Rrc => "gzip",
                ConvertFormat::RrcZst => "zstd",
                _ => "uncompressed",
            };
            warnings.push(format!(
                "RPCS3 opens a capture by its name and would read {} as {}, but it holds {}: \
                 name it .rrc.gz, .rrc.zst or .rrc as its format is",
                output.display(),
                kind(named),
                kind(format)
            ));
        }
        let bytes = super::rrc_out::encode(&capture, format)?;
        std::fs::write(output, &bytes)
            .with_context(|| format!("cannot write {}", output.display()))?;
        bytes.len() as u64
    };
    let format_name = format
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default();
    if json {
        crate::output::print_json(&json!({
            "input": input.display().to_string(),
            "output": output.display().to_string(),
            "format": format_name,
            "bytes": written,
            "commands": capture.commands.len(),
            "memory_data_entries": capture.data.len(),
            "frame_index": frame_index,
            "warnings": warnings,
        }))?;
        return Ok(Status::Success);
    }
    for w in &warnings {
        eprintln!("rsxtrace convert: warning: {w}");
    }
    eprintln!(
        "wrote {} ({format_name}, {written} bytes: {} commands, {} memory blobs)",
        output.display(),
        capture.commands.len(),
        capture.data.len()
    );
    Ok(Status::Success)
}
