//! `docs/COVERAGE.md` must equal `coverage_markdown()`. Regenerate with
//! `RSXTRACE_UPDATE_COVERAGE=1 cargo test -p rsxtrace-program --test coverage_current`.

use rsxtrace_program::coverage::coverage_markdown;
use std::path::PathBuf;

fn coverage_path() -> PathBuf {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    while !dir.join("Cargo.lock").exists() {
        assert!(dir.pop(), "no Cargo.lock above CARGO_MANIFEST_DIR");
    }
    dir.join("docs/COVERAGE.md")
}

#[test]
fn coverage_doc_is_current() {
    let path = coverage_path();
    let generated = coverage_markdown();
    if std::env::var("RSXTRACE_UPDATE_COVERAGE").as_deref() == Ok("1") {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "{} is out of date; regenerate with \
         `RSXTRACE_UPDATE_COVERAGE=1 cargo test -p rsxtrace-program --test coverage_current`",
        path.display()
    );
}

#[test]
fn coverage_lists_every_opcode() {
    let md = coverage_markdown();
    let rows = |stage: &str| {
        md.lines()
            .filter(|l| l.starts_with(&format!("| {stage} |")))
            .count()
    };
    assert_eq!(rows("vertex vector"), 26);
    assert_eq!(rows("vertex scalar"), 21);
    assert_eq!(
        rows("fragment"),
        rsxtrace_program::fragment::FpOpcode::ALL.len()
    );
    assert!(md.contains("| vertex scalar | 0x09 | BRI | BRA | yes | — | — |"));
    assert!(md.contains("| vertex vector | 0x17 | — (NULL) | ARR | yes | — | — |"));
}
