//! `memory_blocks` (the capture's memory map) and `block_uses` (which draw uses which block as
//! what, `crate::footprint`).

use super::raw_location;
use crate::cell::Cell;
use crate::facts::BlockFacts;
use crate::footprint::BlockUse;
use crate::schema::{col, Table, Ty};

/// A row of `memory_blocks`.
pub struct BlockRow<'a> {
    /// Capture.
    pub capture_id: i64,
    /// The block.
    pub b: &'a BlockFacts,
}

/// The `memory_blocks` table.
pub fn table<'a>() -> Table<BlockRow<'a>> {
    use Ty::*;
    let c = col::<BlockRow<'a>>;
    Table {
        name: "memory_blocks",
        doc: "One row per entry of each capture's memory map: a block of guest memory RPCS3 \
              recorded because a draw used it (rrc-format.md 1.4, 3.3).",
        primary_key: &["capture_id", "block"],
        indexes: &[&["xxh3"]],
        columns: vec![
            c("capture_id", Integer, "The capture.", |r| r.capture_id.into()),
            c("block", Integer, "The block's id in the file's memory map (an opaque 64-bit number, stored with its bits as a signed integer).", |r| r.b.id.into()),
            c("location", Any, "`local` or `main` (RSX local memory or IO-mapped main memory); the raw word when it is neither.", |r| raw_location(r.b.location)),
            c("address", Integer, "Offset of its first byte in the location, bytes.", |r| r.b.offset.into()),
            c("size", Integer, "Length, bytes; NULL when the file lacks its data.", |r| Cell::opt(r.b.size)),
            c("xxh3", Text, "XXH3-64 of its bytes, 16 hex digits (what `rsxtrace find --xxh3` searches); NULL without data.", |r| Cell::opt(r.b.xxh3.map(|h| format!("{h:016x}")))),
            c("data_id", Integer, "Id of its bytes in the file's data map (blocks with equal bytes share one).", |r| r.b.data_id.into()),
            c("attachments", Integer, "Commands it is attached to.", |r| r.b.attachments.into()),
            c("first_command", Integer, "First command it is attached to; NULL when none.", |r| Cell::opt(r.b.first_command)),
        ],
    }
}

/// A row of `block_uses`.
pub struct UseRow<'a> {
    /// Capture.
    pub capture_id: i64,
    /// Draw.
    pub draw: usize,
    /// The use.
    pub u: &'a BlockUse,
}

/// The `block_uses` table.
pub fn uses_table<'a>() -> Table<UseRow<'a>> {
    use Ty::*;
    let c = col::<UseRow<'a>>;
    Table {
        name: "block_uses",
        doc: "One row per (draw, block, role): which captured block holds the bytes a draw \
              reads as what, or lies under a render target it writes. A draw reads each \
              byte from the newest block visible at its END that holds it; a range one \
              block holds whole maps to that block, a range assembled from several maps to \
              every visible block overlapping it.",
        primary_key: &[],
        indexes: &[&["capture_id", "draw"], &["capture_id", "block"]],
        columns: vec![
            c("capture_id", Integer, "The capture.", |r| r.capture_id.into()),
            c("draw", Integer, "The draw.", |r| r.draw.into()),
            c("block", Integer, "The block (`memory_blocks.block`).", |r| r.u.block.block.into()),
            c("role", Text, "`fragment_program`, `index_buffer`, `attribute`, `texture`, `vertex_texture`, `color_target` or `depth_target`.", |r| r.u.role.name().into()),
            c("slot", Integer, "Index range number, attribute number, texture unit, or colour target (0 = A .. 3 = D); NULL for the fragment program and the depth target.", |r| Cell::opt(r.u.role.slot())),
            c("offset", Integer, "Offset of the used bytes from the block's start, bytes.", |r| r.u.offset_in_block.into()),
            c("bytes", Integer, "Bytes of the block used.", |r| r.u.len.into()),
        ],
    }
}
