//! Texture units through `run_fragment_eval`: nearest sampling of a 2 × 2 texture returns its
//! texels exactly, linear sampling averages them (where `FLOAT32_FILTERABLE` exists), and
//! missing or mismatched bindings are refused.

use crate::common;

use rsxtrace_gpu::{
    Filter, GpuError, SamplerDesc, TextureBinding, TextureDimension, WrapMode, FP_INPUTS,
    TEXTURE_UNITS,
};

/// c0 = texture unit 1 sampled at TEX0.xy (level 0).
fn sampling_module() -> rsxtrace_wgsl::WgslModule {
    common::module(&format!(
        "{}
@group(1) @binding(2) var tex1: texture_2d<f32>;
@group(1) @binding(3) var samp1: sampler;
@fragment
fn fp_eval(@builtin(position) pos: vec4<f32>) -> FpEvalTargets {{
    var o: FpEvalTargets;
    let uv = input(pos, 4u).xy;
    o.c0 = textureSampleLevel(tex1, samp1, uv, 0.0);
    o.depth_killed = vec4<f32>(0.0);
    return o;
}}",
        common::FP_DECLS
    ))
}

/// Texels (0,0) red-ish, (1,0), (0,1), (1,1): all components distinct.
const TEXELS: [[f32; 4]; 4] = [
    [1.0, 0.0, 0.25, 1.0],
    [0.0, 2.0, 0.5, 1.0],
    [4.0, 0.125, 0.0, 0.5],
    [-1.0, 8.0, 16.0, 0.0],
];

fn texture(filter: Filter) -> TextureBinding {
    TextureBinding {
        dimension: TextureDimension::D2,
        width: 2,
        height: 2,
        depth_or_layers: 1,
        mip_levels: 1,
        levels: vec![TEXELS.to_vec()],
        sampler: SamplerDesc {
            wrap: [WrapMode::ClampToEdge; 3],
            mag: filter,
            min: filter,
        },
    }
}

fn units_with(unit: usize, t: TextureBinding) -> [Option<TextureBinding>; TEXTURE_UNITS as usize] {
    let mut units: [Option<TextureBinding>; TEXTURE_UNITS as usize] = Default::default();
    units[unit] = Some(t);
    units
}

/// A `w` × `h` image with TEX0 = ((x + .5) / w, (y + .5) / h).
fn uv_inputs(w: u32, h: u32) -> Vec<[[f32; 4]; FP_INPUTS]> {
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| texel_centre(x, y, w, h))
        .collect()
}

/// One pixel's inputs with TEX0 at the centre of texel (`x`, `y`) of a `w` × `h` texture.
fn texel_centre(x: u32, y: u32, w: u32, h: u32) -> [[f32; 4]; FP_INPUTS] {
    let mut i = [[0f32; 4]; FP_INPUTS];
    i[4] = [
        (x as f32 + 0.5) / w as f32,
        (y as f32 + 0.5) / h as f32,
        0.0,
        1.0,
    ];
    i
}

