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
//!
//! The parts: `pixel` (a pixel's bytes in each format), this module (where a surface's pixels
//! lie), `memory` (the surface memory and its overlay) and `display` (the surface a frame
//! shows, as an image).

mod display;
mod memory;
mod pixel;

pub use display::*;
pub use memory::*;
pub use pixel::*;

use super::msaa::Antialias;
use crate::texture::layout::z_index;
use rsxtrace_capture::frame::state::{Surface, SurfaceTarget};
use rsxtrace_capture::rrc::Location;

/// Largest surface side the renderers accept (the RSX limit is 4096).
pub const MAX_SURFACE_SIDE: u32 = 4096;

/// Bytes of each memory the RSX addresses by offset: RPCS3 accepts a local offset below
/// `local_mem_size` (0x0F900000) and a main (IO) offset below `main_mem_size` (0x10000000)
/// (`rsx::get_address` in RSXThread.cpp, the sizes in cellGcmSys.cpp), so no surface ends
/// past 256 MiB; one that would is a corrupt register value, not memory to allocate.
pub const RSX_MEMORY_BYTES: u64 = 0x1000_0000;

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
