//! `rsxtrace report` end to end: the bundled sample's site on the CPU (its frame image is the
//! one `rsxtrace replay --cpu` writes, every draw has a page), a draw range, a folder that
//! holds other files (refused, exit status 2), and on a GPU device when one exists the GPU
//! render with `--verify`.

use crate::cli_support;
use cli_support::*;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The `src` of the index's frame image.
fn frame_image(site: &Path) -> PathBuf {
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    let at = index.find("class=\"frame\"").expect("the frame image");
    let src = &index[at..];
    let start = src.find("src=\"").expect("src") + 5;
    let end = start + src[start..].find('"').expect("quote");
    site.join(&src[start..end])
}

#[test]
fn the_site_of_the_sample_holds_the_frame_and_every_draw() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let site = tmp.path().join("site");
    let summary = json_ok(&["report", &sample(), "--html", s(&site), "--json", "--quiet"]);
    assert_eq!(summary["draws"], 3);
    assert_eq!(summary["skipped"], 0);
    assert!(summary["bytes"].as_u64().unwrap() > 10_000, "{summary}");
    assert!(
        summary["diverged"].is_null(),
        "no verification asked: {summary}"
    );
    for d in 0..3 {
        let page = site.join(format!("draws/draw-{d:05}.html"));
        assert!(page.is_file(), "draw {d}");
        // The commands that look closer at the draw, on the capture's file name.
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(
            html.contains(&format!(
                "rsxtrace trim basic.rrc.gz --draws {d} --out draw-{d}.rrc.gz"
            )),
            "draw {d}"
        );
    }
    // The site's frame is the CPU render's output (colour; the site drops alpha).
    let replayed = tmp.path().join("replay.png");
    let out = rsxtrace(&["replay", &sample(), "--cpu", "--out", s(&replayed)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = rsxtrace_testkit::image::read_rgba_png(&replayed);
    let got = rsxtrace_testkit::image::read_png(&frame_image(&site));
    assert_eq!((got.width, got.height), (want.width, want.height));
    let rgb = |p: &[u8]| -> Vec<u8> { p.chunks(4).flat_map(|c| [c[0], c[1], c[2]]).collect() };
    assert!(
        rgb(&got.rgba) == rgb(&want.rgba),
        "the site's frame differs from the replay"
    );

    // A second run reuses the folder; a range writes only its draws.
    let summary = json_ok(&[
        "report",
        &sample(),
        "--html",
        s(&site),
        "--draws",
        "1..3",
        "--json",
        "--quiet",
    ]);
    assert_eq!(summary["draws"], 2);
    assert!(
        !site.join("draws/draw-00000.html").exists(),
        "stale page kept"
    );
    assert!(site.join("draws/draw-00002.html").is_file());
}

#[cfg(unix)]
#[test]
fn json_names_a_folder_that_is_not_utf8() {
    // The site is written and the JSON is whole, the folder's name read lossily (serde
    // refuses a path that is not UTF-8; the output stopped after `"out":`).
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().expect("tempdir");
    let site = tmp.path().join(std::ffi::OsStr::from_bytes(b"r\xff4"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(["report", &sample(), "--quiet", "--json", "--html"])
        .arg(&site)
        .env("XDG_RUNTIME_DIR", runtime_dir())
        .output()
        .expect("run rsxtrace");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(
        summary["out"].as_str().unwrap().ends_with("r\u{fffd}4"),
        "{summary}"
    );
    assert!(site.join("index.html").is_file());
}

#[test]
fn a_folder_with_other_files_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("notes.txt"), "mine").expect("write");
    let out = rsxtrace(&["report", &sample(), "--html", s(tmp.path()), "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("holds no rsxtrace report"), "{stderr}");
    assert!(tmp.path().join("notes.txt").is_file());
}

#[test]
fn the_gpu_render_with_verification() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let site = tmp.path().join("site");
    let out = rsxtrace(&[
        "report",
        &sample(),
        "--html",
        s(&site),
        "--gpu",
        "--verify",
        "--json",
        "--quiet",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if rsxtrace_testkit::device::cli_adapter_missing("report --gpu", out.status.code(), &stderr) {
        return;
    }
    assert!(out.status.success(), "{stderr}");
    let summary: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(summary["draws"], 3);
    assert_eq!(summary["diverged"], 0, "{summary}");
    let index = std::fs::read_to_string(site.join("index.html")).expect("index");
    assert!(
        index.contains("rendered by the GPU: "),
        "renderer not named"
    );
    let page = std::fs::read_to_string(site.join("draws/draw-00001.html")).expect("page");
    assert!(
        page.contains("<section id=\"verify\">"),
        "no verification section"
    );
    assert!(page.contains(">clean<"), "draw 1 not shown clean");
}
