//! Byte ranges of guest memory a frame render reads and writes, known from the frame alone
//! (without rendering): each draw's targets, a texture's sub-resources, sets of ranges
//! written so far. The band plan checks a cut's exactness with them ([`super::band`]).

use crate::render::state::{color_targets, ColorFormat, DepthFormat, DrawState};
use crate::render::surface::{bytes_per_pixel, depth_bytes_per_pixel, SurfaceLayout};
use rsxtrace_capture::fetch::Span;
use rsxtrace_capture::frame::state::Surface;
use rsxtrace_capture::frame::Draw;
use rsxtrace_capture::rrc::Location;

/// A byte range of guest memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extent {
    pub location: Location,
    pub start: u64,
    pub end: u64,
}

impl Extent {
    /// The bytes of a surface.
    pub fn of_layout(layout: &SurfaceLayout) -> Extent {
        let start = u64::from(layout.offset);
        Extent {
            location: layout.location,
            start,
            end: start + layout.byte_len(),
        }
    }

    /// The bytes of a texture's sub-resource.
    pub fn of_span(span: &Span) -> Extent {
        let start = u64::from(span.offset);
        Extent {
            location: span.location,
            start,
            end: start + u64::from(span.len),
        }
    }

    /// Whether the two share a byte.
    pub fn overlaps(&self, other: &Extent) -> bool {
        self.location == other.location && self.start < other.end && other.start < self.end
    }

    /// "local memory 0x..0x..".
    pub fn describe(&self) -> String {
        let memory = match self.location {
            Location::Local => "local",
            Location::Main => "main",
        };
        format!("{memory} memory 0x{:x}..0x{:x}", self.start, self.end)
    }
}

/// The surfaces one draw renders into.
pub(crate) struct DrawTargets {
    /// Colour targets written.
    pub colors: Vec<SurfaceLayout>,
    /// The depth target, when the depth or stencil test uses it.
    pub depth: Option<SurfaceLayout>,
}

impl DrawTargets {
    /// `None` when the draw's state cannot be decoded (both renderers skip it).
    pub fn of(draw: &Draw) -> Option<DrawTargets> {
        let state = DrawState::from_draw(draw).ok()?;
        let s = &draw.surface;
        let colors = match state.color_format {
            Some(format) => color_targets(s.color_target.raw)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|t| SurfaceLayout::of_target(s, t, bytes_per_pixel(format)).ok())
                .collect(),
            None => Vec::new(),
        };
        let depth = match state.depth_format {
            Some(format) if state.reads_depth_buffer() => {
                SurfaceLayout::of_target(s, 4, depth_bytes_per_pixel(format)).ok()
            }
            _ => None,
        };
        Some(DrawTargets { colors, depth })
    }

    /// The bytes of every target.
    pub fn extents(&self) -> impl Iterator<Item = Extent> + '_ {
        self.colors
            .iter()
            .chain(self.depth.iter())
            .map(Extent::of_layout)
    }
}

/// The bytes of every target a surface state names (the colour targets of
/// `SET_SURFACE_COLOR_TARGET` and the zeta surface), whatever a draw's tests use: what a
/// draw or a clear with this state may write. Targets whose format or layout is invalid are
/// left out (no renderer writes them).
pub(crate) fn surface_extents(s: &Surface) -> Vec<Extent> {
    let mut out = Vec::new();
    if let Some(format) = ColorFormat::from_raw(s.format.color_format.raw) {
        for t in color_targets(s.color_target.raw).unwrap_or_default() {
            if let Ok(layout) = SurfaceLayout::of_target(s, t, bytes_per_pixel(format)) {
                out.push(Extent::of_layout(&layout));
            }
        }
    }
    if let Some(format) = DepthFormat::of(s) {
        if let Ok(layout) = SurfaceLayout::of_target(s, 4, depth_bytes_per_pixel(format)) {
            out.push(Extent::of_layout(&layout));
        }
    }
    out
}

/// Memory written so far, in frame order: a set of extents (each distinct one once; a frame
/// renders into a few surfaces many times).
#[derive(Default)]
pub(crate) struct Written {
    extents: Vec<Extent>,
}

impl Written {
    /// Add one extent.
    pub fn add(&mut self, e: Extent) {
        if !self.extents.contains(&e) {
            self.extents.push(e);
        }
    }

    /// An extent written so far that overlaps `e`.
    pub fn overlapping(&self, e: &Extent) -> Option<&Extent> {
        self.extents.iter().find(|w| w.overlaps(e))
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.extents.is_empty()
    }
}
