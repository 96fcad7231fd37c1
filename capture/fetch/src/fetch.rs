//! The fetch driver: walks a draw's vertex source (array ranges, index buffer, array elements
//! or inline words), then fills one f32x4 column per attribute of the input mask from arrays,
//! inline data or immediate values. An attribute whose value the capture does not hold (set
//! before the captured frame) never stops the fetch: it takes what RPCS3's replay reads and its
//! column says which values are unknown ([`crate::UnknownValues`]).

use crate::decode::{decode_as, decode_element};
use crate::error::FetchError;
use crate::format::ElementFormat;
use crate::index::{element_indices, read_indexed, IndexList};
use crate::input::{
    DrawRange, FrequencyOp, ImmediateStream, ImmediateValue, IndexArray, VertexArray, VertexInputs,
    VertexSource, VertexType,
};
use crate::output::{
    AttributeData, AttributeSource, FetchedVertices, MissingElement, UnknownValues,
};
use crate::GuestMemory;

/// Most vertices one draw may submit. Array draws are not backed by bytes in the capture (their
/// count comes from registers), so the output size is bounded here instead: 2^24 vertices,
/// far above what the RSX FIFO can describe in one frame.
pub const MAX_VERTICES: u64 = 1 << 24;

/// Most bytes of attribute columns one draw may fetch: 1 GiB of 16-byte values (a 2^24-vertex
/// draw of four attributes; 64 M vertex-attributes). A draw's vertex count comes from
/// registers, and an attribute with no array repeats its immediate value without bytes behind
/// it, so the columns are bounded here rather than by the capture's size.
pub const MAX_FETCH_BYTES: u64 = 1 << 30;

/// Mask applied to `VERTEX_DATA_BASE_OFFSET + ARRAY_OFFSET` (rrc-format.md 3.3 / 4.2, RPCS3
/// `rsx_utils.h` `get_vertex_offset_from_base`).
const VERTEX_OFFSET_MASK: u32 = 0x0FFF_FFFF;

/// Fetch every vertex `inputs` submits, in processing order.
///
/// * `DRAW_ARRAYS`: vertex ids `first..first+count`, range after range (no base index, as in
///   RPCS3's non-indexed path).
/// * `DRAW_INDEX_ARRAY` / `ARRAY_ELEMENT*`: one vertex per index position; restart indices
///   are recorded in [`FetchedVertices::restarts`], not as vertices.
/// * `INLINE_ARRAY`: the words hold the vertices, interleaved with every enabled array's
///   host element size in attribute order.
/// * Immediate mode: vertex `p` has index `p`; each attribute of the input mask takes its
///   stream's value for the vertex, or its immediate value; arrays are not read.
///
/// The frequency divider (divide or modulo) applies to the vertex index itself, after the
/// base index. RPCS3 instead divides the index relative to the draw's first vertex (or lowest
/// index) and reads from a window that starts at that vertex divided by the frequency
/// (`RSXDrawCommands.cpp`, `VKVertexBuffers.cpp`), an artefact of how it uploads only the
/// vertices a draw spans; the two agree when a draw starts at 0 (docs/raster.md).
pub fn fetch_draw(
    inputs: &VertexInputs,
    mem: &impl GuestMemory,
) -> Result<FetchedVertices, FetchError> {
    let list = match &inputs.source {
        VertexSource::Inline { words } => return fetch_inline(inputs, words),
        VertexSource::Immediate { count, streams } => {
            return fetch_immediate(inputs, *count, streams)
        }
        _ => positions(inputs, mem)?,
    };
    let attributes = array_columns(inputs, &list.indices, mem)?;
    Ok(FetchedVertices {
        indices: list.indices,
        attributes,
        restarts: list.restarts,
        range_starts: list.range_starts,
    })
}

