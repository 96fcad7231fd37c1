//! The report's overdraw: the index shows the heat map of the output image beside the final
//! frame with its totals, and each draw's fragments in the events table and on its page, the
//! same counts `rsxtrace_replay::render::overdraw` gives for the basic sample.

use rsxtrace_replay::render::overdraw::overdraw;
use rsxtrace_replay::render::target::output_target;
use rsxtrace_report::{build, Loaded, Renderer, ReportOptions};

#[test]
fn the_index_and_the_draw_pages_show_the_overdraw() {
    let ws = rsxtrace_testkit::workspace!();
    let loaded = Loaded::open(&ws.sample("basic.rrc.gz")).expect("open");
    let frame = &loaded.scene.frame;
    let target = output_target(frame, &loaded.scene.events).expect("an output image");
    let counted = overdraw(frame, &target, None);
    assert_eq!(counted.draws.len(), 3);

    let tmp = tempfile::tempdir().expect("tempdir");
    let site = tmp.path().join("site");
    build(
        &loaded,
        &ReportOptions::new(&site),
        Renderer::Cpu,
        None,
        None,
    )
    .expect("report");
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    let caption = format!(
        "{} fragments from 3 draws over {} pixels",
        counted.total(),
        counted.covered_pixels()
    );
    assert!(index.contains(&caption), "{caption} not in the index");
    assert!(index.contains("alt=\"overdraw heat map\""));
    for d in &counted.draws {
        // The events table: the draw's row holds its fragments.
        let row = &index[index.find(&format!(">draw {}<", d.draw)).expect("row")..];
        let row = &row[..row.find("</tr>").expect("row end")];
        assert!(
            row.contains(&format!("<td class=\"num\">{}</td>", d.fragments)),
            "{row}"
        );
        let page = std::fs::read_to_string(site.join(format!("draws/draw-{:05}.html", d.draw)))
            .expect("draw page");
        assert!(
            page.contains(&format!(
                "rasterizes {} fragments on the output image",
                d.fragments
            )),
            "draw {}",
            d.draw
        );
    }
}
