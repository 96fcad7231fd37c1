//! Every vertex opcode the recompiler translates, run on the device (`run_vertex_compute` of
//! the `rsxtrace_wgsl::vertex::translate` module) and in the reference interpreter
//! (`run_vertex`, f32) on the same inputs: 256 edge-case combinations (±0, ±1, 1e±30, NaN,
//! ±inf, 65504, 70000...) and 256 random vertices, compared component by component.
//!
//! Rule: equal bits (any NaN matches any NaN) except for the transcendental ops, whose
//! tolerance is the Vulkan precision requirement for the SPIR-V instruction the WGSL becomes
//! (Vulkan spec "Precision and Operation of SPIR-V Instructions"), named at each op below.
//! Results are also required to agree on which output registers were written.

use crate::gpu_support;
use crate::vertex_interp_support;

use gpu_support::{Rng, Tolerance, EDGES};
use rsxtrace_gpu::{Gpu, VP_CONSTANTS};
use rsxtrace_program::vertex::{Component, Relation, ScalarOpcode as S, VectorOpcode as V};
use rsxtrace_replay::coverage::translate_support;
use rsxtrace_replay::interp::vertex as iv;
use rsxtrace_wgsl::vertex as tv;
use vertex_interp_support::*;

const TEX0: u8 = 7;
const TEX1: u8 = 8;

type Attrs = [[f32; 4]; 16];

/// The device's result for `insns` against the interpreter's, under matching options; returns
/// the mismatch descriptions (at most 12) after checking the written masks. A component also
/// passes when it equals the interpreter's under `alt` (a rule the device may legitimately
/// follow instead, e.g. unfused MAD).
#[allow(clippy::too_many_arguments)]
fn compare(
    gpu: &Gpu,
    name: &str,
    insns: &[I],
    consts: &[(usize, [f32; 4])],
    inputs: &[Attrs],
    iopt: &iv::VertexOptions,
    topt: &tv::VertexTranslateOptions,
    branch_bits: u32,
    tol: &dyn Fn(&Attrs, usize, usize) -> Tolerance,
    alt: Option<&iv::VertexOptions>,
) -> Vec<String> {
    let p = program(insns);
    let bank = constants(consts);
    let env = iv::VertexEnvironment {
        branch_bits: Some(branch_bits),
        ..iv::VertexEnvironment::new(&bank)
    };
    let cpu = iv::run_vertex(&p, &[], &env, inputs, iopt)
        .unwrap_or_else(|e| panic!("{name}: interpreter: {e}"));
    let alt_cpu = alt.map(|o| {
        iv::run_vertex(&p, &[], &env, inputs, o)
            .unwrap_or_else(|e| panic!("{name}: interpreter (alternative): {e}"))
    });
    let module = tv::translate(&p, &[], topt).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut c = Box::new([[0f32; 4]; VP_CONSTANTS]);
    for (i, v) in consts {
        c[*i] = *v;
    }
    let out = gpu
        .run_vertex_compute(&module, &c, inputs, branch_bits)
        .unwrap_or_else(|e| panic!("{name}: device: {e}"));
    let mut bad = Vec::new();
    for (n, (g, l)) in out.iter().zip(&cpu.lanes).enumerate() {
        if g.written != l.written {
            bad.push(format!(
                "{name} vertex {n}: written {:#x} on the device, {:#x} in the interpreter",
                g.written, l.written
            ));
            continue;
        }
        for reg in 0..16 {
            if l.written & (1 << reg) == 0 {
                continue;
            }
            for k in 0..4 {
                let (gv, cv) = (g.registers[reg][k], l.registers[reg][k] as f32);
                let alt_ok = alt_cpu.as_ref().is_some_and(|a| {
                    a.lanes
                        .get(n)
                        .is_some_and(|al| gpu_support::same(gv, al.registers[reg][k] as f32))
                });
                if !alt_ok && !tol(&inputs[n], reg, k).accepts(gv, cv) {
                    bad.push(format!(
                        "{name} vertex {n} o[{reg}].{}: device {gv:e} ({:#010x}), interpreter \
                         {cv:e} ({:#010x}); inputs v1 {:?} v2 {:?} v3 {:?}",
                        ["x", "y", "z", "w"][k],
                        gv.to_bits(),
                        cv.to_bits(),
                        inputs[n][1],
                        inputs[n][2],
                        inputs[n][3]
                    ));
                }
            }
        }
        if bad.len() >= 12 {
            break;
        }
    }
    assert_eq!(out.len(), cpu.lanes.len(), "{name}: vertex count");
    bad
}

