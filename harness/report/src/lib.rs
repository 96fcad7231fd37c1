//! `rsxtrace report`: a static HTML site for one capture, readable from disk in any browser
//! with no network and no emulator: the frame, every event, and one page per draw laid out as
//! RenderDoc's pipeline view (input assembly, vertex program, rasterizer, fragment program,
//! output merger), with the target before and after the draw.
//!
//! Brief overview:
//! - [`Loaded::open`] reads a capture: its frame, events and `info` facts.
//! - [`build`] renders the frame once (CPU reference or GPU, [`Renderer`]) with a
//!   [`snapshot::Snapshots`] observer that copies each draw's target before and after it and
//!   decodes its textures; the pixel work runs beside the render ([`images::ImageStore`]:
//!   scaled down, PNG, named by content hash, shared between pages). With a verify device the
//!   draws' divergence results are added. Then the pages are written in parallel ([`html`]).
//! - [`site`] owns the output folder: every path is made from indices and hashes only, so
//!   nothing from the capture names a file; [`html`] escapes every text from the capture
//!   (maud templates escape each spliced value).
//!
//! ```no_run
//! use rsxtrace_report::{build, Loaded, ReportOptions, Renderer};
//! use std::path::Path;
//!
//! let loaded = Loaded::open(Path::new("traces/samples/basic.rrc.gz"))?;
//! let options = ReportOptions::new(Path::new("site"));
//! let summary = build(&loaded, &options, Renderer::Cpu, None, None)?;
//! println!("{} pages, {} images", summary.pages, summary.images);
//! # Ok::<(), rsxtrace_report::ReportError>(())
//! ```
//!
//! [`build`] must be called from outside rayon's pool (the image work waits on it).

#![deny(missing_docs)]

pub mod coverage;
pub mod events;
pub mod html;
pub mod images;
pub mod pixels;
pub mod programs;
pub mod site;
pub mod snapshot;
pub mod target;

use images::{ImageId, ImageStore, Images};
use indicatif::ProgressBar;
use pixels::{Change, Channels};
use programs::{DrawProgram, ProgramKey, ProgramText};
use rayon::prelude::*;
use rsxtrace_capture::open::{open_capture, OpenError};
use rsxtrace_capture::overview::{self, Overview};
use rsxtrace_gpu::Gpu;

use coverage::{coverage_shots, CoverageShot};
use rsxtrace_capture::rrc::ReplayCommand;
use rsxtrace_replay::render::overdraw::{overdraw, Overdraw, PassedCounts};
use rsxtrace_replay::render::statistics::{statistics, FrameStatistics};
use rsxtrace_replay::render::target::output_target;
use rsxtrace_replay::render::{self, RenderOptions, RenderedFrame, Scene, SceneError};
use rsxtrace_verify::divergence::{verify_frame, DrawReport, VerifyOptions, VerifyReport};
use site::Site;
use snapshot::{DrawShots, Sizes, Snapshots};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The capture could not be read.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// Its frame or its clears and transfers could not be decoded.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The draw range is outside the frame.
    #[error("draws {start}..{end} are outside the frame's {count} draws")]
    DrawRange {
        /// Start.
        start: usize,
        /// End (excluded).
        end: usize,
        /// Draws in the frame.
        count: usize,
    },
    /// The capture has no draw.
    #[error("the capture has no draw to report")]
    NoDraws,
    /// Verification could not run.
    #[error("cannot verify the draws")]
    Verify(#[source] rsxtrace_verify::divergence::VerifyError),
    /// The output folder could not be prepared or written.
    #[error(transparent)]
    Site(#[from] site::SiteError),
}

/// A capture read for reporting.
pub struct Loaded {
    /// The file.
    pub path: PathBuf,
    /// `info`'s facts.
    pub overview: Overview,
    /// The frame and its events.
    pub scene: Scene,
    /// The capture's commands (the frame's statistics count its method calls).
    pub commands: Vec<ReplayCommand>,
}

impl Loaded {
    /// Read the capture or trace at `path`.
    pub fn open(path: &Path) -> Result<Loaded, ReportError> {
        let capture = open_capture(path)?;
        let scene = Scene::from_capture(path, &capture)?;
        Ok(Loaded {
            path: path.to_path_buf(),
            overview: overview::from_frame(&capture, &scene.frame, false),
            scene,
            commands: capture.commands,
        })
    }
}

/// Which renderer draws the images.
#[derive(Clone, Copy)]
pub enum Renderer<'g> {
    /// The CPU reference render (the interpreters).
    Cpu,
    /// The GPU render (the recompiled programs) on this device.
    Gpu(&'g Gpu),
}

/// What to report.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// The output folder (created; a folder holding anything but an earlier report is
    /// refused).
    pub out: PathBuf,
    /// Draws to report (`None` = all); draws before it are not rendered.
    pub draws: Option<Range<usize>>,
    /// Image sizes.
    pub sizes: Sizes,
    /// Picture the depth surface of every draw that uses one; by default only of draws
    /// without a colour target (depth-only passes such as shadow maps), as the depth images
    /// of a frame whose every draw tests depth double the site's time and size.
    pub depth: bool,
}

