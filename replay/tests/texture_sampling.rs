//! Addressing and filtering: swizzled (Z-order) versus linear layouts, wrap modes, linear
//! filtering, mip selection, cube faces, 3D textures, unnormalised coordinates, border colour
//! and missing memory.

use crate::texture_util;

use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::texture::{
    CaptureSampler, LodSource, SampleRequest, Sampler, TextureError, UnitSampler,
};
use texture_util::*;

fn n8(v: u32) -> f32 {
    v as f32 / 255.0
}

/// B8 value `v` as an RGBA sample.
fn b8(v: u32) -> [f32; 4] {
    [n8(v), n8(v), n8(v), 1.0]
}

#[test]
fn swizzled_and_linear_4x4_read_the_same_texels() {
    // Texel (x, y) holds y * 4 + x. Linear: rows of pitch 8 (4 bytes of padding per row).
    let mut linear = vec![0xEEu8; 32];
    for y in 0..4 {
        for x in 0..4 {
            linear[y * 8 + x] = (y * 4 + x) as u8;
        }
    }
    // Swizzled: byte p holds texel x = p0 | p2 << 1, y = p1 | p3 << 1 (Z-order, x first).
    let swizzled = vec![0u8, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15];
    let lin = UnitSampler::new(
        0,
        &Tex::new(0x81, 4, 4).linear(8).texture(),
        &Mem::local(0, linear),
    )
    .unwrap();
    let swz =
        UnitSampler::new(0, &Tex::new(0x81, 4, 4).texture(), &Mem::local(0, swizzled)).unwrap();
    for y in 0..4u32 {
        for x in 0..4u32 {
            let r = at2(centre(x, 4), centre(y, 4));
            assert_close(lin.sample(&r), b8(y * 4 + x));
            assert_close(swz.sample(&r), b8(y * 4 + x));
        }
    }
}

#[test]
fn swizzled_non_square_8x2() {
    // log2 w = 3, log2 h = 1: index bits are x0, y0, x1, x2. Texel (5, 1) -> 1 + 2 + 8 = 11.
    let mut bytes = vec![0u8; 16];
    bytes[11] = 200;
    bytes[4] = 100; // (2, 0): x1 -> bit 2
    let s = UnitSampler::new(0, &Tex::new(0x81, 8, 2).texture(), &Mem::local(0, bytes)).unwrap();
    assert_close(s.sample(&at2(centre(5, 8), centre(1, 2))), b8(200));
    assert_close(s.sample(&at2(centre(2, 8), centre(0, 2))), b8(100));
    assert_close(s.sample(&at2(centre(3, 8), centre(0, 2))), b8(0));
}

/// A 4x1 B8 texture holding 10, 20, 30, 40 with wrap mode `wrap` on s and border colour
/// 0xFF112233, sampled with nearest filtering at `s`.
fn wrapped(wrap: u32, s: f32) -> [f32; 4] {
    let mut t = Tex::new(0x81, 4, 1).linear(4);
    t.wrap = [wrap, 3, 3];
    t.border_color = 0xFF11_2233;
    let mem = Mem::local(0, vec![10, 20, 30, 40]);
    UnitSampler::new(0, &t.texture(), &mem)
        .unwrap()
        .sample(&at2(s, 0.5))
}

#[test]
fn every_wrap_mode_out_of_range() {
    let border = [n8(0x11), n8(0x22), n8(0x33), 1.0];
    // s = -0.375: texel -1.5 -> index -2.
    // WRAP: -2 mod 4 = 2.
    assert_close(wrapped(1, -0.375), b8(30));
    // MIRROR: -2 in period 8 is 6, mirrored 8 - 1 - 6 = 1.
    assert_close(wrapped(2, -0.375), b8(20));
    // CLAMP_TO_EDGE and CLAMP: 0.
    assert_close(wrapped(3, -0.375), b8(10));
    assert_close(wrapped(5, -0.375), b8(10));
    // BORDER.
    assert_close(wrapped(4, -0.375), border);
    // MIRROR_ONCE_*: -2 mirrors to 1.
    assert_close(wrapped(6, -0.375), b8(20));
    assert_close(wrapped(7, -0.375), b8(20));
    assert_close(wrapped(8, -0.375), b8(20));
    // s = -1.125: index -5 mirrors once to 4, beyond the image.
    assert_close(wrapped(6, -1.125), b8(40));
    assert_close(wrapped(7, -1.125), border);
    assert_close(wrapped(8, -1.125), b8(40));
    // s = 1.125: index 4.
    assert_close(wrapped(1, 1.125), b8(10));
    assert_close(wrapped(2, 1.125), b8(40));
    assert_close(wrapped(3, 1.125), b8(40));
    assert_close(wrapped(4, 1.125), border);
}

