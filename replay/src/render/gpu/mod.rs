//! The GPU render: every draw of a frame with its recompiled programs on a wgpu device, with
//! its state, into real-format targets that persist across draws.
//!
//! Per draw, in frame order (clears and image transfers first, at their place between draws;
//! a transfer writes back the device targets over the bytes it reads, writes back and drops
//! those over the bytes it may write, and runs on the surface memory with the rule the CPU
//! render uses, `render::transfer`):
//! 1. state: [`DrawState`] (`render::state`, the decoding the CPU render uses too);
//! 2. vertex stage on the device (`vertex.rs`: `vp_compute` of the recompiled vertex program;
//!    constants the capture does not hold read as 0 and each draw that may read one gets a
//!    warning; the vertex texture units its TXL instructions sample are decoded from the
//!    captured memory at the draw, as the CPU render's vertex stage reads them, and uploaded),
//!    run for 64 draws at a time in parallel, submitted to the device while the 64 before
//!    them are drawn and waited for by their own submission, so that waiting for their
//!    results never waits for raster work;
//! 3. geometry on the CPU with the reference rasterizer's own functions (`geometry.rs`:
//!    assembly, clipping, facing, culling, polygon modes, viewport transform, lines and points
//!    as triangles);
//! 4. the surface state bound (`targets.rs`, `resident.rs`): its colour and depth targets
//!    taken from the device when an earlier state left them there (same place in memory,
//!    same format), else filled from the frame's surface memory; a target is written back
//!    to that memory only when its bytes are needed as memory (a draw samples them, a
//!    transfer reads them, the output image, snapshots, an observer), or another target or a
//!    transfer writes over them (then it is dropped too), or the kept targets outgrow their
//!    device memory budget;
//! 5. textures decoded by the interpreter's model from that surface memory (so a draw that
//!    samples an earlier target, including depth read as colour, reads what was rendered) and
//!    uploaded (`crate::texture::binding`, approximating what the device cannot sample),
//!    once per unit state and content of the bytes read;
//! 6. the fragment program recompiled and wrapped (`shader.rs`: WPOS, alpha test, depth
//!    bounds test, depth range, polygon offset), the pipeline from the state
//!    (`pipeline.rs`), and the draw,
//!    checked and queued on the bound targets (`targets.rs`): consecutive draws into the same
//!    surface state are recorded into one command buffer, in one render pass while they
//!    attach the same targets, and submitted together (at 64 draws, or before the targets
//!    are read back, cleared or unbound).
//!
//! A draw under conditional rendering is decided first (`render::conditional`); a draw that
//! counts its samples for an occlusion query (or every draw, with
//! [`RenderOptions::count_samples`]) is drawn inside an occlusion query on the device, whose
//! counts are read back only when a conditional draw's report needs them (and at the end with
//! `count_samples`).
//!
//! Recompiled programs and uploaded textures are kept with the device for later frames
//! (`kept.rs`), keyed by content, so that a second frame on the same device (a CI suite's,
//! a warm replay) takes them instead of recompiling, decoding and uploading again.
//!
//! [`RenderedFrame::surface_traffic`] counts the targets filled, read back, bound again from
//! the device, dropped for aliasing and evicted; [`RenderOptions::no_kept_surfaces`] writes
//! the targets back and drops them at every switch, as before they were kept.
//!
//! With a band ([`RenderOptions::band`], [`super::band`]) the draws the band's plan cuts get
//! its rows as their scissor's (the render pass scissor rectangle); a draw left with no row is
//! not submitted, but its targets are bound and marked written as the whole frame's draw's.
//!
//! The output is [`output_surface`]'s choice (the displayed buffer, else the last colour
//! target), read from the surface memory. Approximations of the device (see `pipeline.rs`,
//! `crate::texture::binding`) are reported once per draw as warnings.
//!
//! Clears come from [`FrameEvents`], which
//! [`render_frame`] requires: scan them from the capture with [`FrameEvents::from_capture`]
//! (`FrameEvents::default()` is the explicit "no clears" choice).

mod between;
mod blend;
mod geometry;
mod kept;
mod pipeline;
mod resident;
mod shader;
mod targets;
mod textures;
mod vertex;

use crate::render::conditional::{ConditionalDraw, OcclusionCounter};
use std::collections::HashMap;

