//! libgcm-style program calls: the vertex program and transform constants (uploaded through
//! the FIFO as batched packets, rrc-format.md 3.2 and 4.5) and the fragment program (placed
//! in guest memory and pointed at, 4.6).

use rsxtrace_rrc::Location;

use crate::builder::{check_range, CaptureBuilder};
use crate::error::BuildError;
use crate::methods::{self as m, BATCH_WINDOW};

/// Instruction slots of transform-program memory (`max_vertex_program_instructions`).
pub const VERTEX_PROGRAM_SLOTS: u32 = 544;
/// Transform constants RPCS3 keeps; writes past index 467 are dropped (4.5).
pub const TRANSFORM_CONSTANTS: u32 = 468;
/// vec4 constants per CONSTANT_LOAD + packet (32 words).
pub const CONSTANTS_PER_PACKET: usize = 8;

impl CaptureBuilder {
    /// `cellGcmSetVertexProgram`-like upload: TRANSFORM_PROGRAM_LOAD(`load_slot`), the words
    /// in packets of up to 32 at 0x0B80 (each restarting at the window base), then
    /// TRANSFORM_PROGRAM_START(`start_slot`) and the attribute input and output masks.
    pub fn set_vertex_program(
        &mut self,
        words: &[u32],
        load_slot: u32,
        start_slot: u32,
        input_mask: u32,
        output_mask: u32,
    ) -> Result<(), BuildError> {
        if words.is_empty() || words.len() % 4 != 0 {
            return Err(BuildError::InvalidArgument {
                what: "vertex program",
                detail: format!(
                    "{} words is not a non-zero multiple of 4 (one instruction)",
                    words.len()
                ),
            });
        }
        let end_slot = u64::from(load_slot) + (words.len() / 4) as u64;
        check_range(
            "vertex program end slot",
            end_slot,
            u64::from(VERTEX_PROGRAM_SLOTS) + 1,
        )?;
        check_range(
            "vertex program start slot",
            u64::from(start_slot),
            u64::from(VERTEX_PROGRAM_SLOTS),
        )?;
        check_range(
            "vertex attribute input mask",
            u64::from(input_mask),
            1 << 16,
        )?;
        self.record(m::SET_TRANSFORM_PROGRAM_LOAD, load_slot);
        for packet in words.chunks(BATCH_WINDOW as usize) {
            self.record_batch(m::SET_TRANSFORM_PROGRAM, packet);
        }
        self.record(m::SET_TRANSFORM_PROGRAM_START, start_slot);
        self.record(m::SET_VERTEX_ATTRIB_INPUT_MASK, input_mask);
        self.record(m::SET_VERTEX_ATTRIB_OUTPUT_MASK, output_mask);
        Ok(())
    }

    /// `cellGcmSetVertexProgramParameterBlock`-like upload of `constants` from index
    /// `first_index` on: for every 8 vec4s, TRANSFORM_CONSTANT_LOAD then one packet of up to
    /// 32 words at 0x1F00 (the load register does not auto-increment, 4.5).
    pub fn set_transform_constants(
        &mut self,
        first_index: u32,
        constants: &[[f32; 4]],
    ) -> Result<(), BuildError> {
        if constants.is_empty() {
            return Err(BuildError::InvalidArgument {
                what: "transform constants",
                detail: "no constants".into(),
            });
        }
        let end = u64::from(first_index) + constants.len() as u64;
        check_range(
            "transform constant end",
            end,
            u64::from(TRANSFORM_CONSTANTS) + 1,
        )?;
        for (k, chunk) in constants.chunks(CONSTANTS_PER_PACKET).enumerate() {
            let load = first_index + (k * CONSTANTS_PER_PACKET) as u32;
            let words: Vec<u32> = chunk.iter().flat_map(|v| v.map(f32::to_bits)).collect();
            self.record(m::SET_TRANSFORM_CONSTANT_LOAD, load);
            self.record_batch(m::SET_TRANSFORM_CONSTANT, &words);
        }
        Ok(())
    }

    /// `cellGcmSetFragmentProgram`-like: place `ucode` (raw guest bytes, RSX half-swapped
    /// words) at `offset` in `location`, then SET_SHADER_PROGRAM (`offset | (location + 1)`)
    /// and SET_SHADER_CONTROL (`control`). The END draw attaches as many bytes as the 4.9 scan
    /// finds.
    pub fn set_fragment_program(
        &mut self,
        location: Location,
        offset: u32,
        ucode: &[u8],
        control: u32,
    ) -> Result<(), BuildError> {
        if offset & 3 != 0 || offset > 0x7FFF_FFFC {
            return Err(BuildError::InvalidArgument {
                what: "fragment program offset",
                detail: format!("{offset:#x} must be 4-byte aligned and below 0x80000000"),
            });
        }
        self.put_memory(location, offset, ucode)?;
        let loc_bits = match location {
            Location::Local => 1,
            Location::Main => 2,
        };
        self.record(m::SET_SHADER_PROGRAM, offset | loc_bits);
        self.record(m::SET_SHADER_CONTROL, control);
        Ok(())
    }
}
