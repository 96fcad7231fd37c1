//! A texture unit's level-of-detail state as the shared LOD rule takes it
//! ([`rsxtrace_semantics::lod`]: one definition for the interpreter's sampler and the
//! recompiled WGSL). The interpreter's [`UnitSampler`](super::UnitSampler), the GPU frame
//! renderer and verify all build a unit's [`TextureLod`] here, from the same registers.

use rsxtrace_capture::frame::state::Texture;
pub use rsxtrace_semantics::lod::{
    lambda_from_derivatives, Anisotropy, LevelChoice, MipFilter, TextureLod,
};

use super::border::border_colour;
use super::decode::{remap_word, texel_format, Dimension};
use super::filter::{mag_filter, min_filter, TexelFilter};
use super::format::TexelFormat;
use super::layout::packed_pitch;
use super::remap::{Conversions, Remap, TexelConversions};
use super::wrap::Wrap;
use rsxtrace_semantics::border::{device_holds, ShaderBorder};
use rsxtrace_semantics::shadow::DepthCompare;

/// The state a unit that samples RPCS3's null texture is translated with: no comparison,
/// alpha kill, conversion, expansion or border, so that the recompiled shader reads
/// (0, 0, 0, 0) there, as the interpreter's sampler returns for a unit that is disabled or
/// cannot be decoded (`super::sampler`).
pub fn null_unit_lod() -> TextureLod {
    TextureLod {
        bx2: 0,
        ..TextureLod::default()
    }
}

/// The LOD state of `texture` (FILTER bias and min filter, CONTROL0 min and max LOD; decoded
/// by the frame model, rrc-format.md 4.7). It does not depend on the decoded image: the rule
/// drops the mip filter, bias and clamp itself when the image has one level (RPCS3
/// `sampler_state::apply`), on both paths. A disabled unit, or one of an unknown format
/// (which cannot be decoded), has [`null_unit_lod`]. The format and remap are decoded once
/// here for every rule that reads them.
pub fn unit_lod(texture: &Texture) -> TextureLod {
    if !texture.control0.enabled {
        return null_unit_lod();
    }
    let Ok(format) = texel_format(0, texture) else {
        return null_unit_lod();
    };
    let remap = Remap::decode(remap_word(texture), format);
    let (min, mip) = min_filter(texture.filter.min.raw);
    // Only a 2D unit compares (`rsxtrace_semantics::shadow`).
    let flat = texture.format.dimension == 2 && !texture.format.cubemap;
    let alpha_kill = texture.control0.alpha_kill;
    let compare = if format.is_depth() && flat {
        DepthCompare::of_unit(
            texture.address.zfunc.raw,
            alpha_kill,
            mag_filter(texture.filter.mag.raw) == TexelFilter::Linear,
            min == TexelFilter::Linear,
        )
        .map(|c| {
            c.with_fixed_point(matches!(
                format,
                TexelFormat::Depth16 | TexelFormat::Depth24D8
            ))
        })
    } else {
        None
    };
    let conversions = Conversions::of_unit(format, &remap, texture);
    TextureLod::from_values(
        texture.filter.bias,
        texture.control0.min_lod,
        texture.control0.max_lod,
        mip,
    )
    .with_unnormalized(texture.format.unnormalized)
    .with_sampling(compare, alpha_kill)
    .with_bx2(Conversions::bx2_channels(
        format,
        &remap,
        texture.filter.argb_signed,
    ))
    .with_aniso(max_anisotropy(texture.control0.max_aniso.raw))
    .with_narrow_pitch(narrow_pitch(texture, format))
    .with_mirror_once(mirror_once_axes(texture))
    .with_border(shader_border(
        texture,
        format,
        &remap,
        &conversions,
        compare.is_some(),
    ))
    // A shadow map's comparison is read without sign, gamma or bias.
    .with_post(if compare.is_some() {
        TexelConversions::default()
    } else {
        conversions.post_filter()
    })
}

/// `(packed row bytes, pitch)` of a linear unit whose CONTROL3 pitch is non-zero and narrower
/// than a packed level-0 row ([`TextureLod::narrow_pitch`]; the layout narrows its width to
/// the pitch, `layout::subresources`). RPCS3 rescales s for every format but DXT, the
/// two-texel and the HILO formats (`is_compressed_gcm_format`); an unnormalised unit's
/// texel coordinates already address the narrowed width, and cube maps are left alone.
pub fn narrow_pitch(texture: &Texture, format: TexelFormat) -> Option<(u32, u32)> {
    let f = &texture.format;
    if !f.linear || f.unnormalized || f.cubemap || texture.pitch == 0 {
        return None;
    }
    if format.is_compressed() || matches!(format, TexelFormat::Hilo8 | TexelFormat::HiloS8) {
        return None;
    }
    let packed = packed_pitch(format, u32::from(texture.width), f.border_type == 0);
    let packed = u32::try_from(packed).ok()?;
    (texture.pitch < packed).then_some((packed, texture.pitch))
}

