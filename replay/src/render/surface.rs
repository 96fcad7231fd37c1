//! Surface formats, their bytes in guest memory, and the frame's surface memory.
//!
//! **Byte order.** RSX surfaces are stored in guest memory exactly as the texture unit reads
//! them back (rrc-format.md 4.7/4.8; RPCS3 byte-swaps 16- and 32-bit surface words when it
//! writes surfaces back to guest memory so that they read as the matching big-endian texture
//! formats): every 16- or 32-bit word is big-endian.
//!
//! | format | bytes per pixel | bytes in memory |
//! |---|---|---|
//! | X1R5G5B5 (Z/O) | 2 | BE u16 `X:1 R:5 G:5 B:5`, X = 0 (Z) or 1 (O) |
//! | R5G6B5 | 2 | BE u16 `R:5 G:6 B:5` |
//! | X8R8G8B8 (Z/O), A8R8G8B8 | 4 | `X/A, R, G, B` (BE u32 0xAARRGGBB), X = 0 or 0xFF |
//! | B8 | 1 | `B` |
//! | G8B8 | 2 | `G, B` (BE u16 0xGGBB) |
//! | F_W16Z16Y16X16 | 8 | BE binary16 R, G, B, A |
//! | F_W32Z32Y32X32 | 16 | BE f32 R, G, B, A |
//! | F_X32 | 4 | BE f32 R |
//! | X8B8G8R8 (Z/O), A8B8G8R8 | 4 | `X/A, B, G, R` |
//! | Z16 | 2 | BE u16 depth |
//! | Z24S8 | 4 | BE u32 `depth:24 stencil:8`, so a Z24S8 surface read as an A8R8G8B8 texture gives A, R, G = depth bytes high to low and B = stencil |
//!
//! Fixed-point channels are written as `round(clamp(v, 0, 1) × max)` with NaN → 0, fp16 with
//! IEEE round-to-nearest-even.
//!
//! **Layout.** A pitch (linear) surface puts pixel (x, y) at `offset + y·pitch + x·bpp`; a
//! swizzled surface (`SET_SURFACE_FORMAT` type 2) puts it at `offset + z_index(x, y)·bpp` in a
//! `2^log2_width × 2^log2_height` Z-order block, the order swizzled textures are read in
//! ([`crate::texture::layout::z_index`]).
//!
//! **Surface memory.** [`SurfaceMemory`] holds a copy of every guest memory range a draw
//! rendered to; [`Overlay`] puts it over the guest memory a later draw sees, so that textures
//! sampled from those ranges (through `CaptureSampler`) read what was rendered.

use super::msaa::{resolve, Antialias};
use super::output::{OutputSource, Rgba8Image};
use super::state::{color_targets, ColorFormat, DepthFormat, FrameEvents};
use crate::texture::layout::z_index;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::{Surface, SurfaceTarget};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Largest surface side the renderers accept (the RSX limit is 4096).
pub const MAX_SURFACE_SIDE: u32 = 4096;

/// Bytes of each memory the RSX addresses by offset: RPCS3 accepts a local offset below
/// `local_mem_size` (0x0F900000) and a main (IO) offset below `main_mem_size` (0x10000000)
/// (`rsx::get_address` in RSXThread.cpp, the sizes in cellGcmSys.cpp), so no surface ends
/// past 256 MiB; one that would is a corrupt register value, not memory to allocate.
pub const RSX_MEMORY_BYTES: u64 = 0x1000_0000;

/// Bytes per pixel of a colour format.
pub fn bytes_per_pixel(format: ColorFormat) -> u32 {
    match format {
        ColorFormat::B8 => 1,
        ColorFormat::X1R5G5B5Z1R5G5B5
        | ColorFormat::X1R5G5B5O1R5G5B5
        | ColorFormat::R5G6B5
        | ColorFormat::G8B8 => 2,
        ColorFormat::FloatW16Z16Y16X16 => 8,
        ColorFormat::FloatW32Z32Y32X32 => 16,
        _ => 4,
    }
}

/// Bytes per pixel of a depth format.
pub fn depth_bytes_per_pixel(format: DepthFormat) -> u32 {
    if format.has_stencil() {
        4
    } else {
        2
    }
}

/// One encoded pixel (up to 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelBytes {
    bytes: [u8; 16],
    len: usize,
}

impl PixelBytes {
    /// The bytes, in memory order.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }
}

/// `round(clamp(v, 0, 1) × max)`, NaN → 0.
pub fn unorm(v: f32, max: u32) -> u32 {
    if v.is_nan() {
        return 0;
    }
    (f64::from(v.clamp(0.0, 1.0)) * f64::from(max)).round() as u32
}

