//! Frame statistics (`rsxtrace stats`): what a frame asks of a GPU and of an emulator, counted
//! as RenderDoc's Statistics window counts an API frame.
//!
//! - Draws by primitive and by vertex source, vertices submitted (with their spread and a
//!   histogram) and the points, lines and triangles they assemble into under the renderers'
//!   own assembly rules (`crate::raster::assembled_count`: quads two triangles, restarts and
//!   range starts cutting strips).
//! - State changes: for each part of a draw's state (render targets, programs, inline and
//!   transform constants, textures, vertex arrays, the fixed-function groups), the draws whose
//!   part differs from the draw before them, i.e. what an emulator has to re-bind or
//!   re-create between draws; and the transform constant registers those changes touch.
//! - Clears and image transfers between the draws (`FrameEvents`), and the command stream's
//!   method calls by method.
//! - Passes: runs of consecutive draws with one surface state, with their targets, primitives
//!   and clears (RenderDoc's grouping of an API frame into colour and depth passes).
//!
//! With a draw range, draws, changes, events and methods are those of the range: the method
//! calls from the end of the draw before it to its last draw's END, the events among them.

use crate::raster::{assembled_count, primitive_starts_of, Primitive};
use crate::render::state::FrameEvents;
use crate::render::surface::TARGET_NAMES;
use crate::render::target::{colour_targets_of, depth_target_of, uses_depth_surface, NamedTarget};
use crate::render::transfer::Transfer;
use rayon::prelude::*;
use rsxtrace_capture::fetch::{distinct_count, positions, VertexSource};
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_capture::frame::{method_calls, methods, Draw, Frame};
use rsxtrace_capture::rrc::ReplayCommand;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

