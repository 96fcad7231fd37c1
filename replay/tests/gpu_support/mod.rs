//! Shared helpers of the GPU-versus-interpreter tests (`gpu_*.rs`): a device or a loud skip
//! (`rsxtrace-testkit`'s adapter policy), a small deterministic random source, the edge-case
//! values, and the comparison rules (bit equality, NaN matching NaN, ULP and absolute
//! tolerances).
#![allow(dead_code)]

use rsxtrace_gpu::{
    Filter, Gpu, GpuError, GpuOptions, SamplerDesc, TextureBinding, TextureDimension, WrapMode,
};
use rsxtrace_replay::texture::{SampleRequest, Sampler};

/// A device on the default backend, or `None` after a loud message when no adapter exists
/// (a failure with `CI=true`; any other error fails too).
pub fn gpu(test: &str) -> Option<Gpu> {
    rsxtrace_testkit::device::open_or_skip(
        test,
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )
}

/// A device on the default backend that blends no `Rgba32Float` target, as a device without
/// `FLOAT32_BLENDABLE` (whether or not this adapter has it), or `None` as [`gpu`].
pub fn gpu_without_float32_blending(test: &str) -> Option<Gpu> {
    rsxtrace_testkit::device::open_or_skip(
        test,
        || {
            Gpu::new(GpuOptions {
                without_float32_blending: true,
                ..GpuOptions::default()
            })
        },
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )
}

/// A CPU render of a whole frame (`render::cpu::render_frame`, or the tiled check of
/// `render_support::cpu_render_tiled`).
pub type CpuRender =
    fn(
        &rsxtrace_capture::frame::Frame,
        &rsxtrace_replay::render::state::FrameEvents,
        &rsxtrace_replay::render::RenderOptions,
    ) -> Result<rsxtrace_replay::render::RenderedFrame, rsxtrace_replay::render::RenderError>;

/// The output image of `capture` on both renderers, named: the CPU render by `cpu`, and the
/// GPU render when a device exists (test `name` skips it loudly otherwise); neither may skip
/// a draw.
pub fn both_images(
    name: &str,
    capture: &rsxtrace_capture::rrc::Capture,
    cpu: CpuRender,
) -> Vec<(&'static str, rsxtrace_replay::render::Rgba8Image)> {
    use rsxtrace_capture::frame::Frame;
    use rsxtrace_replay::render::{state::FrameEvents, RenderOptions};
    let frame = Frame::from_capture(capture).expect("frame model");
    let events = FrameEvents::from_capture(capture, &frame);
    let options = RenderOptions::default();
    let c = cpu(&frame, &events, &options).expect("CPU render");
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    let mut out = vec![("cpu", c.image)];
    if let Some(gpu) = gpu(name) {
        let g = rsxtrace_replay::render::gpu::render_frame(&gpu, &frame, &events, &options)
            .expect("GPU render");
        assert!(g.skipped.is_empty(), "{:?}", g.skipped);
        out.push(("gpu", g.image));
    }
    out
}

/// SplitMix64: deterministic, seedable, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, n).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }

    /// A random sign, a random 24-bit mantissa and an exponent in [-exp, exp].
    pub fn wide(&mut self, exp: i32) -> f32 {
        let e = self.below((2 * exp + 1) as u32) as i32 - exp;
        let m = 1.0 + (self.next_u64() >> 41) as f32 / (1u64 << 23) as f32;
        let s = if self.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        s * m * 2f32.powi(e)
    }
}

/// The edge cases every op sees: zeros of both signs, ±1, small and large magnitudes, NaN,
/// the infinities, values just past binary16's range (65504 is its largest finite value).
pub const EDGES: [f32; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    1e-30,
    -1e-30,
    1e30,
    -1e30,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    65504.0,
    70000.0,
    3.0,
];

/// Bit equality, except that any NaN matches any NaN.
pub fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The device flushed a subnormal result to zero: Vulkan lets an implementation flush
/// denormals unless the shader asks otherwise (`shaderDenormPreserveFloat32`; naga's SPIR-V
/// asks nothing), and lavapipe does (EX2 of -130.28 is 6.04e-40 in the interpreter, +0 there).
pub fn flushed(gpu: f32, cpu: f32) -> bool {
    gpu == 0.0 && cpu.is_subnormal()
}

/// Distance in units in the last place between two non-NaN values (+0 and −0 are 0 apart;
/// an infinity is one step past the largest finite value).
pub fn ulps(a: f32, b: f32) -> u64 {
    let key = |v: f32| -> i64 {
        let bits = i64::from(v.to_bits() as i32);
        if bits < 0 {
            -(bits & 0x7FFF_FFFF)
        } else {
            bits
        }
    };
    key(a).abs_diff(key(b))
}

/// How two results of one component are compared.
#[derive(Clone, Copy, Debug)]
pub enum Tolerance {
    /// Equal bits (NaN matches NaN).
    Exact,
    /// Within this many ULPs (infinities and NaN must match exactly).
    Ulps(u64),
    /// Within this absolute difference, or this many ULPs, whichever is larger.
    AbsOrUlps(f32, u64),
    /// Anything: the device's result is undefined here (each use names the Vulkan rule).
    Any,
}

impl Tolerance {
    pub fn accepts(self, gpu: f32, cpu: f32) -> bool {
        if same(gpu, cpu) || flushed(gpu, cpu) || matches!(self, Tolerance::Any) {
            return true;
        }
        // The sign of a zero result is the implementation's: naga's SPIR-V does not declare
        // `SignedZeroInfNanPreserve`, and lavapipe folds `0.0 + x` to `x` (so a register that
        // starts at +0 and gets -0 added stays -0 there, +0 in the interpreter) and lets
        // min/max of +0 and -0 return either.
        if gpu == 0.0 && cpu == 0.0 {
            return true;
        }
        if gpu.is_nan() || cpu.is_nan() || gpu.is_infinite() || cpu.is_infinite() {
            return false;
        }
        match self {
            Tolerance::Exact | Tolerance::Any => false,
            Tolerance::Ulps(n) => ulps(gpu, cpu) <= n,
            Tolerance::AbsOrUlps(d, n) => (gpu - cpu).abs() <= d || ulps(gpu, cpu) <= n,
        }
    }
}

/// Texel (x, y) of the 2 × 2 test texture (row 0 first).
pub const TEXELS: [[f32; 4]; 4] = [
    [0.25, 0.5, 0.75, 1.0],
    [1.0, 0.0, 0.125, 0.5],
    [0.0, 0.375, 1.0, 0.25],
    [0.625, 0.875, 0.0625, 0.0],
];

/// The 2 × 2 test texture with nearest filtering, clamp to edge and one level.
pub fn nearest_2x2() -> TextureBinding {
    TextureBinding {
        dimension: TextureDimension::D2,
        width: 2,
        height: 2,
        depth_or_layers: 1,
        mip_levels: 1,
        levels: vec![TEXELS.to_vec()],
        sampler: SamplerDesc {
            wrap: [WrapMode::ClampToEdge; 3],
            mag: Filter::Nearest,
            min: Filter::Nearest,
        },
    }
}

/// What the device does with [`nearest_2x2`] bound on a unit (the same texture on every unit).
pub struct Nearest2x2;

impl Sampler for Nearest2x2 {
    fn sample(&self, _unit: u8, request: &SampleRequest) -> [f32; 4] {
        let pick = |c: f32| usize::from(c * 2.0 >= 1.0);
        TEXELS[pick(request.coord[1]) * 2 + pick(request.coord[0])]
    }
}
