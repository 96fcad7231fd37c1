//! Per-fragment operations of the CPU render, in the RSX (OpenGL) order: KIL, depth range
//! (clip or clamp, `SET_ZMIN_MAX_CONTROL`), alpha test on colour output 0, stencil test,
//! depth test, stencil update, then per target blending, colour mask and the write in the
//! target's format.
//!
//! Fixed-point targets receive colours quantised by the RSX's 8-bit write rule ([`color8`],
//! which clamps to [0, 1] first, GL 2.1 section 4.1.8) before blending; float targets are not
//! clamped. The depth test compares the values the buffer stores (the incoming depth
//! converted to the buffer's format, fixed-point or float), as the depth buffer does.
//! Targets are written in place: the surface memory lends their regions for the draw, whole
//! to one tile or split into the row bands of the draw's screen tiles ([`super::tiles`]),
//! which then run in parallel. Nothing here reads a pixel other than the fragment's own, so
//! the split changes no result.

use super::quads::QuadJob;
use crate::interp::fragment::LaneOutputs;
use crate::render::color8;
use crate::render::history::{FragmentOutcome, FragmentRecord, PixelEvent, PixelWatch};
use crate::render::msaa::alpha_to_coverage_keeps;
use crate::render::state::{ColorFormat, DepthFormat, DrawState, StencilFaceState};
use crate::render::surface::{
    bytes_per_pixel, decode, decode_depth, depth_bytes_per_pixel, depth_to_fixed, encode,
    encode_depth, LentRegions, SurfaceLayout, SurfaceMemory,
};
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::{ColorMask, Surface};

/// Where a target's bytes lie during a draw: a region lent by the surface memory, and the
/// offset of the target's range in it.
#[derive(Clone, Copy, Debug)]
struct Place {
    region: usize,
    from: usize,
    len: usize,
}

/// A colour target for the duration of a draw.
pub struct ColorTarget {
    /// Where it lives.
    pub layout: SurfaceLayout,
    /// Format.
    pub format: ColorFormat,
    place: Place,
}

/// The depth/stencil target for the duration of a draw.
pub struct DepthTarget {
    /// Where it lives.
    pub layout: SurfaceLayout,
    /// Format.
    pub format: DepthFormat,
    place: Place,
}

/// The targets a draw writes, in place: the surface memory lends the regions holding them
/// ([`SurfaceMemory::lend`]) and gets them back, written, from [`Targets::store`]. No target
/// is copied per draw.
pub struct Targets {
    /// Colour targets by output index.
    pub colors: Vec<ColorTarget>,
    /// Depth/stencil.
    pub depth: Option<DepthTarget>,
    lent: LentRegions,
}

impl Targets {
    /// Load the colour targets of `state` and the zeta surface when depth or stencil is
    /// tested. Errors are messages for the skipped-draw list.
    pub fn load(
        state: &DrawState,
        surface: &Surface,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
    ) -> Result<Targets, String> {
        let mut layouts = Vec::new();
        if let Some(format) = state.color_format {
            for &t in &state.color_targets {
                let layout = SurfaceLayout::of_target(surface, t, bytes_per_pixel(format))
                    .map_err(|e| e.to_string())?;
                layouts.push((layout, format, t));
            }
        }
        let depth_layout = match state.depth_format {
            Some(format) if state.reads_depth_buffer() => Some((
                SurfaceLayout::of_target(surface, 4, depth_bytes_per_pixel(format))
                    .map_err(|e| e.to_string())?,
                format,
            )),
            _ => None,
        };
        let named = layouts
            .iter()
            .map(|(l, _, t)| (l, format!("colour target {t}")))
            .chain(
                depth_layout
                    .iter()
                    .map(|(l, _)| (l, "depth target".to_string())),
            );
        let mut ranges = Vec::new();
        for (layout, name) in named {
            // `lend` refuses a range past the address space; name the target it is.
            let len = u32::try_from(layout.byte_len())
                .ok()
                .filter(|&len| u64::from(layout.offset) + u64::from(len) <= 1 << 32)
                .ok_or_else(|| format!("{name} does not fit in memory"))?;
            ranges.push((layout.location, layout.offset, len));
        }
        let (lent, places) = surfaces
            .lend(&ranges, base)
            .ok_or_else(|| "the targets do not fit in memory".to_string())?;
        let place = |k: usize| Place {
            region: places[k].0,
            from: places[k].1,
            len: ranges[k].2 as usize,
        };
        let colors: Vec<ColorTarget> = layouts
            .into_iter()
            .enumerate()
            .map(|(k, (layout, format, _))| ColorTarget {
                layout,
                format,
                place: place(k),
            })
            .collect();
        let depth = depth_layout.map(|(layout, format)| DepthTarget {
            layout,
            format,
            place: place(colors.len()),
        });
        Ok(Targets {
            colors,
            depth,
            lent,
        })
    }

