//! Running one trace of the manifest: load the capture, render it on each render path, write
//! the reference with `--update`, compare with the reference and the checksums, check the
//! divergence limit, and bisect a failure to the draw. Returns the [`TraceResult`] and the
//! images the HTML report shows.

use super::bisect::{bisect, bisect_by_prefix, BisectReport};
use super::checksum::{hex, image_checksum, CPU_KEY};
use super::html::{Artifacts, BisectImages, PathImages};
use super::image_diff::{compare, difference_image, DiffStats};
use super::manifest::{Tolerance, TraceSpec};
use super::report::{DivergenceCheck, Outcome, PathResult, RenderPath, SkippedDraw, TraceResult};
use rsxtrace_gpu::Gpu;
use rsxtrace_replay::render::{
    self, draw_range, RenderError, RenderOptions, RenderWarning, RenderedFrame, Rgba8Image, Scene,
};
use std::ops::Range;
use std::time::Instant;

/// Most bytes of per-draw snapshots (both paths together) a bisection keeps; above it the
/// bisection renders prefixes instead.
const SNAPSHOT_BUDGET: u64 = 512 << 20;

/// The GPU path's device, or why there is none.
pub enum GpuPath {
    /// The GPU path was not asked for.
    Off,
    /// Asked for but no device opened (the path reports skip with this reason).
    Unavailable(String),
    /// An opened device and its checksum key.
    Ready { gpu: Box<Gpu>, key: String },
}

/// The renderers of a run.
pub struct Renderers {
    /// Run the CPU reference render.
    pub cpu: bool,
    pub gpu: GpuPath,
}

impl Renderers {
    /// The paths asked for.
    pub fn paths(&self) -> Vec<RenderPath> {
        let mut paths = Vec::new();
        if self.cpu {
            paths.push(RenderPath::Cpu);
        }
        if !matches!(self.gpu, GpuPath::Off) {
            paths.push(RenderPath::Gpu);
        }
        paths
    }

    /// Render `frame` on `path`. A panicking renderer is reported as an error of this trace
    /// (the run goes on with the next one); the panic message is also on standard error.
    fn render(
        &self,
        path: RenderPath,
        frame: &Scene,
        options: &RenderOptions,
    ) -> Result<RenderedFrame, String> {
        let run = || match (path, &self.gpu) {
            (RenderPath::Cpu, _) => render::cpu::render_frame(frame, &frame.events, options),
            (RenderPath::Gpu, GpuPath::Ready { gpu, .. }) => {
                render::gpu::render_frame(gpu, frame, &frame.events, options)
            }
            (RenderPath::Gpu, _) => Err(RenderError::Gpu("no device".into())),
        };
        match catch_panic(run) {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(panic) => Err(panic),
        }
    }
}

/// Run `f`, turning a panic into its message.
pub fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown payload".into());
        format!("panicked: {message}")
    })
}

/// One path's render of a trace.
struct Render {
    path: RenderPath,
    /// Checksum key of the backend.
    key: String,
    rendered: RenderedFrame,
    /// Wall-clock seconds.
    seconds: f64,
}

/// What to do besides comparing.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Write missing or departing references from the CPU render (the GPU render when the CPU
    /// path is off).
    pub update: bool,
    /// Bisect failing traces to the draw.
    pub bisect: bool,
}

fn base_result(spec: &TraceSpec) -> TraceResult {
    TraceResult::new(
        &spec.name,
        spec.line,
        spec.file.display().to_string(),
        spec.reference.display().to_string(),
    )
}

/// The result of a trace that is not run, with the reason.
pub fn skipped(spec: &TraceSpec, reason: &str) -> TraceResult {
    let mut result = base_result(spec);
    result.reasons.push(reason.to_string());
    result
}

fn tolerance_text(t: &Tolerance) -> String {
    format!(
        "allowed: {} pixels over {}, mean error {}",
        t.max_pixels_over, t.threshold, t.max_mean_error
    )
}

