//! [`verify_frame`]: every selected draw's stages verified (rayon across draws; the device is
//! used by one draw at a time), the first divergence located with the state changed since the
//! draw before it, the negative control run when asked, and the totals and timings filled in.

use super::context::{Context, FragmentHook, FragmentOptionsHook, VertexHook};
use super::fragment_stage;
use super::mutate;
use super::report::model::{
    DrawReport, FirstDivergence, Outcome, Stage, StageReport, VerifyReport,
};
use super::state_diff::state_changes;
use super::tolerance::Tolerances;
use super::vertex_stage::{self, Prepared, VertexInterp};
use crate::shard::Shard;
use indicatif::ProgressBar;
use rayon::prelude::*;
use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::Gpu;
use std::ops::Range;
use std::time::Instant;

/// Schema version of the JSON report (`docs/verify.md`).
pub const SCHEMA_VERSION: u32 = 1;

/// Seeds tried for the random fill of constants the capture lacks, until one gives a
/// transform that covers a pixel (`docs/verify.md`, "Substituted state").
pub const RANDOM_FILL_ATTEMPTS: u32 = 64;

/// Default for [`VerifyOptions::max_pixels`].
pub const DEFAULT_MAX_PIXELS: usize = 16384;

/// Which stages to verify.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StageSelection {
    /// Vertex programs only.
    Vertex,
    /// Fragment programs only.
    Fragment,
    /// Both (default).
    #[default]
    Both,
}

impl StageSelection {
    /// The selection includes `stage`.
    pub fn includes(self, stage: Stage) -> bool {
        matches!(
            (self, stage),
            (StageSelection::Both, _)
                | (StageSelection::Vertex, Stage::Vertex)
                | (StageSelection::Fragment, Stage::Fragment)
        )
    }
}

/// Options of [`verify_frame`].
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Draws to verify (`None` = all).
    pub draws: Option<Range<usize>>,
    /// Only this shard of those draws (positions p in the range with p mod N = K - 1), so N
    /// machines split one capture's verification.
    pub shard: Option<Shard>,
    /// Stages.
    pub stage: StageSelection,
    /// Tolerances.
    pub tolerances: Tolerances,
    /// Most pixels compared per draw in the fragment stage (a larger draw is sampled).
    pub max_pixels: usize,
    /// Mutations of the negative control (0 = none).
    pub mutate: usize,
    /// Seed of the negative control and of the random fill of constants the capture lacks.
    pub seed: u64,
    /// Keep fragment images (for the HTML report).
    pub images: bool,
    /// The capture's name for the report.
    pub capture: String,
    /// Explain every diverged stage: the first divergent instruction at its worst element
    /// (`crate::explain`), in the stage's `explanation`.
    pub explain_all: bool,
    /// Test-only: edit every draw's vertex program on the GPU side before recompiling.
    pub vertex_hook: Option<VertexHook>,
    /// Test-only: edit every draw's fragment program on the GPU side before recompiling.
    pub fragment_hook: Option<FragmentHook>,
    /// Test-only: edit every draw's fragment translation options on the GPU side (the
    /// interpreter keeps the capture's state).
    pub fragment_options_hook: Option<FragmentOptionsHook>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            draws: None,
            shard: None,
            stage: StageSelection::Both,
            tolerances: Tolerances::default(),
            max_pixels: DEFAULT_MAX_PIXELS,
            mutate: 0,
            seed: 1,
            images: false,
            capture: String::new(),
            explain_all: false,
            vertex_hook: None,
            fragment_hook: None,
            fragment_options_hook: None,
        }
    }
}

/// Why a verification could not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The draw range is empty or reaches past the frame.
    #[error("draws {start}..{end}: the frame has {count} draws")]
    DrawRange {
        /// Start.
        start: usize,
        /// End (exclusive).
        end: usize,
        /// Draws in the frame.
        count: usize,
    },
    /// `max_pixels` is 0.
    #[error("max_pixels must be at least 1")]
    MaxPixels,
}

/// Verify one draw's selected stages. A draw whose vertex program reads transform constants
/// the capture lacks runs twice, with those constants zero and with seeded random values
/// (`seed`, see [`vertex_stage::random_fill_seed`]); each run gives its own vertex and
/// fragment stage reports, marked `substituted`.
pub(crate) fn verify_draw(
    frame: &Frame,
    draw: usize,
    stages: StageSelection,
    keep_images: bool,
    seed: u64,
    cx: &Context<'_>,
) -> DrawReport {
    let d = &frame.draws[draw];
    let prepared = vertex_stage::prepare(frame, draw, cx);
    let random = match &prepared {
        Prepared::Ready(vi) if vertex_stage::needs_random_fill(vi) => {
            let seeds: Vec<u64> = (0..RANDOM_FILL_ATTEMPTS)
                .map(|k| vertex_stage::random_fill_seed(seed, draw, k))
                .collect();
            // With the fragment stage selected, the first fill whose transform covers a pixel.
            let covers = |r: &VertexInterp| {
                !stages.includes(Stage::Fragment)
                    || !fragment_stage::rasterize(d, r, 1).quads.is_empty()
            };
            Some(vertex_stage::with_random_constants(
                frame, vi, &seeds, covers, cx,
            ))
        }
        _ => None,
    };
    let mut out = Vec::new();
    for run in std::iter::once(&prepared).chain(random.as_ref()) {
        out.extend(verify_run(frame, run, stages, keep_images, cx));
    }
    DrawReport {
        draw,
        primitive: d.primitive.name().to_string(),
        vertex_count: d.vertex_count,
        stages: out,
    }
}

