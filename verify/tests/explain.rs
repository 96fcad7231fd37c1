//! `verify --explain`: the first divergent instruction of one invocation, from the
//! instrumented recompiled program on the device against the interpreter's trace. A
//! deliberately wrong translation (the test-only hooks) is named at the instruction it
//! changed, in both stages, through `verify_frame`'s `explain_all`; every mutation of a seeded
//! sample of the negative control's mutations is named at its slot whenever it changes the
//! invocation's outputs; a clean draw explains to no divergence with every step matched.

use crate::divergence_support;

use divergence_support::{
    basic, drop_alpha_of_draw_0, frame, gpu, negate_col0_of_draw_1, samples_dir,
};
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::fragment::FragmentProgram;
use rsxtrace_program::vertex::{OutputRegister, VertexProgram};
use rsxtrace_replay::interp::fragment::trace::trace_quad;
use rsxtrace_replay::interp::fragment::FragmentState;
use rsxtrace_replay::interp::vertex::trace::trace_vertex;
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_verify::divergence::context::Context;
use rsxtrace_verify::divergence::fragment_stage::rasterize;
use rsxtrace_verify::divergence::mutate::{mutate_fragment, mutate_vertex, XorShift};
use rsxtrace_verify::divergence::tolerance::Tolerances;
use rsxtrace_verify::divergence::vertex_stage::{interp_options, prepare, Prepared};
use rsxtrace_verify::divergence::{verify_frame, Stage, VerifyOptions};
use rsxtrace_verify::explain::fragment::explain_pixel;
use rsxtrace_verify::explain::vertex::explain_vertex;
use rsxtrace_verify::explain::{DivergenceKind, Explained, Explanation, Invocation};
use rsxtrace_verify::invocation::draw_pixel;

fn explained(e: &Option<Explained>) -> &Explanation {
    match e {
        Some(Explained::Done(x)) => x,
        other => panic!("no explanation: {other:?}"),
    }
}

#[test]
fn a_wrong_vertex_translation_is_named_at_its_instruction() {
    let Some(gpu) = gpu("a_wrong_vertex_translation_is_named") else {
        return;
    };
    let f = basic();
    let options = VerifyOptions {
        vertex_hook: Some(negate_col0_of_draw_1),
        explain_all: true,
        ..VerifyOptions::default()
    };
    let report = verify_frame(&f, &options, &gpu, None).unwrap();
    let d = &report.draws[1];
    let s = d.stages.iter().find(|s| s.stage == Stage::Vertex).unwrap();
    let e = explained(&s.explanation);
    let div = e.divergence.as_ref().expect("a divergence");
    let Prepared::Ready(vi) = prepare(&f, 1, &Context::new(&gpu, Tolerances::default(), 1)) else {
        panic!("draw 1 has a vertex stage")
    };
    let slot = vi
        .program
        .instructions
        .iter()
        .find(|i| i.output == Some(OutputRegister(1)))
        .map(|i| i.slot as u32)
        .expect("draw 1 writes COL0");
    assert_eq!(div.kind, DivergenceKind::Value, "{div:?}");
    assert_eq!(div.slot, slot);
    assert_eq!(div.register.as_deref(), Some("o[COL0]"));
    let (g, r) = (div.gpu.unwrap(), div.reference.unwrap());
    for c in div.components.chars() {
        let k = "xyzw".find(c).unwrap();
        assert_eq!(f64::from(g[k]), -r[k], "the sign was dropped");
    }
    assert!(
        div.disassembly.starts_with(&format!("{slot:03}:")),
        "{}",
        div.disassembly
    );
    let wgsl = div.wgsl.as_ref().expect("the WGSL lines");
    assert!(wgsl.text.iter().any(|l| l.contains("o[1]")), "{wgsl:?}");
    assert_eq!(e.steps_matched, div.step);
    // The other draws' stages did not diverge and carry no explanation.
    for (i, d) in report.draws.iter().enumerate() {
        for s in &d.stages {
            assert_eq!(s.explanation.is_some(), i == 1 && s.stage == Stage::Vertex);
        }
    }
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["draws"][1]["stages"][0]["explanation"]["divergence"]["slot"],
        serde_json::json!(slot)
    );
}

#[test]
fn a_wrong_fragment_translation_is_named_at_its_instruction() {
    let Some(gpu) = gpu("a_wrong_fragment_translation_is_named") else {
        return;
    };
    let f = basic();
    let options = VerifyOptions {
        fragment_hook: Some(drop_alpha_of_draw_0),
        explain_all: true,
        ..VerifyOptions::default()
    };
    let report = verify_frame(&f, &options, &gpu, None).unwrap();
    let s = report.draws[0]
        .stages
        .iter()
        .find(|s| s.stage == Stage::Fragment)
        .unwrap();
    let e = explained(&s.explanation);
    assert!(matches!(e.invocation, Invocation::Pixel(_)));
    let div = e.divergence.as_ref().expect("a divergence");
    let program = draw_pixel(
        &f,
        0,
        match e.invocation {
            Invocation::Pixel([x, y]) => (x, y),
            _ => unreachable!(),
        },
    )
    .unwrap()
    .program;
    let first_r0 = program
        .instructions
        .iter()
        .find(|i| i.dest.index == 0 && !i.dest.fp16 && i.dest.mask.0 & 0b1000 != 0)
        .unwrap();
    assert_eq!(div.slot, first_r0.slot, "{div:?}");
    assert_eq!(div.kind, DivergenceKind::Value);
    assert_eq!(div.register.as_deref(), Some("R0"));
    assert_eq!(div.components, "w");
    assert!(div.wgsl.as_ref().unwrap().text[0].contains(&format!("{}:", first_r0.slot)));
}