/// The processing positions a draw submits, without its attributes: the vertex index at each
/// position (as [`FetchedVertices::indices`]), the restarts and the range starts that
/// [`fetch_draw`] gives for the same draw. Only an indexed draw reads memory (its index
/// buffer). What counts a draw's primitives needs no more.
pub fn positions(inputs: &VertexInputs, mem: &impl GuestMemory) -> Result<IndexList, FetchError> {
    let sequential = |count: usize| IndexList {
        indices: (0..count as u32).collect(),
        restarts: Vec::new(),
        range_starts: vec![0],
    };
    Ok(match &inputs.source {
        VertexSource::Inline { words } => {
            let (_, stride) = inline_layout(inputs)?;
            let count = words.len() * 4 / stride;
            check_count(count as u64)?;
            sequential(count)
        }
        VertexSource::Immediate { count, .. } => {
            check_count(u64::from(*count))?;
            sequential(*count as usize)
        }
        VertexSource::Arrays { ranges } => {
            check_count(total_count(ranges))?;
            array_indices(ranges)
        }
        VertexSource::Indexed { index, ranges } => indexed_list(inputs, index, ranges, mem)?,
        VertexSource::Elements { indices } => elements_list(inputs, indices)?,
    })
}

/// The index list of an indexed draw (after the base index, restarts taken out).
pub(crate) fn indexed_list(
    inputs: &VertexInputs,
    index: &IndexArray,
    ranges: &[DrawRange],
    mem: &impl GuestMemory,
) -> Result<IndexList, FetchError> {
    check_count(total_count(ranges))?;
    read_indexed(index, ranges, inputs.base_index, inputs.restart, mem)
}

/// The index list of `ARRAY_ELEMENT*` indices (after the base index, restarts taken out).
pub(crate) fn elements_list(
    inputs: &VertexInputs,
    indices: &[u32],
) -> Result<IndexList, FetchError> {
    check_count(indices.len() as u64)?;
    Ok(element_indices(indices, inputs.base_index, inputs.restart))
}

/// One column per attribute of the input mask for the vertices `indices` of an array,
/// indexed or array-element draw: from its array, or its immediate value.
pub(crate) fn array_columns(
    inputs: &VertexInputs,
    indices: &[u32],
    mem: &impl GuestMemory,
) -> Result<Vec<AttributeData>, FetchError> {
    check_columns(indices.len(), inputs.input_mask)?;
    let mut attributes = Vec::new();
    for attribute in attributes_in(inputs.input_mask) {
        let column = match &inputs.arrays[usize::from(attribute)] {
            Some(array) => fetch_array(attribute, array, inputs.base_offset, indices, mem)?,
            None => immediate_column(inputs, attribute, indices.len()),
        };
        attributes.push(column);
    }
    Ok(attributes)
}

/// Attribute numbers set in `mask`, ascending.
pub(crate) fn attributes_in(mask: u16) -> impl Iterator<Item = u8> {
    (0u8..16).filter(move |i| mask & (1 << i) != 0)
}

pub(crate) fn total_count(ranges: &[DrawRange]) -> u64 {
    ranges.iter().map(|r| u64::from(r.count)).sum()
}

pub(crate) fn check_count(count: u64) -> Result<(), FetchError> {
    if count > MAX_VERTICES {
        return Err(FetchError::TooManyVertices {
            count,
            limit: MAX_VERTICES,
        });
    }
    Ok(())
}

/// Refuse columns of `count` vertices for every attribute of `mask` larger than
/// [`MAX_FETCH_BYTES`], before any is allocated.
pub(crate) fn check_columns(count: usize, mask: u16) -> Result<(), FetchError> {
    let attributes = mask.count_ones();
    let bytes = (count as u64).saturating_mul(u64::from(attributes) * 16);
    if bytes > MAX_FETCH_BYTES {
        return Err(FetchError::TooManyValues {
            // At most MAX_VERTICES (checked before), so it fits.
            count: u32::try_from(count).unwrap_or(u32::MAX),
            attributes: attributes as u8,
        });
    }
    Ok(())
}

/// Vertex ids of `DRAW_ARRAYS` ranges (count already checked against [`MAX_VERTICES`]).
pub(crate) fn array_indices(ranges: &[DrawRange]) -> IndexList {
    let mut list = IndexList {
        indices: Vec::with_capacity(total_count(ranges) as usize),
        ..IndexList::default()
    };
    for range in ranges {
        list.range_starts.push(list.indices.len());
        list.indices
            .extend((0..range.count).map(|i| range.first.wrapping_add(i)));
    }
    list
}

