//! Tile and Z-cull regions: the packed `tile_info` and `zcull_info` words of a `tile_state`
//! (rrc-format.md 1.4) decoded into what the game bound with `cellGcmSetTileInfo`/
//! `cellGcmBindTile` and `cellGcmBindZcull`, and packed back.
//!
//! RPCS3 writes each region with `GcmTileInfo::pack` / `GcmZcullInfo::pack` (`rpcs3/Emu/RSX/
//! GCM.h`) and, for a region the game has not bound, forces the words that say so to 0
//! (`rsx_capture.cpp`, `capture_display_tile_state`): a tile's `pitch` and `format`, a Z-cull
//! region's `status0` and `status1`. So a tile is bound when its `format` has bit 30 (which
//! `pack` always sets), a Z-cull region when its status words are not both 0. The layouts:
//!
//! | word | bits |
//! |---|---|
//! | tile `tile` | 0..3 location + 1, 4..7 bank, 16..30 offset / 64 KiB, 31 location |
//! | tile `limit` | 16..30 (offset + size − 1) / 64 KiB, 31 location |
//! | tile `pitch` | the pitch in bytes (a multiple of 256) |
//! | tile `format` | 0..12 compression tag base, 13..25 its last tag, 26..29 compression mode, 30 bound |
//! | Z-cull `region` | 0 enabled, 4..7 depth format, 8..11 antialiasing |
//! | Z-cull `size` | 6..21 height / 64, 22..31 width / 64 |
//! | Z-cull `start` | the cull start, 4 KiB aligned |
//! | Z-cull `offset` | the depth buffer's offset in local memory |
//! | Z-cull `status0` | 1 direction, 2..11 format, 12..15 stencil function, 16..23 reference, 24..31 mask |
//! | Z-cull `status1` | 0x00202000 when bound |

use crate::model::{Location, TileInfo, ZcullInfo};
use serde::Serialize;

/// Bytes per unit of a tile's offset and limit words.
const TILE_UNIT: u32 = 0x1_0000;
/// `format` bit 30: set by `pack` for every tile, cleared with the whole word when unbound.
const TILE_BOUND: u32 = 1 << 30;
/// `status1` of a bound Z-cull region as `GcmZcullInfo::pack` writes it.
const ZCULL_STATUS1: u32 = 0x2000 | (0x20 << 16);

/// A bound tile region: local or main memory the RSX stores tiled (and may compress).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct TileRegion {
    /// Its memory.
    pub location: Location,
    /// Offset of its first byte (a multiple of 64 KiB).
    pub offset: u32,
    /// Its size in bytes (a multiple of 64 KiB).
    pub size: u32,
    /// Row pitch of the surfaces in it, in bytes.
    pub pitch: u32,
    /// Compression mode (`CELL_GCM_COMPMODE_*`, [`compression_name`]).
    pub compression: u8,
    /// First compression tag.
    pub base_tag: u32,
    /// Memory bank.
    pub bank: u8,
}

impl TileRegion {
    /// One past its last byte.
    pub fn end(&self) -> u64 {
        u64::from(self.offset) + u64::from(self.size)
    }

    /// Whether the byte at `offset` of `location` lies in it.
    pub fn contains(&self, location: Location, offset: u32) -> bool {
        location == self.location && offset >= self.offset && u64::from(offset) < self.end()
    }

    /// The words RPCS3 writes for it (`GcmTileInfo::pack`).
    pub fn pack(&self) -> TileInfo {
        let loc = match self.location {
            Location::Local => 0,
            Location::Main => 1,
        };
        let last = self.size.max(1) - 1;
        TileInfo {
            tile: (loc + 1)
                | (u32::from(self.bank) << 4)
                | ((self.offset / TILE_UNIT) << 16)
                | (loc << 31),
            limit: ((self.offset.wrapping_add(last) / TILE_UNIT) << 16) | (loc << 31),
            pitch: (self.pitch / 0x100) << 8,
            format: self.base_tag
                | ((self.base_tag.wrapping_add(last / TILE_UNIT)) << 13)
                | (u32::from(self.compression) << 26)
                | TILE_BOUND,
        }
    }
}

