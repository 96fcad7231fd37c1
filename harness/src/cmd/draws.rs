//! `rsxtrace draws`: one row (or one documented JSON object) per draw (from a trace's frame
//! index when it has one: no frame decoding).

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use std::path::Path;

pub fn run(path: &Path, as_json: bool) -> anyhow::Result<Status> {
    let overview = rsxtrace_capture::overview::open(path, true)?;
    if as_json {
        let summaries: Vec<_> = overview.draws.iter().map(|d| &d.summary).collect();
        print_json(&summaries)?;
        return Ok(Status::Success);
    }
    let mut t = Table::new(&[
        ">draw",
        ">end cmd",
        "primitive",
        "source",
        "ranges",
        ">vertices",
        ">vp",
        "vp hash",
        "fp",
        "fp hash",
        "mvp",
        "problems",
    ]);
    for draw in &overview.draws {
        let s = &draw.summary;
        let ranges = match s.ranges.as_slice() {
            [] => "-".to_string(),
            [r] => format!("{}+{}", r.first, r.count),
            [r, rest @ ..] => format!("{}+{} (+{} more)", r.first, r.count, rest.len()),
        };
        let source = if s.indexed {
            match draw.index_width {
                Some(width) => format!("indexed {width:?}").to_lowercase(),
                None => "indexed".into(),
            }
        } else {
            "arrays".into()
        };
        t.row(vec![
            s.index.to_string(),
            // The parts of a BEGIN/END split by an execution barrier share its END.
            if s.part > 0 {
                format!("{} part {}", s.end_command, s.part)
            } else {
                s.end_command.to_string()
            },
            s.primitive.name().to_string(),
            source,
            ranges,
            s.vertex_count.to_string(),
            s.vp_start.to_string(),
            super::short_hash(&s.vp_hash).to_string(),
            s.fp.map(|f| format!("{}:0x{:x}", f.location.name(), f.offset))
                .unwrap_or_else(|| "-".into()),
            s.fp_hash
                .as_deref()
                .map(super::short_hash)
                .unwrap_or("-")
                .to_string(),
            if s.mvp.is_some() { "known" } else { "unknown" }.to_string(),
            draw.problems.join("; "),
        ]);
    }
    out!("{}", t.render());
    outln!(
        "{} draws; mvp = constants c32..c35 (\"unknown\" when the capture does not hold all four)",
        overview.draws.len()
    );
    Ok(Status::Success)
}
