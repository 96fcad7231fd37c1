//! Render targets: every target of a frame with who renders into it and who samples it
//! ([`frame_targets`], `rsxtrace targets`), and any one of them as an image: the colour or
//! depth surface at an address, laid out as the last draw that renders into it lays it out
//! ([`target_at`]), read from the memory a render shows an observer when it ends
//! ([`TargetGrab`]) and decoded to 8-bit RGBA, resolved when multisampled: a colour target as
//! the renderers show their output, a depth surface as grey levels fitted to its range
//! ([`depth_grey`]), as RenderDoc shows a depth target, or its stencil as grey levels fitted
//! to the stencil values present ([`stencil_grey`]; [`NamedTarget::stencil`]): [`target_image`],
//! and [`target_bits`] for telling two states apart. `replay --target` writes one; the report
//! pictures each draw's targets with the same functions.

use crate::render::msaa::{resolve, Antialias};
use crate::render::observe::DrawObserver;
use crate::render::state::{color_targets, ColorFormat, DepthFormat, FrameEvents};
use crate::render::surface::{
    bytes_per_pixel, decode_depth, depth_bytes_per_pixel, fixed_to_depth, output_surface, to_rgba8,
    SurfaceLayout,
};
use crate::render::Rgba8Image;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::{RasterState, StencilFace, Surface};
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_capture::rrc::{compression_name, Location};
use serde::Serialize;
use std::collections::HashMap;

/// What a target holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetFormat {
    /// A colour target in this format.
    Color(ColorFormat),
    /// A depth (zeta) surface in this format.
    Depth(DepthFormat),
    /// The stencil of a depth surface in this format (the low 8 bits of each pixel).
    Stencil(DepthFormat),
}

impl TargetFormat {
    /// The format's lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            TargetFormat::Color(f) => f.name(),
            TargetFormat::Depth(f) | TargetFormat::Stencil(f) => f.name(),
        }
    }

    /// Whether it is a depth surface (or its stencil).
    pub fn is_depth(self) -> bool {
        matches!(self, TargetFormat::Depth(_) | TargetFormat::Stencil(_))
    }

    /// Whether it is the stencil of a depth surface.
    pub fn is_stencil(self) -> bool {
        matches!(self, TargetFormat::Stencil(_))
    }
}

/// Index of the depth surface among a surface's targets (colour targets are 0..4, A..D).
pub const DEPTH_TARGET: usize = 4;

/// Index of the depth surface's stencil ([`NamedTarget::stencil`]).
pub const STENCIL_TARGET: usize = 5;

/// One of a surface's targets: a colour target or its depth surface, where it lies and how it
/// reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedTarget {
    /// Which: 0..4 = colour target A..D, [`DEPTH_TARGET`] = the depth surface,
    /// [`STENCIL_TARGET`] = its stencil.
    pub index: usize,
    /// Its layout (a multisampled surface's holds its sample grid).
    pub layout: SurfaceLayout,
    /// Colour or depth, and the format.
    pub format: TargetFormat,
    /// Its sample grid.
    pub antialias: Antialias,
}

impl NamedTarget {
    /// The stencil of this depth surface, when its format has one.
    pub fn stencil(self) -> Option<NamedTarget> {
        match self.format {
            TargetFormat::Depth(f) if f.has_stencil() => Some(NamedTarget {
                index: STENCIL_TARGET,
                format: TargetFormat::Stencil(f),
                ..self
            }),
            _ => None,
        }
    }
}

/// Whether a draw reads or writes its depth surface: its depth, stencil or depth bounds test
/// is on (the same rule as `DrawState::reads_depth_buffer`, on the undecoded state).
pub fn uses_depth_surface(raster: &RasterState) -> bool {
    raster.depth.test || raster.stencil.enabled || raster.depth_bounds.enabled
}

/// Whether a draw can change its depth surface's stencil: the stencil test is on, and a face
/// the draw renders (the front, and the back with two-sided stencil) has a write mask and an
/// operation other than KEEP (0x1E00).
pub fn writes_stencil(raster: &RasterState) -> bool {
    let s = &raster.stencil;
    let writes = |f: &StencilFace| {
        f.write_mask & 0xFF != 0 && [f.fail, f.zfail, f.zpass].iter().any(|op| op.raw != 0x1E00)
    };
    s.enabled && (writes(&s.front) || (s.two_sided && writes(&s.back)))
}