    /// Give the written targets back to the surface memory.
    pub fn store(self, surfaces: &mut SurfaceMemory) {
        surfaces.give_back(self.lent);
    }

    /// The targets as one tile spanning them (the serial path): every pixel reached through
    /// the lent regions, so targets that share bytes stay in fragment order.
    pub fn whole(&mut self) -> TileTargets<'_> {
        TileTargets {
            colors: &self.colors,
            depth: self.depth.as_ref(),
            memory: Memory::Whole(&mut self.lent),
            watch: None,
        }
    }

    /// The targets split into the surface rows of `bands` (`y0..y1`, ascending, disjoint),
    /// one [`TileTargets`] per band holding only that band's bytes of each target, for the
    /// bands to be written in parallel. `None` when the bytes of two bands or two targets
    /// could overlap: a swizzled target (a band is not one byte range of it), or targets
    /// that share bytes (e.g. a depth buffer aliasing a colour target); such draws stay on
    /// [`whole`](Self::whole).
    pub fn split(&mut self, bands: &[(u32, u32)]) -> Option<Vec<TileTargets<'_>>> {
        let layouts: Vec<(&SurfaceLayout, Place)> = self
            .colors
            .iter()
            .map(|c| (&c.layout, c.place))
            .chain(self.depth.iter().map(|d| (&d.layout, d.place)))
            .collect();
        // Every (band, target) piece: its region and byte range there.
        let mut pieces = Vec::new();
        for (b, &(y0, y1)) in bands.iter().enumerate() {
            for (k, (layout, place)) in layouts.iter().enumerate() {
                if layout.swizzle.is_some() {
                    return None;
                }
                let pitch = layout.pitch as usize;
                let rows = |y: u32| y.min(layout.height) as usize;
                let start = rows(y0).checked_mul(pitch)?.min(place.len);
                let end = rows(y1).checked_mul(pitch)?.min(place.len);
                if start < end {
                    let at = place.from.checked_add(start)?;
                    pieces.push((place.region, at, at + (end - start), b, k, start));
                }
            }
        }
        pieces.sort_unstable_by_key(|p| (p.0, p.1));
        if pieces
            .windows(2)
            .any(|w| w[0].0 == w[1].0 && w[0].2 > w[1].1)
        {
            return None;
        }
        let mut tiles: Vec<TileTargets<'_>> = bands
            .iter()
            .map(|_| TileTargets {
                colors: &self.colors,
                depth: self.depth.as_ref(),
                memory: Memory::Bands((0..layouts.len()).map(|_| None).collect()),
                watch: None,
            })
            .collect();
        let mut regions: Vec<Option<&mut [u8]>> =
            self.lent.all_bytes_mut().into_iter().map(Some).collect();
        let mut consumed = vec![0usize; regions.len()];
        for (region, from, to, b, k, start) in pieces {
            let rest = regions.get_mut(region)?.take()?;
            let done = consumed.get_mut(region)?;
            let (_, rest) = rest.split_at_mut_checked(from.checked_sub(*done)?)?;
            let (mine, rest) = rest.split_at_mut_checked(to - from)?;
            *done = to;
            *regions.get_mut(region)? = Some(rest);
            if let Some(Memory::Bands(slots)) = tiles.get_mut(b).map(|t| &mut t.memory) {
                *slots.get_mut(k)? = Some((mine, start));
            }
        }
        Some(tiles)
    }
}

