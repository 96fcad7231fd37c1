//! Everything the index records about one capture, computed from the layers that decode it
//! and held as plain data until it is written: programs (each distinct one once), per draw the
//! pass class, inline constants, texture units and memory uses, the distinct
//! textures and the memory blocks. Draws are analysed in parallel (rayon); nothing here
//! touches the database.
//!
//! - [`pass`]: the pass class of a draw.
//! - [`programs`]: program fingerprints and texture flow classes.
//! - [`constant_runs`]: transform constants as runs of draws with the same value.

pub mod constant_runs;
pub mod pass;
pub mod programs;

use crate::footprint::{block_uses, draw_uses, BlockUse};
use pass::Pass;
use programs::ProgramFacts;
use rayon::prelude::*;
use rsxtrace_capture::fetch::Span;
use rsxtrace_capture::frame::state::Texture;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_capture::rrc::Capture;
use rsxtrace_program::container::Stage;
use rsxtrace_replay::texture::cache::content_key;
use rsxtrace_verify::probe::textures::Reach;
use rsxtrace_verify::probe::uniforms::read_slot;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use xxhash_rust::xxh3::xxh3_64;

/// One inline constant of a draw's fragment program.
#[derive(Clone, Debug, PartialEq)]
pub struct FragmentConstantFacts {
    /// Slot, counted from the program's first instruction.
    pub slot: u32,
    /// The four floats.
    pub value: [f32; 4],
}

/// One enabled texture unit of a draw.
#[derive(Clone, Debug)]
pub struct UnitFacts {
    /// Fragment or vertex unit.
    pub stage: Stage,
    /// Unit number.
    pub unit: u8,
    /// The unit's state.
    pub texture: Texture,
    /// Its content key (`textures.key`), when it could be computed.
    pub key: Option<u128>,
    /// Why there is no key.
    pub problem: Option<String>,
    /// The program's sampling of this unit: `(reach, live)`; `None` when the program does not
    /// sample it (or is unknown, see `program_known`).
    pub sampled: Option<(Reach, bool)>,
    /// Whether the program's texture use is known (decoded, fragment stage).
    pub program_known: bool,
    /// Its spans (for the key and the texture's size).
    spans: Vec<Span>,
    /// The blocks holding each span, when each is held by one.
    sources: Option<Vec<(u64, u32)>>,
}

/// Everything about one draw besides the frame model's own state.
#[derive(Clone, Debug)]
pub struct DrawFacts {
    /// Pass class.
    pub pass: Pass,
    /// Fragment inline constants.
    pub fragment_constants: Vec<FragmentConstantFacts>,
    /// Enabled texture units.
    pub units: Vec<UnitFacts>,
    /// Memory blocks used.
    pub uses: Vec<BlockUse>,
    /// What could not be analysed.
    pub problems: Vec<String>,
}

/// A distinct texture (by content key).
#[derive(Clone, Debug)]
pub struct TextureFacts {
    /// Content key: replay's texture-cache key (shape and every texel byte, XXH3-128).
    pub key: u128,
    /// The state of the first unit it was bound to.
    pub texture: Texture,
    /// Bytes of texel data (every sub-resource).
    pub bytes: u64,
}

/// One entry of the capture's `memory_map`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockFacts {
    /// The file's id.
    pub id: u64,
    /// Raw location word.
    pub location: u32,
    /// Offset in the location.
    pub offset: u32,
    /// The id of its bytes.
    pub data_id: u64,
    /// Length, when its data exists.
    pub size: Option<u64>,
    /// XXH3-64 of its bytes.
    pub xxh3: Option<u64>,
    /// Commands it is attached to.
    pub attachments: u32,
    /// First command it is attached to.
    pub first_command: Option<usize>,
}

/// What the index records about one capture.
#[derive(Debug)]
pub struct Analysis {
    /// Distinct programs in order of first use.
    pub programs: Vec<ProgramFacts>,
    /// Per draw, in frame order.
    pub draws: Vec<DrawFacts>,
    /// Transform constants, as runs of draws.
    pub constant_runs: Vec<constant_runs::ConstantRun>,
    /// Distinct textures, in order of first use.
    pub textures: Vec<TextureFacts>,
    /// Memory blocks in file order.
    pub blocks: Vec<BlockFacts>,
}

