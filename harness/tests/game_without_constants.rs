//! Verify on the game-scale sample with every transform constant removed from the capture, as
//! a real capture whose constants were uploaded before the frame would be (rrc-format.md 3.4:
//! RRC records the frame's commands, not the state before it): every draw is still compared,
//! with the constants substituted (zeros, then seeded random), and none is skipped for lack of
//! constants.
//!
//! The capture is rewritten through the rrc crate's model: the `TRANSFORM_CONSTANT_LOAD` and
//! `TRANSFORM_CONSTANT[..]` method calls (and their batched continuation entries) are dropped
//! and the optional constants block of the register-state tail is cleared. The default test
//! verifies draws 0..96 (46 s in a debug build on lavapipe); the whole frame is an ignored
//! test (`-- --ignored`), too slow for every run of a debug build.

use rsxtrace_capture::rrc::{self, Capture, ReplayCommand};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// Draws verified by default (the first ones of the frame, which use many distinct programs).
const DRAWS: std::ops::Range<usize> = 0..96;

/// `TRANSFORM_CONSTANT_LOAD` (0x1EFC) and `TRANSFORM_CONSTANT[0..32]` (0x1F00..=0x1F7C), byte
/// offsets (rrc-format.md 4.5).
fn is_constant_method(byte_offset: u32) -> bool {
    byte_offset == 0x1EFC || (0x1F00..=0x1F7C).contains(&byte_offset)
}

/// The commands without constant uploads. A header `first` holds the method byte offset in
/// bits 2..15 and the argument count in bits 18..28; the count-1 entries after it with
/// `first == 0` are its further arguments (rrc-format.md 3.2). A dropped command's memory
/// blocks, tile and display states move to the next kept command so that nothing else changes.
fn without_constants(commands: &[ReplayCommand]) -> (Vec<ReplayCommand>, usize) {
    let mut kept: Vec<ReplayCommand> = Vec::with_capacity(commands.len());
    let mut carried = ReplayCommand::default();
    let mut dropped = 0;
    let mut dropping_batch = false;
    for c in commands {
        let drop = if c.first == 0 {
            dropping_batch
        } else {
            dropping_batch = is_constant_method(c.first & 0xFFFC);
            dropping_batch
        };
        if drop {
            dropped += 1;
            carried.memory.extend_from_slice(&c.memory);
            if c.tile_state != 0 {
                carried.tile_state = c.tile_state;
            }
            if c.display_buffer_state != 0 {
                carried.display_buffer_state = c.display_buffer_state;
            }
            continue;
        }
        let mut c = c.clone();
        if !carried.memory.is_empty() {
            let mut memory = std::mem::take(&mut carried.memory);
            memory.extend_from_slice(&c.memory);
            c.memory = memory;
        }
        if c.tile_state == 0 {
            c.tile_state = std::mem::take(&mut carried.tile_state);
        }
        if c.display_buffer_state == 0 {
            c.display_buffer_state = std::mem::take(&mut carried.display_buffer_state);
        }
        kept.push(c);
    }
    (kept, dropped)
}

#[test]
fn verify_compares_every_draw_of_the_game_frame_without_its_constants() {
    verify_without_constants(Some(DRAWS));
}

/// The whole frame (slow in a debug build: `cargo test -p rsxtrace --test
/// game_without_constants -- --ignored`).
#[test]
#[ignore = "the whole game frame takes minutes in a debug build"]
fn verify_compares_every_draw_of_the_whole_game_frame_without_its_constants() {
    verify_without_constants(None);
}

/// The fragment stage's outcome of `draw` of the unmodified capture at `sample`.
fn fragment_outcome(sample: &std::path::Path, draw: u64) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let report_path = dir.path().join("original.json");
    let out = Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args([
            "verify",
            "--quiet",
            sample.to_str().unwrap(),
            "--stage",
            "fragment",
            "--draws",
            &format!("{draw}..{}", draw + 1),
            "--json",
            report_path.to_str().unwrap(),
        ])
        .output()
        .expect("run rsxtrace");
    let report: Value = serde_json::from_slice(&std::fs::read(&report_path).unwrap())
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    report["draws"][0]["stages"][0]["outcome"].clone()
}

