//! `warnings`: what indexing a capture left out, and why.

use crate::cell::Cell;
use crate::schema::{col, Table, Ty};

/// A warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Capture.
    pub capture_id: i64,
    /// The draw it is about, if one.
    pub draw: Option<usize>,
    /// What was left out and why.
    pub message: String,
}

/// The `warnings` table.
pub fn table() -> Table<Warning> {
    use Ty::*;
    let c = col::<Warning>;
    Table {
        name: "warnings",
        doc: "One row per thing indexing left out of a capture (a frame-level problem, a \
              draw part that does not decode, memory the capture does not hold); the rest \
              of the capture is indexed.",
        primary_key: &[],
        indexes: &[&["capture_id"]],
        columns: vec![
            c("capture_id", Integer, "The capture.", |w| {
                w.capture_id.into()
            }),
            c(
                "draw",
                Integer,
                "The draw it concerns; NULL for the whole capture.",
                |w| Cell::opt(w.draw),
            ),
            c("message", Text, "What was left out, and why.", |w| {
                Cell::text(w.message.clone())
            }),
        ],
    }
}
