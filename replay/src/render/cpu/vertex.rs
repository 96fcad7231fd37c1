//! The vertex stage of the CPU render: a draw's vertex program decoded from its transform
//! program memory, its vertices fetched from the memory it sees, and the reference vertex
//! interpreter run over them with unknown constants read as 0 (each one reported) and its
//! vertex texture units bound for TXL ([`crate::texture::VertexTextures`]).

use crate::interp::vertex::VertexOptions;
use crate::interp::vertex::{
    run_vertex_outputs, ConstantBank, VertexAttributes, VertexEnvironment,
};
use crate::raster::primitive_starts_distinct;
use crate::texture::VertexTextures;
use rsxtrace_capture::fetch::{fetch_distinct, GuestMemory};
use rsxtrace_capture::frame::Draw;
use rsxtrace_program::vertex::decode_from_memory;

/// Most vertices one draw may have in the CPU render (each takes 512 bytes of inputs and
/// outputs); the fetcher's own bound is 2^24.
pub const MAX_RENDERED_VERTICES: usize = 1 << 22;

/// One vertex's 16 output registers (HPOS, COL0, COL1, BFC0, BFC1, FOGC, PSZ, TEX0..TEX8);
/// unwritten ones hold (0, 0, 0, 1).
pub type VertexOutputs = crate::interp::vertex::RegisterOutputs;

/// Vertex outputs looked up by processing position (the primitive assembly's vertex
/// numbers): a slice in processing order, or a [`PositionOutputs`].
pub trait OutputsByPosition: Sync {
    /// Processing positions.
    fn len(&self) -> usize;
    /// Whether there is none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The outputs of the vertex at `position`.
    fn get(&self, position: usize) -> Option<&VertexOutputs>;
    /// The clip-space position (HPOS) of the vertex at `position`: `get(position)`'s first
    /// register, from a compact copy where there is one (primitive assembly reads every
    /// triangle's three; a 256-byte record per vertex makes each one a cache miss).
    fn position(&self, position: usize) -> Option<[f32; 4]> {
        self.get(position).map(|o| o[0])
    }
}

impl OutputsByPosition for [VertexOutputs] {
    fn len(&self) -> usize {
        <[VertexOutputs]>::len(self)
    }
    fn get(&self, position: usize) -> Option<&VertexOutputs> {
        <[VertexOutputs]>::get(self, position)
    }
}

/// The vertex stage's outputs by processing position: each distinct vertex's outputs once
/// and, for an indexed draw that names vertices more than once, the vertex at each position
/// (rather than a copy of its 256 bytes per position).
#[derive(Clone, Debug, Default)]
pub struct PositionOutputs {
    distinct: Vec<VertexOutputs>,
    /// HPOS of each distinct vertex (`distinct[i][0]`), packed.
    hpos: Vec<[f32; 4]>,
    slot: Option<Vec<u32>>,
}

impl PositionOutputs {
    /// The outputs of each distinct vertex, and for each processing position the row of its
    /// vertex among them (`None`: one row per position;
    /// `rsxtrace_capture::fetch::DistinctVertices::rows`).
    pub fn new(distinct: Vec<VertexOutputs>, rows: Option<Vec<u32>>) -> Self {
        PositionOutputs {
            hpos: distinct.iter().map(|o| o[0]).collect(),
            distinct,
            slot: rows,
        }
    }

    /// Every position's outputs, in processing order.
    pub fn iter(&self) -> impl Iterator<Item = &VertexOutputs> + '_ {
        (0..OutputsByPosition::len(self)).filter_map(|p| self.get(p))
    }
}

impl OutputsByPosition for PositionOutputs {
    fn len(&self) -> usize {
        self.slot.as_ref().map_or(self.distinct.len(), Vec::len)
    }
    fn get(&self, position: usize) -> Option<&VertexOutputs> {
        match &self.slot {
            Some(slot) => self.distinct.get(*slot.get(position)? as usize),
            None => self.distinct.get(position),
        }
    }
    fn position(&self, position: usize) -> Option<[f32; 4]> {
        match &self.slot {
            Some(slot) => self.hpos.get(*slot.get(position)? as usize).copied(),
            None => self.hpos.get(position).copied(),
        }
    }
}

/// Whether a draw's points take their size from PSZ: its vertex program's output mask says
/// it writes PSZ (bit 5); `SET_POINT_SIZE` gives it otherwise.
pub fn point_size_from_vertex(draw: &Draw) -> bool {
    draw.output_mask & (1 << 5) != 0
}

/// The vertex stage's result for one draw.
#[derive(Clone, Debug, Default)]
pub struct ShadedVertices {
    /// Outputs per processing position.
    pub outputs: PositionOutputs,
    /// Positions where a new primitive sequence starts (restarts and draw ranges).
    pub starts: Vec<usize>,
    /// Constants the program read that the capture does not hold (read as 0), ascending.
    pub unknown_constants: Vec<usize>,
    /// One warning per input attribute whose value the capture does not hold (read as
    /// RPCS3's replay reads it; `rsxtrace_capture::fetch::AttributeData::unknown_note`).
    pub attribute_warnings: Vec<String>,
    /// One warning per vertex texture unit a TXL names that could not be decoded (it samples
    /// (0, 0, 0, 0)).
    pub texture_warnings: Vec<String>,
}

/// Run the vertex stage of `draw` over the memory `memory` it sees. Errors are messages for
/// the skipped-draw list.
pub fn shade_vertices<M: GuestMemory>(draw: &Draw, memory: &M) -> Result<ShadedVertices, String> {
    let program = decode_from_memory(&draw.vertex_program, draw.vp_start as usize)
        .map_err(|e| format!("vertex program: {e}"))?;
    let fetched =
        fetch_distinct(&draw.vertex_inputs, memory).map_err(|e| format!("vertex fetch: {e}"))?;
    if fetched.positions() > MAX_RENDERED_VERTICES {
        return Err(format!(
            "{} vertices is more than the CPU render takes ({MAX_RENDERED_VERTICES})",
            fetched.positions()
        ));
    }
    // Indexed draws name most vertices several times: each distinct one is fetched and
    // shaded once (its inputs and outputs depend on its index alone), as the hardware's
    // post-transform cache does.
    let vertices = &fetched.vertices;
    let mut inputs: Vec<VertexAttributes> = vec![[[0.0; 4]; 16]; vertices.len()];
    let mut input_mask = 0u16;
    for column in &vertices.attributes {
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
        VertexTextures::for_program(&draw.vertex_textures, &program, memory, None);
    let env = VertexEnvironment {
        constants: &constants,
        branch_bits: Some(draw.transform_branch_bits),
        sampler: Some(&vertex_textures),
        input_mask,
    };
    let options = VertexOptions {
        allow_unknown_constants: true,
        ..VertexOptions::default()
    };
    let (shaded, unknown_reads) =
        run_vertex_outputs(&program, &draw.vertex_program, &env, &inputs, &options)
            .map_err(|e| format!("vertex program execution: {e}"))?;
    let starts = primitive_starts_distinct(&fetched);
    let attribute_warnings = vertices.unknown_notes();
    let outputs = PositionOutputs::new(shaded, fetched.rows);
    let mut unknown: Vec<usize> = unknown_reads.iter().map(|u| u.constant).collect();
    unknown.sort_unstable();
    unknown.dedup();
    Ok(ShadedVertices {
        outputs,
        starts,
        unknown_constants: unknown,
        attribute_warnings,
        texture_warnings: texture_errors
            .iter()
            .map(|e| format!("vertex {e}; it samples (0, 0, 0, 0)"))
            .collect(),
    })
}
