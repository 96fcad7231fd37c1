//! Per-fragment operations of the CPU render, in the RSX (OpenGL) order: KIL, depth range
//! (clip or clamp, `SET_ZMIN_MAX_CONTROL`), alpha test on colour output 0, stencil test,
//! depth test, stencil update, then per target blending, colour mask and the write in the
//! target's format.
//!
//! Fixed-point targets receive colours clamped to [0, 1] before blending (GL 2.1 section
//! 4.1.8), 8-bit targets colours quantised by the RSX's 8-bit write rule ([`color8`]); float
//! targets are not clamped. The depth test compares fixed-point values (the
//! incoming depth converted to the buffer's format), as a fixed-point depth buffer does.
//! Targets are written in place: the surface memory lends their regions for the draw.

use crate::interp::fragment::LaneOutputs;
use crate::render::color8;
use crate::render::state::{ColorFormat, DepthFormat, DrawState, StencilFaceState};
use crate::render::surface::{
    bytes_per_pixel, decode, decode_depth, depth_bytes_per_pixel, depth_to_fixed, encode,
    encode_depth, LentRegions, SurfaceLayout, SurfaceMemory,
};
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::{ColorMask, Surface};

/// Where a target's bytes lie during a draw: a region lent by the surface memory, and the
/// offset of the target's range in it.
#[derive(Clone, Copy, Debug)]
struct Place {
    region: usize,
    from: usize,
    len: usize,
}

/// A colour target for the duration of a draw.
pub struct ColorTarget {
    /// Where it lives.
    pub layout: SurfaceLayout,
    /// Format.
    pub format: ColorFormat,
    place: Place,
}

/// The depth/stencil target for the duration of a draw.
pub struct DepthTarget {
    /// Where it lives.
    pub layout: SurfaceLayout,
    /// Format.
    pub format: DepthFormat,
    place: Place,
}

/// The targets a draw writes, in place: the surface memory lends the regions holding them
/// ([`SurfaceMemory::lend`]) and gets them back, written, from [`Targets::store`]. No target
/// is copied per draw.
pub struct Targets {
    /// Colour targets by output index.
    pub colors: Vec<ColorTarget>,
    /// Depth/stencil.
    pub depth: Option<DepthTarget>,
    lent: LentRegions,
}

/// The bytes of `place` in the lent regions.
fn bytes<'a>(lent: &'a mut LentRegions, place: &Place) -> Option<&'a mut [u8]> {
    lent.bytes_mut(place.region)?
        .get_mut(place.from..place.from.checked_add(place.len)?)
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
        let mut layouts = Vec::new();
        if let Some(format) = state.color_format {
            for &t in &state.color_targets {
                let layout = SurfaceLayout::of_target(surface, t, bytes_per_pixel(format))
                    .map_err(|e| e.to_string())?;
                layouts.push((layout, format, t));
            }
        }
        let depth_layout = match state.depth_format {
            Some(format) if state.depth_test.is_some() || state.stencil.is_some() => Some((
                SurfaceLayout::of_target(surface, 4, depth_bytes_per_pixel(format))
                    .map_err(|e| e.to_string())?,
                format,
            )),
            _ => None,
        };
        let named = layouts
            .iter()
            .map(|(l, _, t)| (l, format!("colour target {t}")))
            .chain(
                depth_layout
                    .iter()
                    .map(|(l, _)| (l, "depth target".to_string())),
            );
        let mut ranges = Vec::new();
        for (layout, name) in named {
            // `lend` refuses a range past the address space; name the target it is.
            let len = u32::try_from(layout.byte_len())
                .ok()
                .filter(|&len| u64::from(layout.offset) + u64::from(len) <= 1 << 32)
                .ok_or_else(|| format!("{name} does not fit in memory"))?;
            ranges.push((layout.location, layout.offset, len));
        }
        let (lent, places) = surfaces
            .lend(&ranges, base)
            .ok_or_else(|| "the targets do not fit in memory".to_string())?;
        let place = |k: usize| Place {
            region: places[k].0,
            from: places[k].1,
            len: ranges[k].2 as usize,
        };
        let colors: Vec<ColorTarget> = layouts
            .into_iter()
            .enumerate()
            .map(|(k, (layout, format, _))| ColorTarget {
                layout,
                format,
                place: place(k),
            })
            .collect();
        let depth = depth_layout.map(|(layout, format)| DepthTarget {
            layout,
            format,
            place: place(colors.len()),
        });
        Ok(Targets {
            colors,
            depth,
            lent,
        })
    }

    /// Give the written targets back to the surface memory.
    pub fn store(self, surfaces: &mut SurfaceMemory) {
        surfaces.give_back(self.lent);
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
        if let Some(d) = &self.depth {
            let Some(px) = bytes(&mut self.lent, &d.place) else {
                return;
            };
            if !depth_stencil(state, d, px, sx, sy, z, front) {
                return;
            }
        }
        for (n, target) in self.colors.iter().enumerate() {
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
            if let Some(px) = bytes(&mut self.lent, &target.place) {
                write_color(target, px, sx, sy, src, blend, mask);
            }
        }
    }
}

/// Stencil and depth tests with their updates; true when the fragment survives.
fn depth_stencil(
    state: &DrawState,
    d: &DepthTarget,
    target_bytes: &mut [u8],
    sx: u32,
    sy: u32,
    z: f32,
    front: bool,
) -> bool {
    let Some(at) = d.layout.pixel_offset(sx, sy) else {
        return false;
    };
    let n = d.layout.bpp as usize;
    let Some(px) = target_bytes.get_mut(at..at + n) else {
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
    target: &ColorTarget,
    target_bytes: &mut [u8],
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
    let Some(px) = target_bytes.get_mut(at..at + n) else {
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
