//! Draw calls and the memory RPCS3 attaches to a draw's END command.
//!
//! The draw clause follows RPCS3's `draw_clause::append` as the frame model does
//! (`rsxtrace_frame::clause`): a range that continues the current one is merged into it, an
//! exact duplicate is dropped, and a range that starts earlier than a recorded one is inserted
//! before it. At END the blocks are
//! attached in `capture_draw_memory`'s order (`rsx_capture.cpp`; rrc-format.md 3.3): the
//! fragment program, enabled fragment then vertex textures, then vertex arrays (and, for
//! indexed draws, the index ranges first), and finally the display-buffers and tile ids.
//! An END whose clause is empty attaches nothing (RPCS3 only calls `thread::end` for a
//! non-empty clause).

use rsxtrace_fetch::{DrawRange, VertexType};
use rsxtrace_frame::clause::DrawRanges;
use rsxtrace_rrc::Location;

use crate::builder::{blob, CaptureBuilder, FRAGMENT_TEXTURE_UNITS, VERTEX_TEXTURE_UNITS};
use crate::error::{AttachError, BuildError};
use crate::fragment_scan;
use crate::memory::GuestMemory;
use crate::methods as m;

/// Most vertices or indices one DRAW_ARRAYS / DRAW_INDEX_ARRAY argument covers (count-1 is
/// 8 bits, rrc-format.md 4.2).
pub const MAX_COUNT_PER_COMMAND: u32 = 256;
/// `first` is 24 bits.
pub const MAX_FIRST: u32 = 0xFF_FFFF;

/// Which kind of draw the clause holds (`rsx::draw_command`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DrawKind {
    /// Nothing drawn yet.
    #[default]
    None,
    /// DRAW_ARRAYS.
    Array,
    /// DRAW_INDEX_ARRAY.
    Indexed,
    /// INLINE_ARRAY.
    Inlined,
}

/// The draw clause between BEGIN(primitive) and END.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DrawClause {
    /// Primitive of the last BEGIN.
    pub primitive: u32,
    /// Kind of the last draw method.
    pub kind: DrawKind,
    /// The ranges after RPCS3's merging rules (the frame model's own [`DrawRanges`]).
    pub ranges: DrawRanges,
    /// INLINE_ARRAY words received.
    pub inline_words: u64,
}

impl DrawClause {
    /// BEGIN(primitive): a fresh clause.
    pub fn begin(&mut self, primitive: u32) {
        *self = DrawClause {
            primitive,
            ..DrawClause::default()
        };
    }

    /// `draw_clause::append(first, count)`.
    fn append(&mut self, first: u32, count: u32) {
        self.ranges.append(DrawRange { first, count });
    }

    /// A DRAW_ARRAYS argument.
    pub fn append_array(&mut self, first: u32, count: u32) {
        self.kind = DrawKind::Array;
        self.append(first, count);
    }

    /// A DRAW_INDEX_ARRAY argument.
    pub fn append_indexed(&mut self, first: u32, count: u32) {
        self.kind = DrawKind::Indexed;
        self.append(first, count);
    }

    /// An INLINE_ARRAY word.
    pub fn append_inline_word(&mut self) {
        self.kind = DrawKind::Inlined;
        self.inline_words += 1;
    }

    /// `draw_clause::empty()`.
    pub fn is_empty(&self) -> bool {
        match self.kind {
            DrawKind::Inlined => self.inline_words == 0,
            _ => self.ranges.is_empty(),
        }
    }
}

/// `get_vertex_type_size_on_host` (RPCS3 `RSXThread.cpp`; rrc-format.md 4.3): bytes one
/// element of `type_code` with `size` components occupies. `None` for a size above 4.
pub fn host_element_size(type_code: u32, size: u32) -> Option<u32> {
    let size = u8::try_from(size).ok().filter(|s| (1..=4).contains(s))?;
    // Type 0 decodes as UB256 (`to_vertex_base_type`).
    Some(VertexType::from_field(type_code).host_bytes(size))
}

