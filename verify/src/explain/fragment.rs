//! One pixel of a draw explained: the invocation verify runs at that pixel
//! ([`crate::invocation::draw_pixel`]), its quad through the instrumented module on the device
//! (a 2×2 image, so derivatives are the quad's own) and through the interpreter's trace, in
//! f32 and f64; the steps compared by [`super::align`].

use super::align::{first_divergence, DeviceStep, FlowSite, ReferenceStep};
use super::{wgsl_lines, Explanation, Invocation, RECORD_CAPACITY};
use crate::divergence::clock::Phase;
use crate::divergence::context::Context;
use crate::divergence::tolerance::Class;
use crate::invocation::draw_pixel;
use rsxtrace_capture::frame::Frame;
use rsxtrace_program::fragment::{FlowKind, FpOpcode, FragmentInstruction, FragmentProgram};
use rsxtrace_replay::interp::fragment::trace::{trace_quad, Step};
use rsxtrace_replay::interp::fragment::FragmentState;
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::wgsl::fragment::record::{self, Record};
use rsxtrace_replay::wgsl::fragment::{translate, FragmentTranslateOptions};

/// Explains pixel (`x`, `y`) of draw `draw` (window coordinates, as verify reports pixels).
/// The interpreter runs the captured program; the device runs `device_program` (a mutation
/// of the negative control) or else the captured program as verify's test-only hooks edit it
/// (`cx.fragment_hook`), translated with the options `cx.fragment_options_hook` gives.
pub fn explain_pixel(
    frame: &Frame,
    draw: usize,
    (x, y): (u32, u32),
    device_program: Option<&FragmentProgram>,
    cx: &Context<'_>,
) -> Result<Explanation, String> {
    let inv = draw_pixel(frame, draw, (x, y))?;
    let device_program = match device_program {
        Some(p) => p.clone(),
        None => {
            let mut p = inv.program.clone();
            if let Some(hook) = cx.fragment_hook {
                hook(draw, &mut p);
            }
            p
        }
    };
    let mut options = FragmentTranslateOptions {
        texture_dims: inv.device.dims,
        texture_lod: inv.device.lod,
        ..FragmentTranslateOptions::with_control(inv.control)
    };
    if let Some(hook) = cx.fragment_options_hook {
        hook(draw, &mut options);
    }
    let plain = translate(&device_program, &options)
        .map_err(|e| format!("fragment program not recompiled: {e}"))?;
    let instrumented = translate(
        &device_program,
        &FragmentTranslateOptions {
            instrument: true,
            ..options
        },
    )
    .map_err(|e| format!("instrumented fragment program: {e}"))?;
    let image: Vec<_> = inv.quad.lanes.iter().map(|l| l.attributes).collect();
    let target = ((inv.lane & 1) as u32, (inv.lane >> 1) as u32);
    let (_, words) = cx
        .on_gpu(Phase::Gpu, |gpu| {
            gpu.run_fragment_trace(
                &instrumented,
                (2, 2),
                &image,
                &inv.device.gpu,
                target,
                RECORD_CAPACITY,
            )
        })
        .map_err(|e| format!("GPU fp_eval (instrumented): {e}"))?;
    let recording = record::decode(&words).map_err(|e| format!("record buffer: {e}"))?;
    let device: Vec<DeviceStep> = recording
        .records
        .iter()
        .map(|r| device_step(&device_program, r))
        .collect();

    let run = |arithmetic| {
        let mut state = FragmentState::new(inv.control);
        state.options.arithmetic = arithmetic;
        trace_quad(&inv.program, &state, &inv.quad, &inv.sampler)
            .map(|t| reference_steps(&inv.program, &t.steps, inv.lane))
            .map_err(|e| format!("fragment interpreter: {e}"))
    };
    let reference = run(Arithmetic::F32)?;
    let reference_f64 = run(Arithmetic::F64).unwrap_or_default();
    let flows = flow_sites(&inv.program);
    let truncated = recording.truncated();
    let compared = if truncated {
        &reference[..reference.len().min(device.len())]
    } else {
        &reference[..]
    };
    let (matched, mut divergence) =
        first_divergence(&device, compared, &reference_f64, &flows, &cx.tolerances);
    if let Some(d) = &mut divergence {
        d.disassembly = instruction_text(&device_program, d.slot);
        d.reference_disassembly = d
            .reference_slot
            .filter(|s| *s != d.slot)
            .map(|s| instruction_text(&inv.program, s));
        d.wgsl = wgsl_lines::for_marker(&plain.source, &wgsl_lines::fragment_marker(d.slot));
    }
    Ok(Explanation {
        draw,
        stage: "fragment",
        invocation: Invocation::Pixel([x, y]),
        steps_matched: matched,
        gpu_steps: recording.count,
        reference_steps: reference.len(),
        truncated,
        divergence,
    })
}

