//! Model-view-projection constants versus placements: which placement (world matrix) explains
//! each draw's c32..c35, the view-projection estimated by consensus when none is given, and
//! what an unmatched draw's implied world matrix is.
//!
//! Conventions (see also [`super::matrix`] and `docs/probes.md`): a draw's constants give `C`
//! with row k = c[32+k]. Its row-vector form `M` (`clip = v x M`) is
//! - [`Convention::Transposed`]: `M = C^T`, the DP4 form (clip component k = dot(c[32+k], v)),
//!   which the vertex programs of the notes use;
//! - [`Convention::Direct`]: `M = C`, the MAD form (clip = sum over k of v_k c[32+k]).
//!
//! A placement `W` fits a draw when `M = W x VP`; the residual is
//! [`matrix::relative_residual`]`(M, W x VP)` and the default tolerance
//! [`DEFAULT_TOLERANCE`] is 1e-5 (why: see its documentation). [`analyse`] gives the whole
//! answer for a frame (the `rsxtrace mvp` report).

mod report;

pub use report::{
    analyse, AnalyseOptions, DrawEntry, ImpliedWorld, MvpReport, Summary, ViewProjectionSource,
};

use super::constant_layout::groups::{group_reads, Kind};
use super::constant_layout::reads::constant_reads;
use super::matrix::{self, Decomposition, Mat4};
use super::placement::Placement;
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::vertex::{decode_from_memory, OutputRegister, VertexProgram};
use serde::Serialize;
use std::collections::HashMap;

/// Default largest relative residual for a draw to match a placement: 1e-5 of the largest
/// entry of the draw's matrix.
///
/// Why: the constants are f32 (relative rounding 6e-8 per entry) and the game multiplies
/// world x view x projection in f32, which the notes measured at 1.2e-6 on real draws
/// (shred-shader-notes, "The transform constants"); 1e-5 leaves a margin of about 8 over
/// that. A placement moved by 1 cm changes row 3 of `M` by 0.01 times the view-projection's
/// rows 0..2 (entries of order 1), against a largest entry of the order of the object's
/// distance in clip units (tens), i.e. by about 1e-4 relative: ten times the tolerance.
pub const DEFAULT_TOLERANCE: f64 = 1e-5;

/// Default tolerance for the verdicts on implied world matrices (rigid, identity, same part
/// as a placement): 1e-3 (relative for translations and scales, radians for rotations).
/// Implied world matrices go through the inverse of the view-projection, whose depth row
/// amplifies the f32 rounding of the constants, so they are compared more loosely than `M`.
pub const DEFAULT_PART_TOLERANCE: f64 = 1e-3;

/// Most (draw, placement) candidates the consensus hashes per convention; with more, draws
/// are sampled evenly (every k-th draw). Sampling keeps the consensus: a camera that a
/// fraction f of the draws fit gets about f of the sampled draws in its bucket, while wrong
/// pairs scatter; every draw is still verified against the winners.
const MAX_CANDIDATES: usize = 250_000;

/// Candidate buckets that are verified against every draw.
const VERIFIED_BUCKETS: usize = 8;

/// One quantum of a normalised candidate entry in the consensus hash (1/1000 of the
/// largest entry): far above f32 noise (1e-6), far below the difference between two
/// unrelated cameras.
const BUCKET_QUANTUM: f64 = 1e-3;

/// A draw's c32..c35.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawMatrix {
    /// The draw's index in the frame.
    pub draw: usize,
    /// Row k = c[32+k].
    pub c: Mat4,
}

/// How the constants store the row-vector matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Convention {
    /// `C = (W x VP)^T`: clip component k = dot(c[32+k], v) (DP4).
    Transposed,
    /// `C = W x VP`: clip = sum over k of v_k c[32+k] (MAD).
    Direct,
}

impl Convention {
    /// Both, the default first.
    pub const ALL: [Convention; 2] = [Convention::Transposed, Convention::Direct];

    /// The row-vector matrix `M` (`clip = v x M`) of constants `c`.
    pub fn row_form(self, c: &Mat4) -> Mat4 {
        match self {
            Convention::Transposed => matrix::transpose(c),
            Convention::Direct => *c,
        }
    }

