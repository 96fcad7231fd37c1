//! Where `disasm`, `flow` and `translate` get programs from: a container, assembly or raw
//! microcode file, the programs an executable or a folder (RPCS3 shader caches included)
//! holds, or the programs bound at one draw of a capture.

use crate::cli::Stage;
use anyhow::{bail, Context};
use rsxtrace_capture::frame::Draw;
use rsxtrace_capture::open::{file_kind, FileKind};
use rsxtrace_program::assembly::assembly_text;
use rsxtrace_program::container::{self, Container};
use rsxtrace_program::source::{self, executable, FoundProgram, Note, Origin, SourceProblem};
use rsxtrace_program::{fragment, vertex};
use rsxtrace_replay::texture::lod::{unit_lod, TextureLod};
use rsxtrace_replay::texture::vertex_units::{translation_state, txl_units};
use rsxtrace_replay::wgsl::vertex::VertexTextureUnits;
use std::path::Path;

/// A decoded program and a line saying where it came from.
pub enum Program {
    Vertex(vertex::VertexProgram),
    Fragment(fragment::FragmentProgram),
}

pub struct Located {
    pub origin: String,
    pub program: Program,
    /// The container, when the program came from one (for its parameter table).
    pub container: Option<Container>,
    /// The fragment shader-control word: the container's, or the draw's.
    pub control: Option<u32>,
    /// For a draw: each fragment texture unit's dimension (1, 2, 3; cube maps as 6).
    pub texture_dimensions: Option<[u8; 16]>,
    /// For a draw: each fragment texture unit's LOD state (the shared LOD rule's input, which
    /// the recompiled shader bakes in).
    pub texture_lod: Option<[TextureLod; 16]>,
    /// For a draw's vertex program: the state of the vertex texture units its TXL
    /// instructions sample (dimension and LOD state).
    pub vertex_textures: Option<VertexTextureUnits>,
    /// For a draw's vertex program: the transform program memory it was decoded from.
    pub memory_words: Vec<u32>,
    /// For a program found in an executable, or behind a header of its file's own: its byte
    /// offset in the file.
    pub file_offset: Option<u64>,
}

/// The programs a file holds: one for a container or raw file; every one of an executable
/// or under a folder; for a capture with `--draw`, the draw's vertex and fragment programs
/// (only `stage` when given).
pub fn load(
    path: &Path,
    stage: Option<Stage>,
    offset: usize,
    draw: Option<usize>,
) -> anyhow::Result<Vec<Located>> {
    if path.is_dir() {
        if draw.is_some() {
            bail!("--draw applies to captures; {} is a folder", path.display());
        }
        return from_folder(path, stage);
    }
    match file_kind(path)? {
        FileKind::Capture | FileKind::Trace => {
            let Some(draw_index) = draw else {
                bail!(
                    "{} is a capture: say which draw's programs with --draw N",
                    path.display()
                )
            };
            from_draw(path, draw_index, stage)
        }
        FileKind::Other => {
            if draw.is_some() {
                bail!(
                    "--draw applies to captures; {} is a program file",
                    path.display()
                );
            }
            from_program_file(path, stage, offset)
        }
    }
}

fn from_program_file(
    path: &Path,
    stage: Option<Stage>,
    offset: usize,
) -> anyhow::Result<Vec<Located>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let Some(bytes) = bytes.get(offset..) else {
        bail!(
            "--offset {offset} is past the end of {} ({} bytes)",
            path.display(),
            bytes.len()
        )
    };
    if offset == 0 && executable::is_executable(bytes) {
        return from_executable(path, bytes, stage);
    }
    let unknown = matches!(
        Container::parse(bytes),
        Err(e) if e.kind == container::ContainerErrorKind::UnknownFormat
    );
    if offset == 0 && stage.is_none() && unknown && assembly_text(bytes).is_none() {
        // A header of its own in front of the container (a studio's shader library): the
        // containers inside, as `batch` finds them.
        let (found, problems) = source::loose::read(path, bytes);
        if !found.is_empty() {
            return from_found(path, found, &problems, stage, "a file");
        }
    }
    from_program_bytes(path, bytes, stage, offset > 0).map(|p| vec![p])
}

