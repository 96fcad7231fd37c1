//! `rsxtrace edit`: a capture whose chosen draws run other programs, read from program files
//! (a CgBinaryProgram `.vpo`/`.fpo`, a PSL1GHT container, or raw microcode), for "what would
//! this frame look like with that program" (RenderDoc's shader edit and replay, as a file that
//! every command and RPCS3 replay).
//!
//! This module chooses the draws ([`Selector`]: all, a range, or a program hash as `draws`
//! prints it), reads and checks the program files ([`ProgramFile`]), places a fragment
//! program in local memory the frame neither reads nor writes ([`free_local_range`]), hands
//! the stream surgery to [`rsxtrace_capture::edit`], and decodes the result to check that the
//! chosen draws now run the new programs and the others what they ran before.

use crate::render::draw_range::{self, DrawRange};
use crate::render::extent::{surface_extents, DrawTargets, Extent};
use crate::render::state::FrameEvents;
use crate::render::transfer::destination_extent;
use rsxtrace_capture::edit::{
    replace_programs, EditError, EditReport, FragmentSwap, NewProgram, Replacement, VertexSwap,
};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_program::container::{self, Container};
use rsxtrace_program::{fragment, vertex};
use std::fmt;

/// Bytes of local memory RPCS3's capture replay maps (`allocate_context` in
/// `Capture/rsx_replay.cpp`: 0x0F900000; rrc-format.md 3.4).
pub const LOCAL_MEMORY_BYTES: u64 = 0x0F90_0000;

/// Alignment of a placed fragment program (libgcm asks 64 bytes of fragment microcode in
/// local memory; 256 keeps it on its own cache lines).
const PROGRAM_ALIGN: u64 = 256;

/// Which stage a program file replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The vertex program.
    Vertex,
    /// The fragment program.
    Fragment,
}

impl Stage {
    fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        }
    }
}

/// Which draws take a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// Every draw.
    All,
    /// A range of draws (`A..B`, `A..=B`, `A..`, `N`).
    Draws(DrawRange),
    /// Draws whose program of the replaced stage has a hash starting with these lowercase
    /// hex digits (`vp_hash` / `fp_hash`, as `draws` prints them: at least 8 digits).
    Hash(String),
}

impl Selector {
    /// Parse `all`, a draw range or number, or a hash prefix of 8 to 16 hex digits.
    pub fn parse(s: &str) -> Result<Selector, String> {
        let s = s.trim();
        if s == "all" {
            return Ok(Selector::All);
        }
        let hex = s.len() >= 8 && s.len() <= 16 && s.chars().all(|c| c.is_ascii_hexdigit());
        if hex {
            return Ok(Selector::Hash(s.to_ascii_lowercase()));
        }
        draw_range::parse(s).map(Selector::Draws).map_err(|e| {
            format!("{e}; or `all`, or a program hash of 8 to 16 hex digits as `draws` prints it")
        })
    }

    /// The draws of `frame` it chooses for `stage`, in order.
    pub fn draws(&self, frame: &Frame, stage: Stage) -> Result<Vec<usize>, String> {
        Ok(match self {
            Selector::All => (0..frame.draws.len()).collect(),
            Selector::Draws(r) => r
                .resolve(frame.draws.len())
                .map_err(|e| e.to_string())?
                .collect(),
            Selector::Hash(prefix) => frame
                .draws
                .iter()
                .filter(|d| {
                    let hash = match stage {
                        Stage::Vertex => Some(d.vp_hash),
                        Stage::Fragment => d.fragment_program.as_ref().map(|p| p.hash),
                    };
                    hash.is_some_and(|h| format!("{h:016x}").starts_with(prefix.as_str()))
                })
                .map(|d| d.index)
                .collect(),
        })
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::All => write!(f, "all"),
            Selector::Draws(r) => match r.end {
                Some(end) => write!(f, "{}..{end}", r.start),
                None => write!(f, "{}..", r.start),
            },
            Selector::Hash(h) => write!(f, "{h}"),
        }
    }
}

/// A program read from a file, checked by decoding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramFile {
    /// Its stage.
    pub stage: Stage,
    /// The microcode as it lies in guest memory (fragment) or as uploaded, big-endian
    /// (vertex).
    pub ucode: Vec<u8>,
    /// The fragment `SHADER_CONTROL` word the container states.
    pub control: Option<u32>,
    /// The vertex load slot and attribute input and output masks the container states.
    pub vertex_load: Option<(u32, u32, u32)>,
    /// Instructions.
    pub instructions: usize,
    /// The container format, as `disasm` names it.
    pub format: &'static str,
}

