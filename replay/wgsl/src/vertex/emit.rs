//! WGSL for the body of one vertex instruction: the source fetches, the vector and scalar
//! results and their masked writes, following the interpreter's per-lane rules
//! (`replay/src/interp/vertex/lanes.rs` "One instruction, per lane", rsx-microcode.md B.8):
//!
//! 1. every source either unit reads is fetched into a `let` first (dual issue: both units see
//!    the registers as they were before the instruction);
//! 2. relation FL writes nothing (the caller emits no body);
//! 3. the condition mask (per component, on the CC before the instruction) is computed once;
//! 4. the vector result is written, then the scalar result, each through its mask to the
//!    output register (when this unit owns it), the temp, and the CC (when updated, or when
//!    there is no other destination). ARL writes the address register instead.
//!
//! The arithmetic itself lives in the helper functions of [`super::prelude`].

use super::options::{
    ArlRounding, ExpLog, MadRounding, ScalarOperand, TextureDim, VertexTextureUnits,
    VertexTranslateOptions, VERTEX_TEXTURE_UNITS,
};
use super::{FAULT_INDEX, OUTPUT_COUNT};
use rsxtrace_program::vertex::{
    CcRegister, RegisterType, Relation, ScalarOpcode, Swizzle, VectorOpcode, VertexInstruction,
};
use std::fmt::Write;

/// Transform constants (RPCS3 `vc[468]`, rsx-microcode.md B.8 "Constants").
pub(crate) const CONSTANT_COUNT: u32 = 468;

/// What the interpreter refuses at a slot before running it, whatever the lane
/// (`lanes.rs` `Group::check`): the reason, and whether the translator refuses it outright
/// (an opcode it does not translate) rather than emitting a runtime fault.
pub(crate) fn static_fault(i: &VertexInstruction) -> Option<(String, bool)> {
    match i.vector {
        VectorOpcode::Arr | VectorOpcode::Ara => {
            return Some((format!("vector opcode {}", i.vector.name()), true))
        }
        VectorOpcode::Arl if !matches!(i.vec_dst_temp, Some(0 | 1)) => {
            return Some((
                format!("ARL destination {:?} is not A0 or A1", i.vec_dst_temp),
                false,
            ))
        }
        _ => {}
    }
    if matches!(i.scalar, ScalarOpcode::Psh | ScalarOpcode::Pop) {
        return Some((format!("scalar opcode {}", i.scalar.name()), true));
    }
    None
}

/// The WGSL swizzle suffix (empty for the identity).
pub(crate) fn swizzle(s: Swizzle) -> String {
    if s == Swizzle::IDENTITY {
        String::new()
    } else {
        format!(".{}", s.letters())
    }
}

/// Name of the CC register variable.
pub(crate) fn cc_name(r: CcRegister) -> &'static str {
    match r {
        CcRegister::CC0 => "cc0",
        CcRegister::CC1 => "cc1",
    }
}

/// The per-component test of the swizzled CC against zero, as a `vec4<bool>` expression, or
/// `None` for FL/TR (constant). IEEE comparisons: a NaN satisfies only NE (`math::test`).
pub(crate) fn cc_test(i: &VertexInstruction) -> Option<String> {
    let op = match i.condition.relation {
        Relation::FL | Relation::TR => return None,
        Relation::LT => "<",
        Relation::EQ => "==",
        Relation::LE => "<=",
        Relation::GT => ">",
        Relation::NE => "!=",
        Relation::GE => ">=",
    };
    let cc = format!("{}{}", cc_name(i.cc_register), swizzle(i.condition.swizzle));
    // NE holds for a NaN: tested on the bits, as the device may assume NaNs away in `!=`
    // (lavapipe evaluates `NaN != 0.0` as false).
    if op == "!=" {
        return Some(format!("(({cc} != vec4<f32>(0.0)) | rsx_isnan({cc}))"));
    }
    Some(format!("({cc} {op} vec4<f32>(0.0))"))
}

/// The address-register component used for relative addressing, e.g. `a1.z`.
fn address(i: &VertexInstruction) -> String {
    format!(
        "a{}.{}",
        i.address.register & 1,
        i.address.component.letter()
    )
}

fn mask_literal(m: u8) -> String {
    let b = |c: u8| if (m >> c) & 1 == 1 { "true" } else { "false" };
    format!("vec4<bool>({}, {}, {}, {})", b(0), b(1), b(2), b(3))
}

