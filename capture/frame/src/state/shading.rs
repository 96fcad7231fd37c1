//! Per-fragment shading registers the fixed function applies between the vertex and fragment
//! programs: two-sided colour, the fog equation and its parameters, the user clip plane
//! control and the 2D texture coordinates (the shade mode itself is `RasterModes::shade_mode`).
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
//!   1 `ENABLE_LT`, 2 `ENABLE_GE`;
//! - `NV4097_SET_TEX_COORD_CONTROL` (0x0B40 + 4n, n = 0..9): bit 0 makes texture coordinate
//!   `n` two-dimensional (RPCS3 `rsx_methods.h` `texcoord_control_mask`).

use super::{bits, r, Named};
use serde::Serialize;

/// Register indices of the shading registers (the one table, `crate::methods::reg`).
pub use crate::methods::reg::{
    SET_FLAT_SHADE_OP, SET_FOG_MODE, SET_FOG_PARAMS, SET_TEX_COORD_CONTROL, SET_TWO_SIDE_LIGHT_EN,
    SET_USER_CLIP_PLANE_CONTROL,
};

/// The fog equations of `SET_FOG_MODE` (`CELL_GCM_FOG_MODE_*`, RPCS3 `gcm_enums.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FogMode {
    /// `LINEAR`, 0x2601.
    Linear,
    /// `EXP`, 0x800.
    Exp,
    /// `EXP2`, 0x801.
    Exp2,
    /// `EXP_ABS`, 0x802.
    ExpAbs,
    /// `EXP2_ABS`, 0x803.
    Exp2Abs,
    /// `LINEAR_ABS`, 0x804.
    LinearAbs,
}

impl FogMode {
    /// Every mode.
    pub const ALL: [FogMode; 6] = [
        FogMode::Linear,
        FogMode::Exp,
        FogMode::Exp2,
        FogMode::ExpAbs,
        FogMode::Exp2Abs,
        FogMode::LinearAbs,
    ];

    /// The register value.
    pub const fn raw(self) -> u32 {
        match self {
            FogMode::Linear => 0x2601,
            FogMode::Exp => 0x0800,
            FogMode::Exp2 => 0x0801,
            FogMode::ExpAbs => 0x0802,
            FogMode::Exp2Abs => 0x0803,
            FogMode::LinearAbs => 0x0804,
        }
    }

    /// The name `--json` prints.
    pub const fn name(self) -> &'static str {
        match self {
            FogMode::Linear => "linear",
            FogMode::Exp => "exp",
            FogMode::Exp2 => "exp2",
            FogMode::ExpAbs => "exp_abs",
            FogMode::Exp2Abs => "exp2_abs",
            FogMode::LinearAbs => "linear_abs",
        }
    }

    /// Decode a `SET_FOG_MODE` value; `None` when it is not a fog mode.
    pub fn from_raw(v: u32) -> Option<FogMode> {
        FogMode::ALL.into_iter().find(|m| m.raw() == v)
    }

    /// The `_ABS` modes, which evaluate on |c|.
    pub const fn uses_abs(self) -> bool {
        matches!(
            self,
            FogMode::ExpAbs | FogMode::Exp2Abs | FogMode::LinearAbs
        )
    }
}

/// A user clip plane's operation (one 4-bit field of `SET_USER_CLIP_PLANE_CONTROL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClipPlaneOp {
    /// 0.
    Disabled,
    /// 1: `CELL_GCM_USER_CLIP_PLANE_ENABLE_LT`.
    LessThan,
    /// 2: `CELL_GCM_USER_CLIP_PLANE_ENABLE_GE`.
    GreaterOrEqual,
}

impl ClipPlaneOp {
    /// Every operation.
    pub const ALL: [ClipPlaneOp; 3] = [
        ClipPlaneOp::Disabled,
        ClipPlaneOp::LessThan,
        ClipPlaneOp::GreaterOrEqual,
    ];

    /// The field value.
    pub const fn raw(self) -> u32 {
        match self {
            ClipPlaneOp::Disabled => 0,
            ClipPlaneOp::LessThan => 1,
            ClipPlaneOp::GreaterOrEqual => 2,
        }
    }

    /// The name `--json` prints.
    pub const fn name(self) -> &'static str {
        match self {
            ClipPlaneOp::Disabled => "disabled",
            ClipPlaneOp::LessThan => "less_than",
            ClipPlaneOp::GreaterOrEqual => "greater_or_equal",
        }
    }

    /// Decode a 4-bit field; `None` when it is not an operation.
    pub fn from_raw(v: u32) -> Option<ClipPlaneOp> {
        ClipPlaneOp::ALL.into_iter().find(|o| o.raw() == v)
    }
}

/// Name a fog mode.
pub fn fog_mode(v: u32) -> Named {
    Named {
        raw: v,
        name: FogMode::from_raw(v).map(FogMode::name),
    }
}

/// Name a user clip plane operation (one 4-bit field).
pub fn clip_plane_op(v: u32) -> Named {
    Named {
        raw: v,
        name: ClipPlaneOp::from_raw(v).map(ClipPlaneOp::name),
    }
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
    /// `SET_TEX_COORD_CONTROL[n]` bit 0 as bit `n` (n = 0..9): texture coordinate `n` is
    /// two-dimensional.
    pub texcoord_2d: u16,
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
            texcoord_2d: (0..10u16).fold(0, |mask, n| {
                mask | (((r(regs, SET_TEX_COORD_CONTROL + n) & 1) as u16) << n)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumerants_are_gcm_enums_values() {
        // CELL_GCM_FOG_MODE_* and CELL_GCM_USER_CLIP_PLANE_* (RPCS3 gcm_enums.h).
        let fog = [
            (0x2601, "linear"),
            (0x0800, "exp"),
            (0x0801, "exp2"),
            (0x0802, "exp_abs"),
            (0x0803, "exp2_abs"),
            (0x0804, "linear_abs"),
        ];
        for (raw, name) in fog {
            assert_eq!(fog_mode(raw).name, Some(name));
            assert_eq!(FogMode::from_raw(raw).map(FogMode::raw), Some(raw));
        }
        assert_eq!(fog_mode(0x0805).name, None);
        assert_eq!(FogMode::from_raw(0), None);
        for (raw, op) in [
            (0, ClipPlaneOp::Disabled),
            (1, ClipPlaneOp::LessThan),
            (2, ClipPlaneOp::GreaterOrEqual),
        ] {
            assert_eq!(ClipPlaneOp::from_raw(raw), Some(op));
        }
        assert_eq!(ClipPlaneOp::from_raw(3), None);
    }

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
        assert_eq!(s.texcoord_2d, 0);
        // TEX_COORD_CONTROL: bit 0 of each register counts; 9 is the last coordinate.
        regs[0x0B40 / 4] = 1;
        regs[0x0B44 / 4] = 0x10;
        regs[0x0B64 / 4] = 3;
        regs[0x0B68 / 4] = 1; // past the ten registers
        assert_eq!(ShadingState::from_regs(&regs).texcoord_2d, 0b10_0000_0001);
        let none = ShadingState::from_regs(&[]);
        assert!(!none.two_side_light && !none.flat_shade_first);
        assert_eq!((none.fog_mode.raw, none.fog_mode.name), (0, None));
    }
}
