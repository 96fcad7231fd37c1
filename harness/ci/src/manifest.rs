//! The CI manifest: a TOML file listing traces with their expectations (reference image and
//! tolerance, checksums per backend, verify divergence), parsed with serde and validated into
//! [`Manifest`]. The schema is documented in `docs/ci.md`; every error names the key, and the
//! line where the file says where it is.
//!
//! ```toml
//! [defaults]
//! threshold = 8            # a pixel differs when a channel differs by more than this
//! max_pixels_over = 0      # pixels allowed over the threshold
//! max_mean_error = 1.0     # mean of the per-pixel maximum channel difference allowed
//! references = "references"
//!
//! [[trace]]
//! name = "basic"
//! file = "samples/basic.rrc.gz"
//! checksum = { cpu = "0123456789abcdef" }
//! ```

use rsxtrace_replay::render::draw_range::{self, DrawRange};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Tolerance of an image comparison.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Tolerance {
    /// A pixel counts as different when its largest channel difference exceeds this.
    pub threshold: u8,
    /// Pixels over the threshold allowed.
    pub max_pixels_over: u64,
    /// Mean of the per-pixel largest channel difference allowed (0..=255 scale).
    pub max_mean_error: f64,
}

impl Default for Tolerance {
    fn default() -> Tolerance {
        Tolerance {
            threshold: 8,
            max_pixels_over: 0,
            max_mean_error: 1.0,
        }
    }
}

/// One trace of the manifest, validated, with paths resolved against the manifest directory.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    /// Unique name (letters, digits, `-`, `_`, `.`), used for report files.
    pub name: String,
    /// Line of the manifest where the trace's name is.
    pub line: usize,
    /// Capture or trace file.
    pub file: PathBuf,
    /// Reference PNG.
    pub reference: PathBuf,
    /// Draws to render (`None`: all).
    pub draws: Option<DrawRange>,
    /// Image tolerance.
    pub tolerance: Tolerance,
    /// Expected XXH3-64 of the RGBA8 pixels per backend key ("cpu", "lavapipe"...).
    pub checksums: BTreeMap<String, u64>,
    /// Largest `verify` divergence allowed (`None`: not checked).
    pub max_divergence: Option<u64>,
    /// When set, the trace is not run and reports "skip" with this reason.
    pub skip: Option<String>,
}

/// A validated manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The manifest file.
    pub path: PathBuf,
    /// Traces, in manifest order.
    pub traces: Vec<TraceSpec>,
}

/// Why a manifest cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file cannot be read.
    #[error("cannot read manifest {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// TOML syntax or schema error (the message names the line, column and key).
    #[error("manifest {path}: {message}")]
    Toml { path: String, message: String },
    /// A value is out of range or inconsistent.
    #[error("manifest {path}, line {line}, trace {trace:?}, key `{key}`: {message}")]
    Invalid {
        path: String,
        line: usize,
        trace: String,
        key: &'static str,
        message: String,
    },
    /// A `[defaults]` value is out of range.
    #[error("manifest {path}, [defaults] key `{key}`: {message}")]
    InvalidDefault {
        path: String,
        key: &'static str,
        message: String,
    },
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawDefaults {
    threshold: Option<u8>,
    max_pixels_over: Option<u64>,
    max_mean_error: Option<f64>,
    /// Directory of the references, relative to the manifest.
    references: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrace {
    name: toml::Spanned<String>,
    file: String,
    reference: Option<String>,
    draws: Option<String>,
    threshold: Option<u8>,
    max_pixels_over: Option<u64>,
    max_mean_error: Option<f64>,
    #[serde(default)]
    checksum: BTreeMap<String, String>,
    max_divergence: Option<u64>,
    skip: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    #[serde(default)]
    defaults: RawDefaults,
    #[serde(default, rename = "trace")]
    traces: Vec<RawTrace>,
}

/// Read and validate the manifest at `path`.
pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read {
        path: path.display().to_string(),
        source,
    })?;
    parse(&text, path)
}

/// 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()
        .get(..end)
        .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
        + 1
}

fn mean_error_ok(v: f64) -> bool {
    v.is_finite() && v >= 0.0
}

