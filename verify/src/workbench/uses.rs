//! What guest memory each draw reads or writes, and as what: its index buffer, each vertex
//! attribute array of its input mask, each enabled texture unit (fragment and vertex), its
//! fragment program and its render targets. Each use is one byte range of one memory space;
//! ranges that divide into elements (index and vertex arrays) say how, so that an address
//! inside them can be named "element k".
//!
//! The ranges are the bytes the hardware reads for the draw (rrc-format.md 4.2 to 4.8):
//! - index buffer: from the first range's first element to the last element any range reads,
//!   at the index array offset forced to the index size (RPCS3 `get_raw_index_array`);
//! - attribute `n`: the elements the draw's vertices read, from `(base offset + array offset) &
//!   0x0FFFFFFF` (RPCS3 `get_vertex_offset_from_base`) with the array's stride and the
//!   frequency divider (`rsxtrace_fetch::fetch` restates both); inline and immediate-mode
//!   vertices are in the command stream, not in memory, and have no range;
//! - texture unit: every sub-resource of the unit's texture (`rsxtrace_replay::texture`);
//! - fragment program: from its address through the END slot (and its constant slot);
//! - colour and depth targets: the surface layout the renderers write
//!   (`rsxtrace_replay::render::surface::SurfaceLayout`).
//!
//! What cannot be placed (an index buffer the capture lacks, an unsupported texture format, a
//! surface with a bad pitch) is listed in [`DrawUses::problems`] and the rest is still given.

use rsxtrace_capture::fetch::format::ElementFormat;
use rsxtrace_capture::fetch::index::{element_indices, read_indexed};
use rsxtrace_capture::fetch::{FrequencyOp, VertexArray, VertexSource};
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::render::state::{color_targets, ColorFormat, DepthFormat};
use rsxtrace_replay::render::surface::{bytes_per_pixel, depth_bytes_per_pixel, SurfaceLayout};
use rsxtrace_replay::texture::texture_extent;
use serde::Serialize;

/// `VERTEX_DATA_BASE_OFFSET + ARRAY_OFFSET` mask (rrc-format.md 4.2; RPCS3 `rsx_utils.h`
/// `get_vertex_offset_from_base`), as `rsxtrace_fetch` applies it.
const VERTEX_OFFSET_MASK: u32 = 0x0FFF_FFFF;

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

/// The uses of every draw of `frame`.
pub fn frame_uses(frame: &Frame) -> DrawUses {
    let mut out = DrawUses::default();
    for draw in &frame.draws {
        draw_uses_into(frame, draw, &mut out);
    }
    out
}

/// The uses of one draw.
pub fn draw_uses(frame: &Frame, draw: &Draw) -> DrawUses {
    let mut out = DrawUses::default();
    draw_uses_into(frame, draw, &mut out);
    out
}

