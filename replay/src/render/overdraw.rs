//! Overdraw: how many fragments the frame's draws rasterize at each pixel of one target, and
//! which draws rasterize the most (`rsxtrace overdraw`), as RenderDoc's overdraw overlay
//! shows a frame's fill cost.
//!
//! A fragment here is a pixel a primitive covers after the draw's scissor, surface clip,
//! culling and stipple patterns: the coverage both renderers use ([`covered_pixels`]), before
//! the fragment program and the alpha, depth and stencil tests. So the count is the fragment
//! work of a GPU that rejects nothing early, an upper bound on what shades; a fragment the
//! depth test later drops still counts. Nothing is rendered: each draw's vertex program runs
//! on its vertices (the CPU interpreter), its primitives are assembled and covered, draws in
//! parallel. A draw counts toward the target when one of its colour targets is the target,
//! or, for a depth surface, when it tests depth, stencil or depth bounds against it. A
//! multisampled target is counted on its sample grid, each sample at its position (modes 3
//! and 5 once per sample, as the renderers draw them); a pixel's count is the largest of its
//! samples'.
//!
//! [`PassedCounts`] gives the same picture for the fragments that passed every test in the
//! CPU render (`overdraw --passed`): what an occlusion query counts, per pixel.

use crate::render::cpu::geometry::{build_within, covered_pixels, CoverRules};
use crate::render::cpu::vertex::{point_size_from_vertex, shade_vertices};
use crate::render::msaa::{sample_passes, Antialias};
use crate::render::state::DrawState;
use crate::render::target::{readable_targets, NamedTarget};
use crate::render::Rgba8Image;
use rayon::prelude::*;
use rsxtrace_capture::frame::{Draw, Frame};
use serde::Serialize;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};

/// Counts at or above this many fragments share the ramp's last colour.
pub const RAMP_TOP: u32 = 16;

/// The fragments of one draw on the target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DrawFragments {
    /// The draw.
    pub draw: usize,
    /// Fragments it rasterized on the target.
    pub fragments: u64,
}

/// The overdraw of one target.
#[derive(Clone, Debug, PartialEq)]
pub struct Overdraw {
    /// Width of the counts (the target's pixels; a multisampled target's, resolved).
    pub width: u32,
    /// Height of the counts.
    pub height: u32,
    /// Fragments per pixel, row by row.
    pub counts: Vec<u32>,
    /// Every draw that rasterized a fragment on the target, in frame order.
    pub draws: Vec<DrawFragments>,
    /// Draws of the range that render into the target but could not be counted (state or
    /// vertex program), with why.
    pub skipped: Vec<(usize, String)>,
}

impl Overdraw {
    /// Every fragment counted (samples of a multisampled target included).
    pub fn total(&self) -> u64 {
        self.draws.iter().map(|d| d.fragments).sum()
    }

    /// The fragments draw `draw` rasterized on the target (0 when none, or not counted).
    pub fn fragments_of(&self, draw: usize) -> u64 {
        self.draws
            .binary_search_by_key(&draw, |d| d.draw)
            .map_or(0, |i| self.draws[i].fragments)
    }

    /// Pixels with at least one fragment.
    pub fn covered_pixels(&self) -> u64 {
        self.counts.iter().filter(|&&c| c > 0).count() as u64
    }

    /// Fragments per pixel that has any (0 when none has).
    pub fn mean_per_covered_pixel(&self) -> f64 {
        let covered = self.covered_pixels();
        if covered == 0 {
            return 0.0;
        }
        self.counts.iter().map(|&c| u64::from(c)).sum::<u64>() as f64 / covered as f64
    }

    /// The largest count and the first pixel (`x`, `y`) that has it.
    pub fn max(&self) -> (u32, u32, u32) {
        let (at, &count) = self
            .counts
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
            .unwrap_or((0, &0));
        let w = self.width.max(1) as usize;
        (count, (at % w) as u32, (at / w) as u32)
    }

    /// Pixels per count: entry `n` = pixels with `n` fragments, the last entry
    /// ([`RAMP_TOP`]) those with `RAMP_TOP` or more.
    pub fn histogram(&self) -> Vec<u64> {
        let mut h = vec![0u64; RAMP_TOP as usize + 1];
        for &c in &self.counts {
            h[c.min(RAMP_TOP) as usize] += 1;
        }
        h
    }

