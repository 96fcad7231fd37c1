//! 4x4 matrices in f64 for the probes, row-major (`m[row][column]`): products, inverse,
//! least squares, and the split of an affine matrix into translation, rotation (a quaternion)
//! and scale with its rigidity tests ([`decompose`]).
//!
//! Convention used throughout the probes: the row-vector convention of the placements file,
//! where a model-space row vector `v` maps to `v x M`. A draw's constants c[32..36] form the
//! matrix `C` with row k = c[32+k], so that clip component k = dot(c[32+k], v) (column-vector
//! form, `C v`); in the row-vector convention the same transform is `v x C^T`.

/// A 4x4 matrix, `m[row][column]`.
pub type Mat4 = [[f64; 4]; 4];

/// The identity.
pub const IDENTITY: Mat4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// `a x b`.
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [[0.0; 4]; 4];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    out
}

/// The transpose.
pub fn transpose(m: &Mat4) -> Mat4 {
    let mut out = [[0.0; 4]; 4];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = m[j][i];
        }
    }
    out
}

/// The inverse by Gauss-Jordan elimination with partial pivoting, or `None` when the matrix is
/// singular (a pivot below `1e-12` times the largest entry).
pub fn inverse(m: &Mat4) -> Option<Mat4> {
    let scale = m.iter().flatten().fold(0.0f64, |acc, v| acc.max(v.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return None;
    }
    let mut a = *m;
    let mut inv = IDENTITY;
    for col in 0..4 {
        let pivot = (col..4).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() <= 1e-12 * scale {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a[col][col];
        for j in 0..4 {
            a[col][j] /= p;
            inv[col][j] /= p;
        }
        for row in 0..4 {
            if row != col {
                let f = a[row][col];
                if f != 0.0 {
                    for j in 0..4 {
                        a[row][j] -= f * a[col][j];
                        inv[row][j] -= f * inv[col][j];
                    }
                }
            }
        }
    }
    Some(inv)
}

/// The largest absolute difference between corresponding entries.
pub fn max_abs_diff(a: &Mat4, b: &Mat4) -> f64 {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .fold(0.0f64, |acc, (x, y)| acc.max((x - y).abs()))
}

/// The largest absolute entry.
pub fn max_abs(m: &Mat4) -> f64 {
    m.iter().flatten().fold(0.0f64, |acc, v| acc.max(v.abs()))
}

/// A matrix from four f32 rows (as read from constants).
pub fn from_f32_rows(rows: &[[f32; 4]; 4]) -> Mat4 {
    rows.map(|r| r.map(f64::from))
}

/// `v x m` for a row vector `v` (the row-vector convention).
pub fn row_times(v: &[f64; 4], m: &Mat4) -> [f64; 4] {
    std::array::from_fn(|j| (0..4).map(|k| v[k] * m[k][j]).sum())
}

/// Whether every entry is finite.
pub fn is_finite(m: &Mat4) -> bool {
    m.iter().flatten().all(|v| v.is_finite())
}

/// The relative residual of `actual` against `expected`: the largest entry difference divided
/// by the largest absolute entry of `actual` (0 when both are zero). This is the measure the
/// probes compare with their tolerances: f32 constants carry about 6e-8 of this.
pub fn relative_residual(actual: &Mat4, expected: &Mat4) -> f64 {
    let scale = max_abs(actual).max(max_abs(expected));
    if scale == 0.0 {
        0.0
    } else {
        max_abs_diff(actual, expected) / scale
    }
}

/// The least-squares `X` of `A_i x X ~= B_i` over all pairs: `X = (sum A_i^T A_i)^-1 x (sum
/// A_i^T B_i)` (the normal equations, one 4x4 solve for all four columns), or `None` when the
/// pairs do not determine `X` (no pairs, or a singular normal matrix).
pub fn least_squares(pairs: &[(Mat4, Mat4)]) -> Option<Mat4> {
    let mut ata = [[0.0; 4]; 4];
    let mut atb = [[0.0; 4]; 4];
    for (a, b) in pairs {
        let at = transpose(a);
        let p = mul(&at, a);
        let q = mul(&at, b);
        for i in 0..4 {
            for j in 0..4 {
                ata[i][j] += p[i][j];
                atb[i][j] += q[i][j];
            }
        }
    }
    Some(mul(&inverse(&ata)?, &atb))
}

/// A rotation as a unit quaternion `(w, x, y, z)` with `w >= 0`.
///
/// It is the rotation of the matrix `R` that maps row vectors as `v x R` (the placements'
/// convention); in column-vector terms it is the rotation `R^T`, so for a rotation by angle `a`
/// about a unit axis `n`, `(w, x, y, z) = (cos(a/2), n sin(a/2))`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Quaternion {
    /// Real part.
    pub w: f64,
    /// Imaginary parts.
    pub x: f64,
    /// Imaginary parts.
    pub y: f64,
    /// Imaginary parts.
    pub z: f64,
}

impl Quaternion {
    /// The rotation angle in degrees, 0..=180.
    pub fn angle_degrees(&self) -> f64 {
        2.0 * self.w.clamp(-1.0, 1.0).acos().to_degrees()
    }

    /// The angle in radians between this rotation and `other` (0 when equal).
    pub fn angle_to(&self, other: &Quaternion) -> f64 {
        let dot = self.w * other.w + self.x * other.x + self.y * other.y + self.z * other.z;
        2.0 * dot.abs().clamp(0.0, 1.0).acos()
    }
}

/// An affine row-vector matrix split as `W = S x R x T`: scale along the model axes first,
/// then the rotation, then the translation (row 3). See [`decompose`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Decomposition {
    /// Row 3, columns 0..3: where the model origin goes.
    pub translation: [f64; 3],
    /// The rotation, from the orthonormalised rows of the 3x3 part.
    pub rotation: Quaternion,
    /// The lengths of the rows of the 3x3 part (the first negated when its determinant is
    /// negative, so the rotation stays proper).
    pub scale: [f64; 3],
    /// Largest deviation of the normalised 3x3 rows from an orthonormal basis (`|R R^T - I|`
    /// max entry): 0 for scale x rotation, larger with shear.
    pub shear: f64,
    /// Largest absolute entry of column 3 minus `(0, 0, 0, 1)`: 0 for an affine matrix.
    pub projective: f64,
}