/// The statistics of a frame, or of a range of its draws.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameStatistics {
    /// The draws counted (`start..end`, end excluded).
    pub draws: Range<usize>,
    /// Draws by primitive, in `SET_BEGIN_END` code order (primitives no draw uses left out).
    pub by_primitive: Vec<(Primitive, usize)>,
    /// Draws by where their vertices come from.
    pub by_source: Sources,
    /// Vertices submitted.
    pub vertices: Vertices,
    /// What the vertices assemble into.
    pub assembled: Assembled,
    /// Distinct programs among the draws.
    pub programs: Programs,
    /// Per part of the state, the draws whose part differs from the draw before them
    /// ([`PARTS`] order).
    pub changes: Vec<(&'static str, usize)>,
    /// Transform constant registers that differ between a draw and the draw before it,
    /// summed over the draws.
    pub constant_registers_changed: u64,
    /// Texture units in use.
    pub textures: Textures,
    /// `CLEAR_SURFACE` calls.
    pub clears: usize,
    /// Image transfers by kind (`memory_copy` NV0039, `scaled_image` NV3089, `inline_pixels`
    /// NV308A, `unsupported`), kinds with none left out.
    pub transfers: Vec<(&'static str, usize)>,
    /// Method calls counted.
    pub method_calls: u64,
    /// Method calls by method (array methods as one: `NV4097_SET_TRANSFORM_CONSTANT`), the
    /// most called first.
    pub methods: Vec<MethodCount>,
    /// The draws grouped into passes, in order.
    pub passes: Vec<Pass>,
}

/// A pass: a run of consecutive draws with one surface state, as RenderDoc groups an API
/// frame's draws into passes where the render targets change.
#[derive(Clone, Debug, PartialEq)]
pub struct Pass {
    /// Its draws.
    pub draws: Range<usize>,
    /// The colour targets its surface selects and, when one of its draws tests depth, stencil
    /// or depth bounds, the depth surface (`render::target`: what the draws render into).
    pub targets: Vec<NamedTarget>,
    /// Points, lines and triangles its draws assemble into (draws not counted left out).
    pub primitives: u64,
    /// `CLEAR_SURFACE` calls from the end of the pass before it to its last draw.
    pub clears: usize,
}

impl Pass {
    /// Its targets as text: `A a8r8g8b8 1280x720 at local+0x0, Z z24s8 1280x720 at
    /// local+0x400000` (`none` without any).
    pub fn targets_text(&self) -> String {
        if self.targets.is_empty() {
            return "none".into();
        }
        let named: Vec<String> = self
            .targets
            .iter()
            .map(|t| {
                format!(
                    "{} {} {}x{} at {}+0x{:x}",
                    TARGET_NAMES.get(t.index).copied().unwrap_or("?"),
                    t.format.name(),
                    t.layout.width,
                    t.layout.height,
                    t.layout.location.name(),
                    t.layout.offset
                )
            })
            .collect();
        named.join(", ")
    }
}

impl FrameStatistics {
    /// The totals as labelled lines (`by primitive`, `by source`, `vertices`, `assembled`,
    /// `programs`, `textures`, `clears`, `transfers`, `constants`), each draw count with its
    /// share: what `rsxtrace stats` and the report print.
    pub fn summary(&self) -> Vec<(&'static str, String)> {
        let draws = self.draws.len() as u64;
        let listed = |pairs: &[(&str, usize)]| -> String {
            let shown: Vec<String> = pairs
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(k, n)| format!("{k} {n} ({})", share(*n as u64, draws)))
                .collect();
            if shown.is_empty() {
                "none".into()
            } else {
                shown.join(", ")
            }
        };
        let primitives: Vec<(&str, usize)> = self
            .by_primitive
            .iter()
            .map(|(p, n)| (p.name(), *n))
            .collect();
        let src = &self.by_source;
        let (v, a, p, t) = (
            &self.vertices,
            &self.assembled,
            &self.programs,
            &self.textures,
        );
        let not_counted = match a.unknown.len() {
            0 => String::new(),
            n => format!(" ({n} draws not counted)"),
        };
        let transfers: Vec<String> = self
            .transfers
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        vec![
            ("by primitive", listed(&primitives)),
            (
                "by source",
                listed(&[
                    ("indexed", src.indexed),
                    ("arrays", src.arrays),
                    ("inline", src.inline),
                    ("elements", src.elements),
                    ("immediate", src.immediate),
                ]),
            ),
            (
                "vertices",
                format!(
                    "{} submitted, {} shaded, {} to {} per draw, median {}",
                    v.total, v.shaded, v.min, v.max, v.median
                ),
            ),
            (
                "assembled",
                format!(
                    "{} triangles, {} lines, {} points{not_counted}",
                    a.triangles, a.lines, a.points
                ),
            ),
            (
                "programs",
                format!(
                    "{} vertex, {} fragment ({} counting inline constants)",
                    p.vertex, p.fragment, p.fragment_with_constants
                ),
            ),
            (
                "textures",
                format!(
                    "{} fragment and {} vertex unit bindings, {} distinct images",
                    t.bindings, t.vertex_bindings, t.distinct
                ),
            ),
            ("clears", self.clears.to_string()),
            (
                "transfers",
                if transfers.is_empty() {
                    "none".into()
                } else {
                    transfers.join(", ")
                },
            ),
            (
                "constants",
                format!(
                    "{} transform constant registers changed between draws",
                    self.constant_registers_changed
                ),
            ),
        ]
    }
}

/// `n` as a percentage of `of`, one decimal (`0.0%` when `of` is 0).
pub fn share(n: u64, of: u64) -> String {
    format!("{:.1}%", n as f64 * 100.0 / of.max(1) as f64)
}

/// Draws by vertex source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sources {
    /// `DRAW_ARRAYS`.
    pub arrays: usize,
    /// `DRAW_INDEX_ARRAY`.
    pub indexed: usize,
    /// `INLINE_ARRAY`.
    pub inline: usize,
    /// `ARRAY_ELEMENT16` / `ARRAY_ELEMENT32`.
    pub elements: usize,
    /// Immediate mode (`SET_VERTEX_DATA*` inside the scope).
    pub immediate: usize,
}