    /// The counts as a heat map: 0 black, then blue, cyan, green, yellow and red as the count
    /// rises to [`RAMP_TOP`] and above ([`ramp`]); opaque.
    pub fn heat_map(&self) -> Rgba8Image {
        Rgba8Image {
            width: self.width,
            height: self.height,
            pixels: self.counts.iter().flat_map(|&c| ramp(c)).collect(),
        }
    }
}

/// The heat map's colour for `count` fragments: black for none; from 1 to [`RAMP_TOP`] along
/// blue (1), cyan, green, yellow, red ([`RAMP_TOP`] and above), linearly between them.
pub fn ramp(count: u32) -> [u8; 4] {
    const STOPS: [[f32; 3]; 5] = [
        [0.0, 0.0, 255.0],
        [0.0, 255.0, 255.0],
        [0.0, 255.0, 0.0],
        [255.0, 255.0, 0.0],
        [255.0, 0.0, 0.0],
    ];
    if count == 0 {
        return [0, 0, 0, 255];
    }
    let t = (count.min(RAMP_TOP) - 1) as f32 / (RAMP_TOP - 1) as f32 * 4.0;
    let i = (t.floor() as usize).min(3);
    let f = t - i as f32;
    let c = |k: usize| (STOPS[i][k] + (STOPS[i + 1][k] - STOPS[i][k]) * f).round() as u8;
    [c(0), c(1), c(2), 255]
}

/// Whether `draw` renders into `target` (the module doc): one of the targets it renders
/// into ([`readable_targets`]) lies where `target` does and is colour or depth as it is.
fn renders_into(draw: &Draw, target: &NamedTarget) -> bool {
    readable_targets(draw).any(|t| {
        t.layout.location == target.layout.location
            && t.layout.offset == target.layout.offset
            && t.format.is_depth() == target.format.is_depth()
    })
}

/// Visit each fragment one draw rasterizes on a `grid`-sized target (its sample grid when
/// multisampled) as a target cell `(x, y)`; why the draw cannot be covered otherwise.
fn for_each_fragment(
    frame: &Frame,
    index: usize,
    grid: (u32, u32),
    visit: &mut dyn FnMut(u32, u32),
) -> Result<(), String> {
    let draw = frame
        .draws
        .get(index)
        .ok_or_else(|| format!("no draw {index}"))?;
    let state = DrawState::from_draw(draw).map_err(|e| format!("state: {e}"))?;
    let memory = frame
        .memory(index)
        .ok_or_else(|| "no memory view".to_string())?;
    let shaded = shade_vertices(draw, &memory)?;
    // A surface whose samples lie off their grid cells' centres is covered once per sample,
    // each pass keeping its own cells, as the renderers draw it (`msaa::sample_passes`).
    let passes = sample_passes(&state);
    let per_sample = !passes.is_empty();
    let passes = if per_sample { passes } else { vec![state] };
    let mut covered = Vec::new();
    let psz = point_size_from_vertex(draw);
    for state in &passes {
        let bounds = state.window_bounds();
        let prims = build_within(state, &shaded.outputs, &shaded.starts, psz, bounds);
        let rules = CoverRules::from_state(state);
        let (ox, oy) = state.window_offset;
        for prim in &prims {
            covered_pixels(prim, bounds, &rules, &mut covered);
            for c in &covered {
                // Window pixel + window offset = surface pixel (the renderers' rule).
                let (x, y) = (c.x.saturating_add(ox), c.y.saturating_add(oy));
                let kept = !per_sample || state.sample_mask.is_none_or(|m| m.covers(x, y));
                if x < grid.0 && y < grid.1 && kept {
                    visit(x, y);
                }
            }
        }
    }
    Ok(())
}

/// Count one draw's fragments into `cells`, the counts of a `grid`-sized target row by row;
/// returns how many it added, or why the draw cannot be counted.
fn count_draw(
    frame: &Frame,
    index: usize,
    grid: (u32, u32),
    cells: &[AtomicU32],
) -> Result<u64, String> {
    let mut fragments = 0u64;
    for_each_fragment(frame, index, grid, &mut |x, y| {
        let at = y as usize * grid.0 as usize + x as usize;
        if let Some(cell) = cells.get(at) {
            cell.fetch_add(1, Ordering::Relaxed);
            fragments += 1;
        }
    })?;
    Ok(fragments)
}

