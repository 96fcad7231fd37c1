//! Texture units to device textures, one conversion for the GPU render and verify: a fragment
//! texture unit decoded by the same model the interpreter samples through
//! ([`super::decode::decode_texture`]: formats, swizzled and linear layouts, remap, every mip
//! level and cube face), sampled with the same [`UnitOptions`], and turned into an
//! `rsxtrace_gpu::TextureBinding` (texels, wrap, filters).
//!
//! Some states the device cannot sample as the model does. [`Strictness`] says what happens
//! then: [`Strictness::Approximate`] (the GPU render) approximates them and says how in
//! [`Converted::notes`]; [`Strictness::Exact`] (verify, where an approximation would show up as
//! a divergence) refuses the unit with the reason ([`BindingError::Inexact`]). The states:
//! - a border colour other than transparent black, opaque black or opaque white (wgpu's
//!   three) on a unit whose shader does not add it (`TextureLod::border`, which every 1D, 2D
//!   and 3D unit's shader does; cube maps clamp per face and never read the border): read as
//!   transparent black;
//! - mip levels off the halving chain wgpu expects: the levels from there on are not uploaded.
//!
//! A fragment unit's texels are uploaded with the signed channels reinterpreted (the model
//! filters in signed space too); the gamma and bias conversions the recompiled shader applies
//! after filtering, as the model does (`TextureLod::post`, `rsxtrace_semantics::texel`). A
//! vertex unit's texels carry every conversion its state has. A 1D unit is bound as a 2D
//! texture one texel high with every level ([`dimension_of`]); the mirror-once wrap modes are
//! bound as the clamp that follows the recompiled shaders' reflection of the coordinate
//! (`TextureLod::mirror_once`).

use std::fmt;

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_gpu::{BorderColor, Filter, SamplerDesc, TextureBinding, TextureDimension, WrapMode};
use rsxtrace_semantics::border::DEVICE_BORDERS;
use rsxtrace_wgsl::fragment::TextureDim;

use super::decode::{decode_texture, DecodedTexture, Dimension};
use super::error::TextureError;
use super::filter::TexelFilter;
use super::unit::UnitOptions;
use super::wrap::Wrap;

/// What to do with a state the device cannot sample as the model does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// Refuse the unit ([`BindingError::Inexact`] with the reason).
    Exact,
    /// Approximate it and note how ([`Converted::notes`]).
    Approximate,
}

/// A unit ready to upload, with what it does differently from the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted {
    /// The binding.
    pub binding: TextureBinding,
    /// Approximations made (empty when the device samples as the model does; always empty
    /// under [`Strictness::Exact`]).
    pub notes: Vec<String>,
}

/// Why a unit has no binding.
#[derive(Clone, Debug, PartialEq)]
pub enum BindingError {
    /// The texture model cannot decode it.
    Texture(TextureError),
    /// Under [`Strictness::Exact`]: the device cannot sample it as the model does.
    Inexact(String),
}

