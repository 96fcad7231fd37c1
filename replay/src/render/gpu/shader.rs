//! The render entry points wrapped around a recompiled fragment program: WGSL appended to the
//! fragment module (which holds `rsx_fragment` and its texture bindings, `replay/wgsl/ABI.md`)
//! giving one module with both render stages.
//!
//! - `rsx_render_vs` passes vertices through. Location 0 is the position in wgpu clip space:
//!   the viewport transform is done on the CPU exactly as the reference render does it, and the
//!   clip z is `w / 2` so that the device clips only `w <= 0` (as `raster::clip` does; x and y
//!   clipping only trims what lies outside the target). Locations 1..=k are the fragment
//!   inputs among 1..=13 (COL0, COL1, FOGC, TEX0..TEX9) that the program may read
//!   ([`passed_varyings`]), ascending, as `raster::varyings` routes them (two-sided colour and
//!   flat shading are resolved before upload); the inputs it never reads are not passed and
//!   read as zero. Location k+1 holds the facing (+1/−1) in x, the primitive's polygon offset
//!   in y and the pixel coverage of smooth primitives in z (1 otherwise; it multiplies the
//!   colour outputs' alpha) (flat), location k+2 the window z in x (interpolated linearly in
//!   screen space, as the reference rasterizer interpolates it).
//! - `rsx_render_fs` builds `FpInputs` (WPOS from the fragment position under the shader
//!   window rule of `raster::varyings::wpos` with the window offset taken back out, z = window
//!   z plus the polygon offset as in the reference render's `quads.rs`, w = the interpolated
//!   1/w; FACING flat; FOGC = `(c, factor(c), 0, 0)` with the fog factor computed here from
//!   the interpolated `c` by `raster::shading::FogRule::wgsl_factor`, since the exp equations
//!   do not interpolate linearly; a 2D texture coordinate as `(x, y, 0, clip w)`,
//!   `raster::apply_texcoord_2d`), runs `rsx_fragment`, discards killed fragments, applies the
//!   alpha test and the depth bounds test (on a copy of the depth target from before the
//!   draw, group 0), applies a logic operation to the colour outputs (with copies of the
//!   colour targets from before the draw), discards fragments the depth range clips
//!   (`SET_ZMIN_MAX_CONTROL`, with or without a depth target), and computes the stored depth
//!   itself (that z, or the exported depth; the depth-range clamp; then [0, 1]) and writes it
//!   as `frag_depth`. None of these is in the recompiled program: they
//!   are fixed function on the RSX.
//!
//! Everything that varies (alpha function and reference, the WPOS rule, the depth rules) is
//! baked into the source as literals: each variant is its own module and pipeline, cached by
//! its source.

use std::fmt::Write as _;

use rsxtrace_gpu::Compare;
use rsxtrace_wgsl::WgslModule;

use crate::raster::FogRule;
use crate::render::msaa::{alpha_to_coverage_wgsl, SampleMask};
use crate::render::state::{BlendSettings, DepthFormat};

/// Fragment inputs passed as varyings (1..=13: COL0, COL1, FOGC, TEX0..TEX9).
pub(crate) const VARYINGS: usize = 13;
/// Bits 1..=13 of an input mask: the inputs passed as varyings.
const VARYING_BITS: u16 = 0x3FFE;

/// The varyings passed for a program that reads the inputs `inputs_read` (bit n = input n,
/// `FragmentProgram::inputs_read`): only those, so that the device interpolates, and the CPU
/// builds and uploads, nothing the program never reads.
pub(crate) fn passed_varyings(inputs_read: u16) -> u16 {
    inputs_read & VARYING_BITS
}

/// The fragment inputs (1..=13) among `varyings`, ascending: the order of their vertex
/// attributes, from location 1.
pub(crate) fn varying_inputs(varyings: u16) -> impl Iterator<Item = usize> {
    (1..=VARYINGS).filter(move |n| varyings & (1 << n) != 0)
}

/// Vec4 attributes per vertex: position, the `varyings` passed, the facing, the window z.
pub(crate) fn vertex_attributes(varyings: u16) -> u32 {
    (varyings & VARYING_BITS).count_ones() + 3
}
/// Entry point names.
pub(crate) const VS_ENTRY: &str = "rsx_render_vs";
/// Entry point names.
pub(crate) const FS_ENTRY: &str = "rsx_render_fs";

