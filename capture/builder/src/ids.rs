//! The v6 id counter and the four de-duplicating maps (`tile_map`, `memory_map`,
//! `memory_data_map`, `display_buffers_map`).
//!
//! RPCS3 (`rsx_capture.cpp`, `insert_mem_block_in_map` and `capture_display_tile_state`;
//! rrc-format.md 1.5) draws every id from one counter, `memory_indexer`, which starts at
//! 0x1234 and is pre-incremented, so the first id is 0x1235. Each map is keyed by content:
//! identical bytes reuse their data id, identical `(offset, location, data id)` reuse their
//! block id, identical tile or display states reuse theirs. Entries are kept in insertion
//! order (RPCS3 writes hash order, which carries no meaning).

use std::collections::HashMap;
use std::hash::Hash;

use bytes::Bytes;
use rsxtrace_rrc::{DisplayBuffersState, Entry, MemoryBlock, TileState};

/// Value of `memory_indexer` before the first id is handed out (rrc-format.md 1.3).
pub const INDEXER_START: u64 = 0x1234;

/// One content-keyed map with its entries in insertion order.
#[derive(Debug, Clone)]
struct Map<T> {
    ids: HashMap<T, u64>,
    entries: Vec<Entry<T>>,
}

impl<T> Default for Map<T> {
    fn default() -> Self {
        Map {
            ids: HashMap::new(),
            entries: Vec::new(),
        }
    }
}

impl<T: Hash + Eq + Clone> Map<T> {
    fn intern(&mut self, counter: &mut u64, value: &T) -> u64 {
        if let Some(&id) = self.ids.get(value) {
            return id;
        }
        *counter += 1;
        let id = *counter;
        self.ids.insert(value.clone(), id);
        self.entries.push(Entry {
            id,
            value: value.clone(),
        });
        id
    }
}

/// The counter and the four maps of one capture.
#[derive(Debug, Clone)]
pub struct IdMaps {
    counter: u64,
    data: Map<Bytes>,
    blocks: Map<MemoryBlock>,
    tiles: Map<TileState>,
    displays: Map<DisplayBuffersState>,
}

impl Default for IdMaps {
    fn default() -> Self {
        IdMaps {
            counter: INDEXER_START,
            data: Map::default(),
            blocks: Map::default(),
            tiles: Map::default(),
            displays: Map::default(),
        }
    }
}

/// The four maps' entries, ready to go into a `Capture`.
#[derive(Debug, Clone, Default)]
pub struct MapEntries {
    /// `tile_map` entries.
    pub tiles: Vec<Entry<TileState>>,
    /// `memory_map` entries.
    pub blocks: Vec<Entry<MemoryBlock>>,
    /// `memory_data_map` entries.
    pub data: Vec<Entry<Bytes>>,
    /// `display_buffers_map` entries.
    pub display_buffers: Vec<Entry<DisplayBuffersState>>,
}

impl IdMaps {
    /// Fresh maps; the next id handed out is 0x1235.
    pub fn new() -> IdMaps {
        IdMaps::default()
    }

    /// The last id handed out (0x1234 before the first).
    pub fn last_id(&self) -> u64 {
        self.counter
    }

    /// `insert_mem_block_in_map`: intern the bytes (data id first), then the block
    /// `(offset, location, data id)`, and return the block id. Empty data records nothing, as
    /// in RPCS3, and gives `None`.
    pub fn insert_memory_block(&mut self, offset: u32, location: u32, data: Bytes) -> Option<u64> {
        if data.is_empty() {
            return None;
        }
        let data_id = self.data.intern(&mut self.counter, &data);
        let block = MemoryBlock {
            offset,
            location,
            data_id,
        };
        Some(self.blocks.intern(&mut self.counter, &block))
    }

    /// Intern a display-buffers state and return its id.
    pub fn intern_display(&mut self, state: &DisplayBuffersState) -> u64 {
        self.displays.intern(&mut self.counter, state)
    }

    /// Intern a tile/zcull state and return its id.
    pub fn intern_tile(&mut self, state: &TileState) -> u64 {
        self.tiles.intern(&mut self.counter, state)
    }

    /// `capture_display_tile_state`: the display-buffers state is interned first, then the
    /// tile state; returns `(tile_id, display_id)`.
    pub fn display_tile_state(
        &mut self,
        tile: &TileState,
        display: &DisplayBuffersState,
    ) -> (u64, u64) {
        let display_id = self.intern_display(display);
        let tile_id = self.intern_tile(tile);
        (tile_id, display_id)
    }

    /// Hand the entries over.
    pub fn into_entries(self) -> MapEntries {
        MapEntries {
            tiles: self.tiles.entries,
            blocks: self.blocks.entries,
            data: self.data.entries,
            display_buffers: self.displays.entries,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_shared_and_deduplicated_by_content() {
        let mut maps = IdMaps::new();
        let (tile, display) =
            maps.display_tile_state(&TileState::default(), &DisplayBuffersState::default());
        assert_eq!((tile, display), (0x1236, 0x1235));
        // data 0x1237, block 0x1238
        assert_eq!(
            maps.insert_memory_block(0x100, 0, Bytes::from_static(b"abcd")),
            Some(0x1238)
        );
        // Same bytes at another offset: data id reused, new block id.
        assert_eq!(
            maps.insert_memory_block(0x200, 0, Bytes::from_static(b"abcd")),
            Some(0x1239)
        );
        // Same bytes, same place: block id reused, counter untouched.
        assert_eq!(
            maps.insert_memory_block(0x100, 0, Bytes::from_static(b"abcd")),
            Some(0x1238)
        );
        assert_eq!(maps.last_id(), 0x1239);
        // Same offset, other location: new block.
        assert_eq!(
            maps.insert_memory_block(0x100, 1, Bytes::from_static(b"abcd")),
            Some(0x123A)
        );
        // Empty data records nothing.
        assert_eq!(maps.insert_memory_block(0x100, 1, Bytes::new()), None);
        assert_eq!(maps.last_id(), 0x123A);
        // Same states again reuse their ids.
        assert_eq!(
            maps.display_tile_state(&TileState::default(), &DisplayBuffersState::default()),
            (0x1236, 0x1235)
        );
        let entries = maps.into_entries();
        assert_eq!(entries.data.len(), 1);
        assert_eq!(entries.data[0].id, 0x1237);
        let blocks: Vec<(u64, u32, u32, u64)> = entries
            .blocks
            .iter()
            .map(|e| (e.id, e.value.offset, e.value.location, e.value.data_id))
            .collect();
        assert_eq!(
            blocks,
            vec![
                (0x1238, 0x100, 0, 0x1237),
                (0x1239, 0x200, 0, 0x1237),
                (0x123A, 0x100, 1, 0x1237)
            ]
        );
        assert_eq!(entries.tiles.len(), 1);
        assert_eq!(entries.display_buffers.len(), 1);
    }
}