/// One block to attach: where it sits and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingBlock {
    /// `memory_block.offset`.
    pub offset: u32,
    /// `memory_block.location` (0 local, 1 main).
    pub location: u32,
    /// The guest bytes.
    pub data: bytes::Bytes,
}

fn reg(regs: &[u32], index: u32) -> u32 {
    regs.get(index as usize).copied().unwrap_or(0)
}

fn location_of(
    raw: u32,
    register: u32,
    name: &'static str,
    value: u32,
) -> Result<Location, AttachError> {
    match raw {
        0 => Ok(Location::Local),
        1 => Ok(Location::Main),
        _ => Err(AttachError::BadRegister {
            register: register << 2,
            name,
            value,
            detail: "location is neither local nor main",
        }),
    }
}

fn loc_word(location: Location) -> u32 {
    match location {
        Location::Local => 0,
        Location::Main => 1,
    }
}

/// Read a block, turning a missing range into an error that names it.
fn read_block(
    mem: &GuestMemory,
    what: impl Fn() -> String,
    location: Location,
    offset: u64,
    len: u64,
) -> Result<PendingBlock, AttachError> {
    let offset32 = u32::try_from(offset).map_err(|_| AttachError::OffsetOverflow {
        what: what(),
        offset,
    })?;
    let bytes = mem
        .read(location, offset, len)
        .map_err(|source| AttachError::Missing {
            what: what(),
            source,
        })?;
    Ok(PendingBlock {
        offset: offset32,
        location: loc_word(location),
        data: blob(bytes),
    })
}

/// Texture unit registers: (offset, format, control0) indices.
fn texture_blocks(
    regs: &[u32],
    mem: &GuestMemory,
    units: &[u32],
    base: [u32; 3],
    stride: u32,
    kind: &'static str,
    out: &mut Vec<PendingBlock>,
) -> Result<(), AttachError> {
    for (unit, &size) in units.iter().enumerate() {
        let unit = unit as u32;
        let [offset_reg, format_reg, control0_reg] = base.map(|r| r + stride * unit);
        if reg(regs, control0_reg) >> 31 == 0 {
            continue; // not enabled
        }
        if size == 0 {
            continue; // RPCS3 skips textures whose layout size is 0
        }
        let format = reg(regs, format_reg);
        let location = match format & 3 {
            1 => Location::Local,
            2 => Location::Main,
            _ => {
                return Err(AttachError::BadRegister {
                    register: format_reg << 2,
                    name: "TEXTURE_FORMAT",
                    value: format,
                    detail: "location bits 0..1 must be 1 (local) or 2 (main)",
                })
            }
        };
        let offset = reg(regs, offset_reg) & 0x7FFF_FFFF;
        out.push(read_block(
            mem,
            || format!("{kind} texture unit {unit}"),
            location,
            offset.into(),
            size.into(),
        )?);
    }
    Ok(())
}

/// An enabled vertex array: where its data starts and how its elements are laid out.
struct Array {
    attr: u32,
    base: u64,
    location: Location,
    stride: u64,
    elem: u64,
}

fn enabled_arrays(regs: &[u32]) -> Result<Vec<Array>, AttachError> {
    let input_mask = reg(regs, m::SET_VERTEX_ATTRIB_INPUT_MASK);
    let base_offset = reg(regs, m::SET_VERTEX_DATA_BASE_OFFSET);
    let mut arrays = Vec::new();
    for attr in 0..16u32 {
        if input_mask & (1 << attr) == 0 {
            continue;
        }
        let format = reg(regs, m::SET_VERTEX_DATA_ARRAY_FORMAT + attr);
        let size = (format >> 4) & 0xF;
        if size == 0 {
            continue; // array disabled
        }
        let elem = host_element_size(format & 7, size).ok_or(AttachError::BadRegister {
            register: (m::SET_VERTEX_DATA_ARRAY_FORMAT + attr) << 2,
            name: "SET_VERTEX_DATA_ARRAY_FORMAT",
            value: format,
            detail: "size must be 1..4",
        })?;
        let offset = reg(regs, m::SET_VERTEX_DATA_ARRAY_OFFSET + attr);
        // get_vertex_offset_from_base: (base + offset) & 0x0FFFFFFF (rrc-format.md 4.2).
        let base = base_offset.wrapping_add(offset & 0x7FFF_FFFF) & 0x0FFF_FFFF;
        arrays.push(Array {
            attr,
            base: base.into(),
            location: if offset >> 31 == 0 {
                Location::Local
            } else {
                Location::Main
            },
            stride: ((format >> 8) & 0xFF).into(),
            elem: elem.into(),
        });
    }
    Ok(arrays)
}

