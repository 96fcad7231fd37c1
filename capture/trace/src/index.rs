//! The frame index a trace may carry (`Trace.index`, format minor 1): the counts and per-draw
//! summaries that `rsxtrace info` and `rsxtrace draws` report, computed from the decoded frame
//! when the trace was written. This crate stores and reads it as plain data; computing it from
//! a frame (and turning it back into the frame model's summaries) is `rsxtrace-capture`'s job,
//! which knows both the trace and the frame model.

use crate::convert::check_struct_list;
use crate::error::Context;
use crate::read::TraceView;
use crate::trace_capnp::{draw_index_entry, frame_index};
use crate::TraceError;

/// The frame's counts, as `FrameStats` has them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct IndexCounts {
    pub commands: u64,
    pub method_calls: u64,
    pub draws: u64,
    pub memory_blocks: u64,
    pub memory_bytes: u64,
    pub memory_data_bytes: u64,
    pub distinct_vertex_programs: u64,
    pub distinct_fragment_programs: u64,
    pub draws_with_problems: u64,
}

/// Width of a draw's indices, when it is indexed and its index array is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexWidth {
    /// 32-bit indices.
    U32,
    /// 16-bit indices.
    U16,
}

/// One draw's summary.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexedDraw {
    /// Command index of the draw's END.
    pub end_command: u64,
    /// The `SET_BEGIN_END` primitive (1..=10).
    pub primitive: u8,
    /// Whether the draw is indexed.
    pub indexed: bool,
    /// The index width, when indexed and known.
    pub index_width: Option<IndexWidth>,
    /// (first, count) per range.
    pub ranges: Vec<(u32, u32)>,
    /// Vertex count over the ranges.
    pub vertex_count: u64,
    /// Vertex program start slot.
    pub vp_start: u32,
    /// The frame model's `vp_hash`.
    pub vp_hash: u64,
    /// The fragment program's address: (location: 0 local, 1 main; byte offset).
    pub fp: Option<(u8, u32)>,
    /// The frame model's `fp_hash`, when the program was read.
    pub fp_hash: Option<u64>,
    /// c32..c35 as 16 floats, when all four are known.
    pub mvp: Option<[f32; 16]>,
    /// The draw's problems, as text.
    pub problems: Vec<String>,
    /// Which part of its BEGIN/END the draw is (the frame model's `Draw::part`).
    pub part: u32,
}

/// The frame index of a trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceIndex {
    /// Version of the frame model that computed it (see the schema's `FrameIndex.frameModel`).
    pub frame_model: u32,
    /// The counts.
    pub counts: IndexCounts,
    /// The frame-level problems, as text.
    pub frame_problems: Vec<String>,
    /// One entry per draw, in END order; empty when read with counts only.
    pub draws: Vec<IndexedDraw>,
}

/// Write `index` into the message's `FrameIndex`.
pub(crate) fn build(index: &TraceIndex, mut b: frame_index::Builder<'_>) -> Result<(), TraceError> {
    let c = &index.counts;
    b.set_frame_model(index.frame_model);
    b.set_commands(c.commands);
    b.set_method_calls(c.method_calls);
    b.set_draws(c.draws);
    b.set_memory_blocks(c.memory_blocks);
    b.set_memory_bytes(c.memory_bytes);
    b.set_memory_data_bytes(c.memory_data_bytes);
    b.set_distinct_vertex_programs(c.distinct_vertex_programs);
    b.set_distinct_fragment_programs(c.distinct_fragment_programs);
    b.set_draws_with_problems(c.draws_with_problems);
    let count = crate::write::list_len(|| "index.frameProblems", index.frame_problems.len(), 1)?;
    let mut problems = b.reborrow().init_frame_problems(count);
    for (i, p) in (0..count).zip(&index.frame_problems) {
        problems.set(i, p.as_str());
    }
    let count = crate::write::list_len(|| "index.drawList", index.draws.len(), 8)?;
    let mut list = b.init_draw_list(count);
    for (i, d) in (0..count).zip(&index.draws) {
        let mut e = list.reborrow().get(i);
        e.set_end_command(d.end_command);
        e.set_primitive(d.primitive);
        e.set_indexed(d.indexed);
        e.set_index_type(match d.index_width {
            None => 0,
            Some(IndexWidth::U32) => 1,
            Some(IndexWidth::U16) => 2,
        });
        let n = crate::write::list_len(
            || format!("index.drawList[{i}].ranges"),
            2 * d.ranges.len(),
            0,
        )?;
        let mut ranges = e.reborrow().init_ranges(n);
        for (k, (first, count)) in (0..).zip(&d.ranges) {
            ranges.set(2 * k, *first);
            ranges.set(2 * k + 1, *count);
        }
        e.set_vertex_count(d.vertex_count);
        e.set_vp_start(d.vp_start);
        e.set_vp_hash(d.vp_hash);
        if let Some((location, offset)) = d.fp {
            e.set_fp_known(true);
            e.set_fp_location(location);
            e.set_fp_offset(offset);
        }
        if let Some(hash) = d.fp_hash {
            e.set_fp_hash_known(true);
            e.set_fp_hash(hash);
        }
        if let Some(mvp) = &d.mvp {
            let mut m = e.reborrow().init_mvp(16);
            for (k, v) in (0..).zip(mvp) {
                m.set(k, *v);
            }
        }
        let n = crate::write::list_len(
            || format!("index.drawList[{i}].problems"),
            d.problems.len(),
            1,
        )?;
        e.set_part(d.part);
        let mut problems = e.init_problems(n);
        for (k, p) in (0..n).zip(&d.problems) {
            problems.set(k, p.as_str());
        }
    }
    Ok(())
}

