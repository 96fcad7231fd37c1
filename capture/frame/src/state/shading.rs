//! Per-fragment shading registers the fixed function applies between the vertex and fragment
//! programs: two-sided colour, the fog equation and its parameters, and the user clip plane
//! control (the shade mode itself is `RasterModes::shade_mode`).
//!
//! Registers and values (RPCS3 `gcm_enums.h`, `rsx_decode.h`; libgcm's
//! `CELL_GCM_METHOD_SET_USER_CLIP_PLANE_CONTROL` packs the planes the same way):
//! - `NV4097_SET_TWO_SIDE_LIGHT_EN` (0x142C): non-zero enables two-sided colour;
//! - `NV4097_SET_FLAT_SHADE_OP` (0x1454): non-zero makes the **first** vertex provoke flat
//!   shading (envytools `nv30-40_3d.xml` names the register `FLATSHADE_FIRST`; Mesa's nv30/nv40
//!   driver writes gallium's `flatshade_first` to it; RPCS3 ignores it);
//! - `NV4097_SET_FOG_MODE` (0x08CC): `CELL_GCM_FOG_MODE_LINEAR` 0x2601, `EXP` 0x800, `EXP2`
//!   0x801, `EXP_ABS` 0x802, `EXP2_ABS` 0x803, `LINEAR_ABS` 0x804;
//! - `NV4097_SET_FOG_PARAMS` (0x08D0, 0x08D4): two floats, param 0 and param 1;
//! - `NV4097_SET_USER_CLIP_PLANE_CONTROL` (0x1478): plane `n` in bits `4n..4n+4`, 0 disabled,
//!   1 `ENABLE_LT`, 2 `ENABLE_GE`.

use super::{bits, r, Named};
use serde::Serialize;

/// `NV4097_SET_FOG_MODE` register index.
pub const SET_FOG_MODE: u16 = 0x08CC >> 2;
/// `NV4097_SET_FOG_PARAMS` register index (two words).
pub const SET_FOG_PARAMS: u16 = 0x08D0 >> 2;
/// `NV4097_SET_TWO_SIDE_LIGHT_EN` register index.
pub const SET_TWO_SIDE_LIGHT_EN: u16 = 0x142C >> 2;
/// `NV4097_SET_FLAT_SHADE_OP` register index.
pub const SET_FLAT_SHADE_OP: u16 = 0x1454 >> 2;
/// `NV4097_SET_USER_CLIP_PLANE_CONTROL` register index.
pub const SET_USER_CLIP_PLANE_CONTROL: u16 = 0x1478 >> 2;

const FOG_MODES: &[(u32, &str)] = &[
    (0x2601, "linear"),
    (0x0800, "exp"),
    (0x0801, "exp2"),
    (0x0802, "exp_abs"),
    (0x0803, "exp2_abs"),
    (0x0804, "linear_abs"),
];

const CLIP_PLANE_OPS: &[(u32, &str)] =
    &[(0, "disabled"), (1, "less_than"), (2, "greater_or_equal")];

/// Name a fog mode.
pub fn fog_mode(v: u32) -> Named {
    Named::lookup(v, FOG_MODES)
}

/// Name a user clip plane operation (one 4-bit field).
pub fn clip_plane_op(v: u32) -> Named {
    Named::lookup(v, CLIP_PLANE_OPS)
}

/// The per-fragment shading registers of a draw.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ShadingState {
    /// `SET_TWO_SIDE_LIGHT_EN`.
    pub two_side_light: bool,
    /// `SET_FLAT_SHADE_OP` non-zero: the first vertex provokes flat shading.
    pub flat_shade_first: bool,
    /// `SET_FOG_MODE` (0 when never written: not an enumerant).
    pub fog_mode: Named,
    /// `SET_FOG_PARAMS` as floats (param 0, param 1).
    pub fog_params: [f32; 2],
    /// `SET_USER_CLIP_PLANE_CONTROL`, plane 0..5.
    pub user_clip_planes: [Named; 6],
}

impl ShadingState {
    /// Decode from a register file.
    pub fn from_regs(regs: &[u32]) -> ShadingState {
        let control = r(regs, SET_USER_CLIP_PLANE_CONTROL);
        ShadingState {
            two_side_light: r(regs, SET_TWO_SIDE_LIGHT_EN) != 0,
            flat_shade_first: r(regs, SET_FLAT_SHADE_OP) != 0,
            fog_mode: fog_mode(r(regs, SET_FOG_MODE)),
            fog_params: [
                f32::from_bits(r(regs, SET_FOG_PARAMS)),
                f32::from_bits(r(regs, SET_FOG_PARAMS + 1)),
            ],
            user_clip_planes: std::array::from_fn(|n| {
                clip_plane_op(bits(control, 4 * n as u32, 4))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shading_registers() {
        let mut regs = vec![0u32; 0x4000];
        regs[0x142C / 4] = 1;
        regs[0x1454 / 4] = 1;
        regs[0x08CC / 4] = 0x0801;
        regs[0x08D0 / 4] = 1.5f32.to_bits();
        regs[0x08D4 / 4] = (-0.25f32).to_bits();
        // Planes 0 GE, 1 disabled, 2 LT, 5 an unknown value 7.
        regs[0x1478 / 4] = 2 | (1 << 8) | (7 << 20);
        let s = ShadingState::from_regs(&regs);
        assert!(s.two_side_light && s.flat_shade_first);
        assert_eq!(s.fog_mode.name, Some("exp2"));
        assert_eq!(s.fog_params, [1.5, -0.25]);
        let names = s.user_clip_planes.map(|p| p.name);
        assert_eq!(
            names,
            [
                Some("greater_or_equal"),
                Some("disabled"),
                Some("less_than"),
                Some("disabled"),
                Some("disabled"),
                None
            ]
        );
        assert_eq!(s.user_clip_planes[5].raw, 7);
        let none = ShadingState::from_regs(&[]);
        assert!(!none.two_side_light && !none.flat_shade_first);
        assert_eq!((none.fog_mode.raw, none.fog_mode.name), (0, None));
    }
}
