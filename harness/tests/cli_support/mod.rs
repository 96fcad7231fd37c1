//! What the CLI tests share: running the `rsxtrace` binary (with Mesa's private runtime
//! directory, stack-notes.md 1(b)), its JSON on success, its message on exit status 2, and
//! the bundled basic sample.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `rsxtrace ARGS`.
pub fn rsxtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .env("XDG_RUNTIME_DIR", runtime_dir())
        .output()
        .expect("run rsxtrace")
}

/// The XDG_RUNTIME_DIR for Mesa: `rsxtrace-testkit`'s private one.
pub fn runtime_dir() -> PathBuf {
    rsxtrace_testkit::device::runtime_dir()
}

/// Runs `rsxtrace ARGS`, expects success, parses stdout as JSON.
pub fn json_ok(args: &[&str]) -> Value {
    let out = rsxtrace(args);
    assert!(
        out.status.success(),
        "rsxtrace {args:?} failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// Runs `rsxtrace ARGS`, expects exit status 2, returns stderr.
pub fn failure(args: &[&str]) -> String {
    let out = rsxtrace(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The bundled basic sample's path.
pub fn sample() -> String {
    let p: PathBuf = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    p.to_str().unwrap().to_string()
}

/// `capture` written as `dir/name` (RRC version 6): a generated scene as a file the CLI reads.
pub fn scene_file(dir: &Path, name: &str, capture: &rsxtrace_capture::rrc::Capture) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, rsxtrace_capture::rrc::write_v6(capture)).unwrap();
    path
}

/// A path as `&str`.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `info --json`'s `frame_problems` of `path`, as text.
pub fn frame_problems(path: &str) -> Vec<String> {
    json_ok(&["info", path, "--json"])["frame_problems"]
        .as_array()
        .expect("frame_problems")
        .iter()
        .map(|p| p.as_str().expect("a problem's text").to_string())
        .collect()
}