impl ReportOptions {
    /// Every draw into `out` with the default sizes.
    pub fn new(out: &Path) -> ReportOptions {
        ReportOptions {
            out: out.to_path_buf(),
            draws: None,
            sizes: Sizes::default(),
            depth: false,
        }
    }
}

/// A path as text, any bytes that are not UTF-8 replaced.
fn lossy_path<S: serde::Serializer>(path: &std::path::Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

/// What was written.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ReportSummary {
    /// The output folder (in JSON its name lossily as UTF-8, as other commands print paths:
    /// serde refuses a path that is not UTF-8).
    #[serde(serialize_with = "lossy_path")]
    pub out: PathBuf,
    /// Draws reported.
    pub draws: usize,
    /// Events listed on the index.
    pub events: usize,
    /// HTML pages (index, draws, programs).
    pub pages: usize,
    /// Distinct PNG files.
    pub images: usize,
    /// Bytes of the whole site.
    pub bytes: u64,
    /// Whether the frame was rendered (else the site has no images of it).
    pub rendered: bool,
    /// Draws the renderer skipped.
    pub skipped: usize,
    /// Render warnings.
    pub warnings: usize,
    /// Draws with a diverged stage (`None` without verification).
    pub diverged: Option<usize>,
    /// Seconds spent.
    pub seconds: f64,
}

/// Everything the pages are made from.
pub struct Report<'a> {
    /// The capture.
    pub loaded: &'a Loaded,
    /// Draws reported.
    pub range: Range<usize>,
    /// The render, or why the frame could not be rendered (the pages then show no image).
    pub rendered: Result<RenderedFrame, String>,
    /// The renderer's name.
    pub renderer: String,
    /// Seconds the render took.
    pub render_seconds: f64,
    /// The final frame's image.
    pub final_image: ImageId,
    /// Per draw of the range: target and textures.
    pub shots: Vec<DrawShots>,
    /// What each draw changed, by draw index.
    pub changes: HashMap<usize, Change>,
    /// The written images.
    pub images: Images,
    /// Per draw of the range: its vertex and fragment program keys (or why there is none).
    pub draw_programs: Vec<[Result<ProgramKey, String>; 2]>,
    /// Each distinct program's texts.
    pub programs: BTreeMap<ProgramKey, ProgramText>,
    /// Verification results by draw index, when verified.
    pub verify: Option<(VerifyReport, HashMap<usize, usize>)>,
    /// The overdraw of the output image over the reported draws, when the frame has one.
    pub overdraw: Option<FrameOverdraw>,
    /// The statistics of the reported draws (`rsxtrace stats`).
    pub statistics: FrameStatistics,
    /// Per draw of the range whose first target was shot: the pixels it rasterizes there
    /// and their overlay, or why they could not be worked out.
    pub coverage: HashMap<usize, Result<CoverageShot, String>>,
}

