//! The transfer classes' registers, decoded at the method that starts a transfer.
//!
//! Register layouts (byte offsets, fields) are facts from RPCS3 `rsx_decode.h` and
//! `gcm_enums.h`, cross-checked with the NV04-family "scaled image from memory" field names
//! (`IMAGE_IN_FORMAT` = pitch 15:0, origin 23:16, interpolator 31:24; `IMAGE_IN` = point
//! u 15:0, v 31:16):
//!
//! | class | register | fields |
//! |---|---|---|
//! | NV0039 | `SET_CONTEXT_DMA_BUFFER_IN/OUT` (0x2184/0x2188) | 0xFEED0000 or 0 local, 0xFEED0001 or 1 main (RPCS3 `get_address`) |
//! | NV0039 | `OFFSET_IN/OUT` (0x230C/0x2310), `PITCH_IN/OUT` (0x2314/0x2318) | offsets; pitches signed (RPCS3 `nv0039.cpp` reads them as `s32`) |
//! | NV0039 | `LINE_LENGTH_IN` (0x231C), `LINE_COUNT` (0x2320) | columns (bytes copied) per line, lines |
//! | NV0039 | `FORMAT` (0x2324) | input byte stride 7:0, output byte stride 15:8; each 1 to 4, else the copy is a NOP |
//! | NV0039 | `BUFFER_NOTIFY` (0x2328) | starts the copy |
//! | NV3062 | `SET_CONTEXT_DMA_IMAGE_DESTIN` (0x6188), `SET_COLOR_FORMAT` (0x6300) | destination DMA; 4 R5G6B5, 0xA A8R8G8B8, 0xB Y32 |
//! | NV3062 | `SET_PITCH` (0x6304), `SET_OFFSET_DESTIN` (0x630C) | source pitch 15:0 (unused here), destination pitch 31:16; offset |
//! | NV309E | `SET_CONTEXT_DMA_IMAGE` (0x8184), `SET_FORMAT` (0x8300), `SET_OFFSET` (0x8304) | format 15:0, log2 width 23:16, log2 height 31:24 (RPCS3 `sw_width_log2` / `sw_height_log2`, `rsx_decode.h`; nouveau's BASE_SIZE_U / _V) |
//! | NV3089 | `SET_CONTEXT_DMA_IMAGE` (0xC184) | source DMA |
//! | NV3089 | `SET_CONTEXT_SURFACE` (0xC198) | 0x313371C3 = NV3062 (`CELL_GCM_CONTEXT_SURFACE2D`), 0x31337A73 = NV309E (`CELL_GCM_CONTEXT_SWIZZLE2D`) |
//! | NV3089 | `SET_COLOR_CONVERSION` (0xC2FC) | 0 dither, 1 truncate, 2 subtract-truncate |
//! | NV3089 | `SET_COLOR_FORMAT` (0xC300) | source: 3 A8R8G8B8, 4 X8R8G8B8, 7 R5G6B5 (others: YUV, Y8, BGR orders) |
//! | NV3089 | `SET_OPERATION` (0xC304) | 3 = SRCCOPY |
//! | NV3089 | `CLIP_POINT`/`CLIP_SIZE`, `IMAGE_OUT_POINT`/`IMAGE_OUT_SIZE` (0xC308..0xC314) | x 15:0, y 31:16 / width 15:0, height 31:16, destination pixels |
//! | NV3089 | `DS_DX`, `DT_DY` (0xC318, 0xC31C) | source texels per destination pixel, signed 11.20 fixed point (RPCS3 `decode_fxp<11, 20>`) |
//! | NV3089 | `IMAGE_IN_SIZE` (0xC400), `IMAGE_IN_FORMAT` (0xC404), `IMAGE_IN_OFFSET` (0xC408) | width/height; pitch, origin (1 center, 2 corner), interpolator (0 ZOH, 1 FOH); offset |
//! | NV3089 | `IMAGE_IN` (0xC40C) | source point u 15:0, v 31:16, 12.4 fixed point; starts the transfer |

use rsxtrace_capture::rrc::Location;

