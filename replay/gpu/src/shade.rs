//! `shade` on the GPU: the fixed inputs of `rsxtrace_replay::shade` (full-screen quad of the
//! ps3autotests `rsx_fp_*` tests) fed to `fp_eval`, colour output 0 returned as floats.

use rsxtrace_wgsl::WgslModule;

use crate::device::Gpu;
use crate::error::GpuError;
use crate::fragment::FP_INPUTS;

/// Input attribute numbers (ABI.md `FpInputs`).
const WPOS: usize = 0;
const COL0: usize = 1;
const COL1: usize = 2;
const TEX0: usize = 4;

/// A shaded image: colour output 0 per pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major colour output 0, row 0 at the top (killed pixels keep their colour, as in
    /// the interpreter's `shade`).
    pub pixels: Vec<[f32; 4]>,
}

/// The inputs of pixel (`x`, `y`) of a `width` × `height` image (`replay/src/shade.rs`):
/// TEX0 = ((x + 0.5) / W, 1 − (y + 0.5) / H, 0, 1) as the RSX interpolates it
/// (`rsxtrace_semantics::texcoord`), COL0 = COL1 = (1, 1, 1, 1),
/// WPOS = (x + 0.5, H − (y + 0.5), 0.5, 1), every other input 0.
pub fn shade_inputs(x: u32, y: u32, width: u32, height: u32) -> [[f32; 4]; FP_INPUTS] {
    let h = f64::from(height);
    let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
    let mut inputs = [[0f32; 4]; FP_INPUTS];
    let [u, v] = rsxtrace_semantics::texcoord::full_screen_texcoord(x, y, width, height);
    inputs[TEX0] = [u, v, 0.0, 1.0];
    inputs[COL0] = [1.0; 4];
    inputs[COL1] = [1.0; 4];
    inputs[WPOS] = [px as f32, (h - py) as f32, 0.5, 1.0];
    inputs
}

/// Shades a `width` × `height` image with `module`'s `fp_eval` and the [`shade_inputs`],
/// no textures bound. Pixels past the image in the edge quads of odd sizes follow the same
/// formulas, as in the interpreter.
pub fn shade_gpu(
    gpu: &Gpu,
    module: &WgslModule,
    width: u32,
    height: u32,
) -> Result<GpuImage, GpuError> {
    let pixels = usize::try_from(u64::from(width) * u64::from(height)).map_err(|_| {
        GpuError::argument("width, height", format!("{width}x{height} is too large"))
    })?;
    // Checks sizes and limits before anything is allocated.
    let extent = gpu.fragment_extent(width, height, pixels)?;
    let mut inputs = Vec::with_capacity(pixels);
    for y in 0..extent.grid_h {
        for x in 0..extent.grid_w {
            inputs.push(shade_inputs(x, y, width, height));
        }
    }
    let textures = Default::default();
    let results = gpu.eval_grid(module, &extent, &inputs, &textures)?;
    Ok(GpuImage {
        width,
        height,
        pixels: results.iter().map(|r| r.colors[0]).collect(),
    })
}
