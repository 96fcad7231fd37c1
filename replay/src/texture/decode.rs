//! Decoding one texture unit's image from guest memory: every layer (cube face) and mip level
//! as a linear RGBA f32 image, remapped (CONTROL1) but not yet sign/gamma converted (those
//! apply after filtering, as RPCS3's shaders do). This is the one decoder: the interpreter's
//! sampler, the GPU render's texture upload and verify's bindings all start from it.

use super::dxt;
use super::error::TextureError;
use super::format::TexelFormat;
use super::layout::{subresources, BlockOffsets, Geometry, RowStart, Subresource};
use super::remap::Remap;
use super::MAX_DECODED_TEXELS;
use rayon::prelude::*;
use rsxtrace_capture::fetch::{GuestMemory, Span};
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_capture::rrc::Location;
use std::borrow::Cow;

/// Levels of at least this many texels are decoded in bands of rows in parallel.
const PARALLEL_DECODE_TEXELS: u64 = 1 << 16;

/// Texture dimensionality (FORMAT bits 4..7 and the cube map bit 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// 1D: coordinate s; height and depth are 1.
    D1,
    /// 2D: coordinates s, t.
    D2,
    /// 3D: coordinates s, t, r.
    D3,
    /// Cube map (2D with the cube bit): direction s, t, r; six layers +X, -X, +Y, -Y, +Z, -Z.
    Cube,
}

impl Dimension {
    /// From the FORMAT dimension field and cube bit (RPCS3 `get_extended_texture_dimension`:
    /// the cube bit only matters for 2D).
    pub fn from_fields(dimension: u8, cubemap: bool) -> Option<Dimension> {
        match dimension {
            1 => Some(Dimension::D1),
            2 if cubemap => Some(Dimension::Cube),
            2 => Some(Dimension::D2),
            3 => Some(Dimension::D3),
            _ => None,
        }
    }
}

/// One decoded sub-resource: `texels[(z * height + y) * width + x]`, R, G, B, A.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Depth in texels.
    pub depth: u32,
    /// The texels.
    pub texels: Vec<[f32; 4]>,
}

impl Level {
    /// The texel at `(x, y, z)`, or zero outside the level.
    #[inline]
    pub fn texel(&self, x: u32, y: u32, z: u32) -> [f32; 4] {
        if x >= self.width || y >= self.height || z >= self.depth {
            return [0.0; 4];
        }
        let (w, h) = (self.width as usize, self.height as usize);
        let i = (z as usize * h + y as usize) * w + x as usize;
        self.texels.get(i).copied().unwrap_or([0.0; 4])
    }
}

/// A texture unit's decoded image.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedTexture {
    /// Dimensionality.
    pub dimension: Dimension,
    /// Texel format.
    pub format: TexelFormat,
    /// The remap that was applied.
    pub remap: Remap,
    /// Number of layers (6 for cube maps).
    pub layers: u32,
    /// Number of mip levels per layer.
    pub levels: u32,
    /// Layer-major sub-resources (`layer * levels + level`).
    pub images: Vec<Level>,
}

impl DecodedTexture {
    /// One sub-resource.
    #[inline]
    pub fn level(&self, layer: u32, level: u32) -> Option<&Level> {
        let i = u64::from(layer) * u64::from(self.levels) + u64::from(level);
        self.images.get(usize::try_from(i).ok()?)
    }
}

/// The base texel format of a unit, or the error naming it.
pub fn texel_format(unit: u8, texture: &Texture) -> Result<TexelFormat, TextureError> {
    let code = texture.format.format & !0x60;
    TexelFormat::from_code(code).ok_or(TextureError::UnsupportedFormat { unit, format: code })
}

/// The unit's remap word: CONTROL1 with the override bits (16..) above the remap (0..15).
pub fn remap_word(texture: &Texture) -> u32 {
    (u32::from(texture.remap_override) << 16) | u32::from(texture.remap)
}

/// Decode every layer and level of `texture` (texture unit `unit`) from `memory`.
pub fn decode_texture<M: GuestMemory + ?Sized>(
    unit: u8,
    texture: &Texture,
    memory: &M,
) -> Result<DecodedTexture, TextureError> {
    let plan = DecodePlan::new(unit, texture)?;
    let slices = plan.read(memory)?;
    plan.decode(&slices)
}

