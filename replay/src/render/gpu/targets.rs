//! The surfaces on the device: [`DeviceTarget`], one colour or depth target with its place in
//! memory and format, filled from the frame's surface memory (what the capture holds, or what
//! earlier draws rendered there) and written back into it
//! ([`DeviceTarget::write_back`]); [`SurfaceSet`], the targets of the bound surface state
//! ([`SetKey`]), with the draws queued on them and clears drawn into them
//! ([`SurfaceSet::clear`]). When targets are written back, kept or dropped is
//! `resident.rs`'s business.

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::Surface;
use rsxtrace_capture::rrc::Location;
use rsxtrace_gpu::{
    ColorTarget, ColorTargetDesc, Compare, DepthStencilDesc, DepthTarget, FaceRuns, Gpu, GpuError,
    RasterDraw, RasterPipelineDesc, RasterTargets, SampleCounts, StencilDesc, StencilFaceDesc,
    StencilOperation, Topology, UploadedTexture, MAX_RASTER_TARGETS,
};

use crate::raster::PixelRect;
use crate::render::state::{color_targets, ClearEvent, ColorFormat, DepthFormat};
use crate::render::surface::{
    bytes_per_pixel, clear_depth_value, decode, decode_depth, depth_bytes_per_pixel,
    depth_to_fixed, encode, encode_depth, fixed_to_depth, SurfaceLayout, SurfaceMemory,
};
use rsxtrace_wgsl::WgslModule;
use std::sync::Arc;

use super::pipeline::{depth_format, has_alpha, target_format};
use super::shader::{lit, module_from_source};

/// Where the targets of a surface state lie and their formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SetKey {
    /// Colour targets by fragment output (0..4).
    pub colors: Vec<(SurfaceLayout, ColorFormat)>,
    /// The depth target, when the zeta surface is valid.
    pub depth: Option<(SurfaceLayout, DepthFormat)>,
}

impl SetKey {
    /// The key of a surface state: its colour targets (an invalid colour format or target
    /// layout is the error) and, when the depth format and zeta layout are valid, its depth.
    pub(crate) fn of(surface: &Surface) -> Result<SetKey, String> {
        let targets = color_targets(surface.color_target.raw).ok_or_else(|| {
            format!(
                "SET_SURFACE_COLOR_TARGET 0x{:x} is not valid",
                surface.color_target.raw
            )
        })?;
        let mut colors = Vec::new();
        if !targets.is_empty() {
            let format =
                ColorFormat::from_raw(surface.format.color_format.raw).ok_or_else(|| {
                    format!(
                        "colour format {} is not valid",
                        surface.format.color_format.raw
                    )
                })?;
            for t in targets {
                let layout = SurfaceLayout::of_target(surface, t, bytes_per_pixel(format))
                    .map_err(|e| e.to_string())?;
                colors.push((layout, format));
            }
        }
        let depth = DepthFormat::of(surface).and_then(|f| {
            SurfaceLayout::of_target(surface, 4, depth_bytes_per_pixel(f))
                .ok()
                .map(|l| (l, f))
        });
        if let (Some((c, _)), Some((d, _))) = (colors.first(), &depth) {
            if (c.width, c.height) != (d.width, d.height) {
                return Err(format!(
                    "colour targets are {}x{}, the depth target {}x{}",
                    c.width, c.height, d.width, d.height
                ));
            }
        }
        if colors.iter().any(|(l, _)| {
            colors
                .first()
                .is_some_and(|(f, _)| (f.width, f.height) != (l.width, l.height))
        }) {
            return Err("colour targets of different sizes".to_string());
        }
        Ok(SetKey { colors, depth })
    }

    /// Its targets' places and formats: colours in order, then depth.
    pub(crate) fn places(&self) -> impl Iterator<Item = (&SurfaceLayout, TargetFormat)> {
        self.colors
            .iter()
            .map(|(l, f)| (l, TargetFormat::Color(*f)))
            .chain(self.depth.iter().map(|(l, f)| (l, TargetFormat::Depth(*f))))
    }

