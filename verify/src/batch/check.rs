//! One unique program through the whole chain: decode, disassemble, flow analysis,
//! interpret (f32 and f64), recompile to WGSL (validated by naga inside the recompiler) and,
//! with a device, the recompiled program against the interpreter on the inputs of
//! [`super::inputs`] (vertex programs on [`VERTEX_SETS`] input sets with random constants,
//! fragment programs on a pixel grid with pattern textures, [`super::textures`]), compared by
//! verify's own rules (`crate::divergence::compare`; ill-conditioned components are marked,
//! not tolerated).

use super::catalog::Entry;
use super::inputs::{branch_bits, fragment_quads, vertex_constants, vertex_inputs, VERTEX_SETS};
use super::textures::{patterns, vertex_patterns};
use crate::divergence::context::Context;
use crate::divergence::fragment_stage::{check_quads, interpret};
use crate::divergence::report::model::{Outcome, Stage, StageReport};
use crate::divergence::vertex_stage::{self, VertexInterp};
use rsxtrace_program::flow::{analyze, FragmentFlow};
use rsxtrace_program::fragment::{self, FragmentProgram};
use rsxtrace_program::vertex::{self, VertexProgram};
use rsxtrace_replay::interp::vertex::ConstantBank;
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::texture::vertex_units::txl_units;
use rsxtrace_replay::wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_replay::wgsl::WgslModule;
use serde::Serialize;

/// Where a program ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The recompiled program diverged from the interpreter on the device.
    Diverged,
    /// The microcode does not decode.
    Undecodable,
    /// The recompiler refused it, or naga rejected the WGSL.
    NotRecompiled,
    /// The interpreter or the device failed on it.
    Failed,
    /// Recompiled, but not compared: a reason outside translation (e.g. a texture state the
    /// device cannot sample as the model does).
    Skipped,
    /// Decoded, interpreted and recompiled; not run on a device (`--no-gpu`).
    Recompiled,
    /// The device agrees with the interpreter on every compared component.
    Proven,
}

impl Status {
    /// The snake-case name used in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Status::Diverged => "diverged",
            Status::Undecodable => "undecodable",
            Status::NotRecompiled => "not_recompiled",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
            Status::Recompiled => "recompiled",
            Status::Proven => "proven",
        }
    }
}

/// What the chain produced for one program.
pub struct Checked {
    /// Status.
    pub status: Status,
    /// Why, when not proven.
    pub reason: Option<String>,
    /// Instructions decoded.
    pub instructions: usize,
    /// Disassembly (empty when it does not decode).
    pub disassembly: String,
    /// Flow analysis (fragment programs).
    pub flow: Option<FragmentFlow>,
    /// The recompiled module.
    pub module: Option<WgslModule>,
    /// The comparison, when one ran.
    pub comparison: Option<StageReport>,
    /// The decoded program, for the negative control.
    pub decoded: Option<Decoded>,
}

/// A decoded program.
#[derive(Clone)]
pub enum Decoded {
    /// Vertex, with the words it was decoded from.
    Vertex(VertexProgram, Vec<u32>),
    /// Fragment.
    Fragment(FragmentProgram),
}

impl Checked {
    /// A decoded program, not yet recompiled.
    fn decoded(
        instructions: usize,
        disassembly: String,
        flow: Option<FragmentFlow>,
        decoded: Decoded,
    ) -> Checked {
        Checked {
            status: Status::Recompiled,
            reason: None,
            instructions,
            disassembly,
            flow,
            module: None,
            comparison: None,
            decoded: Some(decoded),
        }
    }

    fn stopped(status: Status, reason: String) -> Checked {
        Checked {
            status,
            reason: Some(reason),
            instructions: 0,
            disassembly: String::new(),
            flow: None,
            module: None,
            comparison: None,
            decoded: None,
        }
    }
}

/// The status and reason of a comparison.
fn judged(report: &StageReport) -> (Status, Option<String>) {
    match &report.outcome {
        Outcome::Clean => (Status::Proven, None),
        Outcome::Diverged => (
            Status::Diverged,
            report
                .worst_register()
                .map(|r| format!("{} diverged", r.register)),
        ),
        Outcome::Skipped { reason } => {
            let status = if reason.contains("not recompiled") {
                Status::NotRecompiled
            } else {
                Status::Skipped
            };
            (status, Some(reason.clone()))
        }
        Outcome::Failed { error } => (Status::Failed, Some(error.clone())),
    }
}

/// Checks `entry`, program `index` of the batch (the index the context's test-only hooks
/// receive); `cx` is the device side (`None`: no device check).
pub fn check(index: usize, entry: &Entry, cx: Option<&Context<'_>>) -> Checked {
    match entry.stage {
        Stage::Vertex => check_vertex(index, entry, cx),
        Stage::Fragment => check_fragment(index, entry, cx),
    }
}

/// The interpreter side of a vertex program over the batch's inputs.
pub fn vertex_interp(entry: &Entry, program: VertexProgram, words: Vec<u32>) -> VertexInterp {
    let constants = vertex_constants(entry.key);
    let mut bank = ConstantBank::new();
    for (i, c) in constants.iter().enumerate() {
        bank.set(i, *c);
    }
    VertexInterp {
        draw: 0,
        program,
        memory_words: words,
        inputs: vertex_inputs(entry.key),
        input_mask: 0xFFFF,
        branch_bits: branch_bits(entry.key),
        constants,
        bank,
        f32_out: Vec::new(),
        f64_out: Vec::new(),
        indices: (0..VERTEX_SETS as u32).collect(),
        restarts: Vec::new(),
        range_starts: vec![0],
        substituted: None,
        textures: None,
    }
}

