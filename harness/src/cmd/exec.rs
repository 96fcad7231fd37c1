//! `rsxtrace exec`: run a draw's vertex program on the reference interpreter over its fetched
//! vertices and print every output of every vertex (JSON shape: `rsxtrace_replay::exec`).

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::Context;
use rsxtrace_replay::exec::{execute_draw, ExecOptions, OutputValue};
use rsxtrace_replay::interp::vertex::VertexOptions;
use rsxtrace_replay::interp::Arithmetic;
use std::path::Path;

/// How `exec` was asked to run.
pub struct ExecArgs {
    pub draw: usize,
    pub json: bool,
    pub f64: bool,
    pub rpcs3: bool,
    pub branch_bits: Option<u32>,
}

pub fn run(path: &Path, args: &ExecArgs) -> anyhow::Result<Status> {
    let (_capture, frame) = super::load_frame(path)?;
    super::draw_at(&frame, args.draw)?;
    let mut vertex = if args.rpcs3 {
        VertexOptions::rpcs3()
    } else {
        VertexOptions::default()
    };
    if args.f64 {
        vertex.arithmetic = Arithmetic::F64;
    }
    // Unknown state never stops a command: a constant the capture does not hold (uploaded
    // before the captured frame) reads as 0 and is named in a warning (`unknown_constants`
    // in JSON), with or without `--allow-unknown-constants`.
    vertex.allow_unknown_constants = true;
    let options = ExecOptions {
        vertex,
        branch_bits: args.branch_bits,
        max_vertices: None,
    };
    let result = execute_draw(&frame, args.draw, &options)
        .with_context(|| format!("cannot execute draw {} of {}", args.draw, path.display()))?;
    if args.json {
        print_json(&result)?;
        return Ok(Status::Success);
    }
    outln!(
        "draw {}: vertex program at slot {} ({} instructions), {} vertices, {:?} arithmetic",
        result.draw,
        result.vp_start,
        result.instructions,
        result.vertex_count,
        result.arithmetic
    );
    for note in result
        .attribute_warnings
        .iter()
        .chain(&result.texture_warnings)
    {
        outln!("warning: {note}");
    }
    for read in &result.unknown_constants {
        outln!(
            "warning: c[{}] read at slot {} is not in the capture (read as 0)",
            read.constant,
            read.slot
        );
    }
    // Every register some vertex wrote, in NV40 register order (HPOS first).
    let mut written: Vec<(u8, &str)> = result
        .vertices
        .iter()
        .flat_map(|v| v.outputs.iter().map(|o| (o.register, o.name)))
        .collect();
    written.sort_unstable();
    written.dedup();
    let names: Vec<&str> = written.iter().map(|(_, name)| *name).collect();
    let mut headers = vec![">pos", ">index"];
    headers.extend(names.iter().copied());
    let mut t = Table::new(&headers);
    for v in &result.vertices {
        let mut row = vec![v.position.to_string(), v.index.to_string()];
        for name in &names {
            row.push(match v.output(name).map(|o| o.value) {
                Some(OutputValue::F32(x)) => format!("({}, {}, {}, {})", x[0], x[1], x[2], x[3]),
                Some(OutputValue::F64(x)) => format!("({}, {}, {}, {})", x[0], x[1], x[2], x[3]),
                None => "-".into(),
            });
        }
        t.row(row);
    }
    out!("{}", t.render());
    Ok(Status::Success)
}
