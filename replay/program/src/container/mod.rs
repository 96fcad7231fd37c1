//! Program containers: `CgBinaryProgram` (`.vpo`/`.fpo`), the PSL1GHT/Tiny3D `"VP"`/`"FP"`
//! containers (`.rvp`/`.rfp`), and raw microcode. [`Container::parse`] detects the format
//! from the content; the accessors give the stage, the microcode exactly as stored, the
//! parameters, the inline-constant slots of fragment uniforms and the fragment
//! `SHADER_CONTROL` word. [`set_uniform`]/[`get_uniform`] patch and read those slots;
//! [`write_program`] writes a `CgBinaryProgram` back, [`write_over`] over the file it came from.
//!
//! Every parser refuses malformed input with a [`ContainerError`] naming the byte offset and
//! field; none of them panics or allocates from an unchecked count.

mod cg;
mod cg_enums;
mod error;
mod overwrite;
pub(crate) mod psl1ght;
mod psl1ght_rewrite;
mod reader;
mod rewrite;
mod uniform;
mod write;

use serde::Serialize;

pub use cg::{
    CgFragmentInfo, CgParameter, CgProgram, CgStageInfo, CgVertexInfo, FORMAT_REVISION,
    PROFILE_FRAGMENT, PROFILE_VERTEX, SLOT_SIZE,
};
pub use cg_enums::{CgBase, CgDirection, CgResource, CgType, CgVariability};
pub use error::{ContainerError, ContainerErrorKind};
pub use overwrite::write_over;
pub use psl1ght::{
    FpLayout, Psl1ghtAttribute, Psl1ghtConstant, Psl1ghtFragmentProgram, Psl1ghtVertexProgram,
    VpLayout, MAGIC_FRAGMENT, MAGIC_VERTEX,
};
pub use psl1ght_rewrite::{psl1ght_fragment_with_microcode, psl1ght_vertex_with_microcode};
pub use rewrite::{fragment_registers, with_microcode, RewriteError, RewriteNotes};
pub use uniform::{decode_word, encode_word, get_uniform, set_uniform};
pub use write::{fragment_matrix_uniform, fragment_uniform, write_program, WriteError};

/// Why [`Container::parse_any`] read no program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramBytesError {
    /// A malformed container, or raw microcode of no whole slots.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// Fragment or vertex assembly text that does not assemble.
    #[error(transparent)]
    Assembly(#[from] crate::assembly::AssembleError),
}

/// Pipeline stage of a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Stage {
    /// Vertex program (plain big-endian words).
    Vertex,
    /// Fragment program (half-word-swapped words).
    Fragment,
}

impl Stage {
    /// `vertex` or `fragment`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        }
    }
}

/// Microcode with no container; the caller names the stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RawProgram {
    /// The stage the caller gave.
    pub stage: Stage,
    /// The bytes, a whole number of 16-byte slots.
    pub ucode: Vec<u8>,
    /// For vertex assembly text: the slot it was assembled for (its first line's label),
    /// where its branch targets point. `None` for microcode read as it is.
    pub load_slot: Option<u32>,
    /// For vertex assembly text: the slot it starts at (its `START` line, else its first).
    pub start_slot: Option<u32>,
}

/// A program container of any supported format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Container {
    /// Sony `CgBinaryProgram`.
    Cg(CgProgram),
    /// PSL1GHT/Tiny3D `"VP"` container.
    Psl1ghtVertex(Psl1ghtVertexProgram),
    /// PSL1GHT `"FP"` container.
    Psl1ghtFragment(Psl1ghtFragmentProgram),
    /// Raw microcode.
    Raw(RawProgram),
}

/// How a parameter is bound, per container format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Binding {
    /// A Cg parameter's resource (`resIndex` is e.g. the constant register for `CG_C`).
    Cg {
        /// `res`.
        resource: CgResource,
        /// `resIndex`.
        resource_index: i32,
        /// `var`.
        variability: CgVariability,
        /// `direction`.
        direction: CgDirection,
    },
    /// A PSL1GHT input attribute.
    Attribute {
        /// Attribute index.
        index: u32,
    },
    /// A PSL1GHT constant (vertex: constant register; fragment: offset-table offset).
    Constant {
        /// `index`.
        index: u32,
        /// Internal (unnamed literal) constant.
        internal: bool,
    },
}

/// A format-independent view of one parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParameterRef<'a> {
    /// Name, if stored.
    pub name: Option<&'a str>,
    /// Semantic, if stored (Cg only).
    pub semantic: Option<&'a str>,
    /// Where it is bound.
    pub binding: Binding,
    /// Default / initial value, if stored.
    pub default_value: Option<Vec<f32>>,
}

