//! The negative control: random single-field mutations of the programs on the GPU side are
//! detected in at least 95% of the cases where they change an output of the interpreter.

use crate::divergence_support;

use divergence_support::{frame, gpu, sample_paths};
use rsxtrace_verify::divergence::{verify_frame, VerifyOptions};

#[test]
fn mutations_that_change_outputs_are_detected() {
    let Some(gpu) = gpu("mutations_that_change_outputs_are_detected") else {
        return;
    };
    let mut effective = 0;
    let mut detected = 0;
    for path in sample_paths() {
        let f = frame(&path);
        // The first 300 draws of each trace (all of the small ones): the mutations land on
        // clean stages of these.
        let options = VerifyOptions {
            draws: Some(0..f.draws.len().min(300)),
            mutate: 60,
            seed: 0x5eed,
            max_pixels: 2048,
            ..VerifyOptions::default()
        };
        let report = verify_frame(&f, &options, &gpu, None).unwrap();
        assert!(
            !report.diverged(),
            "{}: the unmutated frame diverges",
            path.display()
        );
        let m = report.mutation.expect("the control ran");
        assert_eq!(m.requested, 60);
        assert!(m.applied + m.rejected <= m.requested);
        assert!(m.detected <= m.effective);
        for x in &m.mutations {
            if x.result == "missed" {
                eprintln!(
                    "{}: missed: draw {} {:?} {}",
                    path.display(),
                    x.draw,
                    x.stage,
                    x.change
                );
            }
        }
        eprintln!(
            "{}: {} applied, {} rejected, {} effective, {} detected, {} detected but ineffective",
            path.display(),
            m.applied,
            m.rejected,
            m.effective,
            m.detected,
            m.detected_ineffective
        );
        effective += m.effective;
        detected += m.detected;
    }
    assert!(effective >= 20, "only {effective} effective mutations");
    let rate = detected as f64 / effective as f64;
    assert!(
        rate >= 0.95,
        "detected {detected} of {effective} ({rate:.3})"
    );
}

#[test]
fn the_same_seed_gives_the_same_mutations() {
    let Some(gpu) = gpu("the_same_seed_gives_the_same_mutations") else {
        return;
    };
    let f = divergence_support::basic();
    let options = VerifyOptions {
        mutate: 12,
        seed: 42,
        ..VerifyOptions::default()
    };
    let a = verify_frame(&f, &options, &gpu, None)
        .unwrap()
        .mutation
        .unwrap();
    let b = verify_frame(&f, &options, &gpu, None)
        .unwrap()
        .mutation
        .unwrap();
    assert_eq!(a.mutations, b.mutations);
    let c = verify_frame(
        &f,
        &VerifyOptions {
            seed: 43,
            ..options
        },
        &gpu,
        None,
    )
    .unwrap()
    .mutation
    .unwrap();
    assert_ne!(a.mutations, c.mutations);
}

/// A mutant runs once: its pipelines leave the device's cache after its run, so that
/// `--mutate N` takes no more memory as N grows (it grew by about half a megabyte a mutant on
/// lavapipe) and the frame's own pipelines stay.
#[test]
fn mutants_leave_no_pipelines_behind() {
    let Some(gpu) = gpu("mutants_leave_no_pipelines_behind") else {
        return;
    };
    let f = divergence_support::basic();
    let plain = VerifyOptions::default();
    verify_frame(&f, &plain, &gpu, None).unwrap();
    let frame_pipelines = gpu.cached_pipelines();
    assert!(frame_pipelines > 0);
    let mutated = VerifyOptions {
        mutate: 40,
        seed: 7,
        ..VerifyOptions::default()
    };
    let m = verify_frame(&f, &mutated, &gpu, None)
        .unwrap()
        .mutation
        .unwrap();
    assert!(m.applied >= 20, "{} mutations applied", m.applied);
    assert_eq!(gpu.cached_pipelines(), frame_pipelines);
}
