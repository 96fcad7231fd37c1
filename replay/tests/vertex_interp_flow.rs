//! Vertex interpreter flow control: per-lane branches (divergence and reconvergence), loops,
//! calls and returns, boolean branches, the address-register branch, and the limits.

use crate::vertex_interp_support;

use rsxtrace_program::vertex::{self, Component, Relation, ScalarOpcode as S, VectorOpcode as V};
use rsxtrace_replay::interp::vertex::*;
use vertex_interp_support::*;

const HPOS: u8 = 0;
const COL0: u8 = 1;

#[test]
fn bri_taken_and_not_taken_per_lane() {
    // 0: MOV R0.x <- v[0], CC0 updated
    // 1: BRI 3 if CC0.x > 0
    // 2: MOV o[COL0] <- c[0]          (only lanes with v.x <= 0)
    // 3: MOV o[HPOS] <- v[0]; END     (every lane: reconverged)
    let prog = [
        I::vec_temp(V::Mov, 0, "x").s0(v()).update_cc(0),
        I::flow(S::Bri, 3).when(Relation::GT, "xxxx", 0),
        I::vec_out(V::Mov, COL0, "xyzw").s0(c()),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(v()).end(),
    ];
    let xs = [1.0f32, -1.0, 0.0, 5.0, -0.5, f32::NAN];
    let inputs: Vec<_> = xs
        .iter()
        .map(|x| vertex_with(&[(0, [*x, 2.0, 3.0, 4.0])]))
        .collect();
    let out = run(&prog, &[(0, [9.0; 4])], &inputs);
    for (lane, x) in xs.iter().enumerate() {
        let taken = *x > 0.0;
        let l = &out.lanes[lane];
        assert_eq!(l.get_f32(COL0).is_none(), taken, "lane {lane} x={x}");
        assert_eq!(l.get_f32(HPOS).map(|h| h[1]), Some(2.0), "lane {lane}");
        assert_eq!(l.steps, if taken { 3 } else { 4 }, "lane {lane}");
    }
}

#[test]
fn loop_counts_per_lane() {
    // R1 = 0; R0 = v.x; do { R1 += 1; R0 -= 1 (CC0) } while (CC0.x > 0); o[HPOS] = R1.
    // 0: MOV R0 <- v[0]
    // 1: ADD R1 <- R1 + c[1]            (c[1] = 1)
    // 2: ADD R0 <- R0 + -c[1], CC0
    // 3: BRI 1 if CC0.x > 0
    // 4: MOV o[HPOS] <- R1; END
    let prog = [
        I::vec_temp(V::Mov, 0, "xyzw").s0(v()),
        I::vec_temp(V::Add, 1, "xyzw").s0(r(1)).s2(c()).konst(1),
        I::vec_temp(V::Add, 0, "xyzw")
            .s0(r(0))
            .s2(neg(c()))
            .konst(1)
            .update_cc(0),
        I::flow(S::Bri, 1).when(Relation::GT, "xxxx", 0),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(r(1)).end(),
    ];
    let counts = [3u32, 1, 7, 2, 5, 1, 4];
    let inputs: Vec<_> = counts
        .iter()
        .map(|n| vertex_with(&[(0, [*n as f32; 4])]))
        .collect();
    let out = run(&prog, &[(1, [1.0; 4])], &inputs);
    for (lane, n) in counts.iter().enumerate() {
        assert_eq!(
            out.lanes[lane].get_f32(HPOS),
            Some([*n as f32; 4]),
            "lane {lane}"
        );
        assert_eq!(out.lanes[lane].steps, 2 + 3 * n, "lane {lane}");
    }
}

#[test]
fn cal_and_ret() {
    // 0: CAL 3
    // 1: MOV o[HPOS] <- R0; END
    // 2: (never)
    // 3: MOV R0 <- c[0]
    // 4: RET
    let prog = [
        I::flow(S::Cal, 3),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(r(0)).end(),
        I::vec_out(V::Mov, COL0, "xyzw").s0(c()),
        I::vec_temp(V::Mov, 0, "xyzw").s0(c()),
        I::flow(S::Ret, 0),
    ];
    let out = run(&prog, &[(0, [4.0, 3.0, 2.0, 1.0])], &[vertex_with(&[])]);
    assert_eq!(out0(&out, HPOS), [4.0, 3.0, 2.0, 1.0]);
    assert_eq!(out.lanes[0].get(COL0), None);
    assert_eq!(out.lanes[0].steps, 4);
}

