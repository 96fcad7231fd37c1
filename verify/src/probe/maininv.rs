//! Which space a fog shader's `MainInv` lives in (shred-shader-notes, "The fog pass").
//!
//! The fog program rebuilds a position from the screen and the depth as
//! `P = MainInv[0]·x + MainInv[1]·y + MainInv[2]·depth + MainInv[3]`, then `P.xyz /= P.w`:
//! in the row-vector convention of [`super::matrix`], `P = (x, y, depth, 1) × M` with `M` the
//! matrix whose rows are `MainInv[0..3]`. With `VP` the camera's view-projection in the same
//! convention (`clip = world × VP`, `VP = View × Proj`), the probe forms `X = VP × M` and tests
//! two hypotheses:
//!
//! - **world**: `M` inverts view × projection, so `X` is the identity and `P` is a world
//!   position (the fog band is fixed in the world);
//! - **view**: `M` inverts the projection alone, so `X = View`, a rigid transform, and `P`
//!   is a view-space position (the band moves with the camera).
//!
//! Because of the divide by `P.w`, `M` matters only up to a scale, so `X` is first divided by
//! its `X[3][3]` (`Y = X / X[3][3]`; a rigid transform and the identity both have 1 there).
//! The identity is itself rigid, so the view hypothesis also asks that the projection it
//! implies, `Proj = Y⁻¹ × VP`, have the form of a perspective projection (row-vector
//! convention: `clip.w` from the view depth alone, `clip.x` not from `y`, `clip.y` not from `x`,
//! `clip.z` from the depth alone, no constant in `x`, `y` or `w`; off-centre projections
//! allowed). The residuals, per draw:
//!
//! - `residual_world = max |Y[i][j] − I[i][j]|` over all 16 entries;
//! - `residual_view = max |(RᵀR − I)[i][j]| + |det R − 1| + max(|Y[0][3]|, |Y[1][3]|, |Y[2][3]|) +
//!   form(Proj)` with `R` the upper-left 3x3 of `Y`: distance from orthonormal, from a proper
//!   rotation, from the affine form (last column `(0, 0, 0, 1)`; the translation is the last
//!   row, which is free), and `form(Proj)`, the largest of `|Proj[i][j]|` over the entries a
//!   perspective projection has as zero — (1,0), (3,0), (0,1), (3,1), (0,2), (1,2), (0,3),
//!   (1,3), (3,3) — divided by `Proj`'s largest entry.
//!
//! Both are `+inf` when `|X[3][3]| < 1e-9`, `Y` is singular or an entry is not finite. Over
//! several draws the residual of each hypothesis is the largest of the draws'. The verdict,
//! with a tolerance ([`DEFAULT_TOLERANCE`] unless given): `world` when only the world residual
//! is within it, `view` when only the view residual is, and `undecided` when neither is, or
//! when both are (the view is the identity and this camera cannot tell them apart).

use super::matrix::{inverse, max_abs, mul, Mat4, IDENTITY};
use serde::Serialize;

/// Default acceptance threshold for both residuals: the constants are f32 and the camera
/// may be an estimate, so a residual below 1e-3 is a fit.
pub const DEFAULT_TOLERANCE: f64 = 1e-3;

/// `|X[3][3]|` below this cannot be normalised.
const MIN_SCALE: f64 = 1e-9;

/// Why the probe cannot run.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum MainInvError {
    /// No draw to judge.
    #[error("no draw uses the program, so there is no MainInv to judge")]
    NoDraws,
    /// The tolerance is not a positive finite number.
    #[error("tolerance {0} is not a positive finite number")]
    BadTolerance(f64),
}

/// The probe's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// `MainInv` inverts the projection alone: view space.
    View,
    /// `MainInv` inverts view × projection: world space.
    World,
    /// Neither hypothesis fits, or both do.
    Undecided,
}

impl Verdict {
    /// `"view"`, `"world"` or `"undecided"`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::View => "view",
            Verdict::World => "world",
            Verdict::Undecided => "undecided",
        }
    }
}

/// One draw's evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawEvidence {
    /// Draw index.
    pub draw: usize,
    /// `MainInv` rows as read.
    pub main_inv: Mat4,
    /// `X = VP × MainInv`, normalised by `X[3][3]` (see the module docs).
    pub x: Mat4,
    /// Distance of `X` from the identity.
    pub residual_world: f64,
    /// Distance of `X` from a rigid transform.
    pub residual_view: f64,
}