/// Run one trace.
pub fn run_trace(
    spec: &TraceSpec,
    renderers: &Renderers,
    options: RunOptions,
) -> (TraceResult, Artifacts) {
    let mut result = base_result(spec);
    let mut artifacts = Artifacts::default();
    if let Some(reason) = &spec.skip {
        return (
            skipped(spec, &format!("skipped by the manifest: {reason}")),
            artifacts,
        );
    }
    let (frame, draws) = match Scene::open(&spec.file)
        .map_err(anyhow::Error::from)
        .and_then(|frame| {
            let draws = draw_range::resolve(spec.draws, frame.draws.len())?;
            Ok((frame, draws))
        }) {
        Ok(loaded) => loaded,
        Err(e) => {
            result.status = Outcome::Error;
            result.reasons.push(format!("{e:#}"));
            return (result, artifacts);
        }
    };
    let render_options = RenderOptions {
        draws: draws.clone(),
        per_draw: false,
        ..Default::default()
    };

    // Render every path.
    let mut renders: Vec<Render> = Vec::new();
    for path in renderers.paths() {
        let key = match (path, &renderers.gpu) {
            (RenderPath::Cpu, _) => CPU_KEY.to_string(),
            (RenderPath::Gpu, GpuPath::Ready { key, .. }) => key.clone(),
            (RenderPath::Gpu, GpuPath::Unavailable(reason)) => {
                result.paths.push(PathResult::without_render(
                    path,
                    "",
                    Outcome::Skip,
                    format!("no GPU device: {reason}"),
                ));
                continue;
            }
            (RenderPath::Gpu, GpuPath::Off) => continue,
        };
        let start = Instant::now();
        match renderers.render(path, &frame, &render_options) {
            Ok(rendered) => renders.push(Render {
                path,
                key,
                rendered,
                seconds: start.elapsed().as_secs_f64(),
            }),
            Err(e) => result.paths.push(PathResult::without_render(
                path,
                &key,
                Outcome::Error,
                format!("render failed: {e}"),
            )),
        }
    }

    // The reference, written first with --update so every path compares with it.
    let mut reference = None;
    let mut had_reference = spec.reference.is_file();
    if had_reference {
        match Rgba8Image::read_png(&spec.reference) {
            Ok(image) => reference = Some(image),
            Err(e) => {
                result.status = Outcome::Error;
                result
                    .reasons
                    .push(format!("cannot read the reference: {e}"));
                had_reference = false;
            }
        }
    }
    if options.update && result.reasons.is_empty() {
        // The CPU render makes references; the GPU one only when the CPU path is off.
        let source = renders
            .iter()
            .find(|r| r.path == RenderPath::Cpu)
            .or_else(|| renders.iter().find(|r| r.path == RenderPath::Gpu))
            .filter(|r| !(r.path == RenderPath::Gpu && renderers.cpu));
        if let Some(Render { rendered, .. }) = source {
            let stale = match &reference {
                None => true,
                Some(old) => compare(&rendered.image, old, spec.tolerance.threshold)
                    .map_or(true, |stats| !stats.within(&spec.tolerance)),
            };
            if stale {
                match write_reference(&rendered.image, spec) {
                    Ok(()) => {
                        reference = Some(rendered.image.clone());
                        result.updated = true;
                    }
                    Err(e) => {
                        result.status = Outcome::Error;
                        result.reasons.push(e);
                    }
                }
            }
        }
    }
    if !result.reasons.is_empty() {
        // An unreadable reference or a failed write: nothing to compare with.
        result.paths.extend(renders.iter().map(|r| {
            let mut p = path_result(r, spec);
            p.status = Outcome::Error;
            p
        }));
        result.combine();
        result.status = Outcome::Error;
        return (result, artifacts);
    }

    // Compare each render.
    let mut image_failed = false;
    for render in &renders {
        let Render {
            path,
            key,
            rendered,
            ..
        } = render;
        let mut p = path_result(render, spec);
        let mut failed = false;
        let mut difference = None;
        match &reference {
            None => {
                p.status = Outcome::New;
                p.reasons.push(format!(
                    "no reference image {}: run with --update to write it from the CPU render",
                    spec.reference.display()
                ));
            }
            Some(expected) => match compare(&rendered.image, expected, spec.tolerance.threshold) {
                Ok(stats) => {
                    if !stats.within(&spec.tolerance) {
                        failed = true;
                        image_failed = true;
                        p.reasons.push(format!(
                            "image departs from the reference: {} ({})",
                            stats.summary(),
                            tolerance_text(&spec.tolerance)
                        ));
                    }
                    if stats.pixels_different > 0 {
                        difference =
                            difference_image(&rendered.image, expected, spec.tolerance.threshold)
                                .ok();
                    }
                    p.diff = Some(stats);
                    p.status = if had_reference || !result.updated {
                        Outcome::Pass
                    } else {
                        Outcome::New
                    };
                }
                Err(e) => {
                    failed = true;
                    image_failed = true;
                    p.reasons
                        .push(format!("image departs from the reference: {e}"));
                }
            },
        }
        if let (Some(expected), Some(actual)) = (&p.expected_checksum, &p.checksum) {
            if expected != actual {
                failed = true;
                p.reasons.push(format!(
                    "checksum {actual} differs from the manifest's {key} = \"{expected}\""
                ));
            }
        } else if p.checksum.is_some() && !spec.checksums.is_empty() {
            p.reasons.push(format!(
                "no checksum for backend {key} in the manifest (this render: {})",
                p.checksum.as_deref().unwrap_or("")
            ));
        }
        if failed {
            p.status = Outcome::Fail;
        }
        result.paths.push(p);
        artifacts.paths.push(PathImages {
            path: *path,
            actual: rendered.image.clone(),
            difference,
        });
    }
    artifacts.reference = reference;
    if let Some(w) = conditional_disagreement(&result.paths) {
        if let Some(gpu) = result.paths.iter_mut().find(|p| p.path == RenderPath::Gpu) {
            gpu.warnings.push(w);
        }
    }

    if let Some(limit) = spec.max_divergence {
        result.divergence = Some(check_divergence(
            spec,
            renderers,
            &frame,
            draws.clone(),
            limit,
        ));
    }
    result.combine();

    if result.status == Outcome::Fail && options.bisect {
        let (mut report, images) = bisect_trace(
            spec,
            renderers,
            &frame,
            draws.clone(),
            &renders,
            image_failed,
        );
        let start = draws.as_ref().map_or(0, |d| d.start);
        report.look_closer(&spec.name, &result.file, start);
        result.bisect = Some(report);
        artifacts.bisect = images;
    }
    (result, artifacts)
}