/// Encode straight RGBA as `format`'s bytes in guest memory.
pub fn encode(format: ColorFormat, rgba: [f32; 4]) -> PixelBytes {
    let [r, g, b, a] = rgba;
    let mut bytes = [0u8; 16];
    let len = bytes_per_pixel(format) as usize;
    let u8c = |v: f32| unorm(v, 255) as u8;
    let b16 = |v: u32| (v as u16).to_be_bytes();
    let mut put = |at: usize, src: &[u8]| {
        if let Some(d) = bytes.get_mut(at..at + src.len()) {
            d.copy_from_slice(src);
        }
    };
    match format {
        ColorFormat::X1R5G5B5Z1R5G5B5 | ColorFormat::X1R5G5B5O1R5G5B5 => {
            let x = u32::from(format == ColorFormat::X1R5G5B5O1R5G5B5);
            put(
                0,
                &b16(x << 15 | unorm(r, 31) << 10 | unorm(g, 31) << 5 | unorm(b, 31)),
            );
        }
        ColorFormat::R5G6B5 => put(
            0,
            &b16(unorm(r, 31) << 11 | unorm(g, 63) << 5 | unorm(b, 31)),
        ),
        ColorFormat::X8R8G8B8Z8R8G8B8 => put(0, &[0, u8c(r), u8c(g), u8c(b)]),
        ColorFormat::X8R8G8B8O8R8G8B8 => put(0, &[0xFF, u8c(r), u8c(g), u8c(b)]),
        ColorFormat::A8R8G8B8 => put(0, &[u8c(a), u8c(r), u8c(g), u8c(b)]),
        ColorFormat::B8 => put(0, &[u8c(b)]),
        ColorFormat::G8B8 => put(0, &[u8c(g), u8c(b)]),
        ColorFormat::FloatW16Z16Y16X16 => {
            for (i, v) in rgba.iter().enumerate() {
                put(2 * i, &half::f16::from_f32(*v).to_bits().to_be_bytes());
            }
        }
        ColorFormat::FloatW32Z32Y32X32 => {
            for (i, v) in rgba.iter().enumerate() {
                put(4 * i, &v.to_be_bytes());
            }
        }
        ColorFormat::FloatX32 => put(0, &r.to_be_bytes()),
        ColorFormat::X8B8G8R8Z8B8G8R8 => put(0, &[0, u8c(b), u8c(g), u8c(r)]),
        ColorFormat::X8B8G8R8O8B8G8R8 => put(0, &[0xFF, u8c(b), u8c(g), u8c(r)]),
        ColorFormat::A8B8G8R8 => put(0, &[u8c(a), u8c(b), u8c(g), u8c(r)]),
    }
    PixelBytes { bytes, len }
}

/// Decode `format`'s bytes (at least [`bytes_per_pixel`]) to RGBA. Channels the format does
/// not store read as 0 (colour) or 1 (alpha); X formats read alpha 1. `None` when `bytes` is
/// too short.
pub fn decode(format: ColorFormat, bytes: &[u8]) -> Option<[f32; 4]> {
    let n = bytes_per_pixel(format) as usize;
    let b = bytes.get(..n)?;
    let u8f = |v: u8| f32::from(v) / 255.0;
    let be16 = |i: usize| -> u32 { u32::from(u16::from_be_bytes([b[i], b[i + 1]])) };
    let be32 = |i: usize| f32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let f5 = |v: u32| (v & 31) as f32 / 31.0;
    Some(match format {
        ColorFormat::X1R5G5B5Z1R5G5B5 | ColorFormat::X1R5G5B5O1R5G5B5 => {
            let v = be16(0);
            [f5(v >> 10), f5(v >> 5), f5(v), 1.0]
        }
        ColorFormat::R5G6B5 => {
            let v = be16(0);
            [f5(v >> 11), ((v >> 5) & 63) as f32 / 63.0, f5(v), 1.0]
        }
        ColorFormat::X8R8G8B8Z8R8G8B8 | ColorFormat::X8R8G8B8O8R8G8B8 => {
            [u8f(b[1]), u8f(b[2]), u8f(b[3]), 1.0]
        }
        ColorFormat::A8R8G8B8 => [u8f(b[1]), u8f(b[2]), u8f(b[3]), u8f(b[0])],
        ColorFormat::B8 => [0.0, 0.0, u8f(b[0]), 1.0],
        ColorFormat::G8B8 => [0.0, u8f(b[0]), u8f(b[1]), 1.0],
        ColorFormat::FloatW16Z16Y16X16 => {
            let h = |i: usize| half::f16::from_bits(be16(i) as u16).to_f32();
            [h(0), h(2), h(4), h(6)]
        }
        ColorFormat::FloatW32Z32Y32X32 => [be32(0), be32(4), be32(8), be32(12)],
        ColorFormat::FloatX32 => [be32(0), 0.0, 0.0, 1.0],
        ColorFormat::X8B8G8R8Z8B8G8R8 | ColorFormat::X8B8G8R8O8B8G8R8 => {
            [u8f(b[3]), u8f(b[2]), u8f(b[1]), 1.0]
        }
        ColorFormat::A8B8G8R8 => [u8f(b[3]), u8f(b[2]), u8f(b[1]), u8f(b[0])],
    })
}

/// Window depth in [0, 1] to the value the format stores (clamped, NaN → 0): a unorm format's
/// fixed-point value (rounded), a float format's bits (truncated: RPCS3 converts its host f32
/// depth to the 24-bit float by dropping the low 7 bits, `f32_to_d24f`; the half is truncated
/// the same way). Stored values of either kind order as the depths do.
pub fn depth_to_fixed(format: DepthFormat, z: f32) -> u32 {
    let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
    match format {
        DepthFormat::Z16 => unorm(z, 0xFFFF),
        DepthFormat::Z24S8 => unorm(z, 0xFF_FFFF),
        DepthFormat::Z24S8Float => z.to_bits() >> 7,
        DepthFormat::Z16Float => {
            if z < HALF_MIN_NORMAL {
                // A subnormal half: its bits count steps of 2^-24.
                (z * 16_777_216.0).floor() as u32
            } else {
                let bits = z.to_bits();
                let exponent = (bits >> 23) + 15 - 127;
                (exponent << 10) | ((bits >> 13) & 0x3FF)
            }
        }
    }
}

/// The smallest normal IEEE half, 2^-14.
const HALF_MIN_NORMAL: f32 = 6.103_515_6e-5;

