//! WGSL expressions for one instruction's sources and per-lane arithmetic: source reads
//! (register, input, inline constant; swizzle, abs, precision modifier, negate) and the result
//! vector of every ALU, pack and unpack opcode, following the reference interpreter
//! (`rsxtrace-replay` `interp::fragment::{exec, ops}`; rsx-microcode.md B.2, B.3, B.7).

use std::fmt::Write as _;

use rsxtrace_program::fragment::{
    AluOperands, FpOpcode, FragmentInstruction, PrecisionModifier, Source, SourceKind,
};

use super::options::{
    FixedPointMode, FragmentTranslateOptions, MinMaxNan, PerspectiveFlag, TrigReduction,
};
use crate::TranslateError;

/// Number of R registers in the shared file (rsx-microcode.md B.3, RPCS3 `FPOpcodes.h`).
pub const R_COUNT: u8 = 48;

/// Attribute numbers (rsx-microcode.md B.3 table).
const WPOS: usize = 0;
const COL0: usize = 1;
const COL1: usize = 2;
const FOGC: usize = 3;
const TEX0: usize = 4;

/// `x`, `y`, `z`, `w`.
pub const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// An f32 literal with its exact bits (NaN, infinities and denormals survive).
pub fn f32_bits(bits: u32) -> String {
    format!("bitcast<f32>({bits:#010x}u)")
}

/// The R register holding a source/destination, and which word pair an H register uses.
pub fn register_of(index: u8, fp16: bool) -> (u8, &'static str) {
    if fp16 {
        (index >> 1, if index & 1 == 0 { "xy" } else { "zw" })
    } else {
        (index, "xyzw")
    }
}

/// The fixed-point clamp of `e` (`fx12`: range 2, 10 bits; `fx9`: range 1, 8 bits).
pub fn fixed_point(e: &str, mode: FixedPointMode, fx12: bool) -> String {
    match (mode, fx12) {
        (FixedPointMode::ClampOnly, true) => format!("rsx_clamp0({e}, -2.0, 2.0)"),
        (FixedPointMode::ClampOnly, false) => format!("rsx_clamp0({e}, -1.0, 1.0)"),
        // [−2, 2 − 2^-10] in 2^-10 steps; [−1, 1 − 2^-8] in 2^-8 steps (B.9).
        (FixedPointMode::Quantise, true) => format!("rsx_quant({e}, -2.0, 1.9990234375, 1024.0)"),
        (FixedPointMode::Quantise, false) => format!("rsx_quant({e}, -1.0, 0.99609375, 256.0)"),
    }
}

/// What a source reads, noted for the module's declarations.
pub struct Uses {
    /// R registers touched (by R or H access).
    pub regs: [bool; R_COUNT as usize],
}

impl Default for Uses {
    fn default() -> Self {
        Uses {
            regs: [false; R_COUNT as usize],
        }
    }
}

/// Builds the WGSL expression of source `k` of `insn` (B.2 "Source precision modifiers":
/// swizzle, abs, modifier, negate; COL0/COL1 saturated on read and exempt from the modifier;
/// FOGC.w reads 0).
pub fn source(
    insn: &FragmentInstruction,
    alu: &AluOperands,
    k: usize,
    opts: &FragmentTranslateOptions,
    uses: &mut Uses,
) -> Result<String, TranslateError> {
    let slot = insn.slot as usize;
    let Some(src) = alu.sources.get(k) else {
        return Ok("vec4<f32>(0.0)".into());
    };
    let mut exempt = false;
    let raw = match src.kind {
        SourceKind::Temp => temp(src, slot, k, uses)?,
        SourceKind::Constant => match insn.constant {
            Some(c) => {
                let [x, y, z, w] = c.0;
                format!(
                    "bitcast<vec4<f32>>(vec4<u32>({x:#010x}u, {y:#010x}u, {z:#010x}u, {w:#010x}u))"
                )
            }
            None => {
                return Err(TranslateError::Unsupported {
                    slot,
                    what: format!("source {k}: constant source without an inline constant slot"),
                })
            }
        },
        SourceKind::Input => {
            let (e, colour) = input(insn, alu, opts, k)?;
            exempt = colour;
            e
        }
    };
    let mut e = raw;
    if src.swizzle.0 != [0, 1, 2, 3] {
        e = format!("({e}).{}", src.swizzle);
    }
    if src.abs {
        e = format!("abs({e})");
    }
    if !exempt {
        e = match src.modifier {
            PrecisionModifier::None
            | PrecisionModifier::Unknown5
            | PrecisionModifier::Unknown6
            | PrecisionModifier::Unknown7 => e,
            PrecisionModifier::Fp16 => format!("rsx_hrt({e})"),
            PrecisionModifier::Fx12 => fixed_point(&e, opts.fx12, true),
            PrecisionModifier::Fx9 => fixed_point(&e, opts.fx9, false),
            PrecisionModifier::Sat => format!("rsx_sat({e})"),
        };
    }
    if src.negate {
        e = format!("-({e})");
    }
    Ok(e)
}

