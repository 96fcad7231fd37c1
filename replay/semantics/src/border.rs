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

/// The weight a level's filter gives to texels inside the image on the border axes (the
/// rule of the module documentation), written as the WGSL `rsx_border_inside` is: `coord`
/// normalised, `size` the level's texels per axis, `axes` bit 0 s, 1 t, 2 r.
pub fn inside_weight(coord: [f32; 3], size: [f32; 3], axes: u8, linear: bool) -> f32 {
    let mut w = 1.0;
    for k in 0..3 {
        if axes >> k & 1 == 0 {
            continue;
        }
        let n = size[k];
        let inside = |i: f32| i >= 0.0 && i < n;
        w *= if linear {
            let u = coord[k] * n - 0.5;
            let i = u.floor();
            let f = u - i;
            let a = if inside(i) { 1.0 - f } else { 0.0 };
            let b = if inside(i + 1.0) { f } else { 0.0 };
            a + b
        } else if inside((coord[k] * n).floor()) {
            1.0
        } else {
            0.0
        };
    }
    w
}

/// The rule in WGSL (`(name, source)` helpers as [`crate::lod::WGSL_LIBRARY`]).
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
    fn the_inside_weight_is_the_taps_weight_inside_the_image() {
        // Four texels: the centre of texel 0 is all inside; a quarter texel before it, the
        // linear filter gives texel -1 (the border) a quarter.
        let size = [4.0, 4.0, 1.0];
        assert_eq!(inside_weight([0.125, 0.5, 0.0], size, 1, true), 1.0);
        assert_eq!(inside_weight([0.0625, 0.5, 0.0], size, 1, true), 0.75);
        assert_eq!(inside_weight([0.0625, 0.0625, 0.0], size, 3, true), 0.5625);
        assert_eq!(inside_weight([1.0, 0.5, 0.0], size, 1, true), 0.5);
        // Nearest: inside or not; an axis off the mask never counts.
        assert_eq!(inside_weight([-0.01, 0.5, 0.0], size, 1, false), 0.0);
        assert_eq!(inside_weight([0.99, 0.5, 0.0], size, 1, false), 1.0);
        assert_eq!(inside_weight([-3.0, 0.5, 0.0], size, 2, false), 1.0);
        // Far outside, nothing is inside.
        assert_eq!(inside_weight([2.0, 0.5, 0.0], size, 1, true), 0.0);
    }

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
