//! Vertex interpreter: each opcode and each rule against values computed here, independently
//! of the interpreter. Programs are built from the decoder's IR and go through
//! `vertex::encode` / `decode_words`; one is laid out bit by bit by hand.

use crate::vertex_interp_support;

use rsxtrace_program::vertex::{self, Component, Relation, ScalarOpcode as S, VectorOpcode as V};
use rsxtrace_replay::interp::vertex::*;
use rsxtrace_replay::interp::Arithmetic;
use vertex_interp_support::*;

const HPOS: u8 = 0;
const COL0: u8 = 1;
const TEX0: u8 = 7;

#[test]
fn hand_laid_add_reads_src0_plus_src2() {
    // ADD o[HPOS], v[POS], c[1]; END — src1 holds v[POS] and must be ignored.
    // D0: cond swizzle xyzw = 0b00_01_10_11 << 2 = 0x6C, cond TR 7 << 10 = 0x1C00,
    //     no vector temp 0x3F << 15 = 0x1F8000, vec_result 1 << 30        -> 0x401F9C6C
    // src0 = input (2) | swizzle 0x1B << 8 = 0x1B02; src1 = 0x1B02; src2 = const (3) | 0x1B00
    //     = 0x1B03.
    // D1: src0 >> 9 = 0x0D, input 0 << 8, const 1 << 12, ADD 3 << 22  -> 0x00C0100D
    // D2: src2 >> 11 = 0x03, src1 << 6 = 0x6C080, (src0 & 0x1FF) << 23 = 0x81000000
    //                                                                     -> 0x8106C083
    // D3: END 1, dst HPOS 0 << 2, no scalar temp 0x3F << 7 = 0x1F80, vec mask xyzw 0xF << 13
    //     = 0x1E000, (src2 & 0x7FF) << 21 = 0x303 << 21 = 0x60600000      -> 0x6061FF81
    let words = [0x401F_9C6C, 0x00C0_100D, 0x8106_C083, 0x6061_FF81];
    let p = vertex::decode_words(&words).unwrap();
    assert_eq!(p.instructions[0].vector, V::Add);
    let bank = constants(&[(1, [10.0, 20.0, 30.0, 40.0])]);
    let env = VertexEnvironment::new(&bank);
    let input = vertex_with(&[(0, [1.0, 2.0, 3.0, 4.0])]);
    let out = run_vertex(&p, &[], &env, &[input], &VertexOptions::default()).unwrap();
    // src0 + src2 = v + c[1]; src0 + src1 would be (2, 4, 6, 8).
    assert_eq!(out0(&out, HPOS), [11.0, 22.0, 33.0, 44.0]);
}

#[test]
fn mov_and_output_defaults() {
    let out = run(
        &[I::vec_out(V::Mov, TEX0, "xy").s0(v()).input(8).end()],
        &[],
        &[vertex_with(&[(8, [0.25, 0.5, 0.75, 2.0])])],
    );
    // Only x and y written; z, w keep the (0, 0, 0, 1) default.
    assert_eq!(out0(&out, TEX0), [0.25, 0.5, 0.0, 1.0]);
    assert_eq!(out.lanes[0].get(HPOS), None);
    assert_eq!(out.lanes[0].registers[HPOS as usize], OUTPUT_DEFAULT);
    assert_eq!(out.lanes[0].written, 1 << TEX0);
    assert_eq!(output_name(TEX0), Some("TEX0"));
    assert_eq!(
        (0..16)
            .map(|n| output_name(n).unwrap())
            .collect::<Vec<_>>()
            .join(" "),
        "HPOS COL0 COL1 BFC0 BFC1 FOGC PSZ TEX0 TEX1 TEX2 TEX3 TEX4 TEX5 TEX6 TEX7 TEX8"
    );
}

#[test]
fn dp4_reads_ten_bit_constant_index() {
    let c256 = [0.5, -1.0, 2.0, 0.25];
    let p = [1.0, 2.0, 3.0, 4.0];
    let out = run(
        &[I::vec_out(V::Dp4, HPOS, "xyzw")
            .s0(v())
            .s1(c())
            .konst(256)
            .end()],
        &[(256, c256), (0, [9.0; 4])],
        &[vertex_with(&[(0, p)])],
    );
    let e = 0.5 * 1.0 - 1.0 * 2.0 + 2.0 * 3.0 + 0.25 * 4.0; // 5.5
    assert_eq!(out0(&out, HPOS), [e; 4]);
}