    /// Target size.
    pub(crate) fn size(&self) -> Option<(u32, u32)> {
        self.colors
            .first()
            .map(|(l, _)| l)
            .or(self.depth.as_ref().map(|(l, _)| l))
            .map(|l| (l.width, l.height))
    }
}

/// What a device target holds: a colour surface of a format, or a depth (and stencil) one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TargetFormat {
    /// A colour target.
    Color(ColorFormat),
    /// A depth target.
    Depth(DepthFormat),
}

impl TargetFormat {
    /// Whether the device texture holds exactly what the surface memory can, so that writing
    /// it back and filling it again from the bytes gives the same texture: every format but
    /// the 5- and 6-bit ones, which live in 8-bit device targets (their channels are rounded
    /// to the format's bits when written back; colour channels a format does not store are
    /// never read by the ones it does, alpha of a format without it stays 1 behind the write
    /// masks, and stored depth lies on the format's fixed-point grid, `shader.rs`).
    pub(crate) fn exact(self) -> bool {
        !matches!(
            self,
            TargetFormat::Color(
                ColorFormat::X1R5G5B5Z1R5G5B5 | ColorFormat::X1R5G5B5O1R5G5B5 | ColorFormat::R5G6B5
            )
        )
    }

    /// Device bytes per pixel (an estimate, for the device memory budget).
    fn device_bpp(self) -> u64 {
        match self {
            TargetFormat::Color(ColorFormat::FloatW16Z16Y16X16) => 8,
            TargetFormat::Color(ColorFormat::FloatW32Z32Y32X32 | ColorFormat::FloatX32) => 16,
            TargetFormat::Color(_) => 4,
            TargetFormat::Depth(DepthFormat::Z16) => 2,
            TargetFormat::Depth(_) => 8,
        }
    }
}

/// The texture of a device target.
#[derive(Debug)]
enum Texture {
    Color(ColorTarget),
    Depth(DepthTarget),
}

/// One target on the device: its place in memory, its format, and whether it holds draws the
/// surface memory does not have yet.
#[derive(Debug)]
pub(crate) struct DeviceTarget {
    /// Where it lies in memory.
    pub layout: SurfaceLayout,
    /// Its format.
    pub format: TargetFormat,
    texture: Texture,
    /// Drawn to (as part of a surface state that was drawn to) since it was last written
    /// back into the surface memory.
    pub dirty: bool,
}

impl DeviceTarget {
    /// Creates the target of `layout` and `format` and fills it from `surfaces` over `base`.
    pub(crate) fn create(
        gpu: &Gpu,
        layout: &SurfaceLayout,
        format: TargetFormat,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
    ) -> Result<DeviceTarget, String> {
        let (width, height) = (layout.width, layout.height);
        let gpu_err = |e: GpuError| e.to_string();
        let texture = match format {
            TargetFormat::Color(format) => {
                let target = gpu
                    .create_color_target(target_format(format), width, height)
                    .map_err(gpu_err)?;
                let b = bytes(surfaces, layout, base)?;
                let alpha = has_alpha(format);
                let mut texels = Vec::with_capacity(width as usize * height as usize);
                for y in 0..height {
                    for x in 0..width {
                        let mut t = layout
                            .pixel_offset(x, y)
                            .and_then(|at| b.get(at..at + layout.bpp as usize))
                            .and_then(|p| decode(format, p))
                            .unwrap_or([0.0; 4]);
                        if !alpha {
                            t[3] = 1.0;
                        }
                        texels.push(t);
                    }
                }
                gpu.write_color_target(&target, &texels).map_err(gpu_err)?;
                Texture::Color(target)
            }
            TargetFormat::Depth(format) => {
                let target = gpu
                    .create_depth_target(depth_format(format), width, height)
                    .map_err(gpu_err)?;
                let b = bytes(surfaces, layout, base)?;
                let n = width as usize * height as usize;
                let (mut depth, mut stencil) = (Vec::with_capacity(n), Vec::with_capacity(n));
                for y in 0..height {
                    for x in 0..width {
                        let (d, s) = layout
                            .pixel_offset(x, y)
                            .and_then(|at| b.get(at..at + layout.bpp as usize))
                            .and_then(|p| decode_depth(format, p))
                            .unwrap_or((0, 0));
                        depth.push(fixed_to_depth(format, d));
                        stencil.push(s);
                    }
                }
                let s = format.has_stencil().then_some(stencil.as_slice());
                gpu.write_depth_target(&target, &depth, s)
                    .map_err(gpu_err)?;
                Texture::Depth(target)
            }
        };
        Ok(DeviceTarget {
            layout: *layout,
            format,
            texture,
            dirty: false,
        })
    }

