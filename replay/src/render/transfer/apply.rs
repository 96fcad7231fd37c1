//! Applying a transfer to the frame's surface memory: the bytes a transfer reads come from
//! what the frame rendered (or the captured memory), the bytes it writes become rendered
//! memory, so later draws sample them. Both renderers call [`apply_transfer`] (the GPU render
//! after writing its bound targets back).
//!
//! **NV0039** copies bytes exactly as [`MemoryCopy`] says (RPCS3 `nv0039.cpp`; overlapping
//! ranges copy as if through a temporary buffer, as RPCS3's `memmove` path does, except with
//! a stride above 1, which RPCS3 copies in place, byte after byte).
//!
//! **NV308A** writes one pixel per `COLOR` word ([`InlinePixel`]).
//!
//! **NV3089** writes the destination pixels inside both the clip and the output rectangle
//! (both in destination pixels; an `NV309E` destination also stops at its `2^log2` size).
//! Destination pixel `(X, Y)` takes the source at `u = (X − out_x + ½)·|ds/dx|`,
//! `v = (Y − out_y + ½)·|dt/dy|` texels (texel `k` covering `[k, k + 1)`) into the image as
//! the steps walk it from the first texel the `IMAGE_IN` point names (`first_texel`, RPCS3
//! `nv3089.cpp`: its whole part, after ½ texel is taken off a CENTER-origin point, the
//! fraction dropped, and for a reduction snapped to the scale's grid): forward, or backward
//! along an axis whose step is negative (a mirrored blit, `SourceAxis`):
//! - ZOH: texel `(⌊u⌋, ⌊v⌋)`;
//! - FOH: the bilinear blend of the four texels around `(u − ½, v − ½)`, weights the
//!   fractional parts, each channel rounded to the nearest source value;
//!
//! with texel indices clamped to the source size (`IMAGE_IN_SIZE`; a mirrored axis clamps
//! the count of texels walked back, and may read before the source offset). So a 2:1 reduction
//! (ds/dx = 2) with FOH averages each 2×2 block, with ZOH picks its lower-right texel.
//! Channels convert between formats with the unorm rule surfaces use
//! (`round(c·255/max)` from 5/6 bits up; to R5G6B5 by truncation, `c >> (8 − bits)`,
//! `CELL_GCM_TRANSFER_CONVERSION_TRUNCATE`; a DITHER conversion is replayed as truncation and
//! warned). The alpha of an R5G6B5 source is 255.

use super::decode::{
    ContextSurface, DestinationFormat, InlinePixel, Interpolator, MemoryCopy, Origin, ScaledImage,
    SourceFormat, Transfer,
};
use crate::render::surface::SurfaceMemory;
use crate::texture::layout::z_index;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::rrc::Location;

/// Largest source or destination range one transfer may touch (the RSX's local memory is
/// 256 MiB; a range past this is treated as a corrupt register value).
pub const MAX_TRANSFER_BYTES: u64 = 64 << 20;

/// Most destination pixels one scaled image may write (a 4096 × 4096 surface, the RSX
/// limit).
pub const MAX_TRANSFER_PIXELS: u64 = 4096 * 4096;

/// Apply `transfer` to `surfaces` (reading what they do not hold from `base`). Returns a
/// message for each thing not replayed exactly; a transfer that cannot run writes nothing.
pub fn apply_transfer(
    transfer: &Transfer,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
) -> Vec<String> {
    let result = match transfer {
        Transfer::Copy(c) => memory_copy(c, surfaces, base).map(|()| Vec::new()),
        Transfer::Scaled(s) => scaled_image(s, surfaces, base),
        Transfer::Inline(p) => inline_pixel(p, surfaces, base).map(|()| Vec::new()),
    };
    result.unwrap_or_else(|e| vec![e])
}

/// The bytes `transfer` may read, `(memory, start, end)`, by the rules [`apply_transfer`]
/// reads them with (an `NV0039` source at its pitch and packed, an `NV3089` input image);
/// `None` when it reads nothing. A bound for callers that must know whether a transfer
/// reads some memory (`render::band`), not the exact bytes.
pub fn source_extent(transfer: &Transfer) -> Option<(Location, u64, u64)> {
    match transfer {
        Transfer::Copy(c) => {
            if c.line_count == 0 || c.line_length == 0 {
                return None;
            }
            if !c.strides_valid() {
                return None;
            }
            let ss = i64::from(c.src_stride);
            let bytes = i64::from(c.line_length);
            let last = i64::from(c.line_count) - 1;
            let a = i64::from(c.src_offset);
            let b = a + last * i64::from(c.src_pitch);
            let width = (bytes - 1) * ss + 1;
            let packed = a + (last + 1) * i64::from(c.line_length);
            let start = a.min(b).max(0);
            let end = (a.max(b) + width).max(packed).max(start);
            Some((c.src, start as u64, end as u64))
        }
        Transfer::Scaled(s) => {
            if s.in_size.0 == 0 || s.in_size.1 == 0 {
                return None;
            }
            // The bytes the walk reaches, a mirrored one before the offset too.
            let (start, end) = scaled_source_range(s);
            let start = start.max(0) as u64;
            Some((s.src, start, (end.max(0) as u64).max(start)))
        }
        Transfer::Inline(_) => None,
    }
}

