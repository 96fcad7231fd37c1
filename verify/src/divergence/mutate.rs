//! The negative control (`--mutate N`): N times, one random field of one instruction of a
//! clean draw's decoded program is changed, the program is re-encoded with
//! `rsxtrace_program::{vertex,fragment}::encode` and decoded again (a mutation the encoding
//! cannot hold is rejected), and only the GPU side runs the mutated program. A mutation is
//! *effective* when the interpreter's outputs of the mutated program differ from the
//! original's beyond tolerance (or the interpreter fails on it), and *detected* when the
//! stage's comparison reports a divergence (or the GPU side fails). The detection rate is
//! detected effective mutations over effective mutations.
//!
//! Random choices come from a seeded xorshift64* generator ([`XorShift`]), so a seed
//! reproduces the same mutations on the same capture.

use super::compare::{RegisterTally, Sample};
use super::context::Context;
use super::fragment_stage::{self, FragmentBaseline};
use super::report::model::{DrawReport, MutationRecord, MutationSummary, Outcome, Stage};
use super::run::VerifyOptions;
use super::tolerance::Class;
use super::vertex_stage::{self, Prepared, VertexInterp};
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::fragment::{self, FragmentProgram, Operands};
use rsxtrace_program::vertex::{
    decode_instruction, encode_instruction, Component, OutputRegister, ScalarOpcode, VectorOpcode,
    VertexProgram,
};
use rsxtrace_replay::interp::vertex::OUTPUT_COUNT;
use rsxtrace_replay::interp::Arithmetic;
use std::collections::HashMap;
use std::ops::Range;

/// xorshift64* (Marsaglia 2003, Vigna 2016): small, seedable, good enough for choosing.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator; seed 0 is replaced by a fixed non-zero constant.
    pub fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

const COMPONENTS: [Component; 4] = [Component::X, Component::Y, Component::Z, Component::W];

fn component_name(c: Component) -> char {
    match c {
        Component::X => 'x',
        Component::Y => 'y',
        Component::Z => 'z',
        Component::W => 'w',
    }
}

/// Change one random field of one random instruction of `p`; the description, or `None`
/// when the program is empty or the re-encoded instruction does not decode.
pub fn mutate_vertex(p: &mut VertexProgram, rng: &mut XorShift) -> Option<String> {
    let n = p.instructions.len();
    if n == 0 {
        return None;
    }
    let i = rng.below(n);
    let mut insn = *p.instructions.get(i)?;
    let slot = insn.slot;
    let s = rng.below(3);
    let k = rng.below(4);
    let change = match rng.below(11) {
        0 => {
            let old = insn.vector;
            insn.vector = VectorOpcode::ALL[rng.below(VectorOpcode::ALL.len())];
            format!("vector opcode {old:?} -> {:?}", insn.vector)
        }
        1 => {
            let old = insn.scalar;
            insn.scalar = ScalarOpcode::ALL[rng.below(ScalarOpcode::ALL.len())];
            format!("scalar opcode {old:?} -> {:?}", insn.scalar)
        }
        2 => {
            insn.vec_mask.0 ^= 1 << k;
            format!("vector write mask bit {k} flipped")
        }
        3 => {
            insn.sca_mask.0 ^= 1 << k;
            format!("scalar write mask bit {k} flipped")
        }
        4 => {
            let old = insn.sources[s].swizzle.0[k];
            let new = COMPONENTS
                [(COMPONENTS.iter().position(|c| *c == old).unwrap_or(0) + 1 + rng.below(3)) % 4];
            insn.sources[s].swizzle.0[k] = new;
            format!(
                "src{s} swizzle component {k} {} -> {}",
                component_name(old),
                component_name(new)
            )
        }
        5 => {
            insn.sources[s].negate ^= true;
            format!("src{s} negate flipped")
        }
        6 => {
            insn.sources[s].abs ^= true;
            format!("src{s} abs flipped")
        }
        7 => {
            let old = insn.const_index;
            insn.const_index = old.wrapping_add(1 + rng.below(3) as u16) % 468;
            format!("constant index {old} -> {}", insn.const_index)
        }
        8 => {
            let old = insn.input.0;
            insn.input.0 = old.wrapping_add(1 + rng.below(15) as u8) % 16;
            format!("input attribute {old} -> {}", insn.input.0)
        }
        9 => {
            let old = insn.output;
            insn.output = Some(OutputRegister(rng.below(OUTPUT_COUNT) as u8));
            format!("output register {old:?} -> {:?}", insn.output)
        }
        _ => {
            insn.saturate ^= true;
            "saturate flipped".to_string()
        }
    };
    let decoded = decode_instruction(encode_instruction(&insn), slot).ok()?;
    if decoded == p.instructions[i] {
        return None;
    }
    p.instructions[i] = decoded;
    Some(format!("slot {slot}: {change}"))
}

