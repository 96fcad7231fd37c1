//! What the report tests share: a site built on the CPU from a loaded capture, or from a
//! generated scene written to a file first.

use rsxtrace_capture::rrc::Capture;
use rsxtrace_report::{build, Loaded, Renderer, ReportOptions};
use std::path::{Path, PathBuf};

/// The report of `loaded` into `site`, rendered on the CPU, with the default options.
pub fn cpu_report(loaded: &Loaded, site: &Path) {
    build(loaded, &ReportOptions::new(site), Renderer::Cpu, None, None).expect("report");
}

/// `capture` written as `dir/name` and reported on the CPU into `dir/site`; the site's path.
pub fn scene_report(dir: &Path, name: &str, capture: &Capture) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, rsxtrace_capture::rrc::write_v6(capture)).unwrap();
    let loaded = Loaded::open(&file).expect("open");
    let site = dir.join("site");
    cpu_report(&loaded, &site);
    site
}
