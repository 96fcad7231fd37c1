//! `rsxtrace asm`: assembly text, as `disasm` writes it, to a program file: raw microcode
//! (what every command reads), or with `--like` a CgBinaryProgram that keeps a container's
//! parameters, bindings and stage descriptor around the new microcode, so an edited program
//! drops into a game's shader files (`rsxtrace_program::container::with_microcode`;
//! docs/edit.md).

use super::program_input::assembled;
use crate::cli::Stage;
use crate::exit::Status;
use crate::output::print_json;
use anyhow::{bail, Context};
use clap::Args;
use rsxtrace_program::assembly::assembly_text;
use rsxtrace_program::container::{self, with_microcode, write_program, Container};
use rsxtrace_program::{fragment, vertex};
use serde_json::json;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct AsmArgs {
    /// Assembly text, as `disasm` writes it.
    pub file: PathBuf,
    /// The program's stage (without it: the `--like` container's; else fragment when the
    /// text assembles as a fragment program, else vertex).
    #[arg(long, value_enum)]
    pub stage: Option<Stage>,
    /// A CgBinaryProgram (`.vpo`/`.fpo`) to write like: its parameters, their bindings and
    /// its stage descriptor around the new microcode (uniforms follow their inline
    /// constants; counts and masks cover the new program).
    #[arg(long)]
    pub like: Option<PathBuf>,
    /// The file written: a CgBinaryProgram with `--like`, else raw microcode (a fragment
    /// program as in guest memory, a vertex program as big-endian words).
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
        Some(like) => {
            let b =
                std::fs::read(like).with_context(|| format!("cannot read {}", like.display()))?;
            match Container::parse(&b) {
                Ok(Container::Cg(cg)) => Some(cg),
                Ok(_) => bail!(
                    "--like takes a CgBinaryProgram (.vpo/.fpo); {} is a PSL1GHT container",
                    like.display()
                ),
                Err(e) => bail!("--like {}: {e}", like.display()),
            }
        }
        None => None,
    };
    let like_stage = like.as_ref().map(|cg| stage_of(cg.stage()));
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
    let (out_bytes, format, notes) = match &like {
        Some(_) if start_slot != load_slot => bail!(
            "the program starts at slot {} (its START line), not at its first slot {}: a \
             CgBinaryProgram's program starts where it is loaded (instructionSlot)",
            start_slot.unwrap_or(0),
            load_slot.unwrap_or(0)
        ),
        Some(cg) => {
            let (program, notes) = with_microcode(cg, &raw.ucode, load_slot.unwrap_or(0))
                .with_context(|| {
                    format!(
                        "cannot write it like {}",
                        args.like
                            .as_ref()
                            .map_or(String::new(), |p| p.display().to_string())
                    )
                })?;
            (write_program(&program)?, "CgBinaryProgram", notes)
        }
        None => (raw.ucode.clone(), "raw microcode", Default::default()),
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
            "moved_uniforms": notes.moved_uniforms.iter().map(|(name, offsets)| json!({"name": name, "offsets": offsets})).collect::<Vec<_>>(),
            "fields": notes.fields.iter().map(|(field, before, after)| json!({"field": field, "before": before, "after": after})).collect::<Vec<_>>(),
        }))?;
        return Ok(Status::Success);
    }
    outln!(
        "wrote {}: a {stage} program of {instructions} instructions as {format} ({} bytes){}",
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
    for (name, offsets) in &notes.moved_uniforms {
        let offsets: Vec<String> = offsets.iter().map(|o| format!("{o:#x}")).collect();
        outln!(
            "uniform {name} now in the inline constants at {}",
            offsets.join(", ")
        );
    }
    for (field, before, after) in &notes.fields {
        if field.ends_with("Mask") {
            outln!("{field}: {before:#x} -> {after:#x}");
        } else {
            outln!("{field}: {before} -> {after}");
        }
    }
    Ok(Status::Success)
}