fn attribute_ref(a: &Psl1ghtAttribute) -> ParameterRef<'_> {
    ParameterRef {
        name: a.name.as_deref(),
        semantic: None,
        binding: Binding::Attribute { index: a.index },
        default_value: None,
    }
}

fn constant_ref(c: &Psl1ghtConstant) -> ParameterRef<'_> {
    ParameterRef {
        name: c.name.as_deref(),
        semantic: None,
        binding: Binding::Constant {
            index: c.index,
            internal: c.internal,
        },
        default_value: Some(c.values.iter().map(|&v| f32::from_bits(v)).collect()),
    }
}

impl Container {
    /// Parses a container, detecting the format by content: a Cg profile (7003/7004) in the
    /// first word, read big-endian or little-endian (a container already swapped, as RPCS3
    /// accepts: [`CgProgram::parse`]), or a PSL1GHT `"VP"`/`"FP"` magic in the first two bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, ContainerError> {
        if cg::byte_order(bytes).is_some() {
            return CgProgram::parse(bytes).map(Self::Cg);
        }
        if let Some(&[a, b]) = bytes.get(..2) {
            match u16::from_be_bytes([a, b]) {
                MAGIC_VERTEX => return Psl1ghtVertexProgram::parse(bytes).map(Self::Psl1ghtVertex),
                MAGIC_FRAGMENT => {
                    return Psl1ghtFragmentProgram::parse(bytes).map(Self::Psl1ghtFragment)
                }
                _ => {}
            }
        }
        Err(ContainerError::new(
            0,
            "magic",
            ContainerErrorKind::UnknownFormat,
        ))
    }

    /// Like [`Container::parse`], but bytes in no known format become [`Container::Raw`] for
    /// `stage`. A recognised container that is malformed is still an error.
    pub fn parse_or_raw(bytes: &[u8], stage: Stage) -> Result<Self, ContainerError> {
        match Self::parse(bytes) {
            Err(ContainerError {
                kind: ContainerErrorKind::UnknownFormat,
                ..
            }) => Self::raw(stage, bytes),
            other => other,
        }
    }

    /// A program of `stage` from the bytes of any file the tools read: a container (of any
    /// stage: the caller checks [`Container::stage`]), assembly text of `stage` as `disasm`
    /// writes it ([`crate::fragment::assemble()`], [`crate::vertex::assemble()`]; a vertex
    /// program keeps its load slot, [`Container::load_slot`]), else raw microcode of `stage`.
    pub fn parse_any(bytes: &[u8], stage: Stage) -> Result<Self, ProgramBytesError> {
        match Self::parse(bytes) {
            Err(ContainerError {
                kind: ContainerErrorKind::UnknownFormat,
                ..
            }) => match crate::assembly::assembly_text(bytes) {
                Some(text) if stage == Stage::Fragment => {
                    let program = crate::fragment::assemble(text)?;
                    Ok(Self::raw(stage, &crate::fragment::encode(&program))?)
                }
                Some(text) => {
                    let program = crate::vertex::assemble(text)?;
                    let words = crate::vertex::encode_span(&program);
                    let bytes: Vec<u8> = words.into_iter().flat_map(u32::to_be_bytes).collect();
                    let mut raw = Self::raw(stage, &bytes)?;
                    if let Self::Raw(r) = &mut raw {
                        let first = program.instructions.first().map(|i| i.slot);
                        r.load_slot = first.and_then(|s| u32::try_from(s).ok());
                        r.start_slot = u32::try_from(program.start_slot).ok();
                    }
                    Ok(raw)
                }
                None => Ok(Self::raw(stage, bytes)?),
            },
            other => Ok(other?),
        }
    }

    /// Wraps raw microcode; its length must be a non-zero multiple of 16 bytes.
    pub fn raw(stage: Stage, bytes: &[u8]) -> Result<Self, ContainerError> {
        if bytes.is_empty() {
            return Err(ContainerError::new(
                0,
                "raw microcode length",
                ContainerErrorKind::Empty,
            ));
        }
        if bytes.len() % SLOT_SIZE as usize != 0 {
            return Err(ContainerError::new(
                bytes.len() as u64,
                "raw microcode length",
                ContainerErrorKind::Misaligned {
                    value: bytes.len() as u64,
                    align: SLOT_SIZE.into(),
                },
            ));
        }
        Ok(Self::Raw(RawProgram {
            stage,
            ucode: bytes.to_vec(),
            load_slot: None,
            start_slot: None,
        }))
    }

    /// The program's stage.
    pub fn stage(&self) -> Stage {
        match self {
            Self::Cg(p) => p.stage(),
            Self::Psl1ghtVertex(_) => Stage::Vertex,
            Self::Psl1ghtFragment(_) => Stage::Fragment,
            Self::Raw(r) => r.stage,
        }
    }

    /// The microcode exactly as stored in the container.
    pub fn ucode(&self) -> &[u8] {
        match self {
            Self::Cg(p) => &p.ucode,
            Self::Psl1ghtVertex(p) => &p.ucode,
            Self::Psl1ghtFragment(p) => &p.ucode,
            Self::Raw(r) => &r.ucode,
        }
    }

    /// Mutable microcode, e.g. for [`set_uniform`].
    pub fn ucode_mut(&mut self) -> &mut [u8] {
        match self {
            Self::Cg(p) => &mut p.ucode,
            Self::Psl1ghtVertex(p) => &mut p.ucode,
            Self::Psl1ghtFragment(p) => &mut p.ucode,
            Self::Raw(r) => &mut r.ucode,
        }
    }

    /// All parameters (Cg parameters; PSL1GHT attributes then constants) in file order.
    pub fn parameters(&self) -> Vec<ParameterRef<'_>> {
        match self {
            Self::Cg(p) => p
                .parameters
                .iter()
                .map(|q| ParameterRef {
                    name: q.name.as_deref(),
                    semantic: q.semantic.as_deref(),
                    binding: Binding::Cg {
                        resource: q.resource,
                        resource_index: q.resource_index,
                        variability: q.variability,
                        direction: q.direction,
                    },
                    default_value: q.default_value.clone(),
                })
                .collect(),
            Self::Psl1ghtVertex(p) => p
                .attributes
                .iter()
                .map(attribute_ref)
                .chain(p.constants.iter().map(constant_ref))
                .collect(),
            Self::Psl1ghtFragment(p) => p
                .attributes
                .iter()
                .map(attribute_ref)
                .chain(p.constants.iter().map(constant_ref))
                .collect(),
            Self::Raw(_) => Vec::new(),
        }
    }

    /// The ucode byte offsets of the inline-constant slots of the fragment uniform `name`;
    /// `None` when there is no such parameter (or the program has no inline constants).
    pub fn embedded_constants(&self, name: &str) -> Option<&[u32]> {
        match self {
            Self::Cg(p) if p.stage() == Stage::Fragment => {
                p.parameter(name).map(|q| q.embedded_constants.as_slice())
            }
            Self::Psl1ghtFragment(p) => p.constant(name).map(|c| c.embedded_constants.as_slice()),
            _ => None,
        }
    }

    /// The fragment `SHADER_CONTROL` word (rsx-microcode.md B.6); `None` for vertex programs
    /// and raw microcode.
    pub fn control_word(&self) -> Option<u32> {
        match self {
            Self::Cg(CgProgram {
                stage_info: CgStageInfo::Fragment(f),
                ..
            }) => Some(f.control_word()),
            Self::Psl1ghtFragment(p) => Some(p.control_word()),
            _ => None,
        }
    }

    /// Where a vertex program is loaded and what it reads and writes, as the container
    /// states them: `(load slot, SET_VERTEX_ATTRIB_INPUT_MASK, SET_VERTEX_ATTRIB_OUTPUT_MASK)`
    /// (libgcm's `cellGcmSetVertexProgram` writes the masks as stored, PSL1GHT's loader as
    /// [`Psl1ghtVertexProgram::loaded_output_mask`] says);
    /// `None` for fragment programs and raw microcode.
    pub fn vertex_load(&self) -> Option<(u32, u32, u32)> {
        match self {
            Self::Cg(CgProgram {
                stage_info: CgStageInfo::Vertex(v),
                ..
            }) => Some((
                v.instruction_slot,
                v.attribute_input_mask,
                v.attribute_output_mask,
            )),
            Self::Psl1ghtVertex(p) => Some((
                u32::from(p.start_insn),
                p.input_mask,
                p.loaded_output_mask(),
            )),
            _ => None,
        }
    }

    /// The constants a vertex program's loader uploads with it, `(register, x y z w bits)`: a
    /// PSL1GHT container's internal constants (the literals of its program) at `index +
    /// const_start`, as PSL1GHT's `rsxLoadVertexProgram` does in both `rsxVertexProgram`
    /// layouts (`commands.c`, `commands_impl.h`); every constant of an early-2011
    /// `realityVertexProgram` at its `index`, as `realityLoadVertexProgram` does (libreality
    /// `commands.c` @ e488c61); libreality (Tiny3D) marks the literals `Internal`, "unnamed
    /// but needs to be set" (`realityVP.h` @ e488c61), and is taken as the first. None for a CgBinaryProgram (libgcm's loader is not a public source), a
    /// fragment program or raw microcode.
    pub fn vertex_constants(&self) -> Vec<(u32, [u32; 4])> {
        match self {
            Self::Psl1ghtVertex(p) if p.layout == VpLayout::Reality => {
                p.constants.iter().map(|c| (c.index, c.values)).collect()
            }
            Self::Psl1ghtVertex(p) => p
                .constants
                .iter()
                .filter(|c| c.internal)
                .map(|c| (c.index.wrapping_add(u32::from(p.const_start)), c.values))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The `SET_TEX_COORD_CONTROL` words a fragment program's loader writes with it,
    /// `(coordinate, value)`: for each coordinate of a PSL1GHT container's `texcoords` mask
    /// (0..=9), `texcoord3D` bit << 4 | `texcoord2D` bit, as PSL1GHT's
    /// `rsxLoadFragmentProgramLocation` does in both `rsxFragmentProgram` layouts
    /// (`commands.c` @ fc31d59, `commands_impl.h`). None for the early-2011 layout (no masks;
    /// libreality's loader writes none), a CgBinaryProgram (libgcm's loader is no public
    /// source), a vertex program or raw microcode.
    pub fn texcoord_controls(&self) -> Vec<(u8, u32)> {
        match self {
            Self::Psl1ghtFragment(p) => (0..10u8)
                .filter(|&n| p.texcoords >> n & 1 != 0)
                .map(|n| {
                    let bit = |mask: u16| u32::from(mask >> n & 1);
                    (n, bit(p.texcoord_3d) << 4 | bit(p.texcoord_2d))
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The slot a vertex program is loaded at and its branch targets assume: the
    /// container's load slot, or the first label of assembly text; `None` for fragment
    /// programs and raw microcode.
    pub fn load_slot(&self) -> Option<u32> {
        match self {
            Self::Raw(r) if r.stage == Stage::Vertex => r.load_slot,
            other => other.vertex_load().map(|(slot, ..)| slot),
        }
    }

    /// The slot a vertex program starts at: assembly's `START` line, else where it is loaded
    /// ([`Container::load_slot`]; a container's program starts at its load slot).
    pub fn start_slot(&self) -> Option<u32> {
        match self {
            Self::Raw(r) if r.stage == Stage::Vertex => r.start_slot.or(r.load_slot),
            other => other.load_slot(),
        }
    }

    /// What the container is, for people: `CgBinaryProgram`, `PSL1GHT vertex program
    /// (cgcomp since July 2020)` and the like, `raw microcode`.
    pub fn format_name(&self) -> &'static str {
        match self {
            Self::Cg(_) => "CgBinaryProgram",
            Self::Psl1ghtVertex(p) => match p.layout {
                VpLayout::Libreality => "PSL1GHT vertex program (libreality, Tiny3D)",
                VpLayout::Reality => "PSL1GHT vertex program (cgcomp of early 2011)",
                VpLayout::RsxProgram => "PSL1GHT vertex program (cgcomp before July 2020)",
                VpLayout::RsxProgram2020 => "PSL1GHT vertex program (cgcomp since July 2020)",
            },
            Self::Psl1ghtFragment(p) => match p.layout {
                FpLayout::Reality => "PSL1GHT fragment program (cgcomp of early 2011)",
                FpLayout::RsxProgram => "PSL1GHT fragment program (cgcomp before July 2020)",
                FpLayout::RsxProgram2020 => "PSL1GHT fragment program (cgcomp since July 2020)",
            },
            Self::Raw(_) => "raw microcode",
        }
    }

    /// Bytes of its file the container covers (a CgBinaryProgram's `totalSize`, a PSL1GHT
    /// container through its microcode); `None` for raw microcode.
    pub fn extent(&self) -> Option<u64> {
        match self {
            Self::Cg(p) => Some(u64::from(p.total_size)),
            Self::Psl1ghtVertex(p) => Some(p.extent()),
            Self::Psl1ghtFragment(p) => Some(p.extent()),
            Self::Raw(_) => None,
        }
    }

    /// Number of 16-byte slots in the microcode.
    pub fn slot_count(&self) -> usize {
        self.ucode().len() / SLOT_SIZE as usize
    }
}
