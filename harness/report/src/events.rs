//! The frame's events in stream order, as the index lists them: clears and image transfers
//! (the renderers' own list, `FrameEvents::between_draws`), a surface change wherever a draw's
//! surface state differs from the draw before it (or for the first draw listed), and the
//! draws. Only events that touch the draws reported are listed: those before a draw of the
//! range (after the draw before it) and, when the range reaches the frame's end, those after
//! its last draw.

use rsxtrace_capture::frame::state::Surface;
use rsxtrace_capture::frame::Frame;
use rsxtrace_replay::render::state::{ClearEvent, FrameEvents};
use rsxtrace_replay::render::transfer::{BetweenDraws, TransferEvent};
use std::ops::Range;

/// One listed event.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// `CLEAR_SURFACE`.
    Clear(&'a ClearEvent),
    /// An image transfer.
    Transfer(&'a TransferEvent),
    /// Draw `draw` binds a surface state other than the draw before it.
    SurfaceChange {
        /// The draw.
        draw: usize,
        /// Its surface state.
        surface: &'a Surface,
    },
    /// A draw.
    Draw(usize),
}

/// The events of `range` in order (see the module documentation).
pub fn list<'a>(frame: &'a Frame, events: &'a FrameEvents, range: Range<usize>) -> Vec<Event<'a>> {
    let between = events.between_draws();
    let last = frame.draws.len();
    let mut out = Vec::new();
    let mut pending = between.iter().peekable();
    for draw in range.clone() {
        let Some(d) = frame.draws.get(draw) else {
            break;
        };
        while let Some(e) = pending.next_if(|e| e.before_draw() <= draw) {
            if draw == range.start && e.before_draw() < draw {
                continue;
            }
            out.push(between_event(e));
        }
        let changed = draw == range.start
            || frame
                .draws
                .get(draw.wrapping_sub(1))
                .is_none_or(|p| p.surface != d.surface);
        if changed {
            out.push(Event::SurfaceChange {
                draw,
                surface: &d.surface,
            });
        }
        out.push(Event::Draw(draw));
    }
    if range.end >= last {
        out.extend(
            pending
                .filter(|e| e.before_draw() >= last)
                .map(between_event),
        );
    }
    out
}

fn between_event<'a>(e: &BetweenDraws<'a>) -> Event<'a> {
    match *e {
        BetweenDraws::Clear(c) => Event::Clear(c),
        BetweenDraws::Transfer(t) => Event::Transfer(t),
    }
}
