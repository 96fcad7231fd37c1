//! The tile and Z-cull regions bound through the frame ([`Regions`]): the `tile_state` each
//! command carries (0: no change; rrc-format.md 1.5, 3.2, 3.3: set on the capture's first
//! command and on every draw's END, the same id until the game changes its regions),
//! decoded ([`rsxtrace_rrc::regions`]), and which of them holds a given surface.
//!
//! RPCS3 applies a command's tile state before the command (`rsx_replay.cpp` `apply_frame_state`,
//! `sys_rsx_context_attribute` 0x300/0x301), and finds the Z-cull region of the depth buffer
//! as `thread::check_zcull_status` does: a bound region whose offset is the depth surface's
//! (local memory), with the surface's depth format and antialiasing.

use crate::problem::FrameProblem;
use crate::state::Surface;
use rsxtrace_rrc::{Capture, Location, TileRegion, TileState, ZcullRegion};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

/// The regions bound by one `tile_state`, each with its index (tiles 0..15, Z-cull 0..8).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BoundRegions {
    /// Bound tile regions.
    pub tiles: Vec<Indexed<TileRegion>>,
    /// Bound Z-cull regions.
    pub zculls: Vec<Indexed<ZcullRegion>>,
}

/// A region and its index among the state's regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Indexed<T> {
    /// Its index (`cellGcmSetTileInfo`'s and `cellGcmBindZcull`'s `index`).
    pub index: usize,
    /// The region.
    #[serde(flatten)]
    pub region: T,
}

impl BoundRegions {
    /// Decode a tile state's bound regions.
    pub fn of(state: &TileState) -> BoundRegions {
        BoundRegions {
            tiles: (state.tiles.iter().enumerate())
                .filter_map(|(index, t)| {
                    Some(Indexed {
                        index,
                        region: t.region()?,
                    })
                })
                .collect(),
            zculls: (state.zculls.iter().enumerate())
                .filter_map(|(index, z)| {
                    Some(Indexed {
                        index,
                        region: z.region()?,
                    })
                })
                .collect(),
        }
    }

    /// Every region bound in any of `states`, each distinct (index, region) once, by index.
    pub fn all_of<'s>(states: impl IntoIterator<Item = &'s TileState>) -> BoundRegions {
        let mut all = BoundRegions::default();
        for state in states {
            let b = BoundRegions::of(state);
            for t in b.tiles {
                if !all.tiles.contains(&t) {
                    all.tiles.push(t);
                }
            }
            for z in b.zculls {
                if !all.zculls.contains(&z) {
                    all.zculls.push(z);
                }
            }
        }
        all.tiles.sort_by_key(|t| t.index);
        all.zculls.sort_by_key(|z| z.index);
        all
    }

    /// The tile regions as one line, `index: memory+offset, size, pitch, compression` each
    /// (`none bound` when there is none), as `info` prints them.
    pub fn tiles_line(&self) -> String {
        line(
            self.tiles
                .iter()
                .map(|t| format!("{}: {}", t.index, t.region)),
        )
    }

    /// The Z-cull regions as one line, `index: local+offset, WxH, cull start` each.
    pub fn zculls_line(&self) -> String {
        line(
            self.zculls
                .iter()
                .map(|z| format!("{}: {}", z.index, z.region)),
        )
    }

    /// The bound tile region of index `index`.
    pub fn tile(&self, index: usize) -> Option<&Indexed<TileRegion>> {
        self.tiles.iter().find(|t| t.index == index)
    }

    /// The bound Z-cull region of index `index`.
    pub fn zcull(&self, index: usize) -> Option<&Indexed<ZcullRegion>> {
        self.zculls.iter().find(|z| z.index == index)
    }

    /// The tile region holding the byte at `offset` of `location`, if one does.
    pub fn tile_at(&self, location: Location, offset: u32) -> Option<&Indexed<TileRegion>> {
        self.tiles
            .iter()
            .find(|t| t.region.contains(location, offset))
    }

    /// The tile region holding target `target` of `surface` (colour 0..4, else the depth
    /// surface), if its location is known and a region holds its first byte.
    pub fn tile_of(&self, surface: &Surface, target: usize) -> Option<&Indexed<TileRegion>> {
        let t = surface.color.get(target).unwrap_or(&surface.zeta);
        self.tile_at(t.location?, t.offset)
    }

    /// The Z-cull region of `surface`'s depth buffer (RPCS3 `check_zcull_status`): bound at
    /// the depth surface's offset in local memory, with its depth format and antialiasing.
    pub fn zcull_of(&self, surface: &Surface) -> Option<&Indexed<ZcullRegion>> {
        if surface.zeta.location != Some(Location::Local) {
            return None;
        }
        self.zculls.iter().find(|z| {
            z.region.offset == surface.zeta.offset
                && u32::from(z.region.depth_format) == surface.format.depth_format.raw
                && u32::from(z.region.antialias) == surface.format.antialias.raw
        })
    }
}

