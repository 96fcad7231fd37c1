//! Inputs and outputs of one 2×2 pixel quad.
//!
//! Lane order inside a quad: 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right, where
//! "top" is the smaller image row (row 0 at the top of the image). Derivatives follow this
//! layout (see [`super`]).

/// Number of input attributes (WPOS, COL0, COL1, FOGC, TEX0–TEX9, FACING; rsx-microcode.md B.3).
pub const ATTRIBUTE_COUNT: usize = 15;

/// Attribute numbers (rsx-microcode.md B.3 table).
pub mod attr {
    /// Window position.
    pub const WPOS: usize = 0;
    /// Primary colour (clamped to [0, 1] on read).
    pub const COL0: usize = 1;
    /// Secondary colour (clamped to [0, 1] on read).
    pub const COL1: usize = 2;
    /// Fog coordinate (.w reads 0).
    pub const FOGC: usize = 3;
    /// Texture coordinate 0; TEXn is `TEX0 + n`.
    pub const TEX0: usize = 4;
    /// Front/back facing.
    pub const FACING: usize = 14;
}

/// The interpolated inputs of one lane (pixel), indexed by attribute number.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LaneInputs {
    /// `attributes[n]` is input attribute `n` (see [`attr`]).
    pub attributes: [[f32; 4]; ATTRIBUTE_COUNT],
}

/// One 2×2 quad: four lanes and which of them are covered by the primitive. Uncovered lanes
/// still execute (as helper lanes, so derivatives are defined) but their outputs are flagged.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QuadInputs {
    /// The lanes, in the order described in the module doc.
    pub lanes: [LaneInputs; 4],
    /// Bit `n` set: lane `n` is covered.
    pub coverage: u8,
}

/// What one lane produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LaneOutputs {
    /// Colour outputs 0–3 (MRT), from R0/R2/R3/R4 or H0/H4/H6/H8 (rsx-microcode.md B.6).
    /// f64 so that [`Arithmetic::F64`](crate::interp::Arithmetic::F64) results are not
    /// rounded; with f32 arithmetic every value is an exact f32.
    pub colors: [[f64; 4]; 4],
    /// R1.z when the control word exports depth (B.6), else `None`.
    pub depth: Option<f64>,
    /// A KIL discarded the lane.
    pub killed: bool,
    /// The lane was covered (copied from [`QuadInputs::coverage`]).
    pub covered: bool,
}

/// The four lanes of a quad.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct QuadOutputs {
    /// Same order as [`QuadInputs::lanes`].
    pub lanes: [LaneOutputs; 4],
}
