//! The cereal family, versions 3 and 4 (rrc-format.md 2.1, 2.2): magic `00 43 52 52`, no
//! `LE_format`, fixed u64 counts, id-first map entries and an 8192 + 65536-byte tail.
//!
//! Version 4 structs are the same images as v6. Version 3 is normalised into the v4 model:
//!
//! * `memory_block` v3 is `{u32 ioOffset, u32 offset, u32 size, u32 location, u64 data_state}`
//!   (24 bytes, rrc-format.md 2 table row 2; RPCS3 `rsx_capture.cpp` of that era fills
//!   `ioOffset` with the base address and `offset` with the sub-offset within it). It becomes
//!   `MemoryBlock { offset: ioOffset + offset (wrapping), location, data_id: data_state }`.
//!   `size` is dropped: it equals the data length when `data_state != 0`; blocks with
//!   `data_state == 0` were allocation-only (no bytes) and keep id 0.
//! * `tile_info` v3 is `{location, offset, size, pitch, comp, base, bank: u32, binded: bool}`
//!   (29 bytes); it is packed into the four `CellGcmTileInfo` words with the formulas of
//!   RPCS3's `GcmTileInfo::pack` (rrc-format.md 1.4), and as v4 captures do, `pitch` and
//!   `format` are 0 for unbound tiles.
//! * `zcull_info` v3 is `{offset, width, [height], cullStart, zFormat, aaFormat, zcullDir,
//!   zcullFormat, sFunc, sRef, sMask: u32, binded: bool}`. The v1 `serialize()` omitted
//!   `height` (41 bytes); whether v3 still did could not be determined, so the reader tries the
//!   41-byte form first and the 45-byte form second and keeps the one whose stream ends exactly
//!   at the tail. It is packed with RPCS3's `GcmZcullInfo::Pack` (GCM.h, 2017 era):
//!   `region = 1 | zFormat<<4 | aaFormat<<8`, `size = (width>>6)<<22 | (height>>6)<<6`,
//!   `start = cullStart & !0xFFF`, `offset`, `status0 = zcullDir<<1 | zcullFormat<<2 |
//!   (sFunc&0xF)<<12 | sRef<<16 | sMask<<24`, `status1 = 0x2000 | 0x20<<16`; as v4 captures
//!   do (`rsx_capture.cpp`), `status0`/`status1` are 0 for unbound regions.

use bytes::Bytes;

use crate::cursor::Cursor;
use crate::error::RrcError;
use crate::model::{
    DisplayBuffersState, Entry, MemoryBlock, ReplayCommand, TileInfo, TileState, ZcullInfo,
};
use crate::structs::{self, DISPLAY_STATE_SIZE, MEMORY_BLOCK_SIZE, TILE_STATE_SIZE};
use crate::tail;
use crate::Body;

/// Minimum cereal replay command: u32 + u32 + u64 set count + u64 + u64.
const MIN_COMMAND_SIZE: usize = 32;
/// v3 `tile_info` on disk: 7 x u32 + bool.
const V3_TILE_SIZE: usize = 29;
/// v3 `memory_block` on disk.
const V3_BLOCK_SIZE: usize = 24;

/// Whether v3 zcull entries carry `height` (see the module doc).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ZcullForm {
    NoHeight,
    WithHeight,
}

impl ZcullForm {
    fn size(self) -> usize {
        match self {
            ZcullForm::NoHeight => 41,
            ZcullForm::WithHeight => 45,
        }
    }
}

/// Parse a v3 or v4 stream after its 8-byte header (the cursor sits at byte 8).
pub(crate) fn parse_body(
    c: &mut Cursor<'_>,
    stream: &Bytes,
    version: u32,
) -> Result<Body, RrcError> {
    if version == 4 {
        return parse_with(c, stream, None);
    }
    let start = c.pos();
    let first = parse_with(c, stream, Some(ZcullForm::NoHeight));
    match first {
        Err(e) => {
            let mut retry = Cursor::new(stream);
            retry.take(start, "header")?;
            match parse_with(&mut retry, stream, Some(ZcullForm::WithHeight)) {
                Ok(body) => Ok(body),
                Err(_) => Err(e),
            }
        }
        ok => ok,
    }
}

