//! Translation options of fragment programs: the `SHADER_CONTROL` word, the texture unit
//! dimensions, the f16 mode, and the reference interpreter's switches that change the emitted
//! arithmetic (the `rsxtrace_semantics::fragment` types the interpreter takes too, with the
//! same defaults: the documented RPCS3 behaviour, rsx-microcode.md B.2, B.4, B.9, except the
//! fp16 conversion, which truncates as the hardware does).

pub use rsxtrace_semantics::fragment::{
    FixedPointMode, HalfRounding, LodOperand, LoopCounter, MinMaxNan, PerspectiveFlag,
    TrigReduction,
};
pub use rsxtrace_semantics::lod::{MipFilter, TextureLod};

/// `SHADER_CONTROL` bit: colours come from R0/R2/R3/R4, otherwise from H0/H4/H6/H8
/// (rsx-microcode.md B.6).
pub const CONTROL_32_BIT_EXPORTS: u32 = 0x40;
/// `SHADER_CONTROL` bits: the program exports depth in R1.z (rsx-microcode.md B.6).
pub const CONTROL_DEPTH_EXPORT: u32 = 0xE;

/// The dimension of a texture unit (not in the instruction; it comes from the unit's format
/// state, rsx-microcode.md B.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureDim {
    /// `texture_1d<f32>`, coordinate x.
    D1,
    /// `texture_2d<f32>`, coordinate xy.
    #[default]
    D2,
    /// `texture_3d<f32>`, coordinate xyz.
    D3,
    /// `texture_cube<f32>`, direction xyz.
    Cube,
}

/// Everything a fragment translation depends on besides the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FragmentTranslateOptions {
    /// The `SHADER_CONTROL` word: 0x40 = R exports, 0xE = depth export (B.6).
    pub control: u32,
    /// Dimension of texture units 0..15 (2D by default).
    pub texture_dims: [TextureDim; 16],
    /// LOD state of texture units 0..15 (bias, min/max LOD, mip filter): the shader chooses
    /// levels itself with the shared rule (`rsxtrace_semantics::lod`, ABI.md "Textures").
    /// The default samples level 0 only.
    pub texture_lod: [TextureLod; 16],
    /// fp32 → fp16 conversion of H writes and fp16 source modifiers: truncation (default, the
    /// hardware) or nearest even (RPCS3).
    pub half_rounding: HalfRounding,
    /// SIN/COS argument reduction (exact by default).
    pub trig: TrigReduction,
    /// With [`HalfRounding::Nearest`] only: use `enable f16;` and the native f32→f16
    /// conversion for H rounding (needs the device's `SHADER_F16`). WGSL leaves that
    /// conversion's rounding implementation-defined, so this is faster but only bit-exact
    /// where the device rounds to nearest even; the default (false) rounds with integer
    /// operations, bit-exact with the interpreter. Truncation always uses integer operations.
    pub native_f16: bool,
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
    /// MAD as `fma` (true, RPCS3) or as `a * b + c`. WGSL does not forbid the driver from
    /// contracting the latter, nor require `fma` to be fused.
    pub fused_mad: bool,
    /// Record, for one pixel chosen at run time, every executed instruction's slot and the
    /// register and condition code values it leaves into a storage buffer (group 0 binding 2;
    /// ABI.md "Instrumented fragment programs"): the device side of `verify --explain`.
    pub instrument: bool,
}

impl Default for FragmentTranslateOptions {
    fn default() -> Self {
        FragmentTranslateOptions {
            control: CONTROL_32_BIT_EXPORTS,
            texture_dims: [TextureDim::D2; 16],
            texture_lod: [TextureLod::default(); 16],
            half_rounding: HalfRounding::Truncate,
            trig: TrigReduction::Exact,
            native_f16: false,
            fx12: FixedPointMode::ClampOnly,
            fx9: FixedPointMode::ClampOnly,
            lod_operand: LodOperand::Src1X,
            min_max_nan: MinMaxNan::OtherOperand,
            perspective: PerspectiveFlag::MultiplyByWposW,
            loop_counter: LoopCounter::default(),
            fused_mad: true,
            instrument: false,
        }
    }
}

impl FragmentTranslateOptions {
    /// Default options with the given control word.
    pub fn with_control(control: u32) -> Self {
        FragmentTranslateOptions {
            control,
            ..Default::default()
        }
    }

    /// The options as bytes, folded into the module hash.
    pub(crate) fn fingerprint(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(160);
        out.extend_from_slice(&self.control.to_le_bytes());
        out.extend(self.texture_dims.iter().map(|d| *d as u8));
        for l in &self.texture_lod {
            crate::levels::lod_fingerprint(l, &mut out);
        }
        out.extend_from_slice(&[
            u8::from(self.native_f16),
            self.half_rounding as u8,
            self.trig as u8,
            self.fx12 as u8,
            self.fx9 as u8,
            self.lod_operand as u8,
            self.min_max_nan as u8,
            self.perspective as u8,
            self.loop_counter as u8,
            u8::from(self.fused_mad),
            u8::from(self.instrument),
        ]);
        out
    }
}
