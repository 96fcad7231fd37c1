//! Captured bytes a render reads inside a bound tile region ([`tiled_reads`]).
//!
//! A game binds tile regions over its colour and depth buffers (`cellGcmSetTileInfo`). The
//! RSX's memory controller stores a tiled region's bytes in its own order, and RPCS3 keeps
//! guest memory in that order: it tiles what it writes there and detiles what the RSX reads
//! from there (`NV47/HW/nv3089.cpp` tiles an `NV3089` destination; the texture cache checks
//! an `NV3089` source and destination, `texture_cache.h`; a render target first loaded
//! from memory is detiled, `VKRenderTargets.cpp`; the order itself: `tiled_dma_copy.hpp`).
//! rsxtrace reads captured memory linearly, so bytes a capture holds inside a tiled region
//! may be out of place when a render reads them. What it renders itself is linear and
//! stays right.
//!
//! This module finds those reads from the frame alone, in stream order, as the renderers
//! make them: a draw's texture units (those its fragment program reads), a draw's targets
//! where no earlier draw, clear or transfer of the render wrote them (the target starts
//! from the captured bytes), and a transfer's source. Both renderers warn about them once
//! per use and region ([`warnings`]).

use crate::raster::PixelRect;
use crate::render::extent::{DrawTargets, Extent};
use crate::render::state::{color_targets, ClearEvent, ColorFormat, DepthFormat, FrameEvents};
use crate::render::surface::{bytes_per_pixel, depth_bytes_per_pixel, SurfaceLayout};
use crate::render::transfer::{destination_extent, source_extent, BetweenDraws};
use crate::render::RenderWarning;
use crate::texture::decode::texture_spans;
use rsxtrace_capture::frame::regions::Indexed;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_capture::rrc::TileRegion;
use rsxtrace_program::fragment::decode as decode_fragment;
use std::collections::HashMap;
use std::ops::Range;

/// What reads the captured bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TiledUse {
    /// A draw's fragment texture unit `n`.
    Texture(u8),
    /// A draw's colour target `n` (0..4 = A..D), starting from the captured bytes.
    ColorTarget(u8),
    /// A draw's depth and stencil target, starting from the captured bytes.
    DepthTarget,
    /// The source of an image transfer.
    TransferSource,
}

impl TiledUse {
    /// "texture unit 0", "colour target A", "depth target", "transfer source".
    pub fn describe(&self) -> String {
        match self {
            TiledUse::Texture(n) => format!("texture unit {n}"),
            TiledUse::ColorTarget(n) => {
                let name = ["A", "B", "C", "D"].get(usize::from(*n)).unwrap_or(&"?");
                format!("colour target {name}")
            }
            TiledUse::DepthTarget => "depth target".to_string(),
            TiledUse::TransferSource => "transfer source".to_string(),
        }
    }
}

/// One read of captured bytes inside a bound tile region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledRead {
    /// The draw that reads (`None`: a transfer after the last draw).
    pub draw: Option<usize>,
    /// The command that reads: the draw's `END`, the transfer's start.
    pub command: usize,
    /// What reads.
    pub what: TiledUse,
    /// The region, as bound at that command.
    pub tile: Indexed<TileRegion>,
    /// The bytes read inside the region that the render had not written.
    pub bytes: u64,
}

/// Every read of captured bytes inside a bound tile region when draws `draws` of `frame` are
/// rendered (the clears and transfers before the range's first draw applied too, as both
/// renderers apply them), in stream order. Empty at once when the frame binds no tile region.
pub fn tiled_reads(frame: &Frame, events: &FrameEvents, draws: Range<usize>) -> Vec<TiledRead> {
    if !binds_tiles(frame) {
        return Vec::new();
    }
    let mut walk = Walk {
        frame,
        written: Vec::new(),
        reads: Vec::new(),
    };
    let end = draws.end.min(frame.draws.len());
    let between = events.between_draws();
    let mut pending = between.iter().peekable();
    for index in draws.start.min(end)..end {
        while let Some(e) = pending.next_if(|e| e.before_draw() <= index) {
            walk.event(e, Some(index));
        }
        if let Some(draw) = frame.draws.get(index) {
            walk.draw(index, draw);
        }
    }
    if end == frame.draws.len() {
        for e in pending {
            walk.event(e, None);
        }
    }
    walk.reads
}

/// Whether any command of `frame` has a tile region bound (no read can be tiled otherwise).
pub fn binds_tiles(frame: &Frame) -> bool {
    frame.regions.changes().any(|(_, b)| !b.tiles.is_empty())
}