#[test]
fn nearest_sampling_returns_the_texels() {
    let Some(gpu) = common::gpu("nearest_sampling_returns_the_texels") else {
        return;
    };
    let out = gpu
        .run_fragment_eval(
            &sampling_module(),
            4,
            4,
            &uv_inputs(4, 4),
            &units_with(1, texture(Filter::Nearest)),
        )
        .expect("fp_eval runs");
    for y in 0..4usize {
        for x in 0..4usize {
            let want = TEXELS[(y / 2) * 2 + x / 2];
            assert_eq!(out[y * 4 + x].colors[0], want, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn linear_sampling_averages_at_the_centre() {
    let Some(gpu) = common::gpu("linear_sampling_averages_at_the_centre") else {
        return;
    };
    let units = units_with(1, texture(Filter::Linear));
    let result = gpu.run_fragment_eval(&sampling_module(), 1, 1, &uv_inputs(1, 1), &units);
    if !gpu.info().float32_filterable {
        let err = result.unwrap_err();
        assert!(matches!(err, GpuError::Unsupported { .. }), "{err}");
        return;
    }
    let got = result.expect("fp_eval runs")[0].colors[0];
    let mut want = [0f32; 4];
    for t in TEXELS {
        for (w, v) in want.iter_mut().zip(t) {
            *w += v / 4.0;
        }
    }
    for (g, w) in got.iter().zip(want) {
        // Filtering weights may be fixed point (8 bits of fraction on many GPUs).
        assert!(
            (g - w).abs() <= 1e-2 * w.abs().max(1.0),
            "got {got:?}, want {want:?}"
        );
    }
}

#[test]
fn missing_and_mismatched_bindings_are_refused() {
    let Some(gpu) = common::gpu("missing_and_mismatched_bindings_are_refused") else {
        return;
    };
    let module = sampling_module();
    let inputs = uv_inputs(2, 2);
    let err = gpu
        .run_fragment_eval(
            &module,
            2,
            2,
            &inputs,
            &units_with(0, texture(Filter::Nearest)),
        )
        .unwrap_err();
    assert!(
        matches!(&err, GpuError::Argument { name, .. } if name == "textures[1]"),
        "{err}"
    );
    let mut cube = texture(Filter::Nearest);
    cube.dimension = TextureDimension::Cube;
    cube.depth_or_layers = 6;
    cube.levels = vec![[[0.0; 4]; 24].to_vec()];
    let err = gpu
        .run_fragment_eval(&module, 2, 2, &inputs, &units_with(1, cube))
        .unwrap_err();
    assert!(
        matches!(&err, GpuError::Argument { what, .. } if what.contains("D2")),
        "{err}"
    );
    let mut short = texture(Filter::Nearest);
    short.levels[0].pop();
    let err = gpu
        .run_fragment_eval(&module, 2, 2, &inputs, &units_with(1, short))
        .unwrap_err();
    assert!(
        matches!(&err, GpuError::Argument { name, .. } if name == "textures[1].levels[0]"),
        "{err}"
    );
}

/// A level larger than one upload band (16 MiB of `Rgba32Float`) is written in bands of rows
/// (`texture::write_level`): every row, on both sides of each band's edge, holds its texels.
#[test]
fn a_level_larger_than_an_upload_band_arrives_whole() {
    let Some(gpu) = common::gpu("a_level_larger_than_an_upload_band_arrives_whole") else {
        return;
    };
    // 2048 x 700 texels of 16 bytes: 22.9 MB, bands of 512 rows.
    let (w, h) = (2048u32, 700u32);
    let texel = |x: u32, y: u32| [x as f32, y as f32, (x ^ y) as f32, 1.0];
    let levels = vec![(0..h)
        .flat_map(|y| (0..w).map(move |x| texel(x, y)))
        .collect::<Vec<_>>()];
    let t = TextureBinding {
        dimension: TextureDimension::D2,
        width: w,
        height: h,
        depth_or_layers: 1,
        mip_levels: 1,
        levels,
        sampler: SamplerDesc {
            wrap: [WrapMode::ClampToEdge; 3],
            mag: Filter::Nearest,
            min: Filter::Nearest,
        },
    };
    // One pixel per chosen texel: rows 0, 511, 512, 699 and columns 0, 1000, 2047.
    let picks: Vec<(u32, u32)> = [0u32, 511, 512, 699]
        .into_iter()
        .flat_map(|y| [0u32, 1000, 2047].into_iter().map(move |x| (x, y)))
        .collect();
    let inputs: Vec<[[f32; 4]; FP_INPUTS]> = picks
        .iter()
        .map(|&(x, y)| texel_centre(x, y, w, h))
        .collect();
    let out = gpu
        .run_fragment_eval(
            &sampling_module(),
            picks.len() as u32,
            1,
            &inputs,
            &units_with(1, t),
        )
        .expect("fp_eval runs");
    for (n, &(x, y)) in picks.iter().enumerate() {
        assert_eq!(out[n].colors[0], texel(x, y), "texel ({x}, {y})");
    }
}

/// A binding bound again takes the texture uploaded the first time (kept by content); one
/// whose texels differ gets its own, and each samples its own texels.
#[test]
fn a_texture_bound_again_is_uploaded_once() {
    let Some(gpu) = common::gpu("a_texture_bound_again_is_uploaded_once") else {
        return;
    };
    let module = sampling_module();
    let run = |t: TextureBinding| {
        gpu.run_fragment_eval(&module, 4, 4, &uv_inputs(4, 4), &units_with(1, t))
            .expect("fp_eval runs")
    };
    assert_eq!(gpu.kept_uploads(), (0, 0));
    let first = run(texture(Filter::Nearest));
    let again = run(texture(Filter::Nearest));
    assert_eq!(first, again);
    assert_eq!(gpu.kept_uploads(), (1, 4 * 16));
    let mut other = texture(Filter::Nearest);
    other.levels[0][0] = [0.5; 4];
    let changed = run(other);
    assert_eq!(gpu.kept_uploads(), (2, 2 * 4 * 16));
    assert_eq!(changed[0].colors[0], [0.5; 4]);
    assert_eq!(first[0].colors[0], TEXELS[0]);
}
