//! Writing an RRC capture file (`trim`, `edit`, `convert`) compressed as its name says, since
//! RPCS3 picks its reader from the name alone (`BootRsxCapture`, `System.cpp`: a name ending
//! in `.gz` is read as gzip, `.zst` as zstd, anything else as uncompressed), and a file whose
//! bytes disagree with its name does not open there.

use crate::cli::ConvertFormat;
use anyhow::Context;
use rsxtrace_capture::rrc::{self, Capture};
use std::path::Path;

/// The RRC format RPCS3 expects of a file named `path`.
pub fn format_for_name(path: &Path) -> ConvertFormat {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if name.ends_with(".gz") {
        ConvertFormat::Rrc
    } else if name.ends_with(".zst") {
        ConvertFormat::RrcZst
    } else {
        ConvertFormat::RrcRaw
    }
}

/// Whether `path` is named as an RPCS3 capture (`.rrc`, `.rrc.gz`, `.rrc.zst`, or any
/// `.gz`/`.zst`, which [`format_for_name`] reads as one).
pub fn is_rrc_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    name.ends_with(".rrc") || name.ends_with(".gz") || name.ends_with(".zst")
}

/// `capture` as an RRC v6 file in `format`.
pub fn encode(capture: &Capture, format: ConvertFormat) -> anyhow::Result<Vec<u8>> {
    Ok(match format {
        ConvertFormat::RrcRaw => rrc::write_v6_uncompressed(capture),
        ConvertFormat::RrcZst => zstd::encode_all(&rrc::write_v6_uncompressed(capture)[..], 3)
            .context("zstd compression failed")?,
        _ => rrc::write_v6(capture),
    })
}

/// Write `capture` to `path`, compressed as the name says; the bytes written.
pub fn write(capture: &Capture, path: &Path) -> anyhow::Result<u64> {
    let bytes = encode(capture, format_for_name(path))?;
    std::fs::write(path, &bytes).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(bytes.len() as u64)
}