/// The warnings of `reads`: one per use and region, at the first read's draw, naming its
/// command and counting the later reads (draws, or transfers).
pub fn warnings(reads: &[TiledRead]) -> Vec<RenderWarning> {
    let mut groups: HashMap<(TiledUse, usize, TileRegion), (&TiledRead, usize)> = HashMap::new();
    for r in reads {
        let key = (r.what, r.tile.index, r.tile.region);
        groups.entry(key).or_insert((r, 0)).1 += 1;
    }
    let mut out: Vec<((usize, TiledUse, usize), RenderWarning)> = groups
        .into_values()
        .map(|(first, count)| {
            let later = match count {
                1 => String::new(),
                2 => " and 1 later read".to_string(),
                n => format!(" and {} later reads", n - 1),
            };
            let message = format!(
                "{} reads captured bytes in tile region {} ({}) linearly (command {}{later}); \
                 RPCS3 keeps a tiled region's memory in the tiled order, so those bytes may be \
                 out of place",
                first.what.describe(),
                first.tile.index,
                first.tile.region,
                first.command,
            );
            (
                (first.command, first.what, first.tile.index),
                RenderWarning {
                    draw: first.draw,
                    message,
                },
            )
        })
        .collect();
    out.sort_by_key(|(order, _)| *order);
    out.into_iter().map(|(_, w)| w).collect()
}

/// The walk through the frame: what the render wrote so far, and the reads found.
struct Walk<'f> {
    frame: &'f Frame,
    written: Vec<Extent>,
    reads: Vec<TiledRead>,
}

impl Walk<'_> {
    fn event(&mut self, event: &BetweenDraws<'_>, draw: Option<usize>) {
        match event {
            BetweenDraws::Clear(c) => {
                let area = c.area();
                for layout in cleared_layouts(c) {
                    if let Some(rows) = whole_rows(&layout, area_rows(&area, &layout)) {
                        self.wrote(rows);
                    }
                }
            }
            BetweenDraws::Transfer(t) => {
                let Ok(transfer) = &t.transfer else { return };
                if let Some((location, start, end)) = source_extent(transfer) {
                    let source = Extent {
                        location,
                        start,
                        end,
                    };
                    self.read(t.command, draw, TiledUse::TransferSource, source);
                }
                if let Some((location, start, end)) = destination_extent(transfer) {
                    self.wrote(Extent {
                        location,
                        start,
                        end,
                    });
                }
            }
        }
    }

    fn draw(&mut self, index: usize, draw: &Draw) {
        let command = draw.end_command;
        for unit in units_read(draw) {
            let Some(texture) = draw.textures.get(usize::from(unit)) else {
                continue;
            };
            // A texture whose state does not decode is sampled as zeros: it reads nothing.
            let Ok(spans) = texture_spans(unit, texture) else {
                continue;
            };
            for span in spans {
                self.read(
                    command,
                    Some(index),
                    TiledUse::Texture(unit),
                    Extent::of_span(&span),
                );
            }
        }
        let Some(targets) = DrawTargets::of(draw) else {
            return;
        };
        let mut touched = Vec::new();
        for (n, layout) in targets.colors.iter().enumerate() {
            let what = TiledUse::ColorTarget(color_target_name(draw, n));
            touched.push((what, Extent::of_layout(layout)));
        }
        if let Some(depth) = &targets.depth {
            touched.push((TiledUse::DepthTarget, Extent::of_layout(depth)));
        }
        for (what, extent) in touched {
            self.read(command, Some(index), what, extent);
            self.wrote(extent);
        }
    }

    /// Add a written extent (each distinct one once: a frame renders into a few surfaces
    /// many times).
    fn wrote(&mut self, e: Extent) {
        if !self.written.contains(&e) {
            self.written.push(e);
        }
    }

    /// Record a read of `extent` where it lies in a region bound at `command` and the render
    /// had not written it.
    fn read(&mut self, command: usize, draw: Option<usize>, what: TiledUse, extent: Extent) {
        let Some(bound) = self.frame.regions.at(command) else {
            return;
        };
        for tile in &bound.tiles {
            let t = &tile.region;
            let inside = Extent {
                location: extent.location,
                start: extent.start.max(u64::from(t.offset)),
                end: extent.end.min(t.end()),
            };
            if t.location != extent.location || inside.start >= inside.end {
                continue;
            }
            let bytes = unwritten(&inside, &self.written);
            if bytes > 0 {
                self.reads.push(TiledRead {
                    draw,
                    command,
                    what,
                    tile: *tile,
                    bytes,
                });
            }
        }
    }
}

/// The fragment texture units `draw`'s program reads and enables (none when the program
/// does not decode: neither renderer runs the draw then).
fn units_read(draw: &Draw) -> Vec<u8> {
    let Some(fp) = &draw.fragment_program else {
        return Vec::new();
    };
    let Ok(program) = decode_fragment(&fp.ucode) else {
        return Vec::new();
    };
    let units = program.texture_units_read();
    (0..16u8)
        .filter(|u| units & (1 << u) != 0)
        .filter(|&u| {
            draw.textures
                .get(usize::from(u))
                .is_some_and(|t| t.control0.enabled)
        })
        .collect()
}

