//! `run_fragment_eval` and `shade_gpu` with hand-written ABI modules: inputs passed through
//! unchanged (odd sizes, so readback rows need padding), real derivatives on linear ramps, the
//! depth/killed target, and the device report.

use crate::common;

use rsxtrace_gpu::{shade_gpu, shade_inputs, GpuError, TextureBinding, FP_INPUTS, TEXTURE_UNITS};

type Inputs = [[f32; 4]; FP_INPUTS];

fn no_textures() -> [Option<TextureBinding>; TEXTURE_UNITS as usize] {
    Default::default()
}

/// c0 = COL0 (1), c1 = COL1 (2), c2 = TEX9 (13), c3 = FACING (14),
/// depth_killed = (FOGC.x, FOGC.y != 0 ? 1 : 0, 0, 0).
fn passthrough_module() -> rsxtrace_wgsl::WgslModule {
    common::module(&format!(
        "{}
@fragment
fn fp_eval(@builtin(position) pos: vec4<f32>) -> FpEvalTargets {{
    var o: FpEvalTargets;
    o.c0 = input(pos, 1u);
    o.c1 = input(pos, 2u);
    o.c2 = input(pos, 13u);
    o.c3 = input(pos, 14u);
    let fog = input(pos, 3u);
    o.depth_killed = vec4<f32>(fog.x, select(0.0, 1.0, fog.y != 0.0), 0.0, 0.0);
    return o;
}}",
        common::FP_DECLS
    ))
}

/// c0 = TEX0, c1 = dpdx(TEX0), c2 = dpdy(TEX0), c3 = WPOS.
fn derivative_module() -> rsxtrace_wgsl::WgslModule {
    common::module(&format!(
        "{}
@fragment
fn fp_eval(@builtin(position) pos: vec4<f32>) -> FpEvalTargets {{
    var o: FpEvalTargets;
    let tex0 = input(pos, 4u);
    o.c0 = tex0;
    o.c1 = dpdx(tex0);
    o.c2 = dpdy(tex0);
    o.c3 = input(pos, 0u);
    o.depth_killed = vec4<f32>(0.0);
    return o;
}}",
        common::FP_DECLS
    ))
}

#[test]
fn device_reports_what_fragment_evaluation_needs() {
    let Some(gpu) = common::gpu("device_reports_what_fragment_evaluation_needs") else {
        return;
    };
    let info = gpu.info();
    eprintln!("adapter: {info}");
    assert!(!info.adapter.is_empty());
    assert!(
        info.backend == "vulkan" || info.backend == "gl",
        "{}",
        info.backend
    );
    if info.backend == "vulkan" {
        // lavapipe and every desktop Vulkan driver render Rgba32Float (stack-notes.md 1(b)).
        assert!(info.rgba32float_renderable);
        assert!(info.max_color_attachment_bytes_per_sample >= 80, "{info}");
    }
}

#[test]
fn inputs_pass_through_unchanged_on_odd_sizes() {
    let Some(gpu) = common::gpu("inputs_pass_through_unchanged_on_odd_sizes") else {
        return;
    };
    let module = passthrough_module();
    // 7 × 16 = 112 bytes per row, padded to 256; 1 × 5 and 17 × 3 pad differently.
    for (w, h) in [(7u32, 5u32), (1, 5), (17, 3)] {
        let inputs: Vec<Inputs> = (0..w * h)
            .map(|p| {
                let f = p as f32;
                let mut i = [[0f32; 4]; FP_INPUTS];
                for (a, attr) in i.iter_mut().enumerate() {
                    *attr = [f, a as f32, f * 0.25 - 3.0, -(a as f32) - f];
                }
                // FOGC: x = depth, y = killed for every third pixel.
                i[3] = [f * 0.5, if p % 3 == 0 { 1.0 } else { 0.0 }, 0.0, 0.0];
                i
            })
            .collect();
        let out = gpu
            .run_fragment_eval(&module, w, h, &inputs, &no_textures())
            .expect("fp_eval runs");
        assert_eq!(out.len(), inputs.len());
        for (p, (r, i)) in out.iter().zip(&inputs).enumerate() {
            let at = format!("{w}x{h} pixel ({}, {})", p as u32 % w, p as u32 / w);
            assert_eq!(r.colors, [i[1], i[2], i[13], i[14]], "{at}");
            assert_eq!(r.depth, p as f32 * 0.5, "{at}");
            assert_eq!(r.killed, p % 3 == 0, "{at}");
        }
    }
}

