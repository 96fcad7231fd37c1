//! A conditioning switch, not a model of the hardware: the results of the transcendental and
//! reciprocal instructions (SIN, COS, EX2, LG2, POW, RCP, RSQ, DIV, DIVSQ) moved by a
//! relative 2^-20 up or down, or (its other two settings) the arguments of SIN and COS
//! ([`skewed_trig`]).
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
    /// SIN and COS arguments times 1 + [`SKEW`] ([`skewed_trig`]); no result moved.
    ArgumentUp,
    /// SIN and COS arguments times 1 − [`SKEW`].
    ArgumentDown,
}

/// `v` moved by `skew`.
#[inline(always)]
pub fn skewed<T: Real>(v: T, skew: TranscendentalSkew) -> T {
    match skew {
        TranscendentalSkew::None
        | TranscendentalSkew::ArgumentUp
        | TranscendentalSkew::ArgumentDown => v,
        TranscendentalSkew::Up => v * T::from_f64(1.0 + SKEW),
        TranscendentalSkew::Down => v * T::from_f64(1.0 - SKEW),
    }
}

/// `f` (SIN or COS) of `x` under `skew`: the result moved by `Up`/`Down`, the argument by
/// `ArgumentUp`/`ArgumentDown`. A device's SIN/COS error is absolute on the reduced argument,
/// and an argument of hundreds of radians carries ULPs of its own from the arithmetic before
/// it (a device's fused or separate MAD, its division): moving the result misses what a ULP
/// of the argument does to it (at 1174.68 rad one ULP of the argument moves the sine by
/// 1.2e-4; found on the game-scale frame's draws of `rsx_fp_static_test2`), and moving the
/// argument misses COS near zero. Separate runs, as moving both in one can cancel
/// (x·cos x + sin x = 0).
#[inline(always)]
pub fn skewed_trig<T: Real>(x: T, skew: TranscendentalSkew, f: impl Fn(T) -> T) -> T {
    let argument = match skew {
        TranscendentalSkew::ArgumentUp => x * T::from_f64(1.0 + SKEW),
        TranscendentalSkew::ArgumentDown => x * T::from_f64(1.0 - SKEW),
        _ => x,
    };
    skewed(f(argument), skew)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skew_is_relative_and_off_by_default() {
        assert_eq!(skewed(0.5f64, TranscendentalSkew::default()), 0.5);
        assert_eq!(skewed(0.5f64, TranscendentalSkew::Up), 0.5 + 0.5 * SKEW);
        assert_eq!(skewed(-2.0f64, TranscendentalSkew::Down), -2.0 + 2.0 * SKEW);
        assert_eq!(skewed(0.5f64, TranscendentalSkew::ArgumentUp), 0.5);
    }

    #[test]
    fn trigonometric_skews_move_the_argument_or_the_result() {
        let id = |x: f64| x;
        assert_eq!(skewed_trig(2.0, TranscendentalSkew::None, id), 2.0);
        assert_eq!(
            skewed_trig(2.0, TranscendentalSkew::Up, id),
            2.0 + 2.0 * SKEW
        );
        assert_eq!(
            skewed_trig(2.0, TranscendentalSkew::ArgumentDown, |x| 3.0 * x),
            6.0 - 6.0 * SKEW
        );
        // A large argument: the argument skew reaches the sine where the result skew does not.
        let x = 1174.68_f64;
        let moved = (skewed_trig(x, TranscendentalSkew::ArgumentUp, f64::sin) - x.sin()).abs();
        assert!(moved > 1e-4, "{moved}");
        assert!((skewed_trig(x, TranscendentalSkew::Up, f64::sin) - x.sin()).abs() < 1e-6);
    }
}