/// Read a u64 count of items of at least `min` bytes, checked against what remains.
fn count(c: &mut Cursor<'_>, min: usize, what: &'static str) -> Result<usize, RrcError> {
    let at = c.offset();
    let n = c.u64(what)?;
    c.check_count(n, min, what, at)
}

fn parse_with(c: &mut Cursor<'_>, stream: &Bytes, v3: Option<ZcullForm>) -> Result<Body, RrcError> {
    // tile_map: [u64 id][tile_state]
    let tile_size = match v3 {
        None => TILE_STATE_SIZE,
        Some(form) => 15 * V3_TILE_SIZE + 8 * form.size(),
    };
    let n = count(c, 8 + tile_size, "tile_map entry")?;
    let mut tiles = Vec::with_capacity(n);
    for _ in 0..n {
        let id = c.u64("tile_map entry")?;
        let value = match v3 {
            None => structs::tile_state(&c.array::<TILE_STATE_SIZE>("tile_state")?),
            Some(form) => v3_tile_state(c, form)?,
        };
        tiles.push(Entry { id, value });
    }

    // memory_map: [u64 id][memory_block]
    let block_size = if v3.is_some() {
        V3_BLOCK_SIZE
    } else {
        MEMORY_BLOCK_SIZE
    };
    let n = count(c, 8 + block_size, "memory_map entry")?;
    let mut blocks = Vec::with_capacity(n);
    for _ in 0..n {
        let id = c.u64("memory_map entry")?;
        let value = if v3.is_some() {
            v3_memory_block(c)?
        } else {
            structs::memory_block(&c.array::<MEMORY_BLOCK_SIZE>("memory_block")?)
        };
        blocks.push(Entry { id, value });
    }

    // memory_data_map: [u64 id][u64 len][bytes]
    let n = count(c, 16, "memory_data_map entry")?;
    let mut data = Vec::with_capacity(n);
    for _ in 0..n {
        let id = c.u64("memory_data_map entry")?;
        let len = count(c, 1, "memory data byte")?;
        let start = c.pos();
        c.take(len, "memory data")?;
        data.push(Entry {
            id,
            value: stream.slice(start..start + len),
        });
    }

    // display_buffers_map: [u64 id][display_buffers_state]
    let n = count(c, 8 + DISPLAY_STATE_SIZE, "display_buffers_map entry")?;
    let mut display_buffers = Vec::<Entry<DisplayBuffersState>>::with_capacity(n);
    for _ in 0..n {
        let id = c.u64("display_buffers_map entry")?;
        let value =
            structs::display_state(&c.array::<DISPLAY_STATE_SIZE>("display_buffers_state")?);
        display_buffers.push(Entry { id, value });
    }

    // replay_commands
    let n = count(c, MIN_COMMAND_SIZE, "replay command")?;
    let mut commands = Vec::with_capacity(n);
    for _ in 0..n {
        let first = c.u32("replay command")?;
        let second = c.u32("replay command")?;
        let m = count(c, 8, "memory_state id")?;
        let raw = c.take(m * 8, "memory_state ids")?;
        let memory = raw
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
            .collect();
        let tile_state = c.u64("replay command")?;
        let display_buffer_state = c.u64("replay command")?;
        commands.push(ReplayCommand {
            first,
            second,
            memory,
            tile_state,
            display_buffer_state,
        });
    }

    let tail_at = c.offset();
    let rest = c.take(c.remaining(), "register state")?;
    let reg_state = tail::parse_cereal(rest, tail_at)?;
    Ok(Body {
        tiles,
        blocks,
        data,
        display_buffers,
        commands,
        reg_state,
    })
}

/// A cereal `bool`: one byte, 0 or 1.
fn bool8(c: &mut Cursor<'_>, what: &'static str) -> Result<bool, RrcError> {
    let at = c.offset();
    match c.u8(what)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(RrcError::Malformed {
            offset: at,
            message: format!("{what}: bool byte is {v}, expected 0 or 1"),
        }),
    }
}

