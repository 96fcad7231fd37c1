//! libgcm-style image transfers: `cellGcmSetTransferData`-like memory copies (`NV0039`),
//! the `NV3062` 2D surface and `NV309E` swizzled surface a scaled image writes to, and
//! `cellGcmSetTransferScale`-like scaled images (`NV3089`). Each writes its registers as
//! count-1 commands; the starting method carries the memory RPCS3's recorder attaches to it
//! (rrc-format.md 3.3: `capture_buffer_notify` packs `line_count` lines of `line_length`
//! bytes at `(OFFSET_IN, raw DMA handle)`; `capture_image_in` attaches the source rectangle),
//! when the builder's memory holds those bytes.
//!
//! Register offsets and field layouts: RPCS3 `rsx_decode.h` and `gcm_enums.h` (the frame model's
//! table, `rsxtrace_frame::methods::reg`, which `rsxtrace_replay::render::transfer::decode` reads).

use rsxtrace_frame::methods::{reg, CONTEXT_SURFACE2D, CONTEXT_SWIZZLE2D};
use rsxtrace_rrc::Location;

use crate::builder::{blob, check_range, CaptureBuilder};
use crate::error::BuildError;
use crate::render_state::context_dma;

/// A transfer-class register index (`rsxtrace_frame::methods::reg`) as the builder's `u32`.
const fn at(reg: u16) -> u32 {
    reg as u32
}

/// An `NV0039` memory-to-memory copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryCopyDesc {
    /// Source memory and offset.
    pub src: (Location, u32),
    /// Destination memory and offset.
    pub dst: (Location, u32),
    /// Source and destination pitches (signed).
    pub pitch: (i32, i32),
    /// Bytes per line.
    pub line_length: u32,
    /// Lines.
    pub line_count: u32,
    /// Input and output byte strides (`NV0039_FORMAT`; 1 = contiguous).
    pub strides: (u8, u8),
}

/// The `NV3062` surface a scaled image writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferSurfaceDesc {
    /// Memory.
    pub location: Location,
    /// Offset.
    pub offset: u32,
    /// Destination pitch in bytes.
    pub pitch: u16,
    /// `CELL_GCM_TRANSFER_SURFACE_FORMAT_*` (4 R5G6B5, 0xA A8R8G8B8, 0xB Y32).
    pub format: u32,
}

/// The `NV309E` swizzled surface a scaled image writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferSwizzleDesc {
    /// Memory.
    pub location: Location,
    /// Offset.
    pub offset: u32,
    /// `CELL_GCM_TRANSFER_SURFACE_FORMAT_*`.
    pub format: u32,
    /// log2 width and log2 height.
    pub log2_size: (u8, u8),
}

/// An `NV3089` scaled image (`CellGcmTransferScale`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScaledImageDesc {
    /// Source memory and offset.
    pub src: (Location, u32),
    /// `CELL_GCM_TRANSFER_CONVERSION_*` (0 dither, 1 truncate).
    pub conversion: u32,
    /// `CELL_GCM_TRANSFER_SCALE_FORMAT_*` (3 A8R8G8B8, 4 X8R8G8B8, 7 R5G6B5).
    pub format: u32,
    /// `CELL_GCM_TRANSFER_OPERATION_*` (3 SRCCOPY).
    pub operation: u32,
    /// Clip rectangle x, y, width, height.
    pub clip: (u16, u16, u16, u16),
    /// Output rectangle x, y, width, height.
    pub out: (u16, u16, u16, u16),
    /// DS_DX and DT_DY: source texels per destination pixel, 11.20 fixed point.
    pub ratio: (u32, u32),
    /// Source width, height.
    pub in_size: (u16, u16),
    /// Source pitch in bytes.
    pub pitch: u16,
    /// `CELL_GCM_TRANSFER_ORIGIN_*` (1 center, 2 corner).
    pub origin: u8,
    /// `CELL_GCM_TRANSFER_INTERPOLATOR_*` (0 ZOH, 1 FOH).
    pub interpolator: u8,
    /// Source point u, v in 12.4 fixed point.
    pub in_point: (u16, u16),
}

/// `(origin, size)` packed as x 15:0, y 31:16.
fn pair(a: u16, b: u16) -> u32 {
    u32::from(a) | (u32::from(b) << 16)
}

impl CaptureBuilder {
    /// Attach `(location as recorded, offset, bytes)` blocks to the last command, as
    /// RPCS3's recorder does for the method that starts a transfer.
    fn attach_to_last(&mut self, blocks: Vec<(u32, u32, Vec<u8>)>) {
        let mut memory = Vec::new();
        for (location, offset, bytes) in blocks {
            if let Some(id) = self.ids.insert_memory_block(offset, location, blob(&bytes)) {
                if !memory.contains(&id) {
                    memory.push(id);
                }
            }
        }
        if let Some(cmd) = self.commands.last_mut() {
            cmd.memory = memory;
        }
    }

