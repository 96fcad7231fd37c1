//! Pixel history: every clear, image transfer and fragment that reached one pixel of a
//! frame's output target, in stream order, with each fragment's program output, the
//! per-fragment test that stopped it or the value it left (RenderDoc's pixel history), from
//! the CPU reference render ([`pixel_history`]).
//!
//! The watched pixel is the output image's pixel (`x`, `y`), or the pixel of a colour target
//! the caller names ([`Watched::Target`]): its bytes in guest memory (each sample's, on a
//! multisampled output), whatever surface later writes them. A fragment is
//! recorded when one of its draw's colour targets puts it on those bytes, whether or not it
//! survives; a clear when it clears them; a transfer when it changes them. Early depth
//! rejection spares the quads on the watched pixel, so a fragment there that fails the depth
//! test is shaded and recorded as failing it.

use crate::render::conditional::ConditionalDraw;
use crate::render::cpu::render_frame_watched;
use crate::render::state::{ClearEvent, ColorFormat, DepthFormat, FrameEvents};
use crate::render::surface::{
    bytes_per_pixel, decode, decode_depth, depth_bytes_per_pixel, fixed_to_depth, output_surface,
    SurfaceLayout,
};
use crate::render::target::TargetFormat;
use crate::render::{
    DrawObserver, NoObserver, OutputSource, RenderError, RenderOptions, RenderWarning,
};
use crate::texture::layout::z_coords;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What happened to a fragment at the watched pixel: the first per-fragment operation that
/// dropped it, in the order the render applies them (`render::cpu::rop`), or `written`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FragmentOutcome {
    /// It reached the colour write (blending, masks and the logic operation applied).
    Written,
    /// The fragment program killed it (`KIL`, texture alpha kill).
    Killed,
    /// The sample mask (`SET_ANTI_ALIASING_CONTROL`) leaves its sample out.
    SampleMask,
    /// Its depth lies outside the depth range and depth clipping is on.
    DepthClip,
    /// The alpha test failed.
    AlphaTest,
    /// Alpha to coverage (`SET_ANTI_ALIASING_CONTROL`) leaves its sample out.
    AlphaToCoverage,
    /// The stored depth lies outside the depth bounds.
    DepthBounds,
    /// The stencil test failed (the stencil fail operation applied).
    StencilTest,
    /// The depth test failed (the depth fail operation applied).
    DepthTest,
}

impl FragmentOutcome {
    /// A short phrase for tables.
    pub fn describe(self) -> &'static str {
        match self {
            FragmentOutcome::Written => "written",
            FragmentOutcome::Killed => "killed by the program",
            FragmentOutcome::SampleMask => "sample mask",
            FragmentOutcome::DepthClip => "depth clip",
            FragmentOutcome::AlphaTest => "alpha test failed",
            FragmentOutcome::AlphaToCoverage => "alpha to coverage",
            FragmentOutcome::DepthBounds => "depth bounds failed",
            FragmentOutcome::StencilTest => "stencil test failed",
            FragmentOutcome::DepthTest => "depth test failed",
        }
    }
}

/// One fragment at the watched pixel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FragmentRecord {
    /// The draw.
    pub draw: usize,
    /// Its raster primitive (the draw's primitives after assembly and clipping, in order).
    pub primitive: u32,
    /// Whether the primitive is front facing.
    pub front: bool,
    /// The watched sample it lands on (0 on a one-sample output).
    pub sample: usize,
    /// The colour output (0..3) whose target holds the watched bytes; `None` when the watched
    /// surface is the draw's depth target.
    pub output: Option<usize>,
    /// Surface pixel of that target.
    pub surface_pixel: (u32, u32),
    /// Window pixel (the surface pixel less the window offset): what `rsxtrace debug --draw
    /// N --pixel X,Y` takes.
    pub window_pixel: (u32, u32),
    /// The program's colour for that output (R, G, B, A), before the write rules (colour
    /// output 0 on a depth target).
    pub shader: [f32; 4],
    /// The fragment's depth after the depth range and an exported depth; `None` when clipped.
    pub depth: Option<f32>,
    /// What happened to it.
    pub outcome: FragmentOutcome,
    /// The colour target's value before it (decoded in the target's format); `None` when
    /// the capture lacks the bytes, or on a depth target.
    pub before: Option<[f32; 4]>,
    /// The target's value after it.
    pub after: Option<[f32; 4]>,
    /// The depth buffer's depth before and after it (when the draw reads the depth buffer).
    pub depth_before: Option<f32>,
    /// See `depth_before`.
    pub depth_after: Option<f32>,
    /// The stencil value before and after it (formats with stencil).
    pub stencil_before: Option<u8>,
    /// See `stencil_before`.
    pub stencil_after: Option<u8>,
}

