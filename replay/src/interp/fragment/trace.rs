//! One quad's execution recorded instruction by instruction ([`trace_quad`]): per executed
//! instruction its slot, the active lanes, the source values it read, the value it wrote
//! (after scale, precision and clamp, as the register holds it), the condition registers after
//! it, A0, the nesting depth and the killed lanes; flow instructions record their decision.
//! It is the record `rsxtrace debug --trace` prints and the debugger steps through; the
//! results are the interpreter's own (the same engine, observed).

use super::compile::Compiled;
use super::error::FragmentExecError;
use super::exec::Engine;
use super::io::{QuadInputs, QuadOutputs};
use super::options::FragmentState;
use super::prepare::Prepared;
use crate::interp::Arithmetic;
use crate::texture::Sampler;
use rsxtrace_program::fragment::{FpOpcode, FragmentProgram};
use serde::Serialize;

/// Four components of four lanes (lane-major: `v[lane][component]`).
pub type QuadValue = [[f64; 4]; 4];

/// What one executed instruction (or one iteration of a LOOP) did to the traced quad.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// 0-based count of executed instructions (a loop body's instructions count once per
    /// iteration).
    pub step: u64,
    /// Instruction slot.
    pub slot: u32,
    /// Its opcode.
    pub opcode: FpOpcode,
    /// Lanes (bit n = lane n of the quad) the instruction ran for.
    pub active: u8,
    /// Source values read, in operand order (after swizzle and modifiers).
    pub sources: Vec<QuadValue>,
    /// Per source, the components the opcode reads (bit 0 = x); the others hold no value.
    pub source_components: Vec<u8>,
    /// The register written and its value afterwards (`None` for flow, KIL, no-destination).
    pub written: Option<Written>,
    /// CC0 and CC1 after the instruction.
    pub cc: [QuadValue; 2],
    /// The loop counter register A0.
    pub a0: i64,
    /// IF/LOOP nesting depth.
    pub depth: usize,
    /// Lanes killed so far.
    pub killed: u8,
    /// A flow decision (`IF: lanes 0b0101 take the IF branch`, `LOOP: iteration 3`, `BRK:
    /// lanes ...`).
    pub branch: Option<String>,
    /// The traced lane's whole register file after the instruction
    /// ([`TraceOptions::snapshot_lane`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registers: Option<Box<RegisterSnapshot>>,
}

/// One lane's register file: R0–R47 and H0–H95 (H2n and H2n+1 are the halves of Rn).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RegisterSnapshot {
    /// R0–R47.
    pub r: Vec<[f64; 4]>,
    /// H0–H95.
    pub h: Vec<[f64; 4]>,
}

/// A register write made before an instruction (a debugger's register write).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Patch {
    /// The instruction count ([`Step::step`]) before which it is made.
    pub step: u64,
    /// H register (else R).
    pub fp16: bool,
    /// Register index.
    pub index: u8,
    /// Lane of the quad.
    pub lane: usize,
    /// The four components (an H value is rounded to binary16).
    pub value: [f64; 4],
}

/// How [`trace_quad_with`] runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceOptions {
    /// Each step carries this lane's register file.
    pub snapshot_lane: Option<usize>,
    /// Register writes to make on the way.
    pub patches: Vec<Patch>,
}

/// A register write.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Written {
    /// `R3` or `H7`.
    pub register: String,
    /// Components written (bit 0 = x).
    pub mask: u8,
    /// The register's value after the write (every component, every lane).
    pub value: QuadValue,
}

/// The whole record of one quad.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuadTrace {
    /// Executed instructions in order.
    pub steps: Vec<Step>,
    /// The quad's outputs.
    pub outputs: QuadOutputs,
}

/// Runs `program` on `quad` alone and records every executed instruction.
pub fn trace_quad(
    program: &FragmentProgram,
    state: &FragmentState,
    quad: &QuadInputs,
    sampler: &dyn Sampler,
) -> Result<QuadTrace, FragmentExecError> {
    trace_quad_with(program, state, quad, sampler, &TraceOptions::default())
}

/// [`trace_quad`] with register snapshots and register writes on the way.
pub fn trace_quad_with(
    program: &FragmentProgram,
    state: &FragmentState,
    quad: &QuadInputs,
    sampler: &dyn Sampler,
    options: &TraceOptions,
) -> Result<QuadTrace, FragmentExecError> {
    let prepared = Prepared::new(program)?;
    match state.options.arithmetic {
        Arithmetic::F32 => traced::<f32>(&prepared, state, quad, sampler, options),
        Arithmetic::F64 => traced::<f64>(&prepared, state, quad, sampler, options),
    }
}

fn traced<T: crate::interp::fragment::Real>(
    prepared: &Prepared<'_>,
    state: &FragmentState,
    quad: &QuadInputs,
    sampler: &dyn Sampler,
    options: &TraceOptions,
) -> Result<QuadTrace, FragmentExecError> {
    let compiled = Compiled::<T>::new(prepared, &state.options)?;
    let mut steps = Vec::new();
    let mut out = [QuadOutputs::default()];
    {
        let mut engine = Engine::new(&compiled, state, sampler);
        engine.observe(Box::new(|s: Step| steps.push(s)));
        if let Some(lane) = options.snapshot_lane {
            engine.snapshot_lane(lane);
        }
        engine.patch(options.patches.clone());
        engine.run_block(0, &mut out, &|_| *quad)?;
    }
    let [outputs] = out;
    Ok(QuadTrace { steps, outputs })
}