/// The bytes `transfer` may write, `(memory, start, end)`, a bound of what [`apply_transfer`]
/// writes (an `NV0039` destination at its pitch and stride, the rows of an `NV3062` surface
/// from its offset to the last written pixel, a whole `NV309E` block); `None` when it writes
/// nothing. For callers that must know whether a transfer may write some memory (the GPU
/// render's device targets), not the exact bytes.
pub fn destination_extent(transfer: &Transfer) -> Option<(Location, u64, u64)> {
    match transfer {
        Transfer::Copy(c) => {
            if c.line_count == 0 || c.line_length == 0 || !c.strides_valid() {
                return None;
            }
            let ds = i64::from(c.dst_stride);
            let bytes = i64::from(c.line_length);
            let last = i64::from(c.line_count) - 1;
            let a = i64::from(c.dst_offset);
            let b = a + last * i64::from(c.dst_pitch);
            let start = a.min(b).max(0);
            let end = (a.max(b) + (bytes - 1) * ds + 1).max(start);
            Some((c.dst, start as u64, end as u64))
        }
        Transfer::Scaled(s) => {
            let (cx, cy, cw, ch) = s.clip;
            let (ox, oy, ow, oh) = s.out;
            let x1 = (u64::from(cx) + u64::from(cw)).min(u64::from(ox) + u64::from(ow));
            let y1 = (u64::from(cy) + u64::from(ch)).min(u64::from(oy) + u64::from(oh));
            if x1 == 0 || y1 == 0 {
                return None;
            }
            let bpp = u64::from(s.dst_format.bytes());
            match s.destination {
                ContextSurface::Surface2d {
                    location,
                    offset,
                    pitch,
                } => {
                    let pitch = if pitch == 0 {
                        u64::from(ow) * bpp
                    } else {
                        u64::from(pitch)
                    };
                    let start = u64::from(offset);
                    Some((location, start, start + y1 * pitch + x1 * bpp))
                }
                ContextSurface::Swizzle2d {
                    location,
                    offset,
                    log2_width,
                    log2_height,
                } => {
                    let start = u64::from(offset);
                    let len = 1u64
                        .checked_shl(u32::from(log2_width) + u32::from(log2_height))
                        .unwrap_or(1 << 32)
                        .saturating_mul(bpp);
                    Some((location, start, start.saturating_add(len)))
                }
            }
        }
        Transfer::Inline(p) => {
            let start = p.at();
            Some((p.location, start, start + u64::from(p.format.bytes())))
        }
    }
}

/// `[start, end)` byte range, checked against 4 GiB and [`MAX_TRANSFER_BYTES`].
fn span(what: &str, start: i64, end: i64) -> Result<(u32, u32), String> {
    if start < 0 || end > 1 << 32 || end < start {
        return Err(format!(
            "{what} range 0x{start:x}..0x{end:x} lies outside the 4 GiB address space; skipped"
        ));
    }
    let len = (end - start) as u64;
    if len > MAX_TRANSFER_BYTES {
        return Err(format!(
            "{what} range of {len} bytes exceeds {MAX_TRANSFER_BYTES}; skipped"
        ));
    }
    Ok((start as u32, len as u32))
}

/// A copy of `len` bytes at `offset` as the frame sees them now.
fn read(
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
    location: Location,
    offset: u32,
    len: u32,
) -> Result<Vec<u8>, String> {
    surfaces
        .range_mut(location, offset, len, base)
        .map(|b| b.to_vec())
        .ok_or_else(|| format!("source range 0x{offset:x}+{len} cannot be read; skipped"))
}

fn memory_copy(
    c: &MemoryCopy,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
) -> Result<(), String> {
    if c.line_count == 0 || c.line_length == 0 {
        // RPCS3 `nv0039.cpp` NOPs these out.
        return Ok(());
    }
    if !c.strides_valid() {
        // RPCS3 `validate_buffer_notify` NOPs these out too.
        return Err(format!(
            "NV0039 strides {} in, {} out (FORMAT 0x{:04X}): only 1 to 4 copy; skipped",
            c.src_stride,
            c.dst_stride,
            u16::from(c.src_stride) | (u16::from(c.dst_stride) << 8)
        ));
    }
    let (ss, ds) = (i64::from(c.src_stride), i64::from(c.dst_stride));
    // LINE_LENGTH counts columns: one byte each, read every `ss` bytes and written every `ds`.
    let bytes = i64::from(c.line_length);
    let last = i64::from(c.line_count) - 1;
    if (last + 1).saturating_mul(bytes) > MAX_TRANSFER_BYTES as i64 {
        return Err(format!(
            "NV0039 copy of {} lines of {} bytes exceeds {MAX_TRANSFER_BYTES} bytes; skipped",
            c.line_count, c.line_length
        ));
    }
    let lines = |offset: u32, pitch: i32, width: i64| {
        let a = i64::from(offset);
        let b = a + last * i64::from(pitch);
        (a.min(b), a.max(b) + width)
    };
    let (s0, s1) = lines(c.src_offset, c.src_pitch, (bytes - 1) * ss + 1);
    let (d0, d1) = lines(c.dst_offset, c.dst_pitch, (bytes - 1) * ds + 1);
    let (s_at, s_len) = span("NV0039 source", s0, s1)?;
    let (d_at, d_len) = span("NV0039 destination", d0, d1)?;
    // RPCS3's recorder attaches an NV0039 source packed, line i at OFFSET_IN + i·LINE_LENGTH
    // (`capture_buffer_notify`, rrc-format.md 3.3), not at its pitch: a source this replay
    // did not render is read that way when the capture holds the packed block; a rendered one
    // (the surface overlay) at its pitch.
    let packed_len = u32::try_from((last + 1) * i64::from(c.line_length)).ok();
    let packed = match packed_len {
        // The recorder copies LINE_LENGTH bytes of each line whatever the input stride, so
        // only a copy of stride 1 finds its source in the packed block.
        Some(len)
            if i64::from(c.src_pitch) != i64::from(c.line_length)
                && ss == 1
                && !surfaces.overlaps(c.src, s_at, s_len) =>
        {
            base.read(c.src, c.src_offset, len).map(|b| b.into_owned())
        }
        _ => None,
    };
    // With a stride above 1, RPCS3 copies in place, byte by byte in order, even over an
    // overlapping source (`nv0039.cpp` `block2d_copy_with_stride`: "very rare"); with strides
    // of 1 an overlap copies as through a temporary buffer (below).
    if (ss > 1 || ds > 1) && c.src == c.dst && s0 < d1 && d0 < s1 {
        let (u0, u1) = (s0.min(d0), s1.max(d1));
        let (at, len) = span("NV0039 source and destination", u0, u1)?;
        let both = surfaces
            .range_mut(c.dst, at, len, base)
            .ok_or_else(|| "NV0039 destination cannot be written; skipped".to_string())?;
        for line in 0..=last {
            let from = i64::from(c.src_offset) + line * i64::from(c.src_pitch) - u0;
            let to = i64::from(c.dst_offset) + line * i64::from(c.dst_pitch) - u0;
            for k in 0..bytes {
                let (Ok(f), Ok(t)) = (usize::try_from(from + k * ss), usize::try_from(to + k * ds))
                else {
                    continue;
                };
                if let Some(&b) = both.get(f) {
                    if let Some(d) = both.get_mut(t) {
                        *d = b;
                    }
                }
            }
        }
        return Ok(());
    }
    let (src, s0, src_pitch) = match packed {
        Some(bytes) => (bytes, i64::from(c.src_offset), i64::from(c.line_length)),
        None => (
            read(surfaces, base, c.src, s_at, s_len)?,
            s0,
            i64::from(c.src_pitch),
        ),
    };
    let dst = surfaces
        .range_mut(c.dst, d_at, d_len, base)
        .ok_or_else(|| "NV0039 destination cannot be written; skipped".to_string())?;
    for line in 0..=last {
        let from = i64::from(c.src_offset) + line * src_pitch - s0;
        let to = i64::from(c.dst_offset) + line * i64::from(c.dst_pitch) - d0;
        for k in 0..bytes {
            let (Ok(f), Ok(t)) = (usize::try_from(from + k * ss), usize::try_from(to + k * ds))
            else {
                continue;
            };
            if let (Some(&b), Some(d)) = (src.get(f), dst.get_mut(t)) {
                *d = b;
            }
        }
    }
    Ok(())
}

