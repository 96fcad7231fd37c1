//! `rsxtrace match` end to end (issue 15 item 4): the bundled sample and level named from a
//! library folder written by `rsxtrace_scenes::program_library`, the fog program by its file
//! name; a program differing only in inline constants is exact and shows the capture's values;
//! a program changed by one instruction gets the right nearest candidate; bad library files
//! are warnings; the JSON follows the documented schema (parsed into types defined here, so a
//! change to the contract breaks this test).

use rsxtrace_program::container::Container;
use rsxtrace_program::fragment::{self, FpOpcode};
use rsxtrace_scenes::level::{self, fog_program, LevelOptions, FOG};
use rsxtrace_scenes::program_library::{fragment_container, write_scene_library};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rsxtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace")
}

fn level_capture() -> String {
    let p = rsxtrace_testkit::workspace!()
        .level_dir()
        .join(level::CAPTURE_FILE);
    p.to_str().unwrap().to_string()
}

fn basic_capture() -> String {
    let p: PathBuf = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    p.to_str().unwrap().to_string()
}

/// The draw index of the level's fog pass, from its ground truth.
fn fog_draw() -> usize {
    let path = rsxtrace_testkit::workspace!()
        .level_dir()
        .join(level::GROUND_TRUTH_FILE);
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    truth["fog"]["draws"][0].as_u64().unwrap() as usize
}

/// The scene library in a fresh folder.
fn scene_library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_scene_library(dir.path()).unwrap();
    dir
}

/// `match --json` parsed into the schema; with the exit status and stderr.
fn match_json(capture: &str, library: &Path, extra: &[&str]) -> (Report, i32, String) {
    let mut args = vec!["match", capture, "--json", "--library"];
    let lib = library.to_str().unwrap();
    args.push(lib);
    args.extend_from_slice(extra);
    let out = rsxtrace(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report: Report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("match {args:?}: JSON following the schema: {e}\n{stderr}"));
    (report, out.status.code().unwrap_or(-1), stderr)
}

