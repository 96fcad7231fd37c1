//! The CPU reference render: every draw of a frame through the reference vertex interpreter,
//! the rasterizer of [`crate::raster`] and the reference fragment interpreter, into surfaces
//! kept in a [`SurfaceMemory`] overlay of guest memory, so that later draws sample what
//! earlier ones rendered.
//!
//! Per draw, in order: the clears and image transfers recorded before it
//! ([`FrameEvents::between_draws`], transfers applied by [`super::transfer`]), state
//! ([`DrawState`]), vertices ([`vertex`]), primitives ([`geometry`]: assembly, clipping
//! against `w > ε` and the user clip planes, viewport, culling, polygon mode, polygon offset),
//! coverage inside the scissor ∩ surface clip (moved by the window offset) in 2×2 quads
//! ([`quads`]), the fragment program on those quads (in parallel), then the per-fragment
//! operations in primitive order ([`rop`]).
//!
//! Clears come from the capture: [`render_frame`] requires its [`FrameEvents`]
//! ([`FrameEvents::from_capture`]).

pub mod clear;
pub mod geometry;
pub mod quads;
pub mod rop;
pub mod vertex;

use super::msaa::msaa_note;
use super::state::{DrawState, FrameEvents};
use super::surface::{output_image, output_surface, OutputSurface, Overlay, SurfaceMemory};
use super::transfer::{apply_event, BetweenDraws};
use super::{
    DrawSnapshot, RenderError, RenderOptions, RenderTimings, RenderWarning, RenderedFrame,
};
use crate::interp::fragment::{run_fragment_with, FragmentState};
use crate::texture::cache::TextureCache;
use crate::texture::CaptureSampler;
use geometry::CoverRules;
use quads::{cover, InputContext, QuadJob};
use rop::Targets;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_program::fragment::decode as decode_fragment;
use std::time::Instant;

/// Quads shaded per interpreter call (bounds the memory of their outputs).
const QUADS_PER_BATCH: usize = 1 << 14;

/// Render `frame` on the CPU with the events of its capture.
pub fn render_frame(
    frame: &Frame,
    events: &FrameEvents,
    options: &RenderOptions,
) -> Result<RenderedFrame, RenderError> {
    let range = options.draws.clone().unwrap_or(0..frame.draws.len());
    let range = range.start.min(frame.draws.len())..range.end.min(frame.draws.len());
    if range.is_empty() {
        return Err(RenderError::NothingToRender(format!(
            "no draw in {:?} (the frame has {})",
            options.draws,
            frame.draws.len()
        )));
    }
    let output = output_surface(frame, events).ok_or_else(|| {
        RenderError::NothingToRender("no draw writes a usable colour target".into())
    })?;
    let mut timings = RenderTimings::default();
    let cache = (!options.no_texture_cache).then(TextureCache::default);
    let mut surfaces = SurfaceMemory::new();
    let mut warnings = Vec::new();
    let mut skipped = Vec::new();
    let mut per_draw = Vec::new();
    let mut rendered = 0usize;
    let between = events.between_draws();
    // In stream order, so `before_draw` never decreases: one pass over them for the frame.
    let mut pending = between.iter().peekable();
    for index in range.clone() {
        let Some(draw) = frame.draws.get(index) else {
            break;
        };
        let Some(base) = frame.memory(index) else {
            break;
        };
        // Clears and transfers before a range's first draw are applied too: a range starts
        // from the surfaces the frame cleared and copied, without the skipped draws' effects.
        while let Some(e) = pending.next_if(|e| e.before_draw() <= index) {
            for p in apply_between(frame, e, &mut surfaces, &base) {
                warnings.push(RenderWarning {
                    draw: Some(index),
                    message: p,
                });
            }
        }
        match render_draw(draw, &base, &mut surfaces, cache.as_ref(), &mut timings) {
            Ok(w) => {
                rendered += 1;
                warnings.extend(w.into_iter().map(|message| RenderWarning {
                    draw: Some(index),
                    message,
                }));
            }
            Err(reason) => skipped.push((index, reason)),
        }
        if options.per_draw {
            let t = Instant::now();
            per_draw.push(DrawSnapshot {
                draw: index,
                image: read_output(&output, &surfaces, &base),
            });
            timings.readback += t.elapsed().as_secs_f64();
        }
    }
    // Clears after the last rendered draw (before the frame ends).
    let last = range.end.saturating_sub(1);
    let base = frame
        .memory(last)
        .ok_or_else(|| RenderError::NothingToRender("no draw".into()))?;
    if range.end == frame.draws.len() {
        for e in between
            .iter()
            .filter(|e| e.before_draw() >= frame.draws.len())
        {
            for p in apply_between(frame, e, &mut surfaces, &base) {
                warnings.push(RenderWarning {
                    draw: None,
                    message: p,
                });
            }
        }
    }
    let t = Instant::now();
    let image = read_output(&output, &surfaces, &base);
    timings.readback += t.elapsed().as_secs_f64();
    if !between.is_empty() || rendered > 0 {
        let stale = surfaces.take_stale_reads();
        if stale > 0 {
            warnings.push(RenderWarning {
                draw: None,
                message: format!(
                    "{stale} texture reads overlapped rendered memory only in part and read the captured bytes"
                ),
            });
        }
    }
    Ok(RenderedFrame {
        image,
        source: output.source,
        draws_rendered: rendered,
        skipped,
        per_draw,
        warnings,
        timings,
        texture_cache: cache.map(|c| c.stats()).unwrap_or_default(),
    })
}