/// The transfer classes' register indices (one table, `rsxtrace_frame::methods::reg`, which
/// the capture builder writes with too).
pub use rsxtrace_capture::frame::methods::reg;

pub use rsxtrace_capture::frame::methods::{CONTEXT_SURFACE2D, CONTEXT_SWIZZLE2D};

/// Why a transfer is not replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{method} at command {command}: {reason}")]
pub struct Unsupported {
    /// The method that started it.
    pub method: &'static str,
    /// Its command index.
    pub command: usize,
    /// What is not modelled or not valid.
    pub reason: String,
}

/// An `NV0039` memory-to-memory copy: `line_count` lines of `line_length` columns, line `i`
/// read at `src_offset + i·src_pitch` and written at `dst_offset + i·dst_pitch`; within a
/// line, column `k < line_length` is the byte read at `k·src_stride` and written at
/// `k·dst_stride` (the formats are byte strides of 1 to 4; any other stride makes the copy a
/// NOP: RPCS3 `nv0039.cpp`, `buffer_notify` and `validate_buffer_notify`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryCopy {
    /// Source memory.
    pub src: Location,
    /// Source offset.
    pub src_offset: u32,
    /// Source pitch (signed).
    pub src_pitch: i32,
    /// Destination memory.
    pub dst: Location,
    /// Destination offset.
    pub dst_offset: u32,
    /// Destination pitch (signed).
    pub dst_pitch: i32,
    /// Columns (bytes copied) per line.
    pub line_length: u32,
    /// Lines.
    pub line_count: u32,
    /// Input byte stride (1 contiguous; 1 to 4 copy).
    pub src_stride: u8,
    /// Output byte stride (likewise).
    pub dst_stride: u8,
}

impl MemoryCopy {
    /// Both strides in 1..=4, the only ones RPCS3 copies with (`validate_buffer_notify`).
    pub fn strides_valid(&self) -> bool {
        (1..=4).contains(&self.src_stride) && (1..=4).contains(&self.dst_stride)
    }
}

/// The pixel format of an `NV3089` source (`CELL_GCM_TRANSFER_SCALE_FORMAT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    /// 7: big-endian u16 `R:5 G:6 B:5`.
    R5G6B5,
    /// 3: bytes A, R, G, B.
    A8R8G8B8,
    /// 4: bytes X, R, G, B (the X byte is copied as alpha, as RPCS3 does).
    X8R8G8B8,
}

impl SourceFormat {
    /// Bytes per pixel.
    pub fn bytes(self) -> u32 {
        match self {
            SourceFormat::R5G6B5 => 2,
            _ => 4,
        }
    }
}

/// The pixel format of an `NV3062`/`NV309E` destination
/// (`CELL_GCM_TRANSFER_SURFACE_FORMAT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DestinationFormat {
    /// 4: big-endian u16 `R:5 G:6 B:5`.
    R5G6B5,
    /// 0xA: bytes A, R, G, B.
    A8R8G8B8,
    /// 0xB: 32 bits written as the source's four bytes.
    Y32,
}

impl DestinationFormat {
    /// Bytes per pixel.
    pub fn bytes(self) -> u32 {
        match self {
            DestinationFormat::R5G6B5 => 2,
            _ => 4,
        }
    }

    fn from_raw(v: u32) -> Option<DestinationFormat> {
        Some(match v {
            4 => DestinationFormat::R5G6B5,
            0xA => DestinationFormat::A8R8G8B8,
            0xB => DestinationFormat::Y32,
            _ => return None,
        })
    }
}

/// Where `IMAGE_IN`'s source point is measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// 1: the point is a texel-centre coordinate (0.5 = the centre of texel 0, RPCS3
    /// `nv3089.cpp`: "offset of 1 is actually half-way inside pixel 0" after its own shift).
    Center,
    /// 2: the point is a texel-corner coordinate.
    Corner,
}

/// How source texels are filtered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolator {
    /// 0: zero-order hold (nearest texel).
    Zoh,
    /// 1: first-order hold (bilinear).
    Foh,
}

