//! A draw's other targets on its page: the colour targets after the first (MRT), the depth
//! surface and its stencil, on copies of the basic sample whose surface selects targets A and
//! B, or no colour target for its first draw (a depth-only pass: the sample's draws test and
//! write depth), or whose first draw also writes stencil.

use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::open::open_capture;
use rsxtrace_capture::rrc::ReplayCommand;
use rsxtrace_report::{build, Loaded, Renderer, ReportOptions};
use std::path::{Path, PathBuf};

/// `NV4097_SET_SURFACE_COLOR_TARGET`'s byte offset.
const SET_SURFACE_COLOR_TARGET: u32 = 0x0220;

/// The basic sample with its colour target selection set to `targets`; with `colour_from` set,
/// the selection goes back to target A before that draw (a frame must draw colour somewhere
/// to have an output image). Written as a trace.
fn basic_with_targets(dir: &Path, targets: u32, colour_from: Option<usize>) -> PathBuf {
    basic_with(dir, targets, colour_from, false)
}

/// One method command writing `value` to the register at byte offset `method`, made from
/// `like` (a command of the capture).
fn method(like: &ReplayCommand, method: u32, value: u32) -> ReplayCommand {
    let mut c = like.clone();
    c.first = (1 << 18) | method;
    c.second = value;
    c.memory.clear();
    c.tile_state = 0;
    c.display_buffer_state = 0;
    c
}

/// [`basic_with_targets`]; with `stencil`, draw 0 writes stencil 3 wherever it passes
/// (ALWAYS, REPLACE on depth pass) and later draws leave the stencil alone.
fn basic_with(dir: &Path, targets: u32, colour_from: Option<usize>, stencil: bool) -> PathBuf {
    let ws = rsxtrace_testkit::workspace!();
    let mut capture = open_capture(&ws.sample("basic.rrc.gz")).expect("open");
    if stencil {
        let frame = Frame::from_capture(&capture).expect("frame");
        let (first, second) = (frame.draws[0].begin_command, frame.draws[1].begin_command);
        let like = capture.commands[first].clone();
        let off = method(&like, 0x0328, 0); // STENCIL_TEST_ENABLE
        capture.commands.insert(second, off);
        let on = [
            (0x0328, 1),      // STENCIL_TEST_ENABLE
            (0x032C, 0xFF),   // STENCIL_MASK
            (0x0330, 0x207),  // STENCIL_FUNC: ALWAYS
            (0x0334, 3),      // STENCIL_FUNC_REF
            (0x0338, 0xFF),   // STENCIL_FUNC_MASK
            (0x033C, 0x1E00), // STENCIL_OP_FAIL: KEEP
            (0x0340, 0x1E00), // STENCIL_OP_ZFAIL: KEEP
            (0x0344, 0x1E01), // STENCIL_OP_ZPASS: REPLACE
        ];
        for (k, (m, v)) in on.into_iter().enumerate() {
            capture.commands.insert(first + k, method(&like, m, v));
        }
    }
    let mut set = 0;
    for command in &mut capture.commands {
        if command.first != 0 && command.first & 0xFFFC == SET_SURFACE_COLOR_TARGET {
            command.second = targets;
            set += 1;
        }
    }
    assert_eq!(set, 1, "the sample selects its colour target once");
    if let Some(draw) = colour_from {
        let frame = Frame::from_capture(&capture).expect("frame");
        let at = frame.draws[draw].begin_command;
        // One method, one argument: target A.
        let select_a = method(&capture.commands[at], SET_SURFACE_COLOR_TARGET, 1);
        capture.commands.insert(at, select_a);
    }
    let path = dir.join(format!("basic-targets-{targets:x}-{stencil}.rsxt"));
    std::fs::write(
        &path,
        rsxtrace_capture::trace::to_bytes(&capture).expect("trace"),
    )
    .expect("write");
    path
}

fn report(capture: &Path, out: &Path, depth: bool) -> String {
    let loaded = Loaded::open(capture).expect("open");
    let options = ReportOptions {
        depth,
        ..ReportOptions::new(out)
    };
    build(&loaded, &options, Renderer::Cpu, None, None).expect("report");
    std::fs::read_to_string(out.join("draws/draw-00000.html")).expect("draw page")
}

