//! Every command that prints on standard output treats a closed pipe (`rsxtrace draws f | head`)
//! as the end of the work: exit status 0, no panic, no error message (issue 12, item 8).
//!
//! Each case runs twice: into an open pipe, to show the command really prints (so the closed
//! case can fail), and with standard output connected to a pipe whose read end was closed before
//! the command started, so its first write meets EPIPE.

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
}

fn repo(path: &str) -> String {
    let p: PathBuf = rsxtrace_testkit::workspace!().root().join(path);
    p.to_str().expect("UTF-8 path").to_string()
}

/// Whether a run failed because no GPU device opened (a loud skip, a failure in CI).
fn gpu_missing(out: &Output) -> bool {
    let stderr = String::from_utf8_lossy(&out.stderr);
    rsxtrace_testkit::device::cli_adapter_missing("closed_pipe", out.status.code(), &stderr)
}

/// Run `args` into an open pipe, then into a closed one, and check both.
fn check(args: &[&str]) {
    let open = bin().args(args).output().expect("run rsxtrace");
    if gpu_missing(&open) {
        return;
    }
    assert!(
        matches!(open.status.code(), Some(0 | 1)),
        "rsxtrace {args:?} failed ({:?}): {}",
        open.status.code(),
        String::from_utf8_lossy(&open.stderr)
    );
    assert!(
        !open.stdout.is_empty(),
        "rsxtrace {args:?} printed nothing, so a closed pipe proves nothing"
    );

    // A connected socket pair stands in for the pipe (`std::io::pipe` is newer than the
    // workspace's MSRV): a write to a stream socket whose peer is closed fails with EPIPE too.
    let (reader, writer) = UnixStream::pair().expect("socket pair");
    drop(reader);
    let closed = bin()
        .args(args)
        .stdout(Stdio::from(OwnedFd::from(writer)))
        .stderr(Stdio::piped())
        .output()
        .expect("run rsxtrace");
    let stderr = String::from_utf8_lossy(&closed.stderr);
    assert_eq!(
        closed.status.code(),
        Some(0),
        "rsxtrace {args:?} into a closed pipe: {stderr}"
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "rsxtrace {args:?} into a closed pipe: {stderr}"
    );
}

#[test]
fn info() {
    check(&["info", &repo("traces/samples/basic.rrc.gz")]);
    check(&["info", &repo("traces/samples/basic.rrc.gz"), "--json"]);
}

#[test]
fn history() {
    check(&[
        "history",
        &repo("traces/samples/basic.rrc.gz"),
        "--pixel",
        "128,128",
    ]);
    check(&[
        "history",
        &repo("traces/samples/basic.rrc.gz"),
        "--pixel",
        "128,128",
        "--json",
    ]);
}

#[test]
fn edit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("e.rrc.gz");
    let out = out.to_str().unwrap();
    // A one-slot program: `MOV R0, f[COL0]; END`.
    let fp = dir.path().join("p.bin");
    std::fs::write(&fp, rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0).unwrap();
    let arg = format!("all={}", fp.to_str().unwrap());
    let basic = repo("traces/samples/basic.rrc.gz");
    check(&["edit", &basic, "--fragment", &arg, "--out", out]);
    check(&["edit", &basic, "--fragment", &arg, "--out", out, "--json"]);
}

#[test]
fn trim() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rrc.gz");
    let out = out.to_str().unwrap();
    let basic = repo("traces/samples/basic.rrc.gz");
    check(&["trim", &basic, "--draws", "1..3", "--out", out]);
    check(&["trim", &basic, "--draws", "1..3", "--out", out, "--json"]);
}

#[test]
fn diff() {
    let basic = repo("traces/samples/basic.rrc.gz");
    let game = repo("traces/samples/game.rrc.gz");
    check(&["diff", &basic, &basic]);
    check(&["diff", &basic, &game, "--json"]);
    check(&["diff", &game, &game, "--draw", "3"]);
}

#[test]
fn draws() {
    check(&["draws", &repo("traces/samples/game.rrc.gz")]);
    check(&["draws", &repo("traces/samples/game.rrc.gz"), "--json"]);
}

#[test]
fn dump() {
    check(&["dump", &repo("traces/samples/basic.rrc.gz"), "--draw", "1"]);
    check(&[
        "dump",
        &repo("traces/samples/basic.rrc.gz"),
        "--draw",
        "1",
        "--json",
    ]);
}

#[test]
fn export_jsonl() {
    check(&["export-jsonl", &repo("traces/samples/basic.rrc.gz")]);
}

#[test]
fn disasm_and_flow() {
    let game = repo("traces/samples/game.rrc.gz");
    check(&["disasm", &game, "--draw", "0"]);
    check(&["disasm", &game, "--draw", "0", "--json"]);
    check(&["flow", &game, "--draw", "0"]);
    check(&["flow", &game, "--draw", "0", "--json"]);
}

