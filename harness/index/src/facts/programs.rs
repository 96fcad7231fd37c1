//! The programs of a frame, each distinct one analysed once: its structural fingerprint
//! (`rsxtrace_verify::matching::Fingerprint`: instructions, opcodes, texture units, inputs,
//! outputs, constants read) and each sampled texture unit's flow class, reach and liveness
//! (fragment: `rsxtrace_verify::probe::textures::program_textures`; vertex, over the program
//! as the interpreter runs it from its start slot:
//! `rsxtrace_verify::probe::vertex_textures::vertex_program_textures`).

use rayon::prelude::*;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_program::container::Stage;
use rsxtrace_program::{fragment, vertex};
use rsxtrace_verify::matching::fingerprint::RELATIVE_CONSTANT;
use rsxtrace_verify::matching::Fingerprint;
use rsxtrace_verify::probe::constant_layout::groups::{group_of, group_reads, Group};
use rsxtrace_verify::probe::constant_layout::reads::constant_reads;
use rsxtrace_verify::probe::textures::{program_textures, Reach, SampledUnit};
use rsxtrace_verify::probe::vertex_textures::vertex_program_textures;
use std::collections::BTreeMap;

/// `"vertex"` or `"fragment"`, as stored in `programs.stage`.
pub fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vertex",
        Stage::Fragment => "fragment",
    }
}

/// A program's content key as stored: 16 lowercase hex digits.
pub fn key_hex(key: u64) -> String {
    format!("{key:016x}")
}

/// One distinct program and what the index records about it.
#[derive(Clone, Debug)]
pub struct ProgramFacts {
    /// Vertex or fragment.
    pub stage: Stage,
    /// Content key (`vp_hash` / `fp_hash`).
    pub key: u64,
    /// The fingerprint, or why the program does not decode.
    pub fingerprint: Result<Fingerprint, String>,
    /// Slots the program occupies (vertex: entry through END; fragment: instructions and
    /// inline constants).
    pub slots: u32,
    /// Fragment: inline-constant slots; vertex: none.
    pub inline_constants: u32,
    /// Each sampled unit with its flow class; `None` when the program does not decode for
    /// the flow analysis (vertex: from memory at its start slot).
    pub sampled: Option<Vec<SampledUnit>>,
    /// False when the flow analysis could not follow every path (fragment: CAL, flow that
    /// does not nest; vertex: a BRA that may be taken, or too many call paths) or did not
    /// run.
    pub flow_complete: bool,
    /// Vertex: its constant reads grouped as `probe constants` groups them (matrix rows and
    /// columns, scalars, vectors); empty for fragment programs and programs that do not
    /// decode.
    pub constant_groups: Vec<Group>,
}

impl ProgramFacts {
    /// Vertex constant registers read, `(register, relative)`: `relative` for `c[A0+n]`,
    /// whose base `n` is given. Empty for fragment programs (no constant registers).
    pub fn constants_read(&self) -> Vec<(u16, bool)> {
        match (&self.fingerprint, self.stage) {
            (Ok(f), Stage::Vertex) => f
                .constants
                .iter()
                .map(|&c| (c & !RELATIVE_CONSTANT, c & RELATIVE_CONSTANT != 0))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The group register `register` (relative for `c[A0+n]`) belongs to, a matrix before a
    /// vector or scalar when it is read both ways.
    pub fn constant_group(&self, register: u16, relative: bool) -> Option<&Group> {
        group_of(&self.constant_groups, register, relative)
    }

    /// Whether the program reads constants relative to the address register.
    pub fn indexed_constants(&self) -> bool {
        self.constants_read().iter().any(|&(_, relative)| relative)
    }

    /// `(unit, instructions sampling it, reach, live)` from the flow analysis; a vertex
    /// program it could not run on gives its fingerprint's TXL units with no flow class.
    pub fn texture_units(&self) -> Vec<(u8, u32, Option<Reach>, Option<bool>)> {
        match (&self.fingerprint, self.stage, &self.sampled) {
            (Ok(_), _, Some(sampled)) => sampled
                .iter()
                .map(|s| (s.unit, s.slots.len() as u32, Some(s.reach), Some(s.live)))
                .collect(),
            (Ok(f), Stage::Vertex, None) => {
                let mut counts: BTreeMap<u8, u32> = BTreeMap::new();
                for &u in &f.texture_units {
                    *counts.entry(u).or_default() += 1;
                }
                counts
                    .into_iter()
                    .map(|(u, n)| (u, n, None, None))
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The programs of `frame`'s draws, each once, in order of first use (vertex before fragment
/// within a draw).
pub fn frame_programs(frame: &Frame) -> Vec<ProgramFacts> {
    let mut firsts: Vec<(Stage, u64, &Draw)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for d in &frame.draws {
        if seen.insert((Stage::Vertex, d.vp_hash)) {
            firsts.push((Stage::Vertex, d.vp_hash, d));
        }
        if let Some(fp) = &d.fragment_program {
            if seen.insert((Stage::Fragment, fp.hash)) {
                firsts.push((Stage::Fragment, fp.hash, d));
            }
        }
    }
    firsts
        .par_iter()
        .map(|&(stage, key, draw)| analyse(stage, key, draw))
        .collect()
}

fn analyse(stage: Stage, key: u64, draw: &Draw) -> ProgramFacts {
    match stage {
        Stage::Vertex => {
            let words = draw.vertex_program_words();
            let decoded =
                vertex::decode_from_memory(&draw.vertex_program, draw.vp_start as usize).ok();
            let flow = decoded.as_ref().map(vertex_program_textures);
            let constant_groups = decoded
                .as_ref()
                .map(|p| group_reads(&constant_reads(p)))
                .unwrap_or_default();
            ProgramFacts {
                stage,
                key,
                fingerprint: Fingerprint::of_vertex_words(words).map_err(|e| e.to_string()),
                slots: (words.len() / 4) as u32,
                inline_constants: 0,
                flow_complete: flow.as_ref().is_some_and(|t| t.complete),
                sampled: flow.map(|t| t.sampled),
                constant_groups,
            }
        }
        Stage::Fragment => {
            // Only called for draws whose program was read.
            let fp = draw.fragment_program.as_deref();
            let ucode = fp.map(|p| p.ucode.as_slice()).unwrap_or(&[]);
            let (sampled, flow_complete) = match fragment::decode(ucode) {
                Ok(program) => {
                    let t = program_textures(&program);
                    (Some(t.sampled), t.complete)
                }
                Err(_) => (None, false),
            };
            ProgramFacts {
                stage,
                key,
                fingerprint: Fingerprint::of_fragment_ucode(ucode).map_err(|e| e.to_string()),
                slots: fp.map_or(0, |p| p.slot_count),
                inline_constants: fp.map_or(0, |p| p.constant_slots.len() as u32),
                sampled,
                flow_complete,
                constant_groups: Vec::new(),
            }
        }
    }
}