#[test]
fn conditional_call_and_cli_as_call() {
    // CC0.x = v.x; CLI 4 if CC0.x < 0 (RPCS3 treats CLI as CAL); HPOS = R0.
    let prog = [
        I::vec_temp(V::Mov, 9, "x").s0(v()).update_cc(0),
        I::flow(S::Cli, 4).when(Relation::LT, "xxxx", 0),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(r(0)).end(),
        I::new().end(),
        I::vec_temp(V::Mov, 0, "xyzw").s0(c()),
        I::flow(S::Ret, 0),
    ];
    let inputs = [
        vertex_with(&[(0, [-1.0; 4])]),
        vertex_with(&[(0, [1.0; 4])]),
    ];
    let out = run(&prog, &[(0, [6.0; 4])], &inputs);
    assert_eq!(out.lanes[0].get_f32(HPOS), Some([6.0; 4]), "called");
    assert_eq!(out.lanes[1].get_f32(HPOS), Some([0.0; 4]), "not called");
}

#[test]
fn ret_on_an_empty_stack_ends_the_vertex() {
    let prog = [
        I::vec_out(V::Mov, HPOS, "xyzw").s0(v()),
        I::flow(S::Ret, 0),
        I::vec_out(V::Mov, COL0, "xyzw").s0(v()).end(),
    ];
    let out = run(&prog, &[], &[vertex_with(&[(0, [1.0; 4])])]);
    assert_eq!(out0(&out, HPOS), [1.0; 4]);
    assert_eq!(out.lanes[0].get(COL0), None);
}

#[test]
fn call_depth_overflow_names_the_slot() {
    // Slot 1 calls itself forever.
    let prog = [I::new(), I::flow(S::Cal, 1), I::new().end()];
    let err = run_with(&prog, &[], &[vertex_with(&[])], &VertexOptions::default()).unwrap_err();
    assert_eq!(
        err,
        VertexExecError::CallStackOverflow {
            slot: 1,
            depth: 8,
            lane: 0
        }
    );
}

#[test]
fn infinite_loop_hits_the_step_limit() {
    let prog = [I::new(), I::flow(S::Bri, 0), I::new().end()];
    let o = VertexOptions {
        rules: VertexRules {
            step_limit: 1000,
            ..Default::default()
        },
        ..VertexOptions::default()
    };
    let err = run_with(&prog, &[], &[vertex_with(&[]), vertex_with(&[])], &o).unwrap_err();
    assert_eq!(
        err,
        VertexExecError::StepLimit {
            slot: 0,
            limit: 1000,
            lane: 0
        }
    );
    assert!(err.to_string().starts_with("slot 0:"));
}

#[test]
fn end_wins_over_a_taken_branch() {
    let prog = [
        I::flow(S::Bri, 2).end(),
        I::new().end(),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(v()).end(),
    ];
    let out = run(&prog, &[], &[vertex_with(&[(0, [1.0; 4])])]);
    assert_eq!(out.lanes[0].written, 0);
    assert_eq!(out.lanes[0].steps, 1);
}

#[test]
fn bra_jumps_to_the_address_register() {
    // A0.x = v.x (3 or 4): slot 3 writes HPOS = 3, slot 4 writes HPOS = 4.
    let prog = [
        I::vec_temp(V::Arl, 0, "x").s0(v()),
        I::flow(S::Bra, 0),
        I::new().end(),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(c()).konst(3).end(),
        I::vec_out(V::Mov, HPOS, "xyzw").s0(c()).konst(4).end(),
    ];
    let inputs = [vertex_with(&[(0, [3.0; 4])]), vertex_with(&[(0, [4.0; 4])])];
    let out = run(&prog, &[(3, [3.0; 4]), (4, [4.0; 4])], &inputs);
    assert_eq!(out.lanes[0].get_f32(HPOS), Some([3.0; 4]));
    assert_eq!(out.lanes[1].get_f32(HPOS), Some([4.0; 4]));
    let err = run_with(
        &prog,
        &[],
        &[vertex_with(&[(0, [-7.0; 4])])],
        &VertexOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        VertexExecError::BranchOutOfRange {
            slot: 1,
            target: -7,
            lane: 0
        }
    );
}

