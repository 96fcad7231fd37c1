//! Programs built by a PSL1GHT of the last years (`cgcomp`'s layout since July 2020,
//! `rsxtrace_testkit::psl1ght`), through the CLI: `disasm` names the layout and lists the
//! parameters, `batch` finds both loose and inside an executable's bytes and checks them.

use crate::cli_support::{json_ok, rsxtrace, s};
use rsxtrace_testkit::psl1ght::{fragment_2020, vertex_2020};
use serde_json::Value;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn disasm_reads_the_2020_layout() {
    let dir = tempfile::tempdir().unwrap();
    let (vp, fp) = (dir.path().join("v.vpo"), dir.path().join("f.fpo"));
    std::fs::write(&vp, vertex_2020()).unwrap();
    std::fs::write(&fp, fragment_2020()).unwrap();

    let o = rsxtrace(&["disasm", s(&vp)]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
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
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }

    let o = rsxtrace(&["disasm", s(&fp)]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        out.contains("(PSL1GHT fragment program (cgcomp since July 2020))"),
        "{out}"
    );
    assert!(out.contains("MOVR R0, {0.0, 0.0, 1.0, 1.0}; END"), "{out}");
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
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let mut stages: Vec<&str> = report["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["status"], "recompiled", "{p}");
            p["stage"].as_str().unwrap()
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