/// Analyse `frame` (decoded from `capture`); `progress` is called with the number of draws
/// done so far, from any thread.
pub fn analyse(capture: &Capture, frame: &Frame, progress: &(dyn Fn(u64) + Sync)) -> Analysis {
    let programs = programs::frame_programs(frame);
    let by_key: HashMap<(Stage, u64), &ProgramFacts> =
        programs.iter().map(|p| ((p.stage, p.key), p)).collect();
    let done = AtomicU64::new(0);
    let mut draws: Vec<DrawFacts> = frame
        .draws
        .par_iter()
        .map(|draw| {
            let facts = draw_facts(frame, draw, &by_key);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1);
            facts
        })
        .collect();
    let textures = texture_keys(frame, &mut draws);
    let constant_runs = constant_runs::constant_runs(frame, &programs);
    Analysis {
        programs,
        draws,
        constant_runs,
        textures,
        blocks: blocks(capture),
    }
}

fn draw_facts(
    frame: &Frame,
    draw: &Draw,
    programs: &HashMap<(Stage, u64), &ProgramFacts>,
) -> DrawFacts {
    let Some(memory) = frame.memory(draw.index) else {
        // Every draw of a frame has a view; an empty record keeps the indices aligned.
        return DrawFacts {
            pass: Pass::Colour,
            fragment_constants: Vec::new(),
            units: Vec::new(),
            uses: Vec::new(),
            problems: vec!["no memory view".into()],
        };
    };
    let (uses, mut problems) = draw_uses(draw, &memory);
    let uses = block_uses(&uses, &memory);
    let vp = programs.get(&(Stage::Vertex, draw.vp_hash)).copied();
    if let Some(Err(e)) = vp.map(|p| &p.fingerprint) {
        problems.push(format!("vertex program: {e}"));
    }
    let fp = draw
        .fragment_program
        .as_ref()
        .and_then(|p| programs.get(&(Stage::Fragment, p.hash)).copied());
    DrawFacts {
        pass: pass::classify(
            draw,
            &memory,
            vp.and_then(|p| p.fingerprint.as_ref().ok())
                .map(|f| f.instructions),
        ),
        fragment_constants: draw
            .fragment_program
            .as_ref()
            .map(|p| {
                p.constant_slots
                    .iter()
                    .filter_map(|&slot| {
                        read_slot(&p.ucode, slot).map(|value| FragmentConstantFacts { slot, value })
                    })
                    .collect()
            })
            .unwrap_or_default(),
        units: units(draw, vp, fp, &memory),
        uses,
        problems,
    }
}

fn units(
    draw: &Draw,
    vp: Option<&ProgramFacts>,
    fp: Option<&ProgramFacts>,
    memory: &rsxtrace_capture::frame::MemoryView<'_>,
) -> Vec<UnitFacts> {
    let fragment = (0u8..)
        .zip(draw.textures.iter())
        .map(|(u, t)| (Stage::Fragment, u, t));
    let vertex = (0u8..)
        .zip(draw.vertex_textures.iter())
        .map(|(u, t)| (Stage::Vertex, u, t));
    fragment
        .chain(vertex)
        .filter(|(_, _, t)| t.control0.enabled)
        .map(|(stage, unit, texture)| {
            let (spans, problem) = match rsxtrace_replay::texture::texture_spans(unit, texture) {
                Ok(s) => (s, None),
                Err(e) => (Vec::new(), Some(e.to_string())),
            };
            // Each span held whole by one block: the blocks name the bytes.
            let sources: Option<Vec<(u64, u32)>> = spans
                .iter()
                .map(|s| {
                    memory
                        .source(s.location, s.offset, s.len)
                        .map(|b| (b.block, b.offset))
                })
                .collect();
            let program = match stage {
                Stage::Fragment => fp,
                Stage::Vertex => vp,
            }
            .filter(|p| p.fingerprint.is_ok())
            .and_then(|p| p.sampled.as_ref());
            let program_known = program.is_some();
            let sampled = program
                .and_then(|s| s.iter().find(|s| s.unit == unit))
                .map(|s| (s.reach, s.live));
            UnitFacts {
                stage,
                unit,
                texture: *texture,
                key: None,
                problem,
                sampled,
                program_known,
                spans,
                sources,
            }
        })
        .collect()
}

