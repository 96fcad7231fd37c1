//! The reference vertex-program interpreter: RSX vertex programs run on the CPU, many vertices
//! per call, in f32 (the RSX's width) or f64.
//!
//! Brief overview:
//! - [`run_vertex`] runs a decoded [`VertexProgram`] over a batch of vertices. Vertices are
//!   split into lane groups that run in parallel (rayon); inside a group the lanes run in lock
//!   step with an active mask, so per-vertex branches diverge and reconverge ([`lanes`]
//!   documents the schedule and the per-instruction rules).
//! - [`run_vertex_outputs`] is the renderers' entry (registers only); it runs programs a row
//!   of vertices per instruction (`rows`: the lane executor's arithmetic with the operands
//!   decoded once per row, control flow while every lane takes it alike) and hands rows whose
//!   lanes part ways, or that would fail, and programs with TXL or BRA, to the lane executor,
//!   with the same results bit for bit (`tests/vertex_rows.rs`).
//! - [`VertexEnvironment`]: what the program reads besides its inputs: the 468 constants
//!   ([`ConstantBank`], unknown ones are errors unless allowed), the transform branch bits
//!   (BRB/CLB), a vertex texture sampler (TXL) and which input attributes exist.
//! - [`trace::trace_vertex`]: one vertex recorded instruction by instruction (the debugger's
//!   trace).
//! - [`VertexOptions`]: width, limits, and a named choice for each rule where RPCS3 and the
//!   spec disagree ([`options`]).
//! - [`VertexBatchOutput`]: per vertex the 16 output registers (HPOS, COL0, COL1, BFC0, BFC1,
//!   FOGC, PSZ, TEX0–TEX8; unwritten ones read (0, 0, 0, 1)) and which were written.
//!
//! Semantics come from rsx-microcode.md B.8 and B.9 (RPCS3 `VertexProgramDecompiler.cpp` and
//! `VertexInterpreter.glsl`, Mesa `nvfx_vertprog.c`, the NV specs); [`math`] cites each rule.
//!
//! ```
//! use rsxtrace_program::vertex;
//! use rsxtrace_replay::interp::vertex::{run_vertex, ConstantBank, VertexEnvironment, VertexOptions};
//!
//! // MOV o[HPOS], v[POS]; END  (the first slot of the ps3autotests cube VP, with END set)
//! let p = vertex::decode_words(&[0x401f9c6c, 0x0040000d, 0x8106c083, 0x6041ff81]).unwrap();
//! let constants = ConstantBank::new();
//! let env = VertexEnvironment { input_mask: 1, ..VertexEnvironment::new(&constants) };
//! let mut v = [[0.0f32; 4]; 16];
//! v[0] = [1.0, 2.0, 3.0, 1.0];
//! let out = run_vertex(&p, &[], &env, &[v], &VertexOptions::default()).unwrap();
//! assert_eq!(out.lanes[0].get_f32(0), Some([1.0, 2.0, 3.0, 1.0]));
//! ```

pub mod constants;
pub mod error;
pub mod lanes;
pub mod math;
pub mod options;
pub mod output;
pub mod real;
mod rows;
pub mod sampler;
pub mod table;
pub mod trace;

pub use constants::{ConstantBank, UnknownConstantRead, CONSTANT_COUNT};
pub use error::VertexExecError;
pub use options::{
    ArlRounding, ExpLog, Lg2Guard, MadRounding, MinMaxNan, RccClamp, Reassociation, RsqGuard,
    SaturateNan, ScalarOperand, VertexOptions, VertexRules,
};
pub use output::{
    nonexistent_output_notes, output_name, LaneOutput, VertexBatchOutput, OUTPUT_COUNT,
    OUTPUT_DEFAULT,
};
pub use sampler::VertexTextureSampler;
pub use table::ProgramTable;

use crate::interp::Arithmetic;
use lanes::{Context, Group, GroupResult};
use rayon::prelude::*;
use real::Real;
use rsxtrace_program::vertex::VertexProgram;
use std::collections::BTreeSet;
use table::Slot;

/// Inputs per vertex: the 16 attribute registers v[0..16], each (x, y, z, w).
pub type VertexAttributes = [[f32; 4]; 16];

/// What a program reads besides its per-vertex inputs.
#[derive(Clone, Copy)]
pub struct VertexEnvironment<'a> {
    /// The transform constants.
    pub constants: &'a ConstantBank,
    /// `NV4097_SET_TRANSFORM_BRANCH_BITS` (BRB/CLB); `None` when unknown (then BRB/CLB fail).
    pub branch_bits: Option<u32>,
    /// Vertex texture sampler for TXL; `None` makes TXL an error.
    pub sampler: Option<&'a dyn VertexTextureSampler>,
    /// Bit `n` set when the inputs hold attribute `n`; reading another attribute is an error
    /// unless [`VertexOptions::allow_missing_inputs`].
    pub input_mask: u16,
}

impl<'a> VertexEnvironment<'a> {
    /// `constants`, no branch bits, no sampler, every attribute provided.
    pub fn new(constants: &'a ConstantBank) -> Self {
        VertexEnvironment {
            constants,
            branch_bits: None,
            sampler: None,
            input_mask: 0xFFFF,
        }
    }
}

impl std::fmt::Debug for VertexEnvironment<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VertexEnvironment")
            .field("branch_bits", &self.branch_bits)
            .field("sampler", &self.sampler.is_some())
            .field("input_mask", &self.input_mask)
            .finish_non_exhaustive()
    }
}

