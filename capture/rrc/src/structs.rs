//! The bitwise fixed-size structs shared by v4, v5 and v6 (rrc-format.md 1.4): `tile_state`
//! (432 bytes), `display_buffers_state` (132 bytes) and `memory_block` (16 bytes), decoded from
//! and encoded to their little-endian packed images.

use crate::model::{BufferState, DisplayBuffersState, MemoryBlock, TileInfo, TileState, ZcullInfo};

/// `tile_state`: 15 x `tile_info` (16 B) + 8 x `zcull_info` (24 B).
pub const TILE_STATE_SIZE: usize = 15 * 16 + 8 * 24;
/// `display_buffers_state`: 8 x `buffer_state` (16 B) + u32 count.
pub const DISPLAY_STATE_SIZE: usize = 8 * 16 + 4;
/// `memory_block`: u32 offset, u32 location, u64 data_state.
pub const MEMORY_BLOCK_SIZE: usize = 16;

/// Little-endian u32 words of a slice whose length is a multiple of 4 (callers guarantee it).
#[inline]
pub(crate) fn words(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

/// Decode a `tile_state` image.
pub fn tile_state(image: &[u8; TILE_STATE_SIZE]) -> TileState {
    let mut w = words(image);
    let mut next = || w.next().unwrap_or(0);
    let mut st = TileState::default();
    for t in &mut st.tiles {
        *t = TileInfo {
            tile: next(),
            limit: next(),
            pitch: next(),
            format: next(),
        };
    }
    for z in &mut st.zculls {
        *z = ZcullInfo {
            region: next(),
            size: next(),
            start: next(),
            offset: next(),
            status0: next(),
            status1: next(),
        };
    }
    st
}

/// Decode a `display_buffers_state` image.
pub fn display_state(image: &[u8; DISPLAY_STATE_SIZE]) -> DisplayBuffersState {
    let mut w = words(image);
    let mut next = || w.next().unwrap_or(0);
    let mut st = DisplayBuffersState::default();
    for b in &mut st.buffers {
        *b = BufferState {
            width: next(),
            height: next(),
            pitch: next(),
            offset: next(),
        };
    }
    st.count = next();
    st
}

/// Decode a v4/v5/v6 `memory_block` image.
pub fn memory_block(image: &[u8; MEMORY_BLOCK_SIZE]) -> MemoryBlock {
    let [o0, o1, o2, o3, l0, l1, l2, l3, d @ ..] = *image;
    MemoryBlock {
        offset: u32::from_le_bytes([o0, o1, o2, o3]),
        location: u32::from_le_bytes([l0, l1, l2, l3]),
        data_id: u64::from_le_bytes(d),
    }
}

/// Append a `tile_state` image.
pub fn put_tile_state(out: &mut Vec<u8>, st: &TileState) {
    for t in &st.tiles {
        for v in [t.tile, t.limit, t.pitch, t.format] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for z in &st.zculls {
        for v in [z.region, z.size, z.start, z.offset, z.status0, z.status1] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Append a `display_buffers_state` image.
pub fn put_display_state(out: &mut Vec<u8>, st: &DisplayBuffersState) {
    for b in &st.buffers {
        for v in [b.width, b.height, b.pitch, b.offset] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.extend_from_slice(&st.count.to_le_bytes());
}

/// Append a `memory_block` image.
pub fn put_memory_block(out: &mut Vec<u8>, b: &MemoryBlock) {
    out.extend_from_slice(&b.offset.to_le_bytes());
    out.extend_from_slice(&b.location.to_le_bytes());
    out.extend_from_slice(&b.data_id.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_state_word_order() {
        let mut image = [0u8; TILE_STATE_SIZE];
        // tiles[1].limit is word 5; zculls[0].status1 is word 60 + 5.
        image[20..24].copy_from_slice(&0xAABB_CCDDu32.to_le_bytes());
        image[260..264].copy_from_slice(&0x0020_2000u32.to_le_bytes());
        let st = tile_state(&image);
        assert_eq!(st.tiles[1].limit, 0xAABB_CCDD);
        assert_eq!(st.zculls[0].status1, 0x0020_2000);
        let mut back = Vec::new();
        put_tile_state(&mut back, &st);
        assert_eq!(back, image);
    }

    #[test]
    fn display_state_count_is_last() {
        let mut image = [0u8; DISPLAY_STATE_SIZE];
        image[128] = 2;
        image[16] = 0x80; // buffers[1].width = 0x780 (1920)
        image[17] = 0x07;
        let st = display_state(&image);
        assert_eq!(st.count, 2);
        assert_eq!(st.buffers[1].width, 1920);
        let mut back = Vec::new();
        put_display_state(&mut back, &st);
        assert_eq!(back, image);
    }

    #[test]
    fn memory_block_fields() {
        let image = [0, 0, 0x10, 0, 1, 0, 0, 0, 0x37, 0x12, 0, 0, 0, 0, 0, 0];
        let b = memory_block(&image);
        assert_eq!((b.offset, b.location, b.data_id), (0x10_0000, 1, 0x1237));
    }
}
