//! What guest memory a draw uses, and as what: its index ranges, each vertex attribute's span,
//! each enabled texture unit's sub-resources, its fragment program, and the render targets it
//! writes; then which captured memory blocks hold those bytes.
//!
//! Every range comes from the layer that reads it: [`rsxtrace_capture::fetch::fetch_spans`]
//! for vertices and indices, [`rsxtrace_replay::texture::texture_spans`] for textures, the
//! frame model's fragment program (its address and slot count) and surface state. A read
//! range maps to the block the draw's memory view reads it from
//! ([`rsxtrace_capture::frame::MemoryView::source`]); a range no single block holds maps to
//! every visible block that overlaps it, each with the part it holds. Render targets are
//! written, not read: they map to every visible block they overlap.
//!
//! ```
//! use rsxtrace_capture::builder::{synthetic, CaptureBuilder};
//! use rsxtrace_capture::frame::Frame;
//! use rsxtrace_capture::rrc::Location;
//! use rsxtrace_index::footprint::{block_uses, draw_uses, Role};
//!
//! let mut b = CaptureBuilder::new("doc");
//! b.put_memory(Location::Main, 0x1000, &[0u8; 36]).unwrap();
//! b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000).unwrap();
//! b.set_vertex_attrib_input_mask(1);
//! b.set_fragment_program(Location::Local, 0x100, &synthetic::FRAGMENT_MOV_COL0, 0x40).unwrap();
//! b.draw_arrays(5, &[(0, 3)]).unwrap();
//! let frame = Frame::from_capture(&b.finish()).unwrap();
//! let memory = frame.memory(0).unwrap();
//! let (uses, problems) = draw_uses(&frame.draws[0], &memory);
//! assert!(problems.is_empty());
//! let roles: Vec<Role> = block_uses(&uses, &memory).iter().map(|u| u.role).collect();
//! assert_eq!(roles, vec![Role::FragmentProgram, Role::Attribute(0)]);
//! ```

use rsxtrace_capture::fetch::{fetch_spans, Span};
use rsxtrace_capture::frame::{BlockSource, Draw, MemoryView};
use rsxtrace_capture::rrc::Location;
use rsxtrace_replay::texture::texture_spans;

/// What a draw uses a range of memory as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Its fragment program's microcode.
    FragmentProgram,
    /// Index range `n` of a `DRAW_INDEX_ARRAY` draw.
    IndexBuffer(u16),
    /// The array of vertex attribute `n`.
    Attribute(u8),
    /// Fragment texture unit `n`.
    Texture(u8),
    /// Vertex texture unit `n`.
    VertexTexture(u8),
    /// Colour target `n` (0 = A .. 3 = D), written.
    ColorTarget(u8),
    /// The depth/stencil target, written.
    DepthTarget,
}

impl Role {
    /// The name stored in `block_uses.role`.
    pub fn name(self) -> &'static str {
        match self {
            Role::FragmentProgram => "fragment_program",
            Role::IndexBuffer(_) => "index_buffer",
            Role::Attribute(_) => "attribute",
            Role::Texture(_) => "texture",
            Role::VertexTexture(_) => "vertex_texture",
            Role::ColorTarget(_) => "color_target",
            Role::DepthTarget => "depth_target",
        }
    }

    /// The number that goes with the role (range, attribute, unit, target); `None` for the
    /// fragment program and the depth target.
    pub fn slot(self) -> Option<u16> {
        match self {
            Role::FragmentProgram | Role::DepthTarget => None,
            Role::IndexBuffer(n) => Some(n),
            Role::Attribute(n)
            | Role::Texture(n)
            | Role::VertexTexture(n)
            | Role::ColorTarget(n) => Some(u16::from(n)),
        }
    }

    /// Whether the draw writes the range rather than reading it.
    pub fn is_write(self) -> bool {
        matches!(self, Role::ColorTarget(_) | Role::DepthTarget)
    }
}

/// A range of memory a draw uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    /// As what.
    pub role: Role,
    /// Where.
    pub location: Location,
    /// First byte.
    pub offset: u32,
    /// Length in bytes (render targets can pass 4 GiB of pitch x height in principle).
    pub len: u64,
}

impl Use {
    fn from_span(role: Role, s: Span) -> Use {
        Use {
            role,
            location: s.location,
            offset: s.offset,
            len: u64::from(s.len),
        }
    }
}

