//! RPCS3 shader caches (`rpcs3-shader-cache.md` §1–§4): a `shaders_cache` folder holding
//! `raw/<hash>.vp`, `raw/<hash>.fp` and `pipelines/<opengl|vulkan>/<version>/*.bin`.
//!
//! Each raw program is joined with every pipeline file whose `vertex_program_hash` or
//! `fragment_program_hash` (read inside the file, §3.1) equals the hash in its name.
//!
//! * A fragment program gives one [`FoundProgram`](super::FoundProgram) holding every joined state.
//! * A vertex program gives one [`FoundProgram`](super::FoundProgram) per distinct entry point among its states
//!   (`vp_entry − vp_base_address`, §2.1): the key is hashed from the entry slot, so two
//!   entries are two programs with two keys; each holds the whole file and the states with
//!   that entry.
//! * A raw program that no pipeline file joins is read with entry 0 and carries
//!   [`Note::DefaultState`] (§5.1 defaults, §6 issue #7255).
//!
//! `state` is the first of `states` (pipeline files in path order). Nothing here writes into
//! the cache (§4).

mod layout;
pub mod name_hash;
mod pipeline;
mod raw;

pub use layout::PipelineLayout;
pub use name_hash::NameEra;
pub use pipeline::{read_pipeline, PipelineRecord};

use super::{program, Discovery, Note, Origin, PipelineState};
use crate::container::Stage;
use crate::vertex::MEMORY_SLOTS;
use layout::Backend;
use raw::problem;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The folder name RPCS3 gives a cache (§1.1).
pub(crate) const FOLDER: &str = "shaders_cache";

/// Reads the cache folder `dir` (named `shaders_cache`); no raw file larger than
/// `max_file_bytes` is read.
pub(crate) fn read(dir: &Path, max_file_bytes: u64) -> Discovery {
    let mut found = Discovery::default();
    let records = read_pipelines(&dir.join("pipelines"), &mut found);
    let raw_files = sorted_files(&dir.join("raw"), &mut found, true);
    let parts: Vec<Discovery> = raw_files
        .par_iter()
        .map(|path| read_raw(path, &records, max_file_bytes))
        .collect();
    for part in parts {
        found.append(part);
    }
    report_unjoined(dir, &raw_files, &records, &mut found);
    found
}

/// The plain files (or folders) in `dir`, sorted; a missing `dir` is not a problem when
/// `optional`.
fn sorted_entries(
    dir: &Path,
    found: &mut Discovery,
    optional: bool,
    want_dirs: bool,
) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if optional && e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            found.problems.push(problem(dir, None, e.to_string()));
            return Vec::new();
        }
    };
    // Links are followed, as RPCS3 lists a cache (`fs::dir` stats the target).
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|path| {
            std::fs::metadata(path).is_ok_and(|t| if want_dirs { t.is_dir() } else { t.is_file() })
        })
        .collect();
    out.sort();
    out
}

fn sorted_files(dir: &Path, found: &mut Discovery, optional: bool) -> Vec<PathBuf> {
    sorted_entries(dir, found, optional, false)
}

/// Every pipeline file of every backend and version, in path order.
fn read_pipelines(dir: &Path, found: &mut Discovery) -> Vec<PipelineRecord> {
    let mut records = Vec::new();
    for backend_dir in sorted_entries(dir, found, true, true) {
        let backend_name = file_name(&backend_dir);
        let Some(backend) = Backend::from_folder(&backend_name) else {
            found.problems.push(problem(
                &backend_dir,
                None,
                format!("backend folder {backend_name} is neither opengl nor vulkan; not read"),
            ));
            continue;
        };
        for version_dir in sorted_entries(&backend_dir, found, false, true) {
            let version = file_name(&version_dir);
            if !PipelineLayout::known_version(&version) {
                found.problems.push(problem(
                    &version_dir,
                    None,
                    format!("version folder {version} is not one rsxtrace reads (v1.91 to v1.95); not read"),
                ));
                continue;
            }
            for file in sorted_files(&version_dir, found, false) {
                if let Some(record) =
                    read_pipeline_file(&file, backend, &backend_name, &version, found)
                {
                    records.push(record);
                }
            }
        }
    }
    records
}

