//! The same textures on both sides of the fragment stage: the units a program samples,
//! decoded once by the texture model the interpreter samples through
//! (`rsxtrace_replay::texture::decode::decode_texture`) and handed to the interpreter as a
//! `CaptureSampler` and to the device as `TextureBinding`s built from the same texels (plus
//! the unit's post-filter conversions, applied per texel).
//!
//! This module is strict: a unit whose state the device cannot sample the way the model does
//! makes the stage *skipped* with the reason, instead of an approximation that would show up
//! as a divergence. Such states: sign or gamma conversions under linear filtering (the device
//! filters after the conversion), mirror-once wrap modes, border
//! colours other than wgpu's three, mip levels off the halving chain, and mipmapped 1D
//! textures (wgpu: 1D textures have one level). The level of detail is no reason to skip:
//! both sides choose levels with the shared LOD rule (`rsxtrace_replay::texture::lod`), the
//! device from the unit's [`TextureLod`] baked into the translation ([`Bound::lod`]), which
//! also carries unnormalised (texel) coordinates, scaled by the shader as by the interpreter.
//! The GPU render (`rsxtrace_replay::render::gpu`, private `texture` module) converts units the
//! same way but approximates those states; it is not public, hence this module.

use rsxtrace_capture::frame::state::Texture;
use rsxtrace_capture::frame::MemoryView;
use rsxtrace_gpu::{
    BorderColor, Filter, SamplerDesc, TextureBinding, TextureDimension, WrapMode, TEXTURE_UNITS,
};
use rsxtrace_replay::texture::border::border_colour;
use rsxtrace_replay::texture::decode::{decode_texture, Dimension};
use rsxtrace_replay::texture::filter::{mag_filter, min_filter, MipFilter, TexelFilter};
use rsxtrace_replay::texture::lod::{unit_lod, TextureLod};
use rsxtrace_replay::texture::remap::Conversions;
use rsxtrace_replay::texture::sampler::CaptureSampler;
use rsxtrace_replay::texture::wrap::Wrap;
use rsxtrace_replay::wgsl::fragment::TextureDim;

/// A draw's sampled units on both sides.
pub struct Bound {
    /// Device bindings (every sampled unit; disabled ones are 1×1 zero textures).
    pub gpu: [Option<TextureBinding>; TEXTURE_UNITS as usize],
    /// The interpreter's sampler.
    pub sampler: CaptureSampler,
    /// Dimension of every unit, for the recompiler.
    pub dims: [TextureDim; 16],
    /// LOD state of every unit, for the recompiler (the interpreter's sampler builds the same
    /// from the same registers).
    pub lod: [TextureLod; 16],
}

/// The unit's dimension (2D when the fields are invalid: such a unit samples as zero).
fn dimension(t: &Texture) -> Dimension {
    Dimension::from_fields(t.format.dimension, t.format.cubemap).unwrap_or(Dimension::D2)
}

