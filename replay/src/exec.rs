//! Draw execution: one draw of a captured frame through the reference vertex interpreter
//! ([`execute_draw`]), with a serialisable result ([`DrawExecution`]) for
//! `rsxtrace exec CAPTURE --draw N --json`.
//!
//! Steps: decode the draw's vertex program from its transform program memory at `vp_start`
//! (`rsxtrace_program::vertex::decode_from_memory`), fetch its vertices from the guest memory
//! the draw sees (`rsxtrace_capture::fetch::fetch_draw`), and run them with the draw's
//! transform constants ([`crate::interp::vertex::run_vertex`]).
//!
//! # JSON shape
//!
//! ```json
//! {
//!   "draw": 0,                      // draw index in the frame
//!   "vp_start": 0,                  // TRANSFORM_PROGRAM_START slot
//!   "instructions": 5,              // slots in the decoded program
//!   "arithmetic": "f32",            // "f32" or "f64"
//!   "output_mask": 16385,           // SET_VERTEX_ATTRIB_OUTPUT_MASK, as captured
//!   "vertex_count": 3,
//!   "unknown_constants": [ {"constant": 7, "slot": 2} ],  // only when allowed; else empty
//!   "vertices": [
//!     { "position": 0,              // processing order (restarts not counted)
//!       "index": 0,                 // vertex index (fetch `indices`)
//!       "steps": 5,                 // instructions executed
//!       "outputs": [                // written registers only, ascending
//!         {"register": 0, "name": "HPOS", "value": [0.5, 0.0, 0.0, 1.0]} ] } ]
//! }
//! ```
//!
//! `value` numbers are f32 in f32 arithmetic (shortest round-trip decimal of the f32) and f64
//! in f64 arithmetic. Registers the program did not write are left out; they hold
//! (0, 0, 0, 1).

use crate::interp::vertex::{
    output_name, run_vertex, ConstantBank, UnknownConstantRead, VertexAttributes,
    VertexEnvironment, VertexExecError, VertexOptions,
};
use crate::interp::Arithmetic;
use rsxtrace_capture::fetch::{fetch_draw, FetchError};
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::vertex::{decode_from_memory, VertexDecodeError};
use serde::Serialize;

/// Options of [`execute_draw`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ExecOptions {
    /// Interpreter options.
    pub vertex: VertexOptions,
    /// `NV4097_SET_TRANSFORM_BRANCH_BITS` for BRB/CLB. The frame model does not track it per
    /// draw yet, so it must be given here; `None` makes BRB/CLB an error.
    pub branch_bits: Option<u32>,
    /// Run at most this many vertices (the first ones in processing order); `None` = all.
    pub max_vertices: Option<usize>,
}

/// Why a draw could not be executed. Each variant names the draw.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The draw index is not in the frame.
    #[error("draw {draw}: no such draw (the frame has {count})")]
    NoSuchDraw {
        /// Requested index.
        draw: usize,
        /// Draws in the frame.
        count: usize,
    },
    /// The vertex program does not decode.
    #[error("draw {draw}: vertex program: {source}")]
    Decode {
        /// Draw index.
        draw: usize,
        /// Decoder error (names the slot and field).
        source: VertexDecodeError,
    },
    /// The vertices could not be fetched.
    #[error("draw {draw}: vertex fetch: {source}")]
    Fetch {
        /// Draw index.
        draw: usize,
        /// Fetch error (names attribute, location and address).
        source: FetchError,
    },
    /// The interpreter stopped.
    #[error("draw {draw}: vertex program execution: {source}")]
    Exec {
        /// Draw index.
        draw: usize,
        /// Interpreter error (names the slot, and the vertex position as lane).
        source: VertexExecError,
    },
}

/// An output register value in the run's width.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum OutputValue {
    /// f32 arithmetic.
    F32([f32; 4]),
    /// f64 arithmetic.
    F64([f64; 4]),
}

impl OutputValue {
    /// The components as f64 (exact for both).
    pub fn to_f64(self) -> [f64; 4] {
        match self {
            OutputValue::F32(v) => v.map(f64::from),
            OutputValue::F64(v) => v,
        }
    }
}

