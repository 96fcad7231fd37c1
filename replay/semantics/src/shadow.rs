//! What a texture unit does to its texels besides filtering, as both the interpreter's sampler
//! and the WGSL recompiler apply it: the depth comparison of a shadow map and the texture
//! alpha kill.
//!
//! **Depth comparison.** A unit holding DEPTH16, DEPTH24_D8 or their float variants whose
//! `SET_TEXTURE_ADDRESS` ZFUNC (bits 28..31) is LESS .. GEQUAL (1..=6), with alpha kill off,
//! samples as a shadow map (RPCS3 `RSXThread.cpp`, `shadow_textures`): each texel is
//! compared with the reference, the coordinate's z (after TXP's division by w), and reads
//! 1 where `texel ZFUNC reference` holds, else 0 (RPCS3 hands the host sampler the reversed
//! function because a host compares `reference OP texel`: `GL/glutils/sampler.cpp`, "The
//! stored texture function is reversed"). Linear filtering blends the four results (a host's
//! percentage-closer filtering); all four channels read the blend and no sign, gamma or bias
//! applies (RPCS3 samples `TEX2D_SHADOW(...)` without `_process_texel`); the texel compared is
//! the decoded one's R (the depth, with the identity remap). On a fixed-point format (DEPTH16,
//! DEPTH24_D8) the reference is clamped to [0, 1] first, as GL and Vulkan do for a fixed-point
//! depth texture (GL 4.6 8.23.1) and RPCS3's emulated comparison writes `min(z, 1)`
//! (`RSXFragmentTextureOps.glsl`); a float format compares it as it is. Only 2D units
//! compare: RPCS3 leaves 1D shadow sampling unimplemented, and 3D and cube depth textures are
//! read as depth here.
//!
//! **Alpha kill.** A unit with `SET_TEXTURE_CONTROL0` bit 2 discards the fragment whose
//! filtered texel (after the remap, before the gamma and bias conversions; a signed alpha is
//! read signed, as through RPCS3's SNORM view) has alpha below [`ALPHA_KILL_BELOW`] (RPCS3
//! `RSXFragmentTextureOps.glsl` `_process_texel`).

use serde::Serialize;

/// The alpha below which a unit with alpha kill discards the fragment (RPCS3's `0.000001`).
pub const ALPHA_KILL_BELOW: f32 = 0.000001;

/// A unit's depth comparison: the ZFUNC and whether its mag and min filters are linear.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DepthCompare {
    /// ZFUNC, 1 (LESS) to 6 (GEQUAL): 1 LESS, 2 EQUAL, 3 LEQUAL, 4 GREATER, 5 NOTEQUAL,
    /// 6 GEQUAL (`rsx::comparison_function`).
    pub func: u8,
    /// The mag filter blends four texels.
    pub mag_linear: bool,
    /// The min filter blends four texels (within a level; the mip filter is the LOD rule's).
    pub min_linear: bool,
    /// A fixed-point depth format: the reference is clamped to [0, 1] before the comparison.
    pub clamp_reference: bool,
}

impl DepthCompare {
    /// The comparison of a depth unit with ZFUNC `zfunc`, or `None` where the unit reads depth
    /// as a value (ZFUNC NEVER or ALWAYS, or alpha kill on).
    pub fn of_unit(
        zfunc: u32,
        alpha_kill: bool,
        mag_linear: bool,
        min_linear: bool,
    ) -> Option<DepthCompare> {
        ((1..=6).contains(&zfunc) && !alpha_kill).then_some(DepthCompare {
            func: zfunc as u8,
            mag_linear,
            min_linear,
            clamp_reference: false,
        })
    }

    /// The same, for a unit whose depth format is fixed-point (`fixed_point`: DEPTH16,
    /// DEPTH24_D8) or float.
    pub fn with_fixed_point(self, fixed_point: bool) -> DepthCompare {
        DepthCompare {
            clamp_reference: fixed_point,
            ..self
        }
    }

    /// 1 where `texel ZFUNC reference` holds (the reference clamped to [0, 1] first on a
    /// fixed-point format), else 0.
    pub fn compare(self, texel: f32, reference: f32) -> f32 {
        let reference = if self.clamp_reference {
            reference.clamp(0.0, 1.0)
        } else {
            reference
        };
        let pass = match self.func {
            1 => texel < reference,
            2 => texel == reference,
            3 => texel <= reference,
            4 => texel > reference,
            5 => texel != reference,
            _ => texel >= reference,
        };
        if pass {
            1.0
        } else {
            0.0
        }
    }
}