/// `items` joined by `; `, or `none bound`.
fn line(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        "none bound".into()
    } else {
        items.join("; ")
    }
}

/// Which regions hold a surface's targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SurfaceRegions {
    /// The tile region of each colour target A..D the surface writes (its first byte), by
    /// index.
    pub color: [Option<usize>; 4],
    /// The tile region of the depth surface, by index.
    pub depth: Option<usize>,
    /// The Z-cull region of the depth surface ([`BoundRegions::zcull_of`]), by index.
    pub zcull: Option<usize>,
}

impl BoundRegions {
    /// Which of these regions hold `surface`'s targets.
    pub fn of_surface(&self, surface: &Surface) -> SurfaceRegions {
        SurfaceRegions {
            // SET_SURFACE_COLOR_TARGET's bit i selects target i in every documented value
            // (1 A, 2 B, 0x13 A+B, 0x17 A+B+C, 0x1F A+B+C+D; rrc-format.md 4.8).
            color: std::array::from_fn(|i| {
                (surface.color_target.raw >> i & 1 == 1)
                    .then(|| self.tile_of(surface, i).map(|t| t.index))
                    .flatten()
            }),
            depth: self.tile_of(surface, 4).map(|t| t.index),
            zcull: self.zcull_of(surface).map(|z| z.index),
        }
    }
}

/// The regions through a frame: each change with the command it comes with.
#[derive(Clone, Debug, Default)]
pub struct Regions {
    /// (command, the regions from it on), in command order; consecutive equal states merged.
    changes: Vec<(usize, Arc<BoundRegions>)>,
}

impl Regions {
    /// Read the commands' tile states; an id that is not in the capture's `tile_map` is a
    /// problem (RPCS3's replay stops there: "requested tile state command not found") and
    /// leaves the regions as they were.
    pub fn from_capture(capture: &Capture) -> (Regions, Vec<FrameProblem>) {
        let states: HashMap<u64, &TileState> =
            capture.tiles.iter().map(|e| (e.id, &e.value)).collect();
        let mut decoded: HashMap<u64, Arc<BoundRegions>> = HashMap::new();
        let mut regions = Regions::default();
        let mut problems = Vec::new();
        let mut current = None;
        for (command, c) in capture.commands.iter().enumerate() {
            if c.tile_state == 0 || current == Some(c.tile_state) {
                continue;
            }
            current = Some(c.tile_state);
            let Some(state) = states.get(&c.tile_state) else {
                // Named where it begins: RPCS3 repeats a state's id on every END until the
                // regions change.
                problems.push(FrameProblem::UnknownTileState {
                    command,
                    id: c.tile_state,
                });
                continue;
            };
            let bound = decoded
                .entry(c.tile_state)
                .or_insert_with(|| Arc::new(BoundRegions::of(state)))
                .clone();
            if regions.changes.last().map(|(_, b)| b) != Some(&bound) {
                regions.changes.push((command, bound));
            }
        }
        (regions, problems)
    }

    /// The regions bound at command `command` (its own state applied); `None` before the
    /// first command that carries one.
    pub fn at(&self, command: usize) -> Option<&BoundRegions> {
        let after = self.changes.partition_point(|(c, _)| *c <= command);
        after.checked_sub(1).map(|i| &*self.changes[i].1)
    }

    /// Each change: the command and the regions from it on.
    pub fn changes(&self) -> impl Iterator<Item = (usize, &BoundRegions)> {
        self.changes.iter().map(|(c, b)| (*c, &**b))
    }

    /// Whether no command carries a tile state.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_rrc::{Entry, ReplayCommand, TileInfo};

    fn tile(offset: u32) -> TileRegion {
        TileRegion {
            location: Location::Local,
            offset,
            size: 0x10_0000,
            pitch: 0x1000,
            compression: 0,
            base_tag: 0,
            bank: 0,
        }
    }

