//! The report model: per draw and stage an [`Outcome`], per output register a
//! [`RegisterReport`] (a [`RegisterTally`]), the first diverging draw with the state changed
//! since the previous draw, the negative control's tally and the timing breakdown. Plain
//! serde data: the printers ([`super::table`], [`super::json`], [`super::html`]) only read it.

use super::super::compare::RegisterTally;
use super::super::state_diff::StateChange;
use super::super::tolerance::Tolerances;
use serde::Serialize;

/// A per-register tally.
pub type RegisterReport = RegisterTally;

/// A pipeline stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Vertex program.
    Vertex,
    /// Fragment program.
    Fragment,
}

impl Stage {
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        }
    }
}

/// What happened to one stage of one draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Every compared component is within tolerance (or ill-conditioned).
    Clean,
    /// At least one component is outside tolerance.
    Diverged,
    /// Not compared, for a reason that is neither a divergence nor an error (constants or
    /// memory the capture does not hold, a feature not translated, nothing to compare).
    Skipped {
        /// Why.
        reason: String,
    },
    /// Something failed (the GPU, an interpreter error, invalid recompiled WGSL).
    Failed {
        /// The error.
        error: String,
    },
}

impl Outcome {
    /// `clean`, `diverged`, `skipped` or `failed`.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Clean => "clean",
            Outcome::Diverged => "diverged",
            Outcome::Skipped { .. } => "skipped",
            Outcome::Failed { .. } => "failed",
        }
    }
}

/// RGBA8 images of one fragment-stage draw (its window rectangle), not serialised.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StageImages {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Colour output 0 on the GPU, RGBA8 row-major, row 0 at the top.
    pub gpu: Vec<u8>,
    /// The same from the interpreter.
    pub interpreter: Vec<u8>,
    /// |gpu − interpreter| per channel, scaled ×8 and alpha forced to 255.
    pub difference: Vec<u8>,
}

/// The values substituted for transform constants the capture lacks (`docs/verify.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConstantFill {
    /// Every constant the capture lacks is (0, 0, 0, 0).
    Zeros,
    /// Every constant the capture lacks holds seeded random components in [-1, 1).
    Random,
}

impl ConstantFill {
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            ConstantFill::Zeros => "zeros",
            ConstantFill::Random => "random",
        }
    }
}

/// State the capture lacks (set before the captured frame) that a run substituted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Substitution {
    /// The fill of the constants the capture lacks; `None` when the program reads none.
    pub constants: Option<ConstantFill>,
    /// Seed of the random fill (`None` for zeros).
    pub seed: Option<u64>,
    /// Constant registers the capture lacks that the program read (with the zero fill),
    /// ascending.
    pub registers: Vec<usize>,
    /// Input attributes the capture holds no value for, read as RPCS3's replay reads them
    /// ((0, 0, 0, 1) for an attribute never set; `rsxtrace_capture::fetch::UNSET_ATTRIBUTE`).
    pub attributes: Vec<u8>,
}

impl Substitution {
    /// A short description for the table and the HTML report, e.g.
    /// `zeros: c[32], c[33]; attributes 6`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(fill) = self.constants {
            let regs: Vec<String> = self.registers.iter().map(|r| format!("c[{r}]")).collect();
            let seed = self
                .seed
                .map(|s| format!(" (seed {s})"))
                .unwrap_or_default();
            parts.push(format!("{}{seed}: {}", fill.name(), regs.join(", ")));
        }
        if !self.attributes.is_empty() {
            let a: Vec<String> = self.attributes.iter().map(|a| a.to_string()).collect();
            parts.push(format!("attributes {}", a.join(", ")));
        }
        parts.join("; ")
    }
}

/// One stage of one draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageReport {
    /// Stage.
    pub stage: Stage,
    /// Outcome.
    pub outcome: Outcome,
    /// Vertices (vertex stage) or pixels (fragment stage) compared.
    pub elements: usize,
    /// Pixels the draw covers when only a sample of them was compared (fragment stage).
    pub covered: Option<usize>,
    /// Per output register, ascending register order.
    pub registers: Vec<RegisterReport>,
    /// State the capture lacks that this run substituted (`null` when none): a draw whose
    /// program reads constants the capture lacks runs twice, zeros and random.
    pub substituted: Option<Substitution>,
    /// Images (fragment stage; HTML report only).
    #[serde(skip)]
    pub images: Option<StageImages>,
    /// The first divergent instruction at the worst element (`verify --explain-all`; absent
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<crate::explain::Explained>,
}