/// How a tile reaches its targets' bytes.
enum Memory<'a> {
    /// The lent regions whole.
    Whole(&'a mut LentRegions),
    /// Per target (colours by output index, then depth), the tile's bytes of it and their
    /// offset from the target's first byte; `None` when the tile holds none of it.
    Bands(Vec<Option<(&'a mut [u8], usize)>>),
}

/// The targets of one tile of a draw ([`Targets::whole`], [`Targets::split`]), where its
/// fragments go through the per-fragment operations.
pub struct TileTargets<'a> {
    colors: &'a [ColorTarget],
    depth: Option<&'a DepthTarget>,
    memory: Memory<'a>,
    watch: Option<&'a PixelWatch>,
}

/// Where a fragment comes from, for a watched pixel's history.
#[derive(Clone, Copy, Debug)]
pub struct FragmentSource {
    /// Its raster primitive.
    pub primitive: u32,
    /// Whether that primitive is front facing.
    pub front: bool,
}

impl<'a> TileTargets<'a> {
    /// The depth target's stored depth (fixed point) at surface pixel (`sx`, `sy`), and its
    /// format; `None` without a depth target or outside the tile.
    pub fn stored_depth(&mut self, sx: u32, sy: u32) -> Option<(u32, DepthFormat)> {
        let d = self.depth?;
        let at = d.layout.pixel_offset(sx, sy)?;
        let px = self.pixel(self.colors.len(), &d.place, at, d.layout.bpp)?;
        decode_depth(d.format, px).map(|(z, _)| (z, d.format))
    }

    /// Whether there is a depth target and it shares no byte with a colour target, so that
    /// only depth and stencil updates change its bytes.
    pub fn depth_is_separate(&self) -> bool {
        let Some(d) = self.depth else {
            return false;
        };
        let end = |p: &Place| p.from.saturating_add(p.len);
        self.colors.iter().all(|c| {
            c.place.region != d.place.region
                || end(&c.place) <= d.place.from
                || end(&d.place) <= c.place.from
        })
    }

    /// The `bpp` bytes of target `k` (colours, then depth) at byte offset `at` from its
    /// first byte; `place` locates the target in the lent regions.
    fn pixel(&mut self, k: usize, place: &Place, at: usize, bpp: u32) -> Option<&mut [u8]> {
        let n = bpp as usize;
        let end = at.checked_add(n)?;
        match &mut self.memory {
            Memory::Whole(lent) => lent
                .bytes_mut(place.region)?
                .get_mut(place.from..place.from.checked_add(place.len)?)?
                .get_mut(at..end),
            Memory::Bands(slots) => {
                let (bytes, start) = slots.get_mut(k)?.as_mut()?;
                let from = at.checked_sub(*start)?;
                bytes.get_mut(from..end - *start)
            }
        }
    }

    /// Records the fragments that land on `watch`'s pixel ([`crate::render::history`]).
    pub fn set_watch(&mut self, watch: Option<&'a PixelWatch>) {
        self.watch = watch;
    }

    /// Whether a covered lane of `job` lands on the watched pixel (window pixel + `offset` =
    /// surface pixel); false when nothing is watched.
    pub fn watches_quad(&self, job: &QuadJob, (ox, oy): (u32, u32)) -> bool {
        self.watch.is_some_and(|watch| {
            job.lanes.iter().enumerate().any(|(l, lane)| {
                let (x, y) = job.pixel(l);
                lane.is_some()
                    && self
                        .watched_at(watch, x.saturating_add(ox), y.saturating_add(oy))
                        .is_some()
            })
        })
    }

    /// Where surface pixel (`sx`, `sy`) lands on `watch`'s pixel: the colour output whose
    /// target puts it there (`None` for the depth target of a depth watch) and the sample.
    fn watched_at(&self, watch: &PixelWatch, sx: u32, sy: u32) -> Option<(Option<usize>, usize)> {
        if watch.is_depth() {
            self.depth
                .and_then(|d| Some((None, watch.sample_at(&d.layout, sx, sy)?)))
        } else {
            self.colors
                .iter()
                .enumerate()
                .find_map(|(n, t)| Some((Some(n), watch.sample_at(&t.layout, sx, sy)?)))
        }
    }

    /// Run the per-fragment operations for one covered, shaded lane at surface pixel
    /// (`sx`, `sy`) with window depth `z`, from `source`; what happened to it.
    /// The pixel must lie in the tile's rows (others are dropped).
    pub fn fragment(
        &mut self,
        state: &DrawState,
        sx: u32,
        sy: u32,
        z: WindowDepth,
        source: FragmentSource,
        out: &LaneOutputs,
    ) -> FragmentOutcome {
        if let Some(watch) = self.watch {
            if let Some((output, sample)) = self.watched_at(watch, sx, sy) {
                let before = self.watched_values(output, sx, sy);
                let outcome = self.operations(state, sx, sy, z, source.front, out);
                let after = self.watched_values(output, sx, sy);
                watch.record(PixelEvent::Fragment(FragmentRecord {
                    draw: watch.draw(),
                    primitive: source.primitive,
                    front: source.front,
                    sample,
                    output,
                    surface_pixel: (sx, sy),
                    window_pixel: (
                        sx.saturating_sub(state.window_offset.0),
                        sy.saturating_sub(state.window_offset.1),
                    ),
                    shader: out
                        .colors
                        .get(output.unwrap_or(0))
                        .copied()
                        .unwrap_or_default()
                        .map(|v| v as f32),
                    depth: fragment_depth(state, z, out),
                    outcome,
                    before: before.0,
                    after: after.0,
                    depth_before: before.1,
                    depth_after: after.1,
                    stencil_before: before.2,
                    stencil_after: after.2,
                }));
                return outcome;
            }
        }
        self.operations(state, sx, sy, z, source.front, out)
    }

    /// Colour target `output`'s value at (`sx`, `sy`) (none for `None`), and the depth and
    /// stencil there.
    fn watched_values(
        &mut self,
        output: Option<usize>,
        sx: u32,
        sy: u32,
    ) -> (Option<[f32; 4]>, Option<f32>, Option<u8>) {
        let colors = self.colors;
        let color = output.and_then(|n| {
            let t = colors.get(n)?;
            let at = t.layout.pixel_offset(sx, sy)?;
            let px = self.pixel(n, &t.place, at, t.layout.bpp)?;
            decode(t.format, px)
        });
        let zs = self.depth.and_then(|d| {
            let at = d.layout.pixel_offset(sx, sy)?;
            let px = self.pixel(colors.len(), &d.place, at, d.layout.bpp)?;
            let (z, s) = decode_depth(d.format, px)?;
            Some((
                crate::render::surface::fixed_to_depth(d.format, z),
                d.format.has_stencil().then_some(s),
            ))
        });
        (color, zs.map(|z| z.0), zs.and_then(|z| z.1))
    }

    /// The per-fragment operations of one fragment; what happened to it.
    fn operations(
        &mut self,
        state: &DrawState,
        sx: u32,
        sy: u32,
        z: WindowDepth,
        front: bool,
        out: &LaneOutputs,
    ) -> FragmentOutcome {
        if out.killed {
            return FragmentOutcome::Killed;
        }
        if state.sample_mask.is_some_and(|m| !m.covers(sx, sy)) {
            return FragmentOutcome::SampleMask;
        }
        let Some(z) = fragment_depth(state, z, out) else {
            return FragmentOutcome::DepthClip;
        };
        // On a fixed-point target the alpha test and alpha to coverage see the alpha after the
        // 8-bit write rule (RPCS3's ROP epilogue rounds colour 0 before both,
        // `RSXROPEpilogue.glsl`).
        let alpha = || {
            let alpha = out.colors[0][3] as f32;
            if state.takes_8bit_rule() {
                color8::quantise(alpha)
            } else {
                alpha
            }
        };
        if let Some(at) = &state.alpha_test {
            if !at.func.test(alpha(), at.reference) {
                return FragmentOutcome::AlphaTest;
            }
        }
        if state.alpha_to_coverage && !alpha_to_coverage_keeps(alpha(), sx, sy) {
            return FragmentOutcome::AlphaToCoverage;
        }
        if let Some(d) = self.depth {
            // A pixel outside the depth target is dropped (no such fragment reaches here: the
            // draw's bounds lie inside its targets).
            let Some(at) = d.layout.pixel_offset(sx, sy) else {
                return FragmentOutcome::DepthTest;
            };
            let Some(px) = self.pixel(self.colors.len(), &d.place, at, d.layout.bpp) else {
                return FragmentOutcome::DepthTest;
            };
            if !depth_bounds(state, d, px) {
                return FragmentOutcome::DepthBounds;
            }
            match depth_stencil(state, d, px, z, front) {
                ZsResult::Pass => {}
                ZsResult::StencilFail => return FragmentOutcome::StencilTest,
                ZsResult::DepthFail => return FragmentOutcome::DepthTest,
            }
        }
        let colors = self.colors;
        for (n, target) in colors.iter().enumerate() {
            let mut src = out
                .colors
                .get(n)
                .copied()
                .unwrap_or_default()
                .map(|v| v as f32);
            if state.alpha_to_one {
                src[3] = 1.0;
            }
            if state.srgb_output {
                // An sRGB framebuffer encodes R, G, B first (`DrawState::srgb_output`).
                for c in &mut src[..3] {
                    *c = color8::linear_to_srgb(*c);
                }
            }
            let blend = state
                .blend
                .as_ref()
                .filter(|b| b.enabled.get(n).copied().unwrap_or(false));
            let mask = state.color_masks.get(n).copied().unwrap_or(ColorMask {
                r: true,
                g: true,
                b: true,
                a: true,
            });
            let Some(at) = target.layout.pixel_offset(sx, sy) else {
                continue;
            };
            if let Some(px) = self.pixel(n, &target.place, at, target.layout.bpp) {
                write_color(target, px, src, blend, mask, state.logic_op);
            }
        }
        FragmentOutcome::Written
    }
}

/// A fragment's window depth: interpolated over its primitive, and the polygon offset the
/// primitive adds to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowDepth {
    /// The primitive's window z at the fragment.
    pub interpolated: f32,
    /// The polygon offset (0 when off).
    pub offset: f32,
}