impl fmt::Display for BindingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindingError::Texture(e) => e.fmt(f),
            BindingError::Inexact(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for BindingError {}

impl From<TextureError> for BindingError {
    fn from(e: TextureError) -> Self {
        BindingError::Texture(e)
    }
}

/// Collects, per [`Strictness`], either the notes or the first refusal.
struct Deviations {
    strictness: Strictness,
    notes: Vec<String>,
}

impl Deviations {
    /// The device differs from the model: `exact` is the refusal, `approximate` the note.
    fn differ(&mut self, exact: String, approximate: String) -> Result<(), BindingError> {
        match self.strictness {
            Strictness::Exact => Err(BindingError::Inexact(exact)),
            Strictness::Approximate => {
                self.notes.push(approximate);
                Ok(())
            }
        }
    }
}

/// The model's dimension of `texture` (2D when the fields are invalid: such a unit samples
/// as the null texture anyway).
fn model_dimension(texture: &Texture) -> Dimension {
    Dimension::from_fields(texture.format.dimension, texture.format.cubemap)
        .unwrap_or(Dimension::D2)
}

fn device_dimension(d: Dimension) -> TextureDimension {
    match d {
        Dimension::D1 => TextureDimension::D1,
        Dimension::D2 => TextureDimension::D2,
        Dimension::D3 => TextureDimension::D3,
        Dimension::Cube => TextureDimension::Cube,
    }
}

/// The device dimension a unit is bound with (2D when the fields are invalid). A 1D unit is a
/// 2D texture one texel high, with every level: WGSL 1D textures have one level and no
/// explicit-LOD sampling, and both recompilers sample a 1D unit at `(s, ½)` with the shared
/// LOD rule (`rsxtrace_wgsl::fragment` and `::vertex`).
pub fn dimension_of(texture: &Texture) -> TextureDimension {
    one_d_as_2d(device_dimension(model_dimension(texture)))
}

/// The device dimension a vertex unit is bound with: [`dimension_of`].
pub fn vertex_dimension_of(texture: &Texture) -> TextureDimension {
    dimension_of(texture)
}

fn one_d_as_2d(d: TextureDimension) -> TextureDimension {
    match d {
        TextureDimension::D1 => TextureDimension::D2,
        d => d,
    }
}

/// The dimension a fragment module must declare for `texture` (the recompiler's view of
/// [`dimension_of`]).
pub fn shader_dimension(texture: &Texture) -> TextureDim {
    match model_dimension(texture) {
        Dimension::D1 => TextureDim::D1,
        Dimension::D2 => TextureDim::D2,
        Dimension::D3 => TextureDim::D3,
        Dimension::Cube => TextureDim::Cube,
    }
}

/// The 1×1 (×6 for cube maps) texture of zeros bound where a unit is disabled or cannot be
/// decoded: RPCS3 binds a null texture there and the interpreter's sampler returns
/// (0, 0, 0, 0) (`super::sampler`).
pub fn null_binding(dimension: TextureDimension) -> TextureBinding {
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

/// The device wrap mode of `wrap`. The mirror-once modes are the clamp after the reflection
/// the recompiled shaders make (`TextureLod::mirror_once`). Where the shader adds the border
/// colour itself (`TextureLod::border`, `Some` when the colour is none of wgpu's three) the
/// device's border is transparent black, so that it adds nothing.
fn wrap_mode(
    wrap: Wrap,
    border: [f32; 4],
    shader_adds_border: bool,
    d: &mut Deviations,
) -> Result<WrapMode, BindingError> {
    Ok(match wrap {
        Wrap::Wrap => WrapMode::Repeat,
        Wrap::Mirror => WrapMode::MirrorRepeat,
        Wrap::ClampToEdge | Wrap::Clamp | Wrap::MirrorOnceClampToEdge | Wrap::MirrorOnceClamp => {
            WrapMode::ClampToEdge
        }
        Wrap::Border | Wrap::MirrorOnceBorder if shader_adds_border => {
            WrapMode::ClampToBorder(BorderColor::TransparentBlack)
        }
        Wrap::Border | Wrap::MirrorOnceBorder => WrapMode::ClampToBorder(device_border(border, d)?),
    })
}

/// The device border colour of `c`, one of wgpu's three (`rsxtrace_semantics::border::
/// DEVICE_BORDERS`); any other is the shader's to add (`TextureLod::border`), so a unit that
/// reaches here with one is a deviation: refused exactly, read as transparent black with a
/// note otherwise.
fn device_border(c: [f32; 4], d: &mut Deviations) -> Result<BorderColor, BindingError> {
    const DEVICE: [BorderColor; 3] = [
        BorderColor::TransparentBlack,
        BorderColor::OpaqueBlack,
        BorderColor::OpaqueWhite,
    ];
    match DEVICE_BORDERS.iter().position(|b| *b == c) {
        Some(k) => Ok(DEVICE[k]),
        None => {
            d.differ(
                format!("border colour {c:?} is not one of wgpu's three"),
                format!("border colour {c:?} is read as transparent black"),
            )?;
            Ok(BorderColor::TransparentBlack)
        }
    }
}

/// Decode fragment texture unit `unit` (`texture`) from `memory` as a binding.
pub fn convert<M: GuestMemory + ?Sized>(
    unit: u8,
    texture: &Texture,
    memory: &M,
    strictness: Strictness,
) -> Result<Converted, BindingError> {
    let image = decode_texture(unit, texture, memory)?;
    convert_decoded(unit, texture, &image, strictness)
}

/// [`convert`] of an image already decoded (by [`decode_texture`] or a
/// [`TextureCache`](super::cache::TextureCache)) from unit `unit`'s state `texture`.
pub fn convert_decoded(
    unit: u8,
    texture: &Texture,
    image: &DecodedTexture,
    strictness: Strictness,
) -> Result<Converted, BindingError> {
    convert_image(unit, texture, image, strictness, false)
}

/// [`convert_decoded`] for vertex texture unit `unit`, whose state `texture` is the one it
/// samples with (`super::vertex_units::sampled_state`: the identity remap). A 1D image becomes
/// a 2D texture one texel high with every level ([`vertex_dimension_of`]).
pub fn convert_vertex_decoded(
    unit: u8,
    texture: &Texture,
    image: &DecodedTexture,
    strictness: Strictness,
) -> Result<Converted, BindingError> {
    convert_image(unit, texture, image, strictness, true)
}

fn convert_image(
    unit: u8,
    texture: &Texture,
    image: &DecodedTexture,
    strictness: Strictness,
    vertex: bool,
) -> Result<Converted, BindingError> {
    let options = UnitOptions::new(texture, image);
    let mut d = Deviations {
        strictness,
        notes: Vec::new(),
    };
    // A fragment unit's texels: signed channels reinterpreted, gamma and bias left to the
    // shader after filtering (`TextureLod::post`); a vertex unit's: every conversion.
    let conversions = options.conversions;
    let upload = |t: [f32; 4]| {
        if vertex {
            conversions.apply(t)
        } else {
            conversions.apply_signed(t)
        }
    };
    // The border as the model samples it (`texture::border`), converted like the texels.
    let border = upload(options.border);
    // Only the axes the image has: the model wraps no other (a 2D unit's r, a 1D unit's t:
    // its one row, bound as 2D, never leaves it), so their modes, and a border colour only
    // they would read, make no difference.
    let used = match image.dimension {
        Dimension::D1 => 1,
        Dimension::D2 | Dimension::Cube => 2,
        Dimension::D3 => 3,
    };
    let mut wrap = [WrapMode::ClampToEdge; 3];
    for (mode, w) in wrap.iter_mut().zip(options.wrap).take(used) {
        *mode = wrap_mode(w, border, options.lod.border.is_some(), &mut d)?;
    }
    // A 1D unit is a 2D texture one texel high (`dimension_of`).
    let dimension = one_d_as_2d(device_dimension(image.dimension));
    let filter = |f: TexelFilter| match f {
        TexelFilter::Nearest => Filter::Nearest,
        TexelFilter::Linear => Filter::Linear,
    };
    let layers = if dimension == TextureDimension::Cube {
        6
    } else {
        1
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
        mip_levels: 0,
        levels: Vec::new(),
        sampler: SamplerDesc {
            wrap,
            mag: filter(options.mag),
            min: filter(options.min),
        },
    };
    // Every level, also without a mip filter: the LOD rule applies the bias and clamp (to the
    // mag/min choice) when the texture has more than one level, and the shader counts the
    // bound levels (`textureNumLevels`) as the interpreter counts the decoded ones. The
    // levels must follow the halving chain wgpu expects (the model's levels do).
    for level in 0..image.levels.max(1) {
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
                    texels.extend(l.texels.iter().map(|t| upload(*t)));
                }
                _ => complete = false,
            }
        }
        if !complete {
            d.differ(
                format!("mip level {level} is off the halving chain"),
                format!(
                    "mip levels from {level} on are not uploaded (sizes off the halving chain)"
                ),
            )?;
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
        }
        .into());
    }
    Ok(Converted {
        binding,
        notes: d.notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deviations(strictness: Strictness) -> Deviations {
        Deviations {
            strictness,
            notes: Vec::new(),
        }
    }

    #[test]
    fn null_textures_match_their_dimension() {
        let cube = null_binding(TextureDimension::Cube);
        assert_eq!((cube.depth_or_layers, cube.levels[0].len()), (6, 6));
        let flat = null_binding(TextureDimension::D2);
        assert_eq!(flat.levels, vec![vec![[0.0; 4]]]);
    }

    #[test]
    fn borders_are_wgpus_own_colours() {
        let mut d = deviations(Strictness::Approximate);
        assert_eq!(
            device_border([0.0, 0.0, 0.0, 1.0], &mut d),
            Ok(BorderColor::OpaqueBlack)
        );
        assert!(d.notes.is_empty());
        assert_eq!(
            device_border([0.9, 0.8, 1.0, 1.0], &mut d),
            Ok(BorderColor::TransparentBlack)
        );
        assert_eq!(d.notes.len(), 1);
        let mut w = |raw| wrap_mode(Wrap::from_raw(raw), [0.0; 4], false, &mut d);
        assert_eq!(w(2), Ok(WrapMode::MirrorRepeat));
        assert_eq!(w(5), Ok(WrapMode::ClampToEdge));
        assert_eq!(w(6), Ok(WrapMode::ClampToEdge));
        assert_eq!(d.notes.len(), 1);
    }

    #[test]
    fn exact_wrap_modes_map_or_refuse() {
        // ADDRESS wrap codes (texture/wrap.rs): 1 wrap, 2 mirror, 3 clamp to edge, 4 border,
        // 5 clamp, 6..8 mirror once.
        let mut d = deviations(Strictness::Exact);
        let black = [0.0, 0.0, 0.0, 1.0];
        let mut w = |raw, border| wrap_mode(Wrap::from_raw(raw), border, false, &mut d);
        assert_eq!(w(1, black), Ok(WrapMode::Repeat));
        assert_eq!(w(2, black), Ok(WrapMode::MirrorRepeat));
        assert_eq!(w(3, black), Ok(WrapMode::ClampToEdge));
        assert_eq!(
            w(4, black),
            Ok(WrapMode::ClampToBorder(BorderColor::OpaqueBlack))
        );
        let refused = |r: Result<WrapMode, BindingError>| match r {
            Err(BindingError::Inexact(why)) => why,
            other => panic!("not refused: {other:?}"),
        };
        assert!(refused(w(4, [0.5, 0.0, 0.0, 1.0])).contains("border colour"));
        assert!(refused(w(4, [f32::NAN, 0.0, 0.0, 1.0])).contains("border colour"));
        // The mirror-once modes are the clamp after the shaders' reflection.
        assert_eq!(w(6, black), Ok(WrapMode::ClampToEdge));
        assert_eq!(w(8, black), Ok(WrapMode::ClampToEdge));
        assert_eq!(
            w(7, black),
            Ok(WrapMode::ClampToBorder(BorderColor::OpaqueBlack))
        );
        assert!(refused(w(7, [0.5, 0.0, 0.0, 1.0])).contains("border colour"));
        // Where the shader adds the colour, the device's border adds nothing.
        let mut d = deviations(Strictness::Exact);
        for raw in [4, 7] {
            assert_eq!(
                wrap_mode(Wrap::from_raw(raw), [0.5, 0.0, 0.0, 1.0], true, &mut d),
                Ok(WrapMode::ClampToBorder(BorderColor::TransparentBlack))
            );
        }
        assert!(d.notes.is_empty());
    }
}