/// A stored depth value back to a depth: [0, 1] for what a draw or clear stores. A float
/// format's bits from elsewhere (memory never cleared) may read above 1; a NaN pattern reads
/// as infinity, so that depths order as the stored values do on the device as in the CPU
/// render's comparison of stored values.
pub fn fixed_to_depth(format: DepthFormat, v: u32) -> f32 {
    let unorm = |max: u32| (f64::from(v.min(max)) / f64::from(max)) as f32;
    let float = |f: f32| if f.is_nan() { f32::INFINITY } else { f };
    match format {
        DepthFormat::Z16 => unorm(0xFFFF),
        DepthFormat::Z24S8 => unorm(0xFF_FFFF),
        DepthFormat::Z24S8Float => float(f32::from_bits((v & 0xFF_FFFF) << 7)),
        DepthFormat::Z16Float => float(half::f16::from_bits(v as u16).to_f32()),
    }
}

/// The depth and stencil a clear stores from `SET_ZSTENCIL_CLEAR_VALUE`: Z16 the low 16 bits,
/// Z24S8 bits 8..31 and the stencil byte. A float format reads the same bits as a unorm depth
/// and stores that depth as a float (RPCS3 clears with `clear_depth / max_depth_value`).
pub fn clear_depth_value(format: DepthFormat, zstencil: u32) -> (u32, u8) {
    let (unorm_format, bits, stencil) = if format.has_stencil() {
        (DepthFormat::Z24S8, zstencil >> 8, zstencil as u8)
    } else {
        (DepthFormat::Z16, zstencil & 0xFFFF, 0)
    };
    if format.is_float() {
        let depth = fixed_to_depth(unorm_format, bits);
        (depth_to_fixed(format, depth), stencil)
    } else {
        (bits, stencil)
    }
}

/// Encode fixed-point depth and stencil (ignored by Z16) into `out` (at least
/// [`depth_bytes_per_pixel`] bytes); returns false when `out` is too short.
pub fn encode_depth(format: DepthFormat, depth: u32, stencil: u8, out: &mut [u8]) -> bool {
    match depth_bytes_per_pixel(format) {
        2 => match out.get_mut(..2) {
            Some(d) => {
                d.copy_from_slice(&(depth.min(0xFFFF) as u16).to_be_bytes());
                true
            }
            None => false,
        },
        _ => match out.get_mut(..4) {
            Some(d) => {
                d.copy_from_slice(
                    &((depth.min(0xFF_FFFF) << 8) | u32::from(stencil)).to_be_bytes(),
                );
                true
            }
            None => false,
        },
    }
}

/// Decode fixed-point depth and stencil (0 for Z16); `None` when `bytes` is too short.
pub fn decode_depth(format: DepthFormat, bytes: &[u8]) -> Option<(u32, u8)> {
    match depth_bytes_per_pixel(format) {
        2 => {
            let b = bytes.get(..2)?;
            Some((u32::from(u16::from_be_bytes([b[0], b[1]])), 0))
        }
        _ => {
            let b = bytes.get(..4)?;
            let v = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            Some((v >> 8, v as u8))
        }
    }
}

/// Where a surface's pixels lie in guest memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceLayout {
    /// Memory.
    pub location: Location,
    /// Byte offset of pixel (0, 0).
    pub offset: u32,
    /// Row pitch in bytes (pitch surfaces).
    pub pitch: u32,
    /// Bytes per pixel.
    pub bpp: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `Some((log2 width, log2 height))` for swizzled surfaces.
    pub swizzle: Option<(u32, u32)>,
}

/// Why a surface cannot be placed in memory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SurfaceError {
    /// The context DMA register of the target is not 0xFEED0000/1.
    #[error("surface {target}: context DMA 0x{dma:08x} is not local or main memory")]
    BadLocation {
        /// Target name (A..D, Z).
        target: &'static str,
        /// The raw handle.
        dma: u32,
    },
    /// Width or height 0 or above [`MAX_SURFACE_SIDE`].
    #[error("surface {target}: size {width}x{height} is outside 1..={MAX_SURFACE_SIDE}")]
    BadSize {
        /// Target name.
        target: &'static str,
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// A pitch surface whose pitch is smaller than a row (the window offset plus the clip
    /// width).
    #[error(
        "surface {target}: pitch {pitch} is smaller than a row of {row} bytes (window offset \
         plus clip width)"
    )]
    BadPitch {
        /// Target name.
        target: &'static str,
        /// Pitch.
        pitch: u32,
        /// Row bytes.
        row: u32,
    },
    /// The surface runs past the end of its memory ([`RSX_MEMORY_BYTES`]).
    #[error(
        "surface {target}: offset 0x{offset:x} + {len} bytes runs past the 256 MiB of its memory"
    )]
    Overflow {
        /// Target name.
        target: &'static str,
        /// Offset.
        offset: u32,
        /// Length.
        len: u64,
    },
}

/// Target names by index: A, B, C, D, then Z.
pub const TARGET_NAMES: [&str; 5] = ["A", "B", "C", "D", "Z"];

