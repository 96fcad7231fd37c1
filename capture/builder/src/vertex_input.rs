//! libgcm-style vertex input calls: vertex arrays, the index array, primitive restart, and
//! immediate ("register") attributes (rrc-format.md 4.2 to 4.4).

use rsxtrace_rrc::Location;

use crate::builder::{check_range, CaptureBuilder};
use crate::error::BuildError;
use crate::methods as m;

/// Vertex attributes.
pub const ATTRIBUTES: u32 = 16;

/// Index element type of SET_INDEX_ARRAY_DMA (bits 4..11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexType {
    /// `CELL_GCM_DRAW_INDEX_ARRAY_TYPE_32` (0).
    U32,
    /// `CELL_GCM_DRAW_INDEX_ARRAY_TYPE_16` (1).
    U16,
}

fn check_attr(attr: u32) -> Result<(), BuildError> {
    check_range("vertex attribute", u64::from(attr), u64::from(ATTRIBUTES))
}

fn f(v: f32) -> u32 {
    v.to_bits()
}

/// Two signed 16-bit values in one word: first in the low half.
fn pack_s16(lo: i16, hi: i16) -> u32 {
    u32::from(lo as u16) | (u32::from(hi as u16) << 16)
}

impl CaptureBuilder {
    /// `cellGcmSetVertexDataArray`: SET_VERTEX_DATA_ARRAY_FORMAT (`type | size << 4 |
    /// stride << 8 | frequency << 16`) and SET_VERTEX_DATA_ARRAY_OFFSET (`location << 31 |
    /// offset`). `size` 0 disables the array.
    #[allow(clippy::too_many_arguments)]
    pub fn set_vertex_array(
        &mut self,
        attr: u32,
        type_code: u32,
        size: u32,
        stride: u32,
        frequency: u32,
        location: Location,
        offset: u32,
    ) -> Result<(), BuildError> {
        check_attr(attr)?;
        check_range("vertex array type", u64::from(type_code), 8)?;
        check_range("vertex array size", u64::from(size), 5)?;
        check_range("vertex array stride", u64::from(stride), 256)?;
        check_range("vertex array frequency", u64::from(frequency), 1 << 16)?;
        check_range("vertex array offset", u64::from(offset), 1 << 31)?;
        let loc_bit = match location {
            Location::Local => 0,
            Location::Main => 1 << 31,
        };
        self.record(
            m::SET_VERTEX_DATA_ARRAY_FORMAT + attr,
            type_code | (size << 4) | (stride << 8) | (frequency << 16),
        );
        self.record(m::SET_VERTEX_DATA_ARRAY_OFFSET + attr, loc_bit | offset);
        Ok(())
    }

    /// Disable vertex array `attr`: a format word with size 0 (type F, stride 0).
    pub fn disable_vertex_array(&mut self, attr: u32) -> Result<(), BuildError> {
        check_attr(attr)?;
        self.record(m::SET_VERTEX_DATA_ARRAY_FORMAT + attr, 2);
        Ok(())
    }

    /// SET_VERTEX_DATA_BASE_OFFSET: bytes added to every array offset.
    pub fn set_vertex_data_base_offset(&mut self, offset: u32) {
        self.record(m::SET_VERTEX_DATA_BASE_OFFSET, offset);
    }

    /// SET_VERTEX_DATA_BASE_INDEX: added to every fetched index.
    pub fn set_vertex_data_base_index(&mut self, index: u32) {
        self.record(m::SET_VERTEX_DATA_BASE_INDEX, index);
    }

    /// SET_FREQUENCY_DIVIDER_OPERATION: bit i = 1 modulo, 0 divide.
    pub fn set_frequency_divider_operation(&mut self, mask: u32) {
        self.record(m::SET_FREQUENCY_DIVIDER_OPERATION, mask);
    }

    /// SET_VERTEX_ATTRIB_INPUT_MASK on its own (set_vertex_program also writes it).
    pub fn set_vertex_attrib_input_mask(&mut self, mask: u32) {
        self.record(m::SET_VERTEX_ATTRIB_INPUT_MASK, mask);
    }