use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;

use crate::texture::binding::{self};
use crate::texture::lod::{null_unit_lod, unit_lod};
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::Location;
use rsxtrace_gpu::{Gpu, GpuError, UploadedTexture};
use rsxtrace_program::fragment::decode as decode_fragment;
use rsxtrace_wgsl::fragment::{FragmentTranslateOptions, TextureDim, TextureLod};
use rsxtrace_wgsl::WgslModule;

use super::band::BandPlan;
use super::msaa::{alpha_to_coverage_note, msaa_note, sample_passes};
use super::observe::{DrawObserver, NoObserver};
use super::state::{DrawState, FrameEvents};
use super::surface::{output_image, output_surface, OutputSurface, Overlay, SurfaceMemory};
use super::{
    DrawShading, DrawSnapshot, OutputSource, RenderError, RenderOptions, RenderTimings,
    RenderWarning, RenderedFrame, Rgba8Image, ShadingStats,
};
use geometry::TargetMapping;
use resident::{BindError, Resident};
use shader::{DepthRule, WposRule, WrapperOptions};
use targets::{PendingDraw, PendingFaces, SetKey};

/// Render `frame` on `gpu` with its clears from `events`.
pub fn render_frame(
    gpu: &Gpu,
    frame: &Frame,
    events: &FrameEvents,
    options: &RenderOptions,
) -> Result<RenderedFrame, RenderError> {
    render_frame_observed(gpu, frame, events, options, &mut NoObserver)
}

