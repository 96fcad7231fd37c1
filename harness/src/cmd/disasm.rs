//! `rsxtrace disasm`: RSX programs as text in RPCS3's style, or as documented JSON
//! (`{"stage": "vertex"|"fragment", "instructions": [...]}`; for a draw without `--stage`, an
//! array of the vertex and the fragment program, null for one the capture cannot give; for an
//! executable or a folder, an array of every program found, each with its `origin` and
//! `file_offset`; a program from a container with what the container states, `container`).

use super::program_input::{load, Located, Program};
use crate::cli::Stage;
use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use rsxtrace_program::container::{Binding, Container};
use rsxtrace_program::{fragment, vertex};
use serde_json::{json, Value};
use std::path::Path;

pub fn run(
    path: &Path,
    stage: Option<Stage>,
    offset: usize,
    draw: Option<usize>,
    as_json: bool,
) -> anyhow::Result<Status> {
    let programs = load(path, stage, offset, draw)?;
    let json_of = |p: &Located| {
        let mut j = match &p.program {
            Program::Vertex(v) => vertex::to_json(v),
            Program::Fragment(f) => fragment::to_json(f),
        };
        if let (Some(o), Some(c)) = (j.as_object_mut(), &p.container) {
            o.insert("container".into(), container_json(c));
        }
        j
    };
    if as_json {
        let found = path.is_dir() || programs.iter().any(|p| p.file_offset.is_some());
        if found {
            // Each with where it was found.
            let all: Vec<_> = programs
                .iter()
                .map(|p| {
                    let mut j = json_of(p);
                    if let Some(o) = j.as_object_mut() {
                        o.insert("origin".into(), p.origin.clone().into());
                        o.insert("file_offset".into(), p.file_offset.into());
                    }
                    j
                })
                .collect();
            print_json(&all)?;
        } else if draw.is_some() && stage.is_none() {
            // [vertex, fragment], null for a stage the draw's capture cannot give.
            let of = |vertex: bool| {
                programs
                    .iter()
                    .find(|p| matches!(p.program, Program::Vertex(_)) == vertex)
                    .map(json_of)
            };
            print_json(&[of(true), of(false)])?;
        } else if let Some(p) = programs.first() {
            print_json(&json_of(p))?;
        }
        return Ok(Status::Success);
    }
    for (i, p) in programs.iter().enumerate() {
        if i > 0 {
            outln!();
        }
        outln!("; {}", p.origin);
        if let Some(container) = &p.container {
            let params = container.parameters();
            if !params.is_empty() {
                let mut t = Table::new(&["; parameter", "semantic", "binding", "default"]);
                for param in params {
                    t.row(vec![
                        format!("; {}", param.name.unwrap_or("?")),
                        param.semantic.unwrap_or("").to_string(),
                        binding_text(&param.binding),
                        param
                            .default_value
                            .map(|v| format!("{v:?}"))
                            .unwrap_or_default(),
                    ]);
                }
                // Every line a comment (the rule under the header too), so that the text
                // reads back as assembly.
                for line in t.render().lines() {
                    match line.strip_prefix('-') {
                        Some(rule) if !line.starts_with(';') => outln!(";{rule}"),
                        _ => outln!("{line}"),
                    }
                }
            }
            for line in loader_lines(container) {
                outln!("; {line}");
            }
        }
        match &p.program {
            Program::Vertex(v) => out!("{}", vertex::disassemble(v)),
            Program::Fragment(f) => out!("{}", fragment::disassemble(f)),
        }
    }
    Ok(Status::Success)
}

/// What the container's loader writes with the program, as comment lines: the fragment
/// control word, a vertex program's load slot and masks, the constants it uploads.
fn loader_lines(c: &Container) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(control) = c.control_word() {
        out.push(format!("SHADER_CONTROL {control:#010x} when loaded"));
    }
    for (n, value) in c.texcoord_controls() {
        out.push(format!("TEX_COORD_CONTROL[{n}] {value:#x} when loaded"));
    }
    if let Some((slot, input, output)) = c.vertex_load() {
        out.push(format!(
            "loads at slot {slot}, input mask {input:#x}, output mask {output:#x}"
        ));
    }
    for (register, bits) in c.vertex_constants() {
        out.push(format!(
            "uploads c[{register}] = {:?} with the program",
            bits.map(f32::from_bits)
        ));
    }
    out
}

/// What a container states around its program (docs/json.md): its format, parameters, the
/// fragment control word, a vertex program's load slot, masks and the constants its loader
/// uploads.
fn container_json(c: &Container) -> Value {
    let parameters: Vec<Value> = c
        .parameters()
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "semantic": p.semantic,
                "binding": p.binding,
                "default": p.default_value,
            })
        })
        .collect();
    json!({
        "format": c.format_name(),
        "parameters": parameters,
        "control_word": c.control_word(),
        "texcoord_controls": c.texcoord_controls().iter().map(|(n, value)| json!({
            "coordinate": n,
            "value": value,
        })).collect::<Vec<_>>(),
        "vertex_load": c.vertex_load().map(|(slot, input_mask, output_mask)| json!({
            "slot": slot,
            "input_mask": input_mask,
            "output_mask": output_mask,
        })),
        "vertex_constants": c.vertex_constants().iter().map(|(register, bits)| json!({
            "register": register,
            "value": bits.map(f32::from_bits),
        })).collect::<Vec<_>>(),
    })
}

fn binding_text(b: &Binding) -> String {
    match b {
        Binding::Cg {
            resource,
            resource_index,
            variability,
            direction,
        } => format!("{resource:?}[{resource_index}] {variability:?} {direction:?}"),
        Binding::Attribute { index } => format!("attribute {index}"),
        Binding::Constant { index, internal } => {
            format!(
                "constant {index}{}",
                if *internal { " (internal)" } else { "" }
            )
        }
    }
}
