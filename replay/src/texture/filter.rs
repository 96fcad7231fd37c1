//! Minification / magnification filters (FILTER bits 16..18 and 24..26) and the level of
//! detail.
//!
//! Filter codes as RPCS3 maps them to GL (`GLTexture.cpp` `tex_min_filter`, `tex_mag_filter`):
//! min 1 NEAREST, 2 LINEAR, 3 NEAREST_MIPMAP_NEAREST, 4 LINEAR_MIPMAP_NEAREST,
//! 5 NEAREST_MIPMAP_LINEAR, 6 LINEAR_MIPMAP_LINEAR, 7 convolution = LINEAR_MIPMAP_LINEAR;
//! mag 1 NEAREST, 2 LINEAR, 4 convolution = LINEAR. Unknown codes are NEAREST.
//! With a single mip level RPCS3 drops the mipmap part and the LOD bias/clamp
//! (`sampler_state::apply`).
//!
//! LOD (OpenGL 4.6 section 8.14): `lambda = log2(max(|ddx * size|, |ddy * size|))` over the
//! used coordinates (lengths of the scaled derivative vectors), or the explicit LOD; plus the
//! unit bias (FILTER bits 0..12) and any instruction bias; clamped to `[min_lod, max_lod]`
//! (CONTROL0). `lambda <= 0` magnifies (level 0, mag filter); otherwise the min filter picks
//! level `ceil(lambda + 0.5) - 1` (mip nearest) or blends `floor(lambda)` and the next level.

/// Filtering within one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelFilter {
    /// The texel containing the coordinate.
    Nearest,
    /// Weighted average of the 2, 4 or 8 nearest texels.
    Linear,
}

/// Filtering between levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MipFilter {
    /// Level 0 only.
    None,
    /// The nearest level.
    Nearest,
    /// Blend of the two nearest levels.
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

/// `log2` of the larger scaled derivative length; `-inf` for zero derivatives.
pub fn lod_from_derivatives(ddx: [f32; 3], ddy: [f32; 3], size: [f32; 3], axes: usize) -> f32 {
    let len = |d: [f32; 3]| -> f32 {
        d.iter()
            .zip(size)
            .take(axes)
            .map(|(d, s)| (d * s) * (d * s))
            .sum::<f32>()
            .sqrt()
    };
    len(ddx).max(len(ddy)).log2()
}

/// The level chosen by mip-nearest filtering for `lambda > 0`, with `last` the last level.
pub fn nearest_level(lambda: f32, last: u32) -> u32 {
    if lambda <= 0.5 {
        0
    } else {
        let d = (lambda + 0.5).ceil() - 1.0;
        if d >= last as f32 {
            last
        } else {
            d as u32
        }
    }
}