    /// The constants `C` of a row-vector matrix `m` (inverse of [`Convention::row_form`]).
    pub fn constants(self, m: &Mat4) -> Mat4 {
        self.row_form(m)
    }

    /// `"transposed"` or `"direct"`.
    pub fn name(self) -> &'static str {
        match self {
            Convention::Transposed => "transposed",
            Convention::Direct => "direct",
        }
    }
}

/// A view-projection found by consensus over draws and placements.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewProjectionEstimate {
    /// Row-vector view-projection (`clip = v_world x VP`), least-squares over the supporting
    /// pairs.
    pub view_projection: Mat4,
    /// The convention that fits.
    pub convention: Convention,
    /// Draws that some placement fits with this estimate, within the tolerance.
    pub support: usize,
    /// Support of the best estimate under the other convention.
    pub other_convention_support: usize,
    /// Largest residual over the supporting draws.
    pub residual: f64,
}

/// A refused estimate or match.
#[derive(Debug, thiserror::Error)]
pub enum MvpError {
    /// No draw has c32..c35.
    #[error("no draw has c32..c35")]
    NoDraws,
    /// No placement has an invertible world matrix.
    #[error("no placement has an invertible world matrix")]
    NoPlacements,
    /// No pair of a draw and a placement agrees with any other pair on a view-projection.
    #[error("no view-projection is supported by two draws (best support {support})")]
    NoConsensus {
        /// The best support found.
        support: usize,
    },
    /// The view-projection is singular, so implied world matrices cannot be computed.
    #[error("the view-projection is singular")]
    SingularViewProjection,
}

/// Every draw whose c32..c35 are all known, in draw order.
pub fn draw_matrices(frame: &Frame) -> Vec<DrawMatrix> {
    draw_matrices_at(frame, MvpRegisters::default())
}

/// Where a draw's model-view-projection rows are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MvpRegisters {
    /// `c[n]..c[n+3]` at every draw (`c[32]`: the samples' and the level's layout, the
    /// default).
    At(u16),
    /// Per vertex program, the four-register matrix (rows dotted with one operand, or columns
    /// scaled by one vector's components: `probe constants`) whose products write `o[HPOS]`;
    /// a draw whose program has none is left out.
    Auto,
}

impl Default for MvpRegisters {
    fn default() -> MvpRegisters {
        MvpRegisters::At(32)
    }
}

/// The first register of `program`'s four-register matrix that writes `o[HPOS]`, as
/// [`MvpRegisters::Auto`] finds it.
pub fn hpos_matrix(program: &VertexProgram) -> Option<u16> {
    let writes_hpos = |slot: usize| {
        program.instructions.iter().any(|i| {
            i.slot == slot
                && i.vector_active()
                && i.vec_result
                && i.output == Some(OutputRegister(0))
        })
    };
    group_reads(&constant_reads(program))
        .into_iter()
        .find(|g| {
            matches!(g.kind, Kind::MatrixRows | Kind::MatrixColumns)
                && g.relative.is_none()
                && g.count == 4
                && g.reads.iter().any(|(slot, _)| writes_hpos(*slot))
        })
        .map(|g| g.first)
}

/// Every draw whose model-view-projection registers (`registers`) are all known, in draw
/// order.
pub fn draw_matrices_at(frame: &Frame, registers: MvpRegisters) -> Vec<DrawMatrix> {
    let mut found: HashMap<(u64, u32), Option<u16>> = HashMap::new();
    frame
        .draws
        .iter()
        .filter_map(|d| {
            let first = match registers {
                MvpRegisters::At(n) => n,
                MvpRegisters::Auto => {
                    (*found.entry((d.vp_hash, d.vp_start)).or_insert_with(|| {
                        decode_from_memory(&d.vertex_program, d.vp_start as usize)
                            .ok()
                            .and_then(|p| hpos_matrix(&p))
                    }))?
                }
            };
            let row = |k: u16| d.constants.get(usize::from(first.checked_add(k)?));
            let rows = [row(0)?, row(1)?, row(2)?, row(3)?];
            let c = matrix::from_f32_rows(&rows);
            matrix::is_finite(&c).then_some(DrawMatrix { draw: d.index, c })
        })
        .collect()
}