/// One event of a pixel's history.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PixelEvent {
    /// A `CLEAR_SURFACE` whose colour targets and area cover the pixel.
    Clear {
        /// Its command index.
        command: usize,
        /// The draw it comes before.
        before_draw: usize,
        /// The pixel before and after (decoded in the watched surface's format).
        before: Option<[f32; 4]>,
        /// See `before`.
        after: Option<[f32; 4]>,
    },
    /// An image transfer (`NV0039`, `NV3089`) that changed the pixel's bytes.
    Transfer {
        /// Its command index.
        command: usize,
        /// The draw it comes before.
        before_draw: usize,
        /// The pixel before and after (decoded in the watched surface's format).
        before: Option<[f32; 4]>,
        /// See `before`.
        after: Option<[f32; 4]>,
    },
    /// A fragment.
    Fragment(FragmentRecord),
}

/// Which surface's pixel to watch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Watched {
    /// The frame's output image (as `replay` chooses and writes it): `(x, y)` is an image
    /// pixel, all its samples watched on a multisampled output.
    Output,
    /// The colour target at this address (as the last draw that renders into it lays it
    /// out), else the depth target there: `(x, y)` is a pixel of that surface as stored (a
    /// multisampled surface's samples are pixels of their own).
    Target(Location, u32),
}

/// The surface a history watches.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WatchedSurface {
    /// `local` or `main`.
    pub location: &'static str,
    /// Address of its pixel (0, 0).
    pub address: u32,
    /// Its format's name (a colour format, or a depth format for a depth target).
    pub format: String,
    /// Whether it is a depth (zeta) target: its values are then (depth, stencil, 0, 0).
    pub depth: bool,
    /// Its size in pixels as stored.
    pub width: u32,
    /// See `width`.
    pub height: u32,
    /// When it is the frame's output: which surface that is (`null` for a named target).
    pub output: Option<OutputSource>,
}

/// The history of one pixel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PixelHistory {
    /// The pixel (of the output image, or of the named target).
    pub pixel: (u32, u32),
    /// The surface.
    pub surface: WatchedSurface,
    /// The address of each watched sample's first byte.
    pub addresses: Vec<u32>,
    /// What reached it, in stream order (a draw's fragments in primitive order).
    pub events: Vec<PixelEvent>,
    /// Its final value in the output image (8-bit RGBA, resolved); `None` for a named target.
    pub last: Option<[u8; 4]>,
    /// The first watched sample's value after the rendered draws and the events after them,
    /// decoded in the surface's format; `None` when the capture lacks its bytes.
    pub value: Option<[f32; 4]>,
    /// Draws the render skipped, with the reason.
    pub skipped: Vec<(usize, String)>,
    /// Draws conditional rendering left out (their report counted no sample): they reach no
    /// pixel, this one included ([`crate::render::conditional`]).
    pub not_drawn: Vec<ConditionalDraw>,
    /// The render's warnings.
    pub warnings: Vec<RenderWarning>,
}

/// The format of the watched surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WatchFormat {
    /// A colour surface.
    Color(ColorFormat),
    /// A depth (zeta) surface.
    Depth(DepthFormat),
}

impl WatchFormat {
    fn bytes_per_pixel(self) -> u32 {
        match self {
            WatchFormat::Color(f) => bytes_per_pixel(f),
            WatchFormat::Depth(f) => depth_bytes_per_pixel(f),
        }
    }

    fn name(self) -> String {
        match self {
            WatchFormat::Color(f) => f.name().to_string(),
            WatchFormat::Depth(f) => f.name().to_string(),
        }
    }

    /// A pixel's value: RGBA, or (depth, stencil, 0, 0).
    fn decode(self, bytes: &[u8]) -> Option<[f32; 4]> {
        match self {
            WatchFormat::Color(f) => decode(f, bytes),
            WatchFormat::Depth(f) => {
                let (z, stencil) = decode_depth(f, bytes)?;
                Some([fixed_to_depth(f, z), f32::from(stencil), 0.0, 0.0])
            }
        }
    }
}

/// The bytes the history watches, and what it records while the frame renders.
pub struct PixelWatch {
    location: Location,
    samples: Vec<u32>,
    format: WatchFormat,
    draw: AtomicUsize,
    log: Mutex<Vec<PixelEvent>>,
    last: Mutex<Option<[f32; 4]>>,
}

impl PixelWatch {
    /// Whether the watched surface is a depth target.
    pub(crate) fn is_depth(&self) -> bool {
        matches!(self.format, WatchFormat::Depth(_))
    }