/// Write one inline pixel: an A8R8G8B8 or Y32 word as it is (big-endian, as RPCS3 copies the
/// command's word), R5G6B5 from A8R8G8B8 by the NV3089 truncation rule. RPCS3 converts with
/// `c·32/255` (which wraps 255 to 0) and stores the halfword in host order; both look like
/// its own slips, so the rule here is the one its scaled images use.
fn inline_pixel(
    p: &InlinePixel,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
) -> Result<(), String> {
    let bytes = match p.format {
        DestinationFormat::R5G6B5 => {
            let c = texel(SourceFormat::A8R8G8B8, &p.word.to_be_bytes());
            encode(SourceFormat::A8R8G8B8, DestinationFormat::R5G6B5, c).0
        }
        _ => p.word.to_be_bytes(),
    };
    let len = p.format.bytes();
    let at = u32::try_from(p.at())
        .map_err(|_| format!("NV308A pixel ({}, {}) lies past 4 GiB; skipped", p.x, p.y))?;
    let dst = surfaces
        .range_mut_joined(p.location, at, len, base)
        .ok_or_else(|| "NV308A destination cannot be written; skipped".to_string())?;
    dst.copy_from_slice(&bytes[..len as usize]);
    Ok(())
}

/// A source texel's channels `[a, r, g, b]` at the source format's precision.
type Channels = [f64; 4];

fn channel_max(format: SourceFormat) -> [f64; 4] {
    match format {
        SourceFormat::R5G6B5 => [255.0, 31.0, 63.0, 31.0],
        _ => [255.0; 4],
    }
}

fn texel(format: SourceFormat, bytes: &[u8]) -> Channels {
    match format {
        SourceFormat::R5G6B5 => {
            let v = match bytes {
                [a, b, ..] => u16::from_be_bytes([*a, *b]),
                _ => 0,
            };
            [
                255.0,
                f64::from(v >> 11),
                f64::from((v >> 5) & 63),
                f64::from(v & 31),
            ]
        }
        _ => {
            let mut c = [0.0; 4];
            for (d, s) in c.iter_mut().zip(bytes) {
                *d = f64::from(*s);
            }
            c
        }
    }
}

/// The destination bytes of source-precision channels `c`.
fn encode(src: SourceFormat, dst: DestinationFormat, c: Channels) -> ([u8; 4], usize) {
    let max = channel_max(src);
    // To 8 bits: the unorm rule of `render::surface` (round(c / max × 255)).
    let to8 = |i: usize| ((c[i] / max[i]) * 255.0).round().clamp(0.0, 255.0) as u8;
    match dst {
        DestinationFormat::A8R8G8B8 | DestinationFormat::Y32 => {
            ([to8(0), to8(1), to8(2), to8(3)], 4)
        }
        DestinationFormat::R5G6B5 => {
            let v = if src == SourceFormat::R5G6B5 {
                (c[1] as u16) << 11 | (c[2] as u16) << 5 | c[3] as u16
            } else {
                // CELL_GCM_TRANSFER_CONVERSION_TRUNCATE: drop the low bits.
                u16::from(to8(1) >> 3) << 11 | u16::from(to8(2) >> 2) << 5 | u16::from(to8(3) >> 3)
            };
            let [a, b] = v.to_be_bytes();
            ([a, b, 0, 0], 2)
        }
    }
}

/// Where a destination pixel goes, from the start of the written range.
enum Placement {
    /// `y·pitch + x·bpp − first`.
    Linear { pitch: u32, first: u64 },
    /// `z_index(x, y)·bpp` in a `2^lw × 2^lh` block.
    Swizzled { lw: u32, lh: u32 },
}

impl Placement {
    fn at(&self, x: u32, y: u32, bpp: u32) -> u64 {
        match *self {
            Placement::Linear { pitch, first } => (u64::from(y) * u64::from(pitch)
                + u64::from(x) * u64::from(bpp))
            .saturating_sub(first),
            Placement::Swizzled { lw, lh } => {
                z_index(u64::from(x), u64::from(y), 0, lw, lh, 0) * u64::from(bpp)
            }
        }
    }
}

/// One axis of a scaled image's source: the steps walk texels `k = 0, 1, ...` of the image
/// from its first texel ([`first_texel`]) forward, or, with a negative step (a mirrored
/// blit), backward: texel `k` is column `first + k` clamped to the image
/// (`[0, IMAGE_IN_SIZE)`), or `first − k` with `k` clamped to the size. RPCS3 `nv3089.cpp`
/// `_mirror_transform` reads a mirrored row leftward and mirrored rows upward from the first
/// texel (`memcpy_r`, a negative row stride), then scales the mirrored image with the step's
/// magnitude.
#[derive(Clone, Copy, Debug)]
struct SourceAxis {
    first: i64,
    size: i64,
    mirrored: bool,
}

impl SourceAxis {
    fn new(point: f64, origin: Origin, step: f64, size: u16) -> SourceAxis {
        SourceAxis {
            first: first_texel(point, origin, step) as i64,
            size: i64::from(size.max(1)),
            mirrored: step < 0.0,
        }
    }

