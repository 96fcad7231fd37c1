//! How each vertex program of a frame reads its transform constants (`rsxtrace probe
//! constants`): which registers are matrices (rows dotted with one operand, or columns
//! scaled by one vector's components), which are palettes read relative to an address
//! register (a skinned mesh's bone matrices) and which entries the draws' vertices reach,
//! and which are single vectors or scalars; each with the instructions that read them as
//! evidence, and whether the capture knows their values at the draws.
//!
//! - [`reads`]: every constant operand of the program's active units.
//! - [`groups`]: those reads grouped into matrices, vectors and scalars.
//! - [`reach`]: the address values the draws' vertices index palettes with (traced).

pub mod groups;
pub mod reach;
pub mod reads;

use groups::{group_reads, Group};
use reads::{address_writers, constant_reads};
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::vertex::{decode_from_memory, VertexProgram};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Range;

/// Transform constant registers (`c[0]`..`c[467]`).
pub const CONSTANT_REGISTERS: i64 = 468;

/// A group with what the capture holds of its values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupReport {
    /// The group.
    #[serde(flatten)]
    pub group: Group,
    /// Draws (of the program's) at which every register of the group is known; for a
    /// palette's groups, every register the draws reach.
    pub known_at: usize,
    /// Distinct values of the group's registers among those draws (a per-object matrix has
    /// one per object; a camera's, one).
    pub distinct_values: usize,
    /// The registers the group stands for, ascending: its own, or for a group read relative
    /// to an address register, every register the traced vertices reach through it.
    pub registers: Vec<i64>,
}

/// The registers read relative to one address register component.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Palette {
    /// `A0.x`.
    pub address: String,
    /// The lowest base added to it.
    pub first_base: u16,
    /// The registers one value of the address spans (highest base - lowest + 1).
    pub entry_registers: u16,
    /// The instructions that write the address register (ARL, ARR, ARA), slot and text.
    pub address_written_by: Vec<(usize, String)>,
    /// Every value the address held at a relative read, ascending (`None` when no vertex
    /// was traced).
    pub values: Option<Vec<i32>>,
    /// The registers those values reach, lowest and highest.
    pub registers: Option<(i64, i64)>,
    /// Whether every value is a multiple of the entry size (entries indexed as bone × size).
    pub aligned: bool,
    /// Reached registers outside `c[0]..c[467]`.
    pub out_of_range: usize,
}

/// One vertex program's constants.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProgramLayout {
    /// The program's content key (`vp_hash`, hex).
    pub key: String,
    /// Its start slot.
    pub start_slot: usize,
    /// Instructions.
    pub instructions: usize,
    /// Draws running it in the range.
    pub draws: Vec<usize>,
    /// Register groups, absolute first.
    pub groups: Vec<GroupReport>,
    /// Palettes, one per address register component read relative to.
    pub palettes: Vec<Palette>,
    /// Distinct vertices traced for the palettes.
    pub traced_vertices: usize,
    /// What could not be done (a program that does not decode, draws whose vertices could not
    /// be traced, the vertex budget).
    pub notes: Vec<String>,
}

/// The constant layout of every vertex program the draws `range` of `frame` run, in order
/// of first use; at most `budget` distinct vertices per program are traced for palettes.
pub fn constant_layout(frame: &Frame, range: Range<usize>, budget: usize) -> Vec<ProgramLayout> {
    let mut programs: BTreeMap<(u64, u32), Vec<usize>> = BTreeMap::new();
    let mut order = Vec::new();
    for d in range.clone() {
        let Some(draw) = frame.draws.get(d) else {
            break;
        };
        let key = (draw.vp_hash, draw.vp_start);
        let entry = programs.entry(key).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(d);
    }
    order
        .into_iter()
        .map(|key| layout_of(frame, key, &programs[&key], budget))
        .collect()
}