/// 256 edge-case vertices (every ordered pair of [`EDGES`] appears between v1.x and v2.x, and
/// between other component pairs under other pairings), then `random` random vertices. v1, v2,
/// v3 are the operands.
fn operand_inputs(seed: u64, random: usize, value: &dyn Fn(&mut Rng) -> f32) -> Vec<Attrs> {
    let e = |i: usize| EDGES[i % EDGES.len()];
    let mut out = Vec::with_capacity(256 + random);
    for i in 0..256 {
        let (a, b) = (i % 16, i / 16);
        let mut v = [[0f32; 4]; 16];
        v[1] = [e(a), e(b), e(a + 5), e(b + 9)];
        v[2] = [e(b), e(a), e(b + 3), e(a + 11)];
        v[3] = [e(a * 3 + b), e(b + 1), e(a + b), e(a + 2)];
        out.push(v);
    }
    let mut rng = Rng::new(seed);
    for _ in 0..random {
        let mut v = [[0f32; 4]; 16];
        for attr in &mut v[1..4] {
            for c in attr.iter_mut() {
                *c = value(&mut rng);
            }
        }
        out.push(v);
    }
    out
}

/// Random values: a third small (|x| < 4, where sums and products keep few bits), a third
/// with exponents in ±20, a third over the whole f32 exponent range.
fn mixed(rng: &mut Rng) -> f32 {
    match rng.below(3) {
        0 => rng.range(-4.0, 4.0),
        1 => rng.wide(20),
        _ => rng.wide(126),
    }
}

/// MOV R1, v1; MOV R2, v2; MOV R3, v3; then `last` (with END).
fn with_operands(last: I) -> Vec<I> {
    vec![
        I::vec_temp(V::Mov, 1, "xyzw").s0(v()).input(1),
        I::vec_temp(V::Mov, 2, "xyzw").s0(v()).input(2),
        I::vec_temp(V::Mov, 3, "xyzw").s0(v()).input(3),
        last.end(),
    ]
}

fn exact(_: &Attrs, _: usize, _: usize) -> Tolerance {
    Tolerance::Exact
}

#[test]
fn every_vector_opcode_matches_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("every_vector_opcode_matches_the_interpreter") else {
        return;
    };
    let inputs = operand_inputs(1, 256, &mixed);
    let iopt = iv::VertexOptions::default();
    let topt = tv::VertexTranslateOptions::default();
    let unfused = iv::VertexOptions {
        rules: iv::VertexRules {
            mad: iv::MadRounding::Separate,
            ..iopt.rules
        },
        ..iopt
    };
    let mut tested = Vec::new();
    let mut bad = Vec::new();
    for op in V::ALL {
        // ARL (its own test below), NOP (nothing to compare), TXL (it samples a texture:
        // compared on the device in traces/scenes/tests/vertex_texture.rs) and what is not
        // translated.
        if matches!(op, V::Nop | V::Arl | V::Txl) || !is_translated_vector(op) {
            continue;
        }
        let insn = I::vec_out(op, TEX0, "xyzw").srcs([r(1), r(2), r(3)]);
        let name = format!("{op:?}");
        // WGSL `fma` need not be fused (Vulkan: Fma's precision is "inherited from OpFMul
        // followed by OpFAdd"), and lavapipe's is not: MAD(-1e30, 3, 1e-30) is 0xf2177618
        // there (the product's tie rounded to even, then the add), 0xf2177617 fused (the
        // interpreter's default). So the device may match either rounding; nothing else.
        let alt = (op == V::Mad).then_some(&unfused);
        bad.extend(compare(
            &gpu,
            &name,
            &with_operands(insn),
            &[],
            &inputs,
            &iopt,
            &topt,
            0,
            &exact,
            alt,
        ));
        tested.push(name);
    }
    println!("vector opcodes compared bit for bit: {}", tested.join(" "));
    assert!(tested.len() >= 20, "{tested:?}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn is_translated_vector(op: V) -> bool {
    matches!(
        translate_support(rsxtrace_program::coverage::Opcode::Vector(op)),
        rsxtrace_program::coverage::Support::Yes
    )
}

