//! Frame statistics (`rsxtrace stats`): what a frame asks of a GPU and of an emulator, counted
//! as RenderDoc's Statistics window counts an API frame.
//!
//! - Draws by primitive and by vertex source, vertices submitted (with their spread and a
//!   histogram) and the points, lines and triangles they assemble into under the renderers'
//!   own assembly rules (`crate::raster::assembled_count`: quads two triangles, restarts and
//!   range starts cutting strips).
//! - State changes: for each part of a draw's state (render targets, programs, inline and
//!   transform constants, textures, vertex arrays, the fixed-function groups), the draws whose
//!   part differs from the draw before them, i.e. what an emulator has to re-bind or
//!   re-create between draws; and the transform constant registers those changes touch.
//! - Clears and image transfers between the draws (`FrameEvents`), and the command stream's
//!   method calls by method.
//! - Occlusion: the queries' results written (`GET_REPORT` of `ZPASS_PIXEL_CNT`), the draws
//!   they count and the draws under conditional rendering.
//! - Passes: runs of consecutive draws with one surface state, with their targets, primitives
//!   and clears (RenderDoc's grouping of an API frame into colour and depth passes).
//!
//! With a draw range, draws, changes, events and methods are those of the range: the method
//! calls from the end of the draw before it to its last draw's END, the events among them.
//!
//! The parts: [`counts`] (draws, vertices, primitives, programs, textures), [`changes`] (state
//! changes between draws), [`passes`], [`methods`] (the method census) and [`summary`] (the
//! totals as labelled lines, for the CLI and the report).

pub mod changes;
pub mod counts;
pub mod methods;
pub mod passes;
pub mod summary;

pub use changes::PARTS;
pub use counts::{Assembled, Bucket, Programs, Sources, Textures, Vertices};
pub use methods::MethodCount;
pub use passes::{Pass, PassKind};
pub use summary::share;

use crate::raster::Primitive;
use crate::render::conditional::ZPASS_PIXEL_CNT;
use crate::render::state::{FrameEvents, ReportOp};
use crate::render::transfer::Transfer;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::ReplayCommand;
use std::collections::BTreeMap;
use std::ops::Range;

/// The statistics of a frame, or of a range of its draws.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameStatistics {
    /// The draws counted (`start..end`, end excluded).
    pub draws: Range<usize>,
    /// Draws by primitive, in `SET_BEGIN_END` code order (primitives no draw uses left out).
    pub by_primitive: Vec<(Primitive, usize)>,
    /// Draws by where their vertices come from.
    pub by_source: Sources,
    /// Vertices submitted.
    pub vertices: Vertices,
    /// What the vertices assemble into.
    pub assembled: Assembled,
    /// Distinct programs among the draws.
    pub programs: Programs,
    /// Per part of the state, the draws whose part differs from the draw before them
    /// ([`PARTS`] order).
    pub changes: Vec<(&'static str, usize)>,
    /// Transform constant registers that differ between a draw and the draw before it,
    /// summed over the draws.
    pub constant_registers_changed: u64,
    /// Texture units in use.
    pub textures: Textures,
    /// `CLEAR_SURFACE` calls.
    pub clears: usize,
    /// Image transfers by kind (`memory_copy` NV0039, `scaled_image` NV3089, `inline_pixels`
    /// NV308A, `unsupported`), kinds with none left out.
    pub transfers: Vec<(&'static str, usize)>,
    /// Method calls counted.
    pub method_calls: u64,
    /// Method calls by method (array methods as one: `NV4097_SET_TRANSFORM_CONSTANT`), the
    /// most called first.
    pub methods: Vec<MethodCount>,
    /// The draws grouped into passes, in order.
    pub passes: Vec<Pass>,
    /// Occlusion queries and conditional rendering.
    pub occlusion: Occlusion,
}

/// Occlusion queries and the draws they decide (`render::conditional`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Occlusion {
    /// `GET_REPORT` calls of type `ZPASS_PIXEL_CNT`: the queries' results written.
    pub reports: usize,
    /// Draws whose samples are counted (`SET_ZPASS_PIXEL_COUNT_ENABLE`).
    pub counted_draws: usize,
    /// Of those, the draws made with Z-cull off (`SET_ZCULL_EN` 0), which RPCS3 does not
    /// count (`ZCULL_control::check_state`).
    pub counted_without_zcull: usize,
    /// Draws under conditional rendering (`SET_RENDER_ENABLE` mode 2): rendered only when
    /// their report holds a sample.
    pub conditional_draws: usize,
}

