//! The SIN/COS argument reduction the recompiled fragment and vertex programs apply before the
//! device's `sin`/`cos`, whose accuracy Vulkan bounds only on [-π, π]: `x − k · 2π` with
//! `k = round(x / 2π)` and 2π in three f32 parts (Cody and Waite), so that a device agrees with
//! the interpreters' exact functions for arguments of thousands of radians (ps3autotests'
//! hash functions take them; a vertex program animating with time does too).

/// The reduction for one value (`rsx_reduce_2pi`) and for four (`rsx_reduce_2pi4`), by name
/// (for the helper libraries of `fragment` and `vertex`).
pub(crate) const LIBRARY: &[(&str, &str)] = &[
    (
        "rsx_reduce_2pi",
        r#"
// x - k * 2pi, k = round(x / 2pi), with 2pi split in three f32 parts (Cody and Waite):
// P1 = 6.283203125 and P2 = -1.7814338e-5 have 12 significant bits, so k * P1 and k * P2 are
// exact for |k| < 2^12 (|x| up to about 25000); P3 = -3.4822065e-9 carries the rest.
fn rsx_reduce_2pi(x: f32) -> f32 {
    let k = round(x * bitcast<f32>(0x3e22f983u));
    return ((x - k * bitcast<f32>(0x40c91000u)) - k * bitcast<f32>(0xb7957000u)) - k * bitcast<f32>(0xb16f4ba0u);
}
"#,
    ),
    (
        "rsx_reduce_2pi4",
        r#"
// rsx_reduce_2pi of each component.
fn rsx_reduce_2pi4(x: vec4<f32>) -> vec4<f32> {
    let k = round(x * bitcast<f32>(0x3e22f983u));
    return ((x - k * bitcast<f32>(0x40c91000u)) - k * bitcast<f32>(0xb7957000u)) - k * bitcast<f32>(0xb16f4ba0u);
}
"#,
    ),
];
