//! What guest memory each draw reads or writes, and as what: its index buffer, each vertex
//! attribute array of its input mask, each enabled texture unit (fragment and vertex), its
//! fragment program and its render targets. Each use is one byte range of one memory space;
//! ranges that divide into elements (index and vertex arrays) say how, so that an address
//! inside them can be named "element k".
//!
//! The ranges are the bytes the hardware reads for the draw (rrc-format.md 4.2 to 4.8), by the
//! fetch's and the texture model's own span rules:
//! - index buffer: from the lowest to the highest byte the draw's index ranges read
//!   (`rsxtrace_fetch::fetch_spans`), element 0 at the index array offset;
//! - attribute `n`: the elements the draw's vertices read (`fetch_spans`: base offset, stride
//!   and frequency divider applied), element 0 at the array's base; inline and immediate-mode
//!   vertices are in the command stream, not in memory, and have no range;
//! - texture unit: every sub-resource of the unit's texture
//!   (`rsxtrace_replay::texture::texture_spans`);
//! - fragment program: from its address through the END slot (and its constant slot);
//! - colour and depth targets: the surface layout the renderers write
//!   (`rsxtrace_replay::render::surface::SurfaceLayout`).
//!
//! What cannot be placed (an index buffer the capture lacks, an unsupported texture format, a
//! surface with a bad pitch) is listed in [`DrawUses::problems`] and the rest is still given.

use super::bytes::{bytes_key, BytesKey};
use rayon::prelude::*;
use rsxtrace_capture::fetch::{fetch_spans, FetchSpans, VertexSource};
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::render::state::{color_targets, ColorFormat, DepthFormat};
use rsxtrace_replay::render::surface::{bytes_per_pixel, depth_bytes_per_pixel, SurfaceLayout};
use rsxtrace_replay::texture::texture_spans;
use serde::Serialize;
use std::collections::HashMap;

/// What a draw uses a byte range as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Role {
    /// The index buffer of an indexed draw.
    IndexBuffer,
    /// A vertex attribute array.
    Attribute {
        /// Attribute number, 0..=15.
        attribute: u8,
    },
    /// A fragment texture unit's texels.
    Texture {
        /// Unit, 0..16.
        unit: u8,
    },
    /// A vertex texture unit's texels.
    VertexTexture {
        /// Unit, 0..4.
        unit: u8,
    },
    /// The fragment program's microcode.
    FragmentProgram,
    /// The vertex program (program memory, not a memory use: only `find` names it).
    VertexProgram,
    /// A colour render target.
    ColorTarget {
        /// 0..4 = A..D.
        target: u8,
    },
    /// The depth/stencil render target.
    DepthTarget,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Role::IndexBuffer => write!(f, "index buffer"),
            Role::Attribute { attribute } => write!(f, "attribute {attribute}"),
            Role::Texture { unit } => write!(f, "texture unit {unit}"),
            Role::VertexTexture { unit } => write!(f, "vertex texture unit {unit}"),
            Role::FragmentProgram => write!(f, "fragment program"),
            Role::VertexProgram => write!(f, "vertex program"),
            Role::ColorTarget { target } => write!(
                f,
                "colour surface {}",
                ["A", "B", "C", "D"]
                    .get(usize::from(*target))
                    .unwrap_or(&"?")
            ),
            Role::DepthTarget => write!(f, "depth surface"),
        }
    }
}

/// How a use's bytes divide into elements: element `k` starts at `base + k * stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Elements {
    /// Address of element 0 (the index array offset, or the attribute array's base).
    pub base: u32,
    /// Bytes per element (0 for a stride-0 attribute: one element for every vertex).
    pub stride: u32,
}

impl Elements {
    /// The element holding `address` and the byte offset inside it, when `address` is at or
    /// after element 0.
    pub fn element_at(&self, address: u32) -> Option<(u64, u32)> {
        let from = address.checked_sub(self.base)?;
        if self.stride == 0 {
            return Some((0, from));
        }
        Some((u64::from(from / self.stride), from % self.stride))
    }
}

/// One byte range a draw uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MemoryUse {
    /// Draw index.
    pub draw: usize,
    /// As what.
    pub role: Role,
    /// Memory space.
    pub location: Location,
    /// First byte.
    pub offset: u32,
    /// Length in bytes.
    pub len: u64,
    /// Element layout of index and attribute arrays.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elements: Option<Elements>,
}

impl MemoryUse {
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        u64::from(self.offset) + self.len
    }

    /// Whether `[address, address + len)` in `location` overlaps this use.
    pub fn overlaps(&self, location: Location, address: u32, len: u64) -> bool {
        location == self.location
            && u64::from(address) < self.end()
            && u64::from(address) + len > u64::from(self.offset)
    }
}

