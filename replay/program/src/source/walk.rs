//! Turning the paths given to [`super::discover`] into units of work, in path order: each
//! RPCS3 cache folder is one unit (its files are joined with each other), every other file is
//! one. Folders are walked depth-first with sorted entries. Symbolic links are followed, to
//! files and to folders (RPCS3 follows them when it lists a cache: `fs::dir` stats the
//! target); a folder already walked, reached again through a link (a cycle, or two links to
//! one folder), is a problem and is not walked twice.

use super::rpcs3_cache::FOLDER as CACHE_FOLDER;
use super::SourceProblem;
use std::collections::HashSet;
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
    let mut walked = HashSet::new();
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => folder(path, &mut walked, units, problems),
        Ok(_) => units.push(Unit::File(path.to_path_buf())),
        Err(e) => problems.push(problem(path, e.to_string())),
    }
}

fn folder(
    dir: &Path,
    walked: &mut HashSet<PathBuf>,
    units: &mut Vec<Unit>,
    problems: &mut Vec<SourceProblem>,
) {
    match std::fs::canonicalize(dir) {
        Ok(real) if !walked.insert(real.clone()) => {
            let why = format!(
                "{} was walked already (a link leads back to it); not walked again",
                real.display()
            );
            return problems.push(problem(dir, why));
        }
        Ok(_) => {}
        Err(e) => return problems.push(problem(dir, e.to_string())),
    }
    if dir.file_name().is_some_and(|n| n == CACHE_FOLDER) {
        units.push(Unit::Cache(dir.to_path_buf()));
        return;
    }
    let mut entries: Vec<(PathBuf, bool)> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let path = e.path();
                // Links are followed: the target says file or folder.
                match std::fs::metadata(&path) {
                    Ok(m) => Some((path, m.is_dir())),
                    Err(err) => {
                        problems.push(problem(&path, err.to_string()));
                        None
                    }
                }
            })
            .collect(),
        Err(e) => return problems.push(problem(dir, e.to_string())),
    };
    entries.sort();
    for (path, is_dir) in entries {
        if is_dir {
            folder(&path, walked, units, problems);
        } else {
            units.push(Unit::File(path));
        }
    }
}

fn problem(path: &Path, reason: String) -> SourceProblem {
    SourceProblem {
        path: path.to_path_buf(),
        offset: None,
        reason,
    }
}
