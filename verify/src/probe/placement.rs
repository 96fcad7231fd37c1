//! The placements file and the view-projection file (documented in `docs/probes.md`).
//!
//! A placements file is a JSON list of objects `{"id": string, "mesh": string (optional),
//! "world": [16 numbers]}` (a top-level `{"placements": [...]}` is accepted too). `world` is
//! row-major in the row-vector convention: a model-space row vector `v` maps to `v x world`,
//! so the translation is `world[12..15]`; four rows of four numbers are accepted as well.
//! A view-projection file is `{"view_projection": [4 rows of 4]}` or a bare list of four rows
//! (or 16 numbers), in the same row-vector convention (`clip = v_world x VP`).
//!
//! Every error names the entry (its index, and its id when one was read) and the field.

use super::matrix::Mat4;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

/// One placed instance of a mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The placement's id, unique in the file.
    pub id: String,
    /// The mesh file's name without extension, when the file gives one.
    pub mesh: Option<String>,
    /// Model to world, row-vector convention (`v_world = v x world`).
    pub world: Mat4,
}

/// A refused placements or view-projection file.
#[derive(Debug, thiserror::Error)]
pub enum PlacementError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Not JSON at all.
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The top level is not what the format allows.
    #[error("{0}")]
    TopLevel(String),
    /// One field of one entry is wrong.
    #[error("placement {entry}{}: field `{field}`: {problem}", id.as_ref().map(|i| format!(" (id {i:?})")).unwrap_or_default())]
    Field {
        /// Index of the entry in the list.
        entry: usize,
        /// The entry's id, when it was read.
        id: Option<String>,
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The view-projection matrix is malformed.
    #[error("view_projection: {0}")]
    ViewProjection(String),
}

/// Parse a placements file's text.
pub fn parse_placements(json: &str) -> Result<Vec<Placement>, PlacementError> {
    let value: Value = serde_json::from_str(json)?;
    let list = match &value {
        Value::Array(list) => list,
        Value::Object(map) => match map.get("placements") {
            Some(Value::Array(list)) => list,
            _ => {
                return Err(PlacementError::TopLevel(
                    "expected a list of placements, or an object with a `placements` list".into(),
                ))
            }
        },
        _ => {
            return Err(PlacementError::TopLevel(
                "expected a list of placements".into(),
            ))
        }
    };
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(list.len());
    for (entry, item) in list.iter().enumerate() {
        let placement = parse_entry(entry, item)?;
        if !seen.insert(placement.id.clone()) {
            return Err(PlacementError::Field {
                entry,
                id: Some(placement.id),
                field: "id",
                problem: "duplicate id".into(),
            });
        }
        out.push(placement);
    }
    Ok(out)
}

/// Read and parse a placements file.
pub fn read_placements(path: &Path) -> Result<Vec<Placement>, PlacementError> {
    let text = std::fs::read_to_string(path).map_err(|source| PlacementError::Io {
        path: path.display().to_string(),
        source,
    })?;
    parse_placements(&text)
}

/// Parse a view-projection file's text: `{"view_projection": [4 rows]}`, a bare list of four
/// rows, or 16 numbers, row-major, row-vector convention.
pub fn parse_view_projection(json: &str) -> Result<Mat4, PlacementError> {
    let value: Value = serde_json::from_str(json)?;
    let matrix = match &value {
        Value::Object(map) => map.get("view_projection").ok_or_else(|| {
            PlacementError::ViewProjection("the object has no `view_projection` field".into())
        })?,
        other => other,
    };
    matrix_from_value(matrix).map_err(PlacementError::ViewProjection)
}

/// Read and parse a view-projection file.
pub fn read_view_projection(path: &Path) -> Result<Mat4, PlacementError> {
    let text = std::fs::read_to_string(path).map_err(|source| PlacementError::Io {
        path: path.display().to_string(),
        source,
    })?;
    parse_view_projection(&text)
}

/// The placements file text for `placements` (pretty JSON, `world` as 16 numbers).
pub fn placements_to_json(placements: &[Placement]) -> String {
    let list: Vec<Value> = placements
        .iter()
        .map(|p| {
            let mut map = serde_json::Map::new();
            map.insert("id".into(), Value::from(p.id.clone()));
            if let Some(mesh) = &p.mesh {
                map.insert("mesh".into(), Value::from(mesh.clone()));
            }
            let world: Vec<f64> = p.world.iter().flatten().copied().collect();
            map.insert("world".into(), Value::from(world));
            Value::Object(map)
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&Value::Array(list)).unwrap_or_default();
    text.push('\n');
    text
}

fn parse_entry(entry: usize, item: &Value) -> Result<Placement, PlacementError> {
    let field_error =
        |id: Option<&str>, field: &'static str, problem: &str| PlacementError::Field {
            entry,
            id: id.map(str::to_string),
            field,
            problem: problem.to_string(),
        };
    let Value::Object(map) = item else {
        return Err(field_error(None, "(entry)", "expected an object"));
    };
    let id = match map.get("id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::String(_)) => return Err(field_error(None, "id", "empty string")),
        Some(_) => return Err(field_error(None, "id", "expected a string")),
        None => return Err(field_error(None, "id", "missing")),
    };
    let mesh = match map.get("mesh") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(_) => {
            return Err(field_error(
                Some(&id),
                "mesh",
                "expected a non-empty string or null",
            ))
        }
    };
    let world = match map.get("world") {
        None => return Err(field_error(Some(&id), "world", "missing")),
        Some(v) => matrix_from_value(v).map_err(|p| field_error(Some(&id), "world", &p))?,
    };
    for key in map.keys() {
        if !matches!(key.as_str(), "id" | "mesh" | "world") {
            return Err(PlacementError::Field {
                entry,
                id: Some(id),
                field: "(entry)",
                problem: format!("unknown field `{key}`"),
            });
        }
    }
    Ok(Placement { id, mesh, world })
}