    /// Which watched sample the pixel (`sx`, `sy`) of `layout` is, if any.
    pub(crate) fn sample_at(&self, layout: &SurfaceLayout, sx: u32, sy: u32) -> Option<usize> {
        if layout.location != self.location {
            return None;
        }
        let at = u64::from(layout.offset) + layout.pixel_offset(sx, sy)? as u64;
        self.samples.iter().position(|&s| u64::from(s) == at)
    }

    /// The draw being rendered.
    pub(crate) fn set_draw(&self, draw: usize) {
        self.draw.store(draw, Ordering::Relaxed);
    }

    /// The draw being rendered.
    pub(crate) fn draw(&self) -> usize {
        self.draw.load(Ordering::Relaxed)
    }

    /// Records an event.
    pub(crate) fn record(&self, event: PixelEvent) {
        if let Ok(mut log) = self.log.lock() {
            log.push(event);
        }
    }

    /// Keeps the value the frame leaves (`memory` at its end).
    pub(crate) fn finish(&self, memory: &dyn GuestMemory) {
        if let Ok(mut last) = self.last.lock() {
            *last = self.value(memory);
        }
    }

    /// The first watched sample's value in `memory`, in the watched surface's format.
    pub(crate) fn value(&self, memory: &dyn GuestMemory) -> Option<[f32; 4]> {
        let first = *self.samples.first()?;
        let bytes = memory.read(self.location, first, self.format.bytes_per_pixel())?;
        self.format.decode(&bytes)
    }

    /// The watched bytes in `memory` (`None` where the capture lacks them), to tell whether an
    /// event changed them.
    pub(crate) fn bytes(&self, memory: &dyn GuestMemory) -> Vec<Option<Vec<u8>>> {
        let n = self.format.bytes_per_pixel();
        self.samples
            .iter()
            .map(|&a| memory.read(self.location, a, n).map(|b| b.into_owned()))
            .collect()
    }

    /// Whether `clear` clears a watched sample (its colour, or its depth or stencil).
    pub(crate) fn cleared_by(&self, clear: &ClearEvent) -> bool {
        let s = &clear.surface;
        let rect = clear.area();
        let covers = |layout: &SurfaceLayout| {
            self.samples.iter().any(|&a| {
                pixel_of(layout, self.location, a).is_some_and(|(x, y)| {
                    x >= rect.x0 && x < rect.x1 && y >= rect.y0 && y < rect.y1
                })
            })
        };
        if self.is_depth() {
            let Some(format) = DepthFormat::of(s) else {
                return false;
            };
            return (clear.mask.depth || clear.mask.stencil)
                && SurfaceLayout::of_target(s, 4, depth_bytes_per_pixel(format))
                    .is_ok_and(|l| covers(&l));
        }
        let Some(format) = ColorFormat::from_raw(s.format.color_format.raw) else {
            return false;
        };
        if !clear.mask.any_color() || clear.color_for(format).is_none() {
            return false;
        }
        clear.color_targets().into_iter().any(|t| {
            SurfaceLayout::of_target(s, t, bytes_per_pixel(format)).is_ok_and(|l| covers(&l))
        })
    }
}

/// The pixel of `layout` whose first byte is at `address` in `location`, if one is.
fn pixel_of(layout: &SurfaceLayout, location: Location, address: u32) -> Option<(u32, u32)> {
    if layout.location != location || address < layout.offset {
        return None;
    }
    let rel = u64::from(address - layout.offset);
    let bpp = u64::from(layout.bpp.max(1));
    let found = match layout.swizzle {
        Some((lw, lh)) => {
            let (x, y) = z_coords(rel / bpp, lw, lh);
            u32::try_from(x).ok().zip(u32::try_from(y).ok())
        }
        None => {
            let pitch = u64::from(layout.pitch.max(1));
            let (y, inside) = (rel / pitch, rel % pitch);
            (inside % bpp == 0)
                .then(|| (u32::try_from(inside / bpp).ok(), u32::try_from(y).ok()))
                .and_then(|(x, y)| Some((x?, y?)))
        }
    };
    found.filter(|&(x, y)| layout.pixel_offset(x, y).map(|o| o as u64) == Some(rel))
}

/// The history of pixel (`x`, `y`) of `watched` (see the module documentation): the CPU
/// reference render of `frame` (the draws `options` names) with the pixel watched.
pub fn pixel_history(
    frame: &Frame,
    events: &FrameEvents,
    options: &RenderOptions,
    watched: Watched,
    x: u32,
    y: u32,
) -> Result<PixelHistory, RenderError> {
    pixel_history_observed(frame, events, options, watched, (x, y), &mut NoObserver)
}

