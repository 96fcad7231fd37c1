//! `rsxtrace edit`: a capture whose chosen draws run other programs, read from program files
//! (a CgBinaryProgram `.vpo`/`.fpo`, a PSL1GHT container, fragment assembly text, or raw
//! microcode), for "what would this frame look like with that program" (RenderDoc's shader
//! edit and replay, as a file that every command, and RPCS3, replays).
//!
//! - `selector`: which draws ([`Selector`]: all, a range, or a program hash as `draws`
//!   prints it);
//! - `program_file`: the program files, read and checked by decoding ([`ProgramFile`]);
//! - `constants`: each draw's own inline constants kept where the file left them;
//! - `memory`: local memory the frame neither reads nor writes, for fragment microcode;
//! - here: the requests handed to the stream surgery ([`rsxtrace_capture::edit`]) and the
//!   result decoded to check that the chosen draws run the new programs and the others what
//!   they ran before.

mod constants;
mod memory;
mod program_file;
mod selector;

pub use memory::LOCAL_MEMORY_BYTES;
pub use program_file::{ProgramFile, ProgramFileError, VertexLoad};
pub use rsxtrace_program::container::Stage;
pub use selector::Selector;

use crate::render::extent::Extent;
use memory::{free_local_range, used_memory};
use rsxtrace_capture::edit::{
    replace_programs, EditError, EditReport, FragmentSwap, NewProgram, Replacement, VertexSwap,
};
use rsxtrace_capture::frame::transform::CONSTANT_COUNT;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Capture, Location};
use rsxtrace_program::kept_encoding::keep_vertex_from_memory;

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
    /// Its stage (`vertex` or `fragment` in JSON).
    #[serde(serialize_with = "stage_name")]
    pub stage: Stage,
    /// The selector as given.
    pub selector: String,
    /// The draws that run it.
    pub draws: Vec<usize>,
    /// The distinct hashes of the programs it replaced, in order of first draw.
    pub replaced: Vec<String>,
    /// Its hash in the edited frame.
    pub hash: Option<String>,
    /// Where a fragment program was placed (its first variant).
    pub address: Option<PlacedAt>,
    /// A vertex program's load slot.
    pub slot: Option<u32>,
    /// A vertex program's start slot (its load slot unless its entry lies past its first
    /// slot).
    pub start_slot: Option<u32>,
    /// Distinct microcodes placed: a fragment program takes one per distinct set of the
    /// draws' own constants it keeps (one, when it keeps none).
    pub variants: usize,
    /// Inline constants of the file (fragment).
    pub constants: usize,
    /// Of those, the ones the file left unchanged, where each draw keeps its own value.
    pub constants_kept: usize,
    /// Runs of consecutive draws set up once.
    pub runs: usize,
    /// Commands added for it.
    pub commands_added: usize,
    /// The constant registers a vertex program's container uploads with it (its literals).
    pub vertex_constants: Vec<u32>,
    /// Of those, the ones whose value before the frame does not know: after its draws they
    /// keep its values.
    pub constants_not_restored: Vec<u32>,
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
    /// Two requests of one stage chose the same draw.
    #[error("draw {draw}: the {stage} programs of requests {first} and {second} (counted from 0, fragment ones first) both choose it")]
    Overlap {
        /// The draw.
        draw: usize,
        /// Which stage.
        stage: &'static str,
        /// The requests, counted from 0 in the order given.
        first: usize,
        /// See `first`.
        second: usize,
    },
    /// The stream surgery refused.
    #[error(transparent)]
    Edit(#[from] EditError),
    /// The edited capture does not decode as intended (a bug: reported, never written).
    #[error("the edited capture does not decode as intended: {0}")]
    Check(String),
}