/// Why a program file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProgramFileError {
    /// Not a container, and not raw microcode of whole slots.
    #[error("{0}")]
    Container(#[from] container::ContainerError),
    /// A container of the other stage.
    #[error("it holds a {found} program, not a {wanted} one")]
    WrongStage {
        /// The stage the file holds.
        found: &'static str,
        /// The stage asked for.
        wanted: &'static str,
    },
    /// Fragment-program assembly text that does not assemble.
    #[error("{0}")]
    Assembly(#[from] fragment::AssembleError),
    /// Assembly text given for a vertex program.
    #[error("vertex programs are read from containers or raw microcode, not assembly text")]
    VertexAssembly,
    /// The microcode does not decode.
    #[error("its {stage} microcode does not decode: {why}")]
    Decode {
        /// Which stage.
        stage: &'static str,
        /// The decoder's message.
        why: String,
    },
}

impl ProgramFile {
    /// Read a program of `stage` from a file's bytes: a container of that stage, fragment
    /// assembly text (as `disasm` writes it; `fragment::assemble`), else raw microcode of
    /// whole 16-byte slots.
    pub fn parse(bytes: &[u8], stage: Stage) -> Result<ProgramFile, ProgramFileError> {
        let wanted = match stage {
            Stage::Vertex => container::Stage::Vertex,
            Stage::Fragment => container::Stage::Fragment,
        };
        let parsed = match fragment::assembly_text(bytes) {
            Some(text) if stage == Stage::Fragment => {
                let program = fragment::assemble(text)?;
                Container::raw(wanted, &fragment::encode(&program))?
            }
            Some(_) => return Err(ProgramFileError::VertexAssembly),
            None => Container::parse_or_raw(bytes, wanted)?,
        };
        if parsed.stage() != wanted {
            let found = match parsed.stage() {
                container::Stage::Vertex => "vertex",
                container::Stage::Fragment => "fragment",
            };
            return Err(ProgramFileError::WrongStage {
                found,
                wanted: stage.name(),
            });
        }
        let decode_error = |why: String| ProgramFileError::Decode {
            stage: stage.name(),
            why,
        };
        let (ucode, instructions) = match stage {
            Stage::Vertex => {
                let p = vertex::decode_bytes(parsed.ucode())
                    .map_err(|e| decode_error(e.to_string()))?;
                (parsed.ucode().to_vec(), p.instructions.len())
            }
            Stage::Fragment => {
                let p =
                    fragment::decode(parsed.ucode()).map_err(|e| decode_error(e.to_string()))?;
                // The microcode through the END instruction and its constant.
                let slots = p
                    .instructions
                    .iter()
                    .map(|i| i.slot as usize + 1 + usize::from(i.constant.is_some()))
                    .max()
                    .unwrap_or(0);
                let len = (slots * 16).min(parsed.ucode().len());
                (parsed.ucode()[..len].to_vec(), p.instructions.len())
            }
        };
        let format = match &parsed {
            Container::Raw(_) if fragment::assembly_text(bytes).is_some() => "assembly",
            Container::Cg(_) => "CgBinaryProgram",
            Container::Psl1ghtVertex(_) => "PSL1GHT vertex program",
            Container::Psl1ghtFragment(_) => "PSL1GHT fragment program",
            Container::Raw(_) => "raw microcode",
        };
        Ok(ProgramFile {
            stage,
            ucode,
            control: parsed.control_word(),
            vertex_load: parsed.vertex_load(),
            instructions,
            format,
        })
    }
}

/// One replacement asked for.
#[derive(Clone, Debug)]
pub struct Request {
    /// The draws.
    pub selector: Selector,
    /// The program.
    pub program: ProgramFile,
}

/// Where a replacement's program went.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Placement {
    /// The request it came from, counted from 0 in the order given.
    pub request: usize,
    /// Its stage.
    pub stage: Stage,
    /// The selector as given.
    pub selector: String,
    /// The draws that run it.
    pub draws: Vec<usize>,
    /// The distinct hashes of the programs it replaced, in order of first draw.
    pub replaced: Vec<String>,
    /// Its hash in the edited frame.
    pub hash: Option<String>,
    /// Where a fragment program was placed.
    pub address: Option<PlacedAt>,
    /// A vertex program's load slot.
    pub slot: Option<u32>,
    /// Runs of consecutive draws set up once.
    pub runs: usize,
    /// Commands added for it.
    pub commands_added: usize,
}

/// Where a fragment program was placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PlacedAt {
    /// `local` (the only memory a program is placed in).
    pub location: &'static str,
    /// Byte offset.
    pub offset: u32,
}