impl SurfaceLayout {
    /// The layout of colour target `index` (0..4 = A..D; 4 = the zeta surface) with `bpp`
    /// bytes per pixel. The size is the window offset plus the surface clip's size (window
    /// pixels `[0, width) × [0, height)` land there, [`crate::render::state::window_clip`];
    /// the clip origin is ignored, as RPCS3 does) times the sample grid of a multisampled
    /// surface, or `2^log2` for swizzled surfaces.
    pub fn of_target(
        surface: &Surface,
        index: usize,
        bpp: u32,
    ) -> Result<SurfaceLayout, SurfaceError> {
        let target_name = TARGET_NAMES.get(index).copied().unwrap_or("?");
        let t: &SurfaceTarget = if index < 4 {
            surface.color.get(index).unwrap_or(&surface.zeta)
        } else {
            &surface.zeta
        };
        let location = t.location.ok_or(SurfaceError::BadLocation {
            target: target_name,
            dma: t.dma,
        })?;
        let swizzled = surface.format.surface_type.raw == 2;
        // A multisampled surface holds its sample grid (`render::msaa`).
        let (sx, sy) = Antialias::of(surface).grid();
        let (width, height, swizzle) = if swizzled {
            let (lw, lh) = (
                u32::from(surface.format.log2_width),
                u32::from(surface.format.log2_height),
            );
            let side = |l: u32| if l <= 12 { 1u32 << l } else { u32::MAX };
            (side(lw), side(lh), Some((lw, lh)))
        } else {
            (
                (u32::from(surface.window_offset_x) + u32::from(surface.clip.width)) * sx,
                (u32::from(surface.window_offset_y) + u32::from(surface.clip.height)) * sy,
                None,
            )
        };
        if width == 0 || height == 0 || width > MAX_SURFACE_SIDE || height > MAX_SURFACE_SIDE {
            return Err(SurfaceError::BadSize {
                target: target_name,
                width,
                height,
            });
        }
        let row = width * bpp;
        if swizzle.is_none() && t.pitch < row {
            return Err(SurfaceError::BadPitch {
                target: target_name,
                pitch: t.pitch,
                row,
            });
        }
        let layout = SurfaceLayout {
            location,
            offset: t.offset,
            pitch: if swizzle.is_some() { row } else { t.pitch },
            bpp,
            width,
            height,
            swizzle,
        };
        let len = layout.byte_len();
        if u64::from(layout.offset) + len > RSX_MEMORY_BYTES {
            return Err(SurfaceError::Overflow {
                target: target_name,
                offset: layout.offset,
                len,
            });
        }
        Ok(layout)
    }

    /// Bytes from the first pixel to the end of the last one.
    pub fn byte_len(&self) -> u64 {
        match self.swizzle {
            Some(_) => u64::from(self.width) * u64::from(self.height) * u64::from(self.bpp),
            None => {
                u64::from(self.pitch) * u64::from(self.height.saturating_sub(1))
                    + u64::from(self.width) * u64::from(self.bpp)
            }
        }
    }

    /// Byte offset of pixel (x, y) from `offset`, `None` outside the surface.
    pub fn pixel_offset(&self, x: u32, y: u32) -> Option<usize> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = match self.swizzle {
            Some((lw, lh)) => {
                z_index(u64::from(x), u64::from(y), 0, lw, lh, 0) * u64::from(self.bpp)
            }
            None => u64::from(y) * u64::from(self.pitch) + u64::from(x) * u64::from(self.bpp),
        };
        usize::try_from(at).ok()
    }
}

/// One rendered range of guest memory.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Region {
    location: Location,
    offset: u32,
    bytes: Vec<u8>,
}

impl Region {
    fn end(&self) -> u64 {
        u64::from(self.offset) + self.bytes.len() as u64
    }
}

/// Rendered regions lent out of a [`SurfaceMemory`] (see [`SurfaceMemory::lend`]) so that a
/// draw writes them in place, without copying its targets out and back.
#[derive(Debug, Default)]
pub struct LentRegions {
    regions: Vec<Region>,
}

impl LentRegions {
    /// The bytes of lent region `index` (as [`SurfaceMemory::lend`] numbered them).
    pub fn bytes_mut(&mut self, index: usize) -> Option<&mut [u8]> {
        self.regions.get_mut(index).map(|r| r.bytes.as_mut_slice())
    }

    /// The bytes of every lent region at once, by index.
    pub fn all_bytes_mut(&mut self) -> Vec<&mut [u8]> {
        self.regions
            .iter_mut()
            .map(|r| r.bytes.as_mut_slice())
            .collect()
    }
}

/// The memory ranges rendered during a frame (copies of guest memory that draws wrote).
#[derive(Debug, Default)]
pub struct SurfaceMemory {
    regions: Vec<Region>,
    stale_reads: AtomicUsize,
}

impl SurfaceMemory {
    /// Empty: nothing rendered yet.
    pub fn new() -> SurfaceMemory {
        SurfaceMemory::default()
    }

    /// The bytes of `layout`'s range for writing, created on first use from `base` (bytes the
    /// capture does not hold start as 0). Overlapping earlier regions are merged, newest bytes
    /// kept. `None` when the range's length does not fit in memory (checked by
    /// [`SurfaceLayout::of_target`]).
    pub fn surface_mut(
        &mut self,
        layout: &SurfaceLayout,
        base: &dyn GuestMemory,
    ) -> Option<&mut [u8]> {
        let len = u32::try_from(layout.byte_len()).ok()?;
        self.range_mut(layout.location, layout.offset, len, base)
    }

    /// `len` bytes at `offset` in `location` for writing (see [`Self::surface_mut`]).
    pub fn range_mut(
        &mut self,
        location: Location,
        offset: u32,
        len: u32,
        base: &dyn GuestMemory,
    ) -> Option<&mut [u8]> {
        let start = u64::from(offset);
        let end = start + u64::from(len);
        if end > 1 << 32 {
            return None;
        }
        let inside = self
            .regions
            .iter()
            .position(|r| r.location == location && u64::from(r.offset) <= start && r.end() >= end);
        let index = match inside {
            Some(i) => i,
            None => self.merge(location, start, end, base)?,
        };
        let region = self.regions.get_mut(index)?;
        let from = usize::try_from(start - u64::from(region.offset)).ok()?;
        region.bytes.get_mut(from..from + len as usize)
    }