/// The ranges `draw` uses (module docs), in role order, and one message for each part that
/// could not be found (an index buffer not in the capture, a texture state the texture model
/// refuses): those parts have no range.
pub fn draw_uses(draw: &Draw, memory: &MemoryView<'_>) -> (Vec<Use>, Vec<String>) {
    let mut uses = Vec::new();
    let mut problems = Vec::new();
    if let Some(fp) = &draw.fragment_program {
        let slots = u64::from(fp.start_slot) + u64::from(fp.slot_count);
        uses.push(Use {
            role: Role::FragmentProgram,
            location: fp.address.location,
            offset: fp.address.offset,
            len: slots * 16,
        });
    }
    match fetch_spans(&draw.vertex_inputs, memory) {
        Ok(spans) => {
            for (n, s) in spans.index_ranges.into_iter().enumerate() {
                let n = u16::try_from(n).unwrap_or(u16::MAX);
                uses.push(Use::from_span(Role::IndexBuffer(n), s));
            }
            for a in spans.attributes {
                uses.push(Use::from_span(Role::Attribute(a.attribute), a.span));
            }
        }
        Err(e) => problems.push(format!("vertex fetch: {e}")),
    }
    let units = (0u8..)
        .zip(draw.textures.iter())
        .map(|(u, t)| (Role::Texture(u), u, t))
        .chain(
            (0u8..)
                .zip(draw.vertex_textures.iter())
                .map(|(u, t)| (Role::VertexTexture(u), u, t)),
        );
    for (role, unit, texture) in units {
        if !texture.control0.enabled {
            continue;
        }
        match texture_spans(unit, texture) {
            Ok(spans) => uses.extend(spans.into_iter().map(|s| Use::from_span(role, s))),
            // The texture model's messages start with "texture unit N".
            Err(e) => problems.push(format!("{} {e}", unit_stage(role))),
        }
    }
    uses.extend(render_targets(draw));
    (uses, problems)
}

/// `fragment` or `vertex`, for a texture role.
pub fn unit_stage(role: Role) -> &'static str {
    match role {
        Role::VertexTexture(_) => "vertex",
        _ => "fragment",
    }
}

/// The colour targets the draw writes and its depth/stencil target when depth or stencil is
/// tested: `pitch x (window offset y + clip height)` bytes from each target's offset (the
/// clip's size lands from the window offset on, as the replay lays surfaces out).
fn render_targets(draw: &Draw) -> Vec<Use> {
    let s = &draw.surface;
    let rows = u64::from(s.window_offset_y) + u64::from(s.clip.height);
    let mut out = Vec::new();
    if crate::facts::pass::writes_colour(draw) {
        // SET_SURFACE_COLOR_TARGET: 1 A, 2 B, 0x13 A+B, 0x17 A+B+C, 0x1F A+B+C+D
        // (rrc-format.md 4.8).
        let targets: &[u8] = match s.color_target.raw {
            1 => &[0],
            2 => &[1],
            0x13 => &[0, 1],
            0x17 => &[0, 1, 2],
            0x1F => &[0, 1, 2, 3],
            _ => &[],
        };
        for &k in targets {
            let t = &s.color[usize::from(k)];
            if let Some(location) = t.location {
                out.push(Use {
                    role: Role::ColorTarget(k),
                    location,
                    offset: t.offset,
                    len: u64::from(t.pitch) * rows,
                });
            }
        }
    }
    let r = &draw.raster;
    if r.depth.test || r.stencil.enabled {
        if let Some(location) = s.zeta.location {
            out.push(Use {
                role: Role::DepthTarget,
                location,
                offset: s.zeta.offset,
                len: u64::from(s.zeta.pitch) * rows,
            });
        }
    }
    out
}

/// A use resolved to a captured block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockUse {
    /// As what the draw uses it.
    pub role: Role,
    /// The block.
    pub block: BlockSource,
    /// Offset of the used bytes from the block's start.
    pub offset_in_block: u32,
    /// Bytes of the block used.
    pub len: u32,
}