/// The report: the verdict, the residuals over all draws and each draw's evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MainInvReport {
    /// The answer.
    pub verdict: Verdict,
    /// Largest view residual over the draws.
    pub residual_view: f64,
    /// Largest world residual over the draws.
    pub residual_world: f64,
    /// The draws judged.
    pub draws: Vec<usize>,
    /// The tolerance used.
    pub tolerance: f64,
    /// One sentence on why.
    pub reason: String,
    /// The view-projection used.
    pub view_projection: Mat4,
    /// Per draw.
    pub evidence: Vec<DrawEvidence>,
}

/// `X / X[3][3]`, or `None` when that entry is (near) zero or anything is not finite.
fn normalised(x: &Mat4) -> Option<Mat4> {
    let s = x[3][3];
    if !s.is_finite() || s.abs() < MIN_SCALE || x.iter().flatten().any(|v| !v.is_finite()) {
        return None;
    }
    Some(x.map(|row| row.map(|v| v / s)))
}

/// The world residual of `X` (see the module docs).
pub fn residual_world(x: &Mat4) -> f64 {
    let Some(y) = normalised(x) else {
        return f64::INFINITY;
    };
    y.iter()
        .flatten()
        .zip(IDENTITY.iter().flatten())
        .fold(0.0, |acc, (a, b)| acc.max((a - b).abs()))
}

/// Entries a perspective projection (row-vector convention) has as zero.
const PROJECTION_ZEROS: [(usize, usize); 9] = [
    (1, 0),
    (3, 0),
    (0, 1),
    (3, 1),
    (0, 2),
    (1, 2),
    (0, 3),
    (1, 3),
    (3, 3),
];

/// How far `p` is from the form of a perspective projection, relative to its largest entry.
pub fn projection_form_residual(p: &Mat4) -> f64 {
    let scale = max_abs(p);
    if !scale.is_finite() || scale == 0.0 {
        return f64::INFINITY;
    }
    PROJECTION_ZEROS
        .iter()
        .fold(0.0f64, |acc, &(i, j)| acc.max(p[i][j].abs() / scale))
}

/// The view residual of `X = VP × MainInv` (see the module docs).
pub fn residual_view(view_projection: &Mat4, x: &Mat4) -> f64 {
    let Some(y) = normalised(x) else {
        return f64::INFINITY;
    };
    let Some(y_inv) = inverse(&y) else {
        return f64::INFINITY;
    };
    rigidity_residual(&y) + projection_form_residual(&mul(&y_inv, view_projection))
}

/// How far `y` (already normalised) is from a rigid transform in the row-vector convention.
pub fn rigidity_residual(y: &Mat4) -> f64 {
    let mut orthonormal = 0.0f64;
    for i in 0..3 {
        for j in 0..3 {
            let dot: f64 = (0..3).map(|k| y[k][i] * y[k][j]).sum();
            let want = if i == j { 1.0 } else { 0.0 };
            orthonormal = orthonormal.max((dot - want).abs());
        }
    }
    let det = y[0][0] * (y[1][1] * y[2][2] - y[1][2] * y[2][1])
        - y[0][1] * (y[1][0] * y[2][2] - y[1][2] * y[2][0])
        + y[0][2] * (y[1][0] * y[2][1] - y[1][1] * y[2][0]);
    let affine = (0..3).fold(0.0f64, |acc, i| acc.max(y[i][3].abs()));
    orthonormal + (det - 1.0).abs() + affine
}

