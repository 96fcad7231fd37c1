//! The frame events between draws that the draw list does not carry: clears
//! ([`ClearEvent`]) and occlusion report commands ([`ReportEvent`]), gathered by
//! [`FrameEvents::from_capture`].

use crate::raster::PixelRect;
use rsxtrace_capture::frame::state::{Rect, Surface};
use rsxtrace_capture::frame::{method_calls, reg, write_rules, Frame};
use rsxtrace_capture::rrc::{BufferState, Capture};

use super::{color_targets, rect_pixels, window_clip, ColorFormat};
use crate::render::msaa::{grid_pixels, Antialias};
use crate::render::transfer::decode::decode_at as decode_transfer;
use crate::render::transfer::TransferEvent;

/// `CLEAR_SURFACE` mask bits (rrc-format.md 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClearMask {
    /// 0x01.
    pub depth: bool,
    /// 0x02.
    pub stencil: bool,
    /// 0x10, 0x20, 0x40, 0x80: R, G, B, A.
    pub color: [bool; 4],
}

impl ClearMask {
    /// Decode a `CLEAR_SURFACE` argument.
    pub fn from_raw(v: u32) -> ClearMask {
        ClearMask {
            depth: v & 0x01 != 0,
            stencil: v & 0x02 != 0,
            color: [v & 0x10 != 0, v & 0x20 != 0, v & 0x40 != 0, v & 0x80 != 0],
        }
    }

    /// Clears any colour channel.
    pub fn any_color(&self) -> bool {
        self.color.iter().any(|&c| c)
    }
}

/// One `CLEAR_SURFACE` with the state it clears under.
#[derive(Clone, Debug, PartialEq)]
pub struct ClearEvent {
    /// Command index of the `CLEAR_SURFACE`.
    pub command: usize,
    /// It happens before draw `before_draw` (= the number of draws ended before it).
    pub before_draw: usize,
    /// What it clears.
    pub mask: ClearMask,
    /// Surface state at the clear.
    pub surface: Surface,
    /// Scissor at the clear (RPCS3 clears the scissored area).
    pub scissor: Rect,
    /// `SET_COLOR_CLEAR_VALUE` (ARGB8).
    pub color_value: u32,
    /// `SET_ZSTENCIL_CLEAR_VALUE` (Z24S8: depth << 8 | stencil; Z16: low 16 bits).
    pub zstencil_value: u32,
    /// `SET_STENCIL_MASK` (low 8 bits): the stencil bits the clear writes. RPCS3 clears the
    /// stencil through it and drops a stencil clear when it is 0, as GL's clear honours the
    /// stencil write mask (`VKGSRender::clear_surface`, `stencil_clear_pass`); `mask.stencil`
    /// is then false.
    pub stencil_write_mask: u8,
}

impl ClearEvent {
    /// The pixels it writes, in the surface's memory grid: the scissor (RPCS3 clears the
    /// scissored area, `VKGSRender::clear_surface`) within the surface clip's size, in window
    /// pixels as a draw's bounds ([`window_clip`]), moved by the window offset (RPCS3 clears
    /// the framebuffer whose base the offset moved), all scaled to the sample grid of a
    /// multisampled surface, which clears its whole grid (`super::msaa`). Both renderers
    /// clear this area (clipped to their targets).
    pub fn area(&self) -> PixelRect {
        let s = &self.surface;
        let grid = Antialias::of(s).grid();
        let window = rect_pixels(&self.scissor).intersect(&window_clip(s));
        let offset = (u32::from(s.window_offset_x), u32::from(s.window_offset_y));
        grid_pixels(window.moved_by(offset), grid)
    }

