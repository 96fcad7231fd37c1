//! [`VertexTextures`]: the four vertex texture units of one draw ready for TXL
//! ([`VertexTextureSampler`]), decoded by the same texture model as the fragment units.
//!
//! Vertex units have no CONTROL1 register (rrc-format.md 4.7: offset, format, address,
//! CONTROL0, CONTROL3, filter, image rect and border colour only), so they sample with the
//! identity remap (RPCS3 `RSXTexture.cpp`: `vertex_texture::decoded_remap` is the default
//! remap vector). They sample point by point: nearest texel and nearest level whatever the
//! FILTER register says (RPCS3 `vertex_texture::min_filter` / `mag_filter` are always
//! nearest, and its sampler's mip mode is nearest; the NV4x vertex texture fetch is
//! point-sampled), with no border texels (`vertex_texture::border_type` is always 1), r
//! wrapping (`wrap_r` is always WRAP), no sign, gamma or bias conversion (RPCS3's vertex fetch
//! has no `_process_texel`), no depth comparison and no alpha kill. The level of detail is
//! TXL's explicit one (the hardware's TXL takes one; RPCS3 samples level 0 under the CONTROL0
//! clamp); the wrap modes of s and t, the LOD clamp and the border colour apply as for a
//! fragment unit. A unit that is disabled, not asked for, or whose texture cannot be decoded
//! samples (0, 0, 0, 0), RPCS3's null texture.

use super::binding::shader_dimension;
use super::cache::TextureCache;
use super::error::TextureError;
use super::lod::unit_lod;
use super::sampler::UnitSampler;
use super::{LodSource, SampleRequest};
use crate::interp::vertex::VertexTextureSampler;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::{Named, Texture};
use rsxtrace_program::vertex::VertexProgram;
use rsxtrace_wgsl::vertex::VertexTextureUnits;

/// Vertex texture units (rrc-format.md 4.7).
pub const VERTEX_UNITS: usize = 4;

/// The identity remap as CONTROL1's low half: selectors 0xE4, every mode REMAP (0xAA).
const IDENTITY_REMAP: u16 = 0xAAE4;

/// The state vertex unit `texture` samples with: its own, with the identity remap (vertex
/// units have no CONTROL1), nearest filters with a nearest mip filter, no border texels, r
/// wrapping, no conversions, no depth comparison and no alpha kill (RPCS3 `RSXTexture.cpp`
/// `vertex_texture`, and its vertex fetch, a plain `textureLod`; see the module
/// documentation).
pub fn sampled_state(texture: &Texture) -> Texture {
    let named = |raw: u32, name: &'static str| Named {
        raw,
        name: Some(name),
    };
    let mut t = Texture {
        remap: IDENTITY_REMAP,
        remap_override: 0,
        ..*texture
    };
    t.filter.min = named(3, "nearest_nearest");
    t.filter.mag = named(1, "nearest");
    t.filter.argb_signed = 0;
    t.format.border_type = 1;
    t.address.wrap_r = named(1, "wrap");
    t.address.gamma = 0;
    t.address.unsigned_remap = 0;
    t.address.signed_remap = 0;
    t.address.zfunc = Named { raw: 0, name: None };
    t.control0.alpha_kill = false;
    t
}

/// The vertex texture units `program`'s TXL instructions name (bit u = unit u).
pub fn txl_units(program: &VertexProgram) -> u8 {
    program
        .instructions
        .iter()
        .filter_map(|i| i.texture_unit())
        .fold(0u8, |m, u| m | 1 << (u & 3))
}

/// What the recompiled TXL of the units in `mask` needs from the units' state `textures`
/// (dimension and LOD state, from the same registers the interpreter's sampler reads); units
/// outside `mask` keep the default, so a module does not depend on units it never samples.
pub fn translation_state(textures: &[Texture; VERTEX_UNITS], mask: u8) -> VertexTextureUnits {
    let mut out = VertexTextureUnits::default();
    for (u, t) in textures.iter().enumerate() {
        if mask & (1 << u) != 0 {
            out.dims[u] = shader_dimension(t);
            out.lod[u] = unit_lod(&sampled_state(t));
        }
    }
    out
}

/// The decoded vertex texture units of one draw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexTextures {
    units: [Option<UnitSampler>; VERTEX_UNITS],
}

impl VertexTextures {
    /// Decode the enabled units of `textures` (a draw's vertex units) whose bit is set in
    /// `mask` (bit `i` = unit `i`, e.g. the units the program's TXL instructions name), from
    /// `memory`, through `cache` when given. A unit that cannot be decoded samples as
    /// (0, 0, 0, 0); its error is returned alongside.
    pub fn lenient<M: GuestMemory + ?Sized>(
        textures: &[Texture; VERTEX_UNITS],
        memory: &M,
        mask: u8,
        cache: Option<&TextureCache>,
    ) -> (VertexTextures, Vec<TextureError>) {
        let mut errors = Vec::new();
        let mut out = VertexTextures::default();
        for (i, (t, slot)) in textures.iter().zip(out.units.iter_mut()).enumerate() {
            if mask & (1 << i) == 0 || !t.control0.enabled {
                continue;
            }
            let t = sampled_state(t);
            let unit = i as u8;
            let decoded = match cache {
                Some(cache) => UnitSampler::cached(unit, &t, memory, cache),
                None => UnitSampler::new(unit, &t, memory),
            };
            match decoded {
                Ok(u) => *slot = Some(u),
                Err(e) => errors.push(e),
            }
        }
        (out, errors)
    }

