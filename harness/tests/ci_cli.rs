//! `rsxtrace ci` end to end: the repository's `traces/manifest.toml` against its checked-in
//! references (CPU path, and GPU path when an adapter exists), then manifests in a temporary
//! directory with pass, fail (a wrong reference), new, skip and error cases: exit statuses,
//! `--update`, the JUnit XML (parsed back), the JSON and HTML reports, bisection, sharding.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    rsxtrace_testkit::workspace!().root().to_path_buf()
}

/// The XDG_RUNTIME_DIR for Mesa (stack-notes.md 1(b)): `rsxtrace-testkit`'s private one.
fn runtime_dir() -> PathBuf {
    rsxtrace_testkit::device::runtime_dir()
}

fn rsxtrace(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .current_dir(dir)
        .args(args)
        .env("XDG_RUNTIME_DIR", runtime_dir())
        .output()
        .expect("run rsxtrace")
}

fn describe(args: &[&str], out: &Output) -> String {
    format!(
        "rsxtrace {args:?} exited {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Run in `dir`, expect exit status `code`, return the JSON report printed with `--json -`.
fn ci_json(dir: &Path, args: &[&str], code: i32) -> Value {
    let mut all = vec!["ci"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "-"]);
    let out = rsxtrace(dir, &all);
    assert_eq!(out.status.code(), Some(code), "{}", describe(&all, &out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&all, &out)))
}