impl Decomposition {
    /// Whether the 3x3 part is a pure rotation: all scales 1 and no shear, within `tolerance`.
    pub fn is_rigid(&self, tolerance: f64) -> bool {
        self.projective <= tolerance
            && self.shear <= tolerance
            && self.scale.iter().all(|s| (s - 1.0).abs() <= tolerance)
    }

    /// Whether the matrix is the identity: rigid, no rotation, no translation.
    pub fn is_identity(&self, tolerance: f64) -> bool {
        self.is_rigid(tolerance)
            && self.rotation.angle_to(&Quaternion {
                w: 1.0,
                x: 0.0,
                y: 0.0,
                z: 0.0,
            }) <= tolerance
            && self.translation.iter().all(|t| t.abs() <= tolerance)
    }
}

/// Split a row-vector affine matrix into translation, rotation and scale.
///
/// With the row-vector convention a model row vector `v` maps to `v x W`; row `i` of the 3x3
/// part is the image of model axis `i`, so `W = S x R` with `S = diag(scale)` gives scale `i`
/// = the length of row `i` and rotation row `i` = row `i` / scale `i`. `None` when a row of
/// the 3x3 part is zero or an entry is not finite.
pub fn decompose(m: &Mat4) -> Option<Decomposition> {
    if !is_finite(m) {
        return None;
    }
    let mut scale = [0.0; 3];
    let mut r = [[0.0; 3]; 3];
    for i in 0..3 {
        let row = [m[i][0], m[i][1], m[i][2]];
        let len = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        if len <= f64::MIN_POSITIVE {
            return None;
        }
        scale[i] = len;
        r[i] = row.map(|v| v / len);
    }
    let det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
        - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
        + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
    if det < 0.0 {
        scale[0] = -scale[0];
        r[0] = r[0].map(|v| -v);
    }
    let mut shear = 0.0f64;
    for i in 0..3 {
        for j in 0..3 {
            let dot: f64 = (0..3).map(|k| r[i][k] * r[j][k]).sum();
            let want = if i == j { 1.0 } else { 0.0 };
            shear = shear.max((dot - want).abs());
        }
    }
    let projective = [m[0][3], m[1][3], m[2][3], m[3][3] - 1.0]
        .iter()
        .fold(0.0f64, |acc, v| acc.max(v.abs()));
    Some(Decomposition {
        translation: [m[3][0], m[3][1], m[3][2]],
        rotation: quaternion_of(&r),
        scale,
        shear,
        projective,
    })
}