fn stage_name<S: serde::Serializer>(stage: &Stage, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(stage.name())
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

/// `capture` (decoded as `frame`) with each request's program run by the draws it chooses
/// (a fragment program with each draw's own inline constants where the file left them
/// unchanged: `constants`). A request that chooses no draw is listed in
/// [`EditSummary::unmatched`]; when none chooses one, nothing is written and the error says
/// so.
pub fn edit_programs(
    capture: &Capture,
    frame: &Frame,
    requests: &[Request],
) -> Result<(Capture, EditSummary), EditProgramsError> {
    // The memory the frame uses, worked out when a fragment program is first placed.
    let mut used: Option<Vec<Extent>> = None;
    let mut replacements = Vec::new();
    // Per replacement, the request it serves; per request that chose draws, its constants.
    let mut origin = Vec::new();
    let mut constants = vec![(0, 0); requests.len()];
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
        match r.program.stage {
            Stage::Fragment => {
                let variants = if r.program.keeps_draw_constants {
                    constants::per_draw(frame, &draws, &r.program.ucode)
                } else {
                    constants::as_given(&draws, &r.program.ucode)
                };
                let variants = if r.program.keeps_draw_encoding {
                    constants::keep_draw_encodings(frame, variants)
                } else {
                    variants
                };
                constants[index] = (variants.kept, variants.total);
                let used = used.get_or_insert_with(|| used_memory(capture, frame));
                for (ucode, draws) in variants.programs {
                    let len = ucode.len();
                    let offset = free_local_range(used, len as u64)
                        .ok_or(EditProgramsError::NoRoom { bytes: len })?;
                    used.push(Extent {
                        location: Location::Local,
                        start: u64::from(offset),
                        end: u64::from(offset) + len as u64,
                    });
                    let program = NewProgram::Fragment(FragmentSwap {
                        ucode,
                        location: Location::Local,
                        offset,
                        control: r.program.control,
                        texcoord_controls: r.program.texcoord_controls.clone(),
                    });
                    origin.push(index);
                    replacements.push(Replacement { program, draws });
                }
            }
            Stage::Vertex => {
                let (slot, start, masks) = match r.program.vertex_load {
                    Some(load) => (load.slot, load.start, load.masks),
                    None => {
                        let start = frame.draws[draws[0]].vp_start;
                        (start, start, None)
                    }
                };
                let (input_mask, output_mask) = (masks.map(|m| m.0), masks.map(|m| m.1));
                let words = rsxtrace_program::vertex::words_of(&r.program.ucode);
                // Assembly keeps the words of every instruction that is one of the program
                // the first chosen draw ran (from its transform program memory).
                let words = if r.program.keeps_draw_encoding {
                    let first = &frame.draws[draws[0]];
                    keep_vertex_from_memory(
                        &words,
                        slot as usize,
                        &first.vertex_program,
                        first.vp_start as usize,
                    )
                    .0
                } else {
                    words
                };
                let program = NewProgram::Vertex(VertexSwap {
                    words,
                    slot,
                    start,
                    input_mask,
                    input_reads: r.program.vertex_inputs,
                    output_mask,
                    constants: r.program.vertex_constants.clone(),
                });
                origin.push(index);
                replacements.push(Replacement { program, draws });
            }
        }
    }
    if replacements.is_empty() {
        let asked: Vec<String> = requests
            .iter()
            .map(|r| format!("{} {}", r.program.stage.name(), r.selector))
            .collect();
        return Err(EditProgramsError::NothingChosen(asked.join(", ")));
    }
    let (edited, report) =
        replace_programs(capture, frame, &replacements).map_err(|e| match e {
            // Replacements are per constant set; name the requests the user gave.
            EditError::ChosenTwice {
                draw,
                stage,
                first,
                second,
            } => EditProgramsError::Overlap {
                draw,
                stage,
                first: origin.get(first).copied().unwrap_or(first),
                second: origin.get(second).copied().unwrap_or(second),
            },
            e => EditProgramsError::Edit(e),
        })?;
    let placements = check(
        frame,
        &edited,
        &Served {
            replacements: &replacements,
            report: &report,
            origin: &origin,
            requests,
            constants: &constants,
        },
    )?;
    let summary = EditSummary {
        placements,
        unmatched,
        commands: report.commands,
    };
    Ok((edited, summary))
}

/// The replacements made, what each did, and the requests they serve.
struct Served<'a> {
    replacements: &'a [Replacement],
    report: &'a EditReport,
    /// Per replacement, its request.
    origin: &'a [usize],
    requests: &'a [Request],
    /// Per request, (constants kept per draw, constants in the file).
    constants: &'a [(usize, usize)],
}

