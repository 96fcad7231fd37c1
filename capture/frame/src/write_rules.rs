//! Writes the RSX front end refuses ([`refused`]): an invalid value written to a blend
//! factor, blend equation, stencil operation, cull face, front face, colour mask or index
//! array DMA register leaves the register as it was. RPCS3's method handlers roll such a
//! write back (`NV47/HW/nv4097.cpp`: `set_blend_factor`, `set_blend_equation`,
//! `set_stencil_op`, `set_face_property`, `set_color_mask`, `check_index_array_dma`, since
//! 1792714 and 58d8c65, April 2024), and its replay of a capture goes through them; the valid
//! values are those of its `gcm_enums.h` casts (`to_blend_factor`, `to_blend_equation`,
//! `to_stencil_op`, `to_cull_face`, `to_front_face`: a list, or ranges of values). For an
//! invalid index array DMA RPCS3 also recovers its FIFO (`recover_fifo`: the queue rewinds
//! and an open draw is dropped); the frame model keeps the register and draws on.

use crate::methods::reg;

/// Whether the front end refuses `value` written to register `reg` (the register keeps its
/// value). Registers without a rule accept every value.
pub fn refused(reg: u16, value: u32) -> bool {
    let halves = |valid: fn(u32) -> bool| !(valid(value & 0xFFFF) && valid(value >> 16));
    match reg {
        reg::SET_BLEND_FUNC_SFACTOR | reg::SET_BLEND_FUNC_DFACTOR => halves(blend_factor),
        reg::SET_BLEND_EQUATION => halves(blend_equation),
        reg::SET_STENCIL_OP_FAIL
        | reg::SET_STENCIL_OP_ZFAIL
        | reg::SET_STENCIL_OP_ZPASS
        | reg::SET_BACK_STENCIL_OP_FAIL
        | reg::SET_BACK_STENCIL_OP_ZFAIL
        | reg::SET_BACK_STENCIL_OP_ZPASS => !stencil_op(value),
        // FRONT, BACK, FRONT_AND_BACK.
        reg::SET_CULL_FACE => !matches!(value, 0x0404 | 0x0405 | 0x0408),
        // CW, CCW.
        reg::SET_FRONT_FACE => !(0x0900..=0x0901).contains(&value),
        // One bit per channel byte (`is_invalid`: any of 0xFEFEFEFE set).
        reg::SET_COLOR_MASK => value & 0xFEFE_FEFE != 0,
        // Location (bit 0) and the 16-bit index type (bit 4) only.
        reg::SET_INDEX_ARRAY_DMA => value & !0x11 != 0,
        _ => false,
    }
}

/// ZERO, ONE, or SRC_COLOR (0x300) up to ONE_MINUS_CONSTANT_ALPHA (0x8004), a range.
fn blend_factor(v: u32) -> bool {
    v <= 1 || (0x0300..=0x8004).contains(&v)
}

/// FUNC_ADD (0x8006) up to FUNC_REVERSE_SUBTRACT (0x800B), or the signed equations
/// (0xF005..=0xF007), ranges.
fn blend_equation(v: u32) -> bool {
    (0x8006..=0x800B).contains(&v) || (0xF005..=0xF007).contains(&v)
}

/// KEEP, ZERO, REPLACE, INCR, DECR, INVERT, INCR_WRAP, DECR_WRAP.
fn stencil_op(v: u32) -> bool {
    matches!(
        v,
        0x1E00 | 0 | 0x1E01 | 0x1E02 | 0x1E03 | 0x150A | 0x8507 | 0x8508
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_values_are_refused_and_valid_ones_kept() {
        // SRC_ALPHA / ONE_MINUS_SRC_ALPHA in both halves; CONSTANT_COLOR; a value in the
        // range no factor names (RPCS3 casts it unchecked) is not refused either.
        for v in [0x0302_0303, 0x0001_0000, 0x8001_8001, 0x1234_0300] {
            assert!(!refused(reg::SET_BLEND_FUNC_SFACTOR, v), "{v:#x}");
        }
        for v in [0x0302_0002, 0x8005_0302, 0x0302_00FF] {
            assert!(refused(reg::SET_BLEND_FUNC_DFACTOR, v), "{v:#x}");
        }
        assert!(!refused(reg::SET_BLEND_EQUATION, 0x8006_8006));
        assert!(!refused(reg::SET_BLEND_EQUATION, 0xF005_8008));
        // 0 is not FUNC_ADD's value: a write of 0 is refused.
        assert!(refused(reg::SET_BLEND_EQUATION, 0));
        assert!(!refused(reg::SET_STENCIL_OP_ZPASS, 0x1E00));
        assert!(!refused(reg::SET_BACK_STENCIL_OP_FAIL, 0));
        assert!(refused(reg::SET_STENCIL_OP_FAIL, 0x1E04));
        assert!(!refused(reg::SET_CULL_FACE, 0x0405));
        assert!(refused(reg::SET_CULL_FACE, 0x0406));
        assert!(!refused(reg::SET_FRONT_FACE, 0x0901));
        assert!(refused(reg::SET_FRONT_FACE, 1));
        assert!(!refused(reg::SET_COLOR_MASK, 0x0101_0001));
        assert!(refused(reg::SET_COLOR_MASK, 0x00FF_0000));
        assert!(!refused(reg::SET_INDEX_ARRAY_DMA, 0x11));
        assert!(refused(reg::SET_INDEX_ARRAY_DMA, 0x21));
        // Registers without a rule take anything.
        assert!(!refused(reg::SET_COLOR_MASK_MRT, 0xFFFF_FFFF));
    }
}
