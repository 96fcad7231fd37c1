//! Constant reads grouped by what the program does with them:
//!
//! - **matrix rows**: consecutive registers each dotted (DP3, DP4, DPH) with the same operand,
//!   as `DP4 o[HPOS].x, v[POS], c[256]` through `c[259]` (the row-major form Sony's compiler
//!   writes for `mul(M, v)`);
//! - **matrix columns**: consecutive registers each scaled (MUL, MAD) by the next component
//!   of the same vector (`MUL R0, v[POS].xxxx, c[4]; MAD R0, v[POS].yyyy, c[5], R0; ...`),
//!   with an added register after them as the translation;
//! - **scalar**: a register only ever read one component at a time (a replicated swizzle, or
//!   the scalar unit);
//! - **vector**: anything else, register by register.
//!
//! Registers relative to an address register (`c[A0.x+40]`) are grouped the same way by their
//! base; the report calls the lot a palette of entries indexed by that register.

use super::reads::ConstantRead;
use rsxtrace_program::vertex::Component;
use serde::Serialize;
use std::collections::BTreeMap;

/// `Some((n, component))` for registers read relative to address register `An`.
pub type Relative = Option<(u8, char)>;

/// What a group of registers is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Rows dotted with one operand.
    MatrixRows,
    /// Columns scaled by one vector's components (the last one added, when present).
    MatrixColumns,
    /// One register, read one component at a time.
    Scalar,
    /// One register.
    Vector,
}

impl Kind {
    /// A word for the text report.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::MatrixRows => "matrix rows",
            Kind::MatrixColumns => "matrix columns",
            Kind::Scalar => "scalar",
            Kind::Vector => "vector",
        }
    }
}

/// Registers a program reads together.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    /// What they are.
    pub kind: Kind,
    /// `Some((n, component))` when they are read relative to address register `An`.
    pub relative: Relative,
    /// The first register (or base).
    pub first: u16,
    /// How many consecutive registers.
    pub count: u16,
    /// For a matrix, the operand it multiplies (`v[POS]`, `R1.xyz`).
    pub with: Option<String>,
    /// The reading instructions: slot and text, each once.
    pub reads: Vec<(usize, String)>,
    /// The components read (a vector or scalar: the union of the swizzles; matrices: all).
    pub components: String,
}

/// Groups of the constant reads `reads` of one program (every read lands in at least one
/// group).
pub fn group_reads(reads: &[ConstantRead]) -> Vec<Group> {
    let mut claimed = vec![false; reads.len()];
    let mut groups = Vec::new();
    let evidence = |members: &[usize]| -> Vec<(usize, String)> {
        let mut slots: Vec<(usize, &str)> = members
            .iter()
            .map(|&k| (reads[k].slot, reads[k].text.as_str()))
            .collect();
        slots.sort_unstable();
        slots.dedup();
        slots.into_iter().map(|(s, t)| (s, t.to_string())).collect()
    };

    // Matrix rows: dot products with the same operand (swizzle included) over consecutive
    // registers.
    let mut rows: BTreeMap<(Relative, String), BTreeMap<u16, Vec<usize>>> = BTreeMap::new();
    for (k, r) in reads.iter().enumerate() {
        let (Some(other), true) = (&r.other, matches!(r.op, "DP3" | "DP4" | "DPH")) else {
            continue;
        };
        rows.entry((r.register.relative, other.text.clone()))
            .or_default()
            .entry(r.register.index)
            .or_default()
            .push(k);
    }
    for ((relative, with), by_index) in rows {
        for run in consecutive_runs(by_index.keys().copied()) {
            if run.len() < 2 {
                continue;
            }
            let members: Vec<usize> = run.iter().flat_map(|i| by_index[i].clone()).collect();
            for &k in &members {
                claimed[k] = true;
            }
            groups.push(Group {
                kind: Kind::MatrixRows,
                relative,
                first: run[0],
                count: run.len() as u16,
                with: Some(with.clone()),
                reads: evidence(&members),
                components: "xyzw".into(),
            });
        }
    }

    // Matrix columns: products with the same vector's x, y, z (w) over consecutive
    // registers, then an ADD of the next register as the translation.
    // Per factor: each register with the component that scales it and its reads.
    type Scaled = BTreeMap<u16, (Component, Vec<usize>)>;
    let mut columns: BTreeMap<(Relative, String), Scaled> = BTreeMap::new();
    for (k, r) in reads.iter().enumerate() {
        let (Some(other), true) = (&r.other, matches!(r.op, "MUL" | "MAD")) else {
            continue;
        };
        let Some(a) = other.replicated else {
            continue;
        };
        let entry = columns
            .entry((r.register.relative, other.register.clone()))
            .or_default()
            .entry(r.register.index)
            .or_insert((a, Vec::new()));
        if entry.0 == a {
            entry.1.push(k);
        }
    }
    for ((relative, with), by_index) in columns {
        // Stretches of consecutive registers scaling x, y, z (and w) in order.
        let runs = consecutive_runs(by_index.keys().copied());
        let mut stretches: Vec<&[u16]> = Vec::new();
        for run in &runs {
            let mut start = 0;
            while start < run.len() {
                let in_order = run[start..]
                    .iter()
                    .enumerate()
                    .take_while(|(n, i)| by_index[*i].0.code() as usize == *n)
                    .count();
                if in_order >= 3 {
                    stretches.push(&run[start..start + in_order]);
                }
                start += in_order.max(1);
            }
        }
        for stretch in stretches {
            let in_order = stretch.len();
            let mut members: Vec<usize> =
                stretch.iter().flat_map(|i| by_index[i].1.clone()).collect();
            let next = stretch[0].saturating_add(in_order as u16);
            let translation: Vec<usize> = (0..reads.len())
                .filter(|&k| {
                    let r = &reads[k];
                    r.op == "ADD" && r.register.relative == relative && r.register.index == next
                })
                .collect();
            let count = in_order as u16 + u16::from(!translation.is_empty());
            members.extend(translation);
            for &k in &members {
                claimed[k] = true;
            }
            groups.push(Group {
                kind: Kind::MatrixColumns,
                relative,
                first: stretch[0],
                count,
                with: Some(with.clone()),
                reads: evidence(&members),
                components: "xyzw".into(),
            });
        }
    }

    // The rest, register by register.
    let mut rest: BTreeMap<(Relative, u16), Vec<usize>> = BTreeMap::new();
    for (k, r) in reads.iter().enumerate() {
        if !claimed[k] {
            rest.entry((r.register.relative, r.register.index))
                .or_default()
                .push(k);
        }
    }
    for ((relative, index), members) in rest {
        let scalar = members
            .iter()
            .all(|&k| !reads[k].vector || reads[k].replicated().is_some());
        let mut components = String::new();
        for c in ['x', 'y', 'z', 'w'] {
            let read = members
                .iter()
                .any(|&k| reads[k].swizzle.0.iter().any(|s| s.letter() == c));
            if read {
                components.push(c);
            }
        }
        groups.push(Group {
            kind: if scalar { Kind::Scalar } else { Kind::Vector },
            relative,
            first: index,
            count: 1,
            with: None,
            reads: evidence(&members),
            components,
        });
    }
    groups.sort_by_key(|g| (g.relative.is_some(), g.relative, g.first, g.count));
    groups
}

