//! The batch's HTML page: one self-contained file with the totals, the negative control,
//! the sources' problems and one row per program (status, sources, worst error), each with
//! its disassembly and recompiled WGSL in a collapsible block.

use super::report::BatchReport;
use crate::divergence::report::html::esc;
use std::fmt::Write;
use std::path::Path;

/// The page.
pub fn render(report: &BatchReport) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>rsxtrace batch</title>\
         <style>body{{font-family:sans-serif}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:2px 6px;vertical-align:top}}\
         .diverged,.failed,.not_recompiled,.undecodable{{background:#fdd}}\
         .skipped{{background:#ffd}}.proven{{background:#dfd}}pre{{margin:0}}</style>\
         </head><body><h1>rsxtrace batch</h1>"
    );
    let t = &report.totals;
    let _ = write!(
        h,
        "<p>{} unique programs ({} vertex, {} fragment) from {} locations in {} files; {} problems; device: {}.</p><ul>",
        t.programs,
        t.vertex,
        t.fragment,
        t.locations,
        t.files_read,
        t.problems,
        esc(report.device.as_deref().unwrap_or("none (--no-gpu)"))
    );
    for (status, n) in &t.by_status {
        let _ = write!(h, "<li>{status}: {n}</li>");
    }
    h.push_str("</ul>");
    if let Some(m) = &report.mutation {
        let _ = write!(
            h,
            "<p>Negative control (seed {}): {} applied, {} rejected, {} effective, {} detected ({:.1}%).</p>",
            m.seed,
            m.applied,
            m.rejected,
            m.effective,
            m.detected,
            m.detection_rate * 100.0
        );
    }
    if !report.problems.is_empty() {
        h.push_str("<h2>Problems in the sources</h2><table><tr><th>file</th><th>offset</th><th>reason</th></tr>");
        for p in &report.problems {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&p.path.display().to_string()),
                p.offset.map_or("-".to_string(), |o| format!("{o:#x}")),
                esc(&p.reason)
            );
        }
        h.push_str("</table>");
    }
    h.push_str("<h2>Programs</h2><table><tr><th>status</th><th>stage</th><th>key</th><th>sources</th><th>worst error</th><th>program</th></tr>");
    for p in &report.programs {
        let sources: Vec<String> = p
            .formats
            .iter()
            .map(|f| format!("<small>{}</small>", esc(f)))
            .chain(
                p.sources
                    .iter()
                    .map(|o| esc(&serde_json::to_string(o).unwrap_or_default())),
            )
            .collect();
        let _ = write!(
            h,
            "<tr class=\"{status}\" id=\"{key}\"><td>{status}{reason}</td><td>{stage}</td><td><code>{key}</code></td><td>{sources}</td><td>{worst}</td>\
             <td><details><summary>{n} instructions</summary><pre>{dis}</pre></details>\
             <details><summary>WGSL</summary><pre>{wgsl}</pre></details></td></tr>",
            status = p.status.name(),
            reason = p
                .reason
                .as_ref()
                .map_or(String::new(), |r| format!("<br><small>{}</small>", esc(r))),
            stage = p.stage.name(),
            key = p.key,
            sources = sources.join("<br>"),
            worst = p.worst_error.map_or("-".to_string(), |e| format!("{e:.3e}")),
            n = p.instructions,
            dis = esc(&p.disassembly),
            wgsl = esc(p.wgsl.as_deref().unwrap_or("(not recompiled)")),
        );
    }
    h.push_str("</table></body></html>\n");
    h
}

/// Writes the page to `path`.
pub fn write(report: &BatchReport, path: &Path) -> std::io::Result<()> {
    std::fs::write(path, render(report))
}