fn texts(
    list: capnp::text_list::Reader<'_>,
    field: impl Fn() -> String,
) -> Result<Vec<String>, TraceError> {
    let mut out = Vec::new();
    for (i, t) in list.iter().enumerate() {
        let text = t.field(|| format!("{}[{i}]", field()))?;
        out.push(String::from_utf8_lossy(text.as_bytes()).into_owned());
    }
    Ok(out)
}

fn draw(i: usize, e: draw_index_entry::Reader<'_>) -> Result<IndexedDraw, TraceError> {
    let at = |what: &str| format!("index.drawList[{i}].{what}");
    let ranges = e.get_ranges().field(|| at("ranges"))?;
    let pairs: Vec<(u32, u32)> = (0..ranges.len() / 2)
        .map(|k| (ranges.get(2 * k), ranges.get(2 * k + 1)))
        .collect();
    let mvp = e.get_mvp().field(|| at("mvp"))?;
    let mvp = match mvp.len() {
        0 => None,
        16 => {
            let mut m = [0f32; 16];
            for (k, v) in m.iter_mut().enumerate() {
                *v = mvp.get(k as u32);
            }
            Some(m)
        }
        n => {
            return Err(TraceError::InvalidLength {
                field: at("mvp"),
                expected: "0 or 16",
                found: u64::from(n),
            })
        }
    };
    Ok(IndexedDraw {
        end_command: e.get_end_command(),
        primitive: e.get_primitive(),
        indexed: e.get_indexed(),
        index_width: match e.get_index_type() {
            1 => Some(IndexWidth::U32),
            2 => Some(IndexWidth::U16),
            _ => None,
        },
        ranges: pairs,
        vertex_count: e.get_vertex_count(),
        vp_start: e.get_vp_start(),
        vp_hash: e.get_vp_hash(),
        fp: e
            .get_fp_known()
            .then(|| (e.get_fp_location(), e.get_fp_offset())),
        fp_hash: e.get_fp_hash_known().then(|| e.get_fp_hash()),
        mvp,
        problems: texts(e.get_problems().field(|| at("problems"))?, || {
            at("problems")
        })?,
        part: e.get_part(),
    })
}

/// The sizes `rsxtrace info` reports, read in O(1) (list lengths and the register-state union).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceSizes {
    /// Words of the transform program in the register-state tail.
    pub transform_program_words: u32,
    /// Whether the initial transform constants are recorded.
    pub constants_in_file: bool,
    /// Memory data blobs.
    pub data: u32,
    /// Tile state entries.
    pub tiles: u32,
    /// Display buffer state entries.
    pub display_buffers: u32,
}

impl TraceView<'_> {
    /// The tile and Z-cull states of the trace's tile map (no commands or memory read).
    pub fn tile_states(&self) -> Result<Vec<rsxtrace_rrc::TileState>, TraceError> {
        Ok(crate::convert::tile_entries(self)?
            .into_iter()
            .map(|e| e.value)
            .collect())
    }

    /// The sizes of the trace's maps and register-state tail (O(1)).
    pub fn sizes(&self) -> Result<TraceSizes, TraceError> {
        use crate::trace_capnp::reg_state::transform_constants::Which;
        let root = self.root()?;
        let reg = root.get_reg_state().field(|| "regState")?;
        Ok(TraceSizes {
            transform_program_words: reg
                .get_transform_program()
                .field(|| "regState.transformProgram")?
                .len(),
            constants_in_file: matches!(
                reg.get_transform_constants()
                    .which()
                    .field(|| "regState.transformConstants")?,
                Which::Present(_)
            ),
            data: root.get_data().field(|| "data")?.len(),
            tiles: root.get_tiles().field(|| "tiles")?.len(),
            display_buffers: root.get_display_buffers().field(|| "displayBuffers")?.len(),
        })
    }

    /// The trace's frame index, or `None` when it has none (written without a frame, or before
    /// format minor 1). With `draws` false only the counts and frame problems are read (O(1) in
    /// the number of draws); with `draws` true the per-draw list too.
    pub fn index(&self, draws: bool) -> Result<Option<TraceIndex>, TraceError> {
        let root = self.root()?;
        if !root.has_index() {
            return Ok(None);
        }
        let r = root.get_index().field(|| "index")?;
        let mut index = TraceIndex {
            frame_model: r.get_frame_model(),
            counts: IndexCounts {
                commands: r.get_commands(),
                method_calls: r.get_method_calls(),
                draws: r.get_draws(),
                memory_blocks: r.get_memory_blocks(),
                memory_bytes: r.get_memory_bytes(),
                memory_data_bytes: r.get_memory_data_bytes(),
                distinct_vertex_programs: r.get_distinct_vertex_programs(),
                distinct_fragment_programs: r.get_distinct_fragment_programs(),
                draws_with_problems: r.get_draws_with_problems(),
            },
            frame_problems: {
                let list = r.get_frame_problems().field(|| "index.frameProblems")?;
                check_struct_list(
                    "index.frameProblems",
                    list.len(),
                    self.trace().total_words(),
                )?;
                texts(list, || "index.frameProblems".into())?
            },
            draws: Vec::new(),
        };
        if draws {
            let list = r.get_draw_list().field(|| "index.drawList")?;
            check_struct_list("index.drawList", list.len(), self.trace().total_words())?;
            index.draws.reserve(list.len() as usize);
            for (i, e) in list.iter().enumerate() {
                index.draws.push(draw(i, e)?);
            }
        }
        Ok(Some(index))
    }
}
