//! The same textures on both sides of the fragment stage: the units a program samples,
//! decoded once by the texture model the interpreter samples through
//! (`rsxtrace_replay::texture::decode::decode_texture`, through the verify run's
//! `TextureCache`: once per state and content of the bytes for the whole run) and handed to
//! the interpreter as a `CaptureSampler` and to the device as `TextureBinding`s built from the
//! same texels (plus the unit's post-filter conversions, applied per texel).
//!
//! Verify binds strictly: a unit whose state the device cannot sample the way the model does
//! makes the stage *skipped* with the reason, instead of an approximation that would show up
//! as a divergence. The conversion is the GPU render's own
//! (`rsxtrace_replay::texture::binding::convert`), under `Strictness::Exact`; the states it
//! refuses are listed there. The level of detail is no reason to skip: both sides choose
//! levels with the shared LOD rule (`rsxtrace_replay::texture::lod`), the device from the
//! unit's [`TextureLod`] baked into the translation ([`Bound::lod`]), which also carries
//! unnormalised (texel) coordinates, scaled by the shader as by the interpreter.
//!
//! The vertex stage's texture units (TXL) are bound the same way ([`bind_vertex`]), with the
//! state vertex units sample with (identity remap, explicit level of detail).

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_gpu::{TextureBinding, TEXTURE_UNITS};
use rsxtrace_replay::texture::binding::{
    convert_decoded, convert_vertex_decoded, dimension_of, null_binding, shader_dimension,
    vertex_dimension_of, Strictness,
};
use rsxtrace_replay::texture::cache::TextureCache;
use rsxtrace_replay::texture::lod::{unit_lod, TextureLod};
use rsxtrace_replay::texture::sampler::CaptureSampler;
use rsxtrace_replay::texture::vertex_units::{
    sampled_state, translation_state, VertexTextures, VERTEX_UNITS,
};
use rsxtrace_replay::texture::{DecodedTexture, UnitSampler};
use rsxtrace_replay::wgsl::fragment::TextureDim;
use rsxtrace_replay::wgsl::vertex::VertexTextureUnits;
use std::sync::Arc;

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

/// The units of `units` (bit mask) of `textures` on both sides, or why the stage is skipped.
/// Each enabled unit is decoded once, through `cache` (so a texture a thousand draws sample is
/// decoded once for all of them, and anew when its bytes change), and both the interpreter's
/// sampler and the device binding are made from that one image.
pub fn bind<M: GuestMemory + ?Sized>(
    textures: &[Texture; 16],
    memory: &M,
    units: u16,
    cache: &TextureCache,
) -> Result<Bound, String> {
    let mut images: [Option<Arc<DecodedTexture>>; 16] = Default::default();
    let mut samplers = Vec::with_capacity(16);
    for (u, t) in textures.iter().enumerate() {
        if units & (1 << u) == 0 || !t.control0.enabled {
            samplers.push(None);
            continue;
        }
        let decoded = cache
            .decode(u as u8, t, memory)
            .and_then(|image| Ok((UnitSampler::from_image(image.clone(), t)?, image)));
        let (sampler, image) =
            decoded.map_err(|e| format!("texture cannot be decoded from the capture: {e}"))?;
        samplers.push(Some(sampler));
        images[u] = Some(image);
    }
    let sampler = CaptureSampler::from_units(samplers);
    let mut gpu: [Option<TextureBinding>; TEXTURE_UNITS as usize] = Default::default();
    let mut dims = [TextureDim::D2; 16];
    for (u, t) in textures.iter().enumerate() {
        dims[u] = shader_dimension(t);
        if units & (1 << u) == 0 {
            continue;
        }
        let Some(slot) = gpu.get_mut(u) else { continue };
        *slot = Some(match &images[u] {
            Some(image) => convert_decoded(u as u8, t, image, Strictness::Exact)
                .map(|c| c.binding)
                .map_err(|e| format!("texture unit {u}: {e}"))?,
            None => null_binding(dimension_of(t)),
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

/// A draw's sampled vertex texture units (TXL) on both sides.
#[derive(Clone, Debug)]
pub struct BoundVertex {
    /// Device bindings of the sampled units (disabled ones are 1×1 zero textures; 1D units
    /// are 2D textures one texel high, as the module declares them).
    pub gpu: [Option<TextureBinding>; VERTEX_UNITS],
    /// The interpreter's sampler.
    pub sampler: VertexTextures,
    /// The units' state for the recompiler (dimension and LOD state).
    pub state: VertexTextureUnits,
}

/// The vertex units of `units` (bit mask, the program's TXL units) of `textures` on both
/// sides, or why the stage is skipped: as [`bind`], each unit decoded once through `cache`
/// with the state vertex units sample with (the identity remap,
/// `rsxtrace_replay::texture::vertex_units::sampled_state`).
pub fn bind_vertex<M: GuestMemory + ?Sized>(
    textures: &[Texture; VERTEX_UNITS],
    memory: &M,
    units: u8,
    cache: &TextureCache,
) -> Result<BoundVertex, String> {
    let mut samplers: [Option<UnitSampler>; VERTEX_UNITS] = Default::default();
    let mut gpu: [Option<TextureBinding>; VERTEX_UNITS] = Default::default();
    for (u, t) in textures.iter().enumerate() {
        if units & (1 << u) == 0 {
            continue;
        }
        if !t.control0.enabled {
            // RPCS3's null texture: (0, 0, 0, 0) on both sides.
            gpu[u] = Some(null_binding(vertex_dimension_of(t)));
            continue;
        }
        let t = sampled_state(t);
        let image = cache.decode(u as u8, &t, memory).map_err(|e| {
            format!("vertex texture unit {u} cannot be decoded from the capture: {e}")
        })?;
        samplers[u] = Some(
            UnitSampler::from_image(image.clone(), &t)
                .map_err(|e| format!("vertex texture unit {u}: {e}"))?,
        );
        gpu[u] = Some(
            convert_vertex_decoded(u as u8, &t, &image, Strictness::Exact)
                .map(|c| c.binding)
                .map_err(|e| format!("vertex texture unit {u}: {e}"))?,
        );
    }
    Ok(BoundVertex {
        gpu,
        sampler: VertexTextures::from_units(samplers),
        state: translation_state(textures, units),
    })
}