/// Whether a draw writes colour: its surface selects a colour target and one of the colour
/// mask's channels is on (a depth pre-pass, an occlusion query or a stencil volume writes
/// none). The index's pass classes and the frame statistics' passes use it.
pub fn writes_colour(draw: &Draw) -> bool {
    let m = &draw.raster.color_mask;
    draw.surface.color_target.raw != 0 && (m.r || m.g || m.b || m.a)
}

/// Whether a surface has the shape of a shadow map: a square clip (width = height, not 0).
/// A draw that writes no colour into it is shadow-like.
pub fn shadow_shaped(surface: &Surface) -> bool {
    surface.clip.width == surface.clip.height && surface.clip.width > 0
}

/// The colour targets `surface` selects, in the selection's order, each or why it cannot be
/// read (a layout the renderers refuse); `Err` when the selection is none of the RSX's or the
/// colour format is unknown.
pub fn colour_targets_of(surface: &Surface) -> Result<Vec<Result<NamedTarget, String>>, String> {
    let raw = surface.color_target.raw;
    let targets = color_targets(raw)
        .ok_or_else(|| format!("SET_SURFACE_COLOR_TARGET 0x{raw:x} is no target selection"))?;
    if targets.is_empty() {
        return Ok(Vec::new());
    }
    let raw = surface.format.color_format.raw;
    let format =
        ColorFormat::from_raw(raw).ok_or_else(|| format!("colour format {raw} is unknown"))?;
    Ok(targets
        .into_iter()
        .map(|index| {
            let layout = SurfaceLayout::of_target(surface, index, bytes_per_pixel(format))
                .map_err(|e| e.to_string())?;
            Ok(NamedTarget {
                index,
                layout,
                format: TargetFormat::Color(format),
                antialias: Antialias::of(surface),
            })
        })
        .collect())
}

/// The depth surface of `surface`, or why it cannot be read.
pub fn depth_target_of(surface: &Surface) -> Result<NamedTarget, String> {
    let raw = surface.format.depth_format.raw;
    let format =
        DepthFormat::of(surface).ok_or_else(|| format!("depth format {raw} is unknown"))?;
    let layout = SurfaceLayout::of_target(surface, DEPTH_TARGET, depth_bytes_per_pixel(format))
        .map_err(|e| e.to_string())?;
    Ok(NamedTarget {
        index: DEPTH_TARGET,
        layout,
        format: TargetFormat::Depth(format),
        antialias: Antialias::of(surface),
    })
}

/// The targets a draw renders into that can be read: its colour targets, then its depth
/// surface when it [`uses_depth_surface`].
pub fn readable_targets(draw: &Draw) -> impl Iterator<Item = NamedTarget> {
    let colour = colour_targets_of(&draw.surface).unwrap_or_default();
    let depth = uses_depth_surface(&draw.raster).then(|| depth_target_of(&draw.surface));
    colour.into_iter().chain(depth).filter_map(Result::ok)
}

/// The colour target at `address` in `location` as the last draw that renders into it lays
/// it out, else the depth surface there (of any draw whose surface has one); `None` when no
/// draw renders into either.
pub fn target_at(frame: &Frame, location: Location, address: u32) -> Option<NamedTarget> {
    let here = |t: &NamedTarget| t.layout.location == location && t.layout.offset == address;
    let color = frame.draws.iter().rev().find_map(|draw| {
        colour_targets_of(&draw.surface)
            .ok()?
            .into_iter()
            .filter_map(Result::ok)
            .find(here)
    });
    color.or_else(|| depth_target_at(frame, location, address))
}

/// The frame's output image as a target (the colour target `replay` writes,
/// [`output_surface`]); `None` when no draw writes a usable colour target.
pub fn output_target(frame: &Frame, events: &FrameEvents) -> Option<NamedTarget> {
    let output = output_surface(frame, events)?;
    Some(NamedTarget {
        index: 0,
        layout: output.layout,
        format: TargetFormat::Color(output.format),
        antialias: output.antialias,
    })
}