/// Vertices submitted (index positions; restart indices excluded where read).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Vertices {
    /// Over all draws.
    pub total: u64,
    /// Vertex program runs: each distinct vertex of an indexed or array-element draw once (as
    /// both renderers shade them, and the hardware's post-transform cache at best), every
    /// vertex of the other draws; a draw whose positions cannot be read counts its vertex
    /// count.
    pub shaded: u64,
    /// Fewest in one draw.
    pub min: u64,
    /// Median per draw (the lower middle value for an even count).
    pub median: u64,
    /// Most in one draw.
    pub max: u64,
    /// Draws per bucket of vertex counts: `0`, `1`, `2-3`, `4-7`, ... (powers of two), empty
    /// buckets left out.
    pub histogram: Vec<Bucket>,
}

/// One histogram bucket: draws with `from..=to` vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// Fewest vertices in the bucket.
    pub from: u64,
    /// Most vertices in the bucket.
    pub to: u64,
    /// Draws in it.
    pub draws: usize,
}

impl Bucket {
    /// `N` for a bucket of one count, else `FROM-TO`.
    pub fn label(&self) -> String {
        if self.from == self.to {
            self.from.to_string()
        } else {
            format!("{}-{}", self.from, self.to)
        }
    }
}

/// Primitives assembled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assembled {
    /// Points.
    pub points: u64,
    /// Lines.
    pub lines: u64,
    /// Triangles (a quad two, a polygon of n vertices n - 2).
    pub triangles: u64,
    /// Draws whose primitives could not be counted (their index buffer is not in the
    /// capture, their vertex source is invalid), with why.
    pub unknown: Vec<(usize, String)>,
}

/// Distinct programs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Programs {
    /// Vertex programs (by content hash).
    pub vertex: usize,
    /// Fragment programs (by content hash, inline constants masked).
    pub fragment: usize,
    /// Fragment programs by their whole microcode, inline constants included.
    pub fragment_with_constants: usize,
}

/// Texture units in use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Textures {
    /// Enabled fragment texture units, summed over the draws.
    pub bindings: u64,
    /// Enabled vertex texture units, summed over the draws.
    pub vertex_bindings: u64,
    /// Distinct images bound (location, offset, format, size, pitch), both kinds of unit.
    pub distinct: usize,
}

/// Calls of one method.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MethodCount {
    /// The `gcm_enums.h` name, without an array index, or `<CLASS>_METHOD_0x<offset>`.
    pub method: String,
    /// Calls.
    pub calls: u64,
}

/// The parts of the state whose changes are counted, in order, with what each compares:
/// - `surface`: the render targets (formats, addresses, pitches, clip, window offset);
/// - `vertex_program`, `fragment_program`: the program (content hash);
/// - `fragment_constants`: the same fragment program with other inline constants;
/// - `transform_constants`: any transform constant register (value or known flag);
/// - `textures`, `vertex_textures`: any unit's state; `vertex_arrays`: the attribute arrays'
///   formats, strides, offsets and locations;
/// - `viewport_scissor`: viewport, scissor and clip range; `depth`: depth test, bounds,
///   min/max control and polygon offset; `stencil`; `blend`: blending, logic op and colour
///   masks; `alpha_test`; `rasterization`: cull, front face, polygon modes, stipples, point
///   and line state, shading, anti-aliasing and the window origin; `shader_control`: the
///   shader control and packer registers and the vertex output mask; `clear_values`: the
///   colour and depth/stencil clear values.
pub const PARTS: [&str; 16] = [
    "surface",
    "vertex_program",
    "fragment_program",
    "fragment_constants",
    "transform_constants",
    "textures",
    "vertex_textures",
    "vertex_arrays",
    "viewport_scissor",
    "depth",
    "stencil",
    "blend",
    "alpha_test",
    "rasterization",
    "shader_control",
    "clear_values",
];

