//! `rsxtrace probe constants`: how each vertex program of a frame reads its transform
//! constants: matrices, palettes indexed by an address register (bone matrices) with the
//! entries the draws' vertices reach, vectors and scalars, each with the instructions that
//! read them (`rsxtrace_verify::probe::constant_layout`; docs/probes.md).
//!
//! Exit status: 0, or 2 on error.

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use anyhow::bail;
use clap::Args;
use rsxtrace_replay::render::draw_range::{self, DrawRange};
use rsxtrace_verify::probe::constant_layout::groups::{describe, registers_text};
use rsxtrace_verify::probe::constant_layout::{
    constant_layout, GroupReport, Palette, ProgramLayout,
};
use serde_json::json;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ConstantsArgs {
    /// Capture or trace file.
    pub file: PathBuf,
    /// Only the programs of draws A..B (as `replay --draws`).
    #[arg(long, value_parser = draw_range::parse, conflicts_with = "draw")]
    pub draws: Option<DrawRange>,
    /// Only draw N's program, with each group's values at that draw (a matrix row by row,
    /// a palette entry by entry): RenderDoc's constant buffer view, laid out by what the
    /// program does with the registers.
    #[arg(long)]
    pub draw: Option<usize>,
    /// Distinct vertices traced per program to find the palette entries they reach.
    #[arg(long, default_value_t = 20_000)]
    pub max_vertices: usize,
    /// Print JSON: an array with one object per vertex program (docs/json.md).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &ConstantsArgs) -> anyhow::Result<Status> {
    let (_capture, frame) = crate::cmd::load_frame(&args.file)?;
    let range = match args.draw {
        Some(n) if n >= frame.draws.len() => bail!(
            "no draw {n}: the frame has {} (0..{})",
            frame.draws.len(),
            frame.draws.len()
        ),
        Some(n) => n..n + 1,
        None => draw_range::resolve(args.draws, frame.draws.len())?.unwrap_or(0..frame.draws.len()),
    };
    let layouts = constant_layout(&frame, range, args.max_vertices);
    let at = |r: i64| -> Option<[f32; 4]> {
        let constants = &frame.draws.get(args.draw?)?.constants;
        constants.get(usize::try_from(r).ok()?)
    };
    if args.json {
        let mut value = serde_json::to_value(&layouts)?;
        if args.draw.is_some() {
            // Each group's registers with their values at the draw (null when unknown).
            for program in value.as_array_mut().into_iter().flatten() {
                for group in program["groups"].as_array_mut().into_iter().flatten() {
                    let values: Vec<serde_json::Value> = group["registers"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|r| json!({"register": r, "value": r.as_i64().and_then(at)}))
                        .collect();
                    group["values"] = values.into();
                }
            }
        }
        print_json(&value)?;
        return Ok(Status::Success);
    }
    for (n, layout) in layouts.iter().enumerate() {
        if n > 0 {
            outln!();
        }
        print_layout(layout)?;
        if let Some(draw) = args.draw {
            print_values(layout, draw, &at)?;
        }
    }
    Ok(Status::Success)
}