/// The target number (0..4 = A..D) of the `n`th colour target `draw` writes.
fn color_target_name(draw: &Draw, n: usize) -> u8 {
    color_targets(draw.surface.color_target.raw)
        .unwrap_or_default()
        .get(n)
        .map_or(0, |&t| t as u8)
}

/// The layouts a clear writes: its colour targets when it clears a colour channel of a
/// format it clears, its depth target when it clears depth or stencil.
fn cleared_layouts(c: &ClearEvent) -> Vec<SurfaceLayout> {
    let s = &c.surface;
    let mut out = Vec::new();
    if c.mask.any_color() {
        if let Some(format) = ColorFormat::from_raw(s.format.color_format.raw) {
            if c.color_for(format).is_some() {
                for t in c.color_targets() {
                    if let Ok(l) = SurfaceLayout::of_target(s, t, bytes_per_pixel(format)) {
                        out.push(l);
                    }
                }
            }
        }
    }
    if c.mask.depth || c.mask.stencil {
        if let Some(format) = DepthFormat::of(s) {
            if let Ok(l) = SurfaceLayout::of_target(s, 4, depth_bytes_per_pixel(format)) {
                out.push(l);
            }
        }
    }
    out
}

/// The rows of `layout` a clear's area covers from side to side (`None` when it leaves any
/// column of them).
fn area_rows(area: &PixelRect, layout: &SurfaceLayout) -> Option<Range<u32>> {
    (area.x0 == 0 && area.x1 >= layout.width && area.y0 < area.y1)
        .then(|| area.y0..area.y1.min(layout.height))
}

/// The bytes of whole rows `rows` of a pitch surface (`None` for a swizzled one, or none).
fn whole_rows(layout: &SurfaceLayout, rows: Option<Range<u32>>) -> Option<Extent> {
    let rows = rows?;
    if layout.swizzle.is_some() || rows.is_empty() {
        return None;
    }
    let base = u64::from(layout.offset);
    let pitch = u64::from(layout.pitch);
    Some(Extent {
        location: layout.location,
        start: base + u64::from(rows.start) * pitch,
        end: (base + u64::from(rows.end) * pitch).min(Extent::of_layout(layout).end),
    })
}

/// How many bytes of `range` no extent of `written` holds.
fn unwritten(range: &Extent, written: &[Extent]) -> u64 {
    let mut covering: Vec<(u64, u64)> = written
        .iter()
        .filter(|w| w.overlaps(range))
        .map(|w| (w.start.max(range.start), w.end.min(range.end)))
        .collect();
    covering.sort_unstable();
    let mut left = 0;
    let mut at = range.start;
    for (s, e) in covering {
        if s > at {
            left += s - at;
        }
        at = at.max(e);
    }
    left + range.end.saturating_sub(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::rrc::Location;

    fn e(start: u64, end: u64) -> Extent {
        Extent {
            location: Location::Local,
            start,
            end,
        }
    }

    #[test]
    fn unwritten_counts_the_bytes_no_written_extent_holds() {
        let range = e(100, 200);
        assert_eq!(unwritten(&range, &[]), 100);
        // Overlapping and unordered extents, one outside, one in main memory.
        let main = Extent {
            location: Location::Main,
            ..e(100, 200)
        };
        let written = [e(150, 170), e(90, 120), e(160, 180), e(300, 400), main];
        // Left: 120..150 and 180..200.
        assert_eq!(unwritten(&range, &written), 50);
        assert_eq!(unwritten(&range, &[e(0, 1000)]), 0);
    }

    #[test]
    fn a_clear_writes_the_rows_it_covers_from_side_to_side() {
        let layout = SurfaceLayout {
            location: Location::Local,
            offset: 0x1000,
            pitch: 64,
            bpp: 4,
            width: 16,
            height: 8,
            swizzle: None,
        };
        let rect = |x0, y0, x1, y1| PixelRect { x0, y0, x1, y1 };
        // Rows 2..5 whole: bytes 0x1000 + 2·64 .. 0x1000 + 5·64.
        let rows = whole_rows(&layout, area_rows(&rect(0, 2, 16, 5), &layout));
        assert_eq!(rows, Some(e(0x1080, 0x1140)));
        // Past the last row: up to the surface's end.
        let rows = whole_rows(&layout, area_rows(&rect(0, 0, 20, 30), &layout));
        assert_eq!(rows, Some(Extent::of_layout(&layout)));
        // A column left out: no row is whole.
        assert_eq!(area_rows(&rect(1, 0, 16, 8), &layout), None);
        // A swizzled surface's rows are not contiguous.
        let swizzled = SurfaceLayout {
            swizzle: Some((4, 3)),
            ..layout
        };
        let rows = area_rows(&rect(0, 0, 16, 8), &swizzled);
        assert_eq!(whole_rows(&swizzled, rows), None);
    }
}