    fn state(tiles: &[(usize, TileRegion)]) -> TileState {
        let mut s = TileState::default();
        for t in &mut s.tiles {
            // An unbound tile as RPCS3 writes it (location 0 + 1, the rest 0).
            *t = TileInfo {
                tile: 1,
                ..TileInfo::default()
            };
        }
        for (i, r) in tiles {
            s.tiles[*i] = r.pack();
        }
        s
    }

    fn command(tile_state: u64) -> ReplayCommand {
        ReplayCommand {
            first: 0x40,
            tile_state,
            ..ReplayCommand::default()
        }
    }

    #[test]
    fn each_command_sees_the_last_state_applied() {
        let mut capture = Capture::empty("regions");
        capture.tiles = vec![
            Entry {
                id: 7,
                value: state(&[(0, tile(0))]),
            },
            Entry {
                id: 9,
                value: state(&[(0, tile(0)), (3, tile(0x40_0000))]),
            },
        ];
        capture.commands = vec![
            command(7),
            command(0),
            command(7),
            command(9),
            command(0),
            command(5),
            command(5),
            command(9),
        ];
        let (regions, problems) = Regions::from_capture(&capture);
        assert_eq!(
            problems,
            [FrameProblem::UnknownTileState { command: 5, id: 5 }]
        );
        assert_eq!(
            regions.changes().map(|(c, _)| c).collect::<Vec<_>>(),
            [0, 3]
        );
        assert_eq!(regions.at(2).unwrap().tiles.len(), 1);
        // The unknown id repeated is one problem; the regions stayed as they were.
        assert_eq!(regions.at(6).unwrap().tiles.len(), 2);
        let later = regions.at(7).unwrap();
        assert_eq!(later.tiles.len(), 2);
        assert_eq!(later.tile_at(Location::Local, 0x4F_FFFF).unwrap().index, 3);
        assert!(later.tile_at(Location::Local, 0x50_0000).is_none());
        assert!(later.tile_at(Location::Main, 0x40_0000).is_none());
        assert!(Regions::default().at(0).is_none());
    }

    #[test]
    fn the_depth_buffer_has_the_zcull_region_bound_at_its_offset_with_its_format() {
        use crate::methods::reg;
        // Colour A at 0x40_0000 and a Z24S8 depth buffer at 0x80_0000, both local memory.
        let mut regs = vec![0u32; 0x4000];
        regs[reg::SET_SURFACE_FORMAT as usize] = 8 | (2 << 5);
        regs[reg::SET_SURFACE_COLOR_TARGET as usize] = 1;
        regs[reg::SET_SURFACE_COLOR_AOFFSET as usize] = 0x40_0000;
        regs[reg::SET_CONTEXT_DMA_COLOR_A as usize] = 0xFEED_0000;
        regs[reg::SET_SURFACE_ZETA_OFFSET as usize] = 0x80_0000;
        regs[reg::SET_CONTEXT_DMA_ZETA as usize] = 0xFEED_0000;
        let surface = Surface::from_regs(&regs);
        let zcull = |offset, depth_format| ZcullRegion {
            offset,
            width: 1280,
            height: 768,
            cull_start: 0,
            depth_format,
            antialias: 0,
            direction: 0,
            format: 0,
            stencil_func: 0,
            stencil_ref: 0,
            stencil_mask: 0,
        };
        let mut state = state(&[(2, tile(0x40_0000)), (5, tile(0x80_0000))]);
        state.zculls[0] = zcull(0x80_0000, 1).pack(); // Z16: not this buffer's format
        state.zculls[1] = zcull(0x40_0000, 2).pack(); // another offset
        let bound = BoundRegions::of(&state);
        assert_eq!(bound.of_surface(&surface).zcull, None);
        state.zculls[6] = zcull(0x80_0000, 2).pack();
        let bound = BoundRegions::of(&state);
        assert_eq!(
            bound.of_surface(&surface),
            SurfaceRegions {
                color: [Some(2), None, None, None],
                depth: Some(5),
                zcull: Some(6),
            }
        );
        // Colour A not written: no tile listed for it.
        regs[reg::SET_SURFACE_COLOR_TARGET as usize] = 2;
        assert_eq!(
            bound.of_surface(&Surface::from_regs(&regs)).color,
            [None; 4]
        );
        // A depth buffer in main memory has no Z-cull region.
        regs[reg::SET_CONTEXT_DMA_ZETA as usize] = 0xFEED_0001;
        assert_eq!(bound.zcull_of(&Surface::from_regs(&regs)), None);
    }
}
