//! The HTML report (`--html DIR`): `DIR/index.html`, self-contained (inline CSS, no script, no
//! network), with a summary table and one section per trace: status, numbers per render path,
//! the actual, expected and difference images side by side (PNG files in `DIR/<trace>/`),
//! the renderer's warnings, and the bisection's failing draws with the images after the first
//! departing draw.

use super::image_diff::DiffStats;
use super::junit::escape;
use super::report::{Outcome, RenderPath, Report, TraceResult};
use anyhow::Context;
use rsxtrace_replay::render::Rgba8Image;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Most renderer warnings listed per path (the JSON report has all).
const MAX_WARNINGS: usize = 30;

/// One path's images.
pub struct PathImages {
    pub path: RenderPath,
    pub actual: Rgba8Image,
    /// Against the reference, when there was one of the same size.
    pub difference: Option<Rgba8Image>,
}

/// The images after the first departing draw of a bisection.
pub struct BisectImages {
    pub draw: usize,
    /// CPU render after the draw.
    pub expected: Rgba8Image,
    /// GPU render after the draw.
    pub actual: Rgba8Image,
    pub difference: Option<Rgba8Image>,
}

/// Images of one trace, kept only until the trace's section is written.
#[derive(Default)]
pub struct Artifacts {
    pub reference: Option<Rgba8Image>,
    pub paths: Vec<PathImages>,
    pub bisect: Option<BisectImages>,
}

/// Writes the report directory trace by trace, then `index.html`.
pub struct HtmlWriter {
    dir: PathBuf,
    sections: String,
}

fn status_badge(status: Outcome) -> String {
    format!("<span class=\"badge {0}\">{0}</span>", status.name())
}

fn stats_cells(d: Option<&DiffStats>) -> String {
    match d {
        Some(d) => format!(
            "<td>{}</td><td>{}</td><td>{:.4}</td><td>{}</td>",
            d.pixels_over,
            d.max_difference,
            d.mean_error,
            d.first_over
                .map_or("-".to_string(), |[x, y]| format!("({x}, {y})"))
        ),
        None => "<td>-</td><td>-</td><td>-</td><td>-</td>".to_string(),
    }
}

