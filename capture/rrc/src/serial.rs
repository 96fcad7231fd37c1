//! The `utils::serial` family, versions 5 and 6 (rrc-format.md 1.2 to 1.6, 2.3): header with
//! `LE_format`, LEB128 counts, four maps (v5 `[u64 id][struct]`, v6 `[struct][u64 id]`), the
//! replay commands and the length-identified register-state tail.

use bytes::Bytes;

use crate::cursor::Cursor;
use crate::error::RrcError;
use crate::model::{DisplayBuffersState, Entry, MemoryBlock, ReplayCommand, TileState};
use crate::structs::{self, DISPLAY_STATE_SIZE, MEMORY_BLOCK_SIZE, TILE_STATE_SIZE};
use crate::tail;
use crate::Body;

/// Minimum bytes of one replay command: u32 + u32 + varint(>=1) + u64 + u64 (rrc-format.md 1.5).
pub(crate) const MIN_COMMAND_SIZE: usize = 25;

/// Map entry order on the wire.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    /// v5: `[u64 id][struct]`.
    IdFirst,
    /// v6: `[struct][u64 id]`.
    StructFirst,
}

/// Read one map of fixed-size structs.
fn fixed_map<T, const N: usize>(
    c: &mut Cursor<'_>,
    order: Order,
    what: &'static str,
    decode: impl Fn(&[u8; N]) -> T,
) -> Result<Vec<Entry<T>>, RrcError> {
    let at = c.offset();
    let n = c.varint(what)?;
    let n = c.check_count(n, N + 8, what, at)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (id, value) = match order {
            Order::IdFirst => {
                let id = c.u64(what)?;
                (id, decode(&c.array::<N>(what)?))
            }
            Order::StructFirst => {
                let value = decode(&c.array::<N>(what)?);
                (c.u64(what)?, value)
            }
        };
        out.push(Entry { id, value });
    }
    Ok(out)
}

/// Read `memory_data_map`: each blob is a `Bytes::slice` of `stream` (no copy).
fn data_map(
    c: &mut Cursor<'_>,
    stream: &Bytes,
    order: Order,
) -> Result<Vec<Entry<Bytes>>, RrcError> {
    const WHAT: &str = "memory_data_map entry";
    let at = c.offset();
    let n = c.varint(WHAT)?;
    // Smallest entry: varint len 0 (1 byte) + u64 id.
    let n = c.check_count(n, 9, WHAT, at)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let id_first = if order == Order::IdFirst {
            Some(c.u64(WHAT)?)
        } else {
            None
        };
        let len_at = c.offset();
        let len = c.varint("memory data length")?;
        let len = c.check_count(len, 1, "memory data byte", len_at)?;
        let start = c.pos();
        c.take(len, "memory data")?;
        let value = stream.slice(start..start + len);
        let id = match id_first {
            Some(id) => id,
            None => c.u64(WHAT)?,
        };
        out.push(Entry { id, value });
    }
    Ok(out)
}

/// Read the replay commands (rrc-format.md 1.5). Hot loop: millions of entries.
pub(crate) fn commands(c: &mut Cursor<'_>) -> Result<Vec<ReplayCommand>, RrcError> {
    const WHAT: &str = "replay command";
    let at = c.offset();
    let n = c.varint("replay command count")?;
    let n = c.check_count(n, MIN_COMMAND_SIZE, WHAT, at)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let first = c.u32(WHAT)?;
        let second = c.u32(WHAT)?;
        let set_at = c.offset();
        let m = c.varint("memory_state count")?;
        let memory = if m == 0 {
            Vec::new()
        } else {
            let m = c.check_count(m, 8, "memory_state id", set_at)?;
            let raw = c.take(m * 8, "memory_state ids")?;
            raw.chunks_exact(8)
                .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                .collect()
        };
        let tile_state = c.u64(WHAT)?;
        let display_buffer_state = c.u64(WHAT)?;
        out.push(ReplayCommand {
            first,
            second,
            memory,
            tile_state,
            display_buffer_state,
        });
    }
    Ok(out)
}

/// Parse a v5 or v6 stream after its 12-byte header (the cursor sits at byte 12).
pub(crate) fn parse_body(
    c: &mut Cursor<'_>,
    stream: &Bytes,
    version: u32,
) -> Result<Body, RrcError> {
    let order = if version == 5 {
        Order::IdFirst
    } else {
        Order::StructFirst
    };
    let tiles =
        fixed_map::<TileState, TILE_STATE_SIZE>(c, order, "tile_map entry", structs::tile_state)?;
    let blocks = fixed_map::<MemoryBlock, MEMORY_BLOCK_SIZE>(
        c,
        order,
        "memory_map entry",
        structs::memory_block,
    )?;
    let data = data_map(c, stream, order)?;
    let display_buffers = fixed_map::<DisplayBuffersState, DISPLAY_STATE_SIZE>(
        c,
        order,
        "display_buffers_map entry",
        structs::display_state,
    )?;
    let commands = commands(c)?;
    let tail_at = c.offset();
    let rest = c.take(c.remaining(), "register state")?;
    let reg_state = tail::parse_serial(rest, tail_at)?;
    Ok(Body {
        tiles,
        blocks,
        data,
        display_buffers,
        commands,
        reg_state,
    })
}