/// Change one random field of one random ALU instruction of `p` (re-encoded and decoded
/// again); the description, or `None` when there is none or the result does not decode.
pub fn mutate_fragment(p: &mut FragmentProgram, rng: &mut XorShift) -> Option<String> {
    let alu: Vec<usize> = (0..p.instructions.len())
        .filter(|&i| matches!(p.instructions[i].operands, Operands::Alu(_)))
        .collect();
    let i = *alu.get(rng.below(alu.len()))?;
    let mut q = p.clone();
    let insn = q.instructions.get_mut(i)?;
    let slot = insn.slot;
    let s = rng.below(3);
    let k = rng.below(4);
    let change = match rng.below(9) {
        0 => {
            let old = insn.opcode;
            insn.opcode = fragment::FpOpcode::ALL[rng.below(fragment::FpOpcode::ALL.len())];
            format!("opcode {old:?} -> {:?}", insn.opcode)
        }
        1 => {
            insn.dest.mask.0 ^= 1 << k;
            format!("write mask bit {k} flipped")
        }
        2 => {
            insn.dest.saturate ^= true;
            "saturate flipped".to_string()
        }
        3 => {
            let old = insn.dest.index;
            insn.dest.index = old.wrapping_add(1 + rng.below(3) as u8) % 48;
            format!("destination register {old} -> {}", insn.dest.index)
        }
        4 => {
            let Operands::Alu(a) = &mut insn.operands else {
                return None;
            };
            let old = a.sources[s].swizzle.0[k];
            let new = (old + 1 + rng.below(3) as u8) % 4;
            a.sources[s].swizzle.0[k] = new;
            format!("src{s} swizzle component {k} {old} -> {new}")
        }
        5 => {
            let Operands::Alu(a) = &mut insn.operands else {
                return None;
            };
            a.sources[s].negate ^= true;
            format!("src{s} negate flipped")
        }
        6 => {
            let Operands::Alu(a) = &mut insn.operands else {
                return None;
            };
            a.sources[s].abs ^= true;
            format!("src{s} abs flipped")
        }
        7 => {
            let old = insn.input.0;
            insn.input.0 = old.wrapping_add(1 + rng.below(14) as u8) % 15;
            format!("input attribute {old} -> {}", insn.input.0)
        }
        _ => match &mut insn.constant {
            Some(c) => {
                let bit = 16 + rng.below(14) as u32;
                c.0[k] ^= 1 << bit;
                format!("inline constant component {k} bit {bit} flipped")
            }
            None => {
                insn.dest.saturate ^= true;
                "saturate flipped".to_string()
            }
        },
    };
    let decoded = fragment::decode(&fragment::encode(&q)).ok()?;
    if decoded == *p {
        return None;
    }
    *p = decoded;
    Some(format!("slot {slot}: {change}"))
}

