//! The per-unit sampling options of a fragment texture unit ([`UnitOptions`]): wrap modes,
//! filters, level-of-detail state, border colour, unnormalised coordinates and post-filter
//! conversions, computed once from the unit's registers and its decoded image. The
//! interpreter's sampler ([`super::sampler::UnitSampler`]) and the device bindings
//! ([`super::binding`], for the GPU render and verify) both take them from here.

use rsxtrace_capture::frame::state::Texture;

use super::border::border_colour;
use super::decode::{DecodedTexture, Dimension};
use super::filter::{mag_filter, min_filter, MipFilter, TexelFilter};
use super::lod::{unit_lod, TextureLod};
use super::remap::Conversions;
use super::wrap::Wrap;

/// How one decoded unit is sampled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitOptions {
    /// Wrap modes (s, t, r); clamp to edge for cube maps, which clamp per face.
    pub wrap: [Wrap; 3],
    /// Minification filter within a level.
    pub min: TexelFilter,
    /// The min filter's mip part, as the register states it (the LOD rule drops it when the
    /// image has one level).
    pub mip: MipFilter,
    /// Magnification filter.
    pub mag: TexelFilter,
    /// The unit's state for the shared LOD rule ([`unit_lod`]).
    pub lod: TextureLod,
    /// The border colour after the remap (R, G, B, A), before the conversions.
    pub border: [f32; 4],
    /// 1D and 2D coordinates are in texels (format UN flag; RPCS3 `_texcoord_xform`).
    pub unnormalized: bool,
    /// The post-filter conversions (signed channels, sRGB, `2x − 1`).
    pub conversions: Conversions,
}

impl UnitOptions {
    /// The options of `texture`, whose decoded image is `image`.
    pub fn new(texture: &Texture, image: &DecodedTexture) -> UnitOptions {
        let a = &texture.address;
        let wrap = if image.dimension == Dimension::Cube {
            // Cube maps sample with clamp-to-edge per face.
            [Wrap::ClampToEdge; 3]
        } else {
            [
                Wrap::from_raw(a.wrap_s.raw),
                Wrap::from_raw(a.wrap_t.raw),
                Wrap::from_raw(a.wrap_r.raw),
            ]
        };
        let (min, mip) = min_filter(texture.filter.min.raw);
        // The shared LOD rule (super::lod); with one level it drops the mip filter, the bias
        // and the clamp (RPCS3 `sampler_state::apply`).
        let lod = unit_lod(texture);
        UnitOptions {
            wrap,
            min,
            mip,
            mag: mag_filter(texture.filter.mag.raw),
            lod,
            border: border_colour(
                image.format,
                &image.remap,
                texture.border_color,
                texture.filter.argb_signed,
            ),
            unnormalized: texture.format.unnormalized
                && matches!(image.dimension, Dimension::D1 | Dimension::D2),
            // A shadow map's comparison is read without sign, gamma or bias
            // (`rsxtrace_semantics::shadow`), on both paths.
            conversions: if lod.compare.is_some() {
                Conversions::default()
            } else {
                Conversions::of_unit(image.format, &image.remap, texture)
            },
        }
    }
}
