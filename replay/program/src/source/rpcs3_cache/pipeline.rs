//! Reading one pipeline file (`pipelines/<backend>/<version>/*.bin`) once its layout is known:
//! the two program hashes it joins (offsets 0 and 8 in every layout, §3.2; the file name is
//! not used, as RPCS3 does not use it, §3.1) and the state RPCS3 recorded for them.

use super::super::bytes::{le_u16, le_u32, le_u64};
use super::super::PipelineState;
use super::layout::{Backend, PipelineLayout};

/// What a pipeline file says.
#[derive(Debug, Clone)]
pub struct PipelineRecord {
    /// `vertex_program_hash`: the name of a `raw/*.vp`.
    pub vp_hash: u64,
    /// `fragment_program_hash`: the name of a `raw/*.fp`.
    pub fp_hash: u64,
    /// The state, with `file`, `backend` and `version` left for the caller.
    pub state: PipelineState,
}

/// End of the jump table: fewer than 32 targets end with 0xFFFF (§3.2).
const JUMP_TABLE_END: u16 = 0xFFFF;
const JUMP_TABLE_LEN: u64 = 32;

/// Reads a pipeline file of `size` bytes found in `backend`/`version` folders: the layout is
/// identified first, and a size that fits none is refused (§4 step 2). `file`, `backend`
/// and `version` of the state are filled in.
pub fn read_pipeline(
    file: &std::path::Path,
    backend: &str,
    version: &str,
    bytes: &[u8],
) -> Result<PipelineRecord, String> {
    let kind = Backend::from_folder(backend)
        .ok_or_else(|| format!("backend folder {backend} is neither opengl nor vulkan"))?;
    let layout = PipelineLayout::identify(kind, version, bytes.len() as u64)?;
    let mut record = parse(bytes, layout);
    record.state.file = file.to_path_buf();
    record.state.backend = backend.to_string();
    record.state.version = version.to_string();
    Ok(record)
}

/// Reads a file whose size was checked against `layout` (a shorter buffer reads as zeros
/// where it ends; nothing here panics).
pub(crate) fn parse(bytes: &[u8], layout: PipelineLayout) -> PipelineRecord {
    let o = layout.offsets();
    let u16_at = |at: u64| le_u16(bytes, at).unwrap_or(0);
    let u32_at = |at: u64| le_u32(bytes, at).unwrap_or(0);
    let opt16 = |at: Option<u64>| at.map(u16_at).unwrap_or(0);
    let vp_instruction_mask = (0..o.vp_mask_words)
        .map(|n| le_u64(bytes, o.vp_instruction_mask + 8 * n).unwrap_or(0))
        .collect();
    let vp_jump_table = (0..JUMP_TABLE_LEN)
        .map(|k| u16_at(o.vp_jump_table + 2 * k))
        .take_while(|&t| t != JUMP_TABLE_END)
        .collect();
    PipelineRecord {
        vp_hash: le_u64(bytes, 0).unwrap_or(0),
        fp_hash: le_u64(bytes, 8).unwrap_or(0),
        state: PipelineState {
            layout,
            vp_ctrl: o.vp_ctrl0.map(u32_at).unwrap_or(0),
            vp_output_mask: u32_at(o.vp_output_mask),
            vp_texture_dimensions: u32_at(o.vp_texture_dimensions),
            vp_instruction_mask,
            vp_base_address: u32_at(o.vp_base_address),
            vp_entry: u32_at(o.vp_entry),
            vp_jump_table,
            vp_multisampled_textures: opt16(o.vp_multisampled_textures),
            fp_ctrl: u32_at(o.fp_ctrl),
            fp_texture_dimensions: u32_at(o.fp_texture_dimensions),
            fp_texcoord_control: u32_at(o.fp_texcoord_control),
            fp_lighting_flags: u16_at(o.fp_lighting_flags),
            fp_shadow_textures: u16_at(o.fp_shadow_textures),
            fp_redirected_textures: u16_at(o.fp_redirected_textures),
            fp_multisampled_textures: opt16(o.fp_multisampled_textures),
            fp_mrt_count: o
                .fp_mrt_count
                .and_then(|at| bytes.get(at as usize).copied())
                .unwrap_or(0),
            ..PipelineState::default()
        },
    }
}
