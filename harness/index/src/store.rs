//! The database: opening or creating it with the schema, and writing one capture's rows in one
//! transaction with prepared statements (a capture indexed again has its old rows deleted in
//! the same transaction, so a reader never sees half of either).
//!
//! A database made whole by one run ([`Database::create`]) is written to a temporary file
//! beside its path with the rollback journal in memory and no syncs, then switched to WAL,
//! synced and renamed into place by [`Database::finish`]: it appears whole or not at all, and
//! SQLite writes each page once instead of through the WAL and a checkpoint (SQLite alone
//! storing the game sample's rows: 31 → 20 ms, `BENCHMARKS.md`).

use crate::cell::Cell;
use crate::error::IndexError;
use crate::facts::programs::stage_name;
use crate::facts::Analysis;
use crate::schema::{Table, SCHEMA_VERSION};
use crate::tables::captures::CaptureFacts;
use crate::tables::constants::{FragmentConstantRow, RunRow};
use crate::tables::memory::{BlockRow, UseRow};
use crate::tables::programs::{ProgramConstantRow, ProgramOpcodeRow, ProgramTextureRow};
use crate::tables::textures::UnitRow;
use crate::tables::warnings::Warning;
use crate::tables::{self, draws::DrawFacts};
use rsxtrace_capture::frame::Frame;
use rusqlite::{params, params_from_iter, Connection, OpenFlags, OptionalExtension, Transaction};
use std::path::{Path, PathBuf};

/// Tables holding one capture's rows (deleted when it is indexed again). `programs`,
/// `program_*` and `textures` are shared by content key and kept.
const PER_CAPTURE: [&str; 10] = [
    "draw_rows",
    "draw_states",
    "constant_runs",
    "fragment_constants",
    "draw_texture_rows",
    "texture_bindings",
    "memory_blocks",
    "block_uses",
    "warnings",
    "captures",
];

/// An open index database.
pub struct Database {
    conn: Connection,
    path: PathBuf,
    /// For a database made by [`Database::create`]: the temporary file it is written to
    /// (deleted if the database is dropped unfinished).
    pending: Option<tempfile::TempPath>,
}

