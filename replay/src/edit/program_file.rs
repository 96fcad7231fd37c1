//! A replacement program read from a file: a container, assembly text, or raw microcode,
//! checked by decoding it.

use crate::shade::Uniform;
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::container::Stage;
use rsxtrace_program::container::{self, Container};
use rsxtrace_program::{fragment, vertex};

/// [`ProgramFile::format`] of assembly text, as `disasm` writes it.
const ASSEMBLY: &str = "assembly";

/// A program read from a file, checked by decoding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramFile {
    /// Its stage.
    pub stage: Stage,
    /// The microcode as it lies in guest memory (fragment) or as uploaded, big-endian
    /// (vertex).
    pub ucode: Vec<u8>,
    /// The fragment `SHADER_CONTROL` word the container states.
    pub control: Option<u32>,
    /// Where a vertex program is loaded, as the file states it (`None`: raw microcode,
    /// loaded at the first chosen draw's start slot).
    pub vertex_load: Option<VertexLoad>,
    /// Instructions.
    pub instructions: usize,
    /// For a vertex program, the input attributes it reads (bit n = `v[n]`; every one when
    /// it reads `v[A0 + n]`).
    pub vertex_inputs: u32,
    /// For a fragment program, the `SET_TEX_COORD_CONTROL` words its container's loader
    /// writes (`(coordinate, value)`, `Container::texcoord_controls`: a PSL1GHT container's).
    pub texcoord_controls: Vec<(u8, u32)>,
    /// For a vertex program, the constants its container's loader uploads with it
    /// (`(register, x y z w bits)`, `Container::vertex_constants`: a PSL1GHT container's
    /// literals).
    pub vertex_constants: Vec<(u32, [u32; 4])>,
    /// Whether each chosen draw keeps the inline constants it patched in where this program
    /// left them unchanged (`super::constants`): true for a file, false for a program taken
    /// from a draw, which goes as that draw ran it.
    pub keeps_draw_constants: bool,
    /// Whether each instruction that is one of the program a chosen draw ran keeps that
    /// program's words (`rsxtrace_program::kept_encoding`): true for assembly text, whose
    /// encoding leaves the bits no unit reads out, so that a draw given its own disassembly
    /// runs its very bytes; `edit --canonical` turns it off.
    pub keeps_draw_encoding: bool,
    /// The container format, as `disasm` names it.
    pub format: &'static str,
}

/// Where a vertex program is loaded and, when the file states them, the attribute masks
/// to set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexLoad {
    /// The load slot (a container's `instructionSlot`, assembly's first label).
    pub slot: u32,
    /// The start slot (a container's load slot, assembly's `START` line or first line).
    pub start: u32,
    /// `SET_VERTEX_ATTRIB_INPUT_MASK` and `SET_VERTEX_ATTRIB_OUTPUT_MASK` from a container
    /// or a draw; `None` keeps the game's (assembly text states none).
    pub masks: Option<(u32, u32)>,
}

/// Why a program file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProgramFileError {
    /// Not a container, assembly text or raw microcode of whole slots.
    #[error(transparent)]
    Bytes(#[from] container::ProgramBytesError),
    /// A draw number past the frame a program is taken from.
    #[error("draw {draw}: the frame has {draws} draws")]
    NoSuchDraw {
        /// The draw asked for.
        draw: usize,
        /// Draws in the frame.
        draws: usize,
    },
    /// The draw's program of that stage was not read (its problems say why).
    #[error("draw {draw}: its {stage} program could not be read: {why}")]
    Unreadable {
        /// The draw.
        draw: usize,
        /// Which stage.
        stage: &'static str,
        /// The draw's problems.
        why: String,
    },
    /// A container of the other stage.
    #[error("it holds a {found} program, not a {wanted} one")]
    WrongStage {
        /// The stage the file holds.
        found: &'static str,
        /// The stage asked for.
        wanted: &'static str,
    },
    /// A fragment program longer than a capture's fragment program is read to.
    #[error(
        "its fragment program runs {slots} slots (instructions and inline constants) to its \
         END; a capture's fragment program is read to {max} slots at most \
         (`rsxtrace_capture::frame::fragment::MAX_FRAGMENT_SLOTS`), so the edited draws \
         would find none"
    )]
    TooLong {
        /// Its slots through END and END's constant.
        slots: usize,
        /// The bound.
        max: u32,
    },
    /// The microcode does not decode.
    #[error("its {stage} microcode does not decode: {why}")]
    Decode {
        /// Which stage.
        stage: &'static str,
        /// The decoder's message.
        why: String,
    },
}

impl ProgramFile {
    /// Read a program of `stage` from a file's bytes: a container of that stage, assembly
    /// text of that stage (as `disasm` writes it; `fragment::assemble`, `vertex::assemble`),
    /// else raw microcode of whole 16-byte slots.
    pub fn parse(bytes: &[u8], stage: Stage) -> Result<ProgramFile, ProgramFileError> {
        Self::parse_with_uniforms(bytes, stage, &[]).map(|(file, _)| file)
    }

