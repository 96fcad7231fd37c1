//! The draw page of a draw under conditional rendering says what decided it: on the occlusion
//! scene, the flare behind the occluder was not drawn (its query counted 0 samples), the one in
//! the open was (256), and the one on a report no query wrote carries the render warning; the
//! index's events table notes the draw left out.

use crate::support::scene_report;
use rsxtrace_scenes::occlusion::*;

#[test]
fn each_conditional_draw_says_what_decided_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let site = scene_report(tmp.path(), "occlusion.rrc", &occlusion_capture());
    let page = |d: usize| {
        std::fs::read_to_string(site.join(format!("draws/draw-{d:05}.html"))).expect("draw page")
    };
    let hidden = page(HIDDEN_FLARE);
    assert!(
        hidden.contains("holds 0 samples: not drawn"),
        "hidden flare's page"
    );
    let visible = page(VISIBLE_FLARE);
    assert!(
        visible.contains("holds 256 samples: drawn"),
        "visible flare's page"
    );
    let unknown = page(UNKNOWN_FLARE);
    assert!(
        unknown.contains("render warning: conditional rendering")
            && unknown.contains("drawn as if it passed"),
        "unknown flare's page"
    );
    // A draw no report decides says nothing of it.
    assert!(!page(OCCLUDER).contains("conditional rendering"));
    // The index's events table notes the draw left out, once.
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    assert_eq!(index.matches("not drawn: conditional rendering").count(), 1);
}
