//! `index.html`: the final frame, the capture's facts (as `rsxtrace info` gives them), the
//! render's and the verification's totals, the reported draws' statistics (as `rsxtrace stats`
//! gives them), and every event in stream order with a filter box
//! and keyboard navigation (`assets/report.js`). A draw's row links to its page and shows a
//! thumbnail of its target after it when the draw changed the target.

use super::{image, layout};
use crate::events::{self, Event};
use crate::site::SitePath;
use crate::Report;
use maud::{html, Markup};
use rsxtrace_capture::frame::state::Surface;
use rsxtrace_capture::rrc::Compression;
use rsxtrace_replay::render::overdraw::{Overdraw, RAMP_TOP};
use rsxtrace_replay::render::state::ClearEvent;
use rsxtrace_replay::render::statistics::{share, FrameStatistics};
use rsxtrace_replay::render::transfer::{Transfer, TransferEvent};

/// The index page and the number of events it lists.
pub fn page(report: &Report<'_>) -> (Markup, usize) {
    let path = SitePath::index();
    let frame = &report.loaded.scene.frame;
    let list = events::list(frame, &report.loaded.scene.events, report.range.clone());
    let source = &report.loaded.overview.provenance.source_name;
    let body = html! {
        header {
            h1 { "rsxtrace report: " (source) }
            p.facts {
                "Draws " (report.range.start) ".." (report.range.end) " of " (frame.draws.len())
                ", rendered by the " (report.renderer)
            }
        }
        section.frame {
            h2 { "Frame" }
            div.pair {
                figure {
                    (image(&report.images, report.final_image, &path, "the final frame", "frame"))
                    figcaption.facts { "Output: " (output_source(report)) }
                }
                @if let Some(o) = &report.overdraw {
                    figure {
                        (image(&report.images, o.image, &path, "overdraw heat map", "frame"))
                        figcaption.facts { (overdraw_text(&o.counted)) }
                    }
                    @if let Some((id, passed)) = &o.passed {
                        figure {
                            (image(&report.images, *id, &path, "passed fragments heat map", "frame"))
                            figcaption.facts { (passed_text(passed)) }
                        }
                    }
                }
            }
        }
        div.columns {
            section { h2 { "Capture" } (facts(report)) }
            section { h2 { "Render" } (render_facts(report)) (verify_facts(report)) }
        }
        (statistics(&report.statistics))
        section.events {
            h2 { "Events" }
            p.help {
                label for="filter" { "Filter " }
                input #filter type="search" placeholder="words, e.g. draw triangles fp-1a" autocomplete="off";
                " " span #shown { (list.len()) " events" }
                " — " kbd { "j" } "/" kbd { "k" } " or " kbd { "↓" } "/" kbd { "↑" } " move, "
                kbd { "Enter" } " opens, " kbd { "/" } " filters"
            }
            table #events {
                thead {
                    tr {
                        th { "#" } th { "event" } th { "primitive" } th.num { "vertices" }
                        th.num { "fragments" }
                        th { "programs" } th { "target" } th { "after" }
                        @if report.verify.is_some() { th { "verify" } }
                        th { "notes" }
                    }
                }
                tbody {
                    @for (n, event) in list.iter().enumerate() {
                        (row(report, n, event, &path))
                    }
                }
            }
        }
    };
    (
        layout(&path, &format!("rsxtrace report: {source}"), "index", body),
        list.len(),
    )
}

/// Methods listed in the statistics' method table.
const TOP_METHODS: usize = 10;

/// Passes listed in the statistics' pass table.
const PASSES_SHOWN: usize = 30;

