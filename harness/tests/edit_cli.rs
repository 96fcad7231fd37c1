//! `rsxtrace edit` on the game sample: a raw fragment program replaces every draw's program
//! of one hash (found with `draws --json`), Sony's compiled `sce_cube_common.vpo` (corpus)
//! replaces one draw's vertex program; the edited file's `draws --json` says the chosen draws
//! run the new programs and every other draw what it ran, and its replay differs from the
//! original's exactly where chosen draws draw. Bad requests: a selector that matches nothing
//! (a warning beside a match, exit 2 alone), a vertex container given as a fragment program,
//! a selector that is neither a range nor a hash.

use crate::cli_support::{failure, json_ok, rsxtrace, s};
use rsxtrace_program::fragment::{decode, encode, InputAttribute};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `MOV R0, f[TEX0]; END` (the builder's `MOV R0, f[COL0]` reading TEX0) as raw microcode.
fn fragment_tex0() -> Vec<u8> {
    let mut p = decode(&rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0).unwrap();
    p.instructions[0].input = InputAttribute(4);
    encode(&p)
}

/// The lines of disassembly text that are not comments.
fn code_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(';'))
        .map(str::to_string)
        .collect()
}

/// `disasm CAPTURE --draw N --stage STAGE`, which must succeed.
fn draw_text(capture: &str, draw: usize, stage: &str) -> String {
    let out = rsxtrace(&[
        "disasm",
        capture,
        "--draw",
        &draw.to_string(),
        "--stage",
        stage,
    ]);
    assert!(out.status.success(), "disasm {capture} --draw {draw}");
    String::from_utf8(out.stdout).unwrap()
}

/// `text` written to `dir/draw0.asm`, then `edit CAPTURE --STAGE 0=that --out
/// dir/edited.rrc.gz --json`: the edited capture and the summary.
fn edit_draw0(dir: &Path, capture: &str, stage: &str, text: &str) -> (PathBuf, Value) {
    let asm = dir.join("draw0.asm");
    std::fs::write(&asm, text).unwrap();
    let edited = dir.join("edited.rrc.gz");
    let report = json_ok(&[
        "edit",
        capture,
        &format!("--{stage}"),
        &format!("0={}", s(&asm)),
        "--out",
        s(&edited),
        "--json",
    ]);
    (edited, report)
}