/// Parse manifest `text`; relative paths are resolved against the directory of `path`.
pub fn parse(text: &str, path: &Path) -> Result<Manifest, ManifestError> {
    let shown = path.display().to_string();
    let raw: RawManifest = toml::from_str(text).map_err(|e| ManifestError::Toml {
        path: shown.clone(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let defaults = Tolerance {
        threshold: raw
            .defaults
            .threshold
            .unwrap_or(Tolerance::default().threshold),
        max_pixels_over: raw
            .defaults
            .max_pixels_over
            .unwrap_or(Tolerance::default().max_pixels_over),
        max_mean_error: raw
            .defaults
            .max_mean_error
            .unwrap_or(Tolerance::default().max_mean_error),
    };
    if !mean_error_ok(defaults.max_mean_error) {
        return Err(ManifestError::InvalidDefault {
            path: shown,
            key: "max_mean_error",
            message: format!("{} is not a finite number >= 0", defaults.max_mean_error),
        });
    }
    let references = dir.join(raw.defaults.references.as_deref().unwrap_or("references"));
    let mut traces = Vec::with_capacity(raw.traces.len());
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for trace in raw.traces {
        let line = line_of(text, trace.name.span().start);
        let name = trace.name.into_inner();
        let invalid = |key: &'static str, message: String| ManifestError::Invalid {
            path: shown.clone(),
            line,
            trace: name.clone(),
            key,
            message,
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            || name.starts_with('.')
        {
            return Err(invalid(
                "name",
                "use letters, digits, '-', '_' and '.' (not first); it names report files".into(),
            ));
        }
        if let Some(first) = seen.insert(name.clone(), line) {
            return Err(invalid(
                "name",
                format!("duplicate name (first at line {first})"),
            ));
        }
        if trace.file.is_empty() {
            return Err(invalid("file", "empty path".into()));
        }
        let draws = match trace.draws.as_deref() {
            None => None,
            Some(text) => Some(draw_range::parse(text).map_err(|e| invalid("draws", e))?),
        };
        let tolerance = Tolerance {
            threshold: trace.threshold.unwrap_or(defaults.threshold),
            max_pixels_over: trace.max_pixels_over.unwrap_or(defaults.max_pixels_over),
            max_mean_error: trace.max_mean_error.unwrap_or(defaults.max_mean_error),
        };
        if !mean_error_ok(tolerance.max_mean_error) {
            return Err(invalid(
                "max_mean_error",
                format!("{} is not a finite number >= 0", tolerance.max_mean_error),
            ));
        }
        let mut checksums = BTreeMap::new();
        for (backend, hex) in &trace.checksum {
            let valid_key = !backend.is_empty()
                && backend
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
            if !valid_key {
                return Err(invalid(
                    "checksum",
                    format!("backend key {backend:?}: use letters, digits, '-' and '_'"),
                ));
            }
            let value = (hex.len() == 16)
                .then(|| u64::from_str_radix(hex, 16).ok())
                .flatten()
                .ok_or_else(|| {
                    invalid(
                        "checksum",
                        format!("{backend} = {hex:?}: expected 16 hex digits (XXH3-64)"),
                    )
                })?;
            checksums.insert(backend.clone(), value);
        }
        if trace.skip.as_deref() == Some("") {
            return Err(invalid("skip", "give the reason for skipping".into()));
        }
        let reference = match &trace.reference {
            Some(r) => dir.join(r),
            None => references.join(format!("{name}.png")),
        };
        traces.push(TraceSpec {
            file: dir.join(&trace.file),
            reference,
            draws,
            tolerance,
            checksums,
            max_divergence: trace.max_divergence,
            skip: trace.skip,
            line,
            name,
        });
    }
    Ok(Manifest {
        path: path.to_path_buf(),
        traces,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Manifest, ManifestError> {
        parse(text, Path::new("/ci/manifest.toml"))
    }

    #[test]
    fn full_trace_with_defaults_and_overrides() {
        let m = parse_str(
            r#"
[defaults]
threshold = 4
max_pixels_over = 10
references = "refs"

[[trace]]
name = "basic"
file = "samples/basic.rrc.gz"
checksum = { cpu = "00000000000000ff", lavapipe = "FFFFFFFFFFFFFFFF" }
max_divergence = 0

[[trace]]
name = "range.1"
file = "/abs/x.rrc"
reference = "other/r.png"
draws = "2..5"
threshold = 0
max_mean_error = 0.25
skip = "renders garbage until issue 12"
"#,
        )
        .unwrap();
        assert_eq!(m.traces.len(), 2);
        let a = &m.traces[0];
        assert_eq!(a.name, "basic");
        assert_eq!(a.line, 8);
        assert_eq!(a.file, PathBuf::from("/ci/samples/basic.rrc.gz"));
        assert_eq!(a.reference, PathBuf::from("/ci/refs/basic.png"));
        assert_eq!(
            a.tolerance,
            Tolerance {
                threshold: 4,
                max_pixels_over: 10,
                max_mean_error: 1.0
            }
        );
        assert_eq!(a.checksums["cpu"], 0xff);
        assert_eq!(a.checksums["lavapipe"], u64::MAX);
        assert_eq!(a.max_divergence, Some(0));
        assert_eq!(a.draws, None);
        let b = &m.traces[1];
        assert_eq!(b.line, 14);
        assert_eq!(b.file, PathBuf::from("/abs/x.rrc"));
        assert_eq!(b.reference, PathBuf::from("/ci/other/r.png"));
        assert_eq!(b.draws, Some(draw_range::parse("2..5").unwrap()));
        assert_eq!(b.tolerance.threshold, 0);
        assert_eq!(b.tolerance.max_pixels_over, 10);
        assert_eq!(b.tolerance.max_mean_error, 0.25);
        assert_eq!(b.skip.as_deref(), Some("renders garbage until issue 12"));
    }

    #[test]
    fn empty_manifest_has_no_traces() {
        assert!(parse_str("").unwrap().traces.is_empty());
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let e = parse_str("[[trace]]\nname = \"a\"\nfile = \"f\"\ntolerance = 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("tolerance") && e.contains("line 4"), "{e}");
    }

    #[test]
    fn missing_file_key_is_named() {
        let e = parse_str("[[trace]]\nname = \"a\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`file`") || e.contains("file"), "{e}");
        assert!(e.contains("missing"), "{e}");
    }

    #[test]
    fn threshold_out_of_range_is_refused() {
        let e = parse_str("[[trace]]\nname = \"a\"\nfile = \"f\"\nthreshold = 256\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 4"), "{e}");
    }

    #[test]
    fn semantic_errors_name_trace_key_and_line() {
        let cases: &[(&str, &str)] = &[
            ("name = \"a b\"\nfile = \"f\"", "`name`"),
            ("name = \"a\"\nfile = \"\"", "`file`"),
            ("name = \"a\"\nfile = \"f\"\ndraws = \"3..1\"", "`draws`"),
            (
                "name = \"a\"\nfile = \"f\"\nmax_mean_error = -1.0",
                "`max_mean_error`",
            ),
            (
                "name = \"a\"\nfile = \"f\"\nmax_mean_error = nan",
                "`max_mean_error`",
            ),
            (
                "name = \"a\"\nfile = \"f\"\nchecksum = { cpu = \"12\" }",
                "`checksum`",
            ),
            (
                "name = \"a\"\nfile = \"f\"\nchecksum = { cpu = \"zzzzzzzzzzzzzzzz\" }",
                "`checksum`",
            ),
            (
                "name = \"a\"\nfile = \"f\"\nchecksum = { \"a b\" = \"0000000000000000\" }",
                "`checksum`",
            ),
            ("name = \"a\"\nfile = \"f\"\nskip = \"\"", "`skip`"),
        ];
        for (body, key) in cases {
            let text = format!("\n[[trace]]\n{body}\n");
            let e = parse_str(&text).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("line 3"), "{body}: {e}");
        }
    }

    #[test]
    fn duplicate_names_point_at_the_first() {
        let e = parse_str(
            "[[trace]]\nname = \"a\"\nfile = \"f\"\n[[trace]]\nname = \"a\"\nfile = \"g\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 5") && e.contains("first at line 2"), "{e}");
    }

    #[test]
    fn bad_default_is_named() {
        let e = parse_str("[defaults]\nmax_mean_error = -0.5\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("[defaults]") && e.contains("max_mean_error"),
            "{e}"
        );
    }
}
