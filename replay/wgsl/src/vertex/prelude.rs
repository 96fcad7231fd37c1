//! The fixed parts of every vertex module: the ABI declarations (`replay/wgsl/ABI.md`: result
//! struct, bindings, the `vp_compute` and `vp_main` entry points), and the library of
//! arithmetic helper functions, whose bodies depend on the options (a module carries those its
//! code calls). Each helper reproduces one function of the
//! interpreter's `replay/src/interp/vertex/math.rs` (named in its comment) component by
//! component, with explicit NaN selects where the interpreter defines NaN behaviour.

use super::options::{
    Lg2Guard, MinMaxNan, RccClamp, RsqGuard, SaturateNan, VertexTranslateOptions,
};

/// An f32 constant the interpreter builds with `T::from_f64(v)` (decimal → f64 → f32), as a
/// WGSL `f32` literal: the shortest decimal that reads back as the same f32.
pub(crate) fn f32_literal(v: f64) -> String {
    let f = v as f32;
    let s = format!("{f:?}");
    if s.contains(['.', 'e', 'E']) {
        format!("{s}f")
    } else {
        format!("{s}.0f")
    }
}

/// 2^-64 and 2^64: the NV_vertex_program1_1 RCC magnitude bounds (rsx-microcode.md B.8).
const RCC_SPEC_MIN: f64 = 5.421_010_862_427_522e-20;
const RCC_SPEC_MAX: f64 = 1.844_674_407_370_955_2e19;
/// RPCS3's literal RCC bounds (`VertexProgramDecompiler.cpp`).
const RCC_RPCS3_MIN: f64 = 5.42101e-20;
const RCC_RPCS3_MAX: f64 = 1.884467e19;
/// RPCS3 `NotZeroPositive`: max(x, 1e-10) guard of RSQ, LG2 and LIT.
const GUARD: f64 = 1e-10;

/// Declarations shared by every vertex module (ABI.md "Vertex programs").
pub(crate) const DECLARATIONS: &str = "\
struct VpResult {
    regs: array<vec4<f32>, 16>,
    written: u32,
}

