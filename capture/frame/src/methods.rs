//! Method names: register index -> `NV4097_*` / `NV0039_*` / ... name, with array methods named
//! with their element index (`NV4097_SET_TEXTURE_FORMAT[3]`).
//!
//! Names and byte offsets are facts from RPCS3's `rpcs3/Emu/RSX/gcm_enums.h` (enum
//! `CellGcmMethod`); array lengths and strides from rrc-format.md 4.3 to 4.7 and RPCS3's
//! `rsx_methods.cpp` bind tables. Registers that name no method are given their class prefix
//! and byte offset (`NV4097_METHOD_0x0A50`).

use std::borrow::Cow;
use std::sync::OnceLock;

/// Register indices (byte offset / 4) of the NV4097 methods and of the transfer classes
/// (NV0039, NV3062, NV309E, NV3089; subchannel bits included): the one table the frame model,
/// the transfer decoder (`rsxtrace_replay::render::transfer::decode`) and the capture builder
/// use.
pub mod reg {
    #![allow(missing_docs)]
    pub const NO_OPERATION: u16 = 0x0100 >> 2;
    pub const SET_CONTEXT_DMA_COLOR_B: u16 = 0x018C >> 2;
    pub const SET_CONTEXT_DMA_COLOR_A: u16 = 0x0194 >> 2;
    pub const SET_CONTEXT_DMA_ZETA: u16 = 0x0198 >> 2;
    pub const SET_CONTEXT_DMA_COLOR_C: u16 = 0x01B4 >> 2;
    pub const SET_CONTEXT_DMA_COLOR_D: u16 = 0x01B8 >> 2;
    pub const SET_SURFACE_CLIP_HORIZONTAL: u16 = 0x0200 >> 2;
    pub const SET_SURFACE_CLIP_VERTICAL: u16 = 0x0204 >> 2;
    pub const SET_SURFACE_FORMAT: u16 = 0x0208 >> 2;
    pub const SET_SURFACE_PITCH_A: u16 = 0x020C >> 2;
    pub const SET_SURFACE_COLOR_AOFFSET: u16 = 0x0210 >> 2;
    pub const SET_SURFACE_ZETA_OFFSET: u16 = 0x0214 >> 2;
    pub const SET_SURFACE_COLOR_BOFFSET: u16 = 0x0218 >> 2;
    pub const SET_SURFACE_PITCH_B: u16 = 0x021C >> 2;
    pub const SET_SURFACE_COLOR_TARGET: u16 = 0x0220 >> 2;
    pub const SET_SURFACE_PITCH_Z: u16 = 0x022C >> 2;
    pub const SET_SURFACE_PITCH_C: u16 = 0x0280 >> 2;
    pub const SET_SURFACE_PITCH_D: u16 = 0x0284 >> 2;
    pub const SET_SURFACE_COLOR_COFFSET: u16 = 0x0288 >> 2;
    pub const SET_SURFACE_COLOR_DOFFSET: u16 = 0x028C >> 2;
    pub const SET_WINDOW_OFFSET: u16 = 0x02B8 >> 2;
    pub const SET_CONTROL0: u16 = 0x03B0 >> 2;
    pub const SET_ALPHA_TEST_ENABLE: u16 = 0x0304 >> 2;
    pub const SET_ALPHA_FUNC: u16 = 0x0308 >> 2;
    pub const SET_ALPHA_REF: u16 = 0x030C >> 2;
    pub const SET_BLEND_ENABLE: u16 = 0x0310 >> 2;
    pub const SET_BLEND_FUNC_SFACTOR: u16 = 0x0314 >> 2;
    pub const SET_BLEND_FUNC_DFACTOR: u16 = 0x0318 >> 2;
    pub const SET_BLEND_COLOR: u16 = 0x031C >> 2;
    pub const SET_BLEND_EQUATION: u16 = 0x0320 >> 2;
    pub const SET_COLOR_MASK: u16 = 0x0324 >> 2;
    pub const SET_STENCIL_TEST_ENABLE: u16 = 0x0328 >> 2;
    pub const SET_STENCIL_MASK: u16 = 0x032C >> 2;
    pub const SET_STENCIL_FUNC: u16 = 0x0330 >> 2;
    pub const SET_STENCIL_FUNC_REF: u16 = 0x0334 >> 2;
    pub const SET_STENCIL_FUNC_MASK: u16 = 0x0338 >> 2;
    pub const SET_STENCIL_OP_FAIL: u16 = 0x033C >> 2;
    pub const SET_STENCIL_OP_ZFAIL: u16 = 0x0340 >> 2;
    pub const SET_STENCIL_OP_ZPASS: u16 = 0x0344 >> 2;
    pub const SET_TWO_SIDED_STENCIL_TEST_ENABLE: u16 = 0x0348 >> 2;
    pub const SET_BACK_STENCIL_MASK: u16 = 0x034C >> 2;
    pub const SET_BACK_STENCIL_FUNC: u16 = 0x0350 >> 2;
    pub const SET_BACK_STENCIL_FUNC_REF: u16 = 0x0354 >> 2;
    pub const SET_BACK_STENCIL_FUNC_MASK: u16 = 0x0358 >> 2;
    pub const SET_BACK_STENCIL_OP_FAIL: u16 = 0x035C >> 2;
    pub const SET_BACK_STENCIL_OP_ZFAIL: u16 = 0x0360 >> 2;
    pub const SET_BACK_STENCIL_OP_ZPASS: u16 = 0x0364 >> 2;
    pub const SET_SHADE_MODE: u16 = 0x0368 >> 2;
    pub const SET_BLEND_ENABLE_MRT: u16 = 0x036C >> 2;
    pub const SET_COLOR_MASK_MRT: u16 = 0x0370 >> 2;
    pub const SET_BLEND_COLOR2: u16 = 0x037C >> 2;
    pub const SET_LOGIC_OP_ENABLE: u16 = 0x0374 >> 2;
    pub const SET_LOGIC_OP: u16 = 0x0378 >> 2;
    pub const SET_DEPTH_BOUNDS_TEST_ENABLE: u16 = 0x0380 >> 2;
    pub const SET_DEPTH_BOUNDS_MIN: u16 = 0x0384 >> 2;
    pub const SET_DEPTH_BOUNDS_MAX: u16 = 0x0388 >> 2;
    pub const SET_CLIP_MIN: u16 = 0x0394 >> 2;
    pub const SET_CLIP_MAX: u16 = 0x0398 >> 2;
    pub const SET_LINE_WIDTH: u16 = 0x03B8 >> 2;
    pub const SET_LINE_SMOOTH_ENABLE: u16 = 0x03BC >> 2;
    pub const SET_SCISSOR_HORIZONTAL: u16 = 0x08C0 >> 2;
    pub const SET_SCISSOR_VERTICAL: u16 = 0x08C4 >> 2;
    pub const SET_FOG_MODE: u16 = 0x08CC >> 2;
    pub const SET_FOG_PARAMS: u16 = 0x08D0 >> 2;
    pub const SET_SHADER_PROGRAM: u16 = 0x08E4 >> 2;
    pub const SET_VERTEX_TEXTURE_OFFSET: u16 = 0x0900 >> 2;
    pub const SET_VERTEX_TEXTURE_FORMAT: u16 = 0x0904 >> 2;
    pub const SET_VERTEX_TEXTURE_ADDRESS: u16 = 0x0908 >> 2;
    pub const SET_VERTEX_TEXTURE_CONTROL0: u16 = 0x090C >> 2;
    pub const SET_VERTEX_TEXTURE_CONTROL3: u16 = 0x0910 >> 2;
    pub const SET_VERTEX_TEXTURE_FILTER: u16 = 0x0914 >> 2;
    pub const SET_VERTEX_TEXTURE_IMAGE_RECT: u16 = 0x0918 >> 2;
    pub const SET_VERTEX_TEXTURE_BORDER_COLOR: u16 = 0x091C >> 2;
    pub const SET_VIEWPORT_HORIZONTAL: u16 = 0x0A00 >> 2;
    pub const SET_VIEWPORT_VERTICAL: u16 = 0x0A04 >> 2;
    pub const SET_VIEWPORT_OFFSET: u16 = 0x0A20 >> 2;
    pub const SET_VIEWPORT_SCALE: u16 = 0x0A30 >> 2;
    pub const SET_POLY_OFFSET_POINT_ENABLE: u16 = 0x0A60 >> 2;
    pub const SET_POLY_OFFSET_LINE_ENABLE: u16 = 0x0A64 >> 2;
    pub const SET_POLY_OFFSET_FILL_ENABLE: u16 = 0x0A68 >> 2;
    pub const SET_DEPTH_FUNC: u16 = 0x0A6C >> 2;
    pub const SET_DEPTH_MASK: u16 = 0x0A70 >> 2;
    pub const SET_DEPTH_TEST_ENABLE: u16 = 0x0A74 >> 2;
    pub const SET_POLYGON_OFFSET_SCALE_FACTOR: u16 = 0x0A78 >> 2;
    pub const SET_POLYGON_OFFSET_BIAS: u16 = 0x0A7C >> 2;
    pub const SET_VERTEX_DATA_SCALED4S_M: u16 = 0x0A80 >> 2;
    pub const SET_TEXTURE_CONTROL2: u16 = 0x0B00 >> 2;
    pub const SET_TEX_COORD_CONTROL: u16 = 0x0B40 >> 2;
    pub const SET_TRANSFORM_PROGRAM: u16 = 0x0B80 >> 2;
    pub const SET_VERTEX_DATA3F_M: u16 = 0x1500 >> 2;
    pub const SET_TWO_SIDE_LIGHT_EN: u16 = 0x142C >> 2;
    pub const SET_FLAT_SHADE_OP: u16 = 0x1454 >> 2;
    pub const SET_USER_CLIP_PLANE_CONTROL: u16 = 0x1478 >> 2;
    pub const SET_POLYGON_STIPPLE: u16 = 0x147C >> 2;
    pub const SET_POLYGON_STIPPLE_PATTERN: u16 = 0x1480 >> 2;
    pub const SET_VERTEX_DATA_ARRAY_OFFSET: u16 = 0x1680 >> 2;
    pub const SET_VERTEX_DATA_BASE_OFFSET: u16 = 0x1738 >> 2;
    pub const SET_VERTEX_DATA_BASE_INDEX: u16 = 0x173C >> 2;
    pub const SET_VERTEX_DATA_ARRAY_FORMAT: u16 = 0x1740 >> 2;
    pub const SET_BEGIN_END: u16 = 0x1808 >> 2;
    pub const ARRAY_ELEMENT16: u16 = 0x180C >> 2;
    pub const ARRAY_ELEMENT32: u16 = 0x1810 >> 2;
    pub const DRAW_ARRAYS: u16 = 0x1814 >> 2;
    pub const INLINE_ARRAY: u16 = 0x1818 >> 2;
    pub const SET_INDEX_ARRAY_ADDRESS: u16 = 0x181C >> 2;
    pub const SET_INDEX_ARRAY_DMA: u16 = 0x1820 >> 2;
    pub const DRAW_INDEX_ARRAY: u16 = 0x1824 >> 2;
    pub const SET_FRONT_POLYGON_MODE: u16 = 0x1828 >> 2;
    pub const SET_BACK_POLYGON_MODE: u16 = 0x182C >> 2;
    pub const SET_CULL_FACE: u16 = 0x1830 >> 2;
    pub const SET_FRONT_FACE: u16 = 0x1834 >> 2;
    pub const SET_POLY_SMOOTH_ENABLE: u16 = 0x1838 >> 2;
    pub const SET_CULL_FACE_ENABLE: u16 = 0x183C >> 2;
    pub const SET_TEXTURE_CONTROL3: u16 = 0x1840 >> 2;
    pub const SET_VERTEX_DATA2F_M: u16 = 0x1880 >> 2;
    pub const SET_VERTEX_DATA2S_M: u16 = 0x1900 >> 2;
    pub const SET_VERTEX_DATA4UB_M: u16 = 0x1940 >> 2;
    pub const SET_VERTEX_DATA4S_M: u16 = 0x1980 >> 2;
    pub const SET_TEXTURE_OFFSET: u16 = 0x1A00 >> 2;
    pub const SET_TEXTURE_FORMAT: u16 = 0x1A04 >> 2;
    pub const SET_TEXTURE_ADDRESS: u16 = 0x1A08 >> 2;
    pub const SET_TEXTURE_CONTROL0: u16 = 0x1A0C >> 2;
    pub const SET_TEXTURE_CONTROL1: u16 = 0x1A10 >> 2;
    pub const SET_TEXTURE_FILTER: u16 = 0x1A14 >> 2;
    pub const SET_TEXTURE_IMAGE_RECT: u16 = 0x1A18 >> 2;
    pub const SET_TEXTURE_BORDER_COLOR: u16 = 0x1A1C >> 2;
    pub const SET_VERTEX_DATA4F_M: u16 = 0x1C00 >> 2;
    pub const SET_SHADER_CONTROL: u16 = 0x1D60 >> 2;
    pub const SET_ZMIN_MAX_CONTROL: u16 = 0x1D78 >> 2;
    pub const SET_ANTI_ALIASING_CONTROL: u16 = 0x1D7C >> 2;
    pub const SET_SHADER_WINDOW: u16 = 0x1D88 >> 2;
    pub const SET_RENDER_ENABLE: u16 = 0x1E98 >> 2;
    pub const SET_CONTEXT_DMA_REPORT: u16 = 0x01A8 >> 2;
    pub const CLEAR_REPORT_VALUE: u16 = 0x17C8 >> 2;
    pub const SET_ZPASS_PIXEL_COUNT_ENABLE: u16 = 0x17CC >> 2;
    pub const SET_ZCULL_EN: u16 = 0x1D84 >> 2;
    pub const GET_REPORT: u16 = 0x1800 >> 2;
    pub const SET_ZSTENCIL_CLEAR_VALUE: u16 = 0x1D8C >> 2;
    pub const SET_COLOR_CLEAR_VALUE: u16 = 0x1D90 >> 2;
    pub const CLEAR_SURFACE: u16 = 0x1D94 >> 2;
    pub const SET_RESTART_INDEX_ENABLE: u16 = 0x1DAC >> 2;
    pub const SET_RESTART_INDEX: u16 = 0x1DB0 >> 2;
    pub const SET_LINE_STIPPLE: u16 = 0x1DB4 >> 2;
    pub const SET_LINE_STIPPLE_PATTERN: u16 = 0x1DB8 >> 2;
    pub const SET_VERTEX_DATA1F_M: u16 = 0x1E40 >> 2;
    pub const SET_TRANSFORM_PROGRAM_LOAD: u16 = 0x1E9C >> 2;
    pub const SET_TRANSFORM_PROGRAM_START: u16 = 0x1EA0 >> 2;
    pub const SET_POINT_SIZE: u16 = 0x1EE0 >> 2;
    pub const SET_POINT_SPRITE_CONTROL: u16 = 0x1EE8 >> 2;
    pub const SET_TRANSFORM_CONSTANT_LOAD: u16 = 0x1EFC >> 2;
    pub const SET_TRANSFORM_CONSTANT: u16 = 0x1F00 >> 2;
    pub const SET_FREQUENCY_DIVIDER_OPERATION: u16 = 0x1FC0 >> 2;
    pub const SET_SHADER_PACKER: u16 = 0x1FEC >> 2;
    pub const SET_VERTEX_ATTRIB_INPUT_MASK: u16 = 0x1FF0 >> 2;
    pub const SET_VERTEX_ATTRIB_OUTPUT_MASK: u16 = 0x1FF4 >> 2;
    pub const SET_TRANSFORM_BRANCH_BITS: u16 = 0x1FF8 >> 2;
    /// Registers between two texture units' blocks (0x20 bytes), fragment (0x1A00 + 0x20 i)
    /// and vertex (0x0900 + 0x20 i) alike (rrc-format.md 4.7).
    pub const TEXTURE_UNIT_STRIDE: u16 = 0x20 >> 2;

