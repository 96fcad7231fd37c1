//! Columns whose values repeat over many rows, stored once: a documented table is kept as its
//! rows' own columns with a number naming one row of a table of the distinct values of the
//! others, and a view joins the two back into the documented columns (`draws` is `draw_rows`
//! with `draw_states`, `draw_textures` is `draw_texture_rows` with `texture_bindings`). A frame
//! has thousands of draws and a handful of states and texture bindings, and SQLite's cost is
//! per value stored (`BENCHMARKS.md`, capture index).

use crate::cell::Cell;
use crate::schema::{col, Column, Ty, View};
use std::collections::HashMap;

/// `columns` split into the ones `shared` does not name and the ones it does, each in order.
pub(crate) fn split<R>(
    columns: Vec<Column<R>>,
    shared: impl Fn(&str) -> bool,
) -> (Vec<Column<R>>, Vec<Column<R>>) {
    columns.into_iter().partition(|c| !shared(c.name))
}

/// The column that numbers the distinct values (`state`, `binding`), read by `get`.
pub(crate) fn number_column<R>(
    name: &'static str,
    doc: &'static str,
    get: fn(&R) -> Cell,
) -> Column<R> {
    col(name, Ty::Integer, doc, get)
}

/// Number the distinct values of `shared` over `rows`, from 0 in order of first use: each
/// row's number and each number's first row. `same_as_before(before, row)` may say that a row
/// holds the values of the row before it without reading them (values shared in memory).
pub(crate) fn numbers<R>(
    rows: &[R],
    shared: &[Column<R>],
    same_as_before: impl Fn(&R, &R) -> bool,
) -> (Vec<usize>, Vec<usize>) {
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
    let (mut of_row, mut first) = (Vec::with_capacity(rows.len()), Vec::new());
    let mut key = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if let Some(k) = i.checked_sub(1) {
            if same_as_before(&rows[k], row) {
                of_row.push(of_row[k]);
                continue;
            }
        }
        key.clear();
        for c in shared {
            (c.get)(row).write_key(&mut key);
        }
        let next = seen.len();
        let n = *seen.entry(key.clone()).or_insert(next);
        if n == next {
            first.push(i);
        }
        of_row.push(n);
    }
    (of_row, first)
}

/// The view's `SELECT`: every name of `all` in order, from `own` (alias `r`) unless `shared`
/// holds it, then from `values` (alias `v`), joined on the capture and `number`; `number`
/// itself last.
pub(crate) fn view_select(
    all: &[&str],
    shared: impl Fn(&str) -> bool,
    own: &str,
    values: &str,
    number: &str,
) -> String {
    let mut names: Vec<String> = all
        .iter()
        .map(|name| {
            let table = if shared(name) { "v" } else { "r" };
            format!("{table}.{name}")
        })
        .collect();
    names.push(format!("r.{number}"));
    format!(
        "SELECT {}\nFROM {own} r\nJOIN {values} v ON v.capture_id = r.capture_id AND v.{number} = r.{number}",
        names.join(", ")
    )
}

/// The view that joins a split table back ([`split`]): `all`'s columns in order, each from
/// `own` unless `shared` names it, then from `values`, and the `number` column last.
pub(crate) fn split_view<R>(
    name: &'static str,
    doc: &'static str,
    all: &[Column<R>],
    shared: impl Fn(&str) -> bool,
    (own, values): (&str, &str),
    number: Column<R>,
) -> View {
    let names: Vec<&str> = all.iter().map(|c| c.name).collect();
    let select = view_select(&names, shared, own, values, number.name);
    let mut columns: Vec<(&'static str, Ty, &'static str)> =
        all.iter().map(|c| (c.name, c.ty, c.doc)).collect();
    columns.push((number.name, number.ty, number.doc));
    View {
        name,
        doc,
        columns,
        select: select.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_share_a_number_in_order_of_first_use() {
        let shared = vec![col("v", Ty::Integer, "v", |r: &(i64, i64)| r.1.into())];
        let rows = [(0, 5), (1, 7), (2, 5), (3, 9), (4, 7)];
        let (of_row, first) = numbers(&rows, &shared, |_, _| false);
        assert_eq!(of_row, [0, 1, 0, 2, 1]);
        assert_eq!(first, [0, 1, 3]);
        // A row said to repeat the row before takes its number without being read.
        let (of_row, first) = numbers(&rows, &shared, |_, b: &(i64, i64)| b.0 == 2);
        assert_eq!(of_row, [0, 1, 1, 2, 1]);
        assert_eq!(first, [0, 1, 3]);
    }

    #[test]
    fn the_view_takes_each_column_from_its_table() {
        let select = view_select(
            &["capture_id", "a", "b"],
            |n| n == "b",
            "t_rows",
            "t_values",
            "k",
        );
        assert_eq!(
            select,
            "SELECT r.capture_id, r.a, v.b, r.k\nFROM t_rows r\nJOIN t_values v ON v.capture_id = r.capture_id AND v.k = r.k"
        );
    }
}
