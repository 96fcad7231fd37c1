//! A draw's page, in the order of RenderDoc's pipeline view: the target before and after the
//! draw with the change view, input assembly (vertex inputs and formats, the first vertices
//! decoded, the index range), vertex program (its page in a frame: disassembly and WGSL; the
//! constants it reads with the values this draw sees), rasterizer state, fragment program (its
//! page; texture units with thumbnails), output merger (blend, depth, stencil, masks, surface),
//! the renderer's warnings and, when verified, the draw's divergence result.

use super::index::surface_text;
use super::state_table::{groups, rows};
use super::{float, image, image_href, layout, vec4};
use crate::coverage::CoverageShot;
use crate::programs::{self, ConstantRead};
use crate::site::SitePath;
use crate::snapshot::{StateImages, TargetShot, TextureShot};
use crate::Report;
use maud::{html, Markup};
use rsxtrace_capture::fetch::{fetch_draw, FetchedVertices, ImmediateValue, VertexSource};
use rsxtrace_capture::frame::{BoundRegions, Draw};
use rsxtrace_replay::program::vertex::InputAttribute;
use rsxtrace_replay::render::conditional::ReportSource;
use rsxtrace_replay::texture::decode::texel_format;
use rsxtrace_verify::divergence::compare::Worst;
use rsxtrace_verify::divergence::{DrawReport, Outcome, RegisterReport, StageReport};
use rsxtrace_verify::probe::constant_layout::groups::{describe, group_of, group_reads, Group};
use rsxtrace_verify::probe::constant_layout::reads::constant_reads;

/// Vertices decoded in the input assembly table.
const VERTEX_ROWS: usize = 8;

/// The page of draw `d` at `path`.
pub fn page(report: &Report<'_>, d: usize, path: &SitePath) -> Markup {
    let frame = &report.loaded.scene.frame;
    let draw = &frame.draws[d];
    let k = d - report.range.start;
    let shots = report.shots.get(k);
    let title = format!("draw {d}: {}", draw.primitive.name());
    let prev = (d > report.range.start).then(|| SitePath::draw(d - 1).href_from(path));
    let next = (d + 1 < report.range.end).then(|| SitePath::draw(d + 1).href_from(path));
    let body = html! {
        nav {
            a rel="index" href=(SitePath::index().href_from(path)) { "index" }
            " · "
            @if let Some(p) = &prev { a rel="prev" href=(p) { "← draw " (d - 1) } } @else { span.dim { "first" } }
            " · "
            @if let Some(n) = &next { a rel="next" href=(n) { "draw " (d + 1) " →" } } @else { span.dim { "last" } }
            " — " kbd { "j" } "/" kbd { "k" } " next/previous, " kbd { "u" } " index"
        }
        h1 { "Draw " (d) }
        p.facts {
            (draw.primitive.name()) ", " (draw.vertex_count) " vertices ("
            (if draw.indexed { "indexed" } else { "arrays" }) "), commands "
            (draw.begin_command) "..=" (draw.end_command)
            @if draw.part > 0 {
                ", part " (draw.part) " of its BEGIN/END (the ranges after a change of a vertex base, array offset or transform constant)"
            }
            @if let Some(o) = &report.overdraw {
                @let n = o.counted.fragments_of(d);
                ", rasterizes " (n) " fragments on the output image ("
                (format!("{:.1}", n as f64 * 100.0 / o.counted.total().max(1) as f64)) "% of the frame's)"
            }
            @if let Some(s) = report.rendered.as_ref().ok().and_then(|r| r.draw_shading.iter().find(|s| s.draw == d)) {
                ", " (s.shading.fragments_passed) " of its fragments passed every test and were written (on all its targets: what an occlusion query counts)"
            }
        }
        (notes(report, d, draw))
        section #target {
            h2 { "Target" }
            @match shots.and_then(|s| s.target.as_ref()) {
                Some(Ok(t)) => (target(report, d, Some(d), t, path)),
                Some(Err(why)) => p.dim { (why) },
                None => p.dim { "not observed (the frame was not rendered up to this draw)" },
            }
            @for other in shots.map(|s| s.others.as_slice()).unwrap_or_default() {
                @match other {
                    Ok(t) => (target(report, d, None, t, path)),
                    Err(why) => p.dim { (why) },
                }
            }
        }
        section #input-assembly { h2 { "Input assembly" } (input_assembly(report, draw, d)) }
        section #vertex-program { h2 { "Vertex program" } (vertex_program(report, draw, k, path)) }
        section #rasterizer {
            h2 { "Rasterizer" }
            (groups(&rasterizer_rows(draw)))
        }
        section #fragment-program {
            h2 { "Fragment program" }
            (fragment_program(report, draw, k, path))
            (textures(report, shots.map(|s| s.textures.as_slice()).unwrap_or_default(), draw, path))
        }
        section #output-merger {
            h2 { "Output merger" }
            p.facts {
                "Surface: " (surface_text(&draw.surface)) ", window offset ("
                (draw.surface.window_offset_x) ", " (draw.surface.window_offset_y) ")"
            }
            (groups(&output_rows(draw, report.loaded.scene.regions.at(draw.end_command))))
        }
        @if report.verify.is_some() {
            section #verify { h2 { "Verification" } (verify(report.verify_of(d))) }
        }
        section #commands {
            h2 { "From the command line" }
            (commands(report, d))
        }
    };
    layout(path, &title, "draw", body)
}

