//! Naming a capture's programs from a program library (`rsxtrace match`).
//!
//! Brief overview:
//! - [`library`]: a [`Library`] built from what `rsxtrace_program::source::discover` found,
//!   one entry per distinct `(stage, content key)` with every source (file, offset, RPCS3
//!   name), its [`Fingerprint`] computed once;
//! - [`fingerprint`]: the documented structural fingerprint (instruction count, opcode
//!   histogram, texture units in order, inputs read, outputs written, constants read);
//! - [`similarity`]: the score in [0, 1] of two fingerprints and the list of what differs;
//! - [`frame_match`]: [`match_frame`]: every draw's programs named by exact content key (the
//!   frame model's `vp_hash` / `fp_hash`, fragment inline constants zeroed, so a program that
//!   differs only in its inline constants is an exact match), the nearest candidates for the
//!   unique programs without one;
//! - [`report`]: the result as data ([`MatchReport`]) and its JSON schema.
//!
//! ```
//! use rsxtrace_verify::matching::{match_frame, Library, MatchOptions};
//! use rsxtrace_program::source::Discovery;
//! use rsxtrace_capture::{builder::CaptureBuilder, frame::Frame};
//! let frame = Frame::from_capture(&CaptureBuilder::new("empty").finish()).unwrap();
//! let library = Library::from_discovery(Discovery::default());
//! let report = match_frame(&frame, &library, &MatchOptions::default());
//! assert_eq!(report.summary.draws, 0);
//! ```

pub mod fingerprint;
pub mod frame_match;
pub mod library;
pub mod report;
pub mod similarity;

pub use fingerprint::{Fingerprint, FingerprintError};
pub use frame_match::{match_frame, MatchOptions, DEFAULT_CANDIDATES};
pub use library::{Library, LibraryProgram, LibrarySource};
pub use report::{
    Candidate, DrawMatch, InlineConstantValue, MatchKind, MatchReport, MatchSummary, ProgramMatch,
    StageMatch, FORMAT_VERSION,
};
