//! `rsxtrace ci`: the command line of the CI runner ([`rsxtrace_ci`]): arguments, the
//! progress bar, the text table on standard output, and the exit status: 0 when every trace
//! passes (or is new and `--update` wrote its reference, or is skipped), 1 when any fails or
//! is new without `--update`, 2 on any error (bad manifest, unreadable capture, failed
//! render). `docs/ci.md` documents it all.

use crate::cli::GpuBackend;
use crate::exit::Status;
use crate::table::Table;
use clap::Args;
use rsxtrace_ci::report::{self, Outcome, Report};
use rsxtrace_ci::{junit, shard, Paths, Plan, Renderers, RunOptions, Selection, Verdict};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CiArgs {
    /// Manifest (TOML; schema in docs/ci.md).
    pub file: PathBuf,
    /// Run only shard K of N (1-based): the traces at manifest positions p with p mod N = K-1.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<shard::Shard>,
    /// Write missing references, and rewrite those the CPU render departs from, from the CPU
    /// render (the GPU render with --paths gpu).
    #[arg(long)]
    pub update: bool,
    /// Write a JUnit XML report.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the JSON report (`-`: standard output, instead of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write an HTML report (index.html and images) into this directory.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Renderers to run.
    #[arg(long, value_enum, default_value_t = Paths::Auto)]
    pub paths: Paths,
    /// Graphics backend of the GPU device.
    #[arg(long, value_enum, default_value_t = GpuBackend::Auto)]
    pub backend: GpuBackend,
    /// Run only the traces with these names (repeatable).
    #[arg(long = "trace", value_name = "NAME")]
    pub traces: Vec<String>,
    /// Do not bisect failing traces to the draw.
    #[arg(long)]
    pub no_bisect: bool,
}

pub fn run(args: &CiArgs) -> anyhow::Result<Status> {
    let plan = Plan::new(
        &args.file,
        Selection {
            shard: args.shard,
            traces: args.traces.clone(),
        },
    )?;
    if args.paths != Paths::Cpu {
        crate::output::private_runtime_dir();
    }
    let renderers = Renderers::open(args.paths, args.backend.backend())?;
    if let rsxtrace_ci::GpuPath::Unavailable(reason) = &renderers.gpu {
        eprintln!("rsxtrace ci: GPU path skipped: {reason}");
    }
    let options = RunOptions {
        update: args.update,
        bisect: !args.no_bisect,
    };
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |p: rsxtrace_ci::Progress<'_>| {
        if p.total < 2 || !std::io::stderr().is_terminal() {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(p.total as u64);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(p.done as u64);
        match p.current {
            Some(name) => bar.set_message(name.to_string()),
            None => bar.finish_and_clear(),
        }
    };
    let (report, html_index) =
        plan.run(&renderers, options, args.html.as_deref(), &mut progress)?;
    if let Some(path) = &args.junit {
        use anyhow::Context;
        std::fs::write(path, junit::write(&report))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let json_to_stdout = args.json.as_deref() == Some(Path::new("-"));
    match &args.json {
        Some(_) if json_to_stdout => crate::output::print_json(&report)?,
        Some(path) => rsxtrace_ci::json::write(&report, path)?,
        None => {}
    }
    if let Some(index) = html_index {
        eprintln!("rsxtrace ci: HTML report {}", index.display());
    }
    if !json_to_stdout {
        out!("{}", text_report(&report));
    }
    Ok(match report.verdict() {
        Verdict::Pass => Status::Success,
        Verdict::Finding => Status::Finding,
        Verdict::Error => Status::Error,
    })
}

/// The table and the failure details printed on standard output.
pub fn text_report(report: &Report) -> String {
    let mut table = Table::new(&[
        "trace", "path", "backend", "status", ">over", ">mean", "checksum", "note",
    ]);
    for t in &report.traces {
        if t.paths.is_empty() {
            table.row(vec![
                t.name.clone(),
                "-".into(),
                "-".into(),
                t.status.name().into(),
                "-".into(),
                "-".into(),
                "-".into(),
                t.reasons.first().cloned().unwrap_or_default(),
            ]);
        }
        for p in &t.paths {
            let note = if t.updated && p.path == report::RenderPath::Cpu {
                "reference written".to_string()
            } else {
                p.reasons.first().cloned().unwrap_or_default()
            };
            table.row(vec![
                t.name.clone(),
                p.path.name().into(),
                p.backend.clone(),
                p.status.name().into(),
                p.diff
                    .as_ref()
                    .map_or("-".into(), |d| d.pixels_over.to_string()),
                p.diff
                    .as_ref()
                    .map_or("-".into(), |d| format!("{:.3}", d.mean_error)),
                p.checksum.clone().unwrap_or_else(|| "-".into()),
                note,
            ]);
        }
    }
    let mut text = table.render();
    for t in report
        .traces
        .iter()
        .filter(|t| t.is_failure() || t.status == Outcome::Error)
    {
        text.push_str(&format!("\n{} ({}):\n", t.name, t.status.name()));
        for line in junit::details(t).lines() {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text.push_str(&format!("\n{}\n", report.summary.line()));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use report::{PathResult, RenderPath, TraceResult};

    fn trace(name: &str, status: Outcome, updated: bool) -> TraceResult {
        let mut t = TraceResult::new(name, 1, format!("{name}.rrc"), String::new());
        t.status = status;
        t.updated = updated;
        t
    }

    fn report(traces: Vec<TraceResult>) -> Report {
        Report::new("m.toml".into(), None, vec![RenderPath::Cpu], None, traces)
    }

    #[test]
    fn text_report_rows_details_and_summary() {
        let mut fail = trace("broken", Outcome::Fail, false);
        let mut path = PathResult::without_render(
            RenderPath::Gpu,
            "lavapipe",
            Outcome::Fail,
            "image departs from the reference: 3 pixels over 8".into(),
        );
        path.checksum = Some("00000000000000aa".into());
        fail.paths = vec![path];
        let mut skip = trace("later", Outcome::Skip, false);
        skip.reasons = vec!["skipped by the manifest: issue 4".into()];
        let text = text_report(&report(vec![
            trace("fine", Outcome::Pass, false),
            fail,
            skip,
        ]));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("trace"), "{text}");
        assert!(
            lines.iter().any(|l| l.starts_with("broken")
                && l.contains("gpu")
                && l.contains("lavapipe")
                && l.contains("00000000000000aa")),
            "{text}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("later") && l.contains("issue 4")),
            "{text}"
        );
        // Details only for the failing trace.
        assert!(
            text.contains("\nbroken (fail):\n  gpu (lavapipe): fail"),
            "{text}"
        );
        assert!(!text.contains("fine (pass):"), "{text}");
        assert!(text.ends_with("\n3 traces: 1 pass, 1 fail, 0 new, 1 skip, 0 error\n"));
    }
}
