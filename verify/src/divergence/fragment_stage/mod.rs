//! The fragment stage of one draw.
//!
//! Identical inputs on both sides: the draw is rasterized on the CPU from the **interpreter's**
//! vertex outputs (so a vertex-stage divergence does not leak into this stage) with the
//! renderers' own geometry and coverage (`rsxtrace_replay::render::cpu::geometry`: primitives
//! assembled on the hardware's diagonals, triangles clipped against `w > ε`, cut by the user
//! clip planes (lines shortened, points dropped), transformed by the draw's viewport, faced by
//! `SET_FRONT_FACE`, culled, drawn by their polygon mode, with the point size, line width and
//! stipple patterns; covered pixel centres found with the top-left rule inside the surface clip
//! rectangle). The fragment inputs follow the draw's per-fragment shading rules as in the
//! renderers (`rsxtrace_replay::raster::ShadingRules::varyings`: flat COL0/COL1 from the
//! primitive's provoking vertex, two-sided colour, the fog factor in FOGC.y), and point sprites
//! replace their texture coordinates. A draw whose raster state does not decode (`DrawState`)
//! covers nothing here. Every primitive's covered pixels are grouped into
//! screen-aligned 2×2 quads; all four lanes of a quad get the perspective-correct
//! interpolation at their own pixel centre (extrapolated for lanes the primitive does not cover,
//! which run as helpers), so derivatives are defined the same way on both sides. The quads are
//! packed side by side into an evaluation image whose own 2×2 quads are exactly these quads;
//! the image goes through `fp_eval` (`Gpu::run_fragment_eval`) and the quads through the
//! fragment interpreter (f32 and f64). Covered lanes are compared.
//!
//! Sampling: when a draw covers more than `max_pixels` pixels, every k-th quad is kept
//! (k = ⌈covered / max_pixels⌉, in rasterization order) until `max_pixels` covered pixels are
//! reached; the report gives both counts.
//!
//! Compared registers: the colour outputs the program writes (R0, R2, R3, R4 with 32-bit
//! exports, else H0, H4, H6, H8; rsx-microcode.md B.6), depth (R1.z) when the control word
//! exports it, and the KIL flag. Class: fp16 for H exports; fx12 when every instruction
//! writing the output has fx12 or fx9 precision; fp32 otherwise. Lanes killed on both sides
//! compare only the KIL flag.
//!
//! Textures: the units the program samples are decoded once and bound on both sides
//! ([`super::textures`]).
//!
//! Skipped: no fragment program in the capture or one that does not decode, a sampled unit
//! that cannot be decoded from the capture or that the device cannot sample as the
//! interpreter does ([`super::textures`] lists the states), programs the recompiler does not
//! translate, draws that cover no pixel.

mod raster;

pub use raster::{rasterize, Quad, Rasterized};

use crate::divergence::clock::Phase;
use crate::divergence::compare::{RegisterTally, Sample};
use crate::divergence::context::{Context, Pipelines};
use crate::divergence::report::model::{Outcome, Stage, StageImages, StageReport};
use crate::divergence::textures::{bind, Bound};
use crate::divergence::tolerance::Class;
use crate::divergence::vertex_stage::VertexInterp;
use rsxtrace_capture::frame::state::raster::ShaderControl;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_gpu::FragmentResult;
use rsxtrace_program::fragment::{decode, FragmentInstruction, FragmentProgram, Precision};
use rsxtrace_replay::interp::fragment::{
    run_fragment_with, FragmentState, QuadOutputs, TranscendentalSkew,
};
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::texture::cache::TextureCache;
use rsxtrace_replay::texture::Sampler;
use rsxtrace_replay::wgsl::fragment::{translate, FragmentTranslateOptions};
use rsxtrace_replay::wgsl::TranslateError;

/// Quads per row of the evaluation image.
const IMAGE_QUADS_PER_ROW: usize = 128;
/// Clean fragment stages of this many first draws of the range keep images for the HTML
/// report; diverged stages always do.
pub const CLEAN_IMAGE_DRAWS: usize = 32;
/// Longest side of the report images.
const IMAGE_SIDE: u32 = 256;

/// A compared fragment output.
#[derive(Clone, Debug, PartialEq)]
struct Output {
    /// Report name, e.g. `COL0 (R0)`.
    name: String,
    /// Colour index 0..3.
    color: usize,
    class: Class,
}