/// The quaternion of a proper rotation matrix acting on row vectors (`v x r`), by the
/// trace method (Shepperd), on the column-vector rotation `r^T`.
fn quaternion_of(r: &[[f64; 3]; 3]) -> Quaternion {
    // Column-vector matrix c = r^T: c[i][j] = r[j][i].
    let c = |i: usize, j: usize| r[j][i];
    let trace = c(0, 0) + c(1, 1) + c(2, 2);
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        Quaternion {
            w: 0.25 * s,
            x: (c(2, 1) - c(1, 2)) / s,
            y: (c(0, 2) - c(2, 0)) / s,
            z: (c(1, 0) - c(0, 1)) / s,
        }
    } else if c(0, 0) > c(1, 1) && c(0, 0) > c(2, 2) {
        let s = (1.0 + c(0, 0) - c(1, 1) - c(2, 2)).max(0.0).sqrt() * 2.0;
        Quaternion {
            w: (c(2, 1) - c(1, 2)) / s,
            x: 0.25 * s,
            y: (c(0, 1) + c(1, 0)) / s,
            z: (c(0, 2) + c(2, 0)) / s,
        }
    } else if c(1, 1) > c(2, 2) {
        let s = (1.0 + c(1, 1) - c(0, 0) - c(2, 2)).max(0.0).sqrt() * 2.0;
        Quaternion {
            w: (c(0, 2) - c(2, 0)) / s,
            x: (c(0, 1) + c(1, 0)) / s,
            y: 0.25 * s,
            z: (c(1, 2) + c(2, 1)) / s,
        }
    } else {
        let s = (1.0 + c(2, 2) - c(0, 0) - c(1, 1)).max(0.0).sqrt() * 2.0;
        Quaternion {
            w: (c(1, 0) - c(0, 1)) / s,
            x: (c(0, 2) + c(2, 0)) / s,
            y: (c(1, 2) + c(2, 1)) / s,
            z: 0.25 * s,
        }
    };
    let norm = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).sqrt();
    let sign = if q.w < 0.0 { -1.0 } else { 1.0 };
    if norm > 0.0 {
        Quaternion {
            w: sign * q.w / norm,
            x: sign * q.x / norm,
            y: sign * q.y / norm,
            z: sign * q.z / norm,
        }
    } else {
        q
    }
}

