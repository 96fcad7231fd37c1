//! What a batch run produces ([`VertexBatchOutput`]): per vertex ([`LaneOutput`]) the 16 output
//! registers with the set of those written, plus the unknown constants read; and the output
//! register names ([`output_name`]).

use super::constants::UnknownConstantRead;
use crate::interp::Arithmetic;
use serde::Serialize;

/// Number of output registers that exist (HPOS..TEX8, rsx-microcode.md B.8 "Outputs").
pub const OUTPUT_COUNT: usize = 16;

/// The value every output register holds before the program writes it: (0, 0, 0, 1), as
/// RPCS3 initialises `dest[i]` (`VertexInterpreter.glsl`, `GetDST` default value).
pub const OUTPUT_DEFAULT: [f64; 4] = [0.0, 0.0, 0.0, 1.0];

/// Name of output register `number` (nouveau `NV40_VP_INST_DEST_*`; rsx-microcode.md B.8):
/// HPOS, COL0, COL1, BFC0, BFC1, FOGC, PSZ, TEX0–TEX8. `None` for 16 and above.
pub fn output_name(number: u8) -> Option<&'static str> {
    rsxtrace_program::vertex::OutputRegister(number).name()
}

/// One warning per instruction of `program` that writes an output register past `o[15]`: the
/// 5-bit field allows `o[16..31]`, which feed nothing. The write is dropped (RPCS3's
/// `VertexProgramDecompiler` logs "dst index out of range", declares the register and no
/// output reads it) and the draw goes on.
pub fn nonexistent_output_notes(program: &rsxtrace_program::vertex::VertexProgram) -> Vec<String> {
    program
        .instructions
        .iter()
        .filter_map(|i| {
            let o = i.output_written().filter(|&o| usize::from(o) >= OUTPUT_COUNT)?;
            Some(format!(
                "vertex program slot {} writes o[{o}], which does not exist; the write is dropped, as RPCS3 drops it",
                i.slot
            ))
        })
        .collect()
}

/// The result of one vertex.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LaneOutput {
    /// Bit `n` set when output register `n` was written (any component).
    pub written: u16,
    /// The 16 output registers, unwritten ones at [`OUTPUT_DEFAULT`]. In f32 arithmetic the
    /// values are f32 results widened exactly.
    pub registers: [[f64; 4]; OUTPUT_COUNT],
    /// Instructions this vertex executed.
    pub steps: u32,
}

impl LaneOutput {
    /// Output register `number` if the program wrote it.
    pub fn get(&self, number: u8) -> Option<[f64; 4]> {
        if number < 16 && self.written & (1 << number) != 0 {
            self.registers.get(usize::from(number)).copied()
        } else {
            None
        }
    }

    /// Output register `number` as f32 if the program wrote it (exact in f32 arithmetic).
    pub fn get_f32(&self, number: u8) -> Option<[f32; 4]> {
        self.get(number).map(|v| v.map(|c| c as f32))
    }

    /// `(number, value)` of every written register, ascending.
    pub fn written_registers(&self) -> impl Iterator<Item = (u8, [f64; 4])> + '_ {
        (0u8..16).filter_map(move |n| Some((n, self.get(n)?)))
    }
}

/// The result of a batch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VertexBatchOutput {
    /// Width the batch was computed in.
    pub arithmetic: Arithmetic,
    /// One entry per input vertex, in input order.
    pub lanes: Vec<LaneOutput>,
    /// Unknown constants read (only when allowed), sorted, without duplicates.
    pub unknown_constant_reads: Vec<UnknownConstantRead>,
    /// Instructions executed over all vertices.
    pub total_steps: u64,
}
