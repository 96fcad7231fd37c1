//! The surface a frame render shows ([`OutputSurface`]) and its pixels as an 8-bit image.

use crate::render::msaa::{resolve, Antialias};
use crate::render::output::{OutputSource, Rgba8Image};
use crate::render::state::{color_targets, ColorFormat, FrameEvents};
use crate::render::transfer::{ContextSurface, DestinationFormat, Transfer};
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{BufferState, Location};

use super::{bytes_per_pixel, decode, unorm, SurfaceLayout, MAX_SURFACE_SIDE};

/// The surface a frame render shows.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSurface {
    /// What it is.
    pub source: OutputSource,
    /// Where it is.
    pub layout: SurfaceLayout,
    /// Its format.
    pub format: ColorFormat,
    /// Its sample grid, resolved in the image (a displayed buffer is shown as it lies in
    /// memory: one sample).
    pub antialias: Antialias,
}

/// The output surface read from `memory` as an image, resolved when it is multisampled
/// ([`crate::render::msaa::resolve`]).
pub fn output_image(output: &OutputSurface, memory: &dyn GuestMemory) -> Rgba8Image {
    resolve(
        to_rgba8(&output.layout, output.format, memory),
        output.antialias,
    )
}

/// Choose the output surface of a frame: the display buffer (local memory, rrc-format.md 1.4
/// `display_buffers_state`) written last, sized as the display buffer says, by a draw that
/// renders colour into it or by an `NV3089` scaled image into it (games resolve a
/// multisampled frame or scale a smaller one into the display buffer that way, after their
/// last draw; RPCS3 shows the buffer as it is at the flip); or else the first colour target of
/// the last draw that writes colour. `None` when nothing writes a usable colour target.
pub fn output_surface(frame: &Frame, events: &FrameEvents) -> Option<OutputSurface> {
    let drawn = drawn_output(frame, events);
    let shown_by_draw = match &drawn {
        Some((Some(command), _)) => Some(*command),
        _ => None,
    };
    if let Some((command, transferred)) = transferred_output(events) {
        if shown_by_draw.is_none_or(|c| command > c) {
            return Some(transferred);
        }
    }
    drawn.map(|(_, output)| output)
}

/// The display buffer a draw writes last with its draw's END command, else the first colour
/// target of the last draw that writes colour (no command).
fn drawn_output(frame: &Frame, events: &FrameEvents) -> Option<(Option<usize>, OutputSurface)> {
    let mut last: Option<OutputSurface> = None;
    for draw in frame.draws.iter().rev() {
        let s = &draw.surface;
        let Some(format) = ColorFormat::from_raw(s.format.color_format.raw) else {
            continue;
        };
        let Some(targets) = color_targets(s.color_target.raw) else {
            continue;
        };
        let bpp = bytes_per_pixel(format);
        for &t in &targets {
            let Ok(layout) = SurfaceLayout::of_target(s, t, bpp) else {
                continue;
            };
            if let Some(d) = shown_buffer(events, layout.location, layout.offset) {
                let mut l = layout;
                l.width = d.width.min(MAX_SURFACE_SIDE);
                l.height = d.height.min(MAX_SURFACE_SIDE);
                if l.swizzle.is_none() && d.pitch >= l.width * bpp {
                    l.pitch = d.pitch;
                }
                let output = OutputSurface {
                    source: OutputSource::Displayed {
                        address: layout.offset,
                    },
                    layout: l,
                    format,
                    antialias: Antialias::Center1,
                };
                return Some((Some(draw.end_command), output));
            }
            if last.is_none() {
                last = Some(OutputSurface {
                    source: OutputSource::LastColorTarget {
                        address: layout.offset,
                        format: format.name().to_string(),
                    },
                    layout,
                    format,
                    antialias: Antialias::of(s),
                });
            }
        }
        if last.is_some() && events.display_buffers.is_empty() {
            break;
        }
    }
    last.map(|output| (None, output))
}

