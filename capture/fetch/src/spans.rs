//! The guest memory a draw's vertex fetch reads, found without decoding a vertex: each index
//! range it reads and, per attribute it reads from an array, the one span that covers every
//! element it reads (the read of [`crate::fetch_draw`]'s fast path). For indexing what a draw
//! uses (`rsxtrace index`, `rsxtrace find`); the index buffer is read to find the element
//! bounds, nothing else is.
//!
//! ```
//! use rsxtrace_fetch::*;
//! use rsxtrace_rrc::Location;
//!
//! struct NoMemory;
//! impl GuestMemory for NoMemory {
//!     fn read(&self, _: Location, _: u32, _: u32) -> Option<std::borrow::Cow<'_, [u8]>> {
//!         None
//!     }
//! }
//! let mut arrays = [None; 16];
//! arrays[0] = Some(VertexArray {
//!     ty: VertexType::F,
//!     size: 3,
//!     stride: 12,
//!     frequency: 0,
//!     frequency_op: FrequencyOp::Divide,
//!     offset: 0x1000,
//!     location: Location::Main,
//! });
//! let inputs = VertexInputs {
//!     arrays,
//!     immediate: [ImmediateValue::Unknown; 16],
//!     input_mask: 1,
//!     base_offset: 0,
//!     base_index: 0,
//!     restart: Restart { enabled: false, index: 0 },
//!     source: VertexSource::Arrays { ranges: vec![DrawRange { first: 2, count: 3 }] },
//! };
//! // Array draws read no index buffer, so no memory is needed to find their spans.
//! let spans = fetch_spans(&inputs, &NoMemory).unwrap();
//! assert_eq!(spans.attributes[0].span, Span { location: Location::Main, offset: 0x1018, len: 36 });
//! ```

use crate::error::FetchError;
use crate::fetch::{
    array_base, array_indices, attributes_in, check_count, element_bounds, element_span,
    total_count,
};
use crate::format::ElementFormat;
use crate::index::{element_indices, index_range_bytes, read_indexed};
use crate::input::{VertexInputs, VertexSource};
use crate::GuestMemory;
use rsxtrace_rrc::Location;
use serde::Serialize;

/// A byte range of guest memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Span {
    /// Local or main memory.
    pub location: Location,
    /// First byte.
    pub offset: u32,
    /// Length in bytes.
    pub len: u32,
}

/// The span one attribute's array is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AttributeSpan {
    /// Attribute number, 0..=15.
    pub attribute: u8,
    /// Lowest element read (the element number, before the stride is applied).
    pub first_element: u32,
    /// The bytes of elements `first_element` through the highest one read.
    pub span: Span,
}

/// What a draw's vertex fetch reads from guest memory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FetchSpans {
    /// The index buffer bytes of each `DRAW_INDEX_ARRAY` range, in range order.
    pub index_ranges: Vec<Span>,
    /// One span per attribute of the input mask that is read from an array, ascending.
    pub attributes: Vec<AttributeSpan>,
}