/// Build a row-vector world matrix from scale, a rotation about a unit `axis` by `degrees`
/// (right-handed, counter-clockwise looking down the axis in column-vector terms), and a
/// translation: `W = S x R x T`. Used by the level generator and the tests.
pub fn compose(scale: [f64; 3], axis: [f64; 3], degrees: f64, translation: [f64; 3]) -> Mat4 {
    let norm = axis.iter().map(|v| v * v).sum::<f64>().sqrt();
    let n = if norm > 0.0 {
        axis.map(|v| v / norm)
    } else {
        [0.0, 0.0, 1.0]
    };
    let (s, c) = degrees.to_radians().sin_cos();
    let t = 1.0 - c;
    let [x, y, z] = n;
    // Column-vector rotation (Rodrigues), transposed for row vectors.
    let col = [
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
    ];
    let mut m = IDENTITY;
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = scale[i] * col[j][i];
        }
    }
    m[3] = [translation[0], translation[1], translation[2], 1.0];
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_of_a_translation_scale_is_exact() {
        let m: Mat4 = [
            [2.0, 0.0, 0.0, 0.0],
            [0.0, 4.0, 0.0, 0.0],
            [0.0, 0.0, 0.5, 0.0],
            [3.0, -1.0, 7.0, 1.0],
        ];
        let inv = inverse(&m).expect("invertible");
        assert_eq!(max_abs_diff(&mul(&m, &inv), &IDENTITY), 0.0);
        assert_eq!(inv[3], [-1.5, 0.25, -14.0, 1.0]);
    }

    #[test]
    fn singular_matrix_has_no_inverse() {
        let mut m = IDENTITY;
        m[2] = m[1];
        assert!(inverse(&m).is_none());
        assert!(inverse(&[[0.0; 4]; 4]).is_none());
    }

    #[test]
    fn transpose_swaps_rows_and_columns() {
        let m: Mat4 = [
            [1.0, 2.0, 3.0, 4.0],
            [5.0, 6.0, 7.0, 8.0],
            [9.0, 10.0, 11.0, 12.0],
            [13.0, 14.0, 15.0, 16.0],
        ];
        assert_eq!(transpose(&m)[0], [1.0, 5.0, 9.0, 13.0]);
        assert_eq!(transpose(&transpose(&m)), m);
    }

    #[test]
    fn decompose_recovers_scale_rotation_translation() {
        let m = compose([2.0, 0.5, 3.0], [0.0, 1.0, 0.0], 90.0, [1.0, -2.0, 5.5]);
        // v x W for the model x axis: scaled by 2, then +90 degrees about y sends x to -z.
        let x = row_times(&[1.0, 0.0, 0.0, 0.0], &m);
        assert!((x[0]).abs() < 1e-12 && (x[2] + 2.0).abs() < 1e-12, "{x:?}");
        let d = decompose(&m).expect("affine");
        assert_eq!(d.translation, [1.0, -2.0, 5.5]);
        for (got, want) in d.scale.iter().zip([2.0, 0.5, 3.0]) {
            assert!((got - want).abs() < 1e-12);
        }
        assert!((d.rotation.angle_degrees() - 90.0).abs() < 1e-9);
        let half = std::f64::consts::FRAC_1_SQRT_2;
        assert!((d.rotation.w - half).abs() < 1e-12 && (d.rotation.y - half).abs() < 1e-12);
        assert!(d.shear < 1e-12 && d.projective == 0.0);
        assert!(!d.is_rigid(1e-6));
    }

    #[test]
    fn rigidity_and_identity() {
        let rigid = compose([1.0; 3], [1.0, 1.0, 0.0], 33.0, [4.0, 0.0, 0.0]);
        let d = decompose(&rigid).unwrap();
        assert!(d.is_rigid(1e-9) && !d.is_identity(1e-9));
        assert!(decompose(&IDENTITY).unwrap().is_identity(1e-12));
        let mut sheared = IDENTITY;
        sheared[1][0] = 0.5;
        let d = decompose(&sheared).unwrap();
        assert!(d.shear > 0.4 && !d.is_rigid(1e-3));
        let mut zero_row = IDENTITY;
        zero_row[2] = [0.0; 4];
        assert!(decompose(&zero_row).is_none());
    }

    #[test]
    fn mirrored_matrix_keeps_a_proper_rotation() {
        let mut m = IDENTITY;
        m[0][0] = -1.0;
        let d = decompose(&m).unwrap();
        assert_eq!(d.scale, [-1.0, 1.0, 1.0]);
        assert!(d.rotation.angle_degrees().abs() < 1e-9);
    }

    #[test]
    fn least_squares_solves_exact_systems() {
        let x = compose([1.0, 2.0, 1.0], [0.0, 0.0, 1.0], 30.0, [0.0, 1.0, 2.0]);
        let a1 = compose([1.0; 3], [1.0, 0.0, 0.0], 10.0, [3.0, 0.0, 0.0]);
        let a2 = compose([2.0; 3], [0.0, 1.0, 0.0], 50.0, [0.0, 0.0, -4.0]);
        let got = least_squares(&[(a1, mul(&a1, &x)), (a2, mul(&a2, &x))]).unwrap();
        assert!(max_abs_diff(&got, &x) < 1e-12);
        assert!(least_squares(&[]).is_none());
    }

    #[test]
    fn relative_residual_is_scaled_by_the_largest_entry() {
        let mut a = IDENTITY;
        a[3][0] = 100.0;
        let mut b = a;
        b[3][0] = 100.01;
        let r = relative_residual(&a, &b);
        assert!((r - 0.01 / 100.01).abs() < 1e-15);
        assert_eq!(relative_residual(&[[0.0; 4]; 4], &[[0.0; 4]; 4]), 0.0);
    }
}
