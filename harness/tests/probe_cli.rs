//! `rsxtrace uniforms`, `rsxtrace probe maininv` and `rsxtrace textures` end to end: on small
//! captures built here with programs laid out by hand, on the synthetic level (both fog
//! spaces, so a MainInv set to the other inverse must flip the verdict) and on the game frame.

use crate::cli_support::scene_file;
use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::{CaptureBuilder, TextureDesc};
use rsxtrace_capture::rrc::{self, Location};
use rsxtrace_program::container::{
    encode_word, fragment_uniform, write_program, CgBase, CgFragmentInfo, CgProgram, CgStageInfo,
    CgType, FORMAT_REVISION, PROFILE_FRAGMENT,
};
use rsxtrace_scenes::level::{self, FogSpace, LevelOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A nouveau-order word as guest bytes: big-endian with its 16-bit halves exchanged
/// (rsx-microcode.md B.1).
fn word_to_guest(word: u32) -> [u8; 4] {
    word.rotate_left(16).to_be_bytes()
}

fn rsxtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace")
}

/// Run, check the exit status, parse stdout as JSON.
fn json_with_status(args: &[&str], status: i32) -> Value {
    let out = rsxtrace(args);
    assert_eq!(
        out.status.code(),
        Some(status),
        "rsxtrace {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `MUL R0, f[COL0], {tint}` with END, then the constant slot, as guest bytes.
///
/// Words in nouveau order (rsx-microcode.md B.1): w0 = MUL (2) << 24 | COL0 (1) << 13 | mask
/// xyzw 0xF << 9 | END = 0x02003E01; w1 = SRC0 input (type 1) with identity swizzle and the
/// TR condition = 0x1C9DC801; w2 = SRC1 constant (type 2) with identity swizzle = 0x0001C802;
/// w3 = 0. Each word is stored with its 16-bit halves exchanged.
fn tinted(tint: [f32; 4]) -> Vec<u8> {
    let mut out: Vec<u8> = [0x0200_3E01u32, 0x1C9D_C801, 0x0001_C802, 0]
        .iter()
        .flat_map(|&w| word_to_guest(w))
        .collect();
    for v in tint {
        out.extend_from_slice(&encode_word(v));
    }
    out
}

/// `TEX R0, f[TEX0], TEX<unit>` with END: 0x17009E01 | unit << 17 (the flow tests' TEX with
/// END set).
fn textured(unit: u8) -> Vec<u8> {
    [0x1700_9E01u32 | (u32::from(unit) << 17), 0x1C9D_C801, 0, 0]
        .iter()
        .flat_map(|&w| word_to_guest(w))
        .collect()
}

/// A CgBinaryProgram holding `tinted` with the uniform `Tint` at ucode offset 16.
pub(crate) fn tint_container() -> Vec<u8> {
    write_program(&CgProgram {
        profile: PROFILE_FRAGMENT,
        revision: FORMAT_REVISION,
        total_size: 0,
        parameters: vec![fragment_uniform(
            "Tint",
            CgType::Vector(CgBase::Float, 4),
            0,
            vec![16],
        )],
        stage_info: CgStageInfo::Fragment(CgFragmentInfo {
            instruction_count: 2,
            attribute_input_mask: 0x1,
            partial_tex_type: 0,
            tex_coords_input_mask: 0,
            tex_coords_2d: 0,
            tex_coords_centroid: 0,
            register_count: 2,
            output_from_h0: false,
            depth_replace: false,
            pixel_kill: false,
        }),
        ucode_offset: 0,
        ucode: tinted([0.0; 4]),
    })
    .expect("write the container")
}

fn texture() -> TextureDesc {
    TextureDesc {
        offset: 0x0040_0000,
        width: 2,
        height: 2,
        pitch: 8,
        byte_size: 16,
        ..TextureDesc::default()
    }
}

/// Five draws: the tinted program (tint A, unit 0 bound), FRAGMENT_MOV_COL0, the tinted
/// program again (tint B), then with unit 0 disabled and unit 5 bound, TEX unit 0 and TEX
/// unit 5.
fn small_capture(dir: &Path) -> PathBuf {
    let mut b = CaptureBuilder::new("probe-cli");
    b.put_memory(Location::Main, 0x1000, &[0u8; 48]).unwrap();
    b.put_memory(Location::Local, 0x0040_0000, &[0x7Fu8; 64])
        .unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
        .unwrap();
    b.set_texture(0, &texture()).unwrap();
    let draw = |b: &mut CaptureBuilder, at: u32, ucode: &[u8]| {
        b.set_fragment_program(Location::Local, at, ucode, 0x40)
            .unwrap();
        b.draw_arrays(5, &[(0, 3)]).unwrap();
    };
    draw(&mut b, 0x0030_0000, &tinted([0.5, 0.25, 1.0, 1.0]));
    draw(&mut b, 0x0030_0100, &FRAGMENT_MOV_COL0);
    draw(&mut b, 0x0030_0200, &tinted([2.0, -1.0, 0.125, 0.75]));
    b.disable_texture(0).unwrap();
    b.set_texture(5, &texture()).unwrap();
    draw(&mut b, 0x0030_0300, &textured(0));
    draw(&mut b, 0x0030_0400, &textured(5));
    let path = dir.join("small.rrc.gz");
    std::fs::write(&path, rrc::write_v6(&b.finish())).unwrap();
    path
}

#[test]
fn uniforms_by_name_and_by_slot() {
    let dir = tempfile::tempdir().unwrap();
    let capture = small_capture(dir.path());
    let container = dir.path().join("tint.fpo");
    std::fs::write(&container, tint_container()).unwrap();
    let report = json_with_status(
        &[
            "uniforms",
            path(&capture),
            "--program",
            path(&container),
            "--json",
        ],
        0,
    );
    assert_eq!(report["constant_slots"], serde_json::json!([1]));
    assert_eq!(report["uniforms"][0]["name"], "Tint");
    let draws = report["draws"].as_array().unwrap();
    assert_eq!(draws.len(), 2, "{report}");
    assert_eq!(draws[0]["draw"], 0);
    assert_eq!(
        draws[0]["uniforms"][0]["value"],
        serde_json::json!([0.5, 0.25, 1.0, 1.0])
    );
    assert_eq!(draws[1]["draw"], 2);
    assert_eq!(
        draws[1]["uniforms"][0]["value"],
        serde_json::json!([2.0, -1.0, 0.125, 0.75])
    );

    // Raw microcode: no names, the constant slots by index.
    let raw = dir.path().join("tint.bin");
    std::fs::write(&raw, tinted([9.0; 4])).unwrap();
    let report = json_with_status(
        &[
            "uniforms",
            path(&capture),
            "--program",
            path(&raw),
            "--json",
        ],
        0,
    );
    assert_eq!(report["uniforms"][0]["name"], "slot 1");
    assert_eq!(
        report["draws"][1]["uniforms"][0]["value"],
        serde_json::json!([2.0, -1.0, 0.125, 0.75])
    );
    // A slot that holds an instruction is refused, naming it.
    let out = rsxtrace(&[
        "uniforms",
        path(&capture),
        "--program",
        path(&raw),
        "--slots",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("slot 0"));
}

#[test]
fn textures_lists_mismatches_and_fails_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let capture = small_capture(dir.path());
    let listing = json_with_status(&["textures", path(&capture), "--json"], 0);
    let draws = listing.as_array().unwrap();
    assert_eq!(draws.len(), 5);
    // Draw 0: unit 0 bound, the program samples nothing: a wasted bind.
    assert_eq!(draws[0]["bound"], serde_json::json!([0]));
    assert_eq!(draws[0]["bound_unsampled"], serde_json::json!([0]));
    // Draw 3: samples unit 0 (disabled), unit 5 bound: both mismatches.
    assert_eq!(draws[3]["sampled"][0]["unit"], 0);
    assert_eq!(draws[3]["sampled"][0]["reach"], "always");
    assert_eq!(draws[3]["sampled_unbound"], serde_json::json!([0]));
    assert_eq!(draws[3]["bound_unsampled"], serde_json::json!([5]));
    let only = json_with_status(
        &["textures", path(&capture), "--json", "--mismatches-only"],
        0,
    );
    // Draws 0..3 have a mismatch; draw 4 samples unit 5, which is bound.
    assert_eq!(draws[4]["bound"], serde_json::json!([5]));
    assert_eq!(draws[4]["sampled"][0]["unit"], 5);
    let only: Vec<u64> = only
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["draw"].as_u64().unwrap())
        .collect();
    assert_eq!(only, vec![0, 1, 2, 3]);
    assert_eq!(
        rsxtrace(&["textures", path(&capture), "--fail-on-mismatch"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn textures_on_the_game_frame() {
    let game: PathBuf = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let listing = json_with_status(&["textures", path(&game), "--json"], 0);
    let draws = listing.as_array().unwrap();
    assert!(draws.len() >= 2_000);
    // Every draw's program was read and analysed, and some materials leave a stale unit bound.
    assert!(draws.iter().all(|d| d.get("problem").is_none()));
    assert!(draws
        .iter()
        .any(|d| !d["bound_unsampled"].as_array().unwrap().is_empty()));
    assert!(draws
        .iter()
        .all(|d| d["sampled_unbound"].as_array().unwrap().is_empty()));
}

/// The level with `space` written under a temporary directory.
fn level_dir(space: FogSpace) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let built = level::build(&LevelOptions {
        fog_space: space,
        ..LevelOptions::default()
    })
    .expect("build the level");
    level::write(&built, dir.path()).unwrap();
    dir
}

fn maininv(dir: &Path, camera: &[&str], status: i32) -> Value {
    let capture = dir.join(level::CAPTURE_FILE);
    let fog = dir.join(level::FOG_FILE);
    let mut args = vec![
        "probe",
        "maininv",
        path(&capture),
        "--program",
        path(&fog),
        "--json",
    ];
    args.extend_from_slice(camera);
    json_with_status(&args, status)
}

#[test]
fn maininv_verdict_follows_the_space_the_level_was_built_with() {
    for (space, verdict) in [(FogSpace::World, "world"), (FogSpace::View, "view")] {
        let dir = level_dir(space);
        let truth: Value = serde_json::from_slice(
            &std::fs::read(dir.path().join(level::GROUND_TRUTH_FILE)).unwrap(),
        )
        .unwrap();
        assert_eq!(truth["fog"]["space"], verdict);
        let vp = dir.path().join(level::VIEW_PROJECTION_FILE);
        let placements = dir.path().join(level::PLACEMENTS_FILE);
        for camera in [
            ["--view-proj", path(&vp)],
            ["--placements", path(&placements)],
        ] {
            let report = maininv(dir.path(), &camera, 0);
            assert_eq!(report["verdict"], verdict, "{space:?} {camera:?}: {report}");
            assert_eq!(report["draws"], truth["fog"]["draws"]);
            let (fit, other) = if verdict == "world" {
                ("residual_world", "residual_view")
            } else {
                ("residual_view", "residual_world")
            };
            assert!(report[fit].as_f64().unwrap() < 1e-3, "{report}");
            assert!(report[other].as_f64().unwrap() > 0.1, "{report}");
        }
    }
}

#[test]
fn maininv_with_the_wrong_camera_is_undecided() {
    // The world-space level judged against a camera that is not the capture's: X is neither
    // the identity nor rigid.
    let dir = level_dir(FogSpace::World);
    let wrong = dir.path().join("wrong_vp.json");
    std::fs::write(
        &wrong,
        r#"{"view_projection": [[1.2, 0, 0, 0], [0, 2.1, 0, 0], [0, 0, -1.002, -1], [3, -1, 5, 6]]}"#,
    )
    .unwrap();
    let report = maininv(dir.path(), &["--view-proj", path(&wrong)], 1);
    assert_eq!(report["verdict"], "undecided");
    // Without a camera it is a usage error.
    let capture = dir.path().join(level::CAPTURE_FILE);
    let fog = dir.path().join(level::FOG_FILE);
    let out = rsxtrace(&["probe", "maininv", path(&capture), "--program", path(&fog)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--view-proj"));
}

#[test]
fn the_committed_level_agrees_with_its_ground_truth() {
    let dir: PathBuf = rsxtrace_testkit::workspace!().level_dir();
    let truth: Value =
        serde_json::from_slice(&std::fs::read(dir.join(level::GROUND_TRUTH_FILE)).unwrap())
            .unwrap();
    let vp = dir.join(level::VIEW_PROJECTION_FILE);
    let report = maininv(&dir, &["--view-proj", path(&vp)], 0);
    assert_eq!(report["verdict"], truth["fog"]["space"]);
    assert_eq!(report["draws"], truth["fog"]["draws"]);

    // `uniforms` reads the same rows the level wrote (f32 of the ground truth's f64).
    let capture = dir.join(level::CAPTURE_FILE);
    let fog = dir.join(level::FOG_FILE);
    let values = json_with_status(
        &[
            "uniforms",
            path(&capture),
            "--program",
            path(&fog),
            "--json",
        ],
        0,
    );
    let draw = &values["draws"][0];
    assert_eq!(draw["draw"], truth["fog"]["draws"][0]);
    for k in 0..4 {
        let name = format!("MainInv[{k}]");
        let row = draw["uniforms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} missing: {draw}"));
        for c in 0..4 {
            let got = row["value"][c].as_f64().unwrap();
            let want = truth["fog"]["main_inv"][k][c].as_f64().unwrap();
            assert_eq!(got as f32, want as f32, "{name}[{c}]");
        }
    }

    // `textures`: the fog draw samples the scene and depth units, both bound; no mismatch.
    let listing = json_with_status(
        &["textures", path(&capture), "--json", "--fail-on-mismatch"],
        0,
    );
    let fog_draw = truth["fog"]["draws"][0].as_u64().unwrap() as usize;
    let d = &listing[fog_draw];
    let units = serde_json::json!([
        truth["fog"]["scene_texture_unit"],
        truth["fog"]["depth_texture_unit"]
    ]);
    assert_eq!(d["bound"], units);
    let sampled: Vec<&Value> = d["sampled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["unit"])
        .collect();
    assert_eq!(serde_json::json!(sampled), units);
    assert!(d["sampled"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["live"] == true && s["reach"] == "always"));
}

/// `probe constants` on the skinned scene: the text names the palette, its address
/// register's writer and the entries reached, and the matrices by kind; `--json` holds the
/// same. On the game sample every vertex program is listed once.
#[test]
fn probe_constants_tells_a_bone_palette_from_matrices() {
    let dir = tempfile::tempdir().unwrap();
    let file = scene_file(
        dir.path(),
        "skinned.rrc",
        &rsxtrace_scenes::skinned::skinned_capture(true),
    );
    let f = file.to_str().unwrap();
    let out = rsxtrace(&["probe", "constants", f]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "c[0..3]",
        "matrix rows (4)",
        "matrix columns (3)",
        "scalar .x",
        "c[A0.x+40..42]",
        "palette A0.x: entries of 3 registers from c[A0.x+40], written by slot 0 ARL A0.x, v[IN7].x",
        "took 3 values from 0 to 9, multiples of 3 = entries 0 to 3: registers c[40..51]",
    ] {
        assert!(text.contains(expected), "{expected:?} missing:\n{text}");
    }
    let json = json_with_status(&["probe", "constants", f, "--json"], 0);
    let program = &json.as_array().unwrap()[0];
    assert_eq!(
        program["palettes"][0]["values"],
        serde_json::json!([0, 6, 9])
    );
    assert_eq!(program["groups"][0]["kind"], "matrix_rows");
    assert_eq!(program["groups"][0]["with"], "R1");

    // At one draw: each group's registers with their values there; the palette's are the
    // entries the vertices reach (bones 0, 2, 3: c[40..42], c[46..51]), bone k's rows
    // holding k in w.
    let at = json_with_status(&["probe", "constants", f, "--draw", "0", "--json"], 0);
    let palette = at[0]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| !g["relative"].is_null())
        .unwrap();
    let registers: Vec<i64> = palette["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["register"].as_i64().unwrap())
        .collect();
    assert_eq!(registers, vec![40, 41, 42, 46, 47, 48, 49, 50, 51]);
    assert_eq!(
        palette["values"][3]["value"],
        serde_json::json!([1.0, 0.0, 0.0, 2.0])
    );
    let text =
        String::from_utf8(rsxtrace(&["probe", "constants", f, "--draw", "0"]).stdout).unwrap();
    assert!(text.contains("values at draw 0:"), "{text}");
    assert!(text.contains("c[51] = ("), "{text}");
    let none = rsxtrace(&["probe", "constants", f, "--draw", "7"]);
    assert_eq!(none.status.code(), Some(2));

    let game: PathBuf = rsxtrace_testkit::workspace!().sample("game.rrc.gz");
    let all = json_with_status(&["probe", "constants", game.to_str().unwrap(), "--json"], 0);
    let keys: std::collections::BTreeSet<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys.len(), all.as_array().unwrap().len());
    assert_eq!(keys.len(), 48);
}