/// Apply a clear (over `base`) or a transfer (over the memory captured at its command); the
/// messages of what it could not do.
fn apply_between(
    frame: &Frame,
    event: &BetweenDraws<'_>,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
) -> Vec<String> {
    match event {
        BetweenDraws::Clear(c) => clear::apply_clear(c, surfaces, base),
        BetweenDraws::Transfer(t) => apply_event(t, surfaces, &frame.memory_at(t.command)),
    }
}

fn read_output(
    output: &OutputSurface,
    surfaces: &SurfaceMemory,
    base: &dyn GuestMemory,
) -> super::Rgba8Image {
    let overlay = Overlay { base, surfaces };
    output_image(output, &overlay)
}

/// Render one draw; `Err` is the reason it was skipped, `Ok` its warnings.
fn render_draw(
    draw: &Draw,
    base: &dyn GuestMemory,
    surfaces: &mut SurfaceMemory,
    cache: Option<&TextureCache>,
    timings: &mut RenderTimings,
) -> Result<Vec<String>, String> {
    let setup = Instant::now();
    let state = DrawState::from_draw(draw).map_err(|e| e.to_string())?;
    let mut warnings = state.shading.warnings.clone();
    warnings.extend(msaa_note(&draw.surface));
    if state.color_targets.is_empty() && state.depth_test.is_none() && state.stencil.is_none() {
        return Ok(warnings);
    }
    let fp = draw
        .fragment_program
        .as_ref()
        .ok_or_else(|| match draw.problems.first() {
            Some(p) => format!("no fragment program: {p}"),
            None => "no fragment program".to_string(),
        })?;
    let program = decode_fragment(&fp.ucode).map_err(|e| format!("fragment program: {e}"))?;
    let view = MemoryRef(base);
    let shaded = vertex::shade_vertices(draw, &view)?;
    warnings.extend(shaded.attribute_warnings.iter().cloned());
    for c in &shaded.unknown_constants {
        warnings.push(format!(
            "reads vertex constant c[{c}], which the capture does not hold (read as 0)"
        ));
    }
    if let Some(b) = &state.blend {
        if b.equation_rgb.is_signed() || b.equation_alpha.is_signed() {
            warnings.push(
                "signed blend equation rendered as its unsigned counterpart (as RPCS3 does)"
                    .to_string(),
            );
        }
    }
    let point_size_from_vertex = draw.output_mask & (1 << 5) != 0;
    let prims = geometry::build(
        &state,
        &shaded.outputs,
        &shaded.starts,
        point_size_from_vertex,
    );
    let bounds = state.window_bounds();
    let rules = CoverRules::from_state(&state);
    // Coverage is produced and shaded in batches of about QUADS_PER_BATCH quads, primitives
    // in order, so that memory stays bounded whatever the overdraw.
    let mut jobs: Vec<QuadJob> = Vec::new();
    let mut scratch = Vec::new();
    let mut next_prim = 0usize;
    let fill = |jobs: &mut Vec<QuadJob>, scratch: &mut Vec<_>, next_prim: &mut usize| {
        jobs.clear();
        while jobs.len() < QUADS_PER_BATCH {
            let Some(p) = prims.get(*next_prim) else {
                break;
            };
            cover(*next_prim as u32, p, bounds, &rules, scratch, jobs);
            *next_prim += 1;
        }
    };
    fill(&mut jobs, &mut scratch, &mut next_prim);
    if jobs.is_empty() {
        // Nothing covered: no target is touched.
        timings.setup += setup.elapsed().as_secs_f64();
        return Ok(warnings);
    }
    let units = program
        .instructions
        .iter()
        .filter(|i| i.opcode.is_texture())
        .fold(0u16, |m, i| {
            m | 1u16.checked_shl(u32::from(i.texture_unit)).unwrap_or(0)
        });
    // Textures that reach past a rendered surface read it as one range (see
    // `SurfaceMemory::extend_over`); the extent is a bound: 16 bytes per texel or the pitch,
    // two border rows, every depth slice.
    for (i, t) in draw.textures.iter().enumerate() {
        if units & (1 << i) == 0 || !t.control0.enabled {
            continue;
        }
        let Some(location) = t.location else { continue };
        let row = u64::from(t.pitch).max(u64::from(t.width) * 16);
        let len = row * (u64::from(t.height) + 2) * u64::from(t.depth.max(1));
        let len = u32::try_from(len.min(1 << 26)).unwrap_or(1 << 26);
        let len = len.min(u32::MAX - t.offset);
        surfaces.extend_over(location, t.offset, len, base);
    }
    let (sampler, texture_errors) = {
        let overlay = Overlay { base, surfaces };
        CaptureSampler::lenient(&draw.textures, &overlay, units, cache)
    };
    for e in texture_errors {
        warnings.push(format!("texture sampled as (0, 0, 0, 0): {e}"));
    }
    let mut targets = Targets::load(&state, &draw.surface, surfaces, base)?;
    timings.setup += setup.elapsed().as_secs_f64();

    let render = Instant::now();
    let fstate = FragmentState::new(draw.shader_control.raw);
    let ctx = InputContext {
        prims: &prims,
        outputs: &shaded.outputs,
        window: state.shader_window,
        varyings: state.shading.varyings(),
        sprite: state.primitives.point_sprite,
    };
    let (ox, oy) = state.window_offset;
    // The targets go back to the surface memory whatever happens to the draw.
    let shaded_all = (|| -> Result<(), String> {
        while !jobs.is_empty() {
            let outputs = run_fragment_with(
                &program,
                &fstate,
                jobs.len(),
                |i| jobs.get(i).map(|j| ctx.quad_inputs(j)).unwrap_or_default(),
                &sampler,
            )
            .map_err(|e| format!("fragment program execution: {e}"))?;
            for (job, out) in jobs.iter().zip(&outputs) {
                let front = prims.get(job.prim as usize).is_none_or(|p| p.front);
                for (l, cover) in job.lanes.iter().enumerate() {
                    let (Some(c), Some(lane)) = (cover, out.lanes.get(l)) else {
                        continue;
                    };
                    let (x, y) = job.pixel(l);
                    let (Some(sx), Some(sy)) = (x.checked_add(ox), y.checked_add(oy)) else {
                        continue;
                    };
                    if c.coverage < 1.0 {
                        // Smooth lines and polygons: the coverage multiplies the alpha of the
                        // colour outputs before the per-fragment operations (`raster::smooth`).
                        let mut lane = *lane;
                        for colour in &mut lane.colors {
                            colour[3] *= f64::from(c.coverage);
                        }
                        targets.fragment(&state, sx, sy, c.z, front, &lane);
                    } else {
                        targets.fragment(&state, sx, sy, c.z, front, lane);
                    }
                }
            }
            fill(&mut jobs, &mut scratch, &mut next_prim);
        }
        Ok(())
    })();
    targets.store(surfaces);
    shaded_all?;
    timings.render += render.elapsed().as_secs_f64();
    Ok(warnings)
}

/// A `&dyn GuestMemory` as a sized `GuestMemory` (the fetcher takes `impl GuestMemory`).
struct MemoryRef<'a>(&'a dyn GuestMemory);

impl GuestMemory for MemoryRef<'_> {
    fn read(
        &self,
        location: rsxtrace_capture::rrc::Location,
        offset: u32,
        len: u32,
    ) -> Option<&[u8]> {
        self.0.read(location, offset, len)
    }
}