/// The WPOS rule: `raster::varyings::wpos` of the window pixel, which is the target pixel
/// (`pos.xy − 0.5`) plus these offsets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WposRule {
    /// Added to the target column to give the window column (−window offset x).
    pub x_offset: f32,
    /// Added to the target row to give the window row (−window offset y).
    pub y_offset: f32,
    /// `SET_SHADER_WINDOW` origin bottom.
    pub origin_bottom: bool,
    /// `SET_SHADER_WINDOW` height.
    pub height: f32,
    /// 0.5 (half-pixel centre) or 0 (integer centre).
    pub centre: f32,
    /// The sample grid the target is drawn on (`DrawState::sample_grid`): a window position
    /// on it is divided back to its pixel, as WPOS counts pixels.
    pub grid: (u32, u32),
}

/// How the stored depth is computed (when the draw has a depth target), as the reference
/// render's `rop.rs` does: window z plus the primitive's polygon offset (location 14, y), or
/// the exported depth; then the clamp to the depth range; then [0, 1]. The range's clip is
/// [`WrapperOptions::depth_clip`], which applies with or without a depth target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DepthRule {
    /// The program exports depth (`SHADER_CONTROL` 0xE): its depth replaces window z.
    pub export: bool,
    /// Clamp the depth into this range.
    pub clamp: Option<(f32, f32)>,
    /// The depth buffer's format: depth is rounded to the values it stores
    /// (`render::surface::depth_to_fixed`: a unorm grid, or a float's bits truncated) before
    /// the test, as the surface stores it and as the CPU render compares it, so a later draw's
    /// equal depth compares equal on both renderers.
    pub format: DepthFormat,
}

/// WGSL for the depth `z` as `format` stores it, the same value as
/// `render::surface::fixed_to_depth(format, depth_to_fixed(format, z))`: a unorm grid point
/// (rounded exactly, [`UNORM_DEPTH_WGSL`]), or a float with its low mantissa bits cleared (the
/// 24-bit float keeps 16 of the f32's 23, the half 10; a half below 2^-14 is a multiple of
/// 2^-24).
fn stored_depth_wgsl(format: DepthFormat) -> String {
    let z = "clamp(z, 0.0, 1.0)";
    match format {
        DepthFormat::Z16 => format!("f32(rsx_unorm_depth({z}, 16u)) / 65535.0"),
        DepthFormat::Z24S8 => format!("f32(rsx_unorm_depth({z}, 24u)) / 16777215.0"),
        DepthFormat::Z24S8Float => format!("bitcast<f32>(bitcast<u32>({z}) & 0xFFFFFF80u)"),
        DepthFormat::Z16Float => format!(
            "select(bitcast<f32>(bitcast<u32>({z}) & 0xFFFFE000u), floor({z} * 16777216.0) / 16777216.0, {z} < 6.103515625e-5)"
        ),
    }
}

/// `round(z · (2^k − 1))` for `z` in [0, 1] and k = 16 or 24, exactly, half away from zero,
/// as `render::surface::unorm` rounds in f64. In f32, `floor(z · 16777215 + 0.5)` rounds the
/// product first (above 2^23 its spacing is 1) and a quarter of Z24 depths (0.13% of Z16)
/// came out one step high. Here the product of z's 24-bit significand m and 2^k − 1,
/// `m · 2^k − m` (at most 48 bits), is formed in two u32 words and shifted down by z's
/// exponent with the rounding bit added.
const UNORM_DEPTH_WGSL: &str = "
fn rsx_unorm_depth(z: f32, k: u32) -> u32 {
    let top = (1u << k) - 1u;
    if (!(z > 0.0)) { return 0u; }
    if (z >= 1.0) { return top; }
    let bits = bitcast<u32>(z);
    let field = bits >> 23u;
    if (field == 0u) { return 0u; }
    let m = (bits & 0x7FFFFFu) | 0x800000u;
    // z = m / 2^s with s = 150 - field >= 24 (z < 1).
    let s = 150u - field;
    if (s > 49u) { return 0u; }
    let lo0 = m << k;
    var hi = m >> (32u - k);
    let lo1 = lo0 - m;
    if (lo0 < m) { hi = hi - 1u; }
    var lo = lo1;
    if (s - 1u < 32u) {
        lo = lo1 + (1u << (s - 1u));
        if (lo < lo1) { hi = hi + 1u; }
    } else {
        hi = hi + (1u << (s - 33u));
    }
    if (s < 32u) {
        return min((hi << (32u - s)) | (lo >> s), top);
    }
    return min(hi >> (s - 32u), top);
}
";