fn read_pipeline_file(
    file: &Path,
    backend: Backend,
    backend_name: &str,
    version: &str,
    found: &mut Discovery,
) -> Option<PipelineRecord> {
    let size = match std::fs::metadata(file) {
        Ok(m) => m.len(),
        Err(e) => {
            found.problems.push(problem(file, None, e.to_string()));
            return None;
        }
    };
    // The size is checked before anything is read (§4 step 2).
    if let Err(reason) = PipelineLayout::identify(backend, version, size) {
        found.problems.push(problem(file, None, reason));
        return None;
    }
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            found.problems.push(problem(file, None, e.to_string()));
            return None;
        }
    };
    found.files_read += 1;
    match pipeline::read_pipeline(file, backend_name, version, &bytes) {
        Ok(record) => Some(record),
        Err(reason) => {
            found.problems.push(problem(file, None, reason));
            None
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn stem_and_stage(path: &Path) -> Option<(String, Stage)> {
    let stage = raw::stage_of(path.extension()?.to_str()?)?;
    Some((path.file_stem()?.to_string_lossy().into_owned(), stage))
}

fn joined(records: &[PipelineRecord], stage: Stage, name: Option<u64>) -> Vec<&PipelineState> {
    let Some(name) = name else {
        return Vec::new();
    };
    records
        .iter()
        .filter(|r| match stage {
            Stage::Vertex => r.vp_hash == name,
            Stage::Fragment => r.fp_hash == name,
        })
        .map(|r| &r.state)
        .collect()
}

fn read_raw(path: &Path, records: &[PipelineRecord], max_file_bytes: u64) -> Discovery {
    let mut found = Discovery::default();
    let Some((stem, stage)) = stem_and_stage(path) else {
        return found; // not a program file
    };
    // RPCS3 stores at most 544 vertex instructions (`program_util.h`,
    // `max_vertex_program_instructions`); no file is read past the caller's limit.
    let limit = match stage {
        Stage::Vertex => (MEMORY_SLOTS * 16) as u64,
        Stage::Fragment => max_file_bytes,
    };
    match std::fs::metadata(path) {
        Ok(m) if m.len() > limit => {
            let reason = format!(
                "{} bytes is over the {limit} byte limit of a raw {} program file; not read",
                m.len(),
                stage.name()
            );
            found.problems.push(problem(path, None, reason));
            return found;
        }
        Ok(_) => {}
        Err(e) => {
            found.problems.push(problem(path, None, e.to_string()));
            return found;
        }
    }
    let file = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            found.problems.push(problem(path, None, e.to_string()));
            return found;
        }
    };
    found.files_read += 1;
    let name = raw::name_value(&stem);
    let states = joined(records, stage, name);
    let masks: Vec<&[u64]> = states
        .iter()
        .map(|s| s.vp_instruction_mask.as_slice())
        .collect();
    let era = name.map_or(NameEra::Neither, |n| {
        name_hash::era_of(stage, &file, n, &masks)
    });
    let origin = Origin::Rpcs3Cache {
        path: path.to_path_buf(),
        name: stem,
        era,
    };
    let ucode = match stage {
        Stage::Vertex => match raw::vertex_words(&file) {
            Ok(words) => words,
            Err(reason) => {
                found.problems.push(problem(path, Some(0), reason));
                return found;
            }
        },
        Stage::Fragment => file,
    };
    for (entry_slot, group) in by_entry(stage, states, path, &ucode, &mut found) {
        let start = entry_slot as usize * 16;
        let notes = if group.is_empty() {
            vec![Note::DefaultState]
        } else {
            Vec::new()
        };
        match program(stage, (&ucode, entry_slot), origin.clone(), None, notes) {
            Ok(mut p) => {
                p.state = group.first().map(|s| (*s).clone());
                p.states = group.into_iter().cloned().collect();
                found.programs.push(p);
            }
            Err(reason) => found
                .problems
                .push(problem(path, Some(start as u64), reason)),
        }
    }
    found
}

/// The states grouped by the entry slot they give inside the file (fragment programs: one
/// group at slot 0); a state whose entry lies outside the file is a problem of its pipeline
/// file. With no states, one empty group at slot 0.
fn by_entry<'a>(
    stage: Stage,
    states: Vec<&'a PipelineState>,
    path: &Path,
    ucode: &[u8],
    found: &mut Discovery,
) -> BTreeMap<u32, Vec<&'a PipelineState>> {
    let mut groups: BTreeMap<u32, Vec<&PipelineState>> = BTreeMap::new();
    let slots = (ucode.len() / 16) as u64;
    let had_states = !states.is_empty();
    for s in states {
        let slot = match stage {
            Stage::Fragment => Some(0),
            Stage::Vertex => s
                .vp_entry
                .checked_sub(s.vp_base_address)
                .filter(|&e| u64::from(e) < slots),
        };
        match slot {
            Some(slot) => groups.entry(slot).or_default().push(s),
            None => found.problems.push(problem(
                &s.file,
                Some(s.layout.offsets().vp_entry),
                format!(
                    "vp_entry {} minus vp_base_address {} is outside the {slots} instructions of {}",
                    s.vp_entry,
                    s.vp_base_address,
                    path.display()
                ),
            )),
        }
    }
    if !had_states {
        groups.insert(0, Vec::new());
    }
    groups
}

/// Pipeline files that name a raw program the cache does not hold.
fn report_unjoined(
    dir: &Path,
    raw_files: &[PathBuf],
    records: &[PipelineRecord],
    found: &mut Discovery,
) {
    let present: std::collections::HashSet<(u64, Stage)> = raw_files
        .iter()
        .filter_map(|p| stem_and_stage(p))
        .filter_map(|(stem, stage)| Some((raw::name_value(&stem)?, stage)))
        .collect();
    for r in records {
        for (hash, stage, ext) in [
            (r.vp_hash, Stage::Vertex, "vp"),
            (r.fp_hash, Stage::Fragment, "fp"),
        ] {
            if !present.contains(&(hash, stage)) {
                found.problems.push(problem(
                    &r.state.file,
                    None,
                    format!(
                        "names raw/{hash:X}.{ext}, which {} does not hold",
                        dir.join("raw").display()
                    ),
                ));
            }
        }
    }
}