/// Why [`output_surface`] found no output: the last draw whose colour target is unusable and
/// what is wrong with it, or that no draw writes colour. For the error that ends a render
/// ("nothing to render: ...").
pub fn no_output_reason(frame: &Frame) -> String {
    let mut depth_only = 0;
    for (index, draw) in frame.draws.iter().enumerate().rev() {
        let s = &draw.surface;
        let why = match color_targets(s.color_target.raw) {
            None => format!(
                "SURFACE_COLOR_TARGET 0x{:x} names no set of targets",
                s.color_target.raw
            ),
            Some(targets) if targets.is_empty() => {
                depth_only += 1;
                continue;
            }
            Some(targets) => match ColorFormat::from_raw(s.format.color_format.raw) {
                None => format!(
                    "colour format 0x{:x} is none of the RSX's",
                    s.format.color_format.raw
                ),
                Some(format) => {
                    let bpp = bytes_per_pixel(format);
                    match targets
                        .iter()
                        .find_map(|&t| SurfaceLayout::of_target(s, t, bpp).err())
                    {
                        Some(e) => e.to_string(),
                        None => continue,
                    }
                }
            },
        };
        return format!("no draw writes a usable colour target: draw {index}'s {why}");
    }
    if frame.draws.is_empty() {
        "the frame has no draw".to_string()
    } else if depth_only == frame.draws.len() {
        "no draw writes colour (a depth-only frame: `--target` shows a depth target)".to_string()
    } else {
        "no draw writes a usable colour target".to_string()
    }
}

/// The display buffer at `offset` of `location`, if it is one (local memory, non-empty).
fn shown_buffer(events: &FrameEvents, location: Location, offset: u32) -> Option<&BufferState> {
    events
        .display_buffers
        .iter()
        .find(|d| location == Location::Local && d.offset == offset && d.width > 0)
}

/// The display buffer the last `NV3089` scaled image into an `NV3062` surface at a display
/// buffer's offset writes, with that transfer's command.
fn transferred_output(events: &FrameEvents) -> Option<(usize, OutputSurface)> {
    events.transfers.iter().rev().find_map(|t| {
        let Ok(Transfer::Scaled(s)) = &t.transfer else {
            return None;
        };
        let ContextSurface::Surface2d {
            location, offset, ..
        } = s.destination
        else {
            return None;
        };
        let d = shown_buffer(events, location, offset)?;
        let format = match s.dst_format {
            DestinationFormat::R5G6B5 => ColorFormat::R5G6B5,
            DestinationFormat::A8R8G8B8 | DestinationFormat::Y32 => ColorFormat::A8R8G8B8,
        };
        let bpp = bytes_per_pixel(format);
        let width = d.width.min(MAX_SURFACE_SIDE);
        let layout = SurfaceLayout {
            location,
            offset,
            width,
            height: d.height.min(MAX_SURFACE_SIDE),
            pitch: d.pitch.max(width * bpp),
            bpp,
            swizzle: None,
        };
        let output = OutputSurface {
            source: OutputSource::Displayed { address: offset },
            layout,
            format,
            antialias: Antialias::Center1,
        };
        Some((t.command, output))
    })
}

/// Read a colour surface from `memory` into an 8-bit RGBA image (channels as [`decode`]
/// gives them, `round(clamp(v, 0, 1) × 255)`). Pixels the memory does not hold are black
/// with alpha 0.
pub fn to_rgba8(
    layout: &SurfaceLayout,
    format: ColorFormat,
    memory: &dyn GuestMemory,
) -> Rgba8Image {
    // Black with alpha 0 (zeroed memory, cheaper than a fill).
    let mut image = Rgba8Image {
        width: layout.width,
        height: layout.height,
        pixels: vec![0; layout.width as usize * layout.height as usize * 4],
    };
    let whole = u32::try_from(layout.byte_len())
        .ok()
        .and_then(|len| memory.read(layout.location, layout.offset, len));
    if let (Some(bytes), Some(order)) = (&whole, byte_order(format)) {
        if layout.swizzle.is_none() && layout.bpp == 4 {
            copy_rows(layout, bytes, order, &mut image);
            return image;
        }
    }
    let bpp = layout.bpp as usize;
    for y in 0..layout.height {
        for x in 0..layout.width {
            let Some(at) = layout.pixel_offset(x, y) else {
                continue;
            };
            let px = match &whole {
                Some(w) => w.get(at..at + bpp).and_then(|b| decode(format, b)),
                None => memory
                    .read(
                        layout.location,
                        layout.offset.wrapping_add(at as u32),
                        layout.bpp,
                    )
                    .and_then(|b| decode(format, &b)),
            };
            if let Some(c) = px {
                let i = (y as usize * layout.width as usize + x as usize) * 4;
                if let Some(d) = image.pixels.get_mut(i..i + 4) {
                    for (dst, v) in d.iter_mut().zip(c) {
                        *dst = unorm(v, 255) as u8;
                    }
                }
            }
        }
    }
    image
}

