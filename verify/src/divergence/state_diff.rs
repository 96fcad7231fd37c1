//! The state that changed since the previous draw (as apitrace's retracediff reports it):
//! the two draws' documented summaries (`Draw::summary`, an external interface) compared as
//! JSON objects key by key. `index` and `end_command` always change and are left out.

use rsxtrace_capture::frame::Draw;
use serde::Serialize;
use serde_json::Value;

/// Keys that differ on every draw and say nothing about state.
const POSITIONAL: [&str; 2] = ["index", "end_command"];

/// One summary key whose value changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateChange {
    /// Summary key (`vp_hash`, `fp_hash`, `mvp`, ...).
    pub key: String,
    /// Value at the previous draw (null when the key was absent).
    pub before: Value,
    /// Value at this draw (null when the key is absent).
    pub after: Value,
}

/// The keys of two JSON objects whose values differ, in `after`'s key order then keys only
/// `before` has. Non-objects compare as a single key `""`.
pub fn diff_objects(before: &Value, after: &Value) -> Vec<StateChange> {
    let (Value::Object(b), Value::Object(a)) = (before, after) else {
        return if before == after {
            Vec::new()
        } else {
            vec![StateChange {
                key: String::new(),
                before: before.clone(),
                after: after.clone(),
            }]
        };
    };
    let mut out = Vec::new();
    for (k, av) in a {
        if POSITIONAL.contains(&k.as_str()) {
            continue;
        }
        let bv = b.get(k).unwrap_or(&Value::Null);
        if bv != av {
            out.push(StateChange {
                key: k.clone(),
                before: bv.clone(),
                after: av.clone(),
            });
        }
    }
    for (k, bv) in b {
        if !a.contains_key(k) && !POSITIONAL.contains(&k.as_str()) {
            out.push(StateChange {
                key: k.clone(),
                before: bv.clone(),
                after: Value::Null,
            });
        }
    }
    out
}

/// What changed from `previous` to `draw` (every summary key when there is no previous draw,
/// with `before` null).
pub fn state_changes(previous: Option<&Draw>, draw: &Draw) -> Vec<StateChange> {
    let after = serde_json::to_value(draw.summary()).unwrap_or(Value::Null);
    let before = previous
        .and_then(|p| serde_json::to_value(p.summary()).ok())
        .unwrap_or_else(|| Value::Object(Default::default()));
    diff_objects(&before, &after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changed_added_and_removed_keys_are_listed() {
        let before =
            json!({"index": 3, "end_command": 40, "vp_hash": "00aa", "fp_hash": "11", "gone": 1});
        let after = json!({"index": 4, "end_command": 52, "vp_hash": "00aa", "fp_hash": "22", "mvp": null, "new": [1, 2]});
        let d = diff_objects(&before, &after);
        let keys: Vec<&str> = d.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["fp_hash", "new", "gone"]);
        assert_eq!(d[0].before, json!("11"));
        assert_eq!(d[0].after, json!("22"));
        assert_eq!(d[1].before, Value::Null);
        assert_eq!(d[2].after, Value::Null);
    }

    #[test]
    fn equal_objects_have_no_change() {
        let v = json!({"index": 1, "vp_start": 0, "mvp": [[1.0, 0.0, 0.0, 0.0]]});
        let mut w = v.clone();
        w["index"] = json!(2);
        assert!(diff_objects(&v, &w).is_empty());
    }
}