    // Transfer classes (RPCS3 `gcm_enums.h`, `rsx_decode.h`).
    /// `NV0039_SET_CONTEXT_DMA_BUFFER_IN`.
    pub const NV0039_DMA_IN: u16 = 0x2184 / 4;
    /// `NV0039_SET_CONTEXT_DMA_BUFFER_OUT`.
    pub const NV0039_DMA_OUT: u16 = 0x2188 / 4;
    /// `NV0039_OFFSET_IN`.
    pub const NV0039_OFFSET_IN: u16 = 0x230C / 4;
    /// `NV0039_OFFSET_OUT`.
    pub const NV0039_OFFSET_OUT: u16 = 0x2310 / 4;
    /// `NV0039_PITCH_IN`.
    pub const NV0039_PITCH_IN: u16 = 0x2314 / 4;
    /// `NV0039_PITCH_OUT`.
    pub const NV0039_PITCH_OUT: u16 = 0x2318 / 4;
    /// `NV0039_LINE_LENGTH_IN`.
    pub const NV0039_LINE_LENGTH: u16 = 0x231C / 4;
    /// `NV0039_LINE_COUNT`.
    pub const NV0039_LINE_COUNT: u16 = 0x2320 / 4;
    /// `NV0039_FORMAT`.
    pub const NV0039_FORMAT: u16 = 0x2324 / 4;
    /// `NV0039_BUFFER_NOTIFY`: starts a copy.
    pub const NV0039_BUFFER_NOTIFY: u16 = 0x2328 / 4;
    /// `NV3062_SET_CONTEXT_DMA_IMAGE_DESTIN`.
    pub const NV3062_DMA_DESTIN: u16 = 0x6188 / 4;
    /// `NV3062_SET_COLOR_FORMAT`.
    pub const NV3062_COLOR_FORMAT: u16 = 0x6300 / 4;
    /// `NV3062_SET_PITCH`.
    pub const NV3062_PITCH: u16 = 0x6304 / 4;
    /// `NV3062_SET_OFFSET_DESTIN`.
    pub const NV3062_OFFSET_DESTIN: u16 = 0x630C / 4;
    /// `NV309E_SET_CONTEXT_DMA_IMAGE`.
    pub const NV309E_DMA: u16 = 0x8184 / 4;
    /// `NV309E_SET_FORMAT`.
    pub const NV309E_FORMAT: u16 = 0x8300 / 4;
    /// `NV309E_SET_OFFSET`.
    pub const NV309E_OFFSET: u16 = 0x8304 / 4;
    /// `NV308A_POINT`: x 15:0, y 31:16 of the first inline pixel.
    pub const NV308A_POINT: u16 = 0xA304 / 4;
    /// `NV308A_SIZE_OUT`: width 15:0 (COLOR words at or past it are skipped), height 31:16.
    pub const NV308A_SIZE_OUT: u16 = 0xA308 / 4;
    /// `NV308A_COLOR[0]`: 0x700 registers, word `i` is pixel `POINT.x + i` of row `POINT.y`.
    pub const NV308A_COLOR: u16 = 0xA400 / 4;
    /// How many `NV308A_COLOR` registers there are.
    pub const NV308A_COLOR_COUNT: u16 = 0x700;
    /// `NV3089_SET_CONTEXT_DMA_IMAGE`.
    pub const NV3089_DMA_IMAGE: u16 = 0xC184 / 4;
    /// `NV3089_SET_CONTEXT_SURFACE`.
    pub const NV3089_CONTEXT_SURFACE: u16 = 0xC198 / 4;
    /// `NV3089_SET_COLOR_CONVERSION`.
    pub const NV3089_COLOR_CONVERSION: u16 = 0xC2FC / 4;
    /// `NV3089_SET_COLOR_FORMAT`.
    pub const NV3089_COLOR_FORMAT: u16 = 0xC300 / 4;
    /// `NV3089_SET_OPERATION`.
    pub const NV3089_OPERATION: u16 = 0xC304 / 4;
    /// `NV3089_CLIP_POINT`.
    pub const NV3089_CLIP_POINT: u16 = 0xC308 / 4;
    /// `NV3089_CLIP_SIZE`.
    pub const NV3089_CLIP_SIZE: u16 = 0xC30C / 4;
    /// `NV3089_IMAGE_OUT_POINT`.
    pub const NV3089_OUT_POINT: u16 = 0xC310 / 4;
    /// `NV3089_IMAGE_OUT_SIZE`.
    pub const NV3089_OUT_SIZE: u16 = 0xC314 / 4;
    /// `NV3089_DS_DX`.
    pub const NV3089_DS_DX: u16 = 0xC318 / 4;
    /// `NV3089_DT_DY`.
    pub const NV3089_DT_DY: u16 = 0xC31C / 4;
    /// `NV3089_IMAGE_IN_SIZE`.
    pub const NV3089_IN_SIZE: u16 = 0xC400 / 4;
    /// `NV3089_IMAGE_IN_FORMAT`.
    pub const NV3089_IN_FORMAT: u16 = 0xC404 / 4;
    /// `NV3089_IMAGE_IN_OFFSET`.
    pub const NV3089_IN_OFFSET: u16 = 0xC408 / 4;
    /// `NV3089_IMAGE_IN`: starts a scaled image transfer.
    pub const NV3089_IMAGE_IN: u16 = 0xC40C / 4;
    /// `GCM_FLIP_COMMAND`: RPCS3's flip of the display buffer its argument names.
    pub const GCM_FLIP_COMMAND: u16 = 0xFEAC / 4;
}

