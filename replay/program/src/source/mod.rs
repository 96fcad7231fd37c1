//! Sources of programs for whole-game work (`rsxtrace batch`, `rsxtrace match`): every RSX
//! program found under a set of paths, recognised by content, with where it came from.
//!
//! [`discover`] walks files and folders recursively. Today it recognises loose containers
//! (`CgBinaryProgram`, PSL1GHT) whole; the RPCS3 shader cache and executables are read by the
//! submodules as they land (`docs/batch.md`). A file that cannot be read or parsed becomes a
//! [`SourceProblem`] naming the file and offset; the walk goes on.
//!
//! The program's **content key** is the frame model's hash (`vp_hash` / `fp_hash`, xxh3-64 of
//! the canonical microcode, fragment inline-constant slots zeroed), so a program found here and
//! the same program in a capture share a key.

use crate::container::{Container, Stage};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One program found in a source.
#[derive(Debug, Clone, Serialize)]
pub struct FoundProgram {
    /// Vertex or fragment.
    pub stage: Stage,
    /// Canonical microcode: vertex programs as big-endian words from the entry slot through the
    /// END slot; fragment programs as guest-memory bytes from the first instruction slot
    /// through the END instruction and its constant slot.
    pub ucode: Vec<u8>,
    /// Content key (see the module docs).
    pub key: u64,
    /// Where it was found.
    pub origin: Origin,
    /// Pipeline state recorded with it (RPCS3 pipeline files), when any.
    pub state: Option<PipelineState>,
    /// The container it came in, when it came in one (parameters, control word).
    #[serde(skip)]
    pub container: Option<Container>,
}

/// Where a program was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// A container or raw microcode file, possibly at an offset inside a bigger file.
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
    },
    /// A container inside an executable (ELF or debug SELF).
    Executable {
        /// The executable.
        path: PathBuf,
        /// File offset of the container.
        file_offset: u64,
        /// Virtual address, when a segment maps the offset.
        vaddr: Option<u64>,
        /// The `_binary_*_start` symbol that located it, when the header scan could not.
        via_symbol: Option<String>,
    },
}

/// State RPCS3 recorded with a program in a pipeline file (`rpcs3-shader-cache.md` 3.2).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PipelineState {
    /// The pipeline file.
    pub file: PathBuf,
    /// Backend folder (`opengl`, `vulkan`) and version folder (`v1.95`).
    pub backend: String,
    /// Version folder.
    pub version: String,
    /// `vp_ctrl0`.
    pub vp_ctrl: u32,
    /// Vertex output mask (`vp_ctrl1`).
    pub vp_output_mask: u32,
    /// 2 bits per vertex texture unit.
    pub vp_texture_dimensions: u32,
    /// Absolute index of the first instruction in the `.vp`.
    pub vp_base_address: u32,
    /// Absolute entry index.
    pub vp_entry: u32,
    /// Branch targets relative to the base.
    pub vp_jump_table: Vec<u16>,
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
    /// Multisampled units.
    pub fp_multisampled_textures: u16,
    /// Colour targets.
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
    /// Programs in the order found (not deduplicated: one entry per location).
    pub programs: Vec<FoundProgram>,
    /// Files or parts of files that could not be used.
    pub problems: Vec<SourceProblem>,
    /// Files read.
    pub files_read: usize,
}

/// Finds every program under `paths` (files or folders, recursively).
pub fn discover(paths: &[PathBuf]) -> Discovery {
    let mut found = Discovery::default();
    for path in paths {
        walk(path, &mut found);
    }
    found
}

fn walk(path: &Path, found: &mut Discovery) {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return found.problem(path, None, e.to_string()),
    };
    if meta.is_dir() {
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(path) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => return found.problem(path, None, e.to_string()),
        };
        entries.sort();
        for entry in entries {
            walk(&entry, found);
        }
        return;
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return found.problem(path, None, e.to_string()),
    };
    found.files_read += 1;
    match Container::parse(&bytes) {
        Ok(container) => match loose(path, 0, container) {
            Ok(p) => found.programs.push(p),
            Err(reason) => found.problem(path, Some(0), reason),
        },
        Err(e) if e.kind == crate::container::ContainerErrorKind::UnknownFormat => {}
        Err(e) => found.problem(path, Some(e.offset), e.to_string()),
    }
}

fn loose(path: &Path, offset: u64, container: Container) -> Result<FoundProgram, String> {
    let stage = container.stage();
    let (ucode, key) = key::canonical(stage, container.ucode())?;
    Ok(FoundProgram {
        stage,
        ucode,
        key,
        origin: Origin::Loose {
            path: path.to_path_buf(),
            offset,
        },
        state: None,
        container: Some(container),
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
}

pub mod key;
