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

/// A 64×64 A8R8G8B8 surface, `mvp_vertex_program(32)` reading the attributes of `input_mask`,
/// `MOV R0, f[COL0]`, and six float3 positions (x = 0..6) at main 0x10000 bound as attribute
/// 0: the set-up of the small builder scenes of these tests.
pub fn six_positions(name: &str, input_mask: u32) -> rsxtrace_capture::builder::CaptureBuilder {
    use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
    use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
    use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc};
    use rsxtrace_capture::rrc::Location;
    let mut b = CaptureBuilder::new(name);
    b.set_surface(&SurfaceDesc::argb8_square(6, 0, 0x4_0000));
    b.set_vertex_program(&mvp_vertex_program(32), 0, 0, input_mask, 0b1)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x5_0000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    let positions: Vec<u8> = (0..6)
        .flat_map(|k| [k as f32, 0.0, 0.0])
        .flat_map(|v| v.to_be_bytes())
        .collect();
    b.put_memory(Location::Main, 0x1_0000, &positions).unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1_0000) // float3
        .unwrap();
    b
}