/// Every block `capture_draw_memory` attaches for `clause`, in its order.
pub fn collect_attachments(
    regs: &[u32],
    clause: &DrawClause,
    mem: &GuestMemory,
    texture_sizes: &[u32; FRAGMENT_TEXTURE_UNITS],
    vertex_texture_sizes: &[u32; VERTEX_TEXTURE_UNITS],
) -> Result<Vec<PendingBlock>, AttachError> {
    let mut out = Vec::new();

    // 1. Fragment program (shader_program_address: location+1 in bits 0..1, rrc-format.md 4.6).
    let program = reg(regs, m::SET_SHADER_PROGRAM);
    let location = match program & 3 {
        1 => Location::Local,
        2 => Location::Main,
        _ => {
            return Err(AttachError::BadRegister {
                register: m::SET_SHADER_PROGRAM << 2,
                name: "SET_SHADER_PROGRAM",
                value: program,
                detail: "no fragment program: location bits 0..1 must be 1 (local) or 2 (main)",
            })
        }
    };
    let offset = program & 0x7FFF_FFFC;
    let code = mem.contiguous(location, offset);
    let extent = fragment_scan::scan(code).map_err(|source| AttachError::FragmentProgram {
        location: location.name(),
        offset,
        source,
    })?;
    out.push(read_block(
        mem,
        || "fragment program".into(),
        location,
        offset.into(),
        extent.captured_len().into(),
    )?);

    // 2. Fragment textures 0..15, then vertex textures 0..3.
    texture_blocks(
        regs,
        mem,
        texture_sizes,
        [m::TEXTURE_OFFSET, m::TEXTURE_FORMAT, m::TEXTURE_CONTROL0],
        m::TEXTURE_UNIT_STRIDE,
        "fragment",
        &mut out,
    )?;
    texture_blocks(
        regs,
        mem,
        vertex_texture_sizes,
        [
            m::VERTEX_TEXTURE_OFFSET,
            m::VERTEX_TEXTURE_FORMAT,
            m::VERTEX_TEXTURE_CONTROL0,
        ],
        m::TEXTURE_UNIT_STRIDE,
        "vertex",
        &mut out,
    )?;

    match clause.kind {
        // 3. Non-indexed: one block per attribute per range.
        DrawKind::Array => {
            for a in enabled_arrays(regs)? {
                for (i, &DrawRange { first, count }) in clause.ranges.as_slice().iter().enumerate()
                {
                    let offset = a.base + u64::from(first) * a.stride;
                    let len = u64::from(count.saturating_sub(1)) * a.stride + a.elem;
                    let what = || {
                        format!(
                            "attribute {} range {i} (first {first}, count {count})",
                            a.attr
                        )
                    };
                    out.push(read_block(mem, what, a.location, offset, len)?);
                }
            }
        }
        // 4. Indexed: the index ranges, then one block per attribute over [min, max].
        DrawKind::Indexed => indexed_blocks(regs, clause, mem, &mut out)?,
        DrawKind::Inlined | DrawKind::None => {}
    }
    Ok(out)
}

