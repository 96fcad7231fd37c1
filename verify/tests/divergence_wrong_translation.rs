//! A deliberately wrong translation (the test-only GPU-side program hooks) is caught and
//! reported at the right draw, stage and register, with the state changed since the previous
//! draw; the other draws stay clean.

use crate::divergence_support;

use divergence_support::{basic, drop_alpha_of_draw_0, gpu, negate_col0_of_draw_1};
use rsxtrace_verify::divergence::{verify_frame, Outcome, Stage, VerifyOptions};

#[test]
fn a_wrong_vertex_translation_is_reported_at_its_draw_and_register() {
    let Some(gpu) = gpu("a_wrong_vertex_translation_is_reported") else {
        return;
    };
    let f = basic();
    let options = VerifyOptions {
        vertex_hook: Some(negate_col0_of_draw_1),
        ..VerifyOptions::default()
    };
    let report = verify_frame(&f, &options, &gpu, None).unwrap();
    assert!(report.diverged());
    let worst = report.worst_first();
    assert_eq!(worst.len(), 1, "only draw 1's vertex stage diverges");
    let (d, s) = worst[0];
    assert_eq!((d.draw, s.stage), (1, Stage::Vertex));
    let reg = s.worst_register().unwrap();
    assert_eq!(reg.register, "COL0");
    // Every vertex's COL0 has a non-zero component (alpha 1 at least).
    assert!(reg.diverged >= 4, "{} diverged", reg.diverged);
    assert_eq!(reg.ill_conditioned, 0);
    let w = reg.worst.as_ref().unwrap();
    assert!(w.diverged);
    assert_eq!(w.gpu, -w.interpreter, "the sign was dropped");
    // HPOS of the same draw is untouched.
    assert_eq!(s.registers[0].register, "HPOS");
    assert_eq!(s.registers[0].diverged, 0);
    // The fragment stage rasterizes the interpreter's outputs: it stays clean.
    assert_eq!(d.stages[1].outcome, Outcome::Clean);
    let fd = report.first_divergence.as_ref().unwrap();
    assert_eq!(
        (fd.draw, fd.stage, fd.previous),
        (1, Stage::Vertex, Some(0))
    );
    assert_eq!(fd.register.as_deref(), Some("COL0"));
    let keys: Vec<&str> = fd.changed.iter().map(|c| c.key.as_str()).collect();
    assert!(
        keys.contains(&"primitive") && keys.contains(&"indexed"),
        "{keys:?}"
    );
    assert!(!keys.contains(&"index"));
}

#[test]
fn a_wrong_fragment_translation_is_reported_at_its_draw_register_and_component() {
    let Some(gpu) = gpu("a_wrong_fragment_translation_is_reported") else {
        return;
    };
    let f = basic();
    let options = VerifyOptions {
        fragment_hook: Some(drop_alpha_of_draw_0),
        images: true,
        ..VerifyOptions::default()
    };
    let report = verify_frame(&f, &options, &gpu, None).unwrap();
    let worst = report.worst_first();
    assert_eq!(worst.len(), 1);
    let (d, s) = worst[0];
    assert_eq!((d.draw, s.stage), (0, Stage::Fragment));
    let reg = s.worst_register().unwrap();
    assert_eq!(reg.register, "COL0 (R0)");
    // Only alpha, at every compared pixel.
    assert_eq!(reg.diverged, s.elements as u64);
    let w = reg.worst.as_ref().unwrap();
    assert_eq!(w.component, 3);
    assert_eq!(w.gpu, 0.0, "R0.w keeps its initial 0");
    assert!(w.pixel.is_some());
    assert_eq!(report.first_divergence.as_ref().unwrap().previous, None);
    // The HTML report carries the three images of the diverged draw.
    let html = rsxtrace_verify::divergence::report::html::to_html(&report);
    assert!(html.matches("data:image/png;base64,").count() >= 3);
    assert!(s
        .images
        .as_ref()
        .is_some_and(|i| i.width > 0 && i.height > 0));
}