/// Every image the page shows is a file of the site.
fn images_exist(site: &Path, page: &str) -> usize {
    let mut count = 0;
    for part in page.split("src=\"../images/").skip(1) {
        let name = part.split('"').next().expect("a name");
        assert!(site.join("images").join(name).is_file(), "missing {name}");
        count += 1;
    }
    count
}

#[test]
fn every_colour_target_of_a_draw_is_shown_and_the_depth_surface_when_asked() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let capture = basic_with_targets(tmp.path(), 0x13, None);
    let site = tmp.path().join("site");
    let page = report(&capture, &site, false);
    assert!(page.contains("Colour target A: 256x256"), "{page}");
    assert!(page.contains("Colour target B: 256x256"), "{page}");
    assert!(
        !page.contains("Depth surface"),
        "not asked for beside colour"
    );
    let shown = images_exist(&site, &page);

    let with_depth = tmp.path().join("site-depth");
    let page = report(&capture, &with_depth, true);
    assert!(page.contains("Depth surface Z: 256x256 z24s8"), "{page}");
    assert!(page.contains("stencil shown apart (S) when the draw writes it"));
    assert!(
        !page.contains("Stencil of the depth surface"),
        "draw 0 writes none"
    );
    // The depth surface's before, after and change view (the after image under the changed
    // pixels): four images more.
    assert_eq!(images_exist(&with_depth, &page), shown + 4);
}

#[test]
fn a_depth_only_pass_shows_its_depth_surface_and_what_the_draw_changed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let capture = basic_with_targets(tmp.path(), 0, Some(1));
    let site = tmp.path().join("site");
    let page = report(&capture, &site, false);
    assert!(page.contains("the draw writes no colour target"), "{page}");
    assert!(page.contains("Depth surface Z: 256x256 z24s8"), "{page}");
    // The draw wrote depth: a change view, not "changed no byte".
    let depth_part = &page[page.find("Depth surface Z").expect("the depth surface")..];
    assert!(
        !depth_part.contains("the draw changed no byte"),
        "{depth_part}"
    );
    assert!(images_exist(&site, &page) >= 3);
    // What the draw rasterizes is shown on the depth surface, the target it has.
    let rasterized = &depth_part[depth_part
        .find("pixels the draw rasterizes")
        .expect("overlay")..];
    assert!(rasterized.contains("pixels rasterized: "), "{rasterized}");
    assert_eq!(page.matches("pixels rasterized").count(), 1);
    // The index names the depth surface in the draw's target column.
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    assert!(index.contains("Z 256x256 z24s8"), "{index}");
}

#[test]
fn a_draw_that_writes_stencil_shows_it_beside_its_depth_surface() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Depth and stencil only: both shown by default, each with what the draw changed.
    let capture = basic_with(tmp.path(), 0, Some(1), true);
    let site = tmp.path().join("site");
    let page = report(&capture, &site, false);
    assert!(page.contains("Depth surface Z: 256x256 z24s8"), "{page}");
    assert!(
        page.contains("Stencil of the depth surface, S: 256x256 z24s8"),
        "{page}"
    );
    let stencil_part = &page[page.find("Stencil of the depth surface").expect("stencil")..];
    assert!(
        !stencil_part.contains("the draw changed no byte"),
        "{stencil_part}"
    );
    images_exist(&site, &page);
    // Beside colour, only when asked (with the depth surface).
    let capture = basic_with(tmp.path(), 1, None, true);
    let page = report(&capture, &tmp.path().join("site-colour"), false);
    assert!(!page.contains("Stencil of the depth surface"), "{page}");
    let page = report(&capture, &tmp.path().join("site-colour-depth"), true);
    assert!(page.contains("Stencil of the depth surface, S"), "{page}");
    // The next draw leaves the stencil alone: no stencil view on its page.
    let next = std::fs::read_to_string(tmp.path().join("site-colour-depth/draws/draw-00001.html"))
        .expect("page");
    assert!(next.contains("Depth surface Z"), "{next}");
    assert!(!next.contains("Stencil of the depth surface"), "{next}");
}