    /// Writes the target back into `surfaces` when it is dirty (the caller has submitted the
    /// draws queued on it). Returns whether it read the device.
    pub(crate) fn write_back(
        &mut self,
        gpu: &Gpu,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
    ) -> Result<bool, String> {
        if !self.dirty {
            return Ok(false);
        }
        let gpu_err = |e: GpuError| e.to_string();
        let layout = &self.layout;
        match (&self.texture, self.format) {
            (Texture::Color(target), TargetFormat::Color(format)) => {
                let texels = gpu.read_color_target(target).map_err(gpu_err)?;
                let (w, _) = target.size();
                let b = bytes(surfaces, layout, base)?;
                for (i, t) in texels.iter().enumerate() {
                    let (x, y) = ((i % w as usize) as u32, (i / w as usize) as u32);
                    if let Some(at) = layout.pixel_offset(x, y) {
                        let px = encode(format, *t);
                        let src = px.as_bytes();
                        if let Some(dst) = b.get_mut(at..at + src.len()) {
                            dst.copy_from_slice(src);
                        }
                    }
                }
            }
            (Texture::Depth(target), TargetFormat::Depth(format)) => {
                let contents = gpu.read_depth_target(target).map_err(gpu_err)?;
                let (w, _) = target.size();
                let b = bytes(surfaces, layout, base)?;
                for (i, d) in contents.depth.iter().enumerate() {
                    let (x, y) = ((i % w as usize) as u32, (i / w as usize) as u32);
                    let s = contents
                        .stencil
                        .as_ref()
                        .and_then(|s| s.get(i))
                        .copied()
                        .unwrap_or(0);
                    if let Some(at) = layout.pixel_offset(x, y) {
                        if let Some(dst) = b.get_mut(at..) {
                            encode_depth(format, depth_to_fixed(format, *d), s, dst);
                        }
                    }
                }
            }
            _ => return Err("device target of the wrong kind".to_string()),
        }
        self.dirty = false;
        Ok(true)
    }

    /// Whether memory `start..end` of `location` overlaps the target's bytes.
    pub(crate) fn overlaps(&self, location: Location, start: u64, end: u64) -> bool {
        let s = u64::from(self.layout.offset);
        self.layout.location == location && s < end && s + self.layout.byte_len() > start
    }

    /// Whether the target's bytes overlap those of `layout`.
    pub(crate) fn overlaps_layout(&self, layout: &SurfaceLayout) -> bool {
        let s = u64::from(layout.offset);
        self.overlaps(layout.location, s, s + layout.byte_len())
    }

    /// Device bytes (an estimate).
    pub(crate) fn device_bytes(&self) -> u64 {
        u64::from(self.layout.width) * u64::from(self.layout.height) * self.format.device_bpp()
    }

    fn color(&self) -> Option<&ColorTarget> {
        match &self.texture {
            Texture::Color(t) => Some(t),
            Texture::Depth(_) => None,
        }
    }

    fn depth(&self) -> Option<&DepthTarget> {
        match &self.texture {
            Texture::Depth(t) => Some(t),
            Texture::Color(_) => None,
        }
    }
}

/// Why the depth surface of `surface` cannot be laid out, when it has a depth format
/// ([`SetKey::of`] leaves such a surface out of the key; a draw that reads it or a clear of
/// it must say so, as the CPU renderer's do).
pub(crate) fn depth_refused(surface: &Surface) -> Option<String> {
    let format = DepthFormat::of(surface)?;
    SurfaceLayout::of_target(surface, 4, depth_bytes_per_pixel(format))
        .err()
        .map(|e| e.to_string())
}