fn draw_uses_into(frame: &Frame, draw: &Draw, out: &mut DrawUses) {
    let mut push =
        |role: Role, placed: Result<Option<(Location, u32, u64, Option<Elements>)>, String>| {
            match placed {
                Ok(Some((location, offset, len, elements))) if len > 0 => {
                    out.uses.push(MemoryUse {
                        draw: draw.index,
                        role,
                        location,
                        offset,
                        len,
                        elements,
                    })
                }
                Ok(_) => {}
                Err(reason) => out.problems.push(UseProblem {
                    draw: draw.index,
                    role,
                    reason,
                }),
            }
        };
    let vertex_ids = vertex_id_span(frame, draw);
    if let VertexSource::Indexed { index, ranges } = &draw.vertex_inputs.source {
        let size = index.ty.size();
        let base = index.offset & !(size - 1);
        let first = ranges.iter().map(|r| u64::from(r.first)).min();
        let last = ranges
            .iter()
            .map(|r| u64::from(r.first) + u64::from(r.count))
            .max();
        if let (Some(first), Some(last)) = (first, last) {
            let start = u64::from(base) + first * u64::from(size);
            let len = (last - first) * u64::from(size);
            push(
                Role::IndexBuffer,
                u32::try_from(start)
                    .map(|s| {
                        Some((
                            index.location,
                            s,
                            len,
                            Some(Elements { base, stride: size }),
                        ))
                    })
                    .map_err(|_| "the index buffer lies past 4 GiB".to_string()),
            );
        }
    }
    let inputs = &draw.vertex_inputs;
    let in_memory = matches!(
        inputs.source,
        VertexSource::Arrays { .. } | VertexSource::Indexed { .. } | VertexSource::Elements { .. }
    );
    for attribute in 0u8..16 {
        let Some(Some(array)) = inputs.arrays.get(usize::from(attribute)) else {
            continue;
        };
        if inputs.input_mask & (1 << attribute) == 0 || !in_memory {
            continue;
        }
        let placed = match &vertex_ids {
            Ok(Some((lo, hi))) => attribute_range(attribute, array, inputs.base_offset, *lo, *hi),
            Ok(None) => Ok(None),
            Err(e) => Err(e.clone()),
        };
        push(Role::Attribute { attribute }, placed);
    }
    for (unit, texture) in (0u8..).zip(draw.textures.iter()) {
        if texture.control0.enabled {
            push(
                Role::Texture { unit },
                texture_extent(unit, texture)
                    .map(|(l, o, n)| Some((l, o, n, None)))
                    .map_err(|e| e.to_string()),
            );
        }
    }
    for (unit, texture) in (0u8..).zip(draw.vertex_textures.iter()) {
        if texture.control0.enabled {
            push(
                Role::VertexTexture { unit },
                texture_extent(unit, texture)
                    .map(|(l, o, n)| Some((l, o, n, None)))
                    .map_err(|e| e.to_string()),
            );
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
    if let Some(format) = DepthFormat::from_raw(surface.format.depth_format.raw) {
        push(
            Role::DepthTarget,
            SurfaceLayout::of_target(surface, 4, depth_bytes_per_pixel(format))
                .map(|l| Some((l.location, l.offset, l.byte_len(), None)))
                .map_err(|e| e.to_string()),
        );
    }
}

/// The smallest and largest vertex id the draw submits (`None` for no vertex; an error when
/// the index buffer cannot be read).
fn vertex_id_span(frame: &Frame, draw: &Draw) -> Result<Option<(u32, u32)>, String> {
    let inputs = &draw.vertex_inputs;
    let span = |ids: &mut dyn Iterator<Item = u32>| {
        ids.fold(None, |acc: Option<(u32, u32)>, v| {
            Some(acc.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
        })
    };
    match &inputs.source {
        VertexSource::Arrays { ranges } => Ok(ranges
            .iter()
            .filter(|r| r.count > 0)
            .map(|r| (r.first, r.first.saturating_add(r.count - 1)))
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))),
        VertexSource::Indexed { index, ranges } => {
            let memory = frame
                .memory(draw.index)
                .ok_or_else(|| "no such draw".to_string())?;
            let list = read_indexed(index, ranges, inputs.base_index, inputs.restart, &memory)
                .map_err(|e| format!("cannot read the index buffer: {e}"))?;
            Ok(span(&mut list.indices.iter().copied()))
        }
        VertexSource::Elements { indices } => {
            let list = element_indices(indices, inputs.base_index, inputs.restart);
            Ok(span(&mut list.indices.iter().copied()))
        }
        VertexSource::Inline { .. } | VertexSource::Immediate { .. } => Ok(None),
    }
}

/// The element of `array` vertex id `vid` reads (`rsxtrace_fetch::fetch`'s rule).
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

/// The bytes attribute `attribute` reads for vertex ids `lo..=hi`.
#[allow(clippy::type_complexity)]
fn attribute_range(
    attribute: u8,
    array: &VertexArray,
    base_offset: u32,
    lo: u32,
    hi: u32,
) -> Result<Option<(Location, u32, u64, Option<Elements>)>, String> {
    let format = ElementFormat::new(attribute, array.ty, array.size).map_err(|e| e.to_string())?;
    let base = base_offset.wrapping_add(array.offset) & VERTEX_OFFSET_MASK;
    let stride = u32::from(array.stride);
    let (first, last) = if stride == 0 {
        (0, 0)
    } else {
        let modulo = array.frequency > 1 && array.frequency_op == FrequencyOp::Modulo;
        if modulo && hi - lo >= u32::from(array.frequency) - 1 {
            (0, u32::from(array.frequency) - 1)
        } else if modulo {
            let (a, b) = (element_of(array, lo), element_of(array, hi));
            if a <= b {
                (a, b)
            } else {
                (0, u32::from(array.frequency) - 1)
            }
        } else {
            (element_of(array, lo), element_of(array, hi))
        }
    };
    let start = u64::from(base) + u64::from(first) * u64::from(stride);
    let len = u64::from(last - first) * u64::from(stride) + u64::from(format.read_bytes());
    let start = u32::try_from(start).map_err(|_| "the array lies past 4 GiB".to_string())?;
    Ok(Some((
        array.location,
        start,
        len,
        Some(Elements { base, stride }),
    )))
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
