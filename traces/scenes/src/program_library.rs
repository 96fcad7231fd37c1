//! Program libraries for `rsxtrace match` tests and benchmarks: folders of `.vpo` / `.fpo`
//! `CgBinaryProgram` containers written with `rsxtrace_program::container::write_program`.
//!
//! - [`write_scene_library`]: the programs of the bundled level (`traces/level/`) and basic
//!   sample (`traces/samples/basic.rrc.gz`) under meaningful names (`fog.fpo`,
//!   `mvp_c32.vpo`, …; [`scene_programs`] lists them), so that `match` names every draw of
//!   those captures by file name.
//! - [`write_generated_library`]: `count` distinct programs (half vertex, half fragment) made
//!   by the game frame's generators ([`crate::game_frame`]), starting with the very programs
//!   of the game frame built with the same seed, with the corpus's containers copied in when a
//!   corpus folder is given and present.
//!
//! Containers carry the microcode and the control word; the attribute masks of the fragment
//! descriptor are left zero (`match` reads neither).

use crate::game_frame::{self, fragment_programs, rng::Rng, vertex_programs};
use crate::level::{self, LevelOptions};
use crate::samples::{textured_fragment_program, textured_vertex_program};
use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_program::container::{
    write_program, CgFragmentInfo, CgProgram, CgStageInfo, CgVertexInfo, Container, Stage,
    FORMAT_REVISION, PROFILE_FRAGMENT, PROFILE_VERTEX,
};
use rsxtrace_program::source::key::canonical;
use rsxtrace_program::vertex;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A program library that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    /// A program could not be built or wrapped in a container.
    #[error("program {name}: {reason}")]
    Program {
        /// Its file name.
        name: String,
        /// Why.
        reason: String,
    },
    /// A file or folder could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A program and the file name it is written under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedProgram {
    /// File name, `.vpo` or `.fpo`.
    pub name: String,
    /// The `CgBinaryProgram` container.
    pub container: Vec<u8>,
}

/// A vertex-program container for `words` (four per slot, entry slot first).
pub fn vertex_container(
    words: &[u32],
    input_mask: u32,
    output_mask: u32,
) -> Result<Vec<u8>, String> {
    let program = vertex::decode_words(words).map_err(|e| e.to_string())?;
    write_program(&CgProgram {
        profile: PROFILE_VERTEX,
        revision: FORMAT_REVISION,
        total_size: 0,
        parameters: Vec::new(),
        stage_info: CgStageInfo::Vertex(CgVertexInfo {
            instruction_count: u32::try_from(words.len() / 4).unwrap_or(u32::MAX),
            instruction_slot: 0,
            register_count: 8,
            attribute_input_mask: input_mask,
            attribute_output_mask: output_mask,
            user_clip_mask: 0,
        }),
        ucode_offset: 0,
        ucode: vertex::encode_bytes(&program),
    })
    .map_err(|e| e.to_string())
}

/// A fragment-program container for guest-order `ucode` with its `SHADER_CONTROL` word.
pub fn fragment_container(ucode: &[u8], control: u32) -> Result<Vec<u8>, String> {
    write_program(&CgProgram {
        profile: PROFILE_FRAGMENT,
        revision: FORMAT_REVISION,
        total_size: 0,
        parameters: Vec::new(),
        stage_info: CgStageInfo::Fragment(CgFragmentInfo {
            instruction_count: u32::try_from(ucode.len() / 16).unwrap_or(u32::MAX),
            attribute_input_mask: 0,
            partial_tex_type: 0,
            tex_coords_input_mask: 0,
            tex_coords_2d: 0xFFFF,
            tex_coords_centroid: 0,
            register_count: u8::try_from((control >> 24).max(1)).unwrap_or(u8::MAX),
            output_from_h0: control & 0x40 == 0,
            depth_replace: control & 0xE != 0,
            pixel_kill: control & 0x80 != 0,
        }),
        ucode_offset: 0,
        ucode: ucode.to_vec(),
    })
    .map_err(|e| e.to_string())
}

