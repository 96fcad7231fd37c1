//! `rsxtrace info`: a capture's provenance and the size of its frame (from a trace's frame
//! index when it has one: no frame decoding).

use crate::exit::Status;
use crate::output::print_json;
use crate::table::Table;
use rsxtrace_capture::rrc::Compression;
use serde_json::json;
use std::path::Path;

pub fn run(path: &Path, as_json: bool) -> anyhow::Result<Status> {
    let overview = rsxtrace_capture::overview::open(path, false)?;
    let stats = &overview.stats;
    let p = &overview.provenance;
    let sha: String = p.sha256.iter().map(|b| format!("{b:02x}")).collect();
    let compression = match p.compression {
        Compression::None => "none",
        Compression::Gzip => "gzip",
        Compression::Zstd => "zstd",
    };
    let constants_block = overview.constants_in_file;
    if as_json {
        print_json(&json!({
            "source_name": p.source_name,
            "rrc_version": p.rrc_version,
            "compression": compression,
            "sha256": sha,
            "transform_constants_in_file": constants_block,
            "transform_program_slots": overview.transform_program_slots,
            "stats": stats,
            "memory_data_entries": overview.memory_data_entries,
            "tile_states": overview.tile_states,
            "regions": overview.regions,
            "display_buffer_states": overview.display_buffer_states,
            "frame_problems": overview.frame_problems,
        }))?;
        return Ok(Status::Success);
    }
    let mut t = Table::new(&["field", "value"]);
    let mut row = |k: &str, v: String| t.row(vec![k.to_string(), v]);
    row("source", p.source_name.clone());
    row("RRC version", p.rrc_version.to_string());
    row("compression", compression.to_string());
    row("sha256", sha);
    row(
        "transform program",
        format!("{} slots", overview.transform_program_slots),
    );
    row(
        "initial constants",
        if constants_block {
            "in the file".into()
        } else {
            "absent (known only once uploaded in the frame)".into()
        },
    );
    row("commands", stats.commands.to_string());
    row("method calls", stats.method_calls.to_string());
    row("draws", stats.draws.to_string());
    row(
        "memory blocks",
        format!(
            "{} attachments, {} bytes ({} distinct blobs, {} bytes)",
            stats.memory_blocks,
            stats.memory_bytes,
            overview.memory_data_entries,
            stats.memory_data_bytes
        ),
    );
    row(
        "distinct programs",
        format!(
            "{} vertex, {} fragment",
            stats.distinct_vertex_programs, stats.distinct_fragment_programs
        ),
    );
    row("tile regions", overview.regions.tiles_line());
    row("Z-cull regions", overview.regions.zculls_line());
    row(
        "problems",
        format!(
            "{} draws with problems, {} frame-level",
            stats.draws_with_problems, stats.frame_problems
        ),
    );
    out!("{}", t.render());
    for problem in &overview.frame_problems {
        outln!("frame problem: {problem}");
    }
    Ok(Status::Success)
}