/// The blocks that hold `uses` as `memory` sees them (module docs). A read range maps to one
/// block when one visible block holds it whole: a block attached to the draw's own END
/// command first (RPCS3 attaches what each draw reads, so that is the draw's own copy; the
/// one at exactly the range's place and length if several), else the newest. Otherwise each
/// byte maps to the newest visible block holding it, and each block to the part it serves.
/// A written range maps to every visible block it overlaps. Bytes no block holds (memory set
/// before the frame and never captured) map to nothing.
pub fn block_uses(uses: &[Use], memory: &MemoryView<'_>) -> Vec<BlockUse> {
    let mut out = Vec::new();
    for u in uses {
        let visible = memory.overlapping(u.location, u.offset, u.len);
        let (start, end) = (u64::from(u.offset), u64::from(u.offset) + u.len);
        let holds = |b: &BlockSource| {
            u64::from(b.offset) <= start && end <= u64::from(b.offset) + u64::from(b.len)
        };
        let own = |b: &&BlockSource| b.command == memory.command();
        let exact = |b: &&BlockSource| u64::from(b.offset) == start && u64::from(b.len) == u.len;
        let holders: Vec<&BlockSource> = visible.iter().filter(|b| holds(b)).collect();
        let whole = if u.role.is_write() {
            None
        } else {
            holders
                .iter()
                .rev()
                .find(|b| own(b) && exact(b))
                .or_else(|| holders.iter().rev().find(|b| own(b)))
                .or(holders.last())
                .copied()
        };
        let pieces: Vec<(BlockSource, u64, u64)> = match whole {
            Some(b) => vec![(*b, start, end)],
            None if u.role.is_write() => visible
                .iter()
                .map(|b| {
                    let s = start.max(u64::from(b.offset));
                    let e = end.min(u64::from(b.offset) + u64::from(b.len));
                    (*b, s, e)
                })
                .collect(),
            None => newest_cover(&visible, start, end),
        };
        for (block, s, e) in pieces {
            if e <= s {
                continue;
            }
            out.push(BlockUse {
                role: u.role,
                block,
                offset_in_block: (s - u64::from(block.offset)) as u32,
                len: (e - s) as u32,
            });
        }
    }
    out
}

/// Each byte of `[start, end)` from the newest of `visible` (oldest first) that holds it:
/// `(block, from, to)` per block that serves some bytes, in `visible` order.
fn newest_cover(visible: &[BlockSource], start: u64, end: u64) -> Vec<(BlockSource, u64, u64)> {
    let mut uncovered = vec![(start, end)];
    let mut served: Vec<(usize, u64, u64)> = Vec::new();
    for (i, b) in visible.iter().enumerate().rev() {
        let (bs, be) = (u64::from(b.offset), u64::from(b.offset) + u64::from(b.len));
        let mut rest = Vec::with_capacity(uncovered.len() + 1);
        let (mut lo, mut hi) = (u64::MAX, 0);
        for &(s, e) in &uncovered {
            let (is, ie) = (s.max(bs), e.min(be));
            if is >= ie {
                rest.push((s, e));
                continue;
            }
            (lo, hi) = (lo.min(is), hi.max(ie));
            if s < is {
                rest.push((s, is));
            }
            if ie < e {
                rest.push((ie, e));
            }
        }
        if lo < hi {
            served.push((i, lo, hi));
        }
        uncovered = rest;
        if uncovered.is_empty() {
            break;
        }
    }
    served.sort_by_key(|&(i, _, _)| i);
    served
        .into_iter()
        .map(|(i, lo, hi)| (visible[i], lo, hi))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(id: u64, offset: u32, len: u32) -> BlockSource {
        BlockSource {
            block: id,
            command: id as usize,
            location: Location::Local,
            offset,
            len,
        }
    }

    #[test]
    fn newest_cover_takes_each_byte_from_the_newest_block() {
        // Oldest first: 1 covers 0..100, 2 covers 40..60, 3 covers 90..120.
        let visible = [block(1, 0, 100), block(2, 40, 20), block(3, 90, 30)];
        let got: Vec<(u64, u64, u64)> = newest_cover(&visible, 10, 110)
            .iter()
            .map(|(b, s, e)| (b.block, *s, *e))
            .collect();
        // Block 1 serves 10..40 and 60..90: reported as the span 10..90 it serves within.
        assert_eq!(got, vec![(1, 10, 90), (2, 40, 60), (3, 90, 110)]);
        assert!(newest_cover(&[], 0, 10).is_empty());
    }
}
