//! Every genuine program of `shared/corpus` run on the device (the `rsxtrace_wgsl` recompiler's
//! module through `rsxtrace_gpu`) and in the reference interpreter on the same inputs,
//! compared component by component:
//!
//! - vertex: the ps3autotests `sce_cube_common.vpo` and `primitives.vpo` and Tiny3D's
//!   `vshader_text_normal.rvp` (real branches), 256 vertices of seeded random inputs in
//!   [-4, 4], all 468 constants seeded random in [-2, 2], branch bits 0; every written output;
//! - fragment: every ps3autotests `.fpo` (with its container control word) and the 13 Tiny3D
//!   programs of `nv_shaders_fp.json` (control 0x40), a 16 × 16 image of smooth inputs whose
//!   2 × 2 blocks are the interpreter's quads, a 2 × 2 nearest-filtered texture on unit 0
//!   (as `gpu_fragment_ops.rs` binds it); colours 0..3, depth and kill.
//!
//! Rule (as in `gpu_vertex_ops.rs` / `gpu_fragment_ops.rs`): equal bits, any NaN matching any
//! NaN, ±0 and a device-flushed subnormal accepted; MAD may be fused or not on the device
//! (Vulkan: `Fma` precision "inherited from OpFMul followed by OpFAdd"), so an output equal to
//! the interpreter's unfused run also passes. Programs using transcendental ops get the Vulkan
//! bound of that op, carried to the outputs as stated at [`program_tolerance`].

use crate::gpu_support;

use rsxtrace_testkit::{tiny3d, Corpus};

use gpu_support::{nearest_2x2, Nearest2x2, Rng, Tolerance};
use rsxtrace_gpu::{Gpu, TextureBinding, FP_INPUTS, TEXTURE_UNITS, VP_CONSTANTS};
use rsxtrace_program::container::Container;
use rsxtrace_program::fragment::{decode, decode_words, FpOpcode as Op, FragmentProgram};
use rsxtrace_program::vertex::{self as pv, ScalarOpcode as S, VertexProgram};
use rsxtrace_replay::interp::fragment::{run_fragment, FragmentState, LaneInputs, QuadInputs};
use rsxtrace_replay::interp::vertex as iv;
use rsxtrace_wgsl::fragment::{translate, FragmentTranslateOptions};
use rsxtrace_wgsl::vertex as tv;

const W: u32 = 16;
const H: u32 = 16;
const VERTICES: usize = 256;

type Pixel = [[f32; 4]; FP_INPUTS];
type Attrs = [[f32; 4]; 16];
type Textures = [Option<TextureBinding>; TEXTURE_UNITS as usize];

/// What one program's comparison found.
#[derive(Default)]
struct Stats {
    compared: usize,
    /// Components not bit-equal (any NaN matching) yet accepted by a rule.
    inexact: usize,
    /// Distinct interpreter values (a program whose outputs never vary would test little).
    distinct: std::collections::BTreeSet<u32>,
    max_diff: f32,
    bad: Vec<String>,
}

impl Stats {
    fn note(&mut self, gpu: f32, cpu: f32) {
        self.compared += 1;
        self.distinct.insert(cpu.to_bits());
        if !gpu_support::same(gpu, cpu) {
            self.inexact += 1;
        }
        if gpu.is_finite() && cpu.is_finite() {
            self.max_diff = self.max_diff.max((gpu - cpu).abs());
        } else if !gpu_support::same(gpu, cpu) {
            self.max_diff = f32::INFINITY;
        }
    }

    fn report(&self, name: &str) {
        println!(
            "{name}: {} values compared ({} distinct), max difference {:e}, {} not bit-equal \
             but within the rules, {} mismatches",
            self.compared,
            self.distinct.len(),
            self.max_diff,
            self.inexact,
            self.bad.len()
        );
    }
}

// ---------------------------------------------------------------------------------------
// Vertex programs
// ---------------------------------------------------------------------------------------