/// The depth surface at `address` in `location` as the last draw whose surface has it there
/// lays it out; `None` when no draw's surface has its depth surface there.
pub fn depth_target_at(frame: &Frame, location: Location, address: u32) -> Option<NamedTarget> {
    frame.draws.iter().rev().find_map(|draw| {
        depth_target_of(&draw.surface)
            .ok()
            .filter(|t| t.layout.location == location && t.layout.offset == address)
    })
}

/// One render target of a frame: a colour target, or a depth surface a draw tests depth,
/// stencil or depth bounds against, with the draws that render into it and the later draws
/// that sample its bytes as a texture (render to texture).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameTarget {
    /// `local` or `main`.
    pub location: &'static str,
    /// Address of its pixel (0, 0).
    pub address: u32,
    /// Its format's name.
    pub format: &'static str,
    /// Whether it is a depth surface.
    pub depth: bool,
    /// Size as stored (a multisampled surface's sample grid), as the last draw that renders
    /// into it lays it out.
    pub width: u32,
    /// See `width`.
    pub height: u32,
    /// Row pitch in bytes.
    pub pitch: u32,
    /// Whether it is a swizzled surface.
    pub swizzled: bool,
    /// Draws that render into it.
    pub draws: usize,
    /// The first of them.
    pub first_draw: usize,
    /// The last of them.
    pub last_draw: usize,
    /// Whether it is the frame's output image (the surface `replay` writes).
    pub output: bool,
    /// For a depth surface with stencil, the draws among `draws` that can change its
    /// stencil ([`writes_stencil`]): what `replay --target --stencil` shows; 0 otherwise.
    pub stencil_writes: usize,
    /// Draws after its first that sample its bytes through an enabled fragment texture unit.
    pub sampled_by: usize,
    /// The first of them.
    pub first_sampled_by: Option<usize>,
    /// The tile region holding its first byte at the last draw that renders into it (the
    /// capture's tile state, `rsxtrace_capture::frame::regions`), or `None`.
    pub tile: Option<TargetTile>,
    /// For a depth surface, the Z-cull region bound to it at that draw (RPCS3's rule:
    /// `BoundRegions::zcull_of`), by index; `None` otherwise.
    pub zcull: Option<usize>,
}

/// The tile region a target lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TargetTile {
    /// Its index (0..15).
    pub index: usize,
    /// Its compression mode (`CELL_GCM_COMPMODE_*`).
    pub compression: u8,
    /// The mode's name (`C32_2X2`, ...), or `None` for an undocumented value.
    pub compression_name: Option<&'static str>,
}

/// Every render target of `frame`, in the order the frame first renders into them.
/// `output` is the frame's output surface, when it has one (`surface::output_surface`).
pub fn frame_targets(frame: &Frame, output: Option<&SurfaceLayout>) -> Vec<FrameTarget> {
    // Each target (by location, address and colour or depth) as the last draw lays it out,
    // with the draws that render into it: (target, draws, first, last, stencil writes).
    let mut seen: HashMap<(Location, u32, bool), usize> = HashMap::new();
    let mut rendered: Vec<(NamedTarget, usize, usize, usize, usize)> = Vec::new();
    for (index, draw) in frame.draws.iter().enumerate() {
        for target in readable_targets(draw) {
            let l = &target.layout;
            let key = (l.location, l.offset, target.format.is_depth());
            let at = *seen.entry(key).or_insert_with(|| {
                rendered.push((target, 0, index, index, 0));
                rendered.len() - 1
            });
            let stencil = matches!(target.format, TargetFormat::Depth(f) if f.has_stencil())
                && writes_stencil(&draw.raster);
            let entry = &mut rendered[at];
            *entry = (
                target,
                entry.1 + 1,
                entry.2,
                index,
                entry.4 + usize::from(stencil),
            );
        }
    }
    let mut targets: Vec<(FrameTarget, SurfaceLayout)> = rendered
        .into_iter()
        .map(|(t, draws, first_draw, last_draw, stencil_writes)| {
            let l = t.layout;
            let (tile, zcull) = target_regions(frame, last_draw, l.location, l.offset, t.format);
            let target = FrameTarget {
                location: l.location.name(),
                address: l.offset,
                format: t.format.name(),
                depth: t.format.is_depth(),
                width: l.width,
                height: l.height,
                pitch: l.pitch,
                swizzled: l.swizzle.is_some(),
                draws,
                first_draw,
                last_draw,
                output: output.is_some_and(|o| {
                    !t.format.is_depth() && o.location == l.location && o.offset == l.offset
                }),
                sampled_by: 0,
                first_sampled_by: None,
                stencil_writes,
                tile,
                zcull,
            };
            (target, l)
        })
        .collect();
    // Textures that read a target's bytes after it was first rendered.
    for (index, draw) in frame.draws.iter().enumerate() {
        for (t, l) in targets.iter_mut() {
            let end = u64::from(l.offset) + l.byte_len();
            let samples = draw.textures.iter().any(|texture| {
                texture.control0.enabled
                    && texture.location == Some(l.location)
                    && (u64::from(l.offset)..end).contains(&u64::from(texture.offset))
            });
            if samples && index > t.first_draw {
                t.first_sampled_by.get_or_insert(index);
                t.sampled_by += 1;
            }
        }
    }
    targets.into_iter().map(|(t, _)| t).collect()
}

