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

#[test]
fn dependencies_point_one_way() {
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
    let packages = meta["packages"].as_array().unwrap();
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
    for p in packages {
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