fn temp(src: &Source, slot: usize, k: usize, uses: &mut Uses) -> Result<String, TranslateError> {
    let (r, half) = register_of(src.index, src.fp16);
    let Some(used) = uses.regs.get_mut(usize::from(r)) else {
        return Err(TranslateError::Unsupported {
            slot,
            what: format!("source {k}: register R{r} outside the 48-entry file"),
        });
    };
    *used = true;
    Ok(if src.fp16 {
        format!("rsx_rd_h(r{r}.{half})")
    } else {
        format!("bitcast<vec4<f32>>(r{r})")
    })
}

/// The instruction's input attribute and whether it is COL0/COL1 (interpreter `read_input`).
fn input(
    insn: &FragmentInstruction,
    alu: &AluOperands,
    opts: &FragmentTranslateOptions,
    k: usize,
) -> Result<(String, bool), TranslateError> {
    let perspective = alu.perspective && opts.perspective == PerspectiveFlag::MultiplyByWposW;
    if alu.indexed_input {
        // TEX[A0 + displacement] (B.3); outside TEX0..TEX9 it reads (0, 0, 0, 1), as RPCS3's
        // `_indexed_load` returns (the interpreter too).
        let d = alu.input_displacement;
        let mut e = format!(
            "select(vec4<f32>(0.0, 0.0, 0.0, 1.0), attr[u32(clamp({TEX0} + a0 + {d}, {TEX0}, {}))], a0 + {d} >= 0 && a0 + {d} <= 9)",
            TEX0 + 9
        );
        if perspective {
            e = format!("({e} * attr[{WPOS}].w)");
        }
        return Ok((e, false));
    }
    let index = usize::from(insn.input.0);
    if index > 14 {
        return Err(TranslateError::Unsupported {
            slot: insn.slot as usize,
            what: format!("source {k}: input attribute {index}"),
        });
    }
    let mut e = format!("attr[{index}]");
    if perspective && index != WPOS && index != COL0 && index != COL1 {
        e = format!("({e} * attr[{WPOS}].w)");
    }
    let colour = index == COL0 || index == COL1;
    if colour {
        // COL0/COL1 are clamped to [0, 1] on read (B.3, RPCS3 "Hw testing showed").
        e = format!("rsx_sat({e})");
    }
    if index == FOGC {
        // FOGC.w reads 0 (B.3, Mesa nvfx_fragprog.c).
        e = format!("vec4<f32>(({e}).xyz, 0.0)");
    }
    Ok((e, colour))
}

/// A sequential dot product over `n` components, in the interpreter's order.
fn dot(a: &str, b: &str, n: usize) -> String {
    let mut s = String::new();
    for (i, c) in COMPONENTS.iter().take(n).enumerate() {
        if i > 0 {
            s.push_str(" + ");
        }
        let _ = write!(s, "{a}.{c} * {b}.{c}");
    }
    s
}

