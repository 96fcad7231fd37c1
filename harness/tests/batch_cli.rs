//! `rsxtrace batch` end to end: exit statuses (0 all proven or recompiled, 1 not, 2 when the run
//! cannot proceed), the table, `--json`, `--html`, the export with its manifest, and bad files
//! reported as warnings without changing the status.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn rsxtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A folder with the bundled level's fog program (`traces/level/fog.fpo`) and, when the
/// corpus is present, two of its programs.
fn library() -> tempfile::TempDir {
    let ws = rsxtrace_testkit::workspace!();
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        ws.root().join("traces/level/fog.fpo"),
        dir.path().join("fog.fpo"),
    )
    .unwrap();
    if let Some(corpus) = ws.corpus() {
        for n in ["primitives.vpo", "rsx_fp_static_test1.fpo"] {
            std::fs::write(
                dir.path().join(n),
                corpus.read(&format!("ps3autotests/{n}")),
            )
            .unwrap();
        }
    }
    dir
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn without_a_device_every_program_is_recompiled_and_exported() {
    let lib = library();
    std::fs::write(lib.path().join("cut.fpo"), {
        let b = std::fs::read(lib.path().join("fog.fpo")).unwrap();
        b[..b.len() / 2].to_vec()
    })
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("batch.json");
    let html = out.path().join("html");
    let export = out.path().join("export");
    let o = rsxtrace(&[
        "batch",
        "--no-gpu",
        "--quiet",
        p(lib.path()),
        "--json",
        p(&json),
        "--html",
        p(&html),
        "--out",
        p(&export),
    ]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    // The bad file is a warning, not a failure.
    assert!(
        stderr.contains("warning:") && stderr.contains("cut.fpo"),
        "{stderr}"
    );
    let stdout = text(&o.stdout);
    assert!(
        stdout.contains("recompiled") && stdout.contains("fog.fpo"),
        "{stdout}"
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["schema"], 1);
    assert_eq!(report["device"], Value::Null);
    let programs = report["programs"].as_array().unwrap();
    assert!(!programs.is_empty());
    for prog in programs {
        assert_eq!(prog["status"], "recompiled", "{prog}");
        assert_eq!(prog["key"].as_str().unwrap().len(), 16);
    }
    assert!(report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .any(|q| q["path"].as_str().unwrap().ends_with("cut.fpo")));
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(page.contains("fog.fpo") && page.contains("WGSL"));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(export.join("manifest.json")).unwrap()).unwrap();
    let entries = manifest["programs"].as_array().unwrap();
    assert_eq!(entries.len(), programs.len());
    for e in entries {
        let files = e["files"].as_array().unwrap();
        assert!(files.iter().any(|f| f.as_str().unwrap().ends_with(".wgsl")));
        for f in files {
            assert!(export.join(f.as_str().unwrap()).is_file(), "{f}");
        }
        // The disassembly, which reads back as assembly of its stage.
        let asm = files
            .iter()
            .map(|f| export.join(f.as_str().unwrap()))
            .find(|f| f.extension().is_some_and(|x| x == "asm"))
            .expect("an .asm file");
        let stage = e["stage"].as_str().unwrap();
        let back = rsxtrace(&["disasm", p(&asm), "--stage", stage]);
        assert!(back.status.success(), "{}", text(&back.stderr));
        let code = |t: &str| {
            t.lines()
                .filter(|l| !l.starts_with(';'))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let written = std::fs::read_to_string(&asm).unwrap();
        assert!(!code(&written).is_empty());
        assert_eq!(
            code(&text(&back.stdout)),
            code(&written),
            "{}",
            asm.display()
        );
    }
}

#[test]
fn on_the_device_the_fog_program_is_proven() {
    let lib = library();
    let o = rsxtrace(&["batch", "--quiet", p(lib.path())]);
    let stderr = text(&o.stderr);
    if rsxtrace_testkit::device::cli_adapter_missing("batch", o.status.code(), &stderr) {
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{stderr}\n{}", text(&o.stdout));
    assert!(text(&o.stdout).contains("proven"));
}

#[test]
fn the_run_itself_failing_exits_2() {
    let empty = tempfile::tempdir().unwrap();
    let o = rsxtrace(&["batch", "--no-gpu", "--quiet", p(empty.path())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("no program found"),
        "{}",
        text(&o.stderr)
    );
    let o = rsxtrace(&["batch", "--no-gpu", "--quiet", "/no/such/path"]);
    assert_eq!(o.status.code(), Some(2));
    let lib = library();
    let o = rsxtrace(&["batch", "--no-gpu", "--quiet", "--jobs", "0", p(lib.path())]);
    assert_eq!(o.status.code(), Some(2));
}

/// An RPCS3 shader cache laid out by hand from two corpus programs, named by their current
/// (checksum) RPCS3 names (`rpcs3-shader-cache.md` §2.3 test vectors), with no pipeline file:
/// both are found under the title folder, checked with the default state and say so, and
/// carry the keys of the same programs found loose.
#[test]
fn an_rpcs3_cache_is_found_and_checked_with_default_state() {
    use rsxtrace_program::container::Container;
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let title = tempfile::tempdir().unwrap();
    let raw = title
        .path()
        .join("BLES00000/ppu-abc-EBOOT.BIN/shaders_cache/raw");
    std::fs::create_dir_all(&raw).unwrap();
    let ucode = |name: &str| {
        let bytes = corpus.read(&format!("ps3autotests/{name}"));
        Container::parse(&bytes).unwrap().ucode().to_vec()
    };
    // .vp: the words little-endian (§2.1); .fp: the memory bytes as they are (§2.2).
    let vp: Vec<u8> = ucode("primitives.vpo")
        .chunks_exact(4)
        .flat_map(|w| [w[3], w[2], w[1], w[0]])
        .collect();
    std::fs::write(raw.join("FC75CDCEBCD91A9A.vp"), vp).unwrap();
    std::fs::write(raw.join("DBB822C008101A2.fp"), ucode("primitives.fpo")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let cached = out.path().join("cache.json");
    let o = rsxtrace(&[
        "batch",
        "--no-gpu",
        "--quiet",
        p(title.path()),
        "--json",
        p(&cached),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let report: Value = serde_json::from_slice(&std::fs::read(&cached).unwrap()).unwrap();
    let programs = report["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 2, "{report:#}");
    for prog in programs {
        let source = &prog["sources"][0];
        assert_eq!(source["kind"], "rpcs3_cache", "{prog:#}");
        assert_eq!(source["era"], "checksum", "{prog:#}");
        assert_eq!(prog["state_source"], "default");
        assert!(
            prog["notes"].to_string().contains("default_state"),
            "{prog:#}"
        );
    }
    let loose_dir = tempfile::tempdir().unwrap();
    for n in ["primitives.vpo", "primitives.fpo"] {
        std::fs::write(
            loose_dir.path().join(n),
            corpus.read(&format!("ps3autotests/{n}")),
        )
        .unwrap();
    }
    let loose = out.path().join("loose.json");
    let o = rsxtrace(&[
        "batch",
        "--no-gpu",
        "--quiet",
        p(loose_dir.path()),
        "--json",
        p(&loose),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let keys = |v: &Value| {
        let mut k: Vec<String> = v["programs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["key"].as_str().unwrap().to_string())
            .collect();
        k.sort();
        k
    };
    let loose: Value = serde_json::from_slice(&std::fs::read(&loose).unwrap()).unwrap();
    assert_eq!(keys(&report), keys(&loose));
}
