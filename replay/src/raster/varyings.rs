//! Vertex outputs to fragment-program inputs: interpolation of the 16 vertex output registers
//! at a covered pixel and their routing to the 15 fragment input attributes.
//!
//! Routing (vertex outputs: rsx-microcode.md B.8 "Outputs"; fragment inputs: B.3 and
//! [`crate::interp::fragment::attr`]; the same table as `replay/wgsl/ABI.md`):
//!
//! | fragment input | from |
//! |---|---|
//! | 0 WPOS | the window position given by the caller (see [`wpos`]) |
//! | 1 COL0 | output 1 COL0, or 3 BFC0 on back faces with two-sided colour |
//! | 2 COL1 | output 2 COL1, or 4 BFC1 on back faces with two-sided colour |
//! | 3 FOGC | `(c, fog factor, 0, 0)` with `c` output 5's x (its y, z, w are clip distances) |
//! | 4..11 TEX0..TEX7 | outputs 7..14 |
//! | 12 TEX8 | output 15 |
//! | 13 TEX9 | output 6 (RPCS3's table feeds TEX9 from dst_reg6, B.8) |
//! | 14 FACING | (+1 front / −1 back, 0, 0, 0) |
//!
//! Two-sided colour, flat shading (COL0/COL1 only) and the fog factor follow the rules of
//! [`super::shading`], which names their sources. Flat colours come from the primitive's
//! provoking vertex, which the caller passes on its own: it is not always one of the three
//! interpolated vertices (a quad's first triangle, [`super::Triangle::provoking`]).

use super::shading::FogRule;
use crate::interp::fragment::{attr, LaneInputs};
use rsxtrace_capture::frame::state::ShaderWindow;

/// Interpolation switches of [`fragment_inputs_with`] ([`super::ShadingRules::varyings`]
/// builds them from a draw).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VaryingOptions {
    /// `SET_TWO_SIDE_LIGHT_EN`: back faces read BFC0/BFC1 as COL0/COL1.
    pub two_sided_color: bool,
    /// Flat shading: COL0 and COL1 (BFC0/BFC1) are the provoking vertex's, not interpolated.
    pub flat: bool,
    /// The fog stage (FOGC.y).
    pub fog: FogRule,
    /// `SET_TEX_COORD_CONTROL`: bit `n` makes TEXn two-dimensional. Applied per fragment by
    /// [`apply_texcoord_2d`] after the point sprite (not by [`fragment_inputs_with`], whose
    /// values the GPU render also interpolates from vertices).
    pub texcoord_2d: u16,
    /// The `SET_VERTEX_ATTRIB_OUTPUT_MASK` bits that are clear (its complement; 0, the
    /// default: every output sent). An output none of whose bits is set reaches the fragment
    /// program as (0, 0, 0, 1), whatever the vertex program wrote ([`output_sent`]).
    pub outputs_off: u32,
}

/// Whether vertex output register `register` reaches the fragment program when the output
/// mask's clear bits are `outputs_off`: when any of its `CELL_GCM_ATTRIB_OUTPUT_MASK_*` bits
/// is set (RPCS3 `GLVertexProgram.cpp`/`VKVertexProgram.cpp` `reg_table` and
/// `vertex_reg_info::test`, "any bit set"; a masked output reads `vec4(0, 0, 0, 1)`): o1 and
/// o3 front or back diffuse (bits 0, 2), o2 and o4 front or back specular (1, 3), o5 fog (4),
/// o6 TEX9 (13), o7..o14 TEX0..TEX7 (14..21), o15 TEX8 (12). Other registers always do.
pub fn output_sent(register: usize, outputs_off: u32) -> bool {
    let bits: u32 = match register {
        1 | 3 => 0b0101,
        2 | 4 => 0b1010,
        5 => 1 << 4,
        6 => 1 << 13,
        7..=14 => 1 << (14 + register - 7),
        15 => 1 << 12,
        _ => return true,
    };
    outputs_off & bits != bits
}

/// WPOS of pixel (`x`, `row`) under `SET_SHADER_WINDOW` (rrc-format.md 4.6; RPCS3
/// `RSXFragmentPrologue.glsl` `get_wpos` with the scale/bias of `fill_fragment_state_buffer`):
/// with the half pixel centre (0) coordinates are `pixel + 0.5`, with the integer centre (1)
/// `pixel`; origin top (0) counts rows down from the top, origin bottom (1) counts them up from
/// `window.height` (`y = height − 1 − row (+ 0.5)`). z is window z and w is 1/w.
pub fn wpos(x: u32, row: u32, z: f32, inv_w: f32, window: &ShaderWindow) -> [f32; 4] {
    let centre = if window.pixel_center == 1 { 0.0 } else { 0.5 };
    let fx = f64::from(x) + centre;
    let fy = if window.origin == 1 {
        f64::from(window.height) - 1.0 - f64::from(row) + centre
    } else {
        f64::from(row) + centre
    };
    [fx as f32, fy as f32, z, inv_w]
}