/// Where an `NV3089` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextSurface {
    /// `NV3062`: pixel (x, y) at `offset + y·pitch + x·bpp`.
    Surface2d {
        /// Memory.
        location: Location,
        /// Offset of pixel (0, 0).
        offset: u32,
        /// Row pitch in bytes (0: `out_width·bpp`, as RPCS3 `nv3089.cpp` does).
        pitch: u32,
    },
    /// `NV309E`: pixel (x, y) at `offset + z_index(x, y)·bpp` in a
    /// `2^log2_width × 2^log2_height` Z-order block (the swizzled-texture order).
    Swizzle2d {
        /// Memory.
        location: Location,
        /// Offset of the block.
        offset: u32,
        /// log2 of the width.
        log2_width: u8,
        /// log2 of the height.
        log2_height: u8,
    },
}

/// An `NV3089` scaled image transfer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScaledImage {
    /// Source memory.
    pub src: Location,
    /// Source offset (texel (0, 0)).
    pub src_offset: u32,
    /// Source pitch in bytes (0 in the register: `in_width·bpp`, RPCS3 `nv3089.cpp`).
    pub src_pitch: u32,
    /// Source format.
    pub src_format: SourceFormat,
    /// Source size in texels.
    pub in_size: (u16, u16),
    /// Source point in texels (12.4 fixed point in the register).
    pub in_point: (f64, f64),
    /// How the source point is measured.
    pub origin: Origin,
    /// Filter.
    pub interpolator: Interpolator,
    /// Clip rectangle (x, y, width, height), destination pixels.
    pub clip: (u16, u16, u16, u16),
    /// Output rectangle (x, y, width, height), destination pixels.
    pub out: (u16, u16, u16, u16),
    /// Source texels per destination pixel along x and y.
    pub step: (f64, f64),
    /// Destination.
    pub destination: ContextSurface,
    /// Destination format.
    pub dst_format: DestinationFormat,
    /// `SET_COLOR_CONVERSION` (0 dither, 1 truncate, 2 subtract-truncate).
    pub conversion: u32,
}

/// One `NV308A_COLOR[i]` word: a pixel of an image sent inline in the command stream,
/// written to the `NV3062` surface at `(POINT.x + i, POINT.y)` (RPCS3 `nv308a.cpp`
/// `color::impl`; words at or past `SIZE_OUT`'s width are skipped and start no transfer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlinePixel {
    /// Destination memory (`NV3062_SET_CONTEXT_DMA_IMAGE_DESTIN`).
    pub location: Location,
    /// Offset of pixel (0, 0) (`NV3062_SET_OFFSET_DESTIN`).
    pub offset: u32,
    /// Destination row pitch in bytes (`NV3062_SET_PITCH` 31:16).
    pub pitch: u32,
    /// Destination format (`NV3062_SET_COLOR_FORMAT`).
    pub format: DestinationFormat,
    /// Pixel column.
    pub x: u32,
    /// Pixel row.
    pub y: u32,
    /// The word: A8R8G8B8 (and Y32) stored as it is, R5G6B5 converted from A8R8G8B8.
    pub word: u32,
}

impl InlinePixel {
    /// Byte offset of the pixel.
    pub fn at(&self) -> u64 {
        u64::from(self.offset)
            + u64::from(self.y) * u64::from(self.pitch)
            + u64::from(self.x) * u64::from(self.format.bytes())
    }
}

/// A decoded transfer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Transfer {
    /// `NV0039_BUFFER_NOTIFY`.
    Copy(MemoryCopy),
    /// `NV3089_IMAGE_IN`.
    Scaled(ScaledImage),
    /// `NV308A_COLOR[i]`.
    Inline(InlinePixel),
}

fn r(regs: &[u32], i: u16) -> u32 {
    regs.get(usize::from(i)).copied().unwrap_or(0)
}

fn lo(v: u32) -> u16 {
    v as u16
}

fn hi(v: u32) -> u16 {
    (v >> 16) as u16
}

/// Signed 11.20 fixed point (RPCS3 `rsx_decode.h` `decode_fxp<11, 20>`).
pub fn fixed_11_20(raw: u32) -> f64 {
    f64::from(raw as i32) / f64::from(1u32 << 20)
}

