//! Validated element formats: a vertex type with a component count that RPCS3 accepts, the
//! element's host size (interleaving and capture ranges) and the bytes a fetch actually reads.

use crate::error::FetchError;
use crate::input::VertexType;

/// A `(type, size)` pair checked against the rules of RPCS3's `get_vertex_type_size_on_host`
/// (`RSXThread.cpp`, rrc-format.md 4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementFormat {
    ty: VertexType,
    size: u8,
}

impl ElementFormat {
    /// Check `size` for attribute `attribute`: 1..=4 for every type. A CMP element is one
    /// packed word whatever the size field says (RPCS3 sets size 1 for CMP before it fetches,
    /// `Core/RSXDrawCommands.cpp`); a UB256 array of 1 to 3 components is fetched with that
    /// many (RPCS3 requires 4 only for the host size of inline arrays, where it is 4 bytes
    /// anyway).
    pub fn new(attribute: u8, ty: VertexType, size: u8) -> Result<ElementFormat, FetchError> {
        if !(1..=4).contains(&size) {
            return Err(FetchError::InvalidSize { attribute, size });
        }
        let size = if ty == VertexType::CMP { 1 } else { size };
        Ok(ElementFormat { ty, size })
    }

    pub fn ty(self) -> VertexType {
        self.ty
    }

    /// Components per element (1..=4).
    pub fn size(self) -> u8 {
        self.size
    }

    /// Bytes of one component in guest memory (RSXVertexFetch.glsl `elem_size_table`); CMP is
    /// one 4-byte word for the whole element.
    pub fn component_bytes(self) -> u32 {
        match self.ty {
            VertexType::F | VertexType::CMP => 4,
            VertexType::S1 | VertexType::SF | VertexType::S32K => 2,
            VertexType::UB | VertexType::UB256 => 1,
        }
    }

    /// Bytes the fetch reads for one element: `size` components, or the one CMP word
    /// (RSXVertexFetch.glsl reads `attribute_size` components, RPCS3 sets size 1 for CMP).
    pub fn read_bytes(self) -> u32 {
        match self.ty {
            VertexType::CMP => 4,
            _ => self.component_bytes() * u32::from(self.size),
        }
    }

    /// Host element size (`get_vertex_type_size_on_host`): 16- and 8-bit types pad size 3 to
    /// 4 components, F does not, CMP and UB256 are 4 bytes. Used for inline-array interleaving.
    pub fn host_bytes(self) -> u32 {
        self.ty.host_bytes(self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(ty: VertexType, size: u8) -> ElementFormat {
        ElementFormat::new(0, ty, size).expect("valid format")
    }

    #[test]
    fn host_sizes_match_rpcs3_table() {
        // rrc-format.md 4.3 host element size table.
        let rows = [
            (VertexType::S1, [2, 4, 8, 8]),
            (VertexType::S32K, [2, 4, 8, 8]),
            (VertexType::F, [4, 8, 12, 16]),
            (VertexType::SF, [2, 4, 8, 8]),
            (VertexType::UB, [1, 2, 4, 4]),
        ];
        for (ty, sizes) in rows {
            for (i, want) in sizes.into_iter().enumerate() {
                let size = i as u8 + 1;
                assert_eq!(
                    fmt(ty, size).host_bytes(),
                    want,
                    "{} size {size}",
                    ty.name()
                );
            }
        }
        assert_eq!(fmt(VertexType::CMP, 1).host_bytes(), 4);
        assert_eq!(fmt(VertexType::UB256, 4).host_bytes(), 4);
    }

    #[test]
    fn read_bytes_do_not_pad() {
        assert_eq!(fmt(VertexType::S1, 3).read_bytes(), 6);
        assert_eq!(fmt(VertexType::UB, 3).read_bytes(), 3);
        assert_eq!(fmt(VertexType::F, 3).read_bytes(), 12);
        assert_eq!(fmt(VertexType::CMP, 1).read_bytes(), 4);
    }

    #[test]
    fn rejects_bad_sizes() {
        assert_eq!(
            ElementFormat::new(5, VertexType::F, 0),
            Err(FetchError::InvalidSize {
                attribute: 5,
                size: 0
            })
        );
        assert_eq!(
            ElementFormat::new(5, VertexType::UB, 5),
            Err(FetchError::InvalidSize {
                attribute: 5,
                size: 5
            })
        );
    }

    #[test]
    fn cmp_is_one_word_and_ub256_takes_any_size() {
        assert_eq!(
            fmt(VertexType::CMP, 1),
            ElementFormat::new(2, VertexType::CMP, 3).unwrap()
        );
        assert_eq!(
            ElementFormat::new(7, VertexType::UB256, 2)
                .unwrap()
                .read_bytes(),
            2
        );
    }
}
