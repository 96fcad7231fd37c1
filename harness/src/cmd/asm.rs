//! `rsxtrace asm`: assembly text, as `disasm` writes it, to a program file: raw microcode
//! (what every command reads), or with `--like` a container (a CgBinaryProgram, or a PSL1GHT
//! or Tiny3D container) that keeps its parameters, bindings and stage descriptor around the
//! new microcode, so an edited program drops into a game's or a homebrew's shader files
//! (`rsxtrace_program::container::with_microcode`, `psl1ght_vertex_with_microcode`,
//! `psl1ght_fragment_with_microcode`), written over the container's own bytes with the
//! original words of every instruction left alone (`container::write_over`,
//! `rsxtrace_program::kept_encoding`; docs/edit.md).

use super::program_input::assembled;
use crate::cli::Stage;
use crate::exit::Status;
use crate::output::print_json;
use anyhow::{bail, Context};
use clap::Args;
use rsxtrace_program::assembly::assembly_text;
use rsxtrace_program::container::{
    self, psl1ght_fragment_with_microcode, psl1ght_vertex_with_microcode, with_microcode,
    write_over, write_program, Container, RewriteNotes,
};
use rsxtrace_program::kept_encoding::{keep_fragment, keep_vertex, KeptEncoding};
use rsxtrace_program::source::scan::scan;
use rsxtrace_program::{fragment, vertex};
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct AsmArgs {
    /// Assembly text, as `disasm` writes it.
    pub file: PathBuf,
    /// The program's stage (without it: the `--like` container's; else fragment when the
    /// text assembles as a fragment program, else vertex).
    #[arg(long, value_enum)]
    pub stage: Option<Stage>,
    /// A container to write like, a CgBinaryProgram (`.vpo`/`.fpo`) or a PSL1GHT or Tiny3D
    /// container: its parameters, their bindings and its stage descriptor around the new
    /// microcode (uniforms follow their inline constants; counts and masks cover the new
    /// program).
    #[arg(long)]
    pub like: Option<PathBuf>,
    /// With `--like`: encode every instruction from its text alone, instead of keeping the
    /// container's own words for each instruction that is one of its program's (they differ
    /// only in bits no unit reads).
    #[arg(long, requires = "like")]
    pub canonical: bool,
    /// With `--like`: the byte offset of the container inside the `--like` file (an
    /// executable: `disasm` of it lists each program's offset; without it, a file that holds
    /// one container behind a header of its own uses that one). The file written is then the
    /// whole file with that program rewritten in place (refused when it no longer fits).
    #[arg(long, requires = "like")]
    pub offset: Option<usize>,
    /// The file written: a container like the `--like` one (the whole `--like` file with
    /// `--offset`), else raw microcode (a fragment program as in guest memory, a vertex
    /// program as big-endian words).
    #[arg(long)]
    pub out: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

fn stage_of(s: container::Stage) -> Stage {
    match s {
        container::Stage::Vertex => Stage::Vertex,
        container::Stage::Fragment => Stage::Fragment,
    }
}

pub fn run(args: &AsmArgs) -> anyhow::Result<Status> {
    let path = &args.file;
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if assembly_text(&bytes).is_none() {
        bail!(
            "{} is not assembly text (disasm reads containers and microcode)",
            path.display()
        );
    }
    let like = match &args.like {
        Some(path) => Some(read_like(path, args.offset)?),
        None => None,
    };
    let like_stage = like.as_ref().map(|l| stage_of(l.container.stage()));
    if let (Some(given), Some(container)) = (args.stage, like_stage) {
        if given != container {
            bail!("--stage {given:?} but the --like container holds a {container:?} program");
        }
    }
    let Container::Raw(raw) = assembled(path, &bytes, args.stage.or(like_stage))? else {
        bail!("{} does not assemble", path.display());
    };
    let instructions = match raw.stage {
        container::Stage::Vertex => {
            vertex::decode_bytes(&raw.ucode).map(|p| p.instructions.len())?
        }
        container::Stage::Fragment => fragment::decode(&raw.ucode).map(|p| p.instructions.len())?,
    };
    let vertex = raw.stage == container::Stage::Vertex;
    let load_slot = raw.load_slot.filter(|_| vertex);
    let start_slot = raw.start_slot.or(raw.load_slot).filter(|_| vertex);
    let (ucode, kept) = match &like {
        Some(l) if !args.canonical => keep_encoding(&raw.ucode, load_slot, &l.container),
        _ => (raw.ucode.clone(), None),
    };
    let (out_bytes, format, notes, layout) = match &like {
        Some(_) if start_slot != load_slot => bail!(
            "the program starts at slot {} (its START line), not at its first slot {}: a \
             container's program starts where it is loaded (instructionSlot, start_insn)",
            start_slot.unwrap_or(0),
            load_slot.unwrap_or(0)
        ),
        Some(like) => {
            let (container, notes, layout) = like
                .rewrite(&ucode, load_slot.unwrap_or(0))
                .with_context(|| format!("cannot write it like {}", like.name))?;
            match like.offset {
                Some(at) => (
                    patched(like, at, &container)?,
                    "in place",
                    notes,
                    Some(layout),
                ),
                None => (container, like.container.format_name(), notes, Some(layout)),
            }
        }
        None => (ucode, "raw microcode", Default::default(), None),
    };
    std::fs::write(&args.out, &out_bytes)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let stage = raw.stage.name();
    if args.json {
        print_json(&json!({
            "out": args.out.display().to_string(),
            "stage": stage,
            "format": format,
            "instructions": instructions,
            "bytes": out_bytes.len(),
            "load_slot": load_slot,
            "start_slot": start_slot,
            "like": args.like.as_ref().map(|p| p.display().to_string()),
            "offset": like.as_ref().and_then(|l| l.offset),
            "layout": layout,
            "kept_encoding": kept,
            "moved_uniforms": notes.moved_uniforms.iter().map(|(name, offsets)| json!({"name": name, "offsets": offsets})).collect::<Vec<_>>(),
            "fields": notes.fields.iter().map(|(field, before, after)| json!({"field": field, "before": before, "after": after})).collect::<Vec<_>>(),
        }))?;
        return Ok(Status::Success);
    }
    let written_as = match &like {
        Some(like) if like.offset.is_some() => {
            format!(
                "in place of the {} in {}",
                like.container.format_name(),
                like.name
            )
        }
        _ => format!("as {format}"),
    };
    outln!(
        "wrote {}: a {stage} program of {instructions} instructions {written_as} ({} bytes){}",
        args.out.display(),
        out_bytes.len(),
        match (load_slot, start_slot) {
            (Some(l), Some(s)) if l != s => format!(
                ", loaded at slot {l}, starting at slot {s} (raw microcode does not carry its start)"
            ),
            (Some(l), _) => format!(", loaded at slot {l}"),
            _ => String::new(),
        },
    );
    if let Some(k) = kept {
        let restored = match k.restored {
            0 => String::new(),
            1 => " (1 differs from its text's encoding only in bits no unit reads)".into(),
            n => format!(" ({n} differ from their text's encoding only in bits no unit reads)"),
        };
        outln!(
            "{} of {} instructions keep the original's words{restored}",
            k.kept,
            k.instructions,
        );
    }
    if layout == Some("new") {
        outln!("laid out anew: the parameters or the microcode's place differ from the original's");
    }
    for (name, offsets) in &notes.moved_uniforms {
        let offsets: Vec<String> = offsets.iter().map(|o| format!("{o:#x}")).collect();
        outln!(
            "uniform {name} now in the inline constants at {}",
            offsets.join(", ")
        );
    }
    for (field, before, after) in &notes.fields {
        let mask = field.ends_with("Mask") || field.ends_with("_mask");
        if mask || matches!(*field, "fp_control" | "texcoords") {
            outln!("{field}: {before:#x} -> {after:#x}");
        } else {
            outln!("{field}: {before} -> {after}");
        }
    }
    Ok(Status::Success)
}

/// The `--like` container: alone in its file, or at `offset` inside one; a
/// `CgBinaryProgram` or a PSL1GHT/Tiny3D container.
struct Like {
    name: String,
    container: Container,
    file: Vec<u8>,
    offset: Option<usize>,
}

impl Like {
    /// The container's bytes: through its `totalSize`, or a PSL1GHT container's through its
    /// microcode (always last).
    fn bytes(&self) -> &[u8] {
        let at = self.offset.unwrap_or(0);
        let len = self.container.extent().unwrap_or(0) as usize;
        self.file
            .get(at..at.saturating_add(len))
            .unwrap_or_default()
    }

    /// The container with `ucode` loaded at `load_slot`, the notes of what changed, and
    /// whether it is laid over the original's bytes or anew.
    fn rewrite(
        &self,
        ucode: &[u8],
        load_slot: u32,
    ) -> anyhow::Result<(Vec<u8>, RewriteNotes, &'static str)> {
        Ok(match &self.container {
            Container::Cg(cg) => {
                let (program, notes) = with_microcode(cg, ucode, load_slot)?;
                match write_over(self.bytes(), &program) {
                    Some(bytes) => (bytes, notes, "original"),
                    None => (write_program(&program)?, notes, "new"),
                }
            }
            Container::Psl1ghtVertex(p) => {
                let (bytes, notes) =
                    psl1ght_vertex_with_microcode(self.bytes(), p, ucode, load_slot)?;
                (bytes, notes, "original")
            }
            Container::Psl1ghtFragment(p) => {
                let (bytes, notes) = psl1ght_fragment_with_microcode(self.bytes(), p, ucode)?;
                (bytes, notes, "original")
            }
            Container::Raw(_) => bail!("raw microcode is no container"),
        })
    }
}

fn read_like(path: &Path, offset: Option<usize>) -> anyhow::Result<Like> {
    let file = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = match offset {
        Some(at) => format!("{} at byte {at:#x}", path.display()),
        None => path.display().to_string(),
    };
    let Some(bytes) = file.get(offset.unwrap_or(0)..) else {
        bail!(
            "--offset {} is past the end of {} ({} bytes)",
            offset.unwrap_or(0),
            path.display(),
            file.len()
        );
    };
    match Container::parse(bytes) {
        Ok(container) => Ok(Like {
            name,
            container,
            file,
            offset,
        }),
        Err(e) if offset.is_none() => {
            // A file with a header of its own in front of its container (a studio's shader
            // library wraps each one), or an executable: the one container inside.
            let inside: Vec<(u64, Container)> = scan(&file)
                .hits
                .into_iter()
                .map(|h| (h.offset, h.container))
                .collect();
            match <[_; 1]>::try_from(inside) {
                Ok([(at, container)]) => Ok(Like {
                    name: format!("{} at byte {at:#x}", path.display()),
                    container,
                    file,
                    offset: usize::try_from(at).ok(),
                }),
                Err(inside) if inside.len() > 1 => bail!(
                    "{name} holds {} programs (at bytes {}): give the --offset of the one to \
                     replace (`rsxtrace disasm {}` lists them)",
                    inside.len(),
                    inside
                        .iter()
                        .map(|(at, _)| format!("{at}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    path.display()
                ),
                Err(_) => bail!("--like {name}: {e}"),
            }
        }
        Err(e) => bail!("--like {name}: {e}"),
    }
}

/// The `--like` file with `container` in place of the one at `at`, the bytes it no longer
/// takes zeroed.
fn patched(like: &Like, at: usize, container: &[u8]) -> anyhow::Result<Vec<u8>> {
    let room = like.bytes().len();
    if container.len() > room {
        bail!(
            "the new program's container takes {} bytes, {} more than the original's {room} at \
             byte {at:#x} of {}: it cannot be written in place (remove instructions, or write \
             the container alone without --offset)",
            container.len(),
            container.len() - room,
            like.name
        );
    }
    let mut out = like.file.clone();
    let Some(place) = out.get_mut(at..at + room) else {
        bail!("{}: the container runs past the end of the file", like.name);
    };
    place.fill(0);
    place[..container.len()].copy_from_slice(container);
    Ok(out)
}

/// `ucode` with the `--like` container's own words for every instruction that is one of its
/// program's (`rsxtrace_program::kept_encoding`).
fn keep_encoding(
    ucode: &[u8],
    load_slot: Option<u32>,
    like: &Container,
) -> (Vec<u8>, Option<KeptEncoding>) {
    match like.stage() {
        container::Stage::Vertex => {
            let (kept_words, kept) = keep_vertex(
                &vertex::words_of(ucode),
                load_slot.unwrap_or(0) as usize,
                &vertex::words_of(like.ucode()),
                like.load_slot().unwrap_or(0) as usize,
            );
            (
                kept_words.into_iter().flat_map(u32::to_be_bytes).collect(),
                Some(kept),
            )
        }
        container::Stage::Fragment => {
            let (bytes, kept) = keep_fragment(ucode, like.ucode());
            (bytes, Some(kept))
        }
    }
}
