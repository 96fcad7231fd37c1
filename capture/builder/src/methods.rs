//! NV4097 register indices the builder writes, and the FIFO header encoding.
//!
//! Every constant is a *register index* (method byte offset / 4), the unit RPCS3's
//! `gcm_enums.h` uses and the index into `reg_state.registers`. The numbers are the frame
//! model's (`rsxtrace_frame::methods::reg`, one table for decoder and builder); this module
//! gives them the builder's `u32` type (and its historical short names for the texture
//! registers), with the field layouts the builder writes.

use rsxtrace_frame::methods::reg;

/// `NAME;` or `NAME = FRAME_NAME;`: a `u32` copy of `rsxtrace_frame::methods::reg::FRAME_NAME`.
macro_rules! registers {
    ($($(#[$doc:meta])* $name:ident $(= $frame:ident)?;)*) => {
        $($(#[$doc])* pub const $name: u32 = registers!(@frame $name $($frame)?) as u32;)*
    };
    (@frame $name:ident) => { reg::$name };
    (@frame $name:ident $frame:ident) => { reg::$frame };
}

registers! {
    /// `NV4097_NO_OPERATION`; the first command of every capture is `(0x40, 0)`.
    NO_OPERATION;
    /// `GCM_FLIP_COMMAND`: RPCS3 flips the display buffer its argument names.
    GCM_FLIP_COMMAND;

    // --- Draw control (rrc-format.md 4.2) ---
    /// `SET_BEGIN_END`: primitive, or 0 = END.
    SET_BEGIN_END;
    /// `DRAW_ARRAYS`: first in bits 0..23, count-1 in bits 24..31.
    DRAW_ARRAYS;
    /// `INLINE_ARRAY`: raw vertex words.
    INLINE_ARRAY;
    /// `SET_INDEX_ARRAY_ADDRESS`.
    SET_INDEX_ARRAY_ADDRESS;
    /// `SET_INDEX_ARRAY_DMA`: location bits 0..3, type bits 4..11 (0 = u32, 1 = u16).
    SET_INDEX_ARRAY_DMA;
    /// `DRAW_INDEX_ARRAY`: first in bits 0..23, count-1 in bits 24..31.
    DRAW_INDEX_ARRAY;
    /// `SET_RESTART_INDEX_ENABLE`.
    SET_RESTART_INDEX_ENABLE;
    /// `SET_RESTART_INDEX`.
    SET_RESTART_INDEX;
    /// `SET_VERTEX_DATA_BASE_OFFSET`.
    SET_VERTEX_DATA_BASE_OFFSET;
    /// `SET_VERTEX_DATA_BASE_INDEX`.
    SET_VERTEX_DATA_BASE_INDEX;
    /// `CLEAR_SURFACE`.
    CLEAR_SURFACE;
    /// `SET_COLOR_CLEAR_VALUE`.
    SET_COLOR_CLEAR_VALUE;
    /// `SET_ZSTENCIL_CLEAR_VALUE`.
    SET_ZSTENCIL_CLEAR_VALUE;

    // --- Vertex arrays (4.3) ---
    /// `SET_VERTEX_DATA_ARRAY_FORMAT` + i (0x1740 + 4i).
    SET_VERTEX_DATA_ARRAY_FORMAT;
    /// `SET_VERTEX_DATA_ARRAY_OFFSET` + i (0x1680 + 4i): bit 31 location, bits 0..30 offset.
    SET_VERTEX_DATA_ARRAY_OFFSET;
    /// `SET_FREQUENCY_DIVIDER_OPERATION`.
    SET_FREQUENCY_DIVIDER_OPERATION;
    /// `SET_VERTEX_ATTRIB_INPUT_MASK`.
    SET_VERTEX_ATTRIB_INPUT_MASK;
    /// `SET_VERTEX_ATTRIB_OUTPUT_MASK`.
    SET_VERTEX_ATTRIB_OUTPUT_MASK;

    // --- Immediate attributes (4.4) ---
    /// `SET_VERTEX_DATA1F_M` (0x1E40 + 4i).
    SET_VERTEX_DATA1F_M;
    /// `SET_VERTEX_DATA2F_M` (0x1880 + 8i + 4j).
    SET_VERTEX_DATA2F_M;
    /// `SET_VERTEX_DATA3F_M` (0x1500 + 16i + 4j; 3 words used of 4).
    SET_VERTEX_DATA3F_M;
    /// `SET_VERTEX_DATA4F_M` (0x1C00 + 16i + 4j).
    SET_VERTEX_DATA4F_M;
    /// `SET_VERTEX_DATA2S_M` (0x1900 + 4i).
    SET_VERTEX_DATA2S_M;
    /// `SET_VERTEX_DATA4S_M` (0x1980 + 8i + 4j).
    SET_VERTEX_DATA4S_M;
    /// `SET_VERTEX_DATA_SCALED4S_M` (0x0A80 + 8i + 4j).
    SET_VERTEX_DATA_SCALED4S_M;
    /// `SET_VERTEX_DATA4UB_M` (0x1940 + 4i).
    SET_VERTEX_DATA4UB_M;

    // --- Vertex program and constants (4.5) ---
    /// `SET_TRANSFORM_PROGRAM_LOAD`.
    SET_TRANSFORM_PROGRAM_LOAD;
    /// `SET_TRANSFORM_PROGRAM_START`.
    SET_TRANSFORM_PROGRAM_START;
    /// `SET_TRANSFORM_PROGRAM` window base (0x0B80, 32 registers).
    SET_TRANSFORM_PROGRAM;
    /// `SET_TRANSFORM_CONSTANT_LOAD`.
    SET_TRANSFORM_CONSTANT_LOAD;
    /// `SET_TRANSFORM_CONSTANT` window base (0x1F00, 32 registers).
    SET_TRANSFORM_CONSTANT;

    // --- Fragment program (4.6) ---
    /// `SET_SHADER_PROGRAM`: location+1 in bits 0..1, offset in the rest.
    SET_SHADER_PROGRAM;
    /// `SET_SHADER_CONTROL`.
    SET_SHADER_CONTROL;

    // --- Textures (4.7); fragment unit i adds 8*i registers (0x20 bytes) ---
    /// Fragment `TEXTURE_OFFSET`.
    TEXTURE_OFFSET = SET_TEXTURE_OFFSET;
    /// Fragment `TEXTURE_FORMAT`.
    TEXTURE_FORMAT = SET_TEXTURE_FORMAT;
    /// Fragment `TEXTURE_ADDRESS`.
    TEXTURE_ADDRESS = SET_TEXTURE_ADDRESS;
    /// Fragment `TEXTURE_CONTROL0`: enable is bit 31.
    TEXTURE_CONTROL0 = SET_TEXTURE_CONTROL0;
    /// Fragment `TEXTURE_CONTROL1`: channel remap.
    TEXTURE_CONTROL1 = SET_TEXTURE_CONTROL1;
    /// Fragment `TEXTURE_FILTER`.
    TEXTURE_FILTER = SET_TEXTURE_FILTER;
    /// Fragment `TEXTURE_IMAGE_RECT`: height bits 0..15, width bits 16..31.
    TEXTURE_IMAGE_RECT = SET_TEXTURE_IMAGE_RECT;
    /// Fragment `TEXTURE_BORDER_COLOR`.
    TEXTURE_BORDER_COLOR = SET_TEXTURE_BORDER_COLOR;
    /// Fragment `TEXTURE_CONTROL3` (0x1840 + 4i): pitch bits 0..19, depth bits 20..31.
    TEXTURE_CONTROL3 = SET_TEXTURE_CONTROL3;
    /// Vertex texture `OFFSET` (0x0900 + 0x20i); the other vertex texture registers follow.
    VERTEX_TEXTURE_OFFSET = SET_VERTEX_TEXTURE_OFFSET;
    /// Vertex texture `FORMAT`.
    VERTEX_TEXTURE_FORMAT = SET_VERTEX_TEXTURE_FORMAT;
    /// Vertex texture `ADDRESS`.
    VERTEX_TEXTURE_ADDRESS = SET_VERTEX_TEXTURE_ADDRESS;
    /// Vertex texture `CONTROL0`.
    VERTEX_TEXTURE_CONTROL0 = SET_VERTEX_TEXTURE_CONTROL0;
    /// Vertex texture `CONTROL3`.
    VERTEX_TEXTURE_CONTROL3 = SET_VERTEX_TEXTURE_CONTROL3;
    /// Vertex texture `FILTER`.
    VERTEX_TEXTURE_FILTER = SET_VERTEX_TEXTURE_FILTER;
    /// Vertex texture `IMAGE_RECT`.
    VERTEX_TEXTURE_IMAGE_RECT = SET_VERTEX_TEXTURE_IMAGE_RECT;
    /// Vertex texture `BORDER_COLOR`.
    VERTEX_TEXTURE_BORDER_COLOR = SET_VERTEX_TEXTURE_BORDER_COLOR;
    /// Register stride between texture units (0x20 bytes).
    TEXTURE_UNIT_STRIDE;

    // --- Surfaces (4.8) ---
    /// `SET_SURFACE_CLIP_HORIZONTAL`.
    SET_SURFACE_CLIP_HORIZONTAL;
    /// `SET_SURFACE_CLIP_VERTICAL`.
    SET_SURFACE_CLIP_VERTICAL;
    /// `SET_SURFACE_FORMAT`.
    SET_SURFACE_FORMAT;
    /// `SET_SURFACE_PITCH_A`.
    SET_SURFACE_PITCH_A;
    /// `SET_SURFACE_COLOR_AOFFSET`.
    SET_SURFACE_COLOR_AOFFSET;
    /// `SET_SURFACE_ZETA_OFFSET`.
    SET_SURFACE_ZETA_OFFSET;
    /// `SET_SURFACE_COLOR_BOFFSET`.
    SET_SURFACE_COLOR_BOFFSET;
    /// `SET_SURFACE_PITCH_B`.
    SET_SURFACE_PITCH_B;
    /// `SET_SURFACE_COLOR_TARGET`.
    SET_SURFACE_COLOR_TARGET;
    /// `SET_SURFACE_PITCH_Z`.
    SET_SURFACE_PITCH_Z;
    /// `SET_SURFACE_PITCH_C`.
    SET_SURFACE_PITCH_C;
    /// `SET_SURFACE_PITCH_D`.
    SET_SURFACE_PITCH_D;
    /// `SET_SURFACE_COLOR_COFFSET`.
    SET_SURFACE_COLOR_COFFSET;
    /// `SET_SURFACE_COLOR_DOFFSET`.
    SET_SURFACE_COLOR_DOFFSET;
    /// `SET_CONTEXT_DMA_COLOR_A`.
    SET_CONTEXT_DMA_COLOR_A;
    /// `SET_CONTEXT_DMA_COLOR_B`.
    SET_CONTEXT_DMA_COLOR_B;
    /// `SET_CONTEXT_DMA_COLOR_C`.
    SET_CONTEXT_DMA_COLOR_C;
    /// `SET_CONTEXT_DMA_COLOR_D`.
    SET_CONTEXT_DMA_COLOR_D;
    /// `SET_CONTEXT_DMA_ZETA`.
    SET_CONTEXT_DMA_ZETA;
    /// `SET_WINDOW_OFFSET`.
    SET_WINDOW_OFFSET;

    // --- Viewport, scissor, raster, depth, blend (4.8) ---
    /// `SET_VIEWPORT_HORIZONTAL`.
    SET_VIEWPORT_HORIZONTAL;
    /// `SET_VIEWPORT_VERTICAL`.
    SET_VIEWPORT_VERTICAL;
    /// `SET_VIEWPORT_OFFSET` (0x0A20..0x0A2C).
    SET_VIEWPORT_OFFSET;
    /// `SET_VIEWPORT_SCALE` (0x0A30..0x0A3C).
    SET_VIEWPORT_SCALE;
    /// `SET_CLIP_MIN`.
    SET_CLIP_MIN;
    /// `SET_CLIP_MAX`.
    SET_CLIP_MAX;
    /// `SET_SCISSOR_HORIZONTAL`.
    SET_SCISSOR_HORIZONTAL;
    /// `SET_SCISSOR_VERTICAL`.
    SET_SCISSOR_VERTICAL;
    /// `SET_CULL_FACE`.
    SET_CULL_FACE;
    /// `SET_FRONT_FACE`.
    SET_FRONT_FACE;
    /// `SET_CULL_FACE_ENABLE`.
    SET_CULL_FACE_ENABLE;
    /// `SET_DEPTH_FUNC`.
    SET_DEPTH_FUNC;
    /// `SET_DEPTH_MASK`.
    SET_DEPTH_MASK;
    /// `SET_DEPTH_TEST_ENABLE`.
    SET_DEPTH_TEST_ENABLE;
    /// `SET_BLEND_ENABLE`.
    SET_BLEND_ENABLE;
    /// `SET_BLEND_FUNC_SFACTOR`.
    SET_BLEND_FUNC_SFACTOR;
    /// `SET_BLEND_FUNC_DFACTOR`.
    SET_BLEND_FUNC_DFACTOR;
    /// `SET_BLEND_EQUATION`.
    SET_BLEND_EQUATION;
    /// `SET_COLOR_MASK`.
    SET_COLOR_MASK;

    // --- Occlusion reports and conditional rendering ---
    /// `SET_CONTEXT_DMA_REPORT`: the report area.
    SET_CONTEXT_DMA_REPORT;
    /// `CLEAR_REPORT_VALUE`: the report type whose counter is zeroed.
    CLEAR_REPORT_VALUE;
    /// `SET_ZPASS_PIXEL_COUNT_ENABLE`.
    SET_ZPASS_PIXEL_COUNT_ENABLE;
    /// `SET_ZCULL_EN`: Z-cull (bit 0 depth, bit 1 stencil).
    SET_ZCULL_EN;
    /// `GET_REPORT`: type in bits 24..31, offset in bits 0..23.
    GET_REPORT;
    /// `SET_RENDER_ENABLE`: mode in bits 24..31, report offset in bits 0..23.
    SET_RENDER_ENABLE;
}

/// Registers in each batched upload window (rrc-format.md 3.2: 32 from the base).
pub const BATCH_WINDOW: u32 = 32;

/// Number of registers in the file (`0x10000 / 4`; `rsxtrace_rrc::REGISTER_COUNT`).
pub const REGISTER_COUNT: u32 = rsxtrace_rrc::REGISTER_COUNT as u32;

/// The `first` word RPCS3 records for one argument of a normal method:
/// `(reg << 2) | (1 << 18)`, i.e. the byte offset with count 1 (rrc-format.md 3.2).
pub const fn single_header(reg: u32) -> u32 {
    (reg << 2) | (1 << 18)
}

/// The `first` word of a batched upload carrying `count` arguments (rrc-format.md 3.2,
/// increment mode): `(reg << 2) | (count << 18)`.
pub const fn batch_header(reg: u32, count: u32) -> u32 {
    (reg << 2) | ((count & 0x7FF) << 18)
}