#[test]
fn a_clean_invocation_matches_every_step() {
    let Some(gpu) = gpu("a_clean_invocation_matches_every_step") else {
        return;
    };
    let f = basic();
    let cx = Context::new(&gpu, Tolerances::default(), usize::MAX);
    let v = explain_vertex(&f, 1, 0, None, &cx).unwrap();
    assert!(v.divergence.is_none(), "{v:?}");
    assert_eq!(v.steps_matched, v.reference_steps);
    assert_eq!(v.gpu_steps, v.reference_steps as u64);
    assert!(v.reference_steps > 0);
    let (x, y) = covered_pixels(&f, 2, &cx)[0];
    let p = explain_pixel(&f, 2, (x, y), None, &cx).unwrap();
    assert!(p.divergence.is_none(), "{p:?}");
    assert_eq!(p.steps_matched, p.reference_steps);
    assert!(p.reference_steps > 0);
    // Out of range: an error naming the draw, never a panic.
    let err = explain_vertex(&f, 1, 1_000_000, None, &cx).unwrap_err();
    assert!(err.contains("vertex 1000000"), "{err}");
}

/// A few covered pixels of a draw, spread over its quads.
fn covered_pixels(f: &Frame, draw: usize, cx: &Context<'_>) -> Vec<(u32, u32)> {
    let Prepared::Ready(vi) = prepare(f, draw, cx) else {
        panic!("draw {draw} has no vertex stage")
    };
    let r = rasterize(&f.draws[draw], &vi, usize::MAX);
    let step = (r.quads.len() / 4).max(1);
    r.quads
        .iter()
        .step_by(step)
        .filter_map(|q| {
            let lane = (0..4).find(|l| q.inputs.coverage & (1 << l) != 0)?;
            Some((q.origin[0] + (lane & 1), q.origin[1] + (lane >> 1)))
        })
        .take(4)
        .collect()
}

fn slot_of(change: &str) -> u32 {
    change
        .strip_prefix("slot ")
        .and_then(|r| r.split(':').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("mutation {change:?} names no slot"))
}

fn names(d: &rsxtrace_verify::explain::Divergence, slot: u32) -> bool {
    d.slot == slot || d.reference_slot == Some(slot) || d.flow_slot == Some(slot)
}

/// Every mutation of a seeded sample (both stages, the game sample's first draws): when the
/// interpreter's outputs of the mutated program differ from the original's at the invocation,
/// explain names the mutated slot; when explain finds no divergence, they do not differ.
#[test]
fn mutations_of_the_negative_control_are_named_at_their_slot() {
    let Some(gpu) = gpu("mutations_of_the_negative_control_are_named") else {
        return;
    };
    let f = frame(&samples_dir().join("game.rrc.gz"));
    let cx = Context::new(&gpu, Tolerances::default(), usize::MAX);
    let mut rng = XorShift::new(7);
    let (mut named, mut checked) = (0, 0);
    for draw in 0..4 {
        let Prepared::Ready(vi) = prepare(&f, draw, &cx) else {
            continue;
        };
        let env = vi.environment();
        for _ in 0..4 {
            let mut p = vi.program.clone();
            let Some(change) = mutate_vertex(&mut p, &mut rng) else {
                continue;
            };
            let slot = slot_of(&change);
            let Ok(e) = explain_vertex(&f, draw, 0, Some(&p), &cx) else {
                continue; // not recompiled: rejected by the negative control too
            };
            checked += 1;
            let opts = interp_options(Arithmetic::F32);
            let out = |q: &VertexProgram| {
                trace_vertex(q, &vi.memory_words, &env, &vi.inputs[0], &opts)
                    .map(|t| t.output.registers)
                    .ok()
            };
            match &e.divergence {
                Some(d) => {
                    assert!(names(d, slot), "draw {draw} {change}: explained as {d:?}");
                    named += 1;
                }
                None => assert_eq!(out(&p), out(&vi.program), "draw {draw} {change}: missed"),
            }
        }
        let Ok(inv) = covered_pixels(&f, draw, &cx)
            .first()
            .copied()
            .ok_or(())
            .and_then(|px| draw_pixel(&f, draw, px).map(|i| (px, i)).map_err(|_| ()))
        else {
            continue;
        };
        let (px, inv) = inv;
        for _ in 0..4 {
            let mut p = inv.program.clone();
            let Some(change) = mutate_fragment(&mut p, &mut rng) else {
                continue;
            };
            let slot = slot_of(&change);
            let Ok(e) = explain_pixel(&f, draw, px, Some(&p), &cx) else {
                continue;
            };
            checked += 1;
            let out = |q: &FragmentProgram| {
                trace_quad(q, &FragmentState::new(inv.control), &inv.quad, &inv.sampler)
                    .map(|t| t.outputs.lanes[inv.lane])
                    .ok()
            };
            match &e.divergence {
                Some(d) => {
                    assert!(names(d, slot), "draw {draw} {change}: explained as {d:?}");
                    named += 1;
                }
                None => assert_eq!(out(&p), out(&inv.program), "draw {draw} {change}: missed"),
            }
        }
    }
    eprintln!("{named} of {checked} mutations named at their slot");
    assert!(checked >= 16, "{checked} mutations checked");
    assert!(named >= 8, "{named} of {checked} named");
}
