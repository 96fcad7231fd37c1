//! Draws into the raster pipeline's targets: [`Gpu::raster_draw`], [`Gpu::raster_draws`] and
//! [`Gpu::raster_draws_counted`] record draws with a [`RasterPipelineDesc`] and their dynamic
//! state (viewport, scissor, stencil reference, blend constant, depth bounds, per-face
//! stencil runs) into one submission, loading and storing the targets
//! ([`crate::raster_target`]), with occlusion queries when asked ([`SampleCounts`]).

use rsxtrace_wgsl::WgslModule;
use wgpu::util::DeviceExt;

use crate::abi::TEXTURE_UNITS;
use crate::device::Gpu;
use crate::error::GpuError;
use crate::raster_pipeline::{RasterPipelineDesc, Topology, MAX_RASTER_TARGETS};
use crate::raster_target::{
    bound_unit_entries, check_bound_units, ColorTarget, DepthTarget, UploadedTexture,
};

/// The viewport of a draw in framebuffer pixels and its depth range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterViewport {
    /// Left.
    pub x: f32,
    /// Top.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
    /// Depth of NDC z = 0.
    pub min_depth: f32,
    /// Depth of NDC z = 1.
    pub max_depth: f32,
}

/// The targets a draw renders into: `colors[n]` for each `Some` slot of the pipeline's
/// targets (same format and size), and the depth target when the pipeline has depth.
#[derive(Clone, Copy, Debug, Default)]
pub struct RasterTargets<'a> {
    /// Colour targets by slot.
    pub colors: [Option<&'a ColorTarget>; MAX_RASTER_TARGETS],
    /// Depth target.
    pub depth: Option<&'a DepthTarget>,
}

/// One draw.
#[derive(Clone, Copy, Debug)]
pub struct RasterDraw<'a> {
    /// The module holding both entry points (and `rsx_fragment` with its texture units).
    pub module: &'a WgslModule,
    /// Pipeline state.
    pub desc: &'a RasterPipelineDesc,
    /// Vertices: `desc.vertex_attributes` vec4 each, consecutive; topology as in `desc`.
    pub vertices: &'a [[f32; 4]],
    /// Indices into `vertices` (`None`: the vertices in order); topology as in `desc`.
    pub indices: Option<&'a [u32]>,
    /// Textures by unit (every unit the module declares must be bound).
    pub textures: [Option<&'a UploadedTexture>; TEXTURE_UNITS as usize],
    /// Viewport (`None`: the whole target, depth 0..1).
    pub viewport: Option<RasterViewport>,
    /// Scissor `[x, y, width, height]` (clamped to the targets; `None`: whole target).
    pub scissor: Option<[u32; 4]>,
    /// Stencil reference.
    pub stencil_reference: u32,
    /// Blend constant (R, G, B, A).
    pub blend_constant: [f64; 4],
    /// The depth bounds `[min, max]` of a pipeline with
    /// [`RasterPipelineDesc::depth_bounds`] (`None` for the others): its fragment entry point
    /// compares the depth target's value from before the draw with them.
    pub depth_bounds: Option<[f32; 2]>,
    /// Stencil state per face that one pipeline cannot hold (`None`: `desc` draws every
    /// primitive).
    pub faces: Option<FaceRuns<'a>>,
}

/// A draw whose front- and back-facing primitives take different stencil state than one
/// pipeline holds (a pipeline has one reference, one compare mask and one write mask for both
/// faces): its primitives are drawn in runs of one facing, in their order, each run with its
/// face's pipeline and reference. The caller decides the facing, so each face's pipeline
/// should give both of the device's faces that face's stencil state.
#[derive(Clone, Copy, Debug)]
pub struct FaceRuns<'a> {
    /// The pipeline of the back-facing runs (the draw's `desc` draws the front-facing ones):
    /// it may differ from `desc` in its depth/stencil state only.
    pub back_desc: &'a RasterPipelineDesc,
    /// The stencil reference of the back-facing runs.
    pub back_reference: u32,
    /// Each run as its first vertex (an index into `indices`, or a vertex when there are none;
    /// whole primitives) and whether it is back facing, in drawing order: a run ends where
    /// the next begins, the last at the end. Vertices before the first run are not drawn.
    pub runs: &'a [(u32, bool)],
}