fn indexed_blocks(
    regs: &[u32],
    clause: &DrawClause,
    mem: &GuestMemory,
    out: &mut Vec<PendingBlock>,
) -> Result<(), AttachError> {
    let address = reg(regs, m::SET_INDEX_ARRAY_ADDRESS) & 0x1FFF_FFFF; // bits 0..28 (4.2)
    let dma = reg(regs, m::SET_INDEX_ARRAY_DMA);
    let location = location_of(
        dma & 0xF,
        m::SET_INDEX_ARRAY_DMA,
        "SET_INDEX_ARRAY_DMA",
        dma,
    )?;
    let type_size: u32 = match (dma >> 4) & 0xFF {
        0 => 4, // CELL_GCM_DRAW_INDEX_ARRAY_TYPE_32
        1 => 2, // CELL_GCM_DRAW_INDEX_ARRAY_TYPE_16
        _ => {
            return Err(AttachError::BadRegister {
                register: m::SET_INDEX_ARRAY_DMA << 2,
                name: "SET_INDEX_ARRAY_DMA",
                value: dma,
                detail: "index type (bits 4..11) must be 0 (u32) or 1 (u16)",
            })
        }
    };
    let restart_enabled = reg(regs, m::SET_RESTART_INDEX_ENABLE) != 0;
    let restart = reg(regs, m::SET_RESTART_INDEX);
    let base_index = reg(regs, m::SET_VERTEX_DATA_BASE_INDEX);
    // RPCS3 reads the indices from the address aligned down to the index size, but records
    // the block at the unaligned offset (`capture_draw_memory`).
    let aligned = address & !(type_size - 1);

    let mut min = u32::MAX;
    let mut max = 0u32;
    for (i, &DrawRange { first, count }) in clause.ranges.as_slice().iter().enumerate() {
        let rel = u64::from(first) * u64::from(type_size);
        let len = u64::from(count) * u64::from(type_size);
        let what = || format!("index range {i} (first {first}, count {count})");
        let offset = u64::from(address) + rel;
        let offset32 = u32::try_from(offset).map_err(|_| AttachError::OffsetOverflow {
            what: what(),
            offset,
        })?;
        let bytes = mem
            .read(location, u64::from(aligned) + rel, len)
            .map_err(|source| AttachError::Missing {
                what: what(),
                source,
            })?;
        for chunk in bytes.chunks_exact(type_size as usize) {
            // Index data is big-endian (rrc-format.md 4.2).
            let (raw, wide) = match *chunk {
                [a, b] => (u32::from(u16::from_be_bytes([a, b])), false),
                [a, b, c, d] => (u32::from_be_bytes([a, b, c, d]), true),
                _ => continue,
            };
            if restart_enabled && raw == restart {
                continue;
            }
            // get_index_from_base: (index + base) & 0xFFFFF; the u16 path keeps 16 bits.
            let mut index = raw.wrapping_add(base_index) & 0xF_FFFF;
            if !wide {
                index &= 0xFFFF;
            }
            min = min.min(index);
            max = max.max(index);
        }
        out.push(PendingBlock {
            offset: offset32,
            location: loc_word(location),
            data: blob(bytes),
        });
    }

    if min <= max {
        for a in enabled_arrays(regs)? {
            let offset = a.base + u64::from(min) * a.stride;
            let len = a.stride * u64::from(max - min + 1) + a.elem;
            let what = || format!("attribute {} (indices {min}..={max})", a.attr);
            out.push(read_block(mem, what, a.location, offset, len)?);
        }
    }
    Ok(())
}

/// Check draw ranges and split them into DRAW_ARRAYS / DRAW_INDEX_ARRAY arguments of at most
/// 256 elements each, as libgcm does.
pub fn split_ranges(ranges: &[(u32, u32)]) -> Result<Vec<u32>, BuildError> {
    let mut args = Vec::new();
    for &(first, count) in ranges {
        if count == 0 {
            return Err(BuildError::InvalidArgument {
                what: "draw range",
                detail: format!("range at {first} has count 0"),
            });
        }
        let mut start = u64::from(first);
        let end = start + u64::from(count);
        while start < end {
            let n = (end - start).min(u64::from(MAX_COUNT_PER_COMMAND));
            if start > u64::from(MAX_FIRST) {
                return Err(BuildError::OutOfRange {
                    what: "draw range first",
                    value: start,
                    limit: u64::from(MAX_FIRST) + 1,
                });
            }
            args.push((((n - 1) as u32) << 24) | start as u32);
            start += n;
        }
    }
    Ok(args)
}