/// The interpreter's outputs of a mutated vertex program differ from the original's.
pub fn vertex_effective(vi: &VertexInterp, mutated: &VertexProgram, cx: &Context<'_>) -> bool {
    let Ok(lanes) = vertex_stage::interpret(vi, mutated, Arithmetic::F32) else {
        return true;
    };
    if lanes.len() != vi.f32_out.len() {
        return true;
    }
    let mask = lanes
        .iter()
        .chain(&vi.f32_out)
        .fold(0u16, |m, l| m | l.written);
    (0..OUTPUT_COUNT)
        .filter(|r| mask & (1 << r) != 0)
        .any(|reg| {
            let mut t = RegisterTally::new("", Class::Fp32);
            for (v, ((m, a), b)) in lanes.iter().zip(&vi.f32_out).zip(&vi.f64_out).enumerate() {
                for c in 0..4 {
                    t.add(
                        Sample {
                            element: v,
                            pixel: None,
                            component: c,
                            gpu: m.registers[reg][c] as f32,
                            reference: a.registers[reg][c] as f32,
                            reference_f64: b.registers[reg][c],
                            perturbed: [None; super::compare::PERTURBED_RUNS],
                        },
                        &cx.tolerances,
                    );
                }
            }
            t.diverged > 0
        })
}

/// Run the negative control over the clean stages of `draws` (the draws of `range`).
pub fn negative_control(
    frame: &Frame,
    range: &Range<usize>,
    options: &VerifyOptions,
    draws: &[DrawReport],
    cx: &Context<'_>,
) -> MutationSummary {
    let mut summary = MutationSummary {
        seed: options.seed,
        requested: options.mutate,
        ..MutationSummary::default()
    };
    let candidates: Vec<(usize, Stage)> = draws
        .iter()
        .filter(|d| range.contains(&d.draw))
        .flat_map(|d| {
            d.stages
                .iter()
                .filter(|s| s.outcome == Outcome::Clean)
                .map(move |s| (d.draw, s.stage))
        })
        .collect();
    let mut rng = XorShift::new(options.seed);
    let mut vertex_cache: HashMap<usize, Option<Box<VertexInterp>>> = HashMap::new();
    let mut fragment_cache: HashMap<usize, Option<FragmentBaseline>> = HashMap::new();
    for _ in 0..options.mutate {
        let Some(&(draw, stage)) = candidates.get(rng.below(candidates.len())) else {
            break;
        };
        let vi = vertex_cache.entry(draw).or_insert_with(|| {
            match vertex_stage::prepare(frame, draw, cx) {
                Prepared::Ready(vi) => Some(vi),
                Prepared::NotCompared(_) => None,
            }
        });
        let Some(vi) = vi.as_deref() else {
            summary.rejected += 1;
            continue;
        };
        let mut record = |change: String, result: &str| {
            summary.mutations.push(MutationRecord {
                draw,
                stage,
                change,
                result: result.to_string(),
            })
        };
        let verdict = match stage {
            Stage::Vertex => {
                let mut p = vi.program.clone();
                let Some(change) = mutate_vertex(&mut p, &mut rng) else {
                    record("no representable change".to_string(), "rejected");
                    summary.rejected += 1;
                    continue;
                };
                let effective = vertex_effective(vi, &p, cx);
                let detected = match vertex_stage::run_gpu(vi, &p, cx, cx.pipelines_of(true)) {
                    Ok(results) => {
                        vertex_stage::compare(vi, &results, cx).outcome != Outcome::Clean
                    }
                    Err(Outcome::Skipped { .. }) => {
                        record(change, "rejected");
                        summary.rejected += 1;
                        continue;
                    }
                    Err(_) => true,
                };
                (change, effective, detected)
            }
            Stage::Fragment => {
                let Some(d) = frame.draws.get(draw) else {
                    continue;
                };
                let base = fragment_cache
                    .entry(draw)
                    .or_insert_with(|| fragment_stage::baseline(frame, vi, cx));
                let Some(base) = base.as_ref() else {
                    summary.rejected += 1;
                    continue;
                };
                let mut p = base.program.clone();
                let Some(change) = mutate_fragment(&mut p, &mut rng) else {
                    record("no representable change".to_string(), "rejected");
                    summary.rejected += 1;
                    continue;
                };
                match fragment_stage::mutation_effect(d.shader_control, base, &p, cx) {
                    Ok((effective, detected)) => (change, effective, detected),
                    Err(Outcome::Skipped { .. }) => {
                        record(change, "rejected");
                        summary.rejected += 1;
                        continue;
                    }
                    Err(_) => (change, true, true),
                }
            }
        };
        let (change, effective, detected) = verdict;
        let result = count_verdict(&mut summary, effective, detected);
        summary.mutations.push(MutationRecord {
            draw,
            stage,
            change,
            result: result.to_string(),
        });
    }
    finish(&mut summary);
    summary
}

