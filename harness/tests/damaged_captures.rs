//! Damaged captures: every command goes on through a capture whose command list or memory is
//! damaged (a frame problem or a warning names what was skipped), and none panics. The basic
//! sample is damaged by hand (each kind of frame problem, with exact expectations); the bundled
//! samples and the level by seeded edits (`rsxtrace_capture::builder::damage`, 9 seeds each;
//! `RSXTRACE_DAMAGE_SEEDS=N` widens the sweep), through every command that reads a capture.

use crate::cli_support;

use cli_support::{frame_problems, json_ok, rsxtrace, s};
use rsxtrace_capture::builder::damage::damage;
use rsxtrace_capture::rrc::{self, Capture, ReplayCommand};
use std::path::{Path, PathBuf};

fn read_sample(file: &str) -> Capture {
    rrc::read_file(&rsxtrace_testkit::workspace!().sample(file)).expect("bundled sample")
}

fn write(dir: &Path, name: &str, capture: &Capture) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, rrc::write_v6_uncompressed(capture)).unwrap();
    path
}

/// The basic sample with one of each kind of damage the frame model skips, and the commands
/// each one names.
fn damaged_by_hand() -> (Capture, Vec<(usize, &'static str)>) {
    let mut c = read_sample("basic.rrc.gz");
    let entry = |first, second| ReplayCommand {
        first,
        second,
        ..Default::default()
    };
    // Inserted after the initial NOP, in reverse so that each lands where named.
    // 3: a jump, never recorded.
    c.commands.insert(1, entry(0x2000_0100, 0));
    // 2: a continuation with no batch pending.
    c.commands.insert(1, entry(0, 7));
    // 1: SET_TRANSFORM_PROGRAM_LOAD 600.
    c.commands.insert(1, entry(0x0004_1E9C, 600));
    // 4: an upload at slot 600, past the 544 slots: every word dropped.
    c.commands.insert(4, entry(0x0004_0B80, 1));
    // 5: an id that is not in the memory map.
    c.commands.insert(
        5,
        ReplayCommand {
            memory: vec![0xDEAD_BEEF],
            ..entry(0x0004_0100, 0)
        },
    );
    // A block with an invalid location, attached by a command of its own.
    let mut block = c.blocks[0].clone();
    block.id = 0xBAD0_0001;
    block.value.location = 0x00FF_0000;
    c.blocks.push(block);
    c.commands.insert(
        6,
        ReplayCommand {
            memory: vec![0xBAD0_0001],
            ..entry(0x0004_0100, 0)
        },
    );
    // 7: SET_BLEND_FUNC_SFACTOR with 0x00FF in its low half, no blend factor: refused, the
    // register keeps its value (RPCS3 `nv4097::set_blend_factor`).
    c.commands.insert(7, entry(0x0004_0314, 0x0302_00FF));
    let named = vec![
        (2, "continuation entry"),
        (3, "is not a method header"),
        (4, "program memory"),
        (5, "not in the memory map"),
        (6, "invalid location"),
        (7, "is not a valid value; the register keeps"),
    ];
    (c, named)
}

#[test]
fn each_kind_of_damage_is_named_and_every_command_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let clean = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    let (capture, named) = damaged_by_hand();
    let path = write(dir.path(), "damaged.rrc", &capture);

    let problems = frame_problems(s(&path));
    assert_eq!(problems.len(), named.len(), "{problems:#?}");
    for ((command, what), problem) in named.iter().zip(&problems) {
        assert!(
            problem.starts_with(&format!("command {command}: ")) && problem.contains(what),
            "{problem} should name command {command} ({what})"
        );
    }

    // The draws are all there, shifted by the seven inserted commands.
    let draws = json_ok(&["draws", s(&path), "--json"]);
    let clean_draws = json_ok(&["draws", s(&clean), "--json"]);
    let ends = |v: &serde_json::Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|d| d["end_command"].as_u64().unwrap())
            .collect()
    };
    let shifted: Vec<u64> = ends(&clean_draws).iter().map(|e| e + 7).collect();
    assert_eq!(ends(&draws), shifted);

    // Each command exits without error and names the frame's problems in warnings.
    let png = dir.path().join("frame.png");
    for args in [
        vec!["replay", "--cpu", s(&path), "--out", s(&png)],
        vec!["dump", s(&path), "--draw", "0", "--json"],
    ] {
        let out = rsxtrace(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The first five are named (`FRAME_PROBLEMS_SHOWN`), the rest counted.
        for (command, _) in named.iter().take(5) {
            assert!(
                stderr.contains(&format!("warning: {}: command {command}: ", s(&path))),
                "{args:?}: {stderr}"
            );
        }
        let more = format!("{} more frame problems", named.len() - 5);
        assert!(stderr.contains(&more), "{args:?}: {stderr}");
    }
    // The frame renders as the clean one does: the damage touched nothing a draw reads.
    let clean_png = dir.path().join("clean.png");
    assert!(
        rsxtrace(&["replay", "--cpu", s(&clean), "--out", s(&clean_png)])
            .status
            .success()
    );
    assert_eq!(
        std::fs::read(&png).unwrap(),
        std::fs::read(&clean_png).unwrap()
    );

    // export-jsonl skips the two malformed stretches with a warning each.
    let out = rsxtrace(&["export-jsonl", s(&path)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("warning:").count(), 2, "{stderr}");
    assert!(stderr.contains("command 2:") && stderr.contains("command 3:"));

    // The index takes every draw and lists the problems as warnings (exit 2: part of the
    // capture could not be indexed).
    let db = dir.path().join("i.sqlite");
    let out = rsxtrace(&["index", s(&path), "--db", s(&db), "--json", "--quiet"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = report.to_string();
    for (command, _) in &named {
        assert!(text.contains(&format!("command {command}: ")), "{text}");
    }
    assert_eq!(
        report["captures"][0]["draws"].as_u64(),
        Some(shifted.len() as u64),
        "{report:#}"
    );
}

/// Runs `args`; a panic (exit 101, or a signal) or a hang is a failure, any documented exit
/// status is not. Returns a description of the failure.
fn survives(args: &[&str]) -> Option<String> {
    let out = rsxtrace(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0..=2) if !stderr.contains("panicked") => None,
        code => Some(format!(
            "rsxtrace {} exited {code:?}: {}",
            args.join(" "),
            stderr.lines().take(6).collect::<Vec<_>>().join(" | ")
        )),
    }
}

/// Every command that reads a capture, on one damaged capture; GPU commands and the report
/// when `gpu`; the level's commands (placements, fog program) when `level` is its folder.
fn sweep(path: &Path, work: &Path, gpu: bool, level: Option<&Path>) -> Vec<String> {
    let p = s(path);
    let png = work.join("r.png");
    let glb = work.join("o.glb");
    let db = work.join("i.sqlite");
    let tex = work.join("tex");
    let rsxt = work.join("t.rsxt");
    let site = work.join("site");
    let heat = work.join("heat.png");
    let edited = work.join("e.rrc.gz");
    // `MOV R0, f[COL0]; END`, for `edit`.
    let fp = work.join("p.bin");
    std::fs::write(&fp, rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0).unwrap();
    let fp_arg = format!("all={}", s(&fp));
    let mut runs: Vec<Vec<&str>> = vec![
        vec!["info", p, "--json"],
        vec!["draws", p, "--json"],
        vec!["dump", p, "--draw", "1", "--json"],
        vec!["export-jsonl", p],
        vec!["disasm", p, "--draw", "1"],
        vec!["exec", p, "--draw", "1", "--json"],
        vec!["debug", p, "--draw", "1", "--vertex", "0", "--trace"],
        vec!["flow", p, "--draw", "1"],
        vec!["textures", p, "--json"],
        vec!["textures", p, "--dump", s(&tex)],
        vec!["index", p, "--db", s(&db), "--quiet"],
        vec!["find", p, "--hex", "0000803f", "--decoded"],
        vec!["export", "gltf", p, "--out", s(&glb)],
        vec!["replay", "--cpu", p, "--out", s(&png)],
        vec!["convert", p, s(&rsxt)],
        vec!["stats", p, "--json"],
        vec!["targets", p, "--json"],
        vec!["overdraw", p, "--out", s(&heat), "--json"],
        vec!["history", p, "--pixel", "1,1", "--json"],
        vec![
            "edit",
            p,
            "--fragment",
            &fp_arg,
            "--vertex",
            "0..2=@1",
            "--out",
            s(&edited),
            "--json",
        ],
    ];
    if gpu {
        runs.push(vec!["verify", p]);
        runs.push(vec!["replay", p, "--out", s(&png)]);
        runs.push(vec!["report", p, "--html", s(&site), "--draws", "0..4"]);
    }
    let level_files = level.map(|dir| {
        let f = |name: &str| dir.join(name).to_str().unwrap().to_string();
        (f("placements.json"), f("meshes"), f("fog.fpo"))
    });
    if let Some((placements, meshes, fog)) = &level_files {
        runs.push(vec![
            "mvp",
            p,
            "--placements",
            placements,
            "--meshes",
            meshes,
            "--json",
        ]);
        runs.push(vec![
            "probe",
            "maininv",
            p,
            "--program",
            fog,
            "--placements",
            placements,
        ]);
        runs.push(vec!["uniforms", p, "--program", fog, "--json"]);
        runs.push(vec!["match", p, "--library", fog, "--json"]);
    }
    runs.iter().filter_map(|args| survives(args)).collect()
}

#[test]
fn seeded_damage_never_stops_or_crashes_a_command() {
    let seeds: u64 = std::env::var("RSXTRACE_DAMAGE_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9);
    let dir = tempfile::tempdir().unwrap();
    let workspace = rsxtrace_testkit::workspace!();
    let level_dir = workspace.level_dir();
    // (name, capture, the level's folder for the level's own commands)
    let inputs: Vec<(&str, Capture, Option<&Path>)> = vec![
        ("basic", read_sample("basic.rrc.gz"), None),
        ("primitives", read_sample("primitives.rrc.gz"), None),
        (
            "texture_formats",
            read_sample("texture_formats.rrc.gz"),
            None,
        ),
        (
            "level",
            rrc::read_file(&level_dir.join("level.rrc.gz")).expect("the level"),
            Some(level_dir.as_path()),
        ),
    ];
    let jobs: Vec<(usize, u64)> = (0..inputs.len())
        .flat_map(|i| (0..seeds).map(move |seed| (i, seed)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(i, seed)) = jobs.get(k) else { break };
                // 1 to 8 edits; seeds are distinct per sample.
                let edits = 1 + (seed % 8) as usize;
                let (name, capture, level) = &inputs[i];
                let damaged = damage(capture, seed * 4 + i as u64, edits);
                let work = dir.path().join(format!("{i}-{seed}"));
                std::fs::create_dir_all(&work).unwrap();
                let path = write(&work, "damaged.rrc", &damaged);
                // The GPU commands on every fourth capture (they start a device each).
                let found = sweep(&path, &work, seed % 4 == 0, *level);
                let name = format!("{name} seed {} ({edits} edits)", seed * 4 + i as u64);
                failures
                    .lock()
                    .unwrap()
                    .extend(found.into_iter().map(|f| format!("{name}: {f}")));
                let _ = std::fs::remove_dir_all(&work);
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
