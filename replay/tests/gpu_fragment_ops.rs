//! Every fragment opcode the recompiler translates, run on the device (`run_fragment_eval` of
//! the `rsxtrace_wgsl::fragment::translate` module) and in the reference interpreter
//! (`run_fragment`, f32) on the same per-pixel inputs, a 32 × 16 image whose 2 × 2 pixel
//! blocks are the interpreter's quads: 256 pixels of edge-case combinations (±0, ±1, 1e±30,
//! NaN, ±inf, 65504, 70000...) and 256 random ones. Each ALU op is run twice: into R0 (R
//! exports) and into H0 (H exports, so the result goes through binary16: truncation by default,
//! 70000 to 65504; both conversions in `both_fp16_conversions_match_the_interpreter`). Then the result precisions and modifiers, flow control and KIL,
//! derivatives on smooth inputs, and the texture instructions on a 2 × 2 texture with nearest
//! filtering.
//!
//! Rule: equal bits (any NaN matches any NaN; a subnormal flushed to zero by the device is
//! accepted, see `gpu_support::flushed`) except for the transcendental ops, whose tolerance
//! is the Vulkan precision of the SPIR-V instruction the WGSL becomes, widened to one binary16
//! step for H destinations (a few-ULP f32 difference can round to neighbouring halves).

use crate::fragment_interp_support;
use crate::gpu_support;

use fragment_interp_support::*;
use gpu_support::{nearest_2x2, Nearest2x2, Rng, Tolerance, EDGES};
use rsxtrace_gpu::{Gpu, TextureBinding, FP_INPUTS, TEXTURE_UNITS};
use rsxtrace_program::coverage::{Opcode, Support};
use rsxtrace_program::fragment::{
    FlowKind, FpOpcode as Op, FragmentInstruction, LoopFields, OutputScale, Precision,
    PrecisionModifier, Relation,
};
use rsxtrace_replay::coverage::translate_support;
use rsxtrace_replay::interp::fragment::{
    run_fragment, FragmentOptions, FragmentState, HalfRounding, LaneInputs, QuadInputs,
    TrigReduction,
};
use rsxtrace_replay::texture::{NoTextures, Sampler};
use rsxtrace_wgsl::fragment::{translate, FragmentTranslateOptions};

const W: u32 = 32;
const H: u32 = 16;
/// Input attributes of the three operands: TEX0, TEX1, TEX2 (ABI.md `FpInputs`).
const OPERANDS: [u8; 3] = [4, 5, 6];

type Pixel = [[f32; 4]; FP_INPUTS];
type Textures = [Option<TextureBinding>; TEXTURE_UNITS as usize];

/// Per-component tolerance, given the pixel's inputs, the colour output and the component.
type Tol<'a> = &'a dyn Fn(&Pixel, usize, usize) -> Tolerance;

/// The device's colours, depth and kill flags for `p` against the interpreter's; returns the
/// mismatch descriptions (at most 12).
#[allow(clippy::too_many_arguments)]
fn compare(
    gpu: &Gpu,
    name: &str,
    insns: Vec<FragmentInstruction>,
    control: u32,
    pixels: &[Pixel],
    sampler: &dyn Sampler,
    textures: &Textures,
    tol: Tol,
) -> Vec<String> {
    compare_alt(
        gpu, name, insns, control, pixels, sampler, textures, tol, None,
    )
}

/// [`compare`], also accepting a component equal to the interpreter's result under `alt`
/// (a rule the device may legitimately follow instead, e.g. unfused MAD).
#[allow(clippy::too_many_arguments)]
fn compare_alt(
    gpu: &Gpu,
    name: &str,
    insns: Vec<FragmentInstruction>,
    control: u32,
    pixels: &[Pixel],
    sampler: &dyn Sampler,
    textures: &Textures,
    tol: Tol,
    alt: Option<&FragmentState>,
) -> Vec<String> {
    compare_rounding(
        gpu,
        name,
        insns,
        control,
        pixels,
        sampler,
        textures,
        tol,
        alt,
        HalfRounding::default(),
    )
}

/// [`compare_alt`] with the fp16 conversion `half` on both sides.
#[allow(clippy::too_many_arguments)]
fn compare_rounding(
    gpu: &Gpu,
    name: &str,
    insns: Vec<FragmentInstruction>,
    control: u32,
    pixels: &[Pixel],
    sampler: &dyn Sampler,
    textures: &Textures,
    tol: Tol,
    alt: Option<&FragmentState>,
    half: HalfRounding,
) -> Vec<String> {
    compare_rules(
        gpu,
        name,
        insns,
        control,
        pixels,
        (sampler, textures),
        tol,
        alt,
        (half, TrigReduction::default()),
    )
}

