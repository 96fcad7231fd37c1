//! The HTML report: one self-contained page (no external files). A summary, the first
//! divergence with the state changed since the previous draw, the negative control, and one
//! row per draw and stage; fragment-stage rows show colour output 0 from the GPU, from the
//! interpreter and their difference (×8) as PNG images embedded as base64 data URIs.

use super::model::{StageImages, VerifyReport};
use super::table::{worst_rows, HEADERS};
use std::fmt::Write;

/// Text with `&`, `<`, `>`, `"` escaped.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Standard base64 (RFC 4648 section 4) with padding.
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(A[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// An RGBA8 image as PNG bytes.
pub fn png(width: u32, height: u32, rgba: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().ok()?;
        w.write_image_data(rgba).ok()?;
    }
    Some(out)
}

fn img(width: u32, height: u32, rgba: &[u8], title: &str) -> String {
    match png(width, height, rgba) {
        Some(bytes) => format!(
            "<figure><img alt=\"{t}\" title=\"{t}\" src=\"data:image/png;base64,{}\"><figcaption>{t}</figcaption></figure>",
            base64(&bytes),
            t = esc(title)
        ),
        None => String::new(),
    }
}

fn images(i: &StageImages) -> String {
    [
        img(i.width, i.height, &i.gpu, "GPU"),
        img(i.width, i.height, &i.interpreter, "interpreter"),
        img(i.width, i.height, &i.difference, "difference x8"),
    ]
    .concat()
}

/// The page.
pub fn to_html(report: &VerifyReport) -> String {
    let mut h = String::new();
    let t = &report.totals;
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>rsxtrace verify: {cap}</title>\
         <style>body{{font-family:sans-serif}}table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:2px 6px;font-size:13px}}\
         .diverged{{background:#fcc}}.failed{{background:#fc9}}.skipped{{color:#777}}figure{{display:inline-block;margin:4px}}img{{image-rendering:pixelated;border:1px solid #ccc;max-width:256px}}</style></head><body>\n\
         <h1>rsxtrace verify: {cap}</h1>\n<p>Device: {dev}<br>Tolerances: <code>{tol}</code><br>Draws: {d}; stages clean {c}, diverged {dv}, skipped {s}, failed {f}; ill-conditioned components {ic}<br>\
         Time: {wall:.0} ms (fetch {fe:.0}, interpreter {it:.0}, pipelines {pi:.0}, GPU {gp:.0}, raster {ra:.0}, compare {co:.0}; per phase summed over threads)</p>\n",
        cap = esc(&report.capture),
        dev = esc(&report.device),
        tol = esc(&report.tolerance_spec),
        d = t.draws,
        c = t.clean,
        dv = t.diverged,
        s = t.skipped,
        f = t.failed,
        ic = t.ill_conditioned,
        wall = report.timings.wall_ms,
        fe = report.timings.fetch_ms,
        it = report.timings.interpreter_ms,
        pi = report.timings.pipeline_ms,
        gp = report.timings.gpu_ms,
        ra = report.timings.raster_ms,
        co = report.timings.compare_ms,
    );
    if let Some(fd) = &report.first_divergence {
        let _ = write!(
            h,
            "<h2>First divergence: draw {} ({} stage{})</h2>\n<table><tr><th>state</th><th>draw {}</th><th>draw {}</th></tr>\n",
            fd.draw,
            fd.stage.name(),
            fd.register.as_ref().map_or(String::new(), |r| format!(", {}", esc(r))),
            fd.previous.map_or("-".to_string(), |p| p.to_string()),
            fd.draw
        );
        for c in &fd.changed {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td></tr>",
                esc(&c.key),
                esc(&c.before.to_string()),
                esc(&c.after.to_string())
            );
        }
        h.push_str("</table>\n");
    }
    let rows = worst_rows(report, usize::MAX);
    if !rows.is_empty() {
        h.push_str("<h2>Worst first</h2>\n<table><tr>");
        for c in HEADERS {
            let _ = write!(h, "<th>{}</th>", esc(c));
        }
        h.push_str("</tr>\n");
        for r in rows {
            h.push_str("<tr>");
            for c in r {
                let _ = write!(h, "<td>{}</td>", esc(&c));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
    if let Some(m) = &report.mutation {
        let _ = writeln!(
            h,
            "<h2>Negative control</h2>\n<p>seed {}, requested {}, applied {}, rejected {}, effective {}, detected {} ({:.1}%), detected but ineffective {}</p>",
            m.seed,
            m.requested,
            m.applied,
            m.rejected,
            m.effective,
            m.detected,
            m.detection_rate * 100.0,
            m.detected_ineffective
        );
    }
    h.push_str("<h2>Draws</h2>\n<table><tr><th>draw</th><th>primitive</th><th>stage</th><th>outcome</th><th>compared</th><th>registers (diverged/compared, ill-conditioned)</th><th>images</th></tr>\n");
    for d in &report.draws {
        for s in &d.stages {
            let detail = match &s.outcome {
                super::model::Outcome::Skipped { reason } => esc(reason),
                super::model::Outcome::Failed { error } => esc(error),
                _ => s
                    .registers
                    .iter()
                    .map(|r| {
                        format!(
                            "{} {}/{}{}",
                            esc(&r.register),
                            r.diverged,
                            r.compared,
                            if r.ill_conditioned > 0 {
                                format!(" ({} ill)", r.ill_conditioned)
                            } else {
                                String::new()
                            }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("<br>"),
            };
            let _ = writeln!(
                h,
                "<tr class=\"{o}\"><td>{}</td><td>{}</td><td>{}</td><td>{o}</td><td>{}{}</td><td>{}</td><td>{}</td></tr>",
                d.draw,
                esc(&d.primitive),
                esc(&super::table::stage_cell(s)),
                s.elements,
                s.covered.map_or(String::new(), |c| format!(" of {c}")),
                detail,
                s.images.as_ref().map_or(String::new(), images),
                o = s.outcome.name(),
            );
        }
    }
    h.push_str("</table>\n</body></html>\n");
    h
}

/// Write the page to `path`.
pub fn write(report: &VerifyReport, path: &std::path::Path) -> std::io::Result<()> {
    std::fs::write(path, to_html(report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        // RFC 4648 section 10.
        for (input, out) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), out, "{input}");
        }
    }

    #[test]
    fn png_round_trips() {
        let rgba = [255u8, 0, 0, 255, 0, 255, 0, 255];
        let bytes = png(2, 1, &rgba).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (2, 1));
        assert_eq!(&buf[..8], &rgba);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }
}
