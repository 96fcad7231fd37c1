//! Fragment-program rules where RPCS3 and the hardware descriptions disagree
//! (rsx-microcode.md B.2, B.4, B.5, B.9). Every default is the documented RPCS3 behaviour,
//! except where PS3 hardware images settle the rule ([`HalfRounding`]).

use rsxtrace_program::fragment::FpOpcode;
use serde::Serialize;

/// What a fixed-point result precision (fx12, fx9) does to a value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FixedPointMode {
    /// RPCS3: clamp only (fx12 to [−2, 2], fx9 to [−1, 1]), NaN → 0 (B.2 step 4).
    #[default]
    ClampOnly,
    /// Hardware description: clamp to the representable range ([−2, 2 − 2^-10] for fx12
    /// "s1.10", [−1, 1 − 2^-8] for fx9 "s0.8") and round to the nearest step (ties to even);
    /// NaN → 0 (B.2, B.9; CG-FP40, PSL1GHT `nvfx_shader.h`). The rounding direction is not
    /// documented anywhere.
    Quantise,
}

/// Where TXL takes its level of detail and TXB its bias (rsx-microcode.md B.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LodOperand {
    /// RPCS3: `src1.x`.
    #[default]
    Src1X,
    /// Mesa's encoding: `src0.w`.
    Src0W,
}

/// MIN/MAX with a NaN operand (rsx-microcode.md B.9: no RSX evidence).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MinMaxNan {
    /// IEEE minNum/maxNum: the non-NaN operand (what host GPUs running RPCS3's GLSL usually
    /// return).
    #[default]
    OtherOperand,
    /// NaN if either operand is NaN.
    Propagate,
}

/// What the `SRC2` bit 31 "perspective" flag does to an input attribute (rsx-microcode.md
/// B.1). The interpreter receives attributes already interpolated, so this only concerns the
/// extra factor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PerspectiveFlag {
    /// RPCS3 "perspective_corr": the attribute is multiplied by WPOS.w (gl_FragCoord.w).
    /// WPOS and the colour inputs are not affected.
    #[default]
    MultiplyByWposW,
    /// Nouveau's reading ("disable perspective-correct interpolation?"): an interpolation
    /// mode, which the caller already applied to the inputs it passes; the flag is ignored.
    Ignore,
}

/// The loop counter A0 used by indexed input reads (rsx-microcode.md B.3, B.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopCounter {
    /// RPCS3: the iteration number `i` (0, 1, 2, ...), ignoring init/increment
    /// (`FragmentProgramDecompiler.cpp`: `for (int i = 0; i < count; i++)`,
    /// `_indexed_load(i + addr_reg)`).
    Iteration,
    /// NV_fragment_program2's loop index: `init + i × increment`, the LOOP/REP instruction's
    /// own fields (a Cg loop `for (i = 2; i < 8; i += 2)` over texture coordinates). Default:
    /// the documented rule; the two agree for the `{count, 0, 1}` loops Sony's compiler emits in
    /// the corpus.
    #[default]
    InitIncrement,
}

/// How an fp32 value becomes fp16: every H-register write and every `h()` (fp16) source
/// precision modifier (rsx-microcode.md B.2, B.9 "fp32 → fp16 rounding").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HalfRounding {
    /// Round toward zero, what the PS3 hardware does (rsx-microcode.md B.9: the ps3autotests
    /// `rsx_fp_static` hardware images match truncation, not nearest rounding). For
    /// |x| >= 2^-14 the low 13 mantissa bits are cleared; below, the value is truncated to the
    /// subnormal grid, trunc(x * 2^24) / 2^24; NaN and ±Inf are kept; finite values beyond
    /// the largest half give ±65504 (what truncation gives; unverified on hardware). A MUL,
    /// ADD or MAD result is truncated as carried to 26 significant bits, not as rounded to
    /// f32 (docs/arithmetic.md "The bits fp16 truncation sees"). Default.
    #[default]
    Truncate,
    /// IEEE round to nearest even, overflow to ±Inf: RPCS3's `packHalf2x16` /
    /// `unpackHalf2x16` round trip (`FragmentProgramDecompiler.cpp` `ClampValue`).
    Nearest,
    /// No conversion: fp16 destinations and `h()` sources keep their f32 value (H registers
    /// hold it beside their binary16 bits). Not a hardware rule: for oracles and diagnosis
    /// (`replay/tests/cg_oracle.rs` compares a float32 port of a Cg source with the
    /// interpreter, free of fp16 effects). The interpreter only; the WGSL recompiler refuses it.
    Keep,
}

/// How SIN and COS reduce their argument (rsx-microcode.md B.9 open question 3: the
/// hardware's accuracy for arguments of thousands of radians is undocumented; the seen
/// hardware images only take small arguments, so neither rule is settled by them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrigReduction {
    /// The IEEE function of the f32 argument, reduced exactly (what RPCS3's GLSL `sin`/`cos`
    /// intend and what the interpreter's host library computes). Default.
    #[default]
    Exact,
    /// Reduction in turns, as NVIDIA's later GPUs document for their special-function unit
    /// (a range-reduction step that scales by 1/2π): t = x · f32(1/2π) rounded to f32, the
    /// fraction of t, then the function of 2π · fract(t). For |x| of thousands of radians the
    /// product's rounding moves the angle by up to |x| · 2^-24 · 2π. Refuted for the RSX by
    /// the hardware image of ps3autotests' `rsx_fp_static_test2` (of the 977 pixels where the
    /// two rules differ, the hardware sides with `Exact` at 969: docs/arithmetic.md).
    Turns,
}

/// Significant bits of an arithmetic result that [`HalfRounding::Truncate`] sees: f32's 24
/// and two more, rounded to nearest (docs/arithmetic.md "The bits fp16 truncation sees",
/// fitted on the PS3 image of ps3autotests' `rsx_fp_static_test5`: 24 bits and 27 or more
/// each contradict one of the three cells where the choice shows).
pub const CARRY_BITS: u32 = 26;

/// Whether the truncation sees the opcode's result carried to [`CARRY_BITS`]: MUL, ADD and
/// MAD, whose exact result both the interpreter (in f64) and the WGSL recompiler
/// (error-free transformations) compute. The other rounded results (dot products,
/// transcendentals) keep their f32 rounding: the hardware's own rounding of those is not known.
pub fn carries(op: FpOpcode) -> bool {
    matches!(op, FpOpcode::Mul | FpOpcode::Add | FpOpcode::Mad)
}