/// How [`to_rgba8`] copies the formats of four 8-bit channels: their 8-bit values come
/// through [`decode`] and `unorm` unchanged (X formats read alpha 1, 255).
#[derive(Clone, Copy)]
enum ByteOrder {
    /// A, R, G, B in memory.
    Argb,
    /// X, R, G, B.
    Xrgb,
    /// A, B, G, R.
    Abgr,
    /// X, B, G, R.
    Xbgr,
}

fn byte_order(format: ColorFormat) -> Option<ByteOrder> {
    Some(match format {
        ColorFormat::A8R8G8B8 => ByteOrder::Argb,
        ColorFormat::X8R8G8B8Z8R8G8B8 | ColorFormat::X8R8G8B8O8R8G8B8 => ByteOrder::Xrgb,
        ColorFormat::A8B8G8R8 => ByteOrder::Abgr,
        ColorFormat::X8B8G8R8Z8B8G8R8 | ColorFormat::X8B8G8R8O8B8G8R8 => ByteOrder::Xbgr,
        _ => return None,
    })
}

/// [`to_rgba8`] of a pitch surface of 4-byte pixels, row by row (rows past `bytes` stay
/// black with alpha 0, as in the general path).
fn copy_rows(layout: &SurfaceLayout, bytes: &[u8], order: ByteOrder, image: &mut Rgba8Image) {
    match order {
        ByteOrder::Argb => copy_rows_with(layout, bytes, image, |s| [s[1], s[2], s[3], s[0]]),
        ByteOrder::Xrgb => copy_rows_with(layout, bytes, image, |s| [s[1], s[2], s[3], 255]),
        ByteOrder::Abgr => copy_rows_with(layout, bytes, image, |s| [s[3], s[2], s[1], s[0]]),
        ByteOrder::Xbgr => copy_rows_with(layout, bytes, image, |s| [s[3], s[2], s[1], 255]),
    }
}

fn copy_rows_with(
    layout: &SurfaceLayout,
    bytes: &[u8],
    image: &mut Rgba8Image,
    convert: impl Fn(&[u8]) -> [u8; 4],
) {
    let row_bytes = layout.width as usize * 4;
    for y in 0..layout.height as usize {
        let start = y * layout.pitch as usize;
        let Some(src) = bytes.get(start..start + row_bytes) else {
            continue;
        };
        let Some(dst) = image.pixels.get_mut(y * row_bytes..(y + 1) * row_bytes) else {
            continue;
        };
        for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
            d.copy_from_slice(&convert(s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::fetch::FlatMemory;

    #[test]
    fn the_byte_copy_of_8_bit_formats_equals_the_decode() {
        // Every byte value in every channel position, on a 16x16 pitch surface with padding.
        let (width, height, pitch) = (16u32, 16u32, 80u32);
        let bytes: Vec<u8> = (0..pitch * height).map(|i| (i * 7 + 3) as u8).collect();
        let layout = SurfaceLayout {
            location: Location::Local,
            offset: 0,
            pitch,
            bpp: 4,
            width,
            height,
            swizzle: None,
        };
        for format in [
            ColorFormat::A8R8G8B8,
            ColorFormat::X8R8G8B8Z8R8G8B8,
            ColorFormat::X8R8G8B8O8R8G8B8,
            ColorFormat::A8B8G8R8,
            ColorFormat::X8B8G8R8Z8B8G8R8,
            ColorFormat::X8B8G8R8O8B8G8R8,
        ] {
            let fast = to_rgba8(&layout, format, &FlatMemory::local(bytes.clone()));
            for y in 0..height {
                for x in 0..width {
                    let at = layout.pixel_offset(x, y).unwrap();
                    let c = decode(format, &bytes[at..]).unwrap();
                    let expected = c.map(|v| unorm(v, 255) as u8);
                    assert_eq!(fast.pixel(x, y), Some(expected), "{format:?} at ({x}, {y})");
                }
            }
        }
    }
}