/// `CELL_GCM_CONTEXT_SURFACE2D` (gcm_enums.h): `NV3089_SET_CONTEXT_SURFACE` value naming the
/// NV3062 2D surface as a scaled image's destination.
pub const CONTEXT_SURFACE2D: u32 = 0x3133_71C3;
/// `CELL_GCM_CONTEXT_SWIZZLE2D` (gcm_enums.h): `NV3089_SET_CONTEXT_SURFACE` value naming the
/// NV309E swizzled surface.
pub const CONTEXT_SWIZZLE2D: u32 = 0x3133_7A73;

/// One named method or method array: `count` registers `stride` bytes apart from `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodDef {
    /// Byte offset of element 0 (as in `gcm_enums.h`, before the `>> 2`).
    pub offset: u16,
    /// Number of elements; 1 for a plain method.
    pub count: u16,
    /// Bytes between elements.
    pub stride: u16,
    /// The `gcm_enums.h` name.
    pub name: &'static str,
}

const fn m(offset: u16, name: &'static str) -> MethodDef {
    MethodDef {
        offset,
        count: 1,
        stride: 4,
        name,
    }
}
const fn a(offset: u16, count: u16, stride: u16, name: &'static str) -> MethodDef {
    MethodDef {
        offset,
        count,
        stride,
        name,
    }
}