/// The `rsxtrace` commands that look closer at draw `d`, on the capture the site was made of.
fn commands(report: &Report<'_>, d: usize) -> Markup {
    let capture = report
        .loaded
        .path
        .file_name()
        .map_or_else(|| "CAPTURE".into(), |n| n.to_string_lossy().into_owned());
    let lines = [
        (
            format!("rsxtrace dump {capture} --draw {d}"),
            "all its state, its fetched vertices",
        ),
        (
            format!("rsxtrace debug {capture} --draw {d} --pixel X,Y --trace"),
            "its fragment program at a pixel, step by step",
        ),
        (
            format!("rsxtrace history {capture} --pixel X,Y"),
            "every clear, transfer and fragment that reached a pixel of the frame",
        ),
        (
            format!("rsxtrace trim {capture} --draws {d} --out draw-{d}.rrc.gz"),
            "a capture of this draw alone (as replay --draws renders it)",
        ),
    ];
    html! {
        table.commands {
            @for (line, what) in &lines {
                tr { td { code { (line) } } td { (what) } }
            }
        }
    }
}

fn notes(report: &Report<'_>, d: usize, draw: &Draw) -> Markup {
    let skipped = report.skipped().iter().filter(|(i, _)| *i == d);
    let warnings = report.warnings().iter().filter(|w| w.draw == Some(d));
    // Conditional rendering's decision, when a report decided it (an unknown report is among
    // the warnings).
    let conditional = report
        .rendered
        .as_ref()
        .map_or(&[][..], |r| r.conditional.as_slice())
        .iter()
        .filter(|c| c.draw == d && c.source != ReportSource::Unknown);
    html! {
        @for (_, why) in skipped { p.warning { "not rendered: " (why) } }
        @for c in conditional { p { (c.describe()) } }
        @for w in warnings { p.warning { "render warning: " (w.message) } }
        @for problem in &draw.problems { p.warning { "problem: " (problem.to_string()) } }
    }
}

fn state_pair(
    report: &Report<'_>,
    images: &Result<StateImages, String>,
    path: &SitePath,
    alt: &str,
) -> Markup {
    match images {
        Ok(i) => image(&report.images, i.view, path, alt, "view"),
        Err(why) => html! { span.missing { (why) } },
    }
}

