//! Helpers shared by the integration tests.
#![allow(dead_code)]

use rsxtrace_rrc::{Capture, MemoryBlock, ReplayCommand};

/// `(first, second)` of every command.
pub fn pairs(c: &Capture) -> Vec<(u32, u32)> {
    c.commands.iter().map(|c| (c.first, c.second)).collect()
}

/// A count-1 command for the method at byte offset `byte_offset`.
pub fn one(byte_offset: u32, value: u32) -> (u32, u32) {
    (byte_offset | (1 << 18), value)
}

/// The block with id `id`.
pub fn block(c: &Capture, id: u64) -> MemoryBlock {
    c.blocks
        .iter()
        .find(|e| e.id == id)
        .map(|e| e.value)
        .expect("block id present")
}

/// The bytes of block `id`.
pub fn block_bytes(c: &Capture, id: u64) -> Vec<u8> {
    let data_id = block(c, id).data_id;
    c.data
        .iter()
        .find(|e| e.id == data_id)
        .map(|e| e.value.to_vec())
        .expect("data id present")
}

/// `(offset, location, len)` of every block attached to `cmd`, in order.
pub fn attached(c: &Capture, cmd: &ReplayCommand) -> Vec<(u32, u32, usize)> {
    cmd.memory
        .iter()
        .map(|&id| {
            let b = block(c, id);
            (b.offset, b.location, block_bytes(c, id).len())
        })
        .collect()
}
