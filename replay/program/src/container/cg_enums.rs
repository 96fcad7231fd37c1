//! Cg runtime enumerations stored in `CgBinaryParameter` records: `CGtype`, `CGresource`,
//! variability and direction. Values are facts from the NVIDIA Cg headers (`cg_datatypes.h`,
//! `cg_bindlocations.h`, `cg_enums.h`, Cg 2.x numbering as used by the PS3 `sce-cgc`); every
//! decoder keeps unknown values in an `Other(u32)` variant.

use serde::Serialize;

/// Scalar base of a numeric Cg type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CgBase {
    /// `half` (fp16).
    Half,
    /// `float` (fp32).
    Float,
    /// `fixed` (fx12).
    Fixed,
}

/// `CGtype` of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CgType {
    /// `float`, `half`, `fixed` (e.g. `CG_FLOAT` = 1045).
    Scalar(CgBase),
    /// `floatN` with N components 1..=4 (e.g. `CG_FLOAT4` = 1048, `CG_FLOAT1` = 1091).
    Vector(CgBase, u8),
    /// `floatRxC` (e.g. `CG_FLOAT4x4` = 1064).
    Matrix {
        /// Scalar base type.
        base: CgBase,
        /// Rows, 1..=4.
        rows: u8,
        /// Columns, 1..=4.
        cols: u8,
    },
    /// `CG_SAMPLER1D` = 1065.
    Sampler1D,
    /// `CG_SAMPLER2D` = 1066.
    Sampler2D,
    /// `CG_SAMPLER3D` = 1067.
    Sampler3D,
    /// `CG_SAMPLERRECT` = 1068.
    SamplerRect,
    /// `CG_SAMPLERCUBE` = 1069.
    SamplerCube,
    /// Any other value.
    Other(u32),
}

// Cg cg_datatypes.h (CG_TYPE_START_ENUM = 1024): for each of half (1025), float (1045) and
// fixed (1070): scalar, vec2..vec4, then the 16 matrices 1x1..4x4 in row-major order.
const HALF_BASE: u32 = 1025;
const FLOAT_BASE: u32 = 1045;
const FIXED_BASE: u32 = 1070;
// cg_datatypes.h: CG_HALF1 = 1090, CG_FLOAT1 = 1091, CG_FIXED1 = 1092.
const HALF1: u32 = 1090;

impl CgType {
    /// Decodes a raw `CGtype`.
    pub fn from_raw(v: u32) -> Self {
        let family = |start: u32, base: CgBase| -> Option<CgType> {
            let i = v.checked_sub(start)?;
            match i {
                0 => Some(CgType::Scalar(base)),
                1..=3 => Some(CgType::Vector(base, (i + 1) as u8)),
                4..=19 => {
                    let m = i - 4;
                    Some(CgType::Matrix {
                        base,
                        rows: (m / 4 + 1) as u8,
                        cols: (m % 4 + 1) as u8,
                    })
                }
                _ => None,
            }
        };
        match v {
            1065 => Self::Sampler1D,
            1066 => Self::Sampler2D,
            1067 => Self::Sampler3D,
            1068 => Self::SamplerRect,
            1069 => Self::SamplerCube,
            1090 => Self::Vector(CgBase::Half, 1),
            1091 => Self::Vector(CgBase::Float, 1),
            1092 => Self::Vector(CgBase::Fixed, 1),
            HALF_BASE..=1044 => family(HALF_BASE, CgBase::Half).unwrap_or(Self::Other(v)),
            FLOAT_BASE..=1064 => family(FLOAT_BASE, CgBase::Float).unwrap_or(Self::Other(v)),
            FIXED_BASE..=1089 => family(FIXED_BASE, CgBase::Fixed).unwrap_or(Self::Other(v)),
            _ => Self::Other(v),
        }
    }