fn statuses(report: &Value) -> BTreeMap<String, String> {
    report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn sample() -> String {
    root()
        .join("traces/samples/basic.rrc.gz")
        .to_str()
        .unwrap()
        .to_string()
}

/// Whether a GPU adapter opens; a loud skip when none exists (a failure under CI=true, and
/// on any other error).
fn gpu_available(test: &str) -> bool {
    rsxtrace_testkit::device::open_or_skip(
        test,
        || rsxtrace_gpu::Gpu::new(Default::default()),
        |e| matches!(e, rsxtrace_gpu::GpuError::NoAdapter { .. }),
    )
    .is_some()
}

/// A `width` × `height` PNG of one colour.
fn write_png(path: &Path, width: u32, height: u32, rgba: [u8; 4]) {
    let pixels: Vec<u8> = rgba
        .iter()
        .copied()
        .cycle()
        .take(width as usize * height as usize * 4)
        .collect();
    rsxtrace_testkit::image::write_png(path, width, height, &pixels);
}

/// Runs the repository manifest on `paths`, writing the reports under the target directory
/// so a failure can be looked at.
fn repository_manifest(paths: &str) {
    let reports = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ci-{paths}"));
    let html = reports.join("html");
    let junit = reports.join("junit.xml");
    let manifest = root().join("traces/manifest.toml");
    let args = [
        "--paths",
        paths,
        "--html",
        html.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ];
    let mut all = vec!["ci", manifest.to_str().unwrap()];
    all.extend_from_slice(&args);
    all.extend_from_slice(&["--json", "-"]);
    let out = rsxtrace(&root(), &all);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", describe(&all, &out)));
    assert!(
        out.status.code() == Some(0),
        "traces/manifest.toml does not pass on {paths}: {}; see {} (references are updated \
         with `rsxtrace ci traces/manifest.toml --update`, docs/ci.md)\n{}",
        report["summary"],
        html.join("index.html").display(),
        describe(&all, &out)
    );
    let summary = &report["summary"];
    assert!(summary["total"].as_u64().unwrap() >= 3, "{summary}");
    assert_eq!(summary["fail"], 0);
    assert_eq!(summary["new"], 0);
    assert_eq!(summary["error"], 0);
    for trace in report["traces"].as_array().unwrap() {
        for path in trace["paths"].as_array().unwrap() {
            assert_eq!(path["status"], "pass", "{trace}");
            // The occlusion frame's flare behind the occluder is left out on every path
            // (draw 3), and the paths decide alike (no warning says otherwise).
            if trace["name"] == "occlusion" {
                assert_eq!(path["not_drawn"], serde_json::json!([3]), "{trace}");
                assert!(
                    !path["warnings"].to_string().contains("decided otherwise"),
                    "{trace}"
                );
            }
        }
    }
}

#[test]
fn repository_manifest_passes_on_the_cpu() {
    repository_manifest("cpu");
}

#[test]
fn repository_manifest_passes_on_the_gpu() {
    // Both paths: a GPU failure is then bisected against the CPU render in the report, and
    // the `max_divergence` checks run.
    if gpu_available("repository_manifest_passes_on_the_gpu") {
        repository_manifest("both");
    }
}

/// A manifest with one trace of each kind in `dir`: `passes` and `fails` and `fresh` render
/// the sample; `fails` has a solid magenta reference; `skipped` is skipped.
fn status_manifest(dir: &Path) {
    let sample = sample();
    std::fs::create_dir_all(dir.join("refs")).unwrap();
    write_png(&dir.join("refs/fails.png"), 256, 256, [255, 0, 255, 255]);
    std::fs::write(
        dir.join("ci.toml"),
        format!(
            r#"
[defaults]
references = "refs"
threshold = 8

[[trace]]
name = "passes"
file = "{sample}"

[[trace]]
name = "fails"
file = "{sample}"

[[trace]]
name = "fresh"
file = "{sample}"
draws = "0..2"

[[trace]]
name = "skipped"
file = "{sample}"
skip = "waiting for issue 9"
max_divergence = 0
"#
        ),
    )
    .unwrap();
}

#[test]
fn pass_fail_new_skip_and_update() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    status_manifest(dir);
    // Make `passes` a real pass: its reference is the CPU render.
    let report = ci_json(
        dir,
        &["ci.toml", "--paths", "cpu", "--trace", "passes", "--update"],
        0,
    );
    assert_eq!(report["traces"][0]["status"], "new");
    assert_eq!(report["traces"][0]["updated"], true);
    assert!(dir.join("refs/passes.png").is_file());
    let statuses_now = statuses(&report);
    assert_eq!(statuses_now["fails"], "skip", "not selected by --trace");

    let html = dir.join("report");
    let junit = dir.join("junit.xml");
    let args = [
        "ci.toml",
        "--paths",
        "cpu",
        "--html",
        html.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ];
    let report = ci_json(dir, &args, 1);
    let expected: BTreeMap<String, String> = [
        ("passes", "pass"),
        ("fails", "fail"),
        ("fresh", "new"),
        ("skipped", "skip"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(statuses(&report), expected);
    let summary = &report["summary"];
    assert_eq!(
        (
            &summary["pass"],
            &summary["fail"],
            &summary["new"],
            &summary["skip"]
        ),
        (&1.into(), &1.into(), &1.into(), &1.into())
    );
    // The failing trace: every pixel differs from magenta, so all are over the threshold.
    let fails = &report["traces"][1];
    let cpu = &fails["paths"][0];
    assert_eq!(cpu["path"], "cpu");
    assert_eq!(cpu["backend"], "cpu");
    assert_eq!(cpu["diff"]["pixels_over"], 256 * 256);
    assert!(cpu["reasons"][0]
        .as_str()
        .unwrap()
        .starts_with("image departs from the reference"));
    // Only the CPU path ran: bisection is impossible, and the report says why.
    assert_eq!(fails["bisect"]["status"], "unavailable");
    assert!(
        fails["bisect"]["reason"].as_str().unwrap().contains("CPU"),
        "{}",
        fails["bisect"]
    );
    // The checksum is the one `replay` reports for the same render.
    let replay_out = dir.join("frame.png");
    let replay = rsxtrace(
        dir,
        &[
            "replay",
            &sample(),
            "--cpu",
            "--out",
            replay_out.to_str().unwrap(),
            "--json",
        ],
    );
    let replay: Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(cpu["checksum"], replay["checksum"]);
    // The skipped trace keeps its reason; its divergence limit is not checked.
    let skipped = &report["traces"][3];
    assert_eq!(
        skipped["reasons"][0],
        "skipped by the manifest: waiting for issue 9"
    );

    // JUnit: well-formed, one testcase per trace with the right element.
    let xml = std::fs::read_to_string(&junit).unwrap();
    let cases = junit_testcases(&xml);
    let by_name: BTreeMap<&str, Option<&str>> = cases
        .iter()
        .map(|(name, child)| (name.as_str(), child.as_deref()))
        .collect();
    assert_eq!(by_name.len(), 4);
    assert_eq!(by_name["passes"], Some("system-out"));
    assert_eq!(by_name["fails"], Some("failure"));
    assert_eq!(by_name["fresh"], Some("failure"));
    assert_eq!(by_name["skipped"], Some("skipped"));
    assert!(xml.contains("tests=\"4\" failures=\"2\" errors=\"0\" skipped=\"1\""));

    // HTML: an index with a section per trace and the images of the failing trace.
    let index = std::fs::read_to_string(html.join("index.html")).unwrap();
    for name in ["passes", "fails", "fresh", "skipped"] {
        assert!(
            index.contains(&format!("<section id=\"{name}\">")),
            "{name}"
        );
    }
    for file in ["cpu-actual.png", "expected.png", "cpu-difference.png"] {
        assert!(html.join("fails").join(file).is_file(), "{file}");
        assert!(index.contains(&format!("src=\"fails/{file}\"")), "{file}");
    }
    assert!(!html.join("passes/cpu-difference.png").exists());

    // --update writes the new reference and rewrites the failing one: exit 0.
    let report = ci_json(dir, &["ci.toml", "--paths", "cpu", "--update"], 0);
    let after = statuses(&report);
    assert_eq!(after["fresh"], "new");
    assert_eq!(after["fails"], "pass");
    assert_eq!(report["summary"]["updated"], 2);
    assert!(dir.join("refs/fresh.png").is_file());
    let passes_ref = std::fs::read(dir.join("refs/passes.png")).unwrap();
    // And then everything passes, with the passing reference untouched.
    let report = ci_json(dir, &["ci.toml", "--paths", "cpu"], 0);
    assert_eq!(report["summary"]["pass"], 3);
    assert_eq!(report["summary"]["updated"], 0);
    assert_eq!(
        std::fs::read(dir.join("refs/passes.png")).unwrap(),
        passes_ref
    );
}

#[test]
fn checksums_per_backend() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let sample = sample();
    let manifest = |checksum: &str| {
        std::fs::write(
            dir.join("ci.toml"),
            format!(
                "[[trace]]\nname = \"basic\"\nfile = \"{sample}\"\nchecksum = {{ cpu = \"{checksum}\" }}\n"
            ),
        )
        .unwrap()
    };
    manifest("0000000000000000");
    let report = ci_json(dir, &["ci.toml", "--paths", "cpu", "--update"], 1);
    // The reference was written, but the checksum still fails (--update never edits the
    // manifest) and the report gives the actual one.
    let path = &report["traces"][0]["paths"][0];
    assert_eq!(path["status"], "fail");
    assert_eq!(path["expected_checksum"], "0000000000000000");
    let actual = path["checksum"].as_str().unwrap().to_string();
    assert!(path["reasons"].to_string().contains(&actual));
    manifest(&actual);
    let report = ci_json(dir, &["ci.toml", "--paths", "cpu"], 0);
    assert_eq!(report["traces"][0]["status"], "pass");
}

#[test]
fn shards_partition_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let mut text = String::new();
    for i in 0..7 {
        text.push_str(&format!(
            "[[trace]]\nname = \"t{i}\"\nfile = \"none.rrc\"\nskip = \"sharding test\"\n"
        ));
    }
    std::fs::write(dir.join("ci.toml"), text).unwrap();
    let mut seen = Vec::new();
    for k in 1..=3 {
        let report = ci_json(
            dir,
            &["ci.toml", "--shard", &format!("{k}/3"), "--paths", "cpu"],
            0,
        );
        assert_eq!(report["shard"], format!("{k}/3"));
        seen.extend(statuses(&report).into_keys());
    }
    seen.sort();
    let all: Vec<String> = (0..7).map(|i| format!("t{i}")).collect();
    assert_eq!(seen, all);
    let report = ci_json(dir, &["ci.toml", "--shard", "2/3", "--paths", "cpu"], 0);
    assert_eq!(
        statuses(&report).into_keys().collect::<Vec<_>>(),
        ["t1", "t4"]
    );
}