/// The result vector of an arithmetic/pack/unpack opcode from sources `s0`, `s1`, `s2`
/// (interpreter `ops::alu`), or `None` for opcodes handled elsewhere.
pub fn alu(op: FpOpcode, opts: &FragmentTranslateOptions) -> Option<String> {
    let splat = |e: String| format!("vec4<f32>({e})");
    let sel = |cmp: &str| format!("select(vec4<f32>(0.0), vec4<f32>(1.0), s0 {cmp} s1)");
    Some(match op {
        FpOpcode::Mov => "s0".into(),
        FpOpcode::Mul => "s0 * s1".into(),
        FpOpcode::Add => "s0 + s1".into(),
        // RPCS3 emits fma for MAD (B.7).
        FpOpcode::Mad if opts.fused_mad => "fma(s0, s1, s2)".into(),
        FpOpcode::Mad => "s0 * s1 + s2".into(),
        FpOpcode::Dp2 => splat(dot("s0", "s1", 2)),
        FpOpcode::Dp3 => splat(dot("s0", "s1", 3)),
        FpOpcode::Dp4 => splat(dot("s0", "s1", 4)),
        // dot(src0.xy, src1.xy) + src2.x (B.7).
        FpOpcode::Dp2a => splat(format!("{} + s2.x", dot("s0", "s1", 2))),
        // (1, s0.y·s1.y, s0.z, s1.w) (B.7).
        FpOpcode::Dst => "vec4<f32>(1.0, s0.y * s1.y, s0.z, s1.w)".into(),
        FpOpcode::Min | FpOpcode::Max => {
            let (num, f) = if op == FpOpcode::Min {
                ("rsx_min_num", "min")
            } else {
                ("rsx_max_num", "max")
            };
            match opts.min_max_nan {
                MinMaxNan::OtherOperand => format!("{num}(s0, s1)"),
                MinMaxNan::Propagate => {
                    format!("select({f}(s0, s1), s0 + s1, rsx_nan_either(s0, s1))")
                }
            }
        }
        FpOpcode::Slt => sel("<"),
        FpOpcode::Sge => sel(">="),
        FpOpcode::Sle => sel("<="),
        FpOpcode::Sgt => sel(">"),
        // NaN != x is true (IEEE); the bit test keeps it so on devices that assume NaNs away.
        FpOpcode::Sne => {
            "select(vec4<f32>(0.0), vec4<f32>(1.0), (s0 != s1) | rsx_nan_either(s0, s1))".into()
        }
        FpOpcode::Seq => sel("=="),
        FpOpcode::Sfl => "vec4<f32>(0.0)".into(),
        FpOpcode::Str => "vec4<f32>(1.0)".into(),
        // GLSL fract: x − floor(x).
        FpOpcode::Frc => "s0 - floor(s0)".into(),
        FpOpcode::Flr => "floor(s0)".into(),
        FpOpcode::Rcp => splat("1.0 / s0.x".into()),
        // RSQ ignores the sign (B.7).
        FpOpcode::Rsq => splat("1.0 / sqrt(abs(s0.x))".into()),
        FpOpcode::Ex2 => splat("exp2(s0.x)".into()),
        FpOpcode::Lg2 => splat("log2(s0.x)".into()),
        // The argument reduction of TrigReduction (interpreter `trig`).
        FpOpcode::Cos => splat(format!("cos({})", trig_angle(opts.trig))),
        FpOpcode::Sin => splat(format!("sin({})", trig_angle(opts.trig))),
        FpOpcode::Div => "s0 / s1.x".into(),
        // |src0| > 0 ? src0 / sqrt(|src1.x|) : src0, per lane (B.7, HW-tested).
        FpOpcode::Divsq => "select(s0, s0 / sqrt(abs(s1.x)), abs(s0) > vec4<f32>(0.0))".into(),
        // normalize(src0.xyz) as .xyzz, input unchanged at length 0 (B.7).
        FpOpcode::Nrm => "select(s0.xyzz / sqrt(s0.x * s0.x + s0.y * s0.y + s0.z * s0.z), s0.xyzz, sqrt(s0.x * s0.x + s0.y * s0.y + s0.z * s0.z) == 0.0)".into(),
        // (1, max(x,0), x>0 ? pow(max(y,1e-10), w) : 0, 1) (B.7); max is maxNum.
        FpOpcode::Lit => format!(
            "vec4<f32>(1.0, rsx_max_num(s0, vec4<f32>(0.0)).x, select(0.0, pow(rsx_max_num(s0, vec4<f32>({})).y, s0.w), s0.x > 0.0), 1.0)",
            f32_bits(1e-10f32.to_bits())
        ),
        // (1, t.y, t.y > 0 ? exp2(t.w) : 0, 1) (B.7).
        FpOpcode::Lif => "vec4<f32>(1.0, s0.y, select(0.0, exp2(s0.w), s0.y > 0.0), 1.0)".into(),
        FpOpcode::Lrp => "s0 * s1 + (vec4<f32>(1.0) - s0) * s2".into(),
        // s0 − 2·dot(s1, s0)·s1 on vec4 (B.7).
        FpOpcode::Refl => format!("s0 - (2.0 * ({})) * s1", dot("s0", "s1", 4)),
        FpOpcode::Pow => splat("pow(s0.x, s1.x)".into()),
        FpOpcode::Bem => "rsx_bem(s0, s1, s2)".into(),
        // Packs: the word's bits as an f32 in every lane (B.7).
        FpOpcode::Pk2 => splat("bitcast<f32>(rsx_f2h(s0.x) | (rsx_f2h(s0.y) << 16u))".into()),
        FpOpcode::Pk4 => splat("bitcast<f32>(rsx_pack_snorm4x8(s0))".into()),
        FpOpcode::Pkb => splat("bitcast<f32>(rsx_pack_unorm4x8(s0))".into()),
        FpOpcode::Pk16 => splat(
            "bitcast<f32>(rsx_pack_comp(s0.x, 0.0, 1.0, 65535.0, 0xffffu) | (rsx_pack_comp(s0.y, 0.0, 1.0, 65535.0, 0xffffu) << 16u))".into(),
        ),
        FpOpcode::Pkg => splat(
            "bitcast<f32>(rsx_pack_unorm4x8(vec4<f32>(rsx_to_srgb(s0.x), rsx_to_srgb(s0.y), rsx_to_srgb(s0.z), s0.w)))".into(),
        ),
        FpOpcode::Up2 => "rsx_rd_h(vec2<u32>(bitcast<u32>(s0.x))).xyxy".into(),
        FpOpcode::Up4 => "rsx_unpack_snorm4x8(bitcast<u32>(s0.x))".into(),
        FpOpcode::Upb => "rsx_unpack_unorm4x8(bitcast<u32>(s0.x))".into(),
        FpOpcode::Up16 => "(vec2<f32>(f32(bitcast<u32>(s0.x) & 0xffffu), f32(bitcast<u32>(s0.x) >> 16u)) / 65535.0).xyxy".into(),
        FpOpcode::Upg => "rsx_upg(rsx_unpack_unorm4x8(bitcast<u32>(s0.x)))".into(),
        _ => return None,
    })
}