/// A column holding the attribute's immediate value for all `count` vertices. A value the
/// capture does not hold (set before the frame) is replaced by what RPCS3's replay reads
/// ([`ImmediateValue::replayed`]) and the column is marked unknown.
fn immediate_column(inputs: &VertexInputs, attribute: u8, count: usize) -> AttributeData {
    let value = inputs.immediate[usize::from(attribute)];
    let (source, unknown) = match value {
        ImmediateValue::Known(_) => (AttributeSource::Immediate, UnknownValues::None),
        ImmediateValue::Partial { .. } => (AttributeSource::Immediate, UnknownValues::All),
        ImmediateValue::Unknown => (AttributeSource::Unset, UnknownValues::All),
    };
    AttributeData {
        attribute,
        source,
        values: vec![value.replayed(); count],
        unknown,
        missing: None,
    }
}

/// Element number read for vertex index `vid` (RSXVertexFetch.glsl `read_location`; a
/// frequency of 0 or 1 means per vertex, RSXDrawCommands.cpp `fill_vertex_layout_state`).
#[inline]
fn element_of(array: &VertexArray, vid: u32) -> u32 {
    let freq = u32::from(array.frequency);
    if freq <= 1 {
        return vid;
    }
    match array.frequency_op {
        FrequencyOp::Divide => vid / freq,
        FrequencyOp::Modulo => vid % freq,
    }
}

/// Decode attribute `attribute` from its array for every vertex index in `indices`.
///
/// An element whose bytes the capture does not hold is decoded from zero bytes and marked
/// unknown: RPCS3's replay reads memory no captured block wrote as zeros (it allocates the
/// replay's memory fresh, `rsx_replay.cpp`), and its recorder leaves out elements a draw
/// reads, for example those of an attribute with a frequency divider outside the draw's own
/// vertex range (`rsx_capture.cpp` `capture_draw_memory` records `first..first + count`).
fn fetch_array(
    attribute: u8,
    array: &VertexArray,
    base_offset: u32,
    indices: &[u32],
    mem: &impl GuestMemory,
) -> Result<AttributeData, FetchError> {
    let format = ElementFormat::new(attribute, array.ty, array.size)?;
    let base = array_base(array, base_offset);
    let read_len = format.read_bytes();
    let stride = u32::from(array.stride);
    let column = |values: Vec<[f32; 4]>, gaps: Gaps| {
        let unknown = match gaps.positions.len() {
            0 => UnknownValues::None,
            n if n == values.len() => UnknownValues::All,
            _ => UnknownValues::Positions(gaps.positions),
        };
        AttributeData {
            attribute,
            source: AttributeSource::Array,
            values,
            unknown,
            missing: gaps.first.map(|offset| MissingElement {
                location: array.location,
                offset,
                len: read_len,
            }),
        }
    };
    // What zero bytes decode to (a missing element's value).
    let zero = decode_element(format, &[0u8; 16]).unwrap_or([0.0; 4]);
    let read_one = |offset: u32| -> Option<[f32; 4]> {
        mem.read(array.location, offset, read_len)
            .and_then(|bytes| decode_element(format, &bytes))
    };

    if indices.is_empty() {
        return Ok(column(Vec::new(), Gaps::default()));
    }
    if stride == 0 {
        // One element shared by all vertices (rrc-format.md 4.3; RPCS3 sets frequency 0,
        // i.e. vertex id 0, for stride-0 arrays).
        let mut gaps = Gaps::default();
        let value = match read_one(base) {
            Some(v) => v,
            None => {
                gaps.first = Some(base);
                gaps.positions = (0..indices.len()).collect();
                zero
            }
        };
        return Ok(column(vec![value; indices.len()], gaps));
    }

    let (min, max) = element_bounds(array, indices);
    // Fast path: one block holding every element, when the span does not wrap the 32-bit
    // space (interleaved attributes, each in its own block, go element by element below
    // rather than copying the span together).
    if let Some((start, len)) = element_span(base, stride, read_len, min, max) {
        if let Some(bytes) = mem.read_held(array.location, start, len) {
            if let Some(values) = decode_from_block(array, format, min, bytes, indices) {
                return Ok(column(values, Gaps::default()));
            }
        }
    }
    // Element by element, so a gap is found at its exact address; over the few blocks
    // visible across the span when the memory gives them (interleaved attributes, each in
    // its own block, come here: see `visible`).
    let blocks = element_span(base, stride, read_len, min, max)
        .and_then(|(start, len)| mem.visible_blocks(array.location, start, len));
    let mut values = Vec::with_capacity(indices.len());
    let mut gaps = Gaps::default();
    for (position, &vid) in indices.iter().enumerate() {
        let offset = base.wrapping_add(element_of(array, vid).wrapping_mul(stride));
        let value = match &blocks {
            Some(blocks) => blocks
                .read(offset, read_len)
                .and_then(|bytes| decode_element(format, &bytes)),
            None => read_one(offset),
        };
        values.push(value.unwrap_or_else(|| {
            gaps.first.get_or_insert(offset);
            gaps.positions.push(position);
            zero
        }));
    }
    Ok(column(values, gaps))
}

