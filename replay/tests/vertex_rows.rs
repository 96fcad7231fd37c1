//! The row executor (straight-line programs, a row of vertices per instruction, behind
//! `run_vertex_outputs`) against the lane executor (`run_vertex`): the same registers bit for
//! bit, in f32 and f64, over more vertices than one lane group, on a program that uses every
//! arithmetic opcode, swizzles, abs and negate, conditional writes and CC updates, saturation,
//! address registers with relative constants and inputs, unknown constants and missing
//! inputs; and the same errors where a lane fails (the row executor hands those groups back).

use crate::vertex_interp_support;

use rsxtrace_program::vertex::{
    Component, Relation, ScalarOpcode as S, VectorOpcode as V, VertexProgram,
};
use rsxtrace_replay::interp::vertex::*;
use rsxtrace_replay::interp::Arithmetic;
use vertex_interp_support::*;

const HPOS: u8 = 0;
const COL0: u8 = 1;
const TEX0: u8 = 7;

/// Every vector and scalar arithmetic opcode, each into its own output or temp, with the
/// features above; straight-line (no flow control), so the row executor takes it.
fn busy_program() -> Vec<I> {
    let mut p = vec![
        // R1 = v0, R2 = v1 * c[1] (fixed constant), CC0 from R2.
        I::vec_temp(V::Mov, 1, "xyzw").s0(v()).input(0),
        I::vec_temp(V::Mul, 2, "xyzw")
            .srcs([v(), c(), v()])
            .input(1)
            .konst(1)
            .update_cc(0),
        // A0 = floor(v2) (relative constant and input indices per vertex).
        I::vec_temp(V::Arl, 0, "xy").s0(v()).input(2),
    ];
    let vector_ops = [
        V::Add,
        V::Mad,
        V::Dp3,
        V::Dph,
        V::Dp4,
        V::Dst,
        V::Min,
        V::Max,
        V::Slt,
        V::Sge,
        V::Seq,
        V::Sgt,
        V::Sle,
        V::Sne,
        V::Sfl,
        V::Str,
        V::Frc,
        V::Flr,
        V::Ssg,
    ];
    let scalar_ops = [
        S::Mov,
        S::Rcp,
        S::Rcc,
        S::Rsq,
        S::Exp,
        S::Log,
        S::Lit,
        S::Lg2,
        S::Ex2,
        S::Sin,
        S::Cos,
    ];
    for (k, op) in vector_ops.iter().enumerate() {
        let t = 3 + (k % 20) as u8;
        let mut i = I::vec_temp(*op, t, "xyzw")
            .srcs([sw(r(1), "yzwx"), neg(r(2)), abs(sw(r(1), "wzyx"))])
            .with_scalar(
                scalar_ops[k % scalar_ops.len()],
                Some(40 + (k % 8) as u8),
                "xz",
            );
        if k % 3 == 0 {
            i = i.cond(Relation::GT, "xyzw", 0);
        }
        if k % 4 == 1 {
            i = i.sat();
        }
        if k % 5 == 2 {
            i = i.update_cc(1);
        }
        p.push(i);
        // Fold the result into R1 so that later ops see it.
        p.push(
            I::vec_temp(V::Mad, 1, "xyzw")
                .srcs([r(t), c(), r(1)])
                .konst(2),
        );
    }
    p.extend([
        // Relative constant c[4 + A0.x] and relative input v[1 + A0.y].
        I::vec_temp(V::Add, 30, "xyzw")
            .srcs([c(), v(), c()])
            .konst(4)
            .rel_const(0, Component::X),
        I::vec_temp(V::Mul, 31, "xyzw")
            .srcs([v(), r(30), v()])
            .input(1)
            .rel_input(0, Component::Y),
        // An unknown constant (c[300]) and a missing input (v[9]).
        I::vec_temp(V::Add, 32, "xyzw")
            .srcs([c(), v(), v()])
            .konst(300)
            .input(9),
        I::vec_out(V::Mad, COL0, "xyzw").srcs([r(31), r(32), r(30)]),
        I::vec_out(V::Dp4, TEX0, "xw")
            .srcs([r(1), r(41), v()])
            .cond(Relation::LE, "wzyx", 1),
        I::sca_out(S::Rsq, TEX0 + 1, "yz").s2(r(43)),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(r(1)).end(),
    ]);
    p
}