fn is_translated_scalar(op: S) -> bool {
    matches!(
        translate_support(rsxtrace_program::coverage::Opcode::Scalar(op)),
        rsxtrace_program::coverage::Support::Yes
    )
}

/// The Vulkan precision of the GPU side of each scalar op, for the component `k` of its
/// result given the operand `x` (src2.x, the scalar operand under the default options).
fn scalar_tolerance(op: S, x: f32, k: usize) -> Tolerance {
    match op {
        // OpFDiv 1/x: 2.5 ULP (Vulkan, |x| in [2^-126, 2^126]); RSQ is 1.0 / sqrt(|x|):
        // sqrt is "inherited from 1.0 / inversesqrt()" (2 ULP) then the division, 2.5 ULP.
        // Rounded up to 3 and 5.
        S::Rcp | S::Rcc => Tolerance::Ulps(3),
        S::Rsq => Tolerance::Ulps(5),
        // OpExtInst Exp2: 3 + 2|x| ULP.
        S::Ex2 => Tolerance::Ulps(3 + 2 * x.abs().min(1e6) as u64),
        // Log2: 3 ULP outside [0.5, 2], absolute 2^-21 inside.
        S::Lg2 => Tolerance::AbsOrUlps(2f32.powi(-21), 3),
        // Sin/Cos: the argument is reduced by 2π in three parts first (exact below about
        // 25000 radians), so the device's sin/cos of the reduced angle (Vulkan: absolute
        // 2^-11 on [-π, π]; lavapipe does far better) stays within 2^-20 of the
        // interpreter's exact function; beyond, and for NaN, nothing is promised. lavapipe
        // reduces large arguments well by itself, so there this holds without the reduction
        // too (`rsxtrace-wgsl`'s vertex_ops test checks the WGSL calls it); devices that do not
        // reduce fail it without.
        S::Sin | S::Cos if x.is_nan() || x.abs() > 25000.0 => Tolerance::Any,
        S::Sin | S::Cos => Tolerance::AbsOrUlps(2f32.powi(-20), 4),
        // EXP (NV): x = 2^floor(x) (exp2 of an integer: exact on a correct exp2, 3 + 2|x|
        // ULP allowed), y = x - floor(x) exact, z = exp2(x), w = 1.
        S::Exp => match k {
            1 | 3 => Tolerance::Exact,
            _ => Tolerance::Ulps(3 + 2 * x.abs().min(1e6) as u64),
        },
        // LOG (NV): x = floor(log2|x|) and y = |x| / 2^x are exact unless log2 rounds across
        // an integer (not met by these inputs: powers of two are exact in log2); z = log2.
        S::Log => match k {
            2 => Tolerance::AbsOrUlps(2f32.powi(-21), 3),
            _ => Tolerance::Exact,
        },
        _ => Tolerance::Exact,
    }
}

