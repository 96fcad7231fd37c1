//! `run_vertex_compute` with hand-written ABI modules: results compared exactly with values
//! computed here (inputs and constants are small dyadic numbers, so every dot product and
//! multiply-add is exact in f32 whatever the evaluation order).

use crate::common;

use rsxtrace_gpu::{
    Backend, GpuError, GpuOptions, TextureBinding, VertexJob, FP_INPUTS, VP_CONSTANTS,
};

/// HPOS = (dot(c[32], v0), dot(c[33], v0), dot(c[34], v0), dot(c[35], v0)); TEX0 (register 7)
/// = v8 * c[0] + c[1]; COL0 (register 1) = v3 only when branch bit 0 is set.
fn transform_module() -> rsxtrace_wgsl::WgslModule {
    let body = "
fn rsx_vertex(inp: array<vec4<f32>, 16>) -> VpResult {
    var r: VpResult;
    for (var i = 0u; i < 16u; i++) { r.regs[i] = vec4<f32>(0.0, 0.0, 0.0, 1.0); }
    let a = inp[0];
    r.regs[0] = vec4<f32>(dot(vp_constants[32], a), dot(vp_constants[33], a),
                          dot(vp_constants[34], a), dot(vp_constants[35], a));
    r.regs[7] = inp[8] * vp_constants[0] + vp_constants[1];
    r.written = 1u | (1u << 7u);
    if ((vp_params.branch_bits & 1u) != 0u) {
        r.regs[1] = inp[3];
        r.written = r.written | 2u;
    }
    return r;
}
";
    common::module(&format!("{}{body}{}", common::VP_DECLS, common::VP_COMPUTE))
}

fn constants() -> Box<[[f32; 4]; VP_CONSTANTS]> {
    let mut c = Box::new([[0f32; 4]; VP_CONSTANTS]);
    c[0] = [2.0, 0.5, -1.0, 4.0];
    c[1] = [0.25, -3.0, 8.0, 0.0];
    // A scale-and-translate matrix in rows 32..35.
    c[32] = [2.0, 0.0, 0.0, -1.0];
    c[33] = [0.0, -2.0, 0.0, 1.0];
    c[34] = [0.0, 0.0, 0.5, 0.5];
    c[35] = [0.0, 0.0, 0.0, 1.0];
    // Rows the program never reads: must not leak into results.
    c[36] = [99.0; 4];
    c[467] = [-7.0; 4];
    c
}

fn vertex_inputs(n: usize) -> Vec<[[f32; 4]; 16]> {
    (0..n)
        .map(|v| {
            let f = v as f32;
            let mut attrs = [[0f32; 4]; 16];
            for (a, attr) in attrs.iter_mut().enumerate() {
                *attr = [f + a as f32, f * 0.5, -(a as f32), 1.0 + a as f32];
            }
            attrs[0] = [f * 0.25, 1.0 - f * 0.125, f, 1.0];
            attrs
        })
        .collect()
}

fn expected(
    c: &[[f32; 4]; VP_CONSTANTS],
    inp: &[[f32; 4]; 16],
    branch: bool,
) -> ([[f32; 4]; 16], u16) {
    let dot = |r: [f32; 4], a: [f32; 4]| r[0] * a[0] + r[1] * a[1] + r[2] * a[2] + r[3] * a[3];
    let mut regs = [[0.0, 0.0, 0.0, 1.0]; 16];
    let a = inp[0];
    regs[0] = [dot(c[32], a), dot(c[33], a), dot(c[34], a), dot(c[35], a)];
    for k in 0..4 {
        regs[7][k] = inp[8][k] * c[0][k] + c[1][k];
    }
    let mut written = 1 | 1 << 7;
    if branch {
        regs[1] = inp[3];
        written |= 2;
    }
    (regs, written)
}