#[test]
fn errors_are_exit_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let sample = sample();
    // Bad manifest: the message names the key and the line.
    std::fs::write(
        dir.join("bad.toml"),
        "[[trace]]\nname = \"a\"\nfile = \"x\"\nthreshhold = 3\n",
    )
    .unwrap();
    let out = rsxtrace(dir, &["ci", "bad.toml", "--paths", "cpu"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("threshhold") && err.contains("line 4"),
        "{err}"
    );
    // A missing capture and a draw range past the end are trace errors; the others still run.
    std::fs::write(
        dir.join("ci.toml"),
        format!(
            "[[trace]]\nname = \"missing\"\nfile = \"missing.rrc\"\n\
             [[trace]]\nname = \"range\"\nfile = \"{sample}\"\ndraws = \"2..9\"\n\
             [[trace]]\nname = \"fresh\"\nfile = \"{sample}\"\n"
        ),
    )
    .unwrap();
    let report = ci_json(dir, &["ci.toml", "--paths", "cpu"], 2);
    let s = statuses(&report);
    assert_eq!(s["missing"], "error");
    assert_eq!(s["range"], "error");
    assert_eq!(s["fresh"], "new");
    assert!(report["traces"][0]["reasons"][0]
        .as_str()
        .unwrap()
        .contains("missing.rrc"));
    assert!(report["traces"][1]["reasons"][0]
        .as_str()
        .unwrap()
        .contains("3 draws"));
    // Unknown --trace, bad --shard, missing manifest.
    for args in [
        &["ci", "ci.toml", "--trace", "nope"][..],
        &["ci", "ci.toml", "--shard", "4/3"],
        &["ci", "absent.toml"],
    ] {
        let out = rsxtrace(dir, args);
        assert_eq!(out.status.code(), Some(2), "{}", describe(args, &out));
    }
}

