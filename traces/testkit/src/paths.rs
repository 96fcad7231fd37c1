//! The workspace root and the bundled traces under it (`traces/samples`, `traces/references`,
//! `traces/level`). The root is the nearest directory holding `Cargo.lock` above a crate's
//! manifest directory; [`crate::workspace!`] passes the calling crate's.

use std::path::{Path, PathBuf};

/// The file extensions of a capture (`*.rrc`, gzip or zstd compressed).
const CAPTURE_SUFFIXES: [&str; 3] = [".rrc", ".rrc.gz", ".rrc.zst"];

/// The nearest directory at or above `start` that holds `Cargo.lock`.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    let mut dir = start.to_path_buf();
    loop {
        if dir.join("Cargo.lock").is_file() {
            return Some(dir);
        }
        if !dir.pop() {
            return None;
        }
    }
}

/// The checkout the tests run in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// The workspace above `manifest_dir`. Panics when no `Cargo.lock` lies above it (a test
    /// run outside a checkout cannot find anything it needs).
    pub fn from_manifest_dir(manifest_dir: impl AsRef<Path>) -> Workspace {
        let start = manifest_dir.as_ref();
        let root = find_root(start)
            .unwrap_or_else(|| panic!("no Cargo.lock at or above {}", start.display()));
        Workspace { root }
    }

    /// The directory holding `Cargo.lock`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `traces/samples`: the bundled sample captures.
    pub fn samples_dir(&self) -> PathBuf {
        self.root.join("traces/samples")
    }

    /// `traces/samples/<file>`.
    pub fn sample(&self, file: &str) -> PathBuf {
        self.samples_dir().join(file)
    }

    /// Every sample capture (`*.rrc`, `*.rrc.gz`, `*.rrc.zst`) in `traces/samples`, sorted.
    /// Panics when the directory cannot be read (it is part of the checkout).
    pub fn sample_paths(&self) -> Vec<PathBuf> {
        capture_paths(&self.samples_dir())
    }

    /// `traces/references`: the checked-in reference images.
    pub fn references_dir(&self) -> PathBuf {
        self.root.join("traces/references")
    }

    /// `traces/level`: the synthetic level and its ground truth.
    pub fn level_dir(&self) -> PathBuf {
        self.root.join("traces/level")
    }
}

/// The captures directly in `dir`, sorted by path.
pub fn capture_paths(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            CAPTURE_SUFFIXES.iter().any(|s| name.ends_with(s))
        })
        .collect();
    paths.sort();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_nearest_directory_with_cargo_lock() {
        let t = tempfile::tempdir().unwrap();
        let outer = t.path().join("outer");
        let inner = outer.join("ws/crate/sub");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(outer.join("Cargo.lock"), "").unwrap();
        assert_eq!(find_root(&inner), Some(outer.clone()));
        std::fs::write(outer.join("ws/Cargo.lock"), "").unwrap();
        assert_eq!(find_root(&inner), Some(outer.join("ws")));
        // A directory named Cargo.lock is not the lock file.
        std::fs::create_dir_all(inner.join("Cargo.lock")).unwrap();
        assert_eq!(find_root(&inner), Some(outer.join("ws")));
    }

    #[test]
    fn no_lock_file_above_is_none() {
        let t = tempfile::tempdir().unwrap();
        // The temporary directory may itself lie under a checkout; only assert on the part
        // below it when nothing above holds a lock file.
        if find_root(t.path()).is_none() {
            assert_eq!(find_root(&t.path().join("a/b")), None);
        }
    }

    #[test]
    fn this_checkout_is_found_from_the_testkit() {
        let ws = crate::workspace!();
        assert!(ws.root().join("Cargo.lock").is_file());
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).starts_with(ws.root()));
        assert_eq!(ws.samples_dir(), ws.root().join("traces/samples"));
    }

    #[test]
    fn captures_are_listed_by_suffix_and_sorted() {
        let t = tempfile::tempdir().unwrap();
        for name in [
            "b.rrc.zst",
            "a.rrc",
            "c.rrc.gz",
            "notes.txt",
            "d.rrcx",
            "e.png",
        ] {
            std::fs::write(t.path().join(name), "").unwrap();
        }
        let names: Vec<String> = capture_paths(t.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.rrc", "b.rrc.zst", "c.rrc.gz"]);
    }
}
