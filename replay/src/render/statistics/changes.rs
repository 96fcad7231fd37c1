//! State changes between draws: for each part of the state ([`PARTS`]), the draws whose part
//! differs from the draw before them, and the transform constant registers that differ.

use rsxtrace_capture::frame::{Draw, Frame};
use std::ops::Range;
use std::sync::Arc;

/// The parts of the state whose changes are counted, in order, with what each compares:
/// - `surface`: the render targets (formats, addresses, pitches, clip, window offset);
/// - `vertex_program`, `fragment_program`: the program (content hash);
/// - `fragment_constants`: the same fragment program with other inline constants;
/// - `transform_constants`: any transform constant register (value or known flag);
/// - `textures`, `vertex_textures`: any unit's state; `vertex_arrays`: the attribute arrays'
///   formats, strides, offsets and locations;
/// - `viewport_scissor`: viewport, scissor and clip range; `depth`: depth test, bounds,
///   min/max control and polygon offset; `stencil`; `blend`: blending, logic op and colour
///   masks; `alpha_test`; `rasterization`: cull, front face, polygon modes, stipples, point
///   and line state, shading, anti-aliasing and the window origin; `shader_control`: the
///   shader control and packer registers and the vertex output mask; `clear_values`: the
///   colour and depth/stencil clear values.
pub const PARTS: [&str; 16] = [
    "surface",
    "vertex_program",
    "fragment_program",
    "fragment_constants",
    "transform_constants",
    "textures",
    "vertex_textures",
    "vertex_arrays",
    "viewport_scissor",
    "depth",
    "stencil",
    "blend",
    "alpha_test",
    "rasterization",
    "shader_control",
    "clear_values",
];

/// For each of [`PARTS`], the draws of `range` whose part differs from the draw before them
/// (the first draw of the frame has none), and the transform constant registers that differ.
pub(super) fn changes(frame: &Frame, range: &Range<usize>) -> (Vec<(&'static str, usize)>, u64) {
    let mut counts = [0usize; PARTS.len()];
    let mut registers = 0u64;
    for i in range.clone() {
        let (Some(prev), Some(d)) = (
            i.checked_sub(1).and_then(|p| frame.draws.get(p)),
            frame.draws.get(i),
        ) else {
            continue;
        };
        let constants = changed_constants(prev, d);
        registers += constants;
        for (count, changed) in counts.iter_mut().zip(parts_changed(prev, d, constants > 0)) {
            *count += usize::from(changed);
        }
    }
    (PARTS.iter().copied().zip(counts).collect(), registers)
}

/// Whether each of [`PARTS`] differs between `prev` and `d`.
fn parts_changed(prev: &Draw, d: &Draw, constants: bool) -> [bool; PARTS.len()] {
    let (a, b) = (&*prev.raster, &*d.raster);
    let same_raster = Arc::ptr_eq(&prev.raster, &d.raster);
    let differs = |eq: bool| !same_raster && !eq;
    let fp = |d: &Draw| d.fragment_program.as_ref().map(|p| p.hash);
    [
        prev.surface != d.surface,
        prev.vp_hash != d.vp_hash,
        fp(prev) != fp(d),
        fp(prev) == fp(d) && fragment_code(prev) != fragment_code(d),
        constants,
        !Arc::ptr_eq(&prev.textures, &d.textures) && prev.textures != d.textures,
        !Arc::ptr_eq(&prev.vertex_textures, &d.vertex_textures)
            && prev.vertex_textures != d.vertex_textures,
        prev.vertex_inputs.arrays != d.vertex_inputs.arrays,
        differs(
            a.viewport == b.viewport
                && a.scissor == b.scissor
                && a.clip_min.to_bits() == b.clip_min.to_bits()
                && a.clip_max.to_bits() == b.clip_max.to_bits(),
        ),
        differs(
            a.depth == b.depth
                && a.depth_bounds == b.depth_bounds
                && a.zmin_max_control == b.zmin_max_control
                && a.polygon_offset == b.polygon_offset,
        ),
        differs(a.stencil == b.stencil),
        differs(
            a.blend == b.blend
                && a.logic_op == b.logic_op
                && a.color_mask == b.color_mask
                && a.color_mask_mrt == b.color_mask_mrt,
        ),
        differs(a.alpha_test == b.alpha_test),
        differs(
            a.modes == b.modes
                && a.primitives == b.primitives
                && a.shading == b.shading
                && a.anti_aliasing == b.anti_aliasing
                && a.shader_window == b.shader_window,
        ),
        prev.shader_control != d.shader_control
            || prev.shader_packer != d.shader_packer
            || prev.output_mask != d.output_mask,
        differs(
            a.color_clear_value == b.color_clear_value
                && a.zstencil_clear_value == b.zstencil_clear_value,
        ),
    ]
}

/// A draw's fragment microcode, inline constants included.
fn fragment_code(d: &Draw) -> Option<&[u8]> {
    d.fragment_program.as_ref().map(|p| p.ucode.as_slice())
}

/// Transform constant registers whose value or known flag differs between the two draws.
fn changed_constants(prev: &Draw, d: &Draw) -> u64 {
    if Arc::ptr_eq(&prev.constants, &d.constants) {
        return 0;
    }
    d.constants
        .may_differ(&prev.constants)
        .flatten()
        .filter(|&r| d.constants.raw(r) != prev.constants.raw(r))
        .count() as u64
}