/// The tolerance of a whole vertex program's outputs: exact unless it uses a scalar op whose
/// device precision Vulkan bounds (see `gpu_vertex_ops.rs::scalar_tolerance`).
fn vertex_tolerance(p: &VertexProgram) -> Tolerance {
    let mut ulps = 0u64;
    for i in &p.instructions {
        ulps = ulps.max(match i.scalar {
            // OpFDiv 1/x 2.5 ULP, RSQ 1/sqrt 2 + 2.5 ULP (rounded up, as gpu_vertex_ops.rs).
            S::Rcp | S::Rcc => 3,
            S::Rsq => 5,
            _ => 0,
        });
    }
    if ulps == 0 {
        Tolerance::Exact
    } else {
        Tolerance::Ulps(ulps)
    }
}

fn check_vertex(gpu: &Gpu, name: &str, bytes: &[u8]) -> Stats {
    let c = Container::parse(bytes).unwrap_or_else(|e| panic!("{name}: container: {e}"));
    let p = pv::decode_bytes(c.ucode()).unwrap_or_else(|e| panic!("{name}: decode: {e}"));
    let mut rng = Rng::new(0x5EED_0001);
    let mut consts = Box::new([[0f32; 4]; VP_CONSTANTS]);
    for v in consts.iter_mut() {
        for c in v.iter_mut() {
            *c = rng.range(-2.0, 2.0);
        }
    }
    let mut bank = iv::ConstantBank::new();
    assert!(bank.set_range(0, &consts[..]), "{name}: constant bank");
    let inputs: Vec<Attrs> = (0..VERTICES)
        .map(|_| {
            let mut v = [[0f32; 4]; 16];
            for c in v.iter_mut().flatten() {
                *c = rng.range(-4.0, 4.0);
            }
            v
        })
        .collect();
    let env = iv::VertexEnvironment {
        branch_bits: Some(0),
        ..iv::VertexEnvironment::new(&bank)
    };
    let iopt = iv::VertexOptions::default();
    let unfused = iv::VertexOptions {
        rules: iv::VertexRules {
            mad: iv::MadRounding::Separate,
            ..iopt.rules
        },
        ..iopt
    };
    let cpu = iv::run_vertex(&p, &[], &env, &inputs, &iopt)
        .unwrap_or_else(|e| panic!("{name}: interpreter: {e}"));
    let alt = iv::run_vertex(&p, &[], &env, &inputs, &unfused)
        .unwrap_or_else(|e| panic!("{name}: interpreter (unfused MAD): {e}"));
    let module = tv::translate(&p, &[], &tv::VertexTranslateOptions::default())
        .unwrap_or_else(|e| panic!("{name}: translate: {e}"));
    let out = gpu
        .run_vertex_compute(&module, &consts, &inputs, 0)
        .unwrap_or_else(|e| panic!("{name}: device: {e}"));
    assert_eq!(out.len(), cpu.lanes.len(), "{name}: vertex count");
    let tol = vertex_tolerance(&p);
    let mut s = Stats::default();
    for (n, ((g, l), a)) in out.iter().zip(&cpu.lanes).zip(&alt.lanes).enumerate() {
        if g.written != l.written {
            s.bad.push(format!(
                "{name} vertex {n}: written {:#x} on the device, {:#x} in the interpreter",
                g.written, l.written
            ));
            continue;
        }
        for reg in 0..16 {
            if l.written & (1 << reg) == 0 {
                continue;
            }
            for k in 0..4 {
                let (gv, cv) = (g.registers[reg][k], l.registers[reg][k] as f32);
                s.note(gv, cv);
                let alt_ok = gpu_support::same(gv, a.registers[reg][k] as f32);
                if !alt_ok && !tol.accepts(gv, cv) && s.bad.len() < 12 {
                    s.bad.push(format!(
                        "{name} vertex {n} o[{reg}].{}: device {gv:e} ({:#010x}), interpreter \
                         {cv:e} ({:#010x})",
                        ["x", "y", "z", "w"][k],
                        gv.to_bits(),
                        cv.to_bits()
                    ));
                }
            }
        }
    }
    assert!(s.compared > 0, "{name}: nothing written");
    s
}