/// Read a v3 `tile_state` and pack it into the v4 words (see the module doc).
fn v3_tile_state(c: &mut Cursor<'_>, form: ZcullForm) -> Result<TileState, RrcError> {
    let mut st = TileState::default();
    for t in &mut st.tiles {
        let location = c.u32("v3 tile_info")?;
        let offset = c.u32("v3 tile_info")?;
        let size = c.u32("v3 tile_info")?;
        let pitch = c.u32("v3 tile_info")?;
        let comp = c.u32("v3 tile_info")?;
        let base = c.u32("v3 tile_info")?;
        let bank = c.u32("v3 tile_info")?;
        let binded = bool8(c, "v3 tile_info.binded")?;
        *t = pack_tile(location, offset, size, pitch, comp, base, bank, binded);
    }
    for z in &mut st.zculls {
        let offset = c.u32("v3 zcull_info")?;
        let width = c.u32("v3 zcull_info")?;
        let height = match form {
            ZcullForm::WithHeight => c.u32("v3 zcull_info")?,
            ZcullForm::NoHeight => 0,
        };
        let mut f = [0u32; 8];
        for v in &mut f {
            *v = c.u32("v3 zcull_info")?;
        }
        let [cull_start, z_format, aa_format, zcull_dir, zcull_format, s_func, s_ref, s_mask] = f;
        let binded = bool8(c, "v3 zcull_info.binded")?;
        *z = ZcullInfo {
            region: 1 | z_format.wrapping_shl(4) | aa_format.wrapping_shl(8),
            size: ((width >> 6).wrapping_shl(22)) | ((height >> 6).wrapping_shl(6)),
            start: cull_start & !0xFFF,
            offset,
            status0: if binded {
                zcull_dir.wrapping_shl(1)
                    | zcull_format.wrapping_shl(2)
                    | (s_func & 0xF) << 12
                    | s_ref.wrapping_shl(16)
                    | s_mask.wrapping_shl(24)
            } else {
                0
            },
            status1: if binded { 0x2000 | 0x20 << 16 } else { 0 },
        };
    }
    Ok(st)
}

/// `GcmTileInfo::pack` (rrc-format.md 1.4), in wrapping u32 arithmetic like the C++.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pack_tile(
    location: u32,
    offset: u32,
    size: u32,
    pitch: u32,
    comp: u32,
    base: u32,
    bank: u32,
    binded: bool,
) -> TileInfo {
    let tile = location.wrapping_add(1)
        | bank.wrapping_shl(4)
        | (offset / 0x10000).wrapping_shl(16)
        | location.wrapping_shl(31);
    let limit = (offset.wrapping_add(size).wrapping_sub(1) / 0x10000).wrapping_shl(16)
        | location.wrapping_shl(31);
    let (pitch, format) = if binded {
        (
            (pitch / 0x100) << 8,
            base | base
                .wrapping_add(size.wrapping_sub(1) / 0x10000)
                .wrapping_shl(13)
                | comp.wrapping_shl(26)
                | 1 << 30,
        )
    } else {
        (0, 0)
    };
    TileInfo {
        tile,
        limit,
        pitch,
        format,
    }
}

/// Read a v3 `memory_block` and normalise it (see the module doc).
fn v3_memory_block(c: &mut Cursor<'_>) -> Result<MemoryBlock, RrcError> {
    let io_offset = c.u32("v3 memory_block")?;
    let offset = c.u32("v3 memory_block")?;
    let _size = c.u32("v3 memory_block")?;
    let location = c.u32("v3 memory_block")?;
    let data_id = c.u64("v3 memory_block")?;
    Ok(MemoryBlock {
        offset: io_offset.wrapping_add(offset),
        location,
        data_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_tile_matches_gcm_formula() {
        // location 0 (local), offset 0x0010_0000, size 0x0030_0000, pitch 0x1400, comp 2,
        // base 0x10, bank 1, bound.
        let t = pack_tile(0, 0x0010_0000, 0x0030_0000, 0x1400, 2, 0x10, 1, true);
        assert_eq!(t.tile, 1 | 1 << 4 | 0x10 << 16);
        assert_eq!(t.limit, 0x3F << 16);
        assert_eq!(t.pitch, 0x1400);
        assert_eq!(t.format, 0x10 | (0x10 + 0x2F) << 13 | 2 << 26 | 1 << 30);
        let unbound = pack_tile(1, 0, 0, 0x1400, 2, 0x10, 0, false);
        assert_eq!(unbound.tile, 2 | 1 << 31);
        // size 0: (0 + 0 - 1) wraps like the C++ u32 arithmetic.
        assert_eq!(unbound.limit, 0xFFFF_0000);
        assert_eq!((unbound.pitch, unbound.format), (0, 0));
    }
}
