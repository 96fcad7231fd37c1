//! Replacing the programs of chosen draws in a capture (RenderDoc's "edit shader and
//! replay", for a whole capture file): the result is a capture in which those draws run other
//! vertex or fragment programs and every other draw runs what it ran before, so that every
//! command (`replay`, `verify`, `report`, `diff`) and RPCS3's own capture replay see the
//! change.
//!
//! How the stream is changed, per run of chosen draws (consecutive BEGIN/END clauses chosen
//! for the same replacement, with no other draw and no write to the registers the replacement
//! sets between them):
//!
//! - **Fragment program**: before the run's first `SET_BEGIN_END(primitive)`,
//!   `SET_SHADER_PROGRAM` points at the new microcode and `SET_SHADER_CONTROL` takes the new
//!   program's control word (when it has one), and `SET_TEX_COORD_CONTROL` the words its
//!   container's loader writes (a PSL1GHT container's); after the run's last END they get
//!   back the values the game had written. A game's write of one of those controls between
//!   two chosen clauses ends a run of a program that sets them. The microcode is a new memory block attached to every
//!   chosen draw's END command, first in its list, where RPCS3 attaches a draw's fragment
//!   program (`capture_draw_memory`, `Capture/rsx_capture.cpp`; rrc-format.md 3.3), at an
//!   address the caller chose in memory the frame does not otherwise use.
//! - **Vertex program**: before the run, `SET_TRANSFORM_PROGRAM_LOAD` and
//!   `SET_TRANSFORM_PROGRAM` upload the new words at the chosen slot (in batches of 32
//!   registers, as RPCS3 records uploads: rrc-format.md 3.2), then `SET_TRANSFORM_PROGRAM_START`
//!   (its start slot) and, when given, the attribute input and output masks (the input mask with the
//!   attributes the program reads added) and the constants the program's container uploads
//!   with it (`SET_TRANSFORM_CONSTANT_LOAD`, `SET_TRANSFORM_CONSTANT`: a PSL1GHT container's
//!   literals); after the run the overwritten slots get their old words back (the frame's
//!   program memory at the run's last draw), those constants their old values where the
//!   frame knows them, and the load pointers, start slot and masks their old values. A game's
//!   write of a constant between two chosen clauses ends a run of a program with constants.
//!
//! A packet of several arguments that holds a chosen clause's BEGIN or END becomes one
//! single-argument command per argument, so that commands can go before or after it.

use crate::frame::methods::reg;
use crate::frame::stream::packets;
use crate::frame::transform::{TransformState, CONSTANT_COUNT};
use crate::frame::Frame;
use crate::rrc::{Capture, Entry, Location, MemoryBlock, ReplayCommand};
use std::collections::{BTreeMap, HashSet};

/// Why a capture cannot be edited as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// Two replacements of one stage chose the same draw.
    #[error("draw {draw}: both replacement {first} and replacement {second} replace its {stage} program")]
    ChosenTwice {
        /// The draw.
        draw: usize,
        /// Which stage.
        stage: &'static str,
        /// The replacements, counted from 0 in the order given.
        first: usize,
        /// See `first`.
        second: usize,
    },
    /// A draw number past the frame.
    #[error("draw {draw}: the frame has {draws} draws")]
    NoSuchDraw {
        /// The draw asked for.
        draw: usize,
        /// Draws in the frame.
        draws: usize,
    },
    /// The vertex program does not fit the program memory at its slot.
    #[error("the vertex program of {slots} slots does not fit at slot {slot} of the {memory}-slot program memory")]
    VertexProgramTooLong {
        /// Slots of the program.
        slots: usize,
        /// Where it was to be loaded.
        slot: u32,
        /// Slots of program memory.
        memory: usize,
    },
    /// An empty program.
    #[error("replacement {index}: the program is empty")]
    Empty {
        /// The replacement, counted from 0.
        index: usize,
    },
}

/// A new fragment program and where it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentSwap {
    /// Its microcode as it lies in guest memory.
    pub ucode: Vec<u8>,
    /// Where the microcode is placed (the caller checks the frame does not use those bytes).
    pub location: Location,
    /// Byte offset in that memory.
    pub offset: u32,
    /// `SET_SHADER_CONTROL` for it, or `None` to keep the game's.
    pub control: Option<u32>,
    /// `SET_TEX_COORD_CONTROL` words for it, `(coordinate 0..=9, value)` (a PSL1GHT
    /// container's loader writes them); the others keep the game's.
    pub texcoord_controls: Vec<(u8, u32)>,
}

