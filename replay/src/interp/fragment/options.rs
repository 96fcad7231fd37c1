//! Execution state and options of the fragment interpreter: the `SHADER_CONTROL` word and the
//! named switches for every rule where RPCS3 and the hardware descriptions differ
//! (rsx-microcode.md B.2, B.4, B.9). Every default is the documented RPCS3 behaviour, except
//! the fp16 conversion, whose default is the hardware's truncation ([`HalfRounding`]).

use super::skew::TranscendentalSkew;
use crate::interp::Arithmetic;
pub use rsxtrace_semantics::fragment::{
    FixedPointMode, HalfRounding, LodOperand, LoopCounter, MinMaxNan, PerspectiveFlag,
    TrigReduction,
};

/// `SHADER_CONTROL` bit: colours come from R0/R2/R3/R4, otherwise H0/H4/H6/H8
/// (rsx-microcode.md B.6, RPCS3 `CELL_GCM_SHADER_CONTROL_32_BITS_EXPORTS`).
pub const CONTROL_32_BIT_EXPORTS: u32 = 0x40;
/// `SHADER_CONTROL` bits: the program exports depth in R1.z (rsx-microcode.md B.6, RPCS3
/// `CELL_GCM_SHADER_CONTROL_DEPTH_EXPORT`).
pub const CONTROL_DEPTH_EXPORT: u32 = 0xE;

/// The interpreter's switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentOptions {
    /// f32 (default) or f64 arithmetic.
    pub arithmetic: Arithmetic,
    /// fp32 → fp16 conversion of H writes and fp16 source modifiers (truncation by default).
    pub half_rounding: HalfRounding,
    /// SIN/COS argument reduction (exact by default).
    pub trig: TrigReduction,
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
    /// DP2, DP3, DP4 and DP2A sum their products as a chain of fused multiply-adds from the
    /// last component down (RPCS3's `DP3_PRECISE`, `fma(x0, x1, fma(y0, y1, z0 * z1))`) when
    /// true; each product and sum rounded when false.
    pub fused_dot: bool,
    /// Upper bound of instructions executed per quad (loops can nest 255^n iterations).
    pub max_steps: u64,
    /// Conditioning runs only: transcendental results moved ([`super::skew`]).
    pub transcendental_skew: TranscendentalSkew,
}

impl Default for FragmentOptions {
    fn default() -> Self {
        FragmentOptions {
            arithmetic: Arithmetic::F32,
            half_rounding: HalfRounding::Truncate,
            trig: TrigReduction::Exact,
            fx12: FixedPointMode::ClampOnly,
            fx9: FixedPointMode::ClampOnly,
            lod_operand: LodOperand::Src1X,
            min_max_nan: MinMaxNan::OtherOperand,
            perspective: PerspectiveFlag::MultiplyByWposW,
            loop_counter: LoopCounter::default(),
            fused_mad: true,
            fused_dot: false,
            max_steps: 1 << 24,
            transcendental_skew: TranscendentalSkew::None,
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
