//! The RSX's level-of-detail rule: one definition, in Rust for the reference interpreter's
//! sampler (`rsxtrace-replay::texture::sampler`) and in WGSL ([`WGSL_LIBRARY`]) for the
//! recompiled fragment programs (`rsxtrace-wgsl`), so that neither path relies on a host
//! sampler's own LOD computation (which differs between devices: lavapipe approximates rho
//! and log2).
//!
//! The rule (OpenGL 2.1 section 3.8.8 and 3.8.9, the base NV4x hardware follows; RPCS3 hands
//! the unit's registers to the host API and lets the host GPU apply this rule, `rsx/Common`
//! `sampler_state::apply` / `GLTexture.cpp`):
//!
//! 1. `rho = max(|d(uv)/dx * size|, |d(uv)/dy * size|)`: Euclidean lengths of the quad's
//!    derivative vectors of the used coordinates scaled by the level-0 size (TXD takes its
//!    gradients from the instruction); `lambda = log2(rho)`. TXL's operand replaces it.
//! 2. `lambda += bias` (FILTER bits 0..12, signed 4.8 fixed point; Mesa `nv40_fragtex.c`
//!    writes `(int)(lod_bias * 256) & 0x1fff`) plus TXB's operand.
//! 3. Clamp to `[min_lod, max_lod]` (CONTROL0 bits 19..30 and 7..18, unsigned 4.8 fixed
//!    point, 0..15+255/256; Mesa `nv40_fragtex.c`). NaN becomes `min_lod`.
//! 4. `lambda <= 0`: magnification, level 0 with the mag filter. Otherwise the min filter:
//!    no mip filter: level 0; mip nearest: level `ceil(lambda + 0.5) - 1` (0 up to 0.5),
//!    at most the last level; mip linear: the last level from `lambda >= last` on, else
//!    levels `floor(lambda)` and the next blended with weight `fract(lambda)`.
//!
//! With one level, RPCS3 drops the mip filter, the bias and the clamp (`sampler_state::apply`:
//! a texture without mipmaps gets no LOD bias or clamp); step 4 then only chooses between the
//! mag and min filters.
//!
//! **Anisotropic filtering** (CONTROL0 bits 4..6, max anisotropy x1..x16; RPCS3 hands it to
//! the host sampler, `VKDraw.cpp` / `GLTexture.cpp` `max_aniso`), on 2D units: the rule of
//! `EXT_texture_filter_anisotropic` ([`Anisotropy`]): with `Px`, `Py` the lengths of step 1's
//! scaled derivative vectors, `N = min(ceil(Pmax / Pmin), max)` samples are taken along the
//! longer one's derivative, at `coord + d·(i / (N + 1) − ½)` for `i = 1..N`, each with the
//! levels the rule chooses for `lambda = log2(Pmax / N)`, and averaged. The hardware's own
//! sample count and placement are undocumented; this is the extension's reference rule. 1D,
//! 3D and cube units and TXL stay isotropic.
//!
//! Not documented for the RSX, hence not modelled: the fixed-point precision of lambda and of
//! the blend weight (the registers hold 4.8 values, the arithmetic in between is unknown; the
//! rule runs in f32), and the GL `c = 0.5` mag/min switch-over for LINEAR mag with
//! NEAREST_MIPMAP min filters (the switch is at 0 for every filter combination, as in Vulkan
//! and D3D).

use crate::border::ShaderBorder;
use crate::shadow::DepthCompare;
use crate::texel::TexelConversions;
use serde::Serialize;

/// Filtering between levels (the mip part of the FILTER min field).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MipFilter {
    /// Level 0 only.
    #[default]
    None,
    /// The nearest level.
    Nearest,
    /// Blend of the two nearest levels.
    Linear,
}