/// The transfer that a write of `reg` starts, from the register file after the write
/// (`None` when `reg` starts none).
pub fn decode_at(reg: u16, regs: &[u32], command: usize) -> Option<Result<Transfer, Unsupported>> {
    match reg {
        reg::NV0039_BUFFER_NOTIFY => Some(memory_copy(regs, command).map(Transfer::Copy)),
        reg::NV3089_IMAGE_IN => Some(scaled_image(regs, command).map(Transfer::Scaled)),
        _ if (reg::NV308A_COLOR..reg::NV308A_COLOR + reg::NV308A_COLOR_COUNT).contains(&reg) => {
            inline_pixel(regs, reg - reg::NV308A_COLOR, command).map(|p| p.map(Transfer::Inline))
        }
        _ => None,
    }
}

/// `NV308A_COLOR[index]`: `None` when the index is at or past `SIZE_OUT`'s width (RPCS3
/// skips the word).
fn inline_pixel(
    regs: &[u32],
    index: u16,
    command: usize,
) -> Option<Result<InlinePixel, Unsupported>> {
    if index >= lo(r(regs, reg::NV308A_SIZE_OUT)) {
        return None;
    }
    let unsupported = |reason: String| Unsupported {
        method: "NV308A_COLOR",
        command,
        reason,
    };
    let raw = r(regs, reg::NV3062_COLOR_FORMAT);
    let Some(format) = DestinationFormat::from_raw(raw) else {
        return Some(Err(unsupported(format!(
            "NV3062 colour format {raw} (4, 0xA or 0xB)"
        ))));
    };
    let location = match location(regs, reg::NV3062_DMA_DESTIN, "NV3062", &unsupported) {
        Ok(l) => l,
        Err(e) => return Some(Err(e)),
    };
    let point = r(regs, reg::NV308A_POINT);
    Some(Ok(InlinePixel {
        location,
        offset: r(regs, reg::NV3062_OFFSET_DESTIN),
        pitch: u32::from(hi(r(regs, reg::NV3062_PITCH))),
        format,
        x: u32::from(lo(point)) + u32::from(index),
        y: u32::from(hi(point)),
        word: r(regs, reg::NV308A_COLOR + index),
    }))
}

fn location(
    regs: &[u32],
    i: u16,
    what: &str,
    unsupported: &dyn Fn(String) -> Unsupported,
) -> Result<Location, Unsupported> {
    // The context DMA handles 0xFEED0000/1 or the raw locations 0/1, as RPCS3's
    // `get_address` accepts both (`RSXThread.cpp`).
    let dma = r(regs, i);
    Location::from_raw(dma).ok_or_else(|| {
        unsupported(format!(
            "{what} context DMA 0x{dma:08x} is not local or main memory (0xFEED0000/1, 0/1)"
        ))
    })
}

fn memory_copy(regs: &[u32], command: usize) -> Result<MemoryCopy, Unsupported> {
    let unsupported = |reason: String| Unsupported {
        method: "NV0039_BUFFER_NOTIFY",
        command,
        reason,
    };
    let format = r(regs, reg::NV0039_FORMAT);
    Ok(MemoryCopy {
        src: location(regs, reg::NV0039_DMA_IN, "input", &unsupported)?,
        src_offset: r(regs, reg::NV0039_OFFSET_IN),
        src_pitch: r(regs, reg::NV0039_PITCH_IN) as i32,
        dst: location(regs, reg::NV0039_DMA_OUT, "output", &unsupported)?,
        dst_offset: r(regs, reg::NV0039_OFFSET_OUT),
        dst_pitch: r(regs, reg::NV0039_PITCH_OUT) as i32,
        line_length: r(regs, reg::NV0039_LINE_LENGTH),
        line_count: r(regs, reg::NV0039_LINE_COUNT),
        src_stride: format as u8,
        dst_stride: (format >> 8) as u8,
    })
}