    /// The clear colour of a `format` target as RGBA floats (which the target's encoding
    /// stores), with the channels the mask clears; `None` where a colour clear writes
    /// nothing. RPCS3's rules (`VKGSRender::clear_surface`, `color_utils.h`): the clear
    /// value is copied to the pixel as it is, "RSX clear color is just a memcpy":
    /// - ARGB8 formats: A, R, G, B from bytes 3, 2, 1, 0 of `SET_COLOR_CLEAR_VALUE`;
    /// - A8B8G8R8 and the X8B8G8R8 pair: the same bytes in memory, so the format's R channel
    ///   takes byte 0 and its B channel byte 2, and the R and B mask bits trade places
    ///   (`get_abgr8_clear_color`, `get_abgr8_clearmask`);
    /// - R5G6B5: the low 16 bits are the pixel (`get_rgb565_clear_color`); X1R5G5B5: the low
    ///   15 bits, the X bit as the format writes it (`get_a1rgb555_clear_color`);
    /// - fp16 and fp32 targets: no colour clear (RPCS3 NOPs it).
    pub fn color_for(&self, format: ColorFormat) -> Option<([f32; 4], [bool; 4])> {
        let v = self.color_value;
        let c = |shift: u32| ((v >> shift) & 0xFF) as f32 / 255.0;
        let field = |shift: u32, bits: u32| {
            ((v >> shift) & ((1 << bits) - 1)) as f32 / ((1u32 << bits) - 1) as f32
        };
        let mask = self.mask.color;
        Some(match format {
            ColorFormat::FloatW16Z16Y16X16
            | ColorFormat::FloatW32Z32Y32X32
            | ColorFormat::FloatX32 => return None,
            ColorFormat::A8B8G8R8
            | ColorFormat::X8B8G8R8Z8B8G8R8
            | ColorFormat::X8B8G8R8O8B8G8R8 => (
                [c(0), c(8), c(16), c(24)],
                [mask[2], mask[1], mask[0], mask[3]],
            ),
            ColorFormat::R5G6B5 => ([field(11, 5), field(5, 6), field(0, 5), 1.0], mask),
            ColorFormat::X1R5G5B5Z1R5G5B5 | ColorFormat::X1R5G5B5O1R5G5B5 => {
                ([field(10, 5), field(5, 5), field(0, 5), 1.0], mask)
            }
            _ => ([c(16), c(8), c(0), c(24)], mask),
        })
    }

    /// The colour targets it clears (0..4 = A..D); an invalid target register clears none.
    pub fn color_targets(&self) -> Vec<usize> {
        color_targets(self.surface.color_target.raw).unwrap_or_default()
    }
}

/// An occlusion report command with its place in the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportEvent {
    /// Its command index.
    pub command: usize,
    /// It happens before draw `before_draw` (= the number of draws ended before it).
    pub before_draw: usize,
    /// What it does.
    pub op: ReportOp,
}

/// What a report command does (RPCS3 `nv4097::clear_report_value`, `nv4097::get_report`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportOp {
    /// `CLEAR_REPORT_VALUE`: zero the counter of `report_type` (1: `ZPASS_PIXEL_CNT`).
    Clear {
        /// The value written (the report type).
        report_type: u32,
    },
    /// `SET_RENDER_ENABLE`: mode 1 renders every draw after it; mode 2 only while the report
    /// at `offset` of `report_dma`, as it is at this command, holds a sample (RPCS3
    /// `nv4097::set_render_mode` evaluates it here, `thread::enable_conditional_rendering`);
    /// another mode changes nothing.
    RenderEnable {
        /// Bits 24..31.
        mode: u8,
        /// Bits 0..23.
        offset: u32,
        /// `SET_CONTEXT_DMA_REPORT` raw.
        report_dma: u32,
    },
    /// `GET_REPORT`: write the counter of `report_type` as a report at `offset` in the report
    /// area `report_dma` (`SET_CONTEXT_DMA_REPORT` at the command).
    Get {
        /// Bits 24..31.
        report_type: u8,
        /// Bits 0..23.
        offset: u32,
        /// `SET_CONTEXT_DMA_REPORT` raw.
        report_dma: u32,
    },
}

impl ReportOp {
    /// The report command of a method call (`regs`: the register file after it), if it is
    /// one.
    pub fn decode(register: u16, value: u32, regs: &[u32]) -> Option<ReportOp> {
        let report_dma = regs
            .get(usize::from(reg::SET_CONTEXT_DMA_REPORT))
            .copied()
            .unwrap_or(0);
        match register {
            reg::CLEAR_REPORT_VALUE => Some(ReportOp::Clear { report_type: value }),
            reg::SET_RENDER_ENABLE => Some(ReportOp::RenderEnable {
                mode: (value >> 24) as u8,
                offset: value & 0x00FF_FFFF,
                report_dma,
            }),
            reg::GET_REPORT => Some(ReportOp::Get {
                report_type: (value >> 24) as u8,
                offset: value & 0x00FF_FFFF,
                report_dma,
            }),
            _ => None,
        }
    }
}