    /// As [`Self::range_mut`], joined to a region that ends where the range starts, so that
    /// bytes written one small piece after another (an image sent inline, pixel by pixel)
    /// make one region that a later read finds whole, not many small ones side by side.
    pub fn range_mut_joined(
        &mut self,
        location: Location,
        offset: u32,
        len: u32,
        base: &dyn GuestMemory,
    ) -> Option<&mut [u8]> {
        let start = u64::from(offset);
        let before = self
            .regions
            .iter()
            .find(|r| r.location == location && r.end() == start && u64::from(r.offset) < start)
            .map(|r| r.offset);
        let Some(from) = before else {
            return self.range_mut(location, offset, len, base);
        };
        let joined = u32::try_from(start - u64::from(from) + u64::from(len)).ok()?;
        let bytes = self.range_mut(location, from, joined, base)?;
        let at = (offset - from) as usize;
        bytes.get_mut(at..)
    }

    /// Lend the regions holding `ranges` (location, offset, length) for writing in place:
    /// each range is created or merged from `base` as [`Self::range_mut`] does, then the
    /// regions holding them are taken out whole. Returns them with, per range, the index of
    /// its region among the lent ones and its byte offset in it. Until
    /// [`give_back`](Self::give_back) those bytes are absent from this memory. `None` when a
    /// range does not fit in the address space (nothing is lent then).
    pub fn lend(
        &mut self,
        ranges: &[(Location, u32, u32)],
        base: &dyn GuestMemory,
    ) -> Option<(LentRegions, Vec<(usize, usize)>)> {
        for &(location, offset, len) in ranges {
            self.range_mut(location, offset, len, base)?;
        }
        // Later merges only grow regions, so every range now lies inside one region.
        let mut holding = Vec::with_capacity(ranges.len());
        for &(location, offset, len) in ranges {
            let (start, end) = (u64::from(offset), u64::from(offset) + u64::from(len));
            let index = self.regions.iter().position(|r| {
                r.location == location && u64::from(r.offset) <= start && r.end() >= end
            })?;
            holding.push((index, start - u64::from(self.regions[index].offset)));
        }
        let mut taken: Vec<usize> = holding.iter().map(|&(i, _)| i).collect();
        taken.sort_unstable();
        taken.dedup();
        // Removed from the back, so the indices still to remove stay valid.
        let mut lent: Vec<(usize, Region)> = taken
            .iter()
            .rev()
            .map(|&i| (i, self.regions.remove(i)))
            .collect();
        lent.reverse();
        let places = holding
            .iter()
            .map(|&(i, from)| {
                let k = lent.iter().position(|(j, _)| *j == i).unwrap_or(0);
                (k, from as usize)
            })
            .collect();
        let regions = lent.into_iter().map(|(_, r)| r).collect();
        Some((LentRegions { regions }, places))
    }

    /// Return regions lent by [`lend`](Self::lend), with what was written into them.
    pub fn give_back(&mut self, lent: LentRegions) {
        self.regions.extend(lent.regions);
    }

    /// Create a region covering `start..end` and every region overlapping it.
    fn merge(
        &mut self,
        location: Location,
        mut start: u64,
        mut end: u64,
        base: &dyn GuestMemory,
    ) -> Option<usize> {
        let (overlapping, kept): (Vec<Region>, Vec<Region>) = std::mem::take(&mut self.regions)
            .into_iter()
            .partition(|r| r.location == location && u64::from(r.offset) < end && r.end() > start);
        self.regions = kept;
        for r in &overlapping {
            start = start.min(u64::from(r.offset));
            end = end.max(r.end());
        }
        let offset = u32::try_from(start).ok()?;
        let len = u32::try_from(end - start).ok()?;
        let mut bytes = match base.read(location, offset, len) {
            Some(b) => b.to_vec(),
            None => {
                // Fill what the capture holds, row-sized pieces at a time.
                let mut v = vec![0u8; len as usize];
                let chunk = 4096u32;
                let mut at = 0u32;
                while at < len {
                    let n = chunk.min(len - at);
                    if let Some(b) = base.read(location, offset + at, n) {
                        if let Some(d) = v.get_mut(at as usize..(at + n) as usize) {
                            d.copy_from_slice(b);
                        }
                    }
                    at += n;
                }
                v
            }
        };
        for r in overlapping {
            let from = (u64::from(r.offset) - start) as usize;
            if let Some(d) = bytes.get_mut(from..from + r.bytes.len()) {
                d.copy_from_slice(&r.bytes);
            }
        }
        self.regions.push(Region {
            location,
            offset,
            bytes,
        });
        Some(self.regions.len() - 1)
    }

    /// Make `len` bytes at `offset` one region when they overlap a rendered region only in
    /// part (the rest is copied from `base`), so that a texture read covering more than the
    /// rendered surface (border texels, mip levels, a larger texture) still sees the rendered
    /// bytes. Ranges that touch nothing rendered are left alone.
    pub fn extend_over(
        &mut self,
        location: Location,
        offset: u32,
        len: u32,
        base: &dyn GuestMemory,
    ) {
        if len > 0 && self.overlaps(location, offset, len) {
            let _ = self.range_mut(location, offset, len, base);
        }
    }

    /// `len` bytes at `offset` if they lie inside one rendered region.
    pub fn read_rendered(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]> {
        let start = u64::from(offset);
        let end = start + u64::from(len);
        let r = self
            .regions
            .iter()
            .find(|r| r.location == location && u64::from(r.offset) <= start && r.end() >= end)?;
        let from = usize::try_from(start - u64::from(r.offset)).ok()?;
        r.bytes.get(from..from + len as usize)
    }