/// The elements of a column the capture lacks: their output positions (ascending) and the
/// first one's address.
#[derive(Default)]
struct Gaps {
    positions: Vec<usize>,
    first: Option<u32>,
}

/// The lowest and highest element `indices` read from `array` (`(u32::MAX, 0)` for none).
pub(crate) fn element_bounds(array: &VertexArray, indices: &[u32]) -> (u32, u32) {
    indices.iter().fold((u32::MAX, 0), |(lo, hi), &vid| {
        let e = element_of(array, vid);
        (lo.min(e), hi.max(e))
    })
}

/// `(offset, len)` of the bytes of elements `min..=max` of an array at `base` (the one read of
/// the fast path), or `None` when it does not fit the 32-bit address space.
pub(crate) fn element_span(
    base: u32,
    stride: u32,
    read_len: u32,
    min: u32,
    max: u32,
) -> Option<(u32, u32)> {
    let start = u64::from(base) + u64::from(min) * u64::from(stride);
    let end = u64::from(base) + u64::from(max) * u64::from(stride) + u64::from(read_len);
    if end > 1 << 32 {
        return None;
    }
    Some((u32::try_from(start).ok()?, u32::try_from(end - start).ok()?))
}

/// An array's first element address: base offset plus array offset, masked
/// (rrc-format.md 3.3 / 4.2).
pub(crate) fn array_base(array: &VertexArray, base_offset: u32) -> u32 {
    base_offset.wrapping_add(array.offset) & VERTEX_OFFSET_MASK
}

/// Decode every vertex from `block`, which starts at element `min`. `None` if an element falls
/// outside the block.
fn decode_from_block(
    array: &VertexArray,
    format: ElementFormat,
    min: u32,
    block: &[u8],
    indices: &[u32],
) -> Option<Vec<[f32; 4]>> {
    // One loop per type, each with its decoder inlined (`decode_as` with a constant type).
    macro_rules! each_type {
        ($($ty:ident),*) => {
            match format.ty() {
                $(VertexType::$ty => decode_rows(array, min, block, indices, |bytes| {
                    decode_as(VertexType::$ty, format, bytes)
                }),)*
            }
        };
    }
    each_type!(F, SF, S1, S32K, UB, UB256, CMP)
}

/// The elements `indices` name in `block` (starting at element `min`), each through `decode`.
#[inline(always)]
fn decode_rows(
    array: &VertexArray,
    min: u32,
    block: &[u8],
    indices: &[u32],
    decode: impl Fn(&[u8]) -> Option<[f32; 4]>,
) -> Option<Vec<[f32; 4]>> {
    let stride = usize::from(array.stride);
    let mut values = Vec::with_capacity(indices.len());
    for &vid in indices {
        let rel = element_of(array, vid).checked_sub(min)? as usize;
        let at = rel.checked_mul(stride)?;
        values.push(decode(block.get(at..)?)?);
    }
    Some(values)
}