/// The 1×1 (×6 for cube maps) zero texture: a disabled unit samples (0, 0, 0, 0) in the
/// interpreter (`texture::sampler`).
fn null_binding(dimension: TextureDimension) -> TextureBinding {
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

fn gpu_dimension(d: Dimension) -> TextureDimension {
    match d {
        Dimension::D1 => TextureDimension::D1,
        Dimension::D2 => TextureDimension::D2,
        Dimension::D3 => TextureDimension::D3,
        Dimension::Cube => TextureDimension::Cube,
    }
}

fn wrap(raw: u32, border: [f32; 4]) -> Result<WrapMode, String> {
    Ok(match Wrap::from_raw(raw) {
        Wrap::Wrap => WrapMode::Repeat,
        Wrap::Mirror => WrapMode::MirrorRepeat,
        Wrap::ClampToEdge | Wrap::Clamp => WrapMode::ClampToEdge,
        Wrap::Border => WrapMode::ClampToBorder(match border {
            [0.0, 0.0, 0.0, 0.0] => BorderColor::TransparentBlack,
            [0.0, 0.0, 0.0, 1.0] => BorderColor::OpaqueBlack,
            [1.0, 1.0, 1.0, 1.0] => BorderColor::OpaqueWhite,
            c => return Err(format!("border colour {c:?} is not one of wgpu's three")),
        }),
        Wrap::MirrorOnceClampToEdge | Wrap::MirrorOnceBorder | Wrap::MirrorOnceClamp => {
            return Err(format!(
                "wrap mode {raw} (mirror once) has no device equivalent"
            ))
        }
    })
}

/// The device binding of enabled unit `unit`, or why the device cannot sample it as the
/// interpreter does.
fn binding(unit: u8, t: &Texture, memory: &MemoryView<'_>) -> Result<TextureBinding, String> {
    let image = decode_texture(unit, t, memory).map_err(|e| e.to_string())?;
    let conversions = Conversions::new(
        image.format,
        &image.remap,
        t.filter.argb_signed,
        t.address.unsigned_remap,
        t.address.gamma,
    );
    let (min, mut mip) = min_filter(t.filter.min.raw);
    let mag = mag_filter(t.filter.mag.raw);
    let linear =
        min == TexelFilter::Linear || mag == TexelFilter::Linear || mip == MipFilter::Linear;
    if conversions.any() && linear {
        return Err("sign or gamma conversions under linear filtering".to_string());
    }
    // The border as the interpreter samples it (`texture::border`), converted like the
    // texels the device receives.
    let border = conversions.apply(border_colour(
        image.format,
        &image.remap,
        t.border_color,
        t.filter.argb_signed,
    ));
    let wraps = if image.dimension == Dimension::Cube {
        // Cube maps sample with clamp-to-edge per face (`UnitSampler::new`).
        [WrapMode::ClampToEdge; 3]
    } else {
        [
            wrap(t.address.wrap_s.raw, border)?,
            wrap(t.address.wrap_t.raw, border)?,
            wrap(t.address.wrap_r.raw, border)?,
        ]
    };
    if image.levels <= 1 {
        mip = MipFilter::None;
    }
    if mip != MipFilter::None && image.dimension == Dimension::D1 {
        return Err("mipmapped 1D texture (wgpu 1D textures have one level)".to_string());
    }
    let filter = |f: TexelFilter| match f {
        TexelFilter::Nearest => Filter::Nearest,
        TexelFilter::Linear => Filter::Linear,
    };
    let dimension = gpu_dimension(image.dimension);
    let layers = if dimension == TextureDimension::Cube {
        6
    } else {
        1
    };
    let base = image
        .level(0, 0)
        .ok_or_else(|| format!("texture unit {unit}: no level 0"))?;
    let mut b = TextureBinding {
        dimension,
        width: base.width,
        height: base.height,
        depth_or_layers: if dimension == TextureDimension::D3 {
            base.depth
        } else {
            layers
        },
        mip_levels: 0,
        levels: Vec::new(),
        sampler: SamplerDesc {
            wrap: wraps,
            mag: filter(mag),
            min: filter(min),
        },
    };
    // Every level, also without a mip filter: the LOD rule applies the bias and clamp (to
    // the mag/min choice) when the texture has more than one level, and the shader counts
    // the bound levels (`textureNumLevels`) as the interpreter counts the decoded ones.
    let levels = if image.dimension == Dimension::D1 {
        1
    } else {
        image.levels.max(1)
    };
    for level in 0..levels {
        let (lw, lh, ld) = b.level_size(level);
        let mut texels = Vec::new();
        for layer in 0..layers {
            match image.level(layer, level) {
                Some(l)
                    if l.width == lw
                        && l.height == lh
                        && (dimension != TextureDimension::D3 || l.depth == ld) =>
                {
                    texels.extend(l.texels.iter().map(|t| conversions.apply(*t)));
                }
                _ => return Err(format!("mip level {level} is off the halving chain")),
            }
        }
        b.levels.push(texels);
    }
    b.mip_levels = levels;
    Ok(b)
}

/// The units of `units` (bit mask) of `textures` on both sides, or why the stage is skipped.
pub fn bind(
    textures: &[Texture; 16],
    memory: &MemoryView<'_>,
    units: u16,
) -> Result<Bound, String> {
    let sampler = CaptureSampler::with_units(textures, memory, units)
        .map_err(|e| format!("texture cannot be decoded from the capture: {e}"))?;
    let mut gpu: [Option<TextureBinding>; TEXTURE_UNITS as usize] = Default::default();
    let mut dims = [TextureDim::D2; 16];
    for (u, t) in textures.iter().enumerate() {
        let dim = dimension(t);
        dims[u] = match dim {
            Dimension::D1 => TextureDim::D1,
            Dimension::D2 => TextureDim::D2,
            Dimension::D3 => TextureDim::D3,
            Dimension::Cube => TextureDim::Cube,
        };
        if units & (1 << u) == 0 {
            continue;
        }
        let Some(slot) = gpu.get_mut(u) else { continue };
        *slot = Some(if t.control0.enabled {
            binding(u as u8, t, memory).map_err(|why| format!("texture unit {u}: {why}"))?
        } else {
            null_binding(gpu_dimension(dim))
        });
    }
    let lod = std::array::from_fn(|u| unit_lod(&textures[u]));
    Ok(Bound {
        gpu,
        sampler,
        dims,
        lod,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_modes_map_or_refuse() {
        // ADDRESS wrap codes (replay/src/texture/wrap.rs): 1 wrap, 2 mirror, 3 clamp to
        // edge, 4 border, 5 clamp, 6..8 mirror once.
        let black = [0.0, 0.0, 0.0, 1.0];
        assert_eq!(wrap(1, black), Ok(WrapMode::Repeat));
        assert_eq!(wrap(2, black), Ok(WrapMode::MirrorRepeat));
        assert_eq!(wrap(3, black), Ok(WrapMode::ClampToEdge));
        assert_eq!(
            wrap(4, black),
            Ok(WrapMode::ClampToBorder(BorderColor::OpaqueBlack))
        );
        assert!(wrap(4, [0.5, 0.0, 0.0, 1.0])
            .unwrap_err()
            .contains("border colour"));
        assert!(wrap(6, black).unwrap_err().contains("mirror once"));
    }

    #[test]
    fn null_bindings_have_one_texel_per_layer() {
        let c = null_binding(TextureDimension::Cube);
        assert_eq!((c.depth_or_layers, c.levels[0].len()), (6, 6));
        let d = null_binding(TextureDimension::D2);
        assert_eq!(d.levels, vec![vec![[0.0; 4]]]);
    }
}