/// One target's before, after and changed pixels. `counted`: the draw whose change counts
/// (for its first colour target) are shown in the caption.
fn target(
    report: &Report<'_>,
    d: usize,
    counted: Option<usize>,
    t: &TargetShot,
    path: &SitePath,
) -> Markup {
    let l = &t.place.layout;
    let change = counted.and_then(|d| report.changes.get(&d));
    let depth = t.place.is_depth();
    let stencil = t.place.is_stencil();
    html! {
        p.facts {
            (if stencil { "Stencil of the depth surface, " } else if depth { "Depth surface " } else { "Colour target " })
            (t.place.name()) ": " (l.width) "x" (l.height) " "
            (t.place.format_name()) " at " (l.location.name()) "+0x" (format!("{:x}", l.offset))
            ", pitch " (l.pitch)
            @if l.swizzle.is_some() { ", swizzled" }
            @if t.place.antialias.grid() != (1, 1) { ", multisampled " (format!("{:?}", t.place.antialias)) " (resolved)" }
            @if stencil {
                " — stencil as grey levels, each image from its lowest value (black) to its highest (white)"
            } @else if depth {
                " — depth as grey levels, each image from its lowest depth (black) to its highest (white); stencil shown apart (S) when the draw writes it"
            } @else {
                " — colour only, alpha not shown"
            }
        }
        div.triple {
            figure { (state_pair(report, &t.before, path, "target before the draw")) figcaption { "before" } }
            figure { (state_pair(report, &t.after, path, "target after the draw")) figcaption { "after" } }
            figure {
                @match (t.diff, &t.after) {
                    (Some(id), Ok(after)) => div.stack {
                        (image(&report.images, after.view, path, "", "view context"))
                        (image(&report.images, id, path, "pixels the draw changed", "view overlay"))
                    },
                    _ => span.dim { "the draw changed no byte of the target" },
                }
                figcaption {
                    (if depth { "changed pixels" } else { "changed pixels in colour" })
                    @if let Some(c) = change {
                        ": " (c.pixels)
                        @if let Some((x0, y0, x1, y1)) = c.bounds { " in (" (x0) ", " (y0) ")–(" (x1) ", " (y1) ")" }
                    }
                }
            }
            @if let Some(c) = report.coverage.get(&d).filter(|c| c.as_ref().map_or(counted.is_some(), |c| c.place == t.place)) {
                (rasterized(c, t, path, report))
            }
        }
    }
}

/// The pixels the draw rasterizes on the target `t` (`crate::coverage`: `c`), over the target
/// after the draw: where it went, even where the tests dropped every fragment.
fn rasterized(
    c: &Result<CoverageShot, String>,
    t: &TargetShot,
    path: &SitePath,
    report: &Report<'_>,
) -> Markup {
    html! {
        figure {
            @match (c, &t.after) {
                (Ok(CoverageShot { image: Some(id), .. }), Ok(after)) => div.stack {
                    (image(&report.images, after.view, path, "", "view context"))
                    (image(&report.images, *id, path, "pixels the draw rasterizes", "view overlay"))
                },
                (Ok(CoverageShot { image: None, .. }), _) => span.dim {
                    "the draw rasterizes no pixel of the target (culled, clipped or scissored away)"
                },
                (Ok(_), Err(why)) => span.dim { (why) },
                (Err(why), _) => span.dim { "coverage not worked out: " (why) },
            }
            figcaption {
                "pixels rasterized"
                @if let Ok(c) = c { ": " (c.pixels) }
                " (before the fragment program and the tests)"
            }
        }
    }
}