    /// Reads that overlapped a rendered region only in part and were answered from the
    /// captured memory (stale bytes) since the last call.
    pub fn take_stale_reads(&self) -> usize {
        self.stale_reads.swap(0, Ordering::Relaxed)
    }

    /// Whether `len` bytes at `offset` overlap a region written in this replay.
    pub fn overlaps(&self, location: Location, offset: u32, len: u32) -> bool {
        let start = u64::from(offset);
        let end = start + u64::from(len);
        self.regions
            .iter()
            .any(|r| r.location == location && u64::from(r.offset) < end && r.end() > start)
    }
}

/// Guest memory with the rendered surfaces on top: a read wholly inside a rendered region
/// returns the rendered bytes, any other read the captured memory (a partial overlap is
/// counted, see [`SurfaceMemory::take_stale_reads`]).
pub struct Overlay<'a> {
    /// The captured memory the draw sees.
    pub base: &'a dyn GuestMemory,
    /// What the frame rendered so far.
    pub surfaces: &'a SurfaceMemory,
}

impl GuestMemory for Overlay<'_> {
    fn read(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]> {
        if let Some(b) = self.surfaces.read_rendered(location, offset, len) {
            return Some(b);
        }
        if self.surfaces.overlaps(location, offset, len) {
            self.surfaces.stale_reads.fetch_add(1, Ordering::Relaxed);
        }
        self.base.read(location, offset, len)
    }
}

/// The surface a frame render shows.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSurface {
    /// What it is.
    pub source: OutputSource,
    /// Where it is.
    pub layout: SurfaceLayout,
    /// Its format.
    pub format: ColorFormat,
    /// Its sample grid, resolved in the image (a displayed buffer is shown as it lies in
    /// memory: one sample).
    pub antialias: Antialias,
}

/// The output surface read from `memory` as an image, resolved when it is multisampled
/// ([`crate::render::msaa::resolve`]).
pub fn output_image(output: &OutputSurface, memory: &dyn GuestMemory) -> Rgba8Image {
    resolve(
        to_rgba8(&output.layout, output.format, memory),
        output.antialias,
    )
}

/// Choose the output surface of a frame: the colour target of the last draw that writes
/// colour whose offset is one of the capture's display buffers (local memory, rrc-format.md
/// 1.4 `display_buffers_state`) — the displayed buffer, sized as the display buffer says —
/// or else the first colour target of the last draw that writes colour. `None` when no draw
/// writes a usable colour target.
pub fn output_surface(frame: &Frame, events: &FrameEvents) -> Option<OutputSurface> {
    let mut last: Option<OutputSurface> = None;
    for draw in frame.draws.iter().rev() {
        let s = &draw.surface;
        let Some(format) = ColorFormat::from_raw(s.format.color_format.raw) else {
            continue;
        };
        let Some(targets) = color_targets(s.color_target.raw) else {
            continue;
        };
        let bpp = bytes_per_pixel(format);
        for &t in &targets {
            let Ok(layout) = SurfaceLayout::of_target(s, t, bpp) else {
                continue;
            };
            let shown = events.display_buffers.iter().find(|d| {
                layout.location == Location::Local && d.offset == layout.offset && d.width > 0
            });
            if let Some(d) = shown {
                let mut l = layout;
                l.width = d.width.min(MAX_SURFACE_SIDE);
                l.height = d.height.min(MAX_SURFACE_SIDE);
                if l.swizzle.is_none() && d.pitch >= l.width * bpp {
                    l.pitch = d.pitch;
                }
                return Some(OutputSurface {
                    source: OutputSource::Displayed {
                        address: layout.offset,
                    },
                    layout: l,
                    format,
                    antialias: Antialias::Center1,
                });
            }
            if last.is_none() {
                last = Some(OutputSurface {
                    source: OutputSource::LastColorTarget {
                        address: layout.offset,
                        format: format.name().to_string(),
                    },
                    layout,
                    format,
                    antialias: Antialias::of(s),
                });
            }
        }
        if last.is_some() && events.display_buffers.is_empty() {
            break;
        }
    }
    last
}

/// Read a colour surface from `memory` into an 8-bit RGBA image (channels as [`decode`]
/// gives them, `round(clamp(v, 0, 1) × 255)`). Pixels the memory does not hold are black
/// with alpha 0.
pub fn to_rgba8(
    layout: &SurfaceLayout,
    format: ColorFormat,
    memory: &dyn GuestMemory,
) -> Rgba8Image {
    // Black with alpha 0 (zeroed memory, cheaper than a fill).
    let mut image = Rgba8Image {
        width: layout.width,
        height: layout.height,
        pixels: vec![0; layout.width as usize * layout.height as usize * 4],
    };
    let whole = u32::try_from(layout.byte_len())
        .ok()
        .and_then(|len| memory.read(layout.location, layout.offset, len));
    if let (Some(bytes), Some(order)) = (whole, byte_order(format)) {
        if layout.swizzle.is_none() && layout.bpp == 4 {
            copy_rows(layout, bytes, order, &mut image);
            return image;
        }
    }
    let bpp = layout.bpp as usize;
    for y in 0..layout.height {
        for x in 0..layout.width {
            let Some(at) = layout.pixel_offset(x, y) else {
                continue;
            };
            let px = match whole {
                Some(w) => w.get(at..at + bpp).and_then(|b| decode(format, b)),
                None => memory
                    .read(
                        layout.location,
                        layout.offset.wrapping_add(at as u32),
                        layout.bpp,
                    )
                    .and_then(|b| decode(format, b)),
            };
            if let Some(c) = px {
                let i = (y as usize * layout.width as usize + x as usize) * 4;
                if let Some(d) = image.pixels.get_mut(i..i + 4) {
                    for (dst, v) in d.iter_mut().zip(c) {
                        *dst = unorm(v, 255) as u8;
                    }
                }
            }
        }
    }
    image
}

