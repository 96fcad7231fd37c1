//! The worst-first table: one row per diverged stage (draw, stage, register, worst vertex or
//! pixel, its values and errors, ill-conditioned count), worst score first. A run with
//! substituted state names it in the stage cell ([`stage_cell`]). Rows are plain
//! strings; the CLI renders them with its own table printer.

use super::model::{StageReport, VerifyReport};

/// Column headers of [`worst_rows`].
pub const HEADERS: [&str; 10] = [
    "draw",
    "stage",
    "register",
    "worst at",
    "gpu",
    "interpreter",
    "abs err",
    "rel err",
    "ulps",
    "ill-cond",
];

/// Where the worst component is: `v12.y` (vertex) or `(x,y).z` (pixel).
fn location(s: &StageReport) -> String {
    let Some(w) = s.worst_register().and_then(|r| r.worst.as_ref()) else {
        return "-".to_string();
    };
    let c = ['x', 'y', 'z', 'w']
        .get(w.component)
        .copied()
        .unwrap_or('?');
    match w.pixel {
        Some([x, y]) => format!("({x},{y}).{c}"),
        None => format!("v{}.{c}", w.element),
    }
}

/// The stage, with the substituted state of the run: `vertex (substituted zeros: c[4])`.
pub fn stage_cell(s: &StageReport) -> String {
    match &s.substituted {
        Some(sub) => format!("{} (substituted {})", s.stage.name(), sub.describe()),
        None => s.stage.name().to_string(),
    }
}

/// A number in the table: shortest form, `inf` for infinity.
fn num(v: f64) -> String {
    if v.is_infinite() {
        "inf".to_string()
    } else {
        format!("{v:.3e}")
    }
}

/// Rows of the diverged stages, worst first, at most `limit`.
pub fn worst_rows(report: &VerifyReport, limit: usize) -> Vec<Vec<String>> {
    report
        .worst_first()
        .into_iter()
        .take(limit)
        .map(|(d, s)| {
            let reg = s.worst_register();
            let w = reg.and_then(|r| r.worst.as_ref());
            vec![
                d.draw.to_string(),
                stage_cell(s),
                reg.map_or("-".to_string(), |r| {
                    format!("{} [{}]", r.register, r.class.name())
                }),
                location(s),
                w.map_or("-".to_string(), |w| w.gpu.to_string()),
                w.map_or("-".to_string(), |w| w.interpreter.to_string()),
                w.map_or("-".to_string(), |w| num(w.error.abs)),
                w.map_or("-".to_string(), |w| num(w.error.rel)),
                w.map_or("-".to_string(), |w| {
                    if w.error.ulps == u64::MAX {
                        "nan".to_string()
                    } else {
                        w.error.ulps.to_string()
                    }
                }),
                s.ill_conditioned().to_string(),
            ]
        })
        .collect()
}