/// A texture unit's texels as they lie in guest memory: every sub-resource (layer-major:
/// all levels of layer 0, then layer 1, ...) with its layout and its stored bytes, before any
/// decoding. What a texture dump hashes and what a DDS file of a DXT texture holds.
#[derive(Clone, Debug)]
pub struct StoredTexture<'m> {
    /// Texel format.
    pub format: TexelFormat,
    /// Dimensionality.
    pub dimension: Dimension,
    /// Layers (6 for cube maps).
    pub layers: u32,
    /// Mip levels per layer.
    pub levels: u32,
    /// Memory space.
    pub location: Location,
    /// Offset of the texture's first byte (the unit's base offset).
    pub offset: u32,
    /// Each sub-resource with the bytes it occupies (from its first block to its last).
    pub subresources: Vec<(Subresource, Cow<'m, [u8]>)>,
}

impl StoredTexture<'_> {
    /// The blocks of sub-resource `index` in row-major order, slice after slice, without row
    /// padding, border texels or Z-order: DXT blocks as a DDS file holds them, other formats
    /// one texel (or texel pair) per block, in their stored big-endian bytes.
    pub fn packed_blocks(&self, index: usize) -> Option<Vec<u8>> {
        let (sub, bytes) = self.subresources.get(index)?;
        let f = self.format;
        let block = u64::from(f.block_bytes());
        let (wb, hb) = (
            u64::from(sub.width).div_ceil(u64::from(f.block_width())),
            u64::from(sub.height).div_ceil(u64::from(f.block_height())),
        );
        let mut out = Vec::new();
        for z in 0..u64::from(sub.depth) {
            for by in 0..hb {
                for bx in 0..wb {
                    let at = usize::try_from(sub.block_offset(bx, by, z, block)).ok()?;
                    out.extend_from_slice(bytes.get(at..at.checked_add(block as usize)?)?);
                }
            }
        }
        Some(out)
    }

    /// Every stored byte, sub-resource after sub-resource.
    pub fn bytes(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.subresources.iter().map(|(_, b)| &b[..])
    }
}

/// Read unit `unit`'s stored texels (`texture`'s state) from `memory`, without decoding.
pub fn read_stored<'m, M: GuestMemory + ?Sized>(
    unit: u8,
    texture: &Texture,
    memory: &'m M,
) -> Result<StoredTexture<'m>, TextureError> {
    let plan = DecodePlan::new(unit, texture)?;
    let slices = plan.read(memory)?;
    let levels = plan.subs.iter().map(|s| s.level + 1).max().unwrap_or(1);
    Ok(StoredTexture {
        format: plan.format,
        dimension: plan.dimension,
        layers: plan.geometry.layers,
        levels,
        location: plan.location,
        offset: plan.base,
        subresources: plan.subs.iter().copied().zip(slices).collect(),
    })
}

/// Everything a unit's decode needs but the bytes: the checked state, the layout of every
/// sub-resource and the remap. [`DecodePlan::read`] then reads the bytes and
/// [`DecodePlan::decode`] turns them into the image; the texture cache keys on the plan and
/// the bytes in between.
#[derive(Clone, Debug)]
pub(crate) struct DecodePlan {
    pub unit: u8,
    pub base: u32,
    pub location: Location,
    pub format: TexelFormat,
    pub dimension: Dimension,
    pub geometry: Geometry,
    pub subs: Vec<Subresource>,
    pub remap: Remap,
    /// The raw remap word (CONTROL1 with the override bits), for keys.
    pub remap_word: u32,
    /// The raw FORMAT fields that choose the texel format and dimension, for keys: the
    /// format code (bits 8..15) without the LN/UN flags, the dimension and the cube bit.
    pub format_word: u32,
}

impl DecodePlan {
    /// Check unit `unit`'s state `texture` and lay out its sub-resources.
    pub(crate) fn new(unit: u8, texture: &Texture) -> Result<DecodePlan, TextureError> {
        let location = texture
            .format
            .location
            .ok_or(TextureError::NoLocation { unit })?;
        let format = texel_format(unit, texture)?;
        let f = &texture.format;
        let dimension =
            Dimension::from_fields(f.dimension, f.cubemap).ok_or(TextureError::BadDimension {
                unit,
                dimension: f.dimension,
                cubemap: f.cubemap,
            })?;
        let width = u32::from(texture.width);
        let height = if dimension == Dimension::D1 {
            1
        } else {
            u32::from(texture.height)
        };
        let depth = if dimension == Dimension::D3 {
            u32::from(texture.depth)
        } else {
            1
        };
        if width == 0 || height == 0 || depth == 0 {
            return Err(TextureError::EmptyImage {
                unit,
                width,
                height,
                depth,
            });
        }
        let geometry = Geometry {
            format,
            width,
            height,
            depth,
            layers: if dimension == Dimension::Cube { 6 } else { 1 },
            mip_field: u32::from(f.mip_count),
            linear: f.linear,
            border_texels: f.border_type == 0,
            pitch: texture.pitch,
        };
        let subs = subresources(&geometry);
        let texels: u64 = subs
            .iter()
            .map(|s| u64::from(s.width) * u64::from(s.height) * u64::from(s.depth))
            .sum();
        if texels > MAX_DECODED_TEXELS {
            return Err(TextureError::TooLarge { unit, texels });
        }
        let remap_word = remap_word(texture);
        Ok(DecodePlan {
            unit,
            base: texture.offset,
            location,
            format,
            dimension,
            remap: Remap::decode(remap_word, format),
            remap_word,
            format_word: u32::from(texture.format.format & !0x60)
                | (u32::from(f.dimension) << 8)
                | (u32::from(f.cubemap) << 12),
            geometry,
            subs,
        })
    }

