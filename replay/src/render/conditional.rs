//! Occlusion counting and conditional rendering, one rule for both renderers.
//!
//! The hardware (RPCS3 `nv4097::get_report`, `nv4097::clear_report_value`,
//! `nv4097::set_render_mode`, `ZCULL_control`, `thread::enable_conditional_rendering`):
//! - while `SET_ZPASS_PIXEL_COUNT_ENABLE` is on, the samples each draw lets through every
//!   test (the program's kill, alpha, stencil, depth) are added to one counter;
//! - `CLEAR_REPORT_VALUE` of type `ZPASS_PIXEL_CNT` (bit 0) zeroes it;
//! - `GET_REPORT` of type `ZPASS_PIXEL_CNT` writes its value as a report at an offset of the
//!   report area (`SET_CONTEXT_DMA_REPORT`);
//! - after `SET_RENDER_ENABLE` mode 2 the draws render only when the report at its offset
//!   holds a non-zero value as it is at that command (RPCS3 evaluates it there, not at each
//!   draw): a query of this frame wrote it, or it is the value in memory
//!   (`CellGcmReportData.value`, big-endian at byte 8); mode 1 renders every draw, another
//!   mode changes nothing (RPCS3 logs it).
//!
//! [`OcclusionCounter`] follows that through a render: the renderer gives it the report
//! events before each draw ([`OcclusionCounter::before`]), asks whether a conditional draw
//! renders ([`OcclusionCounter::decide`]) and gives it the samples each rendered draw passed
//! ([`OcclusionCounter::count`]). When they are read later (the GPU render's occlusion
//! queries, read back only when a conditional draw needs a report that counts them), it
//! marks the draw counted ([`OcclusionCounter::count_later`]) and reads the counts when
//! [`OcclusionCounter::needs_counts`] asks ([`OcclusionCounter::resolve`]).
//!
//! A counter not cleared in the frame may hold samples of draws before the capture began,
//! and a draw that was not rendered (outside the rendered range, or skipped) counted what the
//! replay does not know: such a count is known only as "at least", so a report of at least
//! one sample still decides, and a report that may be zero falls back on memory, then on
//! drawing with a warning. RPCS3 runs its host queries only while `SET_ZCULL_EN` is on as
//! well (`ZCULL_control::check_state`); no source ties the hardware's count to Z-cull, so
//! this one counts whenever `SET_ZPASS_PIXEL_COUNT_ENABLE` is on, and a draw it lets render
//! on samples counted with Z-cull off is marked (and warned about): RPCS3's replay counts
//! none of those and may leave it out.

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::{
    REPORT_AREA_LOCAL, REPORT_AREA_MAIN, REPORT_AREA_MAIN_IO_OFFSET,
};
use rsxtrace_capture::frame::Draw;
use rsxtrace_capture::rrc::Location;
use serde::Serialize;
use std::collections::HashMap;
use std::ops::Range;

use super::state::{FrameEvents, ReportOp};

/// `CELL_GCM_ZPASS_PIXEL_CNT` (RPCS3 `gcm_enums.h`).
pub const ZPASS_PIXEL_CNT: u32 = 1;

/// A sample count as far as the replay knows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleCount {
    /// Samples counted.
    pub at_least: u64,
    /// Whether that is all of them (cleared in the frame, every draw since counted).
    pub exact: bool,
}

/// Where a conditional draw's report came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportSource {
    /// A `GET_REPORT` of this frame, at command `command`.
    Query {
        /// Its command index.
        command: usize,
    },
    /// The capture's memory at the report (written before the capture began).
    Memory,
    /// Neither: the report's value is unknown.
    Unknown,
}