/// The disassembly of the instruction at `slot`.
fn instruction_text(program: &FragmentProgram, slot: u32) -> String {
    program
        .instructions
        .iter()
        .find(|i| i.slot == slot)
        .map_or_else(
            || format!("{slot}: (no instruction)"),
            |i| i.to_string().trim().to_string(),
        )
}

/// The program's flow instructions.
fn flow_sites(program: &FragmentProgram) -> Vec<FlowSite> {
    program
        .instructions
        .iter()
        .filter_map(|i| {
            let f = i.flow()?;
            let loop_end = match f.kind {
                FlowKind::Loop(l) | FlowKind::Rep(l) => Some(l.end_slot),
                _ => None,
            };
            Some(FlowSite {
                slot: i.slot,
                loop_end,
            })
        })
        .collect()
}

/// Whether the recompiler records the instruction (an ALU or texture instruction: flow is
/// compared through the walk).
fn recorded(insn: &FragmentInstruction) -> bool {
    insn.flow().is_none() && insn.alu().is_some()
}

/// A device record as a step; a KIL's effect is the pseudo register `KIL` (1 when the
/// pixel is killed after it), on both sides.
fn device_step(program: &FragmentProgram, r: &Record) -> DeviceStep {
    let mut writes = Vec::with_capacity(2);
    if let Some((dest, v)) = r.register {
        writes.push((dest.name(), v));
    }
    if let Some((k, v)) = r.cc {
        writes.push((format!("CC{k}"), v));
    }
    if is_kil(program, r.slot) {
        writes.push(("KIL".into(), [f32::from(u8::from(r.killed)), 0.0, 0.0, 0.0]));
    }
    DeviceStep {
        slot: r.slot,
        writes,
    }
}

fn is_kil(program: &FragmentProgram, slot: u32) -> bool {
    program
        .instructions
        .iter()
        .any(|i| i.slot == slot && i.opcode == FpOpcode::Kil)
}

/// The interpreter's steps of `lane` that the device records, with the same writes.
fn reference_steps(program: &FragmentProgram, steps: &[Step], lane: usize) -> Vec<ReferenceStep> {
    let bit = 1u8 << lane;
    steps
        .iter()
        .filter(|s| s.active & bit != 0)
        .filter_map(|s| {
            let insn = program.instructions.iter().find(|i| i.slot == s.slot)?;
            if !recorded(insn) {
                return None;
            }
            let d = insn.dest;
            let (register, cc) = record::writes(insn);
            let class = if d.fp16 { Class::Fp16 } else { Class::Fp32 };
            let mut writes = Vec::with_capacity(2);
            if register {
                if let Some(w) = &s.written {
                    writes.push((w.register.clone(), w.value[lane], class));
                }
            }
            if cc {
                let k = usize::from(d.cc_write & 1);
                writes.push((format!("CC{k}"), s.cc[k][lane], class));
            }
            if insn.opcode == FpOpcode::Kil {
                let killed = f64::from(u8::from(s.killed & bit != 0));
                writes.push(("KIL".into(), [killed, 0.0, 0.0, 0.0], Class::Fp32));
            }
            Some(ReferenceStep {
                slot: s.slot,
                writes,
            })
        })
        .collect()
}