    /// Encodes back to the raw `CGtype` value.
    pub fn to_raw(self) -> u32 {
        let start = |b: CgBase| match b {
            CgBase::Half => HALF_BASE,
            CgBase::Float => FLOAT_BASE,
            CgBase::Fixed => FIXED_BASE,
        };
        let index = |b: CgBase| match b {
            CgBase::Half => 0,
            CgBase::Float => 1,
            CgBase::Fixed => 2,
        };
        match self {
            Self::Scalar(b) => start(b),
            Self::Vector(b, 1) => HALF1 + index(b),
            Self::Vector(b, n) => start(b) + u32::from(n) - 1,
            Self::Matrix { base, rows, cols } => {
                start(base) + 4 + (u32::from(rows) - 1) * 4 + (u32::from(cols) - 1)
            }
            Self::Sampler1D => 1065,
            Self::Sampler2D => 1066,
            Self::Sampler3D => 1067,
            Self::SamplerRect => 1068,
            Self::SamplerCube => 1069,
            Self::Other(v) => v,
        }
    }

    /// Number of scalar components (1 for scalars, N for vectors, R*C for matrices); `None`
    /// for samplers and unknown types.
    pub fn components(self) -> Option<u32> {
        match self {
            Self::Scalar(_) => Some(1),
            Self::Vector(_, n) => Some(u32::from(n)),
            Self::Matrix { rows, cols, .. } => Some(u32::from(rows) * u32::from(cols)),
            _ => None,
        }
    }
}

/// `CGresource`: where a parameter is bound. Indexed families carry their index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CgResource {
    /// `CG_TEXUNIT0..15` = 2048..2063.
    TexUnit(u8),
    /// `CG_ATTR0..15` = 2113..2128 (vertex input attributes).
    Attr(u8),
    /// `CG_C` = 2178: constant register file; the register is the parameter's resource index.
    C,
    /// `CG_HPOS` = 2243 (clip-space position output).
    HPos,
    /// `CG_COL0..3` = 2245..2248 (vertex colour outputs).
    Col(u8),
    /// `CG_PSIZ` = 2309.
    Psiz,
    /// `CG_WPOS` = 2373.
    Wpos,
    /// `CG_POSITION0..15` = 2437..2452.
    Position(u8),
    /// `CG_COLOR0..15` = 2757..2772.
    Color(u8),
    /// `CG_FOG0..15` = 2917..2932.
    Fog(u8),
    /// `CG_DEPTH0..8` = 2933..2941.
    Depth(u8),
    /// `CG_NORMAL0..15` = 3092..3107.
    Normal(u8),
    /// `CG_FOGCOORD` = 3156.
    FogCoord,
    /// `CG_TEXCOORD0..15` = 3220..3235.
    TexCoord(u8),
    /// `CG_UNDEFINED` = 3256 (sce-cgc uses it for fragment uniforms held in inline constants).
    Undefined,
    /// Any other value.
    Other(u32),
}

/// (first value, count, constructor) of one indexed resource family.
type ResourceFamily = (u32, u32, fn(u8) -> CgResource);

/// The indexed resource families (cg_bindlocations.h).
const RESOURCE_FAMILIES: &[ResourceFamily] = &[
    (2048, 16, CgResource::TexUnit),
    (2113, 16, CgResource::Attr),
    (2245, 4, CgResource::Col),
    (2437, 16, CgResource::Position),
    (2757, 16, CgResource::Color),
    (2917, 16, CgResource::Fog),
    (2933, 9, CgResource::Depth),
    (3092, 16, CgResource::Normal),
    (3220, 16, CgResource::TexCoord),
];

impl CgResource {
    /// Decodes a raw `CGresource`.
    pub fn from_raw(v: u32) -> Self {
        match v {
            2178 => return Self::C,
            2243 => return Self::HPos,
            2309 => return Self::Psiz,
            2373 => return Self::Wpos,
            3156 => return Self::FogCoord,
            3256 => return Self::Undefined,
            _ => {}
        }
        for &(start, count, make) in RESOURCE_FAMILIES {
            if let Some(i) = v.checked_sub(start) {
                if i < count {
                    return make(i as u8);
                }
            }
        }
        Self::Other(v)
    }

