//! Texture units to device textures: a draw's fragment texture unit decoded by the same model
//! the interpreter samples through (`crate::texture::decode::decode_texture`: formats,
//! swizzled and linear layouts, remap, every mip level and cube face) and turned into an
//! `rsxtrace_gpu::TextureBinding` (wrap, filters, mip filter).
//!
//! Where the device's sampler differs from the model (documented gaps, each reported as a
//! warning by the caller through [`Converted::notes`]):
//! - the post-filter conversions (signed channels, sRGB, `2x − 1`) are applied to each texel
//!   before upload, exact for nearest filtering and approximate under linear filtering;
//! - the mirror-once wrap modes become clamp-to-edge, and a border colour other than
//!   transparent black, opaque black or opaque white becomes the nearest of those.

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_gpu::{BorderColor, Filter, SamplerDesc, TextureBinding, TextureDimension, WrapMode};

use crate::texture::border::border_colour;
use crate::texture::decode::{decode_texture, DecodedTexture, Dimension};
use crate::texture::error::TextureError;
use crate::texture::filter::{mag_filter, min_filter, TexelFilter};
use crate::texture::remap::Conversions;
use crate::texture::wrap::Wrap;

/// A unit ready to upload, with what it does differently from the model.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Converted {
    /// The binding.
    pub binding: TextureBinding,
    /// Approximations made (empty when the device samples as the model does).
    pub notes: Vec<String>,
}

/// The dimension a fragment module must declare for `texture` (2D when the fields are
/// invalid: such a unit samples as the null texture anyway).
pub(crate) fn dimension_of(texture: &Texture) -> TextureDimension {
    match Dimension::from_fields(texture.format.dimension, texture.format.cubemap) {
        Some(Dimension::D1) => TextureDimension::D1,
        Some(Dimension::D3) => TextureDimension::D3,
        Some(Dimension::Cube) => TextureDimension::Cube,
        Some(Dimension::D2) | None => TextureDimension::D2,
    }
}

/// The 1×1 (×6 for cube maps) texture of zeros bound where a unit is disabled or cannot be
/// decoded: RPCS3 binds a null texture there and the interpreter's sampler returns
/// (0, 0, 0, 0) (`crate::texture::sampler`).
pub(crate) fn null_binding(dimension: TextureDimension) -> TextureBinding {
    let layers = if dimension == TextureDimension::Cube {
        6
    } else {
        1
    };
    TextureBinding {
        dimension,
        width: 1,
        height: 1,
        depth_or_layers: layers,
        mip_levels: 1,
        levels: vec![vec![[0.0; 4]; layers as usize]],
        sampler: SamplerDesc::default(),
    }
}

fn wrap_mode(raw: u32, border: [f32; 4], notes: &mut Vec<String>) -> WrapMode {
    match Wrap::from_raw(raw) {
        Wrap::Wrap => WrapMode::Repeat,
        Wrap::Mirror => WrapMode::MirrorRepeat,
        Wrap::ClampToEdge | Wrap::Clamp => WrapMode::ClampToEdge,
        Wrap::Border => WrapMode::ClampToBorder(nearest_border(border, notes)),
        Wrap::MirrorOnceClampToEdge | Wrap::MirrorOnceBorder | Wrap::MirrorOnceClamp => {
            notes.push(format!(
                "wrap mode {raw} (mirror once) is sampled as clamp to edge"
            ));
            WrapMode::ClampToEdge
        }
    }
}

fn nearest_border(c: [f32; 4], notes: &mut Vec<String>) -> BorderColor {
    let choices = [
        (BorderColor::TransparentBlack, [0.0, 0.0, 0.0, 0.0]),
        (BorderColor::OpaqueBlack, [0.0, 0.0, 0.0, 1.0]),
        (BorderColor::OpaqueWhite, [1.0, 1.0, 1.0, 1.0]),
    ];
    let dist = |b: &[f32; 4]| -> f32 { c.iter().zip(b).map(|(x, y)| (x - y).abs()).sum() };
    let (best, value) = choices
        .iter()
        .min_by(|a, b| dist(&a.1).total_cmp(&dist(&b.1)))
        .copied()
        .unwrap_or(choices[0]);
    if dist(&value) > 0.0 {
        notes.push(format!(
            "border colour {c:?} is sampled as {best:?} (wgpu's border colours)"
        ));
    }
    best
}

