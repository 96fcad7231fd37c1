//! One vertex's execution recorded instruction by instruction ([`trace_vertex`]): per
//! executed instruction its slot, every register it changed (temps R0–R63, the outputs, CC0
//! and CC1, A0 and A1) with the value afterwards, where the vertex goes next and the call
//! depth. `rsxtrace debug CAPTURE --draw N --vertex K --trace` prints it; the outputs are the
//! interpreter's own (the same lane-group executor, observed).

use super::error::VertexExecError;
use super::lanes::{Context, Group};
use super::output::LaneOutput;
use super::real::Real;
use super::{VertexAttributes, VertexEnvironment, VertexOptions};
use crate::interp::Arithmetic;
use rsxtrace_program::vertex::VertexProgram;
use serde::Serialize;

/// What one executed instruction did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VertexStep {
    /// 0-based count of executed instructions.
    pub step: u32,
    /// Instruction slot.
    pub slot: usize,
    /// Registers whose value changed, with the value afterwards: `R3`, `o[HPOS]`, `CC0`,
    /// `A0` (address registers as four integers).
    pub changed: Vec<(String, [f64; 4])>,
    /// The next slot, `None` when the vertex ended.
    pub next: Option<usize>,
    /// Call stack depth after the instruction.
    pub depth: usize,
}

/// A vertex register, as a debugger names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum VertexRegister {
    /// Temp R0–R63.
    Temp(u8),
    /// Output register 0–15 (HPOS, COL0, ...).
    Output(u8),
    /// CC0, CC1.
    Cc(u8),
    /// A0, A1 (four integers each).
    Addr(u8),
}

/// A register write made before an instruction (a debugger's register write).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexPatch {
    /// The instruction count ([`VertexStep::step`]) before which it is made.
    pub step: u32,
    /// The register.
    pub register: VertexRegister,
    /// Its four components (address registers: truncated to integers).
    pub value: [f64; 4],
}

/// The whole record of one vertex.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VertexTrace {
    /// Executed instructions in order.
    pub steps: Vec<VertexStep>,
    /// The vertex's outputs.
    pub output: LaneOutput,
}

/// Runs `program` on the one vertex `input` and records every executed instruction (the
/// arguments are [`super::run_vertex`]'s).
pub fn trace_vertex(
    program: &VertexProgram,
    memory_words: &[u32],
    env: &VertexEnvironment<'_>,
    input: &VertexAttributes,
    options: &VertexOptions,
) -> Result<VertexTrace, VertexExecError> {
    trace_vertex_with(program, memory_words, env, input, options, &[])
}

/// [`trace_vertex`] with register writes made on the way.
pub fn trace_vertex_with(
    program: &VertexProgram,
    memory_words: &[u32],
    env: &VertexEnvironment<'_>,
    input: &VertexAttributes,
    options: &VertexOptions,
    patches: &[VertexPatch],
) -> Result<VertexTrace, VertexExecError> {
    let table = super::entry_table(program, memory_words)?;
    let ctx = Context {
        table: &table,
        env,
        options,
    };
    let inputs = [*input];
    match options.arithmetic {
        Arithmetic::F32 => traced::<f32>(&ctx, &inputs, patches),
        Arithmetic::F64 => traced::<f64>(&ctx, &inputs, patches),
    }
}

fn traced<T: Real>(
    ctx: &Context<'_>,
    inputs: &[VertexAttributes],
    patches: &[VertexPatch],
) -> Result<VertexTrace, VertexExecError> {
    let mut steps = Vec::new();
    let result = Group::<T>::new(ctx, 0, inputs)
        .observe(Box::new(|s| steps.push(s)))
        .patch(patches.to_vec())
        .run()?;
    let lane = result
        .lanes
        .into_iter()
        .next()
        .ok_or(VertexExecError::NoEntry { start: 0 })?;
    Ok(VertexTrace {
        steps,
        output: LaneOutput {
            written: lane.written,
            registers: lane.out.map(|v| v.map(T::to_f64)),
            steps: lane.steps,
        },
    })
}