/// Judge `MainInv` (one matrix per draw, rows `MainInv[0..3]`) against the view-projection.
pub fn judge(
    view_projection: &Mat4,
    main_invs: &[(usize, Mat4)],
    tolerance: f64,
) -> Result<MainInvReport, MainInvError> {
    if !(tolerance.is_finite() && tolerance > 0.0) {
        return Err(MainInvError::BadTolerance(tolerance));
    }
    if main_invs.is_empty() {
        return Err(MainInvError::NoDraws);
    }
    let evidence: Vec<DrawEvidence> = main_invs
        .iter()
        .map(|(draw, m)| {
            let x = mul(view_projection, m);
            DrawEvidence {
                draw: *draw,
                main_inv: *m,
                x: normalised(&x).unwrap_or(x),
                residual_world: residual_world(&x),
                residual_view: residual_view(view_projection, &x),
            }
        })
        .collect();
    // f64::max ignores NaN, and the residuals are never NaN (non-finite input gives +inf).
    let worst = |f: fn(&DrawEvidence) -> f64| evidence.iter().map(f).fold(0.0f64, f64::max);
    let residual_world = worst(|e| e.residual_world);
    let residual_view = worst(|e| e.residual_view);
    let world = residual_world <= tolerance;
    let view = residual_view <= tolerance;
    let (verdict, reason) = match (world, view) {
        (true, false) => (
            Verdict::World,
            "view-projection x MainInv is the identity: MainInv inverts view x projection, the fog position is in world space",
        ),
        (false, true) => (
            Verdict::View,
            "view-projection x MainInv is a rigid transform (the view): MainInv inverts the projection alone, the fog position is in view space",
        ),
        (true, true) => (
            Verdict::Undecided,
            "both hypotheses fit: the view is (close to) the identity, so this camera cannot tell them apart",
        ),
        (false, false) => (
            Verdict::Undecided,
            "neither hypothesis fits: view-projection x MainInv is neither the identity nor rigid",
        ),
    };
    Ok(MainInvReport {
        verdict,
        residual_view,
        residual_world,
        draws: evidence.iter().map(|e| e.draw).collect(),
        tolerance,
        reason: reason.to_string(),
        view_projection: *view_projection,
        evidence,
    })
}

#[cfg(test)]
mod tests {
    use super::super::matrix::inverse;
    use super::*;