/// The axes (bit 0 s, 1 t, 2 r) of `texture` whose wrap mode mirrors once
/// ([`TextureLod::mirror_once`]); none on a cube map, which clamps per face.
pub fn mirror_once_axes(texture: &Texture) -> u8 {
    if texture.format.cubemap {
        return 0;
    }
    let a = &texture.address;
    [a.wrap_s.raw, a.wrap_t.raw, a.wrap_r.raw]
        .iter()
        .enumerate()
        .filter(|(_, raw)| Wrap::from_raw(**raw).mirrors_once())
        .fold(0, |mask, (k, _)| mask | 1 << k)
}

/// The border colour `texture`'s recompiled shader adds itself ([`TextureLod::border`],
/// `rsxtrace_semantics::border`): where a 1D, 2D or 3D unit's s, t or r wrap mode reads the
/// border and the colour, as the device's texels hold it, is none of wgpu's three. The
/// colour is the model's (`super::border::border_colour` of the unit's `format` through
/// `remap`: the hardware's signed-border quirk) with the signed channels reinterpreted as the
/// uploaded texels are (`conversions`' `apply_signed`; a shadow map's `compare`d texels are not
/// converted); gamma and bias follow filtering.
fn shader_border(
    texture: &Texture,
    format: TexelFormat,
    remap: &Remap,
    conversions: &Conversions,
    compare: bool,
) -> Option<ShaderBorder> {
    let f = &texture.format;
    let used = match Dimension::from_fields(f.dimension, f.cubemap)? {
        Dimension::D1 => 1,
        Dimension::D2 => 2,
        Dimension::D3 => 3,
        Dimension::Cube => return None,
    };
    let a = &texture.address;
    let axes = [a.wrap_s.raw, a.wrap_t.raw, a.wrap_r.raw]
        .iter()
        .take(used)
        .enumerate()
        .filter(|(_, raw)| Wrap::from_raw(**raw).reads_border())
        .fold(0u8, |mask, (k, _)| mask | 1 << k);
    if axes == 0 {
        return None;
    }
    let raw = border_colour(
        format,
        remap,
        texture.border_color,
        texture.filter.argb_signed,
    );
    let colour = if compare {
        raw
    } else {
        conversions.apply_signed(raw)
    };
    if device_holds(colour) {
        return None;
    }
    let (min, _) = min_filter(texture.filter.min.raw);
    Some(ShaderBorder::new(
        axes,
        colour,
        mag_filter(texture.filter.mag.raw) == TexelFilter::Linear,
        min == TexelFilter::Linear,
    ))
}