#[test]
fn dot_products_and_dst() {
    let a = [1.5f32, -2.0, 0.5, 3.0];
    let b = [2.0f32, 0.25, -4.0, 0.5];
    let consts = [(3, b)];
    let inputs = [vertex_with(&[(0, a)])];
    let dp3 = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cases = [
        (V::Dp3, [dp3; 4]),
        (V::Dph, [dp3 + b[3]; 4]),
        (V::Dp4, [dp3 + a[3] * b[3]; 4]),
        (V::Dst, [1.0, a[1] * b[1], a[2], b[3]]),
        (V::Mul, [a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3]]),
    ];
    for (op, expected) in cases {
        let out = run(
            &[I::vec_out(op, HPOS, "xyzw").s0(v()).s1(c()).konst(3).end()],
            &consts,
            &inputs,
        );
        assert_eq!(out0(&out, HPOS), expected, "{op:?}");
    }
}

#[test]
fn compare_min_max_and_rounding_ops() {
    let a = [1.0f32, -2.5, 3.0, 0.0];
    let b = [1.0f32, 2.0, -3.0, -0.0];
    let consts = [(0, b)];
    let inputs = [vertex_with(&[(0, a)])];
    let set = |f: fn(f32, f32) -> bool| [0, 1, 2, 3].map(|i| if f(a[i], b[i]) { 1.0 } else { 0.0 });
    let cases: Vec<(V, [f32; 4])> = vec![
        (V::Slt, set(|x, y| x < y)),
        (V::Sge, set(|x, y| x >= y)),
        (V::Seq, set(|x, y| x == y)),
        (V::Sgt, set(|x, y| x > y)),
        (V::Sle, set(|x, y| x <= y)),
        (V::Sne, set(|x, y| x != y)),
        (V::Sfl, [0.0; 4]),
        (V::Str, [1.0; 4]),
        (V::Min, [1.0, -2.5, -3.0, 0.0]),
        (V::Max, [1.0, 2.0, 3.0, 0.0]),
    ];
    for (op, expected) in cases {
        let out = run(
            &[I::vec_out(op, HPOS, "xyzw").s0(v()).s1(c()).end()],
            &consts,
            &inputs,
        );
        assert_eq!(out0(&out, HPOS), expected, "{op:?}");
    }
    let x = [2.75f32, -2.25, -0.0, 5.0];
    let inputs = [vertex_with(&[(0, x)])];
    let cases: Vec<(V, [f32; 4])> = vec![
        (V::Flr, [2.0, -3.0, -0.0, 5.0]),
        (V::Frc, [0.75, 0.75, 0.0, 0.0]),
        (V::Ssg, [1.0, -1.0, 0.0, 1.0]),
    ];
    for (op, expected) in cases {
        let out = run(&[I::vec_out(op, HPOS, "xyzw").s0(v()).end()], &[], &inputs);
        assert_eq!(out0(&out, HPOS), expected, "{op:?}");
    }
}

#[test]
fn min_max_nan_options() {
    let a = [f32::NAN, 1.0, 0.0, 0.0];
    let b = [2.0f32, f32::NAN, 0.0, 0.0];
    let run_mm = |op, nan| {
        let o = VertexOptions {
            rules: VertexRules {
                min_max_nan: nan,
                ..Default::default()
            },
            ..VertexOptions::default()
        };
        let out = run_with(
            &[I::vec_out(op, HPOS, "xyzw").s0(v()).s1(c()).end()],
            &[(0, b)],
            &[vertex_with(&[(0, a)])],
            &o,
        )
        .unwrap();
        out0(&out, HPOS)
    };
    let m = run_mm(V::Min, MinMaxNan::OtherOperand);
    assert_eq!((m[0], m[1]), (2.0, 1.0));
    let m = run_mm(V::Max, MinMaxNan::Propagate);
    assert!(m[0].is_nan() && m[1].is_nan());
}