/// How [`to_rgba8`] copies the formats of four 8-bit channels: their 8-bit values come
/// through [`decode`] and `unorm` unchanged (X formats read alpha 1, 255).
#[derive(Clone, Copy)]
enum ByteOrder {
    /// A, R, G, B in memory.
    Argb,
    /// X, R, G, B.
    Xrgb,
    /// A, B, G, R.
    Abgr,
    /// X, B, G, R.
    Xbgr,
}

fn byte_order(format: ColorFormat) -> Option<ByteOrder> {
    Some(match format {
        ColorFormat::A8R8G8B8 => ByteOrder::Argb,
        ColorFormat::X8R8G8B8Z8R8G8B8 | ColorFormat::X8R8G8B8O8R8G8B8 => ByteOrder::Xrgb,
        ColorFormat::A8B8G8R8 => ByteOrder::Abgr,
        ColorFormat::X8B8G8R8Z8B8G8R8 | ColorFormat::X8B8G8R8O8B8G8R8 => ByteOrder::Xbgr,
        _ => return None,
    })
}

/// [`to_rgba8`] of a pitch surface of 4-byte pixels, row by row (rows past `bytes` stay
/// black with alpha 0, as in the general path).
fn copy_rows(layout: &SurfaceLayout, bytes: &[u8], order: ByteOrder, image: &mut Rgba8Image) {
    match order {
        ByteOrder::Argb => copy_rows_with(layout, bytes, image, |s| [s[1], s[2], s[3], s[0]]),
        ByteOrder::Xrgb => copy_rows_with(layout, bytes, image, |s| [s[1], s[2], s[3], 255]),
        ByteOrder::Abgr => copy_rows_with(layout, bytes, image, |s| [s[3], s[2], s[1], s[0]]),
        ByteOrder::Xbgr => copy_rows_with(layout, bytes, image, |s| [s[3], s[2], s[1], 255]),
    }
}