/// One written output register.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExecutedOutput {
    /// NV40 register number (0 = HPOS … 15 = TEX8).
    pub register: u8,
    /// Register name.
    pub name: &'static str,
    /// Value.
    pub value: OutputValue,
}

/// One executed vertex.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExecutedVertex {
    /// Position in processing order.
    pub position: usize,
    /// Vertex index.
    pub index: u32,
    /// Instructions executed.
    pub steps: u32,
    /// Written output registers, ascending.
    pub outputs: Vec<ExecutedOutput>,
}

impl ExecutedVertex {
    /// The written register named `name` (e.g. `"HPOS"`).
    pub fn output(&self, name: &str) -> Option<&ExecutedOutput> {
        self.outputs.iter().find(|o| o.name == name)
    }
}

/// The result of [`execute_draw`]; the JSON shape is in the module documentation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawExecution {
    /// Draw index.
    pub draw: usize,
    /// Start slot.
    pub vp_start: u32,
    /// Slots in the decoded program.
    pub instructions: usize,
    /// Width.
    pub arithmetic: Arithmetic,
    /// The draw's output mask.
    pub output_mask: u32,
    /// Vertices executed.
    pub vertex_count: usize,
    /// Unknown constants read (only with `allow_unknown_constants`).
    pub unknown_constants: Vec<UnknownConstantRead>,
    /// Per vertex results.
    pub vertices: Vec<ExecutedVertex>,
}

/// Execute draw `draw_index` of `frame`; see the module documentation.
pub fn execute_draw(
    frame: &Frame,
    draw_index: usize,
    options: &ExecOptions,
) -> Result<DrawExecution, ExecError> {
    let no_draw = || ExecError::NoSuchDraw {
        draw: draw_index,
        count: frame.draws.len(),
    };
    let draw = frame.draws.get(draw_index).ok_or_else(no_draw)?;
    let memory = frame.memory(draw_index).ok_or_else(no_draw)?;
    let program =
        decode_from_memory(&draw.vertex_program, draw.vp_start as usize).map_err(|source| {
            ExecError::Decode {
                draw: draw_index,
                source,
            }
        })?;
    let fetched = fetch_draw(&draw.vertex_inputs, &memory).map_err(|source| ExecError::Fetch {
        draw: draw_index,
        source,
    })?;
    let count = options
        .max_vertices
        .map_or(fetched.len(), |m| m.min(fetched.len()));
    let mut inputs: Vec<VertexAttributes> = vec![[[0.0; 4]; 16]; count];
    let mut input_mask = 0u16;
    for column in &fetched.attributes {
        let a = usize::from(column.attribute);
        if a >= 16 {
            continue;
        }
        input_mask |= 1 << a;
        for (v, value) in inputs.iter_mut().zip(&column.values) {
            v[a] = *value;
        }
    }
    let constants = ConstantBank::from_transform(&draw.constants);
    let env = VertexEnvironment {
        constants: &constants,
        branch_bits: options.branch_bits,
        sampler: None,
        input_mask,
    };
    let out = run_vertex(
        &program,
        &draw.vertex_program,
        &env,
        &inputs,
        &options.vertex,
    )
    .map_err(|source| ExecError::Exec {
        draw: draw_index,
        source,
    })?;
    let arithmetic = options.vertex.arithmetic;
    let vertices = out
        .lanes
        .iter()
        .zip(&fetched.indices)
        .enumerate()
        .map(|(position, (lane, &index))| ExecutedVertex {
            position,
            index,
            steps: lane.steps,
            outputs: lane
                .written_registers()
                .map(|(register, v)| ExecutedOutput {
                    register,
                    name: output_name(register).unwrap_or("?"),
                    value: match arithmetic {
                        // Exact: f32 results were widened to f64.
                        Arithmetic::F32 => OutputValue::F32(v.map(|c| c as f32)),
                        Arithmetic::F64 => OutputValue::F64(v),
                    },
                })
                .collect(),
        })
        .collect();
    Ok(DrawExecution {
        draw: draw_index,
        vp_start: draw.vp_start,
        instructions: program.instructions.len(),
        arithmetic,
        output_mask: draw.output_mask,
        vertex_count: count,
        unknown_constants: out.unknown_constant_reads,
        vertices,
    })
}