    /// `NV0039`: DMA in/out, then OFFSET_IN .. FORMAT and BUFFER_NOTIFY (which carries the
    /// source lines, packed, when the builder's memory holds them).
    pub fn transfer_memory(&mut self, d: &MemoryCopyDesc) -> Result<(), BuildError> {
        self.record(at(reg::NV0039_DMA_IN), context_dma(d.src.0));
        self.record(at(reg::NV0039_DMA_OUT), context_dma(d.dst.0));
        let words = [
            d.src.1,
            d.dst.1,
            d.pitch.0 as u32,
            d.pitch.1 as u32,
            d.line_length,
            d.line_count,
            u32::from(d.strides.0) | (u32::from(d.strides.1) << 8),
        ];
        for (i, w) in words.into_iter().enumerate() {
            self.record(at(reg::NV0039_OFFSET_IN) + i as u32, w);
        }
        self.record(at(reg::NV0039_BUFFER_NOTIFY), 0);
        // capture_buffer_notify: the lines packed at (OFFSET_IN, raw context DMA).
        let mut packed = Vec::new();
        for line in 0..u64::from(d.line_count) {
            let at = i64::from(d.src.1) + line as i64 * i64::from(d.pitch.0);
            let Ok(at) = u64::try_from(at) else {
                return Ok(());
            };
            match self.memory.read(d.src.0, at, u64::from(d.line_length)) {
                Ok(b) => packed.extend_from_slice(b),
                Err(_) => return Ok(()),
            }
        }
        self.attach_to_last(vec![(context_dma(d.src.0), d.src.1, packed)]);
        Ok(())
    }

    /// `NV3062` destination: DMA, colour format, pitch (destination in bits 31:16), offset;
    /// then `NV3089_SET_CONTEXT_SURFACE` = SURFACE2D.
    pub fn set_transfer_surface(&mut self, d: &TransferSurfaceDesc) {
        self.record(at(reg::NV3062_DMA_DESTIN), context_dma(d.location));
        self.record(at(reg::NV3062_COLOR_FORMAT), d.format);
        self.record(at(reg::NV3062_COLOR_FORMAT) + 1, pair(d.pitch, d.pitch));
        self.record(at(reg::NV3062_COLOR_FORMAT) + 3, d.offset);
        self.record(at(reg::NV3089_CONTEXT_SURFACE), CONTEXT_SURFACE2D);
    }

    /// `NV309E` destination: DMA, format (log2 width 23:16, log2 height 31:24), offset; then
    /// `NV3089_SET_CONTEXT_SURFACE` = SWIZZLE2D.
    pub fn set_transfer_swizzle(&mut self, d: &TransferSwizzleDesc) {
        self.record(at(reg::NV309E_DMA), context_dma(d.location));
        self.record(
            at(reg::NV309E_FORMAT),
            (d.format & 0xFFFF)
                | (u32::from(d.log2_size.0) << 16)
                | (u32::from(d.log2_size.1) << 24),
        );
        self.record(at(reg::NV309E_FORMAT) + 1, d.offset);
        self.record(at(reg::NV3089_CONTEXT_SURFACE), CONTEXT_SWIZZLE2D);
    }

    /// `NV308A`: one row of an image sent inline: `NV308A_POINT` = `point`, `SIZE_OUT` =
    /// (`words.len()`, 1), then one `NV308A_COLOR[i]` write per word, each written to pixel
    /// `(point.x + i, point.y)` of the last [`Self::set_transfer_surface`]. At most 0x700
    /// words (the COLOR registers).
    pub fn transfer_inline(&mut self, point: (u16, u16), words: &[u32]) -> Result<(), BuildError> {
        check_range("NV308A words", words.len() as u64, 0x701)?;
        self.record(at(reg::NV308A_POINT), pair(point.0, point.1));
        self.record(at(reg::NV308A_SIZE_OUT), pair(words.len() as u16, 1));
        for (i, &w) in words.iter().enumerate() {
            self.record(at(reg::NV308A_COLOR) + i as u32, w);
        }
        Ok(())
    }