#[test]
fn every_corpus_vertex_program_matches_the_interpreter() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let Some(gpu) = gpu_support::gpu("every_corpus_vertex_program_matches_the_interpreter") else {
        return;
    };
    let mut bad = Vec::new();
    for rel in [
        "ps3autotests/sce_cube_common.vpo",
        "ps3autotests/primitives.vpo",
        tiny3d::VERTEX_PROGRAM,
    ] {
        let s = check_vertex(&gpu, rel, &corpus.read(rel));
        assert!(s.distinct.len() > 1, "{rel}: constant outputs");
        s.report(rel);
        bad.extend(s.bad);
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Fragment programs
// ---------------------------------------------------------------------------------------

/// The 2 × 2 texture bound on every unit `p` samples (unit 0 for most programs; Tiny3D's
/// `nv30_fp_texture2` samples unit 1 as well).
fn textures(p: &FragmentProgram) -> Textures {
    let mut t: Textures = Default::default();
    let binding = nearest_2x2();
    for i in p.instructions.iter().filter(|i| is_texture(i.opcode)) {
        if let Some(slot) = t.get_mut(usize::from(i.texture_unit)) {
            *slot = Some(binding.clone());
        }
    }
    t
}

/// Smooth inputs at pixel (x, y), sampled at the pixel centre so a texture coordinate is never
/// on a texel edge (0.5): WPOS = (x + 0.5, y + 0.5, 0.5, 1), COL0/COL1 in [0, 1], FOGC, TEX0 =
/// (u, v, 0, 1) with u = (x + 0.5) / 16, the other TEXn smooth functions of u and v.
fn pixels() -> Vec<Pixel> {
    (0..W * H)
        .map(|i| {
            let (x, y) = ((i % W) as f32 + 0.5, (i / W) as f32 + 0.5);
            let (u, v) = (x / W as f32, y / H as f32);
            let mut p = [[0f32; 4]; FP_INPUTS];
            p[0] = [x, y, 0.5, 1.0];
            p[1] = [u, v, 1.0 - u, 1.0];
            p[2] = [v * u, 1.0 - v, 0.5 * u, 0.75];
            p[3] = [u * 0.5 + v * 0.25, 0.0, 0.0, 0.0];
            p[4] = [u, v, 0.0, 1.0];
            for (n, t) in p[5..14].iter_mut().enumerate() {
                let f = n as f32 + 1.0;
                *t = [u * f - v, v * 0.5 + u * u, (u - 0.5) * f, 1.0 + v / f];
            }
            p[14] = [1.0, 0.0, 0.0, 0.0];
            p
        })
        .collect()
}

/// The tolerance of a whole fragment program's outputs: exact unless it uses an op whose device
/// precision Vulkan bounds (`gpu_fragment_ops.rs::alu_tolerance`); with several such ops, the
/// largest bound.
fn fragment_tolerance(p: &FragmentProgram) -> Tolerance {
    let mut t = Tolerance::Exact;
    for i in &p.instructions {
        let this = match i.opcode {
            Op::Rcp | Op::Div => Tolerance::Ulps(3),
            Op::Rsq | Op::Divsq => Tolerance::Ulps(5),
            Op::Nrm => Tolerance::Ulps(6),
            Op::Lg2 => Tolerance::AbsOrUlps(2f32.powi(-21), 3),
            Op::Sin | Op::Cos => Tolerance::AbsOrUlps(2f32.powi(-11), 0),
            _ => Tolerance::Exact,
        };
        t = wider(t, this);
    }
    t
}

fn wider(a: Tolerance, b: Tolerance) -> Tolerance {
    let parts = |t: Tolerance| match t {
        Tolerance::Exact => (0.0, 0),
        Tolerance::Ulps(n) => (0.0, n),
        Tolerance::AbsOrUlps(d, n) => (d, n),
        Tolerance::Any => (f32::INFINITY, u64::MAX),
    };
    let ((da, na), (db, nb)) = (parts(a), parts(b));
    let (d, n) = (da.max(db), na.max(nb));
    match (d == 0.0, n == 0) {
        (true, true) => Tolerance::Exact,
        (true, false) => Tolerance::Ulps(n),
        _ => Tolerance::AbsOrUlps(d, n),
    }
}

fn is_texture(op: Op) -> bool {
    matches!(
        op,
        Op::Tex | Op::Txp | Op::Txd | Op::Txl | Op::Txb | Op::Texbem | Op::Txpbem
    )
}

fn uses_texture(p: &FragmentProgram) -> bool {
    p.instructions.iter().any(|i| is_texture(i.opcode))
}

/// Programs whose outputs amplify ULP-level differences by orders of magnitude, so that no
/// per-value tolerance applies: the reason, or `None`. Their device images are compared with
/// the interpreter's in `hardware_images.rs` (share of pixels within 1/255).
fn chaotic(name: &str) -> Option<&'static str> {
    match name {
        // hash(x) = frac(cos(dot(x, (2.31, 53.21)) * 124.123) * 412) of thousands of radians
        // (plus a hash of sin(x * 0.0127863) * 17143.32): a 1-ULP change of the dot product
        // moves the angle by about 5e-4 and the hash by up to 0.2.
        "rsx_fp_static_test4.fpo" => Some("hash of cos of thousands of radians"),
        // 90 ray-marching steps through frac(p) and floor(p): a ULP-level change of the ray
        // can land it in a neighbouring cell.
        "rsx_fp_static_test3.fpo" => Some("ray marching through floor/frac cells"),
        _ => None,
    }
}