/// [`render_frame`], showing `observer` the memory before and after each draw (the bound
/// targets written back to the surface memory first).
pub fn render_frame_observed(
    gpu: &Gpu,
    frame: &Frame,
    events: &FrameEvents,
    options: &RenderOptions,
    observer: &mut dyn DrawObserver,
) -> Result<RenderedFrame, RenderError> {
    let count = frame.draws.len();
    let range = options.draws.clone().unwrap_or(0..count);
    let range = range.start.min(count)..range.end.min(count);
    if range.is_empty() {
        return Err(RenderError::NothingToRender(format!(
            "draws {:?} of a frame with {count} draws",
            options.draws
        )));
    }
    let output = crate::render::output::output_or_error(
        frame,
        output_surface(frame, events),
        observer.replaces_the_output(),
    )?;
    let band = BandPlan::for_render(frame, events, output.as_ref(), range.clone(), options.band)?;
    let mut r = Renderer {
        gpu,
        frame,
        band,
        surfaces: SurfaceMemory::new(),
        resident: Resident::new(!options.no_kept_surfaces),
        vertex_programs: Default::default(),
        kept: gpu.kept(),
        textures: HashMap::new(),
        warnings: Vec::new(),
        timings: RenderTimings::default(),
        occlusion: OcclusionCounter::at(&frame.draws, events, range.start),
        count_samples: options.count_samples,
        passed: HashMap::new(),
        conditional: Vec::new(),
    };
    r.kept.begin_frame();
    let mut between = events
        .between_draws()
        .into_iter()
        // Clears and transfers before the range's first draw are applied too (as the CPU
        // render does).
        .filter(|e| e.before_draw() <= range.end)
        .peekable();
    let mut skipped = Vec::new();
    let mut per_draw = Vec::new();
    let mut rendered = 0;
    // The draws rendered or left out by conditional rendering, for `draw_shading`.
    let mut counted = Vec::new();
    let indices: Vec<usize> = range.clone().collect();
    let chunks: Vec<&[usize]> = indices.chunks(VERTEX_CHUNK).collect();
    let mut next = chunks.first().map(|c| r.start_vertex_stages(c));
    for (k, chunk) in chunks.iter().enumerate() {
        let Some(started) = next.take() else {
            break;
        };
        let stages = r.finish_vertex_stages(started);
        // The next chunk's vertex stages go to the device before this chunk's raster work,
        // so that they are done when that chunk is drawn.
        next = chunks.get(k + 1).map(|c| r.start_vertex_stages(c));
        for (&index, stage) in chunk.iter().zip(stages) {
            while let Some(e) = between.next_if(|e| e.before_draw() <= index) {
                r.between(&e)?;
            }
            let command = frame.draws[index].end_command;
            // Showing memory reads the targets back: only for an observer that looks.
            let looks = observer.active();
            if looks {
                r.observe(command, |memory| observer.before(index, memory))?;
            }
            r.occlusion.before(events, index);
            r.resolve_counts()?;
            if !r.renders(index) {
                // Not drawn: it passes no sample and touches nothing.
                r.occlusion.count(&frame.draws[index], Some(0));
                counted.push(index);
            } else {
                match stage
                    .map_err(DrawFailure::Skip)
                    .and_then(|s| r.draw(index, s))
                {
                    Ok(()) => {
                        rendered += 1;
                        r.occlusion.count_later(index, &frame.draws[index]);
                        counted.push(index);
                    }
                    Err(DrawFailure::Skip(reason)) => {
                        r.occlusion.count(&frame.draws[index], None);
                        skipped.push((index, reason));
                    }
                    Err(DrawFailure::Fatal(e)) => return Err(e),
                }
            }
            if looks {
                r.observe(command, |memory| observer.after(index, memory))?;
            }
            observer.drawn(index);
            if let (true, Some(output)) = (options.per_draw, &output) {
                let mut image = r.output_image(output, frame.draws[index].end_command)?;
                if let Some(b) = &r.band {
                    b.mask(&mut image);
                }
                per_draw.push(DrawSnapshot { draw: index, image });
            }
        }
    }
    // Clears after the last draw count only when the range reaches the end of the frame (as
    // in the reference render).
    if range.end == count {
        for e in between {
            r.between(&e)?;
        }
    }
    // The output is read from the memory the last rendered draw sees (as the reference render).
    let last = frame
        .draws
        .get(range.end - 1)
        .map_or(frame.command_count.saturating_sub(1), |d| d.end_command);
    if observer.looks_at_the_end() {
        r.observe(last, |memory| observer.finished(memory))?;
    }
    let mut image = match &output {
        Some(o) => r.output_image(o, last)?,
        None => Rgba8Image::empty(),
    };
    if let Some(b) = &r.band {
        b.mask(&mut image);
    }
    let draw_shading = if options.count_samples {
        r.read_counts()?;
        counted
            .into_iter()
            .map(|draw| DrawShading {
                draw,
                shading: ShadingStats {
                    fragments_passed: r.passed.get(&draw).copied().unwrap_or(0),
                    ..ShadingStats::default()
                },
            })
            .collect()
    } else {
        Vec::new()
    };
    (r.warnings).extend(super::tile_regions::warnings(
        &super::tile_regions::tiled_reads(frame, events, range.clone()),
    ));
    let stale = r.surfaces.take_stale_reads();
    if stale > 0 {
        r.warnings.push(RenderWarning {
            draw: None,
            message: format!(
                "{stale} texture reads overlapped a rendered surface only in part and read \
                 the captured bytes"
            ),
        });
    }
    Ok(RenderedFrame {
        image,
        source: output.map_or(OutputSource::NoColorTarget, |o| o.source),
        draws_rendered: rendered,
        skipped,
        per_draw,
        warnings: r.warnings,
        timings: r.timings,
        texture_cache: Default::default(),
        shading: Default::default(),
        draw_shading,
        surface_traffic: r.resident.traffic,
        conditional: r.conditional,
        tiled_draws: 0,
        band: r.band.as_ref().map(|b| b.outcome()),
    })
}

/// Draws whose vertex stages run together (in parallel, submitted to the device while the
/// chunk before is drawn, so that waiting for their results does not wait for raster work).
const VERTEX_CHUNK: usize = 64;

/// A chunk's vertex stages on their way ([`Renderer::start_vertex_stages`]).
struct ChunkStages {
    /// Per draw of the chunk: its place in the batch, or why it has no vertex stage.
    slots: Vec<Result<usize, String>>,
    /// The batch on the device.
    pending: vertex::PendingStages,
    /// Warnings met while starting (vertex textures), given when the chunk is drawn.
    warnings: Vec<RenderWarning>,
}

/// Why a draw was not rendered.
enum DrawFailure {
    /// The draw is skipped with this reason; the frame goes on.
    Skip(String),
    /// The device failed: the frame stops.
    Fatal(RenderError),
}

impl From<String> for DrawFailure {
    fn from(s: String) -> Self {
        DrawFailure::Skip(s)
    }
}

fn fatal(e: GpuError) -> RenderError {
    RenderError::Gpu(e.to_string())
}