#[test]
fn mirror_once_reflects_the_coordinate_before_the_filter() {
    // 4×1 B8 holding 10, 20, 30, 40, linear filter; s = ±1/16 (a quarter texel from 0):
    // |s|·4 − ½ = −¼ blends texel −1 (¼) and texel 0 (¾). Mode 6 clamps texel −1 to texel 0;
    // mode 7 reads the border there (EXT_texture_mirror_clamp: the coordinate is mirrored,
    // then the border rule applies), on both sides of 0.
    let border = [n8(0x11), n8(0x22), n8(0x33), 1.0];
    let sample = |wrap: u32, s: f32| {
        let mut t = Tex::new(0x81, 4, 1).linear(4);
        t.wrap = [wrap, 3, 3];
        t.mag_filter = 2;
        t.border_color = 0xFF11_2233;
        let mem = Mem::local(0, vec![10, 20, 30, 40]);
        UnitSampler::new(0, &t.texture(), &mem)
            .unwrap()
            .sample(&at2(s, 0.5))
    };
    for s in [-0.0625f32, 0.0625] {
        assert_close(sample(6, s), b8(10));
        let seam = |c: usize| 0.25 * border[c] + 0.75 * b8(10)[c];
        assert_close(sample(7, s), std::array::from_fn(seam));
    }
}

#[test]
fn linear_filtering_at_half_texel() {
    let mut t = Tex::new(0x81, 2, 2).linear(2);
    t.mag_filter = 2;
    // Rows: (0, 200), (100, 40).
    let mem = Mem::local(0, vec![0, 200, 100, 40]);
    let s = UnitSampler::new(0, &t.texture(), &mem).unwrap();
    // Between the two texels of row 0: u = 0.5 * 2 - 0.5 = 0.5 -> half of each.
    assert_close(s.sample(&at2(0.5, 0.25)), b8(100));
    // Centre of the 4 texels: (0 + 200 + 100 + 40) / 4 = 85.
    assert_close(s.sample(&at2(0.5, 0.5)), b8(85));
    // A quarter of the way: s = 0.375 -> u = 0.25: 0.75 * 0 + 0.25 * 200 = 50.
    assert_close(s.sample(&at2(0.375, 0.25)), b8(50));
    // At a texel centre the texel itself.
    assert_close(s.sample(&at2(0.75, 0.75)), b8(40));
}

/// A 4x4 swizzled B8 texture with 3 levels: level 0 = 10 (16 bytes), level 1 = 20 (4 bytes at
/// 16), level 2 = 30 (1 byte at 20).
fn mipped(min_filter: u32, adjust: impl FnOnce(&mut Tex)) -> UnitSampler {
    let mut t = Tex::new(0x81, 4, 4);
    t.mips = 3;
    t.min_filter = min_filter;
    adjust(&mut t);
    let mut bytes = vec![10u8; 16];
    bytes.extend_from_slice(&[20; 4]);
    bytes.push(30);
    UnitSampler::new(0, &t.texture(), &Mem::local(0, bytes)).unwrap()
}

fn with_ddx(d: f32, lod: LodSource) -> SampleRequest {
    SampleRequest {
        coord: [0.5, 0.5, 0.0, 1.0],
        ddx: [d, 0.0, 0.0, 0.0],
        ddy: [0.0; 4],
        lod,
    }
}