/// The angle SIN/COS evaluate for the argument `s0.x` (rsx-microcode.md B.9 open question 3):
/// with [`TrigReduction::Exact`], `s0.x` reduced by 2π in three parts (`rsx_reduce_2pi`, so
/// that the device's `sin`/`cos`, which need not reduce large arguments accurately, agree
/// with the interpreter's exact functions); with [`TrigReduction::Turns`], 2π ·
/// fract(s0.x · f32(1/2π)) exactly as the interpreter rounds it (WGSL `*` is correctly
/// rounded).
fn trig_angle(mode: TrigReduction) -> String {
    match mode {
        TrigReduction::Exact => "rsx_reduce_2pi(s0.x)".into(),
        TrigReduction::Turns => {
            "bitcast<f32>(0x40c90fdbu) * fract(s0.x * bitcast<f32>(0x3e22f983u))".into()
        }
    }
}

/// Helpers used by [`alu`] that depend on nothing else, by name (see `super::prelude::LIBRARY`).
pub const OP_LIBRARY: &[(&str, &str)] = &[
    (
        "rsx_bem",
        r#"
// src0.xyxy + src1.xxxx * src2.xzxz + src1.yyyy * src2.ywyw (BEM, TEXBEM, TXPBEM; B.4, B.7).
fn rsx_bem(a: vec4<f32>, b: vec4<f32>, c: vec4<f32>) -> vec4<f32> {
    let x = a.x + b.x * c.x + b.y * c.y;
    let y = a.y + b.x * c.z + b.y * c.w;
    return vec4<f32>(x, y, x, y);
}
"#,
    ),
    (
        "rsx_upg",
        r#"
fn rsx_upg(u: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(rsx_from_srgb(u.x), rsx_from_srgb(u.y), rsx_from_srgb(u.z), u.w);
}
"#,
    ),
];
