//! The fixed WGSL of fragment modules: the `FpInputs`/`FpResult` structs of ABI.md (in every
//! module) and the library of helper functions the emitted body may call (binary16
//! conversion, NaN-safe clamps, rounding, pack/unpack, quad reductions), of which a module
//! carries only those it calls.
//!
//! Every helper is branch-free (`select` only) so that calling it never makes the caller's
//! control flow non-uniform in naga's analysis, and every helper that must agree with the
//! reference interpreter bit for bit works on integer bit patterns instead of relying on
//! WGSL built-ins whose rounding or NaN behaviour is implementation-defined.

/// The ABI structs of `rsx_fragment` (ABI.md), in every module.
pub const STRUCTS: &str = r#"struct FpInputs {
    attr: array<vec4<f32>, 15>,
}

struct FpResult {
    colors: array<vec4<f32>, 4>,
    depth: f32,
    killed: bool,
}
"#;

/// The helper functions, by name, independent of the program and the options; a module
/// carries those its body calls (`crate::helpers::append_used`).
pub const LIBRARY: &[(&str, &str)] = &[
    (
        "rsx_isnan",
        r#"
// NaN test on the bits: WGSL lets implementations assume NaNs away in float comparisons.
fn rsx_isnan(v: vec4<f32>) -> vec4<bool> {
    return (bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u);
}
"#,
    ),
    (
        "rsx_isnan1",
        r#"
fn rsx_isnan1(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}
"#,
    ),
    (
        "rsx_f2h",
        r#"
// f32 -> binary16 bits: round to nearest even, overflow to +-inf, NaN kept quiet with the top
// mantissa bits (the behaviour of the `half` crate the interpreter uses, IEEE 754
// convertFormat). pack2x16float is not used: WGSL leaves its rounding and overflow open.
fn rsx_f2h(v: f32) -> u32 {
    let x = bitcast<u32>(v);
    let sign = (x >> 16u) & 0x8000u;
    let exp = (x >> 23u) & 0xffu;
    let man = x & 0x7fffffu;
    let special = sign | 0x7c00u | select(0u, 0x200u | (man >> 13u), man != 0u);
    let he = i32(exp) - 112;
    // Normal result.
    let hn = sign | (u32(max(he, 1)) << 10u) | (man >> 13u);
    let rn = select(0u, 1u, (man & 0x1000u) != 0u && (man & 0x2fffu) != 0u);
    let normal = hn + rn;
    // Subnormal result (he in -10..0); shift 14..24.
    let sh = u32(clamp(14 - he, 14, 24));
    let m = man | 0x800000u;
    let rb = 1u << (sh - 1u);
    let rs = select(0u, 1u, (m & rb) != 0u && (m & (3u * rb - 1u)) != 0u);
    let sub = select(sign | ((m >> sh) + rs), sign, 14 - he > 24);
    let finite = select(normal, sub, he <= 0);
    return select(select(finite, sign | 0x7c00u, he >= 31), special, exp == 0xffu);
}
"#,
    ),
    (
        "rsx_f2h_tz",
        r#"
// f32 -> binary16 bits rounded toward zero, as the RSX converts (rsx-microcode.md B.9; the
// interpreter's `precision::half_bits_truncated`): |v| >= 2^-14 keeps the top 10 mantissa
// bits; below, trunc(|v| * 2^24) on the subnormal grid; magnitudes beyond 65504 give 65504
// (unverified on hardware); Inf and NaN as rsx_f2h.
fn rsx_f2h_tz(v: f32) -> u32 {
    let x = bitcast<u32>(v);
    let sign = (x >> 16u) & 0x8000u;
    let exp = (x >> 23u) & 0xffu;
    let man = x & 0x7fffffu;
    let special = sign | 0x7c00u | select(0u, 0x200u | (man >> 13u), man != 0u);
    let normal = sign | ((max(exp, 113u) - 112u) << 10u) | (man >> 13u);
    // (1.m * 2^(exp-127)) * 2^24 = (m | 2^23) >> (126 - exp) for exp in 102..=112.
    let down = 126u - min(exp, 126u);
    let sub = sign | select((man | 0x800000u) >> min(down, 31u), 0u, exp == 0u || down > 24u);
    let finite = select(sub, normal, exp >= 113u);
    return select(select(finite, sign | 0x7bffu, exp >= 143u), special, exp == 0xffu);
}
"#,
    ),
    (
        "rsx_h2f",
        r#"
// binary16 bits (low 16 bits of h) -> f32, exact; NaN keeps its payload with the quiet bit set.
fn rsx_h2f(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    let special = sign | 0x7f800000u | select(0u, 0x400000u | (m << 13u), m != 0u);
    let p = firstLeadingBit(max(m, 1u));
    let sub = select(sign | ((p + 103u) << 23u) | ((m << (23u - p)) & 0x7fffffu), sign, m == 0u);
    let normal = sign | ((e + 112u) << 23u) | (m << 13u);
    return bitcast<f32>(select(select(normal, sub, e == 0u), special, e == 0x1fu));
}
"#,
    ),
    (
        "rsx_f2h4",
        r#"
fn rsx_f2h4(v: vec4<f32>) -> vec4<u32> {
    return vec4<u32>(rsx_f2h(v.x), rsx_f2h(v.y), rsx_f2h(v.z), rsx_f2h(v.w));
}
"#,
    ),
    (
        "rsx_rd_h",
        r#"
// H register read: two 32-bit words of the shared file hold four binary16 halves, x in the low
// half of the first word (rsx-microcode.md B.3).
fn rsx_rd_h(w: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(rsx_h2f(w.x & 0xffffu), rsx_h2f(w.x >> 16u), rsx_h2f(w.y & 0xffffu), rsx_h2f(w.y >> 16u));
}
"#,
    ),
    (
        "rsx_wr_h",
        r#"
// H register write of the components selected by m; the other halves keep their bits.
fn rsx_wr_h(old: vec2<u32>, v: vec4<f32>, m: vec4<bool>) -> vec2<u32> {
    let cur = vec4<u32>(old.x & 0xffffu, old.x >> 16u, old.y & 0xffffu, old.y >> 16u);
    let n = select(cur, rsx_f2h4(v), m);
    return vec2<u32>(n.x | (n.y << 16u), n.z | (n.w << 16u));
}
"#,
    ),
    (
        "rsx_clamp0",
        r#"
// NaN -> 0, then clamp to [lo, hi] (saturate and the fixed-point precisions, B.2).
fn rsx_clamp0(v: vec4<f32>, lo: f32, hi: f32) -> vec4<f32> {
    return select(clamp(v, vec4<f32>(lo), vec4<f32>(hi)), vec4<f32>(0.0), rsx_isnan(v));
}
"#,
    ),
    (
        "rsx_sat",
        r#"
fn rsx_sat(v: vec4<f32>) -> vec4<f32> {
    return rsx_clamp0(v, 0.0, 1.0);
}
"#,
    ),
    (
        "rsx_quant",
        r#"
// Quantised fixed point: clamp, then round to a multiple of 1/scale, ties to even (WGSL
// round() is ties-to-even; the products are exact powers-of-two scalings).
fn rsx_quant(v: vec4<f32>, lo: f32, hi: f32, scale: f32) -> vec4<f32> {
    return round(rsx_clamp0(v, lo, hi) * scale) / scale;
}
"#,
    ),
    (
        "rsx_min_num",
        r#"
// IEEE minNum/maxNum: the other operand when one is NaN (Rust f32::min/max).
fn rsx_min_num(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return select(select(min(a, b), a, rsx_isnan(b)), b, rsx_isnan(a));
}
"#,
    ),
    (
        "rsx_max_num",
        r#"
fn rsx_max_num(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return select(select(max(a, b), a, rsx_isnan(b)), b, rsx_isnan(a));
}
"#,
    ),
    (
        "rsx_nan_either",
        r#"
fn rsx_nan_either(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> {
    return rsx_isnan(a) | rsx_isnan(b);
}
"#,
    ),
    (
        "rsx_round_away",
        r#"
// Round half away from zero (GLSL pack functions / Rust f32::round), exact below 2^23.
fn rsx_round_away(x: f32) -> f32 {
    let ax = abs(x);
    let r = floor(ax);
    return sign(x) * (r + select(0.0, 1.0, ax - r >= 0.5));
}
"#,
    ),
    (
        "rsx_pack_comp",
        r#"
fn rsx_pack_comp(v: f32, lo: f32, hi: f32, scale: f32, mask: u32) -> u32 {
    let c = select(clamp(v, lo, hi), 0.0, rsx_isnan1(v));
    return bitcast<u32>(i32(rsx_round_away(c * scale))) & mask;
}
"#,
    ),
    (
        "rsx_pack_unorm4x8",
        r#"
fn rsx_pack_unorm4x8(v: vec4<f32>) -> u32 {
    return rsx_pack_comp(v.x, 0.0, 1.0, 255.0, 0xffu)
        | (rsx_pack_comp(v.y, 0.0, 1.0, 255.0, 0xffu) << 8u)
        | (rsx_pack_comp(v.z, 0.0, 1.0, 255.0, 0xffu) << 16u)
        | (rsx_pack_comp(v.w, 0.0, 1.0, 255.0, 0xffu) << 24u);
}
"#,
    ),
    (
        "rsx_pack_snorm4x8",
        r#"
fn rsx_pack_snorm4x8(v: vec4<f32>) -> u32 {
    return rsx_pack_comp(v.x, -1.0, 1.0, 127.0, 0xffu)
        | (rsx_pack_comp(v.y, -1.0, 1.0, 127.0, 0xffu) << 8u)
        | (rsx_pack_comp(v.z, -1.0, 1.0, 127.0, 0xffu) << 16u)
        | (rsx_pack_comp(v.w, -1.0, 1.0, 127.0, 0xffu) << 24u);
}
"#,
    ),
    (
        "rsx_unpack_unorm4x8",
        r#"
fn rsx_unpack_unorm4x8(b: u32) -> vec4<f32> {
    return vec4<f32>(f32(b & 0xffu), f32((b >> 8u) & 0xffu), f32((b >> 16u) & 0xffu), f32(b >> 24u)) / 255.0;
}
"#,
    ),
    (
        "rsx_unpack_snorm4x8",
        r#"
fn rsx_unpack_snorm4x8(b: u32) -> vec4<f32> {
    let i = bitcast<i32>(b);
    let v = vec4<f32>(f32(extractBits(i, 0u, 8u)), f32(extractBits(i, 8u, 8u)), f32(extractBits(i, 16u, 8u)), f32(extractBits(i, 24u, 8u)));
    return max(v / 127.0, vec4<f32>(-1.0));
}
"#,
    ),
    (
        "rsx_to_srgb",
        r#"
// Linear -> sRGB (PKG) and sRGB -> linear (UPG), rsx-microcode.md B.7.
fn rsx_to_srgb(c: f32) -> f32 {
    let z = select(c, 0.0, rsx_isnan1(c));
    return select(1.055 * pow(c, 0.41666666) - 0.055, 12.92 * z, rsx_isnan1(c) || c <= 0.0031308);
}
"#,
    ),
    (
        "rsx_from_srgb",
        r#"
fn rsx_from_srgb(c: f32) -> f32 {
    return select(pow((c + 0.055) / 1.055, 2.4), c / 12.92, c <= 0.04045);
}
"#,
    ),
    (
        "rsx_quad_any",
        r#"
// Whether b holds in any lane of the 2x2 quad, from fine derivatives of 0/1 values (exact):
// a row partner differs where dpdxFine != 0, and the column step covers the other row.
fn rsx_quad_any(b: bool) -> bool {
    let f = select(0.0, 1.0, b);
    let row = select(0.0, 1.0, b || dpdxFine(f) != 0.0);
    return row != 0.0 || dpdyFine(row) != 0.0;
}
"#,
    ),
];

/// `rsx_hrt`, the binary16 round trip of fp16 destinations and modifiers rounding to nearest
/// even (RPCS3, `HalfRounding::Nearest`), with integer operations (bit-exact with the
/// interpreter).
pub const HALF_EXACT: &str = r#"
// Round trip through binary16 (fp16 destination, fp16 source modifier).
fn rsx_hrt(v: vec4<f32>) -> vec4<f32> {
    let b = rsx_f2h4(v);
    return vec4<f32>(rsx_h2f(b.x), rsx_h2f(b.y), rsx_h2f(b.z), rsx_h2f(b.w));
}
"#;

/// `rsx_hrt` truncating toward zero, as the RSX converts fp32 to fp16 (rsx-microcode.md B.9),
/// with integer operations (bit-exact with the interpreter's `HalfRounding::Truncate`).
pub const HALF_TRUNCATE: &str = r#"
// Conversion to binary16 and back, rounding toward zero (fp16 destination, fp16 source modifier).
fn rsx_hrt(v: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(rsx_h2f(rsx_f2h_tz(v.x)), rsx_h2f(rsx_f2h_tz(v.y)), rsx_h2f(rsx_f2h_tz(v.z)), rsx_h2f(rsx_f2h_tz(v.w)));
}
"#;

/// `rsx_hrt` with the native f16 conversion (`enable f16;`) for finite values that stay finite;
/// values that round to infinity (|v| >= 65520) and NaNs are handled on the bits, because
/// WGSL makes an out-of-range conversion indeterminate. The rounding of in-range values is
/// the device's (WGSL: implementation-defined).
pub const HALF_NATIVE: &str = r#"
fn rsx_hrt(v: vec4<f32>) -> vec4<f32> {
    let b = bitcast<vec4<u32>>(v);
    let nan = rsx_isnan(v);
    let special = nan | (abs(v) >= vec4<f32>(65520.0));
    let n = vec4<f32>(vec4<f16>(select(v, vec4<f32>(0.0), special)));
    let inf = (b & vec4<u32>(0x80000000u)) | vec4<u32>(0x7f800000u);
    let qnan = (b & vec4<u32>(0xffffe000u)) | vec4<u32>(0x400000u);
    return select(n, bitcast<vec4<f32>>(select(inf, qnan, nan)), special);
}
"#;