/// The selected stages of one run of a draw (its vertex stage prepared on the interpreter).
fn verify_run(
    frame: &Frame,
    prepared: &Prepared,
    stages: StageSelection,
    keep_images: bool,
    cx: &Context<'_>,
) -> Vec<StageReport> {
    let mut out = Vec::new();
    let substituted = match prepared {
        Prepared::Ready(vi) => vi.substituted.clone(),
        Prepared::NotCompared(_) => None,
    };
    if stages.includes(Stage::Vertex) {
        out.push(match prepared {
            Prepared::Ready(vi) => vertex_stage::verify(vi, cx),
            Prepared::NotCompared(o) => StageReport::not_compared(Stage::Vertex, o.clone()),
        });
    }
    if stages.includes(Stage::Fragment) {
        out.push(match prepared {
            Prepared::Ready(vi) => fragment_stage::verify(frame, vi, keep_images, cx),
            Prepared::NotCompared(o) => StageReport::not_compared(
                Stage::Fragment,
                Outcome::Skipped {
                    reason: format!(
                        "no vertex outputs to rasterize (vertex stage {}: {})",
                        o.name(),
                        match o {
                            Outcome::Skipped { reason } => reason.as_str(),
                            Outcome::Failed { error } => error.as_str(),
                            _ => "",
                        }
                    ),
                },
            ),
        });
    }
    for report in &mut out {
        report.substituted.clone_from(&substituted);
    }
    out
}

/// Verify `frame` on `gpu` with `options`; `progress` advances once per draw.
pub fn verify_frame(
    frame: &Frame,
    options: &VerifyOptions,
    gpu: &Gpu,
    progress: Option<&ProgressBar>,
) -> Result<VerifyReport, VerifyError> {
    let start = Instant::now();
    let count = frame.draws.len();
    let range = options.draws.clone().unwrap_or(0..count);
    if range.start > range.end || range.end > count {
        return Err(VerifyError::DrawRange {
            start: range.start,
            end: range.end,
            count,
        });
    }
    if options.max_pixels == 0 {
        return Err(VerifyError::MaxPixels);
    }
    let mut cx = Context::new(gpu, options.tolerances, options.max_pixels);
    cx.vertex_hook = options.vertex_hook;
    cx.fragment_hook = options.fragment_hook;
    cx.fragment_options_hook = options.fragment_options_hook;
    cx.first_draw = range.start;
    let selected: Vec<usize> = range
        .clone()
        .filter(|d| options.shard.is_none_or(|s| s.contains(d - range.start)))
        .collect();
    if let Some(p) = progress {
        p.set_length(selected.len() as u64);
    }
    let mut draws: Vec<DrawReport> = selected
        .into_par_iter()
        .map(|draw| {
            let r = verify_draw(
                frame,
                draw,
                options.stage,
                options.images,
                options.seed,
                &cx,
            );
            if let Some(p) = progress {
                p.inc(1);
            }
            r
        })
        .collect();
    if options.explain_all {
        explain_diverged(frame, &mut draws, &cx);
    }
    let first_divergence = draws.iter().find(|d| d.diverged()).map(|d| {
        let stage = d
            .stages
            .iter()
            .find(|s| s.outcome == Outcome::Diverged)
            .map_or(Stage::Vertex, |s| s.stage);
        let register = d
            .stages
            .iter()
            .find(|s| s.outcome == Outcome::Diverged)
            .and_then(|s| s.worst_register())
            .map(|r| r.register.clone());
        let previous = d.draw.checked_sub(1);
        FirstDivergence {
            draw: d.draw,
            stage,
            register,
            previous,
            changed: state_changes(
                previous.and_then(|p| frame.draws.get(p)),
                &frame.draws[d.draw],
            ),
        }
    });
    let mutation =
        (options.mutate > 0).then(|| mutate::negative_control(frame, &range, options, &draws, &cx));
    let mut report = VerifyReport {
        schema: SCHEMA_VERSION,
        capture: options.capture.clone(),
        shard: options.shard.map(|s| s.to_string()),
        device: gpu.info().to_string(),
        tolerances: options.tolerances,
        tolerance_spec: options.tolerances.to_string(),
        max_pixels: options.max_pixels,
        totals: Default::default(),
        first_divergence,
        draws,
        mutation,
        timings: Default::default(),
    };
    report.recount();
    report.timings = cx.clock.timings(start.elapsed().as_secs_f64() * 1000.0);
    Ok(report)
}

/// Attaches to every diverged stage the explanation of its worst element.
fn explain_diverged(frame: &Frame, draws: &mut [DrawReport], cx: &Context<'_>) {
    draws.par_iter_mut().for_each(|d| {
        let draw = d.draw;
        for s in d
            .stages
            .iter_mut()
            .filter(|s| s.outcome == Outcome::Diverged)
        {
            s.explanation = crate::explain::worst_invocation(s)
                .map(|inv| crate::explain::explain(frame, draw, inv, cx).into());
        }
    });
}