/// Estimate the view-projection from draws and placements alone, under both conventions, with
/// the default tolerance and every (draw, placement) pair allowed.
pub fn estimate_view_projection(
    draws: &[DrawMatrix],
    placements: &[Placement],
) -> Result<ViewProjectionEstimate, MvpError> {
    estimate_view_projection_with(draws, placements, DEFAULT_TOLERANCE, &|_, _| true)
}

/// [`estimate_view_projection`] with a tolerance and a filter: `allowed(d, p)` says whether
/// `draws[d]` may be explained by `placements[p]` (e.g. only placements of the draw's mesh).
///
/// Every allowed pair proposes `VP = W^-1 x M`; proposals are hashed after normalising by
/// their largest entry and rounding to `BUCKET_QUANTUM`, the fullest buckets are verified
/// against all draws, and the best is refined by least squares over the pairs it fits. Draws
/// that fit nothing only add scattered proposals, so they do not move the result.
pub fn estimate_view_projection_with(
    draws: &[DrawMatrix],
    placements: &[Placement],
    tolerance: f64,
    allowed: &dyn Fn(usize, usize) -> bool,
) -> Result<ViewProjectionEstimate, MvpError> {
    if draws.is_empty() {
        return Err(MvpError::NoDraws);
    }
    let inverses: Vec<Option<Mat4>> = placements
        .iter()
        .map(|p| matrix::inverse(&p.world))
        .collect();
    if inverses.iter().all(Option::is_none) {
        return Err(MvpError::NoPlacements);
    }
    let mut best: Option<(usize, Mat4, f64, Convention)> = None;
    let mut supports = Vec::new();
    for convention in Convention::ALL {
        let floor = best.as_ref().map_or(0, |b| b.0);
        let found = consensus(
            draws, placements, &inverses, convention, tolerance, allowed, floor,
        );
        let support = found.as_ref().map_or(0, |f| f.0);
        supports.push((convention, support));
        if let Some((support, vp, residual)) = found {
            if best.as_ref().is_none_or(|b| support > b.0) {
                best = Some((support, vp, residual, convention));
            }
        }
    }
    let Some((support, view_projection, residual, convention)) = best else {
        return Err(MvpError::NoConsensus { support: 0 });
    };
    if support < 2 {
        return Err(MvpError::NoConsensus { support });
    }
    let other_convention_support = supports
        .iter()
        .filter(|(c, _)| *c != convention)
        .map(|(_, s)| *s)
        .max()
        .unwrap_or(0);
    Ok(ViewProjectionEstimate {
        view_projection,
        convention,
        support,
        other_convention_support,
        residual,
    })
}

