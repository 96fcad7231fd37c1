//! Test helpers: a device or a loud skip (`rsxtrace-testkit`'s adapter policy), and
//! hand-written ABI modules.

#![allow(dead_code)]

use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use rsxtrace_wgsl::WgslModule;

/// A device on the default backend, or `None` after a loud message when no adapter exists
/// (a failure with `CI=true`; any other error fails too).
pub fn gpu(test: &str) -> Option<Gpu> {
    gpu_with(test, GpuOptions::default())
}

/// [`gpu`] with explicit options.
pub fn gpu_with(test: &str, options: GpuOptions) -> Option<Gpu> {
    rsxtrace_testkit::device::open_or_skip(
        test,
        || Gpu::new(options),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )
}

/// Validates hand-written WGSL into a module (hash = XXH3 of the text).
pub fn module(source: &str) -> WgslModule {
    let (module, info) = rsxtrace_wgsl::validate(source)
        .unwrap_or_else(|e| panic!("hand-written module does not validate:\n{e}\n{source}"));
    WgslModule {
        source: source.to_string(),
        module,
        info,
        hash: xxhash_rust::xxh3::xxh3_64(source.as_bytes()),
    }
}

/// Group-0 declarations of a vertex module (ABI.md "Vertex programs").
pub const VP_DECLS: &str = "
struct VpParams { vertex_count: u32, branch_bits: u32, _pad0: u32, _pad1: u32 }
struct VpResult { regs: array<vec4<f32>, 16>, written: u32 }
@group(0) @binding(0) var<storage, read> vp_constants: array<vec4<f32>, 468>;
@group(0) @binding(1) var<uniform> vp_params: VpParams;
@group(0) @binding(2) var<storage, read> vp_inputs: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> vp_outputs: array<vec4<f32>>;
";

/// `vp_compute` as ABI.md describes it, around a `rsx_vertex` defined elsewhere.
pub const VP_COMPUTE: &str = "
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

/// Group-0 declarations and result type of a fragment module (ABI.md "Fragment programs").
pub const FP_DECLS: &str = "
struct FpParams { width: u32, height: u32, _pad0: u32, _pad1: u32 }
@group(0) @binding(0) var<storage, read> fp_inputs: array<vec4<f32>>;
@group(0) @binding(1) var<uniform> fp_params: FpParams;
struct FpEvalTargets {
    @location(0) c0: vec4<f32>,
    @location(1) c1: vec4<f32>,
    @location(2) c2: vec4<f32>,
    @location(3) c3: vec4<f32>,
    @location(4) depth_killed: vec4<f32>,
}
fn input(pos: vec4<f32>, a: u32) -> vec4<f32> {
    let x = u32(pos.x);
    let y = u32(pos.y);
    return fp_inputs[(y * fp_params.width + x) * 15u + a];
}
";
