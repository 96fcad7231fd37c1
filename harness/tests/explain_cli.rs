//! `rsxtrace verify --explain` and `--explain-all` end to end on the game sample: with every
//! tolerance at zero, lavapipe's EX2 parts from the interpreter's by an ULP, and the explanation
//! names that instruction (text and JSON, exit 1); a clean invocation explains to "every step
//! matches" (exit 0); bad requests exit 2 naming the problem.

use serde_json::Value;
use std::process::{Command, Output};

const EXACT: &str = "fp32=0ulp,abs=0,rel=0";

fn game() -> String {
    let p = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    p.to_str().unwrap().to_string()
}

/// `rsxtrace verify GAME ARGS`, or `None` after a loud skip when no device opens (a failure
/// with `CI=true`).
fn verify(args: &[&str]) -> Option<Output> {
    let game = game();
    let mut all = vec!["verify", game.as_str(), "--quiet"];
    all.extend_from_slice(args);
    let out = Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(&all)
        .output()
        .expect("run rsxtrace");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if rsxtrace_testkit::device::cli_adapter_missing("verify --explain", out.status.code(), &stderr)
    {
        return None;
    }
    Some(out)
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_first_divergent_instruction_is_named_with_its_wgsl() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("explain.json");
    let Some(o) = verify(&[
        "--explain",
        "18",
        "--tolerance",
        EXACT,
        "--json",
        json.to_str().unwrap(),
    ]) else {
        return;
    };
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("first divergent instruction"), "{out}");
    let e: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(e["draw"], 18);
    assert_eq!(e["stage"], "fragment");
    let d = &e["divergence"];
    assert_eq!(d["kind"], "value");
    let slot = d["slot"].as_u64().unwrap();
    // The disassembly and the WGSL block are the divergent slot's.
    assert!(
        d["disassembly"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{slot}:")),
        "{d}"
    );
    let first = d["wgsl"]["text"][0].as_str().unwrap();
    assert!(first.contains(&format!("{slot:>3}: ")), "{first}");
    assert!(out.contains(first), "the text shows the WGSL lines");
    // Every step before it matched.
    assert_eq!(e["steps_matched"], d["step"]);
}

#[test]
fn explain_all_attaches_an_explanation_to_every_diverged_stage() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let Some(o) = verify(&[
        "--draws",
        "18..22",
        "--tolerance",
        EXACT,
        "--explain-all",
        "--json",
        json.to_str().unwrap(),
    ]) else {
        return;
    };
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut explained = 0;
    for d in r["draws"].as_array().unwrap() {
        for s in d["stages"].as_array().unwrap() {
            let diverged = s["outcome"]["kind"] == "diverged";
            assert_eq!(s.get("explanation").is_some(), diverged, "{s}");
            if diverged {
                let e = &s["explanation"];
                assert!(e["divergence"].is_object() || e["error"].is_string(), "{e}");
                explained += 1;
            }
        }
    }
    assert!(explained > 0);
    assert!(text(&o).contains("first divergent instruction"));
}

#[test]
fn a_clean_invocation_and_bad_requests() {
    let Some(o) = verify(&["--explain", "1", "--vertex", "0"]) else {
        return;
    };
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("every step matches"), "{}", text(&o));
    for (args, needle) in [
        (vec!["--explain", "100000"], "the frame has"),
        (
            vec!["--explain", "1", "--vertex", "100000000"],
            "vertex 100000000",
        ),
        (
            vec!["--explain", "1", "--pixel", "0,0"],
            "does not cover pixel 0,0",
        ),
        (vec!["--pixel", "1,1"], "--explain"),
    ] {
        let o = verify(&args).unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(needle), "{args:?}: {}", text(&o));
    }
}