impl std::fmt::Display for TileRegion {
    /// `local+0x0, 0x380000 bytes, pitch 5120, C32_2X2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}+0x{:x}, 0x{:x} bytes, pitch {}, {}",
            self.location.name(),
            self.offset,
            self.size,
            self.pitch,
            compression_label(self.compression)
        )
    }
}

/// The name of a compression mode (`CELL_GCM_COMPMODE_*`, RPCS3 `gcm_enums.h`).
pub fn compression_name(mode: u8) -> Option<&'static str> {
    Some(match mode {
        0 => "DISABLED",
        7 => "C32_2X1",
        8 => "C32_2X2",
        9 => "Z32_SEPSTENCIL",
        10 => "Z32_SEPSTENCIL_REGULAR",
        11 => "Z32_SEPSTENCIL_DIAGONAL",
        12 => "Z32_SEPSTENCIL_ROTATED",
        _ => return None,
    })
}

/// A compression mode as text: its name, or `mode N` for an undocumented value.
pub fn compression_label(mode: u8) -> String {
    compression_name(mode).map_or_else(|| format!("mode {mode}"), str::to_string)
}

impl TileInfo {
    /// The region, when bound. A limit below the offset (not a word `pack` writes) reads as
    /// one 64 KiB unit.
    pub fn region(&self) -> Option<TileRegion> {
        if self.format & TILE_BOUND == 0 {
            return None;
        }
        let first = (self.tile >> 16) & 0x7FFF;
        let last = ((self.limit >> 16) & 0x7FFF).max(first);
        Some(TileRegion {
            location: if self.tile >> 31 == 0 {
                Location::Local
            } else {
                Location::Main
            },
            offset: first * TILE_UNIT,
            size: (last - first + 1) * TILE_UNIT,
            pitch: self.pitch,
            compression: ((self.format >> 26) & 0xF) as u8,
            base_tag: self.format & 0x1FFF,
            bank: ((self.tile >> 4) & 0xF) as u8,
        })
    }
}

/// A bound Z-cull region: the depth buffer it culls for and its settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ZcullRegion {
    /// The depth buffer's offset in local memory.
    pub offset: u32,
    /// Its width in pixels (a multiple of 64).
    pub width: u32,
    /// Its height in pixels (a multiple of 64).
    pub height: u32,
    /// The cull start (a multiple of 4 KiB).
    pub cull_start: u32,
    /// Depth format (`CELL_GCM_ZCULL_Z16` 1, `Z24S8` 2: the surface's depth format codes).
    pub depth_format: u8,
    /// Antialiasing (`CELL_GCM_SURFACE_CENTER_1` 0, ...: the surface's codes).
    pub antialias: u8,
    /// Cull direction (`CELL_GCM_ZCULL_LESS` 0, `GREATER` 1).
    pub direction: u8,
    /// Cull format (`CELL_GCM_ZCULL_MSB` 0, `LONES` 1).
    pub format: u16,
    /// Stencil cull function.
    pub stencil_func: u8,
    /// Stencil cull reference.
    pub stencil_ref: u8,
    /// Stencil cull mask.
    pub stencil_mask: u8,
}

impl ZcullRegion {
    /// The words RPCS3 writes for it (`GcmZcullInfo::pack`).
    pub fn pack(&self) -> ZcullInfo {
        ZcullInfo {
            region: 1 | (u32::from(self.depth_format) << 4) | (u32::from(self.antialias) << 8),
            size: ((self.width >> 6) << 22) | ((self.height >> 6) << 6),
            start: self.cull_start & !0xFFF,
            offset: self.offset,
            status0: (u32::from(self.direction) << 1)
                | (u32::from(self.format) << 2)
                | (u32::from(self.stencil_func & 0xF) << 12)
                | (u32::from(self.stencil_ref) << 16)
                | (u32::from(self.stencil_mask) << 24),
            status1: ZCULL_STATUS1,
        }
    }
}

impl std::fmt::Display for ZcullRegion {
    /// `local+0x384000, 1280x768, cull start 0x0`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "local+0x{:x}, {}x{}, cull start 0x{:x}",
            self.offset, self.width, self.height, self.cull_start
        )
    }
}

