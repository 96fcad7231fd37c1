//! The results of a CI run as data (serde-serialisable): per trace its status, per render path
//! the comparison numbers and checksum, the divergence check and the bisection. The JUnit, JSON,
//! HTML and text printers only read these types.

use super::bisect::BisectReport;
use super::image_diff::DiffStats;
use rsxtrace_replay::render::{OutputSource, RenderWarning};
use serde::Serialize;

/// Outcome of a trace or of one path of it. Ordered from best to worst for combining: a trace
/// has the worst status of its parts (skip < pass < new < fail < error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Not run (manifest `skip`, `--trace` filter, or no device for the GPU path).
    Skip,
    /// Within tolerance and checksums equal.
    Pass,
    /// No reference image yet.
    New,
    /// Outside tolerance, checksum mismatch, or divergence over the limit.
    Fail,
    /// Could not be run (unreadable capture, render error...).
    Error,
}

impl Outcome {
    /// Lowercase name, as in reports.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Skip => "skip",
            Outcome::Pass => "pass",
            Outcome::New => "new",
            Outcome::Fail => "fail",
            Outcome::Error => "error",
        }
    }
}

/// Which renderer produced an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RenderPath {
    /// `rsxtrace_replay::render::cpu`: the reference interpreter.
    Cpu,
    /// `rsxtrace_replay::render::gpu`: the recompiled programs on a wgpu device.
    Gpu,
}

impl RenderPath {
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            RenderPath::Cpu => "cpu",
            RenderPath::Gpu => "gpu",
        }
    }
}

/// A draw the renderer could not render.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkippedDraw {
    pub draw: usize,
    pub reason: String,
}

/// One render path of one trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathResult {
    pub path: RenderPath,
    /// Checksum key of the backend ("cpu", "lavapipe"...); empty when no device opened.
    pub backend: String,
    pub status: Outcome,
    /// Why the status is not pass, one line each.
    pub reasons: Vec<String>,
    /// Comparison with the reference (absent when nothing was compared).
    pub diff: Option<DiffStats>,
    /// XXH3-64 of the rendered pixels, 16 hex digits.
    pub checksum: Option<String>,
    /// The manifest's checksum for this backend.
    pub expected_checksum: Option<String>,
    pub draws_rendered: usize,
    pub skipped_draws: Vec<SkippedDraw>,
    /// Renderer warnings (constants the capture does not hold read as zero...).
    pub warnings: Vec<RenderWarning>,
    /// Draws conditional rendering left out (their occlusion report counted no sample).
    pub not_drawn: Vec<usize>,
    /// What the image shows.
    pub source: Option<OutputSource>,
    /// Wall-clock seconds of the render.
    pub seconds: f64,
}

impl PathResult {
    /// A path that did not render, with `status` and one reason.
    pub fn without_render(
        path: RenderPath,
        backend: &str,
        status: Outcome,
        reason: String,
    ) -> PathResult {
        PathResult {
            path,
            backend: backend.to_string(),
            status,
            reasons: vec![reason],
            diff: None,
            checksum: None,
            expected_checksum: None,
            draws_rendered: 0,
            skipped_draws: Vec::new(),
            warnings: Vec::new(),
            not_drawn: Vec::new(),
            source: None,
            seconds: 0.0,
        }
    }
}

/// The `max_divergence` check.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DivergenceCheck {
    pub status: Outcome,
    pub limit: u64,
    /// Divergence measured, when `verify` could measure it.
    pub divergence: Option<u64>,
    pub message: String,
}

/// One trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceResult {
    pub name: String,
    /// Manifest line of the trace.
    pub line: usize,
    pub file: String,
    pub reference: String,
    pub status: Outcome,
    /// `--update` wrote the reference image.
    pub updated: bool,
    /// Trace-level reasons (skip reason, unreadable capture...).
    pub reasons: Vec<String>,
    pub paths: Vec<PathResult>,
    pub divergence: Option<DivergenceCheck>,
    /// First draw where the GPU render departs from the CPU render (failing traces only).
    pub bisect: Option<BisectReport>,
}

impl TraceResult {
    /// A trace with nothing run yet (status skip, no reasons, no paths).
    pub fn new(name: &str, line: usize, file: String, reference: String) -> TraceResult {
        TraceResult {
            name: name.to_string(),
            line,
            file,
            reference,
            status: Outcome::Skip,
            updated: false,
            reasons: Vec::new(),
            paths: Vec::new(),
            divergence: None,
            bisect: None,
        }
    }

    /// The trace's status from its parts (the worst of them; skip when nothing ran).
    pub fn combine(&mut self) {
        let mut status = Outcome::Skip;
        for p in &self.paths {
            status = status.max(p.status);
        }
        if let Some(d) = &self.divergence {
            status = status.max(d.status);
        }
        self.status = status;
    }

    /// Whether the trace makes the run fail (exit status 1).
    pub fn is_failure(&self) -> bool {
        self.status == Outcome::Fail || (self.status == Outcome::New && !self.updated)
    }
}

/// Counts of trace statuses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub total: usize,
    pub pass: usize,
    pub fail: usize,
    pub new: usize,
    pub skip: usize,
    pub error: usize,
    /// References written by `--update`.
    pub updated: usize,
}

