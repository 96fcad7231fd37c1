//! NV4097 register indices the builder writes, and the FIFO header encoding.
//!
//! Every constant is a *register index* (method byte offset / 4), the unit RPCS3's
//! `gcm_enums.h` uses and the index into `reg_state.registers`. The byte offset is written
//! next to each one as it appears in `rrc-format.md` section 4.

/// `reg(0x1808)` turns a method byte offset into a register index.
const fn reg(byte_offset: u32) -> u32 {
    byte_offset >> 2
}

/// `NV4097_NO_OPERATION` (0x0100); the first command of every capture is `(0x40, 0)`.
pub const NO_OPERATION: u32 = reg(0x0100);

// --- Draw control (rrc-format.md 4.2) ---
/// `SET_BEGIN_END` (0x1808): primitive, or 0 = END.
pub const SET_BEGIN_END: u32 = reg(0x1808);
/// `DRAW_ARRAYS` (0x1814): first in bits 0..23, count-1 in bits 24..31.
pub const DRAW_ARRAYS: u32 = reg(0x1814);
/// `INLINE_ARRAY` (0x1818): raw vertex words.
pub const INLINE_ARRAY: u32 = reg(0x1818);
/// `SET_INDEX_ARRAY_ADDRESS` (0x181C).
pub const SET_INDEX_ARRAY_ADDRESS: u32 = reg(0x181C);
/// `SET_INDEX_ARRAY_DMA` (0x1820): location bits 0..3, type bits 4..11 (0 = u32, 1 = u16).
pub const SET_INDEX_ARRAY_DMA: u32 = reg(0x1820);
/// `DRAW_INDEX_ARRAY` (0x1824): first in bits 0..23, count-1 in bits 24..31.
pub const DRAW_INDEX_ARRAY: u32 = reg(0x1824);
/// `SET_RESTART_INDEX_ENABLE` (0x1DAC).
pub const SET_RESTART_INDEX_ENABLE: u32 = reg(0x1DAC);
/// `SET_RESTART_INDEX` (0x1DB0).
pub const SET_RESTART_INDEX: u32 = reg(0x1DB0);
/// `SET_VERTEX_DATA_BASE_OFFSET` (0x1738).
pub const SET_VERTEX_DATA_BASE_OFFSET: u32 = reg(0x1738);
/// `SET_VERTEX_DATA_BASE_INDEX` (0x173C).
pub const SET_VERTEX_DATA_BASE_INDEX: u32 = reg(0x173C);
/// `CLEAR_SURFACE` (0x1D94).
pub const CLEAR_SURFACE: u32 = reg(0x1D94);
/// `SET_COLOR_CLEAR_VALUE` (0x1D90).
pub const SET_COLOR_CLEAR_VALUE: u32 = reg(0x1D90);
/// `SET_ZSTENCIL_CLEAR_VALUE` (0x1D8C).
pub const SET_ZSTENCIL_CLEAR_VALUE: u32 = reg(0x1D8C);

// --- Vertex arrays (4.3) ---
/// `SET_VERTEX_DATA_ARRAY_FORMAT` + i (0x1740 + 4i).
pub const SET_VERTEX_DATA_ARRAY_FORMAT: u32 = reg(0x1740);
/// `SET_VERTEX_DATA_ARRAY_OFFSET` + i (0x1680 + 4i): bit 31 location, bits 0..30 offset.
pub const SET_VERTEX_DATA_ARRAY_OFFSET: u32 = reg(0x1680);
/// `SET_FREQUENCY_DIVIDER_OPERATION` (0x1FC0).
pub const SET_FREQUENCY_DIVIDER_OPERATION: u32 = reg(0x1FC0);
/// `SET_VERTEX_ATTRIB_INPUT_MASK` (0x1FF0).
pub const SET_VERTEX_ATTRIB_INPUT_MASK: u32 = reg(0x1FF0);
/// `SET_VERTEX_ATTRIB_OUTPUT_MASK` (0x1FF4).
pub const SET_VERTEX_ATTRIB_OUTPUT_MASK: u32 = reg(0x1FF4);

