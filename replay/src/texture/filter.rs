//! Minification / magnification filters (FILTER bits 16..18 and 24..26).
//!
//! Filter codes as RPCS3 maps them to GL (`GLTexture.cpp` `tex_min_filter`, `tex_mag_filter`):
//! min 1 NEAREST, 2 LINEAR, 3 NEAREST_MIPMAP_NEAREST, 4 LINEAR_MIPMAP_NEAREST,
//! 5 NEAREST_MIPMAP_LINEAR, 6 LINEAR_MIPMAP_LINEAR, 7 convolution = LINEAR_MIPMAP_LINEAR;
//! mag 1 NEAREST, 2 LINEAR, 4 convolution = LINEAR. Unknown codes are NEAREST.
//! With a single mip level RPCS3 drops the mipmap part and the LOD bias/clamp
//! (`sampler_state::apply`).
//!
//! The level of detail and the choice of levels are [`super::lod`]'s (one rule shared with the
//! WGSL recompiler).

pub use rsxtrace_semantics::lod::MipFilter;

/// Filtering within one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelFilter {
    /// The texel containing the coordinate.
    Nearest,
    /// Weighted average of the 2, 4 or 8 nearest texels.
    Linear,
}

/// From the raw min filter field: (texel filter, mip filter).
pub fn min_filter(raw: u32) -> (TexelFilter, MipFilter) {
    use MipFilter as M;
    use TexelFilter as T;
    match raw {
        2 => (T::Linear, M::None),
        3 => (T::Nearest, M::Nearest),
        4 => (T::Linear, M::Nearest),
        5 => (T::Nearest, M::Linear),
        6 | 7 => (T::Linear, M::Linear),
        _ => (T::Nearest, M::None),
    }
}

/// From the raw mag filter field.
pub fn mag_filter(raw: u32) -> TexelFilter {
    match raw {
        2 | 4 => TexelFilter::Linear,
        _ => TexelFilter::Nearest,
    }
}