fn scaled_image(regs: &[u32], command: usize) -> Result<ScaledImage, Unsupported> {
    let unsupported = |reason: String| Unsupported {
        method: "NV3089_IMAGE_IN",
        command,
        reason,
    };
    let operation = r(regs, reg::NV3089_OPERATION);
    if operation != 3 {
        return Err(unsupported(format!(
            "operation {operation} (only SRCCOPY = 3 is modelled)"
        )));
    }
    let src_format = match r(regs, reg::NV3089_COLOR_FORMAT) {
        3 => SourceFormat::A8R8G8B8,
        4 => SourceFormat::X8R8G8B8,
        7 => SourceFormat::R5G6B5,
        f => {
            return Err(unsupported(format!(
                "source colour format {f} (only A8R8G8B8, X8R8G8B8 and R5G6B5 are modelled)"
            )))
        }
    };
    let ds = fixed_11_20(r(regs, reg::NV3089_DS_DX));
    let dt = fixed_11_20(r(regs, reg::NV3089_DT_DY));
    // A negative step mirrors the axis (`apply::SourceAxis`); a zero step has no image
    // (RPCS3 `nv3089.cpp`: "Invalid dimensions or scaling factor. Request ignored").
    if ds.is_nan() || dt.is_nan() || ds == 0.0 || dt == 0.0 {
        return Err(unsupported(format!(
            "scale steps ds/dx {ds}, dt/dy {dt} (a zero step has no image)"
        )));
    }
    let in_size = r(regs, reg::NV3089_IN_SIZE);
    let (in_w, in_h) = (lo(in_size), hi(in_size));
    if in_w == 0 || in_h == 0 {
        return Err(unsupported(format!("empty source {in_w}x{in_h}")));
    }
    let in_format = r(regs, reg::NV3089_IN_FORMAT);
    let origin = match (in_format >> 16) & 0xFF {
        1 => Origin::Center,
        2 => Origin::Corner,
        o => {
            return Err(unsupported(format!(
                "source origin {o} (1 center, 2 corner)"
            )))
        }
    };
    let interpolator = match in_format >> 24 {
        0 => Interpolator::Zoh,
        1 => Interpolator::Foh,
        i => return Err(unsupported(format!("interpolator {i} (0 ZOH, 1 FOH)"))),
    };
    let pitch = u32::from(lo(in_format));
    let point = r(regs, reg::NV3089_IMAGE_IN);
    let out_size = r(regs, reg::NV3089_OUT_SIZE);
    let (destination, dst_format) = match r(regs, reg::NV3089_CONTEXT_SURFACE) {
        CONTEXT_SURFACE2D => {
            let raw = r(regs, reg::NV3062_COLOR_FORMAT);
            let f = DestinationFormat::from_raw(raw).ok_or_else(|| {
                unsupported(format!("NV3062 colour format {raw} (4, 0xA or 0xB)"))
            })?;
            (
                ContextSurface::Surface2d {
                    location: location(regs, reg::NV3062_DMA_DESTIN, "NV3062", &unsupported)?,
                    offset: r(regs, reg::NV3062_OFFSET_DESTIN),
                    pitch: u32::from(hi(r(regs, reg::NV3062_PITCH))),
                },
                f,
            )
        }
        CONTEXT_SWIZZLE2D => {
            let raw = r(regs, reg::NV309E_FORMAT);
            let f = DestinationFormat::from_raw(raw & 0xFFFF).ok_or_else(|| {
                unsupported(format!(
                    "NV309E colour format {} (4, 0xA or 0xB)",
                    raw & 0xFFFF
                ))
            })?;
            let (log2_width, log2_height) = ((raw >> 16) as u8, (raw >> 24) as u8);
            if log2_width > 12 || log2_height > 12 {
                return Err(unsupported(format!(
                    "NV309E size 2^{log2_width} x 2^{log2_height} exceeds 4096"
                )));
            }
            (
                ContextSurface::Swizzle2d {
                    location: location(regs, reg::NV309E_DMA, "NV309E", &unsupported)?,
                    offset: r(regs, reg::NV309E_OFFSET),
                    log2_width,
                    log2_height,
                },
                f,
            )
        }
        s => {
            return Err(unsupported(format!(
                "context surface 0x{s:08x} (0x313371C3 NV3062 or 0x31337A73 NV309E)"
            )))
        }
    };
    if dst_format == DestinationFormat::Y32 && src_format == SourceFormat::R5G6B5 {
        return Err(unsupported("Y32 destination from an R5G6B5 source".into()));
    }
    let clip_point = r(regs, reg::NV3089_CLIP_POINT);
    let clip_size = r(regs, reg::NV3089_CLIP_SIZE);
    let out_point = r(regs, reg::NV3089_OUT_POINT);
    Ok(ScaledImage {
        src: location(regs, reg::NV3089_DMA_IMAGE, "source", &unsupported)?,
        src_offset: r(regs, reg::NV3089_IN_OFFSET),
        src_pitch: if pitch == 0 {
            u32::from(in_w) * src_format.bytes()
        } else {
            pitch
        },
        src_format,
        in_size: (in_w, in_h),
        in_point: (f64::from(lo(point)) / 16.0, f64::from(hi(point)) / 16.0),
        origin,
        interpolator,
        clip: (lo(clip_point), hi(clip_point), lo(clip_size), hi(clip_size)),
        out: (lo(out_point), hi(out_point), lo(out_size), hi(out_size)),
        step: (ds, dt),
        destination,
        dst_format,
        conversion: r(regs, reg::NV3089_COLOR_CONVERSION),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regs(pairs: &[(u16, u32)]) -> Vec<u32> {
        let mut v = vec![0u32; 0x4000];
        for &(i, x) in pairs {
            v[usize::from(i)] = x;
        }
        v
    }

    #[test]
    fn fixed_point_steps() {
        assert_eq!(fixed_11_20(1 << 20), 1.0);
        assert_eq!(fixed_11_20(2 << 20), 2.0);
        assert_eq!(fixed_11_20(1 << 19), 0.5);
        assert_eq!(fixed_11_20((-(1i32 << 20)) as u32), -1.0);
    }

    #[test]
    fn only_the_starting_methods_decode() {
        assert!(decode_at(reg::NV3089_IN_SIZE, &regs(&[]), 0).is_none());
        let e = decode_at(reg::NV3089_IMAGE_IN, &regs(&[]), 7)
            .unwrap()
            .unwrap_err();
        assert_eq!(e.method, "NV3089_IMAGE_IN");
        assert_eq!(e.command, 7);
        assert!(e.to_string().contains("operation 0"), "{e}");
    }

    #[test]
    fn memory_copy_fields() {
        let r = regs(&[
            (reg::NV0039_DMA_IN, 0xFEED_0001),
            (reg::NV0039_DMA_OUT, 0xFEED_0000),
            (reg::NV0039_OFFSET_IN, 0x100),
            (reg::NV0039_OFFSET_OUT, 0x200),
            (reg::NV0039_PITCH_IN, (-64i32) as u32),
            (reg::NV0039_PITCH_OUT, 32),
            (reg::NV0039_LINE_LENGTH, 16),
            (reg::NV0039_LINE_COUNT, 3),
            (reg::NV0039_FORMAT, 0x0402),
        ]);
        let Some(Ok(Transfer::Copy(c))) = decode_at(reg::NV0039_BUFFER_NOTIFY, &r, 0) else {
            panic!("not a copy");
        };
        assert_eq!((c.src, c.dst), (Location::Main, Location::Local));
        assert_eq!((c.src_pitch, c.dst_pitch), (-64, 32));
        assert_eq!((c.src_stride, c.dst_stride), (2, 4));
        let bad = regs(&[(reg::NV0039_DMA_IN, 0x66606660)]);
        let e = decode_at(reg::NV0039_BUFFER_NOTIFY, &bad, 3)
            .unwrap()
            .unwrap_err();
        assert!(e.reason.contains("input context DMA"), "{e}");
    }

    #[test]
    fn scaled_image_fields() {
        let r = regs(&[
            (reg::NV3089_OPERATION, 3),
            (reg::NV3089_COLOR_FORMAT, 3),
            (reg::NV3089_DMA_IMAGE, 0xFEED_0000),
            (reg::NV3089_CONTEXT_SURFACE, CONTEXT_SWIZZLE2D),
            (reg::NV309E_DMA, 0xFEED_0001),
            (reg::NV309E_FORMAT, 0x0A | (3 << 16) | (2 << 24)),
            (reg::NV309E_OFFSET, 0x4000),
            (reg::NV3089_DS_DX, 2 << 20),
            (reg::NV3089_DT_DY, 1 << 19),
            (reg::NV3089_IN_SIZE, 8 | (4 << 16)),
            (reg::NV3089_IN_FORMAT, (1 << 16) | (1 << 24)),
            (reg::NV3089_IMAGE_IN, 8 | (24 << 16)),
            (reg::NV3089_OUT_SIZE, 4 | (8 << 16)),
        ]);
        let Some(Ok(Transfer::Scaled(s))) = decode_at(reg::NV3089_IMAGE_IN, &r, 0) else {
            panic!("not a scaled image");
        };
        assert_eq!(s.src_pitch, 32);
        assert_eq!(s.in_point, (0.5, 1.5));
        assert_eq!(
            (s.origin, s.interpolator),
            (Origin::Center, Interpolator::Foh)
        );
        assert_eq!(s.step, (2.0, 0.5));
        assert_eq!(
            s.destination,
            ContextSurface::Swizzle2d {
                location: Location::Main,
                offset: 0x4000,
                log2_width: 3,
                log2_height: 2
            }
        );
        assert_eq!(s.dst_format, DestinationFormat::A8R8G8B8);
    }

    #[test]
    fn inline_words_are_pixels_of_the_row_up_to_size_out() {
        let r = regs(&[
            (reg::NV3062_DMA_DESTIN, 0xFEED_0000),
            (reg::NV3062_COLOR_FORMAT, 4),
            (reg::NV3062_PITCH, 64 << 16),
            (reg::NV3062_OFFSET_DESTIN, 0x1000),
            (reg::NV308A_POINT, 2 | (1 << 16)),
            (reg::NV308A_SIZE_OUT, 2 | (1 << 16)),
            (reg::NV308A_COLOR + 1, 0xFFFF_8008),
            (reg::NV308A_COLOR + 2, 0x1234_5678),
        ]);
        let Some(Ok(Transfer::Inline(p))) = decode_at(reg::NV308A_COLOR + 1, &r, 7) else {
            panic!("not an inline pixel");
        };
        assert_eq!((p.x, p.y, p.word), (3, 1, 0xFFFF_8008));
        assert_eq!(p.at(), 0x1000 + 64 + 3 * 2);
        // COLOR[2] is past SIZE_OUT's width 2: skipped, as RPCS3 does.
        assert!(decode_at(reg::NV308A_COLOR + 2, &r, 8).is_none());
    }

    #[test]
    fn raw_locations_name_the_memory_as_the_dma_handles_do() {
        // RPCS3's get_address takes CELL_GCM_LOCATION_LOCAL / MAIN (0 / 1) as well as the
        // context DMA handles; anything else is refused with the value.
        let copy = |dma_in: u32| {
            let r = regs(&[
                (reg::NV0039_DMA_IN, dma_in),
                (reg::NV0039_DMA_OUT, 0xFEED_0000),
                (reg::NV0039_LINE_LENGTH, 4),
                (reg::NV0039_LINE_COUNT, 1),
                (reg::NV0039_FORMAT, 0x0101),
            ]);
            decode_at(reg::NV0039_BUFFER_NOTIFY, &r, 3).expect("a transfer")
        };
        for (dma, location) in [
            (0, Location::Local),
            (1, Location::Main),
            (0xFEED_0001, Location::Main),
        ] {
            let Ok(Transfer::Copy(c)) = copy(dma) else {
                panic!("0x{dma:x} refused");
            };
            assert_eq!(c.src, location);
        }
        let Err(e) = copy(0xFEED_0002) else {
            panic!("accepted");
        };
        assert!(e.reason.contains("0xfeed0002"), "{}", e.reason);
    }
}
