//! One draw (a `SET_BEGIN_END` scope) with everything that was in effect at its END, and the
//! documented summary of it.

use crate::fragment::{FragmentError, FragmentProgram, ProgramAddress};
use crate::state::{RasterState, ShaderControl, Surface, Texture};
use crate::transform::{hash_hex, TransformConstants};
use rsxtrace_fetch::{DrawRange, IndexArray, VertexInputs};
use rsxtrace_rrc::Location;
use serde::Serialize;
use std::sync::Arc;

/// `SET_BEGIN_END` primitive (rrc-format.md 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Primitive {
    /// 1.
    Points,
    /// 2.
    Lines,
    /// 3.
    LineLoop,
    /// 4.
    LineStrip,
    /// 5.
    Triangles,
    /// 6.
    TriangleStrip,
    /// 7.
    TriangleFan,
    /// 8.
    Quads,
    /// 9.
    QuadStrip,
    /// 10.
    Polygon,
}

impl Primitive {
    /// Decode the low 8 bits of a `SET_BEGIN_END` argument; 0 (END) and 11.. give `None`.
    pub fn from_raw(v: u32) -> Option<Primitive> {
        Some(match v & 0xFF {
            1 => Primitive::Points,
            2 => Primitive::Lines,
            3 => Primitive::LineLoop,
            4 => Primitive::LineStrip,
            5 => Primitive::Triangles,
            6 => Primitive::TriangleStrip,
            7 => Primitive::TriangleFan,
            8 => Primitive::Quads,
            9 => Primitive::QuadStrip,
            10 => Primitive::Polygon,
            _ => return None,
        })
    }

    /// The lowercase name used in summaries.
    pub fn name(self) -> &'static str {
        match self {
            Primitive::Points => "points",
            Primitive::Lines => "lines",
            Primitive::LineLoop => "line_loop",
            Primitive::LineStrip => "line_strip",
            Primitive::Triangles => "triangles",
            Primitive::TriangleStrip => "triangle_strip",
            Primitive::TriangleFan => "triangle_fan",
            Primitive::Quads => "quads",
            Primitive::QuadStrip => "quad_strip",
            Primitive::Polygon => "polygon",
        }
    }
}

/// Something about one draw that could not be decoded; the rest of the draw is still valid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DrawProblem {
    /// The fragment program could not be read.
    #[error("{0}")]
    FragmentProgram(FragmentError),
    /// `SET_SHADER_PROGRAM` has location field 0 or 3.
    #[error("SET_SHADER_PROGRAM 0x{raw:08x} has no valid location")]
    FragmentAddress {
        /// Raw register.
        raw: u32,
    },
    /// `SET_TRANSFORM_PROGRAM_START` is outside program memory.
    #[error("vertex program start slot {start} is outside program memory")]
    VertexProgramStart {
        /// The start slot.
        start: u32,
    },
    /// No END bit from the start slot to the end of program memory.
    #[error("vertex program from slot {start} has no END")]
    VertexProgramNoEnd {
        /// The start slot.
        start: u32,
    },
    /// A vertex array size field of 5..15.
    #[error("vertex attribute {attribute} has invalid size {size}")]
    ArraySize {
        /// Attribute.
        attribute: u8,
        /// Size field.
        size: u8,
    },
    /// `SET_INDEX_ARRAY_DMA` with an unknown type or location.
    #[error("SET_INDEX_ARRAY_DMA 0x{raw:08x} has an invalid type or location")]
    IndexDma {
        /// Raw register.
        raw: u32,
    },
    /// More than one vertex source (arrays, indexed, inline, elements) in one scope.
    #[error("draw mixes vertex sources: {sources}")]
    MixedSources {
        /// The sources found.
        sources: String,
    },
    /// An inline-array draw with no enabled attribute array (stride 0).
    #[error("inline array draw with no enabled vertex array")]
    InlineWithoutArrays,
    /// A state register the draw uses holds no documented value: the renderers cannot draw
    /// with it and skip the draw ([`crate::state::RasterState::invalid`]).
    #[error("{method} 0x{value:08x} is not a valid value; the renderers skip the draw")]
    InvalidState {
        /// Method name.
        method: &'static str,
        /// The register's value.
        value: u32,
    },
}

