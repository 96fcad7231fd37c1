//! `interp::fragment::trace`: a quad traced instruction by instruction computes exactly what
//! the untraced interpreter computes, and the record is faithful: the last write of each
//! colour register is the output, loops record one entry per iteration with A0, and the
//! values of a two-instruction program are the ones worked out by hand.

use rsxtrace_program::fragment::FpOpcode;
use rsxtrace_replay::interp::fragment::trace::trace_quad;
use rsxtrace_replay::interp::fragment::{run_single_quad, FragmentState};
use rsxtrace_replay::shade::{load_program_file, pixel_quad, LoadedProgram};
use rsxtrace_replay::texture::NoTextures;

fn corpus_program(name: &str) -> Option<LoadedProgram> {
    let corpus = rsxtrace_testkit::workspace!().corpus()?;
    Some(load_program_file(corpus.path(&format!("ps3autotests/{name}")), &[]).expect("loads"))
}

#[test]
fn a_traced_quad_computes_what_the_interpreter_computes() {
    for name in [
        "rsx_fp_static_test1.fpo",
        "rsx_fp_static_test2.fpo",
        "rsx_fp_static_test5.fpo",
        "rsx_fp_dynamic_test2.fpo",
    ] {
        let Some(p) = corpus_program(name) else {
            return;
        };
        let state = FragmentState::new(p.control);
        for (x, y) in [(0, 0), (37, 91), (128, 200)] {
            let (quad, _) = pixel_quad(x, y, 256, 256);
            let plain = run_single_quad(&p.program, &state, &quad, &NoTextures).unwrap();
            let traced = trace_quad(&p.program, &state, &quad, &NoTextures).unwrap();
            assert_eq!(traced.outputs, plain, "{name} at {x},{y}");
            // The last write of R0 (32-bit exports) holds COL0 in every lane.
            let last = traced
                .steps
                .iter()
                .rev()
                .find_map(|s| s.written.as_ref().filter(|w| w.register == "R0"))
                .expect("R0 written");
            for lane in 0..4 {
                assert_eq!(
                    last.value[lane], plain.lanes[lane].colors[0],
                    "{name} lane {lane}"
                );
            }
            // Steps are numbered in execution order.
            assert!(traced.steps.windows(2).all(|w| w[0].step <= w[1].step));
        }
    }
}

#[test]
fn loops_record_every_iteration() {
    // rsx_fp_dynamic_test2: LOOP count=150 at slot 31 (its disassembly).
    let Some(p) = corpus_program("rsx_fp_dynamic_test2.fpo") else {
        return;
    };
    let (quad, _) = pixel_quad(100, 100, 256, 256);
    let t = trace_quad(
        &p.program,
        &FragmentState::new(p.control),
        &quad,
        &NoTextures,
    )
    .unwrap();
    let loops: Vec<_> = t
        .steps
        .iter()
        .filter(|s| s.opcode == FpOpcode::Loop)
        .collect();
    assert!(!loops.is_empty() && loops.len() <= 150, "{}", loops.len());
    for (k, s) in loops.iter().enumerate() {
        assert_eq!(s.a0, k as i64, "A0 counts the iterations");
        assert!(s
            .branch
            .as_deref()
            .unwrap()
            .starts_with(&format!("LOOP: iteration {k} of 150, A0 = {k},")));
        assert_eq!(s.depth, 0);
    }
    // The body runs one nesting level deeper.
    let body = t.steps.iter().find(|s| s.slot == 32).expect("slot 32 runs");
    assert_eq!(body.depth, 1);
}

#[test]
fn the_values_of_a_two_instruction_program_are_the_hand_computed_ones() {
    // rsx_fp_static_test1: MOVH R0.yz, f[TEX0].yyxx; MOVH R0.xw, {0, 1, 0, 0}.xxyy; END.
    let Some(p) = corpus_program("rsx_fp_static_test1.fpo") else {
        return;
    };
    let (quad, lane) = pixel_quad(10, 20, 256, 256);
    assert_eq!(lane, 0);
    let t = trace_quad(
        &p.program,
        &FragmentState::new(p.control),
        &quad,
        &NoTextures,
    )
    .unwrap();
    assert_eq!(t.steps.len(), 2);
    let tex = quad.lanes[0].attributes[4].map(f64::from);
    let [first, second] = [&t.steps[0], &t.steps[1]];
    assert_eq!((first.slot, second.slot), (0, 1));
    assert_eq!(first.source_components, vec![0b0110]);
    // y = TEX0.y, z = TEX0.x, truncated to fp16 (MOVH).
    let w = first.written.as_ref().unwrap();
    assert_eq!(w.register, "R0");
    let half = |v: f64| f64::from(f32::from_bits((v as f32).to_bits() & 0xFFFF_E000));
    assert_eq!(w.value[0][1], half(tex[1]));
    assert_eq!(w.value[0][2], half(tex[0]));
    let w = second.written.as_ref().unwrap();
    assert_eq!((w.value[0][0], w.value[0][3]), (0.0, 1.0));
    assert_eq!(second.active, 0xF);
}
