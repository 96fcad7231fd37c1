//! Vertex interpreter throughput: a 100 000-vertex batch of a 20-instruction program
//! (transform, normal, lighting-style arithmetic), reported as lane-instructions per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsxtrace_program::vertex::{
    self, AddressRegister, CcRegister, Component, ConditionTest, ConditionUpdate, InputAttribute,
    OutputRegister, RegisterType, Relation, ScalarOpcode, Source, Swizzle, VectorOpcode,
    VertexInstruction, VertexProgram, WriteMask,
};
use rsxtrace_replay::interp::vertex::{run_vertex, ConstantBank, VertexEnvironment, VertexOptions};
use rsxtrace_replay::interp::Arithmetic;
use std::hint::black_box;

const VERTICES: usize = 100_000;

fn src(reg_type: RegisterType, temp_index: u8) -> Source {
    Source {
        reg_type,
        temp_index,
        swizzle: Swizzle::IDENTITY,
        negate: false,
        abs: false,
    }
}

#[allow(clippy::too_many_arguments)]
fn insn(
    vector: VectorOpcode,
    scalar: ScalarOpcode,
    vec_dst: Option<u8>,
    sca_dst: Option<u8>,
    output: Option<u8>,
    sources: [Source; 3],
    input: u8,
    constant: u16,
) -> VertexInstruction {
    VertexInstruction {
        slot: 0,
        vector,
        scalar,
        vec_dst_temp: vec_dst,
        sca_dst_temp: sca_dst,
        output: output.map(OutputRegister),
        vec_result: output.is_some(),
        vec_mask: WriteMask::XYZW,
        sca_mask: if scalar == ScalarOpcode::Nop {
            WriteMask(0)
        } else {
            WriteMask(1)
        },
        sources,
        input: InputAttribute(input),
        const_index: constant,
        index_const: false,
        index_input: false,
        address: AddressRegister {
            register: 0,
            component: Component::X,
        },
        condition: ConditionTest {
            enabled: false,
            relation: Relation::TR,
            swizzle: Swizzle::IDENTITY,
        },
        cc_update: ConditionUpdate {
            enable_0: false,
            enable_1: false,
        },
        cc_register: CcRegister::CC0,
        saturate: false,
        end: false,
    }
}

/// 20 slots: 4 DP4 (HPOS), 3 DP3 (normal), RSQ, MUL, DP3 (N·L), MAX, LIT-like MUL/ADD/MAD
/// chain and moves to COL0 and TEX0.
fn program() -> VertexProgram {
    use RegisterType::{Constant as K, Input as In, Temp as T};
    use ScalarOpcode as S;
    use VectorOpcode as V;
    let (v0, v2, v8) = (src(In, 0), src(In, 0), src(In, 0));
    let c = src(K, 0);
    let r = |n| src(T, n);
    let mut p = vec![
        insn(V::Dp4, S::Nop, Some(0), None, None, [v0, c, v0], 0, 256),
        insn(V::Dp4, S::Nop, Some(1), None, None, [v0, c, v0], 0, 257),
        insn(V::Dp4, S::Nop, Some(2), None, None, [v0, c, v0], 0, 258),
        insn(V::Dp4, S::Nop, Some(3), None, None, [v0, c, v0], 0, 259),
        insn(V::Dp3, S::Nop, Some(4), None, None, [v2, c, v2], 2, 260),
        insn(V::Dp3, S::Nop, Some(5), None, None, [v2, c, v2], 2, 261),
        insn(V::Dp3, S::Nop, Some(6), None, None, [v2, c, v2], 2, 262),
        insn(
            V::Dp3,
            S::Rsq,
            Some(7),
            Some(8),
            None,
            [r(4), r(4), r(6)],
            0,
            0,
        ),
        insn(
            V::Mul,
            S::Nop,
            Some(9),
            None,
            None,
            [r(4), r(8), r(8)],
            0,
            0,
        ),
        insn(
            V::Dp3,
            S::Nop,
            Some(10),
            None,
            None,
            [r(9), c, r(9)],
            0,
            263,
        ),
        insn(
            V::Max,
            S::Nop,
            Some(11),
            None,
            None,
            [r(10), c, r(10)],
            0,
            264,
        ),
        insn(
            V::Mul,
            S::Nop,
            Some(12),
            None,
            None,
            [r(11), c, r(11)],
            0,
            265,
        ),
        insn(V::Add, S::Nop, Some(13), None, None, [r(12), c, c], 0, 266),
        insn(
            V::Mad,
            S::Nop,
            Some(14),
            None,
            None,
            [r(13), c, r(12)],
            0,
            267,
        ),
        insn(
            V::Mov,
            S::Nop,
            None,
            None,
            Some(0),
            [r(0), r(0), r(0)],
            0,
            0,
        ),
        insn(
            V::Add,
            S::Nop,
            Some(15),
            None,
            None,
            [r(1), c, r(2)],
            0,
            268,
        ),
        insn(
            V::Mul,
            S::Nop,
            Some(16),
            None,
            None,
            [r(15), r(3), r(3)],
            0,
            0,
        ),
        insn(
            V::Mov,
            S::Nop,
            None,
            None,
            Some(1),
            [r(14), r(14), r(14)],
            0,
            0,
        ),
        insn(V::Mad, S::Nop, None, None, Some(7), [v8, c, r(16)], 8, 269),
        insn(
            V::Mov,
            S::Nop,
            None,
            None,
            Some(2),
            [r(16), r(16), r(16)],
            0,
            0,
        ),
    ];
    let n = p.len();
    for (k, i) in p.iter_mut().enumerate() {
        i.slot = k;
        i.end = k + 1 == n;
    }
    // Round trip through the word layout, as programs from captures come.
    vertex::decode_words(&vertex::encode(&VertexProgram {
        start_slot: 0,
        instructions: p,
    }))
    .expect("bench program decodes")
}

fn bench(c: &mut Criterion) {
    let p = program();
    let steps = p.instructions.len();
    let mut bank = ConstantBank::new();
    for i in 256..270 {
        bank.set(i, [0.5 + i as f32 * 0.01, -0.25, 0.75, 1.0]);
    }
    let env = VertexEnvironment::new(&bank);
    let inputs: Vec<[[f32; 4]; 16]> = (0..VERTICES)
        .map(|i| {
            let f = i as f32 * 1e-3;
            let mut a = [[0.0; 4]; 16];
            a[0] = [f, -f, 0.5 * f, 1.0];
            a[2] = [0.0, 1.0, f, 0.0];
            a[8] = [f, f, 0.0, 1.0];
            a
        })
        .collect();
    let mut g = c.benchmark_group("vertex_interp");
    g.sample_size(10);
    g.throughput(Throughput::Elements((VERTICES * steps) as u64));
    for arithmetic in [Arithmetic::F32, Arithmetic::F64] {
        let o = VertexOptions {
            arithmetic,
            ..VertexOptions::default()
        };
        g.bench_function(format!("100k_vertices_x_20_insns_{arithmetic:?}"), |b| {
            b.iter(|| {
                let out = run_vertex(&p, &[], &env, black_box(&inputs), &o).expect("runs");
                assert_eq!(out.total_steps, (VERTICES * steps) as u64);
                black_box(out)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
