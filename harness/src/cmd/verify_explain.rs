//! `rsxtrace verify CAPTURE --explain DRAW [--pixel X,Y | --vertex K]`: the first instruction
//! where the recompiled program parts from the interpreter for one invocation
//! (`rsxtrace_verify::explain`), printed as text or written as JSON (`--json FILE`). Without
//! `--pixel`/`--vertex` the draw is verified first and its worst diverged element explained
//! (the vertex stage's when both diverge: the fragment stage runs on the interpreter's
//! vertices, so a vertex fault is the one to fix first). Exit status: 0 every step matches
//! (or nothing diverged), 1 a divergent instruction was found, 2 on error.

use super::verify::{StageArg, VerifyArgs};
use crate::exit::Status;
use anyhow::Context as _;
use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::{Gpu, GpuOptions};
use rsxtrace_verify::divergence::context::Context;
use rsxtrace_verify::divergence::report::model::Stage;
use rsxtrace_verify::divergence::{verify_frame, StageSelection, Tolerances, VerifyOptions};
use rsxtrace_verify::explain::{
    explain, worst_invocation, DivergenceKind, Explained, Explanation, Invocation,
};

/// Runs `--explain DRAW`.
pub fn run(
    args: &VerifyArgs,
    frame: &Frame,
    draw: usize,
    tolerances: Tolerances,
) -> anyhow::Result<Status> {
    if draw >= frame.draws.len() {
        anyhow::bail!(
            "--explain {draw}: the frame has {} draws",
            frame.draws.len()
        );
    }
    crate::output::private_runtime_dir();
    let gpu = Gpu::new(GpuOptions {
        backend: args.backend.backend(),
        ..Default::default()
    })
    .context("cannot open a GPU device")?;
    let invocation = match (args.pixel, args.vertex) {
        (Some((x, y)), _) => Invocation::Pixel([x, y]),
        (None, Some(k)) => Invocation::Vertex(k),
        (None, None) => match worst(args, frame, draw, tolerances, &gpu)? {
            Some(i) => i,
            None => {
                outln!("draw {draw}: no stage diverged; nothing to explain");
                return Ok(Status::Success);
            }
        },
    };
    let cx = Context::new(&gpu, tolerances, args.max_pixels);
    let e =
        explain(frame, draw, invocation, &cx).map_err(|e| anyhow::anyhow!("draw {draw}: {e}"))?;
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&e)?;
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    print_explanation(&e)?;
    Ok(if e.divergence.is_some() {
        Status::Finding
    } else {
        Status::Success
    })
}

/// The worst element of the draw's first diverged stage (vertex before fragment).
fn worst(
    args: &VerifyArgs,
    frame: &Frame,
    draw: usize,
    tolerances: Tolerances,
    gpu: &Gpu,
) -> anyhow::Result<Option<Invocation>> {
    let options = VerifyOptions {
        draws: Some(draw..draw + 1),
        stage: match args.stage {
            StageArg::Vertex => StageSelection::Vertex,
            StageArg::Fragment => StageSelection::Fragment,
            StageArg::Both => StageSelection::Both,
        },
        tolerances,
        max_pixels: args.max_pixels,
        capture: args.file.display().to_string(),
        ..VerifyOptions::default()
    };
    let report = verify_frame(frame, &options, gpu, None)?;
    let Some(d) = report.draws.first() else {
        return Ok(None);
    };
    for stage in [Stage::Vertex, Stage::Fragment] {
        if let Some(inv) = d
            .stages
            .iter()
            .filter(|s| s.stage == stage)
            .find_map(worst_invocation)
        {
            return Ok(Some(inv));
        }
    }
    Ok(None)
}

fn vec4<T: std::fmt::Display>(v: &[T; 4]) -> String {
    format!("({}, {}, {}, {})", v[0], v[1], v[2], v[3])
}

/// Prints one `--explain-all` entry.
pub fn print_explained(draw: usize, stage: &str, e: &Explained) -> std::io::Result<()> {
    match e {
        Explained::Done(e) => print_explanation(e),
        Explained::Failed { error } => {
            outln!("draw {draw} {stage} stage: not explained: {error}");
            Ok(())
        }
    }
}

/// The explanation as text: what matched, the divergent instruction, both values, the WGSL.
pub fn print_explanation(e: &Explanation) -> std::io::Result<()> {
    let at = match e.invocation {
        Invocation::Pixel([x, y]) => format!("pixel {x},{y}"),
        Invocation::Vertex(k) => format!("vertex {k}"),
    };
    let truncated = if e.truncated {
        " (the device record ran out of room; later steps not compared)"
    } else {
        ""
    };
    outln!(
        "draw {} {} stage, {at}: {} of {} interpreter steps match the device's ({} recorded){truncated}",
        e.draw,
        e.stage,
        e.steps_matched,
        e.reference_steps,
        e.gpu_steps
    );
    let Some(d) = &e.divergence else {
        outln!("no divergent instruction: every step matches within tolerance");
        return Ok(());
    };
    match d.kind {
        DivergenceKind::Value => {
            outln!(
                "first divergent instruction: step {}, slot {}, {} (components {}{})",
                d.step,
                d.slot,
                d.register.as_deref().unwrap_or("-"),
                d.components,
                if d.ill_conditioned {
                    "; ill-conditioned: the interpreter's f32 and f64 runs also disagree"
                } else {
                    ""
                }
            );
            outln!("  {}", d.disassembly);
            if let Some(g) = &d.gpu {
                outln!("  device      {}", vec4(g));
            }
            if let Some(r) = &d.reference {
                outln!("  interpreter {}", vec4(r));
            }
            if let Some(r) = &d.reference_f64 {
                outln!("  interp. f64 {}", vec4(r));
            }
        }
        DivergenceKind::Register => {
            outln!(
                "first divergent instruction: step {}, slot {}: the device writes {}, the interpreter {}",
                d.step,
                d.slot,
                d.register.as_deref().unwrap_or("nothing"),
                d.reference_register.as_deref().unwrap_or("nothing")
            );
            outln!("  {}", d.disassembly);
        }
        DivergenceKind::Flow | DivergenceKind::Length => {
            let next = |s: Option<u32>| s.map_or("the end".to_string(), |s| format!("slot {s}"));
            let (dev, reference) = if d.kind == DivergenceKind::Flow {
                (Some(d.slot), d.reference_slot)
            } else if d.reference_slot.is_some() {
                (None, d.reference_slot)
            } else {
                (Some(d.slot), None)
            };
            outln!(
                "the walks part at step {}: the device runs {} next, the interpreter {}",
                d.step,
                next(dev),
                next(reference)
            );
            if let Some(f) = d.flow_slot {
                outln!("  deciding flow instruction: slot {f}");
            }
            outln!("  device:      {}", d.disassembly);
            if let Some(r) = &d.reference_disassembly {
                outln!("  interpreter: {r}");
            }
        }
    }
    if let Some(w) = &d.wgsl {
        outln!("  WGSL (line {}):", w.first);
        for (k, line) in w.text.iter().enumerate() {
            outln!("  {:>6} | {line}", w.first + k);
        }
    }
    Ok(())
}