fn input_assembly(report: &Report<'_>, draw: &Draw, d: usize) -> Markup {
    let inputs = &draw.vertex_inputs;
    let fetched = report
        .loaded
        .scene
        .frame
        .memory(d)
        .ok_or_else(|| "the draw has no memory view".to_string())
        .and_then(|m| fetch_draw(inputs, &m).map_err(|e| e.to_string()));
    let source = match &inputs.source {
        VertexSource::Arrays { .. } => "DRAW_ARRAYS".to_string(),
        VertexSource::Indexed { index, .. } => format!(
            "DRAW_INDEX_ARRAY, {:?} indices at {}+0x{:x}",
            index.ty,
            index.location.name(),
            index.offset
        ),
        VertexSource::Inline { words } => format!("INLINE_ARRAY, {} words", words.len()),
        VertexSource::Elements { indices } => format!("ARRAY_ELEMENT, {} indices", indices.len()),
        VertexSource::Immediate { count, .. } => {
            format!("immediate mode (SET_VERTEX_DATA), {count} vertices")
        }
    };
    let ranges: Vec<String> = draw
        .ranges
        .iter()
        .map(|r| format!("{}+{}", r.first, r.count))
        .collect();
    html! {
        table.state {
            tbody {
                tr { th { "source" } td { (source) } }
                tr { th { "ranges (first+count)" } td { @if ranges.is_empty() { "-" } @else { (ranges.join(", ")) } } }
                tr { th { "index range" } td { (index_range(&fetched)) } }
                tr { th { "base offset / base index" } td { "0x" (format!("{:x}", inputs.base_offset)) " / " (inputs.base_index) } }
                tr { th { "primitive restart" } td {
                    @if inputs.restart.enabled { "on, index 0x" (format!("{:x}", inputs.restart.index)) } @else { "off" }
                } }
                tr { th { "input mask" } td { "0x" (format!("{:04x}", inputs.input_mask)) } }
            }
        }
        h3 { "Vertex inputs" }
        table.inputs {
            thead { tr { th { "attr" } th { "name" } th { "array" } th { "type × size" } th.num { "stride" } th { "frequency" } th { "immediate value" } } }
            tbody {
                @for a in 0..16u8 {
                    @let array = inputs.arrays[usize::from(a)].as_ref();
                    @let enabled = inputs.input_mask & (1 << a) != 0;
                    @if enabled || array.is_some() {
                        tr.dim[!enabled] {
                            td { (a) } td { (InputAttribute(a).name()) }
                            @match array {
                                Some(arr) => {
                                    td { (arr.location.name()) "+0x" (format!("{:x}", arr.offset)) }
                                    td { (arr.ty.name()) " × " (arr.size) }
                                    td.num { (arr.stride) }
                                    td { (arr.frequency) " " (format!("{:?}", arr.frequency_op)) }
                                    td { "-" }
                                }
                                None => {
                                    td { "none" } td { "-" } td.num { "-" } td { "-" }
                                    td { (immediate(inputs.immediate[usize::from(a)])) }
                                }
                            }
                        }
                    }
                }
            }
        }
        h3 { "First vertices" }
        (vertices(&fetched))
    }
}

fn immediate(v: ImmediateValue) -> String {
    match v {
        ImmediateValue::Known(v) => vec4(v),
        ImmediateValue::Partial { replayed } => format!("unknown (replayed as {})", vec4(replayed)),
        ImmediateValue::Unknown => "unknown (set before the frame)".to_string(),
    }
}

fn index_range(fetched: &Result<FetchedVertices, String>) -> String {
    match fetched {
        Ok(v) => match (v.indices.iter().min(), v.indices.iter().max()) {
            (Some(lo), Some(hi)) => format!("{lo}..={hi} over {} vertices", v.len()),
            _ => "no vertices".to_string(),
        },
        Err(e) => format!("not fetched: {e}"),
    }
}

