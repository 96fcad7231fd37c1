//! Decoded register state of a draw: textures, surfaces, raster/blend state and vertex inputs.
//! Each submodule turns raw register words into `Serialize` structs (rrc-format.md 4.2 to 4.8).

pub mod primitive_raster;
pub mod raster;
pub mod shading;
pub mod surface;
pub mod texture;
pub mod vertex;

pub use primitive_raster::*;
pub use raster::*;
pub use shading::{ClipPlaneOp, FogMode, ShadingState};
pub use surface::*;
pub use texture::*;

use serde::{Serialize, Serializer};

/// A raw enumerated value and its name when the value is a known one. Serialises as the name,
/// or as the raw number when the value is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named {
    /// The raw field value.
    pub raw: u32,
    /// The value's name (lowercase), if it is one of the documented values.
    pub name: Option<&'static str>,
}

impl Named {
    /// Look `raw` up in a `(value, name)` table.
    pub fn lookup(raw: u32, table: &[(u32, &'static str)]) -> Named {
        Named {
            raw,
            name: table.iter().find(|(v, _)| *v == raw).map(|(_, n)| *n),
        }
    }
}

impl Serialize for Named {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.name {
            Some(n) => s.serialize_str(n),
            None => s.serialize_u32(self.raw),
        }
    }
}

/// Read a register from a register file; registers outside the file read as 0.
#[inline]
pub(crate) fn r(regs: &[u32], reg: u16) -> u32 {
    regs.get(reg as usize).copied().unwrap_or(0)
}

/// Bits `lo..lo+len` of `v`.
#[inline]
pub(crate) fn bits(v: u32, lo: u32, len: u32) -> u32 {
    (v >> lo) & ((1u32 << len) - 1)
}

/// A `{x, y, width, height}` rectangle from a pair of horizontal/vertical registers, each with
/// the origin in bits 0..15 and the size in bits 16..31 (rrc-format.md 4.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rect {
    /// Origin x.
    pub x: u16,
    /// Origin y.
    pub y: u16,
    /// Width.
    pub width: u16,
    /// Height.
    pub height: u16,
}

impl Rect {
    /// Decode from the horizontal and vertical register values.
    pub fn from_regs(horizontal: u32, vertical: u32) -> Rect {
        Rect {
            x: horizontal as u16,
            width: (horizontal >> 16) as u16,
            y: vertical as u16,
            height: (vertical >> 16) as u16,
        }
    }
}
