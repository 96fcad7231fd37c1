//! Per-phase time accumulators shared by the threads of one verification (nanoseconds in
//! atomics), turned into the report's [`Timings`].

use super::report::model::Timings;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A phase of the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Decoding programs, fetching vertices, decoding textures.
    Fetch,
    /// Interpreter runs.
    Interpreter,
    /// Recompilation and pipeline creation.
    Pipeline,
    /// GPU runs and readback.
    Gpu,
    /// Rasterization.
    Raster,
    /// Comparison.
    Compare,
}

/// Accumulated nanoseconds per phase.
#[derive(Debug, Default)]
pub struct Clock {
    phases: [AtomicU64; 6],
}

impl Clock {
    /// Run `f`, adding its duration to `phase`.
    pub fn time<T>(&self, phase: Phase, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.phases[phase as usize].fetch_add(ns, Ordering::Relaxed);
        out
    }

    fn ms(&self, phase: Phase) -> f64 {
        self.phases[phase as usize].load(Ordering::Relaxed) as f64 / 1e6
    }

    /// The report form, with the wall-clock time `wall_ms`.
    pub fn timings(&self, wall_ms: f64) -> Timings {
        Timings {
            wall_ms,
            fetch_ms: self.ms(Phase::Fetch),
            interpreter_ms: self.ms(Phase::Interpreter),
            pipeline_ms: self.ms(Phase::Pipeline),
            gpu_ms: self.ms(Phase::Gpu),
            raster_ms: self.ms(Phase::Raster),
            compare_ms: self.ms(Phase::Compare),
        }
    }
}