/// One draw.
#[derive(Clone, Debug, Serialize)]
pub struct Draw {
    /// Index in the frame, in END order.
    pub index: usize,
    /// Command index of the `SET_BEGIN_END(primitive)`.
    pub begin_command: usize,
    /// Command index of the `SET_BEGIN_END(0)`.
    pub end_command: usize,
    /// Which part of its BEGIN/END this draw is: 0, unless a vertex base, array offset or
    /// transform constant written between its ranges, which RPCS3 applies to the ranges after
    /// the change only (`crate::frame`: the draw clause's execution barriers); each part is a
    /// draw of its own, numbered in order, sharing the BEGIN and END commands.
    pub part: u32,
    /// Primitive.
    pub primitive: Primitive,
    /// Drawn with `DRAW_INDEX_ARRAY`.
    pub indexed: bool,
    /// `DRAW_ARRAYS` ranges, or `DRAW_INDEX_ARRAY` ranges when indexed. An immediate-mode
    /// draw (vertices from `SET_VERTEX_DATA*` writes inside the scope, see
    /// [`crate::push_buffer`]) has the one range `{first: 0, count}` RPCS3 draws it with.
    pub ranges: Vec<DrawRange>,
    /// Index format and address (`SET_INDEX_ARRAY_ADDRESS` / `DMA`), when indexed and valid.
    pub index_array: Option<IndexArray>,
    /// Sum of range counts, or the inline vertex / element / immediate-mode vertex count.
    pub vertex_count: u64,
    /// `SET_TRANSFORM_PROGRAM_START`.
    pub vp_start: u32,
    /// xxh3-64 of the vertex program (see [`crate::transform`]).
    pub vp_hash: u64,
    /// Slot of the vertex program's END, if found.
    pub vp_end_slot: Option<u32>,
    /// `SET_TRANSFORM_BRANCH_BITS` (0x1FF8, rrc-format.md 4.5) at END: the booleans BRB/CLB
    /// test. Always known: the captured register file holds the value in effect when the
    /// frame starts (rrc-format.md 1.6), and writes during the frame update it.
    pub transform_branch_bits: u32,
    /// Transform program memory at END (shared between draws).
    #[serde(skip)]
    pub vertex_program: Arc<Vec<u32>>,
    /// Transform constants at END (shared between draws).
    #[serde(skip)]
    pub constants: Arc<TransformConstants>,
    /// Fragment program address, when `SET_SHADER_PROGRAM` is valid.
    pub fp_address: Option<ProgramAddress>,
    /// The fragment program read from memory, when available.
    #[serde(serialize_with = "serialize_shared")]
    pub fragment_program: Option<Arc<FragmentProgram>>,
    /// `SET_SHADER_CONTROL`.
    pub shader_control: ShaderControl,
    /// `SET_SHADER_PACKER` raw.
    pub shader_packer: u32,
    /// Vertex inputs for the fetcher.
    pub vertex_inputs: VertexInputs,
    /// `SET_VERTEX_ATTRIB_OUTPUT_MASK`.
    pub output_mask: u32,
    /// Fragment texture units 0..16 (shared with the draw before when equal).
    #[serde(serialize_with = "serialize_deref")]
    pub textures: Arc<[Texture; 16]>,
    /// Vertex texture units 0..4 (shared with the draw before when equal).
    #[serde(serialize_with = "serialize_deref")]
    pub vertex_textures: Arc<[Texture; 4]>,
    /// Render targets.
    pub surface: Surface,
    /// Fixed-function state (shared with the draw before when equal).
    #[serde(serialize_with = "serialize_deref")]
    pub raster: Arc<RasterState>,
    /// What could not be decoded for this draw.
    pub problems: Vec<DrawProblem>,
}