/// The group of `groups` register `register` belongs to (`relative` for `c[An+register]`), a
/// matrix before a vector or scalar when it is read both ways.
pub fn group_of(groups: &[Group], register: u16, relative: bool) -> Option<&Group> {
    let holds = |g: &&Group| {
        g.relative.is_some() == relative
            && (g.first..g.first.saturating_add(g.count)).contains(&register)
    };
    let matrix = |g: &&Group| matches!(g.kind, Kind::MatrixRows | Kind::MatrixColumns);
    groups
        .iter()
        .filter(holds)
        .find(matrix)
        .or_else(|| groups.iter().find(holds))
}

/// The group's registers, inclusive: `c[32..35]`, `c[A0.x+40..42]`, `c[8]`.
pub fn registers_text(g: &Group) -> String {
    let last = g.first.saturating_add(g.count.saturating_sub(1));
    let span = if g.count > 1 {
        format!("{}..{last}", g.first)
    } else {
        g.first.to_string()
    };
    match g.relative {
        Some((n, c)) => format!("c[A{n}.{c}+{span}]"),
        None => format!("c[{span}]"),
    }
}

/// What a group is, in a few words: `matrix rows c[32..35] x v[POS]`, `scalar .x`.
pub fn describe(g: &Group) -> String {
    let registers = registers_text(g);
    match (g.kind, &g.with) {
        (Kind::MatrixRows | Kind::MatrixColumns, Some(with)) => {
            format!("{} {registers} x {with}", g.kind.describe())
        }
        (kind, _) => format!("{} .{}", kind.describe(), g.components),
    }
}

/// Runs of consecutive numbers in ascending `numbers`.
fn consecutive_runs(numbers: impl Iterator<Item = u16>) -> Vec<Vec<u16>> {
    let mut runs: Vec<Vec<u16>> = Vec::new();
    for n in numbers {
        match runs.last_mut() {
            Some(run) if run.last().and_then(|l| l.checked_add(1)) == Some(n) => run.push(n),
            _ => runs.push(vec![n]),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::constant_layout::reads::constant_reads;
    use rsxtrace_program::vertex;

    /// A group as (kind, relative, first, count, with).
    type Summary = (Kind, Relative, u16, u16, Option<String>);

    fn groups(text: &str) -> Vec<Summary> {
        let p = vertex::assemble(text).unwrap();
        group_reads(&constant_reads(&p))
            .into_iter()
            .map(|g| (g.kind, g.relative, g.first, g.count, g.with))
            .collect()
    }

    /// Columns found where they start, after a register scaled by another component; the
    /// ADD of the next register is the translation.
    #[test]
    fn columns_start_at_x() {
        let g = groups(
            "MUL R0, v[0].wwww, c[3];\n\
             MUL R1, v[0].xxxx, c[4];\n\
             MAD R1, v[0].yyyy, c[5], R1;\n\
             MAD R1, v[0].zzzz, c[6], R1;\n\
             ADD o[HPOS], R1, c[7]; END\n",
        );
        assert_eq!(
            g,
            vec![
                (Kind::Vector, None, 3, 1, None),
                (Kind::MatrixColumns, None, 4, 4, Some("v[POS]".into())),
            ]
        );
    }

    /// Rows need the same operand: two registers dotted with different vectors are not a
    /// matrix; a register read one component at a time is a scalar.
    #[test]
    fn rows_need_one_operand() {
        let g = groups(
            "DP4 R0.x, v[0], c[10];\n\
             DP4 R0.y, v[2], c[11];\n\
             MUL o[HPOS], R0, c[12].yyyy; END\n",
        );
        assert_eq!(
            g,
            vec![
                (Kind::Vector, None, 10, 1, None),
                (Kind::Vector, None, 11, 1, None),
                (Kind::Scalar, None, 12, 1, None),
            ]
        );
    }
}
