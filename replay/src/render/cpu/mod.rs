//! The CPU reference render: every draw of a frame through the reference vertex interpreter,
//! the rasterizer of [`crate::raster`] and the reference fragment interpreter, into surfaces
//! kept in a [`SurfaceMemory`] overlay of guest memory, so that later draws sample what
//! earlier ones rendered.
//!
//! Per draw, in order: the clears and image transfers recorded before it
//! ([`FrameEvents::between_draws`], transfers applied by [`super::transfer`]), state
//! ([`DrawState`]), vertices ([`vertex`]) and primitives
//! ([`geometry`]: assembly, clipping against `w > ε` and the user clip planes, viewport,
//! culling, polygon mode, polygon offset; those that cover no pixel centre of the draw's
//! bounds left out) — these three prepared ahead of the draw on threads of their own
//! ([`ahead`]) — then per screen tile ([`tiles`]: bands of rows, in parallel; one tile for
//! small draws) ([`pass`]): coverage inside the scissor ∩ surface clip (moved by the window
//! offset) in 2×2 quads ([`quads`]), less the quads sure to fail the depth test
//! ([`early_depth`]), the fragment program on those quads (in parallel), then the
//! per-fragment operations in primitive order ([`rop`]).
//!
//! A draw under conditional rendering is decided before it runs (`super::conditional`): the
//! fragments each draw writes are the samples its occlusion queries count.
//!
//! With a band ([`RenderOptions::band`], [`super::band`]) the draws the band's plan cuts get
//! its rows as their scissor's; a cut draw that covers pixels only outside them still loads
//! and stores its targets, as the whole frame's draw does, so that the surface memory holds
//! the same regions (and later reads see the same bytes).
//!
//! Clears come from the capture: [`render_frame`] requires its [`FrameEvents`]
//! ([`FrameEvents::from_capture`]).

pub mod ahead;
pub mod clear;
pub mod early_depth;
pub mod geometry;
pub mod pass;
pub mod quads;
pub mod rop;
pub mod tiles;
pub mod vertex;

use super::band::BandPlan;
use super::conditional::{ConditionalDraw, OcclusionCounter};
use super::history::{PixelEvent, PixelWatch};
use super::msaa::{alpha_to_coverage_note, msaa_note, sample_passes};
use super::observe::{DrawObserver, NoObserver};
use super::state::{DrawState, FrameEvents};
use super::surface::{output_image, output_surface, OutputSurface, Overlay, SurfaceMemory};
use super::tile_regions;
use super::transfer::{apply_event, BetweenDraws};
use super::{
    DrawShading, DrawSnapshot, OutputSource, RenderError, RenderOptions, RenderTimings,
    RenderWarning, RenderedFrame, Rgba8Image, ShadingStats, Tiling,
};
use crate::interp::fragment::FragmentState;
use crate::raster::PixelRect;
use crate::texture::cache::TextureCache;
use crate::texture::CaptureSampler;
use geometry::CoverRules;
use pass::{Coverage, Cursor, Pass};
use quads::InputContext;
use rayon::prelude::*;
use rop::Targets;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_program::fragment::decode as decode_fragment;
use std::time::Instant;

/// Quads shaded per interpreter call, shared among a draw's tiles (bounds the memory of
/// their outputs).
const QUADS_PER_BATCH: usize = 1 << 14;

/// The fewest quads a tile shades per interpreter call.
const MIN_TILE_BATCH: usize = 1 << 10;

/// Render `frame` on the CPU with the events of its capture.
pub fn render_frame(
    frame: &Frame,
    events: &FrameEvents,
    options: &RenderOptions,
) -> Result<RenderedFrame, RenderError> {
    render_frame_observed(frame, events, options, &mut NoObserver)
}

/// [`render_frame`], showing `observer` the memory before and after each draw.
pub fn render_frame_observed(
    frame: &Frame,
    events: &FrameEvents,
    options: &RenderOptions,
    observer: &mut dyn DrawObserver,
) -> Result<RenderedFrame, RenderError> {
    render_frame_watched(frame, events, options, observer, None)
}

