//! The vertex stage of one draw: its program decoded from transform program memory, its
//! vertices fetched in processing order, run through the interpreter in f32 and f64
//! ([`prepare`], CPU only) and through the recompiled `vp_compute` ([`run_gpu`]), then compared
//! per output register and component ([`compare`]).
//!
//! Skipped (neither divergence nor error): a program that does not decode, vertices that
//! cannot be fetched from the captured memory, a vertex texture (TXL) that cannot be decoded
//! or bound exactly ([`super::textures::bind_vertex`]), and programs the recompiler does not
//! translate. Input attributes the draw does not provide read (0, 0, 0, 1) on both sides.
//! Vertex textures are sampled from the captured memory at the draw, one image on both sides.
//!
//! State set before the captured frame does not skip a draw (`docs/verify.md`,
//! "Substituted state"): attributes the capture holds no value for read what RPCS3's replay
//! reads (the fetcher's substitute); a program that reads transform constants the capture
//! lacks runs with every missing constant zero ([`prepare`]) and again with seeded random
//! values ([`with_random_constants`]); each run is compared and reported as substituted.

use super::clock::{Clock, Phase};
use super::compare::{RegisterTally, Sample};
use super::context::{Context, Pipelines};
use super::mutate::XorShift;
use super::report::model::{ConstantFill, Outcome, Stage, StageReport, Substitution};
use super::textures::{bind_vertex, BoundVertex};
use super::tolerance::Class;
use rsxtrace_capture::fetch::{fetch_draw, UNSET_ATTRIBUTE};
use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::{VertexResult, VP_CONSTANTS};
use rsxtrace_program::vertex::{decode_from_memory, VertexProgram};
use rsxtrace_replay::interp::vertex::VertexTextureSampler;
use rsxtrace_replay::interp::vertex::{
    output_name, run_vertex, ConstantBank, LaneOutput, Reassociation, VertexAttributes,
    VertexEnvironment, VertexExecError, VertexOptions, OUTPUT_COUNT,
};
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::texture::cache::TextureCache;
use rsxtrace_replay::texture::vertex_units::txl_units;
use rsxtrace_replay::wgsl::vertex::{translate_textured, VertexTextureUnits};
use rsxtrace_replay::wgsl::TranslateError;
use std::sync::Arc;

/// One draw's vertex stage on the interpreter side, kept for the GPU side, the fragment stage
/// and the negative control.
#[derive(Clone, Debug)]
pub struct VertexInterp {
    /// Draw index.
    pub draw: usize,
    /// The decoded program.
    pub program: VertexProgram,
    /// The transform program memory it was decoded from.
    pub memory_words: Vec<u32>,
    /// Inputs per vertex, processing order.
    pub inputs: Vec<VertexAttributes>,
    /// Attributes the draw provides.
    pub input_mask: u16,
    /// `SET_TRANSFORM_BRANCH_BITS`.
    pub branch_bits: u32,
    /// Constants (the ones the capture lacks hold the substituted fill, zeros by default).
    pub constants: Box<[[f32; 4]; VP_CONSTANTS]>,
    /// The interpreter's constant bank.
    pub bank: ConstantBank,
    /// f32 results per vertex.
    pub f32_out: Vec<LaneOutput>,
    /// f64 results per vertex.
    pub f64_out: Vec<LaneOutput>,
    /// Vertex index per position (fetch `indices`).
    pub indices: Vec<u32>,
    /// Positions where a primitive restart starts a new primitive (fetch `restarts`).
    pub restarts: Vec<usize>,
    /// Positions where each draw range starts (fetch `range_starts`).
    pub range_starts: Vec<usize>,
    /// State the capture lacks that this run substituted (`None` when the capture holds
    /// everything the draw reads).
    pub substituted: Option<Substitution>,
    /// The vertex texture units the program's TXL instructions sample, on both sides
    /// (`None` when it has no TXL).
    pub textures: Option<Arc<BoundVertex>>,
}

