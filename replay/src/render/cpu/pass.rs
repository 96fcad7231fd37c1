//! One tile of a draw ([`super::tiles`]) from coverage to targets: its primitives covered
//! in order in batches of quads ([`super::quads`]), the fragment program on each batch (in
//! parallel), then each batch's fragments through the per-fragment operations in order
//! ([`super::rop`]). The serial path runs one tile spanning the draw; the tiled path runs
//! every tile at once, each on its own band of the targets.

use super::early_depth;
use super::geometry::{CoverRules, RasterPrim};
use super::quads::{cover, InputContext, QuadJob};
use super::rop::{FragmentSource, TileTargets};
use super::tiles::Tile;
use crate::interp::fragment::{run_fragment_with, FragmentState};
use crate::raster::Covered;
use crate::render::history::FragmentOutcome;
use crate::render::overdraw::PassedCounts;
use crate::render::state::DrawState;
use crate::render::ShadingStats;
use crate::texture::Sampler;
use rsxtrace_program::fragment::FragmentProgram;

/// Where a tile's coverage stands: the next of its primitives to cover and the batch of
/// quads covered but not yet shaded.
pub struct Cursor<'a> {
    tile: &'a Tile,
    next: usize,
    /// The quads covered and not yet shaded, primitives in order.
    pub jobs: Vec<QuadJob>,
    scratch: Vec<Covered>,
}

impl<'a> Cursor<'a> {
    /// Before `tile`'s first primitive.
    pub fn new(tile: &'a Tile) -> Cursor<'a> {
        Cursor {
            tile,
            next: 0,
            jobs: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

/// How every tile of a draw is covered.
pub struct Coverage<'a> {
    /// The draw's primitives.
    pub prims: &'a [RasterPrim],
    /// Stipples and antialiasing.
    pub rules: CoverRules,
    /// Quads per batch and tile (bounds the memory of the shaded outputs).
    pub batch: usize,
}

impl Coverage<'_> {
    /// Cover the tile's next primitives, in order, until a batch is full or none is left.
    pub fn fill(&self, c: &mut Cursor<'_>) {
        c.jobs.clear();
        while c.jobs.len() < self.batch {
            let Some(&i) = c.tile.prims.get(c.next) else {
                break;
            };
            c.next += 1;
            if let Some(p) = self.prims.get(i as usize) {
                cover(i, p, c.tile.rect, &self.rules, &mut c.scratch, &mut c.jobs);
            }
        }
    }
}

/// What every tile of a draw shares.
pub struct Pass<'a> {
    /// The draw's state (per-fragment operations).
    pub state: &'a DrawState,
    /// Coverage.
    pub coverage: &'a Coverage<'a>,
    /// The fragment program and its state.
    pub program: &'a FragmentProgram,
    /// `SET_SHADER_CONTROL` and the interpreter options.
    pub fstate: &'a FragmentState,
    /// The draw's textures.
    pub sampler: &'a dyn Sampler,
    /// What the quads' inputs are built from.
    pub inputs: InputContext<'a>,
    /// The window offset: window pixel + offset = surface pixel.
    pub offset: (u32, u32),
    /// Whether quads sure to fail the depth test may go unshaded ([`early_depth`]).
    pub early_depth: bool,
    /// Per-pixel counts of the fragments that pass, when this draw's are counted.
    pub passed_counts: Option<&'a PassedCounts>,
}

impl Pass<'_> {
    /// Shade the batch `c` holds ([`Coverage::fill`] first) and every later one of its
    /// tile, writing the fragments to `targets` in order; what it shaded. Stops at the first
    /// batch whose fragment program fails.
    pub fn run(
        &self,
        c: &mut Cursor<'_>,
        targets: &mut TileTargets<'_>,
    ) -> Result<ShadingStats, String> {
        let (ox, oy) = self.offset;
        let early = self
            .early_depth
            .then(|| early_depth::rule(self.state, self.fstate.control, targets))
            .flatten();
        let mut stats = ShadingStats::default();
        while !c.jobs.is_empty() {
            if let Some(func) = early {
                let before = c.jobs.len();
                // A quad on a watched pixel is shaded, so its fragments' history shows them
                // failing the depth test (`render::history`).
                c.jobs.retain(|job| {
                    targets.watches_quad(job, self.offset)
                        || !early_depth::rejects(func, self.state, targets, job, self.offset)
                });
                stats.quads_rejected_early += (before - c.jobs.len()) as u64;
            }
            stats.quads_shaded += c.jobs.len() as u64;
            if c.jobs.is_empty() {
                self.coverage.fill(c);
                continue;
            }
            let jobs = &c.jobs;
            let outputs = run_fragment_with(
                self.program,
                self.fstate,
                jobs.len(),
                |i| {
                    jobs.get(i)
                        .map(|j| self.inputs.quad_inputs(j))
                        .unwrap_or_default()
                },
                self.sampler,
            )
            .map_err(|e| format!("fragment program execution: {e}"))?;
            for (job, out) in jobs.iter().zip(&outputs) {
                let source = FragmentSource {
                    primitive: job.prim,
                    front: self
                        .coverage
                        .prims
                        .get(job.prim as usize)
                        .is_none_or(|p| p.front),
                };
                for (l, cover) in job.lanes.iter().enumerate() {
                    let (Some(c), Some(lane)) = (cover, out.lanes.get(l)) else {
                        continue;
                    };
                    let (x, y) = job.pixel(l);
                    let (Some(sx), Some(sy)) = (x.checked_add(ox), y.checked_add(oy)) else {
                        continue;
                    };
                    let outcome = if c.coverage < 1.0 {
                        // Smooth lines and polygons: the coverage multiplies the alpha of the
                        // colour outputs before the per-fragment operations (`raster::smooth`).
                        let mut lane = *lane;
                        for colour in &mut lane.colors {
                            colour[3] *= f64::from(c.coverage);
                        }
                        targets.fragment(self.state, sx, sy, c.z, source, &lane)
                    } else {
                        targets.fragment(self.state, sx, sy, c.z, source, lane)
                    };
                    if outcome == FragmentOutcome::Written {
                        stats.fragments_passed += 1;
                        if let Some(counts) = self.passed_counts {
                            counts.add(sx, sy);
                        }
                    }
                }
            }
            self.coverage.fill(c);
        }
        Ok(stats)
    }
}
