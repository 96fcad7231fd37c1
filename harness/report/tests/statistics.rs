//! The report's statistics: the index shows `rsxtrace stats`'s totals, state changes,
//! vertices per draw, passes and method calls for the reported draws (the whole frame, and a range),
//! the same values `rsxtrace_replay::render::statistics` gives.

use rsxtrace_replay::render::statistics::statistics;
use rsxtrace_report::{build, Loaded, Renderer, ReportOptions};

#[test]
fn the_index_shows_the_statistics_of_the_reported_draws() {
    let ws = rsxtrace_testkit::workspace!();
    let loaded = Loaded::open(&ws.sample("basic.rrc.gz")).expect("open");
    let frame = &loaded.scene.frame;
    for range in [0..frame.draws.len(), 1..2] {
        let expected = statistics(
            frame,
            &loaded.scene.events,
            &loaded.commands,
            Some(range.clone()),
        );
        let tmp = tempfile::tempdir().expect("tempdir");
        let site = tmp.path().join("site");
        let mut options = ReportOptions::new(&site);
        options.draws = Some(range.clone());
        build(&loaded, &options, Renderer::Cpu, None, None).expect("report");
        let index = std::fs::read_to_string(site.join("index.html")).expect("index");
        let section = &index[index
            .find("<h2>Statistics</h2>")
            .expect("a statistics section")..];
        let section = &section[..section.find("</section></div></section>").expect("its end")];
        assert!(
            section.contains(&format!("{} method calls.", expected.method_calls)),
            "{range:?}: {section}"
        );
        for (label, value) in expected.summary() {
            assert!(
                section.contains(&format!("<th>{label}</th><td>{value}</td>")),
                "{range:?}: {label} {value} not in {section}"
            );
        }
        for (part, n) in &expected.changes {
            assert!(
                section.contains(&format!("<td>{part}</td><td class=\"num\">{n}</td>")),
                "{range:?}: {part} {n}"
            );
        }
        for (n, pass) in expected.passes.iter().enumerate() {
            assert!(
                section.contains(&format!(
                    "<td class=\"num\">{n}</td><td><a href=\"draws/draw-{:05}.html\">{}</a>..{}</td><td>{}</td><td class=\"num\">{}</td>",
                    pass.draws.start, pass.draws.start, pass.draws.end, pass.kind.name(), pass.primitives
                )),
                "{range:?}: pass {n}"
            );
            assert!(section.contains(&pass.targets_text()));
        }
        let top = &expected.methods[0];
        assert!(section.contains(&format!(
            "<td>{}</td><td class=\"num\">{}</td>",
            top.method, top.calls
        )));
    }
}