    /// A view in the row-vector convention: rotate by `yaw` about y, then translate by `t`
    /// (world row vector v maps to v x V).
    fn view(yaw: f64, t: [f64; 3]) -> Mat4 {
        let (s, c) = yaw.sin_cos();
        [
            [c, 0.0, -s, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [s, 0.0, c, 0.0],
            [t[0], t[1], t[2], 1.0],
        ]
    }

    /// An OpenGL-style perspective in the row-vector convention (the transpose of the
    /// column-vector matrix): f = 1/tan(30°), aspect 16:9, near 0.5, far 200.
    fn projection() -> Mat4 {
        let f = 1.0 / 30f64.to_radians().tan();
        let (n, fa) = (0.5, 200.0);
        [
            [f / (16.0 / 9.0), 0.0, 0.0, 0.0],
            [0.0, f, 0.0, 0.0],
            [0.0, 0.0, (fa + n) / (n - fa), -1.0],
            [0.0, 0.0, 2.0 * fa * n / (n - fa), 0.0],
        ]
    }

    fn camera() -> (Mat4, Mat4, Mat4) {
        let v = view(0.7, [3.0, -1.5, -12.0]);
        let p = projection();
        (v, p, mul(&v, &p))
    }

    /// A matrix as the game would upload it: rounded through f32.
    fn as_f32(m: &Mat4) -> Mat4 {
        m.map(|r| r.map(|v| f64::from(v as f32)))
    }

    #[test]
    fn inverse_of_view_projection_is_world() {
        let (_, _, vp) = camera();
        let m = as_f32(&inverse(&vp).unwrap());
        let r = judge(&vp, &[(4, m), (9, m)], DEFAULT_TOLERANCE).unwrap();
        assert_eq!(r.verdict, Verdict::World, "{r:?}");
        assert!(r.residual_world < 1e-5, "{}", r.residual_world);
        assert!(r.residual_view > 0.1, "{}", r.residual_view);
        assert_eq!(r.draws, vec![4, 9]);
    }

    #[test]
    fn inverse_of_projection_alone_is_view() {
        let (v, p, vp) = camera();
        let m = as_f32(&inverse(&p).unwrap());
        let r = judge(&vp, &[(2, m)], DEFAULT_TOLERANCE).unwrap();
        assert_eq!(r.verdict, Verdict::View, "{r:?}");
        assert!(r.residual_view < 1e-5, "{}", r.residual_view);
        assert!(r.residual_world > 1.0, "{}", r.residual_world);
        // X is the view itself.
        let x = r.evidence[0].x;
        assert!(super::super::matrix::max_abs_diff(&x, &v) < 1e-5);
    }

    #[test]
    fn a_scaled_main_inv_is_the_same_answer() {
        // P.xyz /= P.w: MainInv x 2.5 rebuilds the same positions.
        let (_, p, vp) = camera();
        let m = inverse(&p).unwrap().map(|r| r.map(|v| v * 2.5));
        assert_eq!(
            judge(&vp, &[(0, m)], DEFAULT_TOLERANCE).unwrap().verdict,
            Verdict::View
        );
    }

    #[test]
    fn neither_and_both_are_undecided() {
        let (_, _, vp) = camera();
        // A shear is neither the identity nor rigid.
        let mut m = inverse(&vp).unwrap();
        let shear: Mat4 = [
            [1.0, 0.3, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ];
        m = mul(&m, &shear);
        let r = judge(&vp, &[(1, m)], DEFAULT_TOLERANCE).unwrap();
        assert_eq!(r.verdict, Verdict::Undecided);
        assert!(r.reason.contains("neither"));
        // An identity view: inverse(P) = inverse(VP), both fit.
        let p = projection();
        let r = judge(&p, &[(1, inverse(&p).unwrap())], DEFAULT_TOLERANCE).unwrap();
        assert_eq!(r.verdict, Verdict::Undecided);
        assert!(r.reason.contains("both"));
    }

    #[test]
    fn one_bad_draw_spoils_the_verdict() {
        let (_, p, vp) = camera();
        let good = inverse(&vp).unwrap();
        let bad = inverse(&p).unwrap();
        let r = judge(&vp, &[(0, good), (1, bad)], DEFAULT_TOLERANCE).unwrap();
        assert_eq!(r.verdict, Verdict::Undecided);
        assert_eq!(
            r.evidence[0].residual_world,
            residual_world(&mul(&vp, &good))
        );
    }

    #[test]
    fn residuals_by_hand() {
        // Identity: both residuals of rigidity and identity are zero.
        assert_eq!(residual_world(&IDENTITY), 0.0);
        assert_eq!(rigidity_residual(&IDENTITY), 0.0);
        // A pure translation: rigid, world residual = the largest offset, 5.
        let mut t = IDENTITY;
        t[3] = [5.0, -2.0, 1.0, 1.0];
        assert_eq!(residual_world(&t), 5.0);
        assert_eq!(rigidity_residual(&t), 0.0);
        // Uniform scale by 2 of the 3x3: R^T R - I has 3 on the diagonal, det 8 -> 3 + 7.
        let mut s = IDENTITY;
        for (i, row) in s.iter_mut().enumerate().take(3) {
            row[i] = 2.0;
        }
        assert_eq!(rigidity_residual(&s), 10.0);
        // A mirror: orthonormal but det -1 -> 2.
        let mut mirror = IDENTITY;
        mirror[0][0] = -1.0;
        assert_eq!(rigidity_residual(&mirror), 2.0);
        // A non-zero last column: +|Y[1][3]|.
        let mut proj = IDENTITY;
        proj[1][3] = 0.25;
        assert_eq!(rigidity_residual(&proj), 0.25);
        // Projection form: the test projection is exact; a w column with an x term is not
        // (0.5 against the largest entry, 2).
        assert_eq!(projection_form_residual(&projection()), 0.0);
        let mut p = IDENTITY;
        p[0][0] = 2.0;
        p[0][3] = 0.5;
        p[3][3] = 0.0;
        p[2][3] = -1.0;
        p[3][2] = 1.0;
        assert_eq!(projection_form_residual(&p), 0.25);
        // The view residual of X = I under a projection-only camera is zero.
        assert_eq!(residual_view(&projection(), &IDENTITY), 0.0);
        // X[3][3] = 0 cannot be normalised; NaN is not finite.
        let mut zero = IDENTITY;
        zero[3][3] = 0.0;
        assert_eq!(residual_world(&zero), f64::INFINITY);
        let mut nan = IDENTITY;
        nan[0][1] = f64::NAN;
        assert_eq!(residual_view(&projection(), &nan), f64::INFINITY);
    }

    #[test]
    fn errors() {
        assert_eq!(judge(&IDENTITY, &[], 1e-3), Err(MainInvError::NoDraws));
        assert_eq!(
            judge(&IDENTITY, &[(0, IDENTITY)], f64::NAN)
                .unwrap_err()
                .to_string(),
            "tolerance NaN is not a positive finite number"
        );
    }
}