/// One texture unit's LOD state, in the registers' own 4.8 fixed-point units (so that the
/// state can key a translation: it is `Eq` and `Hash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct TextureLod {
    /// LOD bias in 1/256 (signed 4.8: -16..16 - 1/256).
    pub bias: i16,
    /// Minimum LOD in 1/256 (unsigned 4.8).
    pub min_lod: u16,
    /// Maximum LOD in 1/256 (unsigned 4.8).
    pub max_lod: u16,
    /// The mip filter.
    pub mip: MipFilter,
    /// Coordinates in texels (`SET_TEXTURE_FORMAT` UN bit): 1D and 2D units divide them by
    /// the level-0 size before sampling and before the derivatives are taken, as the
    /// interpreter's sampler does (RPCS3's texture prologue multiplies coordinates by
    /// `texture_parameters[i].scale_bias`, the inverse size for unnormalised units).
    /// Other dimensions ignore it.
    pub unnormalized: bool,
    /// The depth comparison of a 2D shadow-map unit ([`crate::shadow`]), or `None`.
    pub compare: Option<DepthCompare>,
    /// The unit's alpha kill (`SET_TEXTURE_CONTROL0` bit 2, [`crate::shadow`]).
    pub alpha_kill: bool,
    /// The channels (bit 0 R, 1 G, 2 B, 3 A) a TEX with the bx2 modifier expands by
    /// `2x − 1`: the remapped channels that are not signed, of a format with biased
    /// renormalization; none for the float and HILO_S8 formats (RPCS3
    /// `_enable_texture_expand`, `get_format_features`: "Floating point textures. Nothing
    /// works."). 0xF, every channel, where no unit state says otherwise.
    pub bx2: u8,
    /// The most samples anisotropic filtering takes (CONTROL0 max anisotropy: 1, 2, 4, 6, 8,
    /// 10, 12 or 16; 1 is isotropic).
    pub aniso: u8,
    /// `(packed row bytes, pitch)` of a linear texture whose CONTROL3 pitch is narrower than
    /// a packed row: the image is as wide as the pitch holds, and a normalised s is multiplied
    /// by `packed / pitch` before sampling and before its derivatives are taken, so that it
    /// still spans the register's width (RPCS3 `texture_cache.h` `upload_texture`:
    /// `scale.width *= f32(packed_pitch) / attributes.pitch`; not for DXT, the two-texel and
    /// HILO formats, unnormalised or cube units). `None` otherwise.
    pub narrow_pitch: Option<(u32, u32)>,
    /// The gamma and bias conversions applied to the filtered texel
    /// ([`crate::texel::TexelConversions`]; none for a shadow map).
    pub post: TexelConversions,
    /// The axes (bit 0 s, 1 t, 2 r) whose ADDRESS wrap mode mirrors once about 0 (modes 6, 7
    /// and 8; not cube maps): each sample's coordinate is reflected (`|u|`) before the filter
    /// takes its texels, then the mode clamps or reads the border (`EXT_texture_mirror_clamp`,
    /// NVIDIA's description of its hardware; Mesa softpipe `wrap_linear_mirror_clamp_to_border`:
    /// a linear filter at `|u|·N < ½` blends texel 0 with texel −1, the border in mode 7). The
    /// interpreter's sampler and the recompiled shaders both take the magnitude on these axes.
    pub mirror_once: u8,
    /// A border colour the device sampler cannot hold, which the recompiled shader adds
    /// ([`crate::border`]); `None` where no axis reads the border, on cube maps, and where
    /// the colour is one of the device's.
    pub border: Option<ShaderBorder>,
}

impl Default for TextureLod {
    /// No bias, the whole 4.8 clamp range, no mip filter.
    fn default() -> Self {
        TextureLod {
            bias: 0,
            min_lod: 0,
            max_lod: 0xFFF,
            mip: MipFilter::None,
            unnormalized: false,
            compare: None,
            alpha_kill: false,
            bx2: 0xF,
            aniso: 1,
            narrow_pitch: None,
            post: TexelConversions::default(),
            mirror_once: 0,
            border: None,
        }
    }
}

/// Where a sample's texels come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LevelChoice {
    /// Level 0 with the mag filter.
    Magnify,
    /// One level with the min filter.
    Level(u32),
    /// Levels `level` and `level + 1` with the min filter, blended `a + (b - a) * weight`.
    Blend { level: u32, weight: f32 },
}