/// The reported draws' statistics (`rsxtrace stats`, docs/stats.md): the totals, the draws
/// changing each part of the state, vertices per draw, the passes and the most called methods.
fn statistics(s: &FrameStatistics) -> Markup {
    let draws = s.draws.len() as u64;
    html! {
        section.statistics {
            h2 { "Statistics" }
            p.help {
                "Over the reported draws, as " code { "rsxtrace stats" } " counts them: "
                (s.method_calls) " method calls."
            }
            div.columns {
                section {
                    table.state {
                        tbody { @for (k, v) in s.summary() { tr { th { (k) } td { (v) } } } }
                    }
                    table.state {
                        thead { tr { th { "vertices per draw" } th.num { "draws" } th.num { "share" } } }
                        tbody {
                            @for b in &s.vertices.histogram {
                                tr { td { (b.label()) } td.num { (b.draws) } td.num { (share(b.draws as u64, draws)) } }
                            }
                        }
                    }
                }
                section {
                    table.state {
                        thead { tr { th { "state part" } th.num { "draws changing it" } th.num { "share" } } }
                        tbody {
                            @for (part, n) in &s.changes {
                                tr { td { (part) } td.num { (n) } td.num { (share(*n as u64, draws)) } }
                            }
                        }
                    }
                    table.state {
                        thead { tr { th.num { "pass" } th { "draws" } th { "kind" } th.num { "primitives" } th.num { "clears" } th { "targets" } } }
                        tbody {
                            @for (n, p) in s.passes.iter().enumerate().take(PASSES_SHOWN) {
                                tr {
                                    td.num { (n) }
                                    td { a href=(SitePath::draw(p.draws.start).as_str()) { (p.draws.start) } ".." (p.draws.end) }
                                    td { (p.kind.name()) }
                                    td.num { (p.primitives) }
                                    td.num { (p.clears) }
                                    td { (p.targets_text()) }
                                }
                            }
                        }
                    }
                    @if s.passes.len() > PASSES_SHOWN {
                        p.help { (s.passes.len() - PASSES_SHOWN) " more passes: " code { "rsxtrace stats --json" } " lists them all." }
                    }
                    table.state {
                        thead { tr { th { "method" } th.num { "calls" } th.num { "share" } } }
                        tbody {
                            @for m in s.methods.iter().take(TOP_METHODS) {
                                tr { td { (m.method) } td.num { (m.calls) } td.num { (share(m.calls, s.method_calls)) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The overdraw heat map's caption: what it counts and the totals.
fn overdraw_text(o: &Overdraw) -> String {
    let (max, x, y) = o.max();
    format!(
        "Overdraw: fragments the draws rasterize per pixel of the output image, before the \
         fragment program and the tests (0 black; 1 blue, cyan, green, yellow, {RAMP_TOP}+ \
         red): {} fragments from {} draws over {} pixels, {:.2} per covered pixel, at most \
         {max} at ({x}, {y}).",
        o.total(),
        o.draws.len(),
        o.covered_pixels(),
        o.mean_per_covered_pixel()
    )
}

/// The passed heat map's caption.
fn passed_text(o: &Overdraw) -> String {
    let (max, x, y) = o.max();
    format!(
        "Passed: fragments that passed every test (kill, alpha, stencil, depth) per pixel of \
         the output image in the CPU render, what an occlusion query counts (same ramp): {} \
         pixels written, {:.2} passed fragments per written pixel, at most {max} at ({x}, {y}).",
        o.covered_pixels(),
        o.mean_per_covered_pixel()
    )
}

fn output_source(report: &Report<'_>) -> String {
    use rsxtrace_replay::render::OutputSource;
    let r = match &report.rendered {
        Ok(r) => r,
        Err(why) => return format!("none: the frame could not be rendered: {why}"),
    };
    let image = &r.image;
    match &r.source {
        OutputSource::Displayed { address } => format!(
            "the displayed buffer at local+0x{address:x}, {}x{}",
            image.width, image.height
        ),
        OutputSource::LastColorTarget { address, format } => format!(
            "the last colour target drawn to, 0x{address:x} ({format}), {}x{} (the capture names no displayed buffer)",
            image.width, image.height
        ),
        OutputSource::NoColorTarget => "none: no draw writes colour".to_string(),
    }
}

fn facts(report: &Report<'_>) -> Markup {
    let o = &report.loaded.overview;
    let p = &o.provenance;
    let s = &o.stats;
    let sha: String = p.sha256.iter().map(|b| format!("{b:02x}")).collect();
    let compression = match p.compression {
        Compression::None => "none",
        Compression::Gzip => "gzip",
        Compression::Zstd => "zstd",
    };
    let rows: Vec<(&str, String)> = vec![
        ("source", p.source_name.clone()),
        ("RRC version", p.rrc_version.to_string()),
        ("compression", compression.to_string()),
        ("sha256", sha),
        (
            "transform program",
            format!("{} slots", o.transform_program_slots),
        ),
        (
            "initial constants",
            if o.constants_in_file {
                "in the file".into()
            } else {
                "absent (known only once uploaded in the frame)".into()
            },
        ),
        ("commands", s.commands.to_string()),
        ("method calls", s.method_calls.to_string()),
        ("draws", s.draws.to_string()),
        (
            "memory blocks",
            format!(
                "{} attachments, {} bytes ({} distinct blobs, {} bytes)",
                s.memory_blocks, s.memory_bytes, o.memory_data_entries, s.memory_data_bytes
            ),
        ),
        (
            "distinct programs",
            format!(
                "{} vertex, {} fragment",
                s.distinct_vertex_programs, s.distinct_fragment_programs
            ),
        ),
        ("tile regions", o.regions.tiles_line()),
        ("Z-cull regions", o.regions.zculls_line()),
        (
            "problems",
            format!(
                "{} draws with problems, {} frame-level",
                s.draws_with_problems, s.frame_problems
            ),
        ),
    ];
    html! {
        table.state {
            tbody { @for (k, v) in &rows { tr { th { (k) } td { (v) } } } }
        }
        @for problem in &o.frame_problems { p.warning { "frame problem: " (problem) } }
    }
}

fn render_facts(report: &Report<'_>) -> Markup {
    let drawn = report.rendered.as_ref().map_or(0, |r| r.draws_rendered);
    let frame_warnings: Vec<&str> = report
        .warnings()
        .iter()
        .filter(|w| w.draw.is_none())
        .map(|w| w.message.as_str())
        .collect();
    html! {
        table.state {
            tbody {
                tr { th { "renderer" } td { (report.renderer) } }
                tr { th { "draws rendered" } td { (drawn) } }
                tr { th { "draws skipped" } td { (report.skipped().len()) } }
                tr { th { "warnings" } td { (report.warnings().len()) } }
                tr { th { "render time" } td { (format!("{:.2} s", report.render_seconds)) } }
                tr { th { "images" } td { (report.images.files) " PNG files, " (report.images.bytes) " bytes" } }
            }
        }
        @if let Err(why) = &report.rendered { p.warning { "the frame could not be rendered: " (why) } }
        @for w in frame_warnings { p.warning { (w) } }
    }
}

fn verify_facts(report: &Report<'_>) -> Markup {
    let Some((v, _)) = &report.verify else {
        return html! {};
    };
    let t = &v.totals;
    html! {
        h3 { "Verification" }
        table.state {
            tbody {
                tr { th { "device" } td { (v.device) } }
                tr { th { "draws" } td { (t.draws) } }
                tr { th { "stages" } td {
                    (t.clean) " clean, " (t.diverged) " diverged, " (t.skipped) " skipped, "
                    (t.failed) " failed (" (t.substituted) " with substituted state)"
                } }
                @if let Some(fd) = &v.first_divergence {
                    tr { th { "first divergence" } td {
                        a href=(SitePath::draw(fd.draw).as_str()) { "draw " (fd.draw) }
                        " (" (fd.stage.name()) " stage)"
                    } }
                }
            }
        }
    }
}

fn row(report: &Report<'_>, n: usize, event: &Event<'_>, from: &SitePath) -> Markup {
    let span = if report.verify.is_some() { 8 } else { 7 };
    match event {
        Event::Draw(d) => draw_row(report, n, *d, from),
        Event::Clear(c) => html! {
            tr.clear { td.num { (n) } td { "clear" } td colspan=(span) { (clear_text(c)) } }
        },
        Event::Transfer(t) => html! {
            tr.transfer { td.num { (n) } td { "transfer" } td colspan=(span) { (transfer_text(t)) } }
        },
        Event::SurfaceChange { draw, surface } => html! {
            tr.surface {
                td.num { (n) } td { "surface" }
                td colspan=(span) { "before draw " (draw) ": " (surface_text(surface)) }
            }
        },
    }
}

fn draw_row(report: &Report<'_>, n: usize, d: usize, from: &SitePath) -> Markup {
    let frame = &report.loaded.scene.frame;
    let draw = &frame.draws[d];
    let k = d - report.range.start;
    let shots = report.shots.get(k);
    let href = SitePath::draw(d).href_from(from);
    let programs = report.draw_programs.get(k);
    let key = |i: usize| -> String {
        match programs.map(|p| &p[i]) {
            Some(Ok(key)) => key.0.clone(),
            Some(Err(_)) | None => "-".to_string(),
        }
    };
    // The first colour target; for a draw without one (a depth-only pass), its depth surface.
    let target = shots.and_then(|s| match &s.target {
        Some(Err(_)) => s.others.iter().find(|o| o.is_ok()).or(s.target.as_ref()),
        other => other.as_ref(),
    });
    let skipped = report
        .skipped()
        .iter()
        .find(|(i, _)| *i == d)
        .map(|(_, why)| why.as_str());
    let warnings = report
        .warnings()
        .iter()
        .filter(|w| w.draw == Some(d))
        .count();
    let source = if draw.indexed { "indexed" } else { "arrays" };
    // Left out by conditional rendering (its occlusion report counted no sample).
    let left_out = report
        .rendered
        .as_ref()
        .is_ok_and(|r| r.conditional.iter().any(|c| c.draw == d && !c.drawn));
    html! {
        tr.draw {
            td.num { (n) }
            td { a href=(href) { "draw " (d) } }
            td { (draw.primitive.name()) " " span.dim { (source) } }
            td.num { (draw.vertex_count) }
            td.num {
                @match report.overdraw.as_ref().map(|o| o.counted.fragments_of(d)) {
                    Some(n) => (n),
                    None => "-",
                }
            }
            td.keys { (key(0)) br; (key(1)) }
            td {
                @match target {
                    Some(Ok(t)) => {
                        (t.place.name()) " " (t.place.layout.width) "x" (t.place.layout.height) " "
                        (t.place.format_name()) br;
                        span.dim { (t.place.layout.location.name()) "+0x" (format!("{:x}", t.place.layout.offset)) }
                    }
                    Some(Err(why)) => span.dim { (why) },
                    None => "-",
                }
            }
            td.thumb {
                @match target {
                    Some(Ok(t)) => @match (t.diff, &t.after) {
                        (Some(_), Ok(after)) => (image(&report.images, after.thumb, from, "target after the draw", "thumb")),
                        (None, Ok(_)) => span.dim { "unchanged" },
                        (_, Err(why)) => span.dim { (why) },
                    },
                    _ => "",
                }
            }
            @if report.verify.is_some() {
                td { (verify_outcome(report, d)) }
            }
            td {
                @if let Some(why) = skipped { span.warning { "skipped: " (why) } br; }
                @if left_out { "not drawn: conditional rendering" br; }
                @if warnings > 0 { (warnings) " warnings" br; }
                @for p in &draw.problems { span.warning { (p.to_string()) } br; }
            }
        }
    }
}

/// The draw's worst verification outcome as one word.
pub fn verify_outcome(report: &Report<'_>, d: usize) -> String {
    let Some(v) = report.verify_of(d) else {
        return "-".to_string();
    };
    let names: Vec<&str> = v.stages.iter().map(|s| s.outcome.name()).collect();
    for worst in ["failed", "diverged", "skipped"] {
        if names.contains(&worst) {
            return worst.to_string();
        }
    }
    if names.is_empty() {
        "-".to_string()
    } else {
        "clean".to_string()
    }
}

fn clear_text(c: &ClearEvent) -> String {
    let m = &c.mask;
    let mut what = Vec::new();
    let channels: String = ["R", "G", "B", "A"]
        .iter()
        .zip(m.color)
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect();
    if !channels.is_empty() {
        what.push(format!("colour {channels} to 0x{:08x}", c.color_value));
    }
    if m.depth || m.stencil {
        what.push(format!(
            "{} to 0x{:08x}",
            match (m.depth, m.stencil) {
                (true, true) => "depth and stencil",
                (true, false) => "depth",
                _ => "stencil",
            },
            c.zstencil_value
        ));
    }
    if what.is_empty() {
        what.push("nothing (empty mask)".into());
    }
    format!(
        "before draw {}: {} in {}x{} at ({}, {}); {}",
        c.before_draw,
        what.join(", "),
        c.scissor.width,
        c.scissor.height,
        c.scissor.x,
        c.scissor.y,
        surface_text(&c.surface)
    )
}

fn transfer_text(t: &TransferEvent) -> String {
    let what = match &t.transfer {
        Ok(Transfer::Copy(c)) => format!(
            "NV0039 copy of {} lines of {} bytes from {}+0x{:x} to {}+0x{:x}",
            c.line_count,
            c.line_length,
            c.src.name(),
            c.src_offset,
            c.dst.name(),
            c.dst_offset
        ),
        Ok(Transfer::Scaled(s)) => format!(
            "NV3089 scaled image {}x{} {:?} from {}+0x{:x} to ({}, {}) {}x{} of {:?}",
            s.in_size.0,
            s.in_size.1,
            s.src_format,
            s.src.name(),
            s.src_offset,
            s.out.0,
            s.out.1,
            s.out.2,
            s.out.3,
            s.destination
        ),
        Ok(Transfer::Inline(p)) => format!(
            "NV308A inline pixel 0x{:08x} to ({}, {}) of {}+0x{:x} {:?}",
            p.word,
            p.x,
            p.y,
            p.location.name(),
            p.offset,
            p.format
        ),
        Err(u) => format!("{} not replayed: {}", u.method, u.reason),
    };
    format!(
        "before draw {} (command {}): {what}",
        t.before_draw, t.command
    )
}

/// One line about a surface state.
pub fn surface_text(s: &Surface) -> String {
    let named = |n: &rsxtrace_capture::frame::state::Named| {
        n.name
            .map(str::to_string)
            .unwrap_or_else(|| format!("0x{:x}", n.raw))
    };
    let color = &s.color[0];
    format!(
        "{} colour, {} depth, targets {}, A at {}+0x{:x} pitch {}, Z at {}+0x{:x}, clip {}x{}",
        named(&s.format.color_format),
        named(&s.format.depth_format),
        named(&s.color_target),
        color.location.map_or("?", |l| l.name()),
        color.offset,
        color.pitch,
        s.zeta.location.map_or("?", |l| l.name()),
        s.zeta.offset,
        s.clip.width,
        s.clip.height
    )
}