// --- Immediate attributes (4.4) ---
/// `SET_VERTEX_DATA1F_M` (0x1E40 + 4i).
pub const SET_VERTEX_DATA1F_M: u32 = reg(0x1E40);
/// `SET_VERTEX_DATA2F_M` (0x1880 + 8i + 4j).
pub const SET_VERTEX_DATA2F_M: u32 = reg(0x1880);
/// `SET_VERTEX_DATA3F_M` (0x1500 + 16i + 4j; 3 words used of 4).
pub const SET_VERTEX_DATA3F_M: u32 = reg(0x1500);
/// `SET_VERTEX_DATA4F_M` (0x1C00 + 16i + 4j).
pub const SET_VERTEX_DATA4F_M: u32 = reg(0x1C00);
/// `SET_VERTEX_DATA2S_M` (0x1900 + 4i).
pub const SET_VERTEX_DATA2S_M: u32 = reg(0x1900);
/// `SET_VERTEX_DATA4S_M` (0x1980 + 8i + 4j).
pub const SET_VERTEX_DATA4S_M: u32 = reg(0x1980);
/// `SET_VERTEX_DATA_SCALED4S_M` (0x0A80 + 8i + 4j).
pub const SET_VERTEX_DATA_SCALED4S_M: u32 = reg(0x0A80);
/// `SET_VERTEX_DATA4UB_M` (0x1940 + 4i).
pub const SET_VERTEX_DATA4UB_M: u32 = reg(0x1940);

// --- Vertex program and constants (4.5) ---
/// `SET_TRANSFORM_PROGRAM_LOAD` (0x1E9C).
pub const SET_TRANSFORM_PROGRAM_LOAD: u32 = reg(0x1E9C);
/// `SET_TRANSFORM_PROGRAM_START` (0x1EA0).
pub const SET_TRANSFORM_PROGRAM_START: u32 = reg(0x1EA0);
/// `SET_TRANSFORM_PROGRAM` window base (0x0B80, 32 registers).
pub const SET_TRANSFORM_PROGRAM: u32 = reg(0x0B80);
/// `SET_TRANSFORM_CONSTANT_LOAD` (0x1EFC).
pub const SET_TRANSFORM_CONSTANT_LOAD: u32 = reg(0x1EFC);
/// `SET_TRANSFORM_CONSTANT` window base (0x1F00, 32 registers).
pub const SET_TRANSFORM_CONSTANT: u32 = reg(0x1F00);
/// Registers in each batched upload window (rrc-format.md 3.2: 32 from the base).
pub const BATCH_WINDOW: u32 = 32;

// --- Fragment program (4.6) ---
/// `SET_SHADER_PROGRAM` (0x08E4): location+1 in bits 0..1, offset in the rest.
pub const SET_SHADER_PROGRAM: u32 = reg(0x08E4);
/// `SET_SHADER_CONTROL` (0x1D60).
pub const SET_SHADER_CONTROL: u32 = reg(0x1D60);

