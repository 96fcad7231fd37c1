//! What the fp16 truncation of an arithmetic result sees: the result carried to
//! [`CARRY_BITS`] significant bits, rounded to nearest, not its f32 rounding (docs/arithmetic.md
//! "The bits fp16 truncation sees", fitted on the PS3 image of ps3autotests'
//! `rsx_fp_static_test5`).
//!
//! The difference shows only where an exact result lies a hair below a binary16 value: f32
//! rounding to nearest lifts it onto that value when it is within half an f32 step, while the
//! hardware keeps it below unless it is within half a 26-bit step (2^-26 of its binade), and
//! truncation then gives the binary16 value under it. It applies to MUL, ADD and MAD
//! ([`carries`]). The f32 interpreter finds those lanes (an H write whose f32
//! result is exactly a binary16 value), evaluates the same opcode on the same sources in f64,
//! and when the carried result lies below, moves the lane one f32 step toward zero so that
//! truncation lands where the hardware's does. The f64 interpreter carries its wide value
//! itself ([`carried`], in [`super::precision`]'s truncation).

use rsxtrace_program::fragment::FpOpcode;

use super::ops;
use super::options::FragmentOptions;
use super::options::HalfRounding;
use super::precision::to_half;
use super::real::{idx4, Real};
use super::regfile::LANES;

pub use rsxtrace_semantics::fragment::{carries, CARRY_BITS};

/// `w` rounded to nearest (ties to even) at [`CARRY_BITS`] significant bits. Zero,
/// infinities, NaN and f64 subnormals are returned as they are.
pub fn carried(w: f64) -> f64 {
    if w == 0.0 || !w.is_normal() {
        return w;
    }
    // An f64 keeps 52 fraction bits; 25 of them stay (26 significant bits with the leading
    // one). Rounding on the bit pattern carries into the exponent where it must.
    const DROP: u32 = 52 - (CARRY_BITS - 1);
    let bits = w.to_bits();
    let mask = (1u64 << DROP) - 1;
    let half = 1u64 << (DROP - 1);
    let (low, kept) = (bits & mask, bits & !mask);
    let up = low > half || (low == half && (kept >> DROP) & 1 == 1);
    f64::from_bits(if up { kept + (1 << DROP) } else { kept })
}

/// For the active lanes of `row` (component `comp` of an f32 ALU result bound for an H
/// register, output scale applied) that are exactly a binary16 value: evaluates the opcode
/// in f64 on the lane's sources, and where that result carried to [`CARRY_BITS`] lies below
/// the value in magnitude, moves the lane one f32 step toward zero.
pub fn carry_row<T: Real>(
    row: &mut [T; LANES],
    comp: usize,
    opcode: FpOpcode,
    src: &[[[T; LANES]; 4]; 3],
    scale: Option<T>,
    active: u64,
    opts: &FragmentOptions,
) {
    for (l, v) in row.iter_mut().enumerate() {
        if (active >> l) & 1 == 0 {
            continue;
        }
        let r = v.to_f32();
        if r == 0.0 || !r.is_finite() || to_half(r, HalfRounding::Truncate) != r {
            continue;
        }
        let s = [0, 1, 2].map(|k| idx4(|c| src[k][c][l].to_f64()));
        let Some(wide) = ops::alu::<f64>(opcode, &s, opts) else {
            continue;
        };
        let exact = wide[comp] * scale.map_or(1.0, |f| f.to_f64());
        let kept = carried(exact);
        if kept.is_finite()
            && kept.signum() == f64::from(r).signum()
            && kept.abs() < f64::from(r).abs()
        {
            *v = T::from_f32(f32::from_bits(r.to_bits() - 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carrying_keeps_26_significant_bits_rounded_to_nearest_even() {
        let one = 1.0f64;
        let step = (2.0f64).powi(-25);
        assert_eq!(carried(one + step), one + step);
        // Below half a step: down; above: up; exactly half: to the even neighbour.
        assert_eq!(carried(one + step * 0.49), one);
        assert_eq!(carried(one + step * 0.51), one + step);
        assert_eq!(carried(one + step * 0.5), one);
        assert_eq!(carried(one + step * 1.5), one + 2.0 * step);
        // The sign and the binade carry.
        assert_eq!(carried(-(2.0 - step * 0.4)), -2.0);
        assert_eq!(carried(0.0), 0.0);
        assert!(carried(f64::NAN).is_nan());
    }

    /// test5's cell (7, 2) (docs/arithmetic.md): MADH of −1050/2048 · 0.3 + c. The exact
    /// results lie 6.1e-9 below 1733/2048 (c = 1) and 1418/4096 (c = 0.5); f32 rounding
    /// lifts both onto those values, the hardware's 26 bits only the first.
    #[test]
    fn a_result_just_below_a_half_value_stays_below_only_beyond_the_carried_bits() {
        let opts = FragmentOptions::default();
        let x = -1050.0f32 / 2048.0;
        let mad = |c: f32| {
            let mut src = [[[0.0f32; LANES]; 4]; 3];
            src[0][0] = [x; LANES];
            src[1][0] = [0.3; LANES];
            src[2][0] = [c; LANES];
            let mut row = [x.mul_add(0.3, c); LANES];
            carry_row(&mut row, 0, FpOpcode::Mad, &src, None, 1, &opts);
            (
                to_half(row[0], HalfRounding::Truncate),
                to_half(row[1], HalfRounding::Truncate),
            )
        };
        assert_eq!(mad(1.0), (1733.0 / 2048.0, 1733.0 / 2048.0));
        // Lane 0 is active and moves; lane 1 is not and keeps the f32 truncation.
        assert_eq!(mad(0.5), (1417.0 / 4096.0, 1418.0 / 4096.0));
    }
}