#[test]
fn mip_selection_from_derivatives() {
    let s = mipped(3, |_| {});
    assert_eq!(s.image().levels, 3);
    // d = 1/4: 1 texel per pixel, lambda 0 -> magnification, level 0.
    assert_close(s.sample(&with_ddx(0.25, LodSource::Implicit)), b8(10));
    // d = 1/2: lambda 1 -> level ceil(1.5) - 1 = 1.
    assert_close(s.sample(&with_ddx(0.5, LodSource::Implicit)), b8(20));
    // d = 1: lambda 2.
    assert_close(s.sample(&with_ddx(1.0, LodSource::Implicit)), b8(30));
    // The y derivative counts as well (the longer one wins).
    let r = SampleRequest {
        ddy: [0.0, 1.0, 0.0, 0.0],
        ..with_ddx(0.25, LodSource::Implicit)
    };
    assert_close(s.sample(&r), b8(30));
    // TXB adds to lambda: 0 + 1.
    assert_close(s.sample(&with_ddx(0.25, LodSource::Bias(1.0))), b8(20));
    // TXD uses the given gradients.
    let g = LodSource::Gradients {
        ddx: [1.0, 0.0, 0.0, 0.0],
        ddy: [0.0; 4],
    };
    assert_close(s.sample(&with_ddx(0.0, g)), b8(30));
}

#[test]
fn explicit_lod_bias_and_clamps() {
    let s = mipped(3, |_| {});
    assert_close(s.sample(&with_ddx(0.0, LodSource::Explicit(2.0))), b8(30));
    // 1.4: ceil(1.9) - 1 = 1.
    assert_close(s.sample(&with_ddx(0.0, LodSource::Explicit(1.4))), b8(20));
    // Beyond the last level: the last level.
    assert_close(s.sample(&with_ddx(0.0, LodSource::Explicit(9.0))), b8(30));
    // Mip-linear (NEAREST_MIPMAP_LINEAR = 5) at 1.5 blends levels 1 and 2: 25.
    let s = mipped(5, |_| {});
    assert_close(s.sample(&with_ddx(0.0, LodSource::Explicit(1.5))), b8(25));
    // Unit bias +1.0 (FILTER = 256 in 4.8): explicit 1 becomes 2.
    let s = mipped(3, |t| t.bias = 256);
    assert_close(s.sample(&with_ddx(0.0, LodSource::Explicit(1.0))), b8(30));
    // Negative unit bias -1.0 (0x1F00 in 13 bits): explicit 2 becomes 1.
    let s = mipped(3, |t| t.bias = 0x1F00);
    assert_close(s.sample(&with_ddx(0.0, LodSource::Explicit(2.0))), b8(20));
    // CONTROL0 min LOD 2.0: explicit 0 is raised to 2.
    let s = mipped(3, |t| t.min_lod = 2 << 8);
    assert_close(s.sample(&with_ddx(0.0, LodSource::Explicit(0.0))), b8(30));
    // CONTROL0 max LOD 1.0: explicit 5 is lowered to 1.
    let s = mipped(3, |t| t.max_lod = 1 << 8);
    assert_close(s.sample(&with_ddx(0.0, LodSource::Explicit(5.0))), b8(20));
}

#[test]
fn mip_chain_of_a_linear_texture_shares_the_pitch() {
    // 4x2 linear B8, pitch 8, 2 levels: level 0 = 2 rows at 0 and 8 (16 bytes); level 1 (2x1)
    // starts at 16.
    let mut t = Tex::new(0x81, 4, 2).linear(8);
    t.mips = 2;
    t.min_filter = 3;
    let mut bytes = vec![1u8; 16];
    bytes.extend_from_slice(&[77, 78]);
    let s = UnitSampler::new(0, &t.texture(), &Mem::local(0, bytes)).unwrap();
    let r = SampleRequest {
        coord: [0.75, 0.5, 0.0, 1.0],
        ..with_ddx(0.0, LodSource::Explicit(1.0))
    };
    assert_close(s.sample(&r), b8(78));
}

#[test]
fn cube_face_selection() {
    // 1x1 cube, swizzled: faces at 0, 128, ..., 640 (each layer 128-byte aligned); face f
    // holds 10 * f + 5.
    let mut t = Tex::new(0x81, 1, 1);
    t.cubemap = true;
    let mut bytes = vec![0u8; 641];
    for f in 0..6 {
        bytes[f * 128] = (10 * f + 5) as u8;
    }
    let s = UnitSampler::new(0, &t.texture(), &Mem::local(0, bytes)).unwrap();
    let dir = |x: f32, y: f32, z: f32| s.sample(&at([x, y, z, 1.0]));
    assert_close(dir(1.0, 0.2, -0.1), b8(5)); // +X
    assert_close(dir(-2.0, 0.5, 1.0), b8(15)); // -X
    assert_close(dir(0.1, 2.0, 0.3), b8(25)); // +Y
    assert_close(dir(0.0, -3.0, 1.0), b8(35)); // -Y
    assert_close(dir(0.2, 0.1, 1.0), b8(45)); // +Z
    assert_close(dir(0.0, 0.0, -0.5), b8(55)); // -Z
    assert_eq!(dir(0.0, 0.0, 0.0), [0.0; 4]);
}