// The documented schema (docs/batch.md, rsxtrace_verify::matching::report).

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Report {
    format_version: u32,
    capture: String,
    library: Library,
    summary: Summary,
    programs: Vec<Program>,
    draws: Vec<DrawEntry>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Library {
    files_read: usize,
    vertex_programs: usize,
    fragment_programs: usize,
    problems: Vec<Problem>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Problem {
    path: String,
    offset: Option<u64>,
    reason: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Summary {
    draws: usize,
    programs: usize,
    exact: usize,
    nearest: usize,
    unmatched: usize,
    draws_all_exact: usize,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Program {
    id: usize,
    stage: String,
    key: String,
    draws: usize,
    first_draw: usize,
    #[serde(rename = "match")]
    kind: String,
    names: Vec<String>,
    sources: Vec<Source>,
    candidates: Vec<Candidate>,
    fingerprint: Option<serde_json::Value>,
    note: Option<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Source {
    name: String,
    origin: serde_json::Value,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Candidate {
    key: String,
    names: Vec<String>,
    sources: Vec<Source>,
    score: f64,
    differences: Vec<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct DrawEntry {
    draw: usize,
    vertex: StageEntry,
    fragment: Option<StageEntry>,
    fragment_problem: Option<String>,
    inline_constants: Vec<InlineConstant>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct StageEntry {
    program: usize,
    key: String,
    #[serde(rename = "match")]
    kind: String,
    names: Vec<String>,
    score: Option<f64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct InlineConstant {
    slot: u32,
    values: [Option<f32>; 4],
}

/// Checks the report's internal consistency (ids, counts, keys).
fn assert_consistent(r: &Report) {
    assert_eq!(r.format_version, 1);
    assert_eq!(r.summary.draws, r.draws.len());
    assert_eq!(r.summary.programs, r.programs.len());
    assert_eq!(
        r.summary.exact + r.summary.nearest + r.summary.unmatched,
        r.summary.programs
    );
    for (i, p) in r.programs.iter().enumerate() {
        assert_eq!(p.id, i);
        assert_eq!(p.key.len(), 16);
        assert!(p.stage == "Vertex" || p.stage == "Fragment", "{}", p.stage);
        assert!(p.draws >= 1);
        match p.kind.as_str() {
            "exact" => assert!(!p.names.is_empty() && p.candidates.is_empty()),
            "nearest" => {
                assert!(p.names.is_empty() && !p.candidates.is_empty());
                assert!(p.fingerprint.is_some());
                for w in p.candidates.windows(2) {
                    assert!(w[0].score >= w[1].score, "best first");
                }
            }
            "unmatched" => assert!(p.candidates.is_empty() && p.note.is_some()),
            other => panic!("match kind {other}"),
        }
        for c in &p.candidates {
            assert!((0.0..=1.0).contains(&c.score));
            assert_eq!(c.key.len(), 16);
            assert!(!c.sources.is_empty());
        }
    }
    for d in &r.draws {
        for s in std::iter::once(&d.vertex).chain(&d.fragment) {
            let p = &r.programs[s.program];
            assert_eq!(s.key, p.key);
            assert_eq!(s.kind, p.kind);
            assert!(p.first_draw <= d.draw);
        }
        assert_eq!(d.fragment.is_none(), d.fragment_problem.is_some());
    }
}

#[test]
fn sample_and_level_draws_are_named_exactly_the_fog_by_its_file_name() {
    let lib = scene_library();
    for capture in [basic_capture(), level_capture()] {
        let (r, code, stderr) = match_json(&capture, lib.path(), &[]);
        assert_eq!(code, 0, "{stderr}");
        assert_consistent(&r);
        assert_eq!(r.capture, capture);
        assert_eq!(r.library.files_read, 6);
        assert_eq!(
            (r.library.vertex_programs, r.library.fragment_programs),
            (3, 3)
        );
        assert!(r.library.problems.is_empty());
        assert!(!r.draws.is_empty());
        assert_eq!(r.summary.draws_all_exact, r.draws.len());
        for d in &r.draws {
            let f = d
                .fragment
                .as_ref()
                .expect("every draw has a fragment program");
            for s in [&d.vertex, f] {
                assert_eq!(s.kind, "exact", "draw {}", d.draw);
                assert_eq!(s.score, Some(1.0));
                assert_eq!(s.names.len(), 1, "draw {}: {:?}", d.draw, s.names);
            }
        }
        let p = &r.programs[r.draws[0].vertex.program];
        assert_eq!(p.sources[0].origin["kind"], "loose");
        assert_eq!(p.sources[0].name, p.names[0]);
    }
    let (r, _, _) = match_json(&level_capture(), lib.path(), &[]);
    let fog = &r.draws[fog_draw()];
    assert_eq!(fog.fragment.as_ref().unwrap().names, vec!["fog.fpo"]);
    assert_eq!(fog.vertex.names, vec!["textured.vpo"]);
    assert!(!fog.inline_constants.is_empty());
    assert_eq!(r.draws[0].vertex.names, vec!["mvp_c0.vpo"]);
    assert_eq!(r.draws[1].vertex.names, vec!["mvp_c32.vpo"]);
    assert_eq!(
        r.draws[1].fragment.as_ref().unwrap().names,
        vec!["mov_col0.fpo"]
    );
}

#[test]
fn different_inline_constants_are_an_exact_match_showing_the_captures_values() {
    let lib = scene_library();
    std::fs::remove_file(lib.path().join(level::FOG_FILE)).unwrap();
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let other = fog_program(&identity, &FOG).unwrap();
    std::fs::write(lib.path().join("fog_identity.fpo"), &other.container).unwrap();

    let (r, code, stderr) = match_json(&level_capture(), lib.path(), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_consistent(&r);
    let fog = &r.draws[fog_draw()];
    let f = fog.fragment.as_ref().unwrap();
    assert_eq!(
        (f.kind.as_str(), f.names.clone()),
        ("exact", vec!["fog_identity.fpo".to_string()])
    );

    // The values shown are the capture's MainInv rows, not the library's identity.
    let truth = level::build(&LevelOptions::default()).unwrap();
    let captured = Container::parse(&truth.fog_container).unwrap();
    let shown: Vec<(u32, [f32; 4])> = fog
        .inline_constants
        .iter()
        .map(|c| (c.slot, c.values.map(|v| v.expect("finite"))))
        .collect();
    let ucode = captured.ucode();
    for &byte_offset in &other.main_inv_slots {
        let slot = byte_offset / 16;
        let at = byte_offset as usize;
        let want: Vec<f32> = (0..4)
            .map(|k| {
                let b = &ucode[at + 4 * k..at + 4 * k + 4];
                f32::from_bits(fragment::decode::word_from_guest([b[0], b[1], b[2], b[3]]))
            })
            .collect();
        let got = shown
            .iter()
            .find(|(s, _)| *s == slot)
            .unwrap_or_else(|| panic!("slot {slot} shown: {shown:?}"));
        assert_eq!(got.1.to_vec(), want, "slot {slot}");
        assert_ne!(got.1.to_vec(), identity[0].to_vec());
    }

    let text = String::from_utf8(
        rsxtrace(&[
            "match",
            &level_capture(),
            "--library",
            lib.path().to_str().unwrap(),
        ])
        .stdout,
    )
    .unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("fog_identity.fpo"))
        .expect("fog row");
    assert!(line.contains("exact") && line.contains("slot "), "{line}");
}

#[test]
fn a_program_changed_by_one_instruction_gets_the_right_nearest_candidate() {
    let lib = scene_library();
    let original = std::fs::read(lib.path().join(level::FOG_FILE)).unwrap();
    std::fs::remove_file(lib.path().join(level::FOG_FILE)).unwrap();
    let container = Container::parse(&original).unwrap();
    let mut program = fragment::decode(container.ucode()).unwrap();
    let insn = program
        .instructions
        .iter_mut()
        .find(|i| i.opcode == FpOpcode::Dp3)
        .expect("the fog program has a DP3");
    insn.opcode = FpOpcode::Dp4;
    let changed = fragment::encode(&program);
    let control = container.control_word().unwrap();
    std::fs::write(
        lib.path().join("fog_changed.fpo"),
        fragment_container(&changed, control).unwrap(),
    )
    .unwrap();

    let (r, code, stderr) = match_json(&level_capture(), lib.path(), &[]);
    assert_eq!(
        code, 1,
        "a program without an exact match is a finding: {stderr}"
    );
    assert_consistent(&r);
    assert_eq!(r.summary.nearest, 1);
    let f = r.draws[fog_draw()].fragment.as_ref().unwrap();
    assert_eq!(f.kind, "nearest");
    assert_eq!(f.names, vec!["fog_changed.fpo"]);
    let score = f.score.unwrap();
    assert!(score < 1.0 && score > 0.9, "{score}");
    let p = &r.programs[f.program];
    assert_eq!(p.candidates.len(), 3, "fog_changed, mov_col0, textured");
    assert_eq!(p.candidates[0].names, vec!["fog_changed.fpo"]);
    assert!(p.candidates[1].score < score);
    assert_eq!(p.candidates[0].differences, vec!["opcodes: +DP3 -DP4"]);
    // The other draws are still exact.
    assert!(r.draws.iter().filter(|d| d.draw != fog_draw()).all(
        |d| d.vertex.kind == "exact" && d.fragment.as_ref().is_some_and(|f| f.kind == "exact")
    ));

    let out = rsxtrace(&[
        "match",
        &level_capture(),
        "--library",
        lib.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("programs without an exact match:"), "{text}");
    assert!(
        text.contains("fog_changed.fpo  opcodes: +DP3 -DP4"),
        "{text}"
    );
}

#[test]
fn bad_library_files_are_warnings_and_the_work_goes_on() {
    let lib = scene_library();
    // A CgBinaryProgram header cut short, and a fragment container whose program has no END.
    std::fs::write(
        lib.path().join("broken.fpo"),
        [0, 0, 0x1B, 0x5C, 0, 0, 0, 6],
    )
    .unwrap();
    let mut no_end =
        fragment::decode(&rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0).unwrap();
    no_end.instructions[0].end = false;
    std::fs::write(
        lib.path().join("no_end.fpo"),
        fragment_container(&fragment::encode(&no_end), 0x40).unwrap(),
    )
    .unwrap();
    let (r, code, stderr) = match_json(&basic_capture(), lib.path(), &[]);
    assert_eq!(
        code, 0,
        "bad library files do not change the status: {stderr}"
    );
    assert_consistent(&r);
    assert_eq!(r.library.problems.len(), 2, "{:?}", r.library.problems);
    assert!(r.library.problems.iter().all(|p| !p.reason.is_empty()));
    for name in ["broken.fpo", "no_end.fpo"] {
        assert!(
            r.library.problems.iter().any(|p| p.path.ends_with(name)),
            "{name}"
        );
        assert!(
            stderr.contains("warning") && stderr.contains(name),
            "{stderr}"
        );
    }
    assert_eq!(r.library.problems[0].offset, Some(0));
    assert_eq!(r.summary.exact, r.summary.programs);
}

#[test]
fn draw_range_errors_and_exit_codes() {
    let lib = scene_library();
    let fog = fog_draw().to_string();
    let (r, code, _) = match_json(&level_capture(), lib.path(), &["--draws", &fog]);
    assert_eq!(code, 0);
    assert_eq!(r.draws.len(), 1);
    assert_eq!(r.draws[0].draw, fog_draw());
    assert_eq!(r.draws[0].fragment.as_ref().unwrap().names, vec!["fog.fpo"]);

    // No library file readable: the run cannot proceed.
    let missing = rsxtrace(&["match", &basic_capture(), "--library", "/nonexistent/lib"]);
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("no library file could be read"), "{stderr}");
    // An unreadable capture.
    let lib_path = lib.path().to_str().unwrap();
    let bad = rsxtrace(&["match", "/nonexistent.rrc", "--library", lib_path]);
    assert_eq!(bad.status.code(), Some(2));
    // --library is required.
    assert_eq!(
        rsxtrace(&["match", &basic_capture()]).status.code(),
        Some(2)
    );
    // A draw range beyond the frame.
    let beyond = rsxtrace(&[
        "match",
        &basic_capture(),
        "--library",
        lib_path,
        "--draws",
        "9",
    ]);
    assert_eq!(beyond.status.code(), Some(2));
}
