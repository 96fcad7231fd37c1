//! Sources of programs for whole-game work (`rsxtrace batch`, `rsxtrace match`): every RSX
//! program found under a set of paths, recognised by content, with where it came from.
//!
//! [`discover`] walks files and folders recursively (symbolic links followed, a folder
//! reached twice walked once) and sorts what it finds by path:
//! - a folder named `shaders_cache` is an RPCS3 shader cache ([`rpcs3_cache`]), as RPCS3
//!   itself finds caches by that name (`rpcs3-shader-cache.md` §1.1);
//! - a file starting with `\x7fELF` or `SCE\0` is an executable ([`executable`]);
//! - any other file is a loose container, whole or at an offset ([`loose`], [`scan`]).
//!
//! A file or part of one that cannot be used becomes a [`SourceProblem`] naming the file and
//! offset; the walk goes on. Files are read in parallel; the output order does not depend on
//! it. `docs/batch.md` ("Sources") describes all of this for users.
//!
//! The program's **content key** is the frame model's hash (`vp_hash` / `fp_hash`, xxh3-64 of
//! the canonical microcode, fragment inline-constant slots zeroed; [`key`]), so a program found
//! here and the same program in a capture share a key.

mod bytes;
pub mod executable;
mod fragment_slots;
pub mod key;
pub mod loose;
pub mod rpcs3_cache;
pub mod scan;
mod walk;

pub use rpcs3_cache::{NameEra, PipelineLayout};

use crate::container::{Container, Stage};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One program found in a source.
#[derive(Debug, Clone, Serialize)]
pub struct FoundProgram {
    /// Vertex or fragment.
    pub stage: Stage,
    /// Canonical microcode: vertex programs as big-endian words, the whole image as stored
    /// (subroutines before [`FoundProgram::entry`] and after END included; at most 544
    /// slots); fragment programs as guest-memory bytes from the first instruction slot
    /// through the END instruction and its constant slot.
    pub ucode: Vec<u8>,
    /// The slot of `ucode` where a vertex program starts: an RPCS3 cache file's
    /// `vp_entry − vp_base_address` (`rpcs3-shader-cache.md` §2.1), 0 for containers;
    /// always 0 for fragment programs.
    pub entry: u32,
    /// Content key (see the module docs).
    pub key: u64,
    /// Where it was found.
    pub origin: Origin,
    /// Pipeline state recorded with it (RPCS3 pipeline files), when any: the first of
    /// [`FoundProgram::states`].
    pub state: Option<PipelineState>,
    /// Every pipeline state recorded with it, in pipeline-file path order (RPCS3 caches; a
    /// program can be in several pipelines). Empty elsewhere.
    pub states: Vec<PipelineState>,
    /// How it was found or must be read, beyond its origin.
    pub notes: Vec<Note>,
    /// The container it came in, when it came in one (parameters, control word). `None` for
    /// raw cache files and for blobs recovered through a symbol.
    #[serde(skip)]
    pub container: Option<Container>,
}

/// Something a consumer of a [`FoundProgram`] should know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Note {
    /// A raw cache program that no pipeline file references: it carries no state and is
    /// checked with the documented default state (`rpcs3-shader-cache.md` §5.1: vertex entry
    /// 0 and texture units 2D; fragment control 0x40 and texture units 2D), so results can
    /// differ from in-game ones (§6, RPCS3 issue #7255).
    DefaultState,
    /// A header-scan hit that a `_binary_*_start` symbol of `.symtab` also names.
    NamedBySymbol {
        /// The symbol.
        symbol: String,
    },
    /// The header scan refused the blob this symbol names (damaged header); the program was
    /// recovered from its microcode, which starts `ucode_offset` bytes into the blob.
    FoundThroughSymbol {
        /// The symbol.
        symbol: String,
        /// Offset of the microcode in the blob.
        ucode_offset: u64,
    },
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Note::DefaultState => write!(
                f,
                "no pipeline state recorded: checked with the documented default state"
            ),
            Note::NamedBySymbol { symbol } => write!(f, "named by symbol {symbol}"),
            Note::FoundThroughSymbol {
                symbol,
                ucode_offset,
            } => write!(
                f,
                "found through symbol {symbol} (damaged header; microcode at +{ucode_offset:#x})"
            ),
        }
    }
}

/// Where a program was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// A container file, possibly at an offset inside a bigger file.
    Loose {
        /// The file.
        path: PathBuf,
        /// Byte offset of the container in the file.
        offset: u64,
    },
    /// A `raw/*.vp` or `raw/*.fp` file of an RPCS3 shader cache.
    Rpcs3Cache {
        /// The raw file.
        path: PathBuf,
        /// Its RPCS3 name (the hash in the file name).
        name: String,
        /// Which RPCS3 hash the name is (`rpcs3-shader-cache.md` §2.3).
        era: NameEra,
    },
    /// A container inside an executable (ELF or debug SELF).
    Executable {
        /// The executable.
        path: PathBuf,
        /// Offset of the container in the file as stored (for a debug SELF, header included).
        file_offset: u64,
        /// Virtual address, when a segment maps the offset.
        vaddr: Option<u64>,
        /// The `_binary_*_start` symbol that located it, when the header scan could not.
        via_symbol: Option<String>,
    },
}