/// The tile region holding `offset` of `location` and, for a depth surface, its Z-cull
/// region, as bound at draw `draw`.
fn target_regions(
    frame: &Frame,
    draw: usize,
    location: Location,
    offset: u32,
    format: TargetFormat,
) -> (Option<TargetTile>, Option<usize>) {
    let Some(draw) = frame.draws.get(draw) else {
        return (None, None);
    };
    let Some(bound) = frame.regions.at(draw.end_command) else {
        return (None, None);
    };
    let tile = bound.tile_at(location, offset).map(|t| TargetTile {
        index: t.index,
        compression: t.region.compression,
        compression_name: compression_name(t.region.compression),
    });
    let zcull = format
        .is_depth()
        .then(|| bound.zcull_of(&draw.surface).map(|z| z.index))
        .flatten();
    (tile, zcull)
}

/// The target in `memory` as 8-bit RGBA, resolved when multisampled (each pixel the mean of
/// its samples, as the output image is): a colour target decoded as the renderers decode
/// their output, a depth surface by [`depth_grey`]. Pixels memory does not hold are
/// transparent black.
pub fn target_image(target: &NamedTarget, memory: &dyn GuestMemory) -> Rgba8Image {
    let grid = match target.format {
        TargetFormat::Color(f) => to_rgba8(&target.layout, f, memory),
        TargetFormat::Depth(f) => depth_grey(&target.layout, f, memory),
        TargetFormat::Stencil(f) => stencil_grey(&target.layout, f, memory).0,
    };
    resolve(grid, target.antialias)
}

/// What tells two states of the target apart pixel by pixel, the size of [`target_image`]:
/// that image for a colour target, the stored bits for a depth surface ([`depth_bits`]) or
/// its stencil ([`stencil_bits`]), whose images' grey levels are fitted to each state's
/// values.
pub fn target_bits(target: &NamedTarget, memory: &dyn GuestMemory) -> Rgba8Image {
    let grid = match target.format {
        TargetFormat::Color(_) => return target_image(target, memory),
        TargetFormat::Depth(f) => depth_bits(&target.layout, f, memory),
        TargetFormat::Stencil(f) => stencil_bits(&target.layout, f, memory),
    };
    resolve(grid, target.antialias)
}