/// Every program an executable (ELF, debug SELF) holds, found as `batch` finds them (a
/// bad part of the file is a warning), of `stage` when given; `--offset` chooses one.
fn from_executable(
    path: &Path,
    bytes: &[u8],
    stage: Option<Stage>,
) -> anyhow::Result<Vec<Located>> {
    let (found, problems) = executable::read(path, bytes);
    from_found(path, found, &problems, stage, "an executable")
}

/// Every program under a folder (containers, executables, RPCS3 shader caches), found as
/// `batch` finds them; a file that holds none is a warning.
fn from_folder(path: &Path, stage: Option<Stage>) -> anyhow::Result<Vec<Located>> {
    let found = source::discover(&[path.to_path_buf()]);
    from_found(path, found.programs, &found.problems, stage, "a folder")
}

/// The programs a source search found, of `stage` when given, each headed with where it
/// lies; `problems` are warnings; `what` names `path` when nothing is found.
fn from_found(
    path: &Path,
    found: Vec<FoundProgram>,
    problems: &[SourceProblem],
    stage: Option<Stage>,
    what: &str,
) -> anyhow::Result<Vec<Located>> {
    for p in problems {
        let at = p
            .offset
            .map_or(String::new(), |o| format!(" at byte {o:#x}"));
        eprintln!("warning: {}{at}: {}", p.path.display(), p.reason);
    }
    let wanted = |s: container::Stage| match stage {
        Some(Stage::Vertex) => s == container::Stage::Vertex,
        Some(Stage::Fragment) => s == container::Stage::Fragment,
        None => true,
    };
    let mut out = Vec::new();
    for f in found.into_iter().filter(|f| wanted(f.stage)) {
        let file_offset = match &f.origin {
            Origin::Executable { file_offset, .. } => Some(*file_offset),
            Origin::Loose { offset, .. } if *offset > 0 => Some(*offset),
            _ => None,
        };
        let symbol = match &f.origin {
            Origin::Executable {
                via_symbol: Some(s),
                ..
            } => format!(", symbol {s}"),
            _ => String::new(),
        };
        // How to read it alone: its container at its offset, or, for microcode recovered
        // through a symbol from a damaged container, the microcode as raw.
        let alone = match (file_offset, &f.container) {
            (Some(o), Some(_)) => format!(" (--offset {o} reads it alone)"),
            (Some(o), None) => f
                .notes
                .iter()
                .find_map(|n| match n {
                    Note::FoundThroughSymbol { ucode_offset, .. } => Some(format!(
                        " (--offset {} --stage {} reads its microcode alone)",
                        o + ucode_offset,
                        f.stage.name()
                    )),
                    _ => None,
                })
                .unwrap_or_default(),
            _ => String::new(),
        };
        let at = match &f.origin {
            Origin::Executable {
                path, file_offset, ..
            } => format!("{} at byte {file_offset:#x}{symbol}{alone}", path.display()),
            Origin::Loose { path, offset: 0 } => path.display().to_string(),
            Origin::Loose { path, offset } => format!(
                "{} at byte {offset:#x} (--offset {offset} reads it alone)",
                path.display()
            ),
            Origin::Rpcs3Cache { path, .. } => format!("{} (RPCS3 shader cache)", path.display()),
        };
        let kind = f
            .container
            .as_ref()
            .map_or("microcode", Container::format_name);
        let origin = format!("{at}: {} program, {kind}", f.stage.name());
        let program = match f.stage {
            container::Stage::Vertex => {
                let slot = f
                    .container
                    .as_ref()
                    .and_then(Container::load_slot)
                    .map_or(0, |s| s as usize);
                match vertex::decode_image(&f.ucode, f.entry as usize) {
                    Ok((p, _)) => Program::Vertex(p.loaded_at(slot)),
                    Err(e) => {
                        eprintln!("warning: {origin}: cannot decode: {e}");
                        continue;
                    }
                }
            }
            container::Stage::Fragment => match fragment::decode(&f.ucode) {
                Ok(p) => Program::Fragment(p),
                Err(e) => {
                    eprintln!("warning: {origin}: cannot decode: {e}");
                    continue;
                }
            },
        };
        out.push(Located {
            origin,
            program,
            control: f.container.as_ref().and_then(Container::control_word),
            container: f.container,
            texture_dimensions: None,
            texture_lod: None,
            vertex_textures: None,
            memory_words: Vec::new(),
            file_offset,
        });
    }
    if out.is_empty() {
        bail!(
            "{} is {what} with no {}program found in it",
            path.display(),
            match stage {
                Some(Stage::Vertex) => "vertex ",
                Some(Stage::Fragment) => "fragment ",
                None => "",
            }
        );
    }
    Ok(out)
}

