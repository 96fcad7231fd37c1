//! `rsxtrace flow`: which texture units and interpolants can influence each output of a
//! fragment program, its discard condition and each sampling coordinate (conservative: a
//! listed dependency is a possible influence, not a proof).

use super::program_input::{load, Program};
use crate::cli::Stage;
use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use rsxtrace_program::flow::{analyze, DepSet};
use std::path::Path;

pub fn run(
    path: &Path,
    offset: usize,
    draw: Option<usize>,
    as_json: bool,
) -> anyhow::Result<Status> {
    let programs = load(path, Some(Stage::Fragment), offset, draw)?;
    let Some(located) = programs.into_iter().next() else {
        anyhow::bail!("no fragment program found")
    };
    let Program::Fragment(program) = &located.program else {
        anyhow::bail!(
            "{} is a vertex program; flow analysis is for fragment programs",
            located.origin
        )
    };
    let flow = analyze(program);
    if as_json {
        print_json(&flow)?;
        return Ok(Status::Success);
    }
    outln!("; {}", located.origin);
    let mut t = Table::new(&["output", "x", "y", "z", "w"]);
    for out in &flow.outputs {
        let mut row = vec![out.register.clone()];
        row.extend(out.components.iter().map(|d| deps_text(*d)));
        t.row(row);
    }
    out!("{}", t.render());
    if flow.has_kill {
        outln!("discard (KIL) depends on: {}", deps_text(flow.discard));
    } else {
        outln!("discard: the program has no KIL");
    }
    for sample in &flow.textures {
        outln!(
            "slot {:>3}: texture unit {} sampled at a coordinate depending on {}",
            sample.slot,
            sample.unit,
            deps_text(sample.coordinate)
        );
    }
    if !flow.complete {
        outln!("warning: the program has calls or flow regions that do not nest; these sets may be incomplete");
    }
    Ok(Status::Success)
}

fn deps_text(d: DepSet) -> String {
    if d.is_empty() {
        return "-".into();
    }
    let mut parts: Vec<String> = d.textures().map(|u| format!("tex{u}")).collect();
    parts.extend(d.inputs().map(|a| a.to_string()));
    parts.join(" ")
}
