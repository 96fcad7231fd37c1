//! The checked-in generated code (`src/generated/trace_capnp.rs`) must match what capnpc makes
//! from `traces/schema/trace.capnp` today. Needs the `capnp` tool: without it the test says so
//! loudly and passes, except under `CI=true`, where a missing tool is a failure.

use std::path::Path;
use std::process::Command;

/// The header line naming the `capnp` tool's version: the only line allowed to differ (a
/// developer may have another `capnp` than the one that generated the file).
const TOOL_VERSION_LINE: &str = "// capnp binary version:";

fn without_tool_version(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with(TOOL_VERSION_LINE))
        .collect()
}

#[test]
fn generated_code_is_current() {
    if Command::new("capnp").arg("--version").output().is_err() {
        eprintln!(
            "!!!!!!!! SKIPPED schema_current: the `capnp` tool is not on PATH, so the checked-in \
             generated code was NOT checked against traces/schema/trace.capnp !!!!!!!!"
        );
        assert!(
            !rsxtrace_testkit::in_ci(),
            "CI=true requires the `capnp` tool (apt-get install capnproto)"
        );
        return;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema_dir = rsxtrace_testkit::workspace!().root().join("traces/schema");
    let out = tempfile::tempdir().unwrap();
    capnpc::CompilerCommand::new()
        .src_prefix(&schema_dir)
        .file(schema_dir.join("trace.capnp"))
        .output_path(out.path())
        .run()
        .expect("capnpc failed");
    let fresh = std::fs::read_to_string(out.path().join("trace_capnp.rs")).unwrap();
    let checked_in =
        std::fs::read_to_string(manifest.join("src/generated/trace_capnp.rs")).unwrap();
    let (fresh_lines, checked_lines) = (
        without_tool_version(&fresh),
        without_tool_version(&checked_in),
    );
    if let Some(i) = (0..fresh_lines.len().max(checked_lines.len()))
        .find(|&i| fresh_lines.get(i) != checked_lines.get(i))
    {
        panic!(
            "src/generated/trace_capnp.rs is stale (first difference at line {}):\n  checked in: {:?}\n  generated:  {:?}\n\
             regenerate with `cargo build -p rsxtrace-trace --features regen-schema`",
            i + 1,
            checked_lines.get(i),
            fresh_lines.get(i)
        );
    }
}
