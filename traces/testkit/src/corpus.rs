//! `../shared/corpus` beside the workspace root: genuine programs and hardware images that are
//! never copied into the repository.
//!
//! The loud-absence rule: when the corpus (a directory holding `MANIFEST.json`) or a file of
//! it is absent, the caller gets `None` after `CORPUS MISSING: ...` on stderr and skips its
//! check; under `CI=true` (see [`crate::ci`]) the absence panics instead, so CI never passes
//! a check it did not run.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::paths::Workspace;

/// The corpus directory relative to the workspace root.
pub const CORPUS_BESIDE_ROOT: &str = "../shared/corpus";
/// The corpus index: `{note, items: [{file, info, ...}]}`.
pub const MANIFEST: &str = "MANIFEST.json";

/// Reports an absent corpus or corpus file: a loud line on stderr and `None`, or a panic when
/// `ci` is set.
pub fn report_missing<T>(what: &str, ci: bool) -> Option<T> {
    eprintln!("CORPUS MISSING: {what}; skipped");
    assert!(!ci, "CORPUS MISSING and CI=true: {what}");
    None
}

/// A present corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corpus {
    dir: PathBuf,
}

impl Corpus {
    /// `root/../shared/corpus` when it holds `MANIFEST.json`; says nothing when absent.
    pub fn beside(root: &Path) -> Option<Corpus> {
        let dir = root.join(CORPUS_BESIDE_ROOT);
        dir.join(MANIFEST).is_file().then_some(Corpus { dir })
    }

    /// [`Corpus::beside`] under the loud-absence rule (`ci`: whether absence panics).
    pub fn beside_or_report(root: &Path, ci: bool) -> Option<Corpus> {
        Corpus::beside(root).or_else(|| {
            let what = format!(
                "{} (with {MANIFEST}) not found",
                root.join(CORPUS_BESIDE_ROOT).display()
            );
            report_missing(&what, ci)
        })
    }

    /// The corpus directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of a corpus file (`rel` such as `ps3autotests/primitives.fpo`).
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// The bytes of a file the corpus must hold; panics naming it when it cannot be read.
    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap_or_else(|e| panic!("read corpus file {rel}: {e}"))
    }

    /// [`Corpus::read`] as UTF-8 text.
    pub fn read_to_string(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).unwrap_or_else(|e| panic!("{rel} is not UTF-8: {e}"))
    }

    /// The bytes of a corpus file, or `None` under the loud-absence rule.
    pub fn file(&self, rel: &str, ci: bool) -> Option<Vec<u8>> {
        match std::fs::read(self.path(rel)) {
            Ok(bytes) => Some(bytes),
            Err(e) => report_missing(&format!("{rel} not readable under the corpus: {e}"), ci),
        }
    }

    /// The sorted relative paths (`dir/name`) of the files in corpus directory `dir` whose
    /// names end with `suffix` (e.g. `ps3autotests`, `.vpo`).
    pub fn files_ending(&self, dir: &str, suffix: &str) -> Vec<String> {
        let entries = std::fs::read_dir(self.path(dir))
            .unwrap_or_else(|e| panic!("read corpus directory {dir}: {e}"));
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(suffix))
            .map(|n| format!("{dir}/{n}"))
            .collect();
        names.sort();
        names
    }

    /// `MANIFEST.json`, parsed; panics when it is not JSON.
    pub fn manifest(&self) -> Value {
        serde_json::from_slice(&self.read(MANIFEST))
            .unwrap_or_else(|e| panic!("{MANIFEST} is not JSON: {e}"))
    }

    /// The manifest's `items`.
    pub fn manifest_items(&self) -> Vec<Value> {
        match self.manifest().get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => panic!("{MANIFEST} has no items array"),
        }
    }

    /// The `info` of the manifest item whose `file` is `file`, if listed.
    pub fn manifest_info(&self, file: &str) -> Option<Value> {
        self.manifest_items()
            .into_iter()
            .find(|item| item["file"] == file)
            .map(|mut item| item["info"].take())
    }
}

impl Workspace {
    /// The corpus beside this workspace, under the loud-absence rule.
    pub fn corpus(&self) -> Option<Corpus> {
        Corpus::beside_or_report(self.root(), crate::in_ci())
    }

    /// The bytes of corpus file `rel`, under the loud-absence rule for the corpus and the file.
    pub fn corpus_file(&self, rel: &str) -> Option<Vec<u8>> {
        self.corpus()?.file(rel, crate::in_ci())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake checkout `root` with a corpus beside it.
    fn layout() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("checkout");
        let corpus = t.path().join("shared/corpus");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(corpus.join("ps3autotests")).unwrap();
        std::fs::write(
            corpus.join(MANIFEST),
            r#"{"items": [{"file": "ps3autotests/a.vpo", "info": {"n": 3}}]}"#,
        )
        .unwrap();
        for name in ["b.vpo", "a.vpo", "a.fpo"] {
            std::fs::write(corpus.join("ps3autotests").join(name), name).unwrap();
        }
        (t, root)
    }

    #[test]
    fn a_corpus_is_found_beside_the_root_and_read() {
        let (_t, root) = layout();
        let c = Corpus::beside(&root).expect("corpus present");
        assert_eq!(c.read("ps3autotests/a.fpo"), b"a.fpo");
        assert_eq!(
            c.files_ending("ps3autotests", ".vpo"),
            ["ps3autotests/a.vpo", "ps3autotests/b.vpo"]
        );
        assert_eq!(c.manifest_info("ps3autotests/a.vpo").unwrap()["n"], 3);
        assert_eq!(c.manifest_info("ps3autotests/b.vpo"), None);
        assert_eq!(c.file("nope.bin", false), None);
    }

    #[test]
    fn a_directory_without_manifest_is_absent() {
        let (t, root) = layout();
        std::fs::remove_file(t.path().join("shared/corpus").join(MANIFEST)).unwrap();
        assert_eq!(Corpus::beside(&root), None);
        assert_eq!(Corpus::beside_or_report(&root, false), None);
    }

    #[test]
    #[should_panic(expected = "CORPUS MISSING and CI=true")]
    fn absence_fails_under_ci() {
        let t = tempfile::tempdir().unwrap();
        let _ = Corpus::beside_or_report(t.path(), true);
    }

    #[test]
    #[should_panic(expected = "CORPUS MISSING and CI=true")]
    fn a_missing_file_fails_under_ci() {
        let (_t, root) = layout();
        let _ = Corpus::beside(&root).unwrap().file("nope.bin", true);
    }
}
