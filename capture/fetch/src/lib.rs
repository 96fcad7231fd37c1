//! Vertex and index fetch: turns a draw's [`VertexInputs`] and the captured guest memory into
//! one f32x4 per attribute per vertex, in processing order.
//!
//! Decoding rules are rrc-format.md section 4.3 (from RPCS3's `RSXVertexFetch.glsl` and
//! `get_vertex_type_size_on_host`).
//!
//! # Overview
//!
//! * [`input`]: the vertex-input state of one draw, filled by the frame model.
//! * [`fetch_draw`] ([`fetch`] module): walks array ranges, index buffers ([`index`]), array
//!   elements, inline words or immediate-mode vertices ([`VertexSource::Immediate`]), and
//!   decodes each attribute ([`decode`], [`format`](mod@format)).
//! * [`fetch_distinct`] ([`distinct`]): the same with each distinct vertex of an indexed draw
//!   fetched once, and each position's row among them (what the renderers shade).
//! * [`FetchedVertices`] ([`output`]): the result as a structure of arrays (an index column and
//!   one f32x4 column per attribute), with [`VertexView`]s for per-vertex access.
//! * [`fetch_spans`] ([`spans`]): the memory a draw's fetch reads (index ranges, one span per
//!   attribute), found without decoding a vertex.
//! * [`FetchError`] ([`error`]): missing memory (naming attribute, location and address),
//!   malformed array state. An attribute whose value was set before the captured frame takes
//!   what RPCS3's replay reads ([`UNSET_ATTRIBUTE`], [`ImmediateValue::replayed`]) and is
//!   marked in [`UnknownValues`]; it never stops the fetch.
//! * [`GuestMemory`]: what the fetch reads memory through; [`compose`] ([`visible`]) is the
//!   rule that reads a range from overlapping captured blocks, byte by byte the newest's;
//!   [`FlatMemory`] ([`flat`]) is one run of bytes in one location.
//!
//! ```
//! use rsxtrace_fetch::*;
//! use rsxtrace_rrc::Location;
//! use std::borrow::Cow;
//!
//! /// One block of local memory at offset 0x100.
//! struct Mem(Vec<u8>);
//! impl GuestMemory for Mem {
//!     fn read(&self, location: Location, offset: u32, len: u32) -> Option<Cow<'_, [u8]>> {
//!         let start = (offset as usize).checked_sub(0x100)?;
//!         (location == Location::Local).then_some(())?;
//!         self.0.get(start..start.checked_add(len as usize)?).map(Cow::Borrowed)
//!     }
//! }
//!
//! let mut arrays = [None; 16];
//! arrays[0] = Some(VertexArray {
//!     ty: VertexType::F,
//!     size: 2,
//!     stride: 8,
//!     frequency: 0,
//!     frequency_op: FrequencyOp::Divide,
//!     offset: 0x100,
//!     location: Location::Local,
//! });
//! let inputs = VertexInputs {
//!     arrays,
//!     immediate: [ImmediateValue::Unknown; 16],
//!     input_mask: 1,
//!     base_offset: 0,
//!     base_index: 0,
//!     restart: Restart { enabled: false, index: 0 },
//!     source: VertexSource::Arrays { ranges: vec![DrawRange { first: 1, count: 1 }] },
//! };
//! // Vertex 0 = (1.0, 2.0), vertex 1 = (3.0, 4.0), big-endian floats.
//! let mem = Mem(vec![
//!     0x3F, 0x80, 0, 0, 0x40, 0, 0, 0, 0x40, 0x40, 0, 0, 0x40, 0x80, 0, 0,
//! ]);
//! let fetched = fetch_draw(&inputs, &mem).unwrap();
//! assert_eq!(fetched.indices, vec![1]);
//! assert_eq!(fetched.vertex(0).unwrap().get(0), Some([3.0, 4.0, 0.0, 1.0]));
//! ```

pub mod decode;
pub mod distinct;
pub mod error;
pub mod fetch;
pub mod flat;
pub mod format;
pub mod index;
pub mod input;
pub mod output;
pub mod spans;
pub mod visible;

pub use distinct::{distinct_count, fetch_distinct, DistinctVertices};
pub use error::FetchError;
pub use fetch::{fetch_draw, positions, MAX_FETCH_BYTES, MAX_VERTICES};
pub use flat::FlatMemory;
pub use format::ElementFormat;
pub use input::*;
pub use output::{
    AttributeData, AttributeSource, FetchedVertices, MissingElement, UnknownValues, VertexView,
};
pub use spans::{fetch_spans, AttributeSpan, FetchSpans, Span};
pub use visible::{compose, VisibleBlock, VisibleBlocks};

use rsxtrace_rrc::Location;
use std::borrow::Cow;

/// Read access to captured guest memory, as seen by one draw.
pub trait GuestMemory {
    /// The `len` bytes at `offset` in `location`, or `None` when the capture does not hold all
    /// of them: borrowed when one captured block holds them, assembled when several do
    /// ([`compose`]'s rule).
    fn read(&self, location: Location, offset: u32, len: u32) -> Option<Cow<'_, [u8]>>;

    /// The `len` bytes at `offset` when one captured block holds them all (what
    /// [`read`](Self::read) borrows), without assembling them from several: for a fast path
    /// that has a cheaper way than copying a large range (the default asks `read`).
    fn read_held(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]> {
        match self.read(location, offset, len)? {
            Cow::Borrowed(bytes) => Some(bytes),
            Cow::Owned(_) => None,
        }
    }

    /// The blocks visible over `len` bytes at `offset`, for many small reads inside them
    /// that [`read`](Self::read) would answer the same ([`VisibleBlocks::read`]); `None`
    /// when the memory has nothing cheaper than a `read` per element (the default).
    fn visible_blocks(
        &self,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<VisibleBlocks<'_>> {
        let _ = (location, offset, len);
        None
    }
}