/// The colour outputs `program` writes, with their class. An output counts as written when an
/// instruction writes it as the export's own register type: R n for 32-bit exports, H n for
/// fp16 exports (B.6). An fp32 temporary that merely overlaps an H export (R3 holds H6 and
/// H7) exports the raw halves of 32-bit floats, bits that no tolerance can judge; such
/// outputs are not compared.
///
/// The class is that of the value exported: the precision of the instructions whose results
/// reach the export. In a program without flow control these are, per component, the last
/// writers in slot order; with flow control every writer counts. fx12 when they are all fx12
/// or fx9; fp16 when they are all fp16 or fixed point (an R export whose final writes are
/// H-precision instructions holds binary16 values, judged by the fp16 tolerance); otherwise
/// fp32 for R exports and fp16 for H exports.
fn written_outputs(program: &FragmentProgram, control: u32) -> Vec<Output> {
    let r_exports = control & 0x40 != 0;
    let regs: [u8; 4] = if r_exports {
        [0, 2, 3, 4]
    } else {
        [0, 4, 6, 8]
    };
    let has_flow = program.instructions.iter().any(|i| i.opcode.is_flow());
    let mut out = Vec::new();
    for (color, &reg) in regs.iter().enumerate() {
        let writers: Vec<&FragmentInstruction> = program
            .instructions
            .iter()
            .filter(|i| i.alu().is_some() && !i.dest.no_dest)
            .filter(|i| i.dest.fp16 != r_exports && i.dest.index == reg)
            .collect();
        if writers.is_empty() {
            continue;
        }
        let reaching: Vec<Precision> = if has_flow {
            writers.iter().map(|i| i.dest.precision).collect()
        } else {
            (0..4)
                .filter_map(|c| writers.iter().rev().find(|i| i.dest.mask.has(c)))
                .map(|i| i.dest.precision)
                .collect()
        };
        let class = if reaching
            .iter()
            .all(|p| matches!(p, Precision::Fx12 | Precision::Fx9))
        {
            Class::Fx12
        } else if !r_exports || reaching.iter().all(|p| *p != Precision::Fp32) {
            Class::Fp16
        } else {
            Class::Fp32
        };
        out.push(Output {
            name: format!("COL{color} ({}{reg})", if r_exports { "R" } else { "H" }),
            color,
            class,
        });
    }
    out
}

/// The textures `program` samples in draw `draw`, on both sides, or why the stage is skipped.
pub fn bind_draw(
    frame: &Frame,
    draw: usize,
    program: &FragmentProgram,
    cache: &TextureCache,
) -> Result<Bound, String> {
    let d = frame
        .draws
        .get(draw)
        .ok_or_else(|| format!("draw {draw}: no such draw"))?;
    let memory = frame
        .memory(draw)
        .ok_or_else(|| format!("draw {draw}: no guest memory view"))?;
    bind(&d.textures, &memory, program.texture_units_read(), cache)
}

/// The draw's fragment program, or why the stage is skipped.
pub fn draw_program(d: &Draw) -> Result<FragmentProgram, String> {
    let fp = d.fragment_program.as_ref().ok_or_else(|| {
        let why: Vec<String> = d.problems.iter().map(|p| p.to_string()).collect();
        format!(
            "the fragment program is not in the capture ({})",
            why.join("; ")
        )
    })?;
    decode(&fp.ucode).map_err(|e| format!("fragment program does not decode: {e}"))
}

