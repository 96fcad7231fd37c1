//! The unique programs of a [`Discovery`]: one [`Entry`] per (stage, content key), with every
//! place the program was found and the state it is checked with.

use rsxtrace_program::container::Stage as ProgramStage;
use rsxtrace_program::source::{Discovery, Note, Origin, PipelineState};
use serde::Serialize;
use std::collections::BTreeMap;

use crate::divergence::Stage;

/// RPCS3's default fragment control for a program with no recorded state: 32-bit colour
/// exports (`rpcs3-shader-cache.md` 5.1: ctrl = 0x40 unless outputFromH0).
pub const DEFAULT_FRAGMENT_CONTROL: u32 = 0x40;
/// The bits of RPCS3's `fp_ctrl` that are `SHADER_CONTROL` bits (0x40 32-bit exports, 0x0E
/// depth export, 0x80 KIL); the others are RPCS3's own flags (`rpcs3-shader-cache.md` 3.2).
pub const FP_CTRL_SHADER_BITS: u32 = 0xCE;

/// Where the state a program is checked with came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StateSource {
    /// An RPCS3 pipeline file.
    Pipeline,
    /// The program's container (its control word).
    Container,
    /// No state was recorded: documented defaults.
    Default,
}

/// One unique program.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Vertex or fragment.
    pub stage: Stage,
    /// Content key (`rsxtrace_program::source` module docs).
    pub key: u64,
    /// Canonical microcode (`FoundProgram::ucode`).
    pub ucode: Vec<u8>,
    /// The slot of `ucode` a vertex program starts at (`FoundProgram::entry`); 0 for
    /// fragment programs.
    pub entry: u32,
    /// Every place it was found, in discovery order.
    pub origins: Vec<Origin>,
    /// The first pipeline state recorded with it.
    pub state: Option<PipelineState>,
    /// The fragment control word it is checked with (0 for vertex programs).
    pub control: u32,
    /// Where that state came from.
    pub state_source: StateSource,
    /// What the sources say about how it was found (each note once).
    pub notes: Vec<Note>,
    /// The container formats it was found in, each once (`Container::format_name`: a
    /// CgBinaryProgram, a PSL1GHT layout); none for raw cache files.
    pub formats: Vec<&'static str>,
}

impl Entry {
    /// A program found nowhere yet, with no state: checked with the documented defaults.
    pub fn new(stage: Stage, key: u64, ucode: Vec<u8>, entry: u32) -> Entry {
        Entry {
            stage,
            key,
            ucode,
            entry,
            origins: Vec::new(),
            state: None,
            control: 0,
            state_source: StateSource::Default,
            notes: Vec::new(),
            formats: Vec::new(),
        }
    }

    /// The key as 16 lowercase hex digits (the frame model's `vp_hash`/`fp_hash` text).
    pub fn key_hex(&self) -> String {
        format!("{:016x}", self.key)
    }

    /// A short name: the file name of the first loose container, else the first
    /// executable's file name with the offset, else the RPCS3 name, else the key.
    pub fn name(&self) -> String {
        let file = |p: &std::path::Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let loose = self.origins.iter().find_map(|o| match o {
            Origin::Loose { path, offset: 0 } => Some(file(path)),
            _ => None,
        });
        loose
            .or_else(|| {
                self.origins.iter().find_map(|o| match o {
                    Origin::Executable {
                        path, file_offset, ..
                    } => Some(format!("{}@{file_offset:#x}", file(path))),
                    Origin::Loose { path, offset } => Some(format!("{}@{offset:#x}", file(path))),
                    Origin::Rpcs3Cache { .. } => None,
                })
            })
            .or_else(|| {
                self.origins.iter().find_map(|o| match o {
                    Origin::Rpcs3Cache { name, .. } => Some(name.clone()),
                    _ => None,
                })
            })
            .unwrap_or_else(|| self.key_hex())
    }
}

/// The unique programs of `discovery`, vertex programs first, each stage by key.
pub fn catalog(discovery: &Discovery) -> Vec<Entry> {
    let mut entries: BTreeMap<(Stage, u64), Entry> = BTreeMap::new();
    for p in &discovery.programs {
        let stage = match p.stage {
            ProgramStage::Vertex => Stage::Vertex,
            ProgramStage::Fragment => Stage::Fragment,
        };
        let entry = entries
            .entry((stage, p.key))
            .or_insert_with(|| Entry::new(stage, p.key, p.ucode.clone(), p.entry));
        entry.origins.push(p.origin.clone());
        if let Some(format) = p.container.as_ref().map(|c| c.format_name()) {
            if !entry.formats.contains(&format) {
                entry.formats.push(format);
            }
        }
        for n in &p.notes {
            if !entry.notes.contains(n) {
                entry.notes.push(n.clone());
            }
        }
        if entry.state.is_none() {
            entry.state = p.state.clone();
        }
        if stage == Stage::Fragment && entry.state_source != StateSource::Pipeline {
            if let Some(s) = &p.state {
                entry.control = s.fp_ctrl & FP_CTRL_SHADER_BITS;
                entry.state_source = StateSource::Pipeline;
            } else if let Some(c) = p.container.as_ref().and_then(|c| c.control_word()) {
                if entry.state_source == StateSource::Default {
                    entry.control = c;
                    entry.state_source = StateSource::Container;
                }
            }
        }
        if stage == Stage::Vertex && p.state.is_some() {
            entry.state_source = StateSource::Pipeline;
        } else if stage == Stage::Vertex
            && p.container.is_some()
            && entry.state_source == StateSource::Default
        {
            entry.state_source = StateSource::Container;
        }
    }
    let mut out: Vec<Entry> = entries.into_values().collect();
    for e in &mut out {
        if e.stage == Stage::Fragment && e.state_source == StateSource::Default {
            e.control = DEFAULT_FRAGMENT_CONTROL;
        }
    }
    out
}
