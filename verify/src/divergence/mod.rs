//! `rsxtrace verify`: per-draw numeric divergence between the recompiled shaders (wgpu) and
//! the reference interpreter, for the vertex and fragment stages.
//!
//! Brief overview:
//! - [`tolerance`]: register classes (fp32, fp16, fx12), their tolerances, the NaN and
//!   infinity policy, and the `--tolerance` syntax.
//! - [`compare`]: one component compared (absolute, relative and ULP error through `approx`),
//!   and the per-register tally with the worst element.
//! - [`vertex_stage`]: a draw's vertices through the interpreter (f32 and f64) and through
//!   `vp_compute`, compared per output register and component.
//! - [`fragment_stage`]: the draw rasterized from the interpreter's vertex outputs, the same
//!   per-pixel inputs through `fp_eval` and the fragment interpreter, compared per colour output.
//! - [`textures`]: the units a fragment program samples, decoded once and bound on both
//!   sides (or the reason the device cannot sample them as the interpreter does).
//! - [`modules`]: the recompiled modules of the run, by content (translated once).
//! - [`mutate`]: the negative control (`--mutate N`): one random field of a decoded program
//!   changed on the GPU side only.
//! - [`state_diff`]: what changed since the previous draw (keys of `Draw::summary`).
//! - [`report`]: the report model and its table, JSON and HTML printers.
//! - [`run`]: [`run::verify_frame`], the whole frame (rayon across draws).
//!
//! The design, the JSON schema, the tolerances and what "skipped" means are in `docs/verify.md`.

pub mod clock;
pub mod compare;
pub mod context;
pub mod fragment_stage;
pub mod modules;
pub mod mutate;
pub mod report;
pub mod run;
pub mod state_diff;
pub mod textures;
pub mod tolerance;
pub mod vertex_stage;

pub use report::model::{
    ConstantFill, DrawReport, Outcome, RegisterReport, Stage, StageReport, Substitution,
    VerifyReport,
};
pub use run::{verify_frame, StageSelection, VerifyError, VerifyOptions};
pub use tolerance::{Class, Tolerance, Tolerances};