/// Whether two of `key`'s targets overlap in memory (the order of their write-backs then
/// decides the bytes, so such a state's targets are never kept on the device).
pub(crate) fn overlaps_itself(key: &SetKey) -> bool {
    let layouts: Vec<&SurfaceLayout> = key.places().map(|(l, _)| l).collect();
    layouts.iter().enumerate().any(|(i, a)| {
        layouts[i + 1..].iter().any(|b| {
            let (a0, b0) = (u64::from(a.offset), u64::from(b.offset));
            a.location == b.location && a0 < b0 + b.byte_len() && b0 < a0 + a.byte_len()
        })
    })
}

/// The bound targets.
#[derive(Debug)]
pub(crate) struct SurfaceSet {
    /// What they are.
    pub key: SetKey,
    /// Colour targets by output.
    colors: Vec<DeviceTarget>,
    /// Depth target.
    depth: Option<DeviceTarget>,
    /// Draws recorded but not yet submitted ([`SurfaceSet::queue`]).
    pending: Vec<PendingDraw>,
    /// Queued draws the device refused when submitted alone: (draw, why), taken by
    /// [`SurfaceSet::take_failures`].
    failures: Vec<(usize, String)>,
    /// The occlusion counts of the submissions that counted samples, with the draw each
    /// submitted draw belongs to, taken by [`SurfaceSet::take_counts`].
    counts: Vec<Counted>,
}

/// The occlusion counts of one submission and the draw each submitted draw belongs to.
pub(crate) type Counted = (Vec<usize>, SampleCounts);

/// A draw waiting for the set's next submission, holding what its recording borrows.
#[derive(Debug)]
pub(crate) struct PendingDraw {
    /// The draw's index in the frame.
    pub index: usize,
    /// The wrapped module.
    pub module: Arc<WgslModule>,
    /// Pipeline state.
    pub desc: RasterPipelineDesc,
    /// Vertex records.
    pub vertices: Vec<[f32; 4]>,
    /// Three indices into `vertices` per triangle.
    pub indices: Vec<u32>,
    /// Textures by unit.
    pub textures: Vec<(u8, Arc<UploadedTexture>)>,
    /// Scissor `[x, y, width, height]`.
    pub scissor: [u32; 4],
    /// Stencil reference.
    pub stencil_reference: u32,
    /// Blend constant.
    pub blend_constant: [f64; 4],
    /// The depth bounds of a pipeline that tests them.
    pub depth_bounds: Option<[f32; 2]>,
    /// Where the faces' stencil state differs: the back faces' pipeline and reference, and
    /// the runs of one facing.
    pub faces: Option<PendingFaces>,
    /// Colour outputs drawn.
    pub outputs: usize,
    /// Whether the depth target is bound.
    pub with_depth: bool,
    /// Whether its samples are counted (`SET_ZPASS_PIXEL_COUNT_ENABLE`, or every draw's with
    /// `RenderOptions::count_samples`).
    pub count_samples: bool,
}

/// The back faces of a [`PendingDraw`] whose faces' stencil state differs (`FaceRuns`).
#[derive(Debug)]
pub(crate) struct PendingFaces {
    /// The back-facing runs' pipeline.
    pub back_desc: RasterPipelineDesc,
    /// Their stencil reference.
    pub back_reference: u32,
    /// The runs of one facing (`geometry::Records::faces`).
    pub runs: Vec<(u32, bool)>,
}

/// Draws recorded into one command buffer at most (their vertex buffers live until then).
const BATCH: usize = 64;

/// Whether `e` is the device's own failure (the frame cannot go on), not one draw's.
fn is_device_error(e: &GpuError) -> bool {
    matches!(
        e,
        GpuError::Readback { .. } | GpuError::Device { .. } | GpuError::NoAdapter { .. }
    )
}