/// The fragments the reported draws rasterize on the output image
/// (`rsxtrace_replay::render::overdraw`).
pub struct FrameOverdraw {
    /// The heat map.
    pub image: ImageId,
    /// The counts.
    pub counted: Overdraw,
    /// The heat map and counts of the fragments that passed every test (CPU render).
    pub passed: Option<(ImageId, Overdraw)>,
}

impl Report<'_> {
    /// Draws the renderer skipped, with the reason.
    pub fn skipped(&self) -> &[(usize, String)] {
        self.rendered.as_ref().map_or(&[], |r| r.skipped.as_slice())
    }

    /// The renderer's warnings.
    pub fn warnings(&self) -> &[render::RenderWarning] {
        self.rendered
            .as_ref()
            .map_or(&[], |r| r.warnings.as_slice())
    }

    /// The draw's verification result, if verified.
    pub fn verify_of(&self, draw: usize) -> Option<&DrawReport> {
        let (report, by_draw) = self.verify.as_ref()?;
        report.draws.get(*by_draw.get(&draw)?)
    }
}

/// Render `loaded` with `renderer`, verify its draws on `verify_on` when given, and write the site
/// (see the crate documentation). `progress` advances once per draw rendered, then once per
/// page written.
pub fn build(
    loaded: &Loaded,
    options: &ReportOptions,
    renderer: Renderer<'_>,
    verify_on: Option<&Gpu>,
    progress: Option<&ProgressBar>,
) -> Result<ReportSummary, ReportError> {
    let start = Instant::now();
    let frame = &loaded.scene.frame;
    let count = frame.draws.len();
    if count == 0 {
        return Err(ReportError::NoDraws);
    }
    let range = options.draws.clone().unwrap_or(0..count);
    if range.start > range.end || range.end > count || range.is_empty() {
        return Err(ReportError::DrawRange {
            start: range.start,
            end: range.end,
            count,
        });
    }
    let site = Site::prepare(&options.out)?;
    let store = ImageStore::new(site.images_dir());
    if let Some(bar) = progress {
        bar.set_length(range.len() as u64);
        bar.set_message("rendering");
    }
    // The CPU render counts the fragments that pass, per pixel of the output image.
    let output = output_target(frame, &loaded.scene.events);
    let passed_counts = match renderer {
        Renderer::Cpu => output.as_ref().map(|t| Arc::new(PassedCounts::new(t))),
        Renderer::Gpu(_) => None,
    };
    let render_options = RenderOptions {
        draws: Some(range.clone()),
        passed_counts: passed_counts.clone(),
        ..Default::default()
    };
    let mut observer = Counted {
        inner: Snapshots::new(frame, range.clone(), &store, options.sizes)
            .with_depth_beside_colour(options.depth),
        progress,
    };
    let t = Instant::now();
    let (rendered, renderer_name) = match renderer {
        Renderer::Cpu => (
            render::cpu::render_frame_observed(
                frame,
                &loaded.scene.events,
                &render_options,
                &mut observer,
            ),
            "CPU reference interpreter".to_string(),
        ),
        Renderer::Gpu(gpu) => (
            render::gpu::render_frame_observed(
                gpu,
                frame,
                &loaded.scene.events,
                &render_options,
                &mut observer,
            ),
            format!("GPU: {}", gpu.info().adapter),
        ),
    };
    // A frame that cannot be rendered (no draw writes a usable colour target, a device
    // failure) is reported on the index; the pages are written without images.
    let rendered = rendered.map_err(|e| error_chain(&e));
    let render_seconds = t.elapsed().as_secs_f64();
    let final_image = store.reserve(1)[0];
    if let Ok(r) = &rendered {
        let image = r.image.clone();
        store.submit(move || vec![(final_image, image, Channels::Rgb)]);
    }
    let (shots, changes) = observer.inner.finish();
    // The overdraw of the output image (vertex programs and coverage, no rendering).
    let overdraw = output.map(|target| {
        let counted = overdraw(frame, &target, Some(range.clone()));
        let image = store.reserve(1)[0];
        let heat = counted.heat_map();
        store.submit(move || vec![(image, heat, Channels::Rgb)]);
        let passed = passed_counts
            .as_ref()
            .filter(|_| rendered.is_ok())
            .map(|counts| {
                let passed = counts.to_overdraw(Vec::new());
                let image = store.reserve(1)[0];
                let heat = passed.heat_map();
                store.submit(move || vec![(image, heat, Channels::Rgb)]);
                (image, passed)
            });
        FrameOverdraw {
            image,
            counted,
            passed,
        }
    });
    let statistics = statistics(
        frame,
        &loaded.scene.events,
        &loaded.commands,
        Some(range.clone()),
    );
    let coverage = coverage_shots(frame, &shots, range.start, &store, options.sizes.view);

    let verified = match verify_on {
        Some(gpu) => {
            if let Some(bar) = progress {
                bar.set_position(0);
                bar.set_message("verifying");
            }
            let report = verify_frame(
                frame,
                &VerifyOptions {
                    draws: Some(range.clone()),
                    capture: loaded.overview.provenance.source_name.clone(),
                    ..VerifyOptions::default()
                },
                gpu,
                progress,
            )
            .map_err(ReportError::Verify)?;
            let by_draw = report
                .draws
                .iter()
                .enumerate()
                .map(|(i, d)| (d.draw, i))
                .collect();
            Some((report, by_draw))
        }
        None => None,
    };

    // Each distinct program once, in parallel, while the images finish.
    let decoded: Vec<[Result<(ProgramKey, DrawProgram), String>; 2]> = range
        .clone()
        .into_par_iter()
        .map(|i| {
            let d = &frame.draws[i];
            [programs::vertex_program(d), programs::fragment_program(d)]
        })
        .collect();
    let mut distinct: HashMap<ProgramKey, &DrawProgram> = HashMap::new();
    for pair in &decoded {
        for (key, program) in pair.iter().flatten() {
            distinct.entry(key.clone()).or_insert(program);
        }
    }
    let programs: BTreeMap<ProgramKey, ProgramText> = distinct
        .into_par_iter()
        .map(|(k, p)| (k, programs::describe(p)))
        .collect();
    let draw_programs = decoded
        .into_iter()
        .map(|pair| pair.map(|r| r.map(|(k, _)| k)))
        .collect();

    let images = store.finish();
    if let Some(e) = images.first_error() {
        return Err(ReportError::Site(site::SiteError::Image(e.to_string())));
    }
    let changes = std::mem::take(
        &mut *changes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    let report = Report {
        loaded,
        range: range.clone(),
        rendered,
        renderer: renderer_name,
        render_seconds,
        final_image,
        shots,
        changes,
        images,
        draw_programs,
        programs,
        verify: verified,
        overdraw,
        statistics,
        coverage,
    };
    if let Some(bar) = progress {
        bar.set_position(0);
        bar.set_message("writing pages");
    }
    let pages = html::write_site(&report, &site, progress)?;
    let diverged = report
        .verify
        .as_ref()
        .map(|(r, _)| r.draws.iter().filter(|d| d.diverged()).count());
    Ok(ReportSummary {
        out: options.out.clone(),
        draws: range.len(),
        events: pages.events,
        pages: pages.pages,
        images: report.images.files,
        bytes: site.bytes()?,
        skipped: report.skipped().len(),
        warnings: report.warnings().len(),
        rendered: report.rendered.is_ok(),
        diverged,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// `e` and its sources, joined with ": ".
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// The snapshot observer, advancing the progress bar after each draw.
struct Counted<'a, 'p> {
    inner: Snapshots<'a>,
    progress: Option<&'p ProgressBar>,
}

impl render::DrawObserver for Counted<'_, '_> {
    fn before(&mut self, draw: usize, memory: &dyn rsxtrace_capture::fetch::GuestMemory) {
        self.inner.before(draw, memory);
    }

    fn after(&mut self, draw: usize, memory: &dyn rsxtrace_capture::fetch::GuestMemory) {
        self.inner.after(draw, memory);
        if let Some(bar) = self.progress {
            bar.inc(1);
        }
    }
}