/// What the wrapper does besides running the program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WrapperOptions {
    /// Colour slots written (bit n = `@location(n)`).
    pub targets: u8,
    /// Colour slots whose target is a fixed-point one: their output goes through the 8-bit
    /// write rule (`render::color8`) before the device's blend and unorm conversion.
    pub unorm8: u8,
    /// The colour outputs' R, G, B are encoded to sRGB first (`DrawState::srgb_output`).
    pub srgb: bool,
    /// Alpha test: pass when `compare(alpha of colour 0, reference)`.
    pub alpha_test: Option<(Compare, f32)>,
    /// The alpha test and alpha to coverage see colour 0's alpha after the 8-bit write rule
    /// (a fixed-point surface, `render::cpu::rop`).
    pub alpha_quantised: bool,
    /// Discard fragments whose interpolated window depth lies outside this range (the clip of
    /// `SET_ZMIN_MAX_CONTROL` without its clamp), whether or not the draw has a depth target:
    /// the clip is geometric (RPCS3 maps the range to the host's clip volume in its vertex
    /// epilogue, `apply_zclip_xform`, for every draw), as the reference render's
    /// `rop::depth_range` clips every fragment.
    pub depth_clip: Option<(f32, f32)>,
    /// Depth (`None`: no depth target, nothing written).
    pub depth: Option<DepthRule>,
    /// WPOS.
    pub wpos: WposRule,
    /// The fog stage (FOGC.y).
    pub fog: FogRule,
    /// Two-dimensional texture coordinates (bit n = TEXn,
    /// [`crate::raster::apply_texcoord_2d`]).
    pub texcoord_2d: u16,
    /// The samples of a multisampled surface the draw may write (`DrawState::sample_mask`):
    /// the others are discarded by their position on the sample grid (the device target).
    pub sample_mask: Option<SampleMask>,
    /// Alpha to one after the alpha test (`DrawState::alpha_to_one`).
    pub alpha_to_one: bool,
    /// Alpha to coverage after the alpha test (`DrawState::alpha_to_coverage`): a sample is
    /// discarded by its position on the device target (the sample grid) and colour 0's alpha
    /// as the alpha test sees it (`render::msaa::alpha_to_coverage_keeps`).
    pub alpha_to_coverage: bool,
    /// The depth bounds test after the alpha test (`DrawState::depth_bounds`, with a depth
    /// target): the depth stored at the pixel before the draw (group 0, a copy the device
    /// makes, `rsxtrace_gpu::RasterPipelineDesc::depth_bounds`) must lie within the bounds.
    pub depth_bounds: bool,
    /// A GL logic operation (0x1500..0x150F) of every colour output with its target's stored
    /// bits from before the draw (group 0, copies the device makes,
    /// `rsxtrace_gpu::RasterPipelineDesc::colors_before`), after the 8-bit write rule, in
    /// place of blending, with each channel's largest stored value
    /// (`pipeline::shader_logic_op`: fixed-point targets).
    pub logic_op: Option<(u32, [u32; 4])>,
    /// Blending the wrapper does itself on the targets it enables, with the targets read as
    /// they were before the draw (`pipeline::shader_blend`, `super::blend`).
    pub blend: Option<BlendSettings>,
    /// Fragment inputs passed as varyings (bit n = input n, [`passed_varyings`]).
    pub varyings: u16,
}

/// A WGSL f32 literal that reads back as exactly `v` (non-finite values become the nearest
/// finite bound; NaN becomes 0).
pub(crate) fn lit(v: f32) -> String {
    let v = if v.is_nan() {
        0.0
    } else {
        v.clamp(f32::MIN, f32::MAX)
    };
    let s = format!("{v:?}");
    if s.contains(['.', 'e', 'E']) {
        format!("{s}f")
    } else {
        format!("{s}.0f")
    }
}