    /// `cellGcmSetIndexArray`-like: SET_INDEX_ARRAY_ADDRESS and SET_INDEX_ARRAY_DMA
    /// (`location | type << 4`).
    pub fn set_index_array(
        &mut self,
        location: Location,
        offset: u32,
        index_type: IndexType,
    ) -> Result<(), BuildError> {
        check_range("index array offset", u64::from(offset), 1 << 29)?;
        let loc = match location {
            Location::Local => 0,
            Location::Main => 1,
        };
        let ty = match index_type {
            IndexType::U32 => 0,
            IndexType::U16 => 1,
        };
        self.record(m::SET_INDEX_ARRAY_ADDRESS, offset);
        self.record(m::SET_INDEX_ARRAY_DMA, loc | (ty << 4));
        Ok(())
    }

    /// SET_RESTART_INDEX_ENABLE and SET_RESTART_INDEX.
    pub fn set_restart_index(&mut self, enable: bool, index: u32) {
        self.record(m::SET_RESTART_INDEX_ENABLE, u32::from(enable));
        self.record(m::SET_RESTART_INDEX, index);
    }

    /// SET_VERTEX_DATA1F_M: attribute `attr` = (x, 0, 0, 1).
    pub fn set_vertex_data_1f(&mut self, attr: u32, x: f32) -> Result<(), BuildError> {
        check_attr(attr)?;
        self.record(m::SET_VERTEX_DATA1F_M + attr, f(x));
        Ok(())
    }

    /// SET_VERTEX_DATA2F_M (two words per attribute).
    pub fn set_vertex_data_2f(&mut self, attr: u32, v: [f32; 2]) -> Result<(), BuildError> {
        check_attr(attr)?;
        for (j, x) in v.into_iter().enumerate() {
            self.record(m::SET_VERTEX_DATA2F_M + 2 * attr + j as u32, f(x));
        }
        Ok(())
    }

    /// SET_VERTEX_DATA3F_M (four registers per attribute, three written).
    pub fn set_vertex_data_3f(&mut self, attr: u32, v: [f32; 3]) -> Result<(), BuildError> {
        check_attr(attr)?;
        for (j, x) in v.into_iter().enumerate() {
            self.record(m::SET_VERTEX_DATA3F_M + 4 * attr + j as u32, f(x));
        }
        Ok(())
    }

    /// SET_VERTEX_DATA4F_M (four words per attribute).
    pub fn set_vertex_data_4f(&mut self, attr: u32, v: [f32; 4]) -> Result<(), BuildError> {
        check_attr(attr)?;
        for (j, x) in v.into_iter().enumerate() {
            self.record(m::SET_VERTEX_DATA4F_M + 4 * attr + j as u32, f(x));
        }
        Ok(())
    }

    /// SET_VERTEX_DATA2S_M: x in the low 16 bits, y in the high 16 bits.
    pub fn set_vertex_data_2s(&mut self, attr: u32, v: [i16; 2]) -> Result<(), BuildError> {
        check_attr(attr)?;
        self.record(m::SET_VERTEX_DATA2S_M + attr, pack_s16(v[0], v[1]));
        Ok(())
    }

    /// SET_VERTEX_DATA4S_M: word 0 = x (low), y (high); word 1 = z, w.
    pub fn set_vertex_data_4s(&mut self, attr: u32, v: [i16; 4]) -> Result<(), BuildError> {
        check_attr(attr)?;
        self.record(m::SET_VERTEX_DATA4S_M + 2 * attr, pack_s16(v[0], v[1]));
        self.record(m::SET_VERTEX_DATA4S_M + 2 * attr + 1, pack_s16(v[2], v[3]));
        Ok(())
    }

    /// SET_VERTEX_DATA_SCALED4S_M (normalized; same packing as 4S).
    pub fn set_vertex_data_scaled_4s(&mut self, attr: u32, v: [i16; 4]) -> Result<(), BuildError> {
        check_attr(attr)?;
        self.record(
            m::SET_VERTEX_DATA_SCALED4S_M + 2 * attr,
            pack_s16(v[0], v[1]),
        );
        self.record(
            m::SET_VERTEX_DATA_SCALED4S_M + 2 * attr + 1,
            pack_s16(v[2], v[3]),
        );
        Ok(())
    }

    /// SET_VERTEX_DATA4UB_M: x in bits 0..7 up to w in bits 24..31 (as RPCS3 reads it; see
    /// `rsxtrace_frame::immediate`).
    pub fn set_vertex_data_4ub(&mut self, attr: u32, v: [u8; 4]) -> Result<(), BuildError> {
        check_attr(attr)?;
        self.record(m::SET_VERTEX_DATA4UB_M + attr, u32::from_le_bytes(v));
        Ok(())
    }
}
