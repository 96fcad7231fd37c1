//! The totals as labelled lines with shares: what `rsxtrace stats` and the report print.

use super::FrameStatistics;

impl FrameStatistics {
    /// The totals as labelled lines (`by primitive`, `by source`, `vertices`, `assembled`,
    /// `programs`, `textures`, `clears`, `transfers`, `constants`, `occlusion`), each draw
    /// count with its share: what `rsxtrace stats` and the report print.
    pub fn summary(&self) -> Vec<(&'static str, String)> {
        let draws = self.draws.len() as u64;
        let listed = |pairs: &[(&str, usize)]| -> String {
            let shown: Vec<String> = pairs
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(k, n)| format!("{k} {n} ({})", share(*n as u64, draws)))
                .collect();
            if shown.is_empty() {
                "none".into()
            } else {
                shown.join(", ")
            }
        };
        let primitives: Vec<(&str, usize)> = self
            .by_primitive
            .iter()
            .map(|(p, n)| (p.name(), *n))
            .collect();
        let src = &self.by_source;
        let (v, a, p, t) = (
            &self.vertices,
            &self.assembled,
            &self.programs,
            &self.textures,
        );
        let not_counted = match a.unknown.len() {
            0 => String::new(),
            n => format!(" ({n} draws not counted)"),
        };
        let transfers: Vec<String> = self
            .transfers
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        vec![
            ("by primitive", listed(&primitives)),
            (
                "by source",
                listed(&[
                    ("indexed", src.indexed),
                    ("arrays", src.arrays),
                    ("inline", src.inline),
                    ("elements", src.elements),
                    ("immediate", src.immediate),
                ]),
            ),
            (
                "vertices",
                format!(
                    "{} submitted, {} shaded, {} to {} per draw, median {}",
                    v.total, v.shaded, v.min, v.max, v.median
                ),
            ),
            (
                "assembled",
                format!(
                    "{} triangles, {} lines, {} points{not_counted}",
                    a.triangles, a.lines, a.points
                ),
            ),
            (
                "programs",
                format!(
                    "{} vertex, {} fragment ({} counting inline constants)",
                    p.vertex, p.fragment, p.fragment_with_constants
                ),
            ),
            (
                "textures",
                format!(
                    "{} fragment and {} vertex unit bindings, {} distinct images",
                    t.bindings, t.vertex_bindings, t.distinct
                ),
            ),
            ("clears", self.clears.to_string()),
            (
                "transfers",
                if transfers.is_empty() {
                    "none".into()
                } else {
                    transfers.join(", ")
                },
            ),
            (
                "constants",
                format!(
                    "{} transform constant registers changed between draws",
                    self.constant_registers_changed
                ),
            ),
            (
                "occlusion",
                format!(
                    "{} query results written, {} draws counted{}, {} conditional draws",
                    self.occlusion.reports,
                    self.occlusion.counted_draws,
                    match self.occlusion.counted_without_zcull {
                        0 => String::new(),
                        n => format!(" ({n} with Z-cull off, which RPCS3 does not count)"),
                    },
                    self.occlusion.conditional_draws
                ),
            ),
        ]
    }
}

/// `n` as a percentage of `of`, one decimal (`0.0%` when `of` is 0).
pub fn share(n: u64, of: u64) -> String {
    format!("{:.1}%", n as f64 * 100.0 / of.max(1) as f64)
}