/// The WGSL comparison `a OP b` for `compare`.
fn compare_expr(compare: Compare, a: &str, b: &str) -> String {
    match compare {
        Compare::Never => "false".to_string(),
        Compare::Less => format!("({a} < {b})"),
        Compare::Equal => format!("({a} == {b})"),
        Compare::LessEqual => format!("({a} <= {b})"),
        Compare::Greater => format!("({a} > {b})"),
        Compare::NotEqual => format!("({a} != {b})"),
        Compare::GreaterEqual => format!("({a} >= {b})"),
        Compare::Always => "true".to_string(),
    }
}

/// `rsx_logic_op(op, s, d, m)`: GL logic operation `op & 0xF` (CLEAR .. SET) of the source
/// and destination values of each channel as stored, `round(v · m)` with `m` the channel's
/// largest value (`render::cpu::rop`'s `logic` on the stored bytes: a bitwise operation on a
/// packed 5-6-5 word is the operation on each field; a 5- or 6-bit target's 8-bit device
/// value rounds to its stored bits, as the write-back does), back to `r / m`.
const LOGIC_OP_WGSL: &str = "
fn rsx_logic_op(op: u32, s: vec4<f32>, d: vec4<f32>, m: vec4<u32>) -> vec4<f32> {
    let mf = vec4<f32>(m);
    let a = vec4<u32>(round(clamp(s, vec4<f32>(0.0), vec4<f32>(1.0)) * mf));
    let b = vec4<u32>(round(clamp(d, vec4<f32>(0.0), vec4<f32>(1.0)) * mf));
    var r = vec4<u32>(255u);
    switch op {
        case 0u: { r = vec4<u32>(0u); }
        case 1u: { r = a & b; }
        case 2u: { r = a & ~b; }
        case 3u: { r = a; }
        case 4u: { r = ~a & b; }
        case 5u: { r = b; }
        case 6u: { r = a ^ b; }
        case 7u: { r = a | b; }
        case 8u: { r = ~(a | b); }
        case 9u: { r = ~(a ^ b); }
        case 10u: { r = ~b; }
        case 11u: { r = a | ~b; }
        case 12u: { r = ~a; }
        case 13u: { r = ~a | b; }
        case 14u: { r = ~(a & b); }
        default: {}
    }
    return vec4<f32>(r & m) / mf;
}
";

/// Whether the wrapper reads colour target `n` as it was before the draw: a target it writes,
/// under a logic operation or a blend it does itself.
fn reads_before(o: &WrapperOptions, n: usize) -> bool {
    o.targets & (1 << n) != 0 && (o.logic_op.is_some() || o.blend.is_some_and(|b| b.enabled[n]))
}

