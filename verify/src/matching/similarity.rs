//! How alike two fingerprints are: a score in [0, 1] and the list of what differs.
//!
//! The score is a weighted sum of six component similarities, each in [0, 1]:
//!
//! | component | weight | similarity |
//! |---|---|---|
//! | instruction count | 0.15 | `1 - |a - b| / max(a, b)` |
//! | opcode histogram | 0.35 | `Σ min(a_op, b_op) / Σ max(a_op, b_op)` (weighted Jaccard) |
//! | texture units in order | 0.15 | `1 - edit_distance(a, b) / max(len a, len b)` |
//! | inputs read | 0.10 | `|a ∩ b| / |a ∪ b|` |
//! | outputs written | 0.10 | `|a ∩ b| / |a ∪ b|` |
//! | constants read | 0.15 | `|a ∩ b| / |a ∪ b|` |
//!
//! A component whose two sides are both empty scores 1. Equal fingerprints score exactly 1;
//! a score of 1 says the fingerprints are equal, not the programs (a swizzle or a register
//! number can differ), which is why a match by fingerprint is never called exact.

use super::fingerprint::{bits, Fingerprint};

/// Weights of the components, in the order of the module's table.
pub const WEIGHTS: Weights = Weights {
    instructions: 0.15,
    opcodes: 0.35,
    texture_units: 0.15,
    inputs: 0.10,
    outputs: 0.10,
    constants: 0.15,
};

/// The weight of each component (they sum to 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Instruction count.
    pub instructions: f64,
    /// Opcode histogram.
    pub opcodes: f64,
    /// Texture units in order.
    pub texture_units: f64,
    /// Inputs read.
    pub inputs: f64,
    /// Outputs written.
    pub outputs: f64,
    /// Constants read.
    pub constants: f64,
}

/// The score of `a` against `b` (symmetric), without the list of differences.
pub fn score(a: &Fingerprint, b: &Fingerprint) -> f64 {
    let w = WEIGHTS;
    let s = w.instructions * count_similarity(a.instructions, b.instructions)
        + w.opcodes * histogram_similarity(&a.opcodes, &b.opcodes)
        + w.texture_units * sequence_similarity(&a.texture_units, &b.texture_units)
        + w.inputs * mask_similarity(u64::from(a.inputs), u64::from(b.inputs))
        + w.outputs * mask_similarity(a.outputs, b.outputs)
        + w.constants * set_similarity(&a.constants, &b.constants);
    s.clamp(0.0, 1.0)
}

/// What differs between a captured program's fingerprint and a candidate's, one line per
/// component that differs: `"instructions: 12 here, 13 in the library"`, `"opcodes: +ADD
/// -MUL"` (`+` more in the captured program, `-` more in the candidate), …
pub fn differences(captured: &Fingerprint, candidate: &Fingerprint) -> Vec<String> {
    let mut out = Vec::new();
    if captured.instructions != candidate.instructions {
        out.push(format!(
            "instructions: {} here, {} in the library",
            captured.instructions, candidate.instructions
        ));
    }
    let opcodes = histogram_difference(captured, candidate);
    if !opcodes.is_empty() {
        out.push(format!("opcodes: {}", opcodes.join(" ")));
    }
    if captured.texture_units != candidate.texture_units {
        out.push(format!(
            "texture units: {:?} here, {:?} in the library",
            captured.texture_units, candidate.texture_units
        ));
    }
    let mask_line = |what: &str, a: u64, b: u64, name: &dyn Fn(u32) -> String| {
        let mut parts: Vec<String> = bits(a & !b).map(|n| format!("+{}", name(n))).collect();
        parts.extend(bits(b & !a).map(|n| format!("-{}", name(n))));
        (!parts.is_empty()).then(|| format!("{what}: {}", parts.join(" ")))
    };
    out.extend(mask_line(
        "inputs",
        u64::from(captured.inputs),
        u64::from(candidate.inputs),
        &|n| captured.input_name(n),
    ));
    out.extend(mask_line(
        "outputs",
        captured.outputs,
        candidate.outputs,
        &|n| captured.output_name(n),
    ));
    if captured.constants != candidate.constants {
        let mut parts: Vec<String> = captured
            .constants
            .iter()
            .filter(|c| candidate.constants.binary_search(c).is_err())
            .map(|&c| format!("+{}", captured.constant_name(c)))
            .collect();
        parts.extend(
            candidate
                .constants
                .iter()
                .filter(|c| captured.constants.binary_search(c).is_err())
                .map(|&c| format!("-{}", captured.constant_name(c))),
        );
        out.push(format!("constants: {}", parts.join(" ")));
    }
    out
}

fn count_similarity(a: u32, b: u32) -> f64 {
    let max = a.max(b);
    if max == 0 {
        return 1.0;
    }
    1.0 - f64::from(a.abs_diff(b)) / f64::from(max)
}

/// Weighted Jaccard of two histograms sorted by key.
fn histogram_similarity(a: &[(u16, u32)], b: &[(u16, u32)]) -> f64 {
    let (mut min_sum, mut max_sum) = (0u64, 0u64);
    merge(a, b, |x, y| {
        min_sum += u64::from(x.min(y));
        max_sum += u64::from(x.max(y));
    });
    if max_sum == 0 {
        return 1.0;
    }
    min_sum as f64 / max_sum as f64
}