fn game() -> String {
    rsxtrace_testkit::workspace!()
        .sample("game.rrc.gz")
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn chosen_draws_run_the_new_programs_and_the_rest_what_they_ran() {
    let game = game();
    let dir = tempfile::tempdir().unwrap();
    let fp = dir.path().join("tex0.bin");
    std::fs::write(&fp, fragment_tex0()).unwrap();
    let before = json_ok(&["draws", &game, "--json"]);
    let before = before.as_array().unwrap();
    let hash = before[0]["fp_hash"].as_str().unwrap().to_string();
    let chosen: Vec<u64> = before
        .iter()
        .filter(|d| d["fp_hash"] == hash.as_str())
        .map(|d| d["index"].as_u64().unwrap())
        .collect();
    assert!(chosen.len() > 1);
    let out = dir.path().join("edited.rrc.gz");
    let mut args = vec![
        "edit".to_string(),
        game.clone(),
        "--fragment".into(),
        format!("{}={}", &hash[..8], s(&fp)),
        "--out".into(),
        s(&out).into(),
        "--json".into(),
    ];
    let cube = rsxtrace_testkit::workspace!()
        .corpus()
        .map(|c| c.path("ps3autotests/sce_cube_common.vpo"));
    if let Some(cube) = &cube {
        args.extend(["--vertex".into(), format!("7={}", s(cube))]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = json_ok(&args);
    let fragment = &report["replacements"][0];
    assert_eq!(fragment["stage"], "fragment");
    assert_eq!(fragment["file"], s(&fp));
    let draws: Vec<u64> = fragment["draws"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    assert_eq!(draws, chosen);
    assert_eq!(fragment["replaced"], serde_json::json!([hash]));
    assert_eq!(fragment["address"]["location"], "local");
    let new_fp = fragment["hash"].as_str().unwrap().to_string();
    let new_vp = cube.as_ref().map(|_| {
        let v = &report["replacements"][1];
        assert_eq!(
            (v["stage"].as_str(), v["draws"].clone()),
            (Some("vertex"), serde_json::json!([7]))
        );
        assert_eq!(v["slot"], 0, "the container's instructionSlot");
        v["hash"].as_str().unwrap().to_string()
    });
    let commands = report["commands"].as_array().unwrap();
    assert!(commands[1].as_u64() > commands[0].as_u64());
    let after = json_ok(&["draws", s(&out), "--json"]);
    let after = after.as_array().unwrap();
    assert_eq!(after.len(), before.len());
    for (i, (a, z)) in before.iter().zip(after).enumerate() {
        let fp_chosen = chosen.contains(&(i as u64));
        let expected_fp = if fp_chosen {
            Value::from(new_fp.as_str())
        } else {
            a["fp_hash"].clone()
        };
        assert_eq!(z["fp_hash"], expected_fp, "draw {i}");
        let expected_vp = match &new_vp {
            Some(h) if i == 7 => Value::from(h.as_str()),
            _ => a["vp_hash"].clone(),
        };
        assert_eq!(z["vp_hash"], expected_vp, "draw {i}");
        for key in ["primitive", "ranges", "vertex_count", "mvp"] {
            assert_eq!(z[key], a[key], "draw {i}: {key}");
        }
    }
    // The replay of the first draws changes where the chosen draws draw, and only there: the
    // draws after them (none chosen) leave the same image as the original's draws do over it.
    let (a, b) = (dir.path().join("a.png"), dir.path().join("b.png"));
    for (file, png) in [(&game, &a), (&s(&out).to_string(), &b)] {
        let r = rsxtrace(&["replay", file, "--cpu", "--draws", "0..3", "--out", s(png)]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // Text.
    let text = rsxtrace(&[
        "edit",
        &game,
        "--fragment",
        &format!("0..2={}", s(&fp)),
        "--out",
        s(&out),
    ]);
    assert!(text.status.success());
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains(&format!("replaces {hash} in 2 draws (1 run): 0..2")),
        "{stdout}"
    );
}

#[test]
fn bad_requests_are_named_and_the_rest_goes_on() {
    let game = game();
    let dir = tempfile::tempdir().unwrap();
    let fp = dir.path().join("tex0.bin");
    std::fs::write(&fp, fragment_tex0()).unwrap();
    let out = dir.path().join("edited.rrc.gz");
    let none = format!("ffffffffffffffff={}", s(&fp));
    let one = format!("3={}", s(&fp));
    // Beside a match: a warning, and the rest is done.
    let r = rsxtrace(&[
        "edit",
        &game,
        "--fragment",
        &none,
        "--fragment",
        &one,
        "--out",
        s(&out),
        "--json",
    ]);
    assert!(r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr)
        .contains("warning: no draw matches fragment ffffffffffffffff"));
    let report: Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(report["unmatched"][0]["selector"], "ffffffffffffffff");
    assert_eq!(report["replacements"][0]["draws"], serde_json::json!([3]));
    // Alone: nothing is written, exit 2.
    let lone = dir.path().join("lone.rrc.gz");
    assert!(
        failure(&["edit", &game, "--fragment", &none, "--out", s(&lone)])
            .contains("no draw matches")
    );
    assert!(!lone.exists());
    assert!(failure(&[
        "edit",
        &game,
        "--fragment",
        &format!("abc={}", s(&fp)),
        "--out",
        s(&lone)
    ])
    .contains("abc"));
    assert!(failure(&["edit", &game, "--out", s(&lone)]).contains("nothing to edit"));
    if let Some(corpus) = rsxtrace_testkit::workspace!().corpus() {
        let vpo = corpus.path("ps3autotests/sce_cube_common.vpo");
        let arg = format!("0={}", s(&vpo));
        assert!(
            failure(&["edit", &game, "--fragment", &arg, "--out", s(&lone)])
                .contains("holds a vertex program, not a fragment one")
        );
    }
}

#[test]
fn a_disassembled_program_edited_as_text_replaces_the_draws_program() {
    // RenderDoc's loop: disassemble a draw's fragment program, change a line, put it back.
    let game = game();
    let dir = tempfile::tempdir().unwrap();
    let text = draw_text(&game, 0, "fragment");
    let line = text
        .lines()
        .find(|l| l.contains("MULR R0.xyz, R0, {"))
        .expect("draw 0's program scales its colour")
        .to_string();
    let edited_line = line.replace(
        "MULR R0.xyz, R0, {",
        "MULR R0.xyz, R0, {0.5, 0.25, 2.0, 1.0} # was {",
    );
    let edited_line = edited_line[..edited_line.find(" # was").unwrap()].to_string() + ";";
    let edited_text = text.replace(&line, &edited_line);
    assert_ne!(edited_text, text);
    let (edited, report) = edit_draw0(dir.path(), &game, "fragment", &edited_text);
    let asm = dir.path().join("draw0.asm");
    assert_eq!(report["replacements"][0]["draws"], serde_json::json!([0]));
    // The edited capture's draw 0 disassembles to the edited text.
    let back = draw_text(s(&edited), 0, "fragment");
    assert_eq!(code_lines(&back), code_lines(&edited_text));
    assert!(
        back.contains("MULR R0.xyz, R0, {0.5, 0.25, 2.0, 1.0};"),
        "{back}"
    );
    // `disasm` and `translate` read the text too.
    let d = rsxtrace(&["disasm", s(&asm)]);
    assert!(String::from_utf8_lossy(&d.stdout).contains("(fragment assembly)"));
    assert!(rsxtrace(&["translate", s(&asm)]).status.success());
    // So do `shade` and `debug`: a one-line program's image and trace.
    let gradient = dir.path().join("gradient.asm");
    std::fs::write(
        &gradient,
        "; the texture coordinate as colour\nMOVR R0, f[TEX0];\n",
    )
    .unwrap();
    let png = dir.path().join("g.png");
    let shaded = json_ok(&[
        "shade",
        s(&gradient),
        "--size",
        "8x8",
        "--out",
        s(&png),
        "--json",
    ]);
    assert_eq!(shaded["instructions"], 1);
    let trace = rsxtrace(&[
        "debug",
        s(&gradient),
        "--pixel",
        "1,1",
        "--size",
        "8x8",
        "--trace",
    ]);
    assert!(String::from_utf8_lossy(&trace.stdout).contains("MOVR R0, f[TEX0]; END"));
    // A line that does not assemble is named.
    std::fs::write(&asm, "MOVR R0, f[COL0];\nMOVQ R0, R1;\n").unwrap();
    assert!(failure(&[
        "edit",
        &game,
        "--fragment",
        &format!("0={}", s(&asm)),
        "--out",
        s(&edited)
    ])
    .contains("line 2: MOVQ"));
}

#[test]
fn a_disassembled_vertex_program_edited_as_text_replaces_the_draws_program() {
    // The same loop for a vertex program: draw 0 scales its vertex colour by c[73]; the
    // edited text passes the colour through.
    let game = game();
    let dir = tempfile::tempdir().unwrap();
    let text = draw_text(&game, 0, "vertex");
    let line = text
        .lines()
        .find(|l| l.ends_with("MUL o[COL0], v[COL0], c[73]"))
        .expect("draw 0's program scales its colour")
        .to_string();
    let edited_text = text.replace(
        &line,
        &line.replace("MUL o[COL0], v[COL0], c[73]", "MOV o[COL0], v[COL0]"),
    );
    let (edited, report) = edit_draw0(dir.path(), &game, "vertex", &edited_text);
    let asm = dir.path().join("draw0.asm");
    assert_eq!(report["replacements"][0]["draws"], serde_json::json!([0]));
    assert_eq!(report["replacements"][0]["slot"], 0);
    let back = draw_text(s(&edited), 0, "vertex");
    assert_eq!(code_lines(&back), code_lines(&edited_text));
    // Draw 1 runs the program draw 0 ran.
    let before = json_ok(&["draws", &game, "--json"]);
    let after = json_ok(&["draws", s(&edited), "--json"]);
    assert_ne!(after[0]["vp_hash"], before[0]["vp_hash"]);
    assert_eq!(after[1]["vp_hash"], before[1]["vp_hash"]);
    // Draw 0's program holds the idle values in every field an instruction does not use, so
    // the unedited text assembles into its very words: the same hash. (Other programs of the
    // sample differ there, in fields no unit reads; their text still reads back the same.)
    let other = tempfile::tempdir().unwrap();
    let (unchanged, _) = edit_draw0(other.path(), &game, "vertex", &text);
    let unchanged = json_ok(&["draws", s(&unchanged), "--json"]);
    assert_eq!(unchanged[0]["vp_hash"], before[0]["vp_hash"]);
    // `disasm` (which tells the stages apart by trying) and `translate` read the text.
    let d = rsxtrace(&["disasm", s(&asm)]);
    assert!(String::from_utf8_lossy(&d.stdout).contains("(vertex assembly)"));
    assert!(rsxtrace(&["translate", s(&asm), "--stage", "vertex"])
        .status
        .success());
    // A line that does not assemble is named, and so are two values for one field.
    std::fs::write(&asm, "MOV o[HPOS], v[POS]\nMAD R1, c[1], c[2], R0\n").unwrap();
    let why = failure(&[
        "edit",
        &game,
        "--vertex",
        &format!("0={}", s(&asm)),
        "--out",
        s(&edited),
    ]);
    assert!(
        why.contains("line 2:") && why.contains("contradicts"),
        "{why}"
    );
    let neither = failure(&["disasm", s(&asm)]);
    assert!(
        neither.contains("neither as a fragment program"),
        "{neither}"
    );
}

/// Every program of the game sample, both stages, replaced by its own disassembly read back
/// by the assemblers (one request per program hash). Encoded from the text alone
/// (`--canonical`), every draw runs reassembled programs and both renderers draw the very
/// frame they drew from the game's words; by default each instruction keeps the draw's own
/// words, so every replaced program is the very program it replaced.
#[test]
fn every_program_reassembled_draws_the_same_frame() {
    let game = game();
    let dir = tempfile::tempdir().unwrap();
    let draws = json_ok(&["draws", &game, "--json"]);
    let mut args: Vec<String> = vec!["edit".into(), game.clone()];
    for (stage, key, flag) in [
        ("vertex", "vp_hash", "--vertex"),
        ("fragment", "fp_hash", "--fragment"),
    ] {
        let mut seen = std::collections::BTreeMap::new();
        for d in draws.as_array().unwrap() {
            seen.entry(d[key].as_str().unwrap().to_string())
                .or_insert(d["index"].as_u64().unwrap());
        }
        for (hash, draw) in seen {
            let file = dir.path().join(format!("{hash}.{stage}.asm"));
            std::fs::write(&file, draw_text(&game, draw as usize, stage)).unwrap();
            args.extend([flag.to_string(), format!("{hash}={}", s(&file))]);
        }
    }
    // Kept: every replacement's program hash is the hash it replaced.
    let kept = dir.path().join("kept.rrc.gz");
    let mut kept_args = args.clone();
    kept_args.extend(["--out".into(), s(&kept).into(), "--json".into()]);
    let kept_args: Vec<&str> = kept_args.iter().map(String::as_str).collect();
    let kept_report = json_ok(&kept_args);
    for r in kept_report["replacements"].as_array().unwrap() {
        assert_eq!(r["replaced"], serde_json::json!([r["hash"]]), "{r}");
    }
    // Every new program is bytes the game already holds: RPCS3 keys its maps by content and
    // would drop a second entry of the same bytes, then stop at the first command naming its
    // id, so the file holds each content once and every id a block or command names exists.
    let file = rsxtrace_capture::rrc::read_file(&kept).unwrap();
    let contents: std::collections::HashSet<&[u8]> =
        file.data.iter().map(|d| &d.value[..]).collect();
    assert_eq!(
        contents.len(),
        file.data.len(),
        "one data entry per content"
    );
    let data_ids: std::collections::HashSet<u64> = file.data.iter().map(|d| d.id).collect();
    let block_ids: std::collections::HashSet<u64> = file.blocks.iter().map(|b| b.id).collect();
    assert!(file
        .blocks
        .iter()
        .all(|b| data_ids.contains(&b.value.data_id)));
    assert!(file
        .commands
        .iter()
        .all(|c| c.memory.iter().all(|id| block_ids.contains(id))));
    let edited = dir.path().join("reassembled.rrc.gz");
    args.extend([
        "--canonical".into(),
        "--out".into(),
        s(&edited).into(),
        "--json".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = json_ok(&args);
    // Encoded from the text alone, most programs differ from the game's in unread bits.
    let differ = report["replacements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["replaced"] != serde_json::json!([r["hash"]]))
        .count();
    assert!(differ > 0);
    let replaced: usize = report["replacements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["draws"].as_array().unwrap().len())
        .sum();
    assert_eq!(replaced, 2 * draws.as_array().unwrap().len());
    for renderer in [&["--cpu"][..], &[][..]] {
        let image = |capture: &str, name: &str| {
            let png = dir.path().join(name);
            let mut a = vec!["replay", capture, "--out", s(&png)];
            a.extend_from_slice(renderer);
            assert!(rsxtrace(&a).status.success(), "{a:?}");
            std::fs::read(png).unwrap()
        };
        assert!(
            image(&game, "a.png") == image(s(&edited), "b.png"),
            "{renderer:?}: the reassembled frame differs"
        );
    }
}

/// A draw whose vertex program calls a subroutine below its start slot: its disassembly
/// marks the entry `START`, and that text edited back in loads at its first line and starts
/// at the entry (so does `@N`); a CgBinaryProgram cannot hold it.
#[test]
fn a_program_that_reaches_below_its_start_keeps_its_entry() {
    use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc};
    use rsxtrace_capture::rrc::Location;
    // Loaded at 10, so that the program an edit loads at 0 is told apart.
    let program = rsxtrace_program::vertex::assemble(
        "10: MOV o[COL0], v[POS]\n11: RET\n12: CAL 10; START\n13: MOV o[HPOS], v[POS]; END\n",
    )
    .unwrap();
    assert_eq!(program.start_slot, 12);
    let mut b = CaptureBuilder::new("below");
    b.set_surface(&SurfaceDesc::argb8_square(6, 0, 0x4_0000));
    b.set_vertex_program(&rsxtrace_program::vertex::encode(&program), 10, 12, 1, 1)
        .unwrap();
    b.set_fragment_program(
        Location::Local,
        0x5_0000,
        &rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0,
        0x40,
    )
    .unwrap();
    b.put_memory(Location::Main, 0x1_0000, &[0u8; 36]).unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1_0000)
        .unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("below.rrc.gz");
    b.write_rrc(&path).unwrap();
    let text = draw_text(s(&path), 0, "vertex");
    assert!(text.contains("vertex program at slot 12"), "{text}");
    assert!(text.contains("010: MOV o[COL0], v[POS]\n"), "{text}");
    assert!(text.contains("012: CAL 10; START\n"), "{text}");
    // Edited back in, relabelled to load at 0: it starts at 2.
    let moved = (10..14)
        .fold(text.clone(), |t, n| {
            t.replace(&format!("0{n}:"), &format!("{}:", n - 10))
        })
        .replace("CAL 10", "CAL 0");
    let asm = dir.path().join("below.vasm");
    std::fs::write(&asm, &moved).unwrap();
    let edited = dir.path().join("edited.rrc.gz");
    let report = json_ok(&[
        "edit",
        s(&path),
        "--vertex",
        &format!("0={}", s(&asm)),
        "--out",
        s(&edited),
        "--json",
    ]);
    assert_eq!(report["replacements"][0]["slot"], 0);
    assert_eq!(report["replacements"][0]["start_slot"], 2);
    let draws = json_ok(&["draws", s(&edited), "--json"]);
    assert_eq!(draws[0]["vp_start"], 2);
    let back = draw_text(s(&edited), 0, "vertex");
    assert!(
        back.contains("002: CAL 0; START\n") && back.contains("000: MOV o[COL0], v[POS]\n"),
        "{back}"
    );
    // The draw's own program taken with `@0`: loaded from its lowest slot, started at 12.
    let taken = dir.path().join("taken.rrc.gz");
    json_ok(&[
        "edit",
        s(&path),
        "--vertex",
        "0=@0",
        "--out",
        s(&taken),
        "--json",
    ]);
    let draws = json_ok(&["draws", s(&taken), "--json"]);
    assert_eq!(draws[0]["vp_start"], 12);
    // A CgBinaryProgram starts where it is loaded.
    if let Some(corpus) = rsxtrace_testkit::workspace!().corpus() {
        let cube = corpus.path("ps3autotests/sce_cube_common.vpo");
        let out = dir.path().join("x.vpo");
        let why = failure(&["asm", s(&asm), "--like", s(&cube), "--out", s(&out)]);
        assert!(why.contains("starts at slot 2"), "{why}");
    }
    let raw = dir.path().join("x.bin");
    let report = json_ok(&["asm", s(&asm), "--out", s(&raw), "--json"]);
    assert_eq!(
        (report["load_slot"].clone(), report["start_slot"].clone()),
        (0.into(), 2.into())
    );
}

/// A container's disassembly (its parameter table included) reads back as assembly of its
/// stage: Sony's compiled programs from the corpus, a vertex and a fragment one.
#[test]
fn a_containers_disassembly_reads_back() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (name, stage) in [
        ("ps3autotests/sce_cube_common.vpo", "vertex"),
        ("ps3autotests/rsx_fp_static_test1.fpo", "fragment"),
    ] {
        let file = corpus.path(name);
        let out = rsxtrace(&["disasm", s(&file)]);
        assert!(out.status.success(), "{name}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("; parameter"), "{text}");
        let asm = dir.path().join("program.asm");
        std::fs::write(&asm, &text).unwrap();
        let back = rsxtrace(&["disasm", s(&asm)]);
        let back = String::from_utf8(back.stdout).unwrap();
        assert!(
            back.contains(&format!("({stage} assembly)")),
            "{name}: {back}"
        );
        assert!(!code_lines(&text).is_empty());
        assert_eq!(code_lines(&back), code_lines(&text), "{name}");
    }
}

/// `asm --like`: Sony's dynamic_test1 fragment program with a line inserted at the top,
/// written as a CgBinaryProgram like the original; its uniform follows its inline constants,
/// so `shade --uniform` draws what the original draws with that value. Without `--like`, raw
/// microcode that every command reads.
#[test]
fn asm_writes_a_container_like_the_original() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let original = corpus.path("ps3autotests/rsx_fp_dynamic_test1.fpo");
    let text = String::from_utf8(rsxtrace(&["disasm", s(&original)]).stdout).unwrap();
    let first = text.lines().find(|l| !l.starts_with(';')).unwrap();
    let edited_text = text.replacen(first, &format!("MOVR R2, f[TEX0];\n{first}"), 1);
    let asm = dir.path().join("edited.asm");
    std::fs::write(&asm, &edited_text).unwrap();
    let out = dir.path().join("edited.fpo");
    let report = json_ok(&[
        "asm",
        s(&asm),
        "--like",
        s(&original),
        "--out",
        s(&out),
        "--json",
    ]);
    assert_eq!(report["format"], "CgBinaryProgram");
    assert_eq!(report["stage"], "fragment");
    // Every instruction but the new one keeps the original's words, the file its layout.
    assert_eq!(report["layout"], "original");
    let kept = &report["kept_encoding"];
    assert_eq!(
        kept["kept"].as_u64().unwrap() + 1,
        kept["instructions"].as_u64().unwrap(),
        "{report}"
    );
    let moved = report["moved_uniforms"].as_array().unwrap();
    assert!(moved.iter().any(|u| u["name"] == "iGlobalTime"), "{report}");
    let fields: Vec<&str> = report["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert!(fields.contains(&"registerCount"), "{fields:?}");
    let shade = |program: &Path, png: &str| {
        let png = dir.path().join(png);
        json_ok(&[
            "shade",
            s(program),
            "--size",
            "16x16",
            "--uniform",
            "iGlobalTime=2,0,0,0",
            "--out",
            s(&png),
            "--json",
        ]);
        std::fs::read(png).unwrap()
    };
    assert_eq!(shade(&original, "a.png"), shade(&out, "b.png"));
    // Its disassembly is the edited text (slots counted anew), parameters included.
    let without_slots = |t: &str| {
        code_lines(t)
            .into_iter()
            .map(|l| l.split_once(": ").map_or(l.clone(), |(_, i)| i.to_string()))
            .collect::<Vec<_>>()
    };
    let back = String::from_utf8(rsxtrace(&["disasm", s(&out)]).stdout).unwrap();
    assert_eq!(without_slots(&back), without_slots(&edited_text));
    assert!(back.contains("; iGlobalTime"), "{back}");
    // Raw microcode, read back by `disasm`.
    let raw = dir.path().join("edited.bin");
    let report = json_ok(&["asm", s(&asm), "--out", s(&raw), "--json"]);
    assert_eq!(report["format"], "raw microcode");
    let back = rsxtrace(&["disasm", s(&raw), "--stage", "fragment"]);
    assert_eq!(
        without_slots(&String::from_utf8(back.stdout).unwrap()),
        without_slots(&edited_text)
    );
    // Refusals: a stage the container does not hold, a file that is not text, a container
    // whose uniforms live in constants the new program does not have.
    let cube = corpus.path("ps3autotests/sce_cube_common.vpo");
    let wrong = failure(&["asm", s(&asm), "--like", s(&cube), "--out", s(&raw)]);
    assert!(wrong.contains("vertex"), "{wrong}");
    let binary = failure(&["asm", s(&original), "--out", s(&raw)]);
    assert!(binary.contains("not assembly text"), "{binary}");
    std::fs::write(&asm, "MOVR R0, f[COL0];\n").unwrap();
    let moved = failure(&["asm", s(&asm), "--like", s(&original), "--out", s(&out)]);
    assert!(moved.contains("iGlobalTime"), "{moved}");
}

/// Every corpus program, disassembled and written back with `asm --like` itself, is its very
/// file (each instruction keeps its words, the container its layout); with `--canonical`
/// (every instruction encoded from its text) a fragment program shades the image the
/// original shades.
#[test]
fn every_corpus_program_written_back_is_its_very_file() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = corpus.files_ending("ps3autotests", ".fpo");
    assert!(files.len() >= 9, "{files:?}");
    files.extend(corpus.files_ending("ps3autotests", ".vpo"));
    let mut restored = 0;
    for name in files {
        let original = corpus.path(&name);
        let text = rsxtrace(&["disasm", s(&original)]);
        let asm = dir.path().join("p.asm");
        std::fs::write(&asm, text.stdout).unwrap();
        let again = dir.path().join("p.bin");
        let report = json_ok(&[
            "asm",
            s(&asm),
            "--like",
            s(&original),
            "--out",
            s(&again),
            "--json",
        ]);
        assert_eq!(report["layout"], "original", "{name}");
        let kept = &report["kept_encoding"];
        assert_eq!(kept["kept"], kept["instructions"], "{name}: {report}");
        restored += kept["restored"].as_u64().unwrap();
        assert!(
            std::fs::read(&again).unwrap() == std::fs::read(&original).unwrap(),
            "{name}"
        );
        if name.ends_with(".vpo") {
            continue;
        }
        json_ok(&[
            "asm",
            s(&asm),
            "--like",
            s(&original),
            "--canonical",
            "--out",
            s(&again),
            "--json",
        ]);
        let shade = |program: &Path, png: &str| {
            let png = dir.path().join(png);
            json_ok(&[
                "shade",
                s(program),
                "--size",
                "48x32",
                "--out",
                s(&png),
                "--json",
            ]);
            std::fs::read(png).unwrap()
        };
        assert!(
            shade(&original, "a.png") == shade(&again, "b.png"),
            "{name}"
        );
    }
    // Sony's programs carry bits no unit reads, which the canonical encoding clears.
    assert!(restored > 0);
}

/// `asm --like EXE --offset N`: a program inside an executable (as `disasm` of it lists
/// them), edited and written back in place. Unchanged, the very file; with a constant
/// changed, only that constant's bytes differ and the program read back at that offset says
/// the edit; a program that no longer fits is refused, and so is an executable without
/// `--offset`.
#[test]
fn a_program_inside_an_executable_is_rewritten_in_place() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let exe = corpus.path("ps3autotests/elf/rsx_fp_dynamic_test1.ppu.elf");
    let listed = json_ok(&["disasm", s(&exe), "--json"]);
    let at = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["stage"] == "fragment")
        .and_then(|p| p["file_offset"].as_u64())
        .unwrap()
        .to_string();
    let text = String::from_utf8(rsxtrace(&["disasm", s(&exe), "--offset", &at]).stdout).unwrap();
    let asm = dir.path().join("p.asm");
    let out = dir.path().join("patched.elf");
    let write = |text: &str| {
        std::fs::write(&asm, text).unwrap();
        rsxtrace(&[
            "asm",
            s(&asm),
            "--like",
            s(&exe),
            "--offset",
            &at,
            "--out",
            s(&out),
            "--json",
        ])
    };
    let report = write(&text);
    assert!(report.status.success(), "{report:?}");
    let report: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(report["format"], "in place");
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&exe).unwrap());

    // The last line's constant 1.0 becomes 0.5: the file differs in that constant alone.
    let last = code_lines(&text).last().unwrap().clone();
    assert!(last.contains("{1.0, 0.0, 0.0, 0.0}"), "{last}");
    let edited = text.replace(&last, &last.replace("{1.0,", "{0.5,"));
    assert!(write(&edited).status.success());
    let (before, after) = (std::fs::read(&exe).unwrap(), std::fs::read(&out).unwrap());
    assert_eq!(before.len(), after.len());
    let differ: Vec<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    assert!(!differ.is_empty() && differ.len() <= 4, "{differ:?}");
    let at_byte: usize = at.parse().unwrap();
    assert!(
        differ.iter().all(|&i| i > at_byte && i < at_byte + 1024),
        "{differ:?}"
    );
    let back = String::from_utf8(rsxtrace(&["disasm", s(&out), "--offset", &at]).stdout).unwrap();
    assert_eq!(
        code_lines(&back).last().unwrap(),
        &last.replace("{1.0,", "{0.5,")
    );

    // A line more no longer fits where the program lies.
    let first = code_lines(&text)[0].clone();
    let grown = text.replacen(&first, &format!("MOVR R2, f[TEX0];\n{first}"), 1);
    std::fs::write(&asm, &grown).unwrap();
    let refused = failure(&[
        "asm",
        s(&asm),
        "--like",
        s(&exe),
        "--offset",
        &at,
        "--out",
        s(&out),
    ]);
    assert!(refused.contains("in place"), "{refused}");
    let refused = failure(&["asm", s(&asm), "--like", s(&exe), "--out", s(&out)]);
    assert!(refused.contains("--offset"), "{refused}");
}

/// A shader library that wraps each container in a header of its own (`users.md`: a
/// 0x30-byte studio header before each CgBinaryProgram): `disasm` finds the program behind
/// it, and `asm --like` the wrapped file writes the whole file back, header kept, the very
/// file when nothing changed.
#[test]
fn a_program_behind_a_header_of_its_own_is_read_and_written_in_place() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let wrapped = dir.path().join("library_entry.fpo");
    let header: Vec<u8> = (0..48u8).map(|b| b.wrapping_mul(37) ^ 0x5a).collect();
    let mut bytes = header.clone();
    bytes.extend(corpus.read("ps3autotests/rsx_fp_static_test2.fpo"));
    std::fs::write(&wrapped, &bytes).unwrap();
    let listed = json_ok(&["disasm", s(&wrapped), "--json"]);
    assert_eq!(listed[0]["file_offset"], 48, "{listed}");
    let text = rsxtrace(&["disasm", s(&wrapped)]);
    assert!(text.status.success());
    let asm = dir.path().join("p.asm");
    std::fs::write(&asm, &text.stdout).unwrap();
    let out = dir.path().join("again.fpo");
    let report = json_ok(&[
        "asm",
        s(&asm),
        "--like",
        s(&wrapped),
        "--out",
        s(&out),
        "--json",
    ]);
    assert_eq!(report["format"], "in place");
    assert_eq!(report["offset"], 48);
    assert!(std::fs::read(&out).unwrap() == bytes);
}