/// The sampler of `texture` given its decoded image and the unit's conversions (applied to
/// the border here, as the uploaded texels have them applied).
fn sampler(
    texture: &Texture,
    image: &DecodedTexture,
    conversions: &Conversions,
    notes: &mut Vec<String>,
) -> SamplerDesc {
    let a = &texture.address;
    // The border as the model samples it (`texture::border`), converted like the texels.
    let border = conversions.apply(border_colour(
        image.format,
        &image.remap,
        texture.border_color,
        texture.filter.argb_signed,
    ));
    let wrap = if image.dimension == Dimension::Cube {
        // Cube maps sample with clamp-to-edge per face (`UnitSampler::new`).
        [WrapMode::ClampToEdge; 3]
    } else {
        [
            wrap_mode(a.wrap_s.raw, border, notes),
            wrap_mode(a.wrap_t.raw, border, notes),
            wrap_mode(a.wrap_r.raw, border, notes),
        ]
    };
    let (min, _) = min_filter(texture.filter.min.raw);
    let filter = |f: TexelFilter| match f {
        TexelFilter::Nearest => Filter::Nearest,
        TexelFilter::Linear => Filter::Linear,
    };
    SamplerDesc {
        wrap,
        mag: filter(mag_filter(texture.filter.mag.raw)),
        min: filter(min),
    }
}

/// Decode fragment texture unit `unit` (`texture`) from `memory` as a binding.
pub(crate) fn convert<M: GuestMemory + ?Sized>(
    unit: u8,
    texture: &Texture,
    memory: &M,
) -> Result<Converted, TextureError> {
    let image = decode_texture(unit, texture, memory)?;
    let mut notes = Vec::new();
    let conversions = Conversions::new(
        image.format,
        &image.remap,
        texture.filter.argb_signed,
        texture.address.unsigned_remap,
        texture.address.gamma,
    );
    let linear =
        texture.filter.min.raw != 1 || mag_filter(texture.filter.mag.raw) != TexelFilter::Nearest;
    if conversions.any() && linear {
        notes.push("sign/gamma conversions are applied before filtering".to_string());
    }
    let sampler = sampler(texture, &image, &conversions, &mut notes);
    let (dimension, layers) = match image.dimension {
        Dimension::D1 => (TextureDimension::D1, 1),
        Dimension::D2 => (TextureDimension::D2, 1),
        Dimension::D3 => (TextureDimension::D3, 1),
        Dimension::Cube => (TextureDimension::Cube, 6),
    };
    let base = image.level(0, 0).ok_or(TextureError::EmptyImage {
        unit,
        width: 0,
        height: 0,
        depth: 0,
    })?;
    let (width, height, depth) = (base.width, base.height, base.depth);
    let mut binding = TextureBinding {
        dimension,
        width,
        height,
        depth_or_layers: if dimension == TextureDimension::D3 {
            depth
        } else {
            layers
        },
        mip_levels: 1,
        levels: Vec::new(),
        sampler,
    };
    // Keep the levels whose size follows the halving chain wgpu expects (the model's levels
    // do; a 1D texture keeps level 0 only, a wgpu restriction).
    let wanted = if dimension == TextureDimension::D1 {
        1
    } else {
        image.levels.max(1)
    };
    for level in 0..wanted {
        let (lw, lh, ld) = binding.level_size(level);
        let mut texels = Vec::new();
        let mut complete = true;
        for layer in 0..layers {
            match image.level(layer, level) {
                Some(l)
                    if l.width == lw
                        && l.height == lh
                        && (dimension != TextureDimension::D3 || l.depth == ld) =>
                {
                    texels.extend(l.texels.iter().map(|t| conversions.apply(*t)));
                }
                _ => complete = false,
            }
        }
        if !complete {
            notes.push(format!(
                "mip levels from {level} on are not uploaded (sizes off the halving chain)"
            ));
            break;
        }
        binding.levels.push(texels);
    }
    binding.mip_levels = binding.levels.len() as u32;
    if binding.levels.is_empty() {
        return Err(TextureError::EmptyImage {
            unit,
            width,
            height,
            depth,
        });
    }
    Ok(Converted { binding, notes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_textures_match_their_dimension() {
        let cube = null_binding(TextureDimension::Cube);
        assert_eq!((cube.depth_or_layers, cube.levels[0].len()), (6, 6));
        let flat = null_binding(TextureDimension::D2);
        assert_eq!(flat.levels, vec![vec![[0.0; 4]]]);
    }

    #[test]
    fn borders_snap_to_the_nearest_wgpu_colour() {
        let mut notes = Vec::new();
        assert_eq!(
            nearest_border([0.0, 0.0, 0.0, 1.0], &mut notes),
            BorderColor::OpaqueBlack
        );
        assert!(notes.is_empty());
        assert_eq!(
            nearest_border([0.9, 0.8, 1.0, 1.0], &mut notes),
            BorderColor::OpaqueWhite
        );
        assert_eq!(notes.len(), 1);
        assert_eq!(wrap_mode(2, [0.0; 4], &mut notes), WrapMode::MirrorRepeat);
        assert_eq!(wrap_mode(5, [0.0; 4], &mut notes), WrapMode::ClampToEdge);
        assert_eq!(wrap_mode(6, [0.0; 4], &mut notes), WrapMode::ClampToEdge);
        assert_eq!(notes.len(), 2);
    }
}