/// [`compare_alt`] with the fp16 conversion and the SIN/COS reduction `rules` on both sides.
#[allow(clippy::too_many_arguments)]
fn compare_rules(
    gpu: &Gpu,
    name: &str,
    insns: Vec<FragmentInstruction>,
    control: u32,
    pixels: &[Pixel],
    (sampler, textures): (&dyn Sampler, &Textures),
    tol: Tol,
    alt: Option<&FragmentState>,
    (half, trig): (HalfRounding, TrigReduction),
) -> Vec<String> {
    let p = program(insns);
    let mut state = FragmentState::new(control);
    state.options.half_rounding = half;
    state.options.trig = trig;
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
                    attributes: pixels[(y * W + x) as usize],
                };
            }
            quad
        })
        .collect();
    let cpu = run_fragment(&p, &state, &quads, sampler)
        .unwrap_or_else(|e| panic!("{name}: interpreter: {e}"));
    let alt_cpu = alt.map(|a| {
        let mut a = FragmentState { control, ..*a };
        a.options.half_rounding = half;
        a.options.trig = trig;
        run_fragment(&p, &a, &quads, sampler)
            .unwrap_or_else(|e| panic!("{name}: interpreter (alternative): {e}"))
    });
    let options = FragmentTranslateOptions {
        half_rounding: half,
        trig,
        ..FragmentTranslateOptions::with_control(control)
    };
    let module = translate(&p, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = gpu
        .run_fragment_eval(&module, W, H, pixels, textures)
        .unwrap_or_else(|e| panic!("{name}: device: {e}"));
    let mut bad = Vec::new();
    for (i, g) in out.iter().enumerate() {
        let (x, y) = (i as u32 % W, i as u32 / W);
        let (qi, li) = (
            ((y / 2) * (W / 2) + x / 2) as usize,
            ((x & 1) + 2 * (y & 1)) as usize,
        );
        let l = &cpu[qi].lanes[li];
        if g.killed != l.killed {
            bad.push(format!(
                "{name} pixel ({x}, {y}): killed {} on the device, {} in the interpreter",
                g.killed, l.killed
            ));
        }
        if let Some(d) = l.depth {
            if !gpu_support::same(g.depth, d as f32) {
                bad.push(format!("{name} pixel ({x}, {y}): depth {} vs {d}", g.depth));
            }
        }
        for c in 0..4 {
            for k in 0..4 {
                let (gv, cv) = (g.colors[c][k], l.colors[c][k] as f32);
                let alt_ok = alt_cpu
                    .as_ref()
                    .is_some_and(|a| gpu_support::same(gv, a[qi].lanes[li].colors[c][k] as f32));
                if !alt_ok && !tol(&pixels[i], c, k).accepts(gv, cv) {
                    let ops = OPERANDS.map(|a| pixels[i][a as usize]);
                    bad.push(format!(
                        "{name} pixel ({x}, {y}) colour {c}.{}: device {gv:e} ({:#010x}), \
                         interpreter {cv:e} ({:#010x}); operands {ops:?}",
                        ["x", "y", "z", "w"][k],
                        gv.to_bits(),
                        cv.to_bits()
                    ));
                }
            }
        }
        if bad.len() >= 12 {
            break;
        }
    }
    bad
}

/// Pixel inputs: 256 edge-case pixels (every ordered pair of [`EDGES`] appears between
/// TEX0.x and TEX1.x) then 256 from `value`.
fn operand_pixels(seed: u64, value: &dyn Fn(&mut Rng) -> f32) -> Vec<Pixel> {
    let e = |i: usize| EDGES[i % EDGES.len()];
    let mut rng = Rng::new(seed);
    (0..(W * H) as usize)
        .map(|i| {
            let mut p = [[0f32; 4]; FP_INPUTS];
            if i < 256 {
                let (a, b) = (i % 16, i / 16);
                p[4] = [e(a), e(b), e(a + 5), e(b + 9)];
                p[5] = [e(b), e(a), e(b + 3), e(a + 11)];
                p[6] = [e(a * 3 + b), e(b + 1), e(a + b), e(a + 2)];
            } else {
                for a in OPERANDS {
                    for c in p[a as usize].iter_mut() {
                        *c = value(&mut rng);
                    }
                }
            }
            p
        })
        .collect()
}

fn mixed(rng: &mut Rng) -> f32 {
    match rng.below(3) {
        0 => rng.range(-4.0, 4.0),
        1 => rng.wide(20),
        _ => rng.wide(126),
    }
}

/// MOV R1, f[TEX0]; MOV R2, f[TEX1]; MOV R3, f[TEX2]; then `last`.
fn with_operands(mut last: Vec<FragmentInstruction>) -> Vec<FragmentInstruction> {
    let mut v: Vec<FragmentInstruction> = OPERANDS
        .iter()
        .enumerate()
        .map(|(n, a)| with_input(op(Op::Mov, dest(n as u8 + 1), &[input()]), *a))
        .collect();
    v.append(&mut last);
    v
}

fn exact(_: &Pixel, _: usize, _: usize) -> Tolerance {
    Tolerance::Exact
}

/// One binary16 step at the result's magnitude, in f32 ULPs (2^13), or 2^-24 absolute in
/// binary16's subnormal range, plus the f32 tolerance.
fn widen_to_half(t: Tolerance) -> Tolerance {
    match t {
        Tolerance::Exact => Tolerance::Exact,
        Tolerance::Any => Tolerance::Any,
        Tolerance::Ulps(n) | Tolerance::AbsOrUlps(_, n) => {
            Tolerance::AbsOrUlps(2f32.powi(-24) * 1.001, (1 << 13) + n)
        }
    }
}

