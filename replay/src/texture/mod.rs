//! The texture sampling model: what a texture unit returns for a sampling request.
//!
//! The fragment interpreter computes the coordinate and its screen-space derivatives (from
//! its 2x2 quads) and asks a [`Sampler`]; the sampler knows each unit's state (dimension,
//! format, layout, remap, wrap, filters, mipmaps) and the texel memory. The vertex
//! interpreter's TXL asks [`VertexTextures`], the same model over the four vertex units.

/// One sampling request from a texture instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleRequest {
    /// The coordinate (s, t, r, q) after any projection the instruction performs (TXP divides
    /// by q before asking). For cube maps (s, t, r) is the direction.
    pub coord: [f32; 4],
    /// d(coord)/dx and d(coord)/dy across the pixel quad (used for the implicit LOD); zero when
    /// unknown.
    pub ddx: [f32; 4],
    pub ddy: [f32; 4],
    /// How the level of detail is chosen.
    pub lod: LodSource,
}

/// How a sample's level of detail is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LodSource {
    /// From the derivatives (TEX, TXP), plus the unit's own bias.
    Implicit,
    /// From the derivatives plus an extra bias (TXB).
    Bias(f32),
    /// Explicit level (TXL).
    Explicit(f32),
    /// From explicit gradients instead of the quad's derivatives (TXD).
    Gradients { ddx: [f32; 4], ddy: [f32; 4] },
}

/// Something that answers sampling requests for texture units 0..16.
pub trait Sampler: Sync {
    /// The filtered texel (r, g, b, a) of `unit` for `request`. A unit with no usable texture
    /// returns (0, 0, 0, 0) (RPCS3 binds a null texture there) — implementations document it.
    fn sample(&self, unit: u8, request: &SampleRequest) -> [f32; 4];

    /// As [`sample`](Self::sample), and whether the unit's alpha kill discards the fragment
    /// (`rsxtrace_semantics::shadow`); a sampler without alpha kill never does.
    fn sample_killing(&self, unit: u8, request: &SampleRequest) -> ([f32; 4], bool) {
        (self.sample(unit, request), false)
    }

    /// The channels (bit 0 R .. bit 3 A) a TEX with the bx2 modifier expands on `unit`
    /// (`TextureLod::bx2`); every one for a sampler that knows no unit state.
    fn bx2_channels(&self, _unit: u8) -> u8 {
        0xF
    }

    /// As [`sample_killing`](Self::sample_killing) for a TEX with the bx2 modifier: on a unit
    /// that expands ([`bx2_channels`](Self::bx2_channels) not 0) the filtered texel comes
    /// without its gamma and bias conversions, which the expansion replaces (RPCS3
    /// `_enable_texture_expand` erases the gamma flags and turns the bias into `2x − 1`); the
    /// caller expands. A sampler that knows no unit state samples as `sample_killing`.
    fn sample_for_bx2(&self, unit: u8, request: &SampleRequest) -> ([f32; 4], bool) {
        self.sample_killing(unit, request)
    }
}

/// A sampler for programs that sample nothing: every unit returns (0, 0, 0, 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTextures;

impl Sampler for NoTextures {
    fn sample(&self, _unit: u8, _request: &SampleRequest) -> [f32; 4] {
        [0.0; 4]
    }
}

pub mod binding;
pub mod border;
pub mod cache;
pub mod cube;
pub mod decode;
pub mod dxt;
pub mod error;
pub mod filter;
pub mod format;
pub mod layout;
pub mod lod;
pub mod remap;
pub mod sampler;
pub mod unit;
pub mod vertex_units;
pub mod wrap;

pub use decode::{
    decode_texture, read_stored, texture_spans, DecodedTexture, Dimension, Level, StoredTexture,
};
pub use error::TextureError;
pub use format::TexelFormat;
pub use remap::Remap;
pub use sampler::{CaptureSampler, UnitSampler};
pub use vertex_units::VertexTextures;
pub use wrap::Wrap;

/// The most texels (all layers and levels together) one unit may decode to; each decoded
/// texel takes 16 bytes.
pub const MAX_DECODED_TEXELS: u64 = 1 << 25;
