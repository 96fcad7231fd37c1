//! The database schema as data: each table is a list of columns (name, SQL type, meaning and
//! unit, and the getter that reads the value from a row), its primary key and its indexes.
//! The `CREATE` statements, the insert statements and the schema section of `docs/index.md`
//! are all made from these lists, so they cannot drift apart (`tests/schema_doc.rs` checks
//! the document).

use crate::cell::Cell;
use std::borrow::Cow;

/// Version of the schema. Stored as SQLite's `user_version`; a database made by another
/// version is refused (re-create it) rather than mixed. 3: vertex programs' texture units
/// carry a flow class (`program_textures.reach`/`live`, `draw_textures.sampled`), which
/// version 2 left NULL, and `programs.flow_complete` is computed for them. 4: `draws` has the
/// depth bounds test and the logic operation. 5: `draws.texcoord_2d`, `draws.depth_float`.
/// 6: `draws.part` (a BEGIN/END split by an execution barrier is several draws). 7: `draws` is
/// a view over `draw_rows` and `draw_states` (each distinct surface and raster state stored
/// once), with `draws.state`. 8: `program_constants` says what each register is to its program
/// (`role`, `group_first`, `group_count`, `multiplies`); `draws.conditional_render` and
/// `conditional_report`. 9: `draws.zpass_pixel_count` and `report_area` (occlusion queries).
/// 10: `draws.zcull`. 11: `draws.color_a_tile`, `color_a_compression`, `zeta_tile`,
/// `zeta_compression`, `zcull_region` (tile and Z-cull regions).
pub const SCHEMA_VERSION: i32 = 11;

/// A column's SQL type (its affinity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `INTEGER`.
    Integer,
    /// `REAL`.
    Real,
    /// `TEXT`.
    Text,
    /// No affinity: the value keeps its own type (enumerated state whose value is a name, or
    /// the raw number when it has none).
    Any,
}

impl Ty {
    /// The type as written in `CREATE TABLE`.
    pub fn sql(self) -> &'static str {
        match self {
            Ty::Integer => "INTEGER",
            Ty::Real => "REAL",
            Ty::Text => "TEXT",
            Ty::Any => "ANY",
        }
    }
}

/// One column of a table of rows of type `R`.
pub struct Column<R> {
    /// Name (stable: part of the documented interface).
    pub name: &'static str,
    /// SQL type.
    pub ty: Ty,
    /// Meaning and unit, one sentence or two (Markdown).
    pub doc: &'static str,
    /// Reads the value from a row.
    pub get: fn(&R) -> Cell,
}

/// Shorthand for a column entry.
pub(crate) fn col<R>(
    name: &'static str,
    ty: Ty,
    doc: &'static str,
    get: fn(&R) -> Cell,
) -> Column<R> {
    Column { name, ty, doc, get }
}

/// A table of rows of type `R`.
pub struct Table<R> {
    /// Name.
    pub name: &'static str,
    /// What one row is (Markdown).
    pub doc: &'static str,
    /// Columns in order.
    pub columns: Vec<Column<R>>,
    /// Primary-key columns (empty: none).
    pub primary_key: &'static [&'static str],
    /// Further indexes, each a list of columns.
    pub indexes: &'static [&'static [&'static str]],
}

/// A view: named, documented columns over a `SELECT` of the tables (nothing is inserted
/// into it). The column types are what its values are, for the documentation.
pub struct View {
    /// Name.
    pub name: &'static str,
    /// What one row is (Markdown).
    pub doc: &'static str,
    /// `(name, type, doc)` per column, in the `SELECT`'s order.
    pub columns: Vec<(&'static str, Ty, &'static str)>,
    /// The `SELECT`.
    pub select: Cow<'static, str>,
}

impl View {
    /// The view's description.
    pub fn info(&self) -> TableInfo {
        TableInfo {
            name: self.name,
            doc: self.doc,
            columns: self.columns.clone(),
            primary_key: &[],
            indexes: &[],
            view: Some(self.select.clone()),
        }
    }
}