impl Gpu {
    /// Draws `draw` into `targets` (loading and storing their contents): [`Gpu::raster_draws`]
    /// with one draw.
    pub fn raster_draw(
        &self,
        targets: &RasterTargets<'_>,
        draw: &RasterDraw<'_>,
    ) -> Result<(), GpuError> {
        self.raster_draws(&[(*targets, *draw)])
    }

    /// Draws each `(targets, draw)` in order, recorded into one command buffer (consecutive
    /// draws that attach the same targets share one render pass, loading and storing them)
    /// and submitted once: a run of draws costs one submission instead of one per draw. The
    /// draws are checked first; a bad one fails the call before anything is recorded.
    pub fn raster_draws(
        &self,
        draws: &[(RasterTargets<'_>, RasterDraw<'_>)],
    ) -> Result<(), GpuError> {
        self.raster_draws_counted(draws, &[]).map(|_| ())
    }

    /// [`raster_draws`](Self::raster_draws), counting the samples that pass the depth and
    /// stencil tests of each draw `counted` marks (an occlusion query around each): read them
    /// with [`read_sample_counts`](Self::read_sample_counts). A draw left out of `counted`
    /// (shorter than `draws`) is not counted.
    pub fn raster_draws_counted(
        &self,
        draws: &[(RasterTargets<'_>, RasterDraw<'_>)],
        counted: &[bool],
    ) -> Result<SampleCounts, GpuError> {
        let mut checked = Vec::with_capacity(draws.len());
        let mut queries: Vec<Option<u32>> = vec![None; draws.len()];
        let mut used = 0u32;
        for (n, (targets, draw)) in draws.iter().enumerate() {
            let counts = counted.get(n).copied().unwrap_or(false);
            if let Some(c) = self.checked_raster_draw(targets, draw)? {
                let query = counts.then(|| {
                    used += 1;
                    used - 1
                });
                queries[n] = query;
                checked.push((targets, draw, c, query));
            }
        }
        // A counted draw that draws nothing (its scissor leaves no pixel) counted 0.
        let mut counts = SampleCounts {
            per_draw: queries
                .iter()
                .enumerate()
                .map(
                    |(n, &q)| match (counted.get(n).copied().unwrap_or(false), q) {
                        (true, Some(q)) => CountSlot::Query(q),
                        (true, None) => CountSlot::Zero,
                        (false, _) => CountSlot::NotCounted,
                    },
                )
                .collect(),
            readback: None,
        };
        if checked.is_empty() {
            return Ok(counts);
        }
        let bytes = u64::from(used) * 8;
        counts.readback = self.scoped("drawing raster draws", || {
            let query_set = (used > 0).then(|| {
                self.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("occlusion counts"),
                    ty: wgpu::QueryType::Occlusion,
                    count: used,
                })
            });
            // One copy of each target a draw reads as it was before it (the depth target of a
            // depth bounds test, the colour targets of `colors_before`), made again before
            // every such draw (the encoder orders the copies and the passes).
            let mut copies: Vec<(&wgpu::Texture, TargetCopy)> = Vec::new();
            for (targets, draw, _, _) in &checked {
                for (texture, depth) in read_before(targets, draw.desc) {
                    if !copies.iter().any(|(t, _)| std::ptr::eq(*t, texture)) {
                        copies.push((texture, self.target_copy(texture, depth)));
                    }
                }
            }
            let copy_of = |texture: &wgpu::Texture| {
                copies
                    .iter()
                    .find(|(t, _)| std::ptr::eq(*t, texture))
                    .map(|(_, c)| c)
            };
            let prepared: Vec<PreparedDraw> = checked
                .iter()
                .map(|(targets, draw, c, _)| {
                    let depth = targets.depth.and_then(|t| copy_of(&t.texture));
                    let colors: [Option<&TargetCopy>; MAX_RASTER_TARGETS] =
                        std::array::from_fn(|n| {
                            targets.colors[n].and_then(|t| copy_of(&t.texture))
                        });
                    self.prepare_raster_draw(draw, c, depth, &colors)
                })
                .collect();
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("raster draws"),
                });
            // Consecutive draws into the same attachments share one render pass: a pass
            // boundary changes nothing drawn (draws keep their order), but on a CPU device
            // each pass is a scene binned, rasterised and waited for on its own. A draw that
            // reads a target as it was before it starts a pass of its own, after the copy.
            let mut start = 0;
            while let Some((targets, first, _, _)) = checked.get(start) {
                let end = (start + 1..checked.len())
                    .find(|&k| {
                        let (t, d, _, _) = &checked[k];
                        !same_attachments(targets, first.desc, t, d.desc) || d.desc.reads_before()
                    })
                    .unwrap_or(checked.len());
                for (texture, _) in read_before(targets, first.desc) {
                    if let Some(copy) = copy_of(texture) {
                        encoder.copy_texture_to_texture(
                            texture.as_image_copy(),
                            copy.texture.as_image_copy(),
                            texture.size(),
                        );
                    }
                }
                let mut pass = begin_pass(&mut encoder, targets, first.desc, query_set.as_ref());
                for ((_, draw, c, query), p) in
                    checked[start..end].iter().zip(&prepared[start..end])
                {
                    if let Some(q) = query {
                        pass.begin_occlusion_query(*q);
                        record_raster_draw(&mut pass, draw, c, p);
                        pass.end_occlusion_query();
                    } else {
                        record_raster_draw(&mut pass, draw, c, p);
                    }
                }
                drop(pass);
                start = end;
            }
            let readback = query_set.as_ref().map(|set| {
                let resolved = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("occlusion counts resolved"),
                    size: bytes,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("occlusion counts"),
                    size: bytes,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                encoder.resolve_query_set(set, 0..used, &resolved, 0);
                encoder.copy_buffer_to_buffer(&resolved, 0, &readback, 0, bytes);
                readback
            });
            let submission = self.queue.submit([encoder.finish()]);
            readback.map(|buffer| (buffer, bytes, submission))
        })?;
        Ok(counts)
    }

    /// The samples each counted draw of `counts` passed (`None` for the draws not counted),
    /// in the order they were given; waits for their submission.
    pub fn read_sample_counts(&self, counts: &SampleCounts) -> Result<Vec<Option<u64>>, GpuError> {
        let values: Vec<u64> = match &counts.readback {
            Some((buffer, bytes, submission)) => self
                .read_buffers_after(
                    &[(buffer, *bytes)],
                    Some(submission.clone()),
                    "reading occlusion counts",
                    |b| {
                        b.chunks_exact(8)
                            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                            .collect::<Vec<u64>>()
                    },
                )?
                .pop()
                .unwrap_or_default(),
            None => Vec::new(),
        };
        Ok(counts
            .per_draw
            .iter()
            .map(|slot| match slot {
                CountSlot::NotCounted => None,
                CountSlot::Zero => Some(0),
                CountSlot::Query(q) => Some(values.get(*q as usize).copied().unwrap_or(0)),
            })
            .collect())
    }

    /// Whether [`Gpu::raster_draws`] would take `draw` into `targets` (targets matching the
    /// pipeline, whole primitives, every unit the module samples bound; the pipeline is built
    /// and cached): the error it would fail with, checked before a draw is queued.
    pub fn check_raster_draw(
        &self,
        targets: &RasterTargets<'_>,
        draw: &RasterDraw<'_>,
    ) -> Result<(), GpuError> {
        self.checked_raster_draw(targets, draw).map(|_| ())
    }

    /// The checks of one draw and what recording it needs; `None` when its scissor leaves
    /// nothing to draw.
    fn checked_raster_draw(
        &self,
        targets: &RasterTargets<'_>,
        draw: &RasterDraw<'_>,
    ) -> Result<Option<CheckedDraw>, GpuError> {
        let desc = draw.desc;
        // Targets must match the pipeline's slots and each other's size.
        let mut size: Option<(u32, u32)> = None;
        let mut same_size = |name: String, s: (u32, u32)| -> Result<(), GpuError> {
            match size {
                Some(first) if first != s => Err(GpuError::argument(
                    name,
                    format!(
                        "is {}x{}, other targets are {}x{}",
                        s.0, s.1, first.0, first.1
                    ),
                )),
                _ => {
                    size = Some(s);
                    Ok(())
                }
            }
        };
        for n in 0..MAX_RASTER_TARGETS {
            let want = desc.targets.get(n).copied().flatten();
            match (want, targets.colors[n]) {
                (None, None) => {}
                (Some(w), Some(t)) if w.format == t.format => {
                    same_size(format!("targets.colors[{n}]"), t.size())?
                }
                (w, t) => {
                    return Err(GpuError::argument(
                        format!("targets.colors[{n}]"),
                        format!(
                            "the pipeline wants {:?}, the target is {:?}",
                            w.map(|w| w.format),
                            t.map(ColorTarget::format)
                        ),
                    ))
                }
            }
        }
        match (desc.depth_stencil, targets.depth) {
            (None, None) => {}
            (Some(d), Some(t)) if d.format == t.format => {
                same_size("targets.depth".to_string(), t.size())?
            }
            (d, t) => {
                return Err(GpuError::argument(
                    "targets.depth",
                    format!(
                        "the pipeline wants {:?}, the target is {:?}",
                        d.map(|d| d.format),
                        t.map(DepthTarget::format)
                    ),
                ))
            }
        }
        let Some((width, height)) = size else {
            return Err(GpuError::argument("targets", "no target to draw into"));
        };
        let stride = desc.vertex_attributes as usize;
        if stride == 0 || draw.vertices.len() % stride != 0 {
            return Err(GpuError::argument(
                "vertices",
                format!(
                    "holds {} vec4, not a whole number of {stride}-attribute vertices",
                    draw.vertices.len()
                ),
            ));
        }
        let vertices = draw.vertices.len() / stride;
        if let Some(indices) = draw.indices {
            if let Some((i, v)) = indices
                .iter()
                .enumerate()
                .find(|(_, &v)| v as usize >= vertices)
            {
                return Err(GpuError::argument(
                    "indices",
                    format!("index {i} is {v}, past the {vertices} vertices"),
                ));
            }
        }
        let count = draw.indices.map_or(vertices, <[u32]>::len);
        let per_primitive = match desc.topology {
            Topology::PointList => 1,
            Topology::LineList => 2,
            Topology::TriangleList => 3,
        };
        if count % per_primitive != 0 {
            return Err(GpuError::argument(
                if draw.indices.is_some() {
                    "indices"
                } else {
                    "vertices"
                },
                format!(
                    "{count} vertices are not whole {:?} primitives",
                    desc.topology
                ),
            ));
        }
        let count = u32::try_from(count)
            .ok()
            .filter(|_| (draw.vertices.len() as u64) * 16 <= self.limits.max_buffer_size)
            .filter(|&n| u64::from(n) * 4 <= self.limits.max_buffer_size)
            .ok_or_else(|| GpuError::argument("vertices", "exceed the vertex buffer limit"))?;
        for n in 0..MAX_RASTER_TARGETS {
            if desc.colors_before >> n & 1 != 0 && targets.colors[n].is_none() {
                return Err(GpuError::argument(
                    format!("targets.colors[{n}]"),
                    "the pipeline reads it as it was before the draw: it must be given",
                ));
            }
        }
        if desc.depth_bounds != draw.depth_bounds.is_some() {
            return Err(GpuError::argument(
                "depth_bounds",
                if desc.depth_bounds {
                    "the pipeline tests depth bounds: the draw must give them"
                } else {
                    "the pipeline does not test depth bounds"
                },
            ));
        }
        let entry = self.raster_pipeline(draw.module, desc)?;
        check_bound_units(&entry.units, &draw.textures, "textures")?;
        let back = match &draw.faces {
            Some(f) => Some(self.back_pipeline(draw.module, desc, f, count, per_primitive)?),
            None => None,
        };
        let scissor = match draw.scissor {
            None => Some([0, 0, width, height]),
            Some([x, y, w, h]) => {
                let x0 = x.min(width);
                let y0 = y.min(height);
                let x1 = x.saturating_add(w).min(width);
                let y1 = y.saturating_add(h).min(height);
                (x1 > x0 && y1 > y0).then_some([x0, y0, x1 - x0, y1 - y0])
            }
        };
        let Some(scissor) = scissor else {
            // Nothing inside the scissor: nothing is drawn.
            return Ok(None);
        };
        Ok(Some(CheckedDraw {
            entry,
            back,
            count,
            size: (width, height),
            scissor,
        }))
    }

    /// The back-facing runs' pipeline of a draw of `count` vertices, `per_primitive` each,
    /// under `desc` with `faces`, after checking them.
    fn back_pipeline(
        &self,
        module: &WgslModule,
        desc: &RasterPipelineDesc,
        faces: &FaceRuns<'_>,
        count: u32,
        per_primitive: usize,
    ) -> Result<crate::cache::RenderEntry, GpuError> {
        let back = faces.back_desc;
        let same_but_depth_stencil = RasterPipelineDesc {
            depth_stencil: desc.depth_stencil,
            ..back.clone()
        };
        if same_but_depth_stencil != *desc {
            return Err(GpuError::argument(
                "faces.back_desc",
                "differs from desc in more than its depth/stencil state",
            ));
        }
        let mut previous = None;
        for (i, &(first, _)) in faces.runs.iter().enumerate() {
            if first > count
                || first as usize % per_primitive != 0
                || previous.is_some_and(|p| first <= p)
            {
                return Err(GpuError::argument(
                    format!("faces.runs[{i}]"),
                    format!(
                        "starts at {first}: runs start at increasing whole primitives of the \
                         {count} vertices"
                    ),
                ));
            }
            previous = Some(first);
        }
        self.raster_pipeline(module, back)
    }

    /// A texture `texture` can be copied into and bound from (as depth when `depth`: its
    /// depth aspect), for a draw that reads it as it was before the draw.
    fn target_copy(&self, texture: &wgpu::Texture, depth: bool) -> TargetCopy {
        let copy = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("target before the draw"),
            size: texture.size(),
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: texture.format(),
            usage: wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = copy.create_view(&wgpu::TextureViewDescriptor {
            label: Some("target before the draw"),
            aspect: if depth {
                wgpu::TextureAspect::DepthOnly
            } else {
                wgpu::TextureAspect::All
            },
            ..Default::default()
        });
        TargetCopy {
            texture: copy,
            view,
        }
    }

    /// The bind groups and vertex buffer of a checked draw; `depth` and `colors` are the
    /// copies of its targets it reads as they were before it.
    fn prepare_raster_draw(
        &self,
        draw: &RasterDraw<'_>,
        c: &CheckedDraw,
        depth: Option<&TargetCopy>,
        colors: &[Option<&TargetCopy>; MAX_RASTER_TARGETS],
    ) -> PreparedDraw {
        let group1_entries = bound_unit_entries(&c.entry.units, &draw.textures);
        let bounds = draw.depth_bounds.map(|[lo, hi]| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("depth bounds"),
                    contents: bytemuck::cast_slice(&[lo, hi, 0.0f32, 0.0]),
                    usage: wgpu::BufferUsages::UNIFORM,
                })
        });
        let mut group0_entries: Vec<wgpu::BindGroupEntry<'_>> = match (depth, &bounds) {
            (Some(copy), Some(bounds)) if draw.desc.depth_bounds => vec![
                wgpu::BindGroupEntry {
                    binding: crate::raster_pipeline::DEPTH_BEFORE_BINDING,
                    resource: wgpu::BindingResource::TextureView(&copy.view),
                },
                wgpu::BindGroupEntry {
                    binding: crate::raster_pipeline::DEPTH_BOUNDS_BINDING,
                    resource: bounds.as_entire_binding(),
                },
            ],
            _ => Vec::new(),
        };
        for (n, copy) in colors.iter().enumerate() {
            if let (Some(copy), true) = (copy, draw.desc.colors_before >> n & 1 != 0) {
                group0_entries.push(wgpu::BindGroupEntry {
                    binding: crate::raster_pipeline::COLOR_BEFORE_BINDING + n as u32,
                    resource: wgpu::BindingResource::TextureView(&copy.view),
                });
            }
        }
        let group0 = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("raster group 0"),
            layout: &c.entry.group0,
            entries: &group0_entries,
        });
        let group1 = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("raster group 1"),
            layout: &c.entry.group1,
            entries: &group1_entries,
        });
        let vertices = (c.count > 0).then(|| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("raster vertices"),
                    contents: bytemuck::cast_slice(draw.vertices),
                    usage: wgpu::BufferUsages::VERTEX,
                })
        });
        let indices = draw.indices.filter(|_| c.count > 0).map(|indices| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("raster indices"),
                    contents: bytemuck::cast_slice(indices),
                    usage: wgpu::BufferUsages::INDEX,
                })
        });
        PreparedDraw {
            group0,
            group1,
            vertices,
            indices,
        }
    }
}