/// The pixels of `target` one draw rasterizes, as RenderDoc's "highlight draw" overlay shows
/// them: the coverage [`overdraw`] counts, of this draw alone, a multisampled target's pixel
/// covered when any of its samples is. One bit per pixel, row by row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawCoverage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    bits: Vec<u64>,
}

impl DrawCoverage {
    fn new(width: u32, height: u32) -> DrawCoverage {
        let pixels = width as usize * height as usize;
        DrawCoverage {
            width,
            height,
            bits: vec![0; pixels.div_ceil(64)],
        }
    }

    fn set(&mut self, x: u32, y: u32) {
        if x < self.width && y < self.height {
            let i = y as usize * self.width as usize + x as usize;
            if let Some(word) = self.bits.get_mut(i / 64) {
                *word |= 1 << (i % 64);
            }
        }
    }

    /// Whether the draw rasterizes pixel (`x`, `y`).
    pub fn covered(&self, x: u32, y: u32) -> bool {
        if x >= self.width || y >= self.height {
            return false;
        }
        let i = y as usize * self.width as usize + x as usize;
        self.bits
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Pixels covered.
    pub fn pixels(&self) -> u64 {
        self.bits.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The covered pixels, row by row.
    pub fn covered_pixels(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let width = self.width.max(1) as usize;
        self.bits.iter().enumerate().flat_map(move |(k, &word)| {
            let mut w = word;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let bit = w.trailing_zeros() as usize;
                w &= w - 1;
                let i = k * 64 + bit;
                Some(((i % width) as u32, (i / width) as u32))
            })
        })
    }
}

/// Draw `index`'s coverage of `target` (a target the draw renders into), or why it cannot
/// be computed.
pub fn draw_coverage(
    frame: &Frame,
    index: usize,
    target: &NamedTarget,
) -> Result<DrawCoverage, String> {
    let grid = (target.layout.width, target.layout.height);
    let (sx, sy) = target.antialias.grid();
    let mut coverage = DrawCoverage::new(grid.0 / sx, grid.1 / sy);
    for_each_fragment(frame, index, grid, &mut |x, y| coverage.set(x / sx, y / sy))?;
    Ok(coverage)
}

/// The overdraw of `target` over the draws of `range` (the whole frame when `None`). Draws
/// run in parallel, counting into one grid of atomic counters (memory: one grid, whatever
/// the number of fragments or threads).
pub fn overdraw(frame: &Frame, target: &NamedTarget, range: Option<Range<usize>>) -> Overdraw {
    let range = range.unwrap_or(0..frame.draws.len());
    let grid = (target.layout.width, target.layout.height);
    let cells: Vec<AtomicU32> = (0..grid.0 as usize * grid.1 as usize)
        .map(|_| AtomicU32::new(0))
        .collect();
    let counted: Vec<(usize, Result<u64, String>)> = range
        .into_par_iter()
        .filter(|&i| frame.draws.get(i).is_some_and(|d| renders_into(d, target)))
        .map(|draw| (draw, count_draw(frame, draw, grid, &cells)))
        .collect();
    let mut draws = Vec::new();
    let mut skipped = Vec::new();
    for (draw, result) in counted {
        match result {
            Ok(0) => {}
            Ok(fragments) => draws.push(DrawFragments { draw, fragments }),
            Err(why) => skipped.push((draw, why)),
        }
    }
    let cells = cells.into_iter().map(AtomicU32::into_inner).collect();
    let (counts, width, height) = resolve_max(cells, grid, target.antialias);
    Overdraw {
        width,
        height,
        counts,
        draws,
        skipped,
    }
}

/// Per pixel of one target, the fragments that passed every test there (kill, alpha, stencil,
/// depth, depth bounds) in the CPU render: the written counterpart of [`overdraw`]'s
/// rasterized counts, what an occlusion query counts, per pixel. Give it to the render as
/// [`crate::render::RenderOptions::passed_counts`]; the draws counted are those [`overdraw`]
/// counts (rendering into the target), on the same sample grid.
#[derive(Debug)]
pub struct PassedCounts {
    target: NamedTarget,
    grid: (u32, u32),
    cells: Vec<AtomicU32>,
}

