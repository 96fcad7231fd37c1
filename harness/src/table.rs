//! Plain-text tables: columns padded to their widest cell, numbers right-aligned.

use std::fmt::Write;

/// A table built row by row and rendered with aligned columns.
pub struct Table {
    headers: Vec<String>,
    right_aligned: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Columns whose header starts with `>` are right-aligned (the `>` is not printed).
    pub fn new(headers: &[&str]) -> Table {
        Table {
            headers: headers
                .iter()
                .map(|h| h.trim_start_matches('>').to_string())
                .collect(),
            right_aligned: headers.iter().map(|h| h.starts_with('>')).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let columns = self.headers.len();
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, cells: &[String]| {
            let mut text = String::new();
            for (i, width) in widths.iter().enumerate() {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                if i > 0 {
                    text.push_str("  ");
                }
                if self.right_aligned[i] {
                    let _ = write!(text, "{cell:>width$}");
                } else {
                    let _ = write!(text, "{cell:<width$}");
                }
            }
            out.push_str(text.trim_end());
            out.push('\n');
        };
        line(&mut out, &self.headers);
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        line(&mut out, &rule);
        for row in &self.rows {
            line(&mut out, row);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_aligned_and_numbers_right_aligned() {
        let mut t = Table::new(&["name", ">count"]);
        t.row(vec!["a".into(), "5".into()]);
        t.row(vec!["longer".into(), "123".into()]);
        assert_eq!(
            t.render(),
            "name    count\n------  -----\na           5\nlonger    123\n"
        );
    }
}