/// The device's view of a queued draw.
fn raster(d: &PendingDraw) -> RasterDraw<'_> {
    let mut textures = [None; 16];
    for (unit, t) in &d.textures {
        if let Some(slot) = textures.get_mut(usize::from(*unit)) {
            *slot = Some(&**t);
        }
    }
    RasterDraw {
        module: &d.module,
        desc: &d.desc,
        vertices: &d.vertices,
        indices: Some(&d.indices),
        textures,
        viewport: None,
        scissor: Some(d.scissor),
        stencil_reference: d.stencil_reference,
        blend_constant: d.blend_constant,
        depth_bounds: d.depth_bounds,
        faces: d.faces.as_ref().map(|f| FaceRuns {
            back_desc: &f.back_desc,
            back_reference: f.back_reference,
            runs: &f.runs,
        }),
    }
}

/// Bytes of `layout` in surface memory (created from `base` on first use).
fn bytes<'s>(
    surfaces: &'s mut SurfaceMemory,
    layout: &SurfaceLayout,
    base: &dyn GuestMemory,
) -> Result<&'s mut [u8], String> {
    surfaces
        .surface_mut(layout, base)
        .ok_or_else(|| format!("surface at 0x{:x} does not fit in memory", layout.offset))
}

impl SurfaceSet {
    /// The set of `key` over its targets (`targets`: one per [`SetKey::places`], in order).
    pub(crate) fn new(key: SetKey, mut targets: Vec<DeviceTarget>) -> Result<SurfaceSet, String> {
        let depth = match key.depth {
            Some(_) => Some(targets.pop().ok_or("no depth target")?),
            None => None,
        };
        if targets.len() != key.colors.len() {
            return Err("colour targets missing".to_string());
        }
        Ok(SurfaceSet {
            key,
            colors: targets,
            depth,
            pending: Vec::new(),
            failures: Vec::new(),
            counts: Vec::new(),
        })
    }

    /// Marks every target drawn to: each is written back before its bytes are read as
    /// memory (all of them, as a surface state is written back as a whole).
    pub(crate) fn mark_drawn(&mut self) {
        for t in self.colors.iter_mut().chain(self.depth.as_mut()) {
            t.dirty = true;
        }
    }

    /// Its targets, colours in order then depth (the draws queued on them must have been
    /// submitted: [`SurfaceSet::submit`]).
    pub(crate) fn targets_mut(&mut self) -> impl Iterator<Item = &mut DeviceTarget> {
        self.colors.iter_mut().chain(self.depth.as_mut())
    }

    /// Its targets, colours in order then depth, the draws the device refused and the
    /// occlusion counts not taken.
    pub(crate) fn into_targets(self) -> (Vec<DeviceTarget>, Vec<(usize, String)>, Vec<Counted>) {
        let mut targets = self.colors;
        targets.extend(self.depth);
        (targets, self.failures, self.counts)
    }

    /// Queues `draw` (checked first, so that a draw the device refuses fails alone, now); the
    /// queue is submitted as one command buffer when it holds [`BATCH`] draws, before the
    /// targets are read back ([`SurfaceSet::flush`]) or cleared, and by [`SurfaceSet::submit`].
    /// Consecutive draws into the same targets thus cost one submission, not one each.
    pub(crate) fn queue(&mut self, gpu: &Gpu, draw: PendingDraw) -> Result<(), GpuError> {
        gpu.check_raster_draw(&self.targets(draw.outputs, draw.with_depth), &raster(&draw))?;
        self.pending.push(draw);
        self.mark_drawn();
        if self.pending.len() >= BATCH {
            self.submit(gpu)?;
        }
        Ok(())
    }

