//! Each distinct vertex of a draw fetched once: indexed draws and array elements name most
//! vertices several times (a mesh's index list names each of its vertices about six times),
//! and a vertex's inputs, like its outputs, depend on its index alone. The renderers shade
//! each distinct vertex once, as the hardware's post-transform cache does, so they need each
//! one decoded once, not once per position.

use crate::error::FetchError;
use crate::fetch::{array_columns, elements_list, fetch_draw, indexed_list};
use crate::input::{VertexInputs, VertexSource};
use crate::output::FetchedVertices;
use crate::GuestMemory;

/// A draw's vertices with each distinct one fetched once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DistinctVertices {
    /// The distinct vertices in the order of their first position: `indices` holds their
    /// vertex indices and each column their values, one row per distinct vertex. `restarts`
    /// and `range_starts` are the whole draw's, as processing positions.
    pub vertices: FetchedVertices,
    /// For each processing position, the row of its vertex in `vertices`; `None` when no
    /// vertex repeats (rows are then positions).
    pub rows: Option<Vec<u32>>,
}

impl DistinctVertices {
    /// Processing positions of the draw (vertices submitted).
    pub fn positions(&self) -> usize {
        self.rows.as_ref().map_or(self.vertices.len(), Vec::len)
    }
}

/// Fetch the vertices `inputs` submits, each distinct vertex of an indexed or array-element
/// draw once ([`DistinctVertices`]); other sources are fetched as [`fetch_draw`] does, every
/// position a row of its own. The values, and the error a missing element gives, are those of
/// [`fetch_draw`]: rows follow first positions, so the first failing row is the first failing
/// position.
pub fn fetch_distinct(
    inputs: &VertexInputs,
    mem: &impl GuestMemory,
) -> Result<DistinctVertices, FetchError> {
    let list = match &inputs.source {
        VertexSource::Indexed { index, ranges } => indexed_list(inputs, index, ranges, mem)?,
        VertexSource::Elements { indices } => elements_list(inputs, indices)?,
        _ => {
            return Ok(DistinctVertices {
                vertices: fetch_draw(inputs, mem)?,
                rows: None,
            })
        }
    };
    let (indices, rows) = match distinct_rows(&list.indices) {
        Some((distinct, rows)) => (distinct, Some(rows)),
        None => (list.indices, None),
    };
    let attributes = array_columns(inputs, &indices, mem)?;
    Ok(DistinctVertices {
        vertices: FetchedVertices {
            indices,
            attributes,
            restarts: list.restarts,
            range_starts: list.range_starts,
        },
        rows,
    })
}

/// Index lists whose span (highest index less lowest, plus one) is at most this many times
/// their length plus [`DENSE_SLACK`] are deduplicated through a table over the span; others
/// through a sort.
const DENSE_FACTOR: usize = 4;
const DENSE_SLACK: usize = 4096;

/// The distinct indices of `indices` in the order of their first position, and each position's
/// row among them; `None` when no index repeats.
pub(crate) fn distinct_rows(indices: &[u32]) -> Option<(Vec<u32>, Vec<u32>)> {
    let (&lo, &hi) = (indices.iter().min()?, indices.iter().max()?);
    let span = (hi - lo) as usize + 1;
    let mut distinct = Vec::new();
    let mut rows = Vec::with_capacity(indices.len());
    if span <= indices.len().saturating_mul(DENSE_FACTOR) + DENSE_SLACK {
        let mut row_of = vec![u32::MAX; span];
        for &i in indices {
            let row = &mut row_of[(i - lo) as usize];
            if *row == u32::MAX {
                *row = distinct.len() as u32;
                distinct.push(i);
            }
            rows.push(*row);
        }
    } else {
        // (index, first position) sorted: the first of each index's run is its first use.
        let mut by_index: Vec<(u32, u32)> = indices.iter().copied().zip(0u32..).collect();
        by_index.sort_unstable();
        let mut first_of = vec![u32::MAX; indices.len()];
        let mut previous = None;
        let mut first = 0;
        for &(index, position) in &by_index {
            if previous != Some(index) {
                previous = Some(index);
                first = position;
            }
            first_of[position as usize] = first;
        }
        // Rows numbered by first position: walk the positions in order.
        let mut row_at_first = vec![u32::MAX; indices.len()];
        for (position, &first) in first_of.iter().enumerate() {
            let row = &mut row_at_first[first as usize];
            if *row == u32::MAX {
                *row = distinct.len() as u32;
                distinct.push(indices[position]);
            }
            rows.push(*row);
        }
    }
    (distinct.len() < indices.len()).then_some((distinct, rows))
}

/// How many distinct values `indices` holds: the rows [`fetch_distinct`] would fetch, counted
/// without listing them (a bit per index of the span when the list is dense, where the fetch
/// uses a table; else a sorted copy).
pub fn distinct_count(indices: &[u32]) -> usize {
    let (Some(&lo), Some(&hi)) = (indices.iter().min(), indices.iter().max()) else {
        return 0;
    };
    let span = (hi - lo) as usize + 1;
    if span <= indices.len().saturating_mul(DENSE_FACTOR) + DENSE_SLACK {
        let mut seen = vec![0u64; span.div_ceil(64)];
        let mut count = 0;
        for &i in indices {
            let bit = (i - lo) as usize;
            let word = &mut seen[bit / 64];
            let mask = 1u64 << (bit % 64);
            count += usize::from(*word & mask == 0);
            *word |= mask;
        }
        count
    } else {
        let mut sorted = indices.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        sorted.len()
    }
}

#[cfg(test)]
mod tests {
    use super::{distinct_count, distinct_rows};

    /// The rows by a plain search, for comparison.
    fn by_search(indices: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let mut distinct: Vec<u32> = Vec::new();
        let rows = indices
            .iter()
            .map(|i| match distinct.iter().position(|d| d == i) {
                Some(r) => r as u32,
                None => {
                    distinct.push(*i);
                    (distinct.len() - 1) as u32
                }
            })
            .collect();
        (distinct, rows)
    }

    #[test]
    fn rows_follow_first_positions() {
        let (d, rows) = distinct_rows(&[7, 3, 7, 9, 3, 7]).unwrap();
        assert_eq!(d, vec![7, 3, 9]);
        assert_eq!(rows, vec![0, 1, 0, 2, 1, 0]);
        assert!(distinct_rows(&[1, 2, 3]).is_none());
        assert!(distinct_rows(&[]).is_none());
    }

    #[test]
    fn the_table_and_the_sort_agree_with_a_search() {
        // A dense list (table) and one spread over the whole index space (sort).
        let dense: Vec<u32> = (0..3000u32).map(|k| (k * 7919) % 1200 + 40).collect();
        let sparse: Vec<u32> = (0..3000u32)
            .map(|k| ((k * 7919) % 1200).wrapping_mul(3_579_139) | 1)
            .collect();
        let extremes = [u32::MAX, 0, u32::MAX, 5, 0];
        for list in [&dense[..], &sparse[..], &extremes[..]] {
            let (d, rows) = distinct_rows(list).unwrap();
            assert_eq!(distinct_count(list), d.len());
            assert_eq!((d, rows), by_search(list));
        }
        assert_eq!(distinct_count(&[]), 0);
        assert_eq!(distinct_count(&[4, 5, 6]), 3);
    }
}