/// Rewrite the game sample without its constants and verify `draws` (all when `None`).
fn verify_without_constants(draws: Option<std::ops::Range<usize>>) {
    let sample: PathBuf = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let original: Capture = rrc::read_file(&sample).expect("read the game sample");
    let mut capture = original.clone();
    let (commands, dropped) = without_constants(&original.commands);
    assert!(dropped > 0, "the game frame uploads constants");
    capture.commands = commands;
    capture.reg_state.transform_constants = None;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game_without_constants.rrc");
    std::fs::write(&path, rrc::write_v6_uncompressed(&capture)).unwrap();
    let path = path.to_str().unwrap();

    // The rewritten frame has the same draws and no known constant.
    let listed = Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(["draws", path, "--json"])
        .output()
        .expect("run rsxtrace");
    assert!(listed.status.success());
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let listed = listed.as_array().unwrap();
    let frame_draws = listed.len();
    assert!(listed.iter().all(|d| d["mvp"].is_null()));

    let report_path = dir.path().join("report.json");
    let mut args = vec![
        "verify".to_string(),
        "--quiet".to_string(),
        path.to_string(),
        "--json".to_string(),
        report_path.to_str().unwrap().to_string(),
    ];
    if let Some(r) = &draws {
        args.push("--draws".to_string());
        args.push(format!("{}..{}", r.start, r.end));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(&args)
        .output()
        .expect("run rsxtrace");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if rsxtrace_testkit::device::cli_adapter_missing(
        "verify_without_constants",
        out.status.code(),
        &stderr,
    ) {
        return;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_slice(&std::fs::read(&report_path).unwrap())
        .unwrap_or_else(|e| panic!("{e}\n{stdout}\n{stderr}"));
    let expected = draws.map_or(frame_draws, |r| r.len());
    let draws = report["draws"].as_array().unwrap();
    assert_eq!(draws.len(), expected);
    let mut random_runs = 0;
    let mut without_fragment: Vec<u64> = Vec::new();
    for d in draws {
        let stages = d["stages"].as_array().unwrap();
        for s in stages {
            let outcome = &s["outcome"];
            let reason = outcome["reason"].as_str().unwrap_or("");
            assert!(
                !reason.contains("constant"),
                "draw {} skipped for constants: {s}",
                d["draw"]
            );
            assert_ne!(outcome["kind"], "failed", "draw {}: {s}", d["draw"]);
        }
        // Every draw's vertex stage is compared, once per constant fill.
        let vertex: Vec<&Value> = stages.iter().filter(|s| s["stage"] == "vertex").collect();
        assert!(!vertex.is_empty());
        for s in &vertex {
            assert!(
                s["outcome"]["kind"] == "clean" || s["outcome"]["kind"] == "diverged",
                "draw {}: {s}",
                d["draw"]
            );
            assert!(s["elements"].as_u64().unwrap() > 0);
        }
        let fills: Vec<&str> = vertex
            .iter()
            .filter_map(|s| s["substituted"]["constants"].as_str())
            .collect();
        if !fills.is_empty() {
            assert_eq!(fills, ["zeros", "random"], "draw {}", d["draw"]);
            random_runs += 1;
        }
        // Some run of the fragment stage covers pixels and is compared, or every run is
        // skipped only as covering no pixel.
        if !stages.iter().any(|s| {
            s["stage"] == "fragment"
                && (s["outcome"]["kind"] == "clean" || s["outcome"]["kind"] == "diverged")
        }) {
            for s in stages.iter().filter(|s| s["stage"] == "fragment") {
                assert_eq!(
                    s["outcome"]["reason"], "the draw covers no pixel",
                    "draw {}",
                    d["draw"]
                );
            }
            without_fragment.push(d["draw"].as_u64().unwrap());
        }
    }
    // A draw whose fragment stage no fill brought onto a pixel must be one that covers no
    // pixel with the captured constants either: the substitution loses no comparison.
    for &draw in &without_fragment {
        let original = fragment_outcome(&sample, draw);
        assert_eq!(
            original["reason"], "the draw covers no pixel",
            "draw {draw}: compared with the captured constants, not without them"
        );
    }
    eprintln!(
        "{} of {} draws have a fragment run compared; the others cover no pixel with the captured constants either: {without_fragment:?}",
        draws.len() - without_fragment.len(),
        draws.len()
    );
    if draws.len() <= DRAWS.len() {
        assert!(without_fragment.is_empty(), "{without_fragment:?}");
    }
    assert!(
        random_runs == draws.len(),
        "every draw of the game frame reads constants: {random_runs} of {}",
        draws.len()
    );
    // Skips left are fragment runs that cover no pixel (a zero-filled transform collapses a
    // draw), never a whole draw.
    eprintln!("totals: {}", report["totals"]);
    // Diverged stages are findings to look at, listed with their fill and worst register.
    for d in draws {
        for s in d["stages"].as_array().unwrap() {
            if s["outcome"]["kind"] == "diverged" {
                let worst = s["registers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|r| r["diverged"].as_u64().unwrap_or(0) > 0)
                    .map(|r| format!("{} {}", r["register"], r["worst"]))
                    .collect::<Vec<_>>();
                eprintln!(
                    "diverged: draw {} {} fill {}: {worst:?}",
                    d["draw"], s["stage"], s["substituted"]["constants"]
                );
            }
        }
    }
}