/// A draw-level device error: a readback or device failure stops the frame, anything else
/// (a module or argument wgpu refuses) skips the draw.
fn draw_gpu_error(e: GpuError) -> DrawFailure {
    match e {
        GpuError::Readback { .. } | GpuError::Device { .. } | GpuError::NoAdapter { .. } => {
            DrawFailure::Fatal(fatal(e))
        }
        e => DrawFailure::Skip(format!("GPU: {e}")),
    }
}

/// What every pass of one draw shares ([`Renderer::draw_pass`]).
#[derive(Clone, Copy)]
struct Pass<'a> {
    index: usize,
    stage: &'a vertex::VertexStage,
    fragment: &'a WgslModule,
    varyings: u16,
    textures: &'a [(u8, Arc<UploadedTexture>)],
    /// The bound target's size.
    size: (u32, u32),
    /// The draw's window bounds before a band restricts them.
    whole_bounds: crate::raster::PixelRect,
    with_depth: bool,
    /// Points take their size from PSZ (`cpu::vertex::point_size_from_vertex`).
    point_size_from_vertex: bool,
}

/// Seconds since `t`.
fn since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

/// The texture units a fragment module declares (group 1, unit = binding / 2).
fn declared_units(module: &WgslModule) -> u16 {
    let mut units = 0u16;
    for (_, g) in module.module.global_variables.iter() {
        if let Some(b) = &g.binding {
            if b.group == 1 && b.binding / 2 < 16 {
                units |= 1 << (b.binding / 2);
            }
        }
    }
    units
}

struct Renderer<'a> {
    gpu: &'a Gpu,
    frame: &'a Frame,
    /// The band the draws are cut to ([`RenderOptions::band`]).
    band: Option<BandPlan>,
    surfaces: SurfaceMemory,
    /// The bound surface state and the targets kept on the device (`resident.rs`).
    resident: Resident,
    vertex_programs: vertex::VertexPrograms,
    /// Recompiled programs and uploaded textures kept with the device across frames
    /// (`kept.rs`).
    kept: Arc<kept::KeptModules>,
    /// Uploaded textures by (unit state as text, `texture::cache::content_key` of its bytes).
    textures: HashMap<(String, u128), Arc<UploadedTexture>>,
    warnings: Vec<RenderWarning>,
    timings: RenderTimings,
    /// The occlusion counter (`render::conditional`), given the device's counts when a
    /// conditional draw's report needs them.
    occlusion: OcclusionCounter,
    /// Whether every draw's samples are counted ([`RenderOptions::count_samples`]).
    count_samples: bool,
    /// The samples each counted draw passed, as read from the device so far.
    passed: HashMap<usize, u64>,
    /// The conditional draws so far.
    conditional: Vec<ConditionalDraw>,
}