impl WindowDepth {
    /// The depth with the polygon offset.
    pub fn with_offset(self) -> f32 {
        self.interpolated + self.offset
    }
}

/// The depth a fragment at window depth `z` is tested and written with: `None` when the depth
/// range clips it (RPCS3 clips primitives at the near and far planes), else the depth the
/// program exports, clamped only by the clamp bit, or the window depth after the range.
fn fragment_depth(state: &DrawState, z: WindowDepth, out: &LaneOutputs) -> Option<f32> {
    let z = depth_range(state, z)?;
    Some(out.depth.map_or(z, |d| exported_depth(state, d as f32)))
}

/// The fragment's window depth after the depth range (`SET_ZMIN_MAX_CONTROL`): `None` when
/// clipped, else with the polygon offset, clamped to the range by the clamp bit.
///
/// The clip tests the interpolated depth, before the offset: the range clips the primitive,
/// and the offset is added to the depth of the fragments rasterized from what is left (GL 4.6
/// 14.6.5; RPCS3 hands the clip to the host's clipper and the offset to its depth bias, and
/// clamps with the host's depth clamp, after the bias). A fragment the offset moves out of
/// the range is drawn; the depth format saturates it.
pub fn depth_range(state: &DrawState, z: WindowDepth) -> Option<f32> {
    let (lo, hi) = state.depth_range;
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    if state.depth_clamp {
        Some(z.with_offset().clamp(lo, hi))
    } else if state.depth_clip && !(z.interpolated >= lo && z.interpolated <= hi) {
        None
    } else {
        Some(z.with_offset())
    }
}

