//! Turning the paths given to [`super::discover`] into units of work, in path order: each
//! RPCS3 cache folder is one unit (its files are joined with each other), every other file is
//! one. Folders are walked depth-first with sorted entries; symbolic links to folders are not
//! followed (a link cycle would never end), links to files are.

use super::rpcs3_cache::FOLDER as CACHE_FOLDER;
use super::SourceProblem;
use std::path::{Path, PathBuf};

/// One unit of work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unit {
    /// A `shaders_cache` folder.
    Cache(PathBuf),
    /// Any other file.
    File(PathBuf),
}

/// Appends the units under `path` (a file or folder given by the caller) to `units`.
pub(crate) fn collect(path: &Path, units: &mut Vec<Unit>, problems: &mut Vec<SourceProblem>) {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => folder(path, units, problems),
        Ok(_) => units.push(Unit::File(path.to_path_buf())),
        Err(e) => problems.push(problem(path, e)),
    }
}

fn folder(dir: &Path, units: &mut Vec<Unit>, problems: &mut Vec<SourceProblem>) {
    if dir.file_name().is_some_and(|n| n == CACHE_FOLDER) {
        units.push(Unit::Cache(dir.to_path_buf()));
        return;
    }
    let mut entries: Vec<(PathBuf, bool)> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let t = e.file_type().ok()?;
                let path = e.path();
                if t.is_symlink() {
                    // Followed only to a file.
                    let target = std::fs::metadata(&path).ok()?;
                    return (!target.is_dir()).then_some((path, false));
                }
                Some((path, t.is_dir()))
            })
            .collect(),
        Err(e) => return problems.push(problem(dir, e)),
    };
    entries.sort();
    for (path, is_dir) in entries {
        if is_dir {
            folder(&path, units, problems);
        } else {
            units.push(Unit::File(path));
        }
    }
}

fn problem(path: &Path, e: std::io::Error) -> SourceProblem {
    SourceProblem {
        path: path.to_path_buf(),
        offset: None,
        reason: e.to_string(),
    }
}
