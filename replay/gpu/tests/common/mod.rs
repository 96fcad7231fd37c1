//! Test helpers: a device or a loud skip, and hand-written ABI modules.

#![allow(dead_code)]

use std::sync::OnceLock;

use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use rsxtrace_wgsl::WgslModule;

/// Gives Mesa a private `XDG_RUNTIME_DIR` when none is set (stack-notes.md 1(b): lavapipe
/// prints an error without one). Done once, before any device is opened.
fn private_runtime_dir() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            let dir = std::env::temp_dir().join(format!("rsxtrace-gpu-xdg-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("create XDG_RUNTIME_DIR");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                    .expect("chmod XDG_RUNTIME_DIR");
            }
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
        }
    });
}

/// A device on the default backend, or `None` after a loud message when no adapter exists.
/// With `CI=true` a missing adapter fails the test.
pub fn gpu(test: &str) -> Option<Gpu> {
    gpu_with(test, GpuOptions::default())
}

/// [`gpu`] with explicit options.
pub fn gpu_with(test: &str, options: GpuOptions) -> Option<Gpu> {
    private_runtime_dir();
    match Gpu::new(options) {
        Ok(gpu) => Some(gpu),
        Err(e @ GpuError::NoAdapter { .. }) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("GPU ADAPTER MISSING in CI ({test}): {e}");
            }
            eprintln!("GPU ADAPTER MISSING: {e}; {test} skipped");
            None
        }
        Err(e) => panic!("{test}: opening the device failed: {e}"),
    }
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