impl PassedCounts {
    /// Zero counts over `target`'s sample grid.
    pub fn new(target: &NamedTarget) -> PassedCounts {
        let grid = (target.layout.width, target.layout.height);
        PassedCounts {
            target: *target,
            grid,
            cells: (0..grid.0 as usize * grid.1 as usize)
                .map(|_| AtomicU32::new(0))
                .collect(),
        }
    }

    /// Whether `draw`'s passed fragments count here (it renders into the target).
    pub fn counts(&self, draw: &Draw) -> bool {
        renders_into(draw, &self.target)
    }

    /// One fragment passed at surface cell (`x`, `y`); outside the grid, nothing.
    pub fn add(&self, x: u32, y: u32) {
        if x < self.grid.0 && y < self.grid.1 {
            let at = y as usize * self.grid.0 as usize + x as usize;
            if let Some(cell) = self.cells.get(at) {
                cell.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The counts so far as an [`Overdraw`] of the target (a multisampled pixel the largest
    /// count of its samples), with `draws` as its per-draw list.
    pub fn to_overdraw(&self, draws: Vec<DrawFragments>) -> Overdraw {
        let cells = self
            .cells
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect();
        let (counts, width, height) = resolve_max(cells, self.grid, self.target.antialias);
        Overdraw {
            width,
            height,
            counts,
            draws,
            skipped: Vec::new(),
        }
    }
}

/// A sample grid's counts as pixels: each pixel the largest count of its samples.
fn resolve_max(cells: Vec<u32>, (w, h): (u32, u32), aa: Antialias) -> (Vec<u32>, u32, u32) {
    let (sx, sy) = aa.grid();
    if (sx, sy) == (1, 1) {
        return (cells, w, h);
    }
    let (pw, ph) = (w / sx, h / sy);
    let counts = (0..ph)
        .flat_map(|y| (0..pw).map(move |x| (x, y)))
        .map(|(x, y)| {
            (0..sy)
                .flat_map(|j| (0..sx).map(move |i| (x * sx + i, y * sy + j)))
                .map(|(gx, gy)| cells[gy as usize * w as usize + gx as usize])
                .max()
                .unwrap_or(0)
        })
        .collect();
    (counts, pw, ph)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ramp_runs_from_blue_to_red_and_none_is_black() {
        assert_eq!(ramp(0), [0, 0, 0, 255]);
        assert_eq!(ramp(1), [0, 0, 255, 255]);
        assert_eq!(ramp(RAMP_TOP), [255, 0, 0, 255]);
        assert_eq!(ramp(RAMP_TOP * 4), [255, 0, 0, 255]);
        // Count 6 lies a third of the way into the ramp: between cyan and green.
        let mid = ramp(6);
        assert_eq!((mid[0], mid[1]), (0, 255), "{mid:?}");
        assert!(mid[2] > 0 && mid[2] < 255, "{mid:?}");
    }

    #[test]
    fn a_multisampled_grid_resolves_to_the_largest_sample() {
        // A 4x2 grid of 2x1 samples: pixels (0, 0), (1, 0), (0, 1), (1, 1).
        let cells = vec![1, 3, 0, 0, 2, 2, 5, 0];
        let (counts, w, h) = resolve_max(cells, (4, 2), Antialias::DiagonalCentered2);
        assert_eq!((w, h), (2, 2));
        assert_eq!(counts, [3, 0, 2, 5]);
    }

    #[test]
    fn the_summary_counts_pixels_fragments_and_the_largest() {
        let o = Overdraw {
            width: 3,
            height: 1,
            counts: vec![0, 2, 20],
            draws: vec![
                DrawFragments {
                    draw: 0,
                    fragments: 12,
                },
                DrawFragments {
                    draw: 4,
                    fragments: 10,
                },
            ],
            skipped: Vec::new(),
        };
        assert_eq!(o.total(), 22);
        assert_eq!((o.fragments_of(4), o.fragments_of(1)), (10, 0));
        assert_eq!(o.covered_pixels(), 2);
        assert_eq!(o.mean_per_covered_pixel(), 11.0);
        assert_eq!(o.max(), (20, 2, 0));
        let h = o.histogram();
        assert_eq!((h[0], h[2], h[RAMP_TOP as usize]), (1, 1, 1));
        assert_eq!(o.heat_map().pixels.len(), 12);
    }
}
