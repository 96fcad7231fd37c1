//! Index reading: big-endian u16/u32 index buffers (`DRAW_INDEX_ARRAY`) and `ARRAY_ELEMENT`
//! lists, with primitive restart and the vertex base index applied.

use crate::error::FetchError;
use crate::input::{DrawRange, IndexArray, IndexType, Restart};
use crate::GuestMemory;

/// `SET_VERTEX_DATA_BASE_INDEX` result mask (rrc-format.md 4.2, RPCS3 `rsx_utils.h`
/// `get_index_from_base`).
pub const INDEX_MASK: u32 = 0xF_FFFF;

/// Indices of a draw after restart removal and base-index application.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexList {
    /// `(raw + base_index) & 0xFFFFF` per submitted vertex.
    pub indices: Vec<u32>,
    /// Output positions where a new primitive starts after a restart index.
    pub restarts: Vec<usize>,
    /// Output position where each range starts.
    pub range_starts: Vec<usize>,
}

impl IndexList {
    fn push_raw(&mut self, raw: u32, restart: Option<u32>, base_index: u32) {
        if restart == Some(raw) {
            // A run of restarts starts one primitive.
            let position = self.indices.len();
            if self.restarts.last() != Some(&position) {
                self.restarts.push(position);
            }
            return;
        }
        self.indices.push(raw.wrapping_add(base_index) & INDEX_MASK);
    }
}

/// The restart value in effect for `ty`, or `None` when restart is off. RPCS3 ignores restart
/// for u16 indices when the restart value does not fit in 16 bits (`BufferUtils.cpp`
/// `upload_untouched`); the comparison is on the raw index, before the base index.
pub fn restart_value(restart: Restart, ty: IndexType) -> Option<u32> {
    if !restart.enabled {
        return None;
    }
    match ty {
        IndexType::U16 if restart.index > 0xFFFF => None,
        _ => Some(restart.index),
    }
}

/// `(offset, len)` of the bytes range `range_no` (`range`) of a `DRAW_INDEX_ARRAY` draw reads
/// from the index buffer `index`.
pub fn index_range_bytes(
    index: &IndexArray,
    range_no: usize,
    range: &DrawRange,
) -> Result<(u32, u32), FetchError> {
    let type_size = index.ty.size();
    // RPCS3 forces the index buffer address to the index size, "as realhw"
    // (RSXDrawCommands.cpp `get_raw_index_array`).
    let aligned = index.offset & !(type_size - 1);
    let len = u64::from(range.count) * u64::from(type_size);
    let len = u32::try_from(len).map_err(|_| FetchError::IndexRangeTooLarge {
        range: range_no,
        count: range.count,
        type_size,
    })?;
    Ok((
        aligned.wrapping_add(range.first.wrapping_mul(type_size)),
        len,
    ))
}

/// Read the index ranges of a `DRAW_INDEX_ARRAY` draw. The caller has checked the total count
/// against the vertex limit.
pub fn read_indexed(
    index: &IndexArray,
    ranges: &[DrawRange],
    base_index: u32,
    restart: Restart,
    mem: &impl GuestMemory,
) -> Result<IndexList, FetchError> {
    let restart = restart_value(restart, index.ty);
    let mut list = IndexList::default();
    for (range_no, range) in ranges.iter().enumerate() {
        let (offset, len) = index_range_bytes(index, range_no, range)?;
        let bytes = mem
            .read(index.location, offset, len)
            .filter(|b| b.len() >= len as usize)
            .ok_or(FetchError::IndexMemory {
                range: range_no,
                location: index.location,
                offset,
                len,
            })?;
        list.range_starts.push(list.indices.len());
        list.indices.reserve(range.count as usize);
        match index.ty {
            IndexType::U16 => {
                for c in bytes.chunks_exact(2) {
                    list.push_raw(
                        u32::from(u16::from_be_bytes([c[0], c[1]])),
                        restart,
                        base_index,
                    );
                }
            }
            IndexType::U32 => {
                for c in bytes.chunks_exact(4) {
                    list.push_raw(
                        u32::from_be_bytes([c[0], c[1], c[2], c[3]]),
                        restart,
                        base_index,
                    );
                }
            }
        }
    }
    Ok(list)
}

/// Build the index list of an `ARRAY_ELEMENT16/32` draw. RPCS3 keeps these indices as u32
/// (`is_immediate_draw` selects `index_array_type::u32`, VKVertexBuffers.cpp), so restart uses
/// the u32 rule, and the base index applies as for any indexed draw.
pub fn element_indices(indices: &[u32], base_index: u32, restart: Restart) -> IndexList {
    let restart = restart_value(restart, IndexType::U32);
    let mut list = IndexList {
        indices: Vec::with_capacity(indices.len()),
        restarts: Vec::new(),
        range_starts: vec![0],
    };
    for &raw in indices {
        list.push_raw(raw, restart, base_index);
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restart_rules() {
        let on = |index| Restart {
            enabled: true,
            index,
        };
        assert_eq!(restart_value(on(0xFFFF), IndexType::U16), Some(0xFFFF));
        assert_eq!(restart_value(on(0x1_0000), IndexType::U16), None);
        assert_eq!(restart_value(on(0xFFFF_FFFF), IndexType::U16), None);
        assert_eq!(
            restart_value(on(0xFFFF_FFFF), IndexType::U32),
            Some(0xFFFF_FFFF)
        );
        let off = Restart {
            enabled: false,
            index: 7,
        };
        assert_eq!(restart_value(off, IndexType::U32), None);
    }

    #[test]
    fn elements_apply_base_index_and_restart() {
        let restart = Restart {
            enabled: true,
            index: 9,
        };
        let list = element_indices(&[1, 9, 9, 2, 0xFFFFF], 3, restart);
        assert_eq!(list.indices, vec![4, 5, 2]);
        assert_eq!(list.restarts, vec![1]);
        assert_eq!(list.range_starts, vec![0]);
    }
}