/// Recompile `program` for `d` and run it over `quads` on the device. The units' dimensions
/// and LOD state come from `textures` (the shader chooses levels with the interpreter's
/// rule); `hooked` names the draw whose options the context's test-only options hook edits;
/// the module and pipeline are kept or dropped after the run as `pipelines` says
/// (`Context::pipelines_of`).
pub fn run_gpu(
    control: ShaderControl,
    program: &FragmentProgram,
    quads: &[Quad],
    textures: &Bound,
    hooked: Option<usize>,
    cx: &Context<'_>,
    pipelines: Pipelines,
) -> Result<Vec<FragmentResult>, Outcome> {
    let mut options = FragmentTranslateOptions {
        texture_dims: textures.dims,
        texture_lod: textures.lod,
        ..FragmentTranslateOptions::with_control(control.raw)
    };
    if let (Some(draw), Some(hook)) = (hooked, cx.fragment_options_hook) {
        hook(draw, &mut options);
    }
    let module = cx
        .clock
        .time(Phase::Pipeline, || {
            let once = pipelines == Pipelines::Forget;
            cx.modules
                .fragment(program, &options, once, || translate(program, &options))
        })
        .map_err(|e| match e {
            TranslateError::Unsupported { .. } => Outcome::Skipped {
                reason: format!("fragment program not recompiled: {e}"),
            },
            e => Outcome::Failed {
                error: format!("fragment recompiler: {e}"),
            },
        })?;
    let per_row = IMAGE_QUADS_PER_ROW.min(quads.len()).max(1);
    let rows = quads.len().div_ceil(per_row);
    let (w, h) = (per_row * 2, rows * 2);
    let mut image = vec![[[0f32; 4]; rsxtrace_gpu::FP_INPUTS]; w * h];
    for (i, q) in quads.iter().enumerate() {
        let (qx, qy) = (i % per_row, i / per_row);
        for lane in 0..4 {
            let (x, y) = (qx * 2 + (lane & 1), qy * 2 + (lane >> 1));
            if let Some(px) = image.get_mut(y * w + x) {
                *px = q.inputs.lanes[lane].attributes;
            }
        }
    }
    let (w32, h32) = (
        u32::try_from(w).unwrap_or(u32::MAX),
        u32::try_from(h).unwrap_or(u32::MAX),
    );
    let pixels = cx.on_gpu(Phase::Gpu, |gpu| {
        gpu.run_fragment_eval(&module, w32, h32, &image, &textures.gpu)
    });
    cx.after_run(&module, pipelines);
    let pixels = pixels.map_err(|e| Outcome::Failed {
        error: format!("GPU fp_eval: {e}"),
    })?;
    // Back to quad order.
    let mut out = Vec::with_capacity(quads.len() * 4);
    for i in 0..quads.len() {
        let (qx, qy) = (i % per_row, i / per_row);
        for lane in 0..4 {
            let (x, y) = (qx * 2 + (lane & 1), qy * 2 + (lane >> 1));
            let px = pixels
                .get(y * w + x)
                .copied()
                .ok_or_else(|| Outcome::Failed {
                    error: format!("GPU fp_eval returned {} pixels for {w}x{h}", pixels.len()),
                })?;
            out.push(px);
        }
    }
    Ok(out)
}

/// Run the interpreter over `quads` in `arithmetic`.
pub fn interpret(
    control: ShaderControl,
    program: &FragmentProgram,
    quads: &[Quad],
    arithmetic: Arithmetic,
    sampler: &dyn Sampler,
) -> Result<Vec<QuadOutputs>, String> {
    interpret_skewed(
        control,
        program,
        quads,
        (arithmetic, TranscendentalSkew::None),
        sampler,
    )
}

/// [`interpret`] with the transcendental results moved by `skew` (a conditioning run).
fn interpret_skewed(
    control: ShaderControl,
    program: &FragmentProgram,
    quads: &[Quad],
    (arithmetic, skew): (Arithmetic, TranscendentalSkew),
    sampler: &dyn Sampler,
) -> Result<Vec<QuadOutputs>, String> {
    let mut state = FragmentState::new(control.raw);
    state.options.arithmetic = arithmetic;
    state.options.transcendental_skew = skew;
    run_fragment_with(
        program,
        &state,
        quads.len(),
        |i| quads.get(i).map(|q| q.inputs).unwrap_or_default(),
        sampler,
    )
    .map_err(|e| format!("fragment interpreter: {e}"))
}

