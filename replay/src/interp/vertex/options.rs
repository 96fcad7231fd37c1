//! Behaviour switches of the vertex interpreter ([`VertexOptions`]): arithmetic width, limits,
//! what to do with unknown constants and missing inputs, and one named choice for every rule
//! where RPCS3 and the hardware descriptions disagree (rsx-microcode.md B.8 "VP semantics" and
//! B.9). The rules and limits are [`VertexRules`], the struct the WGSL recompiler takes too;
//! each default is stated, with its source, on the enum.

use crate::interp::Arithmetic;
pub use rsxtrace_semantics::vertex::{
    ArlRounding, ExpLog, Lg2Guard, MadRounding, MinMaxNan, RccClamp, RsqGuard, SaturateNan,
    ScalarOperand, VertexRules,
};
use serde::Serialize;

/// The evaluation order of a conditioning run ([`VertexOptions::reassociate`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reassociation {
    /// The reference order (products summed first to last; MAD by the rules).
    #[default]
    None,
    /// Dot products summed last to first; MAD rounded the other way.
    Reversed,
    /// Dot products summed pairwise, as a vector reduction; MAD rounded the other way.
    Pairwise,
}

/// Options of [`super::run_vertex`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct VertexOptions {
    /// f32 (default) or f64.
    pub arithmetic: Arithmetic,
    /// Read a constant the capture never set as (0, 0, 0, 0) and report it, instead of failing.
    /// Default `false`; the replay, the CLI and verify set it.
    pub allow_unknown_constants: bool,
    /// Read an input attribute the batch does not provide as (0, 0, 0, 1) instead of failing.
    pub allow_missing_inputs: bool,
    /// The rules and limits shared with the WGSL recompiler (its `VertexTranslateOptions`).
    #[serde(flatten)]
    pub rules: VertexRules,
    /// Vertices per lane group (one group runs on one thread, in lock step with active masks).
    /// Default 256; 0 is treated as 1.
    pub lanes_per_group: usize,
    /// Conditioning runs only (`verify`, `batch`): dot products summed in another order and
    /// MAD rounded the other way, evaluation choices WGSL leaves to the device, so that an
    /// output they move beyond tolerance is ill-conditioned rather than divergent. Default
    /// [`Reassociation::None`].
    pub reassociate: Reassociation,
}

impl Default for VertexOptions {
    fn default() -> Self {
        VertexOptions {
            arithmetic: Arithmetic::F32,
            allow_unknown_constants: false,
            allow_missing_inputs: false,
            rules: VertexRules::default(),
            lanes_per_group: 256,
            reassociate: Reassociation::None,
        }
    }
}

impl VertexOptions {
    /// Every disputed rule set to what RPCS3 computes ([`VertexRules::rpcs3`]).
    pub fn rpcs3() -> Self {
        VertexOptions {
            rules: VertexRules::rpcs3(),
            ..VertexOptions::default()
        }
    }
}
