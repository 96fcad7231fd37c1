//! Pattern textures for the units a fragment program samples (and those a vertex program's
//! TXL samples, [`vertex_patterns`]), as texture unit state and
//! guest memory that go through the texture model exactly as a capture's would
//! (`crate::divergence::textures::bind`): linear layout, 16 texels a side, bilinear filtering,
//! one level, in the dimension the pipeline records for the unit (2D when none is recorded:
//! RPCS3's default, `rpcs3-shader-cache.md` 5.1). The format is A8R8G8B8, or DEPTH24_D8 for
//! units the pipeline marks as shadow (depth-compare) units (§3.2 `fp_shadow_textures`), bound
//! with ZFUNC LESS so that 2D ones compare as shadow maps (`docs/textures.md`); redirected
//! units are depth read as A8R8G8B8, which is what they get. Texels are seeded by the
//! program's key and the unit.

use crate::divergence::mutate::XorShift;
use crate::divergence::textures::{bind, bind_vertex, Bound, BoundVertex};
use rsxtrace_capture::fetch::FlatMemory;
use rsxtrace_capture::frame::state::{Texture, TextureRegs};
use rsxtrace_replay::texture::cache::TextureCache;
use rsxtrace_replay::texture::vertex_units::VERTEX_UNITS;

/// Texels per side.
pub const SIDE: u32 = 16;
/// Layers of a 3D pattern.
const DEPTH_3D: u32 = 4;
/// Bytes reserved per unit in the pattern memory.
const UNIT_SPAN: u32 = 64 * 1024;
/// `FORMAT` colour format: A8R8G8B8 (0x85) | linear (0x20).
const FORMAT_ARGB8_LINEAR: u32 = 0xA5;
/// `FORMAT` colour format: DEPTH24_D8 (0x90) | linear (0x20).
const FORMAT_DEPTH24_LINEAR: u32 = 0xB0;

/// The RSX dimension of unit `unit` from a pipeline's 2-bit field (0 1D, 1 2D, 2 cube, 3 3D;
/// `rpcs3-shader-cache.md` 3.2), as (dimension register value, cube map).
fn dimension(dims: Option<u32>, unit: usize) -> (u32, bool) {
    match dims.map(|d| (d >> (2 * unit)) & 3) {
        Some(0) => (1, false),
        Some(2) => (2, true),
        Some(3) => (3, false),
        _ => (2, false),
    }
}

/// Unit state and memory for the units of `units`, dimensions from `dims` (a pipeline's
/// `fp_texture_dimensions`), depth formats for the units of `shadow` (its
/// `fp_shadow_textures`), bound on both sides; `Err` is why the device cannot sample them as
/// the interpreter does.
pub fn patterns(key: u64, units: u16, dims: Option<u32>, shadow: u16) -> Result<Bound, String> {
    let (textures, memory) = pattern_units(key, units, dims, shadow);
    bind(&textures, &memory, units, &TextureCache::default())
}

/// [`patterns`] for the vertex texture units of `units` (a vertex program's TXL units): 2D
/// A8R8G8B8 patterns, bound on both sides as vertex units sample them (point by point,
/// whatever the pattern's filter says).
pub fn vertex_patterns(key: u64, units: u8) -> Result<BoundVertex, String> {
    let (textures, memory) = pattern_units(key, u16::from(units), None, 0);
    let vertex: [Texture; VERTEX_UNITS] = std::array::from_fn(|u| textures[u]);
    bind_vertex(&vertex, &memory, units, &TextureCache::default())
}

