//! Throughput of the executor on the default adapter: `vp_compute` over 100k vertices with a
//! hand-written module of about 20 RSX-like instructions, and `fp_eval` over 720 × 480.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_gpu::{
    Gpu, GpuError, GpuOptions, TextureBinding, FP_INPUTS, TEXTURE_UNITS, VP_CONSTANTS,
};
use rsxtrace_wgsl::WgslModule;

fn module(source: String) -> WgslModule {
    let (module, info) = rsxtrace_wgsl::validate(&source).expect("bench module validates");
    WgslModule {
        hash: xxhash_rust::xxh3::xxh3_64(source.as_bytes()),
        source,
        module,
        info,
    }
}

const VP: &str = "
struct VpParams { vertex_count: u32, branch_bits: u32, _pad0: u32, _pad1: u32 }
struct VpResult { regs: array<vec4<f32>, 16>, written: u32 }
@group(0) @binding(0) var<storage, read> vp_constants: array<vec4<f32>, 468>;
@group(0) @binding(1) var<uniform> vp_params: VpParams;
@group(0) @binding(2) var<storage, read> vp_inputs: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> vp_outputs: array<vec4<f32>>;
fn rsx_vertex(inp: array<vec4<f32>, 16>) -> VpResult {
    var r: VpResult;
    for (var i = 0u; i < 16u; i++) { r.regs[i] = vec4<f32>(0.0, 0.0, 0.0, 1.0); }
    // 4 DP4 (position), 3 DP3 + RSQ + MUL (normal), DP3 + MAX + MAD (light), 2 MAD (texcoords),
    // MOV x3, ADD, MUL: about 20 instructions.
    let p = inp[0];
    let hpos = vec4<f32>(dot(vp_constants[0], p), dot(vp_constants[1], p),
                         dot(vp_constants[2], p), dot(vp_constants[3], p));
    let n3 = vec3<f32>(dot(vp_constants[4].xyz, inp[2].xyz), dot(vp_constants[5].xyz, inp[2].xyz),
                       dot(vp_constants[6].xyz, inp[2].xyz));
    let n = n3 * inverseSqrt(dot(n3, n3));
    let l = max(dot(n, vp_constants[8].xyz), 0.0);
    r.regs[0] = hpos;
    r.regs[1] = inp[3] * (l * vp_constants[9] + vp_constants[10]);
    r.regs[2] = inp[4] + vp_constants[11];
    r.regs[7] = inp[8] * vp_constants[12] + vp_constants[13];
    r.regs[8] = inp[9] * vp_constants[14] + vp_constants[15];
    r.regs[5] = vec4<f32>(hpos.z, 0.0, 0.0, 0.0);
    r.written = 0x1A7u;
    return r;
}
@compute @workgroup_size(64)
fn vp_compute(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    if (v >= vp_params.vertex_count) { return; }
    var inp: array<vec4<f32>, 16>;
    for (var a = 0u; a < 16u; a++) { inp[a] = vp_inputs[v * 16u + a]; }
    let r = rsx_vertex(inp);
    for (var i = 0u; i < 16u; i++) { vp_outputs[v * 17u + i] = r.regs[i]; }
    vp_outputs[v * 17u + 16u] = vec4<f32>(bitcast<f32>(r.written), 0.0, 0.0, 0.0);
}
";

const FP: &str = "
struct FpParams { width: u32, height: u32, _pad0: u32, _pad1: u32 }
@group(0) @binding(0) var<storage, read> fp_inputs: array<vec4<f32>>;
@group(0) @binding(1) var<uniform> fp_params: FpParams;
struct FpEvalTargets {
    @location(0) c0: vec4<f32>, @location(1) c1: vec4<f32>, @location(2) c2: vec4<f32>,
    @location(3) c3: vec4<f32>, @location(4) depth_killed: vec4<f32>,
}
@fragment
fn fp_eval(@builtin(position) pos: vec4<f32>) -> FpEvalTargets {
    let base = (u32(pos.y) * fp_params.width + u32(pos.x)) * 15u;
    let tex0 = fp_inputs[base + 4u];
    let col0 = fp_inputs[base + 1u];
    var o: FpEvalTargets;
    o.c0 = col0 * fract(tex0 * 8.0) + dpdx(tex0) * 4.0;
    o.c1 = dpdy(tex0);
    o.depth_killed = vec4<f32>(tex0.x, select(0.0, 1.0, tex0.y < 0.1), 0.0, 0.0);
    return o;
}
";

fn bench(c: &mut Criterion) {
    let Some(gpu) = rsxtrace_testkit::device::open_or_skip(
        "gpu benchmarks",
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    ) else {
        return;
    };
    eprintln!("adapter: {}", gpu.info());

    let vp = module(VP.to_string());
    let mut constants = Box::new([[0f32; 4]; VP_CONSTANTS]);
    for (i, row) in constants.iter_mut().enumerate() {
        *row = [i as f32 * 0.01, 1.0, -0.5, 0.25];
    }
    let n = 100_000;
    let inputs: Vec<[[f32; 4]; 16]> = (0..n)
        .map(|v| [[v as f32 * 1e-3, 0.5, -0.25, 1.0]; 16])
        .collect();
    let mut group = c.benchmark_group("gpu");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("vp_compute_100k", |b| {
        b.iter(|| {
            gpu.run_vertex_compute(&vp, &constants, &inputs, 0)
                .expect("runs")
        })
    });

    let fp = module(FP.to_string());
    let (w, h) = (720u32, 480u32);
    let pixels: Vec<[[f32; 4]; FP_INPUTS]> = (0..w * h)
        .map(|p| {
            let mut i = [[0f32; 4]; FP_INPUTS];
            i[1] = [1.0; 4];
            i[4] = [
                (p % w) as f32 / w as f32,
                (p / w) as f32 / h as f32,
                0.0,
                1.0,
            ];
            i
        })
        .collect();
    let textures: [Option<TextureBinding>; TEXTURE_UNITS as usize] = Default::default();
    group.throughput(Throughput::Elements(u64::from(w * h)));
    group.bench_function("fp_eval_720x480", |b| {
        b.iter(|| {
            gpu.run_fragment_eval(&fp, w, h, &pixels, &textures)
                .expect("runs")
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