/// Every named method (`gcm_enums.h`, enum `CellGcmMethod`).
pub static METHODS: &[MethodDef] = &[
    m(0x0050, "NV406E_SET_REFERENCE"),
    m(0x0060, "NV406E_SET_CONTEXT_DMA_SEMAPHORE"),
    m(0x0064, "NV406E_SEMAPHORE_OFFSET"),
    m(0x0068, "NV406E_SEMAPHORE_ACQUIRE"),
    m(0x006C, "NV406E_SEMAPHORE_RELEASE"),
    m(0x0000, "NV4097_SET_OBJECT"),
    m(0x0100, "NV4097_NO_OPERATION"),
    m(0x0104, "NV4097_NOTIFY"),
    m(0x0110, "NV4097_WAIT_FOR_IDLE"),
    m(0x0140, "NV4097_PM_TRIGGER"),
    m(0x0180, "NV4097_SET_CONTEXT_DMA_NOTIFIES"),
    m(0x0184, "NV4097_SET_CONTEXT_DMA_A"),
    m(0x0188, "NV4097_SET_CONTEXT_DMA_B"),
    m(0x018C, "NV4097_SET_CONTEXT_DMA_COLOR_B"),
    m(0x0190, "NV4097_SET_CONTEXT_DMA_STATE"),
    m(0x0194, "NV4097_SET_CONTEXT_DMA_COLOR_A"),
    m(0x0198, "NV4097_SET_CONTEXT_DMA_ZETA"),
    m(0x019C, "NV4097_SET_CONTEXT_DMA_VERTEX_A"),
    m(0x01A0, "NV4097_SET_CONTEXT_DMA_VERTEX_B"),
    m(0x01A4, "NV4097_SET_CONTEXT_DMA_SEMAPHORE"),
    m(0x01A8, "NV4097_SET_CONTEXT_DMA_REPORT"),
    m(0x01AC, "NV4097_SET_CONTEXT_DMA_CLIP_ID"),
    m(0x01B0, "NV4097_SET_CONTEXT_DMA_CULL_DATA"),
    m(0x01B4, "NV4097_SET_CONTEXT_DMA_COLOR_C"),
    m(0x01B8, "NV4097_SET_CONTEXT_DMA_COLOR_D"),
    m(0x0200, "NV4097_SET_SURFACE_CLIP_HORIZONTAL"),
    m(0x0204, "NV4097_SET_SURFACE_CLIP_VERTICAL"),
    m(0x0208, "NV4097_SET_SURFACE_FORMAT"),
    m(0x020C, "NV4097_SET_SURFACE_PITCH_A"),
    m(0x0210, "NV4097_SET_SURFACE_COLOR_AOFFSET"),
    m(0x0214, "NV4097_SET_SURFACE_ZETA_OFFSET"),
    m(0x0218, "NV4097_SET_SURFACE_COLOR_BOFFSET"),
    m(0x021C, "NV4097_SET_SURFACE_PITCH_B"),
    m(0x0220, "NV4097_SET_SURFACE_COLOR_TARGET"),
    m(0x022C, "NV4097_SET_SURFACE_PITCH_Z"),
    m(0x0234, "NV4097_INVALIDATE_ZCULL"),
    m(0x0238, "NV4097_SET_CYLINDRICAL_WRAP"),
    m(0x023C, "NV4097_SET_CYLINDRICAL_WRAP1"),
    m(0x0280, "NV4097_SET_SURFACE_PITCH_C"),
    m(0x0284, "NV4097_SET_SURFACE_PITCH_D"),
    m(0x0288, "NV4097_SET_SURFACE_COLOR_COFFSET"),
    m(0x028C, "NV4097_SET_SURFACE_COLOR_DOFFSET"),
    m(0x02B8, "NV4097_SET_WINDOW_OFFSET"),
    m(0x02BC, "NV4097_SET_WINDOW_CLIP_TYPE"),
    m(0x02C0, "NV4097_SET_WINDOW_CLIP_HORIZONTAL"),
    m(0x02C4, "NV4097_SET_WINDOW_CLIP_VERTICAL"),
    m(0x0300, "NV4097_SET_DITHER_ENABLE"),
    m(0x0304, "NV4097_SET_ALPHA_TEST_ENABLE"),
    m(0x0308, "NV4097_SET_ALPHA_FUNC"),
    m(0x030C, "NV4097_SET_ALPHA_REF"),
    m(0x0310, "NV4097_SET_BLEND_ENABLE"),
    m(0x0314, "NV4097_SET_BLEND_FUNC_SFACTOR"),
    m(0x0318, "NV4097_SET_BLEND_FUNC_DFACTOR"),
    m(0x031C, "NV4097_SET_BLEND_COLOR"),
    m(0x0320, "NV4097_SET_BLEND_EQUATION"),
    m(0x0324, "NV4097_SET_COLOR_MASK"),
    m(0x0328, "NV4097_SET_STENCIL_TEST_ENABLE"),
    m(0x032C, "NV4097_SET_STENCIL_MASK"),
    m(0x0330, "NV4097_SET_STENCIL_FUNC"),
    m(0x0334, "NV4097_SET_STENCIL_FUNC_REF"),
    m(0x0338, "NV4097_SET_STENCIL_FUNC_MASK"),
    m(0x033C, "NV4097_SET_STENCIL_OP_FAIL"),
    m(0x0340, "NV4097_SET_STENCIL_OP_ZFAIL"),
    m(0x0344, "NV4097_SET_STENCIL_OP_ZPASS"),
    m(0x0348, "NV4097_SET_TWO_SIDED_STENCIL_TEST_ENABLE"),
    m(0x034C, "NV4097_SET_BACK_STENCIL_MASK"),
    m(0x0350, "NV4097_SET_BACK_STENCIL_FUNC"),
    m(0x0354, "NV4097_SET_BACK_STENCIL_FUNC_REF"),
    m(0x0358, "NV4097_SET_BACK_STENCIL_FUNC_MASK"),
    m(0x035C, "NV4097_SET_BACK_STENCIL_OP_FAIL"),
    m(0x0360, "NV4097_SET_BACK_STENCIL_OP_ZFAIL"),
    m(0x0364, "NV4097_SET_BACK_STENCIL_OP_ZPASS"),
    m(0x0368, "NV4097_SET_SHADE_MODE"),
    m(0x036C, "NV4097_SET_BLEND_ENABLE_MRT"),
    m(0x0370, "NV4097_SET_COLOR_MASK_MRT"),
    m(0x0374, "NV4097_SET_LOGIC_OP_ENABLE"),
    m(0x0378, "NV4097_SET_LOGIC_OP"),
    m(0x037C, "NV4097_SET_BLEND_COLOR2"),
    m(0x0380, "NV4097_SET_DEPTH_BOUNDS_TEST_ENABLE"),
    m(0x0384, "NV4097_SET_DEPTH_BOUNDS_MIN"),
    m(0x0388, "NV4097_SET_DEPTH_BOUNDS_MAX"),
    m(0x0394, "NV4097_SET_CLIP_MIN"),
    m(0x0398, "NV4097_SET_CLIP_MAX"),
    m(0x03B0, "NV4097_SET_CONTROL0"),
    m(0x03B8, "NV4097_SET_LINE_WIDTH"),
    m(0x03BC, "NV4097_SET_LINE_SMOOTH_ENABLE"),
    // One per texture unit (RPCS3 `rsx_methods.cpp` binds 16).
    a(0x03C0, 16, 4, "NV4097_SET_ANISO_SPREAD"),
    m(0x08C0, "NV4097_SET_SCISSOR_HORIZONTAL"),
    m(0x08C4, "NV4097_SET_SCISSOR_VERTICAL"),
    m(0x08CC, "NV4097_SET_FOG_MODE"),
    a(0x08D0, 2, 4, "NV4097_SET_FOG_PARAMS"),
    m(0x08E4, "NV4097_SET_SHADER_PROGRAM"),
    a(0x0900, 4, 0x20, "NV4097_SET_VERTEX_TEXTURE_OFFSET"),
    a(0x0904, 4, 0x20, "NV4097_SET_VERTEX_TEXTURE_FORMAT"),
    a(0x0908, 4, 0x20, "NV4097_SET_VERTEX_TEXTURE_ADDRESS"),
    a(0x090C, 4, 0x20, "NV4097_SET_VERTEX_TEXTURE_CONTROL0"),
    a(0x0910, 4, 0x20, "NV4097_SET_VERTEX_TEXTURE_CONTROL3"),
    a(0x0914, 4, 0x20, "NV4097_SET_VERTEX_TEXTURE_FILTER"),
    a(0x0918, 4, 0x20, "NV4097_SET_VERTEX_TEXTURE_IMAGE_RECT"),
    a(0x091C, 4, 0x20, "NV4097_SET_VERTEX_TEXTURE_BORDER_COLOR"),
    m(0x0A00, "NV4097_SET_VIEWPORT_HORIZONTAL"),
    m(0x0A04, "NV4097_SET_VIEWPORT_VERTICAL"),
    m(0x0A0C, "NV4097_SET_POINT_CENTER_MODE"),
    m(0x0A1C, "NV4097_ZCULL_SYNC"),
    a(0x0A20, 4, 4, "NV4097_SET_VIEWPORT_OFFSET"),
    a(0x0A30, 4, 4, "NV4097_SET_VIEWPORT_SCALE"),
    m(0x0A60, "NV4097_SET_POLY_OFFSET_POINT_ENABLE"),
    m(0x0A64, "NV4097_SET_POLY_OFFSET_LINE_ENABLE"),
    m(0x0A68, "NV4097_SET_POLY_OFFSET_FILL_ENABLE"),
    m(0x0A6C, "NV4097_SET_DEPTH_FUNC"),
    m(0x0A70, "NV4097_SET_DEPTH_MASK"),
    m(0x0A74, "NV4097_SET_DEPTH_TEST_ENABLE"),
    m(0x0A78, "NV4097_SET_POLYGON_OFFSET_SCALE_FACTOR"),
    m(0x0A7C, "NV4097_SET_POLYGON_OFFSET_BIAS"),
    a(0x0A80, 32, 4, "NV4097_SET_VERTEX_DATA_SCALED4S_M"),
    a(0x0B00, 16, 4, "NV4097_SET_TEXTURE_CONTROL2"),
    a(0x0B40, 10, 4, "NV4097_SET_TEX_COORD_CONTROL"),
    a(0x0B80, 32, 4, "NV4097_SET_TRANSFORM_PROGRAM"),
    m(0x1428, "NV4097_SET_SPECULAR_ENABLE"),
    m(0x142C, "NV4097_SET_TWO_SIDE_LIGHT_EN"),
    m(0x1438, "NV4097_CLEAR_ZCULL_SURFACE"),
    m(0x1450, "NV4097_SET_PERFORMANCE_PARAMS"),
    m(0x1454, "NV4097_SET_FLAT_SHADE_OP"),
    m(0x145C, "NV4097_SET_EDGE_FLAG"),
    m(0x1478, "NV4097_SET_USER_CLIP_PLANE_CONTROL"),
    m(0x147C, "NV4097_SET_POLYGON_STIPPLE"),
    a(0x1480, 32, 4, "NV4097_SET_POLYGON_STIPPLE_PATTERN"),
    a(0x1500, 64, 4, "NV4097_SET_VERTEX_DATA3F_M"),
    a(0x1680, 16, 4, "NV4097_SET_VERTEX_DATA_ARRAY_OFFSET"),
    m(0x1710, "NV4097_INVALIDATE_VERTEX_CACHE_FILE"),
    m(0x1714, "NV4097_INVALIDATE_VERTEX_FILE"),
    m(0x1718, "NV4097_PIPE_NOP"),
    m(0x1738, "NV4097_SET_VERTEX_DATA_BASE_OFFSET"),
    m(0x173C, "NV4097_SET_VERTEX_DATA_BASE_INDEX"),
    a(0x1740, 16, 4, "NV4097_SET_VERTEX_DATA_ARRAY_FORMAT"),
    m(0x17C8, "NV4097_CLEAR_REPORT_VALUE"),
    m(0x17CC, "NV4097_SET_ZPASS_PIXEL_COUNT_ENABLE"),
    m(0x1800, "NV4097_GET_REPORT"),
    m(0x1804, "NV4097_SET_ZCULL_STATS_ENABLE"),
    m(0x1808, "NV4097_SET_BEGIN_END"),
    m(0x180C, "NV4097_ARRAY_ELEMENT16"),
    m(0x1810, "NV4097_ARRAY_ELEMENT32"),
    m(0x1814, "NV4097_DRAW_ARRAYS"),
    m(0x1818, "NV4097_INLINE_ARRAY"),
    m(0x181C, "NV4097_SET_INDEX_ARRAY_ADDRESS"),
    m(0x1820, "NV4097_SET_INDEX_ARRAY_DMA"),
    m(0x1824, "NV4097_DRAW_INDEX_ARRAY"),
    m(0x1828, "NV4097_SET_FRONT_POLYGON_MODE"),
    m(0x182C, "NV4097_SET_BACK_POLYGON_MODE"),
    m(0x1830, "NV4097_SET_CULL_FACE"),
    m(0x1834, "NV4097_SET_FRONT_FACE"),
    m(0x1838, "NV4097_SET_POLY_SMOOTH_ENABLE"),
    m(0x183C, "NV4097_SET_CULL_FACE_ENABLE"),
    a(0x1840, 16, 4, "NV4097_SET_TEXTURE_CONTROL3"),
    a(0x1880, 32, 4, "NV4097_SET_VERTEX_DATA2F_M"),
    a(0x1900, 16, 4, "NV4097_SET_VERTEX_DATA2S_M"),
    a(0x1940, 16, 4, "NV4097_SET_VERTEX_DATA4UB_M"),
    a(0x1980, 32, 4, "NV4097_SET_VERTEX_DATA4S_M"),
    a(0x1A00, 16, 0x20, "NV4097_SET_TEXTURE_OFFSET"),
    a(0x1A04, 16, 0x20, "NV4097_SET_TEXTURE_FORMAT"),
    a(0x1A08, 16, 0x20, "NV4097_SET_TEXTURE_ADDRESS"),
    a(0x1A0C, 16, 0x20, "NV4097_SET_TEXTURE_CONTROL0"),
    a(0x1A10, 16, 0x20, "NV4097_SET_TEXTURE_CONTROL1"),
    a(0x1A14, 16, 0x20, "NV4097_SET_TEXTURE_FILTER"),
    a(0x1A18, 16, 0x20, "NV4097_SET_TEXTURE_IMAGE_RECT"),
    a(0x1A1C, 16, 0x20, "NV4097_SET_TEXTURE_BORDER_COLOR"),
    a(0x1C00, 64, 4, "NV4097_SET_VERTEX_DATA4F_M"),
    a(0x1D00, 16, 4, "NV4097_SET_COLOR_KEY_COLOR"),
    m(0x1D60, "NV4097_SET_SHADER_CONTROL"),
    m(0x1D64, "NV4097_SET_INDEXED_CONSTANT_READ_LIMITS"),
    m(0x1D6C, "NV4097_SET_SEMAPHORE_OFFSET"),
    m(0x1D70, "NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE"),
    m(0x1D74, "NV4097_TEXTURE_READ_SEMAPHORE_RELEASE"),
    m(0x1D78, "NV4097_SET_ZMIN_MAX_CONTROL"),
    m(0x1D7C, "NV4097_SET_ANTI_ALIASING_CONTROL"),
    m(0x1D80, "NV4097_SET_SURFACE_COMPRESSION"),
    m(0x1D84, "NV4097_SET_ZCULL_EN"),
    m(0x1D88, "NV4097_SET_SHADER_WINDOW"),
    m(0x1D8C, "NV4097_SET_ZSTENCIL_CLEAR_VALUE"),
    m(0x1D90, "NV4097_SET_COLOR_CLEAR_VALUE"),
    m(0x1D94, "NV4097_CLEAR_SURFACE"),
    m(0x1D98, "NV4097_SET_CLEAR_RECT_HORIZONTAL"),
    m(0x1D9C, "NV4097_SET_CLEAR_RECT_VERTICAL"),
    m(0x1DA4, "NV4097_SET_CLIP_ID_TEST_ENABLE"),
    m(0x1DAC, "NV4097_SET_RESTART_INDEX_ENABLE"),
    m(0x1DB0, "NV4097_SET_RESTART_INDEX"),
    m(0x1DB4, "NV4097_SET_LINE_STIPPLE"),
    m(0x1DB8, "NV4097_SET_LINE_STIPPLE_PATTERN"),
    a(0x1E40, 16, 4, "NV4097_SET_VERTEX_DATA1F_M"),
    m(0x1E94, "NV4097_SET_TRANSFORM_EXECUTION_MODE"),
    m(0x1E98, "NV4097_SET_RENDER_ENABLE"),
    m(0x1E9C, "NV4097_SET_TRANSFORM_PROGRAM_LOAD"),
    m(0x1EA0, "NV4097_SET_TRANSFORM_PROGRAM_START"),
    m(0x1EA4, "NV4097_SET_ZCULL_CONTROL0"),
    m(0x1EA8, "NV4097_SET_ZCULL_CONTROL1"),
    m(0x1EAC, "NV4097_SET_SCULL_CONTROL"),
    m(0x1EE0, "NV4097_SET_POINT_SIZE"),
    m(0x1EE4, "NV4097_SET_POINT_PARAMS_ENABLE"),
    m(0x1EE8, "NV4097_SET_POINT_SPRITE_CONTROL"),
    m(0x1EF8, "NV4097_SET_TRANSFORM_TIMEOUT"),
    m(0x1EFC, "NV4097_SET_TRANSFORM_CONSTANT_LOAD"),
    a(0x1F00, 32, 4, "NV4097_SET_TRANSFORM_CONSTANT"),
    m(0x1FC0, "NV4097_SET_FREQUENCY_DIVIDER_OPERATION"),
    m(0x1FC4, "NV4097_SET_ATTRIB_COLOR"),
    m(0x1FC8, "NV4097_SET_ATTRIB_TEX_COORD"),
    m(0x1FCC, "NV4097_SET_ATTRIB_TEX_COORD_EX"),
    m(0x1FD0, "NV4097_SET_ATTRIB_UCLIP0"),
    m(0x1FD4, "NV4097_SET_ATTRIB_UCLIP1"),
    m(0x1FD8, "NV4097_INVALIDATE_L2"),
    m(0x1FE0, "NV4097_SET_REDUCE_DST_COLOR"),
    m(0x1FE8, "NV4097_SET_NO_PARANOID_TEXTURE_FETCHES"),
    m(0x1FEC, "NV4097_SET_SHADER_PACKER"),
    m(0x1FF0, "NV4097_SET_VERTEX_ATTRIB_INPUT_MASK"),
    m(0x1FF4, "NV4097_SET_VERTEX_ATTRIB_OUTPUT_MASK"),
    m(0x1FF8, "NV4097_SET_TRANSFORM_BRANCH_BITS"),
    m(0x2000, "NV0039_SET_OBJECT"),
    m(0x2180, "NV0039_SET_CONTEXT_DMA_NOTIFIES"),
    m(0x2184, "NV0039_SET_CONTEXT_DMA_BUFFER_IN"),
    m(0x2188, "NV0039_SET_CONTEXT_DMA_BUFFER_OUT"),
    m(0x230C, "NV0039_OFFSET_IN"),
    m(0x2310, "NV0039_OFFSET_OUT"),
    m(0x2314, "NV0039_PITCH_IN"),
    m(0x2318, "NV0039_PITCH_OUT"),
    m(0x231C, "NV0039_LINE_LENGTH_IN"),
    m(0x2320, "NV0039_LINE_COUNT"),
    m(0x2324, "NV0039_FORMAT"),
    m(0x2328, "NV0039_BUFFER_NOTIFY"),
    m(0x6000, "NV3062_SET_OBJECT"),
    m(0x6180, "NV3062_SET_CONTEXT_DMA_NOTIFIES"),
    m(0x6184, "NV3062_SET_CONTEXT_DMA_IMAGE_SOURCE"),
    m(0x6188, "NV3062_SET_CONTEXT_DMA_IMAGE_DESTIN"),
    m(0x6300, "NV3062_SET_COLOR_FORMAT"),
    m(0x6304, "NV3062_SET_PITCH"),
    m(0x6308, "NV3062_SET_OFFSET_SOURCE"),
    m(0x630C, "NV3062_SET_OFFSET_DESTIN"),
    m(0x8000, "NV309E_SET_OBJECT"),
    m(0x8180, "NV309E_SET_CONTEXT_DMA_NOTIFIES"),
    m(0x8184, "NV309E_SET_CONTEXT_DMA_IMAGE"),
    m(0x8300, "NV309E_SET_FORMAT"),
    m(0x8304, "NV309E_SET_OFFSET"),
    m(0xA000, "NV308A_SET_OBJECT"),
    m(0xA180, "NV308A_SET_CONTEXT_DMA_NOTIFIES"),
    m(0xA184, "NV308A_SET_CONTEXT_COLOR_KEY"),
    m(0xA188, "NV308A_SET_CONTEXT_CLIP_RECTANGLE"),
    m(0xA18C, "NV308A_SET_CONTEXT_PATTERN"),
    m(0xA190, "NV308A_SET_CONTEXT_ROP"),
    m(0xA194, "NV308A_SET_CONTEXT_BETA1"),
    m(0xA198, "NV308A_SET_CONTEXT_BETA4"),
    m(0xA19C, "NV308A_SET_CONTEXT_SURFACE"),
    m(0xA2F8, "NV308A_SET_COLOR_CONVERSION"),
    m(0xA2FC, "NV308A_SET_OPERATION"),
    m(0xA300, "NV308A_SET_COLOR_FORMAT"),
    m(0xA304, "NV308A_POINT"),
    m(0xA308, "NV308A_SIZE_OUT"),
    m(0xA30C, "NV308A_SIZE_IN"),
    // NV308A_COLOR: 0x700 registers from 0xA400 (rrc-format.md 3.2).
    a(0xA400, 0x700, 4, "NV308A_COLOR"),
    m(0xC000, "NV3089_SET_OBJECT"),
    m(0xC180, "NV3089_SET_CONTEXT_DMA_NOTIFIES"),
    m(0xC184, "NV3089_SET_CONTEXT_DMA_IMAGE"),
    m(0xC188, "NV3089_SET_CONTEXT_PATTERN"),
    m(0xC18C, "NV3089_SET_CONTEXT_ROP"),
    m(0xC190, "NV3089_SET_CONTEXT_BETA1"),
    m(0xC194, "NV3089_SET_CONTEXT_BETA4"),
    m(0xC198, "NV3089_SET_CONTEXT_SURFACE"),
    m(0xC2FC, "NV3089_SET_COLOR_CONVERSION"),
    m(0xC300, "NV3089_SET_COLOR_FORMAT"),
    m(0xC304, "NV3089_SET_OPERATION"),
    m(0xC308, "NV3089_CLIP_POINT"),
    m(0xC30C, "NV3089_CLIP_SIZE"),
    m(0xC310, "NV3089_IMAGE_OUT_POINT"),
    m(0xC314, "NV3089_IMAGE_OUT_SIZE"),
    m(0xC318, "NV3089_DS_DX"),
    m(0xC31C, "NV3089_DT_DY"),
    m(0xC400, "NV3089_IMAGE_IN_SIZE"),
    m(0xC404, "NV3089_IMAGE_IN_FORMAT"),
    m(0xC408, "NV3089_IMAGE_IN_OFFSET"),
    m(0xC40C, "NV3089_IMAGE_IN"),
    m(0xE000, "GCM_SET_DRIVER_OBJECT"),
    a(0xE920, 2, 4, "GCM_FLIP_HEAD"),
    a(0xE940, 8, 4, "GCM_DRIVER_QUEUE"),
    a(0xEB00, 2, 4, "GCM_SET_USER_COMMAND"),
    m(0xFEAC, "GCM_FLIP_COMMAND"),
];