    /// The bytes of every sub-resource, in order.
    pub(crate) fn read<'m, M: GuestMemory + ?Sized>(
        &self,
        memory: &'m M,
    ) -> Result<Vec<Cow<'m, [u8]>>, TextureError> {
        self.subs
            .iter()
            .map(|sub| read_subresource(self.unit, self.base, self.location, sub, memory))
            .collect()
    }

    /// Decode the image from the bytes [`read`](Self::read) gave.
    pub(crate) fn decode<S: AsRef<[u8]>>(
        &self,
        slices: &[S],
    ) -> Result<DecodedTexture, TextureError> {
        let mut images = Vec::with_capacity(self.subs.len());
        for (sub, bytes) in self.subs.iter().zip(slices) {
            images.push(decode_level(
                self.unit,
                self.base,
                self.location,
                self.format,
                &self.remap,
                sub,
                bytes.as_ref(),
            )?);
        }
        let levels = self.subs.iter().map(|s| s.level + 1).max().unwrap_or(1);
        Ok(DecodedTexture {
            dimension: self.dimension,
            format: self.format,
            remap: self.remap,
            layers: self.geometry.layers,
            levels,
            images,
        })
    }
}

/// Where unit `unit`'s image (state `texture`) lies: the bytes of each sub-resource (layer by
/// layer, level by level), exactly the ranges [`decode_texture`] reads, found without reading
/// memory. Errors are [`decode_texture`]'s state errors (no location, unsupported format, bad
/// dimension, empty or too large an image, an address past 4 GiB).
pub fn texture_spans(unit: u8, texture: &Texture) -> Result<Vec<Span>, TextureError> {
    let plan = DecodePlan::new(unit, texture)?;
    plan.subs
        .iter()
        .map(|sub| {
            let (offset, len) = subresource_span(unit, plan.base, sub)?;
            Ok(Span {
                location: plan.location,
                offset,
                len,
            })
        })
        .collect()
}

/// `(offset, len)` of a sub-resource of a texture at `base`.
fn subresource_span(unit: u8, base: u32, sub: &Subresource) -> Result<(u32, u32), TextureError> {
    let overflow = TextureError::AddressOverflow {
        unit,
        base,
        layer: sub.layer as u8,
        level: sub.level as u16,
    };
    let start = u64::from(base) + sub.offset;
    let offset = u32::try_from(start).map_err(|_| overflow.clone())?;
    let len = u32::try_from(sub.span).map_err(|_| overflow.clone())?;
    if u64::from(offset) + u64::from(len) > u64::from(u32::MAX) + 1 {
        return Err(overflow);
    }
    Ok((offset, len))
}

fn read_subresource<'m, M: GuestMemory + ?Sized>(
    unit: u8,
    base: u32,
    location: Location,
    sub: &Subresource,
    memory: &'m M,
) -> Result<Cow<'m, [u8]>, TextureError> {
    let (offset, len) = subresource_span(unit, base, sub)?;
    memory
        .read(location, offset, len)
        .ok_or(TextureError::MissingMemory {
            unit,
            location,
            offset,
            len,
            layer: sub.layer as u8,
            level: sub.level as u16,
        })
}