fn check_primitive(primitive: u32) -> Result<(), BuildError> {
    if (1..=10).contains(&primitive) {
        Ok(())
    } else {
        Err(BuildError::InvalidArgument {
            what: "primitive",
            detail: format!("{primitive} is not 1..10 (0 is END)"),
        })
    }
}

/// What a failed draw must undo.
struct Undo {
    commands: usize,
    regs: [u32; 4],
    clause: DrawClause,
}

const DRAW_REGS: [u32; 4] = [
    m::SET_BEGIN_END,
    m::DRAW_ARRAYS,
    m::DRAW_INDEX_ARRAY,
    m::INLINE_ARRAY,
];

impl CaptureBuilder {
    fn undo_point(&mut self) -> Undo {
        self.ensure_started();
        Undo {
            commands: self.commands.len(),
            regs: DRAW_REGS.map(|r| self.regs.get(r as usize).copied().unwrap_or(0)),
            clause: self.clause.clone(),
        }
    }

    fn undo(&mut self, u: Undo) {
        self.commands.truncate(u.commands);
        for (r, v) in DRAW_REGS.iter().zip(u.regs) {
            if let Some(slot) = self.regs.get_mut(*r as usize) {
                *slot = v;
            }
        }
        self.clause = u.clause;
    }

    /// Record `SET_BEGIN_END(0)` and attach the draw's memory to it, then its display-buffers
    /// and tile ids. If a block cannot be read nothing is recorded and the clause stays open.
    pub(crate) fn end(&mut self) -> Result<(), BuildError> {
        self.ensure_started();
        let command = self.commands.len();
        let blocks = if self.clause.is_empty() {
            None
        } else {
            Some(
                collect_attachments(
                    &self.regs,
                    &self.clause,
                    &self.memory,
                    &self.texture_sizes,
                    &self.vertex_texture_sizes,
                )
                .map_err(|source| BuildError::Draw { command, source })?,
            )
        };
        self.record(m::SET_BEGIN_END, 0);
        if let Some(blocks) = blocks {
            let mut memory: Vec<u64> = Vec::new();
            for b in blocks {
                if let Some(id) = self.ids.insert_memory_block(b.offset, b.location, b.data) {
                    // memory_state is a set: a block attached twice appears once.
                    if !memory.contains(&id) {
                        memory.push(id);
                    }
                }
            }
            let (tile_state, display_buffer_state) =
                self.ids.display_tile_state(&self.tile, &self.display);
            if let Some(cmd) = self.commands.last_mut() {
                cmd.memory = memory;
                cmd.tile_state = tile_state;
                cmd.display_buffer_state = display_buffer_state;
            }
        }
        self.clause = DrawClause::default();
        Ok(())
    }

    fn draw_ranges(
        &mut self,
        primitive: u32,
        method: u32,
        ranges: &[(u32, u32)],
    ) -> Result<(), BuildError> {
        check_primitive(primitive)?;
        let args = split_ranges(ranges)?;
        let undo = self.undo_point();
        self.record(m::SET_BEGIN_END, primitive);
        for a in args {
            self.record(method, a);
        }
        self.end().inspect_err(|_| self.undo(undo))
    }

    /// `BEGIN(primitive)`, one DRAW_ARRAYS per 256 vertices of each `(first, count)` range,
    /// END. Ranges continuing each other are merged by the draw clause, as in RPCS3.
    pub fn draw_arrays(&mut self, primitive: u32, ranges: &[(u32, u32)]) -> Result<(), BuildError> {
        self.draw_ranges(primitive, m::DRAW_ARRAYS, ranges)
    }