/// A vertex program's image loaded at slot 0 of transform program memory (the rest zero)
/// and decoded from its entry slot: the program and the memory's words.
pub fn load_vertex(entry: &Entry) -> Result<(VertexProgram, Vec<u32>), String> {
    rsxtrace_program::vertex::decode_image(&entry.ucode, entry.entry as usize)
        .map_err(|e| e.to_string())
}

fn check_vertex(index: usize, entry: &Entry, cx: Option<&Context<'_>>) -> Checked {
    let (program, words) = match load_vertex(entry) {
        Ok(p) => p,
        Err(e) => return Checked::stopped(Status::Undecodable, e),
    };
    let mut out = Checked::decoded(
        program.instructions.len(),
        vertex::disassemble(&program),
        None,
        Decoded::Vertex(program.clone(), words.clone()),
    );
    let rules = vertex_stage::interp_options(Arithmetic::F32).rules;
    // TXL samples pattern textures (`textures::vertex_patterns`).
    let units = txl_units(&program);
    let textures = (units != 0).then(|| vertex_patterns(entry.key, units));
    let state = match &textures {
        Some(Ok(t)) => t.state,
        _ => Default::default(),
    };
    match rsxtrace_replay::wgsl::vertex::translate_textured(&program, &words, &rules, &state) {
        Ok(m) => out.module = Some(m),
        Err(e) => {
            out.status = Status::NotRecompiled;
            out.reason = Some(format!("vertex recompiler: {e}"));
            return out;
        }
    }
    let mut vi = vertex_interp(entry, program, words);
    match textures {
        Some(Ok(t)) => vi.textures = Some(std::sync::Arc::new(t)),
        Some(Err(why)) => {
            out.status = Status::Skipped;
            out.reason = Some(why);
            return out;
        }
        None => {}
    }
    for arithmetic in [Arithmetic::F32, Arithmetic::F64] {
        match vertex_stage::interpret(&vi, &vi.program, arithmetic) {
            Ok(lanes) if arithmetic == Arithmetic::F32 => vi.f32_out = lanes,
            Ok(lanes) => vi.f64_out = lanes,
            Err(e) => {
                out.status = Status::Failed;
                out.reason = Some(format!("vertex interpreter: {e}"));
                return out;
            }
        }
    }
    let Some(cx) = cx else { return out };
    let mut gpu_program = vi.program.clone();
    if let Some(hook) = cx.vertex_hook {
        hook(index, &mut gpu_program);
    }
    let report = match vertex_stage::run_gpu(&vi, &gpu_program, cx, cx.pipelines) {
        Ok(gpu) => vertex_stage::compare(&vi, &gpu, cx),
        Err(outcome) => StageReport::not_compared(Stage::Vertex, outcome),
    };
    (out.status, out.reason) = judged(&report);
    out.comparison = Some(report);
    out
}

fn check_fragment(index: usize, entry: &Entry, cx: Option<&Context<'_>>) -> Checked {
    let program = match fragment::decode(&entry.ucode) {
        Ok(p) => p,
        Err(e) => return Checked::stopped(Status::Undecodable, e.to_string()),
    };
    let mut out = Checked::decoded(
        program.instructions.len(),
        fragment::disassemble(&program),
        Some(analyze(&program)),
        Decoded::Fragment(program.clone()),
    );
    let dims = entry.state.as_ref().map(|s| s.fp_texture_dimensions);
    let shadow = entry.state.as_ref().map_or(0, |s| s.fp_shadow_textures);
    let textures = patterns(entry.key, program.texture_units_read(), dims, shadow);
    let mut options = FragmentTranslateOptions::with_control(entry.control);
    if let Ok(t) = &textures {
        options.texture_dims = t.dims;
        options.texture_lod = t.lod;
    }
    match rsxtrace_replay::wgsl::fragment::translate(&program, &options) {
        Ok(m) => out.module = Some(m),
        Err(e) => {
            out.status = Status::NotRecompiled;
            out.reason = Some(format!("fragment recompiler: {e}"));
            return out;
        }
    }
    let textures = match textures {
        Ok(t) => t,
        Err(why) => {
            out.status = Status::Skipped;
            out.reason = Some(why);
            return out;
        }
    };
    let quads = fragment_quads(entry.key);
    let control = rsxtrace_capture::frame::state::ShaderControl::from_raw(entry.control);
    let Some(cx) = cx else {
        let interpreted = interpret(
            control,
            &program,
            &quads,
            Arithmetic::F32,
            &textures.sampler,
        );
        if let Err(e) = interpreted {
            out.status = Status::Failed;
            out.reason = Some(e);
        }
        return out;
    };
    let mut gpu_program = program.clone();
    if let Some(hook) = cx.fragment_hook {
        hook(index, &mut gpu_program);
    }
    let checked = check_quads(
        control,
        (&program, &gpu_program),
        &quads,
        &textures,
        None,
        cx,
    );
    let report = match checked {
        Ok(c) => StageReport::compared(Stage::Fragment, c.registers, quads.len() * 4),
        Err(outcome) => StageReport::not_compared(Stage::Fragment, outcome),
    };
    (out.status, out.reason) = judged(&report);
    out.comparison = Some(report);
    out
}
