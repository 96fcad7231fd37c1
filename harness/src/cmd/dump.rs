//! `rsxtrace dump`: everything about one draw, its fetched vertices included.
//!
//! JSON (`--json`): `{"draw": <draws --json object>, "state": <the full decoded state>,
//! "problems": [..], "vertices": [{"index", "attributes": {"<n>": [x, y, z, w] or null}}] or
//! null, "restarts": [..], "unknown_attributes": [..], "fetch_error": null or a message,
//! "regions": {"tiles", "zculls", "surface", "captured_reads"} or null}`
//! (docs/json.md). An attribute value the capture does not hold (set before the captured
//! frame) is `null` in JSON and named in a warning in text; it is not an error.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use rsxtrace_capture::fetch::{fetch_draw, FetchedVertices};
use rsxtrace_capture::frame::{BoundRegions, Draw, DrawSummary, Frame, SurfaceRegions};
use rsxtrace_capture::rrc::{compression_label, Capture};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::tile_regions::{binds_tiles, tiled_reads};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::path::Path;

/// Vertices printed in the text form (all of them are in the JSON form).
const TEXT_VERTEX_LIMIT: usize = 64;

pub fn run(path: &Path, draw_index: usize, as_json: bool) -> anyhow::Result<Status> {
    let (capture, frame) = super::load_frame(path)?;
    let draw = super::draw_at(&frame, draw_index)?;
    let memory = frame
        .memory(draw_index)
        .ok_or_else(|| anyhow::anyhow!("draw {draw_index} has no memory view"))?;
    let fetched =
        fetch_draw(&draw.vertex_inputs, &memory).map_err(|e| format!("draw {draw_index}: {e}"));
    let problems: Vec<String> = draw.problems.iter().map(|p| p.to_string()).collect();
    let regions = frame.regions.at(draw.end_command).map(|bound| DrawRegions {
        surface: bound.of_surface(&draw.surface),
        bound,
        captured_reads: captured_reads(&capture, &frame, draw_index),
    });

    if as_json {
        print_json(&DumpJson {
            draw: draw.summary(),
            state: draw,
            problems: &problems,
            vertices: fetched.as_ref().ok().map(Vertices),
            restarts: fetched.as_ref().ok().map(|v| v.restarts.as_slice()),
            unknown_attributes: fetched
                .as_ref()
                .map(|v| v.unknown_attributes())
                .unwrap_or_default(),
            fetch_error: fetched.as_ref().err(),
            regions,
        })?;
    } else {
        print_text(draw, &problems, regions.as_ref(), &fetched)?;
    }
    match fetched {
        Ok(_) => Ok(Status::Success),
        Err(e) => {
            eprintln!("rsxtrace: error: {e}");
            Ok(Status::Error)
        }
    }
}

/// The `dump --json` document (docs/json.md). Floats are written as f32 (shortest form that
/// reads back to the same f32), exactly as in `draws --json`.
#[derive(serde::Serialize)]
struct DumpJson<'a> {
    draw: DrawSummary,
    state: &'a Draw,
    problems: &'a [String],
    vertices: Option<Vertices<'a>>,
    restarts: Option<&'a [usize]>,
    unknown_attributes: Vec<u8>,
    fetch_error: Option<&'a String>,
    regions: Option<DrawRegions<'a>>,
}

/// The tile and Z-cull regions bound at the draw, which of them hold its targets, and the
/// captured bytes it reads inside them.
#[derive(serde::Serialize)]
struct DrawRegions<'a> {
    #[serde(flatten)]
    bound: &'a BoundRegions,
    surface: SurfaceRegions,
    captured_reads: Vec<CapturedRead>,
}

/// Captured bytes the draw reads inside a bound tile region when the whole frame renders
/// (`render::tile_regions`).
#[derive(serde::Serialize)]
struct CapturedRead {
    /// "texture unit 0", "colour target A", "depth target", "transfer source".
    #[serde(rename = "use")]
    what: String,
    /// The tile region's index.
    tile: usize,
    /// The bytes read there that the render had not written.
    bytes: u64,
}

/// The reads of draw `index` ([`CapturedRead`]).
fn captured_reads(capture: &Capture, frame: &Frame, index: usize) -> Vec<CapturedRead> {
    if !binds_tiles(frame) {
        return Vec::new();
    }
    let events = FrameEvents::from_capture(capture, frame);
    tiled_reads(frame, &events, 0..frame.draws.len())
        .into_iter()
        .filter(|r| r.draw == Some(index))
        .map(|r| CapturedRead {
            what: r.what.describe(),
            tile: r.tile.index,
            bytes: r.bytes,
        })
        .collect()
}

/// One object per submitted vertex: `{"index", "attributes": {"<n>": [x, y, z, w] or null}}`
/// with every attribute of the input mask, in attribute order (`null` = not in the capture).
struct Vertices<'a>(&'a FetchedVertices);

struct VertexAttributes<'a>(rsxtrace_capture::fetch::VertexView<'a>);

#[derive(serde::Serialize)]
struct VertexJson<'a> {
    index: u32,
    attributes: VertexAttributes<'a>,
}

impl Serialize for Vertices<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|v| VertexJson {
            index: v.index(),
            attributes: VertexAttributes(v),
        }))
    }
}

impl Serialize for VertexAttributes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (attribute, value) in self.0.known_values() {
            map.serialize_entry(&attribute.to_string(), &value)?;
        }
        map.end()
    }
}