/// Vulkan precision of the device side (see `gpu_vertex_ops.rs::scalar_tolerance`), given the
/// operand x = src0.x.
fn alu_tolerance(op: Op, p: &Pixel) -> Tolerance {
    let x = p[4][0];
    match op {
        // WGSL (SPIR-V without NoContraction) lets the compiler contract `a * b + c` into one
        // fused operation, and lavapipe does in DP2A: (-3.9582038 * -7.58435e23
        // + 1.3599834e23 * 0.512136) + 1.3809168e31 is 0x732e4bd6 there, 0x732e4bd7 rounded
        // step by step. A contraction skips one product rounding (half an ULP of that
        // product), so the bound is one f32 epsilon of the sum of the terms' magnitudes.
        Op::Dp2 | Op::Dp2a | Op::Dp3 | Op::Dp4 => {
            let n = match op {
                Op::Dp2 | Op::Dp2a => 2,
                Op::Dp3 => 3,
                _ => 4,
            };
            let mut terms: f32 = (0..n).map(|k| (p[4][k] * p[5][k]).abs()).sum();
            if op == Op::Dp2a {
                terms += p[6][0].abs();
            }
            Tolerance::AbsOrUlps(terms * f32::EPSILON, 0)
        }
        Op::Rcp | Op::Div => Tolerance::Ulps(3),
        // 1 / sqrt: sqrt inherited from 1/inversesqrt (2 ULP), then the division (2.5).
        Op::Rsq | Op::Divsq => Tolerance::Ulps(5),
        // x / sqrt(x² + y² + z²): sqrt 2.5 ULP, the division 2.5 (products and sum are
        // correctly rounded). Where the sum of squares is subnormal the device flushes it to
        // zero and returns the input unchanged (NRM's zero-length rule) while the interpreter
        // normalises: Vulkan allows the flush, so nothing is required there.
        Op::Nrm => {
            let [x, y, z, _] = p[4];
            let s = x * x + y * y + z * z;
            if s.is_subnormal() || (s == 0.0 && (x != 0.0 || y != 0.0 || z != 0.0)) {
                Tolerance::Any
            } else {
                Tolerance::Ulps(6)
            }
        }
        Op::Ex2 => Tolerance::Ulps(3 + 2 * x.abs().min(1e6) as u64),
        // LIF's z = exp2(src0.w).
        Op::Lif => Tolerance::Ulps(3 + 2 * p[4][3].abs().min(1e6) as u64),
        Op::Lg2 => Tolerance::AbsOrUlps(2f32.powi(-21), 3),
        Op::Sin | Op::Cos => Tolerance::AbsOrUlps(2f32.powi(-11), 0),
        // pow(x, y) is exp2(y * log2(x)) (Vulkan: "inherited"); inputs keep |y log2 x| <= 32
        // and |y| <= 8: 3 + 2*32 ULP for exp2 plus 3 ULP of log2 times |y|: 96 ULP. Vulkan
        // leaves pow undefined for x < 0, for x = 0 with y <= 0, and where y * log2(x) is
        // not finite (pow(1, inf) is NaN there, 1 in the interpreter; pow(0, 0) is 0 there).
        Op::Pow | Op::Lit => {
            let (b, e) = if op == Op::Pow {
                (p[4][0], p[5][0])
            } else {
                // LIT: pow(max(y, 0), w) when x > 0 (the max makes b >= 0 or NaN).
                (p[4][1].max(0.0), p[4][3])
            };
            let undefined = !(b.is_finite() && e.is_finite())
                || b < 0.0
                || (b == 0.0 && e <= 0.0)
                || !(e * b.log2()).is_finite();
            if undefined {
                Tolerance::Any
            } else {
                Tolerance::Ulps(96)
            }
        }
        // sRGB conversion through pow (UPG): inputs are bytes, outputs in [0, 1].
        Op::Upg => Tolerance::AbsOrUlps(1e-6, 96),
        _ => Tolerance::Exact,
    }
}

fn translated(op: Op) -> bool {
    matches!(translate_support(Opcode::Fragment(op)), Support::Yes)
}

/// Operand values suited to `op`: where Vulkan defines the device's precision.
fn inputs_for(op: Op) -> Vec<Pixel> {
    match op {
        Op::Sin | Op::Cos => operand_pixels(11, &|r: &mut Rng| {
            r.range(-std::f32::consts::PI, std::f32::consts::PI)
        })
        .into_iter()
        .map(|mut p| {
            // Edge rows: keep the operand itself in [-pi, pi] unless it is NaN or infinite.
            if p[4][0].is_finite() && p[4][0].abs() > std::f32::consts::PI {
                p[4][0] = p[4][0].signum() * 3.0;
            }
            p
        })
        .collect(),
        Op::Ex2 | Op::Lif => operand_pixels(12, &|r: &mut Rng| r.range(-140.0, 140.0)),
        Op::Pow | Op::Lit => {
            let mut v = operand_pixels(13, &|r: &mut Rng| r.range(-4.0, 4.0));
            for p in &mut v {
                // POW: pow(s0.x, s1.x); LIT: pow(s0.y, s0.w). Bound the exponent product.
                let (b, e) = if op == Op::Pow {
                    (p[4][0], p[5][0])
                } else {
                    (p[4][1], p[4][3])
                };
                let l = b.abs().max(1e-10).log2() * e;
                if b.is_finite() && e.is_finite() && (l.abs() > 32.0 || e.abs() > 8.0) {
                    if op == Op::Pow {
                        p[5][0] = 0.5;
                    } else {
                        p[4][3] = 0.5;
                    }
                }
            }
            v
        }
        _ => operand_pixels(14, &mixed),
    }
}