/// What a renderer did with a draw under conditional rendering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ConditionalDraw {
    /// The draw.
    pub draw: usize,
    /// `SET_RENDER_ENABLE` bits 0..23.
    pub report_offset: u32,
    /// The report area (`SET_CONTEXT_DMA_REPORT` raw).
    pub report_dma: u32,
    /// Where the report's value came from.
    pub source: ReportSource,
    /// The samples the report holds (a query's: at least this many when not `exact`);
    /// `None` when unknown.
    pub samples: Option<u64>,
    /// Whether `samples` is the whole count.
    pub exact: bool,
    /// Whether it was drawn: the report holds samples, or its value is unknown.
    pub drawn: bool,
    /// Whether the query's count includes draws with `SET_ZCULL_EN` off, which RPCS3 does
    /// not count (`ZCULL_control::check_state`): when drawn, RPCS3's replay may leave it out.
    pub counted_with_zcull_off: bool,
}

impl ConditionalDraw {
    /// A line for people: why it was or was not drawn.
    pub fn describe(&self) -> String {
        let report = format!("the report at offset {:#x}", self.report_offset);
        let count = match (self.samples, self.exact) {
            (Some(n), true) => format!("{n} samples"),
            (Some(n), false) => format!("at least {n} samples"),
            (None, _) => "an unknown count".to_string(),
        };
        let from = match self.source {
            ReportSource::Query { command } => {
                format!("{report}, written by GET_REPORT at command {command}, holds {count}")
            }
            ReportSource::Memory => format!("{report} holds {count} in the captured memory"),
            ReportSource::Unknown if self.report_dma == REPORT_AREA_LOCAL => format!(
                "no query of this frame counted all of {report} in the RSX's report memory, \
                 which captures do not hold (RPCS3's replay of the capture reads the 0 it \
                 initialises there, sys_rsx_context_allocate, and does not draw it)"
            ),
            ReportSource::Unknown => format!(
                "no query of this frame counted all of {report} and the capture does not hold \
                 it"
            ),
        };
        let verdict = if !self.drawn {
            "not drawn"
        } else if self.source == ReportSource::Unknown {
            "drawn as if it passed"
        } else if self.counted_with_zcull_off {
            "drawn (the count includes draws made with SET_ZCULL_EN off, which RPCS3 does not \
             count, ZCULL_control::check_state: its replay may leave this draw out)"
        } else {
            "drawn"
        };
        format!("conditional rendering (SET_RENDER_ENABLE mode 2): {from}: {verdict}")
    }

    /// Whether the renderers warn about it: its report is unknown (drawn as if it passed),
    /// or RPCS3 may decide otherwise ([`ConditionalDraw::counted_with_zcull_off`]).
    pub fn warns(&self) -> bool {
        self.source == ReportSource::Unknown || (self.drawn && self.counted_with_zcull_off)
    }
}

/// A counter's value: what is known, and the draws whose samples count too but are read
/// later (the GPU render reads them from the device only when a report needs them): the
/// stretch `later` of [`OcclusionCounter`]'s list of such draws.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Tally {
    known: SampleCount,
    later: Range<usize>,
    /// A draw counted into it had Z-cull off ([`ConditionalDraw::counted_with_zcull_off`]).
    zcull_off: bool,
}

/// Conditional rendering as the last `SET_RENDER_ENABLE` set it.
#[derive(Clone, Debug, Default)]
enum Condition {
    /// Every draw renders.
    #[default]
    Off,
    /// Draws render only when the report at `offset` of `report_dma` holds a sample: `query`
    /// is what a query of the frame wrote there before the command (its count, command), else
    /// `None` (the value in memory, or unknown).
    On {
        report_dma: u32,
        offset: u32,
        query: Option<(Option<Tally>, usize)>,
    },
}

/// The occlusion counter and the reports written through a render (see the module).
#[derive(Clone, Debug, Default)]
pub struct OcclusionCounter {
    counter: Tally,
    /// Conditional rendering now.
    condition: Condition,
    /// Reports written by this frame's queries: (report area, offset) -> count (`None`: a
    /// report type not modelled), command.
    reports: HashMap<(u32, u32), (Option<Tally>, usize)>,
    /// The draws counted later, in order ([`OcclusionCounter::count_later`]); tallies take
    /// stretches of it, so a report costs the same whatever the draws it counts.
    later: Vec<usize>,
    /// For the first of them, read ([`OcclusionCounter::resolve`]): the samples passed so far
    /// summed from the list's start, and how many of them were not known.
    resolved: Vec<(u64, usize)>,
    /// Report events applied so far.
    applied: usize,
}