/// A depth the fragment program exports: clamped to the depth range when the clamp bit is set,
/// otherwise as it is (the depth format's conversion saturates it).
pub fn exported_depth(state: &DrawState, z: f32) -> f32 {
    let (lo, hi) = state.depth_range;
    if state.depth_clamp {
        z.clamp(lo.min(hi), lo.max(hi))
    } else {
        z
    }
}

/// The depth bounds test (`DrawState::depth_bounds`) on the depth stored in `px`: true when
/// it is off or the stored depth lies inside the bounds.
fn depth_bounds(state: &DrawState, d: &DepthTarget, px: &[u8]) -> bool {
    let Some((lo, hi)) = state.depth_bounds else {
        return true;
    };
    let Some((stored, _)) = decode_depth(d.format, px) else {
        return false;
    };
    let z = crate::render::surface::fixed_to_depth(d.format, stored);
    z >= lo && z <= hi
}

/// A GL logic operation (0x1500 CLEAR .. 0x150F SET) of source `s` and destination `d`.
fn logic(op: u32, s: u8, d: u8) -> u8 {
    match op & 0xF {
        0x0 => 0,
        0x1 => s & d,
        0x2 => s & !d,
        0x3 => s,
        0x4 => !s & d,
        0x5 => d,
        0x6 => s ^ d,
        0x7 => s | d,
        0x8 => !(s | d),
        0x9 => !(s ^ d),
        0xA => !d,
        0xB => s | !d,
        0xC => !s,
        0xD => !s | d,
        0xE => !(s & d),
        _ => 0xFF,
    }
}

