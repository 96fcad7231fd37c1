//! Execution state and options of the fragment interpreter: the `SHADER_CONTROL` word and the
//! named switches for every rule where RPCS3 and the hardware descriptions differ
//! (rsx-microcode.md B.2, B.4, B.9). Every default is the documented RPCS3 behaviour.

use crate::interp::Arithmetic;

/// `SHADER_CONTROL` bit: colours come from R0/R2/R3/R4, otherwise H0/H4/H6/H8
/// (rsx-microcode.md B.6, RPCS3 `CELL_GCM_SHADER_CONTROL_32_BITS_EXPORTS`).
pub const CONTROL_32_BIT_EXPORTS: u32 = 0x40;
/// `SHADER_CONTROL` bits: the program exports depth in R1.z (rsx-microcode.md B.6, RPCS3
/// `CELL_GCM_SHADER_CONTROL_DEPTH_EXPORT`).
pub const CONTROL_DEPTH_EXPORT: u32 = 0xE;

/// What a fixed-point result precision (fx12, fx9) does to a value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LodOperand {
    /// RPCS3: `src1.x`.
    #[default]
    Src1X,
    /// Mesa's encoding: `src0.w`.
    Src0W,
}

/// MIN/MAX with a NaN operand (rsx-microcode.md B.9: no RSX evidence).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PerspectiveFlag {
    /// RPCS3 "perspective_corr": the attribute is multiplied by WPOS.w (gl_FragCoord.w).
    /// WPOS and the colour inputs are not affected.
    #[default]
    MultiplyByWposW,
    /// Nouveau's reading ("disable perspective-correct interpolation?"): an interpolation
    /// mode, which the caller already applied to the inputs it passes; the flag is ignored.
    Ignore,
}

/// The loop counter A0 used by indexed input reads (rsx-microcode.md B.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoopCounter {
    /// RPCS3: the iteration number `i` (0, 1, 2, ...), ignoring init/increment.
    #[default]
    Iteration,
    /// NV_fragment_program2: `init + i × increment`.
    InitIncrement,
}

/// The interpreter's switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentOptions {
    /// f32 (default) or f64 arithmetic.
    pub arithmetic: Arithmetic,
    /// fx12 result precision.
    pub fx12: FixedPointMode,
    /// fx9 result precision.
    pub fx9: FixedPointMode,
    /// TXL/TXB operand.
    pub lod_operand: LodOperand,
    /// MIN/MAX NaN rule.
    pub min_max_nan: MinMaxNan,
    /// Perspective flag.
    pub perspective: PerspectiveFlag,
    /// Loop counter.
    pub loop_counter: LoopCounter,
    /// MAD rounds once (`fma`, RPCS3) when true, twice when false.
    pub fused_mad: bool,
    /// Upper bound of instructions executed per quad (loops can nest 255^n iterations).
    pub max_steps: u64,
}

impl Default for FragmentOptions {
    fn default() -> Self {
        FragmentOptions {
            arithmetic: Arithmetic::F32,
            fx12: FixedPointMode::ClampOnly,
            fx9: FixedPointMode::ClampOnly,
            lod_operand: LodOperand::Src1X,
            min_max_nan: MinMaxNan::OtherOperand,
            perspective: PerspectiveFlag::MultiplyByWposW,
            loop_counter: LoopCounter::Iteration,
            fused_mad: true,
            max_steps: 1 << 24,
        }
    }
}

/// Everything a fragment program runs under besides its inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FragmentState {
    /// The `SHADER_CONTROL` word (rsx-microcode.md B.6): bit 0x40 selects R/H colour
    /// exports, bits 0xE depth export.
    pub control: u32,
    /// Interpreter switches.
    pub options: FragmentOptions,
}

impl FragmentState {
    /// State with the given control word and default options.
    pub fn new(control: u32) -> FragmentState {
        FragmentState {
            control,
            options: FragmentOptions::default(),
        }
    }
}