impl HtmlWriter {
    /// Create `dir` (and its parents).
    pub fn new(dir: &Path) -> anyhow::Result<HtmlWriter> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(HtmlWriter {
            dir: dir.to_path_buf(),
            sections: String::new(),
        })
    }

    /// Write `image` as `<trace>/<file>` and return the `<figure>` showing it.
    fn figure(
        &self,
        trace: &str,
        file: &str,
        caption: &str,
        image: &Rgba8Image,
    ) -> anyhow::Result<String> {
        let sub = self.dir.join(trace);
        std::fs::create_dir_all(&sub)
            .with_context(|| format!("cannot create {}", sub.display()))?;
        let path = sub.join(file);
        image
            .write_png(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(format!(
            "<figure><a href=\"{0}/{1}\"><img src=\"{0}/{1}\" alt=\"{2}\"></a>\
             <figcaption>{2} ({3}x{4})</figcaption></figure>",
            escape(trace),
            escape(file),
            escape(caption),
            image.width,
            image.height
        ))
    }

    /// Add the section of one trace (writes its images now).
    pub fn add(&mut self, trace: &TraceResult, artifacts: &Artifacts) -> anyhow::Result<()> {
        let name = &trace.name;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<section id=\"{0}\"><h2>{0} {1}</h2>",
            escape(name),
            status_badge(trace.status)
        );
        let _ = writeln!(
            s,
            "<p class=\"meta\">{} (manifest line {}), reference {}{}</p>",
            escape(&trace.file),
            trace.line,
            escape(&trace.reference),
            if trace.updated {
                " <b>written by --update</b>"
            } else {
                ""
            }
        );
        for r in &trace.reasons {
            let _ = writeln!(s, "<p class=\"reason\">{}</p>", escape(r));
        }
        if !trace.paths.is_empty() {
            s.push_str(
                "<table><tr><th>path</th><th>backend</th><th>status</th><th>pixels over</th>\
                 <th>max diff</th><th>mean error</th><th>first over (x, y)</th><th>checksum</th>\
                 <th>expected checksum</th><th>draws</th><th>skipped</th><th>warnings</th>\
                 <th>seconds</th></tr>\n",
            );
            for p in &trace.paths {
                let _ = writeln!(
                    s,
                    "<tr><td>{}</td><td>{}</td><td>{}</td>{}<td><code>{}</code></td>\
                     <td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td></tr>",
                    p.path.name(),
                    escape(&p.backend),
                    status_badge(p.status),
                    stats_cells(p.diff.as_ref()),
                    p.checksum.as_deref().unwrap_or("-"),
                    p.expected_checksum.as_deref().unwrap_or("-"),
                    p.draws_rendered,
                    p.skipped_draws.len(),
                    p.warnings.len(),
                    p.seconds
                );
            }
            s.push_str("</table>\n");
        }
        for p in &trace.paths {
            if p.reasons.is_empty()
                && p.warnings.is_empty()
                && p.skipped_draws.is_empty()
                && p.not_drawn.is_empty()
            {
                continue;
            }
            let _ = writeln!(
                s,
                "<details open><summary>{} notes</summary><ul>",
                p.path.name()
            );
            for r in &p.reasons {
                let _ = writeln!(s, "<li class=\"reason\">{}</li>", escape(r));
            }
            for d in &p.skipped_draws {
                let _ = writeln!(s, "<li>draw {} skipped: {}</li>", d.draw, escape(&d.reason));
            }
            if !p.not_drawn.is_empty() {
                let _ = writeln!(
                    s,
                    "<li>left out by conditional rendering: draws {:?}</li>",
                    p.not_drawn
                );
            }
            for w in p.warnings.iter().take(MAX_WARNINGS) {
                let at = w.draw.map_or(String::new(), |d| format!("draw {d}: "));
                let _ = writeln!(s, "<li>warning: {at}{}</li>", escape(&w.message));
            }
            if p.warnings.len() > MAX_WARNINGS {
                let _ = writeln!(
                    s,
                    "<li>... {} more warnings (see the JSON report)</li>",
                    p.warnings.len() - MAX_WARNINGS
                );
            }
            s.push_str("</ul></details>\n");
        }
        if let Some(d) = &trace.divergence {
            let _ = writeln!(
                s,
                "<p>verify divergence (limit {}): {} {}</p>",
                d.limit,
                status_badge(d.status),
                escape(&d.message)
            );
        }
        for images in &artifacts.paths {
            let path = images.path.name();
            s.push_str("<div class=\"row\">");
            s.push_str(&self.figure(
                name,
                &format!("{path}-actual.png"),
                &format!("{path} actual"),
                &images.actual,
            )?);
            if let Some(reference) = &artifacts.reference {
                s.push_str(&self.figure(
                    name,
                    "expected.png",
                    "expected (reference)",
                    reference,
                )?);
            }
            if let Some(diff) = &images.difference {
                s.push_str(&self.figure(
                    name,
                    &format!("{path}-difference.png"),
                    &format!("{path} difference"),
                    diff,
                )?);
            }
            s.push_str("</div>\n");
        }
        if let Some(b) = &trace.bisect {
            let _ = writeln!(s, "<h3>Bisect</h3><p>{}</p>", escape(&b.reason));
            if !b.introducing_draws.is_empty() {
                let list: Vec<String> = b.introducing_draws.iter().map(|d| d.to_string()).collect();
                let _ = writeln!(
                    s,
                    "<p>Failing draws (the difference grew after each): {}</p>",
                    list.join(", ")
                );
            }
            if !b.unpaired_draws.is_empty() {
                let list: Vec<String> = b.unpaired_draws.iter().map(|d| d.to_string()).collect();
                let _ = writeln!(
                    s,
                    "<p>Draws rendered on one path only: {}</p>",
                    list.join(", ")
                );
            }
            if !b.commands.is_empty() {
                s.push_str("<p>Look closer:</p><table class=\"commands\">\n");
                for c in &b.commands {
                    let _ = writeln!(
                        s,
                        "<tr><td><code>{}</code></td><td>{}</td></tr>",
                        escape(&c.line),
                        escape(&c.shows)
                    );
                }
                s.push_str("</table>\n");
            }
            if let Some(images) = &artifacts.bisect {
                let draw = images.draw;
                s.push_str("<div class=\"row\">");
                s.push_str(&self.figure(
                    name,
                    &format!("draw-{draw:04}-gpu.png"),
                    &format!("gpu after draw {draw}"),
                    &images.actual,
                )?);
                s.push_str(&self.figure(
                    name,
                    &format!("draw-{draw:04}-cpu.png"),
                    &format!("cpu after draw {draw}"),
                    &images.expected,
                )?);
                if let Some(diff) = &images.difference {
                    s.push_str(&self.figure(
                        name,
                        &format!("draw-{draw:04}-difference.png"),
                        &format!("difference after draw {draw}"),
                        diff,
                    )?);
                }
                s.push_str("</div>\n");
            }
        }
        s.push_str("</section>\n");
        self.sections.push_str(&s);
        Ok(())
    }

    /// Write `index.html`; returns its path.
    pub fn finish(self, report: &Report) -> anyhow::Result<PathBuf> {
        let mut html = String::new();
        let _ = write!(
            html,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>rsxtrace ci: {0}</title>\n<style>{STYLE}</style></head><body>\n\
             <h1>rsxtrace ci: {0}</h1>\n<p>{1}{2}{3}</p>\n",
            escape(&report.manifest),
            escape(&report.summary.line()),
            report
                .shard
                .as_ref()
                .map_or(String::new(), |s| format!(", shard {}", escape(s))),
            report
                .gpu
                .as_ref()
                .map_or(String::new(), |g| format!(", GPU {}", escape(g))),
        );
        html.push_str(
            "<table><tr><th>trace</th><th>status</th><th>paths</th><th>first failing draw</th></tr>\n",
        );
        for t in &report.traces {
            let paths: Vec<String> = t
                .paths
                .iter()
                .map(|p| format!("{} {}", p.path.name(), p.status.name()))
                .collect();
            let first = t
                .bisect
                .as_ref()
                .and_then(|b| b.first_draw)
                .map_or("-".to_string(), |d| d.to_string());
            let _ = writeln!(
                html,
                "<tr><td><a href=\"#{0}\">{0}</a></td><td>{1}</td><td>{2}</td><td>{3}</td></tr>",
                escape(&t.name),
                status_badge(t.status),
                escape(&paths.join(", ")),
                first
            );
        }
        html.push_str("</table>\n");
        html.push_str(&self.sections);
        html.push_str("</body></html>\n");
        let path = self.dir.join("index.html");
        std::fs::write(&path, html).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:1em 2em;background:#fafafa;color:#222}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;\
text-align:left}section{border-top:2px solid #888;margin-top:1.5em}\
.badge{padding:1px 6px;border-radius:4px;color:#fff;font-size:80%;text-transform:uppercase}\
.pass{background:#2a7d2a}.fail{background:#c0392b}.new{background:#2962a8}\
.skip{background:#888}.error{background:#8e44ad}.reason{color:#a00}.meta{color:#555}\
.row{display:flex;flex-wrap:wrap;gap:12px}figure{margin:4px}\
img{image-rendering:pixelated;border:1px solid #999;max-width:512px;min-width:256px}";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bisect::BisectReport;
    use crate::report::tests::{report, trace};
    use crate::report::PathResult;

    #[test]
    fn report_directory_with_images_and_bisect() {
        let dir = tempfile::tempdir().unwrap();
        let mut html = HtmlWriter::new(&dir.path().join("out")).unwrap();
        let mut t = trace("scene1", Outcome::Fail, false);
        t.paths = vec![PathResult::without_render(
            RenderPath::Gpu,
            "lavapipe",
            Outcome::Fail,
            "3 pixels over 8".into(),
        )];
        let mut b = BisectReport::unavailable("x");
        b.reason = "departs after draw 4".into();
        b.first_draw = Some(4);
        b.introducing_draws = vec![4, 9];
        b.status = crate::bisect::BisectStatus::Found;
        b.look_closer("scene1", "a <b>.rrc", 0);
        t.bisect = Some(b);
        let img = Rgba8Image::filled(2, 2, [1, 2, 3, 255]);
        let artifacts = Artifacts {
            reference: Some(img.clone()),
            paths: vec![PathImages {
                path: RenderPath::Gpu,
                actual: img.clone(),
                difference: Some(img.clone()),
            }],
            bisect: Some(BisectImages {
                draw: 4,
                expected: img.clone(),
                actual: img.clone(),
                difference: None,
            }),
        };
        let safe = trace("plain", Outcome::Pass, false);
        html.add(&safe, &Artifacts::default()).unwrap();
        html.add(&t, &artifacts).unwrap();
        let index = html.finish(&report(vec![safe, t])).unwrap();
        let text = std::fs::read_to_string(&index).unwrap();
        assert!(text.starts_with("<!DOCTYPE html>"));
        for file in [
            "gpu-actual.png",
            "expected.png",
            "gpu-difference.png",
            "draw-0004-gpu.png",
            "draw-0004-cpu.png",
        ] {
            assert!(text.contains(&format!("src=\"scene1/{file}\"")), "{file}");
            let back = Rgba8Image::read_png(dir.path().join("out/scene1").join(file)).unwrap();
            assert_eq!(back, img);
        }
        assert!(!dir
            .path()
            .join("out/scene1/draw-0004-difference.png")
            .exists());
        assert!(text.contains("Failing draws (the difference grew after each): 4, 9"));
        assert!(text.contains(
            "<tr><td><code>rsxtrace verify &apos;a &lt;b&gt;.rrc&apos; --explain 4</code></td>"
        ));
        assert!(text.contains("<a href=\"#scene1\">scene1</a>"));
        assert!(text.contains("<td>4</td></tr>"));
        assert!(text.contains("3 pixels over 8"));
        assert!(text.contains("2 traces: 1 pass, 1 fail"));
    }
}
