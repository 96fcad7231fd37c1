//! The workspace's layering, checked from `cargo metadata`: dependencies (normal and dev) point
//! one way, harness → verify → replay → capture; the test-support crate depends on no
//! rsxtrace crate; the CLI package is a binary with no library to call into.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The layer of a workspace package, from the folder its manifest is in: the pipeline's order,
/// front ends (harness, traces) on top, the test-support crate below everything.
fn layer(root: &Path, manifest: &Path) -> u8 {
    let rel = manifest.strip_prefix(root).unwrap_or(manifest);
    let first = rel.components().next().and_then(|c| c.as_os_str().to_str());
    if rel.starts_with("traces/testkit") {
        return 0;
    }
    match first {
        Some("capture") => 1,
        Some("replay") => 2,
        Some("verify") => 3,
        Some("harness") | Some("traces") => 4,
        other => panic!(
            "package outside the known folders: {other:?} ({})",
            rel.display()
        ),
    }
}

/// The workspace's root and its packages, as `cargo metadata --no-deps` lists them.
fn workspace_packages() -> (std::path::PathBuf, Vec<serde_json::Value>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.canonicalize().unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(&root)
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap().clone();
    (root, packages)
}

#[test]
fn dependencies_point_one_way() {
    let (root, packages) = workspace_packages();
    let layers: BTreeMap<String, u8> = packages
        .iter()
        .map(|p| {
            let manifest = Path::new(p["manifest_path"].as_str().unwrap());
            (
                p["name"].as_str().unwrap().to_string(),
                layer(&root, manifest),
            )
        })
        .collect();
    assert!(layers.len() >= 15, "{layers:?}");
    let mut back_edges = Vec::new();
    for p in &packages {
        let name = p["name"].as_str().unwrap();
        for d in p["dependencies"].as_array().unwrap() {
            let dep = d["name"].as_str().unwrap();
            let Some(&dep_layer) = layers.get(dep) else {
                continue;
            };
            let kind = d["kind"].as_str().unwrap_or("normal");
            if dep_layer > layers[name] || (layers[name] == 0 && dep_layer == 0 && dep != name) {
                back_edges.push(format!("{name} -> {dep} ({kind})"));
            }
        }
    }
    assert!(
        back_edges.is_empty(),
        "edges back up the pipeline: {back_edges:?}"
    );
    let cli = packages.iter().find(|p| p["name"] == "rsxtrace").unwrap();
    let kinds: Vec<&str> = cli["targets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| {
            t["kind"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|k| k.as_str())
        })
        .collect();
    assert!(
        !kinds.contains(&"lib"),
        "the CLI package has a library: {kinds:?}"
    );
}

/// A crate's integration tests link into one binary (`tests/main.rs`, docs/testing.md): a file
/// in `tests/` that `main.rs` does not declare would never be compiled nor run, and a second
/// test target would bring back a binary per file.
#[test]
fn every_test_file_is_a_module_of_its_crates_one_test_binary() {
    let (_, packages) = workspace_packages();
    let mut problems = Vec::new();
    let mut crates_with_tests = 0;
    for p in &packages {
        let name = p["name"].as_str().unwrap();
        let dir = Path::new(p["manifest_path"].as_str().unwrap())
            .parent()
            .unwrap()
            .to_path_buf();
        let tests: Vec<&serde_json::Value> = p["targets"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "test"))
            .collect();
        let Ok(entries) = std::fs::read_dir(dir.join("tests")) else {
            if !tests.is_empty() {
                problems.push(format!("{name}: test targets without a tests/ folder"));
            }
            continue;
        };
        crates_with_tests += 1;
        let main = dir.join("tests/main.rs");
        match tests.as_slice() {
            [t] if t["name"] == "integration"
                && Path::new(t["src_path"].as_str().unwrap()) == main => {}
            _ => problems.push(format!(
                "{name}: test targets {:?}, expected one named integration at tests/main.rs",
                tests.iter().map(|t| &t["name"]).collect::<Vec<_>>()
            )),
        }
        let declared: Vec<String> = std::fs::read_to_string(&main)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                l.trim()
                    .strip_prefix("mod ")?
                    .strip_suffix(';')
                    .map(String::from)
            })
            .collect();
        for entry in entries {
            let path = entry.unwrap().path();
            let module = if path.is_dir() && path.join("mod.rs").is_file() {
                path.file_name().unwrap().to_string_lossy().into_owned()
            } else if path.extension().is_some_and(|e| e == "rs") {
                path.file_stem().unwrap().to_string_lossy().into_owned()
            } else {
                continue;
            };
            if module != "main" && !declared.contains(&module) {
                problems.push(format!(
                    "{name}: {} is not declared in tests/main.rs",
                    path.display()
                ));
            }
        }
    }
    assert!(
        crates_with_tests >= 15,
        "{crates_with_tests} crates with tests"
    );
    assert!(problems.is_empty(), "{problems:#?}");
}
