//! A frame the renderer cannot draw still gets its site: the bundled sample with every
//! `SET_SURFACE_COLOR_TARGET` set to "none" has no usable colour target, so the render
//! fails; the report says why on the index and writes every draw's page without images.

use rsxtrace_capture::open::open_capture;
use rsxtrace_report::{build, Loaded, Renderer, ReportOptions};

/// `NV4097_SET_SURFACE_COLOR_TARGET`, as a method byte offset.
const COLOR_TARGET: u32 = 0x0220;

#[test]
fn a_frame_that_cannot_be_rendered_still_gets_its_pages() {
    let ws = rsxtrace_testkit::workspace!();
    let mut capture = open_capture(&ws.sample("basic.rrc.gz")).expect("open");
    let mut changed = 0;
    for c in &mut capture.commands {
        if c.first & 0xFFFC == COLOR_TARGET {
            c.second = 0;
            changed += 1;
        }
    }
    if let Some(r) = capture
        .reg_state
        .registers
        .get_mut((COLOR_TARGET >> 2) as usize)
    {
        *r = 0;
    }
    assert!(changed > 0, "the sample sets its colour target");
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("no-target.rrc.gz");
    std::fs::write(&file, rsxtrace_capture::rrc::write_v6(&capture)).expect("write");

    let loaded = Loaded::open(&file).expect("open");
    let site = tmp.path().join("site");
    let summary = build(
        &loaded,
        &ReportOptions::new(&site),
        Renderer::Cpu,
        None,
        None,
    )
    .expect("the report is written");
    assert!(!summary.rendered);
    assert_eq!(summary.draws, 3);
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    assert!(
        index.contains("the frame could not be rendered: nothing to render"),
        "the index does not say why"
    );
    for d in 0..3 {
        let page = std::fs::read_to_string(site.join(format!("draws/draw-{d:05}.html")))
            .expect("draw page");
        assert!(
            page.contains("id=\"vertex-program\""),
            "draw {d}: no program section"
        );
        assert!(
            page.contains("not observed"),
            "draw {d}: the target section lies"
        );
    }
}