fn layout_of(
    frame: &Frame,
    (hash, start): (u64, u32),
    draws: &[usize],
    budget: usize,
) -> ProgramLayout {
    let mut layout = ProgramLayout {
        key: format!("{hash:016x}"),
        start_slot: start as usize,
        instructions: 0,
        draws: draws.to_vec(),
        groups: Vec::new(),
        palettes: Vec::new(),
        traced_vertices: 0,
        notes: Vec::new(),
    };
    let first = &frame.draws[draws[0]];
    let program = match decode_from_memory(&first.vertex_program, start as usize) {
        Ok(p) => p,
        Err(e) => {
            layout
                .notes
                .push(format!("the program does not decode: {e}"));
            return layout;
        }
    };
    layout.instructions = program.instructions.len();
    let reads = constant_reads(&program);
    let groups = group_reads(&reads);
    let traced = reach::reach(frame, draws, &reads, budget);
    layout.traced_vertices = traced.vertices;
    // A few draws named; the rest counted (a frame can have thousands of one program).
    for (draw, why) in traced.failed.iter().take(3) {
        layout.notes.push(format!("draw {draw}: not traced: {why}"));
    }
    if traced.failed.len() > 3 {
        layout
            .notes
            .push(format!("{} more draws not traced", traced.failed.len() - 3));
    }
    if traced.limited {
        layout.notes.push(format!(
            "traced the first {} distinct vertices only (--max-vertices)",
            traced.vertices
        ));
    }

    layout.palettes = palettes(&program, &groups, &traced);
    layout.groups = groups
        .into_iter()
        .map(|g| group_report(frame, draws, g, &traced))
        .collect();
    layout
}

/// The palettes: per address register component read relative to, the span of bases its
/// groups read and the values the traced vertices gave it.
fn palettes(program: &VertexProgram, groups: &[Group], traced: &reach::Reach) -> Vec<Palette> {
    let mut bases: BTreeMap<(u8, char), (u16, u16)> = BTreeMap::new();
    for g in groups {
        let Some(address) = g.relative else { continue };
        let last = g.first.saturating_add(g.count.saturating_sub(1));
        let e = bases.entry(address).or_insert((g.first, last));
        e.0 = e.0.min(g.first);
        e.1 = e.1.max(last);
    }
    bases
        .into_iter()
        .map(|((n, c), (low, high))| {
            let values: Option<Vec<i32>> = traced
                .values
                .get(&(n, c))
                .map(|v| v.iter().copied().collect());
            let size = high - low + 1;
            let registers = values.as_ref().and_then(|v| {
                Some((
                    i64::from(low) + i64::from(*v.first()?),
                    i64::from(high) + i64::from(*v.last()?),
                ))
            });
            let out_of_range = values.as_ref().map_or(0, |v| {
                v.iter()
                    .flat_map(|&a| (low..=high).map(move |b| i64::from(b) + i64::from(a)))
                    .filter(|r| !(0..CONSTANT_REGISTERS).contains(r))
                    .count()
            });
            Palette {
                address: format!("A{n}.{c}"),
                first_base: low,
                entry_registers: size,
                address_written_by: address_writers(program, n),
                aligned: values
                    .as_ref()
                    .is_some_and(|v| v.iter().all(|a| a.rem_euclid(i32::from(size)) == 0)),
                registers,
                values,
                out_of_range,
            }
        })
        .collect()
}

/// Group `g` with the registers it stands for (its own, or those the traced vertices reach
/// through the address register) and what the capture holds of them at `draws`.
fn group_report(frame: &Frame, draws: &[usize], g: Group, traced: &reach::Reach) -> GroupReport {
    let registers: BTreeSet<i64> = match g.relative {
        None => (0..g.count)
            .map(|k| i64::from(g.first) + i64::from(k))
            .collect(),
        Some(address) => traced
            .values
            .get(&address)
            .into_iter()
            .flatten()
            .flat_map(|&a| {
                (0..g.count).map(move |k| i64::from(a) + i64::from(g.first) + i64::from(k))
            })
            .collect(),
    };
    let registers: Vec<i64> = registers.into_iter().collect();
    let mut distinct = HashSet::new();
    let mut known_at = 0;
    for &d in draws {
        let constants = &frame.draws[d].constants;
        let raw: Option<Vec<[u32; 4]>> = registers
            .iter()
            .map(|&r| usize::try_from(r).ok().and_then(|r| constants.raw(r)))
            .collect();
        if let Some(raw) = raw.filter(|r| !r.is_empty()) {
            known_at += 1;
            distinct.insert(raw);
        }
    }
    GroupReport {
        group: g,
        known_at,
        distinct_values: distinct.len(),
        registers,
    }
}
