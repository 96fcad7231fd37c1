//! One vertex of a draw explained: the invocation verify runs for that vertex
//! ([`crate::invocation::draw_vertex`]: its attributes, the draw's constants and branch bits)
//! through the instrumented module on the device (that one vertex) and through the
//! interpreter's vertex trace, in f32 and f64; the steps compared by [`super::align`].
//!
//! The interpreter's trace lists the registers whose value changed; a running register file
//! built from those changes gives, after every step, the values of the registers the
//! instruction writes (`record::destinations`), which is what the device records.

use super::align::{first_divergence, DeviceStep, FlowSite, ReferenceStep};
use super::{wgsl_lines, DivergenceKind, Explanation, Invocation, RECORD_CAPACITY};
use crate::divergence::clock::Phase;
use crate::divergence::context::Context;
use crate::divergence::tolerance::Class;
use crate::divergence::vertex_stage::{interp_options, upload_vertex_textures};
use crate::invocation::draw_vertex;
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::vertex::{decode_instruction, VertexInstruction, VertexProgram};
use rsxtrace_replay::interp::vertex::trace::{trace_vertex, VertexStep};
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::wgsl::vertex::record::{self, Destination};
use rsxtrace_replay::wgsl::vertex::{translate_instrumented, translate_textured};
use std::collections::HashMap;

/// Explains vertex `k` (processing order) of draw `draw`. The interpreter runs the captured
/// program; the device runs `device_program` (a mutation of the negative control) or else
/// the captured program as verify's test-only hook edits it (`cx.vertex_hook`).
pub fn explain_vertex(
    frame: &Frame,
    draw: usize,
    k: usize,
    device_program: Option<&VertexProgram>,
    cx: &Context<'_>,
) -> Result<Explanation, String> {
    let (vi, k) = draw_vertex(frame, draw, k)?;
    let device_program = match device_program {
        Some(p) => p.clone(),
        None => {
            let mut p = vi.program.clone();
            if let Some(hook) = cx.vertex_hook {
                hook(draw, &mut p);
            }
            p
        }
    };
    let rules = interp_options(Arithmetic::F32).rules;
    let state = vi.texture_state();
    let plain = translate_textured(&device_program, &vi.memory_words, &rules, &state)
        .map_err(|e| format!("vertex program not recompiled: {e}"))?;
    let instrumented = translate_instrumented(&device_program, &vi.memory_words, &rules, &state)
        .map_err(|e| format!("instrumented vertex program: {e}"))?;
    let input = vi
        .inputs
        .get(k)
        .ok_or_else(|| format!("draw {draw}: no vertex {k}"))?;
    let (_, words) = cx
        .on_gpu(Phase::Gpu, |gpu| {
            let uploaded = upload_vertex_textures(gpu, &vi)?;
            gpu.run_vertex_trace(
                &instrumented,
                &vi.constants,
                input,
                vi.branch_bits,
                std::array::from_fn(|u| uploaded[u].as_ref()),
                RECORD_CAPACITY,
            )
        })
        .map_err(|e| format!("GPU vp_compute (instrumented): {e}"))?;
    let recording = record::decode(&words).map_err(|e| format!("record buffer: {e}"))?;
    let device_at = |slot: u32| instruction(&device_program, &vi.memory_words, slot);
    let device: Vec<DeviceStep> = recording
        .records
        .iter()
        .map(|r| {
            let names = device_at(r.slot)
                .map(|i| record::destinations(&i))
                .unwrap_or_default();
            DeviceStep {
                slot: r.slot,
                writes: names
                    .iter()
                    .zip(&r.values)
                    .map(|(d, w)| (d.name(), d.values(*w).map(|v| v as f32)))
                    .collect(),
            }
        })
        .collect();
    let env = vi.environment();
    let run = |arithmetic| {
        let options = interp_options(arithmetic);
        trace_vertex(&vi.program, &vi.memory_words, &env, input, &options)
            .map(|t| reference_steps(&vi.program, &vi.memory_words, &t.steps))
            .map_err(|e| format!("vertex interpreter: {e}"))
    };
    let reference = run(Arithmetic::F32)?;
    let reference_f64 = run(Arithmetic::F64).unwrap_or_default();
    let truncated = recording.truncated();
    let compared = if truncated {
        &reference[..reference.len().min(device.len())]
    } else {
        &reference[..]
    };
    let flows: Vec<FlowSite> = vi
        .program
        .instructions
        .iter()
        .filter(|i| i.scalar.is_flow())
        .map(|i| FlowSite {
            slot: i.slot as u32,
            loop_end: None,
        })
        .collect();
    let (matched, mut divergence) =
        first_divergence(&device, compared, &reference_f64, &flows, &cx.tolerances);
    if let Some(d) = &mut divergence {
        // A branch is itself a step: when the walks part right after one, it decided.
        if matches!(d.kind, DivergenceKind::Flow | DivergenceKind::Length) {
            if let Some(last) = matched.checked_sub(1).and_then(|p| compared.get(p)) {
                let branch = instruction(&vi.program, &vi.memory_words, last.slot)
                    .is_some_and(|i| i.scalar.is_flow());
                if branch {
                    d.flow_slot = Some(last.slot);
                }
            }
        }
        d.disassembly = text(device_at(d.slot), d.slot);
        d.reference_disassembly = d
            .reference_slot
            .filter(|s| *s != d.slot)
            .map(|s| text(instruction(&vi.program, &vi.memory_words, s), s));
        d.wgsl = wgsl_lines::for_marker(&plain.source, &wgsl_lines::vertex_marker(d.slot));
    }
    Ok(Explanation {
        draw,
        stage: "vertex",
        invocation: Invocation::Vertex(k),
        steps_matched: matched,
        gpu_steps: recording.count,
        reference_steps: reference.len(),
        truncated,
        divergence,
    })
}

/// The instruction at `slot`: the program's, else decoded from transform program memory (as
/// the interpreter's slot table does).
fn instruction(program: &VertexProgram, memory: &[u32], slot: u32) -> Option<VertexInstruction> {
    let slot = slot as usize;
    if let Some(i) = program.instructions.iter().find(|i| i.slot == slot) {
        return Some(*i);
    }
    let words: [u32; 4] = memory.get(slot * 4..slot * 4 + 4)?.try_into().ok()?;
    decode_instruction(words, slot).ok()
}

fn text(i: Option<VertexInstruction>, slot: u32) -> String {
    i.map_or_else(|| format!("{slot:03}: (no instruction)"), |i| i.to_string())
}

/// The interpreter's steps with the values, after each, of the registers its instruction
/// writes (from a register file kept up to date with the trace's changes).
fn reference_steps(
    program: &VertexProgram,
    memory: &[u32],
    steps: &[VertexStep],
) -> Vec<ReferenceStep> {
    let mut file: HashMap<String, [f64; 4]> = HashMap::new();
    steps
        .iter()
        .map(|s| {
            for (name, v) in &s.changed {
                file.insert(name.clone(), *v);
            }
            let slot = s.slot as u32;
            let dests = instruction(program, memory, slot)
                .map(|i| record::destinations(&i))
                .unwrap_or_default();
            let writes = dests
                .iter()
                .map(|d| {
                    let name = d.name();
                    let initial = match d {
                        Destination::Output(_) => [0.0, 0.0, 0.0, 1.0],
                        _ => [0.0; 4],
                    };
                    let v = file.get(&name).copied().unwrap_or(initial);
                    (name, v, Class::Fp32)
                })
                .collect();
            ReferenceStep { slot, writes }
        })
        .collect()
}