/// The interpreter's state with MAD rounded twice, which a device may also give: WGSL `fma`
/// need not be fused and lavapipe's is not (see gpu_vertex_ops.rs: MAD of -1e30, 3, 1e-30 is
/// 0xf2177618 there, 0xf2177617 fused).
fn unfused_mad(control: u32) -> FragmentState {
    FragmentState {
        control,
        options: FragmentOptions {
            fused_mad: false,
            ..Default::default()
        },
    }
}

#[test]
fn every_alu_opcode_matches_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("every_alu_opcode_matches_the_interpreter") else {
        return;
    };
    let no_tex: Textures = Default::default();
    let mut tested = Vec::new();
    let mut bad = Vec::new();
    for &code in Op::ALL {
        let skip = matches!(
            code,
            Op::Nop | Op::Fenct | Op::Fencb | Op::Kil | Op::Ddx | Op::Ddy
        ) || is_texture(code)
            || is_flow(code)
            || !translated(code);
        if skip {
            continue;
        }
        let pixels = inputs_for(code);
        let srcs = [r(1), r(2), r(3)];
        let n = code.source_count().min(3);
        for (dst, control, tag) in [(dest(0), 0x40, "R0"), (hdest(0), 0x00, "H0")] {
            let insn = op(code, dst, &srcs[..n]);
            let name = format!("{} {tag}", code.name());
            let half = tag == "H0";
            let tol = |p: &Pixel, _c: usize, _k: usize| {
                let t = alu_tolerance(code, p);
                if half {
                    widen_to_half(t)
                } else {
                    t
                }
            };
            if code == Op::Pkg {
                // PKG packs sRGB bytes computed through pow: compare the four bytes of the
                // packed word within one step each instead of the word's bits.
                bad.extend(compare_packed(&gpu, &name, insn, control, &pixels));
                continue;
            }
            let unfused = unfused_mad(control);
            bad.extend(compare_alt(
                &gpu,
                &name,
                with_operands(vec![insn]),
                control,
                &pixels,
                &NoTextures,
                &no_tex,
                &tol,
                (code == Op::Mad).then_some(&unfused),
            ));
        }
        tested.push(code.name());
    }
    println!(
        "fragment ALU opcodes compared (R and H destinations): {}",
        tested.join(" ")
    );
    assert!(tested.len() >= 40, "{tested:?}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Operands whose MUL, ADD or MAD result lies within an f32 step or so of a binary16 value
/// (a random half `t`; `a · b ≈ t`, `a + b ≈ t`, `a · b + c ≈ t`), where the truncation to
/// fp16 depends on the result carried to 26 bits (`rsxtrace_wgsl::fragment::carry`).
fn near_half_pixels(op: Op, seed: u64) -> Vec<Pixel> {
    let mut rng = Rng::new(seed);
    (0..(W * H) as usize)
        .map(|_| {
            let mut operands = || {
                let half = (rng.below(0x7800) + 0x0400) as u16
                    | if rng.below(2) == 0 { 0 } else { 0x8000 };
                let t = half::f16::from_bits(half).to_f32();
                let b = rng.range(0.1, 8.0);
                match op {
                    Op::Mul => [t / b, b, 0.0],
                    Op::Add => {
                        let a = t * rng.range(-0.9, 0.9);
                        [a, t - a, 0.0]
                    }
                    _ => {
                        let a = rng.range(-4.0, 4.0);
                        [a, b, t - a * b]
                    }
                }
            };
            let columns: [[f32; 3]; 4] = std::array::from_fn(|_| operands());
            let mut p = [[0f32; 4]; FP_INPUTS];
            for (k, a) in OPERANDS.iter().enumerate() {
                p[usize::from(*a)] = columns.map(|column| column[k]);
            }
            p
        })
        .collect()
}

/// The carry of MUL, ADD and MAD results into fp16 (docs/arithmetic.md "The bits fp16
/// truncation sees"): the device's error-free transformations decide as the interpreter's
/// f64 evaluation does, on operands chosen so that the decision matters at many pixels.
#[test]
fn carried_fp16_results_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("carried_fp16_results_match_the_interpreter") else {
        return;
    };
    let no_tex: Textures = Default::default();
    let mut bad = Vec::new();
    for (seed, code) in [(11, Op::Mul), (12, Op::Add), (13, Op::Mad)] {
        let pixels = near_half_pixels(code, seed);
        // How many components the carry moves (the exact result more than half a 26-bit
        // step below the f32-rounded one, which is a binary16 value): the test must meet it.
        let moved = pixels
            .iter()
            .flat_map(|p| (0..4).map(move |c| (p[4][c], p[5][c], p[6][c])))
            .filter(|&(a, b, c)| {
                let (r, exact) = match code {
                    Op::Mul => (a * b, f64::from(a) * f64::from(b)),
                    Op::Add => (a + b, f64::from(a) + f64::from(b)),
                    _ => (
                        a.mul_add(b, c),
                        f64::from(a).mul_add(f64::from(b), f64::from(c)),
                    ),
                };
                // Half a 26-bit step of the exact result's binade (one below r's where r
                // is a power of two).
                let on_half = half::f16::from_f32(r).to_f32() == r && r != 0.0;
                let half_step = 2f64.powi(exact.abs().log2().floor() as i32 - 26);
                on_half
                    && (f64::from(r).abs() - exact.abs()) > half_step
                    && exact.signum() == f64::from(r).signum()
            })
            .count();
        assert!(
            moved >= 40,
            "{}: the carry moves only {moved} components",
            code.name()
        );
        let unfused = unfused_mad(0x00);
        let insn = op(
            code,
            hdest(0),
            &[r(1), r(2), r(3)][..code.source_count().min(3)],
        );
        bad.extend(compare_alt(
            &gpu,
            &format!("{} H0 near binary16 values ({moved} carried)", code.name()),
            with_operands(vec![insn]),
            0x00,
            &pixels,
            &NoTextures,
            &no_tex,
            &exact,
            (code == Op::Mad).then_some(&unfused),
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// PKG into R0: the packed word's bytes within one step of the interpreter's.
fn compare_packed(
    gpu: &Gpu,
    name: &str,
    insn: FragmentInstruction,
    control: u32,
    pixels: &[Pixel],
) -> Vec<String> {
    if control != 0x40 {
        // Into H0 the packed word is itself rounded to binary16: only its bits are defined,
        // and a one-step byte change moves them arbitrarily. R0 covers the op.
        return Vec::new();
    }
    let p = program(with_operands(vec![insn]));
    let module = translate(&p, &FragmentTranslateOptions::with_control(control)).expect("PKG");
    let out = gpu
        .run_fragment_eval(&module, W, H, pixels, &Default::default())
        .expect("device");
    let mut bad = Vec::new();
    for (i, g) in out.iter().enumerate() {
        let lane = LaneInputs {
            attributes: pixels[i],
        };
        let q = run_quad(&p, &FragmentState::new(control), &uniform_quad(lane));
        // A packed word with an all-ones exponent is a NaN: the interpreter's f64 outputs
        // quiet it (f32 -> f64 -> f32 sets bit 22), so that bit is compared quieted.
        let quiet = |b: u32| {
            if b & 0x7f80_0000 == 0x7f80_0000 && b & 0x007f_ffff != 0 {
                b | 0x0040_0000
            } else {
                b
            }
        };
        let (gb, cb) = (
            quiet(g.colors[0][0].to_bits()).to_le_bytes(),
            quiet((q.lanes[0].colors[0][0] as f32).to_bits()).to_le_bytes(),
        );
        if gb.iter().zip(&cb).any(|(a, b)| a.abs_diff(*b) > 1) {
            bad.push(format!("{name} pixel {i}: bytes {gb:?} vs {cb:?}"));
        }
    }
    bad
}

fn is_texture(op: Op) -> bool {
    matches!(
        op,
        Op::Tex | Op::Txp | Op::Txd | Op::Txl | Op::Txb | Op::Texbem | Op::Txpbem
    )
}

fn is_flow(op: Op) -> bool {
    matches!(
        op,
        Op::Brk | Op::Cal | Op::Ife | Op::Loop | Op::Rep | Op::Ret
    )
}

#[test]
fn precisions_scales_and_modifiers_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("precisions_scales_and_modifiers_match") else {
        return;
    };
    let pixels = operand_pixels(21, &|r: &mut Rng| match r.below(3) {
        0 => r.range(-3.0, 3.0),
        1 => r.range(-70000.0, 70000.0),
        _ => mixed(r),
    });
    let no_tex: Textures = Default::default();
    let mut bad = Vec::new();
    let precisions = [
        Precision::Fp32,
        Precision::Fp16,
        Precision::Fx12,
        Precision::Fx9,
    ];
    for prec in precisions {
        for sat in [false, true] {
            for (d, control) in [(dest(0), 0x40), (hdest(0), 0x00)] {
                let mut d = d;
                d.precision = prec;
                d.saturate = sat;
                let name = format!("MUL {prec:?} sat {sat} control {control:#x}");
                bad.extend(compare(
                    &gpu,
                    &name,
                    with_operands(vec![op(Op::Mul, d, &[r(1), r(2)])]),
                    control,
                    &pixels,
                    &NoTextures,
                    &no_tex,
                    &exact,
                ));
            }
        }
    }
    for scale in [
        OutputScale::Mul2,
        OutputScale::Mul4,
        OutputScale::Mul8,
        OutputScale::Div2,
        OutputScale::Div4,
        OutputScale::Div8,
    ] {
        let insn = with_scale(op(Op::Add, dest(0), &[r(1), r(2)]), scale);
        bad.extend(compare(
            &gpu,
            &format!("ADD scale {scale:?}"),
            with_operands(vec![insn]),
            0x40,
            &pixels,
            &NoTextures,
            &no_tex,
            &exact,
        ));
    }
    let modifiers = [
        PrecisionModifier::Fp16,
        PrecisionModifier::Fx12,
        PrecisionModifier::Fx9,
        PrecisionModifier::Sat,
    ];
    for m in modifiers {
        let insn = op(
            Op::Add,
            dest(0),
            &[modif(neg(r(1)), m), abs(swz(modif(r(2), m), [3, 2, 1, 0]))],
        );
        bad.extend(compare(
            &gpu,
            &format!("ADD source modifier {m:?}"),
            with_operands(vec![insn]),
            0x40,
            &pixels,
            &NoTextures,
            &no_tex,
            &exact,
        ));
    }
    // H registers share the file with R: H2/H3 are the halves of R1; read them back as R.
    let insns = vec![
        op(Op::Mov, hdest(2), &[r(1)]),
        op(Op::Mov, masked(hdest(3), 0b0101), &[r(2)]),
        op(Op::Add, dest(0), &[r(1), h(3)]),
    ];
    bad.extend(compare(
        &gpu,
        "H/R aliasing",
        with_operands(insns),
        0x40,
        &pixels,
        &NoTextures,
        &no_tex,
        &exact,
    ));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// SIN and COS of arguments up to ±20000 radians (the hash functions of the ps3autotests
/// programs take thousands), under both argument reductions, into R0 and through an H0 write:
/// the device's `sin`/`cos` of the reduced angle (|angle| <= 2π) within 2^-20 absolute of the
/// interpreter's, widened to one binary16 step for H0 (Vulkan bounds sin/cos on [-π, π] by
/// 2^-11 absolute; lavapipe does much better, and the reduction is what must agree). The
/// edge values beyond 25000 radians are not compared.
#[test]
fn sin_cos_of_large_arguments_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("sin_cos_of_large_arguments_match_the_interpreter") else {
        return;
    };
    let pixels = operand_pixels(41, &|r: &mut Rng| match r.below(3) {
        0 => r.range(-20000.0, 20000.0),
        1 => r.range(-300.0, 300.0),
        _ => r.range(-4.0, 4.0),
    });
    let no_tex: Textures = Default::default();
    let mut bad = Vec::new();
    for trig in [TrigReduction::Exact, TrigReduction::Turns] {
        for code in [Op::Sin, Op::Cos] {
            for (d, control, half) in [(dest(0), 0x40, false), (hdest(0), 0x00, true)] {
                let tol = |p: &Pixel, _: usize, _: usize| {
                    // The three-part reduction is exact below about 25000 radians; the edge
                    // values (1e30, inf, NaN) are outside what it promises.
                    let x = p[OPERANDS[0] as usize][0];
                    if x.is_nan() || x.abs() > 25000.0 {
                        return Tolerance::Any;
                    }
                    let t = Tolerance::AbsOrUlps(2f32.powi(-20), 4);
                    if half {
                        widen_to_half(t)
                    } else {
                        t
                    }
                };
                bad.extend(compare_rules(
                    &gpu,
                    &format!("{} {trig:?} control {control:#x}", code.name()),
                    with_operands(vec![op(code, d, &[r(1)])]),
                    control,
                    &pixels,
                    (&NoTextures, &no_tex),
                    &tol,
                    None,
                    (HalfRounding::Truncate, trig),
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Both fp32 → fp16 conversions (truncation, the default; RPCS3's nearest even), on an H
/// destination, an fp16 source modifier and an fp16-precision R destination (unrounded),
/// bit for bit, over values around every binary16 range: subnormals, the normal range, the
/// overflow beyond 65504, infinities and NaN.
#[test]
fn both_fp16_conversions_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("both_fp16_conversions_match_the_interpreter") else {
        return;
    };
    let pixels = operand_pixels(33, &|r: &mut Rng| match r.below(4) {
        0 => r.range(-1.0, 1.0) * 2f32.powi(-14),
        1 => r.range(-70000.0, 70000.0),
        2 => r.range(-4.0, 4.0),
        _ => mixed(r),
    });
    let no_tex: Textures = Default::default();
    let mut bad = Vec::new();
    for half in [HalfRounding::Truncate, HalfRounding::Nearest] {
        let mut fp16_r = dest(0);
        fp16_r.precision = Precision::Fp16;
        let cases = [
            ("MUL H0", op(Op::Mul, hdest(0), &[r(1), r(2)]), 0x00),
            (
                "ADD R0 with fp16 sources",
                op(
                    Op::Add,
                    dest(0),
                    &[
                        modif(r(1), PrecisionModifier::Fp16),
                        modif(neg(r(2)), PrecisionModifier::Fp16),
                    ],
                ),
                0x40,
            ),
            (
                "MUL R0 fp16 precision",
                op(Op::Mul, fp16_r, &[r(1), r(2)]),
                0x40,
            ),
        ];
        for (name, insn, control) in cases {
            bad.extend(compare_rounding(
                &gpu,
                &format!("{name} {half:?}"),
                with_operands(vec![insn]),
                control,
                &pixels,
                &NoTextures,
                &no_tex,
                &exact,
                None,
                half,
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn conditions_flow_and_kil_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("conditions_flow_and_kil_match_the_interpreter") else {
        return;
    };
    let pixels = operand_pixels(31, &|r: &mut Rng| match r.below(4) {
        0 => 0.0,
        1 => r.range(-2.0, 2.0),
        _ => mixed(r),
    });
    let no_tex: Textures = Default::default();
    const XXXX: [u8; 4] = [0, 0, 0, 0];
    let relations = [
        Relation::Fl,
        Relation::Lt,
        Relation::Eq,
        Relation::Le,
        Relation::Gt,
        Relation::Ne,
        Relation::Ge,
        Relation::Tr,
    ];
    let mut bad = Vec::new();
    // Conditional writes: CC0 = R1 (set by a MOV), CC1 = R1 + R2; then R0 written under each
    // relation with a swizzle, alternating the CC register.
    for (n, rel) in relations.iter().enumerate() {
        let insns = vec![
            set_cond(op(Op::Mov, dest(4), &[r(1)]), 0),
            set_cond(op(Op::Add, dest(5), &[r(1), r(2)]), 1),
            with_cond(
                op(Op::Mov, dest(0), &[r(3)]),
                *rel,
                [[0, 1, 2, 3], [3, 2, 1, 0], [0, 0, 1, 1]][n % 3],
                (n % 2) as u8,
            ),
            // A conditional write that updates the CC it tests: every component sees the CC
            // as it was before the instruction.
            with_cond(
                set_cond(op(Op::Add, dest(6), &[r(2), r(3)]), 0),
                *rel,
                [0, 0, 0, 0],
                0,
            ),
            op(Op::Add, dest(0), &[r(0), r(6)]),
        ];
        bad.extend(compare(
            &gpu,
            &format!("conditional write {rel:?}"),
            with_operands(insns),
            0x40,
            &pixels,
            &NoTextures,
            &no_tex,
            &exact,
        ));
    }
    // IFE on CC0.x > 0 (per pixel); KIL where CC0.y < 0; RET where CC1.x == 0.
    // slots 0..2 operands; 3 MOVC R4 = R1; 4 IFE GT.x else@7 end@8; 5 MOV R0 = R2;
    // 6 ADD R0.w = R0 + R3 (then); 7 MOV R0 = R3 (else); 8 KIL LT.y; 9 ADDC R5 = R1 + R2 (CC1);
    // 10 RET EQ.x on CC1; 11 MUL R2... into R0.z.
    let kil = op(Op::Kil, dest(0), &[]);
    let insns = vec![
        set_cond(op(Op::Mov, dest(4), &[r(1)]), 0),
        with_cond(
            flow(FlowKind::Ife {
                else_slot: 7,
                end_slot: 8,
            }),
            Relation::Gt,
            XXXX,
            0,
        ),
        op(Op::Mov, dest(0), &[r(2)]),
        op(Op::Add, masked(dest(0), 0b1000), &[r(0), r(3)]),
        op(Op::Mov, dest(0), &[r(3)]),
        with_cond(kil, Relation::Lt, [1, 1, 1, 1], 0),
        set_cond(op(Op::Add, dest(5), &[r(1), r(2)]), 1),
        with_cond(flow(FlowKind::Ret), Relation::Eq, XXXX, 1),
        op(Op::Mul, masked(dest(0), 0b0100), &[r(2), r(3)]),
    ];
    bad.extend(compare(
        &gpu,
        "IFE/KIL/RET",
        with_operands(insns),
        0x40,
        &pixels,
        &NoTextures,
        &no_tex,
        &exact,
    ));
    // LOOP (count from the instruction) with a per-pixel BRK: R6.x counts iterations until
    // R6.x - 3 * |R1.x| >= 0; REP adds R2 five times.
    let mut counter = masked(dest(7), 0b0001);
    counter.no_dest = true;
    let fields = |count, end| LoopFields {
        count,
        init: 0,
        increment: 1,
        end_slot: end,
    };
    let insns = vec![
        // R8.x = min(|R1.x| * 3, 20)
        with_const(
            op(Op::Mul, masked(dest(8), 1), &[abs(r(1)), konst()]),
            [3.0; 4],
        ),
        with_const(op(Op::Min, masked(dest(8), 1), &[r(8), konst()]), [20.0; 4]),
        // LOOP count 30: R6.x += 1; CC0 = R6.x - R8.x; BRK if GE
        flow(FlowKind::Loop(fields(30, 14))),
        with_const(op(Op::Add, masked(dest(6), 1), &[r(6), konst()]), [1.0; 4]),
        set_cond(op(Op::Add, counter, &[r(6), neg(r(8))]), 0),
        with_cond(flow(FlowKind::Brk), Relation::Ge, XXXX, 0),
        // 14: REP 5: R0 += R2
        flow(FlowKind::Rep(fields(5, 16))),
        op(Op::Add, dest(0), &[r(0), r(2)]),
        op(Op::Mov, masked(dest(0), 0b0001), &[r(6)]),
    ];
    let mut insns = with_operands(insns);
    fix_flow_slots(&mut insns);
    bad.extend(compare(
        &gpu,
        "LOOP/BRK/REP",
        insns,
        0x40,
        &pixels,
        &NoTextures,
        &no_tex,
        &exact,
    ));
    // A REP under a condition runs on the pixels whose CC passes it (RPCS3 `if (cond)`):
    // CC0 = R1; REP 3 if GT.x: R0 += R2; LOOP 2 if FL (never): R0 = R3; R0.w = R2.w.
    let mut cc = masked(dest(7), 0b1111);
    cc.no_dest = true;
    let insns = vec![
        set_cond(op(Op::Mov, cc, &[r(1)]), 0),
        // Slot 4 (after the three operand MOVs and this one): the REP ends at the LOOP.
        with_cond(flow(FlowKind::Rep(fields(3, 6))), Relation::Gt, XXXX, 0),
        op(Op::Add, dest(0), &[r(0), r(2)]),
        with_cond(flow(FlowKind::Loop(fields(2, 8))), Relation::Fl, XXXX, 0),
        op(Op::Mov, dest(0), &[r(3)]),
        op(Op::Mov, masked(dest(0), 0b1000), &[r(2)]),
    ];
    bad.extend(compare(
        &gpu,
        "REP and LOOP under a condition",
        with_operands(insns),
        0x40,
        &pixels,
        &NoTextures,
        &no_tex,
        &exact,
    ));
    // Indexed inputs over a LOOP (A0 = 0, 1, 2): TEX[A0 + 1] reads TEX1..TEX3, TEX[A0 + 8]
    // TEX8, TEX9 and past TEX9 (0, 0, 0, 1) (RPCS3 `_indexed_load`), on both sides; a loop
    // of init 2 and increment 3 (A0 = 2, 5, 8) reads TEX2, TEX5 and TEX8.
    for (displacement, init, increment) in [(1, 0, 1), (8, 0, 1), (0, 2, 3)] {
        let mut add = op(Op::Add, dest(0), &[r(0), input()]);
        if let rsxtrace_program::fragment::Operands::Alu(a) = &mut add.operands {
            a.indexed_input = true;
            a.input_displacement = displacement;
        }
        // Slot 3 the LOOP, 4 its body, 5 (where it ends) a MOV that changes nothing.
        let insns = vec![
            flow(FlowKind::Loop(LoopFields {
                init,
                increment,
                ..fields(3, 5)
            })),
            add,
            op(Op::Mov, masked(dest(0), 0b1000), &[r(0)]),
        ];
        bad.extend(compare(
            &gpu,
            &format!("indexed input TEX[A0 + {displacement}], A0 from {init} by {increment}"),
            with_operands(insns),
            0x40,
            &pixels,
            &NoTextures,
            &no_tex,
            &exact,
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Rewrites the loop end slots of the LOOP/BRK/REP program (written with symbolic targets)
/// to the real slots: an instruction with an inline constant takes two slots.
fn fix_flow_slots(insns: &mut [FragmentInstruction]) {
    let mut slots = Vec::with_capacity(insns.len());
    let mut s = 0u32;
    for i in insns.iter() {
        slots.push(s);
        s += 1 + u32::from(i.constant.is_some());
    }
    // The LOOP ends at the REP, the REP after its single ADD.
    let loop_at = insns
        .iter()
        .position(|i| i.opcode == Op::Loop)
        .expect("LOOP");
    let rep_at = insns.iter().position(|i| i.opcode == Op::Rep).expect("REP");
    for (at, end) in [(loop_at, slots[rep_at]), (rep_at, slots[rep_at + 2])] {
        if let rsxtrace_program::fragment::Operands::Flow(f) = &mut insns[at].operands {
            if let FlowKind::Loop(l) | FlowKind::Rep(l) = &mut f.kind {
                l.end_slot = end;
            }
        }
    }
}

#[test]
fn derivatives_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("derivatives_match_the_interpreter") else {
        return;
    };
    // Smooth inputs: TEX0 = (x/4 + y/8, x*y/16, x*x/32, -y/2) with exact dyadic values, so
    // every difference is exact and both sides must agree bit for bit.
    let pixels: Vec<Pixel> = (0..W * H)
        .map(|i| {
            let (x, y) = ((i % W) as f32, (i / W) as f32);
            let mut p = [[0f32; 4]; FP_INPUTS];
            p[4] = [x / 4.0 + y / 8.0, x * y / 16.0, x * x / 32.0, -y / 2.0];
            p[5] = [y * y / 64.0, x - y, 0.5 * x, 3.0];
            p
        })
        .collect();
    let no_tex: Textures = Default::default();
    let mut bad = Vec::new();
    for code in [Op::Ddx, Op::Ddy] {
        for (d, control) in [(dest(0), 0x40), (hdest(0), 0x00)] {
            bad.extend(compare(
                &gpu,
                &format!("{} control {control:#x}", code.name()),
                with_operands(vec![op(code, d, &[r(1)]), op(code, dest(2), &[r(2)])]),
                control,
                &pixels,
                &NoTextures,
                &no_tex,
                &exact,
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn texture_ops_with_nearest_filtering_match_the_interpreter() {
    let Some(gpu) = gpu_support::gpu("texture_ops_with_nearest_filtering_match") else {
        return;
    };
    let mut textures: Textures = Default::default();
    textures[0] = Some(nearest_2x2());
    // Coordinates away from texel edges (0.5) and inside [0, 1] or clamped from outside it;
    // q in [1, 2] for TXP.
    let mut rng = Rng::new(41);
    let away = |r: &mut Rng| {
        let v = r.range(0.02, 0.48);
        match r.below(4) {
            0 => v,
            1 => 1.0 - v,
            2 => -v * 4.0,
            _ => 1.0 + v * 4.0,
        }
    };
    let pixels: Vec<Pixel> = (0..W * H)
        .map(|_| {
            let mut p = [[0f32; 4]; FP_INPUTS];
            let q = rng.range(1.0, 2.0);
            // TXP divides by q: scale s, t by q so the projected coordinate is `away`.
            p[4] = [away(&mut rng) * q, away(&mut rng) * q, 0.0, q];
            p[5] = [rng.range(-1.0, 1.0), 0.0, 0.0, 0.0];
            p[6] = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0, 0.0];
            p
        })
        .collect();
    let mut bad = Vec::new();
    for code in [Op::Tex, Op::Txp, Op::Txb, Op::Txl, Op::Txd] {
        // TEX/TXB/TXL/TXD read R1 / q, computed first so every op sees the same coordinate.
        let coord = if code == Op::Txp { r(1) } else { r(7) };
        let srcs = [coord, r(2), r(3)];
        let insn = op(code, dest(0), &srcs[..code.source_count().min(3)]);
        let div = op(Op::Div, dest(7), &[r(1), swz(r(1), [3, 3, 3, 3])]);
        bad.extend(compare(
            &gpu,
            code.name(),
            with_operands(vec![div, insn]),
            0x40,
            &pixels,
            &Nearest2x2,
            &textures,
            &exact,
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