/// A use that could not be placed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UseProblem {
    /// Draw index.
    pub draw: usize,
    /// The role.
    pub role: Role,
    /// Why.
    pub reason: String,
}

/// The uses of some draws, with what could not be placed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DrawUses {
    /// Uses in draw order, then role order.
    pub uses: Vec<MemoryUse>,
    /// Uses that could not be placed.
    pub problems: Vec<UseProblem>,
}

/// The uses of every draw of `frame`. Draws run in parallel; draws with the same vertex input
/// state over the same index bytes share one vertex span computation (games draw a mesh many
/// times).
pub fn frame_uses(frame: &Frame) -> DrawUses {
    let keys: Vec<Option<SpanKey>> = frame.draws.iter().map(|d| span_key(frame, d)).collect();
    let mut first_of: HashMap<&SpanKey, usize> = HashMap::new();
    for (i, key) in keys.iter().enumerate() {
        if let Some(key) = key {
            first_of.entry(key).or_insert(i);
        }
    }
    let representatives: Vec<usize> = first_of.values().copied().collect();
    let computed: HashMap<usize, SpanResult> = representatives
        .par_iter()
        .map(|&i| (i, vertex_spans(frame, &frame.draws[i])))
        .collect();
    let per_draw: Vec<DrawUses> = frame
        .draws
        .par_iter()
        .zip(keys.par_iter())
        .map(|(draw, key)| {
            let shared = key
                .as_ref()
                .and_then(|k| first_of.get(k))
                .and_then(|i| computed.get(i));
            let mut out = DrawUses::default();
            match shared {
                Some(spans) => draw_uses_with(draw, spans, &mut out),
                None => draw_uses_with(draw, &vertex_spans(frame, draw), &mut out),
            }
            out
        })
        .collect();
    let mut out = DrawUses::default();
    for d in per_draw {
        out.uses.extend(d.uses);
        out.problems.extend(d.problems);
    }
    out
}

/// The uses of one draw.
pub fn draw_uses(frame: &Frame, draw: &Draw) -> DrawUses {
    let mut out = DrawUses::default();
    draw_uses_with(draw, &vertex_spans(frame, draw), &mut out);
    out
}

/// What decides a draw's vertex spans: its vertex input state and its index bytes (`None` for
/// draws that read no memory for vertices).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SpanKey {
    inputs: Vec<u8>,
    index_bytes: Vec<BytesKey>,
}

type SpanResult = Option<Result<FetchSpans, String>>;

fn span_key(frame: &Frame, draw: &Draw) -> Option<SpanKey> {
    let inputs = &draw.vertex_inputs;
    let mut index_bytes = Vec::new();
    match &inputs.source {
        VertexSource::Arrays { .. } | VertexSource::Elements { .. } => {}
        VertexSource::Indexed { index, ranges } => {
            for r in ranges {
                let len = r.count.checked_mul(index.ty.size())?;
                let offset = (index.offset & !(index.ty.size() - 1))
                    .checked_add(r.first.checked_mul(index.ty.size())?)?;
                index_bytes.push(bytes_key(
                    frame.memory_index(),
                    draw.end_command,
                    index.location,
                    offset,
                    u64::from(len),
                ));
            }
        }
        VertexSource::Inline { .. } | VertexSource::Immediate { .. } => return None,
    }
    let state = (
        &inputs.arrays,
        inputs.input_mask,
        inputs.base_offset,
        inputs.base_index,
        &inputs.restart,
        &inputs.source,
    );
    Some(SpanKey {
        inputs: serde_json::to_vec(&state).ok()?,
        index_bytes,
    })
}

fn vertex_spans(frame: &Frame, draw: &Draw) -> SpanResult {
    frame
        .memory(draw.index)
        .map(|m| fetch_spans(&draw.vertex_inputs, &m).map_err(|e| e.to_string()))
}

/// Where a use lies, `None` for nothing to place, or why it cannot be placed.
type Placed = Result<Option<(Location, u32, u64, Option<Elements>)>, String>;

