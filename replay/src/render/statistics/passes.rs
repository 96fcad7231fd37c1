//! Passes: the draws in runs of one surface state, with what each renders into, its
//! primitives and its clears (RenderDoc's grouping of an API frame into passes).

use super::command_window;
use crate::render::state::FrameEvents;
use crate::render::surface::TARGET_NAMES;
use crate::render::target::{
    colour_targets_of, depth_target_of, shadow_shaped, uses_depth_surface, writes_colour,
    NamedTarget,
};
use rsxtrace_capture::frame::Frame;
use std::ops::Range;

/// A pass: a run of consecutive draws with one surface state, as RenderDoc groups an API
/// frame's draws into passes where the render targets change.
#[derive(Clone, Debug, PartialEq)]
pub struct Pass {
    /// Its draws.
    pub draws: Range<usize>,
    /// The colour targets its surface selects and, when one of its draws tests depth, stencil
    /// or depth bounds, the depth surface (`render::target`: what the draws render into).
    pub targets: Vec<NamedTarget>,
    /// Points, lines and triangles its draws assemble into (draws not counted left out).
    pub primitives: u64,
    /// `CLEAR_SURFACE` calls from the end of the pass before it to its last draw.
    pub clears: usize,
    /// What kind of pass it is.
    pub kind: PassKind,
}

/// A pass's kind, by the index's rule for its draws' classes (`docs/index.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassKind {
    /// One of its draws writes colour.
    Colour,
    /// None of its draws writes colour (a depth pre-pass, a stencil pass).
    DepthOnly,
    /// None writes colour and its surface is square: the shape of a shadow map.
    Shadow,
}

impl PassKind {
    /// `colour`, `depth_only` or `shadow` (the index's `draws.pass` names).
    pub fn name(self) -> &'static str {
        match self {
            PassKind::Colour => "colour",
            PassKind::DepthOnly => "depth_only",
            PassKind::Shadow => "shadow",
        }
    }
}

impl Pass {
    /// Its targets as text: `A a8r8g8b8 1280x720 at local+0x0, Z z24s8 1280x720 at
    /// local+0x400000` (`none` without any).
    pub fn targets_text(&self) -> String {
        if self.targets.is_empty() {
            return "none".into();
        }
        let named: Vec<String> = self
            .targets
            .iter()
            .map(|t| {
                format!(
                    "{} {} {}x{} at {}+0x{:x}",
                    TARGET_NAMES.get(t.index).copied().unwrap_or("?"),
                    t.format.name(),
                    t.layout.width,
                    t.layout.height,
                    t.layout.location.name(),
                    t.layout.offset
                )
            })
            .collect();
        named.join(", ")
    }
}

/// The draws of `range` in runs of one surface state, with what each renders into, its
/// primitives (`primitives`: per draw of the range) and the clears in its stretch of commands.
pub(super) fn passes(
    frame: &Frame,
    events: &FrameEvents,
    range: &Range<usize>,
    primitives: &[Option<u64>],
) -> Vec<Pass> {
    let draws = &frame.draws[range.clone()];
    let mut passes: Vec<Pass> = Vec::new();
    let mut start = 0;
    while start < draws.len() {
        let surface = &draws[start].surface;
        let len = draws[start..]
            .iter()
            .take_while(|d| d.surface == *surface)
            .count();
        let run = &draws[start..start + len];
        let mut targets: Vec<NamedTarget> = colour_targets_of(surface)
            .unwrap_or_default()
            .into_iter()
            .filter_map(Result::ok)
            .collect();
        if run.iter().any(|d| uses_depth_surface(&d.raster)) {
            targets.extend(depth_target_of(surface).ok());
        }
        let first = range.start + start;
        let window = command_window(frame, &(first..first + len));
        let kind = if run.iter().any(writes_colour) {
            PassKind::Colour
        } else if shadow_shaped(surface) {
            PassKind::Shadow
        } else {
            PassKind::DepthOnly
        };
        passes.push(Pass {
            kind,
            draws: first..first + len,
            targets,
            primitives: primitives[start..start + len].iter().flatten().sum(),
            clears: events
                .clears
                .iter()
                .filter(|c| window.contains(&c.command))
                .count(),
        });
        start += len;
    }
    passes
}