/// The `max_divergence` check: `rsxtrace verify` over the trace's draws (default tolerances,
/// both stages) on the GPU path's device; the divergence is the number of (draw, stage) pairs
/// that diverged. Needs a device: without one the check is skipped.
fn check_divergence(
    spec: &TraceSpec,
    renderers: &Renderers,
    frame: &Scene,
    draws: Option<Range<usize>>,
    limit: u64,
) -> DivergenceCheck {
    let GpuPath::Ready { gpu, .. } = &renderers.gpu else {
        return DivergenceCheck {
            status: Outcome::Skip,
            limit,
            divergence: None,
            message: "skip: verify needs a GPU device (the GPU path is off or has no device)"
                .into(),
        };
    };
    let options = rsxtrace_verify::divergence::VerifyOptions {
        draws,
        capture: spec.name.clone(),
        ..Default::default()
    };
    let verified =
        catch_panic(|| rsxtrace_verify::divergence::verify_frame(frame, &options, gpu, None))
            .and_then(|r| r.map_err(|e| e.to_string()));
    match verified {
        Ok(report) => {
            let diverged = report.totals.diverged as u64;
            let mut message = format!(
                "{diverged} diverged stages over {} draws ({} clean, {} skipped, {} failed)",
                report.totals.draws,
                report.totals.clean,
                report.totals.skipped,
                report.totals.failed
            );
            if let Some(first) = report.draws.iter().find(|d| d.diverged()) {
                message.push_str(&format!("; first diverging draw {}", first.draw));
            }
            DivergenceCheck {
                status: if diverged <= limit {
                    Outcome::Pass
                } else {
                    Outcome::Fail
                },
                limit,
                divergence: Some(diverged),
                message,
            }
        }
        Err(e) => DivergenceCheck {
            status: Outcome::Error,
            limit,
            divergence: None,
            message: format!("verify failed: {e}"),
        },
    }
}