    /// As [`lenient`](Self::lenient) for the units `program`'s TXL instructions name.
    pub fn for_program<M: GuestMemory + ?Sized>(
        textures: &[Texture; VERTEX_UNITS],
        program: &VertexProgram,
        memory: &M,
        cache: Option<&TextureCache>,
    ) -> (VertexTextures, Vec<TextureError>) {
        VertexTextures::lenient(textures, memory, txl_units(program), cache)
    }

    /// The units from samplers already made (unit u from `units[u]`; `None` samples
    /// (0, 0, 0, 0)).
    pub fn from_units(units: [Option<UnitSampler>; VERTEX_UNITS]) -> VertexTextures {
        VertexTextures { units }
    }

    /// The decoded unit, if it is in use.
    pub fn unit(&self, unit: u8) -> Option<&UnitSampler> {
        self.units.get(usize::from(unit)).and_then(Option::as_ref)
    }
}

impl VertexTextureSampler for VertexTextures {
    fn sample_lod(&self, unit: u8, coord: [f32; 4], lod: f32) -> [f32; 4] {
        self.unit(unit).map_or([0.0; 4], |u| {
            u.sample(&SampleRequest {
                coord,
                ddx: [0.0; 4],
                ddy: [0.0; 4],
                lod: LodSource::Explicit(lod),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::Remap;
    use rsxtrace_capture::builder::{CaptureBuilder, TextureDesc};
    use rsxtrace_capture::frame::Frame;
    use rsxtrace_capture::rrc::Location;

    #[test]
    fn an_identity_remap_is_checked_against_the_remap_decoder() {
        use super::super::format::TexelFormat;
        assert_eq!(
            Remap::decode(u32::from(IDENTITY_REMAP), TexelFormat::A8R8G8B8),
            Remap::IDENTITY
        );
    }

    #[test]
    fn a_float_vertex_texture_samples_its_texels_at_the_explicit_level() {
        // A 2x1 W32_Z32_Y32_X32_FLOAT (0x9B | linear 0x20) texture: texel 0 (1, 2, 3, 4),
        // texel 1 (5, 6, 7, 8); FILTER says linear, which a vertex unit ignores.
        let texels: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        let mut b = CaptureBuilder::new("vertex-textures");
        b.put_memory(Location::Local, 0x0040_0000, &texels).unwrap();
        b.put_memory(Location::Main, 0x1000, &[0u8; 36]).unwrap();
        b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
            .unwrap();
        b.set_fragment_program(
            Location::Local,
            0x0030_0000,
            &rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0,
            0x40,
        )
        .unwrap();
        b.set_vertex_texture(
            1,
            &TextureDesc {
                offset: 0x0040_0000,
                format: 0xBB,
                width: 2,
                height: 1,
                pitch: 32,
                byte_size: 32,
                filter: 0x0202_0000, // min and mag linear
                ..TextureDesc::default()
            },
        )
        .unwrap();
        // Unit 2: texels the capture does not hold (the draw attaches none).
        b.set_vertex_texture(
            2,
            &TextureDesc {
                offset: 0x0050_0000,
                format: 0xBB,
                pitch: 16,
                byte_size: 0,
                ..TextureDesc::default()
            },
        )
        .unwrap();
        b.draw_arrays(5, &[(0, 3)]).unwrap();
        let frame = Frame::from_capture(&b.finish()).unwrap();
        let draw = &frame.draws[0];
        let memory = frame.memory(0).unwrap();
        let (units, errors) = VertexTextures::lenient(&draw.vertex_textures, &memory, 0xF, None);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0]
            .to_string()
            .starts_with("texture unit 2: capture holds no memory"));
        assert_eq!(units.sample_lod(2, [0.5; 4], 0.0), [0.0; 4]);
        assert!(units.unit(0).is_none(), "unit 0 is disabled");
        let rgba = |x: f32| units.sample_lod(1, [x, 0.5, 0.0, 1.0], 0.0);
        // Float textures are stored R, G, B, A = X, Y, Z, W.
        assert_eq!(rgba(0.25), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(rgba(0.75), [5.0, 6.0, 7.0, 8.0]);
        // Point-sampled: s = 0.45 is texel 0 (a linear filter would give 0.4 of texel 1).
        assert_eq!(rgba(0.45), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(units.sample_lod(0, [0.25, 0.5, 0.0, 1.0], 0.0), [0.0; 4]);
        // Not asked for: not decoded.
        let (none, _) = VertexTextures::lenient(&draw.vertex_textures, &memory, 0b1, None);
        assert!(none.unit(1).is_none());
    }
}