/// A table (or view) without its getters: what DDL and documentation need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableInfo {
    /// Name.
    pub name: &'static str,
    /// What one row is.
    pub doc: &'static str,
    /// `(name, type, doc)` per column.
    pub columns: Vec<(&'static str, Ty, &'static str)>,
    /// Primary-key columns.
    pub primary_key: &'static [&'static str],
    /// Further indexes.
    pub indexes: &'static [&'static [&'static str]],
    /// For a view: its `SELECT`; `None` for a table.
    pub view: Option<Cow<'static, str>>,
}

impl<R> Table<R> {
    /// The table's description.
    pub fn info(&self) -> TableInfo {
        TableInfo {
            name: self.name,
            doc: self.doc,
            columns: self.columns.iter().map(|c| (c.name, c.ty, c.doc)).collect(),
            primary_key: self.primary_key,
            indexes: self.indexes,
            view: None,
        }
    }

    /// `VERB INTO name (columns) VALUES (?, ...), ...` for `rows` rows (`VERB` is `INSERT`
    /// or `INSERT OR IGNORE`).
    pub fn insert_sql(&self, verb: &str, rows: usize) -> String {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        let one = format!("({})", vec!["?"; names.len()].join(", "));
        format!(
            "{verb} INTO {} ({}) VALUES {}",
            self.name,
            names.join(", "),
            vec![one; rows].join(", ")
        )
    }
}

impl TableInfo {
    /// `CREATE TABLE IF NOT EXISTS` and `CREATE INDEX IF NOT EXISTS` statements (for a view,
    /// `CREATE VIEW IF NOT EXISTS`).
    pub fn ddl(&self) -> String {
        if let Some(select) = &self.view {
            let names: Vec<&str> = self.columns.iter().map(|(n, _, _)| *n).collect();
            return format!(
                "CREATE VIEW IF NOT EXISTS {} ({}) AS\n{select};\n",
                self.name,
                names.join(", ")
            );
        }
        let mut lines: Vec<String> = self
            .columns
            .iter()
            .map(|(name, ty, _)| format!("    {name} {}", ty.sql()))
            .collect();
        if !self.primary_key.is_empty() {
            lines.push(format!("    PRIMARY KEY ({})", self.primary_key.join(", ")));
        }
        // STRICT: a value that does not fit its column's type is an error, not a silent
        // conversion (ANY columns take any value).
        // A table with a primary key stores its rows in that key's order (WITHOUT ROWID):
        // one B-tree instead of a rowid table plus the key's index.
        let without_rowid = if self.primary_key.is_empty() || self.primary_key == ["capture_id"] {
            ""
        } else {
            ", WITHOUT ROWID"
        };
        let mut out = format!(
            "CREATE TABLE IF NOT EXISTS {} (\n{}\n) STRICT{without_rowid};\n",
            self.name,
            lines.join(",\n")
        );
        for columns in self.indexes {
            out.push_str(&format!(
                "CREATE INDEX IF NOT EXISTS {}_by_{} ON {} ({});\n",
                self.name,
                columns.join("_"),
                self.name,
                columns.join(", ")
            ));
        }
        out
    }

    /// The table's section of `docs/index.md`: what a row is, the key, the indexes and one
    /// line per column.
    pub fn markdown(&self) -> String {
        let mut out = format!("### `{}`\n\n{}\n\n", self.name, self.doc);
        if let Some(select) = &self.view {
            out.push_str(&format!(
                "A view (no rows of its own, no key):\n\n```\n{select}\n```\n"
            ));
        }
        if !self.primary_key.is_empty() {
            out.push_str(&format!(
                "Primary key: ({}).",
                self.primary_key
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !self.indexes.is_empty() {
            let indexes: Vec<String> = self
                .indexes
                .iter()
                .map(|cols| {
                    format!(
                        "({})",
                        cols.iter()
                            .map(|c| format!("`{c}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
                .collect();
            out.push_str(&format!(" Indexed on {}.", indexes.join(", ")));
        }
        out.push_str("\n\n| column | type | meaning |\n|---|---|---|\n");
        for (name, ty, doc) in &self.columns {
            out.push_str(&format!("| `{name}` | {} | {doc} |\n", ty.sql()));
        }
        out
    }
}
