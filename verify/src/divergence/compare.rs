//! One component compared ([`compare`]): absolute, relative and ULP error between the GPU
//! result and the interpreter's, judged with `approx` against the class's [`Tolerance`] under
//! the NaN, infinity and denormal policy; and the per-register tally ([`RegisterTally`]) that
//! keeps counts and the worst element.
//!
//! Ill-conditioned values: the interpreter runs in f32 and in f64; when those two disagree
//! beyond the same tolerance, the value depends on rounding more than the tolerance allows, and
//! a GPU mismatch there is counted as ill-conditioned instead of diverged (the tolerance is not
//! loosened).

use super::tolerance::{Class, InfPolicy, NanPolicy, Tolerance, Tolerances};
use serde::Serialize;

/// The errors of one component.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ComponentError {
    /// |gpu − reference| (infinite when exactly one side is NaN or infinite).
    pub abs: f64,
    /// abs / max(|gpu|, |reference|) (0 when both are 0).
    pub rel: f64,
    /// Distance in ULPs of the class's format (binary32, binary16, or 2^-10 steps for fx12);
    /// `u64::MAX` when a side is NaN.
    pub ulps: u64,
    /// How far past the tolerance: the smallest ratio error / bound over the class's enabled
    /// bounds (≤ 1 is within; infinite for a NaN or infinity mismatch).
    pub score: f64,
}

/// The judgement of one component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Within tolerance.
    Within,
    /// Outside tolerance.
    Diverged,
    /// A side is NaN and the policy ignores NaN.
    NanIgnored,
}

/// Binary32 bits mapped to a monotonic integer line (+0 and −0 both 0, an infinity one step
/// past the largest finite value).
fn ordered32(v: f32) -> i64 {
    let bits = i64::from(v.to_bits() & 0x7FFF_FFFF);
    if v.is_sign_negative() {
        -bits
    } else {
        bits
    }
}

/// Binary16 bits on the same kind of line.
fn ordered16(v: half::f16) -> i64 {
    let bits = i64::from(v.to_bits() & 0x7FFF);
    if v.is_sign_negative() {
        -bits
    } else {
        bits
    }
}

/// The ULP distance of `a` and `b` (non-NaN) in `class`'s format.
fn ulp_distance(a: f32, b: f32, class: Class) -> u64 {
    match class {
        Class::Fp32 => ordered32(a).abs_diff(ordered32(b)),
        Class::Fp16 => {
            ordered16(half::f16::from_f32(a)).abs_diff(ordered16(half::f16::from_f32(b)))
        }
        Class::Fx12 => {
            // 2^-10 steps (rsx-microcode.md B.2: 10 fractional bits); saturating cast.
            let steps = ((f64::from(a) - f64::from(b)).abs() * 1024.0).round();
            if steps >= u64::MAX as f64 {
                u64::MAX
            } else {
                steps as u64
            }
        }
    }
}

/// `err / bound`, with 0 / 0 = 0 and x / 0 = ∞.
fn ratio(err: f64, bound: f64) -> f64 {
    if err == 0.0 {
        0.0
    } else if bound == 0.0 {
        f64::INFINITY
    } else {
        err / bound
    }
}