// --- Textures (4.7); fragment unit i adds 8*i registers (0x20 bytes) ---
/// Fragment `TEXTURE_OFFSET` (0x1A00).
pub const TEXTURE_OFFSET: u32 = reg(0x1A00);
/// Fragment `TEXTURE_FORMAT` (0x1A04).
pub const TEXTURE_FORMAT: u32 = reg(0x1A04);
/// Fragment `TEXTURE_ADDRESS` (0x1A08).
pub const TEXTURE_ADDRESS: u32 = reg(0x1A08);
/// Fragment `TEXTURE_CONTROL0` (0x1A0C): enable is bit 31.
pub const TEXTURE_CONTROL0: u32 = reg(0x1A0C);
/// Fragment `TEXTURE_CONTROL1` (0x1A10): channel remap.
pub const TEXTURE_CONTROL1: u32 = reg(0x1A10);
/// Fragment `TEXTURE_FILTER` (0x1A14).
pub const TEXTURE_FILTER: u32 = reg(0x1A14);
/// Fragment `TEXTURE_IMAGE_RECT` (0x1A18): height bits 0..15, width bits 16..31.
pub const TEXTURE_IMAGE_RECT: u32 = reg(0x1A18);
/// Fragment `TEXTURE_BORDER_COLOR` (0x1A1C).
pub const TEXTURE_BORDER_COLOR: u32 = reg(0x1A1C);
/// Fragment `TEXTURE_CONTROL3` (0x1840 + 4i): pitch bits 0..19, depth bits 20..31.
pub const TEXTURE_CONTROL3: u32 = reg(0x1840);
/// Vertex texture `OFFSET` (0x0900 + 0x20i); the other vertex texture registers follow.
pub const VERTEX_TEXTURE_OFFSET: u32 = reg(0x0900);
/// Vertex texture `FORMAT` (0x0904).
pub const VERTEX_TEXTURE_FORMAT: u32 = reg(0x0904);
/// Vertex texture `ADDRESS` (0x0908).
pub const VERTEX_TEXTURE_ADDRESS: u32 = reg(0x0908);
/// Vertex texture `CONTROL0` (0x090C).
pub const VERTEX_TEXTURE_CONTROL0: u32 = reg(0x090C);
/// Vertex texture `CONTROL3` (0x0910).
pub const VERTEX_TEXTURE_CONTROL3: u32 = reg(0x0910);
/// Vertex texture `FILTER` (0x0914).
pub const VERTEX_TEXTURE_FILTER: u32 = reg(0x0914);
/// Vertex texture `IMAGE_RECT` (0x0918).
pub const VERTEX_TEXTURE_IMAGE_RECT: u32 = reg(0x0918);
/// Vertex texture `BORDER_COLOR` (0x091C).
pub const VERTEX_TEXTURE_BORDER_COLOR: u32 = reg(0x091C);
/// Register stride between texture units (0x20 bytes).
pub const TEXTURE_UNIT_STRIDE: u32 = 8;

// --- Surfaces (4.8) ---
/// `SET_SURFACE_CLIP_HORIZONTAL` (0x0200).
pub const SET_SURFACE_CLIP_HORIZONTAL: u32 = reg(0x0200);
/// `SET_SURFACE_CLIP_VERTICAL` (0x0204).
pub const SET_SURFACE_CLIP_VERTICAL: u32 = reg(0x0204);
/// `SET_SURFACE_FORMAT` (0x0208).
pub const SET_SURFACE_FORMAT: u32 = reg(0x0208);
/// `SET_SURFACE_PITCH_A` (0x020C).
pub const SET_SURFACE_PITCH_A: u32 = reg(0x020C);
/// `SET_SURFACE_COLOR_AOFFSET` (0x0210).
pub const SET_SURFACE_COLOR_AOFFSET: u32 = reg(0x0210);
/// `SET_SURFACE_ZETA_OFFSET` (0x0214).
pub const SET_SURFACE_ZETA_OFFSET: u32 = reg(0x0214);
/// `SET_SURFACE_COLOR_BOFFSET` (0x0218).
pub const SET_SURFACE_COLOR_BOFFSET: u32 = reg(0x0218);
/// `SET_SURFACE_PITCH_B` (0x021C).
pub const SET_SURFACE_PITCH_B: u32 = reg(0x021C);
/// `SET_SURFACE_COLOR_TARGET` (0x0220).
pub const SET_SURFACE_COLOR_TARGET: u32 = reg(0x0220);
/// `SET_SURFACE_PITCH_Z` (0x022C).
pub const SET_SURFACE_PITCH_Z: u32 = reg(0x022C);
/// `SET_SURFACE_PITCH_C` (0x0280).
pub const SET_SURFACE_PITCH_C: u32 = reg(0x0280);
/// `SET_SURFACE_PITCH_D` (0x0284).
pub const SET_SURFACE_PITCH_D: u32 = reg(0x0284);
/// `SET_SURFACE_COLOR_COFFSET` (0x0288).
pub const SET_SURFACE_COLOR_COFFSET: u32 = reg(0x0288);
/// `SET_SURFACE_COLOR_DOFFSET` (0x028C).
pub const SET_SURFACE_COLOR_DOFFSET: u32 = reg(0x028C);
/// `SET_CONTEXT_DMA_COLOR_A` (0x0194).
pub const SET_CONTEXT_DMA_COLOR_A: u32 = reg(0x0194);
/// `SET_CONTEXT_DMA_COLOR_B` (0x018C).
pub const SET_CONTEXT_DMA_COLOR_B: u32 = reg(0x018C);
/// `SET_CONTEXT_DMA_COLOR_C` (0x01B4).
pub const SET_CONTEXT_DMA_COLOR_C: u32 = reg(0x01B4);
/// `SET_CONTEXT_DMA_COLOR_D` (0x01B8).
pub const SET_CONTEXT_DMA_COLOR_D: u32 = reg(0x01B8);
/// `SET_CONTEXT_DMA_ZETA` (0x0198).
pub const SET_CONTEXT_DMA_ZETA: u32 = reg(0x0198);
/// `SET_WINDOW_OFFSET` (0x02B8).
pub const SET_WINDOW_OFFSET: u32 = reg(0x02B8);

