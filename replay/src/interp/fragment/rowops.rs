//! The arithmetic opcodes on whole rows of lanes (component-major, see [`super::regfile`]):
//! the same per-lane semantics as [`super::ops::alu`] (rsx-microcode.md B.7), written as
//! loops over [`LANES`] values so one instruction's dispatch is shared by a whole block.
//! Opcodes without a row form return `false` and run lane by lane through `ops::alu`.

use rsxtrace_program::fragment::FpOpcode;

use super::options::{FragmentOptions, MinMaxNan};
use super::real::Real;
use super::regfile::{Row, LANES};
use super::skew::{skewed, skewed_trig};
use super::trig;

/// Four rows: x, y, z, w.
pub type Rows<T> = [Row<T>; 4];

#[inline(always)]
fn zip2<T: Real>(out: &mut Row<T>, a: &Row<T>, b: &Row<T>, f: impl Fn(T, T) -> T) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

#[inline(always)]
fn map1<T: Real>(out: &mut Row<T>, a: &Row<T>, f: impl Fn(T) -> T) {
    for (o, &x) in out.iter_mut().zip(a) {
        *o = f(x);
    }
}

/// The components set in `mask`.
#[inline(always)]
fn comps(mask: u8) -> impl Iterator<Item = usize> {
    (0..4).filter(move |c| mask & (1 << c) != 0)
}

#[inline(always)]
fn bool_val<T: Real>(b: bool) -> T {
    if b {
        T::ONE
    } else {
        T::ZERO
    }
}

#[inline(always)]
fn per_component<T: Real>(
    out: &mut Rows<T>,
    a: &Rows<T>,
    b: &Rows<T>,
    mask: u8,
    f: impl Fn(T, T) -> T + Copy,
) {
    for c in comps(mask) {
        zip2(&mut out[c], &a[c], &b[c], f);
    }
}

/// Computes `op` on the sources `s` for the components in `mask` (the other rows of `out`
/// are left as they are). Returns `false` for opcodes without a row form.
///
/// On an x86-64 CPU with AVX2 and FMA the same code runs compiled for them (eight lanes per
/// instruction, MAD's fused multiply-add and FLR/FRC's floor as single instructions instead
/// of library calls); every operation is the same IEEE operation on each lane in the same
/// order, so the results are the same bit for bit, but for which NaN a NaN result is (left to
/// the platform by Rust's float semantics either way).
#[inline]
pub fn alu_rows<T: Real>(
    op: FpOpcode,
    s: &[Rows<T>; 3],
    out: &mut Rows<T>,
    mask: u8,
    opts: &FragmentOptions,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has AVX2 and FMA, checked just above.
        return unsafe { alu_rows_avx2_fma(op, s, out, mask, opts) };
    }
    alu_rows_portable(op, s, out, mask, opts)
}

/// [`alu_rows_portable`] compiled for AVX2 and FMA.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn alu_rows_avx2_fma<T: Real>(
    op: FpOpcode,
    s: &[Rows<T>; 3],
    out: &mut Rows<T>,
    mask: u8,
    opts: &FragmentOptions,
) -> bool {
    alu_rows_portable(op, s, out, mask, opts)
}