    /// Records and submits the queued draws. When the device refuses the batch (a validation
    /// error the checks did not foresee), each draw is submitted alone and the ones it refuses
    /// are kept as failures, so that one bad draw costs only itself; errors of the device
    /// itself (lost, out of memory, readback) are returned.
    pub(crate) fn submit(&mut self, gpu: &Gpu) -> Result<(), GpuError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let draws: Vec<(RasterTargets<'_>, RasterDraw<'_>)> = pending
            .iter()
            .map(|d| (self.targets(d.outputs, d.with_depth), raster(d)))
            .collect();
        let counted: Vec<bool> = pending.iter().map(|d| d.count_samples).collect();
        let owners = || pending.iter().map(|d| d.index).collect::<Vec<usize>>();
        match gpu.raster_draws_counted(&draws, &counted) {
            Ok(c) => {
                if counted.contains(&true) {
                    self.counts.push((owners(), c));
                }
                Ok(())
            }
            Err(e) if is_device_error(&e) => Err(e),
            Err(_) => {
                let mut failures = Vec::new();
                let mut counts = Vec::new();
                for (d, one) in pending.iter().zip(&draws) {
                    match gpu.raster_draws_counted(std::slice::from_ref(one), &[d.count_samples]) {
                        Ok(c) if d.count_samples => counts.push((vec![d.index], c)),
                        Ok(_) => {}
                        Err(e) if is_device_error(&e) => return Err(e),
                        Err(e) => failures.push((d.index, format!("GPU: {e}"))),
                    }
                }
                drop(draws);
                self.failures.extend(failures);
                self.counts.extend(counts);
                Ok(())
            }
        }
    }

    /// The queued draws the device refused since the last call.
    pub(crate) fn take_failures(&mut self) -> Vec<(usize, String)> {
        std::mem::take(&mut self.failures)
    }

    /// The occlusion counts of the draws submitted since the last call.
    pub(crate) fn take_counts(&mut self) -> Vec<Counted> {
        std::mem::take(&mut self.counts)
    }

    /// The targets for a draw: colour outputs `0..outputs`, depth when `with_depth`.
    pub(crate) fn targets(&self, outputs: usize, with_depth: bool) -> RasterTargets<'_> {
        let mut colors = [None; MAX_RASTER_TARGETS];
        for (slot, t) in colors.iter_mut().zip(self.colors.iter().take(outputs)) {
            *slot = t.color();
        }
        RasterTargets {
            colors,
            depth: if with_depth {
                self.depth.as_ref().and_then(DeviceTarget::depth)
            } else {
                None
            },
        }
    }

    /// Draws `clear` into the targets (the scissored area of the surface clip).
    pub(crate) fn clear(&mut self, gpu: &Gpu, clear: &ClearEvent) -> Result<(), String> {
        self.submit(gpu).map_err(|e| e.to_string())?;
        let m = clear.mask;
        let depth = self
            .key
            .depth
            .filter(|_| m.depth || (m.stencil && self.depth.is_some()))
            .map(|(_, f)| f);
        let stencil = m.stencil && depth.is_some_and(DepthFormat::has_stencil);
        // The clear colour of the targets' format (`ClearEvent::color_for`; a float target is
        // not cleared).
        let by_format = self
            .key
            .colors
            .first()
            .and_then(|&(_, f)| clear.color_for(f))
            .filter(|_| m.any_color());
        let color = by_format.is_some() && !self.colors.is_empty();
        if !color && depth.is_none() {
            return Ok(());
        }
        let (rgba, channels) = by_format.unwrap_or(([0.0; 4], [false; 4]));
        let mut source = String::from(
            "@vertex\nfn clear_vs(@location(0) p: vec4<f32>) -> @builtin(position) vec4<f32> {\n    return p;\n}\n\nstruct ClearOut {\n",
        );
        let outputs = if color { self.colors.len() } else { 0 };
        for n in 0..outputs {
            source.push_str(&format!("    @location({n}) c{n}: vec4<f32>,\n"));
        }
        let (depth_value, stencil_value) = depth.map_or((0.0, 0), |format| {
            let (stored, stencil) = clear_depth_value(format, clear.zstencil_value);
            (fixed_to_depth(format, stored), u32::from(stencil))
        });
        if depth.is_some() {
            source.push_str("    @builtin(frag_depth) depth: f32,\n");
        }
        source.push_str("}\n\n@fragment\nfn clear_fs() -> ClearOut {\n    var o: ClearOut;\n");
        for n in 0..outputs {
            source.push_str(&format!(
                "    o.c{n} = vec4<f32>({}, {}, {}, {});\n",
                lit(rgba[0]),
                lit(rgba[1]),
                lit(rgba[2]),
                lit(rgba[3])
            ));
        }
        if depth.is_some() {
            source.push_str(&format!("    o.depth = {};\n", lit(depth_value)));
        }
        source.push_str("    return o;\n}\n");
        let module = module_from_source(source)
            .map_err(|e| format!("clear module does not validate: {e}"))?;
        let mask = u8::from(channels[0])
            | (u8::from(channels[1]) << 1)
            | (u8::from(channels[2]) << 2)
            | (u8::from(channels[3]) << 3);
        let targets = self
            .key
            .colors
            .iter()
            .take(outputs)
            .map(|(_, f)| {
                Some(ColorTargetDesc {
                    format: target_format(*f),
                    blend: None,
                    write_mask: if has_alpha(*f) { mask } else { mask & 0x7 },
                })
            })
            .collect();
        let replace = StencilFaceDesc {
            compare: Compare::Always,
            fail: StencilOperation::Replace,
            depth_fail: StencilOperation::Replace,
            pass: StencilOperation::Replace,
        };
        let desc = RasterPipelineDesc {
            vertex_entry: "clear_vs".into(),
            fragment_entry: "clear_fs".into(),
            vertex_attributes: 1,
            topology: Topology::TriangleList,
            cull: Default::default(),
            front_face: Default::default(),
            targets,
            depth_stencil: depth.map(|f| DepthStencilDesc {
                format: depth_format(f),
                compare: Compare::Always,
                write: m.depth,
                stencil: stencil.then_some(StencilDesc {
                    front: replace,
                    back: replace,
                    read_mask: 0xFF,
                    write_mask: clear.stencil_write_mask,
                }),
                bias: Default::default(),
            }),
            depth_bounds: false,
            colors_before: 0,
        };
        let Some((w, h)) = self.key.size() else {
            return Ok(());
        };
        let scissor = clear_rect(clear.area(), w, h);
        let vertices = [
            [-1.0, -1.0, 0.0, 1.0],
            [3.0, -1.0, 0.0, 1.0],
            [-1.0, 3.0, 0.0, 1.0],
        ];
        gpu.raster_draw(
            &self.targets(outputs, depth.is_some()),
            &RasterDraw {
                module: &module,
                desc: &desc,
                vertices: &vertices,
                indices: None,
                textures: [None; 16],
                viewport: None,
                scissor: Some(scissor),
                stencil_reference: stencil_value,
                blend_constant: [0.0; 4],
                depth_bounds: None,
                faces: None,
            },
        )
        .map_err(|e| e.to_string())?;
        self.mark_drawn();
        Ok(())
    }
}