fn write_reference(image: &Rgba8Image, spec: &TraceSpec) -> Result<(), String> {
    if let Some(dir) = spec.reference.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    image
        .write_png(&spec.reference)
        .map_err(|e| format!("cannot write the reference: {e}"))
}

fn path_result(render: &Render, spec: &TraceSpec) -> PathResult {
    let Render {
        path,
        key,
        rendered,
        seconds,
    } = render;
    PathResult {
        path: *path,
        backend: key.clone(),
        status: Outcome::Pass,
        reasons: Vec::new(),
        diff: None,
        checksum: Some(hex(image_checksum(&rendered.image))),
        expected_checksum: spec.checksums.get(key.as_str()).map(|c| hex(*c)),
        draws_rendered: rendered.draws_rendered,
        skipped_draws: rendered
            .skipped
            .iter()
            .map(|(draw, reason)| SkippedDraw {
                draw: *draw,
                reason: reason.clone(),
            })
            .collect(),
        warnings: rendered.warnings.clone(),
        not_drawn: rendered
            .conditional
            .iter()
            .filter(|c| !c.drawn)
            .map(|c| c.draw)
            .collect(),
        source: Some(rendered.source.clone()),
        seconds: *seconds,
    }
}

/// When the CPU and GPU paths left out other draws under conditional rendering (their
/// occlusion counts decided otherwise), a warning for the GPU path naming both lists: the
/// likely first cause of any image difference after those draws.
fn conditional_disagreement(paths: &[PathResult]) -> Option<RenderWarning> {
    let of = |path| {
        paths
            .iter()
            .find(|p| p.path == path && p.checksum.is_some())
    };
    let (cpu, gpu) = (of(RenderPath::Cpu)?, of(RenderPath::Gpu)?);
    (cpu.not_drawn != gpu.not_drawn).then(|| RenderWarning {
        draw: None,
        message: format!(
            "conditional rendering decided otherwise than on the CPU: the CPU render left out \
             draws {:?}, the GPU render {:?} (their occlusion counts differ)",
            cpu.not_drawn, gpu.not_drawn
        ),
    })
}

