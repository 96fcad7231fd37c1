//! The conversions a texture unit applies to a filtered texel, as both the interpreter's
//! sampler (`rsxtrace-replay::texture::remap::Conversions`) and the WGSL recompiler apply them
//! (RPCS3 `RSXFragmentTextureOps.glsl` `_process_texel`, flags from `RSXTexture.cpp`
//! `format_ex`): after filtering, on the channels the unit's state marks ([`TexelConversions`]):
//!
//! - **gamma** (ADDRESS bits 20..23): sRGB to linear, the IEC 61966-2-1 inverse transfer
//!   function ([`srgb_to_linear`]);
//! - **bias** (ADDRESS bits 12..15 = `UNSIGNED_REMAP_BIASED`): `(floor(x·255 + ½) − 128) / 127`,
//!   or with 16-bit channels `(floor(x·65535 + ½) − 32768) / 32767` ([`biased`]).
//!
//! The signed reinterpretation (FILTER bits 28..31) is applied to each texel before filtering
//! instead (a signed texture filters in signed space), so it is not here.

use serde::Serialize;

/// The post-filter conversions of one unit, per channel in R, G, B, A bit order (bit 0 R).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct TexelConversions {
    /// Channels converted from sRGB to linear.
    pub gamma: u8,
    /// Channels renormalised from the biased encoding.
    pub bias: u8,
    /// The channels are 16 bits wide (X16, Y16_X16): the bias quantises to 16 bits.
    pub wide: bool,
}

impl TexelConversions {
    /// Whether any channel is converted.
    pub fn any(&self) -> bool {
        (self.gamma | self.bias) & 0xF != 0
    }

    /// Convert a filtered texel (R, G, B, A); gamma takes precedence over bias on a channel.
    pub fn apply(&self, mut v: [f32; 4]) -> [f32; 4] {
        for (c, x) in v.iter_mut().enumerate() {
            if self.gamma >> c & 1 != 0 {
                *x = srgb_to_linear(*x);
            } else if self.bias >> c & 1 != 0 {
                *x = biased(*x, self.wide);
            }
        }
        v
    }
}

/// The sRGB transfer function inverse (IEC 61966-2-1).
pub fn srgb_to_linear(x: f32) -> f32 {
    if x <= 0.04045 {
        x / 12.92
    } else {
        ((x + 0.055) / 1.055).powf(2.4)
    }
}

/// The biased renormalisation ("expand to signed normalized by decompressing the signal"):
/// the stored 128 (32768 for 16-bit channels) reads as 0.
pub fn biased(x: f32, wide: bool) -> f32 {
    let (max, sign, smax) = if wide {
        (65535.0, 32768.0, 32767.0)
    } else {
        (255.0, 128.0, 127.0)
    };
    ((x * max + 0.5).floor() - sign) / smax
}

/// The same conversions in WGSL (`(name, source)` helpers as [`crate::lod::WGSL_LIBRARY`]):
/// `rsx_texel_convert(t, gamma, bias, wide)` with the masks as `vec4<bool>`.
pub const WGSL_LIBRARY: &[(&str, &str)] = &[(
    "rsx_texel_convert",
    "
fn rsx_texel_convert(t: vec4<f32>, gamma: vec4<bool>, bias: vec4<bool>, wide: bool) -> vec4<f32> {
    let lin = select(pow((t + vec4<f32>(0.055)) / 1.055, vec4<f32>(2.4)), t / 12.92, t <= vec4<f32>(0.04045));
    let m = select(255.0, 65535.0, wide);
    let s = select(128.0, 32768.0, wide);
    let sm = select(127.0, 32767.0, wide);
    let b = (floor(t * m + vec4<f32>(0.5)) - vec4<f32>(s)) / sm;
    return select(select(t, b, bias), lin, gamma);
}
",
)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_wins_over_bias_and_other_channels_pass() {
        let c = TexelConversions {
            gamma: 0b0001,
            bias: 0b0011,
            wide: false,
        };
        let v = c.apply([0.5, 128.0 / 255.0, 0.25, 0.75]);
        assert!((v[0] - 0.214_041_14).abs() < 1e-6, "{}", v[0]);
        assert_eq!(v[1], 0.0);
        assert_eq!((v[2], v[3]), (0.25, 0.75));
        assert!(c.any() && !TexelConversions::default().any());
    }

    #[test]
    fn the_bias_reads_the_stored_midpoint_as_zero() {
        assert_eq!(biased(0.0, false), -128.0 / 127.0);
        assert_eq!(biased(1.0, false), 1.0);
        assert_eq!(biased(32768.0 / 65535.0, true), 0.0);
        assert_eq!(srgb_to_linear(0.04045), 0.04045 / 12.92);
        assert_eq!(srgb_to_linear(1.0), 1.0);
    }
}
