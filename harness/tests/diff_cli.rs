//! `rsxtrace diff` end to end: the game sample against itself and its trace (identical, exit
//! 0), against a trimmed copy (its draws 100..120 aligned with the copy's, exit 1, the two
//! frames' statistics side by side), one draw's differences, and bad input (exit status 2).

use crate::cli_support;
use cli_support::*;

use serde_json::Value;

fn game() -> String {
    rsxtrace_testkit::workspace!()
        .sample("game.rrc.gz")
        .to_str()
        .unwrap()
        .to_string()
}

/// Runs `rsxtrace ARGS --json`, expects `code`, parses stdout.
fn json_with(code: i32, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = rsxtrace(&all);
    assert_eq!(
        out.status.code(),
        Some(code),
        "rsxtrace {all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

#[test]
fn a_capture_against_itself_and_its_trace_is_identical() {
    let game = game();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("game.rsxt");
    assert!(rsxtrace(&["convert", &game, s(&trace)]).status.success());
    for other in [game.as_str(), s(&trace)] {
        let r = json_with(0, &["diff", &game, other]);
        assert_eq!(r["identical"], true, "{other}");
        let d = &r["diff"];
        assert_eq!(d["matched"], 2400);
        assert_eq!(d["identical"], 2400);
        assert_eq!(
            d["aligned"],
            serde_json::json!([{"a": 0, "b": 0, "len": 2400}])
        );
    }
    let text = rsxtrace(&["diff", &game, &game]);
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("aligned 2400 draws in 1 run: 2400 identical, 0 differ"),
        "{text}"
    );
    assert!(text.contains("statistics: the same"), "{text}");
}

#[test]
fn a_trimmed_copy_aligns_with_its_draws_and_one_draw_is_compared_in_full() {
    let game = game();
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.rrc.gz");
    let trimmed = rsxtrace(&["trim", &game, "--draws", "100..120", "--out", s(&small)]);
    assert!(trimmed.status.success());

    let r = json_with(1, &["diff", &game, s(&small)]);
    assert_eq!(r["identical"], false);
    let d = &r["diff"];
    assert_eq!(
        d["aligned"],
        serde_json::json!([{"a": 100, "b": 0, "len": 20}])
    );
    assert_eq!(d["only_a"].as_array().unwrap().len(), 2380);
    assert_eq!(d["only_b"], serde_json::json!([]));
    // Each side's statistics, as `stats --json` gives them.
    for (side, file) in [("a", game.as_str()), ("b", s(&small))] {
        let alone = json_ok(&["stats", file, "--json"]);
        let mut with_diff = r["statistics"][side].clone();
        with_diff["file"] = alone["file"].clone();
        assert_eq!(with_diff, alone, "{side}");
    }
    assert_eq!(r["statistics"]["b"]["draws"]["end"], 20);
    let text = String::from_utf8_lossy(&rsxtrace(&["diff", &game, s(&small)]).stdout).into_owned();
    assert!(
        text.contains("only in A: 2380 draws (0..100, 120..2400); only in B: none"),
        "{text}"
    );
    // The statistics that differ, side by side.
    let draws_row = text
        .lines()
        .find(|l| l.starts_with("draws "))
        .expect("a draws row");
    let cells: Vec<&str> = draws_row.split_whitespace().collect();
    assert_eq!(cells, ["draws", "2400", "20", "-2380"], "{text}");
    assert!(
        !text.contains("\nclears "),
        "equal rows are left out: {text}"
    );

    // One draw: the aligned partner by default, any draw of B with --with.
    let one = json_with(0, &["diff", &game, s(&small), "--draw", "118"]);
    assert_eq!(one["aligned"], true);
    assert_eq!(
        (one["draw"]["a"].clone(), one["draw"]["b"].clone()),
        (118.into(), 18.into())
    );
    let other = json_with(
        1,
        &["diff", &game, s(&small), "--draw", "118", "--with", "19"],
    );
    let fields = other["draw"]["fields"].as_array().unwrap();
    assert!(
        fields.iter().any(|f| f["field"] == "vertex_count"),
        "{other}"
    );
    let text = rsxtrace(&["diff", &game, s(&small), "--draw", "118", "--with", "19"]);
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("state field") && text.contains("vertex_count"),
        "{text}"
    );

    // Bad input.
    let e = failure(&["diff", &game, s(&small), "--draw", "5"]);
    assert!(e.contains("no aligned draw") && e.contains("--with"), "{e}");
    assert!(failure(&["diff", &game, s(&small), "--draw", "2400"]).contains("2400 draws"));
    assert!(
        failure(&["diff", &game, s(&small), "--draw", "1", "--with", "20"]).contains("20 draws")
    );
    let missing = dir.path().join("missing.rrc.gz");
    failure(&["diff", &game, s(&missing)]);
}

/// A capture of one textured draw whose 2x2 texels are `texels`.
fn textured(dir: &std::path::Path, name: &str, texels: &[u8; 16]) -> std::path::PathBuf {
    use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
    use rsxtrace_capture::builder::{CaptureBuilder, TextureDesc};
    use rsxtrace_capture::rrc::Location;
    let mut b = CaptureBuilder::new(name);
    b.put_memory(Location::Main, 0x1000, &[0u8; 36]).unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
        .unwrap();
    b.set_vertex_attrib_input_mask(1);
    b.set_fragment_program(Location::Local, 0x100, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b.put_memory(Location::Local, 0x8000, texels).unwrap();
    let texture = TextureDesc {
        offset: 0x8000,
        width: 2,
        height: 2,
        pitch: 8,
        byte_size: 16,
        ..TextureDesc::default()
    };
    b.set_texture(0, &texture).unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    let path = dir.join(name);
    b.write_rrc(&path).unwrap();
    path
}

#[test]
fn texels_read_through_the_texture_model_are_compared() {
    let dir = tempfile::tempdir().unwrap();
    let a = textured(dir.path(), "a.rrc.gz", &[1; 16]);
    let b = textured(dir.path(), "b.rrc.gz", &[2; 16]);
    let r = json_with(1, &["diff", s(&a), s(&b)]);
    let differing = r["diff"]["differing"].as_array().unwrap();
    assert_eq!(differing.len(), 1, "{r}");
    let data = differing[0]["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "{r}");
    assert_eq!(data[0]["what"], "texture fragment 0");
    assert!(differing[0]["fields"].as_array().unwrap().is_empty(), "{r}");
    let text = rsxtrace(&["diff", s(&a), s(&b), "--draw", "0"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("bytes read") && text.contains("texture fragment 0"),
        "{text}"
    );
    json_with(0, &["diff", s(&a), s(&a)]);
}