/// The most samples of anisotropic filtering CONTROL0's max anisotropy field allows
/// (`gcm_enums.h` `texture_max_anisotropy`: x1, x2, x4, x6, x8, x10, x12, x16; RPCS3
/// `max_aniso`).
pub fn max_anisotropy(field: u32) -> u8 {
    match field & 7 {
        0 => 1,
        7 => 16,
        k => 2 * k as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::frame::state::TextureRegs;

    /// An enabled 2D unit of `format` (code, linear) with CONTROL1 `remap` and FILTER
    /// `filter`.
    fn unit(format: u32, remap: u32, filter: u32) -> Texture {
        Texture::from_regs(&TextureRegs {
            format: ((format | 0x20) << 8) | (2 << 4),
            control0: 1 << 31,
            control1: remap,
            filter,
            image_rect: (4 << 16) | 4,
            ..TextureRegs::default()
        })
    }

    #[test]
    fn a_pitch_narrower_than_a_packed_row_rescales_s() {
        // A8R8G8B8 LN 4 wide (unit()) without border texels: packed row 16 bytes; pitch 8
        // narrows it.
        let mut t = unit(0x85, 0xAAE4, 0);
        t.format.border_type = 1;
        assert_eq!(unit_lod(&t).narrow_pitch, None, "pitch 0");
        t.pitch = 8;
        assert_eq!(unit_lod(&t).narrow_pitch, Some((16, 8)));
        assert_eq!(unit_lod(&t).s_scale(), 2.0);
        // Border texels widen the packed row (RPCS3 get_format_packed_pitch): (4 + 2) · 4.
        t.format.border_type = 0;
        assert_eq!(unit_lod(&t).narrow_pitch, Some((24, 8)));
        t.format.border_type = 1;
        // Not for unnormalised units, cube maps, swizzled layouts, a wide enough pitch, or
        // the formats RPCS3 calls compressed (DXT, two-texel, HILO).
        for edit in [
            |t: &mut Texture| t.format.unnormalized = true,
            |t: &mut Texture| t.format.cubemap = true,
            |t: &mut Texture| t.format.linear = false,
            |t: &mut Texture| t.pitch = 16,
        ] {
            let mut u = t;
            edit(&mut u);
            assert_eq!(unit_lod(&u).narrow_pitch, None);
        }
        for code in [0x86, 0x8D, 0x98] {
            let mut u = unit(code, 0xAAE4, 0);
            u.format.border_type = 1;
            u.pitch = 1;
            assert_eq!(unit_lod(&u).narrow_pitch, None, "format 0x{code:02X}");
        }
    }

    #[test]
    fn the_max_anisotropy_field_names_the_most_samples() {
        let counts: Vec<u8> = (0..8).map(max_anisotropy).collect();
        assert_eq!(counts, [1, 2, 4, 6, 8, 10, 12, 16]);
        // CONTROL0 bits 4..6 reach the unit's LOD state: x8.
        let mut t = unit(0x85, 0xAAE4, 0);
        assert_eq!(unit_lod(&t).aniso, 1);
        t.control0.max_aniso.raw = 4;
        assert_eq!(unit_lod(&t).aniso, 8);
    }

    #[test]
    fn bx2_expands_the_remapped_unsigned_channels_of_biased_formats() {
        // A8R8G8B8, identity remap: every channel.
        assert_eq!(unit_lod(&unit(0x85, 0xAAE4, 0)).bx2, 0b1111);
        // A forced to ZERO (mode bits 8..9 = 0): R, G, B only.
        assert_eq!(unit_lod(&unit(0x85, 0xA8E4, 0)).bx2, 0b0111);
        // R signed (FILTER bit 29): its sign extension wins.
        assert_eq!(unit_lod(&unit(0x85, 0xAAE4, 1 << 29)).bx2, 0b1110);
        // Float and HILO_S8 formats: "Nothing works".
        assert_eq!(unit_lod(&unit(0x9C, 0xAAE4, 0)).bx2, 0);
        assert_eq!(unit_lod(&unit(0x9B, 0xAAE4, 0)).bx2, 0);
        assert_eq!(unit_lod(&unit(0x99, 0xAAE4, 0)).bx2, 0);
        // Depth formats expand (biased renormalization works on them).
        assert_eq!(unit_lod(&unit(0x90, 0xAAE4, 0)).bx2, 0b1111);
        // A disabled unit samples the null texture, unexpanded.
        let mut off = unit(0x85, 0xAAE4, 0);
        off.control0.enabled = false;
        assert_eq!(unit_lod(&off).bx2, 0);
        assert_eq!(unit_lod(&unit(0x9C, 0xAAE4, 0)).bx2, 0);
    }

    #[test]
    fn a_border_colour_the_device_cannot_hold_is_added_by_the_shader() {
        // A8R8G8B8 2D, s reads the border (ADDRESS wrap_s 4), t wraps; BORDER_COLOR ARGB.
        let mut t = unit(0x85, 0xAAE4, 0);
        t.address.wrap_s.raw = 4;
        t.address.wrap_t.raw = 1;
        t.address.wrap_r.raw = 4;
        t.border_color = 0xFF40_80C0;
        t.filter.mag.raw = 2;
        t.filter.min.raw = 1;
        let b = unit_lod(&t).border.expect("a border the device lacks");
        // r is not an axis of a 2D unit.
        assert_eq!(b.axes, 0b01);
        assert_eq!(b.rgba(), [64.0 / 255.0, 128.0 / 255.0, 192.0 / 255.0, 1.0]);
        assert!(b.mag_linear && !b.min_linear);
        // R signed (FILTER bit 29): the hardware's quirk reads it biased, (0x40 − 128) / 127,
        // and the shader adds it as the uploaded texels hold it.
        t.filter.argb_signed = 0b0010;
        let signed = unit_lod(&t).border.expect("a border the device lacks");
        assert_eq!(signed.rgba()[0], (64.0 - 128.0) / 127.0);
        // Opaque white is the device's own; a cube map clamps per face; a disabled unit reads
        // nothing.
        t.filter.argb_signed = 0;
        t.border_color = 0xFFFF_FFFF;
        assert_eq!(unit_lod(&t).border, None);
        t.border_color = 0xFF40_80C0;
        t.format.cubemap = true;
        assert_eq!(unit_lod(&t).border, None);
        t.format.cubemap = false;
        t.control0.enabled = false;
        assert_eq!(unit_lod(&t).border, None);
        // A 3D unit's r counts too.
        t.control0.enabled = true;
        t.format.dimension = 3;
        assert_eq!(unit_lod(&t).border.map(|b| b.axes), Some(0b101));
    }

    #[test]
    fn a_disabled_unit_reads_the_null_texture_as_zeros() {
        // DEPTH24_D8 (0x90) with ZFUNC LESS and alpha kill would compare and kill; disabled,
        // it is the null texture on both paths: no comparison, kill, conversion or expansion.
        let mut t = unit(0x90, 0xAAE4, 0);
        t.address.zfunc.raw = 1;
        t.control0.alpha_kill = false;
        assert!(unit_lod(&t).compare.is_some());
        t.control0.enabled = false;
        t.control0.alpha_kill = true;
        assert_eq!(unit_lod(&t), null_unit_lod());
        // So does a unit of a code that is no format (0x89), which cannot be decoded.
        let mut bad = unit(0x89, 0xAAE4, 0);
        bad.address.unsigned_remap = 1;
        assert_eq!(unit_lod(&bad), null_unit_lod());
        let null = null_unit_lod();
        assert!(null.compare.is_none() && !null.alpha_kill && null.bx2 == 0);
        assert!(!null.post.any() && null.border.is_none());
    }
}