/// The unit state and pattern memory of [`patterns`].
fn pattern_units(
    key: u64,
    units: u16,
    dims: Option<u32>,
    shadow: u16,
) -> ([Texture; 16], FlatMemory) {
    let mut memory = vec![0u8; UNIT_SPAN as usize * 16];
    let mut textures: [Texture; 16] =
        std::array::from_fn(|_| Texture::from_regs(&TextureRegs::default()));
    for (unit, texture) in textures.iter_mut().enumerate() {
        if units & (1 << unit) == 0 {
            continue;
        }
        let (dimension, cube) = dimension(dims, unit);
        let (height, depth) = match dimension {
            1 => (1, 1),
            3 => (SIDE, DEPTH_3D),
            _ => (SIDE, 1),
        };
        let faces = if cube { 6 } else { 1 };
        let is_shadow = shadow & (1 << unit) != 0;
        let format = if is_shadow {
            FORMAT_DEPTH24_LINEAR
        } else {
            FORMAT_ARGB8_LINEAR
        };
        let offset = UNIT_SPAN * unit as u32;
        let bytes = (SIDE * height * depth * faces * 4) as usize;
        let mut rng = XorShift::new(key ^ (unit as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let start = offset as usize;
        if let Some(texels) = memory.get_mut(start..start + bytes) {
            for b in texels.iter_mut() {
                *b = rng.next_u64() as u8;
            }
        }
        let regs = TextureRegs {
            offset,
            // Location local (+1 = 1), cube map flag, border-less, dimension, format, 1 level
            // (rrc-format.md 4.7).
            format: 1
                | (u32::from(cube) << 2)
                | (1 << 3)
                | (dimension << 4)
                | (format << 8)
                | (1 << 16),
            // Wrap in s, t and r; a shadow unit compares with ZFUNC LESS (bits 28..31), so a
            // 2D one samples as a shadow map (`rsxtrace_semantics::shadow`).
            address: 1 | (1 << 8) | (1 << 16) | (u32::from(is_shadow) << 28),
            // Enabled, max LOD 12.
            control0: (1 << 31) | ((12 << 8) << 7),
            // Identity remap.
            control1: 0xAAE4,
            control2: 0,
            // Bilinear min and mag.
            filter: (2 << 16) | (2 << 24),
            image_rect: (SIDE << 16) | height,
            border_color: 0,
            control3: (depth << 20) | (SIDE * 4),
        };
        *texture = Texture::from_regs(&regs);
    }
    (textures, FlatMemory::local(memory))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_dimensional_units_bind_on_both_sides() {
        let b = patterns(5, 0b101, None, 0).expect("2D ARGB8 binds exactly");
        assert!(b.gpu[0].is_some() && b.gpu[2].is_some() && b.gpu[1].is_none());
    }

    #[test]
    fn vertex_units_bind_on_both_sides() {
        let b = vertex_patterns(5, 0b1001).expect("2D ARGB8 binds exactly");
        assert!(b.gpu[0].is_some() && b.gpu[3].is_some() && b.gpu[1].is_none());
        assert!(b.sampler.unit(0).is_some() && b.sampler.unit(2).is_none());
    }

    #[test]
    fn shadow_units_get_a_depth_format_and_compare() {
        // DEPTH24_D8 with ZFUNC LESS binds exactly and samples as a shadow map on both sides.
        let b = patterns(5, 0b1, None, 0b1).expect("depth binds");
        assert!(b.gpu[0].is_some());
        let (textures, _) = pattern_units(5, 0b1, None, 0b1);
        let lod = rsxtrace_replay::texture::lod::unit_lod(&textures[0]);
        assert_eq!(lod.compare.map(|c| c.func), Some(1));
        // A colour unit does not compare.
        let (textures, _) = pattern_units(5, 0b1, None, 0);
        assert!(rsxtrace_replay::texture::lod::unit_lod(&textures[0])
            .compare
            .is_none());
    }

    #[test]
    fn pipeline_dimensions_choose_the_unit_shape() {
        assert_eq!(dimension(Some(0b00), 0), (1, false));
        assert_eq!(dimension(Some(0b10 << 2), 1), (2, true));
        assert_eq!(dimension(Some(0b11 << 4), 2), (3, false));
        assert_eq!(dimension(None, 3), (2, false));
    }
}