/// A new vertex program and where it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexSwap {
    /// Its words (four per slot), as `SET_TRANSFORM_PROGRAM` writes them.
    pub words: Vec<u32>,
    /// The slot it is loaded at.
    pub slot: u32,
    /// The slot it starts from (its load slot unless a subroutine lies below its entry).
    pub start: u32,
    /// `SET_VERTEX_ATTRIB_INPUT_MASK` for it, or `None` to keep the game's.
    pub input_mask: Option<u32>,
    /// Attributes it reads (bit n = `v[n]`), added to the input mask of each run (given or
    /// the game's), so that the attributes a raw program reads are fetched.
    pub input_reads: u32,
    /// `SET_VERTEX_ATTRIB_OUTPUT_MASK` for it, or `None` to keep the game's.
    pub output_mask: Option<u32>,
    /// Constants uploaded with it, `(register, x y z w bits)` (a container's literals).
    pub constants: Vec<(u32, [u32; 4])>,
}

/// The new program of one replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NewProgram {
    /// A fragment program.
    Fragment(FragmentSwap),
    /// A vertex program.
    Vertex(VertexSwap),
}

impl NewProgram {
    fn stage(&self) -> &'static str {
        match self {
            NewProgram::Fragment(_) => "fragment",
            NewProgram::Vertex(_) => "vertex",
        }
    }
}

/// One replacement: a program and the draws that run it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// The new program.
    pub program: NewProgram,
    /// The draws (the other parts of their BEGIN/END are replaced with them).
    pub draws: Vec<usize>,
}

/// What one replacement did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReplacementReport {
    /// `vertex` or `fragment`.
    pub stage: &'static str,
    /// The draws that run the new program (all parts of the chosen BEGIN/ENDs), in order.
    pub draws: Vec<usize>,
    /// Runs of consecutive draws set up once and restored once.
    pub runs: usize,
    /// Commands added for it.
    pub commands_added: usize,
    /// Constant registers it uploads whose value before it the frame does not know: after
    /// its runs they keep its values.
    pub constants_not_restored: Vec<u32>,
}

/// What editing did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EditReport {
    /// Per replacement, in the order given.
    pub replacements: Vec<ReplacementReport>,
    /// Commands before and after.
    pub commands: (usize, usize),
}

/// A single-argument method write as RPCS3 records one (rrc-format.md 3.2).
fn write(r: u16, value: u32) -> ReplayCommand {
    ReplayCommand {
        first: (1 << 18) | (u32::from(r) << 2),
        second: value,
        ..ReplayCommand::default()
    }
}

/// `SET_TRANSFORM_PROGRAM` uploads of `words`, in batches of 32 registers from the window's
/// base, as RPCS3 records them (rrc-format.md 3.2).
fn upload(words: &[u32]) -> Vec<ReplayCommand> {
    upload_to(reg::SET_TRANSFORM_PROGRAM, words)
}

/// `SET_TRANSFORM_CONSTANT_LOAD(register)` and the four words of constant `register`.
fn constant(register: u32, value: &[u32; 4]) -> Vec<ReplayCommand> {
    let mut out = vec![write(reg::SET_TRANSFORM_CONSTANT_LOAD, register)];
    out.extend(upload_to(reg::SET_TRANSFORM_CONSTANT, value));
    out
}

/// Writes of `words` to the 32-register window at `base`, in batches from its base.
fn upload_to(base: u16, words: &[u32]) -> Vec<ReplayCommand> {
    let mut out = Vec::with_capacity(words.len());
    for batch in words.chunks(32) {
        for (i, &w) in batch.iter().enumerate() {
            out.push(ReplayCommand {
                first: if i == 0 {
                    ((batch.len() as u32) << 18) | (u32::from(base) << 2)
                } else {
                    0
                },
                second: w,
                ..ReplayCommand::default()
            });
        }
    }
    out
}