    /// [`ProgramFile::parse`], with each of `uniforms` the container declares (a fragment
    /// uniform of that name in a CgBinaryProgram or PSL1GHT container) written into its
    /// inline constant slots, as `shade --uniform` does; also the uniforms written, by index.
    pub fn parse_with_uniforms(
        bytes: &[u8],
        stage: Stage,
        uniforms: &[Uniform],
    ) -> Result<(ProgramFile, Vec<usize>), ProgramFileError> {
        let mut parsed = Container::parse_any(bytes, stage)?;
        let mut written = Vec::new();
        for (i, u) in uniforms.iter().enumerate() {
            if let Some(offsets) = parsed.embedded_constants(&u.name).map(<[u32]>::to_vec) {
                container::set_uniform(parsed.ucode_mut(), &offsets, u.value)
                    .map_err(container::ProgramBytesError::from)?;
                written.push(i);
            }
        }
        if parsed.stage() != stage {
            return Err(ProgramFileError::WrongStage {
                found: parsed.stage().name(),
                wanted: stage.name(),
            });
        }
        let decode_error = |why: String| ProgramFileError::Decode {
            stage: stage.name(),
            why,
        };
        let mut vertex_inputs = 0;
        let (ucode, instructions) = match stage {
            Stage::Vertex => {
                let p = vertex::decode_bytes(parsed.ucode())
                    .map_err(|e| decode_error(e.to_string()))?;
                vertex_inputs = p.inputs_read();
                (parsed.ucode().to_vec(), p.instructions.len())
            }
            Stage::Fragment => {
                let p =
                    fragment::decode(parsed.ucode()).map_err(|e| decode_error(e.to_string()))?;
                // The microcode through the END instruction and its constant.
                let slots = p
                    .instructions
                    .iter()
                    .map(|i| i.slot as usize + 1 + usize::from(i.constant.is_some()))
                    .max()
                    .unwrap_or(0);
                let max = rsxtrace_capture::frame::fragment::MAX_FRAGMENT_SLOTS;
                if slots > max as usize {
                    return Err(ProgramFileError::TooLong { slots, max });
                }
                let len = (slots * 16).min(parsed.ucode().len());
                (parsed.ucode()[..len].to_vec(), p.instructions.len())
            }
        };
        let format = match &parsed {
            Container::Raw(_) if rsxtrace_program::assembly::assembly_text(bytes).is_some() => {
                ASSEMBLY
            }
            other => other.format_name(),
        };
        let file = ProgramFile {
            stage,
            ucode,
            control: parsed.control_word(),
            vertex_load: match (parsed.vertex_load(), parsed.load_slot()) {
                (Some((slot, input, output)), _) => Some(VertexLoad {
                    slot,
                    start: slot,
                    masks: Some((input, output)),
                }),
                (None, Some(slot)) => Some(VertexLoad {
                    slot,
                    start: parsed.start_slot().unwrap_or(slot),
                    masks: None,
                }),
                (None, None) => None,
            }
            .filter(|_| stage == Stage::Vertex),
            instructions,
            vertex_inputs,
            // Each empty for the other stage (the container's stage is `stage`, checked above).
            vertex_constants: parsed.vertex_constants(),
            texcoord_controls: parsed.texcoord_controls(),
            keeps_draw_constants: true,
            keeps_draw_encoding: format == ASSEMBLY,
            format,
        };
        Ok((file, written))
    }
}

impl ProgramFile {
    /// The program of `stage` that draw `draw` of `frame` runs, as a replacement elsewhere: a
    /// fragment program's microcode as the draw read it (its inline constants included) with
    /// the draw's shader control; a vertex program's slots from the lowest it can reach
    /// through its END (or the highest it can reach), loaded at the same slots and started at
    /// the draw's start slot, with the draw's attribute masks.
    pub fn from_draw(
        frame: &Frame,
        draw: usize,
        stage: Stage,
    ) -> Result<ProgramFile, ProgramFileError> {
        let d = frame.draws.get(draw).ok_or(ProgramFileError::NoSuchDraw {
            draw,
            draws: frame.draws.len(),
        })?;
        let unreadable = |why: String| ProgramFileError::Unreadable {
            draw,
            stage: stage.name(),
            why,
        };
        let problems = || {
            d.problems
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        };
        match stage {
            Stage::Fragment => {
                let fp = d
                    .fragment_program
                    .as_ref()
                    .ok_or_else(|| unreadable(problems()))?;
                let program = fragment::decode(&fp.ucode).map_err(|e| unreadable(e.to_string()))?;
                Ok(ProgramFile {
                    stage,
                    ucode: fp.ucode.clone(),
                    control: Some(d.shader_control.raw),
                    vertex_load: None,
                    instructions: program.instructions.len(),
                    vertex_inputs: 0,
                    vertex_constants: Vec::new(),
                    texcoord_controls: Vec::new(),
                    keeps_draw_constants: false,
                    keeps_draw_encoding: false,
                    format: "a draw's program",
                })
            }
            Stage::Vertex => {
                let start = d.vp_start as usize;
                let end = d
                    .vp_end_slot
                    .ok_or_else(|| unreadable("no END from its start slot".into()))?
                    as usize;
                let program = vertex::decode_from_memory(&d.vertex_program, start)
                    .map_err(|e| unreadable(e.to_string()))?;
                // Every slot it can reach, subroutines below its start or past its END too.
                let slots = program.instructions.iter().map(|i| i.slot);
                let low = slots.clone().min().unwrap_or(start).min(start);
                let high = slots.max().unwrap_or(end).max(end);
                let words = d
                    .vertex_program
                    .get(low * 4..(high + 1) * 4)
                    .ok_or_else(|| unreadable("its slots lie past program memory".into()))?;
                Ok(ProgramFile {
                    stage,
                    ucode: words.iter().flat_map(|w| w.to_be_bytes()).collect(),
                    control: None,
                    vertex_load: Some(VertexLoad {
                        slot: u32::try_from(low).unwrap_or(d.vp_start),
                        start: d.vp_start,
                        masks: Some((u32::from(d.vertex_inputs.input_mask), d.output_mask)),
                    }),
                    instructions: program.instructions.len(),
                    vertex_inputs: program.inputs_read(),
                    vertex_constants: Vec::new(),
                    texcoord_controls: Vec::new(),
                    keeps_draw_constants: false,
                    keeps_draw_encoding: false,
                    format: "a draw's program",
                })
            }
        }
    }
}
