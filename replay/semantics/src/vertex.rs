//! Vertex-program rules where RPCS3 and the hardware descriptions disagree
//! (rsx-microcode.md B.8 "VP semantics" and B.9). Each default is stated, with its source.

use serde::Serialize;

/// ARL: float to integer address conversion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArlRounding {
    /// Round toward negative infinity: the NV spec definition, which rsx-microcode.md B.9
    /// ("VP ARL rounding") recommends. Default.
    #[default]
    Floor,
    /// GLSL `ivec4()` truncation toward zero, as RPCS3 does (`VertexInterpreter.glsl`,
    /// `VertexProgramDecompiler.cpp` ARL).
    Truncate,
}

/// EXP and LOG scalar ops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpLog {
    /// The NV definition: EXP = (2^floor(x), x − floor(x), 2^x, 1), LOG = (floor(log2|x|),
    /// |x| / 2^floor(log2|x|), log2|x|, 1). rsx-microcode.md B.9 recommends it. Default.
    #[default]
    Spec,
    /// RPCS3's natural `exp()` / `log()` broadcast (`VertexProgramDecompiler.cpp`).
    Natural,
}

/// RCC: clamped reciprocal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RccClamp {
    /// RPCS3: `clamp(1/x, 5.42101e-20, 1.884467e19)`, so every negative result becomes
    /// +5.42101e-20 (`VertexProgramDecompiler.cpp`), a known deviation from the NV rule
    /// (rsx-microcode.md B.8 RCC row).
    Rpcs3,
    /// NV_vertex_program1_1: clamp the magnitude to [2^-64, 2^64] and keep the sign
    /// (rsx-microcode.md B.8 RCC row): the documented hardware rule. Default.
    #[default]
    SignedMagnitude,
}

/// RSQ guard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RsqGuard {
    /// 1/sqrt(|x|), +Inf at 0: rsx-microcode.md B.9 recommendation (Mesa emits RSQ on
    /// abs(src)). Default.
    #[default]
    Abs,
    /// RPCS3 decompiler: 1/sqrt(max(x, 1e-10)).
    Clamp,
    /// RPCS3 interpreter: 1/sqrt(x), NaN for negatives.
    Raw,
}

/// LG2 guard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lg2Guard {
    /// RPCS3 decompiler: log2(max(x, 1e-10)), so LG2(0) ≈ −33.2. Default.
    #[default]
    Clamp,
    /// IEEE log2 (RPCS3 interpreter): −Inf at 0, NaN for negatives.
    Raw,
}

/// Saturate with a NaN input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SaturateNan {
    /// NaN becomes 0, then clamp to [0, 1]: rsx-microcode.md B.9 recommends it for the VP too
    /// (hardware-tested on the FP; unverified on the VP). Default.
    #[default]
    Zero,
    /// A plain clamp that lets NaN through (what a host `clamp` usually returns for NaN).
    Keep,
}

/// MIN/MAX with a NaN operand (no RSX source; rsx-microcode.md B.9 says to parameterise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MinMaxNan {
    /// Return the other (non-NaN) operand, as GPUs usually do (IEEE minNum/maxNum). Default.
    #[default]
    OtherOperand,
    /// Any NaN operand gives NaN.
    Propagate,
}

/// MAD rounding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MadRounding {
    /// One rounding: RPCS3 emits `fma($0, $1, $2)` (`VertexProgramDecompiler.cpp`). Default.
    #[default]
    Fused,
    /// Multiply, round, add, round.
    Separate,
}

/// Which part of the (swizzled) src2 a component-wise scalar op uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScalarOperand {
    /// The x component of the swizzled src2, result broadcast to the written components:
    /// RPCS3 `VertexInterpreter.glsl` (`read_src(2).x`, `vec4(value)`) and the scalar-unit
    /// model (Mesa passes a replicated swizzle). Default.
    #[default]
    FirstComponent,
    /// Component by component on the swizzled src2: RPCS3 `VertexProgramDecompiler.cpp`
    /// (`$s` is the full swizzled vec4), except RSQ, which that path computes on `.x` too.
    PerComponent,
}

/// Every vertex-program rule and limit that the reference interpreter and the WGSL recompiler
/// both honour: one value configures both ("same rules, same options"). The interpreter's
/// `VertexOptions` embeds it beside its own switches (arithmetic width, missing inputs, lane
/// groups); the recompiler takes it as is (`rsxtrace_wgsl::vertex::VertexTranslateOptions`).
/// Each rule's default is stated, with its source, on its enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct VertexRules {
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
    /// Return-stack depth; a call beyond it faults. Default 8, the size of RPCS3's
    /// `callstack[8]` (`VertexInterpreter.glsl`).
    pub call_depth: usize,
    /// Most instructions one vertex may execute before it faults (guards against infinite
    /// loops). Default 65 536.
    pub step_limit: u32,
}

impl Default for VertexRules {
    fn default() -> Self {
        VertexRules {
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

impl VertexRules {
    /// Every disputed rule set to what RPCS3 computes (decompiler path, its default): ARL
    /// truncation, natural EXP/LOG, RCC's signed clamp, RSQ clamped at 1e-10, relative inputs
    /// ignored, saturate keeping NaN. Useful to tell "RPCS3 differs from the spec" from
    /// "RPCS3 is wrong".
    pub fn rpcs3() -> Self {
        VertexRules {
            arl: ArlRounding::Truncate,
            exp_log: ExpLog::Natural,
            rcc: RccClamp::Rpcs3,
            rsq: RsqGuard::Clamp,
            relative_inputs: false,
            saturate_nan: SaturateNan::Keep,
            ..VertexRules::default()
        }
    }
}