/// One BEGIN/END of the frame: its commands and its draws.
struct Clause {
    begin: usize,
    end: usize,
    draws: Vec<usize>,
}

/// The frame's clauses in command order, and each draw's clause.
fn clauses(frame: &Frame) -> (Vec<Clause>, Vec<usize>) {
    let mut out: Vec<Clause> = Vec::new();
    let mut of_draw = Vec::with_capacity(frame.draws.len());
    for d in &frame.draws {
        match out.last_mut() {
            Some(c) if c.begin == d.begin_command => {
                c.end = c.end.max(d.end_command);
                c.draws.push(d.index);
            }
            _ => out.push(Clause {
                begin: d.begin_command,
                end: d.end_command,
                draws: vec![d.index],
            }),
        }
        of_draw.push(out.len() - 1);
    }
    (out, of_draw)
}

/// What goes around the commands of the edited stream.
#[derive(Default)]
struct Splice {
    before: BTreeMap<usize, Vec<ReplayCommand>>,
    after: BTreeMap<usize, Vec<ReplayCommand>>,
    /// Blocks attached first to a command.
    attach: BTreeMap<usize, Vec<u64>>,
}

/// `capture` (decoded as `frame`) with the programs of the chosen draws replaced (see the
/// module documentation), and what was done.
pub fn replace_programs(
    capture: &Capture,
    frame: &Frame,
    replacements: &[Replacement],
) -> Result<(Capture, EditReport), EditError> {
    let (clauses, clause_of) = clauses(frame);
    // Which replacement each clause takes, per stage (0 fragment, 1 vertex).
    let mut chosen: [Vec<Option<usize>>; 2] =
        [vec![None; clauses.len()], vec![None; clauses.len()]];
    for (i, r) in replacements.iter().enumerate() {
        let stage = usize::from(matches!(r.program, NewProgram::Vertex(_)));
        let empty = match &r.program {
            NewProgram::Fragment(f) => f.ucode.is_empty(),
            NewProgram::Vertex(v) => v.words.is_empty(),
        };
        if empty {
            return Err(EditError::Empty { index: i });
        }
        for &d in &r.draws {
            let c = *clause_of.get(d).ok_or(EditError::NoSuchDraw {
                draw: d,
                draws: frame.draws.len(),
            })?;
            match chosen[stage][c] {
                Some(first) if first != i => {
                    return Err(EditError::ChosenTwice {
                        draw: d,
                        stage: r.program.stage(),
                        first,
                        second: i,
                    })
                }
                _ => chosen[stage][c] = Some(i),
            }
        }
    }
    // Register values at each clause's BEGIN, and where the registers a replacement sets, or
    // any BEGIN, are written (to end runs).
    let mut regs = capture.reg_state.registers.clone();
    let mut transform = TransformState::new(&capture.reg_state.transform_program, None);
    let mut at_begin: BTreeMap<usize, [u32; SAVED.len()]> = BTreeMap::new();
    let wanted: HashSet<usize> = (0..clauses.len())
        .filter(|&c| chosen[0][c].is_some() || chosen[1][c].is_some())
        .map(|c| clauses[c].begin)
        .collect();
    // Per stage, the command indices (in order) of writes to the registers it sets; then
    // those of constant writes and of texture coordinate control writes (which end the runs
    // of a replacement that sets those too).
    let mut writes: [Vec<usize>; 4] = Default::default();
    let stage_sets = [
        fragment_sets,
        vertex_sets,
        constant_sets,
        texcoord_control_sets,
    ];
    for packet in packets(&capture.commands).flatten() {
        let first = packet.reg;
        if (reg::SET_TRANSFORM_PROGRAM..reg::SET_TRANSFORM_PROGRAM + 32).contains(&first) {
            let mut load = regs[reg::SET_TRANSFORM_PROGRAM_LOAD as usize];
            transform.upload_program(&packet, &mut load);
            regs[reg::SET_TRANSFORM_PROGRAM_LOAD as usize] = load;
        }
        for c in packet.calls() {
            if wanted.contains(&c.command_index) && c.reg == reg::SET_BEGIN_END {
                at_begin.insert(c.command_index, SAVED.map(|r| regs[r as usize]));
            }
            for (w, sets) in writes.iter_mut().zip(stage_sets) {
                if sets(c.reg) {
                    w.push(c.command_index);
                }
            }
            if !(reg::SET_TRANSFORM_PROGRAM..reg::SET_TRANSFORM_PROGRAM + 32).contains(&c.reg) {
                if let Some(x) = regs.get_mut(c.reg as usize) {
                    *x = c.value;
                }
            }
        }
    }
    let mut splice = Splice::default();
    let mut block_ids: HashSet<u64> = capture.blocks.iter().map(|b| b.id).collect();
    let mut data_ids: HashSet<u64> = capture.data.iter().map(|d| d.id).collect();
    let (mut blocks, mut data) = (capture.blocks.clone(), capture.data.clone());
    let mut reports = Vec::with_capacity(replacements.len());
    for (i, r) in replacements.iter().enumerate() {
        let stage = usize::from(matches!(r.program, NewProgram::Vertex(_)));
        let mine: Vec<usize> = (0..clauses.len())
            .filter(|&c| chosen[stage][c] == Some(i))
            .collect();
        // Runs: a clause joins the run before it when nothing between them begins a draw or
        // writes a register this replacement sets.
        // What else it sets, whose writes by the game end its runs too: constants, texture
        // coordinate controls.
        let extra = match &r.program {
            NewProgram::Vertex(v) if !v.constants.is_empty() => Some(2),
            NewProgram::Fragment(f) if !f.texcoord_controls.is_empty() => Some(3),
            _ => None,
        };
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &c in &mine {
            let written_between = |w: &[usize], last: usize| {
                let after_end = w.partition_point(|&at| at <= clauses[last].end);
                w.get(after_end).is_some_and(|&at| at < clauses[c].begin)
            };
            let joins = runs.last().is_some_and(|&(_, last)| {
                last + 1 == c
                    && !written_between(&writes[stage], last)
                    && !extra.is_some_and(|w| written_between(&writes[w], last))
            });
            match runs.last_mut() {
                Some(run) if joins => run.1 = c,
                _ => runs.push((c, c)),
            }
        }
        let block = if let NewProgram::Fragment(f) = &r.program {
            let (id, data_id) = (fresh(&mut block_ids), fresh(&mut data_ids));
            data.push(Entry {
                id: data_id,
                value: bytes::Bytes::from(f.ucode.clone()),
            });
            blocks.push(Entry {
                id,
                value: MemoryBlock {
                    offset: f.offset,
                    location: location_raw(f.location),
                    data_id,
                },
            });
            Some(id)
        } else {
            None
        };
        let mut added = 0usize;
        let mut not_restored: Vec<u32> = Vec::new();
        for &(first, last) in &runs {
            let (begin, end) = (clauses[first].begin, clauses[last].end);
            let old = at_begin.get(&begin);
            let get = |r: u16| {
                let i = SAVED.iter().position(|&s| s == r).unwrap_or(0);
                old.map_or(regs[r as usize], |o| o[i])
            };
            let (setup, restore) = match &r.program {
                NewProgram::Fragment(f) => {
                    let mut setup = vec![write(
                        reg::SET_SHADER_PROGRAM,
                        f.offset | (location_raw(f.location) + 1),
                    )];
                    let mut restore =
                        vec![write(reg::SET_SHADER_PROGRAM, get(reg::SET_SHADER_PROGRAM))];
                    if let Some(control) = f.control {
                        setup.push(write(reg::SET_SHADER_CONTROL, control));
                        restore.push(write(reg::SET_SHADER_CONTROL, get(reg::SET_SHADER_CONTROL)));
                    }
                    for &(n, value) in f.texcoord_controls.iter().filter(|c| c.0 < 10) {
                        let r = reg::SET_TEX_COORD_CONTROL + u16::from(n);
                        setup.push(write(r, value));
                        restore.push(write(r, get(r)));
                    }
                    (setup, restore)
                }
                NewProgram::Vertex(v) => {
                    let memory =
                        &frame.draws[*clauses[last].draws.last().unwrap_or(&0)].vertex_program;
                    let slots = memory.len() / 4;
                    let at = v.slot as usize * 4;
                    let Some(old_words) = memory.get(at..at + v.words.len()) else {
                        return Err(EditError::VertexProgramTooLong {
                            slots: v.words.len().div_ceil(4),
                            slot: v.slot,
                            memory: slots,
                        });
                    };
                    let mut setup = vec![write(reg::SET_TRANSFORM_PROGRAM_LOAD, v.slot)];
                    setup.extend(upload(&v.words));
                    setup.push(write(reg::SET_TRANSFORM_PROGRAM_START, v.start));
                    let mut restore = vec![write(reg::SET_TRANSFORM_PROGRAM_LOAD, v.slot)];
                    restore.extend(upload(old_words));
                    // The container's constants, and back the values the frame had at the
                    // run's last draw where it knows them.
                    let had = &frame.draws[*clauses[last].draws.last().unwrap_or(&0)].constants;
                    for (register, value) in &v.constants {
                        setup.extend(constant(*register, value));
                        // Past the 468 registers the write is dropped (the frame model
                        // counts it): nothing to put back.
                        if *register as usize >= CONSTANT_COUNT {
                            continue;
                        }
                        match had.raw(*register as usize) {
                            Some(old) => restore.extend(constant(*register, &old)),
                            None => not_restored.push(*register),
                        }
                    }
                    if !v.constants.is_empty() {
                        restore.push(write(
                            reg::SET_TRANSFORM_CONSTANT_LOAD,
                            get(reg::SET_TRANSFORM_CONSTANT_LOAD),
                        ));
                    }
                    restore.push(write(
                        reg::SET_TRANSFORM_PROGRAM_START,
                        get(reg::SET_TRANSFORM_PROGRAM_START),
                    ));
                    // The input mask: the one given, or the game's; with the attributes the
                    // program reads added either way (a raw program states no mask).
                    let game_inputs = get(reg::SET_VERTEX_ATTRIB_INPUT_MASK);
                    let inputs = v.input_mask.unwrap_or(game_inputs) | v.input_reads;
                    let masks = [
                        (
                            (inputs != game_inputs).then_some(inputs),
                            reg::SET_VERTEX_ATTRIB_INPUT_MASK,
                        ),
                        (v.output_mask, reg::SET_VERTEX_ATTRIB_OUTPUT_MASK),
                    ];
                    for (mask, r2) in masks {
                        if let Some(m) = mask {
                            setup.push(write(r2, m));
                            restore.push(write(r2, get(r2)));
                        }
                    }
                    restore.push(write(
                        reg::SET_TRANSFORM_PROGRAM_LOAD,
                        get(reg::SET_TRANSFORM_PROGRAM_LOAD),
                    ));
                    (setup, restore)
                }
            };
            added += setup.len() + restore.len();
            splice.before.entry(begin).or_default().extend(setup);
            // Replacements of both stages of one run: set up and restored in the order given
            // (they set different registers).
            splice.after.entry(end).or_default().extend(restore);
            if let Some(id) = block {
                for clause in &clauses[first..=last] {
                    splice.attach.entry(clause.end).or_default().push(id);
                }
            }
        }
        let mut draws: Vec<usize> = mine
            .iter()
            .flat_map(|&c| clauses[c].draws.iter().copied())
            .collect();
        draws.sort_unstable();
        reports.push(ReplacementReport {
            stage: r.program.stage(),
            draws,
            runs: runs.len(),
            commands_added: added,
            constants_not_restored: {
                not_restored.sort_unstable();
                not_restored.dedup();
                not_restored
            },
        });
    }
    let commands = splice_commands(capture, &splice);
    let report = EditReport {
        replacements: reports,
        commands: (capture.commands.len(), commands.len()),
    };
    let edited = Capture {
        provenance: capture.provenance.clone(),
        tiles: capture.tiles.clone(),
        blocks,
        data,
        display_buffers: capture.display_buffers.clone(),
        commands,
        reg_state: capture.reg_state.clone(),
    };
    Ok((edited, report))
}