struct VpParams {
    vertex_count: u32,
    branch_bits: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> vp_constants: array<vec4<f32>, 468>;
@group(0) @binding(1) var<uniform> vp_params: VpParams;
@group(0) @binding(2) var<storage, read> vp_inputs: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> vp_outputs: array<vec4<f32>>;
";

/// The vertex texture units `units` (bit u = unit u) a module's TXL instructions sample, in
/// group 2 (ABI.md "Vertex textures"): unit u's texture at binding 2u, its sampler at 2u + 1.
/// A 1D unit is declared 2D (see [`super::VertexTextureUnits::dims`]).
pub(crate) fn texture_declarations(units: u8, textures: &super::VertexTextureUnits) -> String {
    use super::TextureDim;
    let mut s = String::new();
    for u in 0..super::VERTEX_TEXTURE_UNITS {
        if units & (1 << u) == 0 {
            continue;
        }
        let ty = match textures.dims[u] {
            TextureDim::D1 | TextureDim::D2 => "texture_2d<f32>",
            TextureDim::D3 => "texture_3d<f32>",
            TextureDim::Cube => "texture_cube<f32>",
        };
        s.push_str(&format!(
            "@group(2) @binding({}) var rsx_vtex{u}: {ty};\n@group(2) @binding({}) var rsx_vsmp{u}: sampler;\n",
            2 * u,
            2 * u + 1
        ));
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// The entry points (ABI.md): compute over storage buffers, and the render vertex stage.
pub(crate) const ENTRY_POINTS: &str = "\
@compute @workgroup_size(64)
fn vp_compute(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    if (v >= vp_params.vertex_count) {
        return;
    }
    var inp: array<vec4<f32>, 16>;
    for (var a = 0u; a < 16u; a += 1u) {
        inp[a] = vp_inputs[v * 16u + a];
    }
    var r = rsx_vertex(inp);
    for (var k = 0u; k < 16u; k += 1u) {
        vp_outputs[v * 17u + k] = r.regs[k];
    }
    vp_outputs[v * 17u + 16u] = vec4<f32>(bitcast<f32>(r.written), 0.0, 0.0, 0.0);
}

struct VpVaryings {
    @builtin(position) hpos: vec4<f32>,
    @location(0) col0: vec4<f32>,
    @location(1) col1: vec4<f32>,
    @location(2) bfc0: vec4<f32>,
    @location(3) bfc1: vec4<f32>,
    @location(4) fogc: vec4<f32>,
    @location(5) tex0: vec4<f32>,
    @location(6) tex1: vec4<f32>,
    @location(7) tex2: vec4<f32>,
    @location(8) tex3: vec4<f32>,
    @location(9) tex4: vec4<f32>,
    @location(10) tex5: vec4<f32>,
    @location(11) tex6: vec4<f32>,
    @location(12) tex7: vec4<f32>,
    @location(13) tex8: vec4<f32>,
    @location(14) psz: vec4<f32>,
}

@vertex
fn vp_main(
    @location(0) a0: vec4<f32>, @location(1) a1: vec4<f32>, @location(2) a2: vec4<f32>,
    @location(3) a3: vec4<f32>, @location(4) a4: vec4<f32>, @location(5) a5: vec4<f32>,
    @location(6) a6: vec4<f32>, @location(7) a7: vec4<f32>, @location(8) a8: vec4<f32>,
    @location(9) a9: vec4<f32>, @location(10) a10: vec4<f32>, @location(11) a11: vec4<f32>,
    @location(12) a12: vec4<f32>, @location(13) a13: vec4<f32>, @location(14) a14: vec4<f32>,
    @location(15) a15: vec4<f32>,
) -> VpVaryings {
    let r = rsx_vertex(array<vec4<f32>, 16>(
        a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15));
    var v: VpVaryings;
    v.hpos = r.regs[0];
    v.col0 = r.regs[1];
    v.col1 = r.regs[2];
    v.bfc0 = r.regs[3];
    v.bfc1 = r.regs[4];
    v.fogc = r.regs[5];
    v.psz = r.regs[6];
    v.tex0 = r.regs[7];
    v.tex1 = r.regs[8];
    v.tex2 = r.regs[9];
    v.tex3 = r.regs[10];
    v.tex4 = r.regs[11];
    v.tex5 = r.regs[12];
    v.tex6 = r.regs[13];
    v.tex7 = r.regs[14];
    v.tex8 = r.regs[15];
    return v;
}
";

/// The helpers whose text does not depend on the options, by name.
const FIXED: &[(&str, &str)] = &[
    (
        "rsx_isnan",
        "
fn rsx_isnan(v: vec4<f32>) -> vec4<bool> {
    return (bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u);
}
",
    ),
    (
        "rsx_isnan1",
        "
fn rsx_isnan1(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}
",
    ),
    (
        "rsx_max_num",
        "
fn rsx_max_num(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return select(a, b, rsx_isnan(a) | (b > a));
}
",
    ),
    (
        "rsx_min_num",
        "
fn rsx_min_num(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return select(a, b, rsx_isnan(a) | (b < a));
}
",
    ),
    (
        "rsx_max_num1",
        "
fn rsx_max_num1(a: f32, b: f32) -> f32 {
    return select(a, b, rsx_isnan1(a) || (b > a));
}
",
    ),
    (
        "rsx_min_num1",
        "
fn rsx_min_num1(a: f32, b: f32) -> f32 {
    return select(a, b, rsx_isnan1(a) || (b < a));
}
",
    ),
    (
        "rsx_dot3",
        "
// math.rs dot3: left to right, each product rounded.
fn rsx_dot3(a: vec4<f32>, b: vec4<f32>) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
",
    ),
    (
        "rsx_ssg",
        "
// math.rs SSG: -1 / +0 / +1, NaN kept. On the bits: lavapipe folded the float form into a
// sign() that gave -0 for +0.
fn rsx_ssg(x: vec4<f32>) -> vec4<f32> {
    let b = bitcast<vec4<u32>>(x);
    let m = b & vec4<u32>(0x7fffffffu);
    let one = (b & vec4<u32>(0x80000000u)) | vec4<u32>(0x3f800000u);
    let r = select(select(one, vec4<u32>(0u), m == vec4<u32>(0u)), b, m > vec4<u32>(0x7f800000u));
    return bitcast<vec4<f32>>(r);
}
",
    ),
    (
        "rsx_f2i",
        "
// real.rs to_i32: saturating, NaN gives 0 (Rust `as i32`).
fn rsx_f2i(v: vec4<f32>) -> vec4<i32> {
    let c = clamp(v, vec4<f32>(-2147483648.0), vec4<f32>(2147483520.0));
    return select(vec4<i32>(c), vec4<i32>(0), rsx_isnan(v));
}
",
    ),
    (
        "rsx_exp_spec",
        "
// math.rs EXP (NV): (2^floor(x), x - floor(x), 2^x, 1).
fn rsx_exp_spec(x: f32) -> vec4<f32> {
    let f = floor(x);
    return vec4<f32>(exp2(f), x - f, exp2(x), 1.0);
}
",
    ),
    (
        "rsx_log_spec",
        "
// math.rs LOG (NV): (floor(log2|x|), |x| / 2^floor(log2|x|), log2|x|, 1).
fn rsx_log_spec(x: f32) -> vec4<f32> {
    let m = abs(x);
    let l = log2(m);
    let e = floor(l);
    return vec4<f32>(e, m / exp2(e), l, 1.0);
}
",
    ),
];

/// The helper functions for `o`, by name; a module carries those its code calls
/// (`crate::helpers::append_used`).
pub(crate) fn helpers(o: &VertexTranslateOptions) -> Vec<(&'static str, String)> {
    let guard = f32_literal(GUARD);
    // math.rs max_num/min_num: a NaN first operand, or a larger (smaller) second one, gives the
    // second operand. NaN is tested on the bits: WGSL lets an implementation assume NaNs away
    // in float comparisons, and lavapipe does (`x != x` is false for a NaN x there, measured
    // by replay/tests/gpu_vertex_ops.rs).
    let mut lib: Vec<(&'static str, String)> =
        FIXED.iter().map(|(n, t)| (*n, (*t).to_string())).collect();
    // math.rs min_max with MinMaxNan.
    let (max, min) = match o.min_max_nan {
        MinMaxNan::OtherOperand => ("rsx_max_num(a, b)", "rsx_min_num(a, b)"),
        MinMaxNan::Propagate => (
            "select(select(rsx_max_num(a, b), b, rsx_isnan(b)), a, rsx_isnan(a))",
            "select(select(rsx_min_num(a, b), b, rsx_isnan(b)), a, rsx_isnan(a))",
        ),
    };
    lib.push((
        "rsx_max",
        format!(
            "\nfn rsx_max(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {{\n    return {max};\n}}\n"
        ),
    ));
    lib.push((
        "rsx_min",
        format!(
            "\nfn rsx_min(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {{\n    return {min};\n}}\n"
        ),
    ));
    // math.rs saturate: below 0 -> 0, above 1 -> 1 (no clamp(), so -0.0 stays -0.0).
    let nan = match o.saturate_nan {
        SaturateNan::Zero => "select(v, vec4<f32>(0.0), rsx_isnan(v))",
        SaturateNan::Keep => "v",
    };
    lib.push((
        "rsx_sat",
        format!(
            "
fn rsx_sat(v: vec4<f32>) -> vec4<f32> {{
    let c = {nan};
    return select(select(c, vec4<f32>(1.0), c > vec4<f32>(1.0)), vec4<f32>(0.0), c < vec4<f32>(0.0));
}}
"
        ),
    ));
    // math.rs rcc.
    let rcc = match o.rcc {
        RccClamp::Rpcs3 => format!(
            "
fn rsx_rcc(x: vec4<f32>) -> vec4<f32> {{
    let r = vec4<f32>(1.0) / x;
    return rsx_min_num(rsx_max_num(r, vec4<f32>({})), vec4<f32>({}));
}}
",
            f32_literal(RCC_RPCS3_MIN),
            f32_literal(RCC_RPCS3_MAX)
        ),
        RccClamp::SignedMagnitude => format!(
            "
fn rsx_rcc(x: vec4<f32>) -> vec4<f32> {{
    let r = vec4<f32>(1.0) / x;
    let m = rsx_min_num(rsx_max_num(abs(r), vec4<f32>({})), vec4<f32>({}));
    let neg = (r < vec4<f32>(0.0)) | ((r == vec4<f32>(0.0)) & ((vec4<f32>(1.0) / r) < vec4<f32>(0.0)));
    return select(select(m, -m, neg), r, rsx_isnan(r));
}}
",
            f32_literal(RCC_SPEC_MIN),
            f32_literal(RCC_SPEC_MAX)
        ),
    };
    lib.push(("rsx_rcc", rcc));
    let rsq = match o.rsq {
        RsqGuard::Abs => "abs(x)".to_string(),
        RsqGuard::Clamp => format!("rsx_max_num(x, vec4<f32>({guard}))"),
        RsqGuard::Raw => "x".to_string(),
    };
    let lg2 = match o.lg2 {
        Lg2Guard::Clamp => format!("rsx_max_num(x, vec4<f32>({guard}))"),
        Lg2Guard::Raw => "x".to_string(),
    };
    let lit_w = if o.lit_clamp_exponent {
        "rsx_min_num1(rsx_max_num1(s.w, -128.0), 128.0)"
    } else {
        "s.w"
    };
    lib.push((
        "rsx_rsq",
        format!(
            "
// math.rs scalar_fn RSQ (1/sqrt, not inverseSqrt, to keep the interpreter's rounding).
fn rsx_rsq(x: vec4<f32>) -> vec4<f32> {{
    return vec4<f32>(1.0) / sqrt({rsq});
}}
"
        ),
    ));
    lib.push((
        "rsx_lg2",
        format!(
            "
fn rsx_lg2(x: vec4<f32>) -> vec4<f32> {{
    return log2({lg2});
}}
"
        ),
    ));
    lib.push((
        "rsx_lit",
        format!(
            "
// math.rs lit: (1, max(x, 0), x > 0 ? pow(max(y, 1e-10), w) : 0, 1).
fn rsx_lit(s: vec4<f32>) -> vec4<f32> {{
    let w = {lit_w};
    let z = select(0.0, pow(rsx_max_num1(s.y, {guard}), w), s.x > 0.0);
    return vec4<f32>(1.0, rsx_max_num1(s.x, 0.0), z, 1.0);
}}
"
        ),
    ));
    lib
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f32 naga reads for `literal`.
    fn parsed(literal: &str) -> f32 {
        let src = format!("const X: f32 = {literal};");
        let m = naga::front::wgsl::parse_str(&src).expect("literal parses");
        let (_, c) = m.constants.iter().next().expect("one constant");
        match m.global_expressions[c.init] {
            naga::Expression::Literal(naga::Literal::F32(v)) => v,
            ref other => panic!("{literal}: {other:?}"),
        }
    }

    #[test]
    fn literals_read_back_as_the_interpreters_f32() {
        // `T::from_f64(v)` in the interpreter is `v as f32`.
        for v in [
            GUARD,
            RCC_RPCS3_MIN,
            RCC_RPCS3_MAX,
            RCC_SPEC_MIN,
            RCC_SPEC_MAX,
            128.0,
            0.0,
            -1.5,
        ] {
            let lit = f32_literal(v);
            assert_eq!(parsed(&lit).to_bits(), (v as f32).to_bits(), "{v} as {lit}");
        }
        // 2^-64 and 2^64 are exact in f32.
        assert_eq!((RCC_SPEC_MIN as f32).to_bits(), 0x1F80_0000);
        assert_eq!((RCC_SPEC_MAX as f32).to_bits(), 0x5F80_0000);
        assert_eq!(f32_literal(128.0), "128.0f");
    }
}