/// 16 finite numbers, flat or as four rows of four.
fn matrix_from_value(value: &Value) -> Result<Mat4, String> {
    let Value::Array(items) = value else {
        return Err("expected 16 numbers or four rows of four".into());
    };
    let mut flat = Vec::with_capacity(16);
    if items.len() == 4 && items.iter().all(Value::is_array) {
        for (r, row) in items.iter().enumerate() {
            let cells = row.as_array().map(Vec::as_slice).unwrap_or_default();
            if cells.len() != 4 {
                return Err(format!("row {r} has {} numbers, expected 4", cells.len()));
            }
            flat.extend(cells.iter().cloned());
        }
    } else if items.len() == 16 {
        flat.extend(items.iter().cloned());
    } else {
        return Err(format!(
            "{} items, expected 16 numbers or four rows of four",
            items.len()
        ));
    }
    let mut m = [[0.0; 4]; 4];
    for (i, v) in flat.iter().enumerate() {
        let x = v
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("element {i} is not a finite number"))?;
        m[i / 4][i % 4] = x;
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_flat_and_nested_worlds() {
        let text = r#"[
            {"id": "crate_01", "mesh": "box", "world": [1,0,0,0, 0,1,0,0, 0,0,1,0, 3,4,5,1]},
            {"id": "b", "world": [[2,0,0,0],[0,2,0,0],[0,0,2,0],[0,0,0,1]]}
        ]"#;
        let p = parse_placements(text).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].id, "crate_01");
        assert_eq!(p[0].mesh.as_deref(), Some("box"));
        assert_eq!(p[0].world[3], [3.0, 4.0, 5.0, 1.0]);
        assert_eq!(p[1].mesh, None);
        assert_eq!(p[1].world[2][2], 2.0);
        let wrapped = format!("{{\"placements\": {text}}}");
        assert_eq!(parse_placements(&wrapped).unwrap(), p);
    }

    #[test]
    fn errors_name_the_entry_and_field() {
        let text = r#"[
            {"id": "a", "world": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]},
            {"id": "b", "world": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0]}
        ]"#;
        let e = parse_placements(text).unwrap_err().to_string();
        assert_eq!(
            e,
            "placement 1 (id \"b\"): field `world`: 15 items, expected 16 numbers or four rows of four"
        );
        let e = parse_placements(r#"[{"world": []}]"#)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "placement 0: field `id`: missing");
        let e = parse_placements(r#"[{"id": "x", "mesh": 3, "world": []}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `mesh`"), "{e}");
        let e =
            parse_placements(r#"[{"id": "x", "world": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,"z",1]}]"#)
                .unwrap_err()
                .to_string();
        assert!(e.contains("element 14 is not a finite number"), "{e}");
        let dup = r#"[{"id": "x", "world": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]},
                      {"id": "x", "world": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}]"#;
        let e = parse_placements(dup).unwrap_err().to_string();
        assert_eq!(e, "placement 1 (id \"x\"): field `id`: duplicate id");
        let e = parse_placements(r#"[{"id": "x", "wrld": []}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `world`: missing"), "{e}");
        assert!(matches!(
            parse_placements("{\"a\": 1}"),
            Err(PlacementError::TopLevel(_))
        ));
        assert!(matches!(
            parse_placements("[1,"),
            Err(PlacementError::Json(_))
        ));
    }

    #[test]
    fn view_projection_forms() {
        let rows = "[[1,0,0,0],[0,2,0,0],[0,0,3,-1],[0,0,4,0]]";
        let a = parse_view_projection(rows).unwrap();
        let b = parse_view_projection(&format!("{{\"view_projection\": {rows}}}")).unwrap();
        let c = parse_view_projection("[1,0,0,0, 0,2,0,0, 0,0,3,-1, 0,0,4,0]").unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a[2], [0.0, 0.0, 3.0, -1.0]);
        let e = parse_view_projection("{\"vp\": []}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no `view_projection`"), "{e}");
        let e = parse_view_projection("[[1,0,0],[0,2,0,0],[0,0,3,-1],[0,0,4,0]]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 0 has 3 numbers"), "{e}");
    }

    #[test]
    fn json_round_trip() {
        let p = vec![Placement {
            id: "p0".into(),
            mesh: Some("wedge".into()),
            world: [
                [0.5, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0],
                [1.25, -2.0, 3.0, 1.0],
            ],
        }];
        assert_eq!(parse_placements(&placements_to_json(&p)).unwrap(), p);
    }
}