/// [`alu_rows`] for any CPU.
#[inline(always)]
fn alu_rows_portable<T: Real>(
    op: FpOpcode,
    s: &[Rows<T>; 3],
    out: &mut Rows<T>,
    mask: u8,
    opts: &FragmentOptions,
) -> bool {
    let [a, b, c] = s;
    let skew = opts.transcendental_skew;
    match op {
        FpOpcode::Mov => {
            for k in comps(mask) {
                out[k] = a[k];
            }
        }
        FpOpcode::Mul => per_component(out, a, b, mask, |x, y| x * y),
        FpOpcode::Add => per_component(out, a, b, mask, |x, y| x + y),
        // RPCS3 emits `fma` for MAD (B.7).
        FpOpcode::Mad => {
            for k in comps(mask) {
                let (o, a, b, c) = (&mut out[k], &a[k], &b[k], &c[k]);
                if opts.fused_mad {
                    for l in 0..LANES {
                        o[l] = a[l].fma(b[l], c[l]);
                    }
                } else {
                    for l in 0..LANES {
                        o[l] = a[l] * b[l] + c[l];
                    }
                }
            }
        }
        FpOpcode::Dp2 => dot(out, a, b, 2, None, mask, opts.fused_dot),
        FpOpcode::Dp3 => dot(out, a, b, 3, None, mask, opts.fused_dot),
        FpOpcode::Dp4 => dot(out, a, b, 4, None, mask, opts.fused_dot),
        // dot(src0.xy, src1.xy) + src2.x (B.7).
        FpOpcode::Dp2a => dot(out, a, b, 2, Some(&c[0]), mask, opts.fused_dot),
        FpOpcode::Min => match opts.min_max_nan {
            MinMaxNan::OtherOperand => per_component(out, a, b, mask, T::min_num),
            MinMaxNan::Propagate => per_component(out, a, b, mask, |x, y| {
                if x.is_nan() || y.is_nan() {
                    x + y
                } else {
                    x.min_num(y)
                }
            }),
        },
        FpOpcode::Max => match opts.min_max_nan {
            MinMaxNan::OtherOperand => per_component(out, a, b, mask, T::max_num),
            MinMaxNan::Propagate => per_component(out, a, b, mask, |x, y| {
                if x.is_nan() || y.is_nan() {
                    x + y
                } else {
                    x.max_num(y)
                }
            }),
        },
        // Set-on-compare, 1.0/0.0, IEEE comparisons (B.7).
        FpOpcode::Slt => per_component(out, a, b, mask, |x, y| bool_val(x < y)),
        FpOpcode::Sge => per_component(out, a, b, mask, |x, y| bool_val(x >= y)),
        FpOpcode::Sle => per_component(out, a, b, mask, |x, y| bool_val(x <= y)),
        FpOpcode::Sgt => per_component(out, a, b, mask, |x, y| bool_val(x > y)),
        FpOpcode::Sne => per_component(out, a, b, mask, |x, y| bool_val(x != y)),
        FpOpcode::Seq => per_component(out, a, b, mask, |x, y| bool_val(x == y)),
        FpOpcode::Sfl => splat_value(out, T::ZERO, mask),
        FpOpcode::Str => splat_value(out, T::ONE, mask),
        // GLSL fract: x − floor(x).
        FpOpcode::Frc => {
            for k in comps(mask) {
                map1(&mut out[k], &a[k], |x| x - x.floor());
            }
        }
        FpOpcode::Flr => {
            for k in comps(mask) {
                map1(&mut out[k], &a[k], T::floor);
            }
        }
        // Scalar opcodes read src0.x and replicate (B.7).
        FpOpcode::Rcp => scalar(out, &a[0], mask, |x| skewed(T::ONE / x, skew)),
        // RSQ ignores the sign (B.7).
        FpOpcode::Rsq => scalar(out, &a[0], mask, |x| skewed(T::ONE / x.abs().sqrt(), skew)),
        FpOpcode::Ex2 => scalar(out, &a[0], mask, |x| skewed(x.exp2(), skew)),
        FpOpcode::Lg2 => scalar(out, &a[0], mask, |x| skewed(x.log2(), skew)),
        // The argument or the result moved, by the skew (`skew::skewed_trig`).
        FpOpcode::Cos => scalar(out, &a[0], mask, |x| {
            skewed_trig(x, skew, |x| trig::cos(x, opts.trig))
        }),
        FpOpcode::Sin => scalar(out, &a[0], mask, |x| {
            skewed_trig(x, skew, |x| trig::sin(x, opts.trig))
        }),
        // pow(s0.x, s1.x) replicated (B.7).
        FpOpcode::Pow => {
            let mut r = [T::ZERO; LANES];
            zip2(&mut r, &a[0], &b[0], |x, y| skewed(x.powf(y), skew));
            splat_row(out, &r, mask);
        }
        // src0 / src1.x per component (B.7).
        FpOpcode::Div => {
            for k in comps(mask) {
                zip2(&mut out[k], &a[k], &b[0], |x, y| skewed(x / y, skew));
            }
        }
        // |src0| > 0 ? src0 / sqrt(|src1.x|) : src0 (B.7).
        FpOpcode::Divsq => {
            for k in comps(mask) {
                zip2(&mut out[k], &a[k], &b[0], |x, y| {
                    if x.abs() > T::ZERO {
                        skewed(x / y.abs().sqrt(), skew)
                    } else {
                        x
                    }
                });
            }
        }
        // src0·src1 + (1−src0)·src2 (B.7).
        FpOpcode::Lrp => {
            for k in comps(mask) {
                let (o, a, b, c) = (&mut out[k], &a[k], &b[k], &c[k]);
                for l in 0..LANES {
                    o[l] = a[l] * b[l] + (T::ONE - a[l]) * c[l];
                }
            }
        }
        _ => return false,
    }
    true
}

