//! A conditioning switch, not a model of the hardware: the results of the transcendental and
//! reciprocal instructions (SIN, COS, EX2, LG2, POW, RCP, RSQ, DIV, DIVSQ) moved by a
//! relative 2^-20 up or down.
//!
//! Devices evaluate these functions to a documented accuracy, not exactly (WGSL allows
//! 2^-11 absolute error for `sin`/`cos` on [-π, π], 3 ULP and more for `exp2`/`log2`, 2.5 ULP
//! for division and reciprocals, 2 ULP for `inverseSqrt`), so a
//! recompiled program may differ from the interpreter's exact functions by their error
//! amplified through the rest of the program. `verify` and `batch` run the interpreter with
//! both skews: an output the skew moves beyond tolerance depends on the device's
//! transcendental accuracy, and its mismatch is ill-conditioned rather than a divergence.
//! 2^-20 (about 8 f32 ULP) is the accuracy of the implementations met here (lavapipe), far
//! tighter than the WGSL bound, so a mistranslated transcendental is still caught.

use super::real::Real;

/// Relative size of the skew.
pub const SKEW: f64 = 1.0 / 1_048_576.0;

/// Which way the transcendental results are moved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TranscendentalSkew {
    /// Exact functions (the default: the interpreter as a reference).
    #[default]
    None,
    /// Results times 1 + [`SKEW`].
    Up,
    /// Results times 1 − [`SKEW`].
    Down,
}

/// `v` moved by `skew`.
#[inline(always)]
pub fn skewed<T: Real>(v: T, skew: TranscendentalSkew) -> T {
    match skew {
        TranscendentalSkew::None => v,
        TranscendentalSkew::Up => v * T::from_f64(1.0 + SKEW),
        TranscendentalSkew::Down => v * T::from_f64(1.0 - SKEW),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skew_is_relative_and_off_by_default() {
        assert_eq!(skewed(0.5f64, TranscendentalSkew::default()), 0.5);
        assert_eq!(skewed(0.5f64, TranscendentalSkew::Up), 0.5 + 0.5 * SKEW);
        assert_eq!(skewed(-2.0f64, TranscendentalSkew::Down), -2.0 + 2.0 * SKEW);
    }
}
