//! `rsxtrace batch`: every unique program of a game's sources (RPCS3 shader caches,
//! executables, loose containers: `rsxtrace_program::source`) decoded, disassembled,
//! analysed, interpreted, recompiled to WGSL, validated, and checked against the interpreter
//! on the device; exported as WGSL, SPIR-V, HLSL, MSL and GLSL keyed by content.
//!
//! - [`catalog`]: unique programs by (stage, content key), with every source location and the
//!   state each is checked with.
//! - [`inputs`]: seeded vertex input sets and the fragment pixel grid.
//! - [`textures`]: pattern textures in the pipeline's dimensions, through the texture model.
//! - [`check`]: one program through the whole chain, with its [`check::Status`].
//! - [`control`]: the negative control over a sample of the proven programs.
//! - [`export`]: naga's back ends, one file per language.
//! - [`report`] and [`html`]: the report model, its JSON, manifest, table rows and page.
//! - [`run`] runs it all: [`run_batch`].
//!
//! The design, the statuses, the JSON schema and the exit codes are in `docs/batch.md`.

pub mod catalog;
pub mod check;
pub mod control;
pub mod export;
pub mod html;
pub mod inputs;
pub mod report;
pub mod run;
pub mod textures;

pub use check::Status;
pub use report::BatchReport;
pub use run::{run_batch, BatchError, BatchOptions};
