//! The arithmetic of each vector and scalar opcode, generic over [`Real`], with the
//! source of every rule. Flow control, ARL's register write and TXL live in the executor
//! ([`super::lanes`]); everything here is a pure function of the operands and the options.

use super::options::Reassociation;
use super::options::{
    ExpLog, Lg2Guard, MadRounding, MinMaxNan, RccClamp, RsqGuard, SaturateNan, ScalarOperand,
    VertexRules,
};
use super::real::Real;
use rsxtrace_program::vertex::{Relation, ScalarOpcode, VectorOpcode};

/// A 4-component value.
pub type Vec4<T> = [T; 4];

#[inline]
fn zip<T: Real>(a: Vec4<T>, b: Vec4<T>, f: impl Fn(T, T) -> T) -> Vec4<T> {
    [f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])]
}

#[inline]
fn set<T: Real>(c: bool) -> T {
    if c {
        T::ONE
    } else {
        T::ZERO
    }
}

/// IEEE maxNum-style max: a NaN operand yields the other one.
#[inline]
fn max_num<T: Real>(a: T, b: T) -> T {
    if a.is_nan() || b > a {
        b
    } else {
        a
    }
}

/// IEEE minNum-style min.
#[inline]
fn min_num<T: Real>(a: T, b: T) -> T {
    if a.is_nan() || b < a {
        b
    } else {
        a
    }
}

fn min_max<T: Real>(a: T, b: T, want_max: bool, nan: MinMaxNan) -> T {
    if nan == MinMaxNan::Propagate && (a.is_nan() || b.is_nan()) {
        return if a.is_nan() { a } else { b };
    }
    if want_max {
        max_num(a, b)
    } else {
        min_num(a, b)
    }
}

/// Condition test of one CC component against zero (rsx-microcode.md B.2 "Condition codes",
/// RPCS3 `test_cond`): IEEE comparisons, so a NaN satisfies only NE and TR.
#[inline]
pub fn test<T: Real>(v: T, rel: Relation) -> bool {
    match rel {
        Relation::FL => false,
        Relation::LT => v < T::ZERO,
        Relation::EQ => v == T::ZERO,
        Relation::LE => v <= T::ZERO,
        Relation::GT => v > T::ZERO,
        Relation::NE => v != T::ZERO,
        Relation::GE => v >= T::ZERO,
        Relation::TR => true,
    }
}

/// Saturate (D0 bit 26): clamp to [0, 1] (RPCS3 `clamp(…, 0.0, 1.0)`); NaN per
/// [`SaturateNan`] (rsx-microcode.md B.9 "SAT and NaN").
#[inline]
pub fn saturate<T: Real>(v: Vec4<T>, nan: SaturateNan) -> Vec4<T> {
    v.map(|c| {
        if c.is_nan() {
            match nan {
                SaturateNan::Zero => T::ZERO,
                SaturateNan::Keep => c,
            }
        } else if c < T::ZERO {
            T::ZERO
        } else if c > T::ONE {
            T::ONE
        } else {
            c
        }
    })
}