#[test]
fn transform_matches_values_computed_here() {
    let Some(gpu) = common::gpu("transform_matches_values_computed_here") else {
        return;
    };
    let module = transform_module();
    let c = constants();
    // 1000 is not a multiple of the workgroup size 64: the tail invocations must not write.
    let inputs = vertex_inputs(1000);
    for branch_bits in [0u32, 1] {
        let out = gpu
            .run_vertex_compute(&module, &c, &inputs, branch_bits)
            .expect("vp_compute runs");
        assert_eq!(out.len(), inputs.len());
        for (v, (got, inp)) in out.iter().zip(&inputs).enumerate() {
            let (regs, written) = expected(&c, inp, branch_bits & 1 != 0);
            assert_eq!(got.registers, regs, "vertex {v} branch_bits {branch_bits}");
            assert_eq!(got.written, written, "vertex {v} branch_bits {branch_bits}");
        }
    }
    // Vertex 4: a0 = (1, 0.5, 4, 1) -> HPOS = (2*1 - 1, -2*0.5 + 1, 0.5*4 + 0.5, 1).
    let out = gpu
        .run_vertex_compute(&module, &c, &inputs[4..5], 0)
        .expect("one vertex");
    assert_eq!(out[0].registers[0], [1.0, 0.0, 2.5, 1.0]);
    assert_eq!(out[0].registers[1], [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(out[0].written, 0b1000_0001);
}

#[test]
fn large_inputs_are_split_into_batches_in_order() {
    let Some(gpu) = common::gpu("large_inputs_are_split_into_batches_in_order") else {
        return;
    };
    // One vertex per input; 2^18 + 3 vertices is more than one dispatch (MAX_BATCH 2^18).
    let module = common::module(&format!(
        "{}
fn rsx_vertex(inp: array<vec4<f32>, 16>) -> VpResult {{
    var r: VpResult;
    for (var i = 0u; i < 16u; i++) {{ r.regs[i] = vec4<f32>(0.0, 0.0, 0.0, 1.0); }}
    r.regs[0] = inp[0] + vp_constants[0];
    r.written = 1u;
    return r;
}}
{}",
        common::VP_DECLS,
        common::VP_COMPUTE
    ));
    let mut c = Box::new([[0f32; 4]; VP_CONSTANTS]);
    c[0] = [0.5, 0.0, 0.0, 0.0];
    let n = (1usize << 18) + 3;
    let inputs: Vec<[[f32; 4]; 16]> = (0..n)
        .map(|v| {
            let mut a = [[0f32; 4]; 16];
            a[0] = [v as f32, 0.0, 0.0, 1.0];
            a
        })
        .collect();
    let out = gpu
        .run_vertex_compute(&module, &c, &inputs, 0)
        .expect("runs");
    assert_eq!(out.len(), n);
    for (v, r) in out.iter().enumerate() {
        assert_eq!(
            r.registers[0],
            [v as f32 + 0.5, 0.0, 0.0, 1.0],
            "vertex {v}"
        );
        assert_eq!(r.written, 1, "vertex {v}");
    }
}

#[test]
fn empty_input_gives_empty_output_and_pipelines_are_cached() {
    let Some(gpu) = common::gpu("empty_input_gives_empty_output_and_pipelines_are_cached") else {
        return;
    };
    let module = transform_module();
    let c = constants();
    assert_eq!(gpu.cached_pipelines(), 0);
    assert!(gpu
        .run_vertex_compute(&module, &c, &[], 0)
        .unwrap()
        .is_empty());
    assert_eq!(gpu.cached_pipelines(), 1);
    gpu.run_vertex_compute(&module, &c, &vertex_inputs(3), 0)
        .unwrap();
    assert_eq!(
        gpu.cached_pipelines(),
        1,
        "the same module reuses its pipeline"
    );
}

#[test]
fn module_without_vp_compute_is_an_abi_error() {
    let Some(gpu) = common::gpu("module_without_vp_compute_is_an_abi_error") else {
        return;
    };
    let module = common::module(&format!(
        "{}\n@compute @workgroup_size(32) fn vp_compute() {{ }}",
        common::VP_DECLS
    ));
    let err = gpu
        .run_vertex_compute(&module, &constants(), &vertex_inputs(1), 0)
        .unwrap_err();
    assert!(
        matches!(&err, GpuError::Abi { what, .. } if what.contains("workgroup size")),
        "{err}"
    );
    let module = common::module("@compute @workgroup_size(64) fn other() { }");
    let err = gpu
        .run_vertex_compute(&module, &constants(), &vertex_inputs(1), 0)
        .unwrap_err();
    assert!(
        matches!(&err, GpuError::Abi { what, .. } if what.contains("vp_compute is missing")),
        "{err}"
    );
}

#[test]
fn binding_of_the_wrong_kind_is_a_wgpu_error_not_a_panic() {
    let Some(gpu) = common::gpu("binding_of_the_wrong_kind_is_a_wgpu_error_not_a_panic") else {
        return;
    };
    // vp_params declared as storage instead of uniform: naga accepts it, wgpu's layout check
    // must refuse it.
    let source = common::VP_DECLS.replace(
        "var<uniform> vp_params: VpParams",
        "var<storage, read> vp_params: VpParams",
    );
    let module = common::module(&format!(
        "{source}
@compute @workgroup_size(64)
fn vp_compute(@builtin(global_invocation_id) id: vec3<u32>) {{
    if (id.x < vp_params.vertex_count) {{ vp_outputs[id.x] = vp_constants[0]; }}
}}"
    ));
    let err = gpu
        .run_vertex_compute(&module, &constants(), &vertex_inputs(2), 0)
        .unwrap_err();
    assert!(matches!(err, GpuError::Wgpu { .. }), "{err}");
}

#[test]
fn gl_backend_runs_compute_and_names_what_it_cannot_render() {
    let options = GpuOptions {
        backend: Backend::Gl,
        ..Default::default()
    };
    let Some(gpu) = common::gpu_with(
        "gl_backend_runs_compute_and_names_what_it_cannot_render",
        options,
    ) else {
        return;
    };
    assert_eq!(gpu.info().backend, "gl");
    let c = constants();
    let inputs = vertex_inputs(130);
    let out = gpu
        .run_vertex_compute(&transform_module(), &c, &inputs, 1)
        .expect("runs on GL");
    for (v, (got, inp)) in out.iter().zip(&inputs).enumerate() {
        let (regs, written) = expected(&c, inp, true);
        assert_eq!((got.registers, got.written), (regs, written), "vertex {v}");
    }
    if !gpu.info().rgba32float_renderable {
        let fp = common::module(&format!(
            "{}@fragment fn fp_eval(@builtin(position) pos: vec4<f32>) -> FpEvalTargets {{
                var o: FpEvalTargets; o.c0 = input(pos, 0u); return o; }}",
            common::FP_DECLS
        ));
        let textures: [Option<TextureBinding>; 16] = Default::default();
        let err = gpu
            .run_fragment_eval(&fp, 1, 1, &[[[0.0; 4]; FP_INPUTS]], &textures)
            .unwrap_err();
        assert!(
            matches!(&err, GpuError::Unsupported { what, .. } if what.contains("Rgba32Float")),
            "{err}"
        );
    }
}

