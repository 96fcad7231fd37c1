//! `rsxtrace shade`: run a fragment program over every pixel of a WxH image on the reference
//! interpreter and write COL0 as an 8-bit RGBA PNG.
//!
//! Inputs for the pixel in column x, row y (row 0 at the top): TEX0 = ((x+0.5)/W,
//! 1-(y+0.5)/H, 0, 1), COL0 = COL1 = (1, 1, 1, 1), WPOS = (x+0.5, H-(y+0.5), 0.5, 1); each
//! channel is written by the RSX's 8-bit surface write rule (`rsxtrace_replay::render::color8`).
//! fp32 → fp16 conversions truncate as the hardware does; `--rpcs3` rounds to nearest even.

use crate::cli::{GpuBackend, TrigArg};
use crate::exit::Status;
use anyhow::{bail, Context};
use rsxtrace_ci::checksum;
use rsxtrace_gpu::{shade_gpu, Backend, Gpu, GpuOptions};
use rsxtrace_replay::interp::fragment::{FragmentState, HalfRounding, TrigReduction};
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::shade::{load_program_file, shade_with, to_unorm8, Image};
use rsxtrace_replay::texture::NoTextures;
use rsxtrace_replay::wgsl::fragment::{translate, FragmentTranslateOptions};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Which implementation computes the image.
pub enum Engine {
    /// The reference interpreter.
    Interpreter(Arithmetic),
    /// The WGSL recompilation on a GPU device.
    Gpu(Backend),
}

impl Engine {
    pub fn from_flags(f64: bool, gpu: bool, backend: GpuBackend) -> Engine {
        if gpu {
            Engine::Gpu(backend.backend())
        } else if f64 {
            Engine::Interpreter(Arithmetic::F64)
        } else {
            Engine::Interpreter(Arithmetic::F32)
        }
    }
}

/// Parse `WxH`.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s}: expected WIDTHxHEIGHT, e.g. 720x480"))?;
    let w: u32 = w.parse().map_err(|e| format!("{s}: width: {e}"))?;
    let h: u32 = h.parse().map_err(|e| format!("{s}: height: {e}"))?;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("{s}: each side must be 1..=16384"));
    }
    Ok((w, h))
}

/// The arithmetic rules `shade` runs under: the fp32 → fp16 conversion (the hardware's
/// truncation, RPCS3's nearest with `--rpcs3`) and the SIN/COS reduction (`--trig`).
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    pub half: HalfRounding,
    pub trig: TrigReduction,
}

impl Rules {
    pub fn from_flags(rpcs3: bool, trig: TrigArg) -> Rules {
        Rules {
            half: if rpcs3 {
                HalfRounding::Nearest
            } else {
                HalfRounding::Truncate
            },
            trig: match trig {
                TrigArg::Exact => TrigReduction::Exact,
                TrigArg::Turns => TrigReduction::Turns,
            },
        }
    }
}

pub fn run(
    program: &Path,
    size: (u32, u32),
    out: &Path,
    uniforms: &[String],
    engine: Engine,
    rules: Rules,
    json: bool,
) -> anyhow::Result<Status> {
    let Rules { half, trig } = rules;
    let uniforms: Vec<&str> = uniforms.iter().map(String::as_str).collect();
    let loaded = load_program_file(program, &uniforms)
        .with_context(|| format!("cannot load {}", program.display()))?;
    let start = Instant::now();
    // The JSON's engine fields: which engine, its arithmetic, the device.
    let (engine_key, arithmetic_key, mut device) = match engine {
        Engine::Interpreter(Arithmetic::F64) => ("interpreter", Some("f64"), None),
        Engine::Interpreter(_) => ("interpreter", Some("f32"), None),
        Engine::Gpu(_) => ("gpu", None, None),
    };
    let (image, engine_name) = match engine {
        Engine::Interpreter(arithmetic) => {
            let mut state = FragmentState::new(loaded.control);
            state.options.arithmetic = arithmetic;
            state.options.half_rounding = half;
            state.options.trig = trig;
            (
                shade_with(&loaded.program, &state, size.0, size.1, &NoTextures)
                    .with_context(|| format!("cannot shade {}", program.display()))?,
                format!("interpreter, {arithmetic:?}, fp16 {half:?}, trig {trig:?}"),
            )
        }
        Engine::Gpu(backend) => {
            let options = FragmentTranslateOptions {
                half_rounding: half,
                trig,
                ..FragmentTranslateOptions::with_control(loaded.control)
            };
            let module = translate(&loaded.program, &options)
                .with_context(|| format!("cannot recompile {}", program.display()))?;
            crate::output::private_runtime_dir();
            let gpu = Gpu::new(GpuOptions {
                backend,
                ..Default::default()
            })?;
            let shaded = shade_gpu(&gpu, &module, size.0, size.1)
                .with_context(|| format!("cannot shade {} on the GPU", program.display()))?;
            device = Some(gpu.info().to_string());
            let rgba8 = shaded
                .pixels
                .iter()
                .flat_map(|p| p.map(|c| to_unorm8(f64::from(c))))
                .collect();
            (
                Image {
                    width: size.0,
                    height: size.1,
                    rgba8,
                    float: shaded.pixels,
                },
                format!("GPU: {}, fp16 {half:?}, trig {trig:?}", gpu.info()),
            )
        }
    };
    let elapsed = start.elapsed();
    if image.rgba8.len() != size.0 as usize * size.1 as usize * 4 {
        bail!("internal error: image size mismatch");
    }
    image
        .write_png(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    if json {
        let not_finite = image
            .float
            .iter()
            .filter(|p| p.iter().any(|c| !c.is_finite()))
            .count();
        crate::output::print_json(&json!({
            "program": program.display().to_string(),
            "out": out.display().to_string(),
            "width": size.0,
            "height": size.1,
            "instructions": loaded.program.instructions.len(),
            "shader_control": loaded.control,
            "engine": engine_key,
            "arithmetic": arithmetic_key,
            "half_rounding": half,
            "trig": trig,
            "device": device,
            "checksum": checksum::hex(checksum::pixels_checksum(&image.rgba8)),
            "not_finite_pixels": not_finite,
            "milliseconds": elapsed.as_secs_f64() * 1000.0,
        }))?;
        return Ok(Status::Success);
    }
    eprintln!(
        "wrote {} ({}x{}, {} instructions, shader control 0x{:08x}, {engine_name}, {:.0} ms)",
        out.display(),
        size.0,
        size.1,
        loaded.program.instructions.len(),
        loaded.control,
        elapsed.as_secs_f64() * 1000.0
    );
    Ok(Status::Success)
}
