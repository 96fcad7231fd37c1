//! The result of matching a frame's programs against a library, as data: per unique captured
//! program ([`ProgramMatch`]), per draw ([`DrawMatch`]) and a [`MatchSummary`]. Rendering
//! (tables) is the CLI's job; the JSON form is `serde_json` of [`MatchReport`].
//!
//! JSON schema (format version [`FORMAT_VERSION`]; `docs/batch.md` "match"):
//!
//! ```text
//! {
//!   "format_version": 1,
//!   "capture": "path",
//!   "library": {"files_read": n, "vertex_programs": n, "fragment_programs": n,
//!               "problems": [{"path", "offset" (number|null), "reason"}]},
//!   "summary": {"draws": n, "programs": n, "exact": n, "nearest": n, "unmatched": n,
//!               "draws_all_exact": n},
//!   "programs": [{"id": n, "stage": "Vertex"|"Fragment", "key": "16 hex digits",
//!                 "draws": n, "first_draw": n, "match": "exact"|"nearest"|"unmatched",
//!                 "names": ["fog.fpo", ...],            // exact: the library's names
//!                 "sources": [{"name", "origin": {"kind": "loose"|"rpcs3_cache"|"executable", ...}}],
//!                 "candidates": [{"key", "names", "sources", "score", "differences": ["..."]}],
//!                 "fingerprint": {...} | null,          // of the captured program, when not exact
//!                 "note": "why there is no candidate" | null}],
//!   "draws": [{"draw": n,
//!              "vertex": {"program": id, "key", "match", "names", "score"},
//!              "fragment": {...same...} | null,
//!              "fragment_problem": "why the draw has no fragment program" | null,
//!              "inline_constants": [{"slot": n, "values": [x, y, z, w]}]}]
//! }
//! ```
//!
//! `score` is 1 for an exact match, the best candidate's score for a nearest match, and
//! null when unmatched. `inline_constants` are the draw's own fragment-program constant slots
//! (slot index from the first instruction), decoded as four f32 each; a value that is not a
//! finite number is written as null.

use super::fingerprint::Fingerprint;
use super::library::LibrarySource;
use rsxtrace_program::container::Stage;
use rsxtrace_program::source::SourceProblem;
use serde::Serialize;

/// Version of the JSON form; bumped when a field changes meaning or disappears.
pub const FORMAT_VERSION: u32 = 1;

/// How a captured program was named.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// A library program has its content key (inline constants may differ).
    Exact,
    /// No library program has its key; the nearest by fingerprint are given.
    Nearest,
    /// No candidate: the library holds no program of the stage, or the captured program does
    /// not decode.
    Unmatched,
}

impl MatchKind {
    /// `"exact"`, `"nearest"`, `"unmatched"`.
    pub fn name(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Nearest => "nearest",
            MatchKind::Unmatched => "unmatched",
        }
    }
}

/// A library program close to a captured one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// Its content key, 16 hex digits.
    pub key: String,
    /// Its names.
    pub names: Vec<String>,
    /// Its sources.
    pub sources: Vec<LibrarySource>,
    /// Similarity in [0, 1] (`similarity` module).
    pub score: f64,
    /// What differs, one line per component.
    pub differences: Vec<String>,
}

/// One unique program of the frame and how it was named.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProgramMatch {
    /// Index in [`MatchReport::programs`].
    pub id: usize,
    /// Vertex or fragment.
    pub stage: Stage,
    /// Content key, 16 hex digits.
    pub key: String,
    /// Draws using it (among those matched).
    pub draws: usize,
    /// The first such draw.
    pub first_draw: usize,
    /// How it was named.
    #[serde(rename = "match")]
    pub kind: MatchKind,
    /// Names of the exact library program (empty unless exact).
    pub names: Vec<String>,
    /// Sources of the exact library program (empty unless exact).
    pub sources: Vec<LibrarySource>,
    /// Nearest library programs, best first (empty when exact).
    pub candidates: Vec<Candidate>,
    /// The captured program's fingerprint (when not exact and it decodes).
    pub fingerprint: Option<Fingerprint>,
    /// Why there is no candidate, when there is none.
    pub note: Option<String>,
}

impl ProgramMatch {
    /// The score shown for the program: 1 when exact, the best candidate's when nearest.
    pub fn score(&self) -> Option<f64> {
        match self.kind {
            MatchKind::Exact => Some(1.0),
            MatchKind::Nearest => self.candidates.first().map(|c| c.score),
            MatchKind::Unmatched => None,
        }
    }

    /// Names to show: the exact names, or the best candidate's.
    pub fn shown_names(&self) -> &[String] {
        match self.kind {
            MatchKind::Exact => &self.names,
            _ => self
                .candidates
                .first()
                .map(|c| c.names.as_slice())
                .unwrap_or(&[]),
        }
    }
}

/// One stage of one draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageMatch {
    /// Index in [`MatchReport::programs`].
    pub program: usize,
    /// Content key, 16 hex digits.
    pub key: String,
    /// How the program was named.
    #[serde(rename = "match")]
    pub kind: MatchKind,
    /// The exact names, or the best candidate's.
    pub names: Vec<String>,
    /// See [`ProgramMatch::score`].
    pub score: Option<f64>,
}

/// One inline constant of a draw's fragment program.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct InlineConstantValue {
    /// Slot index from the program's first instruction.
    pub slot: u32,
    /// The four values, as f32.
    pub values: [f32; 4],
}

/// One draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawMatch {
    /// Draw index.
    pub draw: usize,
    /// Its vertex program.
    pub vertex: StageMatch,
    /// Its fragment program, when the capture holds it.
    pub fragment: Option<StageMatch>,
    /// Why there is no fragment program.
    pub fragment_problem: Option<String>,
    /// The values of its fragment program's inline constants.
    pub inline_constants: Vec<InlineConstantValue>,
}

/// The library's side of the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LibrarySummary {
    /// Files read.
    pub files_read: usize,
    /// Distinct vertex programs.
    pub vertex_programs: usize,
    /// Distinct fragment programs.
    pub fragment_programs: usize,
    /// Files (or parts) that could not be used: warnings.
    pub problems: Vec<SourceProblem>,
}

/// Totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MatchSummary {
    /// Draws matched.
    pub draws: usize,
    /// Unique programs (both stages).
    pub programs: usize,
    /// Unique programs named exactly.
    pub exact: usize,
    /// Unique programs with nearest candidates only.
    pub nearest: usize,
    /// Unique programs without any candidate.
    pub unmatched: usize,
    /// Draws whose programs (both stages present) are all named exactly.
    pub draws_all_exact: usize,
}

/// Everything `match` found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchReport {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The capture, as given.
    pub capture: String,
    /// The library.
    pub library: LibrarySummary,
    /// Totals.
    pub summary: MatchSummary,
    /// Unique programs, in order of first use.
    pub programs: Vec<ProgramMatch>,
    /// Draws, in order.
    pub draws: Vec<DrawMatch>,
}

impl MatchReport {
    /// Whether every unique program was named exactly.
    pub fn all_exact(&self) -> bool {
        self.summary.exact == self.summary.programs
    }
}
