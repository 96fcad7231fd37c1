//! Programs built by a PSL1GHT of the last years (`cgcomp`'s layout since July 2020,
//! `rsxtrace_testkit::psl1ght`), through the CLI: `disasm` names the layout and lists the
//! parameters (and `--json` what the container states), `batch` finds both loose and inside an executable's bytes and checks them.

use crate::cli_support::{json_ok, rsxtrace, s};
use rsxtrace_testkit::psl1ght::{fragment_2020, vertex_2020};
use serde_json::Value;

fn text_of(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn disasm_reads_the_2020_layout() {
    let dir = tempfile::tempdir().unwrap();
    let (vp, fp) = (dir.path().join("v.vpo"), dir.path().join("f.fpo"));
    std::fs::write(&vp, vertex_2020()).unwrap();
    std::fs::write(&fp, fragment_2020()).unwrap();

    let o = rsxtrace(&["disasm", s(&vp)]);
    let out = text_of(&o.stdout);
    assert!(o.status.success(), "{}", text_of(&o.stderr));
    assert!(
        out.contains("(PSL1GHT vertex program (cgcomp since July 2020))"),
        "{out}"
    );
    for line in [
        "position",
        "attribute 0",
        "scale",
        "constant 4",
        "MOV o[HPOS], v[POS]; END",
        "; loads at slot 0, input mask 0x1, output mask 0x4020",
        "; uploads c[5] = [0.0, 0.5, 1.0, 0.0] with the program",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }

    // The JSON carries what the container states around the program.
    let j = json_ok(&["disasm", s(&vp), "--json"]);
    let c = &j["container"];
    assert_eq!(
        c["format"],
        "PSL1GHT vertex program (cgcomp since July 2020)"
    );
    assert_eq!(c["parameters"][0]["name"], "position");
    assert_eq!(c["parameters"][0]["binding"]["Attribute"]["index"], 0);
    assert_eq!(c["vertex_load"]["output_mask"], 0x4020);
    assert_eq!(c["vertex_constants"][0]["register"], 5);
    assert_eq!(
        c["vertex_constants"][0]["value"],
        serde_json::json!([0.0, 0.5, 1.0, 0.0])
    );
    assert_eq!(c["control_word"], Value::Null);
    let j = json_ok(&["disasm", s(&fp), "--json"]);
    assert_eq!(j["container"]["control_word"], 0x0300_0440);
    assert_eq!(
        j["container"]["texcoord_controls"],
        serde_json::json!([{"coordinate": 0, "value": 1}])
    );

    let o = rsxtrace(&["disasm", s(&fp)]);
    let out = text_of(&o.stdout);
    assert!(o.status.success(), "{}", text_of(&o.stderr));
    assert!(
        out.contains("(PSL1GHT fragment program (cgcomp since July 2020))"),
        "{out}"
    );
    assert!(out.contains("MOVR R0, {0.0, 0.0, 1.0, 1.0}; END"), "{out}");
    assert!(
        out.contains("; SHADER_CONTROL 0x03000440 when loaded"),
        "{out}"
    );
    assert!(
        out.contains("; TEX_COORD_CONTROL[0] 0x1 when loaded"),
        "{out}"
    );
}

#[test]
fn batch_checks_them_loose_and_inside_an_executable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("v.vpo"), vertex_2020()).unwrap();
    // The same two programs as an executable's data: 4-byte aligned among other bytes.
    let mut image = vec![0xA5u8; 0x44];
    image.extend(vertex_2020());
    image.extend([0x5Au8; 4]);
    image.extend(fragment_2020());
    std::fs::write(dir.path().join("homebrew.pak"), &image).unwrap();
    let json = dir.path().join("batch.json");
    let o = rsxtrace(&[
        "batch",
        "--no-gpu",
        "--quiet",
        s(dir.path()),
        "--json",
        s(&json),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text_of(&o.stderr));
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let mut stages: Vec<&str> = report["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["status"], "recompiled", "{p}");
            let stage = p["stage"].as_str().unwrap();
            let format = format!("PSL1GHT {stage} program (cgcomp since July 2020)");
            assert_eq!(p["formats"], serde_json::json!([format]), "{p}");
            stage
        })
        .collect();
    stages.sort();
    // The vertex program twice (loose, in the executable) is one program.
    assert_eq!(stages, ["fragment", "vertex"], "{report}");
    assert!(
        report["problems"].as_array().unwrap().is_empty(),
        "{report}"
    );

    // `disasm --json` of the executable lists both, each with its offset.
    let listed = json_ok(&["disasm", s(&dir.path().join("homebrew.pak")), "--json"]);
    let listed = listed.to_string();
    assert!(
        listed.contains("\"vertex\"") && listed.contains("\"fragment\""),
        "{listed}"
    );
}