/// One program from a file's bytes: a container, assembly text, or raw microcode of
/// `stage`.
fn from_program_bytes(
    path: &Path,
    bytes: &[u8],
    stage: Option<Stage>,
    inside: bool,
) -> anyhow::Result<Located> {
    let text = assembly_text(bytes).is_some();
    // Raw microcode at an offset inside a bigger file ends at its END instruction.
    let raw =
        |s: container::Stage| Container::raw(s, if inside { through_end(bytes, s) } else { bytes });
    let parsed = match Container::parse(bytes) {
        Ok(c) => c,
        // Assembly, as `disasm` writes it.
        Err(_) if text => assembled(path, bytes, stage)?,
        Err(container_error) => match stage {
            Some(Stage::Vertex) => raw(container::Stage::Vertex)?,
            Some(Stage::Fragment) => raw(container::Stage::Fragment)?,
            None => bail!(
                "{} is not a known container ({container_error}); for raw microcode give --stage vertex|fragment",
                path.display()
            ),
        },
    };
    let kind = match &parsed {
        Container::Raw(r) if text => format!("{} assembly", r.stage.name()),
        other => other.format_name().to_string(),
    };
    let origin = format!("{} ({kind})", path.display());
    let program = match parsed.stage() {
        container::Stage::Vertex => {
            let p = vertex::decode_bytes(parsed.ucode())
                .with_context(|| format!("cannot decode the vertex program of {origin}"))?;
            // Numbered from where it is loaded: its branch targets are absolute slots.
            let slot = parsed.load_slot().map_or(0, |s| s as usize);
            let mut p = p.loaded_at(slot);
            p.start_slot = parsed.start_slot().map_or(slot, |s| s as usize);
            Program::Vertex(p)
        }
        container::Stage::Fragment => Program::Fragment(
            fragment::decode(parsed.ucode())
                .with_context(|| format!("cannot decode the fragment program of {origin}"))?,
        ),
    };
    Ok(Located {
        origin,
        program,
        control: parsed.control_word(),
        container: Some(parsed),
        texture_dimensions: None,
        texture_lod: None,
        vertex_textures: None,
        memory_words: Vec::new(),
        file_offset: None,
    })
}

/// The whole 16-byte slots of `bytes` through the first END instruction (a fragment
/// program's inline constant after it included); all of them when none decodes to END.
fn through_end(bytes: &[u8], stage: container::Stage) -> &[u8] {
    let whole = &bytes[..bytes.len() - bytes.len() % 16];
    let slots = match stage {
        container::Stage::Fragment => fragment::decode_until_end(whole).ok().and_then(|p| {
            p.instructions
                .iter()
                .map(|i| i.slot as usize + 1 + usize::from(i.constant.is_some()))
                .max()
        }),
        container::Stage::Vertex => whole.chunks_exact(16).enumerate().find_map(|(k, c)| {
            let w = |n: usize| u32::from_be_bytes([c[n], c[n + 1], c[n + 2], c[n + 3]]);
            vertex::decode_instruction([w(0), w(4), w(8), w(12)], k)
                .ok()
                .filter(|i| i.end)
                .map(|_| k + 1)
        }),
    };
    slots.and_then(|n| whole.get(..n * 16)).unwrap_or(whole)
}