/// The registers whose values at a chosen BEGIN a run restores.
const SAVED: [u16; 17] = [
    reg::SET_SHADER_PROGRAM,
    reg::SET_SHADER_CONTROL,
    reg::SET_TRANSFORM_PROGRAM_LOAD,
    reg::SET_TRANSFORM_PROGRAM_START,
    reg::SET_VERTEX_ATTRIB_INPUT_MASK,
    reg::SET_VERTEX_ATTRIB_OUTPUT_MASK,
    reg::SET_TRANSFORM_CONSTANT_LOAD,
    reg::SET_TEX_COORD_CONTROL,
    reg::SET_TEX_COORD_CONTROL + 1,
    reg::SET_TEX_COORD_CONTROL + 2,
    reg::SET_TEX_COORD_CONTROL + 3,
    reg::SET_TEX_COORD_CONTROL + 4,
    reg::SET_TEX_COORD_CONTROL + 5,
    reg::SET_TEX_COORD_CONTROL + 6,
    reg::SET_TEX_COORD_CONTROL + 7,
    reg::SET_TEX_COORD_CONTROL + 8,
    reg::SET_TEX_COORD_CONTROL + 9,
];

/// The registers a fragment replacement sets (a game's write to one ends a run).
fn fragment_sets(r: u16) -> bool {
    r == reg::SET_SHADER_PROGRAM || r == reg::SET_SHADER_CONTROL
}

