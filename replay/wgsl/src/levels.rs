//! Sampling one texture unit at a level of detail chosen by the shared LOD rule
//! (`rsxtrace_semantics::lod`, `rsx_lod_choose`): the statements both recompilers emit once
//! lambda is known (the fragment recompiler from derivatives or TXL/TXB's operand, the vertex
//! recompiler from TXL's operand). ABI.md "Textures" says what the executor binds for it.

use rsxtrace_semantics::border::ShaderBorder;
use rsxtrace_semantics::lod::{mip_code, MipFilter, TextureLod};
use rsxtrace_semantics::shadow::DepthCompare;

/// A unit's LOD state as bytes, appended to `out` (the module hash folds it in). Every field
/// is bound by name, so that a field added to [`TextureLod`] cannot be left out of the hash
/// (two modules differing only in it would share a cache entry).
pub(crate) fn lod_fingerprint(l: &TextureLod, out: &mut Vec<u8>) {
    let TextureLod {
        bias,
        min_lod,
        max_lod,
        mip,
        unnormalized,
        compare,
        alpha_kill,
        bx2,
        aniso,
        narrow_pitch,
        post,
        mirror_once,
        border,
    } = *l;
    out.extend_from_slice(&bias.to_le_bytes());
    out.extend_from_slice(&min_lod.to_le_bytes());
    out.extend_from_slice(&max_lod.to_le_bytes());
    out.push(mip as u8);
    out.push(u8::from(unnormalized));
    match compare {
        // Every field: each changes the emitted comparison (a fixed-point format's
        // reference is clamped).
        Some(DepthCompare {
            func,
            mag_linear,
            min_linear,
            clamp_reference,
        }) => out.extend_from_slice(&[
            func,
            u8::from(mag_linear),
            u8::from(min_linear),
            u8::from(clamp_reference),
        ]),
        None => out.push(0),
    }
    out.push(u8::from(alpha_kill));
    out.push(bx2);
    out.push(aniso);
    match narrow_pitch {
        Some((packed, pitch)) => {
            out.push(1);
            out.extend_from_slice(&packed.to_le_bytes());
            out.extend_from_slice(&pitch.to_le_bytes());
        }
        None => out.push(0),
    }
    out.extend_from_slice(&[post.gamma, post.bias, u8::from(post.wide), mirror_once]);
    match border {
        Some(ShaderBorder {
            axes,
            colour,
            mag_linear,
            min_linear,
        }) => {
            out.extend_from_slice(&[1, axes, u8::from(mag_linear), u8::from(min_linear)]);
            for c in colour {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        None => out.push(0),
    }
}

/// `coord`, a WGSL expression of `width` components (1: a scalar), with the magnitude of its
/// first `axes` components taken where `mask` (bit 0 s, 1 t, 2 r) mirrors once.
pub(crate) fn mirrored(coord: &str, mask: u8, width: usize, axes: usize) -> String {
    let on: Vec<bool> = (0..width).map(|k| k < axes && mask >> k & 1 != 0).collect();
    if !on.contains(&true) {
        return coord.to_string();
    }
    if width == 1 {
        return format!("abs({coord})");
    }
    let flags: Vec<&str> = on
        .iter()
        .map(|&b| if b { "true" } else { "false" })
        .collect();
    format!(
        "select({coord}, abs({coord}), vec{width}<bool>({}))",
        flags.join(", ")
    )
}

/// `lv` = the shared rule's `(first level, second level, weight)` for `lambda` under the
/// unit's state (`rsx_lod_choose`).
pub(crate) fn choose_levels(tex: &str, lambda: &str, state: &TextureLod) -> String {
    format!(
        "let lv = rsx_lod_choose({lambda}, {:?}, {:?}, {:?}, {}u, textureNumLevels({tex}));",
        state.bias_f32(),
        state.min_f32(),
        state.max_f32(),
        mip_code(state.mip),
    )
}

/// The statements that set `t` to the filtered texel of texture `tex` with sampler `smp` at
/// coordinate expression `coord` (`width` components: 2 or 3; already scaled to [0, 1] where
/// the unit is unnormalised) and level of detail `lambda`, under the unit's LOD state
/// `state`: [`choose_levels`] then [`sample_chosen`].
pub(crate) fn sample_at_lambda(
    tex: &str,
    smp: &str,
    coord: &str,
    width: usize,
    lambda: &str,
    state: &TextureLod,
) -> Vec<String> {
    let mut lines = vec![choose_levels(tex, lambda, state)];
    lines.extend(sample_chosen(tex, smp, coord, width, state, "t"));
    lines
}

/// The statements that set `out` to the filtered texel at `coord` (`width` components) from
/// the levels `lv` holds ([`choose_levels`]). A negative level means "magnify at level 0".
/// Each level k is sampled with `textureSampleLevel` at LOD `k + 0.25`, which a sampler with
/// mipmap mode nearest resolves to level k and its min filter; LOD 0 selects the mag filter.
/// Only a linear mip filter blends two levels (the rule gives weight 0 otherwise). A border
/// colour the device cannot hold is added to each level's sample ([`border_term`]).
pub(crate) fn sample_chosen(
    tex: &str,
    smp: &str,
    coord: &str,
    width: usize,
    state: &TextureLod,
    out: &str,
) -> Vec<String> {
    let level = |v: &str| {
        let border = state
            .border
            .map(|b| border_term(tex, coord, width, v, &b))
            .unwrap_or_default();
        format!(
            "textureSampleLevel({tex}, {smp}, {coord}, select({v} + 0.25, 0.0, {v} < 0.0)){border}"
        )
    };
    let mut lines = vec![format!("let la = {};", level("lv.x"))];
    if state.mip == MipFilter::Linear {
        lines.push(format!("let lb = {};", level("lv.y")));
        lines.push(format!("let {out} = la + (lb - la) * lv.z;"));
    } else {
        lines.push(format!("let {out} = la;"));
    }
    lines
}

/// ` + colour * (1.0 - inside)`: the border colour `b` times the weight that the filter of
/// level `v` (the mag filter when magnifying, else the min filter) gives to texels outside
/// the image on the border axes, at `coord` of `width` components (`rsxtrace_semantics::border`,
/// `rsx_border_inside`). The device reads its border as transparent black there.
fn border_term(tex: &str, coord: &str, width: usize, v: &str, b: &ShaderBorder) -> String {
    // The level's size from level 0's along the halving chain the binding enforces, not
    // `textureDimensions(tex, level)`: llvmpipe answers a size query with the first lane's
    // level for the whole SIMD group (Mesa `lp_build_size_query_soa`, "this needs to honor
    // per-element lod"), and neighbouring pixels may choose different levels.
    let at = format!("u32(max({v}, 0.0))");
    let (c, size) = if width == 3 {
        (
            coord.to_string(),
            format!(
                "vec3<f32>(max(textureDimensions({tex}, 0) >> vec3<u32>({at}), vec3<u32>(1u)))"
            ),
        )
    } else {
        (
            format!("vec3<f32>({coord}, 0.0)"),
            format!(
                "vec3<f32>(vec2<f32>(max(textureDimensions({tex}, 0) >> vec2<u32>({at}), \
                 vec2<u32>(1u))), 1.0)"
            ),
        )
    };
    format!(
        " + {} * (1.0 - rsx_border_inside({c}, {size}, {}, select({}, {}, {v} < 0.0)))",
        b.wgsl_colour(),
        b.wgsl_axes(),
        b.min_linear,
        b.mag_linear,
    )
}

/// As [`sample_chosen`] for a 2D unit that compares depth (`rsxtrace_semantics::shadow`):
/// each chosen level's texels around `coord.xy` are compared with `coord.z` before they are
/// blended (`rsx_shadow_level`: the mag filter when magnifying, else the min filter), and
/// `out` holds the result in all four channels.
pub(crate) fn compare_chosen(
    tex: &str,
    smp: &str,
    coord: &str,
    state: &TextureLod,
    cmp: DepthCompare,
    out: &str,
) -> Vec<String> {
    let mut lines = vec![format!("let cz = {coord};")];
    // A fixed-point depth format clamps the reference (`DepthCompare::clamp_reference`).
    lines.push(if cmp.clamp_reference {
        "let rz = clamp(cz.z, 0.0, 1.0);".to_string()
    } else {
        "let rz = cz.z;".to_string()
    });
    // A border colour the device cannot hold: its first channel, on the border axes.
    let (bord, bz) = match state.border {
        Some(b) => (
            format!("vec2<bool>({}, {})", b.axes & 1 != 0, b.axes & 2 != 0),
            b.rgba()[0],
        ),
        None => ("vec2<bool>(false, false)".to_string(), 0.0),
    };
    let level = |v: &str, name: &str| {
        format!(
            "let {name} = rsx_shadow_level({tex}, {smp}, cz.xy, rz, i32(max({v}, 0.0)), \
             select({v} + 0.25, 0.0, {v} < 0.0), select({min}, {mag}, {v} < 0.0), {f}u, \
             {bord}, {bz:?});",
            min = cmp.min_linear,
            mag = cmp.mag_linear,
            f = cmp.func,
        )
    };
    lines.push(level("lv.x", "za"));
    if state.mip == MipFilter::Linear {
        lines.push(level("lv.y", "zb"));
        lines.push(format!("let {out} = vec4<f32>(za + (zb - za) * lv.z);"));
    } else {
        lines.push(format!("let {out} = vec4<f32>(za);"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two units whose shaders differ must not share a fingerprint (a module cache keyed by
    /// it would hand one's shader to the other): here a DEPTH16 and a DEPTH16_FLOAT shadow
    /// unit, whose references are clamped and not.
    #[test]
    fn the_reference_clamp_is_part_of_the_fingerprint() {
        let compare = DepthCompare::of_unit(1, false, true, true).unwrap();
        let print = |fixed_point: bool| {
            let lod = TextureLod {
                compare: Some(compare.with_fixed_point(fixed_point)),
                ..TextureLod::default()
            };
            let mut out = Vec::new();
            lod_fingerprint(&lod, &mut out);
            out
        };
        assert_ne!(print(true), print(false));
    }
}