impl StageReport {
    /// A stage with no comparison.
    pub fn not_compared(stage: Stage, outcome: Outcome) -> StageReport {
        StageReport {
            stage,
            outcome,
            elements: 0,
            covered: None,
            registers: Vec::new(),
            substituted: None,
            images: None,
            explanation: None,
        }
    }

    /// A compared stage: diverged when a register has a diverged component, else clean.
    pub fn compared(stage: Stage, registers: Vec<RegisterReport>, elements: usize) -> StageReport {
        StageReport {
            stage,
            outcome: if registers.iter().any(|t| t.diverged > 0) {
                Outcome::Diverged
            } else {
                Outcome::Clean
            },
            elements,
            covered: None,
            registers,
            substituted: None,
            images: None,
            explanation: None,
        }
    }

    /// Diverged components over all registers.
    pub fn diverged(&self) -> u64 {
        self.registers.iter().map(|r| r.diverged).sum()
    }

    /// Ill-conditioned components over all registers.
    pub fn ill_conditioned(&self) -> u64 {
        self.registers.iter().map(|r| r.ill_conditioned).sum()
    }

    /// The register with the worst diverged component.
    pub fn worst_register(&self) -> Option<&RegisterReport> {
        self.registers
            .iter()
            .filter(|r| r.worst.as_ref().is_some_and(|w| w.diverged))
            .max_by(|a, b| {
                let s = |r: &RegisterReport| r.worst.as_ref().map_or(0.0, |w| w.error.score);
                s(a).total_cmp(&s(b))
            })
    }

    /// The worst diverged score of the stage (0 when nothing diverged).
    pub fn worst_score(&self) -> f64 {
        self.worst_register()
            .and_then(|r| r.worst.as_ref())
            .map_or(0.0, |w| w.error.score)
    }
}

/// One draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawReport {
    /// Draw index in the frame.
    pub draw: usize,
    /// Primitive name.
    pub primitive: String,
    /// Vertex count.
    pub vertex_count: u64,
    /// Stages verified, vertex first.
    pub stages: Vec<StageReport>,
}

impl DrawReport {
    /// Some stage diverged.
    pub fn diverged(&self) -> bool {
        self.stages.iter().any(|s| s.outcome == Outcome::Diverged)
    }
}

/// The first draw that diverges and what changed since the draw before it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirstDivergence {
    /// Draw index.
    pub draw: usize,
    /// Stage.
    pub stage: Stage,
    /// Worst register of that stage.
    pub register: Option<String>,
    /// The previous draw's index (null for draw 0).
    pub previous: Option<usize>,
    /// Summary keys whose values differ from the previous draw.
    pub changed: Vec<StateChange>,
}

/// The negative control's tally (`--mutate N`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MutationSummary {
    /// Seed of the random choices.
    pub seed: u64,
    /// Mutations asked for.
    pub requested: usize,
    /// Mutations made (a program decoded again and recompiled).
    pub applied: usize,
    /// Mutations the recompiler or the encoder refused (not counted further).
    pub rejected: usize,
    /// Mutations that change some output on the interpreter.
    pub effective: usize,
    /// Effective mutations that verify reported as divergent.
    pub detected: usize,
    /// Mutations reported as divergent although the interpreter's outputs did not change.
    pub detected_ineffective: usize,
    /// detected / effective (1 when nothing was effective).
    pub detection_rate: f64,
    /// One line per mutation.
    pub mutations: Vec<MutationRecord>,
}

/// One mutation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MutationRecord {
    /// Draw.
    pub draw: usize,
    /// Stage.
    pub stage: Stage,
    /// What was changed (slot, field, old and new value).
    pub change: String,
    /// `rejected`, `ineffective`, `detected` or `missed`.
    pub result: String,
}

/// Time spent per phase, summed over threads, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timings {
    /// Wall-clock time of the whole verification.
    pub wall_ms: f64,
    /// Decoding programs and fetching vertices.
    pub fetch_ms: f64,
    /// Interpreter runs (f32 and f64, both stages).
    pub interpreter_ms: f64,
    /// WGSL recompilation and pipeline creation.
    pub pipeline_ms: f64,
    /// GPU runs and readback.
    pub gpu_ms: f64,
    /// Rasterization of the fragment stage's inputs.
    pub raster_ms: f64,
    /// Comparison.
    pub compare_ms: f64,
}