/// The memory `inputs` makes the fetch read (see the module docs). Inline and immediate-mode
/// draws read none (their vertices are in the command stream). Errors are those of
/// [`crate::fetch_draw`] that happen before any attribute is decoded: an index range that is
/// not in `mem`, an invalid array format, too many vertices.
pub fn fetch_spans(
    inputs: &VertexInputs,
    mem: &impl GuestMemory,
) -> Result<FetchSpans, FetchError> {
    let mut out = FetchSpans::default();
    let list = match &inputs.source {
        VertexSource::Inline { .. } | VertexSource::Immediate { .. } => return Ok(out),
        VertexSource::Arrays { ranges } => {
            check_count(total_count(ranges))?;
            array_indices(ranges)
        }
        VertexSource::Indexed { index, ranges } => {
            check_count(total_count(ranges))?;
            for (range_no, range) in ranges.iter().enumerate() {
                let (offset, len) = index_range_bytes(index, range_no, range)?;
                out.index_ranges.push(Span {
                    location: index.location,
                    offset,
                    len,
                });
            }
            read_indexed(index, ranges, inputs.base_index, inputs.restart, mem)?
        }
        VertexSource::Elements { indices } => {
            check_count(indices.len() as u64)?;
            element_indices(indices, inputs.base_index, inputs.restart)
        }
    };
    if list.indices.is_empty() {
        return Ok(out);
    }
    for attribute in attributes_in(inputs.input_mask) {
        let Some(array) = &inputs.arrays[usize::from(attribute)] else {
            continue;
        };
        let format = ElementFormat::new(attribute, array.ty, array.size)?;
        let base = array_base(array, inputs.base_offset);
        let stride = u32::from(array.stride);
        // A stride-0 array is one element shared by every vertex.
        let (min, max) = if stride == 0 {
            (0, 0)
        } else {
            element_bounds(array, &list.indices)
        };
        if let Some((offset, len)) = element_span(base, stride, format.read_bytes(), min, max) {
            out.attributes.push(AttributeSpan {
                attribute,
                first_element: min,
                span: Span {
                    location: array.location,
                    offset,
                    len,
                },
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::*;
    use crate::FlatMemory;

    fn array(ty: VertexType, size: u8, stride: u8, offset: u32) -> Option<VertexArray> {
        Some(VertexArray {
            ty,
            size,
            stride,
            frequency: 0,
            frequency_op: FrequencyOp::Divide,
            offset,
            location: Location::Local,
        })
    }

    fn inputs(source: VertexSource) -> VertexInputs {
        let mut arrays = [None; 16];
        arrays[0] = array(VertexType::F, 3, 16, 0x100);
        arrays[3] = array(VertexType::UB, 4, 16, 0x10C);
        arrays[5] = array(VertexType::F, 2, 0, 0x400); // stride 0: one shared element
        arrays[8] = array(VertexType::F, 2, 8, 0x800); // enabled but not in the input mask
        VertexInputs {
            arrays,
            immediate: [ImmediateValue::Unknown; 16],
            input_mask: 0b10_1001,
            base_offset: 0,
            base_index: 0,
            restart: Restart {
                enabled: true,
                index: 0xFFFF,
            },
            source,
        }
    }

    #[test]
    fn indexed_spans_cover_the_lowest_to_the_highest_index_and_match_the_fetch() {
        // u16 indices 7, 2, restart, 9 at 0x20 (range from element 1 of a buffer at 0x1E).
        let mut mem = vec![0u8; 0x1000];
        mem[0x20..0x28].copy_from_slice(&[0, 7, 0, 2, 0xFF, 0xFF, 0, 9]);
        let source = VertexSource::Indexed {
            index: IndexArray {
                ty: IndexType::U16,
                offset: 0x1E,
                location: Location::Local,
            },
            ranges: vec![DrawRange { first: 1, count: 4 }],
        };
        let spans = fetch_spans(&inputs(source.clone()), &FlatMemory::local(mem.clone())).unwrap();
        let local = |offset, len| Span {
            location: Location::Local,
            offset,
            len,
        };
        assert_eq!(spans.index_ranges, vec![local(0x20, 8)]);
        let got: Vec<(u8, u32, Span)> = spans
            .attributes
            .iter()
            .map(|a| (a.attribute, a.first_element, a.span))
            .collect();
        assert_eq!(
            got,
            vec![
                // Elements 2..=9 of stride 16, the last one 12 bytes (F x3) or 4 (UB x4).
                (0, 2, local(0x100 + 32, 7 * 16 + 12)),
                (3, 2, local(0x10C + 32, 7 * 16 + 4)),
                (5, 0, local(0x400, 8)),
            ]
        );
        // The fetch reads exactly those bytes: every value is known with them, and the last
        // element is unknown without one of its bytes.
        let full = crate::fetch_draw(&inputs(source.clone()), &FlatMemory::local(mem.clone()));
        assert!(full.expect("fetched").unknown_attributes().is_empty());
        let end = 0x100 + 32 + 7 * 16 + 12;
        let short = FlatMemory::local(mem[..end - 1].to_vec());
        let spans_short = fetch_spans(&inputs(source.clone()), &short);
        assert!(spans_short.is_ok(), "spans read only the index buffer");
        let fetched = crate::fetch_draw(&inputs(source), &short).expect("fetched");
        // Attributes 3 and 5 lie past the cut too.
        assert_eq!(fetched.unknown_attributes(), vec![0, 3, 5]);
        assert!(matches!(
            fetched.attribute(0).unwrap().unknown,
            crate::UnknownValues::Positions(_)
        ));
    }

    #[test]
    fn a_missing_index_buffer_is_the_fetch_error_and_inline_reads_nothing() {
        let source = VertexSource::Indexed {
            index: IndexArray {
                ty: IndexType::U32,
                offset: 0x2000,
                location: Location::Local,
            },
            ranges: vec![DrawRange { first: 0, count: 3 }],
        };
        assert!(matches!(
            fetch_spans(&inputs(source), &FlatMemory::local(vec![0; 16])),
            Err(FetchError::IndexMemory { .. })
        ));
        let inline = fetch_spans(
            &inputs(VertexSource::Inline { words: vec![0; 8] }),
            &FlatMemory::local(Vec::new()),
        )
        .unwrap();
        assert_eq!(inline, FetchSpans::default());
    }
}
