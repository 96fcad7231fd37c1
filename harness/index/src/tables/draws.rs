//! `draws`: one row per draw with everything the frame model decodes about it: primitive and
//! counts, the programs' content keys, the pass class, the surface and every raster state
//! field.

use super::{loc, named, shared};
use crate::cell::Cell;
use crate::facts::pass::Pass;
use crate::schema::{col, Column, Table, Ty, View};
use rsxtrace_capture::fetch::{IndexType, VertexSource};
use rsxtrace_capture::frame::regions::Indexed;
use rsxtrace_capture::frame::state::SurfaceTarget;
use rsxtrace_capture::frame::{BoundRegions, Draw};
use rsxtrace_capture::rrc::{compression_name, TileRegion};
use std::sync::Arc;

/// One draw and what the index derives from it.
#[derive(Clone, Copy)]
pub struct DrawFacts<'a> {
    /// Its capture.
    pub capture_id: i64,
    /// The frame model's draw.
    pub draw: &'a Draw,
    /// Its pass class.
    pub pass: Pass,
    /// Its surface and raster state's number in the capture ([`states`]).
    pub state: usize,
    /// The tile and Z-cull regions bound at its END, when the capture records them.
    pub regions: Option<&'a BoundRegions>,
}

impl DrawFacts<'_> {
    fn color(&self, k: usize) -> &SurfaceTarget {
        &self.draw.surface.color[k]
    }

    /// The tile region holding target `k` (colour 0..4, else the depth surface).
    fn tile(&self, k: usize) -> Option<&Indexed<TileRegion>> {
        self.regions?.tile_of(&self.draw.surface, k)
    }

    /// A tile region's compression mode: its name, or its number when it has none.
    fn compression(&self, k: usize) -> Cell {
        match self.tile(k) {
            Some(t) => match compression_name(t.region.compression) {
                Some(name) => name.into(),
                None => t.region.compression.into(),
            },
            None => Cell::Null,
        }
    }
}

