//! `rsxtrace verify --explain`: the first instruction where the recompiled program parts from
//! the reference interpreter, for one invocation of a draw.
//!
//! The program is recompiled with instrumentation (`FragmentTranslateOptions::instrument`)
//! that records, for the chosen pixel, every executed instruction's slot and the register and
//! condition code values it leaves into a storage buffer on the device; the interpreter traces
//! the same invocation (`interp::fragment::trace`). [`align`] walks both records step by step
//! and names the first step whose register, value (beyond verify's tolerance) or instruction
//! differs, with both values, its disassembly and the WGSL lines it became ([`wgsl_lines`]).
//!
//! - [`fragment`]: one pixel of a draw ([`fragment::explain_pixel`]).
//! - [`vertex`]: one vertex of a draw ([`vertex::explain_vertex`]).
//! - [`align`]: the step-by-step comparison.
//! - [`wgsl_lines`]: the lines of a module an instruction became.

pub mod align;
pub mod fragment;
pub mod vertex;
pub mod wgsl_lines;

use serde::Serialize;

/// Most records the device keeps for one invocation (a longer run is compared up to here and
/// says so).
pub const RECORD_CAPACITY: u32 = 1 << 16;

/// Which invocation of a draw is explained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Invocation {
    /// A pixel (window coordinates).
    Pixel([u32; 2]),
    /// A vertex (processing order).
    Vertex(usize),
}

/// What went differently at the first divergent step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DivergenceKind {
    /// Same instruction, same register, a value beyond tolerance.
    Value,
    /// Same instruction, a different register (or condition register) written.
    Register,
    /// The walks part: the next executed instruction differs (a flow decision).
    Flow,
    /// One side ran out of steps before the other.
    Length,
}

/// The first divergent step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// What differs.
    pub kind: DivergenceKind,
    /// Index of the step among the compared steps (executed, non-flow instructions of the
    /// invocation).
    pub step: usize,
    /// The instruction the device ran at this step (the interpreter's for `length` when the
    /// device stopped first).
    pub slot: u32,
    /// The interpreter's instruction at this step, when it differs (`flow`, `length`).
    pub reference_slot: Option<u32>,
    /// For `flow`: the flow instruction that decided differently (the nearest one before the
    /// parting, or the innermost loop around it).
    pub flow_slot: Option<u32>,
    /// Register the device wrote (`R3`, `H7`, `CC0`).
    pub register: Option<String>,
    /// Register the interpreter wrote, when it differs.
    pub reference_register: Option<String>,
    /// The device's value after the instruction.
    pub gpu: Option<[f32; 4]>,
    /// The interpreter's value (f32 run).
    pub reference: Option<[f64; 4]>,
    /// The interpreter's value in its f64 run (same walk), for conditioning.
    pub reference_f64: Option<[f64; 4]>,
    /// Components beyond tolerance (`xz`).
    pub components: String,
    /// The f32 and f64 interpreter runs also disagree here beyond tolerance: the value
    /// depends on rounding (verify counts such a mismatch as ill-conditioned).
    pub ill_conditioned: bool,
    /// Disassembly of the device's instruction.
    pub disassembly: String,
    /// Disassembly of the interpreter's instruction (when the slots differ).
    pub reference_disassembly: Option<String>,
    /// The WGSL lines the instruction became (first line number, 1-based, and the lines),
    /// from the module verify runs (not the instrumented one).
    pub wgsl: Option<wgsl_lines::Lines>,
}

/// The explanation of one invocation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explanation {
    /// Draw index.
    pub draw: usize,
    /// The stage (`vertex` or `fragment`).
    pub stage: &'static str,
    /// The invocation.
    pub invocation: Invocation,
    /// Steps both sides ran identically before the divergence (or in all).
    pub steps_matched: usize,
    /// Steps the device recorded.
    pub gpu_steps: u64,
    /// Steps the interpreter ran.
    pub reference_steps: usize,
    /// The device's record ran out of room: steps after the capacity are not compared.
    pub truncated: bool,
    /// The first divergent step; `None` when every step matches.
    pub divergence: Option<Divergence>,
}

/// An explanation, or why there is none (`verify --explain-all` in JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Explained {
    /// The explanation.
    Done(Box<Explanation>),
    /// Why the invocation could not be explained.
    Failed {
        /// The reason.
        error: String,
    },
}

impl From<Result<Explanation, String>> for Explained {
    fn from(r: Result<Explanation, String>) -> Explained {
        match r {
            Ok(e) => Explained::Done(Box::new(e)),
            Err(error) => Explained::Failed { error },
        }
    }
}

/// The element `verify` reports worst in a diverged stage: the pixel (fragment) or the vertex
/// (vertex) of its worst register's worst component.
pub fn worst_invocation(
    stage: &crate::divergence::report::model::StageReport,
) -> Option<Invocation> {
    use crate::divergence::report::model::Stage;
    let w = stage.worst_register()?.worst.as_ref()?;
    match stage.stage {
        Stage::Fragment => w.pixel.map(Invocation::Pixel),
        Stage::Vertex => Some(Invocation::Vertex(w.element)),
    }
}

/// Explains `invocation` of draw `draw` (the device side as verify's test-only hooks edit it).
pub fn explain(
    frame: &rsxtrace_capture::frame::Frame,
    draw: usize,
    invocation: Invocation,
    cx: &crate::divergence::context::Context<'_>,
) -> Result<Explanation, String> {
    match invocation {
        Invocation::Pixel([x, y]) => fragment::explain_pixel(frame, draw, (x, y), None, cx),
        Invocation::Vertex(k) => vertex::explain_vertex(frame, draw, k, None, cx),
    }
}
