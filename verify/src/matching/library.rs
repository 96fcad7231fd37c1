//! A program library: the programs found under a set of paths (`rsxtrace_program::source`),
//! one entry per distinct `(stage, content key)` with every place it was found, and each
//! entry's structural fingerprint computed once.

use super::fingerprint::{Fingerprint, FingerprintError};
use rsxtrace_program::container::Stage;
use rsxtrace_program::source::{Discovery, FoundProgram, Origin, SourceProblem};
use serde::Serialize;
use std::collections::HashMap;

/// One place a library program was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LibrarySource {
    /// A short name: the file name (`fog.fpo`), with `@0x<offset>` when the program sits at an
    /// offset inside the file; the RPCS3 cache name; the `_binary_*_start` symbol, or the
    /// executable's file name with the offset.
    pub name: String,
    /// Where it was found.
    pub origin: Origin,
}

impl LibrarySource {
    fn of(origin: &Origin) -> LibrarySource {
        let file_name = |p: &std::path::Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string())
        };
        let name = match origin {
            Origin::Loose { path, offset: 0 } => file_name(path),
            Origin::Loose { path, offset } => format!("{}@0x{offset:x}", file_name(path)),
            Origin::Rpcs3Cache { name, .. } => name.clone(),
            Origin::Executable {
                via_symbol: Some(symbol),
                ..
            } => symbol.clone(),
            Origin::Executable {
                path, file_offset, ..
            } => format!("{}@0x{file_offset:x}", file_name(path)),
        };
        LibrarySource {
            name,
            origin: origin.clone(),
        }
    }
}

/// One distinct program of the library.
#[derive(Clone, Debug)]
pub struct LibraryProgram {
    /// Vertex or fragment.
    pub stage: Stage,
    /// Content key (the frame model's `vp_hash` / `fp_hash`).
    pub key: u64,
    /// Every place it was found, in discovery order.
    pub sources: Vec<LibrarySource>,
    /// Its fingerprint, or why it has none.
    pub fingerprint: Result<Fingerprint, FingerprintError>,
}

impl LibraryProgram {
    /// The names of its sources, in order, without repeats.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::with_capacity(self.sources.len());
        for s in &self.sources {
            if !names.contains(&s.name) {
                names.push(s.name.clone());
            }
        }
        names
    }
}

/// The library: distinct programs, an index by `(stage, key)`, and what could not be read.
#[derive(Clone, Debug, Default)]
pub struct Library {
    programs: Vec<LibraryProgram>,
    by_key: HashMap<(Stage, u64), usize>,
    /// Files or parts of files that could not be used (warnings, not errors).
    pub problems: Vec<SourceProblem>,
    /// Files read.
    pub files_read: usize,
}

impl Library {
    /// Builds the library from what `rsxtrace_program::source::discover` found: programs with
    /// the same stage and key become one entry holding every source.
    pub fn from_discovery(discovery: Discovery) -> Library {
        let mut library = Library {
            problems: discovery.problems,
            files_read: discovery.files_read,
            ..Library::default()
        };
        for found in discovery.programs {
            library.add(found);
        }
        library
    }

    fn add(&mut self, found: FoundProgram) {
        let source = LibrarySource::of(&found.origin);
        match self.by_key.get(&(found.stage, found.key)) {
            Some(&i) => self.programs[i].sources.push(source),
            None => {
                self.by_key
                    .insert((found.stage, found.key), self.programs.len());
                self.programs.push(LibraryProgram {
                    stage: found.stage,
                    key: found.key,
                    sources: vec![source],
                    fingerprint: Fingerprint::of_program(found.stage, &found.ucode, found.entry),
                });
            }
        }
    }

    /// Every distinct program, in the order first found.
    pub fn programs(&self) -> &[LibraryProgram] {
        &self.programs
    }

    /// The program with this stage and content key.
    pub fn get(&self, stage: Stage, key: u64) -> Option<&LibraryProgram> {
        self.by_key.get(&(stage, key)).map(|&i| &self.programs[i])
    }

    /// Distinct programs of `stage`.
    pub fn count(&self, stage: Stage) -> usize {
        self.programs.iter().filter(|p| p.stage == stage).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::source::key::canonical;
    use std::path::PathBuf;

    fn found(stage: Stage, ucode: &[u8], path: &str, offset: u64) -> FoundProgram {
        let (ucode, key) = canonical(stage, ucode, 0).unwrap();
        FoundProgram {
            stage,
            ucode,
            entry: 0,
            key,
            origin: Origin::Loose {
                path: PathBuf::from(path),
                offset,
            },
            state: None,
            states: Vec::new(),
            notes: Vec::new(),
            container: None,
        }
    }

    #[test]
    fn same_program_twice_is_one_entry_with_both_sources() {
        let fp = rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
        let discovery = Discovery {
            programs: vec![
                found(Stage::Fragment, &fp, "lib/a.fpo", 0),
                found(Stage::Fragment, &fp, "lib/pack.bin", 0x30),
            ],
            problems: Vec::new(),
            files_read: 2,
        };
        let library = Library::from_discovery(discovery);
        assert_eq!(library.programs().len(), 1);
        let p = &library.programs()[0];
        assert_eq!(p.names(), vec!["a.fpo", "pack.bin@0x30"]);
        assert!(p.fingerprint.is_ok());
        assert!(library.get(Stage::Fragment, p.key).is_some());
        assert!(library.get(Stage::Vertex, p.key).is_none());
        assert_eq!(library.count(Stage::Fragment), 1);
        assert_eq!(library.count(Stage::Vertex), 0);
    }
}