/// [`pixel_history`] of pixel `(x, y)`, showing `observer` the render draw by draw
/// ([`DrawObserver`]; e.g. progress).
pub fn pixel_history_observed(
    frame: &Frame,
    events: &FrameEvents,
    options: &RenderOptions,
    watched: Watched,
    (x, y): (u32, u32),
    observer: &mut dyn DrawObserver,
) -> Result<PixelHistory, RenderError> {
    let (layout, format, grid, output) = match watched {
        Watched::Output => {
            let output = output_surface(frame, events).ok_or_else(|| {
                RenderError::NothingToRender(crate::render::surface::no_output_reason(frame))
            })?;
            let grid = output.antialias.grid();
            let format = WatchFormat::Color(output.format);
            (output.layout, format, grid, Some(output.source))
        }
        Watched::Target(location, address) => {
            let (layout, format) = target_at(frame, location, address).ok_or_else(|| {
                RenderError::NothingToRender(format!(
                    "no draw renders into a colour or depth target at {} 0x{address:08x}",
                    location.name()
                ))
            })?;
            (layout, format, (1, 1), None)
        }
    };
    let (gx, gy) = grid;
    let (width, height) = (layout.width / gx, layout.height / gy);
    if x >= width || y >= height {
        return Err(RenderError::Unsupported(format!(
            "pixel ({x}, {y}) is outside the {width}x{height} {}",
            if output.is_some() {
                "output image"
            } else {
                "target"
            }
        )));
    }
    let samples: Vec<u32> = (0..gy)
        .flat_map(|j| (0..gx).map(move |i| (x * gx + i, y * gy + j)))
        .filter_map(|(sx, sy)| {
            let at = layout.pixel_offset(sx, sy)?;
            u32::try_from(u64::from(layout.offset) + at as u64).ok()
        })
        .collect();
    let watch = PixelWatch {
        location: layout.location,
        samples,
        format,
        draw: AtomicUsize::new(0),
        log: Mutex::new(Vec::new()),
        last: Mutex::new(None),
    };
    let rendered = render_frame_watched(frame, events, options, observer, Some(&watch))?;
    let last = output
        .is_some()
        .then(|| rendered.image.pixel(x, y))
        .flatten();
    Ok(PixelHistory {
        pixel: (x, y),
        surface: WatchedSurface {
            location: layout.location.name(),
            address: layout.offset,
            format: format.name(),
            depth: matches!(format, WatchFormat::Depth(_)),
            width: layout.width,
            height: layout.height,
            output,
        },
        addresses: watch.samples.clone(),
        events: watch.log.into_inner().unwrap_or_default(),
        last,
        value: watch.last.into_inner().unwrap_or_default(),
        skipped: rendered.skipped,
        not_drawn: rendered
            .conditional
            .into_iter()
            .filter(|c| !c.drawn)
            .collect(),
        warnings: rendered.warnings,
    })
}

/// [`crate::render::target::target_at`] in the history's terms.
fn target_at(
    frame: &Frame,
    location: Location,
    address: u32,
) -> Option<(SurfaceLayout, WatchFormat)> {
    let found = crate::render::target::target_at(frame, location, address)?;
    let layout = found.layout;
    let format = match found.format {
        TargetFormat::Color(f) => WatchFormat::Color(f),
        // `target_at` names a colour target or a depth surface; a stencil watch is the
        // depth surface's (its values are depth and stencil).
        TargetFormat::Depth(f) | TargetFormat::Stencil(f) => WatchFormat::Depth(f),
    };
    Some((layout, format))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(swizzle: Option<(u32, u32)>) -> SurfaceLayout {
        SurfaceLayout {
            location: Location::Local,
            offset: 0x1000,
            pitch: 64,
            bpp: 4,
            width: 8,
            height: 8,
            swizzle,
        }
    }

    #[test]
    fn an_address_maps_back_to_its_pixel() {
        for swizzle in [None, Some((3, 3))] {
            let l = layout(swizzle);
            for (x, y) in [(0, 0), (5, 2), (7, 7), (3, 6)] {
                let at = l.offset + l.pixel_offset(x, y).unwrap() as u32;
                assert_eq!(
                    pixel_of(&l, Location::Local, at),
                    Some((x, y)),
                    "{swizzle:?}"
                );
                assert_eq!(pixel_of(&l, Location::Main, at), None);
                assert_eq!(
                    pixel_of(&l, Location::Local, at + 1),
                    None,
                    "inside a pixel"
                );
            }
            assert_eq!(
                pixel_of(&l, Location::Local, 0x0FFC),
                None,
                "before the surface"
            );
        }
        // Past the width inside the pitch, and past the last row.
        let l = layout(None);
        assert_eq!(pixel_of(&l, Location::Local, 0x1000 + 40), None);
        assert_eq!(pixel_of(&l, Location::Local, 0x1000 + 8 * 64), None);
    }
}
