//! `rsxtrace verify` end to end on the bundled sample: exit status, the printed summary, the
//! JSON and HTML reports, draw and stage selection, the negative control, and bad options
//! (exit status 2 with a message naming the problem).

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn rsxtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace")
}

fn sample() -> String {
    let p: PathBuf = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    p.to_str().unwrap().to_string()
}

/// `rsxtrace verify ARGS`, or `None` after a loud "GPU SKIPPED" when no device opens (a
/// failure with `CI=true`).
fn verify(args: &[&str]) -> Option<Output> {
    let mut all = vec!["verify", "--quiet"];
    all.extend_from_slice(args);
    let out = rsxtrace(&all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if rsxtrace_testkit::device::cli_adapter_missing("verify", out.status.code(), &stderr) {
        return None;
    }
    Some(out)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_sample_verifies_clean_with_reports() {
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("v.json");
    let html_path = dir.path().join("v.html");
    let Some(out) = verify(&[
        &sample(),
        "--json",
        json_path.to_str().unwrap(),
        "--html",
        html_path.to_str().unwrap(),
    ]) else {
        return;
    };
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).contains("3 draws: 6 stages clean, 0 diverged, 0 skipped, 0 failed"),
        "{}",
        stdout(&out)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["totals"]["clean"], 6);
    assert_eq!(v["first_divergence"], Value::Null);
    assert_eq!(v["draws"].as_array().unwrap().len(), 3);
    let hpos = &v["draws"][0]["stages"][0]["registers"][0];
    assert_eq!(hpos["register"], "HPOS");
    assert_eq!(hpos["compared"], 12);
    assert_eq!(hpos["diverged"], 0);
    // Draw 2 samples its texture: the fragment stage ran with it on both sides.
    assert_eq!(v["draws"][2]["stages"][1]["outcome"]["kind"], "clean");
    assert!(v["timings"]["wall_ms"].as_f64().unwrap() > 0.0);
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Three compared fragment stages, three images each.
    assert_eq!(html.matches("data:image/png;base64,").count(), 9);
}

#[test]
fn draws_and_stage_select_what_is_verified() {
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("v.json");
    let Some(out) = verify(&[
        &sample(),
        "--draws",
        "1..2",
        "--stage",
        "vertex",
        "--json",
        json_path.to_str().unwrap(),
    ]) else {
        return;
    };
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    let draws = v["draws"].as_array().unwrap();
    assert_eq!(draws.len(), 1);
    assert_eq!(draws[0]["draw"], 1);
    let stages = draws[0]["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 1);
    assert_eq!(stages[0]["stage"], "vertex");
    assert_eq!(stages[0]["elements"], 4);
}

#[test]
fn the_negative_control_reports_its_tally() {
    let Some(out) = verify(&[&sample(), "--mutate", "10", "--seed", "3"]) else {
        return;
    };
    assert_eq!(
        out.status.code(),
        Some(0),
        "the control never changes the status"
    );
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("negative control (seed 3): "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("mutations applied"), "{line}");
}

#[test]
fn bad_options_exit_2_naming_the_problem() {
    for (args, needle) in [
        (vec!["--tolerance", "fp64=1ulp"], "fp64=1ulp"),
        (vec!["--draws", "2..9"], "the capture has 3 draws"),
        (vec!["--max-pixels", "0"], "--max-pixels"),
    ] {
        let mut all = vec!["verify".to_string(), sample()];
        all.extend(args.iter().map(|s| s.to_string()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let out = rsxtrace(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let out = rsxtrace(&["verify", "--draws", "3..1", &sample()]);
    assert_eq!(out.status.code(), Some(2));
}

/// The draws of a JSON report, each as its whole object with the timings removed.
fn draw_objects(report: &Value) -> Vec<Value> {
    let mut draws = report["draws"].as_array().unwrap().clone();
    for d in &mut draws {
        strip_timings(d);
    }
    draws
}

fn strip_timings(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|k, _| !k.ends_with("_ms") && k != "timings");
            map.values_mut().for_each(strip_timings);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_timings),
        _ => {}
    }
}

#[test]
fn shards_partition_the_draws_and_report_as_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let report = |extra: &[&str], name: &str| -> Option<Value> {
        let path = dir.path().join(name);
        let mut args = vec![sample(), "--json".into(), path.to_str().unwrap().into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = verify(&refs)?;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap())
    };
    let Some(whole) = report(&[], "whole.json") else {
        return;
    };
    let first = report(&["--shard", "1/2"], "1.json").unwrap();
    let second = report(&["--shard", "2/2"], "2.json").unwrap();
    assert_eq!(whole["shard"], Value::Null);
    assert_eq!(first["shard"], "1/2");
    let numbers = |r: &Value| -> Vec<u64> {
        r["draws"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["draw"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(numbers(&whole), vec![0, 1, 2]);
    assert_eq!(numbers(&first), vec![0, 2]);
    assert_eq!(numbers(&second), vec![1]);
    // Each draw is verified exactly as in the whole run.
    let all = draw_objects(&whole);
    assert_eq!(draw_objects(&first), vec![all[0].clone(), all[2].clone()]);
    assert_eq!(draw_objects(&second), vec![all[1].clone()]);
    // Within a draw range, positions count from the range's start.
    let ranged = report(&["--draws", "1..3", "--shard", "2/2"], "r.json").unwrap();
    assert_eq!(numbers(&ranged), vec![2]);
    for bad in ["0/2", "3/2", "1/0", "x"] {
        let out = rsxtrace(&["verify", &sample(), "--shard", bad]);
        assert_eq!(out.status.code(), Some(2), "--shard {bad}");
    }
}