/// Emits instruction bodies; records the temps they use.
pub(crate) struct BodyWriter<'a> {
    pub options: &'a VertexTranslateOptions,
    /// State of the vertex texture units (TXL).
    pub textures: &'a VertexTextureUnits,
    /// Temps read or written (declared by the caller).
    pub temps: [bool; 64],
    /// Vertex texture units sampled (bit u = unit u; declared by the caller).
    pub units: u8,
}

impl BodyWriter<'_> {
    /// Append the body of `i` (relation not FL) to `out`, indented by `ind`.
    pub fn body(&mut self, out: &mut String, i: &VertexInstruction, ind: &str) {
        let reads_vec = i.vector.reads();
        let reads = [
            reads_vec[0],
            reads_vec[1],
            reads_vec[2] || i.scalar.reads_src2(),
        ];
        let reads_type = |t: RegisterType| (0..3).any(|n| reads[n] && i.sources[n].reg_type == t);
        // The one input and the one constant of the instruction.
        let mut input = String::new();
        if reads_type(RegisterType::Input) {
            if i.index_input && self.options.relative_inputs {
                // D0 bit 27 index_input: input + A[sel].component; outside v[0..16] the
                // interpreter fails (InputOutOfRange): fault and clamp.
                let _ = writeln!(
                    out,
                    "{ind}let vi = {}i + {};\n{ind}if (vi < 0i || vi >= 16i) {{ written |= {FAULT_INDEX}u; }}",
                    i.input.0,
                    address(i)
                );
                input = "vin[clamp(vi, 0i, 15i)]".to_string();
            } else {
                input = format!("vin[{}]", i.input.0 & 15);
            }
        }
        let mut constant = String::new();
        if reads_type(RegisterType::Constant) {
            if i.index_const {
                // D3 bit 1 index_const: const_src + A[sel].component (RPCS3 `vc[const_src + a]`);
                // outside c[0..468] the interpreter fails (ConstantOutOfRange): fault and clamp.
                let _ = writeln!(
                    out,
                    "{ind}let ci = {}i + {};\n{ind}if (ci < 0i || ci >= {CONSTANT_COUNT}i) {{ written |= {FAULT_INDEX}u; }}",
                    i.const_index,
                    address(i)
                );
                constant = format!("vp_constants[clamp(ci, 0i, {}i)]", CONSTANT_COUNT - 1);
            } else {
                let c = u32::from(i.const_index);
                if c >= CONSTANT_COUNT {
                    let _ = writeln!(out, "{ind}written |= {FAULT_INDEX}u;");
                }
                constant = format!("vp_constants[{}]", c.min(CONSTANT_COUNT - 1));
            }
        }
        for (n, s) in i.sources.iter().enumerate() {
            if !reads[n] {
                continue;
            }
            let raw = match s.reg_type {
                RegisterType::Temp => {
                    let t = usize::from(s.temp_index) % 64;
                    self.temps[t] = true;
                    format!("r{t}")
                }
                RegisterType::Input => input.clone(),
                RegisterType::Constant => constant.clone(),
            };
            // Swizzle, then abs, then negate (RPCS3 `read_src`: `-abs(x.swz)`).
            let mut e = format!("{raw}{}", swizzle(s.swizzle));
            if s.abs {
                e = format!("abs({e})");
            }
            if s.negate {
                e = format!("-({e})");
            }
            let _ = writeln!(out, "{ind}let s{n} = {e};");
        }
        let dynamic = i.condition.enabled && cc_test(i).is_some();
        if dynamic {
            let _ = writeln!(out, "{ind}let cm = {};", cc_test(i).unwrap_or_default());
        }
        let sat = |e: String| {
            if i.saturate {
                format!("rsx_sat({e})")
            } else {
                e
            }
        };
        // Vector unit.
        if i.vector == VectorOpcode::Arl {
            let conv = match self.options.arl {
                ArlRounding::Floor => "floor",
                ArlRounding::Truncate => "trunc",
            };
            let reg = i.vec_dst_temp.unwrap_or(0) & 1;
            let m = i.vec_mask.0 & 0xF;
            if m != 0 {
                let _ = writeln!(out, "{ind}let av = rsx_f2i({conv}(s0));");
                let mask = if dynamic {
                    format!("({} & cm)", mask_literal(m))
                } else {
                    mask_literal(m)
                };
                let _ = writeln!(out, "{ind}a{reg} = select(a{reg}, av, {mask});");
            }
        } else if let Some(e) = self.vector_expr(i.vector) {
            if i.vector == VectorOpcode::Txl {
                self.txl(out, i, ind);
            }
            let _ = writeln!(out, "{ind}let vv = {};", sat(e));
            self.write(
                out,
                i,
                "vv",
                i.vec_mask.0,
                dynamic,
                i.vec_dst_temp,
                i.vec_result,
                "vm",
                ind,
            );
        }
        // Scalar unit.
        if let Some(e) = self.scalar_expr(i.scalar) {
            let _ = writeln!(out, "{ind}let sv = {};", sat(e));
            self.write(
                out,
                i,
                "sv",
                i.sca_mask.0,
                dynamic,
                i.sca_dst_temp,
                !i.vec_result,
                "sm",
                ind,
            );
        }
    }

    /// `lanes.rs` `write`: through the mask to the output register (when this unit is the
    /// result writer), the temp, and the CC when updated or when there is no other destination.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        out: &mut String,
        i: &VertexInstruction,
        value: &str,
        mask: u8,
        dynamic: bool,
        temp: Option<u8>,
        is_writer: bool,
        mask_name: &str,
        ind: &str,
    ) {
        let m = mask & 0xF;
        if m == 0 {
            return;
        }
        let full = m == 0xF && !dynamic;
        if dynamic {
            let _ = writeln!(out, "{ind}let {mask_name} = {} & cm;", mask_literal(m));
        } else if !full {
            let _ = writeln!(out, "{ind}let {mask_name} = {};", mask_literal(m));
        }
        let assign = |out: &mut String, dst: &str| {
            if full {
                let _ = writeln!(out, "{ind}{dst} = {value};");
            } else {
                let _ = writeln!(out, "{ind}{dst} = select({dst}, {value}, {mask_name});");
            }
        };
        if is_writer {
            if let Some(o) = i.output.filter(|o| usize::from(o.0) < OUTPUT_COUNT) {
                assign(out, &format!("o[{}]", o.0));
                let bit = 1u32 << o.0;
                if dynamic {
                    let _ = writeln!(out, "{ind}written |= select(0u, {bit}u, any({mask_name}));");
                } else {
                    let _ = writeln!(out, "{ind}written |= {bit}u;");
                }
            }
        }
        if let Some(t) = temp {
            let t = usize::from(t) % 64;
            self.temps[t] = true;
            assign(out, &format!("r{t}"));
        }
        if i.cc_update.any() || (temp.is_none() && !is_writer) {
            assign(out, cc_name(i.cc_register));
        }
    }

    /// TXL (rsx-microcode.md B.8 "TXL — textureLod(vtex[tex_num], …)"; interpreter `lanes.rs`):
    /// the statements that set `t` to the texel of the instruction's unit at coordinate src0
    /// and explicit level of detail src1.x, levels chosen by the shared LOD rule with the
    /// unit's bias, clamp and mip filter, as the interpreter's `VertexTextures` sampler does.
    fn txl(&mut self, out: &mut String, i: &VertexInstruction, ind: &str) {
        let u = usize::from(i.texture_unit().unwrap_or(0)) % VERTEX_TEXTURE_UNITS;
        self.units |= 1 << u;
        let (tex, smp) = (format!("rsx_vtex{u}"), format!("rsx_vsmp{u}"));
        let state = self.textures.lod[u];
        let dim = self.textures.dims[u];
        // Texel coordinates (UN bit) scaled to [0, 1] first, on 1D and 2D units (the
        // interpreter's `UnitSampler`).
        // A linear texture narrowed to its pitch stretches s over the register's width
        // (`TextureLod::narrow_pitch`; never set on unnormalised or cube units).
        let narrow = state.narrow_pitch.is_some() && dim != TextureDim::Cube;
        let c = match dim {
            TextureDim::D1 if state.unnormalized => {
                format!("vec4<f32>(s0.x / f32(textureDimensions({tex}, 0).x), s0.yzw)")
            }
            TextureDim::D2 if state.unnormalized => {
                format!("vec4<f32>(s0.xy / vec2<f32>(textureDimensions({tex}, 0)), s0.zw)")
            }
            _ if narrow => format!("vec4<f32>(s0.x * {:?}, s0.yzw)", state.s_scale()),
            _ => "s0".to_string(),
        };
        let _ = writeln!(out, "{ind}let c = {c};");
        // The coordinate's magnitude on the axes that mirror once (`TextureLod::mirror_once`,
        // as the fragment recompiler; a cube map clamps per face).
        let coord = match dim {
            // A 1D unit is bound as a 2D texture one texel high: the middle of its only row.
            TextureDim::D1 => {
                crate::levels::mirrored("vec2<f32>(c.x, 0.5)", state.mirror_once, 2, 1)
            }
            TextureDim::D2 => crate::levels::mirrored("c.xy", state.mirror_once, 2, 2),
            TextureDim::D3 => crate::levels::mirrored("c.xyz", state.mirror_once, 3, 3),
            TextureDim::Cube => "c.xyz".to_string(),
        };
        let width = if matches!(dim, TextureDim::D3 | TextureDim::Cube) {
            3
        } else {
            2
        };
        for line in crate::levels::sample_at_lambda(&tex, &smp, &coord, width, "s1.x", &state) {
            let _ = writeln!(out, "{ind}{line}");
        }
    }

    /// The vector op on `s0..s2` (`math::vector_op`); `None` for NOP (and ARL, handled apart).
    fn vector_expr(&self, op: VectorOpcode) -> Option<String> {
        use VectorOpcode as V;
        let set = |rel: &str| format!("select(vec4<f32>(0.0), vec4<f32>(1.0), s0 {rel} s1)");
        Some(match op {
            V::Mov => "s0".into(),
            V::Mul => "s0 * s1".into(),
            // ADD reads src0 + src2 (rsx-microcode.md B.8 "Operand slots").
            V::Add => "s0 + s2".into(),
            V::Mad => match self.options.mad {
                MadRounding::Fused => "fma(s0, s1, s2)".into(),
                MadRounding::Separate => "s0 * s1 + s2".into(),
            },
            V::Dp3 => "vec4<f32>(rsx_dot3(s0, s1))".into(),
            V::Dph => "vec4<f32>(rsx_dot3(s0, s1) + s1.w)".into(),
            V::Dp4 => "vec4<f32>(rsx_dot3(s0, s1) + s0.w * s1.w)".into(),
            V::Dst => "vec4<f32>(1.0, s0.y * s1.y, s0.z, s1.w)".into(),
            V::Min => "rsx_min(s0, s1)".into(),
            V::Max => "rsx_max(s0, s1)".into(),
            V::Slt => set("<"),
            V::Sge => set(">="),
            V::Seq => set("=="),
            V::Sgt => set(">"),
            V::Sle => set("<="),
            // NaN != x is true (IEEE); the bit test keeps it so on devices that assume NaNs
            // away (see `cc_test`).
            V::Sne => {
                "select(vec4<f32>(0.0), vec4<f32>(1.0), (s0 != s1) | rsx_isnan(s0) | rsx_isnan(s1))"
                    .into()
            }
            V::Sfl => "vec4<f32>(0.0)".into(),
            V::Str => "vec4<f32>(1.0)".into(),
            V::Frc => "s0 - floor(s0)".into(),
            V::Flr => "floor(s0)".into(),
            V::Ssg => "rsx_ssg(s0)".into(),
            // The texel `t` of `txl`'s statements.
            V::Txl => "t".into(),
            V::Nop | V::Arl | V::Arr | V::Ara => return None,
        })
    }

    /// The scalar op on `s2` (`math::scalar_op`); `None` for NOP and flow control.
    fn scalar_expr(&self, op: ScalarOpcode) -> Option<String> {
        use ScalarOpcode as S;
        let operand = match self.options.scalar_operand {
            ScalarOperand::FirstComponent => "vec4<f32>(s2.x)",
            ScalarOperand::PerComponent => "s2",
        };
        let spec = self.options.exp_log == ExpLog::Spec;
        Some(match op {
            S::Mov => operand.to_string(),
            S::Rcp => format!("vec4<f32>(1.0) / {operand}"),
            S::Rcc => format!("rsx_rcc({operand})"),
            // RSQ uses `.x` on both RPCS3 paths.
            S::Rsq => "rsx_rsq(vec4<f32>(s2.x))".to_string(),
            S::Exp if spec => "rsx_exp_spec(s2.x)".to_string(),
            S::Log if spec => "rsx_log_spec(s2.x)".to_string(),
            S::Exp => format!("exp({operand})"),
            S::Log => format!("log({operand})"),
            S::Lit => "rsx_lit(s2)".to_string(),
            S::Lg2 => format!("rsx_lg2({operand})"),
            S::Ex2 => format!("exp2({operand})"),
            // Reduced by 2π first (`crate::trig`): Vulkan bounds sin/cos on [-π, π] only.
            S::Sin => format!("sin(rsx_reduce_2pi4({operand}))"),
            S::Cos => format!("cos(rsx_reduce_2pi4({operand}))"),
            S::Nop
            | S::Bra
            | S::Bri
            | S::Cal
            | S::Cli
            | S::Ret
            | S::Brb
            | S::Clb
            | S::Psh
            | S::Pop => return None,
        })
    }
}