impl Summary {
    pub fn of(traces: &[TraceResult]) -> Summary {
        let mut s = Summary {
            total: traces.len(),
            ..Summary::default()
        };
        for t in traces {
            match t.status {
                Outcome::Pass => s.pass += 1,
                Outcome::Fail => s.fail += 1,
                Outcome::New => s.new += 1,
                Outcome::Skip => s.skip += 1,
                Outcome::Error => s.error += 1,
            }
            if t.updated {
                s.updated += 1;
            }
        }
        s
    }

    /// "4 traces: 2 pass, 1 fail, 1 new, 0 skip, 0 error (1 reference updated)".
    pub fn line(&self) -> String {
        let mut text = format!(
            "{} traces: {} pass, {} fail, {} new, {} skip, {} error",
            self.total, self.pass, self.fail, self.new, self.skip, self.error
        );
        if self.updated > 0 {
            text.push_str(&format!(" ({} references updated)", self.updated));
        }
        text
    }
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Report format version (1).
    pub version: u32,
    pub manifest: String,
    /// `K/N` with `--shard`.
    pub shard: Option<String>,
    /// Render paths asked for ("cpu", "gpu").
    pub paths: Vec<RenderPath>,
    /// The GPU adapter, when one opened.
    pub gpu: Option<String>,
    pub summary: Summary,
    pub traces: Vec<TraceResult>,
}

impl Report {
    /// The report of a run (format version 1) over `traces`, with their summary.
    pub fn new(
        manifest: String,
        shard: Option<String>,
        paths: Vec<RenderPath>,
        gpu: Option<String>,
        traces: Vec<TraceResult>,
    ) -> Report {
        Report {
            version: 1,
            manifest,
            shard,
            paths,
            gpu,
            summary: Summary::of(&traces),
            traces,
        }
    }

    /// The run as a whole: errors when any trace errored, findings when any failed (or is
    /// new without `--update`), a pass otherwise. The CLI's exit status is this (2, 1, 0).
    pub fn verdict(&self) -> Verdict {
        if self.traces.iter().any(|t| t.status == Outcome::Error) {
            Verdict::Error
        } else if self.traces.iter().any(TraceResult::is_failure) {
            Verdict::Finding
        } else {
            Verdict::Pass
        }
    }
}

/// What a whole run found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every trace passed, was skipped, or is new and had its reference written.
    Pass,
    /// A trace failed, or is new without `--update`.
    Finding,
    /// A trace could not be run (unreadable capture, failed render).
    Error,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn trace(name: &str, status: Outcome, updated: bool) -> TraceResult {
        let mut t = TraceResult::new(
            name,
            1,
            format!("{name}.rrc"),
            format!("references/{name}.png"),
        );
        t.status = status;
        t.updated = updated;
        t
    }

    pub(crate) fn report(traces: Vec<TraceResult>) -> Report {
        Report::new("m.toml".into(), None, vec![RenderPath::Cpu], None, traces)
    }

    #[test]
    fn trace_status_is_the_worst_part() {
        let mut t = trace("a", Outcome::Pass, false);
        t.paths = vec![
            PathResult::without_render(RenderPath::Cpu, "cpu", Outcome::Pass, String::new()),
            PathResult::without_render(RenderPath::Gpu, "", Outcome::Skip, "no GPU".into()),
        ];
        t.combine();
        assert_eq!(t.status, Outcome::Pass);
        t.paths[1].status = Outcome::Fail;
        t.combine();
        assert_eq!(t.status, Outcome::Fail);
        t.paths = vec![];
        t.combine();
        assert_eq!(t.status, Outcome::Skip);
        t.divergence = Some(DivergenceCheck {
            status: Outcome::Error,
            limit: 0,
            divergence: None,
            message: String::new(),
        });
        t.combine();
        assert_eq!(t.status, Outcome::Error);
    }

    #[test]
    fn verdict_of_a_run() {
        let pass = trace("a", Outcome::Pass, false);
        assert_eq!(report(vec![pass.clone()]).verdict(), Verdict::Pass);
        let skip = trace("s", Outcome::Skip, false);
        assert_eq!(report(vec![pass.clone(), skip]).verdict(), Verdict::Pass);
        let new = trace("n", Outcome::New, false);
        assert_eq!(report(vec![pass.clone(), new]).verdict(), Verdict::Finding);
        let new_updated = trace("n", Outcome::New, true);
        assert_eq!(report(vec![new_updated]).verdict(), Verdict::Pass);
        let fail = trace("f", Outcome::Fail, false);
        assert_eq!(report(vec![fail.clone()]).verdict(), Verdict::Finding);
        let error = trace("e", Outcome::Error, false);
        assert_eq!(report(vec![fail, error]).verdict(), Verdict::Error);
    }

    #[test]
    fn summary_counts() {
        let r = report(vec![
            trace("a", Outcome::Pass, false),
            trace("b", Outcome::Pass, true),
            trace("c", Outcome::New, true),
            trace("d", Outcome::Fail, false),
            trace("e", Outcome::Skip, false),
        ]);
        assert_eq!(
            r.summary,
            Summary {
                total: 5,
                pass: 2,
                fail: 1,
                new: 1,
                skip: 1,
                error: 0,
                updated: 2
            }
        );
        assert_eq!(
            r.summary.line(),
            "5 traces: 2 pass, 1 fail, 1 new, 1 skip, 0 error (2 references updated)"
        );
    }
}
