//! Per-fragment operations of the CPU render, in the RSX (OpenGL) order: KIL, depth range
//! (clip or clamp, `SET_ZMIN_MAX_CONTROL`), alpha test on colour output 0, stencil test,
//! depth test, stencil update, then per target blending, colour mask and the write in the
//! target's format.
//!
//! Fixed-point targets receive colours clamped to [0, 1] before blending (GL 2.1 section
//! 4.1.8), 8-bit targets colours quantised by the RSX's 8-bit write rule ([`color8`]); float
//! targets are not clamped. The depth test compares fixed-point values (the
//! incoming depth converted to the buffer's format), as a fixed-point depth buffer does.
//! Targets are copied out of the surface memory for a draw and written back after it.

use crate::interp::fragment::LaneOutputs;
use crate::render::color8;
use crate::render::state::{ColorFormat, DepthFormat, DrawState, StencilFaceState};
use crate::render::surface::{
    bytes_per_pixel, decode, decode_depth, depth_bytes_per_pixel, depth_to_fixed, encode,
    encode_depth, SurfaceLayout, SurfaceMemory,
};
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::{ColorMask, Surface};

/// A colour target's bytes for the duration of a draw.
pub struct ColorTarget {
    /// Where it lives.
    pub layout: SurfaceLayout,
    /// Format.
    pub format: ColorFormat,
    /// The bytes of `layout`.
    pub bytes: Vec<u8>,
}

/// The depth/stencil target's bytes for the duration of a draw.
pub struct DepthTarget {
    /// Where it lives.
    pub layout: SurfaceLayout,
    /// Format.
    pub format: DepthFormat,
    /// The bytes of `layout`.
    pub bytes: Vec<u8>,
}

/// Copy a range out of the surface memory (creating it from `base`).
fn load(
    layout: &SurfaceLayout,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
) -> Option<Vec<u8>> {
    surfaces.surface_mut(layout, base).map(|b| b.to_vec())
}

/// Write a range back.
fn store(
    layout: &SurfaceLayout,
    bytes: &[u8],
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
) {
    if let Some(d) = surfaces.surface_mut(layout, base) {
        if d.len() == bytes.len() {
            d.copy_from_slice(bytes);
        }
    }
}

/// The targets a draw writes.
pub struct Targets {
    /// Colour targets by output index.
    pub colors: Vec<ColorTarget>,
    /// Depth/stencil.
    pub depth: Option<DepthTarget>,
}

impl Targets {
    /// Load the colour targets of `state` and the zeta surface when depth or stencil is
    /// tested. Errors are messages for the skipped-draw list.
    pub fn load(
        state: &DrawState,
        surface: &Surface,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
    ) -> Result<Targets, String> {
        let mut colors = Vec::new();
        if let Some(format) = state.color_format {
            for &t in &state.color_targets {
                let layout = SurfaceLayout::of_target(surface, t, bytes_per_pixel(format))
                    .map_err(|e| e.to_string())?;
                let bytes = load(&layout, surfaces, base)
                    .ok_or_else(|| format!("colour target {t} does not fit in memory"))?;
                colors.push(ColorTarget {
                    layout,
                    format,
                    bytes,
                });
            }
        }
        let depth = match state.depth_format {
            Some(format) if state.depth_test.is_some() || state.stencil.is_some() => {
                let layout = SurfaceLayout::of_target(surface, 4, depth_bytes_per_pixel(format))
                    .map_err(|e| e.to_string())?;
                let bytes = load(&layout, surfaces, base)
                    .ok_or_else(|| "depth target does not fit in memory".to_string())?;
                Some(DepthTarget {
                    layout,
                    format,
                    bytes,
                })
            }
            _ => None,
        };
        Ok(Targets { colors, depth })
    }

    /// Write every target back into the surface memory.
    pub fn store(&self, surfaces: &mut SurfaceMemory, base: &dyn GuestMemory) {
        for c in &self.colors {
            store(&c.layout, &c.bytes, surfaces, base);
        }
        if let Some(d) = &self.depth {
            store(&d.layout, &d.bytes, surfaces, base);
        }
    }

