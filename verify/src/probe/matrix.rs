//! 4x4 matrices in f64 for the probes, row-major (`m[row][column]`).
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
}