/// The texture coordinate controls (a fragment replacement that has them sets them).
fn texcoord_control_sets(r: u16) -> bool {
    (reg::SET_TEX_COORD_CONTROL..reg::SET_TEX_COORD_CONTROL + 10).contains(&r)
}

/// The registers a vertex replacement sets.
fn vertex_sets(r: u16) -> bool {
    r == reg::SET_TRANSFORM_PROGRAM_LOAD
        || r == reg::SET_TRANSFORM_PROGRAM_START
        || r == reg::SET_VERTEX_ATTRIB_INPUT_MASK
        || r == reg::SET_VERTEX_ATTRIB_OUTPUT_MASK
        || (reg::SET_TRANSFORM_PROGRAM..reg::SET_TRANSFORM_PROGRAM + 32).contains(&r)
}

/// The constant registers (a vertex replacement with constants sets them).
fn constant_sets(r: u16) -> bool {
    r == reg::SET_TRANSFORM_CONSTANT_LOAD
        || (reg::SET_TRANSFORM_CONSTANT..reg::SET_TRANSFORM_CONSTANT + 32).contains(&r)
}

/// An id no entry of `used` has (one past the largest, or the first free one after a
/// capture's ids reached `u64::MAX`), now taken.
fn fresh(used: &mut HashSet<u64>) -> u64 {
    let mut id = used.iter().max().map_or(1, |m| m.wrapping_add(1));
    while used.contains(&id) {
        id = id.wrapping_add(1);
    }
    used.insert(id);
    id
}

