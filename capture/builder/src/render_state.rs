//! libgcm-style render state calls: surfaces, viewport, scissor, depth, blend, colour mask,
//! culling and clears (rrc-format.md 4.8 and 4.2). Each writes its registers in register
//! order as count-1 commands.

use rsxtrace_rrc::Location;

use crate::builder::CaptureBuilder;
use crate::methods as m;

/// `CELL_GCM_CONTEXT_DMA_MEMORY_FRAME_BUFFER` / `_HOST_BUFFER` (rrc-format.md 4.1).
pub fn context_dma(location: Location) -> u32 {
    match location {
        Location::Local => 0xFEED_0000,
        Location::Main => 0xFEED_0001,
    }
}

/// One render target (colour or depth).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceTarget {
    /// Where it lives.
    pub location: Location,
    /// Offset in that location.
    pub offset: u32,
    /// Pitch in bytes.
    pub pitch: u32,
}

/// The surface setup `cellGcmSetSurface` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceDesc {
    /// Colour format (bits 0..4 of SET_SURFACE_FORMAT; 8 = A8R8G8B8).
    pub color_format: u32,
    /// Depth format (bits 5..7; 1 Z16, 2 Z24S8).
    pub depth_format: u32,
    /// Surface type (bits 8..11; 1 pitch, 2 swizzle).
    pub surface_type: u32,
    /// Antialias mode (bits 12..15).
    pub antialias: u32,
    /// log2 width (bits 16..23) and log2 height (bits 24..31), used by swizzled surfaces.
    pub log2_size: (u32, u32),
    /// SET_SURFACE_COLOR_TARGET (1 = A, 0x13 = A+B, ...).
    pub color_target: u32,
    /// Colour targets A, B, C, D.
    pub colors: [SurfaceTarget; 4],
    /// Depth/stencil target.
    pub zeta: SurfaceTarget,
    /// Clip rectangle x, y, width, height.
    pub clip: (u16, u16, u16, u16),
}

impl SurfaceDesc {
    /// A pitch-linear A8R8G8B8 surface of 2^`log2` × 2^`log2` pixels in local memory: colour
    /// target A at `color`, the Z24S8 depth surface at `zeta`, both 4 bytes a pixel, the clip
    /// the whole surface; targets B to D (unused) follow A one surface apart.
    pub fn argb8_square(log2: u32, color: u32, zeta: u32) -> SurfaceDesc {
        let side = 1u32 << log2.min(12);
        let target = |offset| SurfaceTarget {
            location: Location::Local,
            offset,
            pitch: side * 4,
        };
        let next = side * side * 4;
        let clip = u16::try_from(side).unwrap_or(u16::MAX);
        SurfaceDesc {
            color_format: 8,
            depth_format: 2,
            surface_type: 1,
            antialias: 0,
            log2_size: (log2, log2),
            color_target: 1,
            colors: [
                target(color),
                target(color + next),
                target(color + 2 * next),
                target(color + 3 * next),
            ],
            zeta: target(zeta),
            clip: (0, 0, clip, clip),
        }
    }

    /// The SET_SURFACE_FORMAT word.
    pub fn format_word(&self) -> u32 {
        (self.color_format & 0x1F)
            | ((self.depth_format & 7) << 5)
            | ((self.surface_type & 0xF) << 8)
            | ((self.antialias & 0xF) << 12)
            | ((self.log2_size.0 & 0xFF) << 16)
            | ((self.log2_size.1 & 0xFF) << 24)
    }
}

/// `origin | size << 16`, the layout of the clip, viewport and scissor registers.
fn rect(origin: u16, size: u16) -> u32 {
    u32::from(origin) | (u32::from(size) << 16)
}