#[test]
fn uniforms_are_written_into_the_containers_that_declare_them() {
    let game = game();
    let dir = tempfile::tempdir().unwrap();
    let fpo = dir.path().join("tint.fpo");
    std::fs::write(&fpo, crate::probe_cli::tint_container()).unwrap();
    let out = dir.path().join("edited.rrc.gz");
    let arg = format!("0={}", s(&fpo));
    let report = json_ok(&[
        "edit",
        &game,
        "--fragment",
        &arg,
        "--uniform",
        "Tint=0.25,0.5,1,1",
        "--out",
        s(&out),
        "--json",
    ]);
    assert_eq!(report["uniforms"][0]["name"], "Tint");
    assert_eq!(report["uniforms"][0]["files"], serde_json::json!([s(&fpo)]));
    let text = draw_text(s(&out), 0, "fragment");
    assert!(text.contains("{0.25, 0.5, 1.0, 1.0}"), "{text}");
    // A uniform no file declares is an error, and nothing is written.
    let none = dir.path().join("none.rrc.gz");
    assert!(failure(&[
        "edit",
        &game,
        "--fragment",
        &arg,
        "--uniform",
        "Nope=1,1,1,1",
        "--out",
        s(&none)
    ])
    .contains("no fragment program file given declares a uniform of that name"));
    assert!(!none.exists());
}