fn bank() -> ConstantBank {
    let mut values: Vec<(usize, [f32; 4])> =
        vec![(1, [0.5, -2.0, 1.0e-3, 3.0]), (2, [0.25, 0.25, -0.5, 1.5])];
    for k in 4..12 {
        let f = k as f32;
        values.push((k, [f * 0.5, -f, 1.0 / f, f * f]));
    }
    constants(&values)
}

fn inputs(n: usize) -> Vec<[[f32; 4]; 16]> {
    (0..n)
        .map(|i| {
            let t = i as f32 * 0.731;
            vertex_with(&[
                (0, [t.sin() * 4.0, t.cos(), -t * 0.01, 1.0]),
                (1, [0.3 - t * 0.02, 2.0, -0.0, f32::from(i as u16 % 7)]),
                // A0.x in 0..8, A0.y in 0..2 (relative indices stay in range).
                (2, [(i % 8) as f32 + 0.25, (i % 3) as f32, 0.0, 0.0]),
                (3, [1.0, 1.0, 1.0, 1.0]),
            ])
        })
        .collect()
}

/// `run_vertex_outputs` (the row executor where it takes the program) against `run_vertex`
/// (the lane executor): the same number of vertices and registers bit for bit and the same
/// unknown constants read, which are returned; or the same error (`None`).
fn compare(
    name: &str,
    p: &VertexProgram,
    env: &VertexEnvironment<'_>,
    inputs: &[[[f32; 4]; 16]],
    options: &VertexOptions,
) -> Option<Vec<UnknownConstantRead>> {
    let lanes = run_vertex(p, &[], env, inputs, options);
    let rows = run_vertex_outputs(p, &[], env, inputs, options);
    match (rows, lanes) {
        (Ok((rows, unknown)), Ok(lanes)) => {
            assert_eq!(rows.len(), lanes.lanes.len(), "{name}");
            assert_eq!(unknown, lanes.unknown_constant_reads, "{name}");
            for (v, (r, l)) in rows.iter().zip(&lanes.lanes).enumerate() {
                for (reg, (got4, want4)) in r.iter().zip(&l.registers).enumerate() {
                    for (c, (&got, &want)) in got4.iter().zip(want4).enumerate() {
                        let want = want as f32;
                        assert!(
                            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                            "{name}: vertex {v} o[{reg}].{c}: rows {got:?}, lanes {want:?}"
                        );
                    }
                }
            }
            Some(unknown)
        }
        (Err(r), Err(l)) => {
            assert_eq!(r, l, "{name}");
            None
        }
        (r, l) => panic!("{name}: rows {r:?}, lanes {l:?}"),
    }
}

#[test]
fn rows_give_the_lane_executors_registers_bit_for_bit() {
    let p = program(&busy_program());
    let bank = bank();
    let env = VertexEnvironment {
        input_mask: 0b1111,
        ..VertexEnvironment::new(&bank)
    };
    let inputs = inputs(700);
    for arithmetic in [Arithmetic::F32, Arithmetic::F64] {
        let options = VertexOptions {
            allow_unknown_constants: true,
            allow_missing_inputs: true,
            arithmetic,
            lanes_per_group: 256,
            ..VertexOptions::default()
        };
        let unknown =
            compare(&format!("{arithmetic:?}"), &p, &env, &inputs, &options).expect("both run");
        assert!(unknown.iter().any(|u| u.constant == 300));
    }
}

#[test]
fn a_lane_that_fails_fails_as_on_the_lane_executor() {
    let bank = bank();
    let env = VertexEnvironment {
        input_mask: 0b1111,
        ..VertexEnvironment::new(&bank)
    };
    // Relative constant past c[467] in one vertex only (A0.x = 500 at vertex 300).
    let p = program(&[
        I::vec_temp(V::Arl, 0, "x").s0(v()).input(2),
        I::vec_out(V::Mov, HPOS, "xyzw")
            .s0(c())
            .konst(4)
            .rel_const(0, Component::X)
            .end(),
    ]);
    let mut inputs = inputs(400);
    inputs[300][2][0] = 500.0;
    let options = VertexOptions {
        allow_unknown_constants: true,
        ..VertexOptions::default()
    };
    assert!(compare("relative constant", &p, &env, &inputs, &options).is_none());
    assert!(matches!(
        run_vertex_outputs(&p, &[], &env, &inputs, &options),
        Err(VertexExecError::ConstantOutOfRange { lane: 300, .. })
    ));
    // A missing input that may not be read, and an unknown constant that may not be read.
    let strict = VertexOptions::default();
    let p = program(&[I::vec_out(V::Mov, HPOS, "xyzw").s0(v()).input(9).end()]);
    assert!(compare("missing input", &p, &env, &inputs, &strict).is_none());
    let p = program(&[I::vec_out(V::Mov, HPOS, "xyzw").s0(c()).konst(300).end()]);
    assert!(compare("unknown constant", &p, &env, &inputs, &strict).is_none());
}