impl CaptureBuilder {
    /// Write the surface registers: context DMAs, format, pitches, offsets, colour target and
    /// clip rectangle.
    pub fn set_surface(&mut self, s: &SurfaceDesc) {
        let [a, b, c, d] = s.colors;
        self.record(m::SET_CONTEXT_DMA_COLOR_B, context_dma(b.location));
        self.record(m::SET_CONTEXT_DMA_COLOR_A, context_dma(a.location));
        self.record(m::SET_CONTEXT_DMA_ZETA, context_dma(s.zeta.location));
        self.record(m::SET_CONTEXT_DMA_COLOR_C, context_dma(c.location));
        self.record(m::SET_CONTEXT_DMA_COLOR_D, context_dma(d.location));
        self.record(m::SET_SURFACE_CLIP_HORIZONTAL, rect(s.clip.0, s.clip.2));
        self.record(m::SET_SURFACE_CLIP_VERTICAL, rect(s.clip.1, s.clip.3));
        self.record(m::SET_SURFACE_FORMAT, s.format_word());
        self.record(m::SET_SURFACE_PITCH_A, a.pitch);
        self.record(m::SET_SURFACE_COLOR_AOFFSET, a.offset);
        self.record(m::SET_SURFACE_ZETA_OFFSET, s.zeta.offset);
        self.record(m::SET_SURFACE_COLOR_BOFFSET, b.offset);
        self.record(m::SET_SURFACE_PITCH_B, b.pitch);
        self.record(m::SET_SURFACE_COLOR_TARGET, s.color_target);
        self.record(m::SET_SURFACE_PITCH_Z, s.zeta.pitch);
        self.record(m::SET_SURFACE_PITCH_C, c.pitch);
        self.record(m::SET_SURFACE_PITCH_D, d.pitch);
        self.record(m::SET_SURFACE_COLOR_COFFSET, c.offset);
        self.record(m::SET_SURFACE_COLOR_DOFFSET, d.offset);
    }

    /// `cellGcmSetViewport`: VIEWPORT_HORIZONTAL/VERTICAL, CLIP_MIN/MAX, then the 4 offset and
    /// 4 scale floats.
    #[allow(clippy::too_many_arguments)]
    pub fn set_viewport(
        &mut self,
        x: u16,
        y: u16,
        w: u16,
        h: u16,
        depth: (f32, f32),
        offset: [f32; 4],
        scale: [f32; 4],
    ) {
        self.record(m::SET_VIEWPORT_HORIZONTAL, rect(x, w));
        self.record(m::SET_VIEWPORT_VERTICAL, rect(y, h));
        self.record(m::SET_CLIP_MIN, depth.0.to_bits());
        self.record(m::SET_CLIP_MAX, depth.1.to_bits());
        for (i, v) in offset.into_iter().enumerate() {
            self.record(m::SET_VIEWPORT_OFFSET + i as u32, v.to_bits());
        }
        for (i, v) in scale.into_iter().enumerate() {
            self.record(m::SET_VIEWPORT_SCALE + i as u32, v.to_bits());
        }
    }

    /// SET_SCISSOR_HORIZONTAL / VERTICAL.
    pub fn set_scissor(&mut self, x: u16, y: u16, w: u16, h: u16) {
        self.record(m::SET_SCISSOR_HORIZONTAL, rect(x, w));
        self.record(m::SET_SCISSOR_VERTICAL, rect(y, h));
    }

    /// SET_DEPTH_TEST_ENABLE, SET_DEPTH_FUNC (0x200 NEVER .. 0x207 ALWAYS), SET_DEPTH_MASK.
    pub fn set_depth(&mut self, test_enable: bool, func: u32, write_mask: bool) {
        self.record(m::SET_DEPTH_TEST_ENABLE, u32::from(test_enable));
        self.record(m::SET_DEPTH_FUNC, func);
        self.record(m::SET_DEPTH_MASK, u32::from(write_mask));
    }

    /// SET_BLEND_ENABLE, SET_BLEND_FUNC_SFACTOR/DFACTOR (`rgb | alpha << 16`) and
    /// SET_BLEND_EQUATION (`rgb | alpha << 16`).
    pub fn set_blend(
        &mut self,
        enable: bool,
        sfactor: (u16, u16),
        dfactor: (u16, u16),
        equation: (u16, u16),
    ) {
        let pair = |p: (u16, u16)| u32::from(p.0) | (u32::from(p.1) << 16);
        self.record(m::SET_BLEND_ENABLE, u32::from(enable));
        self.record(m::SET_BLEND_FUNC_SFACTOR, pair(sfactor));
        self.record(m::SET_BLEND_FUNC_DFACTOR, pair(dfactor));
        self.record(m::SET_BLEND_EQUATION, pair(equation));
    }