/// [`render_frame_observed`], recording what reaches `watch`'s pixel
/// ([`crate::render::history`]).
pub(crate) fn render_frame_watched(
    frame: &Frame,
    events: &FrameEvents,
    options: &RenderOptions,
    observer: &mut dyn DrawObserver,
    watch: Option<&PixelWatch>,
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
    let output = crate::render::output::output_or_error(
        frame,
        output_surface(frame, events),
        observer.replaces_the_output() || watch.is_some(),
    )?;
    let band = BandPlan::for_render(frame, events, output.as_ref(), range.clone(), options.band)?;
    let mut timings = RenderTimings::default();
    let cache = (!options.no_texture_cache).then(TextureCache::default);
    let mut surfaces = SurfaceMemory::new();
    let mut warnings = Vec::new();
    let mut skipped = Vec::new();
    let mut per_draw = Vec::new();
    let mut rendered = 0usize;
    let mut stats = FrameStats::default();
    let mut draw_shading = Vec::new();
    let mut occlusion = OcclusionCounter::at(&frame.draws, events, range.start);
    let mut conditional = Vec::new();
    let between = events.between_draws();
    // In stream order, so `before_draw` never decreases: one pass over them for the frame.
    let mut pending = between.iter().peekable();
    ahead::with_draws_ahead(frame, range.clone(), |ahead| {
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
                for p in apply_watched(frame, e, &mut surfaces, &base, watch) {
                    warnings.push(RenderWarning {
                        draw: Some(index),
                        message: p,
                    });
                }
            }
            observer.before(
                index,
                &Overlay {
                    base: &base,
                    surfaces: &surfaces,
                },
            );
            if let Some(w) = watch {
                w.set_draw(index);
            }
            let waited = Instant::now();
            let prepared = ahead.take(index);
            timings.setup += waited.elapsed().as_secs_f64();
            occlusion.before(events, index);
            let decided = occlusion.decide(index, &base);
            if let Some(c) = decided {
                note_conditional(&c, &mut warnings);
                conditional.push(c);
            }
            let ctx = DrawContext {
                draw,
                band: band.as_ref().filter(|b| b.is_banded(index)),
                base: &base,
                cache: cache.as_ref(),
                options,
                watch,
            };
            let before = stats.shading;
            let outcome = if decided.is_some_and(|c| !c.drawn) {
                // Not drawn: it passes no sample and touches nothing.
                drop(prepared);
                Ok(Vec::new())
            } else {
                render_draw(&ctx, prepared, &mut surfaces, &mut timings, &mut stats)
                    .inspect(|_| rendered += 1)
            };
            match outcome {
                Ok(w) => {
                    let shading = stats.shading.since(before);
                    occlusion.count(draw, Some(shading.fragments_passed));
                    draw_shading.push(DrawShading {
                        draw: index,
                        shading,
                    });
                    warnings.extend(w.into_iter().map(|message| RenderWarning {
                        draw: Some(index),
                        message,
                    }));
                }
                Err(reason) => {
                    occlusion.count(draw, None);
                    skipped.push((index, reason));
                }
            }
            observer.after(
                index,
                &Overlay {
                    base: &base,
                    surfaces: &surfaces,
                },
            );
            observer.drawn(index);
            if let (true, Some(output)) = (options.per_draw, &output) {
                let t = Instant::now();
                let mut image = read_output(output, &surfaces, &base);
                if let Some(b) = &band {
                    b.mask(&mut image);
                }
                per_draw.push(DrawSnapshot { draw: index, image });
                timings.readback += t.elapsed().as_secs_f64();
            }
        }
    });
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
            for p in apply_watched(frame, e, &mut surfaces, &base, watch) {
                warnings.push(RenderWarning {
                    draw: None,
                    message: p,
                });
            }
        }
    }
    if let Some(w) = watch {
        w.finish(&Overlay {
            base: &base,
            surfaces: &surfaces,
        });
    }
    if observer.looks_at_the_end() {
        observer.finished(&Overlay {
            base: &base,
            surfaces: &surfaces,
        });
    }
    let t = Instant::now();
    let mut image = output
        .as_ref()
        .map_or_else(Rgba8Image::empty, |o| read_output(o, &surfaces, &base));
    if let Some(b) = &band {
        b.mask(&mut image);
    }
    timings.readback += t.elapsed().as_secs_f64();
    warnings.extend(tile_regions::warnings(&tile_regions::tiled_reads(
        frame, events, range,
    )));
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
        source: output.map_or(OutputSource::NoColorTarget, |o| o.source),
        draws_rendered: rendered,
        skipped,
        per_draw,
        warnings,
        timings,
        texture_cache: cache.map(|c| c.stats()).unwrap_or_default(),
        tiled_draws: stats.tiled_draws,
        band: band.map(|b| b.outcome()),
        shading: stats.shading,
        draw_shading,
        surface_traffic: Default::default(),
        conditional,
    })
}