/// Dot product of the first `n` components (accumulated from +0 in x, y, z, w order like
/// the per-lane form), plus `add`, replicated.
#[inline(always)]
fn dot<T: Real>(
    out: &mut Rows<T>,
    a: &Rows<T>,
    b: &Rows<T>,
    n: usize,
    add: Option<&Row<T>>,
    mask: u8,
    fused: bool,
) {
    let n = n.clamp(1, 4);
    if fused {
        // fma(a0, b0, fma(a1, b1, ... last)), last = a[n-1]·b[n-1], or fma(a[n-1], b[n-1],
        // c) with an addend (ops::alu).
        let mut acc = [T::ZERO; LANES];
        for l in 0..LANES {
            acc[l] = match add {
                Some(c) => a[n - 1][l].fma(b[n - 1][l], c[l]),
                None => a[n - 1][l] * b[n - 1][l],
            };
        }
        for k in (0..n - 1).rev() {
            for l in 0..LANES {
                acc[l] = a[k][l].fma(b[k][l], acc[l]);
            }
        }
        splat_row(out, &acc, mask);
        return;
    }
    let mut acc = [T::ZERO; LANES];
    for k in 0..n {
        let (x, y) = (&a[k], &b[k]);
        for l in 0..LANES {
            acc[l] = acc[l] + x[l] * y[l];
        }
    }
    if let Some(c) = add {
        for l in 0..LANES {
            acc[l] = acc[l] + c[l];
        }
    }
    splat_row(out, &acc, mask);
}

#[inline(always)]
fn scalar<T: Real>(out: &mut Rows<T>, a: &Row<T>, mask: u8, f: impl Fn(T) -> T) {
    let mut r = [T::ZERO; LANES];
    map1(&mut r, a, f);
    splat_row(out, &r, mask);
}

#[inline(always)]
fn splat_row<T: Real>(out: &mut Rows<T>, r: &Row<T>, mask: u8) {
    for k in comps(mask) {
        out[k] = *r;
    }
}