// --- Viewport, scissor, raster, depth, blend (4.8) ---
/// `SET_VIEWPORT_HORIZONTAL` (0x0A00).
pub const SET_VIEWPORT_HORIZONTAL: u32 = reg(0x0A00);
/// `SET_VIEWPORT_VERTICAL` (0x0A04).
pub const SET_VIEWPORT_VERTICAL: u32 = reg(0x0A04);
/// `SET_VIEWPORT_OFFSET` (0x0A20..0x0A2C).
pub const SET_VIEWPORT_OFFSET: u32 = reg(0x0A20);
/// `SET_VIEWPORT_SCALE` (0x0A30..0x0A3C).
pub const SET_VIEWPORT_SCALE: u32 = reg(0x0A30);
/// `SET_CLIP_MIN` (0x0394).
pub const SET_CLIP_MIN: u32 = reg(0x0394);
/// `SET_CLIP_MAX` (0x0398).
pub const SET_CLIP_MAX: u32 = reg(0x0398);
/// `SET_SCISSOR_HORIZONTAL` (0x08C0).
pub const SET_SCISSOR_HORIZONTAL: u32 = reg(0x08C0);
/// `SET_SCISSOR_VERTICAL` (0x08C4).
pub const SET_SCISSOR_VERTICAL: u32 = reg(0x08C4);
/// `SET_CULL_FACE` (0x1830).
pub const SET_CULL_FACE: u32 = reg(0x1830);
/// `SET_FRONT_FACE` (0x1834).
pub const SET_FRONT_FACE: u32 = reg(0x1834);
/// `SET_CULL_FACE_ENABLE` (0x183C).
pub const SET_CULL_FACE_ENABLE: u32 = reg(0x183C);
/// `SET_DEPTH_FUNC` (0x0A6C).
pub const SET_DEPTH_FUNC: u32 = reg(0x0A6C);
/// `SET_DEPTH_MASK` (0x0A70).
pub const SET_DEPTH_MASK: u32 = reg(0x0A70);
/// `SET_DEPTH_TEST_ENABLE` (0x0A74).
pub const SET_DEPTH_TEST_ENABLE: u32 = reg(0x0A74);
/// `SET_BLEND_ENABLE` (0x0310).
pub const SET_BLEND_ENABLE: u32 = reg(0x0310);
/// `SET_BLEND_FUNC_SFACTOR` (0x0314).
pub const SET_BLEND_FUNC_SFACTOR: u32 = reg(0x0314);
/// `SET_BLEND_FUNC_DFACTOR` (0x0318).
pub const SET_BLEND_FUNC_DFACTOR: u32 = reg(0x0318);
/// `SET_BLEND_EQUATION` (0x0320).
pub const SET_BLEND_EQUATION: u32 = reg(0x0320);
/// `SET_COLOR_MASK` (0x0324).
pub const SET_COLOR_MASK: u32 = reg(0x0324);

/// Number of registers in the file (`0x10000 / 4`).
pub const REGISTER_COUNT: u32 = 0x4000;

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