/// A conditional draw whose report the replay does not know is drawn, with a warning; so is
/// one RPCS3 may decide otherwise ([`ConditionalDraw::warns`]).
fn note_conditional(c: &ConditionalDraw, warnings: &mut Vec<RenderWarning>) {
    if c.warns() {
        warnings.push(RenderWarning {
            draw: Some(c.draw),
            message: c.describe(),
        });
    }
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

/// [`apply_between`], recording the event in `watch` when it clears the watched pixel or
/// changes its bytes.
fn apply_watched(
    frame: &Frame,
    event: &BetweenDraws<'_>,
    surfaces: &mut SurfaceMemory,
    base: &dyn GuestMemory,
    watch: Option<&PixelWatch>,
) -> Vec<String> {
    let Some(w) = watch else {
        return apply_between(frame, event, surfaces, base);
    };
    let read = |surfaces: &SurfaceMemory| {
        let overlay = Overlay { base, surfaces };
        (w.value(&overlay), w.bytes(&overlay))
    };
    let (before, before_bytes) = read(surfaces);
    let problems = apply_between(frame, event, surfaces, base);
    let (after, after_bytes) = read(surfaces);
    let (command, before_draw) = (event.command(), event.before_draw());
    match event {
        BetweenDraws::Clear(c) if w.cleared_by(c) => w.record(PixelEvent::Clear {
            command,
            before_draw,
            before,
            after,
        }),
        BetweenDraws::Transfer(_) if before_bytes != after_bytes => {
            w.record(PixelEvent::Transfer {
                command,
                before_draw,
                before,
                after,
            })
        }
        _ => {}
    }
    problems
}

fn read_output(
    output: &OutputSurface,
    surfaces: &SurfaceMemory,
    base: &dyn GuestMemory,
) -> super::Rgba8Image {
    let overlay = Overlay { base, surfaces };
    output_image(output, &overlay)
}

/// What the draws of a frame added up to.
#[derive(Default)]
struct FrameStats {
    /// Draws that ran on two or more tiles.
    tiled_draws: usize,
    /// Quads shaded and rejected early.
    shading: ShadingStats,
}

/// What every pass of one draw shares besides the surface memory and the statistics.
struct DrawContext<'a> {
    draw: &'a Draw,
    /// The band plan, when it cuts this draw.
    band: Option<&'a BandPlan>,
    base: &'a dyn GuestMemory,
    cache: Option<&'a TextureCache>,
    options: &'a RenderOptions,
    watch: Option<&'a PixelWatch>,
}