#[test]
fn every_scalar_opcode_matches_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("every_scalar_opcode_matches_the_interpreter") else {
        return;
    };
    let iopt = iv::VertexOptions::default();
    let topt = tv::VertexTranslateOptions::default();
    let mut tested = Vec::new();
    let mut bad = Vec::new();
    for op in S::ALL {
        // Flow ops have their own tests; LIT has its own (pow).
        if matches!(
            op,
            S::Nop | S::Bra | S::Bri | S::Cal | S::Cli | S::Ret | S::Brb | S::Clb | S::Lit
        ) || !is_translated_scalar(op)
        {
            continue;
        }
        let inputs = match op {
            // Up to ±20000 radians: the recompiled program reduces the argument first.
            S::Sin | S::Cos => operand_inputs(2, 256, &|r: &mut Rng| match r.below(3) {
                0 => r.range(-20000.0, 20000.0),
                1 => r.range(-300.0, 300.0),
                _ => r.range(-4.0, 4.0),
            }),
            // exp2 beyond ±150 is 0 or inf on both sides; keep most inputs in range.
            S::Ex2 | S::Exp => operand_inputs(3, 256, &|r: &mut Rng| r.range(-140.0, 140.0)),
            _ => operand_inputs(4, 256, &mixed),
        };
        let insn = I::sca_out(op, TEX1, "xyzw").s2(r(3));
        let name = format!("{op:?}");
        let tol = |a: &Attrs, _reg: usize, k: usize| scalar_tolerance(op, a[3][0], k);
        bad.extend(compare(
            &gpu,
            &name,
            &with_operands(insn),
            &[],
            &inputs,
            &iopt,
            &topt,
            0,
            &tol,
            None,
        ));
        tested.push(name);
    }
    println!("scalar opcodes compared: {}", tested.join(" "));
    assert!(tested.len() >= 9, "{tested:?}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn lit_matches_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("lit_matches_the_interpreter") else {
        return;
    };
    // LIT's z = pow(max(y, 1e-10), w) becomes exp2(w * log2(y)) on the device: Vulkan's pow
    // precision is "inherited from exp2(y * log2(x))", i.e. relative error growing with
    // |w * log2(y)|; x, y, w are kept where the result is finite and w * log2(y) is within
    // ±32, so the allowance is 3 + 2 * 32 ULP for exp2 plus log2's 3 ULP amplified by |w|
    // (at most 8 here): 96 ULP in all.
    let mut inputs = operand_inputs(5, 512, &|r: &mut Rng| r.range(-4.0, 4.0));
    inputs.retain(|v| {
        let [x, y, _, w] = v[3];
        let e = w * y.max(1e-10).log2();
        x.is_nan() || y.is_nan() || w.is_nan() || (e.abs() <= 32.0 && w.abs() <= 8.0)
    });
    for clamp in [false, true] {
        let iopt = iv::VertexOptions {
            rules: iv::VertexRules {
                lit_clamp_exponent: clamp,
                ..Default::default()
            },
            ..Default::default()
        };
        let topt = tv::VertexTranslateOptions {
            lit_clamp_exponent: clamp,
            ..Default::default()
        };
        let insn = I::sca_out(S::Lit, TEX1, "xyzw").s2(r(3));
        let tol = |_: &Attrs, _: usize, k: usize| {
            if k == 2 {
                Tolerance::Ulps(96)
            } else {
                Tolerance::Exact
            }
        };
        let bad = compare(
            &gpu,
            "LIT",
            &with_operands(insn),
            &[],
            &inputs,
            &iopt,
            &topt,
            0,
            &tol,
            None,
        );
        assert!(bad.is_empty(), "clamp {clamp}:\n{}", bad.join("\n"));
    }
}