#[inline(always)]
fn splat_value<T: Real>(out: &mut Rows<T>, v: T, mask: u8) {
    for k in comps(mask) {
        out[k] = [v; LANES];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of values from a generator, a few specials among them.
    fn rows(seed: &mut u32) -> Rows<f32> {
        let specials = [0.0, -0.0, 1.0, -1.5, f32::INFINITY, f32::NAN, 1e-40, 3.0e38];
        let mut r = [[0f32; LANES]; 4];
        for (k, row) in r.iter_mut().enumerate() {
            for (l, v) in row.iter_mut().enumerate() {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 17;
                *seed ^= *seed << 5;
                *v = if (l + k) % 13 == 0 {
                    specials[(*seed as usize) % specials.len()]
                } else {
                    // Magnitudes from 2^-20 to 2^20, both signs.
                    let m = f32::from_bits(0x3F80_0000 | (*seed >> 9));
                    let e = ((*seed >> 3) % 41) as i32 - 20;
                    m * 2f32.powi(e) * if *seed & 1 == 0 { 1.0 } else { -1.0 }
                };
            }
        }
        r
    }

    #[test]
    fn dot_products_on_rows_are_the_lane_rule_either_rounding() {
        let mut seed = 0x9E37_79B9;
        for fused_dot in [false, true] {
            let opts = FragmentOptions {
                fused_dot,
                ..FragmentOptions::default()
            };
            for _ in 0..20 {
                let s = [rows(&mut seed), rows(&mut seed), rows(&mut seed)];
                for op in [FpOpcode::Dp2, FpOpcode::Dp3, FpOpcode::Dp4, FpOpcode::Dp2a] {
                    let mut out = [[0f32; LANES]; 4];
                    alu_rows_portable(op, &s, &mut out, 0xF, &opts);
                    for l in 0..LANES {
                        let lane = |r: &Rows<f32>| [r[0][l], r[1][l], r[2][l], r[3][l]];
                        let want = super::super::ops::alu(op, &s.each_ref().map(lane), &opts)
                            .expect("an ALU opcode")[0];
                        let got = out[0][l];
                        assert!(
                            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                            "{op:?} fused {fused_dot} lane {l}: {got:e} vs {want:e}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_avx2_build_gives_the_portable_bits() {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma"))
        {
            eprintln!("no AVX2 and FMA on this CPU: only the portable build runs here");
            return;
        }
        let ops = [
            FpOpcode::Mov,
            FpOpcode::Mul,
            FpOpcode::Add,
            FpOpcode::Mad,
            FpOpcode::Dp2,
            FpOpcode::Dp3,
            FpOpcode::Dp4,
            FpOpcode::Dp2a,
            FpOpcode::Min,
            FpOpcode::Max,
            FpOpcode::Slt,
            FpOpcode::Sge,
            FpOpcode::Sne,
            FpOpcode::Frc,
            FpOpcode::Flr,
            FpOpcode::Rcp,
            FpOpcode::Rsq,
            FpOpcode::Ex2,
            FpOpcode::Lg2,
            FpOpcode::Sin,
            FpOpcode::Cos,
            FpOpcode::Pow,
            FpOpcode::Div,
            FpOpcode::Divsq,
            FpOpcode::Lrp,
        ];
        let mut seed = 0x1234_5678;
        for round in 0..40 {
            let opts = FragmentOptions {
                fused_dot: round % 2 == 1,
                ..FragmentOptions::default()
            };
            let s = [rows(&mut seed), rows(&mut seed), rows(&mut seed)];
            for op in ops {
                let (mut portable, mut fast) = ([[0f32; LANES]; 4], [[0f32; LANES]; 4]);
                let a = alu_rows_portable(op, &s, &mut portable, 0xF, &opts);
                // SAFETY: AVX2 and FMA checked above.
                let b = unsafe { alu_rows_avx2_fma(op, &s, &mut fast, 0xF, &opts) };
                assert_eq!(a, b);
                // A NaN result compares as any NaN: which NaN an operation returns is left to
                // the platform (Rust's float semantics), and the SSE and AVX forms of an
                // operation may propagate different operands' NaNs.
                for (k, (p, f)) in portable.iter().zip(&fast).enumerate() {
                    for (l, (p, f)) in p.iter().zip(f).enumerate() {
                        assert!(
                            p.to_bits() == f.to_bits() || (p.is_nan() && f.is_nan()),
                            "{op:?} round {round} {k}.{l}: {p:e} vs {f:e}"
                        );
                    }
                }
            }
        }
    }
}