fn check_fragment(
    gpu: &Gpu,
    name: &str,
    p: &FragmentProgram,
    control: u32,
    inputs: &[Pixel],
) -> Stats {
    let quads: Vec<QuadInputs> = (0..(W / 2) * (H / 2))
        .map(|q| {
            let (qx, qy) = ((q % (W / 2)) * 2, (q / (W / 2)) * 2);
            let mut quad = QuadInputs {
                coverage: 0xF,
                ..Default::default()
            };
            for (l, lane) in quad.lanes.iter_mut().enumerate() {
                let (x, y) = (qx + (l as u32 & 1), qy + (l as u32 >> 1));
                *lane = LaneInputs {
                    attributes: inputs[(y * W + x) as usize],
                };
            }
            quad
        })
        .collect();
    let state = FragmentState::new(control);
    let mut unfused = state;
    unfused.options.fused_mad = false;
    let cpu = run_fragment(p, &state, &quads, &Nearest2x2)
        .unwrap_or_else(|e| panic!("{name}: interpreter: {e}"));
    let alt = run_fragment(p, &unfused, &quads, &Nearest2x2)
        .unwrap_or_else(|e| panic!("{name}: interpreter (unfused MAD): {e}"));
    let module = translate(p, &FragmentTranslateOptions::with_control(control))
        .unwrap_or_else(|e| panic!("{name}: translate: {e}"));
    let tex = textures(p);
    let out = gpu
        .run_fragment_eval(&module, W, H, inputs, &tex)
        .unwrap_or_else(|e| panic!("{name}: device: {e}"));
    assert_eq!(out.len(), (W * H) as usize, "{name}: pixel count");
    let tol = fragment_tolerance(p);
    let mut s = Stats::default();
    for (i, g) in out.iter().enumerate() {
        let (x, y) = (i as u32 % W, i as u32 / W);
        let (qi, li) = (
            ((y / 2) * (W / 2) + x / 2) as usize,
            ((x & 1) + 2 * (y & 1)) as usize,
        );
        let (l, a) = (&cpu[qi].lanes[li], &alt[qi].lanes[li]);
        if g.killed != l.killed {
            s.bad.push(format!(
                "{name} pixel ({x}, {y}): killed {} on the device, {} in the interpreter",
                g.killed, l.killed
            ));
        }
        if let Some(d) = l.depth {
            s.note(g.depth, d as f32);
            if !tol.accepts(g.depth, d as f32) {
                s.bad
                    .push(format!("{name} pixel ({x}, {y}): depth {} vs {d}", g.depth));
            }
        }
        for c in 0..4 {
            for k in 0..4 {
                let (gv, cv) = (g.colors[c][k], l.colors[c][k] as f32);
                s.note(gv, cv);
                let alt_ok = gpu_support::same(gv, a.colors[c][k] as f32);
                if !alt_ok && !tol.accepts(gv, cv) && s.bad.len() < 12 {
                    s.bad.push(format!(
                        "{name} pixel ({x}, {y}) colour {c}.{}: device {gv:e} ({:#010x}), \
                         interpreter {cv:e} ({:#010x}); inputs {:?}",
                        ["x", "y", "z", "w"][k],
                        gv.to_bits(),
                        cv.to_bits(),
                        &inputs[i][..5]
                    ));
                }
            }
        }
    }
    s
}