#[test]
fn cube_face_coordinates() {
    // 2x2 cube: face +Z at 128 * 4 = 512, texels in Z-order (0,0) (1,0) (0,1) (1,1).
    let mut t = Tex::new(0x81, 2, 2);
    t.cubemap = true;
    let mut bytes = vec![0u8; 5 * 128 + 4];
    bytes[512..516].copy_from_slice(&[1, 2, 3, 4]);
    let s = UnitSampler::new(0, &t.texture(), &Mem::local(0, bytes)).unwrap();
    // +Z: s = (rx / |rz| + 1) / 2, t = (-ry / |rz| + 1) / 2. (0.5, 0.5, 1) -> s 0.75, t 0.25.
    assert_close(s.sample(&at([0.5, 0.5, 1.0, 1.0])), b8(2));
    // (-0.5, -0.5, 1) -> s 0.25, t 0.75 -> texel (0, 1).
    assert_close(s.sample(&at([-0.5, -0.5, 1.0, 1.0])), b8(3));
}

#[test]
fn three_d_swizzled() {
    // 2x2x2: index = x | y << 1 | z << 2.
    let mut t = Tex::new(0x81, 2, 2);
    t.dimension = 3;
    t.depth = 2;
    let bytes: Vec<u8> = (0..8).map(|i| i * 10).collect();
    let s = UnitSampler::new(0, &t.texture(), &Mem::local(0, bytes)).unwrap();
    assert_close(s.sample(&at([0.75, 0.25, 0.75, 1.0])), b8(50));
    assert_close(s.sample(&at([0.25, 0.75, 0.75, 1.0])), b8(60));
}

#[test]
fn dxt_3d_texture_reads_blocks_in_vtc_order() {
    // 8×4×4 DXT1 whose packed block k is a solid red k/31 (c0 = c1 = k << 11, indices 0). In
    // NVIDIA's VTC order (RPCS3 copy_unmodified_block_vtc) slice 1 holds blocks 1 and 5, so
    // texel (5, 1) of slice 1 reads block 5; slices packed one after another would read 3.
    let mut t = Tex::new(0x86, 8, 4);
    t.dimension = 3;
    t.depth = 4;
    let bytes: Vec<u8> = (0..8u16)
        .flat_map(|k| {
            let c = (k << 11).to_le_bytes();
            [c[0], c[1], c[0], c[1], 0, 0, 0, 0]
        })
        .collect();
    let s = UnitSampler::new(0, &t.texture(), &Mem::local(0, bytes)).unwrap();
    let red = |k: f32| [k / 31.0, 0.0, 0.0, 1.0];
    let texel = |x, y, z| at([centre(x, 8), centre(y, 4), centre(z, 4), 1.0]);
    assert_close(s.sample(&texel(5, 1, 1)), red(5.0));
    assert_close(s.sample(&texel(1, 2, 1)), red(1.0));
    assert_close(s.sample(&texel(6, 3, 3)), red(7.0));
    assert_close(s.sample(&texel(0, 0, 2)), red(2.0));
}

#[test]
fn unnormalized_coordinates_are_texels() {
    let mut t = Tex::new(0x81, 4, 1).linear(4);
    t.unnormalized = true;
    let mem = Mem::local(0, vec![10, 20, 30, 40]);
    let s = UnitSampler::new(0, &t.texture(), &mem).unwrap();
    assert_close(s.sample(&at2(2.5, 0.5)), b8(30));
    assert_close(s.sample(&at2(0.9, 0.5)), b8(10));
}