/// Rows written per table for one capture.
pub type RowCounts = Vec<(&'static str, u64)>;

impl Database {
    /// Open the database at `path`, creating it (and its tables) when it does not exist.
    /// A database of another schema version is refused.
    pub fn open(path: &Path) -> Result<Database, IndexError> {
        // One connection used from one thread at a time: SQLite's own mutexes are not needed.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            Connection::open_with_flags(path, flags).map_err(|source| IndexError::Database {
                path: path.to_path_buf(),
                source,
            })?;
        Database::with(conn, path.to_path_buf(), None)
    }

    /// A new database for `path`, which must not exist: written to a temporary file in the
    /// same directory (its journal in memory, no syncs) until [`Database::finish`] puts it at
    /// `path`. Dropped unfinished, it leaves nothing.
    pub fn create(path: &Path) -> Result<Database, IndexError> {
        let file_err = |source| IndexError::File {
            path: path.to_path_buf(),
            source,
        };
        if path.exists() {
            return Err(file_err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "exists already (open it instead)",
            )));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let prefix = format!(
            ".{}.",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".partial");
        // The mode SQLite gives the files it creates (SQLITE_DEFAULT_FILE_PERMISSIONS, less
        // the umask), not a temporary file's owner-only one.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
        let temp = builder.tempfile_in(dir).map_err(file_err)?.into_temp_path();
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            Connection::open_with_flags(&temp, flags).map_err(|source| IndexError::Database {
                path: path.to_path_buf(),
                source,
            })?;
        Database::with(conn, path.to_path_buf(), Some(temp))
    }

    /// Put a database made by [`Database::create`] in place: switch it to WAL (as
    /// [`Database::open`] keeps it), sync it and rename it to its path, failing if something
    /// else has been put there meanwhile. A database from `open` is only closed.
    pub fn finish(self) -> Result<(), IndexError> {
        let Database {
            conn,
            path,
            pending,
        } = self;
        let Some(temp) = pending else {
            return Ok(());
        };
        let db_err = |source| IndexError::Database {
            path: path.clone(),
            source,
        };
        conn.execute_batch("PRAGMA journal_mode = WAL;")
            .map_err(db_err)?;
        conn.close().map_err(|(_, source)| db_err(source))?;
        let file_err = |source| IndexError::File {
            path: path.clone(),
            source,
        };
        std::fs::File::open(&temp)
            .and_then(|f| f.sync_all())
            .map_err(file_err)?;
        temp.persist_noclobber(&path)
            .map_err(|e| file_err(e.error))?;
        Ok(())
    }

    /// A new database in memory (for tests and one-off queries).
    pub fn in_memory() -> Result<Database, IndexError> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| IndexError::Database {
            path: path.clone(),
            source,
        })?;
        Database::with(conn, path, None)
    }

    fn with(
        conn: Connection,
        path: PathBuf,
        pending: Option<tempfile::TempPath>,
    ) -> Result<Database, IndexError> {
        let db = Database {
            conn,
            path,
            pending,
        };
        db.set_up()?;
        Ok(db)
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        |source| IndexError::Database {
            path: self.path.clone(),
            source,
        }
    }

    fn set_up(&self) -> Result<(), IndexError> {
        // WAL with NORMAL sync: a crash can lose the last capture's transaction, never corrupt
        // the file; the index can always be rebuilt from the captures. A database being
        // created is not visible until finished, so a crash cannot leave it half written:
        // its journal (for rolling back a failed capture) stays in memory, unsynced.
        let journal = if self.pending.is_some() {
            "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;"
        } else {
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
        };
        self.conn
            .execute_batch(&format!(
                "{journal} PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536;"
            ))
            .map_err(self.err())?;
        let version: i32 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(self.err())?;
        let tables: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .map_err(self.err())?;
        if tables > 0 && version != SCHEMA_VERSION {
            return Err(IndexError::SchemaVersion {
                path: self.path.clone(),
                found: version,
                expected: SCHEMA_VERSION,
            });
        }
        let ddl: String = tables::all().iter().map(|t| t.ddl()).collect();
        self.conn
            .execute_batch(&format!(
                "BEGIN; {ddl} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))
            .map_err(self.err())
    }

    /// The SQLite connection, for queries.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The capture id of the capture with this SHA-256, if indexed.
    pub fn capture_id(&self, sha256: &str) -> Result<Option<i64>, IndexError> {
        self.conn
            .query_row(
                "SELECT capture_id FROM captures WHERE sha256 = ?1",
                [sha256],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.err())
    }

    /// Write one capture: its row, its draws and everything analysed about them, replacing
    /// the rows of a capture with the same SHA-256. Returns the capture id and the rows
    /// written per table.
    pub(crate) fn write(
        &mut self,
        capture: &mut CaptureFacts,
        frame: &Frame,
        analysis: &Analysis,
        warnings: &[Warning],
    ) -> Result<(i64, RowCounts), IndexError> {
        let existing = self.capture_id(&capture.sha256)?;
        let path = self.path.clone();
        let err = move |source| IndexError::Database {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(&err)?;
        let id = match existing {
            Some(id) => {
                for table in PER_CAPTURE {
                    tx.execute(&format!("DELETE FROM {table} WHERE capture_id = ?1"), [id])
                        .map_err(&err)?;
                }
                id
            }
            None => tx
                .query_row(
                    "SELECT coalesce(max(capture_id), 0) + 1 FROM captures",
                    [],
                    |r| r.get(0),
                )
                .map_err(&err)?,
        };
        capture.capture_id = id;
        let counts = write_rows(&tx, id, capture, frame, analysis, warnings).map_err(&err)?;
        tx.execute(
            "UPDATE captures SET indexed_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') \
             WHERE capture_id = ?1",
            params![id],
        )
        .map_err(&err)?;
        tx.commit().map_err(&err)?;
        Ok((id, counts))
    }
}

/// A capture taken out of the database by [`Database::remove`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovedCapture {
    /// Its id.
    pub capture_id: i64,
    /// File name.
    pub file_name: String,
    /// SHA-256 of the file.
    pub sha256: String,
    /// Its draws.
    pub draws: i64,
}

/// Programs, their facts and textures that no draw of any capture uses any more: what a
/// removed capture alone brought.
const ORPHANS: &str = "\
DELETE FROM programs WHERE NOT EXISTS (SELECT 1 FROM draw_rows d WHERE \
  (programs.stage = 'vertex' AND d.vp_key = programs.key) OR \
  (programs.stage = 'fragment' AND d.fp_key = programs.key));
DELETE FROM program_constants WHERE NOT EXISTS (SELECT 1 FROM programs p \
  WHERE p.stage = 'vertex' AND p.key = program_constants.key);
DELETE FROM program_textures WHERE NOT EXISTS (SELECT 1 FROM programs p \
  WHERE p.stage = program_textures.stage AND p.key = program_textures.key);
DELETE FROM program_opcodes WHERE NOT EXISTS (SELECT 1 FROM programs p \
  WHERE p.stage = program_opcodes.stage AND p.key = program_opcodes.key);
DELETE FROM textures WHERE NOT EXISTS (SELECT 1 FROM texture_bindings u \
  WHERE u.texture_key = textures.key);";

impl Database {
    /// Remove the captures that `selector` names: a capture id, a SHA-256 (64 hex digits, or
    /// a prefix of at least 8), or a file name as indexed. Their rows go, and so do the
    /// programs and textures no other capture uses; one transaction. Returns what was removed
    /// (empty when nothing matched).
    pub fn remove(&mut self, selector: &str) -> Result<Vec<RemovedCapture>, IndexError> {
        let path = self.path.clone();
        let err = move |source| IndexError::Database {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(&err)?;
        let hex_prefix = selector.len() >= 8
            && selector.len() <= 64
            && selector.bytes().all(|b| b.is_ascii_hexdigit());
        let found: Vec<RemovedCapture> = {
            let mut stmt = tx
                .prepare(
                    "SELECT c.capture_id, c.file_name, c.sha256, \
                     (SELECT count(*) FROM draw_rows d WHERE d.capture_id = c.capture_id) \
                     FROM captures c \
                     WHERE CAST(c.capture_id AS TEXT) = ?1 OR c.file_name = ?1 \
                        OR (?2 AND c.sha256 LIKE lower(?1) || '%') \
                     ORDER BY c.capture_id",
                )
                .map_err(&err)?;
            let rows = stmt
                .query_map(params![selector, hex_prefix], |r| {
                    Ok(RemovedCapture {
                        capture_id: r.get(0)?,
                        file_name: r.get(1)?,
                        sha256: r.get(2)?,
                        draws: r.get(3)?,
                    })
                })
                .map_err(&err)?;
            rows.collect::<Result<_, _>>().map_err(&err)?
        };
        for c in &found {
            for table in PER_CAPTURE {
                tx.execute(
                    &format!("DELETE FROM {table} WHERE capture_id = ?1"),
                    [c.capture_id],
                )
                .map_err(&err)?;
            }
        }
        if !found.is_empty() {
            tx.execute_batch(ORPHANS).map_err(&err)?;
        }
        tx.commit().map_err(&err)?;
        Ok(found)
    }
}

/// Rows per multi-row `INSERT` (SQLite binds at most 32,766 parameters; the widest table
/// has under 200 columns).
const BATCH: usize = 64;

/// Insert `rows` into `table` (`INSERT` or `INSERT OR IGNORE`) with one statement of
/// [`BATCH`] rows, prepared once (64 rows of `draws` made 70 KB of SQL: finding it in the
/// statement cache hashed it for every batch), then one per remaining row.
fn insert<R>(
    tx: &Transaction<'_>,
    table: &Table<R>,
    or_ignore: bool,
    rows: impl IntoIterator<Item = R>,
) -> rusqlite::Result<u64> {
    let verb = if or_ignore {
        "INSERT OR IGNORE"
    } else {
        "INSERT"
    };
    let width = table.columns.len();
    let mut cells: Vec<Cell> = Vec::with_capacity(width * BATCH);
    let mut many = None;
    let mut pending = 0;
    let mut n = 0u64;
    for row in rows {
        cells.extend(table.columns.iter().map(|c| (c.get)(&row)));
        pending += 1;
        if pending == BATCH {
            let stmt = match &mut many {
                Some(stmt) => stmt,
                None => many.insert(tx.prepare(&table.insert_sql(verb, BATCH))?),
            };
            n += stmt.execute(params_from_iter(cells.iter()))? as u64;
            cells.clear();
            pending = 0;
        }
    }
    if pending > 0 {
        let mut stmt = tx.prepare(&table.insert_sql(verb, 1))?;
        for row in cells.chunks(width) {
            n += stmt.execute(params_from_iter(row.iter()))? as u64;
        }
    }
    Ok(n)
}

fn write_rows(
    tx: &Transaction<'_>,
    id: i64,
    capture: &CaptureFacts,
    frame: &Frame,
    a: &Analysis,
    warnings: &[Warning],
) -> rusqlite::Result<RowCounts> {
    let mut counts: RowCounts = Vec::new();
    let mut count = |name: &'static str, n: u64| counts.push((name, n));

    count(
        "captures",
        insert(tx, &tables::captures::table(), false, [capture.clone()])?,
    );
    let mut draws: Vec<DrawFacts<'_>> = frame
        .draws
        .iter()
        .zip(&a.draws)
        .map(|(draw, f)| DrawFacts {
            capture_id: id,
            draw,
            pass: f.pass,
            state: 0,
            regions: frame.regions.at(draw.end_command),
        })
        .collect();
    let (states, first_of_state) = tables::draws::states(&draws);
    for (d, state) in draws.iter_mut().zip(states) {
        d.state = state;
    }
    count(
        "draw_rows",
        insert(
            tx,
            &tables::draws::rows_table(),
            false,
            draws.iter().copied(),
        )?,
    );
    count(
        "draw_states",
        insert(
            tx,
            &tables::draws::states_table(),
            false,
            first_of_state.iter().map(|&i| draws[i]),
        )?,
    );

    // Programs are shared between captures: a program already indexed is kept as it is.
    count(
        "programs",
        insert(
            tx,
            &tables::programs::table(),
            true,
            a.programs.iter().cloned(),
        )?,
    );
    count(
        "program_constants",
        insert(
            tx,
            &tables::programs::constants_table(),
            true,
            a.programs.iter().flat_map(|p| {
                p.constants_read()
                    .into_iter()
                    .map(move |(register, relative)| ProgramConstantRow {
                        key: p.key,
                        register,
                        relative,
                        group: p.constant_group(register, relative).cloned(),
                    })
            }),
        )?,
    );
    count(
        "program_textures",
        insert(
            tx,
            &tables::programs::textures_table(),
            true,
            a.programs.iter().flat_map(|p| {
                p.texture_units()
                    .into_iter()
                    .map(move |(unit, instructions, reach, live)| ProgramTextureRow {
                        stage: stage_name(p.stage),
                        key: p.key,
                        unit,
                        instructions,
                        reach,
                        live,
                    })
            }),
        )?,
    );
    count(
        "program_opcodes",
        insert(
            tx,
            &tables::programs::opcodes_table(),
            true,
            a.programs.iter().flat_map(|p| {
                let f = p.fingerprint.as_ref().ok();
                f.into_iter().flat_map(move |f| {
                    f.opcodes.iter().map(move |&(k, n)| ProgramOpcodeRow {
                        stage: stage_name(p.stage),
                        key: p.key,
                        opcode: f.opcode_name(k).replace(" (scalar)", "(scalar)"),
                        count: n,
                    })
                })
            }),
        )?,
    );

    let per_draw = || a.draws.iter().enumerate();
    count(
        "constant_runs",
        insert(
            tx,
            &tables::constants::runs_table(),
            false,
            a.constant_runs.iter().map(|run| RunRow {
                capture_id: id,
                run,
            }),
        )?,
    );
    count(
        "fragment_constants",
        insert(
            tx,
            &tables::constants::fragment_table(),
            false,
            per_draw().flat_map(|(draw, f)| {
                f.fragment_constants
                    .iter()
                    .map(move |c| FragmentConstantRow {
                        capture_id: id,
                        draw,
                        c,
                    })
            }),
        )?,
    );
    count(
        "textures",
        insert(
            tx,
            &tables::textures::table(),
            true,
            a.textures.iter().cloned(),
        )?,
    );
    let mut units: Vec<UnitRow<'_>> = per_draw()
        .flat_map(|(draw, f)| {
            f.units.iter().map(move |u| UnitRow {
                capture_id: id,
                draw,
                u,
                binding: 0,
            })
        })
        .collect();
    let (bindings, first_of_binding) = tables::textures::bindings(&units);
    for (u, binding) in units.iter_mut().zip(bindings) {
        u.binding = binding;
    }
    count(
        "draw_texture_rows",
        insert(
            tx,
            &tables::textures::unit_rows_table(),
            false,
            units.iter().copied(),
        )?,
    );
    count(
        "texture_bindings",
        insert(
            tx,
            &tables::textures::bindings_table(),
            false,
            first_of_binding.iter().map(|&i| units[i]),
        )?,
    );
    count(
        "memory_blocks",
        insert(
            tx,
            &tables::memory::table(),
            // A malformed file can list one id twice: the first entry is kept.
            true,
            a.blocks.iter().map(|b| BlockRow { capture_id: id, b }),
        )?,
    );
    count(
        "block_uses",
        insert(
            tx,
            &tables::memory::uses_table(),
            false,
            per_draw().flat_map(|(draw, f)| {
                f.uses.iter().map(move |u| UseRow {
                    capture_id: id,
                    draw,
                    u,
                })
            }),
        )?,
    );
    count(
        "warnings",
        insert(
            tx,
            &tables::warnings::table(),
            false,
            warnings.iter().map(|w| Warning {
                capture_id: id,
                ..w.clone()
            }),
        )?,
    );
    Ok(counts)
}
