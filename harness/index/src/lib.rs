//! rsxtrace's capture index: many captures in one SQLite database, so that questions across
//! captures are one query (`rsxtrace index`, `docs/index.md`).
//!
//! Brief overview:
//! - [`Database`] opens or creates a database with the schema ([`schema`], [`tables`]): every
//!   table is a list of documented columns with the getter that fills each, so the `CREATE`
//!   statements, the inserts and `docs/index.md` come from one place.
//! - [`index_file`] reads one capture (any version, any compression, or a trace), decodes its
//!   frame, analyses it ([`facts`]: programs once per content key, draws in parallel: pass
//!   class, constants, texture units, memory uses through [`footprint`]) and writes it in one
//!   transaction, replacing the rows of a capture with the same SHA-256.
//! - A capture that cannot be read or decoded is an error for that capture only
//!   ([`IndexError::is_capture_error`]); what cannot be analysed inside a capture (a draw part
//!   that does not decode, memory the capture lacks) becomes a row of `warnings` and the rest
//!   is indexed.
//!
//! ```
//! use rsxtrace_capture::builder::{synthetic, CaptureBuilder};
//! use rsxtrace_capture::rrc::Location;
//! use rsxtrace_index::{index_file, Database};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut b = CaptureBuilder::new("one.rrc.gz");
//! b.put_memory(Location::Main, 0x1000, &[0u8; 36]).unwrap();
//! b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000).unwrap();
//! b.set_vertex_attrib_input_mask(1);
//! b.set_fragment_program(Location::Local, 0x100, &synthetic::FRAGMENT_MOV_COL0, 0x40).unwrap();
//! b.draw_arrays(5, &[(0, 3)]).unwrap();
//! let path = dir.path().join("one.rrc.gz");
//! b.write_rrc(&path).unwrap();
//!
//! let mut db = Database::in_memory().unwrap();
//! let report = index_file(&mut db, &path, &|_| {}).unwrap();
//! assert_eq!(report.draws, 1);
//! let n: i64 = db.connection()
//!     .query_row("SELECT count(*) FROM block_uses WHERE role = 'attribute'", [], |r| r.get(0))
//!     .unwrap();
//! assert_eq!(n, 1);
//! ```

#![warn(missing_docs)]

pub mod cell;
pub mod error;
pub mod facts;
pub mod footprint;
pub mod schema;
pub mod store;
pub mod tables;

pub use error::IndexError;
pub use store::{Database, RemovedCapture, RowCounts};
pub use tables::warnings::Warning;

use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_capture::rrc::{Capture, Compression};
use std::path::Path;
use tables::captures::CaptureFacts;

/// Where [`index_file`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Reading and decompressing the file.
    Read,
    /// Decoding the frame.
    Decode,
    /// Analysing draws: `done` of `total`.
    Draws {
        /// Draws analysed so far.
        done: u64,
        /// Draws in the capture.
        total: u64,
    },
    /// Writing the rows.
    Write,
}

/// What indexing one capture did.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureReport {
    /// Its id in the database.
    pub capture_id: i64,
    /// File name.
    pub file_name: String,
    /// SHA-256 of the file, 64 hex digits.
    pub sha256: String,
    /// Whether it replaced rows of the same capture indexed before.
    pub replaced: bool,
    /// Draws indexed.
    pub draws: usize,
    /// Rows written per table.
    pub rows: RowCounts,
    /// What was left out.
    pub warnings: Vec<Warning>,
}

/// Index the capture (or trace) at `path` into `db`. `progress` is called from any thread.
pub fn index_file(
    db: &mut Database,
    path: &Path,
    progress: &(dyn Fn(Step) + Sync),
) -> Result<CaptureReport, IndexError> {
    progress(Step::Read);
    let capture = rsxtrace_capture::open::open_capture(path)?;
    progress(Step::Decode);
    let frame = Frame::from_capture(&capture).map_err(|source| IndexError::Frame {
        path: path.to_path_buf(),
        source,
    })?;
    let total = frame.draws.len() as u64;
    let analysis = facts::analyse(&capture, &frame, &|done| {
        progress(Step::Draws { done, total })
    });
    progress(Step::Write);
    let warnings = warnings(&frame, &analysis);
    let mut facts = capture_facts(path, &capture, &frame, &analysis, warnings.len());
    let replaced = db.capture_id(&facts.sha256)?.is_some();
    let (capture_id, rows) = db.write(&mut facts, &frame, &analysis, &warnings)?;
    Ok(CaptureReport {
        capture_id,
        file_name: facts.file_name,
        sha256: facts.sha256,
        replaced,
        draws: frame.draws.len(),
        rows,
        warnings: warnings
            .into_iter()
            .map(|w| Warning { capture_id, ..w })
            .collect(),
    })
}

fn warnings(frame: &Frame, analysis: &facts::Analysis) -> Vec<Warning> {
    let mut out: Vec<Warning> = frame
        .problems
        .iter()
        .map(|p| Warning {
            capture_id: 0,
            draw: None,
            message: p.to_string(),
        })
        .collect();
    for (draw, f) in frame.draws.iter().zip(&analysis.draws) {
        let at = |message: String| Warning {
            capture_id: 0,
            draw: Some(draw.index),
            message,
        };
        out.extend(draw.problems.iter().map(|p| at(p.to_string())));
        out.extend(f.problems.iter().cloned().map(at));
        for u in &f.units {
            if let Some(p) = &u.problem {
                // A state the texture model refuses is already among the draw's problems
                // (its footprint); texels it cannot read are not.
                let message = format!("{} {p}", facts::programs::stage_name(u.stage));
                if !f.problems.contains(&message) {
                    out.push(at(message));
                }
            }
        }
    }
    out
}

fn capture_facts(
    path: &Path,
    capture: &Capture,
    frame: &Frame,
    analysis: &facts::Analysis,
    warnings: usize,
) -> CaptureFacts {
    let p = &capture.provenance;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.source_name.clone());
    CaptureFacts {
        capture_id: 0,
        file_name,
        path: path.display().to_string(),
        sha256: p.sha256.iter().map(|b| format!("{b:02x}")).collect(),
        file_bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        rrc_version: p.rrc_version,
        compression: match p.compression {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        },
        stats: frame.stats(),
        memory_blocks: capture.blocks.len(),
        textures: analysis.textures.len(),
        surfaces: surfaces(&frame.draws),
        warnings,
    }
}

/// `WIDTHxHEIGHT colour/depth: N draws` per distinct surface, in order of first use.
fn surfaces(draws: &[Draw]) -> String {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for d in draws {
        let s = &d.surface;
        let colour = if s.color_target.raw == 0 {
            "none".to_string()
        } else {
            named_text(s.format.color_format)
        };
        let key = format!(
            "{}x{} {colour}/{}",
            s.clip.width,
            s.clip.height,
            named_text(s.format.depth_format)
        );
        match seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => seen.push((key, 1)),
        }
    }
    seen.iter()
        .map(|(k, n)| format!("{k}: {n} draws"))
        .collect::<Vec<_>>()
        .join("; ")
}

fn named_text(n: rsxtrace_capture::frame::state::Named) -> String {
    n.name.map_or_else(|| n.raw.to_string(), str::to_string)
}