/// The fields of a unit's state that shape its texels (what replay's texture cache keys on
/// besides the bytes).
type Shape = (u8, u8, bool, u8, u16, u16, u16, u16, u32, u16, u16);

fn shape(t: &Texture) -> Shape {
    let f = &t.format;
    (
        f.format,
        f.dimension,
        f.cubemap,
        f.border_type,
        f.mip_count,
        t.width,
        t.height,
        t.depth,
        t.pitch,
        t.remap,
        t.remap_override,
    )
}

/// Fill every unit's content key, hashing each distinct texture's bytes once: units with the
/// same shape over the same spans of the same blocks share one key. Returns the distinct
/// textures in order of first use.
fn texture_keys(frame: &Frame, draws: &mut [DrawFacts]) -> Vec<TextureFacts> {
    #[derive(Hash, PartialEq, Eq)]
    enum Identity {
        /// Shape, spans and the blocks that hold them.
        Blocks(Shape, Vec<Span>, Vec<(u64, u32)>),
        /// No single block holds some span: this draw's own.
        Draw(usize, Stage, u8),
    }
    let mut first_use: HashMap<Identity, usize> = HashMap::new();
    let mut jobs: Vec<(usize, usize)> = Vec::new(); // (draw, unit position)
    let mut job_of: Vec<Vec<Option<usize>>> = Vec::with_capacity(draws.len());
    for (d, facts) in draws.iter().enumerate() {
        let mut row = Vec::with_capacity(facts.units.len());
        for (k, u) in facts.units.iter().enumerate() {
            if u.problem.is_some() {
                row.push(None);
                continue;
            }
            let identity = match &u.sources {
                Some(sources) => {
                    Identity::Blocks(shape(&u.texture), u.spans.clone(), sources.clone())
                }
                None => Identity::Draw(d, u.stage, u.unit),
            };
            let job = *first_use.entry(identity).or_insert_with(|| {
                jobs.push((d, k));
                jobs.len() - 1
            });
            row.push(Some(job));
        }
        job_of.push(row);
    }
    let keys: Vec<Result<u128, String>> = jobs
        .par_iter()
        .map(|&(d, k)| {
            let u = &draws[d].units[k];
            let memory = frame
                .memory(d)
                .ok_or_else(|| "no memory view".to_string())?;
            content_key(u.unit, &u.texture, &memory).map_err(|e| e.to_string())
        })
        .collect();
    let mut textures: Vec<TextureFacts> = Vec::new();
    let mut listed = std::collections::HashSet::new();
    for (facts, row) in draws.iter_mut().zip(&job_of) {
        for (u, job) in facts.units.iter_mut().zip(row) {
            let Some(job) = job else { continue };
            match &keys[*job] {
                Ok(key) => {
                    u.key = Some(*key);
                    if listed.insert(*key) {
                        textures.push(TextureFacts {
                            key: *key,
                            texture: u.texture,
                            bytes: u.spans.iter().map(|s| u64::from(s.len)).sum(),
                        });
                    }
                }
                Err(e) => u.problem = Some(e.clone()),
            }
        }
    }
    textures
}

/// The capture's memory blocks, each block's bytes hashed once per distinct data id.
fn blocks(capture: &Capture) -> Vec<BlockFacts> {
    let hashes: HashMap<u64, (u64, u64)> = capture
        .data
        .par_iter()
        .map(|e| (e.id, (e.value.len() as u64, xxh3_64(&e.value))))
        .collect();
    let mut attached: HashMap<u64, (u32, usize)> = HashMap::new();
    for (command, c) in capture.commands.iter().enumerate() {
        for &id in &c.memory {
            attached
                .entry(id)
                .and_modify(|(n, _)| *n += 1)
                .or_insert((1, command));
        }
    }
    capture
        .blocks
        .iter()
        .map(|e| {
            let data = hashes.get(&e.value.data_id);
            let attach = attached.get(&e.id);
            BlockFacts {
                id: e.id,
                location: e.value.location,
                offset: e.value.offset,
                data_id: e.value.data_id,
                size: data.map(|d| d.0),
                xxh3: data.map(|d| d.1),
                attachments: attach.map_or(0, |a| a.0),
                first_command: attach.map(|a| a.1),
            }
        })
        .collect()
}
