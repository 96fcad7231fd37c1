//! `rsxtrace edit`: a capture whose chosen draws run other vertex or fragment programs, read
//! from program files (`rsxtrace_replay::edit`; docs/edit.md).

use crate::exit::Status;
use crate::output::print_json;
use anyhow::Context;
use clap::Args;
use rsxtrace_capture::frame::Frame;
use rsxtrace_replay::edit::{edit_programs, ProgramFile, Request, Selector, Stage};
use rsxtrace_replay::shade::Uniform;
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct EditArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// SELECTOR=FILE: the draws SELECTOR chooses run the fragment program in FILE (a
    /// CgBinaryProgram `.fpo`, a PSL1GHT container, assembly text as `disasm` writes it, or
    /// raw microcode), or the program draw N runs: `@N` in this capture, `OTHER.rrc.gz@N` in
    /// another. SELECTOR is `all`, a draw range (`A..B`, `A..=B`, `A..`, `N`) or a fragment
    /// program hash of 8 to 16 hex digits as `draws` prints it. Repeatable.
    #[arg(long = "fragment", value_name = "SELECTOR=FILE", value_parser = parse_pair)]
    pub fragment: Vec<(Selector, PathBuf)>,
    /// SELECTOR=FILE: the same for vertex programs (a `.vpo`, a PSL1GHT container, raw
    /// big-endian microcode loaded at the first chosen draw's start slot, or `[OTHER]@N`: the
    /// program draw N runs, at its own slot). Repeatable.
    #[arg(long = "vertex", value_name = "SELECTOR=FILE", value_parser = parse_pair)]
    pub vertex: Vec<(Selector, PathBuf)>,
    /// NAME=x,y,z,w: write this value into the named uniform of every fragment program file
    /// that declares it (a CgBinaryProgram or PSL1GHT container; as `shade --uniform`).
    /// Repeatable.
    #[arg(long = "uniform", value_name = "NAME=x,y,z,w")]
    pub uniforms: Vec<String>,
    /// Encode assembly text from its text alone, instead of keeping the words of each
    /// instruction that is one of the program the chosen draw ran (they differ only in bits
    /// no unit reads; kept, a draw given its own disassembly back runs its very bytes).
    #[arg(long)]
    pub canonical: bool,
    /// The edited capture, written as RPCS3 writes RRC v6 (one gzip member).
    #[arg(long)]
    pub out: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_pair(s: &str) -> Result<(Selector, PathBuf), String> {
    // The first '=' that is not the one of an inclusive range (`A..=B`).
    let at = s
        .match_indices('=')
        .map(|(i, _)| i)
        .find(|&i| !s[..i].ends_with(".."))
        .ok_or_else(|| format!("{s}: expected SELECTOR=FILE"))?;
    let (selector, file) = (&s[..at], &s[at + 1..]);
    if file.is_empty() {
        return Err(format!("{s}: no file after '='"));
    }
    Ok((Selector::parse(selector)?, PathBuf::from(file)))
}