/// `log2` of the longer of the two scaled derivative vectors (step 1); `-inf` for zero
/// derivatives. `axes` components of `ddx`, `ddy` and `size` are used (1, 2 or 3; cube maps
/// use 2, the face coordinates).
pub fn lambda_from_derivatives(ddx: [f32; 3], ddy: [f32; 3], size: [f32; 3], axes: usize) -> f32 {
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

/// The samples of anisotropic filtering (`EXT_texture_filter_anisotropic`): how many, the
/// LOD they are taken at, and which derivative they spread along.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Anisotropy {
    /// `N`, 1 up to the unit's maximum.
    pub samples: u32,
    /// `log2(Pmax / N)`: the LOD every sample is taken at (before the unit's bias).
    pub lambda: f32,
    /// The samples spread along the x derivative (`Px >= Py`), else along the y derivative.
    pub along_x: bool,
}

impl Anisotropy {
    /// The footprint of derivatives `dx`, `dy` (already scaled by the level-0 size, as step
    /// 1 scales them) under a maximum of `max` samples. Zero or non-finite lengths give one
    /// sample (a zero minor axis gives `max`).
    pub fn of(dx: [f32; 2], dy: [f32; 2], max: u8) -> Anisotropy {
        let px = (dx[0] * dx[0] + dx[1] * dx[1]).sqrt();
        let py = (dy[0] * dy[0] + dy[1] * dy[1]).sqrt();
        let (pmax, pmin) = (px.max(py), px.min(py));
        let max = f32::from(max.max(1));
        // Written as the WGSL `rsx_aniso` is.
        let mut n = max;
        if pmin > 0.0 {
            n = (pmax / pmin).ceil().min(max);
        }
        // NaN lengths or counts fail both tests and take one sample.
        let usable = pmax > 0.0 && n >= 1.0;
        if !usable {
            n = 1.0;
        }
        Anisotropy {
            samples: n as u32,
            lambda: (pmax / n).log2(),
            along_x: px >= py,
        }
    }

    /// Where sample `i` (1..=N) lies along the spread derivative: `i / (N + 1) − ½` of it.
    pub fn offset(&self, i: u32) -> f32 {
        i as f32 / (self.samples as f32 + 1.0) - 0.5
    }
}

impl TextureLod {
    /// From the decoded register values (bias, min and max LOD as the frame model holds them,
    /// in LOD units) and the mip filter. Values are rounded to the registers' 1/256 steps.
    pub fn from_values(bias: f32, min_lod: f32, max_lod: f32, mip: MipFilter) -> TextureLod {
        let fx = |v: f32, lo: f32, hi: f32| (v * 256.0).round().clamp(lo, hi);
        TextureLod {
            bias: fx(bias, -4096.0, 4095.0) as i16,
            min_lod: fx(min_lod, 0.0, 4095.0) as u16,
            max_lod: fx(max_lod, 0.0, 4095.0) as u16,
            mip,
            unnormalized: false,
            compare: None,
            alpha_kill: false,
            bx2: 0xF,
            aniso: 1,
            narrow_pitch: None,
            post: TexelConversions::default(),
            mirror_once: 0,
            border: None,
        }
    }

    /// The same state with the axes that mirror once (bit 0 s, 1 t, 2 r).
    pub fn with_mirror_once(self, mirror_once: u8) -> TextureLod {
        TextureLod {
            mirror_once,
            ..self
        }
    }

    /// The same state with the border the shader adds.
    pub fn with_border(self, border: Option<ShaderBorder>) -> TextureLod {
        TextureLod { border, ..self }
    }

    /// The same state with the conversions of its filtered texels.
    pub fn with_post(self, post: TexelConversions) -> TextureLod {
        TextureLod { post, ..self }
    }

    /// The same state with a narrowed linear texture's `(packed row bytes, pitch)`.
    pub fn with_narrow_pitch(self, narrow_pitch: Option<(u32, u32)>) -> TextureLod {
        TextureLod {
            narrow_pitch,
            ..self
        }
    }

    /// What a normalised s is multiplied by ([`TextureLod::narrow_pitch`]): `packed / pitch`
    /// in f32, or 1.
    pub fn s_scale(&self) -> f32 {
        match self.narrow_pitch {
            Some((packed, pitch)) if pitch > 0 => packed as f32 / pitch as f32,
            _ => 1.0,
        }
    }

    /// The same state with at most `aniso` samples of anisotropic filtering (at least 1).
    pub fn with_aniso(self, aniso: u8) -> TextureLod {
        TextureLod {
            aniso: aniso.max(1),
            ..self
        }
    }

    /// The same state with the channels bx2 expands (`bx2`, RGBA bit order).
    pub fn with_bx2(self, bx2: u8) -> TextureLod {
        TextureLod { bx2, ..self }
    }

