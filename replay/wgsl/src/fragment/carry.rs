//! The bits the RSX's fp16 truncation sees of an arithmetic result, in WGSL: the result
//! carried to 26 significant bits, not its f32 rounding (docs/arithmetic.md "The bits fp16
//! truncation sees"; the interpreter's `interp::fragment::carry`).
//!
//! Where an H destination's f32 result `r` of MUL, ADD or MAD is exactly a binary16 value,
//! the exact result may lie a hair below it; the hardware truncates it to the binary16 value
//! under `r` unless it lies within half a 26-bit step. The module computes the exact
//! result's excess over `r` with error-free transformations, which need every operation
//! rounded to nearest (what WGSL requires of `+`, `-` and `*`): the product's error by
//! Dekker's TwoProduct with Veltkamp's split, not by `fma` (SPIR-V lets a driver evaluate
//! `fma` as a product and a sum, and lavapipe does); sums' errors by Dekker's Fast2Sum with
//! the operands ordered by magnitude, not Knuth's TwoSum (its `(a + b) - a` is open to a
//! driver's algebraic simplification to `b`; with it lavapipe carried none of test5's MADs). It
//! moves `r` one f32 step toward zero where the excess is below minus half a step, so that
//! `rsx_hrt`'s truncation gives what the interpreter's does
//! (`replay/tests/gpu_fragment_ops.rs`, `carried_fp16_results_match_the_interpreter`).

use rsxtrace_program::fragment::FpOpcode;
pub use rsxtrace_semantics::fragment::{carries, CARRY_BITS};

/// The WGSL expression of the result `v` (scaled by `scale`, a power of two) carried for
/// the truncation, from the sources `s0`..`s2` of `op`.
pub fn expression(op: FpOpcode, fused_mad: bool, v: &str, scale: f32) -> String {
    let excess = match op {
        FpOpcode::Mul => format!("rsx_excess_mul(s0, s1, {v})"),
        FpOpcode::Add => format!("rsx_excess_add(s0, s1, {v})"),
        FpOpcode::Mad if fused_mad => format!("rsx_excess_fma(s0, s1, s2, {v})"),
        _ => format!("rsx_excess_mad(s0, s1, s2, {v})"),
    };
    if scale == 1.0 {
        format!("rsx_carry({v}, {excess})")
    } else {
        format!("rsx_carry({v} * {scale:?}, {excess} * {scale:?})")
    }
}

/// The helpers, by name (`crate::helpers::append_used`).
pub const LIBRARY: &[(&str, &str)] = &[
    (
        "rsx_two_sum_err",
        r#"
// a + b - s exactly, for s = a + b rounded to nearest: Dekker's Fast2Sum with the operands
// ordered by magnitude (Knuth's TwoSum computes (a + b) - a, which a driver may simplify).
fn rsx_two_sum_err(a: vec4<f32>, b: vec4<f32>, s: vec4<f32>) -> vec4<f32> {
    let a_big = abs(a) >= abs(b);
    let big = select(b, a, a_big);
    let small = select(a, b, a_big);
    return small - (s - big);
}
"#,
    ),
    (
        "rsx_split_hi",
        r#"
// Veltkamp's split: the high 12 bits of a (a minus them is exact in f32).
fn rsx_split_hi(a: vec4<f32>) -> vec4<f32> {
    let c = a * 4097.0;
    return c - (c - a);
}
"#,
    ),
    (
        "rsx_excess_mul",
        r#"
// Dekker's TwoProduct: a * b - r exactly, for r = a * b rounded to nearest. Not with fma:
// SPIR-V lets a driver evaluate fma as a product and a sum (lavapipe does).
fn rsx_excess_mul(a: vec4<f32>, b: vec4<f32>, r: vec4<f32>) -> vec4<f32> {
    let ah = rsx_split_hi(a);
    let al = a - ah;
    let bh = rsx_split_hi(b);
    let bl = b - bh;
    return ((ah * bh - r) + ah * bl + al * bh) + al * bl;
}
"#,
    ),
    (
        "rsx_excess_add",
        r#"
fn rsx_excess_add(a: vec4<f32>, b: vec4<f32>, r: vec4<f32>) -> vec4<f32> {
    return rsx_two_sum_err(a, b, r);
}
"#,
    ),
    (
        "rsx_excess_mad",
        r#"
// a * b + c - r for r = (a * b rounded) + c rounded: the product's error and the sum's.
fn rsx_excess_mad(a: vec4<f32>, b: vec4<f32>, c: vec4<f32>, r: vec4<f32>) -> vec4<f32> {
    let p = a * b;
    return rsx_excess_mul(a, b, p) + rsx_two_sum_err(p, c, r);
}
"#,
    ),
    (
        "rsx_excess_fma",
        r#"
// a * b + c - r for r = fma(a, b, c) (Boldo and Muller's ErrFma: the excess to a few ulps of
// itself, ample for comparing it with half a 26-bit step).
fn rsx_excess_fma(a: vec4<f32>, b: vec4<f32>, c: vec4<f32>, r: vec4<f32>) -> vec4<f32> {
    let u1 = a * b;
    let u2 = rsx_excess_mul(a, b, u1);
    let a1 = c + u2;
    let z = rsx_two_sum_err(c, u2, a1);
    let b1 = u1 + a1;
    let b2 = rsx_two_sum_err(u1, a1, b1);
    return ((b1 - r) + b2) + z;
}
"#,
    ),
    (
        "rsx_carry",
        r#"
// r moved one f32 step toward zero where it is exactly a binary16 value and r + e (the exact
// result) lies below it in magnitude by more than half a 26-bit step of its binade, so that
// truncation to binary16 gives the value under r (docs/arithmetic.md).
fn rsx_carry(r: vec4<f32>, e: vec4<f32>) -> vec4<f32> {
    let b = bitcast<vec4<u32>>(r);
    let mag = b & vec4<u32>(0x7fffffffu);
    let exp = mag >> vec4<u32>(23u);
    let on_half = vec4<f32>(rsx_h2f(rsx_f2h_tz(r.x)), rsx_h2f(rsx_f2h_tz(r.y)), rsx_h2f(rsx_f2h_tz(r.z)), rsx_h2f(rsx_f2h_tz(r.w))) == r;
    // Half a 26-bit step of the exact result's binade: 2^(E - 26), one binade lower where |r|
    // is a power of two (the exact result then lies in the binade below).
    let pow2 = (mag & vec4<u32>(0x7fffffu)) == vec4<u32>(0u);
    let half_exp = vec4<i32>(exp) - vec4<i32>(26) - select(vec4<i32>(0), vec4<i32>(1), pow2);
    let half_step = bitcast<vec4<f32>>(vec4<u32>(clamp(half_exp, vec4<i32>(1), vec4<i32>(254))) << vec4<u32>(23u));
    // Below in magnitude: the excess has the opposite sign to r.
    let below = (sign(e) * sign(r) < vec4<f32>(0.0)) & (abs(e) > half_step);
    let normal = (exp >= vec4<u32>(1u)) & (exp <= vec4<u32>(254u)) & (mag != vec4<u32>(0u));
    return select(r, bitcast<vec4<f32>>(b - vec4<u32>(1u)), on_half & below & normal);
}
"#,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The helper's half step is written out in WGSL: it must be the shared rule's width.
    #[test]
    fn the_half_step_uses_the_shared_carry_width() {
        let (_, carry) = LIBRARY
            .iter()
            .find(|(name, _)| *name == "rsx_carry")
            .unwrap();
        assert!(
            carry.contains(&format!("- vec4<i32>({CARRY_BITS}) -")),
            "{carry}"
        );
    }
}
