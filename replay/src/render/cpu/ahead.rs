//! The vertex stage of the draws ahead: a thread of its own fetches and shades the next
//! draws' vertices ([`vertex::shade_vertices`]) while the frame's thread rasterizes and shades
//! the fragments of the current one.
//!
//! The vertex stage reads only the memory captured for its draw (vertex arrays, constants,
//! vertex textures: never a surface an earlier draw rendered, see [`vertex`]), so it does not
//! wait on earlier draws and its results are those of the serial order. At most
//! [`DRAWS_AHEAD`] finished draws wait, so the memory held ahead stays a few draws' vertices.

use super::vertex::{self, ShadedVertices};
use rsxtrace_capture::frame::Frame;
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver};

/// Finished draws that may wait for the frame's thread (one more is being shaded).
pub const DRAWS_AHEAD: usize = 2;

/// One draw's vertex stage: its outputs or why the draw is skipped.
pub type VertexStage = Result<ShadedVertices, String>;

/// The vertex stages of a range of draws, taken in order.
pub struct VerticesAhead<'f> {
    frame: &'f Frame,
    results: Option<Receiver<(usize, VertexStage)>>,
}

impl VerticesAhead<'_> {
    /// Draw `index`'s vertex stage: the thread's result, or shaded here when the thread has
    /// none for it (a draw before the range, or the thread ended).
    pub fn take(&mut self, index: usize) -> VertexStage {
        if let Some(results) = &self.results {
            // Draws the frame's thread passed over (no memory view) are dropped.
            while let Ok((i, stage)) = results.recv() {
                if i == index {
                    return stage;
                }
                if i > index {
                    break;
                }
            }
            self.results = None;
        }
        shade_here(self.frame, index)
    }
}

fn shade_here(frame: &Frame, index: usize) -> VertexStage {
    let draw = frame
        .draws
        .get(index)
        .ok_or_else(|| format!("no draw {index}"))?;
    let memory = frame
        .memory(index)
        .ok_or_else(|| format!("no memory for draw {index}"))?;
    vertex::shade_vertices(draw, &memory)
}

/// Run `body` with the vertex stages of `draws` computed ahead on a thread of their own
/// (in `body`, as it takes them, for a single draw); the thread stops when `body` returns.
pub fn with_vertices_ahead<R>(
    frame: &Frame,
    draws: Range<usize>,
    body: impl FnOnce(&mut VerticesAhead<'_>) -> R,
) -> R {
    if draws.len() < 2 {
        return body(&mut VerticesAhead {
            frame,
            results: None,
        });
    }
    std::thread::scope(|scope| {
        let (send, results) = sync_channel(DRAWS_AHEAD);
        scope.spawn(move || {
            for index in draws {
                if frame.draws.get(index).is_none() || frame.memory(index).is_none() {
                    break;
                }
                // The receiver is gone when the frame stopped early: so does this thread.
                if send.send((index, shade_here(frame, index))).is_err() {
                    break;
                }
            }
        });
        let mut ahead = VerticesAhead {
            frame,
            results: Some(results),
        };
        let out = body(&mut ahead);
        // Dropping the receiver ends the thread at its next draw.
        drop(ahead);
        out
    })
}