fn decode_level(
    unit: u8,
    base: u32,
    location: Location,
    format: TexelFormat,
    remap: &Remap,
    sub: &Subresource,
    data: &[u8],
) -> Result<Level, TextureError> {
    let (w, h, d) = (sub.width, sub.height, sub.depth);
    let count = u64::from(w) * u64::from(h) * u64::from(d);
    // Bounded by MAX_DECODED_TEXELS (checked by the caller) and backed by `data`.
    let mut texels = vec![[0.0f32; 4]; count as usize];
    let bytes = u64::from(format.block_bytes());
    let missing = || TextureError::MissingMemory {
        unit,
        location,
        offset: base.wrapping_add(sub.offset as u32),
        len: data.len() as u32,
        layer: sub.layer as u8,
        level: sub.level as u16,
    };
    let row = u64::from(w);
    let offsets = BlockOffsets::new(sub, bytes, row);
    let words = sub
        .word_layout(bytes)
        .map(|w| BlockOffsets::new(&w, 4, row * (bytes / 4)));
    // The block at column `bx` of the row whose offset is `at_row` (`BlockOffsets::row`).
    let block_at = |bx: u64, at_row: RowStart| -> Option<&[u8]> {
        let off = usize::try_from(offsets.at(at_row, bx)?).ok()?;
        data.get(off..off.checked_add(bytes as usize)?)
    };
    // One band: four rows (a row of DXT blocks) of one depth slice; `y0` its first row.
    let band = |z: u64, y0: u64, out: &mut [[f32; 4]]| -> Result<(), TextureError> {
        let rows = out.len() as u64 / row.max(1);
        let mut put = |x: u64, y: u64, v: [f32; 4]| {
            if x < row && y >= y0 && y < y0 + rows {
                if let Some(dst) = out.get_mut(((y - y0) * row + x) as usize) {
                    *dst = remap.apply(v);
                }
            }
        };
        if format.is_dxt() {
            let decode: fn(&[u8]) -> Option<dxt::Block> = match format {
                TexelFormat::Dxt1 => dxt::dxt1,
                TexelFormat::Dxt23 => dxt::dxt3,
                _ => dxt::dxt5,
            };
            let by = y0 / 4;
            let at_row = offsets.row(by, z);
            for bx in 0..row.div_ceil(4) {
                let block = block_at(bx, at_row).and_then(decode).ok_or_else(missing)?;
                for (i, t) in block.iter().enumerate() {
                    put(bx * 4 + (i as u64 % 4), by * 4 + (i as u64 / 4), *t);
                }
            }
        } else if format.is_texel_pair() {
            for y in y0..y0 + rows {
                let at_row = offsets.row(y, z);
                for bx in 0..row.div_ceil(2) {
                    let pair = block_at(bx, at_row)
                        .and_then(|b| format.decode_pair(b))
                        .ok_or_else(missing)?;
                    for (i, slots) in pair.iter().enumerate() {
                        put(bx * 2 + i as u64, y, *slots);
                    }
                }
            }
        } else if let Some(words) = &words {
            // A swizzled texel of 8 or 16 bytes is k 4-byte words apart (`word_layout`).
            let k = bytes / 4;
            for y in y0..y0 + rows {
                let at_row = words.row(y, z);
                for x in 0..row {
                    let mut texel = [0u8; 16];
                    for j in 0..k {
                        let off = words
                            .at(at_row, x * k + j)
                            .and_then(|o| usize::try_from(o).ok())
                            .and_then(|o| data.get(o..o.checked_add(4)?))
                            .ok_or_else(missing)?;
                        texel[(j * 4) as usize..(j * 4 + 4) as usize].copy_from_slice(off);
                    }
                    let slots = format
                        .decode_texel(&texel[..bytes as usize])
                        .ok_or_else(missing)?;
                    put(x, y, slots);
                }
            }
        } else {
            for y in y0..y0 + rows {
                let at_row = offsets.row(y, z);
                for x in 0..row {
                    let slots = block_at(x, at_row)
                        .and_then(|b| format.decode_texel(b))
                        .ok_or_else(missing)?;
                    put(x, y, slots);
                }
            }
        }
        Ok(())
    };
    let (slice, band_len) = ((row * u64::from(h)) as usize, (row * 4) as usize);
    let bands = |(z, plane): (usize, &mut [[f32; 4]])| -> Result<(), TextureError> {
        plane
            .chunks_mut(band_len.max(1))
            .enumerate()
            .try_for_each(|(b, out)| band(z as u64, b as u64 * 4, out))
    };
    if count >= PARALLEL_DECODE_TEXELS {
        // Bands in parallel (a large level on the frame's thread keeps the other cores idle
        // otherwise); every band fails alike when bytes are missing.
        texels
            .par_chunks_mut(slice.max(1))
            .enumerate()
            .try_for_each(|(z, plane)| {
                plane
                    .par_chunks_mut(band_len.max(1))
                    .enumerate()
                    .try_for_each(|(b, out)| band(z as u64, b as u64 * 4, out))
            })?;
    } else {
        texels
            .chunks_mut(slice.max(1))
            .enumerate()
            .try_for_each(bands)?;
    }
    Ok(Level {
        width: w,
        height: h,
        depth: d,
        texels,
    })
}
