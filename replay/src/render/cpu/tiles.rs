//! Screen tiles of one draw: the bands of window rows its coverage, fragment shading and
//! per-fragment operations are split into, so that they run in parallel (rayon) with the
//! serial result bit for bit.
//!
//! A tile is a band of whole rows of the draw's window bounds, `rows` high, starting on a
//! multiple of `rows` (an even number, so no 2×2 quad straddles two tiles). Bands rather than
//! square tiles: a band of a pitch surface is one contiguous byte range of every target, so
//! the lent target memory splits into disjoint slices in safe code
//! ([`super::rop::Targets::split`]). Every pixel lies in exactly one tile, and each tile
//! covers its primitives in primitive order and writes their fragments in that order, so
//! every pixel receives the same fragments in the same order as on the serial path; coverage
//! is a function of the pixel alone (pixel-centre tests, per-pixel stipple and smooth
//! coverage, quads aligned to even coordinates), so clipping it to a tile changes nothing
//! else. The serial path is the one-tile case: one band spanning the bounds, every primitive.
//!
//! A primitive is listed in the tiles its rows may touch: its window vertices' rows widened
//! by half its size (lines, points) and a margin; a primitive with a non-finite row is
//! listed everywhere (its coverage rejects it).

use super::geometry::RasterPrim;
use crate::raster::PixelRect;
use crate::render::Tiling;

/// Rows of a tile under [`Tiling::Auto`]: 32 rows of a 1280-pixel target are 40 k pixels,
/// enough work per tile to hide rayon's cost, and 23 tiles for a 720-row target.
pub const AUTO_TILE_ROWS: u32 = 32;

/// Under [`Tiling::Auto`], a draw whose primitives' bounding box (inside the window bounds)
/// holds fewer pixels than this stays on one tile: splitting it costs more than it saves
/// (measured with the `replay_cpu` bench, BENCHMARKS.md "Game scale").
pub const AUTO_MIN_PIXELS: u64 = 128 * 128;

/// One tile: a band of window rows and the primitives that may cover it, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tile {
    /// The band (the window bounds' columns, some of their rows).
    pub rect: PixelRect,
    /// Indices into the draw's primitives, ascending.
    pub prims: Vec<u32>,
}

/// The tiles of a draw with window `bounds` and primitives `prims`: one tile (the serial
/// path) when tiling is off, when the draw is small under [`Tiling::Auto`], or when only one
/// band holds primitives. Tiles without primitives are left out.
pub fn plan(bounds: PixelRect, prims: &[RasterPrim], tiling: Tiling) -> Vec<Tile> {
    let one = || {
        vec![Tile {
            rect: bounds,
            prims: (0..prims.len() as u32).collect(),
        }]
    };
    let rows = match tiling {
        Tiling::Off => return one(),
        Tiling::Auto => AUTO_TILE_ROWS,
        Tiling::Rows(r) => r.max(2).saturating_add(1) & !1,
    };
    if bounds.is_empty() {
        return one();
    }
    let spans: Vec<(u32, u32)> = prims.iter().map(|p| row_span(p, bounds)).collect();
    if tiling == Tiling::Auto {
        let (lo, hi) = spans
            .iter()
            .filter(|(a, b)| a < b)
            .fold((u32::MAX, 0), |(lo, hi), &(a, b)| (lo.min(a), hi.max(b)));
        let (xlo, xhi) = prims
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                let (a, b) = extent(p, |v| v.x);
                (lo.min(a), hi.max(b))
            });
        let cols = clamp_span(xlo, xhi, bounds.x0, bounds.x1);
        let pixels = u64::from(hi.saturating_sub(lo)) * u64::from(cols.1 - cols.0);
        if pixels < AUTO_MIN_PIXELS {
            return one();
        }
    }
    let first = bounds.y0 / rows;
    let last = (bounds.y1 - 1) / rows;
    let mut tiles: Vec<Tile> = (first..=last)
        .map(|k| Tile {
            rect: PixelRect {
                y0: (k * rows).max(bounds.y0),
                y1: (k * rows).saturating_add(rows).min(bounds.y1),
                ..bounds
            },
            prims: Vec::new(),
        })
        .collect();
    for (i, &(a, b)) in spans.iter().enumerate() {
        if a >= b {
            continue;
        }
        let (ka, kb) = (
            (a / rows - first) as usize,
            ((b - 1) / rows - first) as usize,
        );
        for t in tiles.iter_mut().take(kb + 1).skip(ka) {
            t.prims.push(i as u32);
        }
    }
    tiles.retain(|t| !t.prims.is_empty());
    if tiles.len() <= 1 {
        return one();
    }
    tiles
}