#[inline]
fn dot3<T: Real>(a: Vec4<T>, b: Vec4<T>) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The dot product of the first `n` components (3 or 4) summed in `order` (conditioning
/// runs): last product first, or pairwise ((p0 + p1) + (p2 + p3)) as a vector reduction does.
#[inline]
fn dot_in<T: Real>(a: Vec4<T>, b: Vec4<T>, n: usize, order: Reassociation) -> T {
    let p = [0, 1, 2, 3].map(|i| if i < n { a[i] * b[i] } else { T::ZERO });
    match order {
        Reassociation::Pairwise => (p[0] + p[1]) + (p[2] + p[3]),
        _ => p[3] + p[2] + p[1] + p[0],
    }
}

/// The vector op's result from its (already swizzled, abs'd, negated) sources. ARL, TXL, ARR,
/// ARA and NOP are handled by the executor and give `None` here.
///
/// Semantics: RPCS3 `VertexProgramDecompiler.cpp` / `VertexInterpreter.glsl` and
/// rsx-microcode.md B.8 "VP semantics". With a [`Reassociation`] (conditioning runs only,
/// `VertexOptions::reassociate`) dot products are summed in another order and MAD is rounded
/// the other way (fused ↔ separate): evaluation choices WGSL leaves to the device.
///
/// Always inlined: the row executor calls it with a constant opcode per loop (`rows.rs`), so
/// each loop keeps just its opcode's arm.
#[inline(always)]
pub fn vector_op<T: Real>(
    op: VectorOpcode,
    s: &[Vec4<T>; 3],
    o: &VertexRules,
    reassociate: Reassociation,
) -> Option<Vec4<T>> {
    let [a, b, c] = *s;
    use VectorOpcode as V;
    if reassociate != Reassociation::None {
        let dot = |n| dot_in(a, b, n, reassociate);
        match op {
            V::Mad => {
                return Some(match o.mad {
                    MadRounding::Separate => [0, 1, 2, 3].map(|i| a[i].fma(b[i], c[i])),
                    MadRounding::Fused => [0, 1, 2, 3].map(|i| a[i] * b[i] + c[i]),
                })
            }
            V::Dp3 => return Some([dot(3); 4]),
            V::Dph => return Some([b[3] + dot(3); 4]),
            V::Dp4 => return Some([dot(4); 4]),
            _ => {}
        }
    }
    Some(match op {
        V::Mov => a,
        V::Mul => zip(a, b, |x, y| x * y),
        // ADD reads src0 + src2 (RPCS3 `$0 + $2`; Mesa puts the second operand in slot 2).
        V::Add => zip(a, c, |x, y| x + y),
        // MAD = src0 * src1 + src2; RPCS3 emits fma().
        V::Mad => match o.mad {
            MadRounding::Fused => [0, 1, 2, 3].map(|i| a[i].fma(b[i], c[i])),
            MadRounding::Separate => [0, 1, 2, 3].map(|i| a[i] * b[i] + c[i]),
        },
        V::Dp3 => [dot3(a, b); 4],
        // DPH = dot(vec4(s0.xyz, 1), s1).
        V::Dph => [dot3(a, b) + b[3]; 4],
        V::Dp4 => [dot3(a, b) + a[3] * b[3]; 4],
        // DST = (1, s0.y * s1.y, s0.z, s1.w) (NV_vertex_program; RPCS3 `_distance`).
        V::Dst => [T::ONE, a[1] * b[1], a[2], b[3]],
        V::Min => zip(a, b, |x, y| min_max(x, y, false, o.min_max_nan)),
        V::Max => zip(a, b, |x, y| min_max(x, y, true, o.min_max_nan)),
        V::Slt => zip(a, b, |x, y| set(x < y)),
        V::Sge => zip(a, b, |x, y| set(x >= y)),
        V::Seq => zip(a, b, |x, y| set(x == y)),
        V::Sgt => zip(a, b, |x, y| set(x > y)),
        V::Sle => zip(a, b, |x, y| set(x <= y)),
        V::Sne => zip(a, b, |x, y| set(x != y)),
        V::Sfl => [T::ZERO; 4],
        V::Str => [T::ONE; 4],
        // FRC = x − floor(x) (GLSL fract); FLR = floor.
        V::Frc => a.map(|x| x - x.floor()),
        V::Flr => a.map(T::floor),
        // SSG: −1 / 0 / +1 per component (SPEC-VP2O "set sign"; RPCS3 `sign()`); NaN stays.
        V::Ssg => a.map(|x| {
            if x > T::ZERO {
                T::ONE
            } else if x < T::ZERO {
                -T::ONE
            } else if x.is_nan() {
                x
            } else {
                T::ZERO
            }
        }),
        V::Nop | V::Arl | V::Arr | V::Ara | V::Txl => return None,
    })
}

/// ARL conversion of one component (rsx-microcode.md B.8 ARL row and B.9).
#[inline]
pub fn address<T: Real>(v: T, floor: bool) -> i32 {
    if floor {
        v.floor().to_i32()
    } else {
        v.trunc().to_i32()
    }
}

/// 2^-64 and 2^64: the NV_vertex_program1_1 RCC magnitude bounds (rsx-microcode.md B.8).
const RCC_SPEC_MIN: f64 = 5.421_010_862_427_522e-20;
const RCC_SPEC_MAX: f64 = 1.844_674_407_370_955_2e19;
/// RPCS3's literal RCC bounds (`clamp(1.0 / $s, 5.42101e-20, 1.884467e19)`).
const RCC_RPCS3_MIN: f64 = 5.42101e-20;
const RCC_RPCS3_MAX: f64 = 1.884467e19;
/// RPCS3 `NotZeroPositive`: max(x, 1e-10) guard of RSQ and LG2.
const GUARD: f64 = 1e-10;

fn rcc<T: Real>(x: T, mode: RccClamp) -> T {
    let r = T::ONE / x;
    match mode {
        RccClamp::Rpcs3 => min_num(
            max_num(r, T::from_f64(RCC_RPCS3_MIN)),
            T::from_f64(RCC_RPCS3_MAX),
        ),
        RccClamp::SignedMagnitude => {
            if r.is_nan() {
                return r;
            }
            let m = min_num(
                max_num(r.abs(), T::from_f64(RCC_SPEC_MIN)),
                T::from_f64(RCC_SPEC_MAX),
            );
            if r < T::ZERO || (r == T::ZERO && (T::ONE / r) < T::ZERO) {
                -m
            } else {
                m
            }
        }
    }
}

/// One component-wise scalar function (RCP, RCC, RSQ, natural EXP/LOG, LG2, EX2, SIN, COS,
/// MOV).
fn scalar_fn<T: Real>(op: ScalarOpcode, x: T, o: &VertexRules) -> T {
    use ScalarOpcode as S;
    match op {
        // RCP = 1/x, IEEE: RCP(±0) = ±Inf (rsx-microcode.md B.9, hardware-tested on the FP).
        S::Rcp => T::ONE / x,
        S::Rcc => rcc(x, o.rcc),
        S::Rsq => match o.rsq {
            RsqGuard::Abs => T::ONE / x.abs().sqrt(),
            RsqGuard::Clamp => T::ONE / max_num(x, T::from_f64(GUARD)).sqrt(),
            RsqGuard::Raw => T::ONE / x.sqrt(),
        },
        S::Lg2 => match o.lg2 {
            Lg2Guard::Clamp => max_num(x, T::from_f64(GUARD)).log2(),
            Lg2Guard::Raw => x.log2(),
        },
        S::Ex2 => x.exp2(),
        S::Sin => x.sin(),
        S::Cos => x.cos(),
        S::Exp => x.exp(),
        S::Log => x.ln(),
        _ => x,
    }
}

/// LIT: (1, max(x, 0), x > 0 ? pow(max(y, 1e-10), w) : 0, 1) (RPCS3 `lit_legacy`,
/// rsx-microcode.md B.8 LIT row); the NV spec's exponent clamp to [−128, 128] is optional.
fn lit<T: Real>(s: Vec4<T>, clamp_exponent: bool) -> Vec4<T> {
    let [x, y, _, w] = s;
    let w = if clamp_exponent {
        let lim = T::from_f64(128.0);
        min_num(max_num(w, -lim), lim)
    } else {
        w
    };
    let z = if x > T::ZERO {
        max_num(y, T::from_f64(GUARD)).powf(w)
    } else {
        T::ZERO
    };
    [T::ONE, max_num(x, T::ZERO), z, T::ONE]
}

/// NV EXP: (2^floor(x), x − floor(x), 2^x, 1) (rsx-microcode.md B.8 EXP/LOG row).
fn exp_spec<T: Real>(x: T) -> Vec4<T> {
    let f = x.floor();
    [f.exp2(), x - f, x.exp2(), T::ONE]
}

/// NV LOG: (floor(log2|x|), |x| / 2^floor(log2|x|), log2|x|, 1) (rsx-microcode.md B.8).
fn log_spec<T: Real>(x: T) -> Vec4<T> {
    let m = x.abs();
    let l = m.log2();
    let e = l.floor();
    [e, m / e.exp2(), l, T::ONE]
}

/// The scalar op's result (before the write mask) from the swizzled, abs'd, negated src2.
/// Flow-control ops and NOP give `None`.
pub fn scalar_op<T: Real>(op: ScalarOpcode, s: Vec4<T>, o: &VertexRules) -> Option<Vec4<T>> {
    use ScalarOpcode as S;
    let x = s[0];
    Some(match op {
        S::Lit => lit(s, o.lit_clamp_exponent),
        S::Exp if o.exp_log == ExpLog::Spec => exp_spec(x),
        S::Log if o.exp_log == ExpLog::Spec => log_spec(x),
        // RSQ uses `.x` on both RPCS3 paths (decompiler `$s.x`, interpreter `read_src(2).x`).
        S::Rsq => [scalar_fn(op, x, o); 4],
        S::Mov | S::Rcp | S::Rcc | S::Exp | S::Log | S::Lg2 | S::Ex2 | S::Sin | S::Cos => {
            match o.scalar_operand {
                ScalarOperand::FirstComponent => [scalar_fn(op, x, o); 4],
                ScalarOperand::PerComponent => s.map(|c| scalar_fn(op, c, o)),
            }
        }
        S::Nop | S::Bra | S::Bri | S::Cal | S::Cli | S::Ret | S::Brb | S::Clb | S::Psh | S::Pop => {
            return None
        }
    })
}