    /// The image column (or row) of texel `k`.
    fn texel(&self, k: i64) -> i64 {
        if self.mirrored {
            self.first - k.clamp(0, self.size - 1)
        } else {
            (self.first + k).clamp(0, self.size - 1)
        }
    }

    /// The lowest and highest column (or row) any texel lies at. Forward, the walk starts at
    /// the first texel: bytes before it are not read (RPCS3's recorder attaches the source from
    /// the `IMAGE_IN` point on, `capture_image_in`, so a capture may hold nothing before it).
    fn reach(&self) -> (i64, i64) {
        if self.mirrored {
            (self.first - (self.size - 1), self.first)
        } else {
            (self.first.min(self.size - 1), self.size - 1)
        }
    }
}

/// The byte range `[start, end)` of the source a scaled image reads: from the first row and
/// column its axes reach ([`SourceAxis::reach`]; a mirrored axis reaches back from its first
/// texel, before the offset) to the last (may lie outside the address space).
fn scaled_source_range(s: &ScaledImage) -> (i64, i64) {
    let sbpp = i64::from(s.src_format.bytes());
    let axis_x = SourceAxis::new(s.in_point.0, s.origin, s.step.0, s.in_size.0);
    let axis_y = SourceAxis::new(s.in_point.1, s.origin, s.step.1, s.in_size.1);
    let ((x_lo, x_hi), (y_lo, y_hi)) = (axis_x.reach(), axis_y.reach());
    let pitch = i64::from(s.src_pitch);
    let offset = i64::from(s.src_offset);
    (
        offset + y_lo * pitch + x_lo * sbpp,
        offset + y_hi * pitch + (x_hi + 1) * sbpp,
    )
}

/// The first source texel a scaled image reads along one axis, from the `IMAGE_IN` point
/// and the step (source texels per destination pixel), as RPCS3 works it out
/// (`nv3089.cpp` `decode_transfer_registers`, in f32 and 16-bit integers): a CORNER point's
/// whole part; a CENTER point's whole part after taking ½ off (at least 0: "offset of 1 is
/// actually half-way inside pixel 0"); the sub-texel fraction is dropped. For a reduction
/// (step > 1) it snaps to where a destination pixel starts: `⌊⌊x·scale⌋ / scale⌋`,
/// `scale = 1 / step` (for a mirrored axis, whose scale is negative, RPCS3 snaps as well).
fn first_texel(point: f64, origin: Origin, step: f64) -> f64 {
    let point = point as f32;
    let whole = match origin {
        Origin::Corner => point.floor(),
        Origin::Center => (point.max(0.5) - 0.5).floor(),
    };
    let scale = 1.0 / step as f32;
    let x = if scale < 1.0 {
        ((whole * scale).floor() / scale).trunc()
    } else {
        whole
    };
    f64::from(x.clamp(0.0, f32::from(u16::MAX)))
}