/// The rows `a..b` of `bounds` that `p` may cover (empty when none).
fn row_span(p: &RasterPrim, bounds: PixelRect) -> (u32, u32) {
    let (lo, hi) = extent(p, |v| v.y);
    clamp_span(lo, hi, bounds.y0, bounds.y1)
}

/// The lowest and highest coordinate `axis` of `p`'s vertices, widened by half its size and
/// a margin of two pixels; (−∞, +∞) when one is not finite.
fn extent(p: &RasterPrim, axis: impl Fn(&crate::raster::WindowVertex) -> f32) -> (f64, f64) {
    let used = match p.kind {
        super::geometry::RasterKind::Triangle => 3,
        super::geometry::RasterKind::Line => 2,
        super::geometry::RasterKind::Point => 1,
    };
    let half = if p.size.is_finite() {
        f64::from(p.size.max(1.0)) / 2.0
    } else {
        0.5
    };
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in p.verts.iter().take(used) {
        let c = f64::from(axis(v));
        if !c.is_finite() {
            return (f64::NEG_INFINITY, f64::INFINITY);
        }
        lo = lo.min(c);
        hi = hi.max(c);
    }
    (lo - half - 2.0, hi + half + 2.0)
}

/// Whole pixels `a..b` of `min..max` that `lo..=hi` reaches.
fn clamp_span(lo: f64, hi: f64, min: u32, max: u32) -> (u32, u32) {
    if lo > hi || min >= max {
        return (min, min);
    }
    let a = lo.floor().max(f64::from(min)).min(f64::from(max)) as u32;
    let b = (hi.ceil() + 1.0).max(f64::from(min)).min(f64::from(max)) as u32;
    (a, b.max(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::WindowVertex;
    use crate::render::cpu::geometry::RasterKind;

    fn tri(ys: [f32; 3]) -> RasterPrim {
        let v = |x: f32, y: f32| WindowVertex {
            x,
            y,
            z: 0.0,
            inv_w: 1.0,
        };
        RasterPrim {
            src: [0, 1, 2],
            provoking: 0,
            kind: RasterKind::Triangle,
            verts: [v(0.0, ys[0]), v(500.0, ys[1]), v(0.0, ys[2])],
            to_src: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            front: true,
            z_offset: 0.0,
            size: 0.0,
            stipple_start: 0,
        }
    }

    const BOUNDS: PixelRect = PixelRect {
        x0: 0,
        y0: 3,
        x1: 640,
        y1: 480,
    };

    #[test]
    fn bands_cover_the_bounds_once_on_even_rows() {
        let prims = [tri([0.0, 480.0, 480.0]), tri([100.0, 120.0, 140.0])];
        let tiles = plan(BOUNDS, &prims, Tiling::Rows(7));
        // 7 rounds up to 8 rows: rows 3..8, 8..16, ..., 472..480.
        assert_eq!(tiles.len(), 60);
        let mut next = BOUNDS.y0;
        for t in &tiles {
            assert_eq!(t.rect.y0, next);
            assert!(t.rect.y1 == BOUNDS.y1 || t.rect.y1 % 8 == 0);
            assert_eq!((t.rect.x0, t.rect.x1), (BOUNDS.x0, BOUNDS.x1));
            next = t.rect.y1;
        }
        assert_eq!(next, BOUNDS.y1);
        // The small triangle (rows 100..140, widened by the margin) is in the bands it
        // reaches and no other; the big one everywhere.
        let with_small: Vec<u32> = tiles
            .iter()
            .filter(|t| t.prims == [0, 1])
            .map(|t| t.rect.y0)
            .collect();
        assert_eq!(with_small, (96..=136).step_by(8).collect::<Vec<u32>>());
    }

    #[test]
    fn small_draws_and_off_stay_on_one_tile() {
        let big = [tri([0.0, 480.0, 480.0])];
        let small = [tri([10.0, 12.0, 14.0])];
        assert_eq!(plan(BOUNDS, &big, Tiling::Off).len(), 1);
        assert!(plan(BOUNDS, &big, Tiling::Auto).len() > 1);
        // 500 x ~9 rows: under the pixel threshold.
        let one = plan(BOUNDS, &small, Tiling::Auto);
        assert_eq!(one.len(), 1);
        assert_eq!((one[0].rect, one[0].prims.clone()), (BOUNDS, vec![0]));
        // Forced tiling splits even a small draw when it spans two bands.
        assert!(plan(BOUNDS, &small, Tiling::Rows(4)).len() > 1);
    }

    #[test]
    fn non_finite_rows_reach_every_tile() {
        let prims = [tri([f32::NAN, 10.0, 20.0]), tri([0.0, 480.0, 480.0])];
        let tiles = plan(BOUNDS, &prims, Tiling::Rows(64));
        assert!(tiles.iter().all(|t| t.prims == [0, 1]));
    }
}