    /// `NV3089`: source DMA, conversion .. DT_DY, then IMAGE_IN_SIZE, FORMAT, OFFSET and
    /// IMAGE_IN, which starts the transfer and carries the source rectangle when the builder's
    /// memory holds it. The destination is the last [`Self::set_transfer_surface`] or
    /// [`Self::set_transfer_swizzle`].
    pub fn transfer_scaled(&mut self, d: &ScaledImageDesc) -> Result<(), BuildError> {
        self.record(at(reg::NV3089_DMA_IMAGE), context_dma(d.src.0));
        let words = [
            d.conversion,
            d.format,
            d.operation,
            pair(d.clip.0, d.clip.1),
            pair(d.clip.2, d.clip.3),
            pair(d.out.0, d.out.1),
            pair(d.out.2, d.out.3),
            d.ratio.0,
            d.ratio.1,
        ];
        for (i, w) in words.into_iter().enumerate() {
            self.record(at(reg::NV3089_COLOR_CONVERSION) + i as u32, w);
        }
        self.record(at(reg::NV3089_IN_SIZE), pair(d.in_size.0, d.in_size.1));
        self.record(
            at(reg::NV3089_IN_SIZE) + 1,
            u32::from(d.pitch) | (u32::from(d.origin) << 16) | (u32::from(d.interpolator) << 24),
        );
        self.record(at(reg::NV3089_IN_SIZE) + 2, d.src.1);
        self.record(at(reg::NV3089_IMAGE_IN), pair(d.in_point.0, d.in_point.1));
        // capture_image_in: (offset + x·bpp + y·pitch), pitch·(h − 1) + w·bpp bytes.
        let bpp = if d.format == 7 { 2u64 } else { 4 };
        let (x, y) = (u64::from(d.in_point.0 >> 4), u64::from(d.in_point.1 >> 4));
        let (w, h) = (u64::from(d.in_size.0), u64::from(d.in_size.1));
        let pitch = u64::from(d.pitch);
        let at = u64::from(d.src.1) + x * bpp + y * pitch;
        let len = (pitch * h.saturating_sub(1) + w * bpp).min(1 << 26);
        if let (Ok(bytes), Ok(offset)) = (self.memory.read(d.src.0, at, len), u32::try_from(at)) {
            let bytes = bytes.to_vec();
            self.attach_to_last(vec![(u32::from(d.src.0 == Location::Main), offset, bytes)]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks attached to the last command: `(offset, raw location, bytes)`.
    fn attached(c: &rsxtrace_rrc::Capture) -> Vec<(u32, u32, Vec<u8>)> {
        let last = c.commands.last().expect("a command");
        last.memory
            .iter()
            .map(|id| {
                let b = &c.blocks.iter().find(|e| e.id == *id).expect("block").value;
                let d = &c.data.iter().find(|e| e.id == b.data_id).expect("data");
                (b.offset, b.location, d.value.to_vec())
            })
            .collect()
    }

    #[test]
    fn buffer_notify_carries_the_source_lines_packed() {
        // Two lines of 4 bytes, pitch 8: RPCS3 packs bytes 0..4 and 8..12 at OFFSET_IN with
        // the raw context DMA as location (rrc-format.md 3.3).
        let mut b = CaptureBuilder::new("t.rrc");
        let src: Vec<u8> = (0u8..16).collect();
        b.put_memory(Location::Main, 0x100, &src).unwrap();
        b.transfer_memory(&MemoryCopyDesc {
            src: (Location::Main, 0x100),
            dst: (Location::Local, 0x200),
            pitch: (8, 4),
            line_length: 4,
            line_count: 2,
            strides: (1, 1),
        })
        .unwrap();
        let c = b.finish();
        let last = c.commands.last().unwrap();
        assert_eq!(
            last.first,
            crate::methods::single_header(at(reg::NV0039_BUFFER_NOTIFY))
        );
        assert_eq!(
            attached(&c),
            vec![(0x100, 0xFEED_0001, vec![0, 1, 2, 3, 8, 9, 10, 11])]
        );
    }

    #[test]
    fn image_in_carries_the_source_rectangle() {
        // 2×2 R5G6B5 texels at point (1, 1) of a pitch-8 image: offset 0x40 + 1·2 + 1·8,
        // 8·(2 − 1) + 2·2 = 12 bytes.
        let mut b = CaptureBuilder::new("t.rrc");
        let src: Vec<u8> = (0u8..32).collect();
        b.put_memory(Location::Local, 0x40, &src).unwrap();
        b.set_transfer_surface(&TransferSurfaceDesc {
            location: Location::Local,
            offset: 0x1000,
            pitch: 4,
            format: 4,
        });
        b.transfer_scaled(&ScaledImageDesc {
            src: (Location::Local, 0x40),
            conversion: 1,
            format: 7,
            operation: 3,
            clip: (0, 0, 2, 2),
            out: (0, 0, 2, 2),
            ratio: (1 << 20, 1 << 20),
            in_size: (2, 2),
            pitch: 8,
            origin: 2,
            interpolator: 0,
            in_point: (16, 16),
        })
        .unwrap();
        let c = b.finish();
        assert_eq!(attached(&c), vec![(0x4A, 0, (10u8..22).collect())]);
        // Without the bytes in the builder's memory nothing is attached.
        let mut b = CaptureBuilder::new("t.rrc");
        b.transfer_scaled(&ScaledImageDesc {
            src: (Location::Local, 0x40),
            conversion: 1,
            format: 3,
            operation: 3,
            clip: (0, 0, 2, 2),
            out: (0, 0, 2, 2),
            ratio: (1 << 20, 1 << 20),
            in_size: (2, 2),
            pitch: 8,
            origin: 2,
            interpolator: 0,
            in_point: (0, 0),
        })
        .unwrap();
        assert!(attached(&b.finish()).is_empty());
    }
}