    /// The same state with a depth comparison and alpha kill ([`crate::shadow`]).
    pub fn with_sampling(self, compare: Option<DepthCompare>, alpha_kill: bool) -> TextureLod {
        TextureLod {
            compare,
            alpha_kill,
            ..self
        }
    }

    /// The same state with coordinates in texels (`unnormalized`) or not.
    pub fn with_unnormalized(self, unnormalized: bool) -> TextureLod {
        TextureLod {
            unnormalized,
            ..self
        }
    }

    /// The bias in LOD units.
    pub fn bias_f32(&self) -> f32 {
        f32::from(self.bias) / 256.0
    }

    /// The minimum LOD in LOD units.
    pub fn min_f32(&self) -> f32 {
        f32::from(self.min_lod) / 256.0
    }

    /// The maximum LOD in LOD units.
    pub fn max_f32(&self) -> f32 {
        f32::from(self.max_lod) / 256.0
    }

    /// Steps 2 to 4 for a texture of `levels` levels: `lambda` is the LOD of step 1 (or TXL's
    /// operand) with any instruction bias (TXB) already added.
    pub fn choose(&self, lambda: f32, levels: u32) -> LevelChoice {
        let mut l = lambda;
        if levels > 1 {
            l += self.bias_f32();
            // Written as comparisons (not f32::clamp, which panics when min > max, which the
            // registers allow; NaN becomes min_lod), exactly as the WGSL does.
            l = if l > self.min_f32() {
                l
            } else {
                self.min_f32()
            };
            l = if l < self.max_f32() {
                l
            } else {
                self.max_f32()
            };
        }
        // Magnify unless l > 0 (NaN magnifies; the WGSL writes `!(l > 0.0)`).
        if l.is_nan() || l <= 0.0 {
            return LevelChoice::Magnify;
        }
        let last = levels.saturating_sub(1);
        let mip = if levels > 1 {
            self.mip
        } else {
            MipFilter::None
        };
        match mip {
            MipFilter::None => LevelChoice::Level(0),
            MipFilter::Nearest => {
                if l <= 0.5 {
                    LevelChoice::Level(0)
                } else {
                    let d = ((l + 0.5).ceil() - 1.0).min(last as f32);
                    LevelChoice::Level(d as u32)
                }
            }
            MipFilter::Linear => {
                if l >= last as f32 {
                    LevelChoice::Level(last)
                } else {
                    let d = l.floor();
                    LevelChoice::Blend {
                        level: d as u32,
                        weight: l - d,
                    }
                }
            }
        }
    }
}

