//! A capture's overview (what `rsxtrace info` and `rsxtrace draws` report): the provenance and
//! sizes, the frame's counts, and one summary per draw. From a trace that carries a current
//! frame index (`Trace.index`) it is read without decoding the frame (O(1) for the counts,
//! O(draws) for the list); from anything else the frame is decoded. Both ways give the same
//! overview; [`frame_index`] computes the index that `convert` writes into traces.

use crate::frame::draw::{DrawSummary, FpRef, Primitive};
use crate::frame::transform::hash_hex;
use crate::frame::{BoundRegions, Frame, FrameError, FrameStats, MODEL_VERSION};
use crate::open::{file_kind, open_capture, FileKind, OpenError};
use crate::rrc::{Capture, Location, Provenance};
use crate::trace::{IndexCounts, IndexWidth, IndexedDraw, Trace, TraceError, TraceIndex};
use std::path::{Path, PathBuf};

/// One draw as `rsxtrace draws` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawOverview {
    /// The documented summary (`draws --json`).
    pub summary: DrawSummary,
    /// Index width, when the draw is indexed and its index array is known.
    pub index_width: Option<IndexWidth>,
    /// The draw's problems, as text.
    pub problems: Vec<String>,
}

/// What `info` and `draws` report about a capture.
#[derive(Clone, Debug, PartialEq)]
pub struct Overview {
    pub provenance: Provenance,
    /// Transform program slots in the register-state tail (544, or 512 in old captures).
    pub transform_program_slots: usize,
    /// Whether the file holds the initial transform constants.
    pub constants_in_file: bool,
    pub memory_data_entries: usize,
    pub tile_states: usize,
    /// Every tile and Z-cull region bound in any of the capture's tile states.
    pub regions: BoundRegions,
    pub display_buffer_states: usize,
    pub stats: FrameStats,
    /// Frame-level problems, as text.
    pub frame_problems: Vec<String>,
    /// The draws (empty unless asked for).
    pub draws: Vec<DrawOverview>,
    /// Whether this came from a trace's frame index (the frame was not decoded).
    pub from_index: bool,
}

/// Why an overview could not be made.
#[derive(Debug, thiserror::Error)]
pub enum OverviewError {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error("cannot read trace {}", path.display())]
    Trace {
        path: PathBuf,
        #[source]
        source: TraceError,
    },
    #[error("cannot decode the frame of {}", path.display())]
    Frame {
        path: PathBuf,
        #[source]
        source: FrameError,
    },
}

/// The width of a draw's indices, when it is indexed and its index array is known.
fn index_width(d: &crate::frame::Draw) -> Option<IndexWidth> {
    d.index_array.as_ref().map(|ix| match ix.ty {
        crate::fetch::IndexType::U32 => IndexWidth::U32,
        crate::fetch::IndexType::U16 => IndexWidth::U16,
    })
}

/// The frame index of a decoded frame, as `convert` writes it into a trace.
pub fn frame_index(frame: &Frame) -> TraceIndex {
    let s = frame.stats();
    TraceIndex {
        frame_model: MODEL_VERSION,
        counts: IndexCounts {
            commands: s.commands as u64,
            method_calls: s.method_calls as u64,
            draws: s.draws as u64,
            memory_blocks: s.memory_blocks as u64,
            memory_bytes: s.memory_bytes,
            memory_data_bytes: s.memory_data_bytes,
            distinct_vertex_programs: s.distinct_vertex_programs as u64,
            distinct_fragment_programs: s.distinct_fragment_programs as u64,
            draws_with_problems: s.draws_with_problems as u64,
        },
        frame_problems: frame.problems.iter().map(|p| p.to_string()).collect(),
        draws: frame
            .draws
            .iter()
            .map(|d| {
                let s = d.summary();
                IndexedDraw {
                    end_command: s.end_command as u64,
                    primitive: s.primitive as u8 + 1,
                    indexed: s.indexed,
                    index_width: index_width(d),
                    ranges: s.ranges.iter().map(|r| (r.first, r.count)).collect(),
                    vertex_count: s.vertex_count,
                    vp_start: s.vp_start,
                    vp_hash: d.vp_hash,
                    fp: s
                        .fp
                        .map(|f| (u8::from(f.location == Location::Main), f.offset)),
                    fp_hash: d.fragment_program.as_ref().map(|p| p.hash),
                    mvp: s.mvp.map(|rows| {
                        let mut m = [0f32; 16];
                        for (k, v) in rows.iter().flatten().enumerate() {
                            m[k] = *v;
                        }
                        m
                    }),
                    problems: d.problems.iter().map(|p| p.to_string()).collect(),
                    part: d.part,
                }
            })
            .collect(),
    }
}