/// The ps3autotests `.fpo` programs with their control words, by name.
fn fpo_programs(corpus: &Corpus) -> Vec<(String, FragmentProgram, u32)> {
    corpus
        .files_ending("ps3autotests", ".fpo")
        .into_iter()
        .map(|rel| {
            let bytes = corpus.read(&rel);
            let name = rel.trim_start_matches("ps3autotests/").to_string();
            let c = Container::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            let control = c
                .control_word()
                .unwrap_or_else(|| panic!("{name}: no control word"));
            let p = decode(c.ucode()).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, p, control)
        })
        .collect()
}

/// The Tiny3D programs of `nv_shaders_fp.json`, decoded.
fn tiny3d_programs(corpus: &Corpus) -> Vec<(String, FragmentProgram)> {
    corpus
        .tiny3d_fragment_programs()
        .into_iter()
        .map(|p| {
            let program = decode_words(&p.words()).unwrap_or_else(|e| panic!("{}: {e}", p.name));
            (p.name, program)
        })
        .collect()
}

#[test]
fn every_corpus_fragment_program_matches_the_interpreter() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let Some(gpu) = gpu_support::gpu("every_corpus_fragment_program_matches_the_interpreter")
    else {
        return;
    };
    let inputs = pixels();
    let fpos = fpo_programs(&corpus);
    // primitives, texture_formats, rsx_fp_dynamic_test1-2, rsx_fp_static_test1-5.
    assert_eq!(fpos.len(), 9, "ps3autotests .fpo count");
    let tiny = tiny3d_programs(&corpus);
    assert_eq!(tiny.len(), 13, "Tiny3D program count");
    let mut bad = Vec::new();
    let mut textured = 0;
    for (name, p, control) in fpos
        .iter()
        .map(|(n, p, c)| (n.clone(), p, *c))
        .chain(tiny.iter().map(|(n, p)| (format!("tiny3d {n}"), p, 0x40)))
    {
        textured += usize::from(uses_texture(p));
        let s = check_fragment(&gpu, &name, p, control, &inputs);
        assert!(s.distinct.len() > 1, "{name}: constant outputs");
        s.report(&format!("{name} (control {control:#x})"));
        if let Some(reason) = chaotic(&name) {
            // Accepted, with the reason; their agreement is judged on whole images instead.
            for b in &s.bad {
                println!("accepted ({reason}): {b}");
            }
            continue;
        }
        bad.extend(s.bad);
    }
    assert!(textured >= 1, "texture_formats.fpo samples a texture");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