/// The area a clear writes (`ClearEvent::area`) within a `width` × `height` target, as a
/// scissor `[x, y, width, height]`.
pub(crate) fn clear_rect(area: PixelRect, width: u32, height: u32) -> [u32; 4] {
    let a = area.intersect(&PixelRect::from_origin_size(0, 0, width, height));
    [
        a.x0,
        a.y0,
        a.x1.saturating_sub(a.x0),
        a.y1.saturating_sub(a.y0),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::state::rect_pixels;
    use rsxtrace_capture::frame::state::Rect;

    /// `ClearEvent::area` of a one-sample surface: the scissor within the clip.
    fn area(clip: Rect, scissor: Rect) -> PixelRect {
        rect_pixels(&clip).intersect(&rect_pixels(&scissor))
    }

    fn rect(x: u16, y: u16, width: u16, height: u16) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    #[test]
    fn clears_cover_the_scissor_inside_the_clip() {
        assert_eq!(
            clear_rect(area(rect(0, 0, 64, 32), rect(0, 0, 4096, 4096)), 64, 32),
            [0, 0, 64, 32]
        );
        assert_eq!(
            clear_rect(area(rect(0, 0, 64, 32), rect(8, 4, 16, 100)), 64, 32),
            [8, 4, 16, 28]
        );
        assert_eq!(
            clear_rect(area(rect(0, 0, 64, 32), rect(70, 0, 16, 16)), 64, 32)[2],
            0
        );
    }
}
