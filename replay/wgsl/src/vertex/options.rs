//! Translation switches of the vertex recompiler ([`VertexTranslateOptions`]): one named choice
//! for every rule where RPCS3 and the hardware descriptions disagree, plus the limits. The rule
//! types are `rsxtrace_semantics::vertex`'s, the very ones the reference interpreter takes,
//! with the same defaults, so that a module built from the default options computes what the
//! default interpreter does.

pub use rsxtrace_semantics::vertex::{
    ArlRounding, ExpLog, Lg2Guard, MadRounding, MinMaxNan, RccClamp, RsqGuard, SaturateNan,
    ScalarOperand,
};

/// Options of [`super::translate`]. The default is the interpreter's default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexTranslateOptions {
    /// Honour D0 bit 27 (relative input addressing). Default `true`.
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
    /// Clamp the LIT exponent to [−128, 128]. Default `false`.
    pub lit_clamp_exponent: bool,
    /// Return-stack depth (the size of the WGSL stack array); a call beyond it faults.
    /// Default 8 (RPCS3 `callstack[8]`); at most [`super::MAX_CALL_DEPTH`].
    pub call_depth: usize,
    /// Most instructions one vertex may execute before it faults. Default 65 536.
    pub step_limit: u32,
}

impl Default for VertexTranslateOptions {
    fn default() -> Self {
        VertexTranslateOptions {
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
        }
    }
}

impl VertexTranslateOptions {
    /// Every disputed rule set to what RPCS3 computes (the interpreter's `VertexOptions::rpcs3`).
    pub fn rpcs3() -> Self {
        VertexTranslateOptions {
            arl: ArlRounding::Truncate,
            exp_log: ExpLog::Natural,
            rsq: RsqGuard::Clamp,
            relative_inputs: false,
            saturate_nan: SaturateNan::Keep,
            ..VertexTranslateOptions::default()
        }
    }

    /// A stable byte string of every field, folded into the module hash.
    pub(crate) fn fingerprint(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[0] = u8::from(self.relative_inputs);
        b[1] = self.arl as u8;
        b[2] = self.exp_log as u8;
        b[3] = self.rcc as u8;
        b[4] = self.rsq as u8;
        b[5] = self.lg2 as u8;
        b[6] = self.saturate_nan as u8;
        b[7] = self.min_max_nan as u8;
        b[8] = self.mad as u8;
        b[9] = self.scalar_operand as u8;
        b[10] = u8::from(self.lit_clamp_exponent);
        b[12..20].copy_from_slice(&(self.call_depth as u64).to_le_bytes());
        b[20..24].copy_from_slice(&self.step_limit.to_le_bytes());
        b
    }
}