/// Stencil and depth tests with their updates on the pixel's bytes `px`; true when the
/// fragment survives.
/// What the stencil and depth tests decided.
enum ZsResult {
    Pass,
    StencilFail,
    DepthFail,
}

fn depth_stencil(
    state: &DrawState,
    d: &DepthTarget,
    px: &mut [u8],
    z: f32,
    front: bool,
) -> ZsResult {
    let Some((stored_z, stored_s)) = decode_depth(d.format, px) else {
        return ZsResult::DepthFail;
    };
    let incoming = depth_to_fixed(d.format, z);
    let face: Option<&StencilFaceState> =
        state
            .stencil
            .as_ref()
            .map(|s| if front { &s.front } else { &s.back });
    let mut stencil = stored_s;
    if let Some(f) = face {
        if !f.passes(stored_s) {
            stencil = f.update(stored_s, f.fail);
            encode_depth(d.format, stored_z, stencil, px);
            return ZsResult::StencilFail;
        }
    }
    let depth_pass = match &state.depth_test {
        Some(t) => t.func.test(incoming, stored_z),
        None => true,
    };
    if let Some(f) = face {
        stencil = f.update(stored_s, if depth_pass { f.zpass } else { f.zfail });
    }
    let new_z = if depth_pass && state.depth_test.is_some() && state.depth_write {
        incoming
    } else {
        stored_z
    };
    encode_depth(d.format, new_z, stencil, px);
    if depth_pass {
        ZsResult::Pass
    } else {
        ZsResult::DepthFail
    }
}

fn write_color(
    target: &ColorTarget,
    px: &mut [u8],
    src: [f32; 4],
    blend: Option<&crate::render::state::BlendSettings>,
    mask: ColorMask,
    logic_op: Option<u32>,
) {
    let fixed = !target.format.is_float();
    let src = if color8::applies_to(target.format) {
        // The 8-bit write rule before blending on every fixed-point target, as RPCS3's
        // fragment epilogue applies it (render::color8); it includes the clamp.
        src.map(color8::quantise)
    } else {
        src
    };
    let dst = decode(target.format, px).unwrap_or_default();
    let mut color = match (logic_op, blend) {
        // A logic operation replaces blending on a fixed-point target, bit by bit on the
        // stored bytes (`DrawState::logic_op`).
        (Some(op), _) if fixed => {
            let s = encode(target.format, src);
            let mut bytes = [0u8; 16];
            let n = px.len().min(16);
            for ((b, &s), &d) in bytes.iter_mut().zip(s.as_bytes()).zip(px.iter()) {
                *b = logic(op, s, d);
            }
            decode(target.format, &bytes[..n]).unwrap_or(dst)
        }
        (_, Some(b)) => b.blend(src, dst),
        _ => src,
    };
    let keep = [!mask.r, !mask.g, !mask.b, !mask.a];
    for k in 0..4 {
        if keep[k] {
            color[k] = dst[k];
        }
    }
    // Masked channels are re-encoded from their decoded value: exact, since decoding then
    // encoding a stored channel gives it back in every format.
    px.copy_from_slice(encode(target.format, color).as_bytes());
}
