//! The Khronos glTF Validator (npm package `gltf-validator`, pinned by
//! `traces/testkit/gltf-validator/package-lock.json`) run on exported files under node.
//!
//! Install it with `npm ci` in `traces/testkit/gltf-validator` (`.ci/run` does). The
//! loud-absence rule, as for the corpus: when node or the package is missing, [`validate`]
//! prints `GLTF VALIDATOR MISSING: ...` on stderr and returns `None` (the caller skips its
//! check); under `CI=true` it panics instead.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::paths::Workspace;

/// The validator's folder relative to the workspace root.
pub const DIR: &str = "traces/testkit/gltf-validator";

/// One file's report.
#[derive(Clone, Debug, PartialEq)]
pub struct Validation {
    /// The file.
    pub file: PathBuf,
    /// Errors.
    pub errors: u64,
    /// Warnings.
    pub warnings: u64,
    /// Infos.
    pub infos: u64,
    /// Every error and warning: `{code, severity, message, pointer}`.
    pub issues: Vec<Value>,
}

/// Validate `files`; `None` when the validator is not installed (see the module docs).
pub fn validate(workspace: &Workspace, files: &[&Path]) -> Option<Vec<Validation>> {
    let dir = workspace.root().join(DIR);
    let missing = |what: String| -> Option<Vec<Validation>> {
        eprintln!(
            "GLTF VALIDATOR MISSING: {what}; run `npm ci` in {} (node 18 or later); skipped",
            dir.display()
        );
        assert!(
            !crate::in_ci(),
            "GLTF VALIDATOR MISSING and CI=true: {what}"
        );
        None
    };
    if !dir
        .join("node_modules/gltf-validator/package.json")
        .is_file()
    {
        return missing(format!(
            "{} has no node_modules/gltf-validator",
            dir.display()
        ));
    }
    let output = match Command::new("node")
        .arg(dir.join("validate.mjs"))
        .args(files)
        .output()
    {
        Ok(o) => o,
        Err(e) => return missing(format!("cannot run node: {e}")),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let reports: Vec<Validation> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|v| Validation {
            file: PathBuf::from(v["file"].as_str().unwrap_or_default()),
            errors: v["errors"].as_u64().unwrap_or(u64::MAX),
            warnings: v["warnings"].as_u64().unwrap_or(0),
            infos: v["infos"].as_u64().unwrap_or(0),
            issues: v["issues"].as_array().cloned().unwrap_or_default(),
        })
        .collect();
    assert_eq!(
        reports.len(),
        files.len(),
        "the validator answered for {} of {} files; stderr: {}",
        reports.len(),
        files.len(),
        String::from_utf8_lossy(&output.stderr)
    );
    Some(reports)
}
