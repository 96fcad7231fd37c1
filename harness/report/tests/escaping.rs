//! Escaping and paths: captures whose text is markup (a trace whose recorded name is a script,
//! an RRC file whose file name is an HTML tag) are reported; no page carries their text as
//! markup (each page has exactly the site's one script element and no injected tag), the text
//! is there escaped, and every file written lies inside the output folder under a name made of
//! indices and hashes.

use crate::support::cpu_report;
use rsxtrace_capture::open::open_capture;
use rsxtrace_report::Loaded;
use std::path::{Path, PathBuf};

const SCRIPT_NAME: &str = "<script>alert(1)</script>";
const TAG_FILE: &str = "\"><img src=x onerror=alert(2)>.rrc.gz";

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .expect("inside")
                    .to_string_lossy()
                    .to_string();
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// Whether `rel` is one of the names the site makes.
fn made_name(rel: &str) -> bool {
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match rel.split_once('/') {
        None => rel == "index.html",
        Some(("assets", f)) => f == "report.css" || f == "report.js",
        Some(("draws", f)) => f
            .strip_prefix("draw-")
            .and_then(|f| f.strip_suffix(".html"))
            .is_some_and(digits),
        Some(("programs", f)) => f
            .strip_suffix(".html")
            .and_then(|f| f.strip_prefix("vp-").or_else(|| f.strip_prefix("fp-")))
            .is_some_and(|h| hex(h, 16)),
        Some(("images", f)) => f.strip_suffix(".png").is_some_and(|h| hex(h, 32)),
        _ => false,
    }
}

fn check_site(site: &Path, text: &str) {
    let all = files(site);
    assert!(all.len() > 5, "{all:?}");
    for rel in &all {
        assert!(made_name(rel), "unexpected file {rel}");
        if !rel.ends_with(".html") {
            continue;
        }
        let html = std::fs::read_to_string(site.join(rel)).expect("page");
        assert_eq!(html.matches("<script").count(), 1, "{rel}: script elements");
        assert!(!html.contains("<img src=x"), "{rel}: an injected tag");
        assert!(!html.contains(text), "{rel}: the raw text");
    }
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    assert!(
        index.contains(&escaped.replace('"', "&quot;")),
        "the name is not shown escaped in the index"
    );
}

fn report(capture: &Path, out: &Path) {
    cpu_report(&Loaded::open(capture).expect("open"), out);
}

#[test]
fn text_from_captures_is_escaped_and_files_stay_inside_the_folder() {
    let ws = rsxtrace_testkit::workspace!();
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut capture = open_capture(&ws.sample("basic.rrc.gz")).expect("open");

    // A trace keeps the name it was recorded with.
    capture.provenance.source_name = SCRIPT_NAME.into();
    let trace = tmp.path().join("named.rsxt");
    let bytes = rsxtrace_capture::trace::to_bytes(&capture).expect("trace");
    std::fs::write(&trace, bytes).expect("write trace");
    let site = tmp.path().join("site-trace");
    report(&trace, &site);
    check_site(&site, SCRIPT_NAME);

    // An RRC file is named by its file name.
    let rrc: PathBuf = tmp.path().join(TAG_FILE);
    std::fs::write(&rrc, rsxtrace_capture::rrc::write_v6(&capture)).expect("write rrc");
    let site = tmp.path().join("site-rrc");
    report(&rrc, &site);
    check_site(&site, TAG_FILE.trim_end_matches(".rrc.gz"));

    let mut top: Vec<String> = std::fs::read_dir(tmp.path())
        .expect("tmp")
        .map(|e| e.expect("entry").file_name().to_string_lossy().to_string())
        .collect();
    top.sort();
    assert_eq!(
        top,
        [
            "\"><img src=x onerror=alert(2)>.rrc.gz",
            "named.rsxt",
            "site-rrc",
            "site-trace"
        ]
    );
}