fn vertices(fetched: &Result<FetchedVertices, String>) -> Markup {
    let v = match fetched {
        Ok(v) => v,
        Err(e) => return html! { p.warning { "vertices not fetched: " (e) } },
    };
    let attributes: Vec<u8> = v.attributes.iter().map(|a| a.attribute).collect();
    html! {
        @for note in v.unknown_notes() { p.warning { (note) } }
        table.vertices {
            thead {
                tr {
                    th.num { "#" } th.num { "index" }
                    @for a in &attributes { th { (a) " " (InputAttribute(*a).name()) } }
                }
            }
            tbody {
                @for vertex in v.iter().take(VERTEX_ROWS) {
                    tr {
                        td.num { (vertex.position()) } td.num { (vertex.index()) }
                        @for (_, value) in vertex.known_values() {
                            @match value {
                                Some(x) => td { (vec4(x)) },
                                None => td.dim { "unknown" },
                            }
                        }
                    }
                }
            }
        }
        @if v.len() > VERTEX_ROWS { p.dim { (v.len() - VERTEX_ROWS) " more vertices (rsxtrace dump --json lists all)" } }
    }
}

fn program_frame(
    report: &Report<'_>,
    key: &Result<programs::ProgramKey, String>,
    path: &SitePath,
) -> Markup {
    match key {
        Ok(key) => {
            let href = SitePath::program(&key.0).href_from(path);
            let count = report.programs.get(key).map_or(0, |t| t.instructions);
            let wgsl = report.programs.get(key).map(|t| t.wgsl.is_ok());
            html! {
                p.facts {
                    a href=(href) { (key.0) } ", " (count) " instructions"
                    @if wgsl == Some(false) { span.warning { " (not recompiled to WGSL)" } }
                }
                iframe.program src=(href) title=(key.0) loading="lazy" {}
            }
        }
        Err(why) => html! { p.warning { (why) } },
    }
}

fn vertex_program(report: &Report<'_>, draw: &Draw, k: usize, path: &SitePath) -> Markup {
    let key = report.draw_programs.get(k).map(|p| &p[0]);
    // The constants read, each with what the program does with it (`probe constants`).
    let (read, groups) = programs::vertex_program(draw)
        .ok()
        .and_then(|(_, p)| match p {
            programs::DrawProgram::Vertex { program, .. } => {
                let reads = constant_reads(&program);
                Some((programs::registers_read(&reads), group_reads(&reads)))
            }
            programs::DrawProgram::Fragment { .. } => None,
        })
        .unwrap_or_default();
    html! {
        p.facts {
            "Entry slot " (draw.vp_start)
            @if let Some(end) = draw.vp_end_slot { ", END at slot " (end) }
            ", outputs 0x" (format!("{:x}", draw.output_mask))
            ", branch bits 0x" (format!("{:x}", draw.transform_branch_bits))
            ", " (draw.constants.known_count()) " of 468 constants known"
        }
        @if let Some(key) = key { (program_frame(report, key, path)) }
        h3 { "Constants read" }
        @if read.is_empty() { p.dim { "none" } } @else {
            table.constants {
                thead { tr { th { "constant" } th { "use" } th { "value at this draw" } } }
                tbody {
                    @for c in &read { (constant_row(draw, c, group_of(&groups, c.index, c.relative))) }
                }
            }
        }
    }
}

fn constant_row(draw: &Draw, c: &ConstantRead, group: Option<&Group>) -> Markup {
    let used = group.map(describe).unwrap_or_default();
    if c.relative {
        return html! {
            tr {
                td { "c[A0 + " (c.index) "]" }
                td { (used) }
                td.dim { "relative: depends on the vertex (rsxtrace probe constants traces the entries)" }
            }
        };
    }
    html! {
        tr {
            td { "c[" (c.index) "]" }
            td { (used) }
            @match draw.constants.get(usize::from(c.index)) {
                Some(v) => td { (vec4(v)) },
                None => td.warning { "unknown (not uploaded in the captured frame; read as 0)" },
            }
        }
    }
}

