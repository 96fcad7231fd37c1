//! The draw page's constants say what the vertex program does with each one (`probe
//! constants`' groups): on the skinned scene, the camera's rows, the normal matrix's columns,
//! the scalar and the bone palette read through the address register.

use crate::support::scene_report;

#[test]
fn each_constant_read_says_what_the_program_does_with_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let site = scene_report(
        tmp.path(),
        "skinned.rrc",
        &rsxtrace_scenes::skinned::skinned_capture(true),
    );
    let page = std::fs::read_to_string(site.join("draws/draw-00000.html")).expect("draw page");
    for used in [
        "matrix rows c[0..3] x R1",
        "matrix columns c[4..6] x v[NORMAL]",
        "scalar .x",
        "matrix rows c[A0.x+40..42] x v[POS]",
    ] {
        assert!(page.contains(used), "{used:?} not on the page");
    }
}