#[test]
fn a_batch_gives_each_job_what_it_gives_alone() {
    let Some(gpu) = common::gpu("a_batch_gives_each_job_what_it_gives_alone") else {
        return;
    };
    let module = transform_module();
    let broken = common::module(&format!(
        "{}\n@compute @workgroup_size(32) fn vp_compute() {{ }}",
        common::VP_DECLS
    ));
    let c = constants();
    let mut other = constants();
    other[0][0] += 0.25;
    let inputs = vertex_inputs(300);
    let jobs = [
        VertexJob {
            module: &module,
            constants: &c,
            inputs: &inputs,
            branch_bits: 0,
            textures: [None; 4],
        },
        // A job whose module is refused keeps its own error; the others still run.
        VertexJob {
            module: &broken,
            constants: &c,
            inputs: &inputs[..3],
            branch_bits: 0,
            textures: [None; 4],
        },
        VertexJob {
            module: &module,
            constants: &other,
            inputs: &inputs[7..70],
            branch_bits: 1,
            textures: [None; 4],
        },
        VertexJob {
            module: &module,
            constants: &c,
            inputs: &[],
            branch_bits: 0,
            textures: [None; 4],
        },
    ];
    let batch = gpu.run_vertex_compute_batch(&jobs);
    assert_eq!(batch.len(), jobs.len());
    for (k, (job, got)) in jobs.iter().zip(&batch).enumerate() {
        let alone = gpu.run_vertex_compute(job.module, job.constants, job.inputs, job.branch_bits);
        match (got, alone) {
            (Ok(a), Ok(b)) => assert_eq!(*a, b, "job {k}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "job {k}"),
            (a, b) => panic!("job {k}: batch {a:?}, alone {b:?}"),
        }
    }
    assert!(batch[1].is_err());
    assert_eq!(batch[2].as_ref().unwrap().len(), 63);
}

/// A module whose TEX0 is the texel of vertex texture unit 1 at (v0.x, v0.y), level v0.z
/// (ABI.md "Vertex textures": group 2, unit 1 at bindings 2 and 3).
fn vertex_texture_module() -> rsxtrace_wgsl::WgslModule {
    let body = "
@group(2) @binding(2) var rsx_vtex1: texture_2d<f32>;
@group(2) @binding(3) var rsx_vsmp1: sampler;

fn rsx_vertex(inp: array<vec4<f32>, 16>) -> VpResult {
    var r: VpResult;
    for (var i = 0u; i < 16u; i++) { r.regs[i] = vec4<f32>(0.0, 0.0, 0.0, 1.0); }
    r.regs[7] = textureSampleLevel(rsx_vtex1, rsx_vsmp1, inp[0].xy, inp[0].z);
    r.written = 1u << 7u;
    return r;
}
";
    common::module(&format!("{}{body}{}", common::VP_DECLS, common::VP_COMPUTE))
}

/// A 2×2 nearest-filtered texture with level 1 (one texel) as well.
fn two_level_texture() -> TextureBinding {
    use rsxtrace_gpu::{Filter, SamplerDesc, TextureDimension, WrapMode};
    TextureBinding {
        dimension: TextureDimension::D2,
        width: 2,
        height: 2,
        depth_or_layers: 1,
        mip_levels: 2,
        levels: vec![
            vec![
                [1.0, 2.0, 3.0, 4.0],
                [5.0, 6.0, 7.0, 8.0],
                [9.0, 10.0, 11.0, 12.0],
                [13.0, 14.0, 15.0, 16.0],
            ],
            vec![[-1.0, -2.0, -3.0, -4.0]],
        ],
        sampler: SamplerDesc {
            wrap: [WrapMode::ClampToEdge; 3],
            mag: Filter::Nearest,
            min: Filter::Nearest,
        },
    }
}

#[test]
fn vertex_textures_are_sampled_on_their_unit_and_checked() {
    let Some(gpu) = common::gpu("vertex_textures_are_sampled_on_their_unit_and_checked") else {
        return;
    };
    let module = vertex_texture_module();
    let texture = gpu.upload_texture(&two_level_texture(), "unit 1").unwrap();
    let mut inputs = vertex_inputs(3);
    inputs[0][0] = [0.25, 0.25, 0.0, 1.0];
    inputs[1][0] = [0.75, 0.75, 0.0, 1.0];
    inputs[2][0] = [0.25, 0.75, 1.25, 1.0];
    let c = constants();
    let out = gpu
        .run_vertex_compute_textured(&module, &c, &inputs, 0, [None, Some(&texture), None, None])
        .unwrap();
    let tex0: Vec<[f32; 4]> = out.iter().map(|v| v.registers[7]).collect();
    assert_eq!(
        tex0,
        [
            [1.0, 2.0, 3.0, 4.0],
            [13.0, 14.0, 15.0, 16.0],
            [-1.0, -2.0, -3.0, -4.0]
        ]
    );
    // The same job in a batch, next to a job without textures.
    let plain = transform_module();
    let jobs = [
        VertexJob {
            module: &plain,
            constants: &c,
            inputs: &inputs,
            branch_bits: 0,
            textures: [None; 4],
        },
        VertexJob {
            module: &module,
            constants: &c,
            inputs: &inputs,
            branch_bits: 0,
            textures: [None, Some(&texture), None, None],
        },
        // Unit 1 unbound: this job's own error.
        VertexJob {
            module: &module,
            constants: &c,
            inputs: &inputs,
            branch_bits: 0,
            textures: [Some(&texture), None, None, None],
        },
    ];
    let batch = gpu.run_vertex_compute_batch(&jobs);
    assert!(batch[0].is_ok());
    assert_eq!(batch[1].as_ref().unwrap(), &out);
    let err = batch[2].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("vertex textures[1]") && err.contains("nothing is bound"),
        "{err}"
    );
    // A binding of another dimension is refused before anything runs.
    let mut cube = two_level_texture();
    cube.dimension = rsxtrace_gpu::TextureDimension::D3;
    cube.depth_or_layers = 2;
    cube.mip_levels = 1;
    cube.levels = vec![vec![[0.0; 4]; 8]];
    let volume = gpu.upload_texture(&cube, "3d").unwrap();
    let err = gpu
        .run_vertex_compute_textured(&module, &c, &inputs, 0, [None, Some(&volume), None, None])
        .unwrap_err()
        .to_string();
    assert!(err.contains("declares a D2 texture"), "{err}");
}