/// The same rule in WGSL, as `(name, source)` helpers the recompiler appends when a module
/// calls them. `rsx_lod_choose` returns `(first level, second level, weight)`, with a
/// negative first level for magnification; the caller samples each level with
/// `textureSampleLevel` (a host sampler with mipmap mode nearest: level `k` is asked for at
/// LOD `k + 0.25`, which selects level `k` and the min filter; LOD 0 selects the mag filter)
/// and blends `a + (b - a) * weight`. `rsx_cube_face_d` projects a cube direction's
/// derivative onto the face coordinates (`rsxtrace-replay::texture::cube`).
pub const WGSL_LIBRARY: &[(&str, &str)] = &[
    (
        "rsx_lod_lambda",
        "
fn rsx_lod_lambda(dx: vec3<f32>, dy: vec3<f32>) -> f32 {
    return log2(max(sqrt(dot(dx, dx)), sqrt(dot(dy, dy))));
}
",
    ),
    (
        "rsx_lod_choose",
        "
fn rsx_lod_choose(lambda: f32, bias: f32, min_lod: f32, max_lod: f32, mip: u32, levels: u32) -> vec3<f32> {
    var l = lambda;
    if (levels > 1u) {
        l = l + bias;
        l = select(min_lod, l, l > min_lod);
        l = select(max_lod, l, l < max_lod);
    }
    if (!(l > 0.0)) {
        return vec3<f32>(-1.0, -1.0, 0.0);
    }
    let last = f32(levels - 1u);
    if (levels <= 1u || mip == 0u) {
        return vec3<f32>(0.0, 0.0, 0.0);
    }
    if (mip == 1u) {
        if (l <= 0.5) {
            return vec3<f32>(0.0, 0.0, 0.0);
        }
        let d = min(ceil(l + 0.5) - 1.0, last);
        return vec3<f32>(d, d, 0.0);
    }
    if (l >= last) {
        return vec3<f32>(last, last, 0.0);
    }
    let d = floor(l);
    return vec3<f32>(d, d + 1.0, l - d);
}
",
    ),
    (
        "rsx_aniso",
        "
fn rsx_aniso(dx: vec2<f32>, dy: vec2<f32>, max_n: f32) -> vec3<f32> {
    let px = sqrt(dx.x * dx.x + dx.y * dx.y);
    let py = sqrt(dy.x * dy.x + dy.y * dy.y);
    let pmax = max(px, py);
    let pmin = min(px, py);
    var n = max_n;
    if (pmin > 0.0) {
        n = min(ceil(pmax / pmin), max_n);
    }
    if (!(pmax > 0.0) || !(n >= 1.0)) {
        n = 1.0;
    }
    return vec3<f32>(log2(pmax / n), n, select(0.0, 1.0, px >= py));
}
",
    ),
    (
        "rsx_cube_face_d",
        "
fn rsx_cube_face_d(dir: vec3<f32>, d: vec3<f32>) -> vec3<f32> {
    let a = abs(dir);
    if (a.x >= a.y && a.x >= a.z) {
        return vec3<f32>(d.z * (0.5 / a.x), d.y * (0.5 / a.x), 0.0);
    }
    if (a.y >= a.z) {
        return vec3<f32>(d.x * (0.5 / a.y), d.z * (0.5 / a.y), 0.0);
    }
    return vec3<f32>(d.x * (0.5 / a.z), d.y * (0.5 / a.z), 0.0);
}
",
    ),
];