#[test]
fn derivatives_are_real_on_a_linear_ramp() {
    let Some(gpu) = common::gpu("derivatives_are_real_on_a_linear_ramp") else {
        return;
    };
    let module = derivative_module();
    // Even size, odd size (edge quads use extrapolated inputs), single column and row.
    for (w, h) in [(8u32, 6u32), (7, 5), (1, 3), (5, 1)] {
        let inputs: Vec<Inputs> = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| {
                let mut i = [[0f32; 4]; FP_INPUTS];
                // TEX0 steps by (1/8, 0, 3, 0) along x and (0, 1/4, -2, 0) along y: exact.
                i[4] = [
                    x as f32 / 8.0,
                    y as f32 / 4.0,
                    3.0 * x as f32 - 2.0 * y as f32,
                    1.0,
                ];
                i
            })
            .collect();
        let out = gpu
            .run_fragment_eval(&module, w, h, &inputs, &no_textures())
            .expect("fp_eval runs");
        // A single column or row is copied into the padding: no change across it.
        let dx = if w == 1 {
            [0.0; 4]
        } else {
            [0.125, 0.0, 3.0, 0.0]
        };
        let dy = if h == 1 {
            [0.0; 4]
        } else {
            [0.0, 0.25, -2.0, 0.0]
        };
        for (p, (r, i)) in out.iter().zip(&inputs).enumerate() {
            let at = format!("{w}x{h} pixel ({}, {})", p as u32 % w, p as u32 / w);
            assert_eq!(r.colors[0], i[4], "{at}");
            assert_eq!(r.colors[1], dx, "dpdx at {at}");
            assert_eq!(r.colors[2], dy, "dpdy at {at}");
            assert!(!r.killed && r.depth == 0.0, "{at}");
        }
    }
}

#[test]
fn shade_gpu_feeds_the_documented_inputs() {
    let Some(gpu) = common::gpu("shade_gpu_feeds_the_documented_inputs") else {
        return;
    };
    // Colour 0 = (TEX0.x, TEX0.y, WPOS.y / H, dpdy(WPOS.y)) + COL0.w + COL1.w - 2.
    let module = common::module(&format!(
        "{}
@fragment
fn fp_eval(@builtin(position) pos: vec4<f32>) -> FpEvalTargets {{
    var o: FpEvalTargets;
    let tex0 = input(pos, 4u);
    let wpos = input(pos, 0u);
    let ones = input(pos, 1u).w + input(pos, 2u).w - 2.0;
    o.c0 = vec4<f32>(tex0.x, tex0.y, wpos.y / f32(fp_params.height), dpdy(wpos.y)) + ones;
    o.c1 = input(pos, 3u) + input(pos, 5u) + input(pos, 14u);
    o.depth_killed = vec4<f32>(0.0);
    return o;
}}",
        common::FP_DECLS
    ));
    let (w, h) = (4u32, 2u32);
    let image = shade_gpu(&gpu, &module, w, h).expect("shade_gpu runs");
    assert_eq!((image.width, image.height, image.pixels.len()), (4, 2, 8));
    for y in 0..h {
        for x in 0..w {
            let want = [
                (x as f32 + 0.5) / 4.0,
                1.0 - (y as f32 + 0.5) / 2.0,
                (2.0 - (y as f32 + 0.5)) / 2.0,
                -1.0,
            ];
            assert_eq!(image.pixels[(y * w + x) as usize], want, "pixel ({x}, {y})");
        }
    }
    // The documented inputs themselves.
    let i = shade_inputs(3, 1, 4, 2);
    assert_eq!(i[0], [3.5, 0.5, 0.5, 1.0]);
    assert_eq!(i[4], [0.875, 0.25, 0.0, 1.0]);
    assert_eq!((i[1], i[2], i[3]), ([1.0; 4], [1.0; 4], [0.0; 4]));
}

#[test]
fn bad_sizes_are_refused_before_any_work() {
    let Some(gpu) = common::gpu("bad_sizes_are_refused_before_any_work") else {
        return;
    };
    let module = passthrough_module();
    let inputs = vec![[[0f32; 4]; FP_INPUTS]; 6];
    let err = gpu
        .run_fragment_eval(&module, 4, 2, &inputs, &no_textures())
        .unwrap_err();
    assert!(
        matches!(&err, GpuError::Argument { name, .. } if name == "inputs"),
        "{err}"
    );
    let err = gpu
        .run_fragment_eval(&module, 0, 6, &inputs, &no_textures())
        .unwrap_err();
    assert!(matches!(err, GpuError::Argument { .. }), "{err}");
    let err = shade_gpu(&gpu, &module, u32::MAX, u32::MAX).unwrap_err();
    assert!(matches!(err, GpuError::Argument { .. }), "{err}");
    let err = gpu
        .run_fragment_eval(
            &derivative_module_without_eval(),
            3,
            2,
            &inputs,
            &no_textures(),
        )
        .unwrap_err();
    assert!(matches!(err, GpuError::Abi { .. }), "{err}");
}

fn derivative_module_without_eval() -> rsxtrace_wgsl::WgslModule {
    common::module("@fragment fn fp_main() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }")
}