fn draw_uses_with(draw: &Draw, spans: &SpanResult, out: &mut DrawUses) {
    let mut push = |role: Role, placed: Placed| match placed {
        Ok(Some((location, offset, len, elements))) if len > 0 => out.uses.push(MemoryUse {
            draw: draw.index,
            role,
            location,
            offset,
            len,
            elements,
        }),
        Ok(_) => {}
        Err(reason) => out.problems.push(UseProblem {
            draw: draw.index,
            role,
            reason,
        }),
    };
    let inputs = &draw.vertex_inputs;
    match spans {
        Some(Ok(spans)) => {
            if let (VertexSource::Indexed { index, ranges }, Some(first)) =
                (&inputs.source, spans.index_ranges.first())
            {
                // Element 0 is at the index array offset (forced to the index size).
                let size = index.ty.size();
                let base = ranges.first().map_or(first.offset, |r| {
                    first.offset.wrapping_sub(r.first.wrapping_mul(size))
                });
                let start = spans.index_ranges.iter().map(|s| s.offset).min();
                let end = spans
                    .index_ranges
                    .iter()
                    .map(|s| u64::from(s.offset) + u64::from(s.len))
                    .max();
                if let (Some(start), Some(end)) = (start, end) {
                    push(
                        Role::IndexBuffer,
                        Ok(Some((
                            index.location,
                            start,
                            end - u64::from(start),
                            Some(Elements { base, stride: size }),
                        ))),
                    );
                }
            }
            for a in &spans.attributes {
                let stride = inputs
                    .arrays
                    .get(usize::from(a.attribute))
                    .copied()
                    .flatten()
                    .map_or(0, |array| u32::from(array.stride));
                let base = a
                    .span
                    .offset
                    .wrapping_sub(a.first_element.wrapping_mul(stride));
                push(
                    Role::Attribute {
                        attribute: a.attribute,
                    },
                    Ok(Some((
                        a.span.location,
                        a.span.offset,
                        u64::from(a.span.len),
                        Some(Elements { base, stride }),
                    ))),
                );
            }
        }
        Some(Err(e)) => push(Role::IndexBuffer, Err(format!("vertex memory: {e}"))),
        None => {}
    }
    for (unit, texture) in (0u8..).zip(draw.textures.iter()) {
        if texture.control0.enabled {
            push(Role::Texture { unit }, texture_place(unit, texture));
        }
    }
    for (unit, texture) in (0u8..).zip(draw.vertex_textures.iter()) {
        if texture.control0.enabled {
            push(Role::VertexTexture { unit }, texture_place(unit, texture));
        }
    }
    if let Some(fp) = &draw.fragment_program {
        let len = (u64::from(fp.start_slot) + u64::from(fp.slot_count)) * 16;
        push(
            Role::FragmentProgram,
            Ok(Some((fp.address.location, fp.address.offset, len, None))),
        );
    }
    let surface = &draw.surface;
    if let Some(format) = ColorFormat::from_raw(surface.format.color_format.raw) {
        for target in color_targets(surface.color_target.raw).unwrap_or_default() {
            push(
                Role::ColorTarget {
                    target: target as u8,
                },
                SurfaceLayout::of_target(surface, target, bytes_per_pixel(format))
                    .map(|l| Some((l.location, l.offset, l.byte_len(), None)))
                    .map_err(|e| e.to_string()),
            );
        }
    }
    if let Some(format) = DepthFormat::of(surface) {
        push(
            Role::DepthTarget,
            SurfaceLayout::of_target(surface, 4, depth_bytes_per_pixel(format))
                .map(|l| Some((l.location, l.offset, l.byte_len(), None)))
                .map_err(|e| e.to_string()),
        );
    }
}

/// Where a unit's texels lie: from the first sub-resource's first byte to the end of the
/// last one's (`rsxtrace_replay::texture::texture_spans`).
fn texture_place(unit: u8, texture: &Texture) -> Placed {
    let spans = texture_spans(unit, texture).map_err(|e| e.to_string())?;
    let start = spans.iter().map(|s| s.offset).min();
    let end = spans
        .iter()
        .map(|s| u64::from(s.offset) + u64::from(s.len))
        .max();
    Ok(match (spans.first(), start, end) {
        (Some(first), Some(start), Some(end)) => {
            Some((first.location, start, end - u64::from(start), None))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_of_an_address() {
        let e = Elements {
            base: 0x100,
            stride: 24,
        };
        assert_eq!(e.element_at(0x100), Some((0, 0)));
        assert_eq!(e.element_at(0x100 + 24 * 5 + 12), Some((5, 12)));
        assert_eq!(e.element_at(0xFF), None);
        let shared = Elements {
            base: 0x100,
            stride: 0,
        };
        assert_eq!(shared.element_at(0x104), Some((0, 4)));
    }

    #[test]
    fn overlap_is_half_open() {
        let u = MemoryUse {
            draw: 0,
            role: Role::IndexBuffer,
            location: Location::Main,
            offset: 0x100,
            len: 16,
            elements: None,
        };
        assert!(u.overlaps(Location::Main, 0x10F, 1));
        assert!(!u.overlaps(Location::Main, 0x110, 4));
        assert!(u.overlaps(Location::Main, 0xFC, 5));
        assert!(!u.overlaps(Location::Main, 0xFC, 4));
        assert!(!u.overlaps(Location::Local, 0x100, 4));
    }
}