/// [`compare`] of `prog` with the constants `bank` and the branch bits `branch_bits`, in
/// groups of 64 lanes.
fn same_as_lanes(
    name: &str,
    prog: &[I],
    bank: &ConstantBank,
    branch_bits: u32,
    inputs: &[[[f32; 4]; 16]],
) {
    let env = VertexEnvironment {
        input_mask: 0b1111,
        branch_bits: Some(branch_bits),
        ..VertexEnvironment::new(bank)
    };
    let options = VertexOptions {
        allow_unknown_constants: true,
        lanes_per_group: 64,
        ..VertexOptions::default()
    };
    compare(name, &program(prog), &env, inputs, &options);
}

/// `do { R1 += v1 * c[1]; R0 -= 1 (CC0) } while (CC0.x > 0)` with R0 from `count` (a source:
/// a constant for a loop every lane runs alike, an input for one they part ways in).
fn counted_loop(count: I) -> Vec<I> {
    vec![
        count,
        I::vec_temp(V::Mad, 1, "xyzw")
            .srcs([v(), c(), r(1)])
            .input(1)
            .konst(1),
        I::vec_temp(V::Add, 0, "xyzw")
            .s0(r(0))
            .s2(neg(c()))
            .konst(2)
            .update_cc(0),
        I::flow(S::Bri, 1).when(Relation::GT, "xxxx", 0),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(r(1)).end(),
    ]
}

#[test]
fn uniform_flow_runs_as_rows_and_divergent_flow_as_lanes_alike() {
    let bank = constants(&[
        (0, [5.0, 0.0, 0.0, 0.0]),
        (1, [0.5, -0.25, 2.0, 1.0]),
        (2, [1.0; 4]),
        (3, [4.0, 3.0, 2.0, 1.0]),
    ]);
    let inputs = inputs(300);
    // A loop counted by a constant: uniform; by an input: the lanes part ways.
    same_as_lanes(
        "uniform loop",
        &counted_loop(I::vec_temp(V::Mov, 0, "xyzw").s0(c()).konst(0)),
        &bank,
        0,
        &inputs,
    );
    same_as_lanes(
        "divergent loop",
        &counted_loop(I::vec_temp(V::Flr, 0, "xyzw").s0(v()).input(2)),
        &bank,
        0,
        &inputs,
    );
    // A call and a return, and a branch on a transform branch bit either way.
    let with_bit = |mut i: I, index: u8, if_true: bool| {
        i.0.sources[2].temp_index = index | (u8::from(if_true) << 5);
        i
    };
    for bits in [0u32, 1 << 5] {
        same_as_lanes(
            "call, return and BRB",
            &[
                with_bit(I::flow(S::Brb, 3), 5, true),
                I::vec_out(V::Mov, COL0, "xyzw").s0(c()).konst(3),
                I::new(),
                I::flow(S::Cal, 5),
                I::vec_out(V::Add, HPOS, "xyzw")
                    .srcs([r(0), v(), v()])
                    .input(0)
                    .end(),
                I::vec_temp(V::Mul, 0, "xyzw")
                    .srcs([v(), c(), v()])
                    .input(1)
                    .konst(3),
                I::flow(S::Ret, 0),
            ],
            &bank,
            bits,
            &inputs,
        );
    }
    // The errors: an endless loop (the step limit) and a recursion (the call depth).
    same_as_lanes(
        "endless loop",
        &[I::new(), I::flow(S::Bri, 0), I::new().end()],
        &bank,
        0,
        &inputs,
    );
    same_as_lanes(
        "recursion",
        &[I::new(), I::flow(S::Cal, 1), I::new().end()],
        &bank,
        0,
        &inputs,
    );
}
