//! Vertex and index fetch: turns a draw's [`VertexInputs`] and the captured guest memory into
//! one f32x4 per attribute per vertex, in processing order.
//!
//! Decoding rules are rrc-format.md section 4.3 (from RPCS3's `RSXVertexFetch.glsl` and
//! `get_vertex_type_size_on_host`).

pub mod input;

pub use input::*;

use rsxtrace_rrc::Location;

/// Read access to captured guest memory, as seen by one draw.
pub trait GuestMemory {
    /// The `len` bytes at `offset` in `location`, or `None` when the capture does not hold all
    /// of them.
    fn read(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]>;
}
