//! The sample traces verify clean: every stage of every draw is clean or skipped with a
//! reason, nothing diverges or fails, and the stages that can be compared are compared.

use crate::divergence_support;

use divergence_support::{basic, frame, gpu, sample_paths};
use rsxtrace_verify::divergence::{verify_frame, Outcome, Stage, VerifyOptions};

#[test]
fn every_sample_trace_verifies_clean() {
    let Some(gpu) = gpu("every_sample_trace_verifies_clean") else {
        return;
    };
    let paths = sample_paths();
    assert!(!paths.is_empty(), "no sample traces under traces/samples");
    for path in paths {
        let f = frame(&path);
        let options = VerifyOptions {
            max_pixels: 4096,
            capture: path.display().to_string(),
            ..VerifyOptions::default()
        };
        let report = verify_frame(&f, &options, &gpu, None).unwrap();
        for d in &report.draws {
            for s in &d.stages {
                assert!(
                    matches!(s.outcome, Outcome::Clean | Outcome::Skipped { .. }),
                    "{}: draw {} {} stage: {:?}\n{:#?}",
                    path.display(),
                    d.draw,
                    s.stage.name(),
                    s.outcome,
                    s.registers
                );
            }
        }
        assert!(!report.diverged() && !report.failed());
        assert_eq!(report.first_divergence, None);
        assert!(
            report.totals.clean > 0,
            "{}: nothing compared",
            path.display()
        );
    }
}

#[test]
fn basic_sample_verifies_every_stage_clean() {
    let Some(gpu) = gpu("basic_sample_compares_what_it_can") else {
        return;
    };
    let f = basic();
    let report = verify_frame(&f, &VerifyOptions::default(), &gpu, None).unwrap();
    assert_eq!(report.draws.len(), 3);
    // Vertex stage: all three draws, every vertex, HPOS and the draw's varying compared.
    let vertex: Vec<_> = report
        .draws
        .iter()
        .map(|d| &d.stages[0])
        .inspect(|s| assert_eq!(s.stage, Stage::Vertex))
        .collect();
    assert!(vertex.iter().all(|s| s.outcome == Outcome::Clean));
    assert_eq!(
        vertex.iter().map(|s| s.elements).collect::<Vec<_>>(),
        [3, 4, 4]
    );
    let regs = |s: &rsxtrace_verify::divergence::StageReport| -> Vec<String> {
        s.registers.iter().map(|r| r.register.clone()).collect()
    };
    assert_eq!(regs(vertex[0]), ["HPOS", "COL0"]);
    assert_eq!(regs(vertex[2]), ["HPOS", "TEX0"]);
    // 4 components per register and vertex.
    assert_eq!(vertex[1].registers[0].compared, 16);
    // Fragment stage: every draw rasterized and compared; draw 2 samples its texture on both
    // sides.
    let frag: Vec<_> = report.draws.iter().map(|d| &d.stages[1]).collect();
    assert_eq!(frag[0].outcome, Outcome::Clean);
    assert_eq!(frag[1].outcome, Outcome::Clean);
    assert!(frag[0].elements > 1000, "{} pixels", frag[0].elements);
    assert_eq!(regs(frag[0]), ["COL0 (R0)", "KIL"]);
    assert_eq!(frag[2].outcome, Outcome::Clean);
    assert!(frag[2].elements > 100, "{} pixels", frag[2].elements);
}

#[test]
fn sampling_limits_the_compared_pixels_and_reports_the_covered_count() {
    let Some(gpu) = gpu("sampling_limits_the_compared_pixels") else {
        return;
    };
    let f = basic();
    let full = verify_frame(
        &f,
        &VerifyOptions {
            draws: Some(0..1),
            ..VerifyOptions::default()
        },
        &gpu,
        None,
    )
    .unwrap();
    let covered = full.draws[0].stages[1].elements;
    assert_eq!(full.draws[0].stages[1].covered, None, "nothing sampled");
    let sampled = verify_frame(
        &f,
        &VerifyOptions {
            draws: Some(0..1),
            max_pixels: 500,
            ..VerifyOptions::default()
        },
        &gpu,
        None,
    )
    .unwrap();
    let s = &sampled.draws[0].stages[1];
    assert_eq!(s.outcome, Outcome::Clean);
    assert!(
        s.elements <= 500 + 3 && s.elements >= 250,
        "{} pixels",
        s.elements
    );
    assert_eq!(s.covered, Some(covered));
}