impl VertexInterp {
    /// What the interpreter reads besides the inputs: the constants, branch bits, the vertex
    /// textures and the attributes provided.
    pub fn environment(&self) -> VertexEnvironment<'_> {
        VertexEnvironment {
            constants: &self.bank,
            branch_bits: Some(self.branch_bits),
            sampler: self
                .textures
                .as_ref()
                .map(|t| &t.sampler as &dyn VertexTextureSampler),
            input_mask: self.input_mask,
        }
    }

    /// The vertex texture units' state the recompiler needs (the default without TXL).
    pub fn texture_state(&self) -> VertexTextureUnits {
        self.textures
            .as_ref()
            .map_or_else(VertexTextureUnits::default, |t| t.state)
    }

    /// Vertex `v`'s 16 f32 output registers (unwritten ones (0, 0, 0, 1)).
    pub fn outputs_f32(&self, v: usize) -> Option<[[f32; 4]; OUTPUT_COUNT]> {
        self.f32_out
            .get(v)
            .map(|l| l.registers.map(|r| r.map(|c| c as f32)))
    }
}

/// The interpreter side of a draw, or why the stage does not run.
#[derive(Clone, Debug)]
pub enum Prepared {
    /// Ready for the GPU side.
    Ready(Box<VertexInterp>),
    /// Not compared (the outcome is `Skipped` or `Failed`).
    NotCompared(Outcome),
}

/// The interpreter options verify runs with (constants the capture lacks and attributes the
/// draw does not provide are read, not refused); their `rules` are the recompiler's options too.
pub fn interp_options(arithmetic: Arithmetic) -> VertexOptions {
    VertexOptions {
        arithmetic,
        allow_unknown_constants: true,
        allow_missing_inputs: true,
        ..VertexOptions::default()
    }
}

/// Run the interpreter on `program` over `vi`'s inputs in `arithmetic`.
pub fn interpret(
    vi: &VertexInterp,
    program: &VertexProgram,
    arithmetic: Arithmetic,
) -> Result<Vec<LaneOutput>, VertexExecError> {
    let env = vi.environment();
    run_vertex(
        program,
        &vi.memory_words,
        &env,
        &vi.inputs,
        &interp_options(arithmetic),
    )
    .map(|o| o.lanes)
}

/// The interpreter side of draw `draw` (see the module documentation for what is skipped).
pub fn prepare(frame: &Frame, draw: usize, cx: &Context<'_>) -> Prepared {
    prepare_timed(frame, draw, &cx.clock, &cx.textures)
}

/// Draw `draw`'s vertex stage before it runs: the program, its vertices' inputs in
/// processing order, the constants and the vertex textures, and the attributes the capture
/// holds no values for; `Err` is why the stage cannot run (skipped or failed).
pub fn vertex_inputs(
    frame: &Frame,
    draw: usize,
    clock: &Clock,
    cache: &TextureCache,
) -> Result<(VertexInterp, Vec<u8>), Outcome> {
    let skip = |reason: String| Outcome::Skipped { reason };
    let Some(d) = frame.draws.get(draw) else {
        return Err(Outcome::Failed {
            error: format!("draw {draw}: no such draw"),
        });
    };
    let Some(memory) = frame.memory(draw) else {
        return Err(skip("no guest memory view for the draw".to_string()));
    };
    let fetched = clock.time(Phase::Fetch, || {
        let program = decode_from_memory(&d.vertex_program, d.vp_start as usize)
            .map_err(|e| format!("vertex program does not decode: {e}"))?;
        let fetched = fetch_draw(&d.vertex_inputs, &memory)
            .map_err(|e| format!("vertices cannot be fetched from the capture: {e}"))?;
        Ok::<_, String>((program, fetched))
    });
    let (program, fetched) = match fetched {
        Ok(v) => v,
        Err(reason) => return Err(skip(reason)),
    };
    let units = txl_units(&program);
    let textures = if units == 0 {
        None
    } else {
        match clock.time(Phase::Fetch, || {
            bind_vertex(&d.vertex_textures, &memory, units, cache)
        }) {
            Ok(t) => Some(Arc::new(t)),
            Err(reason) => return Err(skip(reason)),
        }
    };
    let unknown_attributes = fetched.unknown_attributes();
    let mut inputs: Vec<VertexAttributes> = vec![[UNSET_ATTRIBUTE; 16]; fetched.len()];
    let mut input_mask = 0u16;
    for column in &fetched.attributes {
        let a = usize::from(column.attribute);
        if a >= 16 {
            continue;
        }
        input_mask |= 1 << a;
        for (v, value) in inputs.iter_mut().zip(&column.values) {
            v[a] = *value;
        }
    }
    let mut constants = Box::new([[0f32; 4]; VP_CONSTANTS]);
    for (i, c) in constants.iter_mut().enumerate() {
        *c = d.constants.get(i).unwrap_or([0.0; 4]);
    }
    let vi = VertexInterp {
        draw,
        program,
        memory_words: d.vertex_program.to_vec(),
        inputs,
        input_mask,
        branch_bits: d.transform_branch_bits,
        constants,
        bank: ConstantBank::from_transform(&d.constants),
        f32_out: Vec::new(),
        f64_out: Vec::new(),
        indices: fetched.indices,
        restarts: fetched.restarts,
        range_starts: fetched.range_starts,
        substituted: None,
        textures,
    };
    if vi.inputs.is_empty() {
        return Err(skip("the draw has no vertices".to_string()));
    }
    Ok((vi, unknown_attributes))
}