#[test]
fn gpu_failure_is_bisected_against_the_cpu() {
    if !gpu_available("gpu_failure_is_bisected_against_the_cpu") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    status_manifest(dir);
    let report = ci_json(dir, &["ci.toml", "--paths", "both", "--trace", "fails"], 1);
    let fails = &report["traces"][1];
    assert_eq!(fails["status"], "fail");
    let paths: Vec<&str> = fails["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["cpu", "gpu"]);
    // Both renders depart from the magenta reference; bisection compares them draw by draw.
    let bisect = &fails["bisect"];
    assert_ne!(bisect["status"], "unavailable", "{bisect}");
    assert_eq!(bisect["compared_draws"], 3, "{bisect}");
}

#[test]
fn divergence_limit_runs_verify_on_the_gpu_path() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(
        dir.join("ci.toml"),
        format!(
            "[[trace]]\nname = \"basic\"\nfile = \"{}\"\nmax_divergence = 0\n",
            sample()
        ),
    )
    .unwrap();
    // CPU only: no device for verify, the check is skipped and does not decide the status.
    let report = ci_json(dir, &["ci.toml", "--paths", "cpu", "--update"], 0);
    let check = &report["traces"][0]["divergence"];
    assert_eq!(check["status"], "skip", "{check}");
    assert_eq!(check["limit"], 0);
    assert!(
        check["message"].as_str().unwrap().contains("GPU"),
        "{check}"
    );
    if !gpu_available("divergence_limit_runs_verify_on_the_gpu_path") {
        return;
    }
    let out = rsxtrace(dir, &["ci", "ci.toml", "--paths", "both", "--json", "-"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = &report["traces"][0]["divergence"];
    let divergence = check["divergence"].as_u64().expect("a measured divergence");
    let expected = if divergence == 0 { "pass" } else { "fail" };
    assert_eq!(check["status"], expected, "{check}");
    assert!(
        check["message"].as_str().unwrap().contains("over 3 draws"),
        "{check}"
    );
}

/// (testcase name, name of its first child element) for each `<testcase>`, after checking
/// that the document is well-formed: balanced tags, quoted attributes, no stray `<` or `&`.
fn junit_testcases(xml: &str) -> Vec<(String, Option<String>)> {
    let body = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        .expect("XML declaration");
    let mut stack: Vec<String> = Vec::new();
    let mut cases: Vec<(String, Option<String>)> = Vec::new();
    let mut rest = body;
    let mut roots = 0;
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        let close = rest[open..].find('>').expect("unclosed tag") + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, attrs) = tag.split_once(' ').unwrap_or((tag, ""));
        let attrs = parse_attrs(attrs);
        if stack.is_empty() {
            roots += 1;
        }
        if stack.last().map(String::as_str) == Some("testcase") {
            if let Some(last) = cases.last_mut() {
                last.1.get_or_insert_with(|| name.to_string());
            }
        }
        if name == "testcase" {
            cases.push((attrs["name"].clone(), None));
        }
        if !self_closing {
            stack.push(name.to_string());
        }
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1, "one root element");
    cases
}

fn check_text(text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        let entity = &rest[at..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                .iter()
                .any(|e| entity.starts_with(e)),
            "bare & in {text:?}"
        );
        rest = &rest[at + 1..];
    }
}

fn parse_attrs(mut text: &str) -> BTreeMap<String, String> {
    let mut attrs = BTreeMap::new();
    loop {
        text = text.trim_start();
        if text.is_empty() {
            return attrs;
        }
        let (key, after) = text.split_once("=\"").expect("attribute = \"value\"");
        let end = after.find('"').expect("closing quote");
        check_text(&after[..end]);
        assert!(!after[..end].contains('<'), "< in an attribute");
        attrs.insert(key.trim().to_string(), after[..end].to_string());
        text = &after[end + 1..];
    }
}