/// The WGSL appended to a fragment module.
pub(crate) fn wrapper_source(o: &WrapperOptions) -> String {
    let mut s = String::with_capacity(4096);
    s.push_str("\n// rsxtrace render wrapper (replay/src/render/gpu/shader.rs)\n");
    if o.depth_bounds {
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var rsx_depth_before: texture_depth_2d;\n\
             @group(0) @binding({}) var<uniform> rsx_depth_bounds: vec4<f32>;\n",
            rsxtrace_gpu::DEPTH_BEFORE_BINDING,
            rsxtrace_gpu::DEPTH_BOUNDS_BINDING
        );
    }
    for n in 0..4 {
        if reads_before(o, n) {
            let _ = writeln!(
                s,
                "@group(0) @binding({}) var rsx_color_before{n}: texture_2d<f32>;",
                rsxtrace_gpu::COLOR_BEFORE_BINDING + n as u32
            );
        }
    }
    if o.logic_op.is_some() {
        s.push_str(LOGIC_OP_WGSL);
    } else if let Some(b) = &o.blend {
        s.push_str(&super::blend::wgsl(b));
    }
    s.push_str("struct RsxRenderVaryings {\n    @builtin(position) pos: vec4<f32>,\n");
    let passed: Vec<usize> = varying_inputs(o.varyings).collect();
    let (misc, wz) = (passed.len() + 1, passed.len() + 2);
    for (k, n) in passed.iter().enumerate() {
        let _ = writeln!(s, "    @location({}) a{n}: vec4<f32>,", k + 1);
    }
    let _ = writeln!(
        s,
        "    @location({misc}) @interpolate(flat) misc: vec4<f32>,\n    @location({wz}) @interpolate(linear) wz: vec4<f32>,\n}}\n"
    );
    s.push_str("@vertex\nfn rsx_render_vs(@location(0) p: vec4<f32>");
    for (k, n) in passed.iter().enumerate() {
        let _ = write!(s, ", @location({}) a{n}: vec4<f32>", k + 1);
    }
    let _ = writeln!(
        s,
        ", @location({misc}) misc: vec4<f32>, @location({wz}) wz: vec4<f32>) -> RsxRenderVaryings {{"
    );
    s.push_str("    var v: RsxRenderVaryings;\n    v.pos = p;\n");
    for n in &passed {
        let _ = writeln!(s, "    v.a{n} = a{n};");
    }
    s.push_str("    v.misc = misc;\n    v.wz = wz;\n    return v;\n}\n\n");

    s.push_str("struct RsxRenderTargets {\n");
    for n in 0..4 {
        if o.targets & (1 << n) != 0 {
            let _ = writeln!(s, "    @location({n}) c{n}: vec4<f32>,");
        }
    }
    if o.depth.is_some() {
        s.push_str("    @builtin(frag_depth) depth: f32,\n");
    } else if o.targets == 0 {
        // A struct needs a member: write colour 0 even though no target receives it (wgpu
        // ignores outputs without a target).
        s.push_str("    @location(0) c0: vec4<f32>,\n");
    }
    s.push_str("}\n\n@fragment\nfn rsx_render_fs(v: RsxRenderVaryings) -> RsxRenderTargets {\n");
    let w = &o.wpos;
    let mut col = format!("v.pos.x - 0.5 + {}", lit(w.x_offset));
    let mut row = format!("v.pos.y - 0.5 + {}", lit(w.y_offset));
    if w.grid != (1, 1) {
        // The pixel of the window position on the sample grid (whole numbers of cells).
        let (gx, gy) = w.grid;
        col = format!("floor(({col}) / {})", lit(gx as f32));
        row = format!("floor(({row}) / {})", lit(gy as f32));
    }
    let _ = writeln!(
        s,
        "    let col = {col};\n    let row = {row};\n    let wz = v.wz.x + v.misc.y;"
    );
    let y = if w.origin_bottom {
        format!("{} - 1.0 - row + {}", lit(w.height), lit(w.centre))
    } else {
        format!("row + {}", lit(w.centre))
    };
    let _ = writeln!(
        s,
        "    var inp: FpInputs;\n    inp.attr[0] = vec4<f32>(col + {}, {y}, wz, v.pos.w);",
        lit(w.centre)
    );
    // Inputs not passed stay zero (`FpInputs` is zero-initialised): the program never
    // reads them.
    for n in &passed {
        if *n == 3 {
            let _ = writeln!(
                s,
                "    inp.attr[3] = vec4<f32>(v.a3.x, {}, 0.0, 0.0);",
                o.fog.wgsl_factor("v.a3.x", lit)
            );
        } else if (4..14).contains(n) && o.texcoord_2d & (1 << (n - 4)) != 0 {
            // A 2D texture coordinate (`raster::apply_texcoord_2d`): w is the clip w.
            let _ = writeln!(
                s,
                "    inp.attr[{n}] = vec4<f32>(v.a{n}.xy, 0.0, 1.0 / v.pos.w);"
            );
        } else {
            let _ = writeln!(s, "    inp.attr[{n}] = v.a{n};");
        }
    }
    s.push_str("    inp.attr[14] = vec4<f32>(v.misc.x, 0.0, 0.0, 0.0);\n");
    if let Some(m) = o.sample_mask {
        // The device target is the surface's sample grid (`render::msaa`).
        let (sx, sy) = m.grid;
        let _ = writeln!(
            s,
            "    if (((0x{:x}u >> (u32(v.pos.x) % {sx}u + (u32(v.pos.y) % {sy}u) * {sx}u)) & 1u) == 0u) {{\n        discard;\n    }}",
            m.mask
        );
    }
    // Smooth lines and polygons: the pixel's coverage (location 14 z; 1 otherwise) multiplies
    // the alpha of the colour outputs before the alpha test (`raster::smooth`).
    s.push_str("    var r = rsx_fragment(inp);\n    if (r.killed) {\n        discard;\n    }\n");
    s.push_str("    for (var k = 0u; k < 4u; k++) {\n        r.colors[k].w = r.colors[k].w * v.misc.z;\n    }\n");
    if o.srgb {
        s.push_str("    for (var k = 0u; k < 4u; k++) {\n        r.colors[k] = rsx_srgb(r.colors[k]);\n    }\n");
    }
    // On a fixed-point target the alpha test and alpha to coverage see the alpha after the
    // 8-bit write rule (`render::cpu::rop`).
    let tested_alpha = if o.alpha_quantised {
        "rsx_unorm8(r.colors[0]).w"
    } else {
        "r.colors[0].w"
    };
    if let Some((compare, reference)) = o.alpha_test {
        let _ = writeln!(
            s,
            "    if (!{}) {{\n        discard;\n    }}",
            compare_expr(compare, tested_alpha, &lit(reference))
        );
    }
    if o.alpha_to_coverage {
        let _ = writeln!(
            s,
            "    if (!{}) {{\n        discard;\n    }}",
            alpha_to_coverage_wgsl(tested_alpha, "v.pos")
        );
    }
    if o.depth_bounds {
        // EXT_depth_bounds_test on the depth stored before the draw (`render::cpu::rop`).
        s.push_str(
            "    let stored = textureLoad(rsx_depth_before, vec2<i32>(v.pos.xy), 0);\n    \
             if (!(stored >= rsx_depth_bounds.x && stored <= rsx_depth_bounds.y)) {\n        \
             discard;\n    }\n",
        );
    }
    if o.alpha_to_one {
        s.push_str("    for (var k = 0u; k < 4u; k++) {\n        r.colors[k].w = 1.0;\n    }\n");
    }
    s.push_str("    var out: RsxRenderTargets;\n");
    for n in 0..4 {
        if o.targets & (1 << n) != 0 {
            if o.unorm8 & (1 << n) != 0 {
                let _ = writeln!(s, "    out.c{n} = rsx_unorm8(r.colors[{n}]);");
            } else {
                let _ = writeln!(s, "    out.c{n} = r.colors[{n}];");
            }
            let before = format!("textureLoad(rsx_color_before{n}, vec2<i32>(v.pos.xy), 0)");
            if let Some((op, [mr, mg, mb, ma])) = o.logic_op {
                let _ = writeln!(
                    s,
                    "    out.c{n} = rsx_logic_op({}u, out.c{n}, {before}, vec4<u32>({mr}u, {mg}u, {mb}u, {ma}u));",
                    op & 0xF
                );
            } else if reads_before(o, n) {
                let _ = writeln!(s, "    out.c{n} = rsx_blend(out.c{n}, {before});");
            }
        }
    }
    let range = |(a, b): (f32, f32)| (a.min(b), a.max(b));
    if let Some((lo, hi)) = o.depth_clip.map(range) {
        // The range clips the interpolated depth, before the polygon offset
        // (`render::cpu::rop::depth_range`).
        let _ = writeln!(
            s,
            "    if (!(v.wz.x >= {} && v.wz.x <= {})) {{\n        discard;\n    }}",
            lit(lo),
            lit(hi)
        );
    }
    match o.depth {
        None => {
            if o.targets == 0 {
                s.push_str("    out.c0 = r.colors[0];\n");
            }
        }
        Some(d) => {
            // The clamp bit clamps after the polygon offset (`wz` has it); an exported depth
            // is only clamped (`render::cpu::rop::depth_range`).
            s.push_str("    var z = wz;\n");
            if let Some((lo, hi)) = d.clamp.map(range) {
                let _ = writeln!(s, "    z = clamp(z, {}, {});", lit(lo), lit(hi));
            }
            if d.export {
                s.push_str("    z = r.depth;\n");
                if let Some((lo, hi)) = d.clamp.map(range) {
                    let _ = writeln!(s, "    z = clamp(z, {}, {});", lit(lo), lit(hi));
                }
            }
            let _ = writeln!(s, "    out.depth = {};", stored_depth_wgsl(d.format));
        }
    }
    s.push_str("    return out;\n}\n");
    if o.srgb {
        s.push_str(crate::render::color8::SRGB_WGSL);
    }
    if o.depth
        .is_some_and(|d| matches!(d.format, DepthFormat::Z16 | DepthFormat::Z24S8))
    {
        s.push_str(UNORM_DEPTH_WGSL);
    }
    if o.targets & o.unorm8 != 0
        || (o.alpha_quantised && (o.alpha_test.is_some() || o.alpha_to_coverage))
    {
        s.push_str(crate::render::color8::WGSL);
    }
    s
}

