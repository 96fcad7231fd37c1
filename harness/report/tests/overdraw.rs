//! The report's overdraw: the index shows the heat map of the output image beside the final
//! frame with its totals, and each draw's fragments in the events table and on its page, the
//! same counts `rsxtrace_replay::render::overdraw` gives for the basic sample, and on each page
//! the fragments that passed every test in the CPU render; beside the heat map, the passed
//! fragments per pixel.

use crate::support::cpu_report;
use rsxtrace_replay::render::overdraw::overdraw;
use rsxtrace_replay::render::target::output_target;
use rsxtrace_report::Loaded;

/// The basic sample, and its site (CPU render) in a temporary folder kept while the folder
/// handle lives.
fn basic_site() -> (Loaded, tempfile::TempDir, std::path::PathBuf) {
    let ws = rsxtrace_testkit::workspace!();
    let loaded = Loaded::open(&ws.sample("basic.rrc.gz")).expect("open");
    let tmp = tempfile::tempdir().expect("tempdir");
    let site = tmp.path().join("site");
    cpu_report(&loaded, &site);
    (loaded, tmp, site)
}

#[test]
fn the_index_and_the_draw_pages_show_the_overdraw() {
    let (loaded, _tmp, site) = basic_site();
    let frame = &loaded.scene.frame;
    let target = output_target(frame, &loaded.scene.events).expect("an output image");
    let counted = overdraw(frame, &target, None);
    assert_eq!(counted.draws.len(), 3);
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    let caption = format!(
        "{} fragments from 3 draws over {} pixels",
        counted.total(),
        counted.covered_pixels()
    );
    assert!(index.contains(&caption), "{caption} not in the index");
    assert!(index.contains("alt=\"overdraw heat map\""));
    // The CPU render's count of fragments that passed, per draw (`draw_shading`).
    let passed = rsxtrace_replay::render::cpu::render_frame(
        frame,
        &loaded.scene.events,
        &rsxtrace_replay::render::RenderOptions::default(),
    )
    .expect("render")
    .draw_shading;
    assert_eq!(passed.len(), 3);
    // The passed heat map beside the rasterized one: every passed fragment lands on the
    // output image here (each draw renders into it).
    assert!(index.contains("alt=\"passed fragments heat map\""));
    let total: u64 = passed.iter().map(|p| p.shading.fragments_passed).sum();
    let counts = rsxtrace_replay::render::overdraw::PassedCounts::new(&target);
    let options = rsxtrace_replay::render::RenderOptions {
        passed_counts: Some(std::sync::Arc::new(counts)),
        ..Default::default()
    };
    rsxtrace_replay::render::cpu::render_frame(frame, &loaded.scene.events, &options)
        .expect("render");
    let per_pixel = options
        .passed_counts
        .as_ref()
        .unwrap()
        .to_overdraw(Vec::new());
    let summed: u64 = per_pixel.counts.iter().map(|&c| u64::from(c)).sum();
    assert_eq!(summed, total);
    let caption = format!(
        "{} pixels written, {:.2} passed fragments per written pixel",
        per_pixel.covered_pixels(),
        per_pixel.mean_per_covered_pixel()
    );
    assert!(index.contains(&caption), "{caption} not in the index");
    for d in &counted.draws {
        let page = std::fs::read_to_string(site.join(format!("draws/draw-{:05}.html", d.draw)))
            .expect("draw page");
        let n = passed
            .iter()
            .find(|p| p.draw == d.draw)
            .unwrap()
            .shading
            .fragments_passed;
        assert!(n > 0 && n <= d.fragments, "draw {}: {n}", d.draw);
        assert!(
            page.contains(&format!("{n} of its fragments passed every test")),
            "draw {}",
            d.draw
        );
    }
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

/// Each draw page shows the pixels the draw rasterizes on its first target (the coverage
/// `draw_coverage` gives): the count in the caption and an overlay, cyan where covered and
/// transparent elsewhere, at the size of the target's view.
#[test]
fn each_draw_page_shows_the_pixels_the_draw_rasterizes() {
    use rsxtrace_replay::render::overdraw::draw_coverage;
    use rsxtrace_report::coverage::HIGHLIGHT;
    let (loaded, _tmp, site) = basic_site();
    let frame = &loaded.scene.frame;
    let target = output_target(frame, &loaded.scene.events).expect("an output image");
    for d in 0..frame.draws.len() {
        let coverage = draw_coverage(frame, d, &target).expect("coverage");
        assert!(coverage.pixels() > 0, "draw {d}");
        let page = std::fs::read_to_string(site.join(format!("draws/draw-{d:05}.html")))
            .expect("draw page");
        assert!(
            page.contains(&format!("pixels rasterized: {} (", coverage.pixels())),
            "draw {d}"
        );
        let at = page
            .find("alt=\"pixels the draw rasterizes\"")
            .expect("the overlay");
        let src = &page[page[..at].rfind("src=\"").expect("src") + 5..];
        let src = &src[..src.find('"').expect("end")];
        let png = rsxtrace_testkit::image::read_rgba_png(&site.join("draws").join(src));
        // The overlay's covered cells are the highlight, the others transparent, and the
        // first covered pixel's cell is covered.
        let cells: Vec<&[u8]> = png.rgba.chunks(4).collect();
        assert!(
            cells.iter().all(|c| *c == HIGHLIGHT || c[3] == 0),
            "draw {d}"
        );
        let (x, y) = coverage.covered_pixels().next().expect("a pixel");
        // The cell whose span (`floor(i * src / dst)` onwards) holds the pixel.
        let cell = |v: u32, dst: u32, src: u32| -> u64 {
            (0..u64::from(dst))
                .rev()
                .find(|&i| i * u64::from(src) / u64::from(dst) <= u64::from(v))
                .unwrap_or(0)
        };
        let (cx, cy) = (
            cell(x, png.width, coverage.width),
            cell(y, png.height, coverage.height),
        );
        assert_eq!(
            cells[(cy * u64::from(png.width) + cx) as usize],
            HIGHLIGHT,
            "draw {d}: cell of ({x}, {y})"
        );
    }
}