/// Each group's registers and their values at `draw`.
fn print_values(
    l: &ProgramLayout,
    draw: usize,
    at: &dyn Fn(i64) -> Option<[f32; 4]>,
) -> anyhow::Result<()> {
    outln!("values at draw {draw}:");
    for g in &l.groups {
        outln!("  {}", describe(&g.group));
        if g.registers.is_empty() {
            outln!("    no register reached (no vertex traced)");
        }
        for &r in &g.registers {
            match at(r) {
                Some(v) => outln!(
                    "    c[{r}] = ({})",
                    v.iter()
                        .map(|c| format!("{c:>10.4}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => outln!("    c[{r}] unknown (set before the capture began)"),
            }
        }
    }
    Ok(())
}

/// Slots as `4-7` or `2, 9`.
fn slots(g: &GroupReport) -> String {
    let s: Vec<usize> = g.group.reads.iter().map(|(s, _)| *s).collect();
    let consecutive = s.windows(2).all(|w| w[1] == w[0] + 1);
    match (s.first(), s.last()) {
        (Some(a), Some(b)) if consecutive && s.len() > 2 => format!("{a}-{b}"),
        _ => s
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn print_layout(l: &ProgramLayout) -> anyhow::Result<()> {
    let contiguous = l.draws.windows(2).all(|w| w[1] == w[0] + 1);
    let draws = match (l.draws.first(), l.draws.last()) {
        (Some(a), Some(b)) if a == b => format!("draw {a}"),
        (Some(a), Some(b)) if contiguous => format!("{} draws ({a}..{})", l.draws.len(), b + 1),
        (Some(a), Some(b)) => format!("{} draws (first {a}, last {b})", l.draws.len()),
        _ => "no draws".into(),
    };
    outln!(
        "vertex program {} at slot {} ({} instructions): {draws}",
        l.key,
        l.start_slot,
        l.instructions
    );
    for note in &l.notes {
        outln!("warning: {note}");
    }
    if l.groups.is_empty() {
        if l.instructions > 0 {
            outln!("reads no constants");
        }
        return Ok(());
    }
    let mut table = Table::new(&["registers", "kind", "slots", "with", "values"]);
    for g in &l.groups {
        let kind = match g.group.kind.describe() {
            k @ ("vector" | "scalar") => format!("{k} .{}", g.group.components),
            k => format!("{k} ({})", g.group.count),
        };
        let values = if g.group.relative.is_some() && l.traced_vertices == 0 {
            "entries not traced".to_string()
        } else if g.known_at == 0 {
            format!("unknown at all {} draws", l.draws.len())
        } else {
            format!(
                "known at {} of {} draws, {} distinct",
                g.known_at,
                l.draws.len(),
                g.distinct_values
            )
        };
        table.row(vec![
            registers_text(&g.group),
            kind,
            slots(g),
            g.group.with.clone().unwrap_or_default(),
            values,
        ]);
    }
    outln!("{}", table.render().trim_end());
    for p in &l.palettes {
        print_palette(p, l.traced_vertices)?;
    }
    Ok(())
}

fn print_palette(p: &Palette, traced: usize) -> anyhow::Result<()> {
    let written = p
        .address_written_by
        .iter()
        .map(|(slot, text)| format!("slot {slot} {text}"))
        .collect::<Vec<_>>()
        .join("; ");
    let written = if written.is_empty() {
        "no instruction writes it (the trace starts it at 0)".to_string()
    } else {
        format!("written by {written}")
    };
    outln!(
        "palette {}: entries of {} registers from c[{}+{}], {written}",
        p.address,
        p.entry_registers,
        p.address,
        p.first_base
    );
    match (&p.values, p.registers) {
        (Some(values), Some((low, high))) => {
            let step = if p.aligned && p.entry_registers > 1 {
                format!(", multiples of {}", p.entry_registers)
            } else {
                String::new()
            };
            let entries = if p.aligned && p.entry_registers > 0 {
                format!(
                    " = entries {} to {}",
                    values.first().copied().unwrap_or(0) / i32::from(p.entry_registers),
                    values.last().copied().unwrap_or(0) / i32::from(p.entry_registers)
                )
            } else {
                String::new()
            };
            outln!(
                "  over {traced} distinct vertices {} took {} values from {} to {}{step}{entries}: registers c[{low}..{high}]{}",
                p.address,
                values.len(),
                values.first().copied().unwrap_or(0),
                values.last().copied().unwrap_or(0),
                if p.out_of_range > 0 {
                    format!(" ({} reads outside c[0..467])", p.out_of_range)
                } else {
                    String::new()
                }
            );
        }
        _ => outln!("  no vertex was traced: the entries reached are not known"),
    }
    Ok(())
}