/// A draw that passed [`Gpu::raster_draws`]' checks.
struct CheckedDraw {
    entry: crate::cache::RenderEntry,
    /// The pipeline of the back-facing runs of a draw with [`FaceRuns`].
    back: Option<crate::cache::RenderEntry>,
    count: u32,
    size: (u32, u32),
    scissor: [u32; 4],
}

/// A copy of a target, bound to the draws that read it as it was before them.
struct TargetCopy {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
}

/// The textures of `targets` that a draw under `desc` reads as they were before it, and
/// whether each is a depth target: the depth target of a depth bounds test, the colour
/// targets of [`RasterPipelineDesc::colors_before`].
fn read_before<'t>(
    targets: &RasterTargets<'t>,
    desc: &RasterPipelineDesc,
) -> Vec<(&'t wgpu::Texture, bool)> {
    let mut out = Vec::new();
    if desc.depth_bounds {
        if let Some(t) = targets.depth {
            out.push((&t.texture, true));
        }
    }
    for (n, t) in targets.colors.iter().enumerate() {
        if let (Some(t), true) = (t, desc.colors_before >> n & 1 != 0) {
            out.push((&t.texture, false));
        }
    }
    out
}

/// The occlusion counts of a [`Gpu::raster_draws_counted`] call, read with
/// [`Gpu::read_sample_counts`].
#[derive(Debug)]
pub struct SampleCounts {
    per_draw: Vec<CountSlot>,
    /// The buffer the counts are copied to, its size and the submission that writes it.
    readback: Option<(wgpu::Buffer, u64, wgpu::SubmissionIndex)>,
}

