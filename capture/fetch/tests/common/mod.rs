//! Test helpers: a sparse guest memory made of hand-placed blocks, and input builders.

#![allow(dead_code)]

use rsxtrace_fetch::*;
use rsxtrace_rrc::Location;
use std::collections::BTreeMap;

/// Blocks of bytes keyed by (location, start offset), like the memory blocks of a capture.
#[derive(Default)]
pub struct TestMemory {
    blocks: BTreeMap<(Location, u32), Vec<u8>>,
}

impl TestMemory {
    pub fn new() -> TestMemory {
        TestMemory::default()
    }

    pub fn with(mut self, location: Location, offset: u32, bytes: Vec<u8>) -> TestMemory {
        self.blocks.insert((location, offset), bytes);
        self
    }
}

impl GuestMemory for TestMemory {
    fn read(
        &self,
        location: Location,
        offset: u32,
        len: u32,
    ) -> Option<std::borrow::Cow<'_, [u8]>> {
        let ((_, start), bytes) = self
            .blocks
            .range((location, 0)..=(location, offset))
            .next_back()?;
        let rel = (offset - start) as usize;
        bytes
            .get(rel..rel.checked_add(len as usize)?)
            .map(std::borrow::Cow::Borrowed)
    }
}

pub fn array(ty: VertexType, size: u8, stride: u8, offset: u32, location: Location) -> VertexArray {
    VertexArray {
        ty,
        size,
        stride,
        frequency: 0,
        frequency_op: FrequencyOp::Divide,
        offset,
        location,
    }
}

/// Inputs with no arrays, unknown immediates, no restart, base 0, the given source and mask.
pub fn inputs(input_mask: u16, source: VertexSource) -> VertexInputs {
    VertexInputs {
        arrays: [None; 16],
        immediate: [ImmediateValue::Unknown; 16],
        input_mask,
        base_offset: 0,
        base_index: 0,
        restart: Restart {
            enabled: false,
            index: 0,
        },
        source,
    }
}

pub fn arrays(ranges: &[(u32, u32)]) -> VertexSource {
    VertexSource::Arrays {
        ranges: ranges
            .iter()
            .map(|&(first, count)| DrawRange { first, count })
            .collect(),
    }
}

pub fn indexed(
    ty: IndexType,
    offset: u32,
    location: Location,
    ranges: &[(u32, u32)],
) -> VertexSource {
    VertexSource::Indexed {
        index: IndexArray {
            ty,
            offset,
            location,
        },
        ranges: ranges
            .iter()
            .map(|&(first, count)| DrawRange { first, count })
            .collect(),
    }
}

pub fn be_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

pub fn be_u16(values: &[u16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

pub fn be_u32(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

/// The values of attribute `attribute`, panicking (test only) when absent.
pub fn column(fetched: &FetchedVertices, attribute: u8) -> Vec<[f32; 4]> {
    fetched
        .attribute(attribute)
        .unwrap_or_else(|| panic!("attribute {attribute} missing"))
        .values
        .clone()
}
