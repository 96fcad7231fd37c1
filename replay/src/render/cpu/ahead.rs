//! The work of the draws ahead that no earlier draw's rendering changes: [`THREADS`] threads
//! of their own, taking turns, decode the next draws' state, fetch and shade their vertices
//! ([`vertex::shade_vertices`]) and assemble their primitives ([`geometry::build_within`],
//! in the draw's whole bounds), while the frame's thread rasterizes and shades the fragments
//! of the current one.
//!
//! The state, vertex stage and primitives read only the draw's registers and the memory
//! captured for it (vertex arrays, constants, vertex textures: never a surface an earlier
//! draw rendered, see [`vertex`]), so they do not wait on earlier draws and are those of the
//! serial order. Fragment textures are not decoded here: they may read what earlier draws
//! rendered, and decoding the others ahead measured slower on two cores (the thread then
//! competes with the fragment shading it should feed; BENCHMARKS.md).
//!
//! At most [`DRAWS_AHEAD`] finished draws wait per thread, so the memory held ahead stays a
//! few draws' vertices and primitives.

use super::geometry::{self, RasterPrim};
use super::vertex::{self, ShadedVertices};
use crate::render::state::DrawState;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::{Draw, Frame};
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver};

/// Threads preparing draws, taking turns (draw k of the range goes to thread k mod THREADS):
/// one draw's serial parts (fetch, small assemblies) run beside another's.
pub const THREADS: usize = 2;

/// Finished draws that may wait for the frame's thread, per thread (one more is being
/// prepared).
pub const DRAWS_AHEAD: usize = 2;

/// One draw's vertex stage: its outputs or why the draw is skipped.
pub type VertexStage = Result<ShadedVertices, String>;

/// What was prepared for one draw.
pub struct DrawAhead {
    /// Its state, or why it does not decode.
    pub state: Result<DrawState, String>,
    /// Its vertex stage (not run when the state does not decode or writes nothing).
    pub vertices: VertexStage,
    /// Its primitives in the state's whole bounds ([`geometry::build_within`]), when both the
    /// state and the vertex stage are there.
    pub prims: Vec<RasterPrim>,
}

/// The draws of a range, prepared in order.
pub struct DrawsAhead<'f> {
    frame: &'f Frame,
    /// The first draw of the range.
    first: usize,
    /// Thread k's results: draws `first + k`, `first + k + THREADS`, ...
    results: Vec<Option<Receiver<(usize, DrawAhead)>>>,
}

impl DrawsAhead<'_> {
    /// Draw `index`, prepared: its thread's result, or prepared here when the thread has
    /// none for it (a draw before the range, or the thread ended).
    pub fn take(&mut self, index: usize) -> DrawAhead {
        let k = index.checked_sub(self.first).map(|d| d % THREADS);
        if let Some(slot) = k.and_then(|k| self.results.get_mut(k)) {
            if let Some(results) = slot {
                // Draws the frame's thread passed over (no memory view) are dropped.
                while let Ok((i, prepared)) = results.recv() {
                    if i == index {
                        return prepared;
                    }
                    if i > index {
                        break;
                    }
                }
            }
            *slot = None;
        }
        match (self.frame.draws.get(index), self.frame.memory(index)) {
            (Some(draw), Some(memory)) => prepare(draw, &memory),
            (None, _) => not_prepared(format!("no draw {index}")),
            (_, None) => not_prepared(format!("no memory for draw {index}")),
        }
    }
}

fn not_prepared(why: String) -> DrawAhead {
    DrawAhead {
        state: Err(why.clone()),
        vertices: Err(why),
        prims: Vec::new(),
    }
}

/// Prepare `draw` over its memory view `memory`.
fn prepare<M: GuestMemory>(draw: &Draw, memory: &M) -> DrawAhead {
    let state = DrawState::from_draw(draw).map_err(|e| e.to_string());
    let vertices = match &state {
        Err(e) => Err(format!("state: {e}")),
        Ok(s) if s.writes_nothing() => Err("no target".to_string()),
        Ok(_) => vertex::shade_vertices(draw, memory),
    };
    let prims = match (&state, &vertices) {
        (Ok(state), Ok(shaded)) => geometry::build_within(
            state,
            &shaded.outputs,
            &shaded.starts,
            vertex::point_size_from_vertex(draw),
            state.window_bounds(),
        ),
        _ => Vec::new(),
    };
    DrawAhead {
        state,
        vertices,
        prims,
    }
}

/// Run `body` with `draws` of `frame` prepared ahead on threads of their own (in `body`, as
/// it takes them, for a single draw); the threads stop when `body` returns.
pub fn with_draws_ahead<R>(
    frame: &Frame,
    draws: Range<usize>,
    body: impl FnOnce(&mut DrawsAhead<'_>) -> R,
) -> R {
    if draws.len() < 2 {
        return body(&mut DrawsAhead {
            frame,
            first: draws.start,
            results: Vec::new(),
        });
    }
    std::thread::scope(|scope| {
        let results = (0..THREADS)
            .map(|k| {
                let (send, results) = sync_channel(DRAWS_AHEAD);
                let mine = draws.clone().skip(k).step_by(THREADS);
                scope.spawn(move || {
                    for index in mine {
                        let (Some(draw), Some(memory)) =
                            (frame.draws.get(index), frame.memory(index))
                        else {
                            break;
                        };
                        // The receiver is gone when the frame stopped early: so does this
                        // thread.
                        if send.send((index, prepare(draw, &memory))).is_err() {
                            break;
                        }
                    }
                });
                Some(results)
            })
            .collect();
        let mut ahead = DrawsAhead {
            frame,
            first: draws.start,
            results,
        };
        let out = body(&mut ahead);
        // Dropping the receivers ends the threads at their next draw.
        drop(ahead);
        out
    })
}