/// What a frame's method stream says besides its draws: clears, image transfers and the
/// display buffers. (Every register a draw reads is decoded into its `Draw`, so no per-draw
/// registers are scanned here.) The default holds no clears, no transfers and no display
/// buffers: what a renderer knows from a `Frame` alone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameEvents {
    /// Clears in stream order.
    pub clears: Vec<ClearEvent>,
    /// Image transfers (`NV0039`, `NV3089`) in stream order.
    pub transfers: Vec<TransferEvent>,
    /// Display buffers recorded with the capture (the last state attached to any command).
    pub display_buffers: Vec<BufferState>,
    /// Occlusion report commands (`CLEAR_REPORT_VALUE`, `GET_REPORT`, `SET_RENDER_ENABLE`)
    /// in stream order.
    pub reports: Vec<ReportEvent>,
    /// `SET_RENDER_ENABLE` as the frame begins (the capture's register state: set before
    /// it), as a [`ReportOp::RenderEnable`]; `None` for no conditional rendering.
    pub initial_render_enable: Option<ReportOp>,
}

impl FrameEvents {
    /// Scan `capture` (the one `frame` was decoded from): the register file is replayed from
    /// the captured one through every method call, recording each `CLEAR_SURFACE` with the
    /// surface state in effect and the number of draws before it, and each transfer with its
    /// registers decoded ([`crate::render::transfer::decode`]). A malformed stretch of the
    /// method stream is skipped as the frame model skips it (its problems name it).
    pub fn from_capture(capture: &Capture, frame: &Frame) -> FrameEvents {
        let mut regs = capture.reg_state.registers.clone();
        let initial_render_enable = regs
            .get(usize::from(reg::SET_RENDER_ENABLE))
            .and_then(|&v| ReportOp::decode(reg::SET_RENDER_ENABLE, v, &regs));
        let mut clears = Vec::new();
        let mut transfers = Vec::new();
        let mut reports = Vec::new();
        let mut next_draw = 0usize;
        let r = |regs: &[u32], i: u16| regs.get(usize::from(i)).copied().unwrap_or(0);
        for call in method_calls(&capture.commands) {
            let Ok(call) = call else { continue };
            while let Some(d) = frame.draws.get(next_draw) {
                if d.end_command >= call.command_index {
                    break;
                }
                next_draw += 1;
            }
            // A write the front end refuses leaves the register as the frame model does.
            if let Some(x) = regs
                .get_mut(usize::from(call.reg))
                .filter(|_| !write_rules::refused(call.reg, call.value))
            {
                *x = call.value;
            }
            if call.reg == reg::CLEAR_SURFACE {
                let stencil_write_mask = (r(&regs, reg::SET_STENCIL_MASK) & 0xFF) as u8;
                let mut mask = ClearMask::from_raw(call.value);
                mask.stencil &= stencil_write_mask != 0;
                clears.push(ClearEvent {
                    command: call.command_index,
                    before_draw: next_draw,
                    mask,
                    surface: Surface::from_regs(&regs),
                    scissor: Rect::from_regs(
                        r(&regs, reg::SET_SCISSOR_HORIZONTAL),
                        r(&regs, reg::SET_SCISSOR_VERTICAL),
                    ),
                    color_value: r(&regs, reg::SET_COLOR_CLEAR_VALUE),
                    zstencil_value: r(&regs, reg::SET_ZSTENCIL_CLEAR_VALUE),
                    stencil_write_mask,
                });
            }
            if let Some(op) = ReportOp::decode(call.reg, call.value, &regs) {
                reports.push(ReportEvent {
                    command: call.command_index,
                    before_draw: next_draw,
                    op,
                });
            }
            if let Some(transfer) = decode_transfer(call.reg, &regs, call.command_index) {
                transfers.push(TransferEvent {
                    command: call.command_index,
                    before_draw: next_draw,
                    transfer,
                });
            }
        }
        let display_buffers = capture
            .commands
            .iter()
            .rev()
            .find(|c| c.display_buffer_state != 0)
            .and_then(|c| {
                capture
                    .display_buffers
                    .iter()
                    .find(|e| e.id == c.display_buffer_state)
            })
            .map(|e| {
                let n = (e.value.count as usize).min(e.value.buffers.len());
                e.value.buffers.iter().take(n).copied().collect()
            })
            .unwrap_or_default();
        FrameEvents {
            clears,
            transfers,
            display_buffers,
            reports,
            initial_render_enable,
        }
    }
}