/// Assembly text of `stage`; without one, fragment assembly, else vertex assembly.
pub(super) fn assembled(
    path: &Path,
    bytes: &[u8],
    stage: Option<Stage>,
) -> anyhow::Result<Container> {
    let of = |s: container::Stage| {
        Container::parse_any(bytes, s).with_context(|| {
            format!(
                "{} does not assemble as a {} program",
                path.display(),
                s.name()
            )
        })
    };
    match stage {
        Some(Stage::Vertex) => of(container::Stage::Vertex),
        Some(Stage::Fragment) => of(container::Stage::Fragment),
        None => of(container::Stage::Fragment).or_else(|fragment| {
            of(container::Stage::Vertex).map_err(|vertex| {
                anyhow::anyhow!(
                    "{} assembles neither as a fragment program ({:#}) nor as a vertex program ({:#}); --stage says which it is",
                    path.display(),
                    fragment.root_cause(),
                    vertex.root_cause()
                )
            })
        }),
    }
}

fn from_draw(path: &Path, draw_index: usize, stage: Option<Stage>) -> anyhow::Result<Vec<Located>> {
    let (_capture, frame) = super::load_frame(path)?;
    let draw = super::draw_at(&frame, draw_index)?;
    let stages: Vec<(&str, anyhow::Result<Located>)> = match stage {
        Some(Stage::Vertex) => vec![("vertex", draw_vertex(draw, draw_index))],
        Some(Stage::Fragment) => vec![("fragment", draw_fragment(draw, draw_index))],
        None => vec![
            ("vertex", draw_vertex(draw, draw_index)),
            ("fragment", draw_fragment(draw, draw_index)),
        ],
    };
    // Both stages asked for: one that cannot be had is named and the other still given.
    let both = stages.len() > 1;
    let mut out = Vec::new();
    let mut failed = Vec::new();
    for (name, located) in stages {
        match located {
            Ok(l) => out.push(l),
            Err(e) if both => failed.push((name, e)),
            Err(e) => return Err(e),
        }
    }
    if out.is_empty() {
        let why: Vec<String> = failed.iter().map(|(_, e)| format!("{e:#}")).collect();
        bail!("{}", why.join("; "));
    }
    for (name, e) in failed {
        eprintln!("warning: {e:#}; the {name} program is left out");
    }
    Ok(out)
}

/// A draw's vertex program, decoded from its transform program memory.
fn draw_vertex(draw: &Draw, draw_index: usize) -> anyhow::Result<Located> {
    let program = vertex::decode_from_memory(&draw.vertex_program, draw.vp_start as usize)
        .with_context(|| format!("draw {draw_index}: cannot decode the vertex program"))?;
    let vertex_textures = translation_state(&draw.vertex_textures, txl_units(&program));
    Ok(Located {
        origin: format!(
            "draw {draw_index}: vertex program at slot {} (hash {:016x})",
            draw.vp_start, draw.vp_hash
        ),
        program: Program::Vertex(program),
        container: None,
        control: None,
        texture_dimensions: None,
        texture_lod: None,
        vertex_textures: Some(vertex_textures),
        memory_words: draw.vertex_program.to_vec(),
        file_offset: None,
    })
}

/// A draw's fragment program, as the capture holds it.
fn draw_fragment(draw: &Draw, draw_index: usize) -> anyhow::Result<Located> {
    let Some(fp) = &draw.fragment_program else {
        let why = draw
            .problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("; ");
        bail!("draw {draw_index}: the fragment program is not in the capture ({why})")
    };
    let program = fragment::decode(&fp.ucode)
        .with_context(|| format!("draw {draw_index}: cannot decode the fragment program"))?;
    Ok(Located {
        origin: format!(
            "draw {draw_index}: fragment program at {}+0x{:08x} (hash {:016x}, shader control 0x{:08x})",
            fp.address.location.name(),
            fp.address.offset,
            fp.hash,
            draw.shader_control.raw
        ),
        program: Program::Fragment(program),
        container: None,
        control: Some(draw.shader_control.raw),
        texture_dimensions: Some(std::array::from_fn(|u| {
            let format = &draw.textures[u].format;
            if format.cubemap {
                6
            } else {
                format.dimension
            }
        })),
        texture_lod: Some(std::array::from_fn(|u| unit_lod(&draw.textures[u]))),
        vertex_textures: None,
        memory_words: Vec::new(),
        file_offset: None,
    })
}