fn copy_rows_with(
    layout: &SurfaceLayout,
    bytes: &[u8],
    image: &mut Rgba8Image,
    convert: impl Fn(&[u8]) -> [u8; 4],
) {
    let row_bytes = layout.width as usize * 4;
    for y in 0..layout.height as usize {
        let start = y * layout.pitch as usize;
        let Some(src) = bytes.get(start..start + row_bytes) else {
            continue;
        };
        let Some(dst) = image.pixels.get_mut(y * row_bytes..(y + 1) * row_bytes) else {
            continue;
        };
        for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
            d.copy_from_slice(&convert(s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_depth_stores_truncated_float_bits() {
        // The 24-bit float is the f32's bits >> 7 (RPCS3 `f32_to_d24f`): 0.3 = 0x3E99999A.
        let f24 = DepthFormat::Z24S8Float;
        assert_eq!(depth_to_fixed(f24, 0.3), 0x7D_3333);
        assert_eq!(fixed_to_depth(f24, 0x7D_3333), f32::from_bits(0x3E99_9980));
        assert_eq!(depth_to_fixed(f24, 1.0), 0x7F_0000);
        assert_eq!(depth_to_fixed(f24, 2.0), 0x7F_0000, "clamped");
        assert_eq!(depth_to_fixed(f24, f32::NAN), 0);
        // The half: 0.3 = 0x34CC truncated (nearest would be 0x34CD); 2^-20 is subnormal.
        let f16 = DepthFormat::Z16Float;
        assert_eq!(depth_to_fixed(f16, 0.3), 0x34CC);
        assert_eq!(depth_to_fixed(f16, 1.0), 0x3C00);
        assert_eq!(depth_to_fixed(f16, 2f32.powi(-20)), 16);
        assert_eq!(fixed_to_depth(f16, 16), 2f32.powi(-20));
        // Patterns above 1.0 (memory never cleared) order as stored; NaN reads infinity.
        assert_eq!(fixed_to_depth(f24, 0xFF_FFFF), f32::INFINITY);
        assert!(fixed_to_depth(f24, 0x7F_0001) > 1.0);
        assert_eq!(fixed_to_depth(f16, 0x7E00), f32::INFINITY);
        // Every stored value reads back to a depth that stores the same value, and stored
        // values order as the depths do.
        for format in [f16, f24] {
            let mut last = 0;
            for i in 0..=10_000 {
                let z = i as f32 / 10_000.0;
                let v = depth_to_fixed(format, z);
                assert!(v >= last, "{format:?} at {z}");
                assert_eq!(depth_to_fixed(format, fixed_to_depth(format, v)), v);
                assert!(fixed_to_depth(format, v) <= z);
                last = v;
            }
        }
        // Byte layout as the unorm variants: depth in bits 8..31 and the stencil byte.
        let mut px = [0u8; 4];
        assert!(encode_depth(f24, 0x7D_3333, 0x5A, &mut px));
        assert_eq!(px, [0x7D, 0x33, 0x33, 0x5A]);
        assert_eq!(decode_depth(f24, &px), Some((0x7D_3333, 0x5A)));
        assert_eq!(depth_bytes_per_pixel(f16), 2);
    }

    #[test]
    fn a_float_depth_clear_reads_the_clear_value_as_unorm() {
        // RPCS3 clears with clear_depth / max_depth_value, then the host stores a float.
        let (z, s) = clear_depth_value(DepthFormat::Z24S8Float, 0xFFFF_FF07);
        assert_eq!((z, s), (0x7F_0000, 7));
        assert_eq!(
            clear_depth_value(DepthFormat::Z24S8, 0x8000_0007),
            (0x80_0000, 7)
        );
        assert_eq!(
            clear_depth_value(DepthFormat::Z16Float, 0xFFFF),
            (0x3C00, 0)
        );
        assert_eq!(
            clear_depth_value(DepthFormat::Z16, 0x1234_5678),
            (0x5678, 0)
        );
    }

    #[test]
    fn the_polygon_offset_unit_of_float_depth_follows_the_exponent() {
        // GL 4.6 14.6.5: 2^(e − m).
        let f24 = DepthFormat::Z24S8Float;
        assert_eq!(f24.resolution(0.75), 2f64.powi(-1 - 16));
        assert_eq!(f24.resolution(1.0), 2f64.powi(-16));
        assert_eq!(DepthFormat::Z16Float.resolution(0.3), 2f64.powi(-2 - 10));
        assert_eq!(DepthFormat::Z16Float.resolution(0.0), 2f64.powi(-24));
        assert_eq!(DepthFormat::Z24S8.resolution(0.3), 1.0 / 16_777_215.0);
    }

    #[test]
    fn the_byte_copy_of_8_bit_formats_equals_the_decode() {
        // Every byte value in every channel position, on a 16x16 pitch surface with padding.
        let (width, height, pitch) = (16u32, 16u32, 80u32);
        let bytes: Vec<u8> = (0..pitch * height).map(|i| (i * 7 + 3) as u8).collect();
        let layout = SurfaceLayout {
            location: Location::Local,
            offset: 0,
            pitch,
            bpp: 4,
            width,
            height,
            swizzle: None,
        };
        for format in [
            ColorFormat::A8R8G8B8,
            ColorFormat::X8R8G8B8Z8R8G8B8,
            ColorFormat::X8R8G8B8O8R8G8B8,
            ColorFormat::A8B8G8R8,
            ColorFormat::X8B8G8R8Z8B8G8R8,
            ColorFormat::X8B8G8R8O8B8G8R8,
        ] {
            let fast = to_rgba8(&layout, format, &Captured(bytes.clone()));
            for y in 0..height {
                for x in 0..width {
                    let at = layout.pixel_offset(x, y).unwrap();
                    let c = decode(format, &bytes[at..]).unwrap();
                    let expected = c.map(|v| unorm(v, 255) as u8);
                    assert_eq!(fast.pixel(x, y), Some(expected), "{format:?} at ({x}, {y})");
                }
            }
        }
    }

    /// Guest memory holding `bytes` at local offset 0.
    struct Captured(Vec<u8>);

    impl GuestMemory for Captured {
        fn read(&self, location: Location, offset: u32, len: u32) -> Option<&[u8]> {
            let start = offset as usize;
            (location == Location::Local)
                .then(|| self.0.get(start..start.checked_add(len as usize)?))
                .flatten()
        }
    }

    #[test]
    fn lent_regions_are_written_in_place_and_given_back() {
        let base = Captured((0..64).collect());
        let mut memory = SurfaceMemory::new();
        // An earlier render at 8..16, then two targets: 4..20 (overlapping it, so merged) and
        // 40..48 (its own region).
        memory
            .range_mut(Location::Local, 8, 8, &base)
            .unwrap()
            .fill(0xAA);
        let ranges = [(Location::Local, 4, 16), (Location::Local, 40, 8)];
        let (mut lent, places) = memory.lend(&ranges, &base).unwrap();
        assert_eq!(places.len(), 2);
        assert_ne!(places[0].0, places[1].0);
        // While lent, the bytes are absent from the surface memory.
        assert!(memory.read_rendered(Location::Local, 4, 16).is_none());
        let (r, from) = places[0];
        let first = &mut lent.bytes_mut(r).unwrap()[from..from + 16];
        assert_eq!(
            &first[..4],
            &[4, 5, 6, 7],
            "captured bytes around the earlier render"
        );
        assert_eq!(&first[4..12], &[0xAA; 8], "the earlier render kept");
        first[0] = 0x11;
        let (r, from) = places[1];
        lent.bytes_mut(r).unwrap()[from + 7] = 0x22;
        memory.give_back(lent);
        let back = memory.read_rendered(Location::Local, 4, 16).unwrap();
        assert_eq!(back[0], 0x11);
        assert_eq!(
            memory.read_rendered(Location::Local, 47, 1),
            Some(&[0x22u8][..])
        );
    }

    #[test]
    fn two_targets_in_one_region_share_it() {
        let base = Captured(vec![0; 64]);
        let mut memory = SurfaceMemory::new();
        let ranges = [(Location::Local, 0, 32), (Location::Local, 16, 8)];
        let (mut lent, places) = memory.lend(&ranges, &base).unwrap();
        assert_eq!(places[0].0, places[1].0);
        assert_eq!(places[1].1 - places[0].1, 16);
        lent.bytes_mut(places[1].0).unwrap()[places[1].1] = 7;
        memory.give_back(lent);
        assert_eq!(
            memory.read_rendered(Location::Local, 16, 1),
            Some(&[7u8][..])
        );
        // A range past the address space lends nothing.
        assert!(memory
            .lend(&[(Location::Local, u32::MAX, 2)], &base)
            .is_none());
    }
}
