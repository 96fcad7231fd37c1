//! Vertex-input state of a draw: the 16 attribute arrays, immediate values, masks, bases and
//! restart, in the form `rsxtrace_fetch::VertexInputs` (rrc-format.md 4.2 to 4.4).

use super::r;
use crate::methods::reg;
use rsxtrace_fetch::{
    FrequencyOp, ImmediateValue, Restart, VertexArray, VertexInputs, VertexSource, VertexType,
};
use rsxtrace_rrc::Location;

/// Decode attribute array `i` from a register file. `Err(size)` when the size field is 5..15.
pub fn vertex_array(regs: &[u32], i: u16) -> Result<Option<VertexArray>, u8> {
    let format = r(regs, reg::SET_VERTEX_DATA_ARRAY_FORMAT + i);
    let size = ((format >> 4) & 0xF) as u8;
    if size == 0 {
        return Ok(None);
    }
    if size > 4 {
        return Err(size);
    }
    let offset = r(regs, reg::SET_VERTEX_DATA_ARRAY_OFFSET + i);
    let ops = r(regs, reg::SET_FREQUENCY_DIVIDER_OPERATION);
    Ok(Some(VertexArray {
        ty: VertexType::from_field(format & 7),
        size,
        stride: (format >> 8) as u8,
        frequency: (format >> 16) as u16,
        frequency_op: if ops >> i & 1 != 0 {
            FrequencyOp::Modulo
        } else {
            FrequencyOp::Divide
        },
        offset: offset & 0x7FFF_FFFF,
        location: if offset >> 31 != 0 {
            Location::Main
        } else {
            Location::Local
        },
    }))
}

/// Build a draw's vertex inputs. Attributes with an invalid size field are reported in the
/// returned list as `(attribute, size)` and treated as disabled.
pub fn vertex_inputs(
    regs: &[u32],
    immediate: [ImmediateValue; 16],
    source: VertexSource,
) -> (VertexInputs, Vec<(u8, u8)>) {
    let mut bad = Vec::new();
    let arrays = std::array::from_fn(|i| match vertex_array(regs, i as u16) {
        Ok(a) => a,
        Err(size) => {
            bad.push((i as u8, size));
            None
        }
    });
    let inputs = VertexInputs {
        arrays,
        immediate,
        input_mask: r(regs, reg::SET_VERTEX_ATTRIB_INPUT_MASK) as u16,
        base_offset: r(regs, reg::SET_VERTEX_DATA_BASE_OFFSET),
        base_index: r(regs, reg::SET_VERTEX_DATA_BASE_INDEX),
        restart: Restart {
            // Any non-zero value enables it (RPCS3 rsx_decode.h `bool(enabled)`).
            enabled: r(regs, reg::SET_RESTART_INDEX_ENABLE) != 0,
            index: r(regs, reg::SET_RESTART_INDEX),
        },
        source,
    };
    (inputs, bad)
}

/// Bytes per vertex of an inline array: the sum of the host sizes of the enabled arrays (RPCS3
/// computes the inline vertex count as `words * 4 / stride` with this stride).
pub fn inline_stride(arrays: &[Option<VertexArray>; 16]) -> u32 {
    arrays
        .iter()
        .flatten()
        .map(|a| a.ty.host_bytes(a.size))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_registers() {
        let mut regs = vec![0u32; 0x4000];
        // Attribute 3: frequency 4, stride 16, size 3, type F (2) -> 0x0004_1032.
        regs[(0x1740 + 12) / 4] = 0x0004_1032;
        regs[(0x1680 + 12) / 4] = 0x8000_1000;
        regs[0x1FC0 / 4] = 1 << 3;
        // Attribute 5: size 7 is invalid.
        regs[(0x1740 + 20) / 4] = 0x0000_0872;
        regs[0x1FF0 / 4] = 0x0000_0009;
        regs[0x1738 / 4] = 0x40;
        regs[0x173C / 4] = 3;
        regs[0x1DAC / 4] = 1;
        regs[0x1DB0 / 4] = 0xFFFF;
        let (v, bad) = vertex_inputs(
            &regs,
            [ImmediateValue::Unknown; 16],
            VertexSource::Arrays { ranges: vec![] },
        );
        let a = v.arrays[3].unwrap();
        assert_eq!(a.ty, VertexType::F);
        assert_eq!((a.size, a.stride, a.frequency), (3, 16, 4));
        assert_eq!(a.frequency_op, FrequencyOp::Modulo);
        assert_eq!((a.offset, a.location), (0x1000, Location::Main));
        assert_eq!(v.arrays[0], None);
        assert_eq!(bad, vec![(5, 7)]);
        assert_eq!(v.input_mask, 9);
        assert_eq!((v.base_offset, v.base_index), (0x40, 3));
        assert_eq!(
            v.restart,
            Restart {
                enabled: true,
                index: 0xFFFF
            }
        );
        assert_eq!(inline_stride(&v.arrays), 12);
        regs[0x1DAC / 4] = 2;
        let (v, _) = vertex_inputs(
            &regs,
            [ImmediateValue::Unknown; 16],
            VertexSource::Arrays { ranges: vec![] },
        );
        assert!(v.restart.enabled, "any non-zero value enables restart");
    }

    #[test]
    fn host_sizes() {
        assert_eq!(VertexType::S1.host_bytes(3), 8);
        assert_eq!(VertexType::F.host_bytes(3), 12);
        assert_eq!(VertexType::SF.host_bytes(2), 4);
        assert_eq!(VertexType::UB.host_bytes(3), 4);
        assert_eq!(VertexType::UB.host_bytes(2), 2);
        assert_eq!(VertexType::CMP.host_bytes(1), 4);
    }
}