/// Decode the edited capture: every chosen draw runs its new program, every other draw the
/// program it ran before, and the draws are the same in number; one placement per request
/// that chose draws.
fn check(
    frame: &Frame,
    edited: &Capture,
    served: &Served<'_>,
) -> Result<Vec<Placement>, EditProgramsError> {
    let after = Frame::from_capture(edited).map_err(|e| EditProgramsError::Check(e.to_string()))?;
    if after.draws.len() != frame.draws.len() {
        return Err(EditProgramsError::Check(format!(
            "{} draws, not {}",
            after.draws.len(),
            frame.draws.len()
        )));
    }
    let mut placements: Vec<Placement> = Vec::new();
    // Per stage (0 fragment, 1 vertex), the draws some replacement chose.
    let mut chosen: [Vec<bool>; 2] = [
        vec![false; frame.draws.len()],
        vec![false; frame.draws.len()],
    ];
    let served_by = served
        .replacements
        .iter()
        .zip(&served.report.replacements)
        .zip(served.origin);
    for ((r, rep), &request) in served_by {
        let req = &served.requests[request];
        let stage = req.program.stage;
        let s = usize::from(stage == Stage::Vertex);
        let first = placements.iter().position(|p| p.request == request);
        let hash = match first {
            Some(i) => placements[i].hash.clone(),
            None => rep
                .draws
                .first()
                .and_then(|&d| hash_of(&after, d, stage))
                .map(hex),
        };
        for &d in &rep.draws {
            let h = hash_of(&after, d, stage).map(hex);
            if h != hash || h.is_none() {
                return Err(EditProgramsError::Check(format!(
                    "draw {d}'s {} program is {h:?}, not the new one",
                    stage.name(),
                )));
            }
            if let NewProgram::Vertex(v) = &r.program {
                // A register past the 468 takes no write (its upload is dropped, as the loader's
                // would be), so only the others are read back.
                let held = v
                    .constants
                    .iter()
                    .filter(|c| (c.0 as usize) < CONSTANT_COUNT);
                for &(register, value) in held {
                    let read = after.draws[d].constants.raw(register as usize);
                    if read != Some(value) {
                        return Err(EditProgramsError::Check(format!(
                            "draw {d} reads c[{register}] as {read:?}, not its program's {value:?}"
                        )));
                    }
                }
            }
            chosen[s][d] = true;
        }
        let placement = match first {
            Some(i) => &mut placements[i],
            None => {
                let (address, slot, start_slot) = match &r.program {
                    NewProgram::Fragment(f) => (
                        Some(PlacedAt {
                            location: "local",
                            offset: f.offset,
                        }),
                        None,
                        None,
                    ),
                    NewProgram::Vertex(v) => (None, Some(v.slot), Some(v.start)),
                };
                let (constants_kept, constants) = served.constants[request];
                placements.push(Placement {
                    request,
                    stage,
                    selector: req.selector.to_string(),
                    draws: Vec::new(),
                    replaced: Vec::new(),
                    hash,
                    address,
                    slot,
                    start_slot,
                    variants: 0,
                    constants,
                    constants_kept,
                    runs: 0,
                    commands_added: 0,
                    vertex_constants: match &r.program {
                        NewProgram::Vertex(v) => v.constants.iter().map(|c| c.0).collect(),
                        NewProgram::Fragment(_) => Vec::new(),
                    },
                    constants_not_restored: Vec::new(),
                });
                placements.last_mut().expect("just pushed")
            }
        };
        placement.draws.extend(&rep.draws);
        placement.variants += 1;
        placement.runs += rep.runs;
        placement.commands_added += rep.commands_added;
        for &c in &rep.constants_not_restored {
            if !placement.constants_not_restored.contains(&c) {
                placement.constants_not_restored.push(c);
            }
        }
    }
    for p in &mut placements {
        p.draws.sort_unstable();
        for &d in &p.draws {
            let h = hash_of(frame, d, p.stage).map_or_else(|| "unread".to_string(), hex);
            if !p.replaced.contains(&h) {
                p.replaced.push(h);
            }
        }
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
