//! `captures`: one row per capture file.

use crate::cell::Cell;
use crate::schema::{col, Table, Ty};
use rsxtrace_capture::frame::FrameStats;

/// What the index records about a capture file.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureFacts {
    /// Its id in the database.
    pub capture_id: i64,
    /// File name without directories.
    pub file_name: String,
    /// The path it was indexed from.
    pub path: String,
    /// SHA-256 of the file as stored, 64 hex digits.
    pub sha256: String,
    /// File size in bytes.
    pub file_bytes: u64,
    /// RRC version.
    pub rrc_version: u32,
    /// `none`, `gzip` or `zstd`.
    pub compression: &'static str,
    /// The frame model's counts.
    pub stats: FrameStats,
    /// `memory_map` entries.
    pub memory_blocks: usize,
    /// Distinct textures bound.
    pub textures: usize,
    /// The surfaces drawn to, with draw counts.
    pub surfaces: String,
    /// Warnings recorded.
    pub warnings: usize,
}

/// The `captures` table.
pub fn table() -> Table<CaptureFacts> {
    use Ty::*;
    let c = col::<CaptureFacts>;
    Table {
        name: "captures",
        doc: "One row per capture file. A capture is identified by the SHA-256 of its file: \
              indexing a file whose content is already in the database replaces that \
              capture's rows (keeping its `capture_id`, taking the new name and path); a \
              file with the same name but other content is another capture.",
        primary_key: &["capture_id"],
        indexes: &[&["sha256"], &["file_name"]],
        columns: vec![
            c("capture_id", Integer, "Id of the capture in this database; every other table refers to it.", |f| f.capture_id.into()),
            c("file_name", Text, "File name, without directories.", |f| Cell::text(f.file_name.clone())),
            c("path", Text, "Path the file was indexed from, as given.", |f| Cell::text(f.path.clone())),
            c("sha256", Text, "SHA-256 of the file as stored (compressed or not), 64 hex digits; for an rsxtrace trace, that of the capture it was made from.", |f| Cell::text(f.sha256.clone())),
            c("file_bytes", Integer, "File size, bytes.", |f| f.file_bytes.into()),
            c("rrc_version", Integer, "RRC format version (3 to 6; an rsxtrace trace reports its source's).", |f| f.rrc_version.into()),
            c("compression", Text, "`none`, `gzip` or `zstd`.", |f| f.compression.into()),
            c("commands", Integer, "Recorded commands (FIFO entries).", |f| f.stats.commands.into()),
            c("method_calls", Integer, "Method calls rebuilt from the commands.", |f| f.stats.method_calls.into()),
            c("draws", Integer, "Draws (rows in `draws`).", |f| f.stats.draws.into()),
            c("draws_with_problems", Integer, "Draws with something the frame model could not decode (`draws.problems`).", |f| f.stats.draws_with_problems.into()),
            c("memory_blocks", Integer, "Entries of the file's memory map (rows in `memory_blocks`).", |f| f.memory_blocks.into()),
            c("memory_attachments", Integer, "Block attachments to commands (a block attached twice counts twice).", |f| f.stats.memory_blocks.into()),
            c("memory_bytes", Integer, "Bytes of the distinct memory blobs the file stores.", |f| f.stats.memory_data_bytes.into()),
            c("vertex_programs", Integer, "Distinct vertex programs.", |f| f.stats.distinct_vertex_programs.into()),
            c("fragment_programs", Integer, "Distinct fragment programs.", |f| f.stats.distinct_fragment_programs.into()),
            c("textures", Integer, "Distinct textures bound (by content key).", |f| f.textures.into()),
            c("surfaces", Text, "The surfaces drawn to, in order of first use: `WIDTHxHEIGHT colour/depth target: N draws`, `; `-separated (colour is the colour format, or `none` when no colour target is set).", |f| Cell::text(f.surfaces.clone())),
            c("warnings", Integer, "Rows in `warnings` for this capture.", |f| f.warnings.into()),
            c("index_version", Integer, "Schema version of the index that wrote the rows.", |_| crate::schema::SCHEMA_VERSION.into()),
            c("indexed_at", Text, "When the rows were written (UTC, ISO 8601).", |_| Cell::Null),
        ],
    }
}
