//! A draw's `DRAW_ARRAYS` / `DRAW_INDEX_ARRAY` ranges as RPCS3 collects them between BEGIN and
//! END (`draw_clause::append`, `NV47/FW/draw_call.hpp`): a range that starts where the
//! current one ends is joined to it, so a strip goes on and a list keeps its alignment (libgcm
//! splits every draw into pieces of at most 256 vertices or indices, the count field being
//! 8 bits: they are one primitive stream again); an exact repeat of a range already held in
//! the part (since BEGIN or the last barrier, below) is dropped (RPCS3 logs "Duplicate draw
//! request"); any other range is kept in ascending order of `first`, and the ranges are drawn
//! one after the other, each its own primitive stream.
//!
//! A write to the vertex base offset or index, a vertex array's offset, the transform
//! constant load slot or a transform constant, made between BEGIN and END after a range,
//! is an execution barrier in RPCS3 (`push_draw_parameter_change`, `insert_command_barrier`:
//! "Execution dependency barrier. Requires breaking the current draw call sequence and start
//! another"): the register keeps its old value for the ranges before it, and the new one is
//! applied when the clause reaches the barrier while drawing (`execute_pipeline_dependencies`).
//! [`defers`] names those registers; the frame model draws each part as a draw of its own.

use crate::methods::reg;
use rsxtrace_fetch::DrawRange;

/// Whether a write to register `r` inside BEGIN/END, after a range, applies to the ranges
/// after it only (RPCS3 `nv4097::set_vertex_base_offset`, `set_index_base_offset`,
/// `set_vertex_array_offset`, `set_transform_constant_load`, and `set_transform_constant`'s
/// `transform_constant_update_barrier`).
pub fn defers(r: u16) -> bool {
    matches!(
        r,
        reg::SET_VERTEX_DATA_BASE_OFFSET
            | reg::SET_VERTEX_DATA_BASE_INDEX
            | reg::SET_TRANSFORM_CONSTANT_LOAD
    ) || (reg::SET_VERTEX_DATA_ARRAY_OFFSET..reg::SET_VERTEX_DATA_ARRAY_OFFSET + 16).contains(&r)
        || (reg::SET_TRANSFORM_CONSTANT..reg::SET_TRANSFORM_CONSTANT + 32).contains(&r)
}

/// The deferred registers a part of a clause draws with (the vertex bases and array
/// offsets; the constant load slot draws nothing, the constants are kept apart).
pub fn deferred_draw_registers() -> impl Iterator<Item = u16> {
    [
        reg::SET_VERTEX_DATA_BASE_OFFSET,
        reg::SET_VERTEX_DATA_BASE_INDEX,
    ]
    .into_iter()
    .chain(reg::SET_VERTEX_DATA_ARRAY_OFFSET..reg::SET_VERTEX_DATA_ARRAY_OFFSET + 16)
}

/// The ranges of one BEGIN/END scope.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrawRanges {
    ranges: Vec<DrawRange>,
    /// The range the next one is compared with (`current_range_index`): the last one added or
    /// inserted.
    current: usize,
}

impl DrawRanges {
    /// Add one method's range.
    pub fn append(&mut self, range: DrawRange) {
        if let Some(last) = self.ranges.get_mut(self.current) {
            if u64::from(last.first) + u64::from(last.count) == u64::from(range.first) {
                last.count = last.count.saturating_add(range.count);
                return;
            }
            for (i, held) in self.ranges.iter().enumerate() {
                if *held == range {
                    return;
                }
                if held.first > range.first {
                    self.ranges.insert(i, range);
                    self.current = i;
                    return;
                }
            }
        }
        self.ranges.push(range);
        self.current = self.ranges.len() - 1;
    }

    /// The ranges, each one primitive stream, in drawing order.
    pub fn as_slice(&self) -> &[DrawRange] {
        &self.ranges
    }

    /// The ranges, taken out.
    pub fn into_vec(self) -> Vec<DrawRange> {
        self.ranges
    }

    /// No range at all.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(appended: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let mut ranges = DrawRanges::default();
        for &(first, count) in appended {
            ranges.append(DrawRange { first, count });
        }
        ranges
            .as_slice()
            .iter()
            .map(|r| (r.first, r.count))
            .collect()
    }

    #[test]
    fn libgcm_pieces_of_one_draw_are_one_range() {
        assert_eq!(collect(&[(0, 256), (256, 256), (512, 44)]), vec![(0, 556)]);
    }

    #[test]
    fn repeats_are_dropped_and_others_kept_in_order() {
        assert_eq!(
            collect(&[(0, 300), (1000, 10), (1000, 10), (500, 5), (505, 1)]),
            vec![(0, 300), (500, 6), (1000, 10)]
        );
        // A range that would continue an earlier, not the current, range is its own.
        assert_eq!(
            collect(&[(0, 3), (10, 3), (3, 3)]),
            vec![(0, 3), (3, 3), (10, 3)]
        );
    }
}