/// A depth surface as grey levels, as RenderDoc shows a depth target with its range fitted to
/// the values: each pixel's depth (the stored value read back as the renderers read it,
/// [`fixed_to_depth`]) scaled from the surface's lowest depth (black) to its highest (white),
/// opaque; a surface of one depth is mid grey. Pixels memory does not hold are transparent
/// black.
pub fn depth_grey(
    layout: &SurfaceLayout,
    format: DepthFormat,
    memory: &dyn GuestMemory,
) -> Rgba8Image {
    // Stored values order as their depths do (`depth_to_fixed`), so the range is found on
    // them; a unorm format's depth is linear in its stored value, so its grey is too.
    // A unorm depth is always finite: only a float format's values need the test.
    let unorm = !format.is_float();
    let (mut low, mut high) = (u32::MAX, 0u32);
    for_each_sample(layout, format, memory, |sample| {
        if let Some((fixed, _)) = sample {
            if unorm || fixed_to_depth(format, fixed).is_finite() {
                low = low.min(fixed);
                high = high.max(fixed);
            }
        }
    });
    let (depth_low, depth_high) = (fixed_to_depth(format, low), fixed_to_depth(format, high));
    let grey = |fixed: u32| -> Option<u8> {
        if high < low {
            return None;
        }
        if high == low {
            return (fixed == low).then_some(128);
        }
        if unorm {
            let (v, span) = (u64::from(fixed - low), u64::from(high - low));
            return Some(((v * 255 + span / 2) / span) as u8);
        }
        let d = fixed_to_depth(format, fixed);
        d.is_finite()
            .then(|| (((d - depth_low) / (depth_high - depth_low)) * 255.0).round() as u8)
    };
    sample_image(layout, format, memory, |fixed, _| {
        grey(fixed).map_or([0; 4], |g| [g, g, g, 255])
    })
}

/// The stored depth and stencil of each pixel as bytes (the depth's 24 bits, then the
/// stencil): what tells two states of a depth surface apart, where [`depth_grey`]'s fitted
/// grey levels would also change with the range.
pub fn depth_bits(
    layout: &SurfaceLayout,
    format: DepthFormat,
    memory: &dyn GuestMemory,
) -> Rgba8Image {
    sample_image(layout, format, memory, |fixed, stencil| {
        let [_, a, b, c] = fixed.to_be_bytes();
        [a, b, c, stencil]
    })
}

/// A depth surface's stencil as grey levels fitted to the values present (the lowest black,
/// the highest white, one value alone mid grey), opaque, and how many pixels (samples, when
/// multisampled) hold each value: stencil values are small numbers a game gives regions
/// (a mirror, a shadow volume's count), invisible as raw bytes. A format without stencil
/// reads as 0 everywhere. Pixels memory does not hold are transparent black and not counted.
pub fn stencil_grey(
    layout: &SurfaceLayout,
    format: DepthFormat,
    memory: &dyn GuestMemory,
) -> (Rgba8Image, [u64; 256]) {
    let mut counts = [0u64; 256];
    for_each_sample(layout, format, memory, |sample| {
        if let Some((_, stencil)) = sample {
            counts[usize::from(stencil)] += 1;
        }
    });
    let low = counts.iter().position(|&n| n > 0);
    let high = counts.iter().rposition(|&n| n > 0);
    let grey = |stencil: u8| -> u8 {
        match (low, high) {
            (Some(low), Some(high)) if high > low => {
                let (v, span) = (usize::from(stencil) - low, high - low);
                ((v * 255 + span / 2) / span) as u8
            }
            _ => 128,
        }
    };
    let image = sample_image(layout, format, memory, |_, stencil| {
        let g = grey(stencil);
        [g, g, g, 255]
    });
    (image, counts)
}

/// Each pixel's stored stencil as bytes (`[s, s, s, 255]`; memory that does not hold it,
/// transparent black): what tells two states of the stencil apart, where
/// [`stencil_grey`]'s fitted grey levels would also change with the values present.
pub fn stencil_bits(
    layout: &SurfaceLayout,
    format: DepthFormat,
    memory: &dyn GuestMemory,
) -> Rgba8Image {
    sample_image(layout, format, memory, |_, s| [s, s, s, 255])
}

/// An image of the surface, each pixel `pixel(stored depth, stencil)`; transparent black
/// where memory does not hold it.
fn sample_image(
    layout: &SurfaceLayout,
    format: DepthFormat,
    memory: &dyn GuestMemory,
    pixel: impl Fn(u32, u8) -> [u8; 4],
) -> Rgba8Image {
    let mut pixels = Vec::with_capacity(layout.width as usize * layout.height as usize * 4);
    for_each_sample(layout, format, memory, |sample| {
        pixels.extend_from_slice(&sample.map_or([0; 4], |(fixed, stencil)| pixel(fixed, stencil)));
    });
    Rgba8Image {
        width: layout.width,
        height: layout.height,
        pixels,
    }
}