#[test]
fn exec() {
    check(&["exec", &repo("traces/samples/basic.rrc.gz"), "--draw", "0"]);
    check(&[
        "exec",
        &repo("traces/samples/basic.rrc.gz"),
        "--draw",
        "0",
        "--json",
    ]);
}

#[test]
fn translate() {
    check(&[
        "translate",
        &repo("traces/samples/basic.rrc.gz"),
        "--draw",
        "0",
    ]);
    check(&[
        "translate",
        &repo("traces/samples/basic.rrc.gz"),
        "--draw",
        "0",
        "--json",
    ]);
}

#[test]
fn targets() {
    check(&["targets", &repo("traces/samples/basic.rrc.gz")]);
    check(&["targets", &repo("traces/samples/basic.rrc.gz"), "--json"]);
}

#[test]
fn overdraw() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("overdraw.png");
    let sample = repo("traces/samples/basic.rrc.gz");
    check(&["overdraw", &sample, "--out", out.to_str().unwrap()]);
    check(&[
        "overdraw",
        &sample,
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
}

#[test]
fn stats() {
    let sample = repo("traces/samples/game.rrc.gz");
    check(&["stats", &sample]);
    check(&["stats", &sample, "--json"]);
}

#[test]
fn convert_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("basic.rsxt");
    check(&[
        "convert",
        &repo("traces/samples/basic.rrc.gz"),
        out.to_str().unwrap(),
        "--json",
    ]);
}

#[test]
fn textures() {
    check(&["textures", &repo("traces/samples/game.rrc.gz")]);
    check(&["textures", &repo("traces/samples/game.rrc.gz"), "--json"]);
}

#[test]
fn level_probes() {
    let level = repo("traces/level/level.rrc.gz");
    let fog = repo("traces/level/fog.fpo");
    let placements = repo("traces/level/placements.json");
    let vp = repo("traces/level/view_projection.json");
    check(&["mvp", &level, "--placements", &placements]);
    check(&["mvp", &level, "--placements", &placements, "--json"]);
    check(&["uniforms", &level, "--program", &fog]);
    check(&["uniforms", &level, "--program", &fog, "--json"]);
    check(&[
        "probe",
        "maininv",
        &level,
        "--program",
        &fog,
        "--view-proj",
        &vp,
    ]);
}

#[test]
fn replay_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("frame.png");
    check(&[
        "replay",
        &repo("traces/samples/basic.rrc.gz"),
        "--cpu",
        "--out",
        out.to_str().unwrap(),
    ]);
}

#[test]
fn verify_on_the_device() {
    check(&["verify", "--quiet", &repo("traces/samples/basic.rrc.gz")]);
}

#[test]
fn ci_text_report() {
    check(&[
        "ci",
        &repo("traces/manifest.toml"),
        "--paths",
        "cpu",
        "--trace",
        "basic-triangle",
    ]);
}

#[test]
fn batch() {
    check(&[
        "batch",
        "--quiet",
        "--no-gpu",
        &repo("traces/level/fog.fpo"),
    ]);
}

#[test]
fn debug_trace() {
    check(&[
        "debug",
        &repo("traces/level/fog.fpo"),
        "--pixel",
        "1,1",
        "--trace",
    ]);
}

/// Commands that print a summary or a table beside the file they write, and the probes and
/// searches added since the list above.
#[test]
fn summaries_searches_and_probes() {
    let basic = repo("traces/samples/basic.rrc.gz");
    let game = repo("traces/samples/game.rrc.gz");
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    check(&["probe", "constants", &game]);
    check(&["probe", "constants", &game, "--json"]);
    check(&["probe", "constants", &basic, "--draw", "0"]);
    check(&["find", &game, "--hex", "0000803f"]);
    check(&["find", &game, "--hex", "0000803f", "--json"]);
    check(&["match", &basic, "--library", &repo("traces/level/fog.fpo")]);
    check(&["index", &basic, "--db", &path("x.sqlite")]);
    check(&[
        "export",
        "gltf",
        &basic,
        "--draws",
        "0..1",
        "--out",
        &path("x.glb"),
    ]);
    check(&["report", &basic, "--html", &path("report")]);
    let asm = path("p.asm");
    std::fs::write(&asm, "MOVR R0, f[COL0]; END\n").unwrap();
    check(&["asm", &asm, "--out", &path("p.bin")]);
    check(&["asm", &asm, "--out", &path("p.bin"), "--json"]);
    check(&[
        "shade",
        &asm,
        "--size",
        "4x4",
        "--out",
        &path("p.png"),
        "--json",
    ]);
}