/// RGBA8 of a colour.
fn rgba8(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// Images of colour output 0 over the compared pixels' bounding box (scaled down to
/// [`IMAGE_SIDE`] by nearest neighbour).
fn images(quads: &[Quad], gpu: &[FragmentResult], interp: &[QuadOutputs]) -> Option<StageImages> {
    let covered = || {
        quads.iter().enumerate().flat_map(|(i, q)| {
            (0..4usize)
                .filter(move |l| q.inputs.coverage & (1 << l) != 0)
                .map(move |l| {
                    (
                        i,
                        l,
                        q.origin[0] + (l as u32 & 1),
                        q.origin[1] + (l as u32 >> 1),
                    )
                })
        })
    };
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0u32, 0u32);
    for (_, _, x, y) in covered() {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    if x0 > x1 {
        return None;
    }
    let (bw, bh) = (x1 - x0 + 1, y1 - y0 + 1);
    let scale = bw.max(bh).div_ceil(IMAGE_SIDE).max(1);
    let (width, height) = (bw.div_ceil(scale), bh.div_ceil(scale));
    let n = (width * height * 4) as usize;
    let mut im = StageImages {
        width,
        height,
        gpu: vec![0; n],
        interpreter: vec![0; n],
        difference: vec![0; n],
    };
    for (i, l, x, y) in covered() {
        let at = ((((y - y0) / scale) * width + (x - x0) / scale) * 4) as usize;
        let (Some(g), Some(r)) = (gpu.get(i * 4 + l), interp.get(i).map(|q| &q.lanes[l])) else {
            continue;
        };
        let a = rgba8(g.colors[0]);
        let b = rgba8(r.colors[0].map(|c| c as f32));
        let diff = [0, 1, 2].map(|k| a[k].abs_diff(b[k]).saturating_mul(8));
        if let (Some(ga), Some(ia), Some(da)) = (
            im.gpu.get_mut(at..at + 4),
            im.interpreter.get_mut(at..at + 4),
            im.difference.get_mut(at..at + 4),
        ) {
            ga.copy_from_slice(&a);
            ia.copy_from_slice(&b);
            da.copy_from_slice(&[diff[0], diff[1], diff[2], 255]);
        }
    }
    Some(im)
}

/// Relative nudge of the texture-coordinate inputs for the conditioning run of stages that
/// sample textures: 2^-16, about 1/64 texel at u = 1 on a 1024-texel side, above the 8
/// sub-texel bits devices commonly resolve (Vulkan `subTexelPrecisionBits`, at least 4), so
/// a texel or level choice that the device may resolve either way shows up as a change.
/// Scaling the coordinates scales their quad derivatives too, so the level of detail moves
/// by log2(1 ± 2^-16), about ±2.2e-5: far more than the device's `log2`/`sqrt` error on the
/// shared LOD rule (a few ulp), so a pixel whose mip-nearest level, or mag/min choice, sits on
/// an LOD boundary is ill-conditioned, not divergent.
const NUDGE: f32 = 1.0 / 65536.0;

/// The quads with the x, y and z of every texture-coordinate input (TEX0..TEX9) scaled by
/// `factor`. Not w: a projective fetch (TXP) divides by it, so scaling w with the rest would
/// leave the projected coordinate unchanged and hide the sensitivity.
fn nudged(quads: &[Quad], factor: f32) -> Vec<Quad> {
    let mut out = quads.to_vec();
    for q in &mut out {
        for lane in &mut q.inputs.lanes {
            for a in lane.attributes.iter_mut().skip(4).take(10) {
                for c in a.iter_mut().take(3) {
                    *c *= factor;
                }
            }
        }
    }
    out
}

/// Conditioning runs: [texture coordinates up, down, transcendental results up, down, SIN and
/// COS arguments up, down].
pub const CONDITIONING_RUNS: usize = crate::divergence::compare::PERTURBED_RUNS;

/// Whether `program` evaluates a function the device computes to a documented accuracy
/// rather than exactly (the skewed set of `rsxtrace_replay::interp::fragment::skew`).
fn uses_transcendentals(program: &FragmentProgram) -> bool {
    use rsxtrace_program::fragment::FpOpcode as Op;
    program.instructions.iter().any(|i| {
        matches!(
            i.opcode,
            Op::Sin
                | Op::Cos
                | Op::Ex2
                | Op::Lg2
                | Op::Pow
                | Op::Rcp
                | Op::Rsq
                | Op::Div
                | Op::Divsq
        )
    })
}

/// The f32 interpreter's conditioning runs: on the quads nudged by 1 + [`NUDGE`] and
/// 1 − [`NUDGE`] when the program samples textures (both directions: a coordinate exactly on
/// a texel edge moves to the other texel only downwards), and with the transcendental results
/// skewed up and down when it evaluates any (`rsxtrace_replay::interp::fragment::skew`: the
/// device's accuracy of those functions, divisions and reciprocals).
fn conditioning_runs(
    control: ShaderControl,
    program: &FragmentProgram,
    quads: &[Quad],
    textures: &Bound,
) -> [Option<Vec<QuadOutputs>>; CONDITIONING_RUNS] {
    let sampler = &textures.sampler;
    let samples = program.texture_units_read() != 0;
    let transcendental = uses_transcendentals(program);
    let nudge = |f: f32| {
        samples
            .then(|| {
                interpret(
                    control,
                    program,
                    &nudged(quads, f),
                    Arithmetic::F32,
                    sampler,
                )
                .ok()
            })
            .flatten()
    };
    let skew = |k: TranscendentalSkew| {
        transcendental
            .then(|| interpret_skewed(control, program, quads, (Arithmetic::F32, k), sampler).ok())
            .flatten()
    };
    let trigonometric = program.instructions.iter().any(|i| {
        matches!(
            i.opcode,
            rsxtrace_program::fragment::FpOpcode::Sin | rsxtrace_program::fragment::FpOpcode::Cos
        )
    });
    let trig_skew = |k: TranscendentalSkew| {
        trigonometric
            .then(|| interpret_skewed(control, program, quads, (Arithmetic::F32, k), sampler).ok())
            .flatten()
    };
    [
        nudge(1.0 + NUDGE),
        nudge(1.0 - NUDGE),
        skew(TranscendentalSkew::Up),
        skew(TranscendentalSkew::Down),
        trig_skew(TranscendentalSkew::ArgumentUp),
        trig_skew(TranscendentalSkew::ArgumentDown),
    ]
}

/// The interpreter's results a comparison judges against.
struct Reference<'a> {
    /// f32 run.
    f32_out: &'a [QuadOutputs],
    /// f64 run.
    f64_out: &'a [QuadOutputs],
    /// The f32 conditioning runs ([`conditioning_runs`]).
    nudged: [Option<&'a [QuadOutputs]>; CONDITIONING_RUNS],
}

/// Compare the GPU's pixels with the interpreter's.
fn compare(
    control: ShaderControl,
    program: &FragmentProgram,
    quads: &[Quad],
    gpu: &[FragmentResult],
    reference: &Reference<'_>,
    cx: &Context<'_>,
) -> Vec<RegisterTally> {
    let (i32_, i64_) = (reference.f32_out, reference.f64_out);
    let tol = &cx.tolerances;
    let outputs = written_outputs(program, control.raw);
    let mut tallies: Vec<RegisterTally> = outputs
        .iter()
        .map(|o| RegisterTally::new(o.name.clone(), o.class))
        .collect();
    let depth = control.depth_export;
    let mut depth_tally = RegisterTally::new("DEPTH (R1.z)", Class::Fp32);
    let mut kil = RegisterTally::new("KIL", Class::Fp32);
    let mut element = 0usize;
    for (i, q) in quads.iter().enumerate() {
        for lane in 0..4usize {
            if q.inputs.coverage & (1 << lane) == 0 {
                continue;
            }
            let pixel = Some([
                q.origin[0] + (lane as u32 & 1),
                q.origin[1] + (lane as u32 >> 1),
            ]);
            let (Some(g), Some(a), Some(b)) = (
                gpu.get(i * 4 + lane),
                i32_.get(i).map(|o| &o.lanes[lane]),
                i64_.get(i).map(|o| &o.lanes[lane]),
            ) else {
                continue;
            };
            let n = reference
                .nudged
                .map(|n| n.and_then(|n| n.get(i)).map(|o| &o.lanes[lane]));
            let flag = |k: bool| if k { 1.0f32 } else { 0.0 };
            kil.add(
                Sample {
                    element,
                    pixel,
                    component: 0,
                    gpu: flag(g.killed),
                    reference: flag(a.killed),
                    reference_f64: f64::from(flag(b.killed)),
                    perturbed: n.map(|n| n.map(|n| flag(n.killed))),
                },
                tol,
            );
            if g.killed && a.killed {
                element += 1;
                continue;
            }
            for (o, t) in outputs.iter().zip(tallies.iter_mut()) {
                for c in 0..4 {
                    t.add(
                        Sample {
                            element,
                            pixel,
                            component: c,
                            gpu: g.colors[o.color][c],
                            reference: a.colors[o.color][c] as f32,
                            reference_f64: b.colors[o.color][c],
                            perturbed: n.map(|n| n.map(|n| n.colors[o.color][c] as f32)),
                        },
                        tol,
                    );
                }
            }
            if depth {
                depth_tally.add(
                    Sample {
                        element,
                        pixel,
                        component: 2,
                        gpu: g.depth,
                        reference: a.depth.unwrap_or(0.0) as f32,
                        reference_f64: b.depth.unwrap_or(0.0),
                        perturbed: n.map(|n| n.map(|n| n.depth.unwrap_or(0.0) as f32)),
                    },
                    tol,
                );
            }
            element += 1;
        }
    }
    if depth {
        tallies.push(depth_tally);
    }
    tallies.push(kil);
    tallies
}

/// Both sides of a fragment program over a set of quads, compared.
pub struct QuadCheck {
    /// Per compared register.
    pub registers: Vec<RegisterTally>,
    /// The device's results, four per quad.
    pub gpu: Vec<FragmentResult>,
    /// The interpreter's f32 results.
    pub reference: Vec<QuadOutputs>,
}

/// The interpreter (`programs.0`) and the device (`programs.1`, recompiled with `control`
/// and `textures`) over `quads`, compared per covered lane. The conditioning runs (f64,
/// nudged texture coordinates) are made only when something is outside tolerance. `Err` is the
/// stage's outcome when a side cannot run; `hooked` is the draw the context's test-only
/// options hook edits.
pub fn check_quads(
    control: ShaderControl,
    (program, gpu_program): (&FragmentProgram, &FragmentProgram),
    quads: &[Quad],
    textures: &Bound,
    hooked: Option<usize>,
    cx: &Context<'_>,
) -> Result<QuadCheck, Outcome> {
    let run = |a| {
        cx.clock.time(Phase::Interpreter, || {
            interpret(control, program, quads, a, &textures.sampler)
        })
    };
    let i32_ = run(Arithmetic::F32).map_err(|error| Outcome::Failed { error })?;
    let gpu = run_gpu(
        control,
        gpu_program,
        quads,
        textures,
        hooked,
        cx,
        cx.pipelines,
    )?;
    // Against the f32 run alone first (as its own f64 reference: nothing is ill-conditioned);
    // the conditioning runs (f64, nudged inputs) are made only when something is outside
    // tolerance, as only mismatches can be ill-conditioned.
    let alone = Reference {
        f32_out: &i32_,
        f64_out: &i32_,
        nudged: [None; CONDITIONING_RUNS],
    };
    let mut registers = cx.clock.time(Phase::Compare, || {
        compare(control, program, quads, &gpu, &alone, cx)
    });
    if registers.iter().any(|t| t.diverged > 0) {
        let i64_ = run(Arithmetic::F64).map_err(|error| Outcome::Failed { error })?;
        let nudged_out = cx.clock.time(Phase::Interpreter, || {
            conditioning_runs(control, program, quads, textures)
        });
        let reference = Reference {
            f32_out: &i32_,
            f64_out: &i64_,
            nudged: nudged_out.each_ref().map(|n| n.as_deref()),
        };
        registers = cx.clock.time(Phase::Compare, || {
            compare(control, program, quads, &gpu, &reference, cx)
        });
    }
    Ok(QuadCheck {
        registers,
        gpu,
        reference: i32_,
    })
}

/// The whole fragment stage of draw `vi.draw`.
pub fn verify(
    frame: &Frame,
    vi: &VertexInterp,
    keep_images: bool,
    cx: &Context<'_>,
) -> StageReport {
    let skipped =
        |reason: String| StageReport::not_compared(Stage::Fragment, Outcome::Skipped { reason });
    let Some(d) = frame.draws.get(vi.draw) else {
        return StageReport::not_compared(
            Stage::Fragment,
            Outcome::Failed {
                error: format!("draw {}: no such draw", vi.draw),
            },
        );
    };
    let program = match cx.clock.time(Phase::Fetch, || draw_program(d)) {
        Ok(p) => p,
        Err(reason) => return skipped(reason),
    };
    let textures = match cx.clock.time(Phase::Fetch, || {
        bind_draw(frame, vi.draw, &program, &cx.textures)
    }) {
        Ok(t) => t,
        Err(reason) => return skipped(reason),
    };
    let r = cx
        .clock
        .time(Phase::Raster, || rasterize(d, vi, cx.max_pixels));
    if r.quads.is_empty() {
        return skipped("the draw covers no pixel".to_string());
    }
    let mut gpu_program = program.clone();
    if let Some(hook) = cx.fragment_hook {
        hook(vi.draw, &mut gpu_program);
    }
    let checked = check_quads(
        d.shader_control,
        (&program, &gpu_program),
        &r.quads,
        &textures,
        Some(vi.draw),
        cx,
    );
    let QuadCheck {
        registers,
        gpu,
        reference: i32_,
    } = match checked {
        Ok(c) => c,
        Err(o) => return StageReport::not_compared(Stage::Fragment, o),
    };
    let mut report = StageReport::compared(Stage::Fragment, registers, r.kept);
    report.covered = (r.kept < r.covered).then_some(r.covered);
    // Clean stages keep images only for the first draws of the range, so that a frame of
    // thousands of draws gives a report of bounded size.
    let diverged = report.outcome == Outcome::Diverged;
    if keep_images && (diverged || vi.draw < cx.first_draw + CLEAN_IMAGE_DRAWS) {
        report.images = images(&r.quads, &gpu, &i32_);
    }
    report
}

/// Results the negative control needs: the interpreter's outputs of a draw's fragment stage.
pub struct FragmentBaseline {
    /// The program.
    pub program: FragmentProgram,
    /// Rasterized quads.
    pub raster: Rasterized,
    /// Interpreter f32 outputs.
    pub f32_out: Vec<QuadOutputs>,
    /// Interpreter f64 outputs.
    pub f64_out: Vec<QuadOutputs>,
    /// The interpreter's f32 conditioning runs (`conditioning_runs`).
    pub nudged_out: [Option<Vec<QuadOutputs>>; CONDITIONING_RUNS],
    /// Textures on both sides.
    pub textures: Bound,
}

/// The interpreter side of the fragment stage, for the negative control; `None` when the
/// stage would be skipped or fails.
pub fn baseline(frame: &Frame, vi: &VertexInterp, cx: &Context<'_>) -> Option<FragmentBaseline> {
    let d = frame.draws.get(vi.draw)?;
    let program = draw_program(d).ok()?;
    let textures = bind_draw(frame, vi.draw, &program, &cx.textures).ok()?;
    let raster = rasterize(d, vi, cx.max_pixels);
    baseline_of(program, d.shader_control, raster, textures)
}

/// The interpreter side of `program` over `raster`'s quads (f32, f64 and the nudged runs);
/// `None` when there is no quad or the interpreter fails.
pub fn baseline_of(
    program: FragmentProgram,
    control: ShaderControl,
    raster: Rasterized,
    textures: Bound,
) -> Option<FragmentBaseline> {
    if raster.quads.is_empty() {
        return None;
    }
    let s = &textures.sampler;
    let f32_out = interpret(control, &program, &raster.quads, Arithmetic::F32, s).ok()?;
    let f64_out = interpret(control, &program, &raster.quads, Arithmetic::F64, s).ok()?;
    let nudged_out = conditioning_runs(control, &program, &raster.quads, &textures);
    Some(FragmentBaseline {
        program,
        raster,
        f32_out,
        f64_out,
        nudged_out,
        textures,
    })
}

/// Whether `mutated` (run on the interpreter) changes any compared output of `base`, and
/// whether the GPU run of `mutated` diverges from `base` (`Err` when the GPU side fails,
/// which counts as detected).
pub fn mutation_effect(
    control: ShaderControl,
    base: &FragmentBaseline,
    mutated: &FragmentProgram,
    cx: &Context<'_>,
) -> Result<(bool, bool), Outcome> {
    let sampler = &base.textures.sampler;
    let reference = Reference {
        f32_out: &base.f32_out,
        f64_out: &base.f64_out,
        nudged: base.nudged_out.each_ref().map(|n| n.as_deref()),
    };
    let changed = match interpret(
        control,
        mutated,
        &base.raster.quads,
        Arithmetic::F32,
        sampler,
    ) {
        Ok(m) => {
            let regs = compare_outputs(
                control,
                &base.program,
                &base.raster.quads,
                &m,
                &reference,
                cx,
            );
            regs.iter().any(|t| t.diverged > 0)
        }
        Err(_) => true,
    };
    let gpu = run_gpu(
        control,
        mutated,
        &base.raster.quads,
        &base.textures,
        None,
        cx,
        cx.pipelines_of(true),
    )?;
    let regs = compare(
        control,
        &base.program,
        &base.raster.quads,
        &gpu,
        &reference,
        cx,
    );
    Ok((changed, regs.iter().any(|t| t.diverged > 0)))
}

/// [`compare`] with interpreter outputs in place of the GPU's.
fn compare_outputs(
    control: ShaderControl,
    program: &FragmentProgram,
    quads: &[Quad],
    other: &[QuadOutputs],
    reference: &Reference<'_>,
    cx: &Context<'_>,
) -> Vec<RegisterTally> {
    let as_gpu: Vec<FragmentResult> = other
        .iter()
        .flat_map(|q| {
            q.lanes.iter().map(|l| FragmentResult {
                colors: l.colors.map(|c| c.map(|v| v as f32)),
                depth: l.depth.unwrap_or(0.0) as f32,
                killed: l.killed,
            })
        })
        .collect();
    compare(control, program, quads, &as_gpu, reference, cx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_replay::interp::fragment::QuadInputs;
    use rsxtrace_replay::raster::coverage::triangle_weights_at_position;
    use rsxtrace_replay::raster::WindowVertex;

    fn wv(x: f32, y: f32, inv_w: f32) -> WindowVertex {
        WindowVertex {
            x,
            y,
            z: 0.5,
            inv_w,
        }
    }

    #[test]
    fn the_nudge_moves_projected_coordinates() {
        // TXP divides xyz by w: the nudge must change xyz / w, so w stays as it is, and
        // inputs other than TEX0..TEX9 (attributes 4..13) are untouched.
        let mut quad = Quad {
            inputs: QuadInputs::default(),
            origin: [0, 0],
        };
        for lane in &mut quad.inputs.lanes {
            for a in lane.attributes.iter_mut() {
                *a = [2.0, 4.0, 8.0, 0.5];
            }
        }
        let out = nudged(&[quad], 2.0);
        for lane in &out[0].inputs.lanes {
            for (n, a) in lane.attributes.iter().enumerate() {
                let want = if (4..14).contains(&n) {
                    [4.0, 8.0, 16.0, 0.5]
                } else {
                    [2.0, 4.0, 8.0, 0.5]
                };
                assert_eq!(*a, want, "attribute {n}");
            }
        }
        let projected = |a: [f32; 4]| [a[0] / a[3], a[1] / a[3], a[2] / a[3]];
        assert_ne!(
            projected(out[0].inputs.lanes[0].attributes[4]),
            projected(quad.inputs.lanes[0].attributes[4])
        );
    }

    #[test]
    fn weights_are_perspective_correct_and_extend_outside() {
        // (0,0), (4,0), (0,4): at (1,1) the screen weights are (1/2, 1/4, 1/4).
        let t = [wv(0.0, 0.0, 1.0), wv(4.0, 0.0, 1.0), wv(0.0, 4.0, 1.0)];
        let (w, z, inv_w) = triangle_weights_at_position(&t, 1.0, 1.0).unwrap();
        assert_eq!(w, [0.5, 0.25, 0.25]);
        assert_eq!((z, inv_w), (0.5, 1.0));
        // 1/w of 1, 1/2, 1/4: q = (1/2, 1/8, 1/16), sum 11/16.
        let t = [wv(0.0, 0.0, 1.0), wv(4.0, 0.0, 0.5), wv(0.0, 4.0, 0.25)];
        let (w, _, inv_w) = triangle_weights_at_position(&t, 1.0, 1.0).unwrap();
        assert_eq!(inv_w, 0.6875);
        assert_eq!(
            w,
            [
                (0.5 / 0.6875) as f32,
                (0.125 / 0.6875) as f32,
                (0.0625 / 0.6875) as f32
            ]
        );
        // Outside the triangle the plane equations extend: (5,5) = (-3/2, 5/4, 5/4).
        let t = [wv(0.0, 0.0, 1.0), wv(4.0, 0.0, 1.0), wv(0.0, 4.0, 1.0)];
        assert_eq!(
            triangle_weights_at_position(&t, 5.0, 5.0).unwrap().0,
            [-1.5, 1.25, 1.25]
        );
        // Degenerate: none.
        let line = [wv(0.0, 0.0, 1.0), wv(4.0, 0.0, 1.0), wv(8.0, 0.0, 1.0)];
        assert!(triangle_weights_at_position(&line, 1.0, 1.0).is_none());
    }

    /// MOV R0, f[COL0]; END (rsx-microcode.md B.1, primitives.fpo).
    fn mov_r0() -> FragmentProgram {
        decode(&[
            0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00,
            0x3f, 0xe1,
        ])
        .unwrap()
    }

    #[test]
    fn outputs_follow_the_export_mode_and_precision() {
        let p = mov_r0();
        let r = written_outputs(&p, 0x40);
        assert_eq!(
            r,
            [Output {
                name: "COL0 (R0)".to_string(),
                color: 0,
                class: Class::Fp32
            }]
        );
        // H exports: an fp32 R0 only overlaps H0: not an export write.
        assert!(written_outputs(&p, 0).is_empty());
        let mut h = p.clone();
        h.instructions[0].dest.fp16 = true;
        let w = written_outputs(&h, 0);
        assert_eq!((w[0].name.as_str(), w[0].class), ("COL0 (H0)", Class::Fp16));
        h.instructions[0].dest.index = 4;
        assert_eq!(written_outputs(&h, 0)[0].name, "COL1 (H4)");
        // H5 (the second half of R2) is no export.
        h.instructions[0].dest.index = 5;
        assert!(written_outputs(&h, 0).is_empty());
        let mut fx = p.clone();
        fx.instructions[0].dest.precision = Precision::Fx12;
        assert_eq!(written_outputs(&fx, 0x40)[0].class, Class::Fx12);
        let mut r2 = p.clone();
        r2.instructions[0].dest.index = 2;
        assert_eq!(written_outputs(&r2, 0x40)[0].name, "COL1 (R2)");
    }

    #[test]
    fn the_class_is_the_precision_of_the_writes_that_reach_the_export() {
        use rsxtrace_program::fragment::WriteMask;
        // MOVR R0 then MOVH-precision R0: R0 holds binary16 values (fp16 class).
        let mut p = mov_r0();
        let mut last = p.instructions[0];
        last.dest.precision = Precision::Fp16;
        p.instructions.push(last);
        assert_eq!(written_outputs(&p, 0x40)[0].class, Class::Fp16);
        // A last write of x only leaves y, z, w from the fp32 write: fp32.
        p.instructions[1].dest.mask = WriteMask(1);
        assert_eq!(written_outputs(&p, 0x40)[0].class, Class::Fp32);
        // fx12 over every component reaching the export: fx12.
        p.instructions[1].dest.mask = WriteMask::XYZW;
        p.instructions[1].dest.precision = Precision::Fx12;
        assert_eq!(written_outputs(&p, 0x40)[0].class, Class::Fx12);
    }
}