#[test]
fn mad_is_fused_by_default_and_separate_on_request() {
    // x*y = 1 + 2^-11 + 2^-24 exactly; rounded to f32 it loses 2^-24 (tie to even).
    let x = 1.0 + 2f32.powi(-12);
    let z = -(1.0 + 2f32.powi(-11));
    let fused = ((f64::from(x) * f64::from(x)) + f64::from(z)) as f32;
    let separate = x * x + z;
    assert_ne!(fused, separate, "the test values must tell the two apart");
    let prog = [I::vec_out(V::Mad, HPOS, "xyzw")
        .s0(v())
        .s1(v())
        .s2(c())
        .end()];
    let inputs = [vertex_with(&[(0, [x; 4])])];
    let f = run(&prog, &[(0, [z; 4])], &inputs);
    assert_eq!(out0(&f, HPOS), [fused; 4]);
    let o = VertexOptions {
        rules: VertexRules {
            mad: MadRounding::Separate,
            ..Default::default()
        },
        ..VertexOptions::default()
    };
    let s = run_with(&prog, &[(0, [z; 4])], &inputs, &o).unwrap();
    assert_eq!(out0(&s, HPOS), [separate; 4]);
}

#[test]
fn source_swizzle_abs_then_negate() {
    let out = run(
        &[I::vec_out(V::Mov, HPOS, "xyzw")
            .s0(neg(abs(sw(v(), "wzyx"))))
            .end()],
        &[],
        &[vertex_with(&[(0, [1.0, -2.0, 3.0, -4.0])])],
    );
    assert_eq!(out0(&out, HPOS), [-4.0, -3.0, -2.0, -1.0]);
}

#[test]
fn temp_write_mask_keeps_other_components() {
    let out = run(
        &[
            I::vec_temp(V::Mov, 5, "xyzw").s0(c()).konst(1),
            I::vec_temp(V::Mov, 5, "yw").s0(v()),
            I::vec_out(V::Mov, HPOS, "xyzw").s0(r(5)).end(),
        ],
        &[(1, [1.0, 2.0, 3.0, 4.0])],
        &[vertex_with(&[(0, [10.0, 20.0, 30.0, 40.0])])],
    );
    assert_eq!(out0(&out, HPOS), [1.0, 20.0, 3.0, 40.0]);
}

