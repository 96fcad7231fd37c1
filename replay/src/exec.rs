//! Draw execution: one draw of a captured frame through the reference vertex interpreter
//! ([`execute_draw`]), with a serialisable result ([`DrawExecution`]) for
//! `rsxtrace exec CAPTURE --draw N --json`.
//!
//! Steps: decode the draw's vertex program from its transform program memory at `vp_start`
//! (`rsxtrace_program::vertex::decode_from_memory`), fetch its vertices from the guest memory
//! the draw sees (`rsxtrace_capture::fetch::fetch_draw`), and run them with the draw's
//! transform constants and `SET_TRANSFORM_BRANCH_BITS` ([`crate::interp::vertex::run_vertex`]).
//! Immediate-mode draws (vertices written with `SET_VERTEX_DATA*` inside BEGIN/END) run like
//! any other: the fetcher returns their vertices. A TXL samples the draw's vertex texture
//! units through the texture model ([`crate::texture::VertexTextures`]); a unit that cannot be
//! decoded samples (0, 0, 0, 0) and is named in `texture_warnings`.
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
//!   "unknown_attributes": [6],      // inputs the capture does not hold (read as RPCS3's replay)
//!   "attribute_warnings": ["attribute 6 has no array ..."],
//!   "texture_warnings": ["texture unit 1: ..."],  // vertex units TXL could not decode
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
use crate::texture::VertexTextures;
use rsxtrace_capture::fetch::{fetch_draw, FetchError};
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::vertex::{decode_from_memory, VertexDecodeError};
use serde::Serialize;