/// [`prepare`] timed on `clock`, decoding vertex textures through `cache` (no device needed:
/// the CPU side alone).
pub fn prepare_timed(frame: &Frame, draw: usize, clock: &Clock, cache: &TextureCache) -> Prepared {
    let (mut vi, unknown_attributes) = match vertex_inputs(frame, draw, clock, cache) {
        Ok(v) => v,
        Err(outcome) => return Prepared::NotCompared(outcome),
    };
    let env = vi.environment();
    let run32 = clock.time(Phase::Interpreter, || {
        run_vertex(
            &vi.program,
            &vi.memory_words,
            &env,
            &vi.inputs,
            &interp_options(Arithmetic::F32),
        )
    });
    let out32 = match run32 {
        Ok(o) => o,
        Err(e) => return Prepared::NotCompared(exec_outcome(e)),
    };
    // The interpreter read every constant the capture lacks as zero: this run is the zero
    // fill (the GPU side's `constants` hold 0 there too).
    let mut registers: Vec<usize> = out32
        .unknown_constant_reads
        .iter()
        .map(|r| r.constant)
        .collect();
    registers.sort_unstable();
    registers.dedup();
    if !registers.is_empty() || !unknown_attributes.is_empty() {
        vi.substituted = Some(Substitution {
            constants: (!registers.is_empty()).then_some(ConstantFill::Zeros),
            seed: None,
            registers,
            attributes: unknown_attributes,
        });
    }
    let run64 = clock.time(Phase::Interpreter, || {
        interpret(&vi, &vi.program, Arithmetic::F64)
    });
    match run64 {
        Ok(lanes) => vi.f64_out = lanes,
        Err(e) => return Prepared::NotCompared(exec_outcome(e)),
    }
    vi.f32_out = out32.lanes;
    Prepared::Ready(Box::new(vi))
}