/// Register index -> (index in [`METHODS`] + 1, element index); 0 = unnamed.
fn lookup_table() -> &'static [(u16, u16)] {
    static TABLE: OnceLock<Vec<(u16, u16)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = vec![(0u16, 0u16); 0x4000];
        for (i, def) in METHODS.iter().enumerate() {
            for e in 0..def.count {
                let byte = def.offset as usize + e as usize * def.stride as usize;
                if let Some(slot) = t.get_mut(byte >> 2) {
                    *slot = (i as u16 + 1, e);
                }
            }
        }
        t
    })
}

/// The method definition and element index for a register index, if it is named.
pub fn method_def(reg: u16) -> Option<(&'static MethodDef, u16)> {
    let &(i, e) = lookup_table().get(reg as usize)?;
    let def = METHODS.get((i as usize).checked_sub(1)?)?;
    Some((def, e))
}

/// The class prefix of a register index by subchannel (byte offset bits 13..15,
/// rrc-format.md 1.6: NV4097 0x0000, NV0039 0x2000, NV3062 0x6000, NV309E 0x8000,
/// NV308A 0xA000, NV3089 0xC000).
pub fn class_prefix(reg: u16) -> &'static str {
    match (reg as u32 * 4) >> 13 {
        0 => "NV4097",
        1 => "NV0039",
        3 => "NV3062",
        4 => "NV309E",
        5 => "NV308A",
        6 => "NV3089",
        7 => "GCM",
        _ => "SUBCHANNEL2",
    }
}