/// Calls `f(count in a, count in b)` for every key of either histogram.
fn merge(a: &[(u16, u32)], b: &[(u16, u32)], mut f: impl FnMut(u32, u32)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&(ka, na)), Some(&(kb, nb))) if ka == kb => {
                f(na, nb);
                i += 1;
                j += 1;
            }
            (Some(&(ka, na)), Some(&(kb, _))) if ka < kb => {
                f(na, 0);
                i += 1;
            }
            (Some(&(_, na)), None) => {
                f(na, 0);
                i += 1;
            }
            (_, Some(&(_, nb))) => {
                f(0, nb);
                j += 1;
            }
            (None, None) => break,
        }
    }
}

fn histogram_difference(captured: &Fingerprint, candidate: &Fingerprint) -> Vec<String> {
    let mut out = Vec::new();
    let (a, b) = (&captured.opcodes, &candidate.opcodes);
    let (mut i, mut j) = (0, 0);
    let mut note = |key: u16, x: u32, y: u32| {
        let name = captured.opcode_name(key);
        match x.cmp(&y) {
            std::cmp::Ordering::Greater => out.push(format!("+{name}{}", times(x - y))),
            std::cmp::Ordering::Less => out.push(format!("-{name}{}", times(y - x))),
            std::cmp::Ordering::Equal => {}
        }
    };
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&(ka, na)), Some(&(kb, nb))) if ka == kb => {
                note(ka, na, nb);
                i += 1;
                j += 1;
            }
            (Some(&(ka, na)), Some(&(kb, _))) if ka < kb => {
                note(ka, na, 0);
                i += 1;
            }
            (Some(&(ka, na)), None) => {
                note(ka, na, 0);
                i += 1;
            }
            (_, Some(&(kb, nb))) => {
                note(kb, 0, nb);
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

fn times(n: u32) -> String {
    if n == 1 {
        String::new()
    } else {
        format!("x{n}")
    }
}

/// `1 - edit distance / longer length`.
fn sequence_similarity(a: &[u8], b: &[u8]) -> f64 {
    let longer = a.len().max(b.len());
    if longer == 0 {
        return 1.0;
    }
    if a == b {
        return 1.0;
    }
    1.0 - edit_distance(a, b) as f64 / longer as f64
}

/// Levenshtein distance (insert, delete, substitute: cost 1 each).
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

fn mask_similarity(a: u64, b: u64) -> f64 {
    let union = (a | b).count_ones();
    if union == 0 {
        return 1.0;
    }
    f64::from((a & b).count_ones()) / f64::from(union)
}

/// Jaccard of two ascending sets without repeats.
fn set_similarity(a: &[u16], b: &[u16]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
    common as f64 / (a.len() + b.len() - common) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::container::Stage;

    fn fp(instructions: u32, opcodes: Vec<(u16, u32)>, units: Vec<u8>) -> Fingerprint {
        Fingerprint {
            stage: Stage::Fragment,
            instructions,
            opcodes,
            texture_units: units,
            inputs: 0b10,
            outputs: 1,
            constants: vec![1, 3],
        }
    }

    #[test]
    fn weights_sum_to_one() {
        let w = WEIGHTS;
        let sum = w.instructions + w.opcodes + w.texture_units + w.inputs + w.outputs + w.constants;
        assert!((sum - 1.0).abs() < 1e-12);
    }

    #[test]
    fn equal_fingerprints_score_one_and_differ_in_nothing() {
        let a = fp(3, vec![(1, 2), (0x17, 1)], vec![0]);
        assert_eq!(score(&a, &a), 1.0);
        assert!(differences(&a, &a).is_empty());
    }

    #[test]
    fn one_changed_opcode_costs_part_of_the_histogram_only() {
        let a = fp(4, vec![(1, 2), (2, 1), (0x17, 1)], vec![0]);
        let b = fp(4, vec![(1, 2), (3, 1), (0x17, 1)], vec![0]);
        // Histogram: min sum 3, max sum 5 -> 0.6; the rest equal.
        let want = 1.0 - WEIGHTS.opcodes * 0.4;
        assert!((score(&a, &b) - want).abs() < 1e-12, "{}", score(&a, &b));
        assert_eq!(differences(&a, &b), vec!["opcodes: +MUL -ADD".to_string()]);
    }

    #[test]
    fn components_behave_as_documented() {
        assert_eq!(edit_distance(&[0, 1, 2], &[0, 2]), 1);
        assert_eq!(edit_distance(&[], &[1, 2]), 2);
        assert_eq!(edit_distance(&[1, 2, 3], &[3, 2, 1]), 2);
        assert_eq!(sequence_similarity(&[0, 1], &[1, 0]), 0.0);
        assert_eq!(mask_similarity(0b11, 0b10), 0.5);
        assert_eq!(set_similarity(&[1, 2, 3], &[2, 3, 4]), 0.5);
        assert_eq!(count_similarity(4, 2), 0.5);
        let a = fp(1, vec![(1, 1)], vec![]);
        let b = fp(9, vec![(0x17, 9)], vec![1, 2]);
        let s = score(&a, &b);
        assert!((0.0..1.0).contains(&s));
        assert_eq!(s, score(&b, &a), "symmetric");
        let d = differences(&a, &b);
        assert_eq!(d.len(), 3, "{d:?}");
        assert_eq!(d[1], "opcodes: +MOV -TEXx9");
    }
}
