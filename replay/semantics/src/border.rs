//! A border colour the device sampler cannot hold, added by the recompiled shader.
//!
//! A texture unit whose ADDRESS wrap mode is BORDER (or MIRROR_ONCE_BORDER) reads the unit's
//! BORDER_COLOR, any ARGB8 value, for every texel outside the image; the model's sampler does
//! so texel by texel (`rsxtrace-replay::texture::sampler`, RPCS3 hands the colour to the host
//! sampler, `VKHelpers` / `GLTexture.cpp` `border_color`). wgpu offers three border colours
//! only (transparent black, opaque black, opaque white). For any other colour the device
//! reads its border as transparent black, so that a filtered sample is `Σ wᵢ·tᵢ` over the
//! texels inside the image, and the shader adds `colour · (1 − Σ wᵢ)`, the weight the filter
//! gives to texels outside ([`ShaderBorder`], `rsx_border_inside`): the model's result, as a
//! border texel contributes its weight times the colour. A filtered weight is a product of
//! per-axis weights, so the inside weight is the product over the border axes of each axis'
//! inside weight (nearest: 1 or 0; linear: the weights of the two taps that fall inside).
//! A shadow map compares the border's first channel instead (`rsx_shadow_level`).
//!
//! The device's own filter weights may be quantised (hardware samplers keep 8 bits of
//! sub-texel position; lavapipe's float path does not); the weight here is the exact one,
//! the model's, so a real GPU may differ from it by a quantisation step times the colour.

use serde::Serialize;

/// The border of a unit that the shader adds (`TextureLod::border`): the axes whose wrap
/// mode reads the border, the colour as the device's texels hold it (f32 bits, R G B A:
/// after the remap and the signed reinterpretation, before gamma and bias, which apply
/// after filtering), and which filters are linear.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ShaderBorder {
    /// Bit 0 s, 1 t, 2 r: the axes whose wrap mode reads the border.
    pub axes: u8,
    /// The colour's f32 bits (R, G, B, A).
    pub colour: [u32; 4],
    /// The mag filter is linear.
    pub mag_linear: bool,
    /// The min filter (within a level) is linear.
    pub min_linear: bool,
}

impl ShaderBorder {
    /// The border of `colour` on `axes` under the unit's filters.
    pub fn new(axes: u8, colour: [f32; 4], mag_linear: bool, min_linear: bool) -> ShaderBorder {
        ShaderBorder {
            axes,
            colour: colour.map(f32::to_bits),
            mag_linear,
            min_linear,
        }
    }

    /// The colour (R, G, B, A).
    pub fn rgba(&self) -> [f32; 4] {
        self.colour.map(f32::from_bits)
    }

    /// The colour as a WGSL `vec4<f32>` literal.
    pub fn wgsl_colour(&self) -> String {
        let [r, g, b, a] = self.rgba();
        format!("vec4<f32>({r:?}, {g:?}, {b:?}, {a:?})")
    }

    /// The border axes as a WGSL `vec3<bool>` literal.
    pub fn wgsl_axes(&self) -> String {
        let on = |k: u8| {
            if self.axes >> k & 1 != 0 {
                "true"
            } else {
                "false"
            }
        };
        format!("vec3<bool>({}, {}, {})", on(0), on(1), on(2))
    }
}

/// Whether `colour` is one of the three border colours a wgpu sampler holds.
pub fn device_holds(colour: [f32; 4]) -> bool {
    DEVICE_BORDERS.contains(&colour)
}

/// wgpu's border colours: transparent black, opaque black, opaque white.
pub const DEVICE_BORDERS: [[f32; 4]; 3] = [
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
    [1.0, 1.0, 1.0, 1.0],
];

/// The rule of the module documentation in WGSL (`(name, source)` helpers as
/// [`crate::lod::WGSL_LIBRARY`]): `rsx_border_inside(c, size, axes, linear)`, `c` normalised,
/// `size` the level's texels per axis, the weight inside the image on the `axes` that read
/// the border, the product of each axis' (nearest: 1 or 0; linear: the two taps' weights
/// inside). The replay's render tests check it against the interpreter's sampler, which
/// reads the border texel by texel.
pub const WGSL_LIBRARY: &[(&str, &str)] = &[(
    "rsx_border_inside",
    "
fn rsx_border_inside(c: vec3<f32>, size: vec3<f32>, axes: vec3<bool>, linear: bool) -> f32 {
    var w = vec3<f32>(1.0);
    if (linear) {
        let u = c * size - vec3<f32>(0.5);
        let i = floor(u);
        let f = u - i;
        let a = select(vec3<f32>(0.0), vec3<f32>(1.0) - f, (i >= vec3<f32>(0.0)) & (i < size));
        let j = i + vec3<f32>(1.0);
        let b = select(vec3<f32>(0.0), f, (j >= vec3<f32>(0.0)) & (j < size));
        w = a + b;
    } else {
        let i = floor(c * size);
        w = select(vec3<f32>(0.0), vec3<f32>(1.0), (i >= vec3<f32>(0.0)) & (i < size));
    }
    w = select(vec3<f32>(1.0), w, axes);
    return w.x * w.y * w.z;
}
",
)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_wgpus_three_colours_are_held_by_the_device() {
        assert!(device_holds([0.0, 0.0, 0.0, 1.0]));
        assert!(!device_holds([0.5, 0.0, 0.0, 1.0]));
        assert!(!device_holds([f32::NAN, 0.0, 0.0, 0.0]));
        let b = ShaderBorder::new(5, [0.25, 0.5, 0.75, 1.0], true, false);
        assert_eq!(b.rgba(), [0.25, 0.5, 0.75, 1.0]);
        assert_eq!(b.wgsl_axes(), "vec3<bool>(true, false, true)");
        assert_eq!(b.wgsl_colour(), "vec4<f32>(0.25, 0.5, 0.75, 1.0)");
    }
}
