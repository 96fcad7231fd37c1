//! `docs/index.md` holds the schema exactly as the tables define it (columns, types, meanings,
//! keys and indexes), and the database a fresh `Database` creates has exactly those columns.
//! Rewrite the document's schema section with `RSXTRACE_UPDATE_DOCS=1`.

use rsxtrace_index::{tables, Database};

const BEGIN: &str = "<!-- schema:begin";
const END: &str = "<!-- schema:end -->";

fn doc_path() -> std::path::PathBuf {
    rsxtrace_testkit::workspace!().root().join("docs/index.md")
}

#[test]
fn the_document_holds_the_generated_schema() {
    let path = doc_path();
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find(BEGIN).expect("schema:begin marker");
    let body_start = start + text[start..].find("-->").expect("end of the begin marker") + 3;
    let end = text.find(END).expect("schema:end marker");
    let generated = format!("\n\n{}\n", tables::markdown());
    if std::env::var_os("RSXTRACE_UPDATE_DOCS").is_some() {
        let updated = format!("{}{}{}", &text[..body_start], generated, &text[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert!(
        text[body_start..end] == generated,
        "{}: the schema section is not current; run RSXTRACE_UPDATE_DOCS=1 cargo test -p rsxtrace-index --test integration schema_doc::",
        path.display()
    );
}

/// The prose names the schema version a database of this build records.
#[test]
fn the_document_names_the_current_schema_version() {
    let text = std::fs::read_to_string(doc_path()).unwrap();
    let current = format!(
        "Version {}\n  (this one)",
        rsxtrace_index::schema::SCHEMA_VERSION
    );
    assert!(
        text.contains(&current),
        "docs/index.md does not say {current:?}: describe what the new version adds"
    );
}

#[test]
fn the_database_has_the_documented_columns() {
    let db = Database::in_memory().unwrap();
    let conn = db.connection();
    let version: i32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, rsxtrace_index::schema::SCHEMA_VERSION);
    for table in tables::all() {
        let mut stmt = conn
            .prepare(&format!(
                "SELECT name, type FROM pragma_table_info('{}')",
                table.name
            ))
            .unwrap();
        let got: Vec<(String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let want: Vec<(String, String)> = table
            .columns
            .iter()
            .map(|(n, t, _)| (n.to_string(), t.sql().to_string()))
            .collect();
        if table.view.is_some() {
            // A view's computed columns have no declared type: compare the names.
            let names = |v: &[(String, String)]| v.iter().map(|c| c.0.clone()).collect::<Vec<_>>();
            assert_eq!(names(&got), names(&want), "view {}", table.name);
        } else {
            assert_eq!(got, want, "table {}", table.name);
        }
        for (name, _, doc) in &table.columns {
            assert!(
                !doc.is_empty(),
                "{}.{name} has no meaning documented",
                table.name
            );
        }
    }
}

#[test]
fn a_database_of_another_schema_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite");
    drop(Database::open(&path).unwrap());
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA user_version = 999").unwrap();
    }
    let err = Database::open(&path).err().expect("refused");
    assert!(
        matches!(
            err,
            rsxtrace_index::IndexError::SchemaVersion { found: 999, .. }
        ),
        "{err}"
    );
    // Opening a current database again keeps it.
    let path = dir.path().join("new.sqlite");
    drop(Database::open(&path).unwrap());
    Database::open(&path).unwrap();
}
