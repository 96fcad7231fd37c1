//! Behaviour switches of the vertex interpreter ([`VertexOptions`]): arithmetic width, limits,
//! what to do with unknown constants and missing inputs, and one named choice for every rule
//! where RPCS3 and the hardware descriptions disagree (rsx-microcode.md B.8 "VP semantics" and
//! B.9). Each default is stated, with its source, on the enum.

use crate::interp::Arithmetic;
pub use rsxtrace_semantics::vertex::{
    ArlRounding, ExpLog, Lg2Guard, MadRounding, MinMaxNan, RccClamp, RsqGuard, SaturateNan,
    ScalarOperand,
};
use serde::Serialize;

/// Options of [`super::run_vertex`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct VertexOptions {
    /// f32 (default) or f64.
    pub arithmetic: Arithmetic,
    /// Read a constant the capture never set as (0, 0, 0, 0) and report it, instead of failing.
    pub allow_unknown_constants: bool,
    /// Read an input attribute the batch does not provide as (0, 0, 0, 1) instead of failing.
    pub allow_missing_inputs: bool,
    /// Honour D0 bit 27 (`index_input`, relative attribute addressing) as the field layout
    /// defines it (default `true`). RPCS3's decompiler ignores the bit (rsx-microcode.md B.8
    /// "VP registers" calls this a gap); `false` reproduces that.
    pub relative_inputs: bool,
    /// ARL conversion.
    pub arl: ArlRounding,
    /// EXP/LOG definition.
    pub exp_log: ExpLog,
    /// RCC clamp.
    pub rcc: RccClamp,
    /// RSQ guard.
    pub rsq: RsqGuard,
    /// LG2 guard.
    pub lg2: Lg2Guard,
    /// Saturate and NaN.
    pub saturate_nan: SaturateNan,
    /// MIN/MAX and NaN.
    pub min_max_nan: MinMaxNan,
    /// MAD rounding.
    pub mad: MadRounding,
    /// Scalar operand.
    pub scalar_operand: ScalarOperand,
    /// Clamp the LIT exponent to (−128, 128) as the NV spec does (rsx-microcode.md B.8 LIT row,
    /// "verify"); RPCS3 does not (default `false`).
    pub lit_clamp_exponent: bool,
    /// Return-stack depth; a call beyond it is an error. Default 8, the size of RPCS3's
    /// `callstack[8]` (`VertexInterpreter.glsl`).
    pub call_depth: usize,
    /// Most instructions one vertex may execute before the run is stopped with an error
    /// (guards against infinite loops). Default 65 536.
    pub step_limit: u32,
    /// Vertices per lane group (one group runs on one thread, in lock step with active masks).
    /// Default 256; 0 is treated as 1.
    pub lanes_per_group: usize,
}

impl Default for VertexOptions {
    fn default() -> Self {
        VertexOptions {
            arithmetic: Arithmetic::F32,
            allow_unknown_constants: false,
            allow_missing_inputs: false,
            relative_inputs: true,
            arl: ArlRounding::default(),
            exp_log: ExpLog::default(),
            rcc: RccClamp::default(),
            rsq: RsqGuard::default(),
            lg2: Lg2Guard::default(),
            saturate_nan: SaturateNan::default(),
            min_max_nan: MinMaxNan::default(),
            mad: MadRounding::default(),
            scalar_operand: ScalarOperand::default(),
            lit_clamp_exponent: false,
            call_depth: 8,
            step_limit: 1 << 16,
            lanes_per_group: 256,
        }
    }
}

impl VertexOptions {
    /// Every disputed rule set to what RPCS3 computes (decompiler path, its default): ARL
    /// truncation, natural EXP/LOG, RSQ clamped at 1e-10, relative inputs ignored. Useful to
    /// tell "RPCS3 differs from the spec" from "RPCS3 is wrong".
    pub fn rpcs3() -> Self {
        VertexOptions {
            arl: ArlRounding::Truncate,
            exp_log: ExpLog::Natural,
            rsq: RsqGuard::Clamp,
            relative_inputs: false,
            saturate_nan: SaturateNan::Keep,
            ..VertexOptions::default()
        }
    }
}
