//! Value conversions of the fragment pipeline: output scale, saturate, the result precision
//! clamps (fp16, fx12, fx9) and the source precision modifiers (rsx-microcode.md B.2).

use rsxtrace_program::fragment::{OutputScale, PrecisionModifier};

use super::options::FixedPointMode;
use super::real::Real;

/// Saturate: NaN → 0, then clamp to [0, 1] (B.2 step 4; RPCS3 HW note "SAT flushes NaN to 0").
#[inline]
pub fn saturate<T: Real>(v: T) -> T {
    clamp_nan0(v, T::ZERO, T::ONE)
}

/// NaN → 0, then clamp to [lo, hi].
#[inline]
fn clamp_nan0<T: Real>(v: T, lo: T, hi: T) -> T {
    if v.is_nan() {
        T::ZERO
    } else if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

/// Round to the nearest multiple of 2^-`bits`, ties to even.
fn quantise<T: Real>(v: T, bits: i32) -> T {
    let scale = 2f64.powi(bits);
    let x = v.to_f64() * scale;
    let r = x.round();
    let r = if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    };
    T::from_f64(r / scale)
}

/// The fx12 precision ("s1.10", [−2, 2); B.2, B.9).
#[inline]
pub fn fx12<T: Real>(v: T, mode: FixedPointMode) -> T {
    match mode {
        FixedPointMode::ClampOnly => clamp_nan0(v, T::from_f32(-2.0), T::from_f32(2.0)),
        FixedPointMode::Quantise => {
            let c = clamp_nan0(v, T::from_f32(-2.0), T::from_f64(2.0 - 1.0 / 1024.0));
            quantise(c, 10)
        }
    }
}

/// The fx9 precision (nouveau "s0.8"; RPCS3 clamp to [−1, 1]; B.2, B.9).
#[inline]
pub fn fx9<T: Real>(v: T, mode: FixedPointMode) -> T {
    match mode {
        FixedPointMode::ClampOnly => clamp_nan0(v, T::from_f32(-1.0), T::ONE),
        FixedPointMode::Quantise => {
            let c = clamp_nan0(v, T::from_f32(-1.0), T::from_f64(1.0 - 1.0 / 256.0));
            quantise(c, 8)
        }
    }
}

/// The output-scale factor, `None` for the invalid encoding 4 (B.1).
pub fn scale_factor<T: Real>(scale: OutputScale) -> Option<T> {
    scale.factor().map(T::from_f32)
}

/// A source precision modifier (SRC1 19–27), applied after abs and before negate (B.2,
/// RPCS3 `GetSRC`). Encodings 5–7 have no effect ("unknown, no effect in HW tests").
#[inline]
pub fn source_modifier<T: Real>(
    v: T,
    m: PrecisionModifier,
    fx12_mode: FixedPointMode,
    fx9_mode: FixedPointMode,
) -> T {
    match m {
        PrecisionModifier::None
        | PrecisionModifier::Unknown5
        | PrecisionModifier::Unknown6
        | PrecisionModifier::Unknown7 => v,
        PrecisionModifier::Fp16 => v.half_round_trip(),
        PrecisionModifier::Fx12 => fx12(v, fx12_mode),
        PrecisionModifier::Fx9 => fx9(v, fx9_mode),
        PrecisionModifier::Sat => saturate(v),
    }
}