    /// `BEGIN(primitive)`, one DRAW_INDEX_ARRAY per 256 indices of each range, END. The index
    /// array comes from [`CaptureBuilder::set_index_array`].
    pub fn draw_indexed(
        &mut self,
        primitive: u32,
        ranges: &[(u32, u32)],
    ) -> Result<(), BuildError> {
        self.draw_ranges(primitive, m::DRAW_INDEX_ARRAY, ranges)
    }

    /// `BEGIN(primitive)`, one INLINE_ARRAY command per vertex word, END. Inline vertex data
    /// lives in the FIFO, so only the fragment program and textures are attached.
    pub fn draw_inline_array(&mut self, primitive: u32, words: &[u32]) -> Result<(), BuildError> {
        check_primitive(primitive)?;
        if words.is_empty() {
            return Err(BuildError::InvalidArgument {
                what: "inline array",
                detail: "no vertex words".into(),
            });
        }
        let undo = self.undo_point();
        self.record(m::SET_BEGIN_END, primitive);
        for &w in words {
            self.record(m::INLINE_ARRAY, w);
        }
        self.end().inspect_err(|_| self.undo(undo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(c: &DrawClause) -> Vec<(u32, u32)> {
        c.ranges
            .as_slice()
            .iter()
            .map(|r| (r.first, r.count))
            .collect()
    }

    #[test]
    fn clause_merges_drops_and_orders_like_rpcs3() {
        let mut c = DrawClause::default();
        c.begin(5);
        c.append_array(0, 256);
        c.append_array(256, 44); // continues: merged
        assert_eq!(pairs(&c), vec![(0, 300)]);
        c.append_array(1000, 10);
        c.append_array(1000, 10); // not contiguous with current, duplicate: dropped
        assert_eq!(pairs(&c), vec![(0, 300), (1000, 10)]);
        c.append_array(500, 5); // starts before (1000, 10): inserted before it
        assert_eq!(pairs(&c), vec![(0, 300), (500, 5), (1000, 10)]);
        c.append_array(505, 1); // continues the current (inserted) range
        assert_eq!(pairs(&c), vec![(0, 300), (500, 6), (1000, 10)]);
        assert!(!c.is_empty());
        c.begin(6);
        assert!(c.is_empty());
        c.append_inline_word();
        assert!(!c.is_empty());
    }

    #[test]
    fn host_element_sizes() {
        // (type, size) -> bytes, rrc-format.md 4.3 table.
        let cases = [
            ((1, 1), 2),
            ((1, 3), 8),
            ((1, 4), 8),
            ((2, 1), 4),
            ((2, 2), 8),
            ((2, 3), 12),
            ((2, 4), 16),
            ((3, 2), 4),
            ((3, 3), 8),
            ((4, 1), 1),
            ((4, 3), 4),
            ((4, 4), 4),
            ((5, 2), 4),
            ((5, 3), 8),
            ((6, 1), 4),
            ((7, 4), 4),
            ((0, 4), 4),
        ];
        for ((t, s), want) in cases {
            assert_eq!(host_element_size(t, s), Some(want), "type {t} size {s}");
        }
        assert_eq!(host_element_size(2, 0), None);
        assert_eq!(host_element_size(2, 5), None);
    }

    #[test]
    fn ranges_split_at_256() {
        assert_eq!(split_ranges(&[(0, 256)]).unwrap(), vec![0xFF00_0000]);
        assert_eq!(
            split_ranges(&[(10, 600)]).unwrap(),
            vec![0xFF00_000A, 0xFF00_010A, 0x5700_020A]
        );
        assert_eq!(split_ranges(&[(7, 1)]).unwrap(), vec![0x0000_0007]);
        assert!(split_ranges(&[(0, 0)]).is_err());
        assert!(split_ranges(&[(0x100_0000, 1)]).is_err());
        // The last chunk of a range may not start past 24 bits either.
        assert!(split_ranges(&[(0xFF_FF00, 0x200)]).is_err());
    }
}