#[test]
fn asm_writes_like_a_psl1ght_container() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n);
    std::fs::write(path("f.fpo"), fragment_2020()).unwrap();
    std::fs::write(path("v.vpo"), vertex_2020()).unwrap();

    // Its own disassembly written like it: the very file.
    for (file, original) in [("f.fpo", fragment_2020()), ("v.vpo", vertex_2020())] {
        let text = rsxtrace(&["disasm", s(&path(file))]);
        std::fs::write(path("same.asm"), &text.stdout).unwrap();
        let o = rsxtrace(&[
            "asm",
            s(&path("same.asm")),
            "--like",
            s(&path(file)),
            "--out",
            s(&path("same.out")),
        ]);
        assert!(o.status.success(), "{}", text_of(&o.stderr));
        assert_eq!(std::fs::read(path("same.out")).unwrap(), original, "{file}");
    }

    // A line added in front: the constant's offset table follows it, the new coordinate
    // joins texcoords, and the summary says so.
    let text = text_of(&rsxtrace(&["disasm", s(&path("f.fpo"))]).stdout);
    let edited = text.replacen("   0: MOVR R0", "   0: MOVR R1, f[TEX1];\n   1: MOVR R0", 1);
    std::fs::write(path("edited.asm"), edited).unwrap();
    let o = rsxtrace(&[
        "asm",
        s(&path("edited.asm")),
        "--like",
        s(&path("f.fpo")),
        "--out",
        s(&path("edited.fpo")),
    ]);
    let out = text_of(&o.stdout);
    assert!(o.status.success(), "{}", text_of(&o.stderr));
    assert!(
        out.contains("uniform uColor now in the inline constants at 0x20"),
        "{out}"
    );
    assert!(out.contains("texcoords: 0x1 -> 0x3"), "{out}");
    assert!(
        out.contains("PSL1GHT fragment program (cgcomp since July 2020)"),
        "{out}"
    );
    let back = text_of(&rsxtrace(&["disasm", s(&path("edited.fpo"))]).stdout);
    assert!(back.contains("   0: MOVR R1, f[TEX1];"), "{back}");
    assert!(
        back.contains("   1: MOVR R0, {0.0, 0.0, 1.0, 1.0}; END"),
        "{back}"
    );
}

#[test]
fn asm_rewrites_a_psl1ght_program_in_place_inside_an_executable() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n);
    let mut image = vec![0xA5u8; 0x44];
    let vertex_at = image.len();
    image.extend(vertex_2020());
    image.extend([0x5Au8; 4]);
    image.extend(fragment_2020());
    std::fs::write(path("homebrew.elf"), &image).unwrap();
    let offset = vertex_at.to_string();

    // Same size (one instruction, another output): in place, every other byte kept.
    std::fs::write(path("p.asm"), "000: MOV o[COL0], v[0]; END\n").unwrap();
    let o = rsxtrace(&[
        "asm",
        s(&path("p.asm")),
        "--like",
        s(&path("homebrew.elf")),
        "--offset",
        &offset,
        "--out",
        s(&path("patched.elf")),
        "--json",
    ]);
    assert!(o.status.success(), "{}", text_of(&o.stderr));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["format"], "in place", "{summary}");
    let patched = std::fs::read(path("patched.elf")).unwrap();
    assert_eq!(patched.len(), image.len());
    let differs: Vec<usize> = (0..image.len())
        .filter(|&i| patched[i] != image[i])
        .collect();
    // The output mask (COL0 added) and the microcode changed, nothing outside the program.
    assert!(!differs.is_empty());
    assert!(
        differs
            .iter()
            .all(|&i| (vertex_at..vertex_at + 0x90).contains(&i)),
        "{differs:?}"
    );
    let back = text_of(&rsxtrace(&["disasm", s(&path("patched.elf")), "--offset", &offset]).stdout);
    assert!(back.contains("MOV o[COL0], v[POS]; END"), "{back}");

    // Two instructions need 16 bytes more than the program has there: refused.
    std::fs::write(
        path("long.asm"),
        "000: MOV o[COL0], v[0];\n001: MOV o[HPOS], v[0]; END\n",
    )
    .unwrap();
    let o = rsxtrace(&[
        "asm",
        s(&path("long.asm")),
        "--like",
        s(&path("homebrew.elf")),
        "--offset",
        &offset,
        "--out",
        s(&path("long.elf")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text_of(&o.stderr).contains("cannot be written in place"),
        "{}",
        text_of(&o.stderr)
    );
}

#[test]
fn edit_uploads_a_psl1ght_vertex_programs_literals() {
    let dir = tempfile::tempdir().unwrap();
    let vp = dir.path().join("v.vpo");
    std::fs::write(&vp, vertex_2020()).unwrap();
    let out = dir.path().join("edited.rrc.gz");
    let (sample, vertex) = (crate::cli_support::sample(), format!("all={}", s(&vp)));
    let args = ["edit", &sample, "--vertex", &vertex, "--out", s(&out)];
    let o = rsxtrace(&args);
    let text = text_of(&o.stdout);
    assert!(o.status.success(), "{}", text_of(&o.stderr));
    assert!(
        text.contains("with the 1 constant its container's loader uploads (c[5])"),
        "{text}"
    );
    let json = json_ok(&[&args[..], &["--json"]].concat());
    assert_eq!(
        json["replacements"][0]["vertex_constants"],
        serde_json::json!([5])
    );
}