/// The method name of a register index: `NAME`, `NAME[i]` for arrays, or
/// `<CLASS>_METHOD_0x<byte offset>` for unnamed registers.
pub fn method_name(reg: u16) -> Cow<'static, str> {
    match method_def(reg) {
        Some((def, _)) if def.count == 1 => Cow::Borrowed(def.name),
        Some((def, e)) => Cow::Owned(format!("{}[{}]", def.name, e)),
        None => Cow::Owned(format!(
            "{}_METHOD_0x{:04X}",
            class_prefix(reg),
            (reg as u32 * 4) & 0xFFFF
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_plain_and_array_methods() {
        assert_eq!(method_name(reg::SET_BEGIN_END), "NV4097_SET_BEGIN_END");
        assert_eq!(
            method_name(0x1740 / 4 + 3),
            "NV4097_SET_VERTEX_DATA_ARRAY_FORMAT[3]"
        );
        assert_eq!(
            method_name(0x1F00 / 4 + 5),
            "NV4097_SET_TRANSFORM_CONSTANT[5]"
        );
        assert_eq!(
            method_name(0x1A04 / 4 + 8 * 2),
            "NV4097_SET_TEXTURE_FORMAT[2]"
        );
        assert_eq!(
            method_name(0x0904 / 4 + 8 * 3),
            "NV4097_SET_VERTEX_TEXTURE_FORMAT[3]"
        );
        assert_eq!(
            method_name(0x1A1C / 4 + 8 * 15),
            "NV4097_SET_TEXTURE_BORDER_COLOR[15]"
        );
        assert_eq!(method_name(0x0A3C / 4), "NV4097_SET_VIEWPORT_SCALE[3]");
        assert_eq!(method_name(0x03FC / 4), "NV4097_SET_ANISO_SPREAD[15]");
        assert_eq!(method_name(0x2328 / 4), "NV0039_BUFFER_NOTIFY");
        assert_eq!(method_name(0xA400 / 4 + 0x6FF), "NV308A_COLOR[1791]");
        assert_eq!(method_name(0xC40C / 4), "NV3089_IMAGE_IN");
        assert_eq!(method_name(0x0068 / 4), "NV406E_SEMAPHORE_ACQUIRE");
        assert_eq!(method_name(0x0A50 / 4), "NV4097_METHOD_0x0A50");
        assert_eq!(method_name(0x6310 / 4), "NV3062_METHOD_0x6310");
        assert_eq!(method_name(0x4000 / 4), "SUBCHANNEL2_METHOD_0x4000");
    }

    #[test]
    fn no_two_methods_claim_one_register() {
        let mut seen = vec![None::<&str>; 0x4000];
        for def in METHODS {
            for e in 0..def.count {
                let r = (def.offset as usize + e as usize * def.stride as usize) >> 2;
                assert!(r < 0x4000, "{} out of range", def.name);
                assert!(
                    seen[r].is_none(),
                    "{} and {:?} share 0x{:x}",
                    def.name,
                    seen[r],
                    r * 4
                );
                seen[r] = Some(def.name);
            }
        }
    }

    #[test]
    fn reg_constants_match_table_names() {
        let pairs = [
            (reg::SET_SHADER_PROGRAM, "NV4097_SET_SHADER_PROGRAM"),
            (
                reg::SET_TRANSFORM_PROGRAM_LOAD,
                "NV4097_SET_TRANSFORM_PROGRAM_LOAD",
            ),
            (
                reg::SET_TRANSFORM_CONSTANT_LOAD,
                "NV4097_SET_TRANSFORM_CONSTANT_LOAD",
            ),
            (reg::SET_INDEX_ARRAY_DMA, "NV4097_SET_INDEX_ARRAY_DMA"),
            (
                reg::SET_BACK_STENCIL_OP_ZPASS,
                "NV4097_SET_BACK_STENCIL_OP_ZPASS",
            ),
            (reg::SET_ZMIN_MAX_CONTROL, "NV4097_SET_ZMIN_MAX_CONTROL"),
        ];
        for (r, n) in pairs {
            assert_eq!(method_name(r), n);
        }
    }
}
