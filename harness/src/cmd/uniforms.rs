//! `rsxtrace uniforms`: a fragment program's uniform values at every draw that uses it.
//!
//! A draw uses the program when its fragment microcode equals the program's with every
//! inline-constant slot masked out (`rsxtrace_verify::probe::uniforms::ProgramKey`). Each named
//! uniform is read from the draw's inline constants through the container's embedded-constant
//! offsets; with raw microcode (or `--slots`) the constant slots are read by index, counted in
//! 16-byte slots from the program's first instruction.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::Context;
use clap::Args;
use rsxtrace_program::container::{Container, ContainerErrorKind, Stage};
use rsxtrace_verify::probe::uniforms::{
    container_uniforms, raw_slots, read_uniforms, DrawUniforms, ProgramKey, UniformSlots,
};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct UniformsArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// The fragment program: a CgBinaryProgram (.fpo), a PSL1GHT fragment container, or raw
    /// fragment microcode.
    #[arg(long)]
    pub program: PathBuf,
    /// Read these inline-constant slots (indices from the first instruction, comma-separated)
    /// instead of the container's named uniforms. Raw microcode without --slots reads every
    /// constant slot.
    #[arg(long, value_delimiter = ',')]
    pub slots: Vec<u32>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// A program file: its key and the uniforms to read.
pub struct LoadedProgram {
    pub container: Container,
    pub key: ProgramKey,
}

/// Read a fragment program file: a container, or else raw fragment microcode.
pub fn load_program(path: &Path) -> anyhow::Result<LoadedProgram> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let container = match Container::parse(&bytes) {
        Ok(c) => c,
        Err(e) if e.kind == ContainerErrorKind::UnknownFormat => {
            Container::raw(Stage::Fragment, &bytes).with_context(|| {
                format!(
                    "{} is neither a program container nor raw fragment microcode",
                    path.display()
                )
            })?
        }
        Err(e) => return Err(e).with_context(|| format!("cannot parse {}", path.display())),
    };
    if container.stage() != Stage::Fragment {
        anyhow::bail!(
            "{} is a vertex program; uniforms are read from fragment programs",
            path.display()
        );
    }
    let key = ProgramKey::from_ucode(container.ucode())
        .with_context(|| format!("cannot decode the fragment program of {}", path.display()))?;
    Ok(LoadedProgram { container, key })
}

#[derive(Serialize)]
struct Report<'a> {
    program: String,
    slot_count: u32,
    constant_slots: &'a [u32],
    uniforms: &'a [UniformSlots],
    draws: &'a [DrawUniforms],
}

/// A float for the table: shortest round-trip text, in exponent form when tiny or huge.
fn number(v: f32) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-4..1e7).contains(&a) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

pub fn run(args: &UniformsArgs) -> anyhow::Result<Status> {
    let (_capture, frame) = super::load_frame(&args.file)?;
    let loaded = load_program(&args.program)?;
    let uniforms = if !args.slots.is_empty() || matches!(loaded.container, Container::Raw(_)) {
        raw_slots(&loaded.key, &args.slots)?
    } else {
        container_uniforms(&loaded.container, &loaded.key)
            .with_context(|| format!("bad uniform table in {}", args.program.display()))?
    };
    let draws = read_uniforms(&frame, &loaded.key, &uniforms);
    if draws.is_empty() {
        eprintln!(
            "note: no draw of {} uses the program of {}",
            args.file.display(),
            args.program.display()
        );
    }
    if args.json {
        print_json(&Report {
            program: args.program.display().to_string(),
            slot_count: loaded.key.slot_count,
            constant_slots: &loaded.key.constant_slots,
            uniforms: &uniforms,
            draws: &draws,
        })?;
        return Ok(Status::Success);
    }
    outln!(
        "; {}: {} slots, constant slots {:?}; {} draws use it",
        args.program.display(),
        loaded.key.slot_count,
        loaded.key.constant_slots,
        draws.len()
    );
    let mut t = Table::new(&[">draw", "uniform", ">x", ">y", ">z", ">w", "note"]);
    for d in &draws {
        for u in &d.uniforms {
            let mut row = vec![d.draw.to_string(), u.name.clone()];
            row.extend(u.value.iter().map(|&v| number(v)));
            row.push(match &u.differing {
                Some(values) => format!("slots differ: {values:?}"),
                None => String::new(),
            });
            t.row(row);
        }
    }
    out!("{}", t.render());
    Ok(Status::Success)
}
