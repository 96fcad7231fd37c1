//! Register state as key/value rows: a state struct serialised as the `dump --json` document
//! holds it (named values by name, unknown values as numbers), nested fields flattened to
//! dotted keys, short arrays of numbers on one line.

use maud::{html, Markup};
use serde::Serialize;
use serde_json::Value;

/// Arrays of at most this many scalars are shown on one line (a polygon stipple's 32 words
/// too).
const INLINE_ARRAY: usize = 32;

/// `(key, value)` rows of `value` under `prefix`.
pub fn rows(prefix: &str, value: &impl Serialize) -> Vec<(String, String)> {
    let mut out = Vec::new();
    match serde_json::to_value(value) {
        Ok(v) => flatten(prefix, &v, &mut out),
        Err(e) => out.push((prefix.to_string(), format!("(not shown: {e})"))),
    }
    out
}

fn scalar(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => return None,
    })
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                flatten(&join(prefix, k), v, out);
            }
        }
        Value::Array(items) => {
            let scalars: Option<Vec<String>> = items.iter().map(scalar).collect();
            match scalars {
                Some(s) if s.len() <= INLINE_ARRAY => out.push((prefix.to_string(), s.join(", "))),
                _ => {
                    for (i, item) in items.iter().enumerate() {
                        flatten(&format!("{prefix}[{i}]"), item, out);
                    }
                }
            }
        }
        other => out.push((prefix.to_string(), scalar(other).unwrap_or_default())),
    }
}

/// A two-column table of `rows`.
pub fn table(rows: &[(String, String)]) -> Markup {
    html! {
        table.state {
            tbody {
                @for (k, v) in rows {
                    tr { th { (k) } td { (v) } }
                }
            }
        }
    }
}

/// `rows` grouped by their first key segment (`viewport.rect.x` under `viewport`), one small
/// table per group, laid out side by side.
pub fn groups(rows: &[(String, String)]) -> Markup {
    let mut grouped: Vec<(&str, Vec<(&str, &str)>)> = Vec::new();
    for (k, v) in rows {
        let cut = k.find(['.', '[']).unwrap_or(k.len());
        let (group, rest) = k.split_at(cut);
        let rest = rest.strip_prefix('.').unwrap_or(rest);
        match grouped.last_mut() {
            Some((g, items)) if *g == group => items.push((rest, v)),
            _ => grouped.push((group, vec![(rest, v)])),
        }
    }
    html! {
        div.groups {
            @for (group, items) in &grouped {
                table.state {
                    caption { (group) }
                    tbody {
                        @for (k, v) in items {
                            tr { th { @if k.is_empty() { "value" } @else { (k) } } td { (v) } }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Inner {
        on: bool,
        scale: [f32; 2],
    }

    #[derive(Serialize)]
    struct Outer {
        name: &'static str,
        inner: Inner,
        long: Vec<u32>,
    }

    #[test]
    fn nested_fields_flatten_to_dotted_keys() {
        let r = rows(
            "x",
            &Outer {
                name: "<b>",
                inner: Inner {
                    on: true,
                    scale: [0.5, 2.0],
                },
                long: (0..40).collect(),
            },
        );
        assert_eq!(r[0], ("x.name".into(), "<b>".into()));
        assert_eq!(r[1], ("x.inner.on".into(), "true".into()));
        assert_eq!(r[2], ("x.inner.scale".into(), "0.5, 2.0".into()));
        assert_eq!(r[3], ("x.long[0]".into(), "0".into()));
        assert_eq!(r.len(), 43);
        let markup = table(&r).into_string();
        assert!(markup.contains("&lt;b&gt;"), "{markup}");
        let grouped = groups(&r).into_string();
        assert_eq!(grouped.matches("<table").count(), 1, "one group: x");
        assert!(grouped.contains("<th>inner.scale</th>"), "{grouped}");
    }
}