/// Where one draw's count is.
#[derive(Clone, Copy, Debug)]
enum CountSlot {
    NotCounted,
    /// Counted, but it drew nothing.
    Zero,
    Query(u32),
}

/// The device objects a checked draw is recorded with.
struct PreparedDraw {
    group0: wgpu::BindGroup,
    group1: wgpu::BindGroup,
    vertices: Option<wgpu::Buffer>,
    indices: Option<wgpu::Buffer>,
}

/// Whether draws with pipelines `a_desc` and `b_desc` into `a` and `b` attach the same
/// targets (the same colour slots, the same depth target): they can share a render pass.
fn same_attachments(
    a: &RasterTargets<'_>,
    a_desc: &RasterPipelineDesc,
    b: &RasterTargets<'_>,
    b_desc: &RasterPipelineDesc,
) -> bool {
    fn same<T>(x: Option<&T>, y: Option<&T>) -> bool {
        match (x, y) {
            (Some(x), Some(y)) => std::ptr::eq(x, y),
            (None, None) => true,
            _ => false,
        }
    }
    a_desc.targets.len() == b_desc.targets.len()
        && a.colors
            .iter()
            .zip(&b.colors)
            .take(a_desc.targets.len())
            .all(|(x, y)| same(*x, *y))
        && same(a.depth, b.depth)
}