/// Totals over the report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Draws verified.
    pub draws: usize,
    /// Stages by outcome.
    pub clean: usize,
    /// Diverged stages.
    pub diverged: usize,
    /// Skipped stages.
    pub skipped: usize,
    /// Failed stages.
    pub failed: usize,
    /// Ill-conditioned components.
    pub ill_conditioned: u64,
    /// Stages run with substituted state (counted in the outcomes above too).
    pub substituted: usize,
}

/// The whole verification.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VerifyReport {
    /// Schema version of the JSON form (`docs/verify.md`).
    pub schema: u32,
    /// The capture's name, as the caller gave it.
    pub capture: String,
    /// The shard verified (`"K/N"`), or null when all the selected draws were.
    pub shard: Option<String>,
    /// The device, as `GpuInfo` prints it.
    pub device: String,
    /// Tolerances in force.
    pub tolerances: Tolerances,
    /// The same as a `--tolerance` spec.
    pub tolerance_spec: String,
    /// Most pixels compared per draw.
    pub max_pixels: usize,
    /// Totals.
    pub totals: Totals,
    /// The first diverging draw.
    pub first_divergence: Option<FirstDivergence>,
    /// Per draw, in draw order.
    pub draws: Vec<DrawReport>,
    /// Negative control.
    pub mutation: Option<MutationSummary>,
    /// Timings.
    pub timings: Timings,
}

impl VerifyReport {
    /// Some stage diverged.
    pub fn diverged(&self) -> bool {
        self.totals.diverged > 0
    }

    /// Some stage failed.
    pub fn failed(&self) -> bool {
        self.totals.failed > 0
    }

    /// (draw, stage) of every diverged stage, worst first.
    pub fn worst_first(&self) -> Vec<(&DrawReport, &StageReport)> {
        let mut v: Vec<_> = self
            .draws
            .iter()
            .flat_map(|d| d.stages.iter().map(move |s| (d, s)))
            .filter(|(_, s)| s.outcome == Outcome::Diverged)
            .collect();
        v.sort_by(|a, b| {
            b.1.worst_score()
                .total_cmp(&a.1.worst_score())
                .then(a.0.draw.cmp(&b.0.draw))
        });
        v
    }

    /// Recompute [`Totals`] from the draws.
    pub fn recount(&mut self) {
        let mut t = Totals {
            draws: self.draws.len(),
            ..Totals::default()
        };
        for s in self.draws.iter().flat_map(|d| &d.stages) {
            match s.outcome {
                Outcome::Clean => t.clean += 1,
                Outcome::Diverged => t.diverged += 1,
                Outcome::Skipped { .. } => t.skipped += 1,
                Outcome::Failed { .. } => t.failed += 1,
            }
            t.ill_conditioned += s.ill_conditioned();
            t.substituted += usize::from(s.substituted.is_some());
        }
        self.totals = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutions_describe_fill_seed_registers_and_attributes() {
        let zeros = Substitution {
            constants: Some(ConstantFill::Zeros),
            seed: None,
            registers: vec![4, 32],
            attributes: vec![3],
        };
        assert_eq!(zeros.describe(), "zeros: c[4], c[32]; attributes 3");
        let random = Substitution {
            constants: Some(ConstantFill::Random),
            seed: Some(9),
            ..zeros.clone()
        };
        assert_eq!(
            random.describe(),
            "random (seed 9): c[4], c[32]; attributes 3"
        );
        let attributes_only = Substitution {
            attributes: vec![1, 7],
            ..Substitution::default()
        };
        assert_eq!(attributes_only.describe(), "attributes 1, 7");
        let json = serde_json::to_value(&random).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"constants": "random", "seed": 9, "registers": [4, 32],
                               "attributes": [3]})
        );
    }

    #[test]
    fn substituted_stages_are_counted() {
        let stage = |substituted: Option<Substitution>| StageReport {
            substituted,
            ..StageReport::not_compared(Stage::Vertex, Outcome::Clean)
        };
        let mut report = VerifyReport {
            schema: 1,
            capture: String::new(),
            shard: None,
            device: String::new(),
            tolerances: Tolerances::default(),
            tolerance_spec: String::new(),
            max_pixels: 1,
            totals: Totals::default(),
            first_divergence: None,
            draws: vec![DrawReport {
                draw: 0,
                primitive: "triangles".into(),
                vertex_count: 3,
                stages: vec![stage(None), stage(Some(Substitution::default()))],
            }],
            mutation: None,
            timings: Timings::default(),
        };
        report.recount();
        assert_eq!((report.totals.clean, report.totals.substituted), (2, 1));
    }
}
