//! `rsxtrace shade`: run a fragment program over every pixel of a WxH image on the reference
//! interpreter and write COL0 as an 8-bit RGBA PNG.
//!
//! Inputs for the pixel in column x, row y (row 0 at the top): TEX0 = ((x+0.5)/W,
//! 1-(y+0.5)/H, 0, 1), COL0 = COL1 = (1, 1, 1, 1), WPOS = (x+0.5, H-(y+0.5), 0.5, 1); each
//! channel is written as round(clamp(v, 0, 1) x 255).

use crate::exit::Status;
use anyhow::{bail, Context};
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::shade::{load_program_file, shade};
use rsxtrace_replay::texture::NoTextures;
use std::path::Path;
use std::time::Instant;

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

pub fn run(
    program: &Path,
    size: (u32, u32),
    out: &Path,
    uniforms: &[String],
    f64: bool,
) -> anyhow::Result<Status> {
    let uniforms: Vec<&str> = uniforms.iter().map(String::as_str).collect();
    let loaded = load_program_file(program, &uniforms)
        .with_context(|| format!("cannot load {}", program.display()))?;
    let arithmetic = if f64 {
        Arithmetic::F64
    } else {
        Arithmetic::F32
    };
    let start = Instant::now();
    let image = shade(
        &loaded.program,
        loaded.control,
        size.0,
        size.1,
        &NoTextures,
        arithmetic,
    )
    .with_context(|| format!("cannot shade {}", program.display()))?;
    let elapsed = start.elapsed();
    if image.rgba8.len() != size.0 as usize * size.1 as usize * 4 {
        bail!("internal error: image size mismatch");
    }
    image
        .write_png(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "wrote {} ({}x{}, {} instructions, shader control 0x{:08x}, {:.0} ms)",
        out.display(),
        size.0,
        size.1,
        loaded.program.instructions.len(),
        loaded.control,
        elapsed.as_secs_f64() * 1000.0
    );
    Ok(Status::Success)
}