pub fn run(args: &EditArgs) -> anyhow::Result<Status> {
    if args.fragment.is_empty() && args.vertex.is_empty() {
        anyhow::bail!("nothing to edit: give --fragment SELECTOR=FILE or --vertex SELECTOR=FILE");
    }
    let uniforms = args
        .uniforms
        .iter()
        .map(|u| u.parse::<Uniform>())
        .collect::<Result<Vec<_>, _>>()?;
    let mut uniforms_written = vec![Vec::new(); uniforms.len()];
    let capture = rsxtrace_capture::open::open_capture(&args.file)?;
    let frame = Frame::from_capture(&capture)
        .with_context(|| format!("cannot decode the frame of {}", args.file.display()))?;
    // Frames that programs are taken from (`OTHER@N`), each decoded once.
    let mut others: HashMap<PathBuf, Frame> = HashMap::new();
    let mut requests = Vec::new();
    let mut files = Vec::new();
    let asked = args
        .fragment
        .iter()
        .map(|p| (Stage::Fragment, p))
        .chain(args.vertex.iter().map(|p| (Stage::Vertex, p)));
    for (stage, (selector, path)) in asked {
        let program = match draw_source(path) {
            Some((other, draw)) => {
                let source = match other {
                    None => &frame,
                    Some(other) => {
                        if !others.contains_key(&other) {
                            let c = rsxtrace_capture::open::open_capture(&other)?;
                            let f = Frame::from_capture(&c).with_context(|| {
                                format!("cannot decode the frame of {}", other.display())
                            })?;
                            others.insert(other.clone(), f);
                        }
                        &others[&other]
                    }
                };
                ProgramFile::from_draw(source, draw, stage)
                    .with_context(|| format!("{}: no program to take", path.display()))?
            }
            None => {
                let bytes = std::fs::read(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let given = if stage == Stage::Fragment {
                    &uniforms[..]
                } else {
                    &[]
                };
                let (program, written) = ProgramFile::parse_with_uniforms(&bytes, stage, given)
                    .with_context(|| format!("{}: not a usable program", path.display()))?;
                for u in written {
                    uniforms_written[u].push(path.display().to_string());
                }
                program
            }
        };
        files.push(path.display().to_string());
        let mut program = program;
        program.keeps_draw_encoding &= !args.canonical;
        requests.push(Request {
            selector: selector.clone(),
            program,
        });
    }
    if let Some(u) = uniforms_written.iter().position(Vec::is_empty) {
        anyhow::bail!(
            "--uniform {}: no fragment program file given declares a uniform of that name",
            args.uniforms[u]
        );
    }
    let (edited, summary) = edit_programs(&capture, &frame, &requests)?;
    let written = super::rrc_out::write(&edited, &args.out)?;
    for &u in &summary.unmatched {
        eprintln!(
            "warning: no draw matches {} {}; {} was not used",
            requests[u].program.stage.name(),
            requests[u].selector,
            files[u]
        );
    }
    if args.json {
        let placements: Vec<_> = summary
            .placements
            .iter()
            .map(|p| {
                let mut v = serde_json::to_value(p).unwrap_or_default();
                v["file"] = json!(files[p.request]);
                v
            })
            .collect();
        print_json(&json!({
            "out": args.out.display().to_string(),
            "replacements": placements,
            "unmatched": summary.unmatched.iter().map(|&u| json!({
                "stage": requests[u].program.stage.name(),
                "selector": requests[u].selector.to_string(),
                "file": files[u],
            })).collect::<Vec<_>>(),
            "uniforms": uniforms.iter().zip(&uniforms_written).map(|(u, f)| json!({
                "name": u.name,
                "value": u.value,
                "files": f,
            })).collect::<Vec<_>>(),
            "commands": [summary.commands.0, summary.commands.1],
            "file_bytes": written,
        }))?;
        return Ok(Status::Success);
    }
    outln!(
        "wrote {}: {} commands (was {}), {} bytes",
        args.out.display(),
        summary.commands.1,
        summary.commands.0,
        written
    );
    for (u, f) in uniforms.iter().zip(&uniforms_written) {
        outln!(
            "uniform {} = {:?} written into {}",
            u.name,
            u.value,
            f.join(", ")
        );
    }
    for p in &summary.placements {
        let f = &files[p.request];
        let place = match (p.address, p.slot) {
            (Some(at), _) => format!("at {} 0x{:x}", at.location, at.offset),
            (_, Some(slot)) => match p.start_slot.filter(|&s| s != slot) {
                Some(start) => format!("at slot {slot}, starting at {start}"),
                None => format!("at slot {slot}"),
            },
            _ => String::new(),
        };
        outln!(
            "{} program {f} ({place}, hash {}) replaces {} in {} draw{} ({} run{}): {}",
            p.stage.name(),
            p.hash.as_deref().unwrap_or("?"),
            p.replaced.join(", "),
            p.draws.len(),
            if p.draws.len() == 1 { "" } else { "s" },
            p.runs,
            if p.runs == 1 { "" } else { "s" },
            draw_list(&p.draws),
        );
        if !p.vertex_constants.is_empty() {
            let registers = |r: &[u32]| {
                r.iter()
                    .map(|c| format!("c[{c}]"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            outln!(
                "  with the {} constant{} its container's loader uploads ({})",
                p.vertex_constants.len(),
                if p.vertex_constants.len() == 1 {
                    ""
                } else {
                    "s"
                },
                registers(&p.vertex_constants)
            );
            if !p.constants_not_restored.is_empty() {
                let one = p.constants_not_restored.len() == 1;
                outln!(
                    "  {} {} the program's {} after its draws: the frame does not know the earlier {}",
                    registers(&p.constants_not_restored),
                    if one { "keeps" } else { "keep" },
                    if one { "value" } else { "values" },
                    if one { "one" } else { "ones" },
                );
            }
        }
        if p.constants_kept > 0 {
            outln!(
                "  {} of its {} inline constants as the draws have them: each draw keeps its own values ({} distinct set{})",
                p.constants_kept,
                p.constants,
                p.variants,
                if p.variants == 1 { "" } else { "s" }
            );
        }
    }
    Ok(Status::Success)
}

/// `@N` (draw N of the capture edited) or `OTHER@N` (draw N of another capture), for a path
/// that names no file; `None` for a program file.
fn draw_source(path: &Path) -> Option<(Option<PathBuf>, usize)> {
    if path.exists() {
        return None;
    }
    let text = path.to_str()?;
    let (file, draw) = text.rsplit_once('@')?;
    let draw = draw.parse().ok()?;
    Some(((!file.is_empty()).then(|| PathBuf::from(file)), draw))
}

/// `3, 5..9, 12` for draws 3, 5, 6, 7, 8, 12.
fn draw_list(draws: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < draws.len() {
        let mut j = i;
        while j + 1 < draws.len() && draws[j + 1] == draws[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            draws[i].to_string()
        } else {
            format!("{}..{}", draws[i], draws[j] + 1)
        });
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inclusive_range_keeps_its_equals_sign() {
        let (selector, file) = parse_pair("0..=1=program.fpo").unwrap();
        assert_eq!(selector, Selector::parse("0..=1").unwrap());
        assert_eq!(file, PathBuf::from("program.fpo"));
        let (selector, file) = parse_pair("2=a=b.fpo").unwrap();
        assert_eq!(selector, Selector::parse("2").unwrap());
        assert_eq!(file, PathBuf::from("a=b.fpo"));
        assert!(parse_pair("0..=1").is_err());
        assert!(parse_pair("all=").is_err());
    }
}