/// Run `program` once per element of `inputs`.
///
/// `program` holds absolute slots (as from `decode_from_memory`, or from 0 for `decode_words`)
/// and starts at its `start_slot`. `memory_words` is the transform program memory (4 words per
/// slot from slot 0, normally 544 × 4; may be empty): slots the program does not contain are
/// decoded from it, so that BRA through the address register can reach them.
///
/// On failure the error of the first failing lane group is returned (groups hold consecutive
/// vertices; inside a group, the first error met in execution order). Each error names the slot
/// and, where one vertex is at fault, its lane = position in `inputs`.
pub fn run_vertex(
    program: &VertexProgram,
    memory_words: &[u32],
    env: &VertexEnvironment<'_>,
    inputs: &[VertexAttributes],
    options: &VertexOptions,
) -> Result<VertexBatchOutput, VertexExecError> {
    let table = entry_table(program, memory_words)?;
    let ctx = Context {
        table: &table,
        env,
        options,
    };
    match options.arithmetic {
        Arithmetic::F32 => run_typed::<f32>(&ctx, inputs),
        Arithmetic::F64 => run_typed::<f64>(&ctx, inputs),
    }
}

/// One vertex's 16 output registers in f32.
pub type RegisterOutputs = [[f32; 4]; OUTPUT_COUNT];

/// [`run_vertex_outputs`]'s result: the registers per vertex and the unknown constants read.
pub type RenderOutputs = (Vec<RegisterOutputs>, Vec<UnknownConstantRead>);

/// [`run_vertex`] for renderers: per vertex only its 16 output registers as f32 (unwritten
/// ones at [`OUTPUT_DEFAULT`]; f64 results rounded to f32), and the unknown constants read,
/// without the per-lane bookkeeping of [`VertexBatchOutput`]. The same values as
/// `run_vertex(..).lanes[k].registers` as f32.
pub fn run_vertex_outputs(
    program: &VertexProgram,
    memory_words: &[u32],
    env: &VertexEnvironment<'_>,
    inputs: &[VertexAttributes],
    options: &VertexOptions,
) -> Result<RenderOutputs, VertexExecError> {
    let table = entry_table(program, memory_words)?;
    let ctx = Context {
        table: &table,
        env,
        options,
    };
    match options.arithmetic {
        Arithmetic::F32 => outputs_typed::<f32>(&ctx, inputs, |v| *v),
        Arithmetic::F64 => outputs_typed::<f64>(&ctx, inputs, |v| v.map(|c| c.map(|x| x as f32))),
    }
}

fn outputs_typed<T: Real>(
    ctx: &Context<'_>,
    inputs: &[VertexAttributes],
    narrow: impl Fn(&[[T; 4]; OUTPUT_COUNT]) -> RegisterOutputs + Sync,
) -> Result<RenderOutputs, VertexExecError> {
    let group = ctx.options.lanes_per_group.max(1);
    // Programs run a row of lanes per instruction (`rows`) while their flow is uniform; a
    // group the row executor gives up on, and a program it does not take, runs on the lane
    // executor.
    let row_program = rows::row_program(ctx.table);
    // Each group writes its lanes' registers into its own part of the result.
    let mut outputs: Vec<RegisterOutputs> = vec![[[0.0; 4]; OUTPUT_COUNT]; inputs.len()];
    let results: Vec<Result<BTreeSet<UnknownConstantRead>, VertexExecError>> = inputs
        .par_chunks(group)
        .zip(outputs.par_chunks_mut(group))
        .enumerate()
        .map(|(g, (chunk, out))| {
            if let Some(program) = &row_program {
                let mut unknown = BTreeSet::new();
                if rows::run_rows::<T, _>(ctx, program, chunk, out, &narrow, &mut unknown).is_some()
                {
                    return Ok(unknown);
                }
            }
            Group::<T>::new(ctx, g * group, chunk).run_into(out, &narrow)
        })
        .collect();
    let mut unknown = BTreeSet::new();
    for r in results {
        unknown.extend(r?);
    }
    Ok((outputs, unknown.into_iter().collect()))
}

/// The slot table of `program` in `memory_words`, or why its entry slot cannot run.
pub(crate) fn entry_table(
    program: &VertexProgram,
    memory_words: &[u32],
) -> Result<ProgramTable, VertexExecError> {
    let table = ProgramTable::build(program, memory_words);
    match table.get(table.start) {
        Slot::Ready(_) => Ok(table),
        Slot::Invalid(e) => Err(VertexExecError::Undecodable {
            slot: table.start,
            source: e.clone(),
        }),
        Slot::Empty => Err(VertexExecError::NoEntry { start: table.start }),
    }
}

fn run_typed<T: Real>(
    ctx: &Context<'_>,
    inputs: &[VertexAttributes],
) -> Result<VertexBatchOutput, VertexExecError> {
    let group = ctx.options.lanes_per_group.max(1);
    let results: Vec<Result<GroupResult<T>, VertexExecError>> = inputs
        .par_chunks(group)
        .enumerate()
        .map(|(g, chunk)| Group::<T>::new(ctx, g * group, chunk).run())
        .collect();
    let mut lanes = Vec::with_capacity(inputs.len());
    let mut unknown = BTreeSet::new();
    let mut total_steps = 0u64;
    for r in results {
        let r = r?;
        unknown.extend(r.unknown);
        for l in r.lanes {
            total_steps += u64::from(l.steps);
            lanes.push(LaneOutput {
                written: l.written,
                registers: l.out.map(|v| v.map(T::to_f64)),
                steps: l.steps,
            });
        }
    }
    Ok(VertexBatchOutput {
        arithmetic: ctx.options.arithmetic,
        lanes,
        unknown_constant_reads: unknown.into_iter().collect(),
        total_steps,
    })
}
