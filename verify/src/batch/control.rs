//! The batch's negative control (`--mutate N`): as in `verify`, one random field of a decoded
//! program is changed on the device side only, over a sample of the proven programs, and the
//! detection rate (detected over effective changes) says how sharp the check is.

use super::catalog::Entry;
use super::check::{vertex_interp, Decoded};
use super::inputs::fragment_quads;
use super::textures::patterns;
use crate::divergence::context::Context;
use crate::divergence::fragment_stage::{self, baseline_of, Rasterized};
use crate::divergence::mutate::{
    count_verdict, finish, mutate_fragment, mutate_vertex, vertex_effective, XorShift,
};
use crate::divergence::report::model::{MutationRecord, MutationSummary, Outcome};
use crate::divergence::vertex_stage;
use rsxtrace_capture::frame::state::ShaderControl;
use rsxtrace_replay::interp::Arithmetic;

/// One candidate: the program's index in the batch, its entry and decoded program.
pub type Candidate<'a> = (usize, &'a Entry, &'a Decoded);

/// The mutation's (effective, detected), or `None` when it cannot be judged (no
/// representable change, or the device side is skipped).
fn judge(
    entry: &Entry,
    decoded: &Decoded,
    rng: &mut XorShift,
    cx: &Context<'_>,
) -> Result<(String, bool, bool), String> {
    match decoded {
        Decoded::Vertex(program, words) => {
            let mut vi = vertex_interp(entry, program.clone(), words.clone());
            vi.f32_out = vertex_stage::interpret(&vi, program, Arithmetic::F32)
                .map_err(|e| e.to_string())?;
            vi.f64_out = vertex_stage::interpret(&vi, program, Arithmetic::F64)
                .map_err(|e| e.to_string())?;
            let mut p = program.clone();
            let change = mutate_vertex(&mut p, rng).ok_or("no representable change")?;
            let effective = vertex_effective(&vi, &p, cx);
            let detected = match vertex_stage::run_gpu(&vi, &p, cx, cx.pipelines_of(true)) {
                Ok(r) => vertex_stage::compare(&vi, &r, cx).outcome != Outcome::Clean,
                Err(Outcome::Skipped { reason }) => return Err(reason),
                Err(_) => true,
            };
            Ok((change, effective, detected))
        }
        Decoded::Fragment(program) => {
            let dims = entry.state.as_ref().map(|s| s.fp_texture_dimensions);
            let shadow = entry.state.as_ref().map_or(0, |s| s.fp_shadow_textures);
            let textures = patterns(entry.key, program.texture_units_read(), dims, shadow)?;
            let quads = fragment_quads(entry.key);
            let n = quads.len() * 4;
            let raster = Rasterized {
                quads,
                covered: n,
                kept: n,
            };
            let control = ShaderControl::from_raw(entry.control);
            let base = baseline_of(program.clone(), control, raster, textures)
                .ok_or("the interpreter does not run the program")?;
            let mut p = program.clone();
            let change = mutate_fragment(&mut p, rng).ok_or("no representable change")?;
            match fragment_stage::mutation_effect(control, &base, &p, cx) {
                Ok((effective, detected)) => Ok((change, effective, detected)),
                Err(Outcome::Skipped { reason }) => Err(reason),
                Err(_) => Ok((change, true, true)),
            }
        }
    }
}

/// `mutations` mutations over `candidates` (chosen at random with `seed`).
pub fn negative_control(
    candidates: &[Candidate<'_>],
    mutations: usize,
    seed: u64,
    cx: &Context<'_>,
) -> MutationSummary {
    let mut summary = MutationSummary {
        seed,
        requested: mutations,
        ..MutationSummary::default()
    };
    let mut rng = XorShift::new(seed);
    for _ in 0..mutations {
        let Some(&(index, entry, decoded)) = candidates.get(rng.below(candidates.len())) else {
            break;
        };
        let stage = entry.stage;
        let (change, result) = match judge(entry, decoded, &mut rng, cx) {
            Ok((change, effective, detected)) => {
                (change, count_verdict(&mut summary, effective, detected))
            }
            Err(why) => {
                summary.rejected += 1;
                (why, "rejected")
            }
        };
        summary.mutations.push(MutationRecord {
            draw: index,
            stage,
            change,
            result: result.to_string(),
        });
    }
    finish(&mut summary);
    summary
}
