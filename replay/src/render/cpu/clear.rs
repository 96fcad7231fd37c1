//! `CLEAR_SURFACE` on the CPU: the colour targets and the zeta surface of the clear's surface
//! state, inside its scissor and surface clip, channel by channel as the mask says (RPCS3
//! clears the scissored area; colour channels follow the R/G/B/A bits of the mask, depth and
//! stencil the Z/S bits), each colour format with its own reading of the clear value
//! (`ClearEvent::color_for`).

use crate::render::state::{ClearEvent, ColorFormat, DepthFormat};
use crate::render::surface::{
    bytes_per_pixel, clear_depth_value, decode, decode_depth, depth_bytes_per_pixel, encode,
    encode_depth, SurfaceLayout, SurfaceMemory,
};
use rsxtrace_capture::fetch::GuestMemory;

/// Apply one clear. Returns a message for each target it could not clear.
pub fn apply_clear(
    clear: &ClearEvent,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
) -> Vec<String> {
    let mut problems = Vec::new();
    let rect = clear.area();
    if rect.is_empty() {
        return problems;
    }
    if clear.mask.any_color() {
        clear_colors(clear, rect, surfaces, base, &mut problems);
    }
    if clear.mask.depth || clear.mask.stencil {
        clear_zeta(clear, rect, surfaces, base, &mut problems);
    }
    problems
}

/// The colour targets, with the clear colour of their format (`ClearEvent::color_for`: a
/// float target is not cleared).
fn clear_colors(
    clear: &ClearEvent,
    rect: crate::raster::PixelRect,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
    problems: &mut Vec<String>,
) {
    let s = &clear.surface;
    let Some(format) = ColorFormat::from_raw(s.format.color_format.raw) else {
        problems.push(format!(
            "clear at command {}: colour format {} is not valid",
            clear.command, s.format.color_format.raw
        ));
        return;
    };
    let Some((value, mask)) = clear.color_for(format) else {
        return;
    };
    let all = mask.iter().all(|&c| c);
    let full = encode(format, value);
    for t in clear.color_targets() {
        match SurfaceLayout::of_target(s, t, bytes_per_pixel(format)) {
            Ok(layout) => {
                let Some(bytes) = surfaces.surface_mut(&layout, base) else {
                    continue;
                };
                for_each_pixel(&layout, rect, bytes, |px| {
                    if all {
                        px.copy_from_slice(full.as_bytes());
                        return;
                    }
                    let mut c = decode(format, px).unwrap_or_default();
                    for k in 0..4 {
                        if mask[k] {
                            c[k] = value[k];
                        }
                    }
                    px.copy_from_slice(encode(format, c).as_bytes());
                });
            }
            Err(e) => problems.push(format!("clear at command {}: {e}", clear.command)),
        }
    }
}

/// The zeta surface's depth and stencil, as the mask says.
fn clear_zeta(
    clear: &ClearEvent,
    rect: crate::raster::PixelRect,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
    problems: &mut Vec<String>,
) {
    let s = &clear.surface;
    let Some(format) = DepthFormat::of(s) else {
        return;
    };
    match SurfaceLayout::of_target(s, 4, depth_bytes_per_pixel(format)) {
        Ok(layout) => {
            if let Some(bytes) = surfaces.surface_mut(&layout, base) {
                let (z, st) = clear_depth_value(format, clear.zstencil_value);
                for_each_pixel(&layout, rect, bytes, |px| {
                    let (oz, os) = decode_depth(format, px).unwrap_or((0, 0));
                    let nz = if clear.mask.depth { z } else { oz };
                    let m = clear.stencil_write_mask;
                    let ns = if clear.mask.stencil {
                        (os & !m) | (st & m)
                    } else {
                        os
                    };
                    encode_depth(format, nz, ns, px);
                });
            }
        }
        Err(e) => problems.push(format!("clear at command {}: {e}", clear.command)),
    }
}

fn for_each_pixel(
    layout: &SurfaceLayout,
    rect: crate::raster::PixelRect,
    bytes: &mut [u8],
    mut f: impl FnMut(&mut [u8]),
) {
    let n = layout.bpp as usize;
    for y in rect.y0..rect.y1.min(layout.height) {
        for x in rect.x0..rect.x1.min(layout.width) {
            if let Some(at) = layout.pixel_offset(x, y) {
                if let Some(px) = bytes.get_mut(at..at + n) {
                    f(px);
                }
            }
        }
    }
}
