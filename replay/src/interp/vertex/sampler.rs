//! Vertex texture fetch (TXL) goes through [`VertexTextureSampler`]; the interpreter itself
//! holds no texture state.

/// Answers TXL requests for the four vertex texture units (rsx-microcode.md B.8: "TXL —
/// `textureLod(vtex[tex_num], …)`; 4 vertex texture units").
pub trait VertexTextureSampler: Sync {
    /// The texel (r, g, b, a) of vertex texture `unit` (0..4) at `coord` and explicit level of
    /// detail `lod`.
    fn sample_lod(&self, unit: u8, coord: [f32; 4], lod: f32) -> [f32; 4];
}
