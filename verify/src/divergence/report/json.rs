//! The JSON report: the [`VerifyReport`] serialised as one JSON document (schema version
//! [`crate::divergence::run::SCHEMA_VERSION`], described in `docs/verify.md`). Infinite
//! errors (a NaN or infinity mismatch) are written as `null`, as JSON has no infinity.

use super::model::VerifyReport;
use std::io::Write;
use std::path::Path;

/// The report as a JSON value.
pub fn to_value(report: &VerifyReport) -> serde_json::Value {
    serde_json::to_value(report).unwrap_or(serde_json::Value::Null)
}

/// Write the report, pretty-printed, to `path`.
pub fn write(report: &VerifyReport, path: &Path) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    serde_json::to_writer_pretty(&mut f, report).map_err(std::io::Error::other)?;
    f.write_all(b"\n")?;
    f.flush()
}