/// A shared value serialized as the value itself.
fn serialize_deref<T: Serialize + ?Sized, S: serde::Serializer>(
    v: &Arc<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    (**v).serialize(s)
}

fn serialize_shared<S: serde::Serializer>(
    v: &Option<Arc<FragmentProgram>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    v.as_deref().serialize(s)
}

/// `{"location", "offset"}` of a fragment program in a summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FpRef {
    /// `"local"` or `"main"`.
    pub location: Location,
    /// Byte offset.
    pub offset: u32,
}

/// The documented per-draw summary. Its keys are an external interface: `index`,
/// `end_command`, `primitive`, `indexed`, `ranges` (`[{"first","count"}]`), `vertex_count`,
/// `vp_start`, `vp_hash`, `fp` (`{"location","offset"}` or null), `fp_hash` (string or null),
/// `mvp` (four `[x,y,z,w]` rows or null), `part`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawSummary {
    /// Draw index.
    pub index: usize,
    /// Command index of END.
    pub end_command: usize,
    /// Lowercase primitive name.
    pub primitive: Primitive,
    /// Indexed draw.
    pub indexed: bool,
    /// Ranges.
    pub ranges: Vec<DrawRange>,
    /// Vertex count.
    pub vertex_count: u64,
    /// Vertex program start slot.
    pub vp_start: u32,
    /// 16 lowercase hex digits.
    pub vp_hash: String,
    /// Fragment program address.
    pub fp: Option<FpRef>,
    /// 16 lowercase hex digits, or null when the program could not be read.
    pub fp_hash: Option<String>,
    /// c32..c35, or null when any is unknown.
    pub mvp: Option<[[f32; 4]; 4]>,
    /// Part of its BEGIN/END (0 unless the clause was split, [`Draw::part`]).
    pub part: u32,
}

impl Draw {
    /// c32..c35 as four `[x, y, z, w]` rows, or `None` when any of them is unknown.
    pub fn mvp(&self) -> Option<[[f32; 4]; 4]> {
        Some([
            self.constants.get(32)?,
            self.constants.get(33)?,
            self.constants.get(34)?,
            self.constants.get(35)?,
        ])
    }

    /// `fp_hash` as hex, when the program was read.
    pub fn fp_hash(&self) -> Option<String> {
        self.fragment_program.as_ref().map(|p| hash_hex(p.hash))
    }

    /// The vertex program words from the start slot through END (or to the end of memory).
    pub fn vertex_program_words(&self) -> &[u32] {
        let start = (self.vp_start as usize * 4).min(self.vertex_program.len());
        let end = match self.vp_end_slot {
            Some(s) => (s as usize + 1) * 4,
            None => self.vertex_program.len(),
        }
        .clamp(start, self.vertex_program.len());
        &self.vertex_program[start..end]
    }

    /// The documented summary.
    pub fn summary(&self) -> DrawSummary {
        DrawSummary {
            index: self.index,
            end_command: self.end_command,
            primitive: self.primitive,
            indexed: self.indexed,
            ranges: self.ranges.clone(),
            vertex_count: self.vertex_count,
            vp_start: self.vp_start,
            vp_hash: hash_hex(self.vp_hash),
            fp: self.fp_address.map(|a| FpRef {
                location: a.location,
                offset: a.offset,
            }),
            fp_hash: self.fp_hash(),
            mvp: self.mvp(),
            part: self.part,
        }
    }

    /// Bytes per inline vertex (sum of the enabled arrays' host sizes).
    pub fn inline_stride(&self) -> u32 {
        self.vertex_inputs
            .arrays
            .iter()
            .flatten()
            .map(|a| a.ty.host_bytes(a.size))
            .sum()
    }
}
