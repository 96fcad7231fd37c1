//! Loose files: a container that is the whole file (`Origin::Loose { offset: 0 }`), or, when
//! the file is in no known format, every container the scanner ([`super::scan`]) accepts at
//! an offset inside it (a studio or archive header in front of the container).

use super::scan::scan;
use super::{program, FoundProgram, Origin, SourceProblem};
use crate::container::{Container, ContainerErrorKind};
use std::path::Path;

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
    for (offset, c) in hits {
        let found = program(c.stage(), c.ucode(), origin(offset), None, Vec::new());
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