/// The programs of the level and of the basic sample, named:
/// `mvp_c0.vpo` (the level's HUD), `mvp_c32.vpo` (MVP from c32..c35, colour from `v[3]`),
/// `textured.vpo` (MVP, TEX0 from `v[8]`), `mov_col0.fpo`, `textured.fpo` (the basic sample's
/// textured quad) and [`level::FOG_FILE`] (the level's fog pass, its container as
/// `traces/level/` holds it).
pub fn scene_programs() -> Result<Vec<NamedProgram>, LibraryError> {
    let fail = |name: &str| {
        let name = name.to_string();
        move |reason: String| LibraryError::Program {
            name: name.clone(),
            reason,
        }
    };
    let mut out = Vec::new();
    let mut vp = |name: &str, words: Vec<u32>, inputs: u32, outputs: u32| {
        vertex_container(&words, inputs, outputs)
            .map(|container| {
                out.push(NamedProgram {
                    name: name.to_string(),
                    container,
                })
            })
            .map_err(fail(name))
    };
    vp("mvp_c0.vpo", mvp_vertex_program(0), 0b1001, 0b1)?;
    vp("mvp_c32.vpo", mvp_vertex_program(32), 0b1001, 0b1)?;
    let textured = textured_vertex_program().map_err(|e| fail("textured.vpo")(e.to_string()))?;
    vp("textured.vpo", textured, 0b1_0000_0001, 0x4001)?;
    let mut fp = |name: &str, container: Result<Vec<u8>, String>| {
        container
            .map(|container| {
                out.push(NamedProgram {
                    name: name.to_string(),
                    container,
                })
            })
            .map_err(fail(name))
    };
    fp("mov_col0.fpo", fragment_container(&FRAGMENT_MOV_COL0, 0x40))?;
    let textured = textured_fragment_program().map_err(|e| fail("textured.fpo")(e.to_string()))?;
    fp("textured.fpo", fragment_container(&textured, 0x40))?;
    let level =
        level::build(&LevelOptions::default()).map_err(|e| fail(level::FOG_FILE)(e.to_string()))?;
    fp(level::FOG_FILE, Ok(level.fog_container))?;
    Ok(out)
}

/// Writes [`scene_programs`] into `dir` (created when absent); returns the files written.
pub fn write_scene_library(dir: &Path) -> Result<Vec<PathBuf>, LibraryError> {
    let programs = scene_programs()?;
    create_dir(dir)?;
    programs
        .iter()
        .map(|p| write_file(&dir.join(&p.name), &p.container))
        .collect()
}

/// What [`write_generated_library`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneratedLibrary {
    /// Every file written, in order.
    pub files: Vec<PathBuf>,
    /// Generated vertex programs.
    pub vertex: usize,
    /// Generated fragment programs.
    pub fragment: usize,
    /// Corpus containers copied in.
    pub corpus: usize,
}

impl GeneratedLibrary {
    /// All programs written.
    pub fn programs(&self) -> usize {
        self.vertex + self.fragment + self.corpus
    }
}

/// Writes a library of `count` programs into `dir`: the corpus's `.vpo`/`.fpo`/`.rvp`/`.rfp`
/// containers (that parse) copied under `dir/corpus/` when `corpus` names a folder that
/// exists (an absent corpus is skipped silently), then generated programs up to `count`,
/// half vertex (`vp_NNNN.vpo`) and half fragment (`fp_NNNN.fpo`), distinct by content key.
/// The first generated programs are those of the game frame built with `seed`
/// ([`game_frame::GameFrameOptions::seed`]), so that library holds that frame's programs.
///
/// Fewer programs are written only when the generators cannot make enough distinct ones.
pub fn write_generated_library(
    dir: &Path,
    count: usize,
    seed: u64,
    corpus: Option<&Path>,
) -> Result<GeneratedLibrary, LibraryError> {
    create_dir(dir)?;
    let mut written = GeneratedLibrary::default();
    let mut keys: HashSet<(Stage, u64)> = HashSet::new();
    if let Some(corpus) = corpus.filter(|c| c.is_dir()) {
        copy_corpus(corpus, dir, count, &mut keys, &mut written)?;
    }
    let left = count.saturating_sub(written.corpus);
    let want_vertex = left / 2;
    let want_fragment = left - want_vertex;

    let mut rng = Rng::new(seed);
    let mut vertex_specs = Vec::new();
    let mut fragment_specs = Vec::new();
    // The game frame's own programs first (its `our_programs` draws them in this order).
    vertex_specs.extend(vertex_programs::generate(
        &mut rng,
        game_frame::PROGRAMS_PER_STAGE.min(want_vertex),
    ));
    fragment_specs.extend(fragment_programs::generate(
        &mut rng,
        game_frame::PROGRAMS_PER_STAGE.min(want_fragment),
    ));
    let mut vertex_ucode: Vec<Vec<u32>> = Vec::new();
    let mut fragment_ucode: Vec<(Vec<u8>, u32)> = Vec::new();
    let mut take_vertex = |words: Vec<u32>, out: &mut Vec<Vec<u32>>| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        if let Ok((_, key)) = canonical(Stage::Vertex, &bytes, 0) {
            if keys.insert((Stage::Vertex, key)) {
                out.push(words);
            }
        }
    };
    for spec in vertex_specs {
        take_vertex(spec.words, &mut vertex_ucode);
    }
    let mut rounds = 0;
    while vertex_ucode.len() < want_vertex && rounds < 200 {
        rounds += 1;
        for spec in vertex_programs::generate(&mut rng, 64) {
            if vertex_ucode.len() < want_vertex {
                take_vertex(spec.words, &mut vertex_ucode);
            }
        }
    }
    let mut take_fragment = |ucode: Vec<u8>, control: u32, out: &mut Vec<(Vec<u8>, u32)>| {
        if let Ok((_, key)) = canonical(Stage::Fragment, &ucode, 0) {
            if keys.insert((Stage::Fragment, key)) {
                out.push((ucode, control));
            }
        }
    };
    for spec in fragment_specs {
        take_fragment(spec.ucode, spec.control, &mut fragment_ucode);
    }
    let mut rounds = 0;
    while fragment_ucode.len() < want_fragment && rounds < 200 {
        rounds += 1;
        for spec in fragment_programs::generate(&mut rng, 64) {
            if fragment_ucode.len() < want_fragment {
                take_fragment(spec.ucode, spec.control, &mut fragment_ucode);
            }
        }
    }

    for (n, words) in vertex_ucode.iter().enumerate() {
        let name = format!("vp_{n:04}.vpo");
        let container = vertex_container(
            words,
            vertex_programs::INPUT_MASK,
            vertex_programs::OUTPUT_MASK,
        )
        .map_err(|reason| LibraryError::Program {
            name: name.clone(),
            reason,
        })?;
        written.files.push(write_file(&dir.join(name), &container)?);
        written.vertex += 1;
    }
    for (n, (ucode, control)) in fragment_ucode.iter().enumerate() {
        let name = format!("fp_{n:04}.fpo");
        let container =
            fragment_container(ucode, *control).map_err(|reason| LibraryError::Program {
                name: name.clone(),
                reason,
            })?;
        written.files.push(write_file(&dir.join(name), &container)?);
        written.fragment += 1;
    }
    Ok(written)
}