/// The best view-projection under one convention: `(support, VP, largest residual)`.
fn consensus(
    draws: &[DrawMatrix],
    placements: &[Placement],
    inverses: &[Option<Mat4>],
    convention: Convention,
    tolerance: f64,
    allowed: &dyn Fn(usize, usize) -> bool,
    floor: usize,
) -> Option<(usize, Mat4, f64)> {
    let rows: Vec<Mat4> = draws.iter().map(|d| convention.row_form(&d.c)).collect();
    let pairs_per_draw = inverses.iter().filter(|i| i.is_some()).count().max(1);
    let step = (draws.len() * pairs_per_draw)
        .div_ceil(MAX_CANDIDATES)
        .max(1);
    // Bucket hash -> (pairs, the first pair's draw and placement); the proposal is
    // recomputed from its pair, so the map stays small.
    let mut buckets: HashMap<u64, (usize, usize, usize)> = HashMap::new();
    for (d, m) in rows.iter().enumerate().step_by(step) {
        for (p, inverse) in inverses.iter().enumerate() {
            let Some(inverse) = inverse else { continue };
            if !allowed(d, p) {
                continue;
            }
            let candidate = matrix::mul(inverse, m);
            let Some(key) = bucket_key(&candidate) else {
                continue;
            };
            buckets.entry(key).or_insert((0, d, p)).0 += 1;
        }
    }
    // Fullest first; ties by the first pair, so the result does not depend on the hash order.
    let mut ranked: Vec<(usize, usize, usize)> = buckets.into_values().collect();
    ranked.sort_by_key(|&(count, d, p)| (std::cmp::Reverse(count), d, p));
    let mut best: Option<(usize, Mat4, f64)> = None;
    for (count, d, p) in ranked.into_iter().take(VERIFIED_BUCKETS) {
        let (Some(m), Some(Some(inverse))) = (rows.get(d), inverses.get(p)) else {
            continue;
        };
        let candidate = matrix::mul(inverse, m);
        // One pair is no consensus; and a bucket far smaller than the best support found (in
        // this convention or the other; `count * step` estimates the draws it would fit) is
        // not a part of it split by the rounding (a split leaves each part a large share).
        let floor = best.as_ref().map_or(floor, |b| b.0.max(floor));
        if count < 2 || count * step * 4 < floor {
            break;
        }
        let (support, pairs) = fit(&rows, placements, &candidate, tolerance, allowed);
        // Refine by least squares over the pairs the proposal fits, and keep it if it fits
        // at least as many draws.
        let mut vp = candidate;
        let mut support_now = support;
        let mut pairs_now = pairs;
        if let Some(refined) = matrix::least_squares(&pairs_now) {
            let (s, p) = fit(&rows, placements, &refined, tolerance, allowed);
            if s >= support_now {
                vp = refined;
                support_now = s;
                pairs_now = p;
            }
        }
        let residual = pairs_now
            .iter()
            .map(|(w, m)| matrix::relative_residual(m, &matrix::mul(w, &vp)))
            .fold(0.0f64, f64::max);
        if best.as_ref().is_none_or(|b| support_now > b.0) {
            best = Some((support_now, vp, residual));
        }
    }
    best
}