#[test]
fn missing_memory_names_unit_location_and_address() {
    let mut t = Tex::new(0x85, 2, 2);
    t.offset = 0x1000;
    // 2x2 A8R8G8B8 needs 16 bytes; the capture holds 8.
    let mem = Mem::local(0x1000, vec![0; 8]);
    let mut textures = [Tex::new(0x85, 1, 1).texture(); 16];
    for tex in textures.iter_mut() {
        let mut off = Tex::new(0x85, 1, 1);
        off.enabled = false;
        *tex = off.texture();
    }
    textures[3] = t.texture();
    let err = CaptureSampler::new(&textures, &mem).unwrap_err();
    assert_eq!(
        err,
        TextureError::MissingMemory {
            unit: 3,
            location: Location::Local,
            offset: 0x1000,
            len: 16,
            layer: 0,
            level: 0
        }
    );
    let text = err.to_string();
    assert!(text.contains("unit 3") && text.contains("0x1000"), "{text}");
    // Main memory (FORMAT location + 1 = 2) is looked up in main memory.
    t.location_plus_one = 2;
    textures[3] = t.texture();
    let err = CaptureSampler::new(&textures, &mem).unwrap_err();
    assert!(matches!(
        err,
        TextureError::MissingMemory {
            location: Location::Main,
            ..
        }
    ));
    // The lenient constructor keeps going and reports the unit.
    let (s, errors) = CaptureSampler::lenient(&textures, &mem, 0xFFFF, None);
    assert_eq!(errors.len(), 1);
    assert_eq!(s.sample(3, &at2(0.5, 0.5)), [0.0; 4]);
}

#[test]
fn hostile_state_never_panics() {
    // Large sizes with no memory, odd dimensions, NaN and huge coordinates.
    let mem = Mem::local(0, vec![0xAB; 4096]);
    for (w, h, dim, fmt) in [
        (65535, 65535, 2, 0x85),
        (3, 5, 3, 0x86),
        (1, 1, 0, 0x81),
        (7, 3, 2, 0x88),
    ] {
        let mut t = Tex::new(fmt, w, h);
        t.dimension = dim;
        t.depth = 4095;
        t.mips = 0xFFFF;
        let _ = UnitSampler::new(0, &t.texture(), &mem);
    }
    let mut t = Tex::new(0x81, 16, 16);
    t.mips = 5;
    t.min_filter = 6;
    t.mag_filter = 2;
    t.min_lod = 0xFFF;
    t.max_lod = 0;
    let s = UnitSampler::new(0, &t.texture(), &mem).unwrap();
    for c in [f32::NAN, f32::INFINITY, -f32::INFINITY, 1e30, -1e30] {
        let r = SampleRequest {
            coord: [c, c, c, c],
            ddx: [c; 4],
            ddy: [c; 4],
            lod: LodSource::Implicit,
        };
        let _ = s.sample(&r);
        let _ = s.sample(&SampleRequest {
            lod: LodSource::Explicit(c),
            ..r
        });
    }
}

#[test]
fn device_bindings_take_every_border_colour_exactly() {
    // A 4×4 B8 unit with an odd border colour, bound exactly (verify's strictness): on s and
    // t the shader adds the colour (`TextureLod::border`) and the device's border is
    // transparent black; on r alone, an axis a 2D unit does not have, it makes no difference.
    use rsxtrace_gpu::{BorderColor, WrapMode};
    use rsxtrace_replay::texture::binding::{convert, Strictness};
    use rsxtrace_replay::texture::lod::unit_lod;
    let mem = Mem::local(0, vec![7; 16]);
    for (wrap, shader_adds) in [([4, 4, 3], true), ([3, 3, 4], false)] {
        let mut t = Tex::new(0x81, 4, 4).linear(4);
        t.wrap = wrap;
        t.border_color = 0xFF11_2233;
        let texture = t.texture();
        let converted = convert(0, &texture, &mem, Strictness::Exact)
            .unwrap_or_else(|e| panic!("{wrap:?}: {e}"));
        assert!(converted.notes.is_empty(), "{:?}", converted.notes);
        assert_eq!(unit_lod(&texture).border.is_some(), shader_adds, "{wrap:?}");
        let border = WrapMode::ClampToBorder(BorderColor::TransparentBlack);
        let s = converted.binding.sampler.wrap[0];
        assert_eq!(s == border, shader_adds, "{wrap:?}: {s:?}");
    }
}