/// The same comparison in WGSL (`(name, source)` helpers as [`crate::lod::WGSL_LIBRARY`]).
/// `rsx_shadow_level` samples one level of a 2D unit at the four (or one) texel centres
/// around `c` with `textureSampleLevel` at LOD `lod` (a sample at a texel's centre reads that
/// texel, whatever the filter; the sampler's wrap modes and border apply), compares each with
/// `r` and blends the results with the bilinear weights when `linear`. A texel outside the
/// image on an axis of `bord` reads `bz` instead, the first channel of a border colour the
/// device cannot hold (`crate::border`; `bord` is all false otherwise). The level's size is
/// level 0's halved `level` times (the chain the device's levels follow): llvmpipe answers
/// `textureDimensions(tx, level)` with the first lane's level for the whole SIMD group (Mesa
/// `lp_build_size_query_soa`), and neighbouring pixels may choose different levels.
pub const WGSL_LIBRARY: &[(&str, &str)] = &[
    (
        "rsx_zcmp",
        "
fn rsx_zcmp(t: f32, r: f32, f: u32) -> f32 {
    var p = false;
    switch f {
        case 1u: { p = t < r; }
        case 2u: { p = t == r; }
        case 3u: { p = t <= r; }
        case 4u: { p = t > r; }
        case 5u: { p = t != r; }
        default: { p = t >= r; }
    }
    return select(0.0, 1.0, p);
}
",
    ),
    (
        "rsx_shadow_tap",
        "
fn rsx_shadow_tap(tx: texture_2d<f32>, sm: sampler, i: vec2<f32>, size: vec2<f32>, lod: f32, r: f32, f: u32, bord: vec2<bool>, bz: f32) -> f32 {
    let outside = any(bord & ((i < vec2<f32>(0.0)) | (i >= size)));
    let t = textureSampleLevel(tx, sm, (i + vec2<f32>(0.5)) / size, lod).x;
    return rsx_zcmp(select(t, bz, outside), r, f);
}
",
    ),
    (
        "rsx_shadow_level",
        "
fn rsx_shadow_level(tx: texture_2d<f32>, sm: sampler, c: vec2<f32>, r: f32, level: i32, lod: f32, linear: bool, f: u32, bord: vec2<bool>, bz: f32) -> f32 {
    let size = vec2<f32>(max(textureDimensions(tx, 0) >> vec2<u32>(u32(level)), vec2<u32>(1u)));
    if (!linear) {
        return rsx_shadow_tap(tx, sm, floor(c * size), size, lod, r, f, bord, bz);
    }
    let u = c * size - vec2<f32>(0.5);
    let i = floor(u);
    let w = u - i;
    let a = rsx_shadow_tap(tx, sm, i, size, lod, r, f, bord, bz);
    let b = rsx_shadow_tap(tx, sm, i + vec2<f32>(1.0, 0.0), size, lod, r, f, bord, bz);
    let d = rsx_shadow_tap(tx, sm, i + vec2<f32>(0.0, 1.0), size, lod, r, f, bord, bz);
    let e = rsx_shadow_tap(tx, sm, i + vec2<f32>(1.0, 1.0), size, lod, r, f, bord, bz);
    return mix(mix(a, b, w.x), mix(d, e, w.x), w.y);
}
",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_texel_is_compared_with_the_reference() {
        let less = DepthCompare::of_unit(1, false, false, false).unwrap();
        assert_eq!(less.compare(0.5, 0.75), 1.0);
        assert_eq!(less.compare(0.5, 0.25), 0.0);
        let gequal = DepthCompare { func: 6, ..less };
        assert_eq!(gequal.compare(0.5, 0.5), 1.0);
        assert!(DepthCompare::of_unit(0, false, false, false).is_none());
        assert!(DepthCompare::of_unit(7, false, false, false).is_none());
        assert!(DepthCompare::of_unit(1, true, false, false).is_none());
        // A reference past 1 compares as 1 on a fixed-point format, as it is on a float one.
        let fixed = gequal.with_fixed_point(true);
        assert_eq!(fixed.compare(1.0, 1.5), 1.0);
        assert_eq!(gequal.compare(1.0, 1.5), 0.0);
        assert_eq!(fixed.compare(0.0, -0.5), 1.0);
    }
}