/// Count the statistics of the draws `range` of `frame` (all when `None`; cut to the frame);
/// `commands` are the capture's, `events` its clears and transfers.
pub fn statistics(
    frame: &Frame,
    events: &FrameEvents,
    commands: &[ReplayCommand],
    range: Option<Range<usize>>,
) -> FrameStatistics {
    let range = match range {
        // A range past the frame is cut to it.
        Some(r) => {
            let end = r.end.min(frame.draws.len());
            r.start.min(end)..end
        }
        None => 0..frame.draws.len(),
    };
    let draws = &frame.draws[range.clone()];
    let window = command_window(frame, &range);
    let (by_primitive, by_source) = kinds(draws);
    let (vertices, assembled, primitives) = vertices(frame, draws);
    let (changes, constant_registers_changed) = changes(frame, &range);
    let in_window = |command: usize| window.contains(&command);
    let mut transfers: BTreeMap<usize, (&'static str, usize)> = BTreeMap::new();
    for t in events.transfers.iter().filter(|t| in_window(t.command)) {
        let (order, kind) = match &t.transfer {
            Ok(Transfer::Copy(_)) => (0, "memory_copy"),
            Ok(Transfer::Scaled(_)) => (1, "scaled_image"),
            Ok(Transfer::Inline(_)) => (2, "inline_pixels"),
            Err(_) => (3, "unsupported"),
        };
        transfers.entry(order).or_insert((kind, 0)).1 += 1;
    }
    let (method_calls, methods) = method_census(commands, &window);
    let passes = passes(frame, events, &range, &primitives);
    FrameStatistics {
        draws: range.clone(),
        by_primitive,
        by_source,
        vertices,
        assembled,
        programs: programs(draws),
        changes,
        constant_registers_changed,
        textures: textures(draws),
        clears: events
            .clears
            .iter()
            .filter(|c| in_window(c.command))
            .count(),
        transfers: transfers.into_values().collect(),
        method_calls,
        methods,
        passes,
    }
}

/// The commands of `range`: from the one after the END of the draw before it (or the start)
/// to its last draw's END, or to the end of the stream when it reaches the frame's last draw.
fn command_window(frame: &Frame, range: &Range<usize>) -> Range<usize> {
    let draws = &frame.draws;
    let start = match range.start.checked_sub(1).and_then(|i| draws.get(i)) {
        // The parts of a split clause share its commands: start no later than the draw's BEGIN.
        Some(before) => (before.end_command + 1).min(
            draws
                .get(range.start)
                .map_or(usize::MAX, |d| d.begin_command),
        ),
        None => 0,
    };
    let end = if range.end >= draws.len() {
        usize::MAX
    } else {
        draws
            .get(range.end.wrapping_sub(1))
            .map_or(start, |d| d.end_command + 1)
    };
    start..end
}

fn kinds(draws: &[Draw]) -> (Vec<(Primitive, usize)>, Sources) {
    // Indexed by `SET_BEGIN_END` code - 1 (`Primitive` lists the codes in order).
    let mut by_code = [0usize; 10];
    let mut sources = Sources::default();
    for d in draws {
        if let Some(n) = by_code.get_mut(d.primitive as usize) {
            *n += 1;
        }
        match d.vertex_inputs.source {
            VertexSource::Arrays { .. } => sources.arrays += 1,
            VertexSource::Indexed { .. } => sources.indexed += 1,
            VertexSource::Inline { .. } => sources.inline += 1,
            VertexSource::Elements { .. } => sources.elements += 1,
            VertexSource::Immediate { .. } => sources.immediate += 1,
        }
    }
    let by_primitive = (1u32..)
        .zip(by_code)
        .filter(|&(_, n)| n > 0)
        .filter_map(|(code, n)| Some((Primitive::from_raw(code)?, n)))
        .collect();
    (by_primitive, sources)
}

/// Vertices per draw and the primitives they assemble into; draws in parallel (an indexed
/// draw reads its index buffer for restarts).
/// Also each draw's primitives (`None`: not counted), in draw order.
fn vertices(frame: &Frame, draws: &[Draw]) -> (Vertices, Assembled, Vec<Option<u64>>) {
    // Per draw: (vertices, vertex program runs, primitives).
    let counted: Vec<(u64, u64, Result<usize, String>)> = draws
        .par_iter()
        .map(|d| {
            let memory = frame.memory(d.index);
            let list = match memory {
                Some(m) => positions(&d.vertex_inputs, &m).map_err(|e| e.to_string()),
                None => Err("no memory view".to_string()),
            };
            match list {
                Ok(list) => {
                    let starts = primitive_starts_of(&list);
                    let n = list.indices.len();
                    let primitives = assembled_count(d.primitive, n, &starts);
                    let shaded = match d.vertex_inputs.source {
                        VertexSource::Indexed { .. } | VertexSource::Elements { .. } => {
                            distinct_count(&list.indices)
                        }
                        _ => n,
                    };
                    (n as u64, shaded as u64, Ok(primitives))
                }
                Err(e) => (d.vertex_count, d.vertex_count, Err(e)),
            }
        })
        .collect();
    let mut assembled = Assembled::default();
    for (d, (_, _, primitives)) in draws.iter().zip(&counted) {
        match primitives {
            Ok(n) => {
                let n = *n as u64;
                match d.primitive {
                    Primitive::Points => assembled.points += n,
                    Primitive::Lines | Primitive::LineLoop | Primitive::LineStrip => {
                        assembled.lines += n
                    }
                    _ => assembled.triangles += n,
                }
            }
            Err(e) => assembled.unknown.push((d.index, e.clone())),
        }
    }
    let mut counts: Vec<u64> = counted.iter().map(|(n, _, _)| *n).collect();
    counts.sort_unstable();
    let mut histogram: Vec<Bucket> = Vec::new();
    for &n in &counts {
        let (from, to) = bucket_of(n);
        match histogram.last_mut() {
            Some(b) if b.from == from => b.draws += 1,
            _ => histogram.push(Bucket { from, to, draws: 1 }),
        }
    }
    let vertices = Vertices {
        total: counts.iter().sum(),
        shaded: counted.iter().map(|(_, shaded, _)| shaded).sum(),
        min: counts.first().copied().unwrap_or(0),
        median: counts
            .get(counts.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0),
        max: counts.last().copied().unwrap_or(0),
        histogram,
    };
    let per_draw = counted
        .iter()
        .map(|(_, _, n)| n.as_ref().ok().map(|&n| n as u64))
        .collect();
    (vertices, assembled, per_draw)
}

/// The power-of-two bucket `from..=to` holding `n` (`0` alone, then `1`, `2-3`, `4-7`, ...).
fn bucket_of(n: u64) -> (u64, u64) {
    if n == 0 {
        return (0, 0);
    }
    let from = 1u64 << (63 - n.leading_zeros());
    (from, from.checked_mul(2).map_or(u64::MAX, |next| next - 1))
}

fn programs(draws: &[Draw]) -> Programs {
    let vertex: HashSet<u64> = draws.iter().map(|d| d.vp_hash).collect();
    let fragment: HashSet<u64> = draws
        .iter()
        .filter_map(|d| d.fragment_program.as_ref().map(|p| p.hash))
        .collect();
    let whole: HashSet<&[u8]> = draws
        .iter()
        .filter_map(|d| d.fragment_program.as_ref().map(|p| p.ucode.as_slice()))
        .collect();
    Programs {
        vertex: vertex.len(),
        fragment: fragment.len(),
        fragment_with_constants: whole.len(),
    }
}

/// What tells one bound image from another: location, offset, format, size, pitch.
#[derive(PartialEq, Eq, Hash)]
struct ImageKey {
    location: Option<u8>,
    offset: u32,
    format: u8,
    size: (u16, u16, u16),
    pitch: u32,
}

fn textures(draws: &[Draw]) -> Textures {
    let mut t = Textures::default();
    let mut images: HashSet<ImageKey> = HashSet::new();
    let enabled = |units: &[Texture]| -> Vec<ImageKey> {
        units
            .iter()
            .filter(|u| u.control0.enabled)
            .map(|u| ImageKey {
                location: u.location.map(|l| l as u8),
                offset: u.offset,
                format: u.format.format,
                size: (u.width, u.height, u.depth),
                pitch: u.pitch,
            })
            .collect()
    };
    for d in draws {
        let fragment = enabled(&d.textures[..]);
        let vertex = enabled(&d.vertex_textures[..]);
        t.bindings += fragment.len() as u64;
        t.vertex_bindings += vertex.len() as u64;
        images.extend(fragment.into_iter().chain(vertex));
    }
    t.distinct = images.len();
    t
}

/// For each of [`PARTS`], the draws of `range` whose part differs from the draw before them
/// (the first draw of the frame has none), and the transform constant registers that differ.
fn changes(frame: &Frame, range: &Range<usize>) -> (Vec<(&'static str, usize)>, u64) {
    let mut counts = [0usize; PARTS.len()];
    let mut registers = 0u64;
    for i in range.clone() {
        let (Some(prev), Some(d)) = (
            i.checked_sub(1).and_then(|p| frame.draws.get(p)),
            frame.draws.get(i),
        ) else {
            continue;
        };
        let constants = changed_constants(prev, d);
        registers += constants;
        for (count, changed) in counts.iter_mut().zip(parts_changed(prev, d, constants > 0)) {
            *count += usize::from(changed);
        }
    }
    (PARTS.iter().copied().zip(counts).collect(), registers)
}

/// Whether each of [`PARTS`] differs between `prev` and `d`.
fn parts_changed(prev: &Draw, d: &Draw, constants: bool) -> [bool; PARTS.len()] {
    let (a, b) = (&*prev.raster, &*d.raster);
    let same_raster = Arc::ptr_eq(&prev.raster, &d.raster);
    let differs = |eq: bool| !same_raster && !eq;
    let fp = |d: &Draw| d.fragment_program.as_ref().map(|p| p.hash);
    [
        prev.surface != d.surface,
        prev.vp_hash != d.vp_hash,
        fp(prev) != fp(d),
        fp(prev) == fp(d) && fragment_code(prev) != fragment_code(d),
        constants,
        !Arc::ptr_eq(&prev.textures, &d.textures) && prev.textures != d.textures,
        !Arc::ptr_eq(&prev.vertex_textures, &d.vertex_textures)
            && prev.vertex_textures != d.vertex_textures,
        prev.vertex_inputs.arrays != d.vertex_inputs.arrays,
        differs(
            a.viewport == b.viewport
                && a.scissor == b.scissor
                && a.clip_min.to_bits() == b.clip_min.to_bits()
                && a.clip_max.to_bits() == b.clip_max.to_bits(),
        ),
        differs(
            a.depth == b.depth
                && a.depth_bounds == b.depth_bounds
                && a.zmin_max_control == b.zmin_max_control
                && a.polygon_offset == b.polygon_offset,
        ),
        differs(a.stencil == b.stencil),
        differs(
            a.blend == b.blend
                && a.logic_op == b.logic_op
                && a.color_mask == b.color_mask
                && a.color_mask_mrt == b.color_mask_mrt,
        ),
        differs(a.alpha_test == b.alpha_test),
        differs(
            a.modes == b.modes
                && a.primitives == b.primitives
                && a.shading == b.shading
                && a.anti_aliasing == b.anti_aliasing
                && a.shader_window == b.shader_window,
        ),
        prev.shader_control != d.shader_control
            || prev.shader_packer != d.shader_packer
            || prev.output_mask != d.output_mask,
        differs(
            a.color_clear_value == b.color_clear_value
                && a.zstencil_clear_value == b.zstencil_clear_value,
        ),
    ]
}

/// A draw's fragment microcode, inline constants included.
fn fragment_code(d: &Draw) -> Option<&[u8]> {
    d.fragment_program.as_ref().map(|p| p.ucode.as_slice())
}

/// Transform constant registers whose value or known flag differs between the two draws.
fn changed_constants(prev: &Draw, d: &Draw) -> u64 {
    if Arc::ptr_eq(&prev.constants, &d.constants) {
        return 0;
    }
    d.constants
        .may_differ(&prev.constants)
        .flatten()
        .filter(|&r| d.constants.raw(r) != prev.constants.raw(r))
        .count() as u64
}

/// The draws of `range` in runs of one surface state, with what each renders into, its
/// primitives (`primitives`: per draw of the range) and the clears in its stretch of commands.
fn passes(
    frame: &Frame,
    events: &FrameEvents,
    range: &Range<usize>,
    primitives: &[Option<u64>],
) -> Vec<Pass> {
    let draws = &frame.draws[range.clone()];
    let mut passes: Vec<Pass> = Vec::new();
    let mut start = 0;
    while start < draws.len() {
        let surface = &draws[start].surface;
        let len = draws[start..]
            .iter()
            .take_while(|d| d.surface == *surface)
            .count();
        let run = &draws[start..start + len];
        let mut targets: Vec<NamedTarget> = colour_targets_of(surface)
            .unwrap_or_default()
            .into_iter()
            .filter_map(Result::ok)
            .collect();
        if run.iter().any(|d| uses_depth_surface(&d.raster)) {
            targets.extend(depth_target_of(surface).ok());
        }
        let first = range.start + start;
        let window = command_window(frame, &(first..first + len));
        passes.push(Pass {
            draws: first..first + len,
            targets,
            primitives: primitives[start..start + len].iter().flatten().sum(),
            clears: events
                .clears
                .iter()
                .filter(|c| window.contains(&c.command))
                .count(),
        });
        start += len;
    }
    passes
}

/// Method calls among `window`'s commands, by method (malformed stretches are skipped, as the
/// frame model skips them).
fn method_census(commands: &[ReplayCommand], window: &Range<usize>) -> (u64, Vec<MethodCount>) {
    let mut by_reg: HashMap<u16, u64> = HashMap::new();
    let mut total = 0u64;
    for call in method_calls(commands).flatten() {
        if !window.contains(&call.command_index) {
            continue;
        }
        total += 1;
        *by_reg.entry(call.reg).or_default() += 1;
    }
    let mut by_name: HashMap<String, u64> = HashMap::new();
    for (reg, n) in by_reg {
        let name = match methods::method_def(reg) {
            Some((def, _)) => def.name.to_string(),
            None => methods::method_name(reg).into_owned(),
        };
        *by_name.entry(name).or_default() += n;
    }
    let mut methods: Vec<MethodCount> = by_name
        .into_iter()
        .map(|(method, calls)| MethodCount { method, calls })
        .collect();
    methods.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.method.cmp(&b.method)));
    (total, methods)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_powers_of_two() {
        assert_eq!(bucket_of(0), (0, 0));
        assert_eq!(bucket_of(1), (1, 1));
        assert_eq!(bucket_of(2), (2, 3));
        assert_eq!(bucket_of(3), (2, 3));
        assert_eq!(bucket_of(4), (4, 7));
        assert_eq!(bucket_of(1000), (512, 1023));
        assert_eq!(bucket_of(u64::MAX), (1 << 63, u64::MAX));
    }
}