#[test]
fn a_program_is_taken_from_a_draw_of_this_capture_or_another() {
    let game = game();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("edited.rrc.gz");
    let report = json_ok(&[
        "edit",
        &game,
        "--fragment",
        "0..2=@100",
        "--vertex",
        "0..2=@100",
        "--out",
        s(&out),
        "--json",
    ]);
    assert_eq!(report["replacements"][0]["file"], "@100");
    let before = json_ok(&["draws", &game, "--json"]);
    let after = json_ok(&["draws", s(&out), "--json"]);
    for d in 0..2 {
        for key in ["fp_hash", "vp_hash"] {
            assert_eq!(after[d][key], before[100][key], "draw {d}: {key}");
        }
    }
    assert_eq!(after[2]["fp_hash"], before[2]["fp_hash"]);
    // From another capture: the basic sample's draw 1.
    let basic = crate::cli_support::sample();
    let basic_draws = json_ok(&["draws", &basic, "--json"]);
    let arg = format!("3={basic}@1");
    json_ok(&[
        "edit",
        &game,
        "--fragment",
        &arg,
        "--out",
        s(&out),
        "--json",
    ]);
    let after = json_ok(&["draws", s(&out), "--json"]);
    assert_eq!(after[3]["fp_hash"], basic_draws[1]["fp_hash"]);
    // A draw past the frame is named.
    assert!(
        failure(&["edit", &game, "--fragment", "0=@5000", "--out", s(&out)])
            .contains("the frame has 2400 draws")
    );
}