/// Copies the corpus's program containers (at most `limit`) that parse and are new by key.
fn copy_corpus(
    corpus: &Path,
    dir: &Path,
    limit: usize,
    keys: &mut HashSet<(Stage, u64)>,
    written: &mut GeneratedLibrary,
) -> Result<(), LibraryError> {
    let mut paths = Vec::new();
    container_files(corpus, &mut paths);
    paths.sort();
    let target = dir.join("corpus");
    for path in paths {
        if written.corpus >= limit {
            break;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(container) = Container::parse(&bytes) else {
            continue;
        };
        let Ok((_, key)) = canonical(container.stage(), container.ucode(), 0) else {
            continue;
        };
        if !keys.insert((container.stage(), key)) {
            continue;
        }
        let Some(name) = path.file_name() else {
            continue;
        };
        if written.corpus == 0 {
            create_dir(&target)?;
        }
        written.files.push(write_file(&target.join(name), &bytes)?);
        written.corpus += 1;
    }
    Ok(())
}

/// Program container files under `dir`, recursively; unreadable folders are skipped.
fn container_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            container_files(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("vpo" | "fpo" | "rvp" | "rfp")
        ) {
            out.push(path);
        }
    }
}

fn create_dir(dir: &Path) -> Result<(), LibraryError> {
    std::fs::create_dir_all(dir).map_err(|source| LibraryError::Write {
        path: dir.to_path_buf(),
        source,
    })
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<PathBuf, LibraryError> {
    std::fs::write(path, bytes).map_err(|source| LibraryError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::source::discover;

    #[test]
    fn scene_library_is_found_by_name_and_distinct() {
        let dir = std::env::temp_dir().join(format!("rsxtrace-scene-lib-{}", std::process::id()));
        let files = write_scene_library(&dir).unwrap();
        assert_eq!(files.len(), 6);
        let found = discover(std::slice::from_ref(&dir));
        assert!(found.problems.is_empty(), "{:?}", found.problems);
        assert_eq!(found.programs.len(), 6);
        let keys: HashSet<_> = found.programs.iter().map(|p| (p.stage, p.key)).collect();
        assert_eq!(keys.len(), 6, "six distinct programs");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn generated_library_has_the_programs_asked_for() {
        let dir = std::env::temp_dir().join(format!("rsxtrace-gen-lib-{}", std::process::id()));
        let lib = write_generated_library(&dir, 120, 7, Some(Path::new("/nonexistent"))).unwrap();
        assert_eq!((lib.vertex, lib.fragment, lib.corpus), (60, 60, 0));
        let found = discover(std::slice::from_ref(&dir));
        assert!(found.problems.is_empty(), "{:?}", found.problems);
        let keys: HashSet<_> = found.programs.iter().map(|p| (p.stage, p.key)).collect();
        assert_eq!(keys.len(), 120);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
