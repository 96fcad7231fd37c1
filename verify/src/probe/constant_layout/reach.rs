//! Which entries of a palette the draws' vertices reach: each distinct vertex of each draw
//! run through the reference interpreter's trace (`trace_vertex`), the address registers
//! followed step by step, and at every instruction that reads `c[An.c + base]` the value
//! `An.c` held before it (both units see the registers as they were before the instruction,
//! rsx-microcode.md B.8, as the interpreter runs it).

use super::reads::ConstantRead;
use crate::divergence::clock::Clock;
use crate::divergence::report::model::Outcome;
use crate::divergence::vertex_stage::{interp_options, vertex_inputs};
use rsxtrace_capture::frame::Frame;
use rsxtrace_replay::interp::vertex::trace::trace_vertex;
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::texture::cache::TextureCache;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// What the traced vertices did with the address registers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reach {
    /// Per address register and component, every value it held at a relative read.
    pub values: BTreeMap<(u8, char), BTreeSet<i32>>,
    /// Vertices traced.
    pub vertices: usize,
    /// Draws whose vertices could not be traced, with why.
    pub failed: Vec<(usize, String)>,
    /// Whether the vertex budget stopped the tracing before every vertex.
    pub limited: bool,
}

/// Trace up to `budget` distinct vertices of `draws` (all running one program) and collect
/// the address values at the relative reads among `reads`.
pub fn reach(frame: &Frame, draws: &[usize], reads: &[ConstantRead], budget: usize) -> Reach {
    let mut out = Reach::default();
    let relative: Vec<&ConstantRead> = reads
        .iter()
        .filter(|r| r.register.relative.is_some())
        .collect();
    if relative.is_empty() {
        return out;
    }
    let (clock, cache) = (Clock::default(), TextureCache::default());
    let options = interp_options(Arithmetic::F32);
    'draws: for &draw in draws {
        // The inputs alone: the interpreter's own runs are not needed here.
        let vi = match vertex_inputs(frame, draw, &clock, &cache) {
            Ok((vi, _)) => vi,
            Err(outcome) => {
                let why = match outcome {
                    Outcome::Skipped { reason } => reason,
                    Outcome::Failed { error } => error,
                    other => other.name().to_string(),
                };
                out.failed.push((draw, why));
                continue;
            }
        };
        let env = vi.environment();
        let mut seen = HashSet::new();
        for (position, input) in vi.inputs.iter().enumerate() {
            let index = vi.indices.get(position).copied().unwrap_or(position as u32);
            if !seen.insert(index) {
                continue;
            }
            if out.vertices >= budget {
                out.limited = true;
                break 'draws;
            }
            out.vertices += 1;
            let trace = match trace_vertex(&vi.program, &vi.memory_words, &env, input, &options) {
                Ok(t) => t,
                Err(e) => {
                    out.failed.push((draw, e.to_string()));
                    continue 'draws;
                }
            };
            let mut address = [[0i32; 4]; 2];
            for step in &trace.steps {
                for r in relative.iter().filter(|r| r.slot == step.slot) {
                    if let Some((n, c)) = r.register.relative {
                        let component = "xyzw".find(c).unwrap_or(0);
                        let value = address[usize::from(n & 1)][component];
                        out.values.entry((n, c)).or_default().insert(value);
                    }
                }
                for (name, value) in &step.changed {
                    let n = match name.as_str() {
                        "A0" => 0,
                        "A1" => 1,
                        _ => continue,
                    };
                    address[n] = value.map(|v| v as i32);
                }
            }
        }
    }
    out
}