/// Seed of attempt `attempt` of the random constant fill of draw `draw` under the
/// verification's `seed` (splitmix64 of the three, so draws get different values and a run is
/// reproducible).
pub fn random_fill_seed(seed: u64, draw: usize, attempt: u32) -> u64 {
    let mut z = seed
        ^ (draw as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ u64::from(attempt).wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Whether the zero-fill run `vi` read constants the capture lacks (so a random-fill run is
/// due as well).
pub fn needs_random_fill(vi: &VertexInterp) -> bool {
    vi.substituted
        .as_ref()
        .is_some_and(|s| s.constants == Some(ConstantFill::Zeros))
}

/// The same draw as `vi` (its zero-fill run) with every transform constant the capture lacks
/// set to seeded random components in [-1, 1), interpreted again in f32 and f64. The seeds are
/// tried in order until `accept` takes the f32 run (the caller asks for a transform that
/// covers a pixel); the last one is kept when none is accepted.
pub fn with_random_constants(
    frame: &Frame,
    vi: &VertexInterp,
    seeds: &[u64],
    accept: impl Fn(&VertexInterp) -> bool,
    cx: &Context<'_>,
) -> Prepared {
    let Some(d) = frame.draws.get(vi.draw) else {
        return Prepared::NotCompared(Outcome::Failed {
            error: format!("draw {}: no such draw", vi.draw),
        });
    };
    let mut random = vi.clone();
    for (k, &seed) in seeds.iter().enumerate() {
        let mut rng = XorShift::new(seed);
        for (i, c) in random.constants.iter_mut().enumerate() {
            if d.constants.is_known(i) {
                continue;
            }
            // 24 random bits per component, uniform in [-1, 1).
            *c = std::array::from_fn(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0);
            random.bank.set(i, *c);
        }
        if let Some(s) = random.substituted.as_mut() {
            s.constants = Some(ConstantFill::Random);
            s.seed = Some(seed);
        }
        let lanes = cx.clock.time(Phase::Interpreter, || {
            interpret(&random, &random.program, Arithmetic::F32)
        });
        match lanes {
            Ok(l) => random.f32_out = l,
            Err(e) => return Prepared::NotCompared(exec_outcome(e)),
        }
        if k + 1 == seeds.len() || accept(&random) {
            break;
        }
    }
    let lanes = cx.clock.time(Phase::Interpreter, || {
        interpret(&random, &random.program, Arithmetic::F64)
    });
    match lanes {
        Ok(l) => random.f64_out = l,
        Err(e) => return Prepared::NotCompared(exec_outcome(e)),
    }
    Prepared::Ready(Box::new(random))
}

/// The outcome of an interpreter error.
fn exec_outcome(e: VertexExecError) -> Outcome {
    Outcome::Failed {
        error: format!("vertex interpreter: {e}"),
    }
}

/// Recompile `program` and run it on the device over `vi`'s inputs; its module and pipeline
/// are kept or dropped after the run as `pipelines` says (`Context::pipelines_of`). `Err` is
/// the stage's outcome (`Skipped` for programs the recompiler does not translate, else
/// `Failed`).
pub fn run_gpu(
    vi: &VertexInterp,
    program: &VertexProgram,
    cx: &Context<'_>,
    pipelines: Pipelines,
) -> Result<Vec<VertexResult>, Outcome> {
    let module = cx
        .clock
        .time(Phase::Pipeline, || {
            // The very rules the interpreter runs with (`VertexOptions::rules`).
            let rules = interp_options(Arithmetic::F32).rules;
            let textures = vi.texture_state();
            let once = pipelines == Pipelines::Forget;
            cx.modules
                .vertex(program, &vi.memory_words, &rules, &textures, once, || {
                    translate_textured(program, &vi.memory_words, &rules, &textures)
                })
        })
        .map_err(|e| match e {
            TranslateError::Unsupported { .. } => Outcome::Skipped {
                reason: format!("vertex program not recompiled: {e}"),
            },
            e => Outcome::Failed {
                error: format!("vertex recompiler: {e}"),
            },
        })?;
    let failed = |e: rsxtrace_gpu::GpuError| Outcome::Failed {
        error: format!("GPU vp_compute: {e}"),
    };
    let uploaded = cx
        .on_gpu(Phase::Pipeline, |gpu| upload_vertex_textures(gpu, vi))
        .map_err(failed)?;
    let bound: rsxtrace_gpu::VertexTextures<'_> = std::array::from_fn(|u| uploaded[u].as_ref());
    // An empty run creates (and caches) the pipeline only.
    cx.on_gpu(Phase::Pipeline, |gpu| {
        gpu.run_vertex_compute_textured(&module, &vi.constants, &[], vi.branch_bits, bound)
    })
    .map_err(failed)?;
    let results = cx
        .on_gpu(Phase::Gpu, |gpu| {
            gpu.run_vertex_compute_textured(
                &module,
                &vi.constants,
                &vi.inputs,
                vi.branch_bits,
                bound,
            )
        })
        .map_err(failed);
    cx.after_run(&module, pipelines);
    results
}

/// `vi`'s vertex textures uploaded to `gpu` (none without TXL).
pub fn upload_vertex_textures(
    gpu: &rsxtrace_gpu::Gpu,
    vi: &VertexInterp,
) -> Result<[Option<rsxtrace_gpu::UploadedTexture>; 4], rsxtrace_gpu::GpuError> {
    let mut out: [Option<rsxtrace_gpu::UploadedTexture>; 4] = Default::default();
    if let Some(t) = &vi.textures {
        for (u, b) in t.gpu.iter().enumerate() {
            if let Some(b) = b {
                out[u] = Some(gpu.upload_texture(b, &format!("vertex texture unit {u}"))?);
            }
        }
    }
    Ok(out)
}

/// Registers to compare: written on either side at some vertex, ascending.
fn compared_registers(f32_out: &[LaneOutput], gpu: &[VertexResult]) -> u16 {
    let interp = f32_out.iter().fold(0u16, |m, l| m | l.written);
    gpu.iter().fold(interp, |m, r| m | r.written)
}

/// The interpreter's f32 run with the evaluation order changed (`VertexOptions::reassociate`),
/// a conditioning run.
fn reassociated(vi: &VertexInterp, order: Reassociation) -> Option<Vec<LaneOutput>> {
    let env = vi.environment();
    let options = VertexOptions {
        reassociate: order,
        ..interp_options(Arithmetic::F32)
    };
    run_vertex(&vi.program, &vi.memory_words, &env, &vi.inputs, &options)
        .ok()
        .map(|o| o.lanes)
}

/// Per-register tallies of the GPU's results against the interpreter's; `conditioning` holds
/// the reassociated runs, when made.
fn tallies(
    vi: &VertexInterp,
    gpu: &[VertexResult],
    conditioning: [Option<&[LaneOutput]>; 2],
    cx: &Context<'_>,
) -> Vec<RegisterTally> {
    let tol = &cx.tolerances;
    let mask = compared_registers(&vi.f32_out, gpu);
    let mut registers = Vec::new();
    for reg in 0..OUTPUT_COUNT {
        if mask & (1 << reg) == 0 {
            continue;
        }
        let name = output_name(reg as u8).unwrap_or("?");
        let mut tally = RegisterTally::new(name, Class::Fp32);
        for (v, ((l32, l64), g)) in vi.f32_out.iter().zip(&vi.f64_out).zip(gpu).enumerate() {
            let other = conditioning.map(|r| r.and_then(|c| c.get(v)));
            for c in 0..4 {
                tally.add(
                    Sample {
                        element: v,
                        pixel: None,
                        component: c,
                        gpu: g.registers[reg][c],
                        reference: l32.registers[reg][c] as f32,
                        reference_f64: l64.registers[reg][c],
                        perturbed: [
                            other[0].map(|o| o.registers[reg][c] as f32),
                            other[1].map(|o| o.registers[reg][c] as f32),
                            None,
                            None,
                            None,
                            None,
                        ],
                    },
                    tol,
                );
            }
        }
        registers.push(tally);
    }
    registers
}

/// Compare the GPU's results with the interpreter's, as a stage report. When something is
/// outside tolerance, the conditioning run (reassociated evaluation) is made and the
/// comparison repeated with it: a component it moves beyond tolerance is ill-conditioned.
pub fn compare(vi: &VertexInterp, gpu: &[VertexResult], cx: &Context<'_>) -> StageReport {
    cx.clock.time(Phase::Compare, || {
        let mut registers = tallies(vi, gpu, [None, None], cx);
        if registers.iter().any(|r| r.diverged > 0) {
            let runs = [Reassociation::Reversed, Reassociation::Pairwise].map(|order| {
                cx.clock
                    .time(Phase::Interpreter, || reassociated(vi, order))
            });
            registers = tallies(vi, gpu, runs.each_ref().map(|r| r.as_deref()), cx);
        }
        let count_mismatch = gpu.len() != vi.f32_out.len();
        let diverged = count_mismatch || registers.iter().any(|r| r.diverged > 0);
        StageReport {
            stage: Stage::Vertex,
            outcome: if count_mismatch {
                Outcome::Failed {
                    error: format!(
                        "the GPU returned {} vertices for {} inputs",
                        gpu.len(),
                        vi.f32_out.len()
                    ),
                }
            } else if diverged {
                Outcome::Diverged
            } else {
                Outcome::Clean
            },
            elements: vi.f32_out.len(),
            covered: None,
            registers,
            substituted: vi.substituted.clone(),
            images: None,
            explanation: None,
        }
    })
}

/// The whole vertex stage of a prepared draw: the GPU side (with the context's hook applied
/// to the program) and the comparison.
pub fn verify(vi: &VertexInterp, cx: &Context<'_>) -> StageReport {
    let mut program = vi.program.clone();
    if let Some(hook) = cx.vertex_hook {
        hook(vi.draw, &mut program);
    }
    match run_gpu(vi, &program, cx, cx.pipelines) {
        Ok(results) => compare(vi, &results, cx),
        Err(outcome) => StageReport::not_compared(Stage::Vertex, outcome),
    }
}