/// Begins a render pass loading and storing `targets` (the colour slots of `desc`).
fn begin_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    targets: &RasterTargets<'_>,
    desc: &RasterPipelineDesc,
    occlusion: Option<&wgpu::QuerySet>,
) -> wgpu::RenderPass<'e> {
    let attachments: Vec<Option<wgpu::RenderPassColorAttachment<'_>>> = targets
        .colors
        .iter()
        .take(desc.targets.len())
        .map(|t| {
            t.map(|t| wgpu::RenderPassColorAttachment {
                view: &t.view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })
        })
        .collect();
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("raster draws"),
        color_attachments: &attachments,
        depth_stencil_attachment: targets
            .depth
            .map(|t| wgpu::RenderPassDepthStencilAttachment {
                view: &t.view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: t.format.has_stencil().then_some(wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                }),
            }),
        timestamp_writes: None,
        occlusion_query_set: occlusion,
        multiview_mask: None,
    })
}

/// Records `draw` into `pass` (begun on its targets).
fn record_raster_draw(
    pass: &mut wgpu::RenderPass<'_>,
    draw: &RasterDraw<'_>,
    c: &CheckedDraw,
    p: &PreparedDraw,
) {
    let (width, height) = c.size;
    let Some(buf) = &p.vertices else {
        return;
    };
    pass.set_pipeline(&c.entry.pipeline);
    pass.set_bind_group(0, &p.group0, &[]);
    pass.set_bind_group(1, &p.group1, &[]);
    pass.set_vertex_buffer(0, buf.slice(..));
    let v = draw.viewport.unwrap_or(RasterViewport {
        x: 0.0,
        y: 0.0,
        width: width as f32,
        height: height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    });
    pass.set_viewport(v.x, v.y, v.width, v.height, v.min_depth, v.max_depth);
    let s = c.scissor;
    pass.set_scissor_rect(s[0], s[1], s[2], s[3]);
    pass.set_stencil_reference(draw.stencil_reference);
    let k = draw.blend_constant;
    pass.set_blend_constant(wgpu::Color {
        r: k[0],
        g: k[1],
        b: k[2],
        a: k[3],
    });
    if let Some(indices) = &p.indices {
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
    }
    let range = |pass: &mut wgpu::RenderPass<'_>, r: std::ops::Range<u32>| {
        if p.indices.is_some() {
            pass.draw_indexed(r, 0, 0..1);
        } else {
            pass.draw(r, 0..1);
        }
    };
    match (&draw.faces, &c.back) {
        (Some(faces), Some(back)) => {
            let runs = faces.runs;
            for (i, &(first, is_back)) in runs.iter().enumerate() {
                let end = runs.get(i + 1).map_or(c.count, |r| r.0);
                if is_back {
                    pass.set_pipeline(&back.pipeline);
                    pass.set_stencil_reference(faces.back_reference);
                } else {
                    pass.set_pipeline(&c.entry.pipeline);
                    pass.set_stencil_reference(draw.stencil_reference);
                }
                range(pass, first..end);
            }
        }
        _ => range(pass, 0..c.count),
    }
}