    /// Run the per-fragment operations for one covered, shaded lane at surface pixel
    /// (`sx`, `sy`) with interpolated window depth `z`.
    pub fn fragment(
        &mut self,
        state: &DrawState,
        sx: u32,
        sy: u32,
        z: f32,
        front: bool,
        out: &LaneOutputs,
    ) {
        if out.killed {
            return;
        }
        let mut z = out.depth.map_or(z, |d| d as f32);
        let (lo, hi) = state.depth_range;
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        if state.depth_clamp {
            z = z.clamp(lo, hi);
        } else if state.depth_clip && !(z >= lo && z <= hi) {
            return;
        }
        if let Some(at) = &state.alpha_test {
            let alpha = out.colors[0][3] as f32;
            if !at.func.test(alpha, at.reference) {
                return;
            }
        }
        if let Some(d) = &mut self.depth {
            if !depth_stencil(state, d, sx, sy, z, front) {
                return;
            }
        }
        for (n, target) in self.colors.iter_mut().enumerate() {
            let src = out
                .colors
                .get(n)
                .copied()
                .unwrap_or_default()
                .map(|v| v as f32);
            let blend = state
                .blend
                .as_ref()
                .filter(|b| b.enabled.get(n).copied().unwrap_or(false));
            let mask = state.color_masks.get(n).copied().unwrap_or(ColorMask {
                r: true,
                g: true,
                b: true,
                a: true,
            });
            write_color(target, sx, sy, src, blend, mask);
        }
    }
}

/// Stencil and depth tests with their updates; true when the fragment survives.
fn depth_stencil(
    state: &DrawState,
    d: &mut DepthTarget,
    sx: u32,
    sy: u32,
    z: f32,
    front: bool,
) -> bool {
    let Some(at) = d.layout.pixel_offset(sx, sy) else {
        return false;
    };
    let n = d.layout.bpp as usize;
    let Some(px) = d.bytes.get_mut(at..at + n) else {
        return false;
    };
    let Some((stored_z, stored_s)) = decode_depth(d.format, px) else {
        return false;
    };
    let incoming = depth_to_fixed(d.format, z);
    let face: Option<&StencilFaceState> =
        state
            .stencil
            .as_ref()
            .map(|s| if front { &s.front } else { &s.back });
    let mut stencil = stored_s;
    if let Some(f) = face {
        if !f.passes(stored_s) {
            stencil = f.update(stored_s, f.fail);
            encode_depth(d.format, stored_z, stencil, px);
            return false;
        }
    }
    let depth_pass = match &state.depth_test {
        Some(t) => t.func.test(incoming, stored_z),
        None => true,
    };
    if let Some(f) = face {
        stencil = f.update(stored_s, if depth_pass { f.zpass } else { f.zfail });
    }
    let new_z = if depth_pass && state.depth_test.is_some() && state.depth_write {
        incoming
    } else {
        stored_z
    };
    encode_depth(d.format, new_z, stencil, px);
    depth_pass
}

fn write_color(
    target: &mut ColorTarget,
    sx: u32,
    sy: u32,
    src: [f32; 4],
    blend: Option<&crate::render::state::BlendSettings>,
    mask: ColorMask,
) {
    let Some(at) = target.layout.pixel_offset(sx, sy) else {
        return;
    };
    let n = target.layout.bpp as usize;
    let Some(px) = target.bytes.get_mut(at..at + n) else {
        return;
    };
    let fixed = !target.format.is_float();
    let src = if color8::is_8bit(target.format) {
        // The 8-bit write rule before blending, as RPCS3's fragment epilogue applies it
        // (render::color8); it includes the clamp.
        src.map(color8::quantise)
    } else if fixed {
        src.map(|v| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) })
    } else {
        src
    };
    let dst = decode(target.format, px).unwrap_or_default();
    let mut color = match blend {
        Some(b) => b.blend(src, dst),
        None => src,
    };
    let keep = [!mask.r, !mask.g, !mask.b, !mask.a];
    for k in 0..4 {
        if keep[k] {
            color[k] = dst[k];
        }
    }
    // Masked channels are re-encoded from their decoded value: exact, since decoding then
    // encoding a stored channel gives it back in every format.
    px.copy_from_slice(encode(target.format, color).as_bytes());
}