/// Each pixel's stored depth and stencil, row by row, to `visit` (`None` where memory does not
/// hold it): a pitch surface's rows as slices of its bytes, a swizzled surface pixel by pixel.
fn for_each_sample(
    layout: &SurfaceLayout,
    format: DepthFormat,
    memory: &dyn GuestMemory,
    mut visit: impl FnMut(Option<(u32, u8)>),
) {
    let whole = u32::try_from(layout.byte_len())
        .ok()
        .and_then(|len| memory.read(layout.location, layout.offset, len));
    let bpp = layout.bpp as usize;
    let width = layout.width as usize;
    for y in 0..layout.height {
        let row = match (&whole, layout.swizzle) {
            (Some(bytes), None) => {
                let start = y as usize * layout.pitch as usize;
                bytes.get(start..start + width * bpp)
            }
            _ => None,
        };
        if let Some(row) = row {
            for pixel in row.chunks_exact(bpp) {
                visit(decode_depth(format, pixel));
            }
            continue;
        }
        for x in 0..layout.width {
            visit(
                whole
                    .as_deref()
                    .zip(layout.pixel_offset(x, y))
                    .and_then(|(bytes, at)| bytes.get(at..at + bpp))
                    .and_then(|b| decode_depth(format, b)),
            );
        }
    }
}

/// An observer that reads one target when the frame's render ends (after the last draw and
/// the clears and transfers after it): [`TargetGrab::image`].
#[derive(Debug)]
pub struct TargetGrab {
    target: NamedTarget,
    image: Option<Rgba8Image>,
    stencil_counts: Option<[u64; 256]>,
}

impl TargetGrab {
    /// A grab of `target` ([`target_at`], or a depth surface's [`NamedTarget::stencil`]).
    pub fn new(target: NamedTarget) -> TargetGrab {
        TargetGrab {
            target,
            image: None,
            stencil_counts: None,
        }
    }

    /// The target at the end of the render; `None` before the render ended.
    pub fn image(&self) -> Option<&Rgba8Image> {
        self.image.as_ref()
    }

    /// For a stencil grab, the stencil values at the end of the render with the pixels (of a
    /// multisampled surface, the samples) holding each, lowest value first.
    pub fn stencil_values(&self) -> Option<Vec<(u8, u64)>> {
        let counts = self.stencil_counts.as_ref()?;
        Some(
            (0u8..=255)
                .zip(counts.iter().copied())
                .filter(|&(_, n)| n > 0)
                .collect(),
        )
    }
}