/// Counts one applied mutation in `summary` and names its result: `detected`, `missed`,
/// `detected_ineffective` (the interpreter's outputs did not change but the device's did) or
/// `ineffective`.
pub fn count_verdict(
    summary: &mut MutationSummary,
    effective: bool,
    detected: bool,
) -> &'static str {
    summary.applied += 1;
    match (effective, detected) {
        (true, true) => {
            summary.effective += 1;
            summary.detected += 1;
            "detected"
        }
        (true, false) => {
            summary.effective += 1;
            "missed"
        }
        (false, true) => {
            summary.detected_ineffective += 1;
            "detected_ineffective"
        }
        (false, false) => "ineffective",
    }
}

/// Sets the detection rate: detected over effective mutations (1 when none was effective).
pub fn finish(summary: &mut MutationSummary) {
    summary.detection_rate = if summary.effective == 0 {
        1.0
    } else {
        summary.detected as f64 / summary.effective as f64
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift_is_seeded_and_bounded() {
        let mut a = XorShift::new(7);
        let mut b = XorShift::new(7);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs[0], xs[1]);
        let mut c = XorShift::new(0);
        let mut seen = [false; 5];
        for _ in 0..200 {
            let v = c.below(5);
            assert!(v < 5);
            seen[v] = true;
        }
        assert!(seen.iter().all(|&s| s), "{seen:?}");
        assert_eq!(c.below(0), 0);
    }

    /// MOV o[HPOS], v[0]; END (the ps3autotests cube VP slot, rsx-microcode.md B.8).
    fn mov_program() -> VertexProgram {
        rsxtrace_program::vertex::decode_words(&[0x401f9c6c, 0x0040000d, 0x8106c083, 0x6041ff81])
            .unwrap()
    }

    #[test]
    fn vertex_mutations_change_exactly_one_instruction_and_say_how() {
        let original = mov_program();
        let mut rng = XorShift::new(3);
        let mut made = 0;
        for _ in 0..50 {
            let mut p = original.clone();
            if let Some(what) = mutate_vertex(&mut p, &mut rng) {
                made += 1;
                assert_ne!(p, original, "{what}");
                assert!(what.starts_with("slot 0: "), "{what}");
                assert_eq!(p.instructions.len(), 1);
            } else {
                assert_eq!(p, original);
            }
        }
        assert!(made > 30, "{made} of 50 mutations applied");
    }

    #[test]
    fn fragment_mutations_round_trip_through_the_encoder() {
        // MOV R0, f[COL0]; END (rsx-microcode.md B.1, primitives.fpo).
        let original = fragment::decode(&[
            0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00,
            0x3f, 0xe1,
        ])
        .unwrap();
        let mut rng = XorShift::new(11);
        let mut made = 0;
        for _ in 0..50 {
            let mut p = original.clone();
            if let Some(what) = mutate_fragment(&mut p, &mut rng) {
                made += 1;
                assert_ne!(p, original, "{what}");
                assert_eq!(fragment::decode(&fragment::encode(&p)).unwrap(), p);
            }
        }
        assert!(made > 20, "{made} of 50 mutations applied");
    }
}