impl Renderer<'_> {
    /// Reads the occlusion counts the conditional rendering in force needs: when its report
    /// counted draws not read yet, every count queued so far is read from the device (the
    /// bound state's queue submitted first).
    fn resolve_counts(&mut self) -> Result<(), RenderError> {
        if !self.occlusion.needs_counts() {
            return Ok(());
        }
        self.read_counts()?;
        // A counted draw with nothing on the device (no pixel left) passed nothing.
        let passed = &self.passed;
        self.occlusion
            .resolve(|d| Some(passed.get(&d).copied().unwrap_or(0)));
        Ok(())
    }

    /// Reads every occlusion count queued so far from the device (the bound state's queue
    /// submitted first) into `passed`.
    fn read_counts(&mut self) -> Result<(), RenderError> {
        let counted = self
            .resident
            .take_counts(self.gpu)
            .map_err(RenderError::Gpu)?;
        for (owners, counts) in &counted {
            let values = self.gpu.read_sample_counts(counts).map_err(fatal)?;
            for (&draw, value) in owners.iter().zip(values) {
                // A draw of several passes (samples) sums them.
                *self.passed.entry(draw).or_default() += value.unwrap_or(0);
            }
        }
        Ok(())
    }

    /// Whether draw `index` renders under conditional rendering (recorded, and warned when
    /// its report is unknown); `true` for every other draw.
    fn renders(&mut self, index: usize) -> bool {
        let Some(base) = self.frame.memory(index) else {
            return true;
        };
        let Some(c) = self.occlusion.decide(index, &base) else {
            return true;
        };
        if c.warns() {
            self.warn(Some(index), c.describe());
        }
        self.conditional.push(c);
        c.drawn
    }

    fn warn(&mut self, draw: Option<usize>, message: String) {
        self.warnings.push(RenderWarning { draw, message });
    }

    /// Writes back every device target drawn to since its last write-back (they stay on
    /// the device).
    fn write_back_all(&mut self, base: &dyn GuestMemory) -> Result<(), RenderError> {
        let written =
            self.resident
                .write_back_all(self.gpu, &mut self.surfaces, base, &mut self.timings);
        self.note_failures();
        written.map_err(RenderError::Gpu)
    }

    /// Writes back the device targets drawn to over any of `spans` (memory, start, end).
    fn write_back_over(
        &mut self,
        base: &dyn GuestMemory,
        spans: &[(Location, u64, u64)],
    ) -> Result<(), RenderError> {
        let written = self.resident.write_back_over(
            self.gpu,
            &mut self.surfaces,
            base,
            &mut self.timings,
            spans,
        );
        self.note_failures();
        written.map_err(RenderError::Gpu)
    }

    /// Queued draws the device refused when their batch was submitted: warnings (each was
    /// checked when queued, so this is rare; the other draws of the batch were drawn).
    fn note_failures(&mut self) {
        for (draw, why) in self.resident.take_failures() {
            self.warn(Some(draw), format!("not drawn: {why}"));
        }
    }

    /// Binds the surface state `key` (its targets kept on the device or filled from memory,
    /// `resident.rs`).
    fn bind(&mut self, key: SetKey, base: &dyn GuestMemory) -> Result<(), DrawFailure> {
        let bound = self
            .resident
            .bind(self.gpu, key, &mut self.surfaces, base, &mut self.timings);
        self.note_failures();
        bound.map_err(|e| match e {
            BindError::WriteBack(e) => DrawFailure::Fatal(RenderError::Gpu(e)),
            BindError::Open(e) => DrawFailure::Skip(e),
        })
    }

    /// Show `look` the memory at `command` with the rendered surfaces on top, after writing
    /// back the device targets.
    fn observe(
        &mut self,
        command: usize,
        look: impl FnOnce(&dyn GuestMemory),
    ) -> Result<(), RenderError> {
        let base = self.frame.memory_at(command);
        self.write_back_all(&base)?;
        let t = Instant::now();
        look(&Overlay {
            base: &base,
            surfaces: &self.surfaces,
        });
        self.timings.readback += since(t);
        Ok(())
    }

    /// The output surface as an image, after writing back the device targets over it.
    fn output_image(
        &mut self,
        output: &OutputSurface,
        command: usize,
    ) -> Result<super::Rgba8Image, RenderError> {
        let base = self.frame.memory_at(command);
        let start = u64::from(output.layout.offset);
        self.write_back_over(
            &base,
            &[(
                output.layout.location,
                start,
                start + output.layout.byte_len(),
            )],
        )?;
        let t = Instant::now();
        let image = output_image(
            output,
            &Overlay {
                base: &base,
                surfaces: &self.surfaces,
            },
        );
        self.timings.readback += since(t);
        Ok(image)
    }

    /// The recompiled fragment program of a draw.
    fn fragment_module(
        &mut self,
        index: usize,
        dims: [TextureDim; 16],
        lod: [TextureLod; 16],
    ) -> Result<(Arc<WgslModule>, u16), String> {
        let draw = &self.frame.draws[index];
        let fp = draw.fragment_program.as_ref().ok_or_else(|| {
            let why: Vec<String> = draw.problems.iter().map(|p| p.to_string()).collect();
            if why.is_empty() {
                "no fragment program".to_string()
            } else {
                format!("no fragment program: {}", why.join("; "))
            }
        })?;
        let options = FragmentTranslateOptions {
            control: draw.shader_control.raw,
            texture_dims: dims,
            texture_lod: lod,
            ..Default::default()
        };
        // Keyed by the whole microcode, inline constants included: the recompiled module
        // embeds them, so draws sharing `fp.hash` (constants masked) still need their own.
        self.kept.fragment(&fp.ucode, options, || {
            let program =
                decode_fragment(&fp.ucode).map_err(|e| format!("fragment program: {e}"))?;
            let module = rsxtrace_wgsl::fragment::translate(&program, &options)
                .map_err(|e| format!("fragment program translation: {e}"))?;
            Ok((Arc::new(module), program.inputs_read()))
        })
    }

    fn wrapped(
        &mut self,
        fragment: &WgslModule,
        options: &WrapperOptions,
    ) -> Result<Arc<WgslModule>, String> {
        self.kept
            .wrapped(fragment.hash, format!("{options:?}"), || {
                shader::wrap(fragment, options)
                    .map(Arc::new)
                    .map_err(|e| format!("render wrapper does not validate: {e}"))
            })
    }

    /// Starts the vertex stages of draws `chunk`: programs recompiled (cached), inputs
    /// fetched in parallel on the CPU, then the chunk's vertex programs submitted to the
    /// device in one batch, without waiting ([`Renderer::finish_vertex_stages`] waits for
    /// that submission alone, not one round trip per draw).
    fn start_vertex_stages(&mut self, chunk: &[usize]) -> ChunkStages {
        let t = Instant::now();
        let modules: Vec<Result<vertex::VertexModule, String>> = chunk
            .iter()
            .map(|&i| {
                self.vertex_programs
                    .get(&self.frame.draws[i], &self.kept, 0)
            })
            .collect();
        self.timings.pipelines += since(t);
        let t = Instant::now();
        // The vertex textures' warnings are given when the chunk is drawn, in draw order.
        let earlier = self.warnings.len();
        let mut modules = modules;
        let mut textures: Vec<vertex::BoundVertexTextures> = Vec::with_capacity(chunk.len());
        for (&i, m) in chunk.iter().zip(modules.iter_mut()) {
            let Ok(module) = m else {
                textures.push(Default::default());
                continue;
            };
            let (bound, null) = self.vertex_textures(i, module.txl_units);
            if null != 0 {
                // Units on the null texture: recompiled with the null unit's state, so that
                // no border is added to it (the CPU render reads (0, 0, 0, 0) there).
                *m = self
                    .vertex_programs
                    .get(&self.frame.draws[i], &self.kept, null);
            }
            textures.push(bound);
        }
        let warnings = self.warnings.split_off(earlier);
        self.timings.setup += since(t);
        let t = Instant::now();
        let (gpu, frame) = (self.gpu, self.frame);
        let prepared: Vec<Result<vertex::Prepared, String>> = chunk
            .par_iter()
            .zip(modules)
            .zip(textures)
            .map(|((&i, m), t)| m.and_then(|m| vertex::prepare(&m, t, frame, i)))
            .collect();
        let mut ready = Vec::new();
        let mut slots = Vec::with_capacity(prepared.len());
        for p in prepared {
            match p {
                Ok(p) => {
                    slots.push(Ok(ready.len()));
                    ready.push(p);
                }
                Err(e) => slots.push(Err(e)),
            }
        }
        let pending = vertex::submit_batch(gpu, ready);
        self.timings.render += since(t);
        ChunkStages {
            slots,
            pending,
            warnings,
        }
    }

    /// The vertex stages [`Renderer::start_vertex_stages`] started, in its chunk's order.
    fn finish_vertex_stages(
        &mut self,
        chunk: ChunkStages,
    ) -> Vec<Result<vertex::VertexStage, String>> {
        let t = Instant::now();
        let ChunkStages {
            slots,
            pending,
            warnings,
        } = chunk;
        self.warnings.extend(warnings);
        let mut ran: Vec<Option<Result<vertex::VertexStage, String>>> =
            pending.finish(self.gpu).into_iter().map(Some).collect();
        let stages = slots
            .into_iter()
            .map(|slot| match slot {
                Ok(k) => ran[k]
                    .take()
                    .unwrap_or_else(|| Err("vertex stage missing from its batch".into())),
                Err(e) => Err(e),
            })
            .collect();
        self.timings.render += since(t);
        stages
    }

    fn draw(&mut self, index: usize, stage: vertex::VertexStage) -> Result<(), DrawFailure> {
        let frame = self.frame;
        let draw = &frame.draws[index];
        let t_setup = Instant::now();
        let mut state = DrawState::from_draw(draw).map_err(|e| e.to_string())?;
        let whole_bounds = state.window_bounds();
        if let Some(b) = &self.band {
            b.restrict(index, &mut state);
        }
        let state = state;
        for w in &state.shading.warnings {
            self.warn(Some(index), w.clone());
        }
        let key = SetKey::of(&draw.surface)?;
        let uses_depth = state.reads_depth_buffer();
        if let Some(why) = uses_depth
            .then(|| targets::depth_refused(&draw.surface))
            .flatten()
        {
            return Err(why.into());
        }
        let with_depth = key.depth.is_some() && uses_depth;
        if key.colors.is_empty() && !with_depth {
            // Nothing to write: rendered, with no effect (as in the reference render).
            return Ok(());
        }
        let base = frame
            .memory(index)
            .ok_or_else(|| format!("no memory view for draw {index}"))?;
        self.timings.setup += since(t_setup);

        // Programs (pipelines).
        let t = Instant::now();
        let dims = std::array::from_fn(|u| binding::shader_dimension(&draw.textures[u]));
        // The shader chooses levels with the shared LOD rule from the units' state.
        let lod = std::array::from_fn(|u| unit_lod(&draw.textures[u]));
        let (fragment, inputs_read) = self.fragment_module(index, dims, lod)?;
        let varyings = shader::passed_varyings(inputs_read);
        self.timings.pipelines += since(t);

        for w in msaa_note(&draw.surface)
            .into_iter()
            .chain(alpha_to_coverage_note(draw))
        {
            self.warn(Some(index), w);
        }
        if let Some(w) = stage.unknown_constants.clone() {
            self.warn(Some(index), w);
        }
        for w in &stage.attribute_warnings {
            self.warn(Some(index), w.clone());
        }

        // Surfaces.
        self.bind(key, &base)?;
        let t = Instant::now();
        let Some((width, height)) = self.resident.bound().and_then(|b| b.key.size()) else {
            return Err(DrawFailure::Skip("no target size".to_string()));
        };

        // Textures.
        let units = declared_units(&fragment);
        let mut textures: Vec<(u8, Arc<UploadedTexture>)> = Vec::new();
        let mut null_lod = lod;
        for unit in 0..16u8 {
            if units & (1 << unit) != 0 {
                let dim = binding::dimension_of(&draw.textures[usize::from(unit)]);
                let (texture, null) = self.texture(index, unit, dim, &base)?;
                if null {
                    null_lod[usize::from(unit)] = null_unit_lod();
                }
                textures.push((unit, texture));
            }
        }
        // A unit that could not be decoded samples the null texture: recompiled with the null
        // state, the shader reads (0, 0, 0, 0) there as the CPU render does (no comparison,
        // conversion, expansion or border added to it).
        let fragment = if null_lod == lod {
            fragment
        } else {
            let t = Instant::now();
            let (module, _) = self.fragment_module(index, dims, null_lod)?;
            self.timings.pipelines += since(t);
            module
        };
        self.timings.setup += since(t);

        // A surface whose samples lie off their grid cells' centres: one pass per sample
        // (`msaa::sample_passes`).
        let passes = sample_passes(&state);
        let passes = if passes.is_empty() {
            vec![state]
        } else {
            passes
        };
        let pass = Pass {
            index,
            stage: &stage,
            fragment: &fragment,
            varyings,
            textures: &textures,
            size: (width, height),
            whole_bounds,
            with_depth,
            point_size_from_vertex: crate::render::cpu::vertex::point_size_from_vertex(draw),
        };
        for state in &passes {
            self.draw_pass(&pass, state)?;
        }
        Ok(())
    }

    /// Queue one pass of draw `pass.index` with `state` (the draw's, or one sample's).
    fn draw_pass(&mut self, pass: &Pass<'_>, state: &DrawState) -> Result<(), DrawFailure> {
        let Pass {
            index,
            stage,
            fragment,
            varyings,
            textures,
            size: (width, height),
            whole_bounds,
            with_depth,
            point_size_from_vertex,
        } = *pass;
        let draw = &self.frame.draws[index];
        // Geometry.
        let t = Instant::now();
        let map = TargetMapping {
            width,
            height,
            offset: state.window_offset,
        };
        let records = geometry::build(
            state,
            &stage.outputs,
            &stage.starts,
            point_size_from_vertex,
            &map,
            varyings,
            whole_bounds,
        );
        let textures = textures.to_vec();
        self.timings.setup += since(t);

        // Pipeline.
        let t = Instant::now();
        let outputs = if state.color_format.is_some() {
            state.color_targets.len().min(4)
        } else {
            0
        };
        let sw = &state.shader_window;
        let targets = ((1u16 << outputs) - 1) as u8;
        let eight_bit = state.takes_8bit_rule();
        let options = WrapperOptions {
            targets,
            unorm8: if eight_bit { targets } else { 0 },
            srgb: state.srgb_output,
            alpha_test: state
                .alpha_test
                .map(|a| (pipeline::compare(a.func), a.reference)),
            alpha_quantised: eight_bit,
            // The clamp takes precedence over the clip (`rop::depth_range`).
            depth_clip: (state.depth_clip && !state.depth_clamp).then_some(state.depth_range),
            depth: with_depth.then(|| DepthRule {
                export: draw.shader_control.depth_export,
                clamp: state.depth_clamp.then_some(state.depth_range),
                format: state
                    .depth_format
                    .unwrap_or(crate::render::state::DepthFormat::Z24S8),
            }),
            wpos: WposRule {
                x_offset: -(state.window_offset.0 as f32),
                y_offset: -(state.window_offset.1 as f32),
                origin_bottom: sw.origin == 1,
                height: f32::from(sw.height),
                centre: if sw.pixel_center == 1 { 0.0 } else { 0.5 },
                grid: state.sample_grid,
            },
            fog: state.shading.fog,
            texcoord_2d: state.shading.texcoord_2d,
            sample_mask: state.sample_mask,
            alpha_to_one: state.alpha_to_one,
            alpha_to_coverage: state.alpha_to_coverage,
            depth_bounds: with_depth && state.depth_bounds.is_some(),
            logic_op: pipeline::shader_logic_op(state),
            blend: pipeline::shader_blend(state, self.gpu.blends_float32()),
            varyings,
        };
        let module = self.wrapped(fragment, &options)?;
        let dp = pipeline::draw_pipeline(
            state,
            with_depth,
            self.gpu.blends_float32(),
            shader::vertex_attributes(varyings),
        );
        for n in &dp.notes {
            self.warn(Some(index), n.clone());
        }
        for desc in std::iter::once(&dp.desc).chain(dp.back.as_ref().map(|b| &b.0)) {
            self.gpu
                .prepare_raster_pipeline(&module, desc)
                .map_err(draw_gpu_error)?;
        }
        self.timings.pipelines += since(t);

        // Draw.
        if records.data.is_empty() {
            return Ok(());
        }
        let t = Instant::now();
        let bounds = state.window_bounds();
        let (ox, oy) = state.window_offset;
        let scissor = [
            bounds.x0.saturating_add(ox),
            bounds.y0.saturating_add(oy),
            bounds.x1.saturating_sub(bounds.x0),
            bounds.y1.saturating_sub(bounds.y0),
        ];
        let Some(set) = self.resident.bound() else {
            return Err(DrawFailure::Skip("no surface bound".to_string()));
        };
        if bounds.is_empty() {
            // Every pixel is scissored away (a draw cut to a band it does not reach): the
            // device would draw nothing, and a rectangle past the target is invalid.
            set.mark_drawn();
            self.timings.render += since(t);
            return Ok(());
        }
        let depth_bounds = state
            .depth_bounds
            .filter(|_| dp.desc.depth_bounds)
            .map(|(lo, hi)| [lo, hi]);
        let queued = set.queue(
            self.gpu,
            PendingDraw {
                index,
                module,
                desc: dp.desc,
                vertices: records.data,
                indices: records.indices,
                textures,
                scissor,
                stencil_reference: dp.stencil_reference,
                blend_constant: dp.blend_constant,
                depth_bounds,
                faces: dp.back.map(|(back_desc, back_reference)| PendingFaces {
                    back_desc,
                    back_reference,
                    runs: records.faces,
                }),
                outputs,
                with_depth,
                count_samples: self.count_samples || draw.raster.occlusion.zpass_pixel_count,
            },
        );
        // A full queue was submitted: draws of it the device refused are warnings.
        self.note_failures();
        queued.map_err(draw_gpu_error)?;
        self.timings.render += since(t);
        Ok(())
    }
}