impl DrawObserver for TargetGrab {
    fn before(&mut self, _draw: usize, _memory: &dyn GuestMemory) {}
    fn after(&mut self, _draw: usize, _memory: &dyn GuestMemory) {}
    /// It looks only when the render ends: the GPU render reads nothing back around the
    /// draws for it.
    fn active(&self) -> bool {
        false
    }
    fn finished(&mut self, memory: &dyn GuestMemory) {
        match self.target.format {
            // The image and the counts from one pass over the stencil.
            TargetFormat::Stencil(format) => {
                let (grid, counts) = stencil_grey(&self.target.layout, format, memory);
                self.image = Some(resolve(grid, self.target.antialias));
                self.stencil_counts = Some(counts);
            }
            _ => self.image = Some(target_image(&self.target, memory)),
        }
    }
    fn replaces_the_output(&self) -> bool {
        true
    }
    fn looks_at_the_end(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::fetch::FlatMemory;

    fn z24s8_2x2() -> SurfaceLayout {
        SurfaceLayout {
            location: Location::Local,
            offset: 0,
            pitch: 8,
            bpp: 4,
            width: 2,
            height: 2,
            swizzle: None,
        }
    }

    /// Z24S8 big-endian words: depth << 8 | stencil.
    fn words(values: &[(u32, u8)]) -> Vec<u8> {
        values
            .iter()
            .flat_map(|&(d, s)| ((d << 8) | u32::from(s)).to_be_bytes())
            .collect()
    }

    #[test]
    fn depth_shows_as_grey_levels_fitted_to_its_range() {
        let full = 0xFF_FFFF;
        let memory = FlatMemory::local(words(&[
            (0x40_0000, 1),
            (full / 2, 2),
            (full, 3),
            (0x40_0000 + full / 4, 4),
        ]));
        let image = depth_grey(&z24s8_2x2(), DepthFormat::Z24S8, &memory);
        // 0.25 .. 1.0 fitted to black .. white; 0.5 lands a third of the way.
        assert_eq!(image.pixel(0, 0), Some([0, 0, 0, 255]));
        assert_eq!(image.pixel(0, 1), Some([255, 255, 255, 255]));
        for (x, y) in [(1, 0), (1, 1)] {
            let grey = image.pixel(x, y).unwrap()[0];
            assert!((84..=86).contains(&grey), "({x}, {y}): {grey}");
        }
        // The bits tell another stencil apart; the grey levels do not show it.
        let mut other = memory.bytes.clone();
        other[3] = 9;
        let other = FlatMemory::local(other);
        assert_eq!(depth_grey(&z24s8_2x2(), DepthFormat::Z24S8, &other), image);
        assert_ne!(
            depth_bits(&z24s8_2x2(), DepthFormat::Z24S8, &other),
            depth_bits(&z24s8_2x2(), DepthFormat::Z24S8, &memory)
        );
        // One depth everywhere: mid grey; memory that lacks the surface: transparent.
        let flat = FlatMemory::local(words(&[(full / 3, 0); 4]));
        let flat = depth_grey(&z24s8_2x2(), DepthFormat::Z24S8, &flat);
        assert!(flat.pixels.chunks(4).all(|p| p == [128, 128, 128, 255]));
        let missing = depth_grey(
            &z24s8_2x2(),
            DepthFormat::Z24S8,
            &FlatMemory::local(vec![0; 4]),
        );
        assert!(missing.pixels.iter().all(|&b| b == 0));
    }

    #[test]
    fn a_grab_reads_the_target_when_the_render_ends() {
        let memory = FlatMemory::local(words(&[(0, 0), (1, 0), (2, 0), (3, 0)]));
        let mut grab = TargetGrab::new(NamedTarget {
            index: DEPTH_TARGET,
            layout: z24s8_2x2(),
            format: TargetFormat::Depth(DepthFormat::Z24S8),
            antialias: Antialias::Center1,
        });
        grab.after(0, &memory);
        assert!(grab.image().is_none(), "only the end of the render counts");
        grab.finished(&memory);
        let image = grab.image().expect("grabbed");
        assert_eq!(image.pixel(1, 1), Some([255, 255, 255, 255]));
    }

    #[test]
    fn stencil_shows_as_grey_levels_fitted_to_its_values() {
        // Stencil 1, 3, 3, 2 under one depth: 1 black, 3 white, 2 half way; counted per value.
        let target = NamedTarget {
            index: DEPTH_TARGET,
            layout: z24s8_2x2(),
            format: TargetFormat::Depth(DepthFormat::Z24S8),
            antialias: Antialias::Center1,
        };
        let memory = FlatMemory::local(words(&[(7, 1), (7, 3), (7, 3), (7, 2)]));
        let mut grab = TargetGrab::new(target.stencil().expect("Z24S8 has stencil"));
        grab.finished(&memory);
        let image = grab.image().expect("grabbed");
        assert_eq!(image.pixel(0, 0), Some([0, 0, 0, 255]));
        assert_eq!(image.pixel(1, 0), Some([255, 255, 255, 255]));
        assert_eq!(image.pixel(1, 1), Some([128, 128, 128, 255]));
        assert_eq!(grab.stencil_values(), Some(vec![(1, 1), (2, 1), (3, 2)]));
        // One value everywhere: mid grey; a surface without stencil cannot be grabbed so.
        let (flat, counts) = stencil_grey(
            &z24s8_2x2(),
            DepthFormat::Z24S8,
            &FlatMemory::local(words(&[(0, 5); 4])),
        );
        assert!(flat.pixels.chunks(4).all(|p| p == [128, 128, 128, 255]));
        assert_eq!(counts[5], 4);
        let z16 = NamedTarget {
            format: TargetFormat::Depth(DepthFormat::Z16),
            ..target
        };
        assert!(z16.stencil().is_none());
        assert!(TargetGrab::new(target).stencil_values().is_none());
    }
}