    /// Encodes back to the raw `CGresource` value.
    pub fn to_raw(self) -> u32 {
        let fam = |start: u32, i: u8| start + u32::from(i);
        match self {
            Self::TexUnit(i) => fam(2048, i),
            Self::Attr(i) => fam(2113, i),
            Self::C => 2178,
            Self::HPos => 2243,
            Self::Col(i) => fam(2245, i),
            Self::Psiz => 2309,
            Self::Wpos => 2373,
            Self::Position(i) => fam(2437, i),
            Self::Color(i) => fam(2757, i),
            Self::Fog(i) => fam(2917, i),
            Self::Depth(i) => fam(2933, i),
            Self::Normal(i) => fam(3092, i),
            Self::FogCoord => 3156,
            Self::TexCoord(i) => fam(3220, i),
            Self::Undefined => 3256,
            Self::Other(v) => v,
        }
    }
}

/// Parameter variability (`CGenum`, cg_enums.h Cg 2.x numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CgVariability {
    /// `CG_MIXED` = 4100.
    Mixed,
    /// `CG_VARYING` = 4101.
    Varying,
    /// `CG_UNIFORM` = 4102.
    Uniform,
    /// `CG_CONSTANT` = 4103.
    Constant,
    /// Any other value.
    Other(u32),
}

impl CgVariability {
    /// Decodes a raw variability value.
    pub fn from_raw(v: u32) -> Self {
        match v {
            4100 => Self::Mixed,
            4101 => Self::Varying,
            4102 => Self::Uniform,
            4103 => Self::Constant,
            _ => Self::Other(v),
        }
    }

    /// Encodes back to the raw value.
    pub fn to_raw(self) -> u32 {
        match self {
            Self::Mixed => 4100,
            Self::Varying => 4101,
            Self::Uniform => 4102,
            Self::Constant => 4103,
            Self::Other(v) => v,
        }
    }
}

/// Parameter direction (`CGenum`, cg_enums.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CgDirection {
    /// `CG_IN` = 4097.
    In,
    /// `CG_OUT` = 4098.
    Out,
    /// `CG_INOUT` = 4099.
    InOut,
    /// Any other value.
    Other(u32),
}

impl CgDirection {
    /// Decodes a raw direction value.
    pub fn from_raw(v: u32) -> Self {
        match v {
            4097 => Self::In,
            4098 => Self::Out,
            4099 => Self::InOut,
            _ => Self::Other(v),
        }
    }

    /// Encodes back to the raw value.
    pub fn to_raw(self) -> u32 {
        match self {
            Self::In => 4097,
            Self::Out => 4098,
            Self::InOut => 4099,
            Self::Other(v) => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_round_trip_and_known_values() {
        assert_eq!(CgType::from_raw(1048), CgType::Vector(CgBase::Float, 4));
        assert_eq!(
            CgType::from_raw(1064),
            CgType::Matrix {
                base: CgBase::Float,
                rows: 4,
                cols: 4
            }
        );
        assert_eq!(CgType::from_raw(1045), CgType::Scalar(CgBase::Float));
        assert_eq!(CgType::from_raw(1066), CgType::Sampler2D);
        assert_eq!(CgType::from_raw(1028), CgType::Vector(CgBase::Half, 4));
        assert_eq!(CgType::from_raw(7), CgType::Other(7));
        for v in 1000..1200 {
            assert_eq!(CgType::from_raw(v).to_raw(), v, "type {v}");
        }
    }

    #[test]
    fn resources_round_trip_and_known_values() {
        assert_eq!(CgResource::from_raw(0x841), CgResource::Attr(0));
        assert_eq!(CgResource::from_raw(0x882), CgResource::C);
        assert_eq!(CgResource::from_raw(0xac5), CgResource::Color(0));
        assert_eq!(CgResource::from_raw(0xc94), CgResource::TexCoord(0));
        assert_eq!(CgResource::from_raw(0x800), CgResource::TexUnit(0));
        assert_eq!(CgResource::from_raw(3256), CgResource::Undefined);
        for v in 2000..3300 {
            assert_eq!(CgResource::from_raw(v).to_raw(), v, "resource {v}");
        }
        for v in 4090..4110 {
            assert_eq!(CgVariability::from_raw(v).to_raw(), v);
            assert_eq!(CgDirection::from_raw(v).to_raw(), v);
        }
    }
}