    /// SET_COLOR_MASK (B bits 0..7, G 8..15, R 16..23, A 24..31).
    pub fn set_color_mask(&mut self, mask: u32) {
        self.record(m::SET_COLOR_MASK, mask);
    }

    /// SET_CULL_FACE_ENABLE, SET_CULL_FACE (0x404 front, 0x405 back, 0x408 both) and
    /// SET_FRONT_FACE (0x900 CW, 0x901 CCW).
    pub fn set_cull(&mut self, enable: bool, face: u32, front_face: u32) {
        self.record(m::SET_CULL_FACE_ENABLE, u32::from(enable));
        self.record(m::SET_CULL_FACE, face);
        self.record(m::SET_FRONT_FACE, front_face);
    }

    /// SET_ZCULL_EN(`depth` | `stencil` << 1): Z-cull, which games keep on (libgcm's
    /// `cellGcmSetZcullEnable`) and RPCS3 needs to count an occlusion query's samples.
    pub fn set_zcull(&mut self, depth: bool, stencil: bool) {
        self.record(m::SET_ZCULL_EN, u32::from(depth) | u32::from(stencil) << 1);
    }

    /// The start of an occlusion query: SET_CONTEXT_DMA_REPORT(`report_dma`, e.g.
    /// `CELL_GCM_CONTEXT_DMA_REPORT_LOCATION_LOCAL` 0x66626660), CLEAR_REPORT_VALUE(1,
    /// `ZPASS_PIXEL_CNT`) and SET_ZPASS_PIXEL_COUNT_ENABLE(1): the draws until
    /// [`end_occlusion_query`](Self::end_occlusion_query) are counted.
    pub fn begin_occlusion_query(&mut self, report_dma: u32) {
        self.record(m::SET_CONTEXT_DMA_REPORT, report_dma);
        self.record(m::CLEAR_REPORT_VALUE, 1);
        self.record(m::SET_ZPASS_PIXEL_COUNT_ENABLE, 1);
    }

    /// The end of an occlusion query: GET_REPORT(`ZPASS_PIXEL_CNT`, `offset`) and
    /// SET_ZPASS_PIXEL_COUNT_ENABLE(0).
    pub fn end_occlusion_query(&mut self, offset: u32) {
        self.record(m::GET_REPORT, (1 << 24) | (offset & 0x00FF_FFFF));
        self.record(m::SET_ZPASS_PIXEL_COUNT_ENABLE, 0);
    }

    /// SET_CONTEXT_DMA_REPORT(`report_dma`) and SET_RENDER_ENABLE(mode 2, `offset`): the draws
    /// that follow render only when the report there holds a non-zero count
    /// (mode 2 is `CELL_GCM_CONDITIONAL`, RPCS3 `gcm_enums.h`); `None`: mode 1, every draw
    /// renders.
    pub fn set_conditional_render(&mut self, report: Option<(u32, u32)>) {
        match report {
            Some((report_dma, offset)) => {
                self.record(m::SET_CONTEXT_DMA_REPORT, report_dma);
                self.record(m::SET_RENDER_ENABLE, (2 << 24) | (offset & 0x00FF_FFFF));
            }
            None => self.record(m::SET_RENDER_ENABLE, 1 << 24),
        }
    }

    /// SET_COLOR_CLEAR_VALUE (ARGB8), SET_ZSTENCIL_CLEAR_VALUE, then CLEAR_SURFACE(`mask`)
    /// (Z 0x01, S 0x02, R 0x10, G 0x20, B 0x40, A 0x80).
    pub fn clear_surface(&mut self, mask: u32, colour: u32, depth_stencil: u32) {
        self.record(m::SET_COLOR_CLEAR_VALUE, colour);
        self.record(m::SET_ZSTENCIL_CLEAR_VALUE, depth_stencil);
        self.record(m::CLEAR_SURFACE, mask);
    }
}