impl OcclusionCounter {
    /// A counter at the frame's start: whatever it holds is not known; conditional rendering
    /// as the frame begins with it (`events.initial_render_enable`).
    pub fn new(events: &FrameEvents) -> OcclusionCounter {
        let mut c = OcclusionCounter::default();
        if let Some(op) = events.initial_render_enable {
            c.apply(op, 0);
        }
        c
    }

    /// A counter at draw `start` of a render that begins there: the draws before it were not
    /// rendered, so what they counted is not known.
    pub fn at(frame_draws: &[Draw], events: &FrameEvents, start: usize) -> OcclusionCounter {
        let mut c = OcclusionCounter::new(events);
        for (index, draw) in frame_draws.iter().enumerate().take(start) {
            c.before(events, index);
            c.count(draw, None);
        }
        c
    }

    /// Applies the report commands of `events` up to draw `index` (those before it).
    pub fn before(&mut self, events: &FrameEvents, index: usize) {
        while let Some(e) = events.reports.get(self.applied) {
            if e.before_draw > index {
                break;
            }
            self.applied += 1;
            self.apply(e.op, e.command);
        }
    }

    /// Applies one report command (at command `command`).
    fn apply(&mut self, op: ReportOp, command: usize) {
        match op {
            ReportOp::Clear { report_type } => {
                if report_type & ZPASS_PIXEL_CNT != 0 {
                    self.counter = Tally {
                        known: SampleCount {
                            at_least: 0,
                            exact: true,
                        },
                        later: self.later.len()..self.later.len(),
                        zcull_off: false,
                    };
                }
            }
            ReportOp::Get {
                report_type,
                offset,
                report_dma,
            } => {
                // Other report types (Z-cull statistics) are not modelled: unknown.
                let value =
                    (u32::from(report_type) == ZPASS_PIXEL_CNT).then(|| self.counter.clone());
                self.reports.insert((report_dma, offset), (value, command));
            }
            ReportOp::RenderEnable {
                mode,
                offset,
                report_dma,
            } => match mode {
                1 => self.condition = Condition::Off,
                // The report as it is now decides every draw until the next command.
                2 => {
                    self.condition = Condition::On {
                        report_dma,
                        offset,
                        query: self.reports.get(&(report_dma, offset)).cloned(),
                    }
                }
                // RPCS3 logs another mode and leaves conditional rendering as it was.
                _ => {}
            },
        }
    }

    /// Whether [`decide`](Self::decide) needs samples of draws counted later that are not
    /// read yet: give them to [`resolve`](Self::resolve) first.
    pub fn needs_counts(&self) -> bool {
        match &self.condition {
            Condition::On {
                query: Some((Some(t), _)),
                ..
            } => t.later.end > self.resolved.len(),
            _ => false,
        }
    }

    /// Reads the draws counted later and not read yet, in order: `passed` gives each one's
    /// samples (`None`: not known).
    pub fn resolve(&mut self, mut passed: impl FnMut(usize) -> Option<u64>) {
        while let Some(&draw) = self.later.get(self.resolved.len()) {
            let (sum, unknown) = self.resolved.last().copied().unwrap_or((0, 0));
            self.resolved.push(match passed(draw) {
                Some(n) => (sum.saturating_add(n), unknown),
                None => (sum, unknown + 1),
            });
        }
    }

    /// The known value of a tally (its later draws read, else not exact).
    fn value(&self, t: &Tally) -> SampleCount {
        let mut v = t.known;
        let at = |i: usize| {
            i.checked_sub(1)
                .and_then(|i| self.resolved.get(i))
                .copied()
                .unwrap_or((0, 0))
        };
        if t.later.end > self.resolved.len() {
            v.exact = false;
        }
        let end = t.later.end.min(self.resolved.len());
        let start = t.later.start.min(end);
        let ((s1, u1), (s0, u0)) = (at(end), at(start));
        v.at_least = v.at_least.saturating_add(s1 - s0);
        if u1 > u0 {
            v.exact = false;
        }
        v
    }