/// The draws (as row-form matrices) that some allowed placement fits with `vp`: the count and
/// the `(W, M)` pairs of the best placement of each.
fn fit(
    rows: &[Mat4],
    placements: &[Placement],
    vp: &Mat4,
    tolerance: f64,
    allowed: &dyn Fn(usize, usize) -> bool,
) -> (usize, Vec<(Mat4, Mat4)>) {
    let predicted: Vec<(Mat4, f64)> = placements
        .iter()
        .map(|p| {
            let m = matrix::mul(&p.world, vp);
            (m, matrix::max_abs(&m))
        })
        .collect();
    let mut pairs = Vec::new();
    for (d, m) in rows.iter().enumerate() {
        let scale = matrix::max_abs(m);
        let best = predicted
            .iter()
            .enumerate()
            .filter(|(p, (pred, pred_scale))| {
                within(m, pred, tolerance * scale.max(*pred_scale)) && allowed(d, *p)
            })
            .map(|(p, (pred, _))| (p, matrix::relative_residual(m, pred)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((p, r)) = best {
            if r <= tolerance {
                if let Some(placement) = placements.get(p) {
                    pairs.push((placement.world, *m));
                }
            }
        }
    }
    (pairs.len(), pairs)
}

/// Whether every entry of `a` is within `limit` of `b`'s, stopping at the first that is not
/// (most placements differ from a draw in the first entry compared).
fn within(a: &Mat4, b: &Mat4, limit: f64) -> bool {
    for (ra, rb) in a.iter().zip(b) {
        for (x, y) in ra.iter().zip(rb) {
            if (x - y).abs() > limit {
                return false;
            }
        }
    }
    true
}

/// The hash key of a candidate: its entries over its largest absolute entry, rounded to
/// [`BUCKET_QUANTUM`], mixed into 64 bits (multiply-rotate, as FxHash does; a collision of
/// two unrelated proposals only adds one to a bucket that verification then judges).
fn bucket_key(m: &Mat4) -> Option<u64> {
    let scale = matrix::max_abs(m);
    if scale == 0.0 || !scale.is_finite() {
        return None;
    }
    let mut hash = 0u64;
    for v in m.iter().flatten() {
        // |v / scale| <= 1, so the rounded value is within +-1000.
        let q = (v / scale / BUCKET_QUANTUM).round() as i64;
        hash = (hash.rotate_left(5) ^ (q as u64)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    Some(hash)
}

/// Which convention fits more draws with a known view-projection: `(convention, matched
/// under it, matched under the other)`; the default ([`Convention::Transposed`]) on a tie.
pub fn detect_convention(
    draws: &[DrawMatrix],
    placements: &[Placement],
    view_projection: &Mat4,
    tolerance: f64,
    allowed: &dyn Fn(usize, usize) -> bool,
) -> (Convention, usize, usize) {
    let count = |convention: Convention| {
        let rows: Vec<Mat4> = draws.iter().map(|d| convention.row_form(&d.c)).collect();
        fit(&rows, placements, view_projection, tolerance, allowed).0
    };
    let transposed = count(Convention::Transposed);
    let direct = count(Convention::Direct);
    if direct > transposed {
        (Convention::Direct, direct, transposed)
    } else {
        (Convention::Transposed, transposed, direct)
    }
}

/// Tolerances of [`match_draws`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchOptions {
    /// Largest relative residual of a match ([`DEFAULT_TOLERANCE`]).
    pub tolerance: f64,
    /// Tolerance of the verdicts on implied world matrices ([`DEFAULT_PART_TOLERANCE`]).
    pub part_tolerance: f64,
}

impl Default for MatchOptions {
    fn default() -> MatchOptions {
        MatchOptions {
            tolerance: DEFAULT_TOLERANCE,
            part_tolerance: DEFAULT_PART_TOLERANCE,
        }
    }
}

/// A part of a decomposed world matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The translation.
    Translation,
    /// The rotation.
    Rotation,
    /// The scale.
    Scale,
}

impl Part {
    /// `"translation"`, `"rotation"` or `"scale"`.
    pub fn name(self) -> &'static str {
        match self {
            Part::Translation => "translation",
            Part::Rotation => "rotation",
            Part::Scale => "scale",
        }
    }
}

/// What a draw's implied world matrix is.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Verdict {
    /// A placement fits within the tolerance.
    Placement,
    /// The identity: the matrix is the view-projection itself (a sky dome, a screen pass
    /// drawn in world space).
    Identity,
    /// Equal to a placement in all parts but `differs` (or in all three parts within the part
    /// tolerance, though outside the match tolerance, when `differs` is null).
    Near {
        /// The placement's id.
        placement: String,
        /// The part that differs.
        differs: Option<Part>,
    },
    /// A rotation and translation (scale 1, no shear) that is no placement.
    Rigid,
    /// Rotation, translation and a scale other than 1.
    Scaled,
    /// Not scale x rotation x translation: shear or a projective column.
    Sheared,
    /// The implied world matrix could not be decomposed.
    Degenerate,
}

/// One draw's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawMatch {
    /// The draw's index in the frame.
    pub draw: usize,
    /// Index into the placements of the placement that fits, if one does.
    pub placement: Option<usize>,
    /// Index of the placement with the smallest residual, matched or not.
    pub nearest: Option<usize>,
    /// The smallest residual over the allowed placements (`f64::INFINITY` with none).
    pub residual: f64,
    /// The implied world matrix `M x VP^-1`.
    pub implied_world: Mat4,
    /// Its decomposition.
    pub decomposition: Option<Decomposition>,
    /// The verdict.
    pub verdict: Verdict,
}