/// Render one draw, its state, vertex stage and primitives prepared ahead (`prepared`, by
/// [`ahead`]), cut to the context's band when it has one; `Err` is the reason it was
/// skipped, `Ok` its warnings. It adds its tiling and shading to `stats`. A draw into a
/// surface whose samples lie off their grid cells' centres is rendered once per sample
/// (`msaa::sample_passes`), each pass's primitives assembled for its moved viewport from the
/// one vertex stage.
fn render_draw(
    ctx: &DrawContext<'_>,
    prepared: ahead::DrawAhead,
    surfaces: &mut SurfaceMemory,
    timings: &mut RenderTimings,
    stats: &mut FrameStats,
) -> Result<Vec<String>, String> {
    let ahead::DrawAhead {
        state,
        vertices,
        prims,
    } = prepared;
    let passes = match &state {
        Ok(state) => sample_passes(state),
        Err(_) => Vec::new(),
    };
    if passes.is_empty() {
        return render_pass(ctx, state, &vertices, prims, surfaces, timings, stats);
    }
    let mut warnings: Vec<String> = Vec::new();
    let psz = vertex::point_size_from_vertex(ctx.draw);
    for state in passes {
        let prims = match &vertices {
            Ok(shaded) => geometry::build_within(
                &state,
                &shaded.outputs,
                &shaded.starts,
                psz,
                state.window_bounds(),
            ),
            Err(_) => Vec::new(),
        };
        for w in render_pass(ctx, Ok(state), &vertices, prims, surfaces, timings, stats)? {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
    Ok(warnings)
}

/// [`render_draw`] with one state (the draw's, or one sample's) and its primitives,
/// assembled without those that cover nothing in the draw's whole bounds (before a band cuts
/// them: a cut draw's targets are loaded when it covers pixels outside the band).
fn render_pass(
    ctx: &DrawContext<'_>,
    state: Result<DrawState, String>,
    vertices: &ahead::VertexStage,
    prims: Vec<geometry::RasterPrim>,
    surfaces: &mut SurfaceMemory,
    timings: &mut RenderTimings,
    stats: &mut FrameStats,
) -> Result<Vec<String>, String> {
    let DrawContext {
        draw,
        band,
        base,
        cache,
        options,
        watch,
    } = *ctx;
    let tiling = options.tiling;
    let setup = Instant::now();
    let mut state = state?;
    let whole_bounds = state.window_bounds();
    if let Some(b) = band {
        b.cut(&mut state);
    }
    let state = state;
    let mut warnings = state.shading.warnings.clone();
    warnings.extend(msaa_note(&draw.surface));
    warnings.extend(alpha_to_coverage_note(draw));
    if state.writes_nothing() {
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
    let shaded = vertices.as_ref().map_err(Clone::clone)?;
    warnings.extend(shaded.attribute_warnings.iter().cloned());
    warnings.extend(shaded.texture_warnings.iter().cloned());
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
    let bounds = state.window_bounds();
    // Coverage, shading and the per-fragment operations run per screen tile (`tiles`), the
    // tiles in parallel; one tile is the serial path. Each tile covers its primitives in
    // order in batches of quads, so that memory stays bounded whatever the overdraw.
    let mut tiles = tiles::plan(bounds, &prims, tiling);
    let coverage = Coverage {
        prims: &prims,
        rules: CoverRules::from_state(&state),
        batch: (QUADS_PER_BATCH / tiles.len().max(1)).max(MIN_TILE_BATCH),
    };
    let mut cursors = first_batches(&coverage, &tiles);
    if cursors.iter().all(|c| c.jobs.is_empty())
        && (band.is_none() || !covers_any(&coverage, whole_bounds, &prims))
    {
        // Nothing covered: no target is touched.
        timings.setup += setup.elapsed().as_secs_f64();
        return Ok(warnings);
    }
    let units = program.texture_units_read();
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
    let pass = Pass {
        state: &state,
        coverage: &coverage,
        program: &program,
        fstate: &fstate,
        sampler: &sampler,
        inputs: InputContext {
            prims: &prims,
            outputs: &shaded.outputs,
            window: state.shader_window,
            grid: state.sample_grid,
            varyings: state.shading.varyings(),
            sprite: state.primitives.point_sprite,
        },
        offset: state.window_offset,
        early_depth: !options.no_early_depth,
        passed_counts: options.passed_counts.as_deref().filter(|c| c.counts(draw)),
    };
    let oy = state.window_offset.1;
    let bands: Vec<(u32, u32)> = tiles
        .iter()
        .map(|t| (t.rect.y0.saturating_add(oy), t.rect.y1.saturating_add(oy)))
        .collect();
    let split = if tiles.len() > 1 {
        targets.split(&bands)
    } else {
        None
    };
    let shaded_all = match split {
        Some(views) => {
            stats.tiled_draws += 1;
            // A tile whose fragment program fails at run time (a step limit) stops there,
            // the others run to their end: such a draw is skipped on both paths, but the
            // fragments written before the failure may differ from the serial path's.
            let done: Vec<Result<ShadingStats, String>> = views
                .into_par_iter()
                .zip(cursors.par_iter_mut())
                .map(|(mut view, cursor)| {
                    view.set_watch(watch);
                    pass.run(cursor, &mut view)
                })
                .collect();
            done.into_iter()
                .try_fold(ShadingStats::default(), |mut all, tile| {
                    all += tile?;
                    Ok(all)
                })
        }
        None => {
            if tiles.len() > 1 {
                // Targets whose bytes a band split could not keep apart (see
                // `Targets::split`): the draw again on one tile.
                drop(cursors);
                tiles = tiles::plan(bounds, &prims, Tiling::Off);
                cursors = first_batches(&coverage, &tiles);
            }
            match cursors.first_mut() {
                Some(cursor) => {
                    let mut whole = targets.whole();
                    whole.set_watch(watch);
                    pass.run(cursor, &mut whole)
                }
                None => Ok(ShadingStats::default()),
            }
        }
    };
    // The targets go back to the surface memory whatever happens to the draw.
    targets.store(surfaces);
    stats.shading += shaded_all?;
    timings.render += render.elapsed().as_secs_f64();
    Ok(warnings)
}

/// Whether `prims` cover a pixel inside `bounds` (the first batch of one tile).
fn covers_any(coverage: &Coverage<'_>, bounds: PixelRect, prims: &[geometry::RasterPrim]) -> bool {
    let tiles = tiles::plan(bounds, prims, Tiling::Off);
    first_batches(coverage, &tiles)
        .iter()
        .any(|c| !c.jobs.is_empty())
}

/// Every tile's first batch of covered quads (the tiles in parallel).
fn first_batches<'a>(coverage: &Coverage<'_>, tiles: &'a [tiles::Tile]) -> Vec<Cursor<'a>> {
    let mut cursors: Vec<Cursor<'a>> = tiles.iter().map(Cursor::new).collect();
    if cursors.len() > 1 {
        cursors.par_iter_mut().for_each(|c| coverage.fill(c));
    } else {
        cursors.iter_mut().for_each(|c| coverage.fill(c));
    }
    cursors
}