/// Options of [`execute_draw`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ExecOptions {
    /// Interpreter options.
    pub vertex: VertexOptions,
    /// `NV4097_SET_TRANSFORM_BRANCH_BITS` for BRB/CLB, overriding the draw's own value;
    /// `None` uses the draw's (`Draw::transform_branch_bits`, always known).
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
    /// Input attributes whose values the capture does not hold (set before the captured
    /// frame); they read what RPCS3's replay reads (`rsxtrace_capture::fetch::UnknownValues`).
    pub unknown_attributes: Vec<u8>,
    /// One warning per such attribute, naming it and the value it read.
    pub attribute_warnings: Vec<String>,
    /// One warning per vertex texture unit a TXL names that could not be decoded (it sampled
    /// (0, 0, 0, 0)).
    pub texture_warnings: Vec<String>,
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
    let (vertex_textures, texture_errors) =
        VertexTextures::for_program(&draw.vertex_textures, &program, &memory, None);
    let env = VertexEnvironment {
        constants: &constants,
        branch_bits: Some(options.branch_bits.unwrap_or(draw.transform_branch_bits)),
        sampler: Some(&vertex_textures),
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
        unknown_attributes: fetched.unknown_attributes(),
        attribute_warnings: fetched.unknown_notes(),
        texture_warnings: texture_errors
            .iter()
            .map(|e| format!("vertex {e}; it samples (0, 0, 0, 0)"))
            .collect(),
        vertices,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::builder::CaptureBuilder;
    use rsxtrace_capture::rrc::Capture;
    use rsxtrace_program::vertex::{
        encode, set_branch_target, OutputRegister, ScalarOpcode, VectorOpcode, VertexInstruction,
        VertexProgram, WriteMask,
    };

    /// Register indices (byte offset / 4, rrc-format.md 4.2 to 4.5).
    const BEGIN_END: u32 = 0x1808 / 4;
    const DATA4F_ATTR0: u32 = 0x1C00 / 4;
    const BRANCH_BITS: u32 = 0x1FF8 / 4;
    const POSITIONS: [[f32; 4]; 3] = [
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.5, 1.0],
        [0.0, 2.0, 0.0, 4.0],
    ];

    /// A NOP/NOP slot reading v[0] everywhere, no destinations.
    fn nop(slot: usize) -> VertexInstruction {
        VertexInstruction::idle(slot)
    }

    /// `op o[reg].xyzw, v[0]`.
    fn out(slot: usize, op: VectorOpcode, reg: u8) -> VertexInstruction {
        VertexInstruction {
            vector: op,
            output: Some(OutputRegister(reg)),
            vec_result: true,
            vec_mask: WriteMask(0xF),
            ..nop(slot)
        }
    }

    /// A capture whose one draw pushes POSITIONS as immediate-mode vertices of attribute 0,
    /// with `program` at slot 0 and `SET_TRANSFORM_BRANCH_BITS` = `branch_bits` in the
    /// captured register file.
    fn immediate_capture(program: &[VertexInstruction], branch_bits: u32) -> Capture {
        let mut b = CaptureBuilder::new("exec_unit.rrc");
        b.initial_register(BRANCH_BITS, branch_bits).unwrap();
        let words = encode(&VertexProgram {
            start_slot: 0,
            instructions: program.to_vec(),
        });
        b.set_vertex_program(&words, 0, 0, 0b1, 0b1).unwrap();
        b.method(BEGIN_END, 1).unwrap(); // POINTS
        for p in POSITIONS {
            for (j, x) in p.iter().enumerate() {
                b.method(DATA4F_ATTR0 + j as u32, x.to_bits()).unwrap();
            }
        }
        b.method(BEGIN_END, 0).unwrap();
        b.finish()
    }

    /// slot 0: BRB to slot 2 when branch bit 3 is set; slot 1: MOV o[COL0], v[0];
    /// slot 2: MOV o[HPOS], v[0] (END).
    fn branching_program() -> Vec<VertexInstruction> {
        let mut brb = nop(0);
        brb.scalar = ScalarOpcode::Brb;
        set_branch_target(&mut brb, 2);
        // Boolean index = src2 temp-index bits 0..4, branch-if-true = bit 5.
        brb.sources[2].temp_index = 3 | 1 << 5;
        let mut end = out(2, VectorOpcode::Mov, 0);
        end.end = true;
        vec![brb, out(1, VectorOpcode::Mov, 1), end]
    }

    #[test]
    fn immediate_draw_runs_with_the_draws_branch_bits() {
        let frame = Frame::from_capture(&immediate_capture(&branching_program(), 1 << 3)).unwrap();
        assert_eq!(frame.draws[0].transform_branch_bits, 1 << 3);
        let ex = execute_draw(&frame, 0, &ExecOptions::default()).unwrap();
        assert_eq!(ex.vertex_count, 3);
        for (k, p) in POSITIONS.iter().enumerate() {
            let v = &ex.vertices[k];
            assert_eq!(v.output("HPOS").unwrap().value, OutputValue::F32(*p));
            assert!(v.output("COL0").is_none(), "bit 3 set: BRB skips slot 1");
        }
        // An explicit value overrides the draw's.
        let opts = ExecOptions {
            branch_bits: Some(0),
            ..ExecOptions::default()
        };
        let ex = execute_draw(&frame, 0, &opts).unwrap();
        assert_eq!(
            ex.vertices[2].output("COL0").unwrap().value,
            OutputValue::F32(POSITIONS[2])
        );
    }

    #[test]
    fn txl_of_a_disabled_vertex_texture_unit_reads_zero() {
        // RPCS3 binds a null texture to a unit that is not enabled: (0, 0, 0, 0), no warning.
        let mut txl = out(0, VectorOpcode::Txl, 7);
        txl.end = true;
        let frame = Frame::from_capture(&immediate_capture(&[txl], 0)).unwrap();
        let ex = execute_draw(&frame, 0, &ExecOptions::default()).unwrap();
        assert!(ex.texture_warnings.is_empty());
        assert_eq!(
            ex.vertices[1].output("TEX0").unwrap().value,
            OutputValue::F32([0.0; 4])
        );
    }
}