fn print_text(
    draw: &Draw,
    problems: &[String],
    regions: Option<&DrawRegions<'_>>,
    fetched: &Result<FetchedVertices, String>,
) -> anyhow::Result<()> {
    let s = draw.summary();
    outln!(
        "draw {}: {} ({}), commands {}..={}, {} vertices",
        s.index,
        s.primitive.name(),
        if s.indexed { "indexed" } else { "arrays" },
        draw.begin_command,
        s.end_command,
        s.vertex_count
    );
    if s.part > 0 {
        // A part of a BEGIN/END split by an execution barrier (docs/json.md).
        outln!(
            "  part {} of its BEGIN/END (the ranges after a change of a vertex base, array \
             offset or transform constant)",
            s.part
        );
    }
    for r in &s.ranges {
        outln!("  range first {} count {}", r.first, r.count);
    }
    if let Some(ix) = &draw.index_array {
        outln!(
            "  index buffer: {:?} at {}+0x{:08x}",
            ix.ty,
            ix.location.name(),
            ix.offset
        );
    }
    outln!(
        "vertex program: start slot {}, hash {}{}",
        s.vp_start,
        s.vp_hash,
        draw.vp_end_slot
            .map(|e| format!(", END at slot {e}"))
            .unwrap_or_else(|| ", no END found".into())
    );
    match (&s.fp, &s.fp_hash) {
        (Some(fp), Some(hash)) => outln!(
            "fragment program: {}+0x{:08x}, hash {hash}, shader control 0x{:08x}",
            fp.location.name(),
            fp.offset,
            draw.shader_control.raw
        ),
        (Some(fp), None) => outln!(
            "fragment program: {}+0x{:08x} (not readable from the capture)",
            fp.location.name(),
            fp.offset
        ),
        _ => outln!("fragment program: none"),
    }
    match s.mvp {
        Some(rows) => {
            outln!("mvp (c32..c35):");
            for (k, r) in rows.iter().enumerate() {
                outln!(
                    "  c[{}] = {:>12} {:>12} {:>12} {:>12}",
                    32 + k,
                    r[0],
                    r[1],
                    r[2],
                    r[3]
                );
            }
        }
        None => outln!("mvp (c32..c35): unknown (not all uploaded in the captured frame)"),
    }
    outln!("constants known: {} of 468", draw.constants.known_count());
    let enabled: Vec<String> = draw
        .textures
        .iter()
        .enumerate()
        .filter(|(_, t)| t.control0.enabled)
        .map(|(i, t)| {
            format!(
                "{i} ({}x{} format 0x{:02x} at {}+0x{:x})",
                t.width,
                t.height,
                t.format.format,
                t.location.map(|l| l.name()).unwrap_or("?"),
                t.offset
            )
        })
        .collect();
    outln!(
        "textures enabled: {}",
        if enabled.is_empty() {
            "none".into()
        } else {
            enabled.join(", ")
        }
    );
    if let Some(line) = regions.and_then(regions_line) {
        outln!("{line}");
    }
    for r in regions.iter().flat_map(|r| &r.captured_reads) {
        outln!(
            "warning: {} reads {} captured bytes in tile region {} linearly (RPCS3 keeps that \
             memory in the tiled order)",
            r.what,
            r.bytes,
            r.tile
        );
    }
    for p in problems {
        outln!("problem: {p}");
    }
    match fetched {
        Ok(v) => {
            for note in v.unknown_notes() {
                outln!("warning: {note}");
            }
            let attrs: Vec<u8> = v.attributes.iter().map(|a| a.attribute).collect();
            let mut headers = vec![">pos".to_string(), ">index".to_string()];
            headers.extend(attrs.iter().map(|a| format!("attr {a}")));
            let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
            let mut t = Table::new(&header_refs);
            for vertex in v.iter().take(TEXT_VERTEX_LIMIT) {
                let mut row = vec![vertex.position().to_string(), vertex.index().to_string()];
                row.extend(vertex.known_values().map(|(_, x)| match x {
                    Some(x) => format!("({}, {}, {}, {})", x[0], x[1], x[2], x[3]),
                    None => "unknown".to_string(),
                }));
                t.row(row);
            }
            out!("{}", t.render());
            if v.len() > TEXT_VERTEX_LIMIT {
                outln!(
                    "... {} more vertices (use --json for all)",
                    v.len() - TEXT_VERTEX_LIMIT
                );
            }
        }
        Err(e) => outln!("vertices: {e}"),
    }
    Ok(())
}

/// The regions holding the draw's targets, e.g. `tile regions: colour A in tile 0 (C32_2X2),
/// depth in tile 1 (Z32_SEPSTENCIL_REGULAR), Z-cull region 0`; `None` when none does.
fn regions_line(regions: &DrawRegions<'_>) -> Option<String> {
    let tile = |index: usize| match regions.bound.tile(index) {
        Some(t) => format!("tile {index} ({})", compression_label(t.region.compression)),
        None => format!("tile {index}"),
    };
    let s = &regions.surface;
    let mut parts: Vec<String> = (s.color.iter().zip(["A", "B", "C", "D"]))
        .filter_map(|(t, name)| Some(format!("colour {name} in {}", tile((*t)?))))
        .collect();
    if let Some(t) = s.depth {
        parts.push(format!("depth in {}", tile(t)));
    }
    if let Some(z) = s.zcull {
        parts.push(format!("Z-cull region {z}"));
    }
    (!parts.is_empty()).then(|| format!("tile regions: {}", parts.join(", ")))
}
