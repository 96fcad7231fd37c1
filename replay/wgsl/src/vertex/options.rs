//! Translation switches of the vertex recompiler ([`VertexTranslateOptions`]): one named choice
//! for every rule where RPCS3 and the hardware descriptions disagree, plus the limits. Each
//! enum mirrors the reference interpreter's option of the same name
//! (`rsxtrace_replay::interp::vertex::options`) variant for variant, with the same default, so
//! that a module built from the default options computes what the default interpreter does.

/// ARL: float to integer address conversion (rsx-microcode.md B.9 "VP ARL rounding").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ArlRounding {
    /// Round toward negative infinity (NV spec). Default.
    #[default]
    Floor,
    /// Truncation toward zero (RPCS3 `ivec4()`).
    Truncate,
}

/// EXP and LOG scalar ops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ExpLog {
    /// NV definition: EXP = (2^floor(x), x − floor(x), 2^x, 1), LOG = (floor(log2|x|),
    /// |x| / 2^floor(log2|x|), log2|x|, 1). Default.
    #[default]
    Spec,
    /// RPCS3's natural `exp()` / `log()`.
    Natural,
}

/// RCC: clamped reciprocal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RccClamp {
    /// RPCS3: `clamp(1/x, 5.42101e-20, 1.884467e19)`. Default.
    #[default]
    Rpcs3,
    /// NV_vertex_program1_1: magnitude clamped to [2^-64, 2^64], sign kept.
    SignedMagnitude,
}

/// RSQ guard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RsqGuard {
    /// 1/sqrt(|x|). Default.
    #[default]
    Abs,
    /// 1/sqrt(max(x, 1e-10)) (RPCS3 decompiler).
    Clamp,
    /// 1/sqrt(x) (RPCS3 interpreter).
    Raw,
}

/// LG2 guard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lg2Guard {
    /// log2(max(x, 1e-10)) (RPCS3 decompiler). Default.
    #[default]
    Clamp,
    /// IEEE log2.
    Raw,
}

/// Saturate with a NaN input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SaturateNan {
    /// NaN becomes 0, then clamp to [0, 1]. Default.
    #[default]
    Zero,
    /// NaN passes through the clamp.
    Keep,
}

/// MIN/MAX with a NaN operand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MinMaxNan {
    /// The other (non-NaN) operand (IEEE minNum/maxNum). Default.
    #[default]
    OtherOperand,
    /// Any NaN operand gives NaN.
    Propagate,
}

/// MAD rounding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MadRounding {
    /// One rounding: WGSL `fma()` (RPCS3 emits `fma`). Default.
    #[default]
    Fused,
    /// `a * b + c` (a WGSL compiler may still contract it; see the module docs).
    Separate,
}

/// Which part of the swizzled src2 a component-wise scalar op uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScalarOperand {
    /// `.x` of the swizzled src2, broadcast. Default.
    #[default]
    FirstComponent,
    /// Component by component (RSQ still uses `.x`).
    PerComponent,
}

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
