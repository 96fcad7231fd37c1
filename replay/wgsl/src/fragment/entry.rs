//! The module's resource declarations and entry points (ABI.md "Fragment programs"): texture
//! units in group 1, the verification inputs in group 0, `fp_main` for rendering and `fp_eval`
//! for per-pixel verification.

use std::fmt::Write as _;

use super::options::{FragmentTranslateOptions, TextureDim, CONTROL_DEPTH_EXPORT};

/// Texture and sampler declarations of the sampled units (unit u at bindings 2u and 2u + 1 of
/// group 1), plus the group-0 verification bindings.
pub fn resources(units: u16, options: &FragmentTranslateOptions) -> String {
    let mut s = String::from(
        "\nstruct FpParams {\n    width: u32,\n    height: u32,\n    _pad0: u32,\n    _pad1: u32,\n}\n\n\
         @group(0) @binding(0) var<storage, read> fp_inputs: array<vec4<f32>>;\n\
         @group(0) @binding(1) var<uniform> fp_params: FpParams;\n",
    );
    for (u, dim) in options.texture_dims.iter().enumerate() {
        if units & (1 << u) == 0 {
            continue;
        }
        let ty = match dim {
            // A 1D unit is bound as a 2D texture one texel high (ABI.md "Textures").
            TextureDim::D1 | TextureDim::D2 => "texture_2d<f32>",
            TextureDim::D3 => "texture_3d<f32>",
            TextureDim::Cube => "texture_cube<f32>",
        };
        let _ = writeln!(
            s,
            "@group(1) @binding({}) var rsx_tex{u}: {ty};\n@group(1) @binding({}) var rsx_smp{u}: sampler;",
            2 * u,
            2 * u + 1
        );
    }
    s
}

/// `FpVaryings`, `FpTargets`, `FpEvalTargets`, `fp_main` and `fp_eval`.
pub fn entry_points(options: &FragmentTranslateOptions) -> String {
    let depth = options.control & CONTROL_DEPTH_EXPORT != 0;
    let mut s = String::from(
        r#"
struct FpVaryings {
    @builtin(position) wpos: vec4<f32>,
    @builtin(front_facing) facing: bool,
    @location(0) col0: vec4<f32>,
    @location(1) col1: vec4<f32>,
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
    @location(14) tex9: vec4<f32>,
}

struct FpTargets {
    @location(0) c0: vec4<f32>,
    @location(1) c1: vec4<f32>,
    @location(2) c2: vec4<f32>,
    @location(3) c3: vec4<f32>,
"#,
    );
    if depth {
        s.push_str("    @builtin(frag_depth) depth: f32,\n");
    }
    s.push_str(
        r#"}

struct FpEvalTargets {
    @location(0) c0: vec4<f32>,
    @location(1) c1: vec4<f32>,
    @location(2) c2: vec4<f32>,
    @location(3) c3: vec4<f32>,
    @location(4) extra: vec4<f32>,
}

@fragment
fn fp_main(v: FpVaryings) -> FpTargets {
    var inp: FpInputs;
    inp.attr[0] = v.wpos;
    inp.attr[1] = v.col0;
    inp.attr[2] = v.col1;
    inp.attr[3] = v.fogc;
    inp.attr[4] = v.tex0;
    inp.attr[5] = v.tex1;
    inp.attr[6] = v.tex2;
    inp.attr[7] = v.tex3;
    inp.attr[8] = v.tex4;
    inp.attr[9] = v.tex5;
    inp.attr[10] = v.tex6;
    inp.attr[11] = v.tex7;
    inp.attr[12] = v.tex8;
    inp.attr[13] = v.tex9;
    // FACING: +1 front, -1 back.
    inp.attr[14] = vec4<f32>(select(-1.0, 1.0, v.facing), 0.0, 0.0, 0.0);
    let r = rsx_fragment(inp);
    if r.killed {
        discard;
    }
"#,
    );
    if depth {
        s.push_str(
            "    return FpTargets(r.colors[0], r.colors[1], r.colors[2], r.colors[3], r.depth);\n}\n",
        );
    } else {
        s.push_str(
            "    return FpTargets(r.colors[0], r.colors[1], r.colors[2], r.colors[3]);\n}\n",
        );
    }
    s.push_str(
        r#"
@fragment
fn fp_eval(@builtin(position) pos: vec4<f32>) -> FpEvalTargets {
    let x = u32(pos.x);
    let y = u32(pos.y);
    let base = (y * fp_params.width + x) * 15u;
    var inp: FpInputs;
    for (var i = 0u; i < 15u; i += 1u) {
        inp.attr[i] = fp_inputs[base + i];
    }
RSX_SELECT_PIXEL    let r = rsx_fragment(inp);
    return FpEvalTargets(r.colors[0], r.colors[1], r.colors[2], r.colors[3], vec4<f32>(r.depth, select(0.0, 1.0, r.killed), 0.0, 0.0));
}
"#,
    );
    let select = if options.instrument {
        super::record::SELECT_PIXEL
    } else {
        ""
    };
    s.replace("RSX_SELECT_PIXEL", select)
}
