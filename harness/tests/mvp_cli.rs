//! `rsxtrace mvp` on the synthetic level in `traces/level/`: the placements, meshes,
//! view-projection and verdicts of its ground truth are recovered from the capture, and the
//! wrong hypotheses (a placement moved by 1 cm, the constants read in the other convention,
//! no mesh identity) give the answers they should.

use rsxtrace_capture::frame::Frame;
use rsxtrace_program::container::{get_uniform, Container};
use rsxtrace_scenes::level::{self, FogSpace, LevelOptions};
use rsxtrace_verify::probe::matrix::{self, Mat4};
use rsxtrace_verify::probe::mvp::{
    draw_matrices, estimate_view_projection, Convention, DrawMatrix, DEFAULT_TOLERANCE,
};
use rsxtrace_verify::probe::placement::{parse_placements, parse_view_projection};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn level_dir() -> PathBuf {
    rsxtrace_testkit::workspace!().level_dir()
}

fn file(name: &str) -> String {
    level_dir().join(name).display().to_string()
}

fn ground_truth() -> Value {
    let text = std::fs::read_to_string(level_dir().join(level::GROUND_TRUTH_FILE)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn matrix_of(v: &Value) -> Mat4 {
    let rows = v.as_array().expect("four rows");
    std::array::from_fn(|i| std::array::from_fn(|j| rows[i][j].as_f64().expect("number")))
}

/// Run `rsxtrace mvp` and return (exit code, stdout, stderr).
fn mvp(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .arg("mvp")
        .args(args)
        .output()
        .expect("run rsxtrace");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn mvp_json(dir: &Path, extra: &[&str]) -> Value {
    let capture = dir.join(level::CAPTURE_FILE).display().to_string();
    let placements = dir.join(level::PLACEMENTS_FILE).display().to_string();
    let mut args = vec![
        capture.as_str(),
        "--placements",
        placements.as_str(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = mvp(&args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).expect("JSON")
}

fn entry(report: &Value, draw: u64) -> &Value {
    report["draws"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["draw"] == draw)
        .unwrap_or_else(|| panic!("draw {draw} not in the report"))
}

/// Every draw of the ground truth that has c32..c35 agrees with the report.
fn assert_recovers_ground_truth(report: &Value, truth: &Value) {
    let mut checked = 0;
    for t in truth["draws"].as_array().unwrap() {
        let draw = t["draw"].as_u64().unwrap();
        if t["kind"] == "no_constants" {
            assert!(
                report["draws"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|d| d["draw"] != draw),
                "draw {draw} has no c32..c35 and must not be listed"
            );
            continue;
        }
        let e = entry(report, draw);
        assert_eq!(e["placement"], t["placement"], "draw {draw}: {e}");
        assert_eq!(e["mesh"], t["mesh"], "draw {draw}: {e}");
        if !t["verdict"].is_null() {
            assert_eq!(e["verdict"], t["verdict"], "draw {draw}: {e}");
        }
        if t["kind"] == "placed" {
            let r = e["residual"].as_f64().unwrap();
            assert!(r < 1e-6, "draw {draw}: residual {r}");
        }
        checked += 1;
    }
    assert_eq!(checked, 39);
    let s = &report["summary"];
    assert_eq!(
        (
            &s["matched"],
            &s["unmatched"],
            &s["without_constants"],
            &s["draws"]
        ),
        (
            &Value::from(33),
            &Value::from(6),
            &Value::from(1),
            &Value::from(40)
        )
    );
}

#[test]
fn given_view_projection_and_meshes_recover_the_ground_truth() {
    let meshes = file(level::MESHES_DIR);
    let vp = file(level::VIEW_PROJECTION_FILE);
    let report = mvp_json(&level_dir(), &["--meshes", &meshes, "--view-proj", &vp]);
    assert_eq!(report["view_projection_source"], "given");
    assert_eq!(report["convention"], "transposed");
    assert_eq!(report["convention_support"], 33);
    assert_recovers_ground_truth(&report, &ground_truth());
}

/// `--registers auto` finds each draw's model-view-projection where its program reads it for
/// o[HPOS]: c[32..35] for every draw of the level but its HUD quad (draw 0), whose program
/// transforms by c[0..3] (the identity), which the default c[32..35] misses as not yet set.
/// A register that is not the matrix matches less; a bad value is refused.
#[test]
fn registers_found_per_program_are_the_default_and_the_hud_quads() {
    let meshes = file(level::MESHES_DIR);
    let vp = file(level::VIEW_PROJECTION_FILE);
    let with = |extra: &[&str]| {
        let base: [&str; 4] = ["--meshes", &meshes, "--view-proj", &vp];
        mvp_json(&level_dir(), &[&base[..], extra].concat())
    };
    let default = with(&[]);
    let auto = with(&["--registers", "auto"]);
    let (d, a) = (
        default["draws"].as_array().unwrap(),
        auto["draws"].as_array().unwrap(),
    );
    assert_eq!(a[0]["draw"], 0);
    assert!(d.iter().all(|e| e["draw"] != 0));
    assert_eq!(&a[1..], &d[..]);
    assert_eq!(auto["summary"]["without_constants"], 0);
    assert_eq!(default["summary"]["without_constants"], 1);
    assert_eq!(auto["summary"]["matched"], default["summary"]["matched"]);
    let moved = with(&["--registers", "c28"]);
    assert_ne!(moved["summary"], default["summary"]);
    let capture = level_dir().join(level::CAPTURE_FILE).display().to_string();
    let placements = file(level::PLACEMENTS_FILE);
    let (code, _, stderr) = mvp(&[&capture, "--placements", &placements, "--registers", "466"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn estimated_view_projection_matches_the_camera() {
    let meshes = file(level::MESHES_DIR);
    let report = mvp_json(&level_dir(), &["--meshes", &meshes]);
    assert_eq!(report["view_projection_source"], "estimated");
    let truth = ground_truth();
    let want = matrix_of(&truth["view_projection"]);
    let got = matrix_of(&report["view_projection"]);
    let residual = matrix::relative_residual(&got, &want);
    eprintln!("estimated view-projection: relative residual {residual:.3e} against the camera");
    assert!(residual < 1e-6, "{residual}");
    assert_recovers_ground_truth(&report, &truth);
    // The view-projection file holds the same camera.
    let text = std::fs::read_to_string(level_dir().join(level::VIEW_PROJECTION_FILE)).unwrap();
    assert_eq!(parse_view_projection(&text).unwrap(), want);
}

#[test]
fn meshes_whole_and_as_a_sub_range() {
    let meshes = file(level::MESHES_DIR);
    let report = mvp_json(&level_dir(), &["--meshes", &meshes]);
    let truth = ground_truth();
    let by_placement = |id: &str| {
        let draw = truth["draws"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["placement"] == id)
            .unwrap()["draw"]
            .as_u64()
            .unwrap();
        entry(&report, draw)["mesh_match"].clone()
    };
    // crate_03 draws faces 1 and 2: vertices 4..=11 of 24-byte vertices.
    let m = by_placement("crate_03");
    assert_eq!(
        (&m["name"], &m["whole"], &m["offset"], &m["len"]),
        (
            &Value::from("crate"),
            &Value::from(false),
            &Value::from(96),
            &Value::from(192)
        )
    );
    // pillar_02 draws its first 12 triangles: vertices 0..=13.
    let m = by_placement("pillar_02");
    assert_eq!(
        (&m["whole"], &m["offset"], &m["len"]),
        (&Value::from(false), &Value::from(0), &Value::from(336))
    );
    let m = by_placement("wedge_04");
    assert_eq!(
        (&m["name"], &m["whole"]),
        (&Value::from("wedge"), &Value::from(true))
    );
    // Without --meshes no draw names a mesh, and the twin (pillar_06 shares wedge_05's world)
    // goes to the first placement that fits; mesh identity separates them.
    let plain = mvp_json(&level_dir(), &[]);
    let twin = truth["draws"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["placement"] == "pillar_06")
        .unwrap()["draw"]
        .as_u64()
        .unwrap();
    assert_eq!(entry(&plain, twin)["placement"], "wedge_05");
    assert!(entry(&plain, twin)["mesh"].is_null());
    assert_eq!(entry(&report, twin)["placement"], "pillar_06");
}

#[test]
fn a_placement_moved_by_one_centimetre_stops_matching() {
    let moved = level::build(&LevelOptions {
        moved_placement: Some((9, [0.01, 0.0, 0.0])),
        ..LevelOptions::default()
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    level::write(&moved, dir.path()).unwrap();
    let id = parse_placements(&moved.placements_json).unwrap()[9]
        .id
        .clone();
    assert_eq!(id, "crate_03");
    let vp = dir
        .path()
        .join(level::VIEW_PROJECTION_FILE)
        .display()
        .to_string();
    let meshes = dir.path().join(level::MESHES_DIR).display().to_string();
    let report = mvp_json(dir.path(), &["--view-proj", &vp, "--meshes", &meshes]);
    let truth = ground_truth();
    let draw = truth["draws"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["placement"] == id.as_str())
        .unwrap()["draw"]
        .as_u64()
        .unwrap();
    let e = entry(&report, draw);
    assert!(e["placement"].is_null(), "{e}");
    assert_eq!(e["nearest"], id.as_str());
    let r = e["residual"].as_f64().unwrap();
    eprintln!("1 cm move: residual {r:.3e} against the tolerance {DEFAULT_TOLERANCE:e}");
    assert!(r > 3.0 * DEFAULT_TOLERANCE, "{r}");
    // The same placement at a close look: every part within the part tolerance.
    assert_eq!(e["verdict"]["kind"], "near");
    assert_eq!(e["verdict"]["placement"], id.as_str());
    assert_eq!(report["summary"]["matched"], 32);
}

#[test]
fn constants_in_the_other_convention_are_detected() {
    let capture = rsxtrace_capture::rrc::read_file(&level_dir().join(level::CAPTURE_FILE)).unwrap();
    let frame = Frame::from_capture(&capture).unwrap();
    let text = std::fs::read_to_string(level_dir().join(level::PLACEMENTS_FILE)).unwrap();
    let placements = parse_placements(&text).unwrap();
    let draws = draw_matrices(&frame);
    assert_eq!(draws.len(), 39);
    let transposed: Vec<DrawMatrix> = draws
        .iter()
        .map(|d| DrawMatrix {
            draw: d.draw,
            c: matrix::transpose(&d.c),
        })
        .collect();
    let want = matrix_of(&ground_truth()["view_projection"]);
    let as_captured = estimate_view_projection(&draws, &placements).unwrap();
    assert_eq!(as_captured.convention, Convention::Transposed);
    let flipped = estimate_view_projection(&transposed, &placements).unwrap();
    assert_eq!(flipped.convention, Convention::Direct);
    // The twins share one matrix, so 33 draws fit under both readings of the same data.
    assert_eq!((as_captured.support, flipped.support), (33, 33));
    assert!(matrix::relative_residual(&flipped.view_projection, &want) < 1e-6);
}

#[test]
fn text_report_and_errors() {
    let capture = file(level::CAPTURE_FILE);
    let placements = file(level::PLACEMENTS_FILE);
    let meshes = file(level::MESHES_DIR);
    let (code, stdout, stderr) = mvp(&[&capture, "--placements", &placements, "--meshes", &meshes]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("estimated by consensus: 33 draws fit it"),
        "{stdout}"
    );
    assert!(
        stdout.contains("crate_02 except its translation"),
        "{stdout}"
    );
    assert!(
        stdout.contains("summary: 33 matched, 6 unmatched, 1 without c32..c35 (40 draws)"),
        "{stdout}"
    );

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"[{"id": "a", "world": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}, {"id": "b", "world": [1, 2]}]"#,
    )
    .unwrap();
    let bad = bad.display().to_string();
    let (code, _, stderr) = mvp(&[&capture, "--placements", &bad]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("placement 1 (id \"b\"): field `world`: 2 items"),
        "{stderr}"
    );
    let (code, _, stderr) = mvp(&[&capture, "--placements", &placements, "--tolerance=-1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("tolerances must be positive"), "{stderr}");
}

#[test]
fn fog_container_names_main_inv_in_either_space() {
    let truth = ground_truth();
    assert_eq!(truth["fog"]["uniform"], "MainInv");
    assert_eq!(truth["fog"]["space"], "world");
    for space in [FogSpace::World, FogSpace::View] {
        let built = level::build(&LevelOptions {
            fog_space: space,
            ..LevelOptions::default()
        })
        .unwrap();
        let want = match space {
            FogSpace::World => matrix::inverse(&matrix_of(&truth["view_projection"])),
            FogSpace::View => matrix::inverse(&matrix_of(&truth["projection"])),
        }
        .unwrap();
        let c = Container::parse(&built.fog_container).unwrap();
        for (k, row) in want.iter().enumerate() {
            let slots = c.embedded_constants(&format!("MainInv[{k}]")).unwrap();
            let got = get_uniform(c.ucode(), slots[0]).unwrap();
            for (g, w) in got.iter().zip(row) {
                assert!(
                    (f64::from(*g) - w).abs() <= 1e-6 * w.abs().max(1.0),
                    "{space:?} row {k}"
                );
            }
        }
        assert_eq!(built.ground_truth["fog"]["space"], space.name());
    }
    // The checked-in container is the world variant.
    let stored = std::fs::read(level_dir().join(level::FOG_FILE)).unwrap();
    let built = level::build(&LevelOptions::default()).unwrap();
    assert_eq!(stored, built.fog_container);
}