/// Each disputed rule's alternative, on the op it changes: the module built with an option
/// computes what the interpreter computes under the same option.
#[test]
fn option_variants_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("option_variants_match_the_interpreter") else {
        return;
    };
    let inputs = operand_inputs(6, 256, &mixed);
    let d = iv::VertexOptions::default();
    let t = tv::VertexTranslateOptions::default();
    let vec_op = |op| I::vec_out(op, TEX0, "xyzw").srcs([r(1), r(2), r(3)]);
    let sca_op = |op| I::sca_out(op, TEX1, "xyzw").s2(r(3));
    let cases: Vec<(&str, I, iv::VertexOptions, tv::VertexTranslateOptions)> = vec![
        (
            "MIN propagate",
            vec_op(V::Min),
            iv::VertexOptions {
                rules: iv::VertexRules {
                    min_max_nan: iv::MinMaxNan::Propagate,
                    ..d.rules
                },
                ..d
            },
            tv::VertexTranslateOptions {
                min_max_nan: tv::MinMaxNan::Propagate,
                ..t
            },
        ),
        (
            "MAX propagate",
            vec_op(V::Max),
            iv::VertexOptions {
                rules: iv::VertexRules {
                    min_max_nan: iv::MinMaxNan::Propagate,
                    ..d.rules
                },
                ..d
            },
            tv::VertexTranslateOptions {
                min_max_nan: tv::MinMaxNan::Propagate,
                ..t
            },
        ),
        (
            "RCC as RPCS3 clamps it",
            sca_op(S::Rcc),
            iv::VertexOptions {
                rules: iv::VertexRules {
                    rcc: iv::RccClamp::Rpcs3,
                    ..d.rules
                },
                ..d
            },
            tv::VertexTranslateOptions {
                rcc: tv::RccClamp::Rpcs3,
                ..t
            },
        ),
        (
            "RSQ clamp",
            sca_op(S::Rsq),
            iv::VertexOptions {
                rules: iv::VertexRules {
                    rsq: iv::RsqGuard::Clamp,
                    ..d.rules
                },
                ..d
            },
            tv::VertexTranslateOptions {
                rsq: tv::RsqGuard::Clamp,
                ..t
            },
        ),
        (
            "RSQ raw",
            sca_op(S::Rsq),
            iv::VertexOptions {
                rules: iv::VertexRules {
                    rsq: iv::RsqGuard::Raw,
                    ..d.rules
                },
                ..d
            },
            tv::VertexTranslateOptions {
                rsq: tv::RsqGuard::Raw,
                ..t
            },
        ),
        (
            "LG2 raw",
            sca_op(S::Lg2),
            iv::VertexOptions {
                rules: iv::VertexRules {
                    lg2: iv::Lg2Guard::Raw,
                    ..d.rules
                },
                ..d
            },
            tv::VertexTranslateOptions {
                lg2: tv::Lg2Guard::Raw,
                ..t
            },
        ),
        (
            "MAD separate",
            vec_op(V::Mad),
            iv::VertexOptions {
                rules: iv::VertexRules {
                    mad: iv::MadRounding::Separate,
                    ..d.rules
                },
                ..d
            },
            tv::VertexTranslateOptions {
                mad: tv::MadRounding::Separate,
                ..t
            },
        ),
        (
            "SAT keep NaN",
            vec_op(V::Add).sat(),
            iv::VertexOptions {
                rules: iv::VertexRules {
                    saturate_nan: iv::SaturateNan::Keep,
                    ..d.rules
                },
                ..d
            },
            tv::VertexTranslateOptions {
                saturate_nan: tv::SaturateNan::Keep,
                ..t
            },
        ),
        ("SAT NaN to zero", vec_op(V::Mul).sat(), d, t),
        (
            "scalar per component",
            sca_op(S::Rcp).s2(sw(r(3), "wzyx")),
            iv::VertexOptions {
                rules: iv::VertexRules {
                    scalar_operand: iv::ScalarOperand::PerComponent,
                    ..d.rules
                },
                ..d
            },
            tv::VertexTranslateOptions {
                scalar_operand: tv::ScalarOperand::PerComponent,
                ..t
            },
        ),
    ];
    // `a * b + c` may be contracted into one rounding by the device's compiler (WGSL allows
    // it), so MAD separate also accepts the fused result; lavapipe does not contract.
    let fused = iv::VertexOptions {
        rules: iv::VertexRules {
            mad: iv::MadRounding::Fused,
            ..d.rules
        },
        ..d
    };
    let mut bad = Vec::new();
    for (name, insn, iopt, topt) in &cases {
        let tol = |a: &Attrs, _: usize, k: usize| {
            if name.starts_with("RCC") || name.starts_with("scalar") {
                Tolerance::Ulps(3)
            } else if name.starts_with("RSQ") {
                Tolerance::Ulps(5)
            } else if name.starts_with("LG2") {
                scalar_tolerance(S::Lg2, a[3][k], k)
            } else {
                Tolerance::Exact
            }
        };
        bad.extend(compare(
            &gpu,
            name,
            &with_operands(*insn),
            &[],
            &inputs,
            iopt,
            topt,
            0,
            &tol,
            name.starts_with("MAD").then_some(&fused),
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn arl_and_relative_constants_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("arl_and_relative_constants_match_the_interpreter") else {
        return;
    };
    // A0 = ARL(v1); o[TEX0..TEX3] = c[100 + A0.x], c[100 + A0.y], c[100 + A0.z], c[100 + A0.w].
    let comps = [Component::X, Component::Y, Component::Z, Component::W];
    let mut insns = vec![I::vec_temp(V::Arl, 0, "xyzw").s0(v()).input(1)];
    for (k, comp) in comps.iter().enumerate() {
        insns.push(
            I::vec_out(V::Mov, TEX0 + k as u8, "xyzw")
                .s0(c())
                .konst(100)
                .rel_const(0, *comp),
        );
    }
    insns.last_mut().expect("four moves").0.end = true;
    let consts: Vec<(usize, [f32; 4])> = (90..=110)
        .map(|i| (i, [i as f32, -(i as f32), 0.5 * i as f32, 1.0]))
        .collect();
    // Operands in (-10, 10): around integers, halves, signed zeros.
    let special = [0.0, -0.0, 0.5, -0.5, 2.999_999_8, -2.000_000_2, 9.5, -9.5];
    let mut rng = Rng::new(7);
    let inputs: Vec<Attrs> = (0..512)
        .map(|i| {
            let mut v = [[0f32; 4]; 16];
            for k in 0..4 {
                v[1][k] = if i < 64 {
                    special[(i + k * 3) % special.len()]
                } else {
                    rng.range(-9.99, 9.99)
                };
            }
            v
        })
        .collect();
    let mut bad = Vec::new();
    for (irule, trule) in [
        (iv::ArlRounding::Floor, tv::ArlRounding::Floor),
        (iv::ArlRounding::Truncate, tv::ArlRounding::Truncate),
    ] {
        let iopt = iv::VertexOptions {
            rules: iv::VertexRules {
                arl: irule,
                ..Default::default()
            },
            ..Default::default()
        };
        let topt = tv::VertexTranslateOptions {
            arl: trule,
            ..Default::default()
        };
        bad.extend(compare(
            &gpu,
            &format!("ARL {irule:?}"),
            &insns,
            &consts,
            &inputs,
            &iopt,
            &topt,
            0,
            &exact,
            None,
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn condition_codes_and_conditional_writes_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("condition_codes_and_conditional_writes_match") else {
        return;
    };
    // CC0 = v1 (through an ADD with v2, NaN and infinities included), CC1 = v3; then for each
    // relation a conditional MOV to its own output, on CC0 or CC1 with a swizzle.
    let relations = [
        Relation::FL,
        Relation::LT,
        Relation::EQ,
        Relation::LE,
        Relation::GT,
        Relation::NE,
        Relation::GE,
        Relation::TR,
    ];
    let mut insns = vec![
        I::vec_temp(V::Mov, 2, "xyzw").s0(v()).input(2),
        I::vec_temp(V::Add, 1, "xyzw")
            .s0(v())
            .input(1)
            .s2(r(2))
            .update_cc(0),
        I::vec_temp(V::Mov, 3, "xyzw").s0(v()).input(3).update_cc(1),
    ];
    for (n, rel) in relations.iter().enumerate() {
        let swz = ["xyzw", "wzyx", "xxyy", "zwzw"][n % 4];
        insns.push(I::vec_out(V::Mov, TEX0 + n as u8, "xyzw").s0(r(2)).cond(
            *rel,
            swz,
            (n % 2) as u8,
        ));
    }
    // A scalar op written under a condition and updating CC1 from a saturated result.
    insns.push(
        I::sca_out(S::Mov, 1, "xyzw")
            .s2(r(1))
            .cond(Relation::GE, "yzwx", 0),
    );
    insns.push(
        I::vec_out(V::Add, 2, "xyzw")
            .s0(r(1))
            .s2(r(3))
            .sat()
            .update_cc(1),
    );
    insns.push(
        I::vec_out(V::Mov, 3, "xyzw")
            .s0(r(3))
            .cond(Relation::GT, "xyzw", 1)
            .end(),
    );
    let inputs = operand_inputs(8, 256, &|r: &mut Rng| match r.below(4) {
        0 => 0.0,
        1 => r.range(-2.0, 2.0),
        _ => mixed(r),
    });
    let bad = compare(
        &gpu,
        "CC",
        &insns,
        &[],
        &inputs,
        &iv::VertexOptions::default(),
        &tv::VertexTranslateOptions::default(),
        0,
        &exact,
        None,
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn flow_control_matches_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("flow_control_matches_the_interpreter") else {
        return;
    };
    const HPOS: u8 = 0;
    const COL0: u8 = 1;
    // A loop counted by v0.x (BRI back), a conditional call (CLI), a call (CAL) and returns,
    // a boolean branch and call (BRB, CLB) on bits 5 and 6, and a BRA to A0.x.
    let with_bit = |mut i: I, index: u8, if_true: bool| {
        i.0.sources[2].temp_index = index | (u8::from(if_true) << 5);
        i
    };
    let insns = [
        /* 0 */ I::vec_temp(V::Mov, 0, "xyzw").s0(v()),
        /* 1 */ I::vec_temp(V::Add, 1, "xyzw").s0(r(1)).s2(c()).konst(1),
        /* 2 */
        I::vec_temp(V::Add, 0, "xyzw")
            .s0(r(0))
            .s2(neg(c()))
            .konst(1)
            .update_cc(0),
        /* 3 */ I::flow(S::Bri, 1).when(Relation::GT, "xxxx", 0),
        /* 4 */ I::vec_temp(V::Mov, 9, "x").s0(v()).input(1).update_cc(1),
        /* 5 */ I::flow(S::Cli, 14).when(Relation::LT, "xxxx", 1),
        /* 6 */ I::flow(S::Cal, 16),
        /* 7 */ with_bit(I::flow(S::Brb, 9), 5, true),
        /* 8 */ I::vec_out(V::Mov, COL0, "xyzw").s0(c()).konst(2),
        /* 9 */ with_bit(I::flow(S::Clb, 16), 6, false),
        /* 10 */ I::vec_temp(V::Arl, 0, "x").s0(v()).input(2),
        /* 11 */ I::flow(S::Bra, 0),
        /* 12 */ I::vec_out(V::Mov, HPOS, "xyzw").s0(r(1)).end(),
        /* 13 */ I::vec_out(V::Mov, HPOS, "xyzw").s0(r(2)).end(),
        /* 14 */ I::vec_temp(V::Add, 2, "xyzw").s0(r(2)).s2(c()).konst(3),
        /* 15 */ I::flow(S::Ret, 0),
        /* 16 */
        I::vec_temp(V::Mad, 2, "xyzw")
            .s0(r(2))
            .s1(c())
            .konst(3)
            .s2(r(1)),
        /* 17 */ I::flow(S::Ret, 0),
    ];
    let consts = [
        (1, [1.0; 4]),
        (2, [7.0, 8.0, 9.0, 10.0]),
        (3, [0.5, -1.5, 2.0, 3.0]),
    ];
    let mut rng = Rng::new(9);
    let inputs: Vec<Attrs> = (0..256)
        .map(|_| {
            let mut a = [[0f32; 4]; 16];
            a[0] = [rng.below(9) as f32 - 1.0; 4];
            a[1] = [rng.range(-1.0, 1.0); 4];
            a[2] = [(12 + rng.below(2)) as f32; 4];
            a
        })
        .collect();
    let mut bad = Vec::new();
    for bits in [0u32, 1 << 5, 1 << 6, (1 << 5) | (1 << 6)] {
        bad.extend(compare(
            &gpu,
            &format!("flow bits {bits:#x}"),
            &insns,
            &consts,
            &inputs,
            &iv::VertexOptions::default(),
            &tv::VertexTranslateOptions::default(),
            bits,
            &exact,
            None,
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_program_that_never_ends_reports_the_step_limit_on_the_device() {
    let Some(gpu) =
        gpu_support::gpu("a_program_that_never_ends_reports_the_step_limit_on_the_device")
    else {
        return;
    };
    const HPOS: u8 = 0;
    const COL0: u8 = 1;
    // cc0 starts at zero, so the BRI to itself is taken every time. Under the default limit
    // (65,536 steps) llvmpipe ends the loop itself after 65,535 iterations; under a small
    // limit the step counter does.
    let insns = [
        I::vec_out(V::Mov, COL0, "xyzw").s0(v()),
        I::flow(S::Bri, 1).when(Relation::EQ, "xxxx", 0),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(v()).end(),
    ];
    let p = program(&insns);
    let c = Box::new([[0f32; 4]; VP_CONSTANTS]);
    for step_limit in [100, tv::VertexTranslateOptions::default().step_limit] {
        let options = tv::VertexTranslateOptions {
            step_limit,
            ..Default::default()
        };
        let module = tv::translate(&p, &[], &options).unwrap();
        let out = gpu.run_vertex_compute(&module, &c, &[[[0.5f32; 4]; 16]; 3], 0);
        match out {
            Err(e) => assert!(e.to_string().contains("0x20002"), "limit {step_limit}: {e}"),
            Ok(v) => panic!("limit {step_limit}: the device gave {v:?}"),
        }
    }
}