/// Fetch an `INLINE_ARRAY` draw.
///
/// Layout (RSXDrawCommands.cpp `analyse_inputs_interleaved` / `fill_vertex_layout_state`):
/// every attribute whose array size is non-zero, enabled in the input mask or not, takes its
/// host element size in attribute order; the vertex stride is their sum; array stride,
/// frequency and offset registers are not used. RPCS3 byte-swaps each recorded word back to
/// big-endian layout (nv4097.cpp `draw_inline_array`) and decodes it like guest memory, so the
/// bytes here are each word's big-endian bytes. A trailing partial vertex is dropped, as
/// RPCS3's `vertex_count = bytes / stride` does.
/// Per attribute, where its element sits in an inline vertex (format, byte offset); `None`
/// for an attribute without an array.
type InlineLayout = [Option<(ElementFormat, usize)>; 16];

/// The inline vertex layout of the enabled arrays, and the vertex's size in bytes (never 0).
fn inline_layout(inputs: &VertexInputs) -> Result<(InlineLayout, usize), FetchError> {
    let mut layout: InlineLayout = [None; 16];
    let mut stride = 0usize;
    for (attribute, array) in (0u8..).zip(inputs.arrays.iter()) {
        if let Some(array) = array {
            let format = ElementFormat::new(attribute, array.ty, array.size)?;
            layout[usize::from(attribute)] = Some((format, stride));
            stride += format.host_bytes() as usize;
        }
    }
    if stride == 0 {
        return Err(FetchError::InlineWithoutArrays);
    }
    Ok((layout, stride))
}

fn fetch_inline(inputs: &VertexInputs, words: &[u32]) -> Result<FetchedVertices, FetchError> {
    let (layout, stride) = inline_layout(inputs)?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    let count = bytes.len() / stride;
    check_count(count as u64)?;
    check_columns(count, inputs.input_mask)?;

    let mut attributes = Vec::new();
    for attribute in attributes_in(inputs.input_mask) {
        let column = match layout[usize::from(attribute)] {
            Some((format, offset)) => {
                let mut values = Vec::with_capacity(count);
                for v in 0..count {
                    // In range: v * stride + offset + read_bytes <= count * stride <= len.
                    let element = bytes.get(v * stride + offset..).unwrap_or(&[]);
                    values.push(decode_element(format, element).unwrap_or([0.0; 4]));
                }
                AttributeData {
                    attribute,
                    source: AttributeSource::Inline,
                    values,
                    unknown: UnknownValues::None,
                    missing: None,
                }
            }
            None => immediate_column(inputs, attribute, count),
        };
        attributes.push(column);
    }
    Ok(FetchedVertices {
        indices: (0..count as u32).collect(),
        attributes,
        restarts: Vec::new(),
        range_starts: vec![0],
    })
}

/// Fetch an immediate-mode draw (`VertexSource::Immediate`).
///
/// The frame model has already applied RPCS3's rules (`RSXDrawCommands.cpp`
/// `analyse_inputs_interleaved`): an attribute with a stream reads it per vertex; any other
/// attribute reads its register (immediate) value, even when an array is enabled for it.
fn fetch_immediate(
    inputs: &VertexInputs,
    count: u32,
    streams: &[ImmediateStream],
) -> Result<FetchedVertices, FetchError> {
    check_count(u64::from(count))?;
    check_columns(count as usize, inputs.input_mask)?;
    let n = count as usize;
    let mut attributes = Vec::new();
    for attribute in attributes_in(inputs.input_mask) {
        let column = match streams.iter().find(|s| s.attribute == attribute) {
            Some(stream) => {
                if stream.values.len() != n {
                    return Err(FetchError::ImmediateStreamLength {
                        attribute,
                        len: stream.values.len(),
                        count,
                    });
                }
                let values: Vec<[f32; 4]> = stream.values.iter().map(|v| v.replayed()).collect();
                let positions: Vec<usize> = (0..n)
                    .filter(|&p| stream.values[p].known().is_none())
                    .collect();
                let unknown = match positions.len() {
                    0 => UnknownValues::None,
                    k if k == n => UnknownValues::All,
                    _ => UnknownValues::Positions(positions),
                };
                AttributeData {
                    attribute,
                    source: AttributeSource::PushBuffer,
                    values,
                    unknown,
                    missing: None,
                }
            }
            None => immediate_column(inputs, attribute, n),
        };
        attributes.push(column);
    }
    Ok(FetchedVertices {
        indices: (0..count).collect(),
        attributes,
        restarts: Vec::new(),
        range_starts: vec![0],
    })
}