/// The WGSL value of a [`MipFilter`] in `rsx_lod_choose`.
pub fn mip_code(mip: MipFilter) -> u32 {
    match mip {
        MipFilter::None => 0,
        MipFilter::Nearest => 1,
        MipFilter::Linear => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lod(bias: f32, min: f32, max: f32, mip: MipFilter) -> TextureLod {
        TextureLod::from_values(bias, min, max, mip)
    }

    #[test]
    fn register_values_round_trip_in_4_8_steps() {
        let l = lod(-0.5, 1.0, 12.0, MipFilter::Linear);
        assert_eq!((l.bias, l.min_lod, l.max_lod), (-128, 256, 3072));
        assert_eq!((l.bias_f32(), l.min_f32(), l.max_f32()), (-0.5, 1.0, 12.0));
        // Out-of-range values saturate at the field limits instead of wrapping.
        let l = lod(100.0, -3.0, 99.0, MipFilter::None);
        assert_eq!((l.bias, l.min_lod, l.max_lod), (4095, 0, 4095));
    }

    #[test]
    fn rho_is_the_longer_scaled_derivative() {
        // GL 3.8.8: rho = max(sqrt(ux^2 + vx^2), sqrt(uy^2 + vy^2)) in texels.
        let l =
            lambda_from_derivatives([0.03, 0.04, 0.0], [0.01, 0.0, 0.0], [100.0, 100.0, 1.0], 2);
        assert!((l - 5f32.log2()).abs() < 1e-6, "{l}");
        assert_eq!(
            lambda_from_derivatives([0.0; 3], [0.0; 3], [64.0; 3], 2),
            f32::NEG_INFINITY
        );
        // The third axis only counts for 3D textures.
        let flat = lambda_from_derivatives([0.0, 0.0, 1.0], [0.0; 3], [8.0; 3], 2);
        let deep = lambda_from_derivatives([0.0, 0.0, 1.0], [0.0; 3], [8.0; 3], 3);
        assert_eq!((flat, deep), (f32::NEG_INFINITY, 3.0));
    }

    #[test]
    fn anisotropy_takes_the_ratio_of_the_axes_up_to_the_maximum() {
        // Px 8, Py 2: ratio 4, lambda log2(8 / 4) = 1, along x.
        let a = Anisotropy::of([8.0, 0.0], [0.0, 2.0], 16);
        assert_eq!((a.samples, a.lambda, a.along_x), (4, 1.0, true));
        // The ratio 3.2 rounds up; a maximum of 2 caps it (lambda log2(8 / 2) = 2).
        assert_eq!(Anisotropy::of([0.0, 2.5], [8.0, 0.0], 16).samples, 4);
        let capped = Anisotropy::of([0.0, 2.5], [8.0, 0.0], 2);
        assert_eq!(
            (capped.samples, capped.lambda, capped.along_x),
            (2, 2.0, false)
        );
        // Isotropic footprints and x1 units take one sample at the isotropic LOD.
        assert_eq!(Anisotropy::of([4.0, 0.0], [0.0, 4.0], 16).samples, 1);
        assert_eq!(Anisotropy::of([8.0, 0.0], [0.0, 1.0], 1).lambda, 3.0);
        // A zero minor axis takes the maximum; zero or NaN derivatives one sample.
        assert_eq!(Anisotropy::of([8.0, 0.0], [0.0, 0.0], 8).samples, 8);
        assert_eq!(Anisotropy::of([0.0; 2], [0.0; 2], 8).samples, 1);
        assert_eq!(Anisotropy::of([f32::NAN; 2], [1.0; 2], 8).samples, 1);
        // The extension's positions: i / (N + 1) - 1/2.
        assert!((a.offset(1) + 0.3).abs() < 1e-6 && (a.offset(4) - 0.3).abs() < 1e-6);
    }

    #[test]
    fn levels_follow_the_gl_selection() {
        let linear = lod(0.0, 0.0, 15.0, MipFilter::Linear);
        assert_eq!(linear.choose(-0.1, 7), LevelChoice::Magnify);
        assert_eq!(linear.choose(0.0, 7), LevelChoice::Magnify);
        assert_eq!(
            linear.choose(2.25, 7),
            LevelChoice::Blend {
                level: 2,
                weight: 0.25
            }
        );
        assert_eq!(linear.choose(6.0, 7), LevelChoice::Level(6));
        assert_eq!(linear.choose(40.0, 7), LevelChoice::Level(6));
        let nearest = lod(0.0, 0.0, 15.0, MipFilter::Nearest);
        // GL 3.8.9: d = 0 for lambda <= 1/2, else ceil(lambda + 1/2) - 1.
        assert_eq!(nearest.choose(0.5, 7), LevelChoice::Level(0));
        assert_eq!(nearest.choose(0.51, 7), LevelChoice::Level(1));
        assert_eq!(nearest.choose(1.5, 7), LevelChoice::Level(1));
        assert_eq!(nearest.choose(1.51, 7), LevelChoice::Level(2));
        assert_eq!(nearest.choose(9.0, 7), LevelChoice::Level(6));
        let none = lod(0.0, 0.0, 15.0, MipFilter::None);
        assert_eq!(none.choose(3.0, 7), LevelChoice::Level(0));
    }

    #[test]
    fn bias_and_clamp_apply_to_mipmapped_textures_only() {
        let l = lod(1.0, 0.0, 15.0, MipFilter::Linear);
        assert_eq!(
            l.choose(0.5, 4),
            LevelChoice::Blend {
                level: 1,
                weight: 0.5
            }
        );
        // One level: no bias, no clamp (RPCS3 sampler_state::apply).
        assert_eq!(l.choose(-0.5, 1), LevelChoice::Magnify);
        let clamped = lod(0.0, 1.5, 2.0, MipFilter::Linear);
        assert_eq!(
            clamped.choose(-20.0, 4),
            LevelChoice::Blend {
                level: 1,
                weight: 0.5
            }
        );
        // Clamped to max_lod = 2 exactly: levels 2 and 3 with weight 0.
        assert_eq!(
            clamped.choose(3.5, 4),
            LevelChoice::Blend {
                level: 2,
                weight: 0.0
            }
        );
        // NaN becomes min_lod; min > max gives max.
        assert_eq!(
            clamped.choose(f32::NAN, 4),
            LevelChoice::Blend {
                level: 1,
                weight: 0.5
            }
        );
        let crossed = lod(0.0, 3.0, 1.0, MipFilter::Nearest);
        assert_eq!(crossed.choose(0.0, 8), LevelChoice::Level(1));
        // A zero max LOD never minifies.
        assert_eq!(
            lod(0.0, 0.0, 0.0, MipFilter::Linear).choose(5.0, 4),
            LevelChoice::Magnify
        );
    }
}