/// Match every draw to the allowed placement with the smallest residual, and judge the
/// implied world matrix of the draws that none fits.
pub fn match_draws(
    draws: &[DrawMatrix],
    placements: &[Placement],
    view_projection: &Mat4,
    convention: Convention,
    options: &MatchOptions,
    allowed: &dyn Fn(usize, usize) -> bool,
) -> Result<Vec<DrawMatch>, MvpError> {
    let vp_inverse = matrix::inverse(view_projection).ok_or(MvpError::SingularViewProjection)?;
    let predicted: Vec<Mat4> = placements
        .iter()
        .map(|p| matrix::mul(&p.world, view_projection))
        .collect();
    let decomposed: Vec<Option<Decomposition>> = placements
        .iter()
        .map(|p| matrix::decompose(&p.world))
        .collect();
    let mut out = Vec::with_capacity(draws.len());
    for (d, draw) in draws.iter().enumerate() {
        let m = convention.row_form(&draw.c);
        let nearest = predicted
            .iter()
            .enumerate()
            .filter(|(p, _)| allowed(d, *p))
            .map(|(p, pred)| (p, matrix::relative_residual(&m, pred)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let residual = nearest.map_or(f64::INFINITY, |n| n.1);
        let placement = nearest.filter(|n| n.1 <= options.tolerance).map(|n| n.0);
        let implied_world = matrix::mul(&m, &vp_inverse);
        let decomposition = matrix::decompose(&implied_world);
        let verdict = if placement.is_some() {
            Verdict::Placement
        } else if matrix::relative_residual(&m, view_projection) <= options.tolerance {
            Verdict::Identity
        } else {
            judge(
                decomposition.as_ref(),
                placements,
                &decomposed,
                options.part_tolerance,
                &|p| allowed(d, p),
            )
        };
        out.push(DrawMatch {
            draw: draw.draw,
            placement,
            nearest: nearest.map(|n| n.0),
            residual,
            implied_world,
            decomposition,
            verdict,
        });
    }
    Ok(out)
}

/// The verdict on an unmatched implied world matrix.
fn judge(
    implied: Option<&Decomposition>,
    placements: &[Placement],
    decomposed: &[Option<Decomposition>],
    tolerance: f64,
    allowed: &dyn Fn(usize) -> bool,
) -> Verdict {
    let Some(d) = implied else {
        return Verdict::Degenerate;
    };
    if d.is_identity(tolerance) {
        return Verdict::Identity;
    }
    let affine = d.shear <= tolerance && d.projective <= tolerance;
    if affine {
        // A placement equal in two parts (or all three, loosely), the closest first.
        let mut best: Option<(f64, usize, Option<Part>)> = None;
        for (p, pd) in decomposed.iter().enumerate() {
            let Some(pd) = pd else { continue };
            if !allowed(p) {
                continue;
            }
            let diffs = part_differences(d, pd);
            let same: Vec<bool> = diffs.iter().map(|x| *x <= tolerance).collect();
            let differing: Vec<usize> = (0..3).filter(|&i| !same[i]).collect();
            let (differs, score) = match differing.as_slice() {
                [] => (None, diffs.iter().copied().fold(0.0, f64::max)),
                [i] => {
                    let other = (0..3)
                        .filter(|k| k != i)
                        .map(|k| diffs[k])
                        .fold(0.0, f64::max);
                    (
                        Some([Part::Translation, Part::Rotation, Part::Scale][*i]),
                        other,
                    )
                }
                _ => continue,
            };
            if best.as_ref().is_none_or(|b| score < b.0) {
                best = Some((score, p, differs));
            }
        }
        if let Some((_, p, differs)) = best {
            if let Some(placement) = placements.get(p) {
                return Verdict::Near {
                    placement: placement.id.clone(),
                    differs,
                };
            }
        }
    }
    if d.is_rigid(tolerance) {
        Verdict::Rigid
    } else if affine {
        Verdict::Scaled
    } else {
        Verdict::Sheared
    }
}

/// Differences in translation (relative to the larger length, at least 1), rotation
/// (radians) and scale (relative, largest over the axes).
fn part_differences(a: &Decomposition, b: &Decomposition) -> [f64; 3] {
    let length = |t: &[f64; 3]| t.iter().map(|v| v * v).sum::<f64>().sqrt();
    let dt = [
        a.translation[0] - b.translation[0],
        a.translation[1] - b.translation[1],
        a.translation[2] - b.translation[2],
    ];
    let translation = length(&dt) / length(&a.translation).max(length(&b.translation)).max(1.0);
    let rotation = a.rotation.angle_to(&b.rotation);
    let scale = (0..3)
        .map(|i| {
            (a.scale[i] - b.scale[i]).abs() / a.scale[i].abs().max(b.scale[i].abs()).max(1e-12)
        })
        .fold(0.0, f64::max);
    [translation, rotation, scale]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::matrix::{compose, mul, transpose};

    /// A camera at (2, 3, 10) turned 20 degrees about y, 60-degree perspective, near 0.5, far
    /// 500, row-vector form.
    fn camera() -> Mat4 {
        let view =
            matrix::inverse(&compose([1.0; 3], [0.0, 1.0, 0.0], 20.0, [2.0, 3.0, 10.0])).unwrap();
        let f = 1.0 / 30f64.to_radians().tan();
        let (n, far) = (0.5, 500.0);
        // Column-vector OpenGL projection, transposed for row vectors.
        let proj_col = [
            [f, 0.0, 0.0, 0.0],
            [0.0, f, 0.0, 0.0],
            [0.0, 0.0, (far + n) / (n - far), 2.0 * far * n / (n - far)],
            [0.0, 0.0, -1.0, 0.0],
        ];
        mul(&view, &transpose(&proj_col))
    }

    fn placements() -> Vec<Placement> {
        (0..6)
            .map(|i| Placement {
                id: format!("p{i}"),
                mesh: None,
                world: compose(
                    [1.0 + i as f64 * 0.25; 3],
                    [0.3, 1.0, 0.1 * i as f64],
                    17.0 * i as f64,
                    [
                        i as f64 * 4.0 - 10.0,
                        0.5 * i as f64,
                        -20.0 - 3.0 * i as f64,
                    ],
                ),
            })
            .collect()
    }

    /// Draw constants as an f32 capture would hold them.
    fn draw(index: usize, world: &Mat4, vp: &Mat4, convention: Convention) -> DrawMatrix {
        let c = convention.constants(&mul(world, vp));
        DrawMatrix {
            draw: index,
            c: c.map(|r| r.map(|v| f64::from(v as f32))),
        }
    }

    #[test]
    fn consensus_finds_the_camera_despite_outliers() {
        let vp = camera();
        let ps = placements();
        let mut draws: Vec<DrawMatrix> = ps
            .iter()
            .enumerate()
            .map(|(i, p)| draw(i, &p.world, &vp, Convention::Transposed))
            .collect();
        // Two draws that fit no placement.
        draws.push(draw(
            6,
            &compose([1.0; 3], [1.0, 0.0, 0.0], 45.0, [7.0, 7.0, -30.0]),
            &vp,
            Convention::Transposed,
        ));
        draws.push(draw(7, &matrix::IDENTITY, &vp, Convention::Transposed));
        let est = estimate_view_projection(&draws, &ps).unwrap();
        assert_eq!(est.convention, Convention::Transposed);
        assert_eq!(est.support, 6);
        assert!(est.other_convention_support < 2);
        assert!(matrix::relative_residual(&est.view_projection, &vp) < 1e-6);
        let matches = match_draws(
            &draws,
            &ps,
            &est.view_projection,
            est.convention,
            &MatchOptions::default(),
            &|_, _| true,
        )
        .unwrap();
        for (i, m) in matches.iter().take(6).enumerate() {
            assert_eq!(m.placement, Some(i));
            assert!(m.residual < 1e-6, "{}", m.residual);
        }
        assert_eq!(matches[6].placement, None);
        assert_eq!(matches[6].verdict, Verdict::Rigid);
        assert_eq!(matches[7].verdict, Verdict::Identity);
    }

    #[test]
    fn sampled_consensus_on_a_large_level() {
        // 600 placements x 450 draws = 270,000 pairs: above MAX_CANDIDATES, so every second
        // draw proposes; 50 draws fit nothing.
        let vp = camera();
        let ps: Vec<Placement> = (0..600)
            .map(|i| {
                let x = f64::from(i);
                Placement {
                    id: format!("p{i}"),
                    mesh: None,
                    world: compose(
                        [1.0 + (x * 0.37).sin().abs(); 3],
                        [(x * 0.1).sin(), 1.0, (x * 0.3).cos()],
                        x * 7.3,
                        [
                            (x * 1.7).sin() * 80.0,
                            (x * 0.9).cos() * 5.0,
                            -20.0 - x * 0.2,
                        ],
                    ),
                }
            })
            .collect();
        let draws: Vec<DrawMatrix> = (0..450usize)
            .map(|i| {
                let world = if i < 400 {
                    ps[(i * 7) % ps.len()].world
                } else {
                    compose(
                        [1.0; 3],
                        [1.0, 0.2, 0.0],
                        i as f64,
                        [i as f64 * 0.1, 1.0, -50.0],
                    )
                };
                draw(i, &world, &vp, Convention::Transposed)
            })
            .collect();
        assert!(draws.len() * ps.len() > MAX_CANDIDATES);
        let est = estimate_view_projection(&draws, &ps).unwrap();
        assert_eq!((est.convention, est.support), (Convention::Transposed, 400));
        assert!(matrix::relative_residual(&est.view_projection, &vp) < 1e-6);
    }

    #[test]
    fn direct_convention_is_detected() {
        let vp = camera();
        let ps = placements();
        let draws: Vec<DrawMatrix> = ps
            .iter()
            .enumerate()
            .map(|(i, p)| draw(i, &p.world, &vp, Convention::Direct))
            .collect();
        let est = estimate_view_projection(&draws, &ps).unwrap();
        assert_eq!(est.convention, Convention::Direct);
        assert_eq!(est.support, 6);
        let (c, n, other) = detect_convention(&draws, &ps, &vp, DEFAULT_TOLERANCE, &|_, _| true);
        assert_eq!((c, n, other), (Convention::Direct, 6, 0));
    }

    #[test]
    fn near_verdicts_name_the_differing_part() {
        let vp = camera();
        let ps = placements();
        let moved = {
            let mut w = ps[2].world;
            w[3][0] += 5.0;
            w
        };
        let rescaled = compose(
            [1.5, 1.5, 3.0],
            [0.3, 1.0, 0.2],
            34.0,
            ps[2].world[3][..3].try_into().unwrap(),
        );
        let draws = [
            draw(0, &moved, &vp, Convention::Transposed),
            draw(1, &rescaled, &vp, Convention::Transposed),
        ];
        let m = match_draws(
            &draws,
            &ps,
            &vp,
            Convention::Transposed,
            &MatchOptions::default(),
            &|_, _| true,
        )
        .unwrap();
        assert_eq!(
            m[0].verdict,
            Verdict::Near {
                placement: "p2".into(),
                differs: Some(Part::Translation)
            }
        );
        assert_eq!(
            m[1].verdict,
            Verdict::Near {
                placement: "p2".into(),
                differs: Some(Part::Scale)
            }
        );
        let t = m[0].decomposition.unwrap().translation;
        assert!((t[0] - ps[2].world[3][0] - 5.0).abs() < 1e-3, "{t:?}");
    }

    #[test]
    fn a_one_centimetre_move_stops_matching() {
        let vp = camera();
        let ps = placements();
        let mut moved = ps.clone();
        moved[3].world[3][2] += 0.01;
        let draws = [draw(0, &ps[3].world, &vp, Convention::Transposed)];
        let m = match_draws(
            &draws,
            &moved,
            &vp,
            Convention::Transposed,
            &MatchOptions::default(),
            &|_, _| true,
        )
        .unwrap();
        assert_eq!(m[0].placement, None);
        assert!(m[0].residual > 5.0 * DEFAULT_TOLERANCE, "{}", m[0].residual);
        let m = match_draws(
            &draws,
            &ps,
            &vp,
            Convention::Transposed,
            &MatchOptions::default(),
            &|_, _| true,
        )
        .unwrap();
        assert_eq!(m[0].placement, Some(3));
    }

    #[test]
    fn errors() {
        assert!(matches!(
            estimate_view_projection(&[], &placements()),
            Err(MvpError::NoDraws)
        ));
        let d = [draw(
            0,
            &matrix::IDENTITY,
            &camera(),
            Convention::Transposed,
        )];
        let singular = [Placement {
            id: "z".into(),
            mesh: None,
            world: [[0.0; 4]; 4],
        }];
        assert!(matches!(
            estimate_view_projection(&d, &singular),
            Err(MvpError::NoPlacements)
        ));
        assert!(matches!(
            match_draws(
                &d,
                &singular,
                &[[0.0; 4]; 4],
                Convention::Transposed,
                &MatchOptions::default(),
                &|_, _| true
            ),
            Err(MvpError::SingularViewProjection)
        ));
    }
}