/// The draw overview of index entry `index`, or `None` when the entry's primitive is not one
/// of the ten (a damaged index: the caller decodes the frame instead).
fn from_entry(index: usize, d: &IndexedDraw) -> Option<DrawOverview> {
    let mvp = d.mvp.map(|m| {
        let mut rows = [[0f32; 4]; 4];
        for (k, v) in m.iter().enumerate() {
            rows[k / 4][k % 4] = *v;
        }
        rows
    });
    Some(DrawOverview {
        summary: DrawSummary {
            index,
            end_command: usize::try_from(d.end_command).ok()?,
            primitive: Primitive::from_raw(u32::from(d.primitive))?,
            indexed: d.indexed,
            ranges: d
                .ranges
                .iter()
                .map(|&(first, count)| crate::fetch::DrawRange { first, count })
                .collect(),
            vertex_count: d.vertex_count,
            vp_start: d.vp_start,
            vp_hash: hash_hex(d.vp_hash),
            fp: d.fp.map(|(location, offset)| FpRef {
                location: if location == 1 {
                    Location::Main
                } else {
                    Location::Local
                },
                offset,
            }),
            fp_hash: d.fp_hash.map(hash_hex),
            mvp,
            part: d.part,
        },
        index_width: d.index_width,
        problems: d.problems.clone(),
    })
}

/// The overview from a trace's index, when it has a current one (and, with `draws`, a
/// well-formed draw list); `None` otherwise.
fn from_trace_index(trace: &Trace, draws: bool) -> Result<Option<Overview>, TraceError> {
    let view = trace.view()?;
    let Some(index) = view.index(draws)? else {
        return Ok(None);
    };
    if index.frame_model != MODEL_VERSION {
        return Ok(None);
    }
    let mut list = Vec::with_capacity(index.draws.len());
    for (i, d) in index.draws.iter().enumerate() {
        match from_entry(i, d) {
            Some(o) => list.push(o),
            None => return Ok(None),
        }
    }
    let sizes = view.sizes()?;
    let c = &index.counts;
    let n = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    Ok(Some(Overview {
        provenance: view.provenance()?,
        transform_program_slots: sizes.transform_program_words as usize / 4,
        constants_in_file: sizes.constants_in_file,
        memory_data_entries: sizes.data as usize,
        tile_states: sizes.tiles as usize,
        regions: BoundRegions::all_of(&view.tile_states()?),
        display_buffer_states: sizes.display_buffers as usize,
        stats: FrameStats {
            commands: n(c.commands),
            method_calls: n(c.method_calls),
            draws: n(c.draws),
            memory_blocks: n(c.memory_blocks),
            memory_bytes: c.memory_bytes,
            memory_data_bytes: c.memory_data_bytes,
            distinct_vertex_programs: n(c.distinct_vertex_programs),
            distinct_fragment_programs: n(c.distinct_fragment_programs),
            draws_with_problems: n(c.draws_with_problems),
            frame_problems: index.frame_problems.len(),
        },
        frame_problems: index.frame_problems,
        draws: list,
        from_index: true,
    }))
}

/// The overview of a decoded capture.
pub fn from_frame(capture: &Capture, frame: &Frame, draws: bool) -> Overview {
    Overview {
        provenance: capture.provenance.clone(),
        transform_program_slots: capture.reg_state.transform_program.len() / 4,
        constants_in_file: capture.reg_state.transform_constants.is_some(),
        memory_data_entries: capture.data.len(),
        tile_states: capture.tiles.len(),
        regions: BoundRegions::all_of(capture.tiles.iter().map(|e| &e.value)),
        display_buffer_states: capture.display_buffers.len(),
        stats: frame.stats(),
        frame_problems: frame.problems.iter().map(|p| p.to_string()).collect(),
        draws: if draws {
            frame
                .draws
                .iter()
                .map(|d| DrawOverview {
                    summary: d.summary(),
                    index_width: index_width(d),
                    problems: d.problems.iter().map(|p| p.to_string()).collect(),
                })
                .collect()
        } else {
            Vec::new()
        },
        from_index: false,
    }
}

/// The overview of the capture or trace at `path`; with `draws`, the draw list too. A trace
/// with a current frame index is answered from it; anything else is decoded.
pub fn open(path: &Path, draws: bool) -> Result<Overview, OverviewError> {
    if file_kind(path)? == FileKind::Trace {
        let trace = Trace::open(path).map_err(|source| OverviewError::Trace {
            path: path.to_path_buf(),
            source,
        })?;
        // A damaged index is no reason to fail: the frame is decoded instead.
        if let Ok(Some(overview)) = from_trace_index(&trace, draws) {
            return Ok(overview);
        }
    }
    let capture = open_capture(path)?;
    let frame = Frame::from_capture(&capture).map_err(|source| OverviewError::Frame {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(from_frame(&capture, &frame, draws))
}
