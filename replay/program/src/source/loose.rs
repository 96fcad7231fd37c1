//! Loose files: a container that is the whole file (`Origin::Loose { offset: 0 }`), or, when
//! the file is in no known format, every container the scanner ([`super::scan`]) accepts at
//! an offset inside it (a studio or archive header in front of the container).

use super::scan::scan;
use super::{program, FoundProgram, Origin, SourceProblem};
use crate::container::{Container, ContainerErrorKind};
use std::path::Path;

/// Extensions of program containers (Sony `sce-cgc` and PSL1GHT/Tiny3D `cgcomp` outputs).
const PROGRAM_EXTENSIONS: [&str; 4] = ["vpo", "fpo", "rvp", "rfp"];

/// Whether `path`'s extension says it is a program container.
fn named_as_program(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| PROGRAM_EXTENSIONS.iter().any(|p| p.eq_ignore_ascii_case(e)))
}

/// Every program in the loose file `bytes` read from `path`, and the problems met. Never
/// panics.
pub fn read(path: &Path, bytes: &[u8]) -> (Vec<FoundProgram>, Vec<SourceProblem>) {
    let origin = |offset| Origin::Loose {
        path: path.to_path_buf(),
        offset,
    };
    let problem = |offset, reason| SourceProblem {
        path: path.to_path_buf(),
        offset: Some(offset),
        reason,
    };
    let hits = match Container::parse(bytes) {
        Ok(c) => vec![(0, c)],
        Err(e) if e.kind == ContainerErrorKind::UnknownFormat => scan(bytes)
            .hits
            .into_iter()
            .map(|h| (h.offset, h.container))
            .collect(),
        Err(e) => return (Vec::new(), vec![problem(e.offset, e.to_string())]),
    };
    let mut programs = Vec::new();
    let mut problems = Vec::new();
    if hits.is_empty() && named_as_program(path) {
        // A file named as a program container that holds none is left out, and said so.
        problems.push(SourceProblem {
            path: path.to_path_buf(),
            offset: None,
            reason:
                "named as a program container, but holds no CgBinaryProgram or PSL1GHT container"
                    .to_string(),
        });
    }
    for (offset, c) in hits {
        let found = program(c.stage(), (c.ucode(), 0), origin(offset), None, Vec::new());
        match found.map(|p| FoundProgram {
            container: Some(c),
            ..p
        }) {
            Ok(p) => programs.push(p),
            Err(reason) => problems.push(problem(offset, reason)),
        }
    }
    (programs, problems)
}