/// State RPCS3 recorded with a program in a pipeline file (`rpcs3-shader-cache.md` §3).
/// Fields a layout does not have read as 0.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PipelineState {
    /// The pipeline file.
    pub file: PathBuf,
    /// Backend folder (`opengl`, `vulkan`).
    pub backend: String,
    /// Version folder (`v1.95`).
    pub version: String,
    /// The file's layout, from the version folder and the size.
    pub layout: PipelineLayout,
    /// `vp_ctrl0` (layouts D, E; 0 before).
    pub vp_ctrl: u32,
    /// Vertex output mask (`vp_ctrl1` in D, E; the single `vp_ctrl` of A to C).
    pub vp_output_mask: u32,
    /// 2 bits per vertex texture unit.
    pub vp_texture_dimensions: u32,
    /// Reachable instructions relative to the base address: bit *b* of word *n* is
    /// instruction 64n + b (8 words in layout A, 9 after).
    pub vp_instruction_mask: Vec<u64>,
    /// Absolute index of the first instruction in the `.vp`.
    pub vp_base_address: u32,
    /// Absolute entry index.
    pub vp_entry: u32,
    /// Branch targets relative to the base.
    pub vp_jump_table: Vec<u16>,
    /// Multisampled vertex texture units (C to E).
    pub vp_multisampled_textures: u16,
    /// `fp_ctrl`.
    pub fp_ctrl: u32,
    /// 2 bits per fragment texture unit.
    pub fp_texture_dimensions: u32,
    /// `TEX_COORD_CONTROL` bits.
    pub fp_texcoord_control: u32,
    /// Bit 0: two-sided lighting.
    pub fp_lighting_flags: u16,
    /// Depth-compare units.
    pub fp_shadow_textures: u16,
    /// Depth textures read as ARGB8.
    pub fp_redirected_textures: u16,
    /// Multisampled units (C to E).
    pub fp_multisampled_textures: u16,
    /// Colour targets (E only).
    pub fp_mrt_count: u8,
}

/// A file (or a part of one) that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceProblem {
    /// The file.
    pub path: PathBuf,
    /// Byte offset the reason refers to, when it refers to one.
    pub offset: Option<u64>,
    /// The reason.
    pub reason: String,
}

/// Everything [`discover`] found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Discovery {
    /// Programs in path order, then offset order (not deduplicated: one entry per location,
    /// and per entry point for cache vertex programs).
    pub programs: Vec<FoundProgram>,
    /// Files or parts of files that could not be used, in path order.
    pub problems: Vec<SourceProblem>,
    /// Files read.
    pub files_read: usize,
}

/// How [`discover_with`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Files larger than this are reported as problems and not read (default 1 GiB).
    pub max_file_bytes: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_file_bytes: 1 << 30,
        }
    }
}

/// Finds every program under `paths` (files or folders, recursively) with default
/// [`Options`].
pub fn discover(paths: &[PathBuf]) -> Discovery {
    discover_with(paths, &Options::default())
}

/// Finds every program under `paths` (files or folders, recursively).
pub fn discover_with(paths: &[PathBuf], options: &Options) -> Discovery {
    let mut found = Discovery::default();
    let mut units = Vec::new();
    for path in paths {
        walk::collect(path, &mut units, &mut found.problems);
    }
    let parts: Vec<Discovery> = units
        .par_iter()
        .map(|unit| match unit {
            walk::Unit::Cache(dir) => rpcs3_cache::read(dir, options.max_file_bytes),
            walk::Unit::File(path) => read_file(path, options),
        })
        .collect();
    for part in parts {
        found.append(part);
    }
    found
}

fn read_file(path: &Path, options: &Options) -> Discovery {
    let mut found = Discovery::default();
    let size = match std::fs::metadata(path) {
        Ok(m) => m.len(),
        Err(e) => {
            found.problem(path, None, e.to_string());
            return found;
        }
    };
    if size > options.max_file_bytes {
        let reason = format!(
            "{size} bytes is over the {} byte limit; not read",
            options.max_file_bytes
        );
        found.problem(path, None, reason);
        return found;
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            found.problem(path, None, e.to_string());
            return found;
        }
    };
    found.files_read += 1;
    let (programs, problems) = if executable::is_executable(&bytes) {
        executable::read(path, &bytes)
    } else {
        loose::read(path, &bytes)
    };
    found.programs = programs;
    found.problems = problems;
    found
}

/// A found program from stored microcode (see [`key::canonical`]); `Err` names why the
/// microcode has no canonical form.
pub(crate) fn program(
    stage: Stage,
    (ucode, entry): (&[u8], u32),
    origin: Origin,
    container: Option<Container>,
    notes: Vec<Note>,
) -> Result<FoundProgram, String> {
    let (ucode, key) = key::canonical(stage, ucode, entry)?;
    Ok(FoundProgram {
        stage,
        ucode,
        entry,
        key,
        origin,
        state: None,
        states: Vec::new(),
        notes,
        container,
    })
}

impl Discovery {
    fn problem(&mut self, path: &Path, offset: Option<u64>, reason: String) {
        self.problems.push(SourceProblem {
            path: path.to_path_buf(),
            offset,
            reason,
        });
    }

    fn append(&mut self, other: Discovery) {
        self.programs.extend(other.programs);
        self.problems.extend(other.problems);
        self.files_read += other.files_read;
    }
}