/// Compare the GPU's `gpu` with the interpreter's `reference` for a register of `class`.
pub fn compare(
    gpu: f32,
    reference: f32,
    class: Class,
    tolerances: &Tolerances,
) -> (Verdict, ComponentError) {
    let t: &Tolerance = tolerances.of(class);
    let mismatch = ComponentError {
        abs: f64::INFINITY,
        rel: f64::INFINITY,
        ulps: u64::MAX,
        score: f64::INFINITY,
    };
    if gpu.is_nan() || reference.is_nan() {
        let both = gpu.is_nan() && reference.is_nan();
        return match tolerances.nan {
            NanPolicy::Ignore => (Verdict::NanIgnored, mismatch),
            NanPolicy::Match if both => (
                Verdict::Within,
                ComponentError {
                    abs: 0.0,
                    rel: 0.0,
                    ulps: 0,
                    score: 0.0,
                },
            ),
            NanPolicy::Match => (Verdict::Diverged, mismatch),
        };
    }
    let ulps = ulp_distance(gpu, reference, class);
    if (gpu.is_infinite() || reference.is_infinite()) && gpu != reference {
        let e = ComponentError { ulps, ..mismatch };
        let near = tolerances.inf == InfPolicy::Ulp && t.ulps > 0 && ulps <= u64::from(t.ulps);
        return if near {
            (
                Verdict::Within,
                ComponentError {
                    score: ulps as f64 / f64::from(t.ulps),
                    ..e
                },
            )
        } else {
            (Verdict::Diverged, e)
        };
    }
    let (a, b) = (f64::from(gpu), f64::from(reference));
    let abs = (a - b).abs();
    let largest = a.abs().max(b.abs());
    let rel = if largest == 0.0 { 0.0 } else { abs / largest };
    let mut score = ratio(abs, t.abs);
    if t.rel > 0.0 {
        score = score.min(ratio(rel, t.rel));
    }
    if t.ulps > 0 {
        score = score.min(ratio(ulps as f64, f64::from(t.ulps)));
    }
    let error = ComponentError {
        abs,
        rel,
        ulps,
        score,
    };
    // approx: absolute epsilon first, then the relative or ULP bound.
    let by_rel = approx::relative_eq!(a, b, epsilon = t.abs, max_relative = t.rel);
    let by_ulps = match class {
        Class::Fp32 if t.ulps > 0 => {
            approx::ulps_eq!(gpu, reference, epsilon = 0.0, max_ulps = t.ulps)
        }
        Class::Fp16 | Class::Fx12 if t.ulps > 0 => ulps <= u64::from(t.ulps),
        _ => false,
    };
    let flushed = tolerances.flush_denormals && gpu == 0.0 && reference.is_subnormal();
    if by_rel || by_ulps || flushed {
        (Verdict::Within, error)
    } else {
        (Verdict::Diverged, error)
    }
}

/// The element and component where a register is furthest from the interpreter.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Worst {
    /// Vertex position in processing order, or pixel index in the compared list.
    pub element: usize,
    /// Pixel (x, y) in window coordinates for the fragment stage.
    pub pixel: Option<[u32; 2]>,
    /// Component 0..3 (x, y, z, w).
    pub component: usize,
    /// GPU value.
    pub gpu: f32,
    /// Interpreter value (f32 arithmetic).
    pub interpreter: f32,
    /// Interpreter value in f64 arithmetic.
    pub interpreter_f64: f64,
    /// Its errors.
    pub error: ComponentError,
    /// It is outside the tolerance.
    pub diverged: bool,
}

/// Counts and the worst component of one output register.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegisterTally {
    /// Register name (`HPOS`, `COL0`, ... for vertex outputs; `R0`, `H4`, ... for fragment).
    pub register: String,
    /// Its class.
    pub class: Class,
    /// Components compared.
    pub compared: u64,
    /// Components outside tolerance (not ill-conditioned).
    pub diverged: u64,
    /// Components whose f32 and f64 interpreter results disagree beyond the tolerance.
    pub ill_conditioned: u64,
    /// Components not compared because of a NaN under `nan=ignore`.
    pub nan_ignored: u64,
    /// The diverged component with the largest score, else the compared one with the largest
    /// score (`diverged` false), ill-conditioned components excluded.
    pub worst: Option<Worst>,
}

/// One component to tally.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Element (vertex position or pixel index).
    pub element: usize,
    /// Pixel coordinates, fragment stage only.
    pub pixel: Option<[u32; 2]>,
    /// Component.
    pub component: usize,
    /// GPU value.
    pub gpu: f32,
    /// Interpreter f32 value.
    pub reference: f32,
    /// Interpreter f64 value.
    pub reference_f64: f64,
    /// Interpreter f32 values of the fragment stage's conditioning runs (texture coordinates
    /// nudged up and down, transcendental results skewed up and down, SIN and COS arguments
    /// skewed up and down), a second conditioning check.
    pub perturbed: [Option<f32>; PERTURBED_RUNS],
}

