//! `rsxtrace stats` end to end on the game sample: its counts against what `draws` and `info`
//! say of the same file (draws by primitive and source, vertices, method calls), a draw range,
//! the text tables, and a range past the frame (exit 2); occlusion queries and conditional
//! draws on the occlusion scene.

use crate::cli_support;
use cli_support::*;
use serde_json::Value;
use std::collections::HashMap;

fn game() -> String {
    let p = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    p.to_str().unwrap().to_string()
}

#[test]
fn stats_agree_with_draws_and_info() {
    let game = game();
    let stats = json_ok(&["stats", &game, "--json"]);
    let draws = json_ok(&["draws", &game, "--json"]);
    let info = json_ok(&["info", &game, "--json"]);
    let draws = draws.as_array().unwrap();
    assert_eq!(stats["draws"]["end"].as_u64(), Some(draws.len() as u64));

    let mut by_primitive: HashMap<String, u64> = HashMap::new();
    for d in draws {
        *by_primitive
            .entry(d["primitive"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let counted: HashMap<String, u64> = stats["by_primitive"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    assert_eq!(counted, by_primitive);
    let indexed = draws.iter().filter(|d| d["indexed"] == true).count() as u64;
    assert_eq!(stats["by_source"]["indexed"].as_u64(), Some(indexed));

    // Submitted vertices: `draws` counts restart indices too, so the sum is an upper bound
    // reached exactly by the draws that are not indexed.
    let submitted: u64 = draws
        .iter()
        .map(|d| d["vertex_count"].as_u64().unwrap())
        .sum();
    let total = stats["vertices"]["total"].as_u64().unwrap();
    assert!(
        total <= submitted && total > submitted * 9 / 10,
        "{total} of {submitted}"
    );
    let shaded = stats["vertices"]["shaded"].as_u64().unwrap();
    assert!(
        shaded > 0 && shaded < total,
        "indexed meshes reuse vertices: {shaded} of {total}"
    );
    let histogram: u64 = stats["vertices"]["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["draws"].as_u64().unwrap())
        .sum();
    assert_eq!(histogram, draws.len() as u64);
    assert!(stats["assembled"]["triangles"].as_u64().unwrap() > 0);
    assert_eq!(stats["assembled"]["unknown"], Value::Array(vec![]));

    assert_eq!(stats["method_calls"], info["stats"]["method_calls"]);
    let methods = stats["methods"].as_array().unwrap();
    let listed: u64 = methods.iter().map(|m| m["calls"].as_u64().unwrap()).sum();
    assert_eq!(Some(listed), stats["method_calls"].as_u64());
    assert_eq!(
        stats["programs"]["vertex"],
        info["stats"]["distinct_vertex_programs"]
    );
    assert_eq!(
        stats["programs"]["fragment"],
        info["stats"]["distinct_fragment_programs"]
    );
    let changes = stats["changes"].as_object().unwrap();
    assert_eq!(changes.len(), 16);
    assert!(changes
        .values()
        .all(|n| n.as_u64().unwrap() < draws.len() as u64));

    // The passes cover the draws in order, their primitives are the total's.
    let passes = stats["passes"].as_array().unwrap();
    let mut next = 0;
    for p in passes {
        assert_eq!(p["draws"]["start"].as_u64(), Some(next));
        next = p["draws"]["end"].as_u64().unwrap();
        assert!(!p["targets"].as_array().unwrap().is_empty());
    }
    assert_eq!(next, draws.len() as u64);
    let in_passes: u64 = passes
        .iter()
        .map(|p| p["primitives"].as_u64().unwrap())
        .sum();
    let assembled: u64 = ["points", "lines", "triangles"]
        .iter()
        .map(|k| stats["assembled"][k].as_u64().unwrap())
        .sum();
    assert_eq!(in_passes, assembled);

    // A range: its draws alone.
    let ten = json_ok(&["stats", &game, "--draws", "100..110", "--json"]);
    let in_range: u64 = ten["by_primitive"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(in_range, 10);
    assert!(ten["method_calls"].as_u64() < stats["method_calls"].as_u64());

    let text = String::from_utf8(rsxtrace(&["stats", &game]).stdout).unwrap();
    for needle in [
        "by primitive",
        "vertices per draw",
        "state part",
        "NV4097_SET_BEGIN_END",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    let message = failure(&["stats", &game, "--draws", "2400..2401"]);
    assert!(message.contains("2400"), "{message}");
}

/// The occlusion scene's queries: two results written, the two query draws counted, the
/// three flares conditional; from draw 3 on, the second query's result (written after draw
/// 2's END) and the flares; with Z-cull off, the counted draws RPCS3 would not count.
#[test]
fn stats_count_occlusion_queries_and_conditional_draws() {
    let dir = tempfile::tempdir().unwrap();
    let capture = scene_file(
        dir.path(),
        "occlusion.rrc",
        &rsxtrace_scenes::occlusion::occlusion_capture(),
    );
    let whole = json_ok(&["stats", s(&capture), "--json"]);
    assert_eq!(
        whole["occlusion"],
        serde_json::json!({"reports": 2, "counted_draws": 2, "counted_without_zcull": 0, "conditional_draws": 3})
    );
    let part = json_ok(&["stats", s(&capture), "--draws", "3..6", "--json"]);
    assert_eq!(
        part["occlusion"],
        serde_json::json!({"reports": 1, "counted_draws": 0, "counted_without_zcull": 0, "conditional_draws": 3})
    );
    let text = String::from_utf8(rsxtrace(&["stats", s(&capture)]).stdout).unwrap();
    assert!(
        text.contains("2 query results written, 2 draws counted, 3 conditional draws"),
        "{text}"
    );
    // The scene with Z-cull off: both counted draws are ones RPCS3 does not count.
    let off = scene_file(
        dir.path(),
        "occlusion-zcull-off.rrc",
        &rsxtrace_scenes::occlusion::occlusion_capture_with(false),
    );
    let whole = json_ok(&["stats", s(&off), "--json"]);
    assert_eq!(whole["occlusion"]["counted_without_zcull"], 2);
    let text = String::from_utf8(rsxtrace(&["stats", s(&off)]).stdout).unwrap();
    assert!(
        text.contains("2 draws counted (2 with Z-cull off, which RPCS3 does not count)"),
        "{text}"
    );
}