    /// Whether draw `index` renders: `None` when conditional rendering is off, else what
    /// was decided and why. `memory` (the draw's) is read for a report no query of the frame
    /// wrote. The counts [`needs_counts`](Self::needs_counts) asks for should be read first
    /// (a draw not read makes the count "at least").
    pub fn decide(&self, index: usize, memory: &dyn GuestMemory) -> Option<ConditionalDraw> {
        let Condition::On {
            report_dma,
            offset,
            query,
        } = &self.condition
        else {
            return None;
        };
        let zcull_off = matches!(query, Some((Some(t), _)) if t.zcull_off);
        let (source, count) = match query {
            Some((tally, command)) => (
                ReportSource::Query { command: *command },
                tally.as_ref().map(|t| self.value(t)),
            ),
            None => match report_in_memory(*report_dma, *offset, memory) {
                Some(v) => (
                    ReportSource::Memory,
                    Some(SampleCount {
                        at_least: u64::from(v),
                        exact: true,
                    }),
                ),
                None => (ReportSource::Unknown, None),
            },
        };
        let unknown = ConditionalDraw {
            draw: index,
            report_offset: *offset,
            report_dma: *report_dma,
            source: ReportSource::Unknown,
            samples: None,
            exact: false,
            drawn: true,
            counted_with_zcull_off: zcull_off,
        };
        Some(match count {
            Some(c) if c.at_least > 0 || c.exact => ConditionalDraw {
                source,
                samples: Some(c.at_least),
                exact: c.exact,
                drawn: c.at_least > 0,
                ..unknown
            },
            // A query that may have counted samples the replay did not see: memory cannot
            // tell either (the query overwrote it), so it is unknown.
            Some(c) => ConditionalDraw {
                samples: Some(c.at_least),
                ..unknown
            },
            None => unknown,
        })
    }

    /// Counts `draw`: `passed` is the samples it let through the depth and stencil tests,
    /// `None` when it was not rendered (what it would have counted is not known).
    pub fn count(&mut self, draw: &Draw, passed: Option<u64>) {
        if !draw.raster.occlusion.zpass_pixel_count {
            return;
        }
        self.counter.zcull_off |= !draw.raster.occlusion.zcull;
        let known = &mut self.counter.known;
        match passed {
            Some(n) => known.at_least = known.at_least.saturating_add(n),
            None => known.exact = false,
        }
    }

    /// Counts draw `index` (rendered), whose samples are read later
    /// ([`resolve`](Self::resolve)).
    pub fn count_later(&mut self, index: usize, draw: &Draw) {
        if draw.raster.occlusion.zpass_pixel_count {
            self.counter.zcull_off |= !draw.raster.occlusion.zcull;
            // The counter's stretch runs to the end of the list: it grows with it.
            self.later.push(index);
            self.counter.later.end = self.later.len();
        }
    }
}

/// The value of the report at `offset` of area `report_dma` in the captured memory (a
/// report's value is its word at byte 8). The areas are resolved as RPCS3's
/// `rsx::get_address` resolves a report's context DMA: the main report area at IO offset
/// `0x0E000000` + offset; main memory (`CELL_GCM_CONTEXT_DMA_MEMORY_HOST_BUFFER`
/// 0xFEED0001, or location 1) at IO offset `offset`; local memory (`..._FRAME_BUFFER`
/// 0xFEED0000, or location 0) at `offset`. The local report area is the RSX's own report
/// memory, which no capture holds.
fn report_in_memory(report_dma: u32, offset: u32, memory: &dyn GuestMemory) -> Option<u32> {
    let (location, base) = match report_dma {
        REPORT_AREA_MAIN => (Location::Main, REPORT_AREA_MAIN_IO_OFFSET),
        0xFEED_0001 | 1 => (Location::Main, 0),
        0xFEED_0000 | 0 => (Location::Local, 0),
        _ => return None,
    };
    let at = base.checked_add(offset)?.checked_add(8)?;
    let bytes = memory.read(location, at, 4)?;
    Some(u32::from_be_bytes(bytes[..].try_into().ok()?))
}
