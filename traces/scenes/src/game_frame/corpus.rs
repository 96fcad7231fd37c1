//! Corpus programs for the non-committed variant of the game frame: every `CgBinaryProgram`
//! and PSL1GHT container under a corpus directory, read at run time (the corpus is never
//! copied into the project, so a frame holding its microcode is never committed).
//!
//! A vertex program gets the draw's model-view-projection in the four consecutive constants
//! from its lowest constant read (the usual layout of a Cg `modelViewProj` uniform), 0.5 in
//! every other constant it reads, and 0.5 immediates for the attributes it reads beyond the
//! frame's position, normal, colour and texture coordinate. A fragment program keeps its
//! container's control word and samples whatever units it names.

use rsxtrace_program::container::{Container, Stage};
use rsxtrace_program::flow::analyze;
use rsxtrace_program::fragment;
use rsxtrace_program::vertex::{self, RegisterType};
use std::path::Path;

/// Attributes every mesh of the frame provides: position 0, normal 2, colour 3, uv 8.
const MESH_ATTRIBUTES: [u32; 4] = [0, 2, 3, 8];

/// A corpus vertex program, ready to bind.
#[derive(Clone, Debug)]
pub struct CorpusVertex {
    pub name: String,
    pub words: Vec<u32>,
    pub input_mask: u32,
    pub output_mask: u32,
    pub constants: Vec<(u16, [f32; 4])>,
    pub mvp: u16,
    pub immediates: Vec<u32>,
}

/// A corpus fragment program, ready to bind.
#[derive(Clone, Debug)]
pub struct CorpusFragment {
    pub name: String,
    pub ucode: Vec<u8>,
    pub control: u32,
    pub units: Vec<u8>,
}

/// The corpus's programs.
#[derive(Clone, Debug, Default)]
pub struct CorpusPrograms {
    pub vertex: Vec<CorpusVertex>,
    pub fragment: Vec<CorpusFragment>,
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            files(&path, out)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("vpo" | "fpo" | "rvp" | "rfp")
        ) {
            out.push(path);
        }
    }
    Ok(())
}

fn vertex_program(name: String, c: &Container) -> Result<CorpusVertex, String> {
    let program = vertex::decode_bytes(c.ucode()).map_err(|e| format!("{name}: {e}"))?;
    let words = vertex::encode(&program);
    let mut read: Vec<u16> = Vec::new();
    let mut inputs = 0u32;
    for insn in &program.instructions {
        for s in &insn.sources {
            match s.reg_type {
                RegisterType::Constant if !read.contains(&insn.const_index) => {
                    read.push(insn.const_index)
                }
                RegisterType::Input => inputs |= 1 << (insn.input.0 & 15),
                _ => {}
            }
        }
    }
    read.sort_unstable();
    let mvp = read.first().copied().unwrap_or(0);
    let constants = read
        .iter()
        .filter(|&&k| !(mvp..mvp.saturating_add(4)).contains(&k))
        .map(|&k| (k, [0.5; 4]))
        .collect();
    let (input_mask, output_mask) = match c {
        Container::Cg(cg) => match &cg.stage_info {
            rsxtrace_program::container::CgStageInfo::Vertex(v) => {
                (v.attribute_input_mask, v.attribute_output_mask)
            }
            _ => (inputs, 0xFFFF),
        },
        _ => (inputs, 0xFFFF),
    };
    let immediates = (0..16)
        .filter(|a| inputs & (1 << a) != 0 && !MESH_ATTRIBUTES.contains(a))
        .collect();
    Ok(CorpusVertex {
        name,
        words,
        input_mask: input_mask | inputs,
        output_mask,
        constants,
        mvp,
        immediates,
    })
}

fn fragment_program(name: String, c: &Container) -> Result<CorpusFragment, String> {
    let program = fragment::decode(c.ucode()).map_err(|e| format!("{name}: {e}"))?;
    let mut units: Vec<u8> = analyze(&program).textures.iter().map(|t| t.unit).collect();
    units.sort_unstable();
    units.dedup();
    Ok(CorpusFragment {
        name,
        ucode: c.ucode().to_vec(),
        control: c.control_word().unwrap_or(0x40),
        units,
    })
}

/// Every program container under `dir` (recursively), in path order.
pub fn load(dir: &Path) -> Result<CorpusPrograms, String> {
    let mut paths = Vec::new();
    files(dir, &mut paths)?;
    paths.sort();
    let mut out = CorpusPrograms::default();
    for path in paths {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).map_err(|e| format!("{name}: {e}"))?;
        let container = Container::parse(&bytes).map_err(|e| format!("{name}: {e}"))?;
        match container.stage() {
            Stage::Vertex => out.vertex.push(vertex_program(name, &container)?),
            Stage::Fragment => out.fragment.push(fragment_program(name, &container)?),
        }
    }
    Ok(out)
}