/// A validated module from WGSL text (hashed by its text).
pub(crate) fn module_from_source(source: String) -> Result<WgslModule, String> {
    let (module, info) = rsxtrace_wgsl::validate(&source)?;
    let hash = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        source.hash(&mut h);
        h.finish()
    };
    Ok(WgslModule {
        source,
        module,
        info,
        hash,
    })
}

/// The fragment module with the wrapper appended, validated.
pub(crate) fn wrap(fragment: &WgslModule, options: &WrapperOptions) -> Result<WgslModule, String> {
    let mut source = fragment.source.clone();
    source.push_str(&wrapper_source(options));
    module_from_source(source)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> WrapperOptions {
        WrapperOptions {
            targets: 0b1,
            unorm8: 0,
            srgb: false,
            alpha_test: None,
            alpha_quantised: false,
            depth_clip: None,
            depth: None,
            wpos: WposRule {
                x_offset: 0.0,
                y_offset: 0.0,
                origin_bottom: false,
                height: 0.0,
                centre: 0.5,
                grid: (1, 1),
            },
            fog: FogRule::default(),
            texcoord_2d: 0,
            sample_mask: None,
            alpha_to_one: false,
            alpha_to_coverage: false,
            depth_bounds: false,
            logic_op: None,
            blend: None,
            varyings: passed_varyings(u16::MAX),
        }
    }

    #[test]
    fn literals_read_back_exactly() {
        for v in [0.5f32, 1.0, -3.0, 1.0 / 3.0, 1e-30, 123456.0] {
            let l = lit(v);
            let parsed: f32 = l.trim_end_matches('f').parse().unwrap();
            assert_eq!(parsed, v, "{l}");
        }
        assert_eq!(lit(f32::INFINITY), lit(f32::MAX));
        assert_eq!(lit(f32::NAN), "0.0f");
    }

    #[test]
    fn eight_bit_targets_get_the_write_rule() {
        let mut o = options();
        o.targets = 0b11;
        o.unorm8 = 0b01;
        let s = wrapper_source(&o);
        assert!(s.contains("out.c0 = rsx_unorm8(r.colors[0]);"), "{s}");
        assert!(s.contains("out.c1 = r.colors[1];"), "{s}");
        assert!(s.contains("fn rsx_unorm8("), "{s}");
        o.unorm8 = 0;
        assert!(!wrapper_source(&o).contains("rsx_unorm8"));
    }

    #[test]
    fn alpha_test_and_depth_rules_are_emitted() {
        let mut o = options();
        o.alpha_test = Some((Compare::GreaterEqual, 0.5));
        let s = wrapper_source(&o);
        assert!(s.contains("if (!(r.colors[0].w >= 0.5f))"), "{s}");
        o.alpha_quantised = true;
        let s = wrapper_source(&o);
        assert!(
            s.contains("if (!(rsx_unorm8(r.colors[0]).w >= 0.5f))"),
            "{s}"
        );
        assert!(s.contains("fn rsx_unorm8("), "{s}");
        o.alpha_quantised = false;
        assert!(!s.contains("frag_depth"), "{s}");
        o.depth_clip = Some((1.0, 0.0));
        o.depth = Some(DepthRule {
            export: false,
            clamp: None,
            format: DepthFormat::Z24S8,
        });
        let s = wrapper_source(&o);
        assert!(s.contains("let wz = v.wz.x + v.misc.y;"), "{s}");
        assert!(s.contains("var z = wz;"), "{s}");
        assert!(
            s.contains("if (!(v.wz.x >= 0.0f && v.wz.x <= 1.0f))"),
            "{s}"
        );
        assert!(s.contains("frag_depth"), "{s}");
        o.depth_clip = None;
        o.depth = Some(DepthRule {
            export: true,
            clamp: Some((0.25, 0.75)),
            format: DepthFormat::Z16,
        });
        let s = wrapper_source(&o);
        assert!(s.contains("z = r.depth;"), "{s}");
        assert!(s.contains("z = clamp(z, 0.25f, 0.75f);"), "{s}");
        assert!(!s.contains("z.x <= 1.0f"), "no clip was asked for: {s}");
        o.wpos.origin_bottom = true;
        o.wpos.height = 720.0;
        let s = wrapper_source(&o);
        assert!(s.contains("720.0f - 1.0 - row + 0.5f"), "{s}");
    }
}