/// What `edit` did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EditSummary {
    /// Per request that chose at least one draw, in the order given.
    pub placements: Vec<Placement>,
    /// Requests that chose no draw, counted from 0 in the order given.
    pub unmatched: Vec<usize>,
    /// Commands before and after.
    pub commands: (usize, usize),
}

/// Why a capture cannot be edited.
#[derive(Debug, thiserror::Error)]
pub enum EditProgramsError {
    /// A selector past the frame.
    #[error("{0}")]
    Selector(String),
    /// No request chose a draw.
    #[error("no draw matches: {0}")]
    NothingChosen(String),
    /// No room for a fragment program.
    #[error("no {bytes} bytes of local memory are free of the frame's memory blocks, render targets, transfers and display buffers for the fragment program")]
    NoRoom {
        /// Its size.
        bytes: usize,
    },
    /// The stream surgery refused.
    #[error(transparent)]
    Edit(#[from] EditError),
    /// The edited capture does not decode as intended (a bug: reported, never written).
    #[error("the edited capture does not decode as intended: {0}")]
    Check(String),
}

/// The byte ranges of local and main memory the frame reads or writes, known from the frame
/// alone: every memory block, every draw's render targets, every clear's surfaces, every
/// transfer's destination, every display buffer.
pub(crate) fn used_memory(capture: &Capture, frame: &Frame) -> Vec<Extent> {
    let mut used = Vec::new();
    let data_len: std::collections::HashMap<u64, u64> = capture
        .data
        .iter()
        .map(|d| (d.id, d.value.len() as u64))
        .collect();
    for b in &capture.blocks {
        let Some(location) = b.value.location_kind() else {
            continue;
        };
        let len = data_len.get(&b.value.data_id).copied().unwrap_or(0);
        let start = u64::from(b.value.offset);
        used.push(Extent {
            location,
            start,
            end: start + len,
        });
    }
    for d in &frame.draws {
        if let Some(t) = DrawTargets::of(d) {
            used.extend(t.extents());
        }
        used.extend(surface_extents(&d.surface));
    }
    let events = FrameEvents::from_capture(capture, frame);
    for c in &events.clears {
        used.extend(surface_extents(&c.surface));
    }
    for t in &events.transfers {
        if let Some((location, start, end)) = t.transfer.as_ref().ok().and_then(destination_extent)
        {
            used.push(Extent {
                location,
                start,
                end,
            });
        }
    }
    for b in &events.display_buffers {
        let start = u64::from(b.offset);
        used.push(Extent {
            location: Location::Local,
            start,
            end: start + u64::from(b.pitch) * u64::from(b.height),
        });
    }
    used
}

/// The highest `PROGRAM_ALIGN`-aligned offset of local memory where `len` bytes overlap none
/// of `used`, below [`LOCAL_MEMORY_BYTES`].
pub(crate) fn free_local_range(used: &[Extent], len: u64) -> Option<u32> {
    let mut local: Vec<(u64, u64)> = used
        .iter()
        .filter(|e| e.location == Location::Local && e.end > e.start)
        .map(|e| (e.start, e.end))
        .collect();
    local.sort_unstable();
    // Gaps from the top of memory down.
    let mut top = LOCAL_MEMORY_BYTES;
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (s, e) in local {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    for &(s, e) in merged.iter().rev().chain(std::iter::once(&(0, 0))) {
        let gap_start = e.div_ceil(PROGRAM_ALIGN) * PROGRAM_ALIGN;
        if top >= len && top - len >= gap_start {
            let at = (top - len) / PROGRAM_ALIGN * PROGRAM_ALIGN;
            if at >= gap_start {
                return u32::try_from(at).ok();
            }
        }
        top = top.min(s);
    }
    None
}

fn hex(h: u64) -> String {
    format!("{h:016x}")
}

/// The stage's program hash of a draw.
fn hash_of(frame: &Frame, draw: usize, stage: Stage) -> Option<u64> {
    let d = frame.draws.get(draw)?;
    match stage {
        Stage::Vertex => Some(d.vp_hash),
        Stage::Fragment => d.fragment_program.as_ref().map(|p| p.hash),
    }
}

/// `capture` (decoded as `frame`) with each request's program run by the draws it chooses.
/// A request that chooses no draw is listed in [`EditSummary::unmatched`]; when none
/// chooses one, nothing is written and the error says so.
pub fn edit_programs(
    capture: &Capture,
    frame: &Frame,
    requests: &[Request],
) -> Result<(Capture, EditSummary), EditProgramsError> {
    let mut used = used_memory(capture, frame);
    let mut replacements = Vec::new();
    let mut kept = Vec::new();
    let mut unmatched = Vec::new();
    for (index, r) in requests.iter().enumerate() {
        let draws = r
            .selector
            .draws(frame, r.program.stage)
            .map_err(EditProgramsError::Selector)?;
        if draws.is_empty() {
            unmatched.push(index);
            continue;
        }
        let program = match r.program.stage {
            Stage::Fragment => {
                let len = r.program.ucode.len();
                let offset = free_local_range(&used, len as u64)
                    .ok_or(EditProgramsError::NoRoom { bytes: len })?;
                used.push(Extent {
                    location: Location::Local,
                    start: u64::from(offset),
                    end: u64::from(offset) + len as u64,
                });
                NewProgram::Fragment(FragmentSwap {
                    ucode: r.program.ucode.clone(),
                    location: Location::Local,
                    offset,
                    control: r.program.control,
                })
            }
            Stage::Vertex => {
                let (slot, input_mask, output_mask) = match r.program.vertex_load {
                    Some((slot, i, o)) => (slot, Some(i), Some(o)),
                    None => (frame.draws[draws[0]].vp_start, None, None),
                };
                NewProgram::Vertex(VertexSwap {
                    words: r
                        .program
                        .ucode
                        .chunks_exact(4)
                        .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
                        .collect(),
                    slot,
                    input_mask,
                    output_mask,
                })
            }
        };
        kept.push((index, r));
        replacements.push(Replacement { program, draws });
    }
    if replacements.is_empty() {
        let asked: Vec<String> = requests
            .iter()
            .map(|r| format!("{} {}", r.program.stage.name(), r.selector))
            .collect();
        return Err(EditProgramsError::NothingChosen(asked.join(", ")));
    }
    let (edited, report) = replace_programs(capture, frame, &replacements)?;
    let placements = check(frame, &edited, &replacements, &report, &kept)?;
    let summary = EditSummary {
        placements,
        unmatched,
        commands: report.commands,
    };
    Ok((edited, summary))
}

/// Decode the edited capture: every chosen draw runs its new program, every other draw the
/// program it ran before, and the draws are the same in number.
fn check(
    frame: &Frame,
    edited: &Capture,
    replacements: &[Replacement],
    report: &EditReport,
    requests: &[(usize, &Request)],
) -> Result<Vec<Placement>, EditProgramsError> {
    let after = Frame::from_capture(edited).map_err(|e| EditProgramsError::Check(e.to_string()))?;
    if after.draws.len() != frame.draws.len() {
        return Err(EditProgramsError::Check(format!(
            "{} draws, not {}",
            after.draws.len(),
            frame.draws.len()
        )));
    }
    let mut placements = Vec::new();
    // Per stage (0 fragment, 1 vertex), the draws some replacement chose.
    let mut chosen: [Vec<bool>; 2] = [
        vec![false; frame.draws.len()],
        vec![false; frame.draws.len()],
    ];
    for ((r, rep), &(request, req)) in replacements.iter().zip(&report.replacements).zip(requests) {
        let stage = req.program.stage;
        let s = usize::from(stage == Stage::Vertex);
        let hash = rep.draws.first().and_then(|&d| hash_of(&after, d, stage));
        for &d in &rep.draws {
            let h = hash_of(&after, d, stage);
            if h != hash || h.is_none() {
                return Err(EditProgramsError::Check(format!(
                    "draw {d}'s {} program is {:?}, not the new one",
                    stage.name(),
                    h.map(hex)
                )));
            }
            chosen[s][d] = true;
        }
        let mut replaced: Vec<String> = Vec::new();
        for &d in &rep.draws {
            let h = hash_of(frame, d, stage).map_or_else(|| "unread".to_string(), hex);
            if !replaced.contains(&h) {
                replaced.push(h);
            }
        }
        let (address, slot) = match &r.program {
            NewProgram::Fragment(f) => (
                Some(PlacedAt {
                    location: "local",
                    offset: f.offset,
                }),
                None,
            ),
            NewProgram::Vertex(v) => (None, Some(v.slot)),
        };
        placements.push(Placement {
            request,
            stage,
            selector: req.selector.to_string(),
            draws: rep.draws.clone(),
            replaced,
            hash: hash.map(hex),
            address,
            slot,
            runs: rep.runs,
            commands_added: rep.commands_added,
        });
    }
    for (stage, chosen) in [Stage::Fragment, Stage::Vertex].into_iter().zip(&chosen) {
        for d in chosen
            .iter()
            .enumerate()
            .filter(|(_, &c)| !c)
            .map(|(d, _)| d)
        {
            if hash_of(&after, d, stage) != hash_of(frame, d, stage) {
                return Err(EditProgramsError::Check(format!(
                    "draw {d} was not chosen, yet its {} program changed",
                    stage.name()
                )));
            }
        }
    }
    Ok(placements)
}