/// Every documented column of `draws`, in the view's order (without `state`).
fn columns<'a>() -> Vec<Column<DrawFacts<'a>>> {
    use Ty::*;
    let c = col::<DrawFacts<'a>>;
    vec![
        c("capture_id", Integer, "The capture (`captures.capture_id`).", |f| f.capture_id.into()),
        c("draw", Integer, "Draw index in the frame, from 0 in END order (as `rsxtrace draws`).", |f| f.draw.index.into()),
        c("begin_command", Integer, "Command index of its `SET_BEGIN_END(primitive)`.", |f| f.draw.begin_command.into()),
        c("end_command", Integer, "Command index of its `SET_BEGIN_END(0)`.", |f| f.draw.end_command.into()),
        c("part", Integer, "Which part of its BEGIN/END the draw is: 0 unless an execution barrier (a vertex base, array offset or transform constant written between its ranges) split it (docs/json.md).", |f| f.draw.part.into()),
        c("primitive", Text, "`points`, `lines`, `line_loop`, `line_strip`, `triangles`, `triangle_strip`, `triangle_fan`, `quads`, `quad_strip` or `polygon`.", |f| f.draw.primitive.name().into()),
        c("source", Text, "Where the vertices come from: `arrays` (`DRAW_ARRAYS`), `indexed` (`DRAW_INDEX_ARRAY`), `inline` (`INLINE_ARRAY`), `elements` (`ARRAY_ELEMENT16/32`) or `immediate` (`SET_VERTEX_DATA*` inside the scope).", |f| match f.draw.vertex_inputs.source {
            VertexSource::Arrays { .. } => "arrays".into(),
            VertexSource::Indexed { .. } => "indexed".into(),
            VertexSource::Inline { .. } => "inline".into(),
            VertexSource::Elements { .. } => "elements".into(),
            VertexSource::Immediate { .. } => "immediate".into(),
        }),
        c("ranges", Integer, "Number of `DRAW_ARRAYS` / `DRAW_INDEX_ARRAY` ranges.", |f| f.draw.ranges.len().into()),
        c("first", Integer, "First vertex (arrays) or first index element (indexed) of the first range; NULL without ranges.", |f| Cell::opt(f.draw.ranges.first().map(|r| r.first))),
        c("vertex_count", Integer, "Vertices submitted: the sum of the range counts, or the inline, element or immediate-mode vertex count (restart indices included).", |f| Cell::Int(f.draw.vertex_count as i64)),
        c("index_type", Text, "`u16` or `u32` for an indexed draw; NULL otherwise.", |f| Cell::opt(f.draw.index_array.map(|i| match i.ty { IndexType::U16 => "u16", IndexType::U32 => "u32" }))),
        c("index_location", Text, "`local` or `main`: where the index buffer is; NULL when not indexed.", |f| Cell::opt(f.draw.index_array.map(|i| i.location.name()))),
        c("index_offset", Integer, "Index buffer offset in its location, bytes; NULL when not indexed.", |f| Cell::opt(f.draw.index_array.map(|i| i.offset))),
        c("restart", Integer, "Primitive restart enabled.", |f| f.draw.vertex_inputs.restart.enabled.into()),
        c("restart_index", Integer, "`SET_RESTART_INDEX`.", |f| f.draw.vertex_inputs.restart.index.into()),
        c("base_offset", Integer, "`SET_VERTEX_DATA_BASE_OFFSET`, bytes.", |f| f.draw.vertex_inputs.base_offset.into()),
        c("base_index", Integer, "`SET_VERTEX_DATA_BASE_INDEX`.", |f| f.draw.vertex_inputs.base_index.into()),
        c("input_mask", Integer, "`SET_VERTEX_ATTRIB_INPUT_MASK`: bit n = attribute n is read.", |f| f.draw.vertex_inputs.input_mask.into()),
        c("output_mask", Integer, "`SET_VERTEX_ATTRIB_OUTPUT_MASK`.", |f| f.draw.output_mask.into()),
        c("pass", Text, "Pass class (see \"Pass classes\"): `colour`, `depth_only`, `shadow` or `full_screen`.", |f| f.pass.name().into()),
        c("vp_key", Text, "Vertex program content key: `vp_hash`, 16 hex digits (`programs.key` with `stage = 'vertex'`).", |f| Cell::text(format!("{:016x}", f.draw.vp_hash))),
        c("vp_start", Integer, "`SET_TRANSFORM_PROGRAM_START`: the vertex program's first slot.", |f| f.draw.vp_start.into()),
        c("vp_end_slot", Integer, "Slot of the vertex program's END; NULL when none was found.", |f| Cell::opt(f.draw.vp_end_slot)),
        c("transform_branch_bits", Integer, "`SET_TRANSFORM_BRANCH_BITS`: the booleans BRB/CLB test.", |f| f.draw.transform_branch_bits.into()),
        c("fp_key", Text, "Fragment program content key: `fp_hash`, 16 hex digits (inline constants zeroed; `programs.key` with `stage = 'fragment'`); NULL when the program could not be read.", |f| Cell::opt(f.draw.fp_hash())),
        c("fp_location", Text, "`local` or `main`: where the fragment program is; NULL when `SET_SHADER_PROGRAM` is invalid.", |f| Cell::opt(f.draw.fp_address.map(|a| a.location.name()))),
        c("fp_offset", Integer, "Fragment program offset in its location, bytes.", |f| Cell::opt(f.draw.fp_address.map(|a| a.offset))),
        c("shader_control", Integer, "`SET_SHADER_CONTROL` raw.", |f| f.draw.shader_control.raw.into()),
        c("depth_export", Integer, "The fragment program writes depth (`SET_SHADER_CONTROL`).", |f| f.draw.shader_control.depth_export.into()),
        c("outputs_32bit", Integer, "Fragment outputs are 32-bit R registers rather than H registers.", |f| f.draw.shader_control.outputs_32bit.into()),
        c("uses_kil", Integer, "The fragment program may discard (`SET_SHADER_CONTROL`).", |f| f.draw.shader_control.uses_kil.into()),
        c("temp_registers", Integer, "Temporary registers the fragment program uses.", |f| f.draw.shader_control.temp_registers.into()),
        c("shader_packer", Integer, "`SET_SHADER_PACKER` raw.", |f| f.draw.shader_packer.into()),
        c("textures_enabled", Integer, "Fragment texture units enabled (`CONTROL0` bit 31).", |f| f.draw.textures.iter().filter(|t| t.control0.enabled).count().into()),
        c("vertex_textures_enabled", Integer, "Vertex texture units enabled.", |f| f.draw.vertex_textures.iter().filter(|t| t.control0.enabled).count().into()),
        c("constants_known", Integer, "Transform constants (of 468) whose value the capture holds at this draw.", |f| f.draw.constants.known_count().into()),
        c("surface_width", Integer, "Surface clip width, pixels (`SET_SURFACE_CLIP_HORIZONTAL`).", |f| f.draw.surface.clip.width.into()),
        c("surface_height", Integer, "Surface clip height, pixels.", |f| f.draw.surface.clip.height.into()),
        c("surface_x", Integer, "Surface clip origin x, pixels.", |f| f.draw.surface.clip.x.into()),
        c("surface_y", Integer, "Surface clip origin y, pixels.", |f| f.draw.surface.clip.y.into()),
        c("color_format", Any, "Surface colour format (`a8r8g8b8`, `r5g6b5`, `x32`, ...).", |f| named(f.draw.surface.format.color_format)),
        c("depth_format", Any, "Surface depth format: `z16` or `z24s8`.", |f| named(f.draw.surface.format.depth_format)),
        c("depth_float", Integer, "`SET_CONTROL0` bit 12: the depth buffer stores floats (a half, or a 24-bit float).", |f| f.draw.surface.depth_float.into()),
        c("surface_type", Any, "`pitch` (linear) or `swizzle`.", |f| named(f.draw.surface.format.surface_type)),
        c("antialias", Any, "Surface antialiasing mode (`center_1_sample`, `square_centered_4_samples`, ...).", |f| named(f.draw.surface.format.antialias)),
        c("log2_width", Integer, "`SET_SURFACE_FORMAT` log2 width (swizzled surfaces).", |f| f.draw.surface.format.log2_width.into()),
        c("log2_height", Integer, "`SET_SURFACE_FORMAT` log2 height.", |f| f.draw.surface.format.log2_height.into()),
        c("color_target", Any, "`SET_SURFACE_COLOR_TARGET`: `none`, `a`, `b`, `a_b`, `a_b_c` or `a_b_c_d`.", |f| named(f.draw.surface.color_target)),
        c("color_a_offset", Integer, "Colour target A offset, bytes.", |f| f.color(0).offset.into()),
        c("color_a_pitch", Integer, "Colour target A pitch, bytes.", |f| f.color(0).pitch.into()),
        c("color_a_location", Text, "Colour target A location (`local`/`main`; NULL for another DMA handle).", |f| loc(f.color(0).location)),
        c("color_b_offset", Integer, "Colour target B offset, bytes.", |f| f.color(1).offset.into()),
        c("color_b_pitch", Integer, "Colour target B pitch, bytes.", |f| f.color(1).pitch.into()),
        c("color_b_location", Text, "Colour target B location.", |f| loc(f.color(1).location)),
        c("color_c_offset", Integer, "Colour target C offset, bytes.", |f| f.color(2).offset.into()),
        c("color_c_pitch", Integer, "Colour target C pitch, bytes.", |f| f.color(2).pitch.into()),
        c("color_c_location", Text, "Colour target C location.", |f| loc(f.color(2).location)),
        c("color_d_offset", Integer, "Colour target D offset, bytes.", |f| f.color(3).offset.into()),
        c("color_d_pitch", Integer, "Colour target D pitch, bytes.", |f| f.color(3).pitch.into()),
        c("color_d_location", Text, "Colour target D location.", |f| loc(f.color(3).location)),
        c("zeta_offset", Integer, "Depth/stencil target offset, bytes.", |f| f.draw.surface.zeta.offset.into()),
        c("zeta_pitch", Integer, "Depth/stencil target pitch, bytes.", |f| f.draw.surface.zeta.pitch.into()),
        c("zeta_location", Text, "Depth/stencil target location.", |f| loc(f.draw.surface.zeta.location)),
        c("color_a_tile", Integer, "The tile region (`cellGcmSetTileInfo` index, 0..15) holding colour target A's first byte, from the capture's tile state at the draw's END; NULL when none does.", |f| Cell::opt(f.tile(0).map(|t| t.index))),
        c("color_a_compression", Any, "That tile region's compression mode (`CELL_GCM_COMPMODE_*` name: `DISABLED`, `C32_2X1`, `C32_2X2`, ...); NULL when not tiled.", |f| f.compression(0)),
        c("zeta_tile", Integer, "The tile region holding the depth/stencil target's first byte; NULL when none does.", |f| Cell::opt(f.tile(4).map(|t| t.index))),
        c("zeta_compression", Any, "That tile region's compression mode (`Z32_SEPSTENCIL_REGULAR`, ...); NULL when not tiled.", |f| f.compression(4)),
        c("zcull_region", Integer, "The Z-cull region (`cellGcmBindZcull` index, 0..7) bound to the depth buffer: at its offset in local memory, with its depth format and antialiasing (RPCS3 `check_zcull_status`); NULL when none is.", |f| Cell::opt(f.regions.and_then(|r| r.zcull_of(&f.draw.surface)).map(|z| z.index))),
        c("window_offset_x", Integer, "`SET_WINDOW_OFFSET` x, pixels.", |f| f.draw.surface.window_offset_x.into()),
        c("window_offset_y", Integer, "`SET_WINDOW_OFFSET` y, pixels.", |f| f.draw.surface.window_offset_y.into()),
        c("viewport_x", Integer, "Viewport origin x, pixels.", |f| f.draw.raster.viewport.rect.x.into()),
        c("viewport_y", Integer, "Viewport origin y, pixels.", |f| f.draw.raster.viewport.rect.y.into()),
        c("viewport_width", Integer, "Viewport width, pixels.", |f| f.draw.raster.viewport.rect.width.into()),
        c("viewport_height", Integer, "Viewport height, pixels.", |f| f.draw.raster.viewport.rect.height.into()),
        c("viewport_offset_x", Real, "`SET_VIEWPORT_OFFSET[0]`: window x of clip x = 0, pixels.", |f| f.draw.raster.viewport.offset[0].into()),
        c("viewport_offset_y", Real, "`SET_VIEWPORT_OFFSET[1]`, pixels.", |f| f.draw.raster.viewport.offset[1].into()),
        c("viewport_offset_z", Real, "`SET_VIEWPORT_OFFSET[2]`: depth offset.", |f| f.draw.raster.viewport.offset[2].into()),
        c("viewport_offset_w", Real, "`SET_VIEWPORT_OFFSET[3]`.", |f| f.draw.raster.viewport.offset[3].into()),
        c("viewport_scale_x", Real, "`SET_VIEWPORT_SCALE[0]`: pixels per clip unit.", |f| f.draw.raster.viewport.scale[0].into()),
        c("viewport_scale_y", Real, "`SET_VIEWPORT_SCALE[1]` (negative: y flipped).", |f| f.draw.raster.viewport.scale[1].into()),
        c("viewport_scale_z", Real, "`SET_VIEWPORT_SCALE[2]`: depth scale.", |f| f.draw.raster.viewport.scale[2].into()),
        c("viewport_scale_w", Real, "`SET_VIEWPORT_SCALE[3]`.", |f| f.draw.raster.viewport.scale[3].into()),
        c("scissor_x", Integer, "Scissor origin x, pixels.", |f| f.draw.raster.scissor.x.into()),
        c("scissor_y", Integer, "Scissor origin y, pixels.", |f| f.draw.raster.scissor.y.into()),
        c("scissor_width", Integer, "Scissor width, pixels.", |f| f.draw.raster.scissor.width.into()),
        c("scissor_height", Integer, "Scissor height, pixels.", |f| f.draw.raster.scissor.height.into()),
        c("clip_min", Real, "`SET_CLIP_MIN`: depth range near.", |f| f.draw.raster.clip_min.into()),
        c("clip_max", Real, "`SET_CLIP_MAX`: depth range far.", |f| f.draw.raster.clip_max.into()),
        c("zmin_max_clip", Integer, "`SET_ZMIN_MAX_CONTROL` bits 0..3 (depth clipping).", |f| f.draw.raster.zmin_max_control.clip.into()),
        c("zmin_max_clamp", Integer, "`SET_ZMIN_MAX_CONTROL` bits 4..7 (depth clamping).", |f| f.draw.raster.zmin_max_control.clamp.into()),
        c("zmin_max_ignore_w", Integer, "`SET_ZMIN_MAX_CONTROL` bits 8..11.", |f| f.draw.raster.zmin_max_control.ignore_w.into()),
        c("front_polygon_mode", Any, "`point`, `line` or `fill`.", |f| named(f.draw.raster.modes.front_polygon_mode)),
        c("back_polygon_mode", Any, "`point`, `line` or `fill`.", |f| named(f.draw.raster.modes.back_polygon_mode)),
        c("cull_enabled", Integer, "Face culling enabled.", |f| f.draw.raster.modes.cull_enabled.into()),
        c("cull_face", Any, "`front`, `back` or `front_and_back`.", |f| named(f.draw.raster.modes.cull_face)),
        c("front_face", Any, "`cw` or `ccw`.", |f| named(f.draw.raster.modes.front_face)),
        c("shade_mode", Any, "`flat` or `smooth`.", |f| named(f.draw.raster.modes.shade_mode)),
        c("depth_test", Integer, "Depth test enabled.", |f| f.draw.raster.depth.test.into()),
        c("depth_func", Any, "Depth comparison (`never`, `less`, `equal`, `lequal`, `greater`, `notequal`, `gequal`, `always`).", |f| named(f.draw.raster.depth.func)),
        c("depth_mask", Integer, "Depth writes enabled.", |f| f.draw.raster.depth.mask.into()),
        c("depth_bounds_test", Integer, "Depth bounds test enabled (`SET_DEPTH_BOUNDS_TEST_ENABLE`).", |f| f.draw.raster.depth_bounds.enabled.into()),
        c("depth_bounds_min", Real, "`SET_DEPTH_BOUNDS_MIN`: stored depths below it fail the bounds test.", |f| f.draw.raster.depth_bounds.min.into()),
        c("depth_bounds_max", Real, "`SET_DEPTH_BOUNDS_MAX`: stored depths above it fail the bounds test.", |f| f.draw.raster.depth_bounds.max.into()),
        c("logic_op_enabled", Integer, "Colour logic operation enabled (`SET_LOGIC_OP_ENABLE`; it replaces blending).", |f| f.draw.raster.logic_op.enabled.into()),
        c("logic_op", Any, "`SET_LOGIC_OP` (`clear`, `and`, `and_reverse`, `copy`, `and_inverted`, `noop`, `xor`, `or`, `nor`, `equiv`, `invert`, `or_reverse`, `copy_inverted`, `or_inverted`, `nand`, `set`).", |f| named(f.draw.raster.logic_op.op)),
        c("stencil_test", Integer, "Stencil test enabled.", |f| f.draw.raster.stencil.enabled.into()),
        c("stencil_two_sided", Integer, "Two-sided stencil enabled.", |f| f.draw.raster.stencil.two_sided.into()),
        c("stencil_func", Any, "Front stencil comparison.", |f| named(f.draw.raster.stencil.front.func)),
        c("stencil_ref", Integer, "Front stencil reference value.", |f| f.draw.raster.stencil.front.reference.into()),
        c("stencil_func_mask", Integer, "Front stencil comparison mask.", |f| f.draw.raster.stencil.front.func_mask.into()),
        c("stencil_write_mask", Integer, "Front stencil write mask.", |f| f.draw.raster.stencil.front.write_mask.into()),
        c("stencil_fail", Any, "Front stencil operation when the stencil test fails (`keep`, `zero`, `replace`, `incr`, ...).", |f| named(f.draw.raster.stencil.front.fail)),
        c("stencil_zfail", Any, "Front stencil operation when the depth test fails.", |f| named(f.draw.raster.stencil.front.zfail)),
        c("stencil_zpass", Any, "Front stencil operation when both pass.", |f| named(f.draw.raster.stencil.front.zpass)),
        c("back_stencil_func", Any, "Back stencil comparison.", |f| named(f.draw.raster.stencil.back.func)),
        c("back_stencil_ref", Integer, "Back stencil reference value.", |f| f.draw.raster.stencil.back.reference.into()),
        c("back_stencil_func_mask", Integer, "Back stencil comparison mask.", |f| f.draw.raster.stencil.back.func_mask.into()),
        c("back_stencil_write_mask", Integer, "Back stencil write mask.", |f| f.draw.raster.stencil.back.write_mask.into()),
        c("back_stencil_fail", Any, "Back stencil operation when the stencil test fails.", |f| named(f.draw.raster.stencil.back.fail)),
        c("back_stencil_zfail", Any, "Back stencil operation when the depth test fails.", |f| named(f.draw.raster.stencil.back.zfail)),
        c("back_stencil_zpass", Any, "Back stencil operation when both pass.", |f| named(f.draw.raster.stencil.back.zpass)),
        c("blend", Integer, "Blending enabled (`SET_BLEND_ENABLE`).", |f| f.draw.raster.blend.enabled.into()),
        c("blend_mrt", Integer, "`SET_BLEND_ENABLE_MRT` raw.", |f| f.draw.raster.blend.enabled_mrt.into()),
        c("blend_src_rgb", Any, "Source colour factor (`zero`, `one`, `src_alpha`, `one_minus_src_alpha`, ...).", |f| named(f.draw.raster.blend.src_rgb)),
        c("blend_src_alpha", Any, "Source alpha factor.", |f| named(f.draw.raster.blend.src_alpha)),
        c("blend_dst_rgb", Any, "Destination colour factor.", |f| named(f.draw.raster.blend.dst_rgb)),
        c("blend_dst_alpha", Any, "Destination alpha factor.", |f| named(f.draw.raster.blend.dst_alpha)),
        c("blend_equation_rgb", Any, "Colour blend equation (`func_add`, `min`, `max`, `func_subtract`, ...).", |f| named(f.draw.raster.blend.equation_rgb)),
        c("blend_equation_alpha", Any, "Alpha blend equation.", |f| named(f.draw.raster.blend.equation_alpha)),
        c("blend_color", Integer, "`SET_BLEND_COLOR` raw.", |f| f.draw.raster.blend.color.into()),
        c("blend_color2", Integer, "`SET_BLEND_COLOR2` raw.", |f| f.draw.raster.blend.color2.into()),
        c("color_mask_r", Integer, "Red writes enabled.", |f| f.draw.raster.color_mask.r.into()),
        c("color_mask_g", Integer, "Green writes enabled.", |f| f.draw.raster.color_mask.g.into()),
        c("color_mask_b", Integer, "Blue writes enabled.", |f| f.draw.raster.color_mask.b.into()),
        c("color_mask_a", Integer, "Alpha writes enabled.", |f| f.draw.raster.color_mask.a.into()),
        c("color_mask_mrt", Integer, "`SET_COLOR_MASK_MRT` raw.", |f| f.draw.raster.color_mask_mrt.into()),
        c("alpha_test", Integer, "Alpha test enabled.", |f| f.draw.raster.alpha_test.enabled.into()),
        c("alpha_func", Any, "Alpha test comparison.", |f| named(f.draw.raster.alpha_test.func)),
        c("alpha_ref", Integer, "Alpha test reference, raw register.", |f| f.draw.raster.alpha_test.reference.into()),
        c("polygon_offset_point", Integer, "Polygon offset for points enabled.", |f| f.draw.raster.polygon_offset.point.into()),
        c("polygon_offset_line", Integer, "Polygon offset for lines enabled.", |f| f.draw.raster.polygon_offset.line.into()),
        c("polygon_offset_fill", Integer, "Polygon offset for filled polygons enabled.", |f| f.draw.raster.polygon_offset.fill.into()),
        c("polygon_offset_scale", Real, "Polygon offset factor.", |f| f.draw.raster.polygon_offset.scale.into()),
        c("polygon_offset_bias", Real, "Polygon offset units.", |f| f.draw.raster.polygon_offset.bias.into()),
        c("anti_aliasing", Integer, "`SET_ANTI_ALIASING_CONTROL` enable bit.", |f| f.draw.raster.anti_aliasing.enabled.into()),
        c("alpha_to_coverage", Integer, "Alpha to coverage enabled.", |f| f.draw.raster.anti_aliasing.alpha_to_coverage.into()),
        c("alpha_to_one", Integer, "Alpha to one enabled.", |f| f.draw.raster.anti_aliasing.alpha_to_one.into()),
        c("sample_mask", Integer, "Multisample mask.", |f| f.draw.raster.anti_aliasing.sample_mask.into()),
        c("shader_window_height", Integer, "`SET_SHADER_WINDOW` height, pixels.", |f| f.draw.raster.shader_window.height.into()),
        c("shader_window_origin", Integer, "`SET_SHADER_WINDOW` origin (0 top, 1 bottom).", |f| f.draw.raster.shader_window.origin.into()),
        c("shader_window_pixel_center", Integer, "`SET_SHADER_WINDOW` pixel centre (0 half, 1 integer).", |f| f.draw.raster.shader_window.pixel_center.into()),
        c("conditional_render", Integer, "`SET_RENDER_ENABLE` mode 2: the hardware draws it only when the occlusion query in `conditional_report` counted a sample (replay counts the frame's queries and decides it).", |f| f.draw.raster.render_enable.conditional().into()),
        c("conditional_report", Integer, "`SET_RENDER_ENABLE` bits 0..23: the report's offset in the report area, when `conditional_render`; NULL otherwise.", |f| Cell::opt(f.draw.raster.render_enable.conditional().then(|| i64::from(f.draw.raster.render_enable.report_offset)))),
        c("zpass_pixel_count", Integer, "`SET_ZPASS_PIXEL_COUNT_ENABLE`: the samples it passes are counted for an occlusion query (`GET_REPORT` of `ZPASS_PIXEL_CNT`).", |f| f.draw.raster.occlusion.zpass_pixel_count.into()),
        c("report_area", Integer, "`SET_CONTEXT_DMA_REPORT`: 1717724768 (0x66626660) the RSX's report memory, 3134619648 (0xBAD68000) main memory.", |f| f.draw.raster.occlusion.report_dma.into()),
        c("zcull", Integer, "`SET_ZCULL_EN` non-zero: Z-cull on (RPCS3 counts an occlusion query's samples only then).", |f| f.draw.raster.occlusion.zcull.into()),
        c("color_clear_value", Integer, "`SET_COLOR_CLEAR_VALUE` (ARGB8).", |f| f.draw.raster.color_clear_value.into()),
        c("zstencil_clear_value", Integer, "`SET_ZSTENCIL_CLEAR_VALUE`.", |f| f.draw.raster.zstencil_clear_value.into()),
        c("point_size", Real, "Point size, pixels.", |f| f.draw.raster.primitives.point_size.into()),
        c("line_width", Real, "Line width, pixels.", |f| f.draw.raster.primitives.line_width.into()),
        c("line_smooth", Integer, "Line smoothing enabled.", |f| f.draw.raster.primitives.line_smooth.into()),
        c("polygon_smooth", Integer, "Polygon smoothing enabled.", |f| f.draw.raster.primitives.polygon_smooth.into()),
        c("line_stipple", Integer, "Line stipple enabled.", |f| f.draw.raster.primitives.line_stipple.enabled.into()),
        c("line_stipple_pattern", Integer, "Line stipple pattern (16 bits).", |f| f.draw.raster.primitives.line_stipple.pattern.into()),
        c("line_stipple_repeat", Integer, "Line stipple repeat factor.", |f| f.draw.raster.primitives.line_stipple.repeat.into()),
        c("polygon_stipple", Integer, "Polygon stipple enabled.", |f| f.draw.raster.primitives.polygon_stipple.enabled.into()),
        c("point_sprite", Integer, "Point sprites enabled.", |f| f.draw.raster.primitives.point_sprite.enabled.into()),
        c("point_sprite_r_mode", Integer, "Point sprite R coordinate mode.", |f| f.draw.raster.primitives.point_sprite.r_mode.into()),
        c("point_sprite_texcoord_mask", Integer, "Texture coordinates replaced by point sprite coordinates (bit n = TEXn).", |f| f.draw.raster.primitives.point_sprite.texcoord_mask.into()),
        c("two_side_light", Integer, "Two-sided colour enabled.", |f| f.draw.raster.shading.two_side_light.into()),
        c("flat_shade_first", Integer, "Flat shading takes the first vertex of a primitive.", |f| f.draw.raster.shading.flat_shade_first.into()),
        c("fog_mode", Any, "`SET_FOG_MODE`: `linear`, `exp`, `exp2`, `exp_abs`, `exp2_abs` or `linear_abs`.", |f| named(f.draw.raster.shading.fog_mode)),
        c("fog_param0", Real, "`SET_FOG_PARAMS[0]`.", |f| f.draw.raster.shading.fog_params[0].into()),
        c("fog_param1", Real, "`SET_FOG_PARAMS[1]`.", |f| f.draw.raster.shading.fog_params[1].into()),
        c("user_clip_planes", Text, "The six user clip planes' operations, space-separated (`disabled`, `less_than`, `greater_or_equal`).", |f| Cell::text(f.draw.raster.shading.user_clip_planes.iter().map(|p| match p.name { Some(n) => n.to_string(), None => p.raw.to_string() }).collect::<Vec<_>>().join(" "))),
        c("texcoord_2d", Integer, "`SET_TEX_COORD_CONTROL`: two-dimensional texture coordinates, bit n = TEXn (they read `(x, y, 0, clip w)`).", |f| f.draw.raster.shading.texcoord_2d.into()),
        c("problems", Text, "What the frame model could not decode for this draw, `; `-separated; NULL when nothing.", |f| if f.draw.problems.is_empty() { Cell::Null } else { Cell::text(f.draw.problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")) }),
    ]
}

/// The first and last columns of the surface and raster state, stored once per distinct
/// value in `draw_states`: a frame has thousands of draws and a handful of states (the game
/// sample: 2,400 draws, 9 states), and their 130 columns were most of what indexing wrote.
const STATE_COLUMNS: (&str, &str) = ("surface_width", "texcoord_2d");

/// The names of the state columns.
fn state_names() -> Vec<&'static str> {
    let names: Vec<&'static str> = columns().iter().map(|c| c.name).collect();
    let at = |name| names.iter().position(|n| *n == name).unwrap_or(0);
    names[at(STATE_COLUMNS.0)..=at(STATE_COLUMNS.1)].to_vec()
}

/// `draws`' columns split into the per-draw ones and the state ones.
fn split<'a>() -> (Vec<Column<DrawFacts<'a>>>, Vec<Column<DrawFacts<'a>>>) {
    let state = state_names();
    shared::split(columns(), |name| state.contains(&name))
}

fn state_column<'a>() -> Column<DrawFacts<'a>> {
    shared::number_column(
        "state",
        "The draw's surface and raster state (`draw_states.state`): draws with one number \
         have equal values in every column from `surface_width` to `texcoord_2d`.",
        |f| f.state.into(),
    )
}

/// The `draw_rows` table: `draws` less its surface and raster state, which it names by number.
pub fn rows_table<'a>() -> Table<DrawFacts<'a>> {
    let (mut columns, _) = split();
    let problems = columns.pop().expect("problems column");
    columns.push(state_column());
    columns.push(problems);
    Table {
        name: "draw_rows",
        doc: "What `draws` stores per draw: every column of `draws` but the surface and \
              raster state (`surface_width` to `texcoord_2d`), which `state` names \
              (`draw_states`). Query `draws`.",
        primary_key: &["capture_id", "draw"],
        indexes: &[&["vp_key"], &["fp_key"], &["pass"]],
        columns,
    }
}

/// The `draw_states` table: each distinct surface and raster state of a capture, once.
pub fn states_table<'a>() -> Table<DrawFacts<'a>> {
    let (_, state) = split();
    let mut columns = vec![
        col(
            "capture_id",
            Ty::Integer,
            "The capture.",
            |f: &DrawFacts<'a>| f.capture_id.into(),
        ),
        state_column(),
    ];
    columns.extend(state);
    Table {
        name: "draw_states",
        doc: "One row per distinct surface and raster state among a capture's draws, numbered \
              from 0 in order of first use (`draws.state`); the columns are `draws`' \
              `surface_width` to `texcoord_2d`.",
        primary_key: &["capture_id", "state"],
        indexes: &[],
        columns,
    }
}

/// The `draws` view: `draw_rows` joined with `draw_states`, in the documented column order,
/// with `state` last.
pub fn view() -> View {
    let state = state_names();
    shared::split_view(
        "draws",
        "One row per draw (a `SET_BEGIN_END` scope) of each capture, in END order, with the \
         state in effect at its END. Enumerated state holds the value's lowercase name (as in \
         `rsxtrace dump --json`), or its raw number when the value has no name. Booleans are 0 \
         or 1. Made from `draw_rows` and `draw_states`.",
        &columns(),
        |name| state.contains(&name),
        ("draw_rows", "draw_states"),
        state_column::<'static>(),
    )
}

/// Each draw's state number and, per state, the first draw that has it (indices into
/// `draws`): draws whose `draw_states` columns are equal share a number, given in order of
/// first use.
pub fn states(draws: &[DrawFacts<'_>]) -> (Vec<usize>, Vec<usize>) {
    let (_, state) = split();
    // The state columns read only the surface and the raster state: a draw that shares both
    // with the draw before has its state.
    shared::numbers(draws, &state, |before, row| {
        Arc::ptr_eq(&before.draw.raster, &row.draw.raster)
            && before.draw.surface == row.draw.surface
            && match (before.regions, row.regions) {
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
    })
}