#[test]
fn bra_reaches_slots_outside_the_decoded_program_through_memory() {
    // The program decoded from memory stops at slot 2 (END); slot 5 is only reachable through
    // BRA and comes from the memory words.
    let mut words = vec![0u32; vertex::MEMORY_SLOTS * 4];
    let prog = [
        I::vec_temp(V::Arl, 0, "x").s0(c()),
        I::flow(S::Bra, 0),
        I::new().end(),
    ];
    let p = program(&prog);
    words[..12].copy_from_slice(&vertex::encode(&p));
    let far = program(&[I::vec_out(V::Mov, HPOS, "xyzw").s0(c()).konst(1).end()]);
    words[20..24].copy_from_slice(&vertex::encode(&far));
    let decoded = vertex::decode_from_memory(&words, 0).unwrap();
    assert_eq!(decoded.instructions.len(), 3);
    let bank = constants(&[(0, [5.0; 4]), (1, [8.0; 4])]);
    let env = VertexEnvironment::new(&bank);
    let out = run_vertex(
        &decoded,
        &words,
        &env,
        &[vertex_with(&[])],
        &VertexOptions::default(),
    )
    .unwrap();
    assert_eq!(out0(&out, HPOS), [8.0; 4]);
}

#[test]
fn brb_and_clb_test_the_transform_branch_bits() {
    // BRB/CLB operands: index = D3 bits 23–27, taken-if-true = D3 bit 28. src2's low part
    // starts at D3 bit 21, so these are src2 bits 2–7: the temp-index field (bits 0–4 = index,
    // bit 5 = if-true).
    let with_bit = |mut i: I, index: u8, if_true: bool| {
        i.0.sources[2].temp_index = index | (u8::from(if_true) << 5);
        i
    };
    for if_true in [true, false] {
        let p = program(&[
            with_bit(I::flow(S::Brb, 3), 5, if_true),
            I::vec_out(V::Mov, COL0, "xyzw").s0(c()),
            I::new(),
            with_bit(I::flow(S::Clb, 5), 5, if_true),
            I::vec_out(V::Mov, HPOS, "xyzw").s0(r(0)).end(),
            I::vec_temp(V::Mov, 0, "xyzw").s0(c()),
            I::flow(S::Ret, 0),
        ]);
        let b = p.instructions[0].boolean_branch().unwrap();
        assert_eq!((b.index, b.if_true), (5, if_true));
        assert_eq!(p.instructions[0].branch_target(), Some(3));
        let bank = constants(&[(0, [1.0; 4])]);
        let mut env = VertexEnvironment::new(&bank);
        let o = VertexOptions::default();
        let err = run_vertex(&p, &[], &env, &[vertex_with(&[])], &o).unwrap_err();
        assert_eq!(
            err,
            VertexExecError::UnknownBranchBits { slot: 0, index: 5 }
        );
        for bits in [0u32, 1 << 5, !(1u32 << 5)] {
            env.branch_bits = Some(bits);
            let out = run_vertex(&p, &[], &env, &[vertex_with(&[])], &o).unwrap();
            let taken = (bits & (1 << 5) != 0) == if_true;
            let l = &out.lanes[0];
            // BRB taken skips the COL0 write; CLB taken calls slot 5, which sets R0 = c[0].
            assert_eq!(
                l.get(COL0).is_none(),
                taken,
                "BRB bits {bits:#x} if_true {if_true}"
            );
            let hpos = if taken { [1.0; 4] } else { [0.0; 4] };
            assert_eq!(
                l.get_f32(HPOS),
                Some(hpos),
                "CLB bits {bits:#x} if_true {if_true}"
            );
        }
    }
}

#[test]
fn relative_constants_diverge_per_lane() {
    // Each lane loads A0.x from its own input and reads c[A0.x].
    let prog = [
        I::vec_temp(V::Arl, 0, "x").s0(v()),
        I::vec_out(V::Mov, HPOS, "xyzw")
            .s0(c())
            .rel_const(0, Component::X)
            .end(),
    ];
    let consts: Vec<(usize, [f32; 4])> = (0..10).map(|i| (i, [i as f32 * 10.0; 4])).collect();
    let inputs: Vec<_> = (0..10)
        .map(|i| vertex_with(&[(0, [(9 - i) as f32; 4])]))
        .collect();
    let out = run(&prog, &consts, &inputs);
    for i in 0..10 {
        assert_eq!(out.lanes[i].get_f32(HPOS), Some([(9 - i) as f32 * 10.0; 4]));
    }
}