/// Conditioning runs a sample may carry (the fragment stage's `CONDITIONING_RUNS`).
pub const PERTURBED_RUNS: usize = 6;

impl RegisterTally {
    /// An empty tally.
    pub fn new(register: impl Into<String>, class: Class) -> RegisterTally {
        RegisterTally {
            register: register.into(),
            class,
            compared: 0,
            diverged: 0,
            ill_conditioned: 0,
            nan_ignored: 0,
            worst: None,
        }
    }

    /// Compare and count one component; returns its verdict (ill-conditioned mismatches
    /// return [`Verdict::Within`]).
    pub fn add(&mut self, s: Sample, tolerances: &Tolerances) -> Verdict {
        let (verdict, error) = compare(s.gpu, s.reference, self.class, tolerances);
        if verdict == Verdict::NanIgnored {
            self.nan_ignored += 1;
            return verdict;
        }
        self.compared += 1;
        // The f64 run rounded to f32 against the f32 run, and the nudged run against the f32
        // run, with the same tolerance.
        let unstable =
            |other: f32| compare(s.reference, other, self.class, tolerances).0 == Verdict::Diverged;
        if unstable(s.reference_f64 as f32) || s.perturbed.into_iter().flatten().any(unstable) {
            if verdict == Verdict::Diverged {
                self.ill_conditioned += 1;
            }
            return Verdict::Within;
        }
        let diverged = verdict == Verdict::Diverged;
        if diverged {
            self.diverged += 1;
        }
        let replace = match &self.worst {
            None => true,
            Some(w) => {
                (diverged && !w.diverged) || (diverged == w.diverged && error.score > w.error.score)
            }
        };
        if replace {
            self.worst = Some(Worst {
                element: s.element,
                pixel: s.pixel,
                component: s.component,
                gpu: s.gpu,
                interpreter: s.reference,
                interpreter_f64: s.reference_f64,
                error,
                diverged,
            });
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> Tolerances {
        Tolerances::default()
    }

    #[test]
    fn ulps_are_counted_across_zero_and_to_infinity() {
        assert_eq!(
            ulp_distance(1.0, f32::from_bits(0x3F80_0003), Class::Fp32),
            3
        );
        assert_eq!(ulp_distance(0.0, -0.0, Class::Fp32), 0);
        // Smallest denormals either side of zero are 2 apart.
        assert_eq!(
            ulp_distance(f32::from_bits(1), -f32::from_bits(1), Class::Fp32),
            2
        );
        assert_eq!(ulp_distance(f32::MAX, f32::INFINITY, Class::Fp32), 1);
        // binary16: 1.0 = 0x3C00, next = 1 + 2^-10.
        assert_eq!(ulp_distance(1.0, 1.0 + 1.0 / 1024.0, Class::Fp16), 1);
        assert_eq!(ulp_distance(1.0, 1.0 + 1.0 / 4096.0, Class::Fp16), 0);
        assert_eq!(ulp_distance(0.5, 0.5 + 3.0 / 1024.0, Class::Fx12), 3);
    }

    #[test]
    fn fp32_within_four_ulps_or_the_absolute_floor() {
        // 16.0 = 0x4180_0000; one ULP there is 2^-19 (about 1.9e-6, above the 1e-6 floor).
        let sixteen_plus = |n: u32| f32::from_bits(0x4180_0000 + n);
        assert_eq!(
            compare(sixteen_plus(4), 16.0, Class::Fp32, &t()).0,
            Verdict::Within
        );
        let (v, e) = compare(sixteen_plus(5), 16.0, Class::Fp32, &t());
        assert_eq!(v, Verdict::Diverged);
        assert_eq!(e.ulps, 5);
        assert_eq!(e.score, 5.0 / 4.0);
        assert_eq!(e.abs, 5.0 / f64::from(1u32 << 19));
        // Near 1.0 the 1e-6 floor is about 8 ULPs.
        assert_eq!(
            compare(f32::from_bits(0x3F80_0008), 1.0, Class::Fp32, &t()).0,
            Verdict::Within
        );
        assert_eq!(
            compare(f32::from_bits(0x3F80_0009), 1.0, Class::Fp32, &t()).0,
            Verdict::Diverged
        );
        // Tiny values: far apart in ULPs but within 1e-6 absolute.
        assert_eq!(compare(1e-9, -1e-9, Class::Fp32, &t()).0, Verdict::Within);
        assert_eq!(compare(2e-6, 0.0, Class::Fp32, &t()).0, Verdict::Diverged);
    }

    #[test]
    fn nan_and_infinity_policy() {
        let strict = t();
        assert_eq!(
            compare(f32::NAN, -f32::NAN, Class::Fp32, &strict).0,
            Verdict::Within
        );
        assert_eq!(
            compare(f32::NAN, 0.0, Class::Fp32, &strict).0,
            Verdict::Diverged
        );
        assert_eq!(
            compare(1.0, f32::NAN, Class::Fp16, &strict).0,
            Verdict::Diverged
        );
        let ignore = Tolerances::parse("nan=ignore").unwrap();
        assert_eq!(
            compare(f32::NAN, 0.0, Class::Fp32, &ignore).0,
            Verdict::NanIgnored
        );
        assert_eq!(
            compare(f32::INFINITY, f32::INFINITY, Class::Fp32, &strict).0,
            Verdict::Within
        );
        assert_eq!(
            compare(f32::INFINITY, f32::MAX, Class::Fp32, &strict).0,
            Verdict::Diverged
        );
        assert_eq!(
            compare(-f32::INFINITY, f32::INFINITY, Class::Fp32, &strict).0,
            Verdict::Diverged
        );
        let ulp = Tolerances::parse("inf=ulp").unwrap();
        assert_eq!(
            compare(f32::INFINITY, f32::MAX, Class::Fp32, &ulp).0,
            Verdict::Within
        );
    }

    #[test]
    fn flushed_denormals_match_only_when_allowed() {
        let d = f32::from_bits(0x0000_0400);
        let exact = Tolerances::parse("abs=0,denormals=exact").unwrap();
        assert_eq!(compare(0.0, d, Class::Fp32, &exact).0, Verdict::Diverged);
        let flush = Tolerances::parse("abs=0").unwrap();
        assert_eq!(compare(0.0, d, Class::Fp32, &flush).0, Verdict::Within);
    }

    #[test]
    fn fx12_is_absolute() {
        assert_eq!(
            compare(0.5, 0.5 + 1.0 / 4096.0, Class::Fx12, &t()).0,
            Verdict::Within
        );
        assert_eq!(
            compare(0.5, 0.5 + 1.0 / 1024.0, Class::Fx12, &t()).0,
            Verdict::Diverged
        );
    }

    #[test]
    fn tally_counts_and_marks_ill_conditioned() {
        let mut r = RegisterTally::new("HPOS", Class::Fp32);
        let s = |element, gpu, reference, reference_f64| Sample {
            element,
            pixel: None,
            component: 1,
            gpu,
            reference,
            reference_f64,
            perturbed: [None; PERTURBED_RUNS],
        };
        assert_eq!(r.add(s(0, 1.0, 1.0, 1.0), &t()), Verdict::Within);
        assert_eq!(r.add(s(1, 2.0, 1.0, 1.0), &t()), Verdict::Diverged);
        // f32 and f64 disagree (cancellation): a mismatch is ill-conditioned.
        assert_eq!(r.add(s(2, 5.0, 1.0, 3.0), &t()), Verdict::Within);
        assert_eq!(r.add(s(3, 1.5, 1.0, 1.0), &t()), Verdict::Diverged);
        // f32 and f64 agree but nudged inputs move the value (a texel boundary).
        let nudged = Sample {
            perturbed: [None, Some(0.5), None, None, None, None],
            ..s(4, 0.5, 1.0, 1.0)
        };
        assert_eq!(r.add(nudged, &t()), Verdict::Within);
        assert_eq!((r.compared, r.diverged, r.ill_conditioned), (5, 2, 2));
        let w = r.worst.unwrap();
        assert_eq!(
            (w.element, w.component, w.gpu, w.diverged),
            (1, 1, 2.0, true)
        );
    }
}
