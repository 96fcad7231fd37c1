//! `rsxtrace debug PROGRAM --pixel X,Y --trace`: the text trace, one JSON object per step with
//! `--json`, and bad arguments (exit 2 naming the problem).

use serde_json::Value;
use std::process::{Command, Output};

fn rsxtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace")
}

fn fog() -> String {
    let p = rsxtrace_testkit::workspace!()
        .root()
        .join("traces/level/fog.fpo");
    p.to_str().unwrap().to_string()
}

/// `rsxtrace debug fog.fpo --pixel 3,5 --size 16x16 --trace EXTRA...`, which must succeed;
/// its standard output.
fn fog_trace(extra: &[&str]) -> String {
    let fog = fog();
    let mut args = vec![
        "debug", &fog, "--pixel", "3,5", "--size", "16x16", "--trace",
    ];
    args.extend_from_slice(extra);
    let o = rsxtrace(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_trace_prints_every_step_and_the_result() {
    let text = fog_trace(&[]);
    assert!(text.starts_with("#0 "), "{text}");
    assert!(text.contains("-> R"), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("pixel 3,5 (lane 3): "), "{last}");
    assert!(last.contains("instructions executed; COL0 = ("), "{last}");
}

#[test]
fn json_has_one_object_per_step() {
    let steps: Vec<Value> = fog_trace(&["--json"])
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert!(steps.len() > 2);
    for (k, s) in steps.iter().enumerate() {
        assert_eq!(
            s["step"], k as u64,
            "no flow in the fog program: one record per step"
        );
        assert_eq!(s["lane"], 3);
        assert!(s["instruction"]
            .as_str()
            .unwrap()
            .contains(&format!("{}:", s["slot"])));
        assert_eq!(
            s["sources"].as_array().unwrap().len(),
            s["source_components"].as_array().unwrap().len()
        );
    }
}

#[test]
fn bad_arguments_exit_2() {
    let o = rsxtrace(&[
        "debug",
        &fog(),
        "--pixel",
        "99,5",
        "--size",
        "16x16",
        "--trace",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("outside the 16x16 image"));
    let o = rsxtrace(&["debug", &fog(), "--pixel", "3", "--trace"]);
    assert_eq!(o.status.code(), Some(2));
    let o = rsxtrace(&["debug", "/no/such.fpo", "--pixel", "3,5", "--trace"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_documented_transcript_is_what_the_command_prints() {
    let doc = std::fs::read_to_string(rsxtrace_testkit::workspace!().root().join("docs/debug.md"))
        .expect("docs/debug.md");
    let start = doc
        .find("$ rsxtrace debug traces/level/fog.fpo --pixel 3,5 --size 16x16 --trace\n")
        .expect("the transcript's command line");
    let body = &doc[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let transcript = &body[..body.find("```").expect("end of the transcript")];
    assert_eq!(fog_trace(&[]), transcript);
}

/// The basic sample's draw 2 samples texture unit 0 (`traces/scenes/src/samples.rs`).
fn basic() -> String {
    let p = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    p.to_str().unwrap().to_string()
}

#[test]
fn a_draw_of_a_capture_is_traced_at_a_covered_pixel_with_its_textures() {
    let o = rsxtrace(&[
        "debug",
        &basic(),
        "--draw",
        "2",
        "--pixel",
        "189,76",
        "--trace",
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let steps: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(steps.len(), 1, "TEX R0, f[TEX0], TEX0; END");
    let s = &steps[0];
    assert!(s["instruction"].as_str().unwrap().contains("TEX"));
    // Lane 1: x odd, y even.
    assert_eq!(s["lane"], 1);
    // The texel is not the zero a missing texture would give.
    let r0 = &s["written"]["value"][1];
    assert!(
        r0.as_array()
            .unwrap()
            .iter()
            .any(|v| v.as_f64().unwrap() != 0.0),
        "{r0}"
    );
    // A pixel the draw does not cover is refused with the draw's extent.
    let o = rsxtrace(&[
        "debug",
        &basic(),
        "--draw",
        "2",
        "--pixel",
        "0,0",
        "--trace",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not cover pixel 0,0"));
}

#[test]
fn a_vertex_of_a_captured_draw_is_traced() {
    let o = rsxtrace(&[
        "debug",
        &basic(),
        "--draw",
        "0",
        "--vertex",
        "1",
        "--trace",
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let steps: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!steps.is_empty());
    assert!(steps.iter().all(|s| s["vertex"] == 1));
    assert!(steps
        .iter()
        .any(|s| s["changed"].to_string().contains("o[HPOS]")));
    assert_eq!(
        steps.last().unwrap()["next"],
        Value::Null,
        "the last step ends the vertex"
    );
    // A vertex out of range exits 2.
    let o = rsxtrace(&[
        "debug",
        &basic(),
        "--draw",
        "0",
        "--vertex",
        "99",
        "--trace",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("vertex 99 does not exist"));
    // --vertex needs --draw.
    let o = rsxtrace(&["debug", &basic(), "--vertex", "1", "--trace"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_standalone_vertex_program_is_traced_on_batch_inputs() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let vpo = corpus.path("ps3autotests/sce_cube_common.vpo");
    let vpo = vpo.to_str().unwrap();
    let o = rsxtrace(&["debug", vpo, "--vertex", "7", "--trace"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("DP4 o[HPOS].x, v[POS], c[256]; END"), "{out}");
    assert!(
        out.contains("vertex 7 of sce_cube_common.vpo: 6 instructions executed"),
        "{out}"
    );
    for (args, needle) in [
        (
            vec!["debug", vpo, "--vertex", "2048", "--trace"],
            "2048 input sets",
        ),
        (
            vec!["debug", &fog(), "--vertex", "0", "--trace"],
            "holds no vertex program",
        ),
    ] {
        let o = rsxtrace(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(needle),
            "{args:?}"
        );
    }
}
