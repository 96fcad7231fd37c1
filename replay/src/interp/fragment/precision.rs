//! Value conversions of the fragment pipeline: output scale, saturate, the fp32 → fp16
//! conversion ([`HalfRounding`]: truncation as on the hardware, or RPCS3's nearest), the result
//! precision clamps (fx12, fx9) and the source precision modifiers (rsx-microcode.md B.2, B.9).

use half::f16;
use rsxtrace_program::fragment::{OutputScale, PrecisionModifier};

use super::options::{FixedPointMode, FragmentOptions, HalfRounding};
use super::real::Real;
use super::regfile::LANES;

/// 2^-14, the smallest normal binary16 magnitude.
const HALF_MIN_NORMAL: f64 = 1.0 / 16384.0;
/// The largest finite binary16 magnitude.
const HALF_MAX: f64 = 65504.0;

/// The binary16 bits of `x` rounded toward zero (rsx-microcode.md B.9, measured on the
/// ps3autotests hardware images): for |x| >= 2^-14 the mantissa keeps its top 10 bits (the
/// low 13 bits of an f32 mantissa are cleared); below, x is truncated to the subnormal grid,
/// trunc(x · 2^24) / 2^24; ±Inf stays ±Inf, NaN stays NaN (quiet, as the nearest conversion
/// keeps it); finite magnitudes beyond 65504 give ±65504, what truncation gives (the
/// hardware's overflow result is unverified). Exact for every f64, so an f64 interpreter
/// truncates its wide value, not an f32 rounding of it.
pub fn half_bits_truncated(x: f64) -> u16 {
    if x.is_nan() {
        return f16::from_f64(x).to_bits();
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a.is_infinite() {
        sign | 0x7C00
    } else if a >= HALF_MAX {
        sign | 0x7BFF
    } else if a >= HALF_MIN_NORMAL {
        let bits = a.to_bits();
        // Unbiased exponent −14..=15; the top 10 of the 52 mantissa bits.
        let exp = ((bits >> 52) & 0x7FF) as i64 - 1023;
        let mantissa = ((bits >> 42) & 0x3FF) as u16;
        sign | (((exp + 15) as u16) << 10) | mantissa
    } else {
        // 0..=1023 steps of 2^-24: exact, a < 2^-14.
        sign | (a * 16_777_216.0).trunc() as u16
    }
}

/// The binary16 bits of `v` under `mode` ([`HalfRounding::Keep`], which has no bits of its
/// own, gives the nearest value's, what the register file stores beside the kept value).
#[inline]
pub fn half_bits<T: Real>(v: T, mode: HalfRounding) -> u16 {
    match mode {
        HalfRounding::Truncate => half_bits_truncated(v.to_f64()),
        HalfRounding::Nearest | HalfRounding::Keep => v.to_half_bits(),
    }
}

/// `v` converted to binary16 under `mode` and back (H-register writes, the fp16 source
/// modifier; B.2, B.9); [`HalfRounding::Keep`] gives `v` itself.
#[inline]
pub fn to_half<T: Real>(v: T, mode: HalfRounding) -> T {
    match mode {
        HalfRounding::Truncate => truncated_half(v),
        HalfRounding::Nearest => T::from_half_bits(v.to_half_bits()),
        HalfRounding::Keep => v,
    }
}

/// [`to_half`] of every value of `row`. Truncation in f32 runs without branches over the
/// lanes (the two cases of `truncated_half`'s fast path computed for every lane and one
/// chosen), then sends the lanes beyond binary16's range (overflow, infinities, NaN) through
/// the general path; nearest rounding converts the row at once
/// ([`Real::to_half_bits_row`]). Each lane gets exactly what [`to_half`] gives it
/// (`rows_match_lane_by_lane_conversion`).
#[inline]
pub fn to_half_row<T: Real>(row: &mut [T; LANES], mode: HalfRounding) {
    match mode {
        HalfRounding::Keep => {}
        HalfRounding::Nearest => {
            let mut bits = [0u16; LANES];
            T::to_half_bits_row(row, &mut bits);
            T::from_half_bits_row(&bits, row);
        }
        HalfRounding::Truncate if !T::WIDE => {
            // One pass without branches (it vectorises), in place; then, in the rare row
            // with a lane beyond binary16's range, that lane through the general path. The
            // pass leaves such a lane beyond the range too (a magnitude of 65504 or more
            // stays so when truncated, infinities stay, NaN is kept as it was), and the
            // general path gives the same for it as for the original value.
            let mut wide = false;
            for v in row.iter_mut() {
                let x = v.to_f32();
                let a = x.abs();
                let normal = if x.is_nan() {
                    x
                } else {
                    f32::from_bits(x.to_bits() & !0x1FFF)
                };
                // |x| · 2^24 (exact, below 2^10 where it is chosen) rounded to an integer by
                // adding and taking away 2^23, then down to the floor; the sign bit
                // restores the sign (and keeps −0).
                let scaled = a * 16_777_216.0;
                let nearest = (scaled + 8_388_608.0) - 8_388_608.0;
                let floor = if nearest > scaled {
                    nearest - 1.0
                } else {
                    nearest
                };
                let grid = floor * (1.0 / 16_777_216.0);
                let subnormal = f32::from_bits(grid.to_bits() | (x.to_bits() & 0x8000_0000));
                let t = if a >= HALF_MIN_NORMAL as f32 {
                    normal
                } else {
                    subnormal
                };
                wide |= beyond_half(a);
                *v = T::from_f32(t);
            }
            if wide {
                for v in row.iter_mut() {
                    if beyond_half(v.to_f32().abs()) {
                        *v = truncated_half(*v);
                    }
                }
            }
        }
        HalfRounding::Truncate => {
            for v in row.iter_mut() {
                *v = truncated_half(*v);
            }
        }
    }
}

/// Whether a magnitude lies beyond binary16's finite range (65504 or more, NaN).
#[inline(always)]
fn beyond_half(a: f32) -> bool {
    a.is_nan() || a >= HALF_MAX as f32
}

/// `v` truncated to binary16 and back ([`half_bits_truncated`]). For f32 the common cases
/// take no detour through f64 and binary16: a normal half keeps the top 10 of the 23 mantissa
/// bits (clearing the low 13 is the truncation), a subnormal one is the 2^-24 grid below it;
/// overflow, infinities and NaN take the general path. The fast path is bit-exact with it
/// (`fast_truncation_matches_the_general_path`).
#[inline]
fn truncated_half<T: Real>(v: T) -> T {
    if !T::WIDE {
        let x = v.to_f32();
        let a = x.abs();
        if (HALF_MIN_NORMAL as f32..HALF_MAX as f32).contains(&a) {
            return T::from_f32(f32::from_bits(x.to_bits() & !0x1FFF));
        }
        if a < HALF_MIN_NORMAL as f32 {
            // Exact: scaling by 2^24 and back, |x · 2^24| < 2^10.
            return T::from_f32((x * 16_777_216.0).trunc() / 16_777_216.0);
        }
    }
    // A wide value is an arithmetic result carried further than the hardware carries it
    // into the conversion ([`super::carry`]).
    T::from_half_bits(half_bits_truncated(super::carry::carried(v.to_f64())))
}

/// Saturate: NaN → 0, then clamp to [0, 1] (B.2 step 4; RPCS3 HW note "SAT flushes NaN to 0").
#[inline]
pub fn saturate<T: Real>(v: T) -> T {
    clamp_nan0(v, T::ZERO, T::ONE)
}

/// [`saturate`] of every value of `row`, written as selects so that it vectorises.
#[inline]
pub fn saturate_row<T: Real>(row: &mut [T; LANES]) {
    for v in row.iter_mut() {
        let low = if *v < T::ZERO { T::ZERO } else { *v };
        let clamped = if low > T::ONE { T::ONE } else { low };
        *v = if v.is_nan() { T::ZERO } else { clamped };
    }
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
pub fn source_modifier<T: Real>(v: T, m: PrecisionModifier, opts: &FragmentOptions) -> T {
    match m {
        PrecisionModifier::None
        | PrecisionModifier::Unknown5
        | PrecisionModifier::Unknown6
        | PrecisionModifier::Unknown7 => v,
        PrecisionModifier::Fp16 => to_half(v, opts.half_rounding),
        PrecisionModifier::Fx12 => fx12(v, opts.fx12),
        PrecisionModifier::Fx9 => fx9(v, opts.fx9),
        PrecisionModifier::Sat => saturate(v),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn fast_truncation_matches_the_general_path() {
        let general = |x: f32| f32::from_half_bits(half_bits_truncated(f64::from(x)));
        let edges = [
            0.0f32,
            -0.0,
            1.0 / 16384.0,
            -1.0 / 16384.0,
            f32::from_bits((1.0f32 / 16384.0).to_bits() - 1),
            65504.0,
            65519.99,
            65520.0,
            65536.0,
            -65504.5,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0 + f32::EPSILON,
        ];
        // Every exponent and a spread of mantissas: 2^32 / 977 patterns of both signs.
        let sweep = (0..u32::MAX / 977).map(|k| f32::from_bits(k.wrapping_mul(977)));
        for x in edges.into_iter().chain(sweep) {
            let (fast, slow) = (truncated_half(x), general(x));
            assert!(
                fast.to_bits() == slow.to_bits() || (fast.is_nan() && slow.is_nan()),
                "{x:e} ({:#010x}): fast {fast:e}, general {slow:e}",
                x.to_bits()
            );
        }
    }

    use super::*;

    #[test]
    fn rows_match_lane_by_lane_conversion() {
        // Rows of the same sweep as above with the edge cases mixed in, so that rows with and
        // without lanes beyond binary16's range both occur.
        let edges = [
            -0.0f32,
            1.0 / 16384.0,
            f32::from_bits((1.0f32 / 16384.0).to_bits() - 1),
            -f32::from_bits(1),
            65504.0,
            65520.0,
            f32::INFINITY,
            f32::NAN,
            -f32::NAN,
            // NaNs whose payload lies in the 13 bits truncation clears.
            f32::from_bits(0x7F80_0001),
            f32::from_bits(0xFF80_1000),
        ];
        // Bit for bit, NaNs included: their bits reach R reads of the packed halves.
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits();
        let mut k = 0u32;
        for round in 0..(u32::MAX / 977 / LANES as u32) {
            let mut row = [0f32; LANES];
            for (l, v) in row.iter_mut().enumerate() {
                *v = if round % 3 == 0 && l % 16 == 5 {
                    edges[(round as usize / 3 + l) % edges.len()]
                } else {
                    k = k.wrapping_add(977);
                    f32::from_bits(k)
                };
            }
            for mode in [HalfRounding::Truncate, HalfRounding::Nearest] {
                let mut converted = row;
                to_half_row(&mut converted, mode);
                for (x, y) in row.iter().zip(converted) {
                    let want = to_half(*x, mode);
                    assert!(same(y, want), "{mode:?} {x:e}: row {y:e}, lane {want:e}");
                }
            }
            let mut saturated = row;
            saturate_row(&mut saturated);
            for (x, y) in row.iter().zip(saturated) {
                assert!(same(y, saturate(*x)), "saturate {x:e}: row {y:e}");
            }
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                /// `to_half_row` compiled for AVX2, as the interpreter's writes run it.
                #[target_feature(enable = "avx2")]
                unsafe fn avx2(row: &mut [f32; LANES], mode: HalfRounding) {
                    to_half_row(row, mode);
                    saturate_row(row);
                }
                for mode in [HalfRounding::Truncate, HalfRounding::Nearest] {
                    let (mut portable, mut fast) = (row, row);
                    to_half_row(&mut portable, mode);
                    saturate_row(&mut portable);
                    // SAFETY: AVX2 checked just above.
                    unsafe { avx2(&mut fast, mode) };
                    for (p, f) in portable.iter().zip(fast) {
                        assert_eq!(p.to_bits(), f.to_bits(), "{mode:?} AVX2");
                    }
                }
            }
            let mut wide = row.map(f64::from);
            to_half_row(&mut wide, HalfRounding::Truncate);
            for (x, y) in row.iter().zip(wide) {
                let want = to_half(f64::from(*x), HalfRounding::Truncate);
                assert_eq!(y.to_bits(), want.to_bits(), "{x:e}");
            }
        }
    }

    /// The value of finite binary16 bits from the format's definition (bias 15, 10-bit
    /// mantissa, subnormals in steps of 2^-24).
    fn value(bits: u16) -> f64 {
        let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
        let exp = i32::from((bits >> 10) & 0x1F);
        let man = f64::from(bits & 0x3FF);
        if exp == 0 {
            sign * man * 2f64.powi(-24)
        } else {
            sign * (1.0 + man / 1024.0) * 2f64.powi(exp - 15)
        }
    }

    #[test]
    fn every_value_between_two_halves_truncates_to_the_lower_magnitude() {
        for bits in 0..0x7BFFu16 {
            let (lo, hi) = (value(bits), value(bits + 1));
            for t in [0.0, 0.25, 0.5, 0.75, 0.999] {
                let x = lo + t * (hi - lo);
                assert_eq!(half_bits_truncated(x), bits, "{x:e}");
                assert_eq!(half_bits_truncated(-x), bits | 0x8000, "{:e}", -x);
            }
        }
    }

    #[test]
    fn beyond_the_largest_half_gives_65504_and_specials_are_kept() {
        assert_eq!(half_bits_truncated(65504.0), 0x7BFF);
        assert_eq!(half_bits_truncated(65535.9), 0x7BFF);
        assert_eq!(half_bits_truncated(1e30), 0x7BFF);
        assert_eq!(half_bits_truncated(-1e30), 0xFBFF);
        assert_eq!(half_bits_truncated(f64::INFINITY), 0x7C00);
        assert_eq!(half_bits_truncated(f64::NEG_INFINITY), 0xFC00);
        let nan = half_bits_truncated(f64::NAN);
        assert!(nan & 0x7C00 == 0x7C00 && nan & 0x3FF != 0);
        assert_eq!(half_bits_truncated(-0.0), 0x8000);
        assert_eq!(half_bits_truncated(1e-30), 0);
    }

    #[test]
    fn nearest_mode_is_the_ieee_conversion() {
        // 1 + 2^-10 + 2^-11 is a tie between 0x3C01 and 0x3C02: nearest even 0x3C02.
        let x = 1.0 + 2f32.powi(-10) + 2f32.powi(-11);
        assert_eq!(half_bits(x, HalfRounding::Nearest), 0x3C02);
        assert_eq!(half_bits(x, HalfRounding::Truncate), 0x3C01);
        assert_eq!(to_half(x, HalfRounding::Truncate), 1.0 + 2f32.powi(-10));
    }
}
