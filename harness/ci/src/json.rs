//! The JSON report of a CI run (`--json FILE`): the [`Report`] as one
//! pretty-printed object; its shape is documented in `docs/ci.md` ("JSON report").

use super::report::Report;
use anyhow::Context;
use std::path::Path;

/// The report as pretty JSON text, ending with a newline.
pub fn to_string(report: &Report) -> anyhow::Result<String> {
    let mut text = serde_json::to_string_pretty(report)?;
    text.push('\n');
    Ok(text)
}

/// Write the report to the file at `path`.
pub fn write(report: &Report, path: &Path) -> anyhow::Result<()> {
    std::fs::write(path, to_string(report)?)
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::{report, trace};
    use crate::report::Outcome;

    #[test]
    fn shape_of_the_report() {
        let r = report(vec![
            trace("a", Outcome::Pass, false),
            trace("b", Outcome::New, true),
        ]);
        let value: serde_json::Value = serde_json::from_str(&to_string(&r).unwrap()).unwrap();
        assert_eq!(value["version"], 1);
        assert_eq!(value["paths"], serde_json::json!(["cpu"]));
        assert_eq!(value["summary"]["pass"], 1);
        assert_eq!(value["summary"]["new"], 1);
        assert_eq!(value["summary"]["updated"], 1);
        assert_eq!(value["traces"][1]["name"], "b");
        assert_eq!(value["traces"][1]["status"], "new");
        assert_eq!(value["traces"][1]["updated"], true);
        assert!(value["traces"][0]["bisect"].is_null());
    }

    #[test]
    fn written_to_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        write(&report(vec![trace("a", Outcome::Fail, false)]), &path).unwrap();
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(value["traces"][0]["status"], "fail");
    }
}