fn fragment_program(report: &Report<'_>, draw: &Draw, k: usize, path: &SitePath) -> Markup {
    let key = report.draw_programs.get(k).map(|p| &p[1]);
    html! {
        p.facts {
            @match &draw.fragment_program {
                Some(fp) => {
                    (fp.address.location.name()) "+0x" (format!("{:x}", fp.address.offset))
                    ", " (fp.slot_count) " slots, " (fp.constant_slots.len()) " inline constants"
                }
                None => "no fragment program",
            }
            ", shader control 0x" (format!("{:08x}", draw.shader_control.raw))
        }
        @if let Some(key) = key { (program_frame(report, key, path)) }
    }
}

fn textures(report: &Report<'_>, shots: &[TextureShot], draw: &Draw, path: &SitePath) -> Markup {
    html! {
        h3 { "Texture units sampled" }
        @if shots.is_empty() { p.dim { "none" } } @else {
            table.textures {
                thead { tr { th { "unit" } th { "image" } th { "texture" } th { "state" } } }
                tbody {
                    @for shot in shots {
                        @let t = &draw.textures[usize::from(shot.unit)];
                        tr {
                            td { (shot.unit) }
                            td.texture {
                                @match &shot.images {
                                    Ok(i) => (image(&report.images, i.thumb, path, "texture", "texture")),
                                    Err(why) => span.warning { (why) },
                                }
                            }
                            td {
                                (t.width) "x" (t.height)
                                @if t.depth > 1 { "x" (t.depth) }
                                " " (texel_format(shot.unit, t).map_or_else(|e| e.to_string(), |f| format!("{f:?}")))
                                br;
                                (t.location.map_or("?", |l| l.name())) "+0x" (format!("{:x}", t.offset))
                                ", pitch " (t.pitch)
                                @if let Ok(i) = &shot.images {
                                    br; (i.levels) " levels" @if i.layers > 1 { ", " (i.layers) " layers (first shown)" }
                                    br; (full_link(report, i.full, path))
                                }
                            }
                            td.small { (unit_state(t)) }
                        }
                    }
                }
            }
        }
    }
}

/// A unit's sampling state in one line: wrap modes, filters, LOD range and bias, remap.
fn unit_state(t: &rsxtrace_capture::frame::state::Texture) -> String {
    let n = |v: &rsxtrace_capture::frame::state::Named| {
        v.name.map_or_else(|| v.raw.to_string(), str::to_string)
    };
    format!(
        "wrap {}/{}/{}, filter {}/{}, lod {}..{} bias {}, remap 0x{:04x}, border 0x{:08x}{}{}",
        n(&t.address.wrap_s),
        n(&t.address.wrap_t),
        n(&t.address.wrap_r),
        n(&t.filter.min),
        n(&t.filter.mag),
        float(t.control0.min_lod),
        float(t.control0.max_lod),
        float(t.filter.bias),
        t.remap,
        t.border_color,
        if t.format.unnormalized {
            ", unnormalized"
        } else {
            ""
        },
        if t.control0.alpha_kill {
            ", alpha kill"
        } else {
            ""
        },
    )
}

fn full_link(report: &Report<'_>, id: crate::images::ImageId, path: &SitePath) -> Markup {
    match report.images.get(id) {
        Ok(f) => {
            let href = image_href(f, path);
            html! { a href=(href) { "level 0 (" (f.width) "x" (f.height) ")" } }
        }
        Err(why) => html! { span.missing { (why) } },
    }
}

fn rasterizer_rows(draw: &Draw) -> Vec<(String, String)> {
    let r = &draw.raster;
    let mut out = rows("viewport", &r.viewport);
    out.extend(rows("scissor", &r.scissor));
    out.push(("clip.min".into(), float(r.clip_min)));
    out.push(("clip.max".into(), float(r.clip_max)));
    out.extend(rows("zmin_max_control", &r.zmin_max_control));
    out.extend(rows("modes", &r.modes));
    out.extend(rows("polygon_offset", &r.polygon_offset));
    out.extend(rows("primitives", &r.primitives));
    out.extend(rows("anti_aliasing", &r.anti_aliasing));
    out.extend(rows("shader_window", &r.shader_window));
    out.extend(rows("shading", &r.shading));
    out
}