/// Bisect a failing trace: the GPU render against the CPU render, draw by draw.
fn bisect_trace(
    spec: &TraceSpec,
    renderers: &Renderers,
    frame: &Scene,
    draws: Option<Range<usize>>,
    renders: &[Render],
    image_failed: bool,
) -> (BisectReport, Option<BisectImages>) {
    let rendered = |path| renders.iter().find(|r| r.path == path).map(|r| &r.rendered);
    let (Some(cpu), Some(_gpu)) = (rendered(RenderPath::Cpu), rendered(RenderPath::Gpu)) else {
        let why = if !renderers.cpu {
            "the CPU path is off: bisection compares the GPU render with the CPU render draw by \
             draw"
        } else if matches!(renderers.gpu, GpuPath::Ready { .. }) {
            "one of the renders failed: bisection needs both the CPU and the GPU render"
        } else {
            "only the CPU path ran: bisection compares the GPU render with the CPU render draw \
             by draw (the reference is one final image, not one per draw); run where a GPU \
             adapter exists"
        };
        return (BisectReport::unavailable(why), None);
    };
    if !image_failed {
        return (
            BisectReport::unavailable(
                "no image comparison failed (only checksums or limits): nothing to bisect",
            ),
            None,
        );
    }
    let draws: Range<usize> = draws.unwrap_or(0..frame.draws.len());
    let pixels = u64::from(cpu.image.width) * u64::from(cpu.image.height) * 4;
    let snapshot_bytes = pixels.saturating_mul(draws.len() as u64).saturating_mul(2);
    let tolerance = spec.tolerance;
    if snapshot_bytes <= SNAPSHOT_BUDGET {
        let per_draw = RenderOptions {
            draws: Some(draws),
            per_draw: true,
            ..Default::default()
        };
        let cpu = match renderers.render(RenderPath::Cpu, frame, &per_draw) {
            Ok(r) => r,
            Err(e) => {
                return (
                    BisectReport::unavailable(format!("CPU per-draw render failed: {e}")),
                    None,
                )
            }
        };
        let gpu = match renderers.render(RenderPath::Gpu, frame, &per_draw) {
            Ok(r) => r,
            Err(e) => {
                return (
                    BisectReport::unavailable(format!("GPU per-draw render failed: {e}")),
                    None,
                )
            }
        };
        let report = bisect(&cpu.per_draw, &gpu.per_draw, &tolerance, "cpu", "gpu");
        let images = report.first_draw.and_then(|draw| {
            let find = |r: &RenderedFrame| {
                r.per_draw
                    .iter()
                    .find(|s| s.draw == draw)
                    .map(|s| s.image.clone())
            };
            let (expected, actual) = (find(&cpu)?, find(&gpu)?);
            let difference = difference_image(&actual, &expected, tolerance.threshold).ok();
            Some(BisectImages {
                draw,
                expected,
                actual,
                difference,
            })
        });
        return (report, images);
    }
    // Too many snapshots to keep: bisect by rendering prefixes.
    let start = draws.start;
    let mut last_images: Option<(usize, Rgba8Image, Rgba8Image)> = None;
    let outcome = bisect_by_prefix(
        draws,
        |end| -> Result<Option<DiffStats>, String> {
            let prefix = RenderOptions {
                draws: Some(start..end),
                per_draw: false,
                ..Default::default()
            };
            let cpu = renderers
                .render(RenderPath::Cpu, frame, &prefix)
                .map_err(|e| format!("CPU render of draws {start}..{end} failed: {e}"))?;
            let gpu = renderers
                .render(RenderPath::Gpu, frame, &prefix)
                .map_err(|e| format!("GPU render of draws {start}..{end} failed: {e}"))?;
            let stats = compare(&gpu.image, &cpu.image, tolerance.threshold)
                .map_err(|e| format!("draws {start}..{end}: {e}"))?;
            if stats.within(&tolerance) {
                return Ok(None);
            }
            if last_images.as_ref().is_none_or(|(e, _, _)| end < *e) {
                last_images = Some((end, cpu.image, gpu.image));
            }
            Ok(Some(stats))
        },
        "cpu",
        "gpu",
    );
    match outcome {
        Ok(report) => {
            let images = report.first_draw.and_then(|draw| {
                let (end, expected, actual) = last_images?;
                (end == draw + 1).then(|| BisectImages {
                    draw,
                    difference: difference_image(&actual, &expected, tolerance.threshold).ok(),
                    expected,
                    actual,
                })
            });
            (report, images)
        }
        Err(e) => (BisectReport::unavailable(e), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_messages() {
        assert_eq!(catch_panic(|| 5), Ok(5));
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let literal = catch_panic(|| -> u8 { panic!("boom") });
        let formatted = catch_panic(|| -> u8 { panic!("draw {}", 3) });
        std::panic::set_hook(hook);
        assert_eq!(literal, Err("panicked: boom".to_string()));
        assert_eq!(formatted, Err("panicked: draw 3".to_string()));
    }

    #[test]
    fn paths_that_left_out_other_draws_are_warned() {
        let path = |p, not_drawn: Vec<usize>| PathResult {
            checksum: Some("0".repeat(16)),
            not_drawn,
            ..PathResult::without_render(p, "k", Outcome::Pass, String::new())
        };
        let alike = [
            path(RenderPath::Cpu, vec![3]),
            path(RenderPath::Gpu, vec![3]),
        ];
        assert_eq!(conditional_disagreement(&alike), None);
        let parted = [
            path(RenderPath::Cpu, vec![3]),
            path(RenderPath::Gpu, vec![3, 5]),
        ];
        let w = conditional_disagreement(&parted).expect("a warning");
        assert!(
            w.message
                .contains("left out draws [3], the GPU render [3, 5]"),
            "{}",
            w.message
        );
        // One path alone: nothing to compare.
        assert_eq!(conditional_disagreement(&parted[..1]), None);
    }
}