fn scaled_image(
    s: &ScaledImage,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    let (cx, cy, cw, ch) = s.clip;
    let (ox, oy, ow, oh) = s.out;
    let mut x1 = (u32::from(cx) + u32::from(cw)).min(u32::from(ox) + u32::from(ow));
    let mut y1 = (u32::from(cy) + u32::from(ch)).min(u32::from(oy) + u32::from(oh));
    let (x0, y0) = (u32::from(cx.max(ox)), u32::from(cy.max(oy)));
    let dbpp = s.dst_format.bytes();
    if let ContextSurface::Swizzle2d {
        log2_width,
        log2_height,
        ..
    } = s.destination
    {
        x1 = x1.min(1 << log2_width);
        y1 = y1.min(1 << log2_height);
    }
    if x0 >= x1 || y0 >= y1 {
        return Ok(notes);
    }
    let pixels = u64::from(x1 - x0) * u64::from(y1 - y0);
    if pixels > MAX_TRANSFER_PIXELS {
        return Err(format!(
            "NV3089 writes {pixels} pixels, more than {MAX_TRANSFER_PIXELS}; skipped"
        ));
    }
    if s.conversion == 0
        && s.dst_format == DestinationFormat::R5G6B5
        && s.src_format != SourceFormat::R5G6B5
    {
        notes.push("NV3089 DITHER conversion replayed as truncation".to_string());
    }
    // Source: the texels each axis reads ([`SourceAxis`]), from the first row and column it
    // reaches (a mirrored axis reaches back from its first texel, before the offset).
    let sbpp = s.src_format.bytes();
    let axis_x = SourceAxis::new(s.in_point.0, s.origin, s.step.0, s.in_size.0);
    let axis_y = SourceAxis::new(s.in_point.1, s.origin, s.step.1, s.in_size.1);
    let ((x_lo, _), (y_lo, _)) = (axis_x.reach(), axis_y.reach());
    let pitch = i64::from(s.src_pitch);
    let (first, s_end) = scaled_source_range(s);
    let (s_at, s_len) = span("NV3089 source", first, s_end)?;
    // Bytes neither captured nor rendered read as 0, as in RPCS3's replay. RPCS3's recorder
    // attaches the source before it applies the IMAGE_IN write, so from the previous
    // transfer's point, with the raw point floored and the raw pitch (`RSXFIFO.cpp` records
    // before it decodes the register; `capture_image_in`): a point that moved back, a CENTER
    // point or a reduction can read bytes it left out.
    let missing = surfaces.unheld_bytes(s.src, s_at, s_len, base);
    if missing > 0 {
        notes.push(format!(
            "NV3089 source: {missing} of its {s_len} bytes at {}+0x{s_at:08x} are not in the capture (read as 0)",
            s.src.name()
        ));
    }
    let src = read(surfaces, base, s.src, s_at, s_len)?;
    // Texel (kx, ky) of the source image as the steps walk it; a filter tap before the first
    // texel reads the first (RPCS3 filters the image from the `IMAGE_IN` point on).
    let fetch = |kx: i64, ky: i64| -> Channels {
        let (tx, ty) = (axis_x.texel(kx).max(x_lo), axis_y.texel(ky).max(y_lo));
        let at = (ty - y_lo) * pitch + (tx - x_lo) * i64::from(sbpp);
        let at = usize::try_from(at).unwrap_or(usize::MAX);
        texel(
            s.src_format,
            src.get(at..at.saturating_add(sbpp as usize)).unwrap_or(&[]),
        )
    };
    // Destination: where each pixel goes, relative to the start of the written range.
    let (location, d_at, d_len, place): (Location, u32, u32, Placement) = match s.destination {
        ContextSurface::Surface2d {
            location,
            offset,
            pitch,
        } => {
            let pitch = if pitch == 0 {
                u32::from(ow) * dbpp
            } else {
                pitch
            };
            let first = i64::from(y0) * i64::from(pitch) + i64::from(x0 * dbpp);
            let end = i64::from(y1 - 1) * i64::from(pitch) + i64::from(x1 * dbpp);
            let (at, len) = span(
                "NV3062 destination",
                i64::from(offset) + first,
                i64::from(offset) + end,
            )?;
            let first = first as u64;
            (location, at, len, Placement::Linear { pitch, first })
        }
        ContextSurface::Swizzle2d {
            location,
            offset,
            log2_width,
            log2_height,
        } => {
            let (lw, lh) = (u32::from(log2_width), u32::from(log2_height));
            let len = (1i64 << (lw + lh)) * i64::from(dbpp);
            let (at, len) = span(
                "NV309E destination",
                i64::from(offset),
                i64::from(offset) + len,
            )?;
            (location, at, len, Placement::Swizzled { lw, lh })
        }
    };
    let max = channel_max(s.src_format);
    let dst = surfaces
        .range_mut(location, d_at, d_len, base)
        .ok_or_else(|| "NV3089 destination cannot be written; skipped".to_string())?;
    for y in y0..y1 {
        let v = (f64::from(y) - f64::from(oy) + 0.5) * s.step.1.abs();
        for x in x0..x1 {
            let u = (f64::from(x) - f64::from(ox) + 0.5) * s.step.0.abs();
            let c = match s.interpolator {
                Interpolator::Zoh => fetch(u.floor() as i64, v.floor() as i64),
                Interpolator::Foh => {
                    let (a, b) = (u - 0.5, v - 0.5);
                    let (i, j) = (a.floor(), b.floor());
                    let (fx, fy) = (a - i, b - j);
                    let (i, j) = (i as i64, j as i64);
                    let t = [
                        fetch(i, j),
                        fetch(i + 1, j),
                        fetch(i, j + 1),
                        fetch(i + 1, j + 1),
                    ];
                    let w = [
                        (1.0 - fx) * (1.0 - fy),
                        fx * (1.0 - fy),
                        (1.0 - fx) * fy,
                        fx * fy,
                    ];
                    let mut c = [0.0; 4];
                    for (k, ch) in c.iter_mut().enumerate() {
                        let sum: f64 = t.iter().zip(w).map(|(t, w)| t[k] * w).sum();
                        *ch = sum.round().clamp(0.0, max[k]);
                    }
                    c
                }
            };
            let (bytes, n) = encode(s.src_format, s.dst_format, c);
            let at = place.at(x, y, dbpp) as usize;
            if let Some(d) = dst.get_mut(at..at + n) {
                d.copy_from_slice(&bytes[..n]);
            }
        }
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::fetch::FlatMemory;

    #[test]
    fn channel_conversions() {
        // 565 (31, 0, 16) to 8 bits: round(31/31·255), 0, round(16/31·255) = 132.
        let c = texel(SourceFormat::R5G6B5, &(31u16 << 11 | 16).to_be_bytes());
        assert_eq!(
            encode(SourceFormat::R5G6B5, DestinationFormat::A8R8G8B8, c),
            ([255, 255, 0, 132], 4)
        );
        // 8888 to 565 truncates: R 0xFF → 31, G 0x7F → 31, B 0x08 → 1.
        let c = texel(SourceFormat::A8R8G8B8, &[9, 0xFF, 0x7F, 0x08]);
        let v: u16 = 31 << 11 | 31 << 5 | 1;
        let [a, b] = v.to_be_bytes();
        assert_eq!(
            encode(SourceFormat::A8R8G8B8, DestinationFormat::R5G6B5, c),
            ([a, b, 0, 0], 2)
        );
    }

    /// Memory that holds nothing.
    struct NoMemory;

    impl GuestMemory for NoMemory {
        fn read(&self, _: Location, _: u32, _: u32) -> Option<std::borrow::Cow<'_, [u8]>> {
            None
        }
    }

    #[test]
    fn an_overlapping_strided_copy_runs_in_place_in_order() {
        // One line of 4 columns read with stride 1 at 0x100 and written with stride 2 at
        // 0x101: RPCS3 copies byte after byte in place, so column 1 reads byte 0x101, which
        // column 0 has just written, and column 3 reads byte 0x103, which column 1 wrote.
        let mut surfaces = SurfaceMemory::new();
        let bytes = surfaces
            .range_mut(Location::Local, 0x100, 8, &NoMemory)
            .unwrap();
        bytes.copy_from_slice(&[10, 11, 12, 13, 14, 15, 16, 17]);
        let copy = MemoryCopy {
            src: Location::Local,
            src_offset: 0x100,
            src_pitch: 8,
            dst: Location::Local,
            dst_offset: 0x101,
            dst_pitch: 8,
            line_length: 4,
            line_count: 1,
            src_stride: 1,
            dst_stride: 2,
        };
        let notes = apply_transfer(&Transfer::Copy(copy), &mut surfaces, &NoMemory);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(
            surfaces.read_rendered(Location::Local, 0x100, 8),
            Some(&[10, 10, 12, 10, 14, 12, 16, 10][..])
        );
    }

    #[test]
    fn copies_follow_strides_and_signed_pitches() {
        // Source bytes 0..64 at 0x100. Two lines, source pitch 16, 8 columns read with byte
        // stride 2 (bytes 0, 2, .., 14 of each line: LINE_LENGTH counts columns, RPCS3
        // `block2d_copy_with_stride`), written with stride 1 at 0x300 and pitch -8: line 0 at
        // 0x300, line 1 at 0x2F8.
        let mut surfaces = SurfaceMemory::new();
        let src = surfaces
            .range_mut(Location::Local, 0x100, 64, &NoMemory)
            .unwrap();
        for (i, b) in src.iter_mut().enumerate() {
            *b = i as u8;
        }
        let copy = MemoryCopy {
            src: Location::Local,
            src_offset: 0x100,
            src_pitch: 16,
            dst: Location::Main,
            dst_offset: 0x300,
            dst_pitch: -8,
            line_length: 8,
            line_count: 2,
            src_stride: 2,
            dst_stride: 1,
        };
        let notes = apply_transfer(&Transfer::Copy(copy), &mut surfaces, &NoMemory);
        assert!(notes.is_empty(), "{notes:?}");
        let line = |surfaces: &SurfaceMemory, at: u32| {
            surfaces
                .read_rendered(Location::Main, at, 8)
                .unwrap()
                .to_vec()
        };
        assert_eq!(line(&surfaces, 0x300), vec![0, 2, 4, 6, 8, 10, 12, 14]);
        assert_eq!(line(&surfaces, 0x2F8), vec![16, 18, 20, 22, 24, 26, 28, 30]);
        // The written bytes, 0x2F8..0x308, lie inside the extent, which is no wider.
        assert_eq!(
            destination_extent(&Transfer::Copy(copy)),
            Some((Location::Main, 0x2F8, 0x308))
        );
        // A stride of 0 or above 4 makes the copy a NOP, said in a note (RPCS3
        // `validate_buffer_notify`).
        for (src_stride, dst_stride) in [(0, 1), (1, 5)] {
            let bad = MemoryCopy {
                dst_offset: 0x400,
                dst_pitch: 8,
                src_stride,
                dst_stride,
                ..copy
            };
            let notes = apply_transfer(&Transfer::Copy(bad), &mut surfaces, &NoMemory);
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(surfaces.read_rendered(Location::Main, 0x400, 8).is_none());
            assert_eq!(destination_extent(&Transfer::Copy(bad)), None);
        }
    }

    #[test]
    fn scaled_destinations_bound_the_written_pixels() {
        let mut s = ScaledImage {
            src: Location::Local,
            src_offset: 0,
            src_pitch: 32,
            src_format: SourceFormat::A8R8G8B8,
            in_size: (8, 8),
            in_point: (0.0, 0.0),
            origin: Origin::Corner,
            interpolator: Interpolator::Zoh,
            clip: (0, 0, 8, 8),
            out: (2, 1, 4, 4),
            step: (1.0, 1.0),
            destination: ContextSurface::Surface2d {
                location: Location::Local,
                offset: 0x1000,
                pitch: 64,
            },
            dst_format: DestinationFormat::A8R8G8B8,
            conversion: 1,
        };
        // Rows 1..5, columns 2..6: the last pixel ends at 0x1000 + 4·64 + 6·4 = 0x1118.
        let (_, start, end) = destination_extent(&Transfer::Scaled(s)).unwrap();
        assert!(
            start <= 0x1000 + 64 + 8 && end >= 0x1000 + 4 * 64 + 24,
            "{start:x}..{end:x}"
        );
        s.destination = ContextSurface::Swizzle2d {
            location: Location::Local,
            offset: 0x2000,
            log2_width: 3,
            log2_height: 2,
        };
        assert_eq!(
            destination_extent(&Transfer::Scaled(s)),
            Some((Location::Local, 0x2000, 0x2000 + 32 * 4))
        );
        s.clip = (0, 0, 0, 0);
        assert_eq!(destination_extent(&Transfer::Scaled(s)), None);
    }

    #[test]
    fn a_captured_source_is_read_packed_not_at_its_pitch() {
        // Two lines of 4 bytes at source pitch 16: RPCS3 records them packed (8 bytes at
        // 0x100: 10 11 12 13 20 21 22 23), so line 1 is bytes 4..8 of the block, not the bytes
        // 16 further on (which the capture does not hold).
        let base = FlatMemory::at(Location::Local, 0x100, vec![10, 11, 12, 13, 20, 21, 22, 23]);
        let copy = MemoryCopy {
            src: Location::Local,
            src_offset: 0x100,
            src_pitch: 16,
            dst: Location::Main,
            dst_offset: 0x400,
            dst_pitch: 4,
            line_length: 4,
            line_count: 2,
            src_stride: 1,
            dst_stride: 1,
        };
        let mut surfaces = SurfaceMemory::new();
        let notes = apply_transfer(&Transfer::Copy(copy), &mut surfaces, &base);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(
            surfaces.read_rendered(Location::Main, 0x400, 8).unwrap(),
            &[10, 11, 12, 13, 20, 21, 22, 23]
        );
    }

    /// A scaled image from an A8R8G8B8 source at `src_offset` (pitch 16, `in_size` texels,
    /// corner origin unless changed) to a same-size NV3062 A8R8G8B8 surface at 0x200 (pitch
    /// 16), 1:1 ZOH unless changed.
    fn scaled_to_0x200(src_offset: u32, in_size: (u16, u16)) -> ScaledImage {
        ScaledImage {
            src: Location::Local,
            src_offset,
            src_pitch: 16,
            src_format: SourceFormat::A8R8G8B8,
            in_size,
            in_point: (0.0, 0.0),
            origin: Origin::Corner,
            interpolator: Interpolator::Zoh,
            clip: (0, 0, in_size.0, in_size.1),
            out: (0, 0, in_size.0, in_size.1),
            step: (1.0, 1.0),
            destination: ContextSurface::Surface2d {
                location: Location::Local,
                offset: 0x200,
                pitch: 16,
            },
            dst_format: DestinationFormat::A8R8G8B8,
            conversion: 1,
        }
    }

    /// Apply `s` (which must leave no note) and read the first byte of each of the `pixels`
    /// destination pixels at 0x200.
    fn first_bytes(s: ScaledImage, surfaces: &mut SurfaceMemory, pixels: u32) -> Vec<u8> {
        let notes = apply_transfer(&Transfer::Scaled(s), surfaces, &NoMemory);
        assert!(notes.is_empty(), "{notes:?}");
        let d = surfaces
            .read_rendered(Location::Local, 0x200, pixels * 4)
            .unwrap();
        d.chunks(4).map(|p| p[0]).collect()
    }

    /// A 1:1 ZOH scaled image of a 4×1 A8R8G8B8 row (texel k = bytes [k; 4]) at 0x100 into a
    /// 4×1 NV3062 surface at 0x200; the destination bytes' first byte per pixel.
    fn row_copy(origin: Origin, in_point: f64) -> Vec<u8> {
        let mut surfaces = SurfaceMemory::new();
        let src = surfaces
            .range_mut(Location::Local, 0x100, 16, &NoMemory)
            .unwrap();
        for (i, b) in src.iter_mut().enumerate() {
            *b = (i / 4) as u8;
        }
        let s = ScaledImage {
            in_point: (in_point, 0.0),
            origin,
            ..scaled_to_0x200(0x100, (4, 1))
        };
        first_bytes(s, &mut surfaces, 4)
    }

    #[test]
    fn the_source_point_moves_the_image_by_whole_texels() {
        // The point's whole texel (CENTER: after taking ½ off), its fraction dropped (RPCS3
        // nv3089.cpp). Past the last texel the index clamps.
        assert_eq!(row_copy(Origin::Corner, 0.0), vec![0, 1, 2, 3]);
        assert_eq!(row_copy(Origin::Corner, 1.0), vec![1, 2, 3, 3]);
        assert_eq!(row_copy(Origin::Corner, 0.75), vec![0, 1, 2, 3]);
        assert_eq!(row_copy(Origin::Corner, 1.9375), vec![1, 2, 3, 3]);
        assert_eq!(row_copy(Origin::Center, 0.0), vec![0, 1, 2, 3]);
        assert_eq!(row_copy(Origin::Center, 0.5), vec![0, 1, 2, 3]);
        assert_eq!(row_copy(Origin::Center, 1.0), vec![0, 1, 2, 3]);
        assert_eq!(row_copy(Origin::Center, 1.5), vec![1, 2, 3, 3]);
        assert_eq!(row_copy(Origin::Center, 2.25), vec![1, 2, 3, 3]);
    }

    #[test]
    fn a_source_captured_from_its_image_in_point_is_read_from_there() {
        // RPCS3's recorder attaches an NV3089 source from the IMAGE_IN point on
        // (`capture_image_in`): a 16×1 image at 0x1000 copied from texel 8 is captured as
        // texels 8..15 at 0x1020. Reading from texel 0 found no bytes there and zeroed the
        // copy; reading from the first texel gives texels 8..15 (texel k = bytes [k; 4]).
        let captured = FlatMemory::at(
            Location::Local,
            0x1020,
            (8..16u8).flat_map(|k| [k; 4]).collect::<Vec<u8>>(),
        );
        for interpolator in [Interpolator::Zoh, Interpolator::Foh] {
            let s = ScaledImage {
                in_point: (8.0, 0.0),
                in_size: (16, 1),
                src_pitch: 64,
                interpolator,
                ..scaled_to_0x200(0x1000, (8, 1))
            };
            let mut surfaces = SurfaceMemory::new();
            let notes = apply_transfer(&Transfer::Scaled(s), &mut surfaces, &captured);
            assert!(notes.is_empty(), "{notes:?}");
            let d = surfaces.read_rendered(Location::Local, 0x200, 32).unwrap();
            let firsts: Vec<u8> = d.chunks(4).map(|p| p[0]).collect();
            assert_eq!(firsts, (8..16).collect::<Vec<u8>>(), "{interpolator:?}");
        }
    }

    #[test]
    fn source_bytes_the_capture_lacks_are_named() {
        // RPCS3's recorder attached the source from the previous IMAGE_IN point (texel 4), so
        // a copy from texel 0 finds texels 0..3 (16 bytes) in no block: a note names them.
        let captured = FlatMemory::at(
            Location::Local,
            0x1010,
            (4..8u8).flat_map(|k| [k; 4]).collect::<Vec<u8>>(),
        );
        let s = ScaledImage {
            in_size: (8, 1),
            src_pitch: 32,
            ..scaled_to_0x200(0x1000, (8, 1))
        };
        let mut surfaces = SurfaceMemory::new();
        let notes = apply_transfer(&Transfer::Scaled(s), &mut surfaces, &captured);
        assert_eq!(
            notes,
            vec!["NV3089 source: 16 of its 32 bytes at local+0x00001000 are not in the capture (read as 0)"]
        );
    }

    #[test]
    fn the_source_extent_covers_a_mirrored_walk() {
        // Mirrored from texel 1 of a 4×1 row at 0x140: the walk reads texels 1, 0, -1, -2, the
        // last two before the offset; the extent the GPU render writes back over covers them.
        let s = ScaledImage {
            in_point: (1.0, 0.0),
            step: (-1.0, 1.0),
            ..scaled_to_0x200(0x140, (4, 1))
        };
        assert_eq!(
            source_extent(&Transfer::Scaled(s)),
            Some((Location::Local, 0x140 - 8, 0x140 + 8))
        );
        // Forward from texel 0: the image itself.
        let forward = scaled_to_0x200(0x140, (4, 1));
        let (_, start, end) = source_extent(&Transfer::Scaled(forward)).unwrap();
        assert_eq!((start, end), (0x140, 0x140 + 16));
    }

    /// A 4×2 A8R8G8B8 image at 0x140 (rows 0x140 and 0x150, texel byte 0 = 10·row + column)
    /// with a row above it at 0x130 (byte 0 = 90 + column), copied by `step` from `point`
    /// (corner origin, size 4×2) into a 4×2 destination: the destination's byte 0 per pixel.
    fn mirrored_copy(step: (f64, f64), point: (f64, f64), interpolator: Interpolator) -> Vec<u8> {
        let mut surfaces = SurfaceMemory::new();
        let src = surfaces
            .range_mut(Location::Local, 0x130, 48, &NoMemory)
            .unwrap();
        for (i, b) in src.iter_mut().enumerate() {
            let (row, column) = (i / 16, (i % 16 / 4) as u8);
            *b = if row == 0 {
                90 + column
            } else {
                10 * (row as u8 - 1) + column
            };
        }
        let s = ScaledImage {
            in_point: point,
            interpolator,
            step,
            ..scaled_to_0x200(0x140, (4, 2))
        };
        first_bytes(s, &mut surfaces, 8)
    }

    #[test]
    fn a_negative_step_walks_the_source_backward_from_its_first_texel() {
        // x mirrored from texel 3: columns 3, 2, 1, 0 of each row.
        assert_eq!(
            mirrored_copy((-1.0, 1.0), (3.0, 0.0), Interpolator::Zoh),
            [3, 2, 1, 0, 13, 12, 11, 10]
        );
        // From texel 1 the walk goes on past column 0 into the bytes before the row (here
        // the last texels of the row above), as RPCS3's reversed copy reads them.
        assert_eq!(
            mirrored_copy((-1.0, 1.0), (1.0, 0.0), Interpolator::Zoh),
            [1, 0, 93, 92, 11, 10, 3, 2]
        );
        // y mirrored from row 0: the second destination row reads the row above the source
        // offset (RPCS3 reads mirrored rows upward with a negative stride).
        assert_eq!(
            mirrored_copy((1.0, -1.0), (0.0, 0.0), Interpolator::Zoh),
            [0, 1, 2, 3, 90, 91, 92, 93]
        );
        // Both axes from (3, 1): the image turned half a turn.
        assert_eq!(
            mirrored_copy((-1.0, -1.0), (3.0, 1.0), Interpolator::Zoh),
            [13, 12, 11, 10, 3, 2, 1, 0]
        );
        // FOH at 1:1 lands on texel centres: the same as ZOH.
        assert_eq!(
            mirrored_copy((-1.0, -1.0), (3.0, 1.0), Interpolator::Foh),
            [13, 12, 11, 10, 3, 2, 1, 0]
        );
    }

    #[test]
    fn a_reduction_snaps_its_first_texel_to_the_scale_grid() {
        // 2:1 (scale ½): texel 3 → ⌊1.5⌋ / ½ = 2; 5 → 4; 1:3 (scale ⅓): 5 → ⌊5/3⌋·3 = 3.
        assert_eq!(first_texel(3.0, Origin::Corner, 2.0), 2.0);
        assert_eq!(first_texel(5.5, Origin::Corner, 2.0), 4.0);
        assert_eq!(first_texel(5.0, Origin::Corner, 3.0), 3.0);
        assert_eq!(first_texel(6.5, Origin::Center, 3.0), 6.0);
        // Enlargements and 1:1 keep the whole texel.
        assert_eq!(first_texel(3.0, Origin::Corner, 0.5), 3.0);
        assert_eq!(first_texel(3.0, Origin::Corner, 1.0), 3.0);
        // A mirrored axis snaps too, with its negative scale: -1 keeps 3; -2 (scale -1/2)
        // gives floor(-1.5) / -0.5 = 4 (RPCS3's arithmetic as written).
        assert_eq!(first_texel(3.0, Origin::Corner, -1.0), 3.0);
        assert_eq!(first_texel(3.0, Origin::Corner, -2.0), 4.0);
    }

    #[test]
    fn oversized_transfers_are_refused() {
        let mut surfaces = SurfaceMemory::new();
        let base = NoMemory;
        // 2^32 - 1 lines of 4 KiB at pitch 0: the range is small, the work is not.
        let copy = MemoryCopy {
            src: Location::Local,
            src_offset: 0,
            src_pitch: 0,
            dst: Location::Local,
            dst_offset: 0x1000,
            dst_pitch: 0,
            line_length: 4096,
            line_count: u32::MAX,
            src_stride: 1,
            dst_stride: 1,
        };
        let e = apply_transfer(&Transfer::Copy(copy), &mut surfaces, &base);
        assert!(e.len() == 1 && e[0].contains("skipped"), "{e:?}");
    }

    #[test]
    fn mirrored_walks_outside_memory_are_refused() {
        // Walking 2 rows up from row 0 at offset 0 reaches before address 0; walking back
        // 65535 rows of 64 KiB reaches past the transfer bound. Both are skipped with a note.
        for (offset, pitch, rows) in [(0u32, 16u32, 3u16), (0x1000_0000, 0xFFFF, u16::MAX)] {
            let mut surfaces = SurfaceMemory::new();
            let s = ScaledImage {
                src_pitch: pitch,
                in_size: (4, rows),
                interpolator: Interpolator::Foh,
                step: (-1.0, -1.0),
                ..scaled_to_0x200(offset, (4, 2))
            };
            let e = apply_transfer(&Transfer::Scaled(s), &mut surfaces, &NoMemory);
            assert!(e.len() == 1 && e[0].contains("skipped"), "{e:?}");
        }
    }

    #[test]
    fn spans_are_bounded() {
        assert!(span("x", -1, 4).is_err());
        assert!(span("x", 0, (1 << 32) + 1).is_err());
        assert!(span("x", 0, MAX_TRANSFER_BYTES as i64 + 1).is_err());
        assert_eq!(span("x", 16, 48), Ok((16, 32)));
    }

    #[test]
    fn inline_pixels_store_argb_words_and_truncate_to_r5g6b5() {
        let mut surfaces = SurfaceMemory::new();
        let pixel = |format, x, word| InlinePixel {
            location: Location::Local,
            offset: 0x100,
            pitch: 16,
            format,
            x,
            y: 1,
            word,
        };
        for (x, word) in [(0, 0x11_22_33_44), (1, 0x55_66_77_88)] {
            let p = pixel(DestinationFormat::A8R8G8B8, x, word);
            assert!(apply_transfer(&Transfer::Inline(p), &mut surfaces, &NoMemory).is_empty());
        }
        // Two pixels written one after the other are one region, read back whole.
        assert_eq!(
            surfaces.read_rendered(Location::Local, 0x110, 8).unwrap(),
            [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]
        );
        // R5G6B5: R 0xFF >> 3, G 0x80 >> 2, B 0x08 >> 3, big-endian.
        let p = pixel(DestinationFormat::R5G6B5, 0, 0xFF_FF_80_08);
        assert!(apply_transfer(&Transfer::Inline(p), &mut surfaces, &NoMemory).is_empty());
        assert_eq!(
            surfaces.read_rendered(Location::Local, 0x110, 2).unwrap(),
            (31u16 << 11 | 32 << 5 | 1).to_be_bytes()
        );
    }
}
