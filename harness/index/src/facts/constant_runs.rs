//! Transform constants as runs: for each register `c[0]`..`c[467]`, the stretches of
//! consecutive draws over which its value, the command that last wrote it and whether the
//! draw's vertex program reads it stay the same.
//!
//! A frame changes a few registers between draws (a matrix or two), and a change of vertex
//! program changes the reads of the registers either program reads, so a capture of D draws
//! has about (known registers) + (uploads) + (reads that change) runs instead of up to 468 · D
//! per-draw rows: the database stores the runs (`constant_runs`) and shows them per draw
//! through the `draw_constants` view, a plain range join. A run whose register is neither
//! known nor read holds no row of the view and is not kept. Draws that share the frame
//! model's constants (`Arc::ptr_eq`) and vertex program are passed over without comparing
//! registers; with the same program, only the registers of the constant chunks they do not
//! share are compared (`TransformConstants::may_differ`).

use super::programs::ProgramFacts;
use rsxtrace_capture::frame::{Draw, Frame, CONSTANT_COUNT};
use rsxtrace_program::container::Stage;
use std::collections::HashMap;
use std::sync::Arc;

/// One register's state over draws `first_draw..=last_draw`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantRun {
    /// Register, 0..468.
    pub register: u16,
    /// First draw of the run.
    pub first_draw: usize,
    /// Last draw of the run (included).
    pub last_draw: usize,
    /// The raw bit patterns, when the capture holds the value.
    pub raw: Option<[u32; 4]>,
    /// The command that last wrote it during the frame; `None` when no command did.
    pub written_at: Option<usize>,
    /// The draws' vertex program reads `c[register]`.
    pub read: bool,
    /// The draws' vertex program reads `c[A0 + register]`.
    pub read_relative: bool,
    /// At `first_draw`, it was written after the previous draw's END (for draw 0: anywhere
    /// before it). Later draws of the run see the same write, made before their previous draw.
    pub set_for_first_draw: bool,
}

impl ConstantRun {
    /// The value as floats.
    pub fn value(&self) -> Option<[f32; 4]> {
        self.raw.map(|v| v.map(f32::from_bits))
    }

    /// Whether the run holds rows of the view: known or read.
    fn shown(&self) -> bool {
        self.raw.is_some() || self.read || self.read_relative
    }
}

/// Which registers a vertex program reads, directly and relative to A0.
struct Reads {
    direct: Vec<bool>,
    relative: Vec<bool>,
}

impl Reads {
    fn of(program: Option<&ProgramFacts>) -> Reads {
        let mut reads = Reads {
            direct: vec![false; CONSTANT_COUNT],
            relative: vec![false; CONSTANT_COUNT],
        };
        for (register, relative) in program
            .map(ProgramFacts::constants_read)
            .unwrap_or_default()
        {
            let flags = if relative {
                &mut reads.relative
            } else {
                &mut reads.direct
            };
            if let Some(f) = flags.get_mut(usize::from(register)) {
                *f = true;
            }
        }
        reads
    }
}

/// What decides a run.
type State = (Option<[u32; 4]>, Option<usize>, bool, bool);

fn state(draw: &Draw, reads: &Reads, register: usize) -> State {
    (
        draw.constants.raw(register),
        draw.constants.written_at(register),
        reads.direct[register],
        reads.relative[register],
    )
}

/// Every register's runs over the frame's draws that are known or read, ordered by register
/// then first draw. `programs` are the frame's programs (their constant reads).
pub fn constant_runs(frame: &Frame, programs: &[ProgramFacts]) -> Vec<ConstantRun> {
    let Some(first) = frame.draws.first() else {
        return Vec::new();
    };
    let by_key: HashMap<u64, &ProgramFacts> = programs
        .iter()
        .filter(|p| p.stage == Stage::Vertex)
        .map(|p| (p.key, p))
        .collect();
    let mut reads_of: HashMap<u64, Reads> = HashMap::new();
    let start = |register: usize, draw: &Draw, reads: &Reads, previous_end: Option<usize>| {
        let (raw, written_at, read, read_relative) = state(draw, reads, register);
        ConstantRun {
            register: register as u16,
            first_draw: draw.index,
            last_draw: draw.index,
            raw,
            written_at,
            read,
            read_relative,
            set_for_first_draw: written_at.is_some_and(|w| previous_end.is_none_or(|p| w > p)),
        }
    };
    let mut open: Vec<ConstantRun> = {
        let r = reads_of
            .entry(first.vp_hash)
            .or_insert_with(|| Reads::of(by_key.get(&first.vp_hash).copied()));
        (0..CONSTANT_COUNT)
            .map(|register| start(register, first, r, None))
            .collect()
    };
    let mut closed: Vec<Vec<ConstantRun>> = vec![Vec::new(); CONSTANT_COUNT];
    for pair in frame.draws.windows(2) {
        let (previous, draw) = (&pair[0], &pair[1]);
        if Arc::ptr_eq(&previous.constants, &draw.constants) && previous.vp_hash == draw.vp_hash {
            continue;
        }
        let r = reads_of
            .entry(draw.vp_hash)
            .or_insert_with(|| Reads::of(by_key.get(&draw.vp_hash).copied()));
        // With the same program, only registers of the constants' chunks the two draws do
        // not share can change.
        let whole = std::iter::once(0..CONSTANT_COUNT);
        let registers: Vec<std::ops::Range<usize>> = if previous.vp_hash == draw.vp_hash {
            draw.constants.may_differ(&previous.constants).collect()
        } else {
            whole.collect()
        };
        for register in registers.into_iter().flatten() {
            let Some(run) = open.get_mut(register) else {
                continue;
            };
            let now = state(draw, r, register);
            if now != (run.raw, run.written_at, run.read, run.read_relative) {
                let next = start(register, draw, r, Some(previous.end_command));
                let mut ended = std::mem::replace(run, next);
                ended.last_draw = previous.index;
                if ended.shown() {
                    closed[register].push(ended);
                }
            }
        }
    }
    let last_draw = frame.draws.last().map_or(0, |d| d.index);
    closed
        .into_iter()
        .zip(open)
        .flat_map(|(mut runs, mut last)| {
            last.last_draw = last_draw;
            if last.shown() {
                runs.push(last);
            }
            runs
        })
        .collect()
}