fn output_rows(draw: &Draw, regions: Option<&BoundRegions>) -> Vec<(String, String)> {
    let r = &draw.raster;
    let mut out = rows("blend", &r.blend);
    out.extend(rows("depth", &r.depth));
    out.extend(rows("stencil", &r.stencil));
    out.extend(rows("color_mask", &r.color_mask));
    out.push(("color_mask.mrt".into(), format!("0x{:x}", r.color_mask_mrt)));
    out.extend(rows("alpha_test", &r.alpha_test));
    out.push((
        "clear_values.color".into(),
        format!("0x{:08x}", r.color_clear_value),
    ));
    out.push((
        "clear_values.zstencil".into(),
        format!("0x{:08x}", r.zstencil_clear_value),
    ));
    if let Some(regions) = regions {
        out.extend(region_rows(draw, regions));
    }
    out
}

/// The tile regions holding the draw's targets and its depth buffer's Z-cull region, as the
/// game bound them (`dump`'s `regions`).
fn region_rows(draw: &Draw, regions: &BoundRegions) -> Vec<(String, String)> {
    let held = regions.of_surface(&draw.surface);
    let tile = |index: usize| (regions.tile(index)).map(|t| format!("tile {index}: {}", t.region));
    let mut out = Vec::new();
    for (k, name) in ["a", "b", "c", "d"].iter().enumerate() {
        if let Some(text) = held.color[k].and_then(tile) {
            out.push((format!("regions.color_{name}"), text));
        }
    }
    if let Some(text) = held.depth.and_then(tile) {
        out.push(("regions.depth".into(), text));
    }
    if let Some(z) = held.zcull.and_then(|i| regions.zcull(i)) {
        out.push((
            "regions.zcull".into(),
            format!("Z-cull region {}: {}", z.index, z.region),
        ));
    }
    out
}

fn verify(result: Option<&DrawReport>) -> Markup {
    let Some(r) = result else {
        return html! { p.dim { "not verified" } };
    };
    html! {
        table.verify {
            thead { tr { th { "stage" } th { "outcome" } th.num { "elements" } th { "worst register" } th { "note" } } }
            tbody {
                @for s in &r.stages {
                    tr {
                        td { (s.stage.name()) }
                        td.(s.outcome.name()) { (s.outcome.name()) }
                        td.num { (s.elements) }
                        td {
                            @match worst(s) {
                                Some((w, x)) => {
                                    (w.register) "." (["x", "y", "z", "w"].get(x.component).copied().unwrap_or("?"))
                                    " of element " (x.element) ": gpu " (x.gpu) ", interpreter " (x.interpreter)
                                    ", " (x.error.ulps) " ulps"
                                    @if !x.diverged { " (within tolerance)" }
                                }
                                None => "-",
                            }
                        }
                        td {
                            @match &s.outcome {
                                Outcome::Skipped { reason } => (reason),
                                Outcome::Failed { error } => (error),
                                _ => "",
                            }
                            @if let Some(sub) = &s.substituted { " substituted: " (sub.describe()) }
                        }
                    }
                }
            }
        }
        p.dim { "Overall: " (outcome_word(r)) }
    }
}

/// The stage's worst compared component: a diverged one first, else the largest error.
fn worst(s: &StageReport) -> Option<(&RegisterReport, &Worst)> {
    s.registers
        .iter()
        .filter_map(|r| r.worst.as_ref().map(|w| (r, w)))
        .max_by(|(_, a), (_, b)| {
            (a.diverged, a.error.score)
                .partial_cmp(&(b.diverged, b.error.score))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
}

fn outcome_word(r: &DrawReport) -> &'static str {
    if r.stages
        .iter()
        .any(|s| matches!(s.outcome, Outcome::Failed { .. }))
    {
        "failed"
    } else if r.diverged() {
        "diverged"
    } else {
        "clean or skipped"
    }
}