/// The raw location a memory block stores.
fn location_raw(location: Location) -> u32 {
    match location {
        Location::Local => 0,
        Location::Main => 1,
    }
}

/// The commands with the splice applied; a packet of several arguments that something goes
/// before or after becomes single-argument commands.
fn splice_commands(capture: &Capture, splice: &Splice) -> Vec<ReplayCommand> {
    let touched = |i: usize| splice.before.contains_key(&i) || splice.after.contains_key(&i);
    // Per command entry in a packet to split: the register its argument goes to.
    let mut single: BTreeMap<usize, u16> = BTreeMap::new();
    for packet in packets(&capture.commands).flatten() {
        let range = packet.command_index..packet.command_index + packet.len();
        if packet.len() > 1 && range.clone().any(touched) {
            for c in packet.calls() {
                single.insert(c.command_index, c.reg);
            }
        }
    }
    let added: usize = splice
        .before
        .values()
        .chain(splice.after.values())
        .map(Vec::len)
        .sum();
    let mut out = Vec::with_capacity(capture.commands.len() + added);
    for (i, c) in capture.commands.iter().enumerate() {
        if let Some(setup) = splice.before.get(&i) {
            out.extend(setup.iter().cloned());
        }
        let mut kept = c.clone();
        if let Some(&r) = single.get(&i) {
            kept.first = (1 << 18) | (u32::from(r) << 2);
        }
        if let Some(ids) = splice.attach.get(&i) {
            let mut memory = ids.clone();
            memory.extend(kept.memory.iter().copied().filter(|m| !ids.contains(m)));
            kept.memory = memory;
        }
        out.push(kept);
        if let Some(restore) = splice.after.get(&i) {
            out.extend(restore.iter().cloned());
        }
    }
    out
}