/// Two-dimensional texture coordinates (`SET_TEX_COORD_CONTROL[n]` bit 0, bit `n` of `mask`):
/// TEXn reads `(x, y, 0, w)`, `w` the fragment's clip w (1 / WPOS.w), so that a projective
/// lookup divides by 1 and the perspective flag gives `(x/w, y/w, 0, 1)` (RPCS3
/// `FragmentProgramDecompiler.cpp`: "Texcoord 2d mask seems to reset the last 2 arguments to
/// 0 and w if set"; it stacks on a point sprite's coordinate).
pub fn apply_texcoord_2d(lane: &mut LaneInputs, mask: u16) {
    if mask == 0 {
        return;
    }
    let w = 1.0 / lane.attributes[attr::WPOS][3];
    for n in 0..10 {
        if mask & (1 << n) != 0 {
            let t = &mut lane.attributes[attr::TEX0 + n];
            *t = [t[0], t[1], 0.0, w];
        }
    }
}

/// The fragment inputs at a pixel: `outputs` are the three vertices' output registers,
/// `weights` the perspective-correct weights over them (lines and points give zero weights to
/// the unused vertices), `window` the WPOS value. No two-sided colour; flat colours from
/// vertex `flat_provoking` (0..3) of `outputs` when given; RPCS3's reset fog state
/// ([`FogRule::default`]).
pub fn fragment_inputs(
    outputs: [&[[f32; 4]; 16]; 3],
    weights: [f32; 3],
    window: [f32; 4],
    front_facing: bool,
    flat_provoking: Option<usize>,
) -> LaneInputs {
    let options = VaryingOptions {
        two_sided_color: false,
        flat: flat_provoking.is_some(),
        fog: FogRule::default(),
        texcoord_2d: 0,
        outputs_off: 0,
    };
    let provoking = outputs[flat_provoking.unwrap_or(2).min(2)];
    fragment_inputs_with(outputs, provoking, weights, window, front_facing, &options)
}

/// [`fragment_inputs`] with every switch; `provoking` is the output registers of the
/// primitive's provoking vertex (read by flat shading only).
pub fn fragment_inputs_with(
    outputs: [&[[f32; 4]; 16]; 3],
    provoking: &[[f32; 4]; 16],
    weights: [f32; 3],
    window: [f32; 4],
    front_facing: bool,
    options: &VaryingOptions,
) -> LaneInputs {
    let at = |register: usize| -> [f32; 4] {
        if !output_sent(register, options.outputs_off) {
            return [0.0, 0.0, 0.0, 1.0];
        }
        let mut v = [0f32; 4];
        for (vertex, &w) in outputs.iter().zip(&weights) {
            if w == 0.0 {
                continue;
            }
            if let Some(r) = vertex.get(register) {
                for (dst, src) in v.iter_mut().zip(r) {
                    *dst += w * src;
                }
            }
        }
        v
    };
    let color = |register: usize| -> [f32; 4] {
        if !output_sent(register, options.outputs_off) {
            [0.0, 0.0, 0.0, 1.0]
        } else if options.flat {
            provoking.get(register).copied().unwrap_or_default()
        } else {
            at(register)
        }
    };
    let back = options.two_sided_color && !front_facing;
    let mut lane = LaneInputs::default();
    let a = &mut lane.attributes;
    a[attr::WPOS] = window;
    a[attr::COL0] = color(if back { 3 } else { 1 });
    a[attr::COL1] = color(if back { 4 } else { 2 });
    a[attr::FOGC] = options.fog.fogc(at(5)[0]);
    for n in 0..8 {
        a[attr::TEX0 + n] = at(7 + n);
    }
    a[attr::TEX0 + 8] = at(15);
    a[attr::TEX0 + 9] = at(6);
    a[attr::FACING] = [if front_facing { 1.0 } else { -1.0 }, 0.0, 0.0, 0.0];
    lane
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_the_mask_leaves_out_reads_0001() {
        // Every output register r of the three vertices holds (r, r, r, r).
        let regs: [[f32; 4]; 16] = std::array::from_fn(|r| [r as f32; 4]);
        let outputs = [&regs, &regs, &regs];
        let weights = [1.0, 0.0, 0.0];
        // The mask keeps back diffuse (bit 2) and TEX1 (bit 15) only: COL0 still comes
        // from o1 (either diffuse bit sends it), COL1 (o2), TEX0 (o7) and TEX9 (o6) read
        // (0, 0, 0, 1), TEX1 (o8) its value.
        let mask: u32 = 1 << 2 | 1 << 15;
        let options = VaryingOptions {
            outputs_off: !mask,
            ..VaryingOptions::default()
        };
        let lane = fragment_inputs_with(outputs, &regs, weights, [0.0; 4], true, &options);
        let a = &lane.attributes;
        let unset = [0.0, 0.0, 0.0, 1.0];
        assert_eq!(a[attr::COL0], [1.0; 4]);
        assert_eq!(a[attr::COL1], unset);
        assert_eq!(a[attr::TEX0], unset);
        assert_eq!(a[attr::TEX0 + 1], [8.0; 4]);
        assert_eq!(a[attr::TEX0 + 9], unset);
        // The default sends every output.
        let options = VaryingOptions::default();
        let all = fragment_inputs_with(outputs, &regs, weights, [0.0; 4], true, &options);
        assert_eq!(all.attributes[attr::TEX0], [7.0; 4]);
        assert_eq!(all.attributes[attr::COL1], [2.0; 4]);
        // TEX8 (o15) is bit 12, TEX9 (o6) bit 13; HPOS (o0) is always sent.
        assert!(!output_sent(15, !0u32 ^ 1 << 13) && output_sent(15, !0u32 ^ 1 << 12));
        assert!(output_sent(0, !0) && output_sent(3, !0u32 ^ 1));
    }
}