impl ZcullInfo {
    /// The region, when bound.
    pub fn region(&self) -> Option<ZcullRegion> {
        if self.status0 == 0 && self.status1 == 0 {
            return None;
        }
        Some(ZcullRegion {
            offset: self.offset,
            width: ((self.size >> 22) & 0x3FF) << 6,
            height: ((self.size >> 6) & 0xFFFF) << 6,
            cull_start: self.start,
            depth_format: ((self.region >> 4) & 0xF) as u8,
            antialias: ((self.region >> 8) & 0xF) as u8,
            direction: ((self.status0 >> 1) & 1) as u8,
            format: ((self.status0 >> 2) & 0x3FF) as u16,
            stencil_func: ((self.status0 >> 12) & 0xF) as u8,
            stencil_ref: (self.status0 >> 16) as u8,
            stencil_mask: (self.status0 >> 24) as u8,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tile_reads_back_from_its_packed_words() {
        // A 1280x720 A8R8G8B8 colour buffer (pitch 5120) at 16 MiB of local memory, C32_2X2,
        // bank 1, tags from 0x80; its 0x3A0000 bytes are 58 units of 64 KiB, the last 0x39
        // units past the first (the words worked out by hand from GcmTileInfo::pack).
        let region = TileRegion {
            location: Location::Local,
            offset: 0x0100_0000,
            size: 0x003A_0000,
            pitch: 0x1400,
            compression: 8,
            base_tag: 0x80,
            bank: 1,
        };
        let words = region.pack();
        assert_eq!(words.tile, 0x0100_0011);
        assert_eq!(words.limit, 0x0139_0000);
        assert_eq!(words.pitch, 0x1400);
        assert_eq!(words.format, 0x80 | (0xB9 << 13) | (8 << 26) | (1 << 30));
        assert_eq!(words.region(), Some(region));
        assert!(region.contains(Location::Local, 0x0139_FFFF));
        assert!(!region.contains(Location::Local, 0x013A_0000));
        assert!(!region.contains(Location::Main, 0x0100_0000));
        assert_eq!(compression_name(region.compression), Some("C32_2X2"));
        assert_eq!(compression_label(3), "mode 3");
        assert_eq!(
            region.to_string(),
            "local+0x1000000, 0x3a0000 bytes, pitch 5120, C32_2X2"
        );
        // Main memory sets bit 31 of both address words.
        let main = TileRegion {
            location: Location::Main,
            ..region
        };
        assert_eq!(main.pack().tile >> 31, 1);
        assert_eq!(main.pack().region(), Some(main));
    }

    #[test]
    fn unbound_regions_read_as_none() {
        // RPCS3 keeps `tile` and `limit` of an unbound tile (location 0: tile = 1) and zeroes
        // the rest; an unbound Z-cull region keeps `region` (bit 0 always set) and its sizes.
        let tile = TileInfo {
            tile: 1,
            limit: 0,
            pitch: 0,
            format: 0,
        };
        assert_eq!(tile.region(), None);
        // A tile unbound after use keeps its address words: still unbound.
        let was_bound = TileRegion {
            location: Location::Main,
            offset: 0x20_0000,
            size: 0x10_0000,
            pitch: 0x800,
            compression: 7,
            base_tag: 0,
            bank: 2,
        }
        .pack();
        let unbound = TileInfo {
            pitch: 0,
            format: 0,
            ..was_bound
        };
        assert_eq!(unbound.region(), None);
        let zcull = ZcullInfo {
            region: 1,
            size: 0,
            start: 0,
            offset: 0,
            status0: 0,
            status1: 0,
        };
        assert_eq!(zcull.region(), None);
        assert_eq!(TileInfo::default().region(), None);
    }

    #[test]
    fn a_zcull_region_reads_back_from_its_packed_words() {
        let region = ZcullRegion {
            offset: 0x0200_0000,
            width: 1280,
            height: 704,
            cull_start: 0x1000,
            depth_format: 2,
            antialias: 0,
            direction: 0,
            format: 1,
            stencil_func: 7,
            stencil_ref: 0x80,
            stencil_mask: 0xFF,
        };
        let words = region.pack();
        assert_eq!(words.region, 0x21);
        assert_eq!(words.size, (20 << 22) | (11 << 6));
        assert_eq!(words.status0, 0xFF80_7004);
        assert_eq!(words.status1, 0x0020_2000);
        assert_eq!(words.region(), Some(region));
        assert_eq!(
            region.to_string(),
            "local+0x2000000, 1280x704, cull start 0x1000"
        );
    }
}