#[test]
fn dual_issue_reads_registers_before_either_unit_writes() {
    // R0 = (1, 1, 1, 1); then in ONE slot: vector MOV R0 <- c[2] (= 5) and scalar MOV R1.x <-
    // R0.x. The scalar unit must see R0 as it was before the slot (1, not 5).
    let mut both = I::vec_temp(V::Mov, 0, "xyzw").s0(c()).konst(2).s2(r(0));
    both = both.with_scalar(S::Mov, Some(1), "x");
    let out = run(
        &[
            I::vec_temp(V::Mov, 0, "xyzw").s0(c()).konst(1),
            both,
            I::vec_out(V::Mov, HPOS, "xyzw").s0(r(1)).end(),
            // unreachable after END
        ],
        &[(1, [1.0; 4]), (2, [5.0; 4])],
        &[vertex_with(&[])],
    );
    assert_eq!(out0(&out, HPOS), [1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn conditional_write_per_component() {
    // CC0 <- (-1, 0, 2, NaN) by a MOV with CC update, then MOV o[HPOS] <- c[1] only where
    // CC0 > 0 (z), and MOV o[COL0] <- c[1] where CC0 != 0 (x, z and the NaN w).
    let cc = [-1.0, 0.0, 2.0, f32::NAN];
    let k = [7.0, 8.0, 9.0, 10.0];
    let out = run(
        &[
            I::vec_temp(V::Mov, 3, "xyzw").s0(v()).update_cc(0),
            I::vec_out(V::Mov, HPOS, "xyzw")
                .s0(c())
                .konst(1)
                .cond(Relation::GT, "xyzw", 0),
            I::vec_out(V::Mov, COL0, "xyzw")
                .s0(c())
                .konst(1)
                .cond(Relation::NE, "xyzw", 0),
            // Swizzled condition: CC0.zzzz >= 0 is true everywhere.
            I::vec_out(V::Mov, TEX0, "xyzw")
                .s0(c())
                .konst(1)
                .cond(Relation::GE, "zzzz", 0),
            // CC1 is still 0: EQ on CC1 passes, LT fails.
            I::vec_out(V::Mov, TEX0 + 1, "xyzw")
                .s0(c())
                .konst(1)
                .cond(Relation::EQ, "xyzw", 1),
            I::vec_out(V::Mov, TEX0 + 2, "xyzw")
                .s0(c())
                .konst(1)
                .cond(Relation::LT, "xyzw", 1)
                .end(),
        ],
        &[(1, k)],
        &[vertex_with(&[(0, cc)])],
    );
    assert_eq!(out0(&out, HPOS), [0.0, 0.0, 9.0, 1.0]);
    assert_eq!(out0(&out, COL0), [7.0, 0.0, 9.0, 10.0]);
    assert_eq!(out0(&out, TEX0), k);
    assert_eq!(out0(&out, TEX0 + 1), k);
    assert_eq!(out.lanes[0].get(TEX0 + 2), None, "no component passed");
}

#[test]
fn relation_fl_skips_the_whole_slot() {
    let mut i = I::vec_out(V::Mov, HPOS, "xyzw").s0(v()).end();
    i.0.condition.relation = Relation::FL;
    let out = run(&[i], &[], &[vertex_with(&[(0, [1.0; 4])])]);
    assert_eq!(out.lanes[0].written, 0);
}

#[test]
fn result_without_destination_goes_to_cc() {
    // Scalar MOV with no temp while vec_result is set: RPCS3 writes it to the CC ("Far Cry 2").
    let mut i = I::new().with_scalar(S::Mov, None, "xyzw").s2(v());
    i.0.vec_result = true;
    let out = run(
        &[
            i,
            I::vec_out(V::Mov, HPOS, "xyzw")
                .s0(c())
                .cond(Relation::LT, "xxxx", 0)
                .end(),
        ],
        &[(0, [3.0; 4])],
        &[vertex_with(&[(0, [-1.0, 0.0, 0.0, 0.0])])],
    );
    assert_eq!(out0(&out, HPOS), [3.0; 4]);
}

#[test]
fn arl_and_relative_constant_addressing() {
    // A0 <- floor(v) = (2, -2, 0, 0) by default; MOV o[HPOS] <- c[10 + A0.x] = c[12];
    // MOV o[COL0] <- c[10 + A0.y] = c[8].
    let consts: Vec<(usize, [f32; 4])> = (0..20).map(|i| (i, [i as f32; 4])).collect();
    let prog = [
        I::vec_temp(V::Arl, 0, "xyzw").s0(v()),
        I::vec_out(V::Mov, HPOS, "xyzw")
            .s0(c())
            .konst(10)
            .rel_const(0, Component::X),
        I::vec_out(V::Mov, COL0, "xyzw")
            .s0(c())
            .konst(10)
            .rel_const(0, Component::Y)
            .end(),
    ];
    let inputs = [vertex_with(&[(0, [2.7, -1.5, 0.0, 0.0])])];
    let out = run(&prog, &consts, &inputs);
    assert_eq!(out0(&out, HPOS), [12.0; 4]);
    assert_eq!(out0(&out, COL0), [8.0; 4], "floor(-1.5) = -2");
    // RPCS3 truncation: A0.y = -1 -> c[9].
    let o = VertexOptions {
        rules: VertexRules {
            arl: ArlRounding::Truncate,
            ..Default::default()
        },
        ..VertexOptions::default()
    };
    let out = run_with(&prog, &consts, &inputs, &o).unwrap();
    assert_eq!(out0(&out, COL0), [9.0; 4]);
    // A1 is separate from A0: writing A1 leaves A0 at 0.
    let prog = [
        I::vec_temp(V::Arl, 1, "xyzw").s0(v()),
        I::vec_out(V::Mov, HPOS, "xyzw")
            .s0(c())
            .konst(10)
            .rel_const(0, Component::X),
        I::vec_out(V::Mov, COL0, "xyzw")
            .s0(c())
            .konst(10)
            .rel_const(1, Component::X)
            .end(),
    ];
    let out = run(&prog, &consts, &inputs);
    assert_eq!(out0(&out, HPOS), [10.0; 4]);
    assert_eq!(out0(&out, COL0), [12.0; 4]);
}

#[test]
fn relative_index_out_of_range_is_an_error() {
    let consts: Vec<(usize, [f32; 4])> = (0..468).map(|i| (i, [0.0; 4])).collect();
    let prog = [
        I::vec_temp(V::Arl, 0, "xyzw").s0(v()),
        I::vec_out(V::Mov, HPOS, "xyzw")
            .s0(c())
            .konst(1)
            .rel_const(0, Component::X)
            .end(),
    ];
    let err = run_with(
        &prog,
        &consts,
        &[vertex_with(&[(0, [-2.0; 4])])],
        &VertexOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        VertexExecError::ConstantOutOfRange {
            slot: 1,
            index: -1,
            lane: 0
        }
    );
}

#[test]
fn relative_input_addressing() {
    let prog = [
        I::vec_temp(V::Arl, 0, "xyzw").s0(c()),
        I::vec_out(V::Mov, HPOS, "xyzw")
            .s0(v())
            .input(8)
            .rel_input(0, Component::Z)
            .end(),
    ];
    let inputs = [vertex_with(&[(8, [1.0; 4]), (10, [3.0; 4])])];
    let out = run(&prog, &[(0, [0.0, 0.0, 2.0, 0.0])], &inputs);
    assert_eq!(out0(&out, HPOS), [3.0; 4], "v[8 + A0.z] = v[10]");
    let o = VertexOptions {
        rules: VertexRules {
            relative_inputs: false,
            ..Default::default()
        },
        ..VertexOptions::default()
    };
    let out = run_with(&prog, &[(0, [0.0, 0.0, 2.0, 0.0])], &inputs, &o).unwrap();
    assert_eq!(out0(&out, HPOS), [1.0; 4], "RPCS3 ignores index_input");
}

#[test]
fn unknown_constant_is_an_error_unless_allowed() {
    let prog = [
        I::vec_out(V::Mov, COL0, "xyzw").s0(v()),
        I::vec_out(V::Add, HPOS, "xyzw")
            .s0(v())
            .s2(c())
            .konst(300)
            .end(),
    ];
    let inputs = [vertex_with(&[(0, [1.0; 4])])];
    let err = run_with(&prog, &[], &inputs, &VertexOptions::default()).unwrap_err();
    assert_eq!(
        err,
        VertexExecError::UnknownConstant {
            slot: 1,
            constant: 300,
            lane: 0
        }
    );
    assert_eq!(
        err.to_string(),
        "slot 1: constant c[300] was never set by the capture (lane 0)"
    );
    let o = VertexOptions {
        allow_unknown_constants: true,
        ..VertexOptions::default()
    };
    let out = run_with(&prog, &[], &inputs, &o).unwrap();
    assert_eq!(out0(&out, HPOS), [1.0; 4], "reads as zero");
    assert_eq!(
        out.unknown_constant_reads,
        vec![UnknownConstantRead {
            constant: 300,
            slot: 1
        }]
    );
}

#[test]
fn unread_operands_are_not_fetched() {
    // MOV reads src0 only: src1 and src2 name the (unknown) constant and a missing input.
    let prog = [I::vec_out(V::Mov, HPOS, "xyzw")
        .s0(r(0))
        .s1(c())
        .s2(c())
        .konst(77)
        .end()];
    let p = program(&prog);
    let bank = ConstantBank::new();
    let env = VertexEnvironment {
        input_mask: 0,
        ..VertexEnvironment::new(&bank)
    };
    let out = run_vertex(
        &p,
        &[],
        &env,
        &[vertex_with(&[])],
        &VertexOptions::default(),
    )
    .unwrap();
    assert_eq!(out0(&out, HPOS), [0.0; 4], "temps start at zero");
}

#[test]
fn missing_input_is_an_error_unless_allowed() {
    let prog = [I::vec_out(V::Mov, HPOS, "xyzw").s0(v()).input(3).end()];
    let p = program(&prog);
    let bank = ConstantBank::new();
    let env = VertexEnvironment {
        input_mask: 0b1,
        ..VertexEnvironment::new(&bank)
    };
    let input = vertex_with(&[(3, [5.0; 4])]);
    let err = run_vertex(&p, &[], &env, &[input], &VertexOptions::default()).unwrap_err();
    assert_eq!(
        err,
        VertexExecError::MissingInput {
            slot: 0,
            attribute: 3,
            lane: 0
        }
    );
    let o = VertexOptions {
        allow_missing_inputs: true,
        ..VertexOptions::default()
    };
    let out = run_vertex(&p, &[], &env, &[input], &o).unwrap();
    assert_eq!(out0(&out, HPOS), [0.0, 0.0, 0.0, 1.0]);
}

/// Run scalar `op` on src2 = v[0] (swizzle `letters`) into o[HPOS].
fn scalar(op: S, x: [f32; 4], letters: &str, o: &VertexOptions) -> [f32; 4] {
    let out = run_with(
        &[I::sca_out(op, HPOS, "xyzw").s2(sw(v(), letters)).end()],
        &[],
        &[vertex_with(&[(0, x)])],
        o,
    )
    .unwrap();
    out0(&out, HPOS)
}

#[test]
fn reciprocal_family() {
    let d = VertexOptions::default();
    assert_eq!(scalar(S::Rcp, [0.0; 4], "xxxx", &d), [f32::INFINITY; 4]);
    assert_eq!(
        scalar(S::Rcp, [-0.0; 4], "xxxx", &d),
        [f32::NEG_INFINITY; 4]
    );
    assert_eq!(scalar(S::Rcp, [4.0; 4], "xxxx", &d), [0.25; 4]);
    // RCC by default as NV_vertex_program1_1: the magnitude clamped to [2^-64, 2^64], the
    // sign kept.
    assert_eq!(scalar(S::Rcc, [2.0; 4], "xxxx", &d), [0.5; 4]);
    assert_eq!(scalar(S::Rcc, [-2.0; 4], "xxxx", &d), [-0.5; 4]);
    assert_eq!(scalar(S::Rcc, [0.0; 4], "xxxx", &d), [2f32.powi(64); 4]);
    assert_eq!(scalar(S::Rcc, [-0.0; 4], "xxxx", &d), [-(2f32.powi(64)); 4]);
    assert_eq!(scalar(S::Rcc, [1e30; 4], "xxxx", &d), [2f32.powi(-64); 4]);
    assert_eq!(
        scalar(S::Rcc, [-1e30; 4], "xxxx", &d),
        [-(2f32.powi(-64)); 4]
    );
    // RPCS3: clamp(1/x, 5.42101e-20, 1.884467e19) — negatives become the lower bound.
    let rpcs3 = VertexOptions {
        rules: VertexRules {
            rcc: RccClamp::Rpcs3,
            ..d.rules
        },
        ..d
    };
    assert_eq!(scalar(S::Rcc, [0.0; 4], "xxxx", &rpcs3), [1.884467e19; 4]);
    assert_eq!(scalar(S::Rcc, [-2.0; 4], "xxxx", &rpcs3), [5.42101e-20; 4]);
    assert_eq!(scalar(S::Rcc, [2.0; 4], "xxxx", &rpcs3), [0.5; 4]);
    // RSQ: default 1/sqrt(|x|).
    assert_eq!(scalar(S::Rsq, [-4.0; 4], "xxxx", &d), [0.5; 4]);
    assert_eq!(scalar(S::Rsq, [0.0; 4], "xxxx", &d), [f32::INFINITY; 4]);
    let clamp = VertexOptions {
        rules: VertexRules {
            rsq: RsqGuard::Clamp,
            ..d.rules
        },
        ..d
    };
    assert_eq!(
        scalar(S::Rsq, [0.0; 4], "xxxx", &clamp),
        [1.0 / 1e-10f32.sqrt(); 4]
    );
    let raw = VertexOptions {
        rules: VertexRules {
            rsq: RsqGuard::Raw,
            ..d.rules
        },
        ..d
    };
    assert!(scalar(S::Rsq, [-4.0; 4], "xxxx", &raw)[0].is_nan());
}

#[test]
fn scalar_reads_src2_x_and_broadcasts() {
    let d = VertexOptions::default();
    // Swizzle .yxzw puts 4 in x: 1/4 everywhere.
    assert_eq!(scalar(S::Rcp, [2.0, 4.0, 8.0, 16.0], "yxzw", &d), [0.25; 4]);
    let per = VertexOptions {
        rules: VertexRules {
            scalar_operand: ScalarOperand::PerComponent,
            ..d.rules
        },
        ..d
    };
    assert_eq!(
        scalar(S::Rcp, [2.0, 4.0, 8.0, 16.0], "xyzw", &per),
        [0.5, 0.25, 0.125, 0.0625]
    );
    // The scalar mask selects components.
    let out = run(
        &[I::sca_out(S::Mov, HPOS, "yw").s2(sw(v(), "zzzz")).end()],
        &[],
        &[vertex_with(&[(0, [1.0, 2.0, 3.0, 4.0])])],
    );
    assert_eq!(out0(&out, HPOS), [0.0, 3.0, 0.0, 3.0]);
}

#[test]
fn exponential_and_logarithm() {
    let d = VertexOptions::default();
    let x = 2.5f32;
    assert_eq!(scalar(S::Ex2, [x; 4], "xxxx", &d), [x.exp2(); 4]);
    // LG2: clamped at 1e-10 by default (RPCS3 decompiler), raw on request.
    assert_eq!(scalar(S::Lg2, [8.0; 4], "xxxx", &d), [3.0; 4]);
    assert_eq!(scalar(S::Lg2, [0.0; 4], "xxxx", &d), [1e-10f32.log2(); 4]);
    let raw = VertexOptions {
        rules: VertexRules {
            lg2: Lg2Guard::Raw,
            ..d.rules
        },
        ..d
    };
    assert_eq!(
        scalar(S::Lg2, [0.0; 4], "xxxx", &raw),
        [f32::NEG_INFINITY; 4]
    );
    // EXP/LOG per the NV spec by default.
    assert_eq!(
        scalar(S::Exp, [x; 4], "xxxx", &d),
        [4.0, 0.5, x.exp2(), 1.0]
    );
    // |-12| = 1.5 * 2^3.
    assert_eq!(
        scalar(S::Log, [-12.0; 4], "xxxx", &d),
        [3.0, 1.5, 12f32.log2(), 1.0]
    );
    let natural = VertexOptions {
        rules: VertexRules {
            exp_log: ExpLog::Natural,
            ..d.rules
        },
        ..d
    };
    assert_eq!(scalar(S::Exp, [x; 4], "xxxx", &natural), [x.exp(); 4]);
    assert_eq!(scalar(S::Log, [x; 4], "xxxx", &natural), [x.ln(); 4]);
    // SIN/COS in radians.
    assert_eq!(scalar(S::Sin, [0.5; 4], "xxxx", &d), [0.5f32.sin(); 4]);
    assert_eq!(scalar(S::Cos, [0.5; 4], "xxxx", &d), [0.5f32.cos(); 4]);
}

#[test]
fn lit() {
    let d = VertexOptions::default();
    // (1, max(x, 0), x > 0 ? pow(max(y, 1e-10), w) : 0, 1)
    assert_eq!(
        scalar(S::Lit, [0.5, 0.25, 9.0, 2.0], "xyzw", &d),
        [1.0, 0.5, 0.0625, 1.0]
    );
    assert_eq!(
        scalar(S::Lit, [-0.5, 0.25, 9.0, 2.0], "xyzw", &d),
        [1.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        scalar(S::Lit, [1.0, 0.0, 0.0, 3.0], "xyzw", &d),
        [1.0, 1.0, 1e-10f32.powf(3.0), 1.0]
    );
    let clamp = VertexOptions {
        rules: VertexRules {
            lit_clamp_exponent: true,
            ..d.rules
        },
        ..d
    };
    assert_eq!(
        scalar(S::Lit, [1.0, 0.5, 0.0, 200.0], "xyzw", &clamp),
        [1.0, 1.0, 0.5f32.powf(128.0), 1.0]
    );
}

#[test]
fn saturate_clamps_and_flushes_nan() {
    let x = [-0.5, 0.25, 1.5, f32::NAN];
    let prog = [I::vec_out(V::Mov, HPOS, "xyzw").s0(v()).sat().end()];
    let inputs = [vertex_with(&[(0, x)])];
    let out = run(&prog, &[], &inputs);
    assert_eq!(out0(&out, HPOS), [0.0, 0.25, 1.0, 0.0]);
    let o = VertexOptions {
        rules: VertexRules {
            saturate_nan: SaturateNan::Keep,
            ..Default::default()
        },
        ..VertexOptions::default()
    };
    let out = run_with(&prog, &[], &inputs, &o).unwrap();
    assert!(out0(&out, HPOS)[3].is_nan());
    // Scalar results saturate too.
    let out = run(
        &[I::sca_out(S::Rcp, HPOS, "xyzw").s2(v()).sat().end()],
        &[],
        &[vertex_with(&[(0, [0.5; 4])])],
    );
    assert_eq!(out0(&out, HPOS), [1.0; 4]);
}

#[test]
fn f64_arithmetic_uses_the_same_rules_wider() {
    let a = 0.1f32;
    let b = 3.0f32;
    let prog = [I::vec_out(V::Mul, HPOS, "xyzw").s0(v()).s1(c()).end()];
    let inputs = [vertex_with(&[(0, [a; 4])])];
    let o = VertexOptions {
        arithmetic: Arithmetic::F64,
        ..VertexOptions::default()
    };
    let wide = run_with(&prog, &[(0, [b; 4])], &inputs, &o).unwrap();
    assert_eq!(wide.arithmetic, Arithmetic::F64);
    assert_eq!(
        wide.lanes[0].get(HPOS),
        Some([f64::from(a) * f64::from(b); 4])
    );
    let narrow = run(&prog, &[(0, [b; 4])], &inputs);
    assert_eq!(narrow.lanes[0].get(HPOS), Some([f64::from(a * b); 4]));
    assert_ne!(f64::from(a * b), f64::from(a) * f64::from(b));
}

#[test]
fn opcodes_without_semantics_are_refused_naming_the_slot() {
    let inputs = [vertex_with(&[])];
    for (prog, name) in [
        (
            vec![
                I::vec_out(V::Mov, HPOS, "x"),
                I::sca_temp(S::Psh, 1, "x").end(),
            ],
            "PSH",
        ),
        (vec![I::sca_temp(S::Pop, 1, "x"), I::new().end()], "POP"),
        (
            vec![
                I::vec_out(V::Mov, HPOS, "x"),
                I::vec_temp(V::Arr, 0, "x").end(),
            ],
            "ARR",
        ),
    ] {
        let slot = if name == "POP" { 0 } else { 1 };
        let err = run_with(&prog, &[], &inputs, &VertexOptions::default()).unwrap_err();
        assert_eq!(err, VertexExecError::Unimplemented { slot, opcode: name });
        assert!(err.to_string().contains("unimplemented"), "{err}");
    }
}

struct Ramp;
impl VertexTextureSampler for Ramp {
    fn sample_lod(&self, unit: u8, coord: [f32; 4], lod: f32) -> [f32; 4] {
        [coord[0] * 2.0, coord[1], lod, f32::from(unit)]
    }
}

#[test]
fn txl_samples_through_the_sampler() {
    let mut txl = I::vec_out(V::Txl, HPOS, "xyzw").s0(v()).s1(c()).end();
    // tex_num is D2 bits 8–9. src1 starts at D2 bit 6, so those are src1 bits 2–3: the low two
    // bits of its temp index (src1 bits 2–7).
    txl.0.sources[1].temp_index = 2;
    let p = program(&[txl]);
    assert_eq!(p.instructions[0].texture_unit(), Some(2));
    let bank = constants(&[(0, [3.0, 0.0, 0.0, 0.0])]);
    let mut env = VertexEnvironment::new(&bank);
    let input = vertex_with(&[(0, [0.25, 0.5, 0.0, 1.0])]);
    let err = run_vertex(&p, &[], &env, &[input], &VertexOptions::default()).unwrap_err();
    assert_eq!(err, VertexExecError::NoSampler { slot: 0, unit: 2 });
    env.sampler = Some(&Ramp);
    let out = run_vertex(&p, &[], &env, &[input], &VertexOptions::default()).unwrap();
    assert_eq!(
        out0(&out, HPOS),
        [0.5, 0.5, 3.0, 2.0],
        "coord = src0, lod = src1.x"
    );
}

#[test]
fn many_lanes_match_one_by_one() {
    // 1000 vertices over several groups: each lane's result equals the single-vertex run.
    let prog = [
        I::vec_temp(V::Mul, 0, "xyzw").s0(v()).s1(c()).konst(4),
        I::vec_out(V::Add, HPOS, "xyzw")
            .s0(r(0))
            .s2(c())
            .konst(5)
            .end(),
    ];
    let consts = [(4, [2.0, 3.0, 4.0, 5.0]), (5, [0.5, 0.25, 0.125, 1.0])];
    let inputs: Vec<_> = (0..1000)
        .map(|i| vertex_with(&[(0, [i as f32, -(i as f32), 0.5 * i as f32, 1.0])]))
        .collect();
    let o = VertexOptions {
        lanes_per_group: 64,
        ..VertexOptions::default()
    };
    let out = run_with(&prog, &consts, &inputs, &o).unwrap();
    assert_eq!(out.lanes.len(), 1000);
    for (i, lane) in out.lanes.iter().enumerate() {
        let x = inputs[i][0];
        let e = [0, 1, 2, 3].map(|k| x[k] * consts[0].1[k] + consts[1].1[k]);
        assert_eq!(lane.get_f32(HPOS), Some(e), "lane {i}");
    }
    assert_eq!(out.total_steps, 2000);
}