/// Count the statistics of the draws `range` of `frame` (all when `None`; cut to the frame);
/// `commands` are the capture's, `events` its clears and transfers.
pub fn statistics(
    frame: &Frame,
    events: &FrameEvents,
    commands: &[ReplayCommand],
    range: Option<Range<usize>>,
) -> FrameStatistics {
    let range = match range {
        // A range past the frame is cut to it.
        Some(r) => {
            let end = r.end.min(frame.draws.len());
            r.start.min(end)..end
        }
        None => 0..frame.draws.len(),
    };
    let draws = &frame.draws[range.clone()];
    let window = command_window(frame, &range);
    let (by_primitive, by_source) = counts::kinds(draws);
    let (vertices, assembled, primitives) = counts::vertices(frame, draws);
    let (changes, constant_registers_changed) = changes::changes(frame, &range);
    let in_window = |command: usize| window.contains(&command);
    let mut transfers: BTreeMap<usize, (&'static str, usize)> = BTreeMap::new();
    for t in events.transfers.iter().filter(|t| in_window(t.command)) {
        let (order, kind) = match &t.transfer {
            Ok(Transfer::Copy(_)) => (0, "memory_copy"),
            Ok(Transfer::Scaled(_)) => (1, "scaled_image"),
            Ok(Transfer::Inline(_)) => (2, "inline_pixels"),
            Err(_) => (3, "unsupported"),
        };
        transfers.entry(order).or_insert((kind, 0)).1 += 1;
    }
    let (method_calls, methods) = methods::method_census(commands, &window);
    let passes = passes::passes(frame, events, &range, &primitives);
    let occlusion = Occlusion {
        reports: events
            .reports
            .iter()
            .filter(|r| in_window(r.command))
            .filter(|r| {
                matches!(r.op, ReportOp::Get { report_type, .. }
                    if u32::from(report_type) == ZPASS_PIXEL_CNT)
            })
            .count(),
        counted_draws: draws
            .iter()
            .filter(|d| d.raster.occlusion.zpass_pixel_count)
            .count(),
        counted_without_zcull: draws
            .iter()
            .filter(|d| d.raster.occlusion.zpass_pixel_count && !d.raster.occlusion.zcull)
            .count(),
        conditional_draws: draws
            .iter()
            .filter(|d| d.raster.render_enable.conditional())
            .count(),
    };
    FrameStatistics {
        draws: range.clone(),
        by_primitive,
        by_source,
        vertices,
        assembled,
        programs: counts::programs(draws),
        changes,
        constant_registers_changed,
        textures: counts::textures(draws),
        clears: events
            .clears
            .iter()
            .filter(|c| in_window(c.command))
            .count(),
        transfers: transfers.into_values().collect(),
        method_calls,
        methods,
        passes,
        occlusion,
    }
}

/// The commands of `range`: from the one after the END of the draw before it (or the start)
/// to its last draw's END, or to the end of the stream when it reaches the frame's last draw.
pub(super) fn command_window(frame: &Frame, range: &Range<usize>) -> Range<usize> {
    let draws = &frame.draws;
    let start = match range.start.checked_sub(1).and_then(|i| draws.get(i)) {
        // The parts of a split clause share its commands: start no later than the draw's BEGIN.
        Some(before) => (before.end_command + 1).min(
            draws
                .get(range.start)
                .map_or(usize::MAX, |d| d.begin_command),
        ),
        None => 0,
    };
    let end = if range.end >= draws.len() {
        usize::MAX
    } else {
        draws
            .get(range.end.wrapping_sub(1))
            .map_or(start, |d| d.end_command + 1)
    };
    start..end
}
