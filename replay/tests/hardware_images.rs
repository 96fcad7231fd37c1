//! Agreement with PS3 hardware: `shade` of the ps3autotests `rsx_fp_static_test{1,2,5}`
//! programs (Sony-compiled) against their `.expected.png` images, taken on a PS3 by the
//! public ps3autotests suite, on the reference interpreter and recompiled on the device.
//! Uniforms are those of the Cg sources (`cg/*.cg` global initialisers); the image is
//! 720 × 480 (the sources' `WIDTH`/`HEIGHT`, the images' size).
//!
//! Each program runs under the hardware rules (the defaults: fp32 → fp16 by truncation,
//! rsx-microcode.md B.9; the 8-bit write rule fitted to these images, `render::color8`) and
//! under RPCS3's nearest rounding, and its float colours are also stored by RPCS3's 8-bit rule
//! (`color8::unorm8_rpcs3`). The test asserts the share of pixels whose four channels equal the
//! hardware's (exact) and lie within 1/255, and that the hardware rules do at least as well as
//! either RPCS3 rule.
//!
//! Measured (2026-12-05, interpreter; lavapipe within 0.01%; exact; within 1/255 is 100% for
//! all), with `shade`'s TEX0 as the RSX interpolates it (`rsxtrace_semantics::texcoord`) and the
//! truncation seeing MUL/ADD/MAD results carried to 26 bits (`interp::fragment::carry`; the last
//! column without it):
//!
//! | program | nearest + RPCS3's 8-bit rule | truncation + RPCS3's rule | truncation + the 8-bit rule | the same, f32 results truncated |
//! |---|---|---|---|---|
//! | test1 | 97.17% | 97.17% | 100% | 100% |
//! | test2 | 82.42% | 99.02% | 99.975% | 99.974% |
//! | test5 | 67.07% | 96.82% | 99.885% | 99.785% |
//!
//! test1 is an identity of TEX0 (`COL0 = (0, tex.y, tex.x, 1)`): its image is what fitted the
//! 8-bit rule and the TEX0 rule (`docs/arithmetic.md`); with TEX0 rounded to nearest, column
//! 337 (where (x + 0.5) / 720 lies exactly on the rule's 4096 grid) was the 0.14% left.
//!
//! `RSXTRACE_SHADE_OUT=DIR` writes every image computed here into DIR for inspection.

use crate::gpu_support;

use std::path::{Path, PathBuf};

use rsxtrace_gpu::{shade_gpu, Gpu};
use rsxtrace_replay::interp::fragment::options::FragmentOptions;
use rsxtrace_replay::interp::fragment::{FragmentState, HalfRounding, TrigReduction};
use rsxtrace_replay::render::color8::{unorm8, unorm8_rpcs3};
use rsxtrace_replay::shade::{load_program_file, shade_with, to_unorm8, LoadedProgram};
use rsxtrace_replay::texture::NoTextures;
use rsxtrace_testkit::image::{read_png, write_png, Comparison};
use rsxtrace_wgsl::fragment::{translate, FragmentTranslateOptions};

const WIDTH: u32 = 720;
const HEIGHT: u32 = 480;

/// The uniforms of each program, from the global initialisers of its Cg source.
fn uniforms(name: &str) -> &'static [&'static str] {
    match name {
        "rsx_fp_static_test2" => &[
            "col1=0.216,0.471,0.698",
            "col2=1.00,0.329,0.298",
            "col3=0.867,0.910,0.247",
        ],
        "rsx_fp_static_test3" | "rsx_fp_static_test4" => &["iGlobalTime=2.0"],
        _ => &[],
    }
}

fn load(dir: &Path, name: &str) -> LoadedProgram {
    load_program_file(dir.join(format!("{name}.fpo")), uniforms(name)).expect("load program")
}

/// Percentages of pixels whose four channels are equal, and within 1/255.
fn agreement(a: &[u8], b: &[u8]) -> (f64, f64) {
    let c = Comparison::of(a, b);
    (c.percent_within(0), c.percent_within(1))
}

/// The float colours stored by `store` (an 8-bit rule).
fn bytes(colours: &[[f32; 4]], store: fn(f32) -> u8) -> Vec<u8> {
    colours.iter().flat_map(|c| c.map(store)).collect()
}

fn cpu(p: &LoadedProgram, half: HalfRounding) -> Vec<[f32; 4]> {
    cpu_with(p, |o| o.half_rounding = half)
}

/// The interpreter's colours under the default options changed by `set`.
fn cpu_with(p: &LoadedProgram, set: impl FnOnce(&mut FragmentOptions)) -> Vec<[f32; 4]> {
    let mut state = FragmentState::new(p.control);
    set(&mut state.options);
    let image = shade_with(&p.program, &state, WIDTH, HEIGHT, &NoTextures).expect("shade");
    assert_eq!(
        bytes(&image.float, |v| to_unorm8(f64::from(v))),
        image.rgba8
    );
    image.float
}

fn device(gpu: &Gpu, p: &LoadedProgram, half: HalfRounding) -> Vec<[f32; 4]> {
    let options = FragmentTranslateOptions {
        half_rounding: half,
        ..FragmentTranslateOptions::with_control(p.control)
    };
    let module = translate(&p.program, &options).expect("translate");
    shade_gpu(gpu, &module, WIDTH, HEIGHT)
        .expect("shade_gpu")
        .pixels
}

/// Writes `rgba` as `DIR/<name>.png` when `RSXTRACE_SHADE_OUT=DIR` is set.
fn keep(name: &str, rgba: &[u8]) {
    let Some(dir) = std::env::var_os("RSXTRACE_SHADE_OUT") else {
        return;
    };
    write_png(
        &PathBuf::from(dir).join(format!("{name}.png")),
        WIDTH,
        HEIGHT,
        rgba,
    );
}

/// Program `name` and its hardware image (RGBA8), when the corpus is here.
fn with_hardware_image(name: &str) -> Option<(LoadedProgram, Vec<u8>)> {
    let dir = rsxtrace_testkit::workspace!()
        .corpus()?
        .path("ps3autotests");
    let expected = read_png(&dir.join(format!("{name}.expected.png"))).rgba;
    Some((load(&dir, name), expected))
}

/// Of the pixels where the RGBA8 images `a` and `b` differ: how many, and at how many of them
/// `hardware` equals `a`, and `b`.
fn sides(a: &[u8], b: &[u8], hardware: &[u8]) -> (usize, usize, usize) {
    let (mut differ, mut a_right, mut b_right) = (0, 0, 0);
    for ((x, y), h) in a.chunks(4).zip(b.chunks(4)).zip(hardware.chunks(4)) {
        if x != y {
            differ += 1;
            a_right += usize::from(x == h);
            b_right += usize::from(y == h);
        }
    }
    (differ, a_right, b_right)
}

/// The agreement of `name` under both conversions; asserts the default's exact share.
fn check(name: &str, min_exact: f64, on_device: bool) {
    let Some(dir) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let dir = dir.path("ps3autotests");
    let gpu = if on_device {
        match gpu_support::gpu(name) {
            Some(g) => Some(g),
            None => return,
        }
    } else {
        None
    };
    let p = load(&dir, name);
    let expected = read_png(&dir.join(format!("{name}.expected.png")));
    assert_eq!((expected.width, expected.height), (WIDTH, HEIGHT));
    let expected = expected.rgba;
    let path = if on_device { "device" } else { "interpreter" };
    let mut scores = Vec::new();
    for half in [HalfRounding::Truncate, HalfRounding::Nearest] {
        let colours = match &gpu {
            Some(g) => device(g, &p, half),
            None => cpu(&p, half),
        };
        for (rule, store) in [
            ("8-bit rule", unorm8 as fn(f32) -> u8),
            ("RPCS3's 8-bit rule", unorm8_rpcs3),
        ] {
            let image = bytes(&colours, store);
            keep(&format!("{name}.{path}.{half:?}.{}", &rule[..3]), &image);
            let (exact, within1) = agreement(&image, &expected);
            println!(
                "{name} on the {path}, fp16 {half:?}, {rule}: {exact:.3}% of pixels exact, \
                 {within1:.3}% within 1/255"
            );
            scores.push((exact, within1));
        }
    }
    let (exact, within1) = scores[0];
    assert!(
        exact >= min_exact && within1 >= 99.9,
        "{name} on the {path}: {exact:.3}% exact, {within1:.3}% within 1/255"
    );
    for (other, _) in &scores[1..] {
        assert!(
            exact >= *other,
            "{name} on the {path}: the hardware rules {exact:.3}% exact, other rules {other:.3}%"
        );
    }
}

// Bars: the measured shares rounded down (see the table in the module doc).

#[test]
fn static_test1_matches_the_hardware_image() {
    check("rsx_fp_static_test1", 100.0, false);
}

#[test]
fn static_test2_matches_the_hardware_image() {
    check("rsx_fp_static_test2", 99.97, false);
}

#[test]
fn static_test5_matches_the_hardware_image() {
    check("rsx_fp_static_test5", 99.88, false);
}

/// Evidence on the SIN/COS argument reduction (`TrigReduction`, docs/arithmetic.md): test2
/// takes SIN/COS of up to about 60 radians (`sin(t + ii·jj)`, `cos(t1 + i)`, feeding disk radii
/// and centres). Reducing them through a product x · f32(1/2π) rounded to f32 (`Turns`) moves
/// the angle by up to half an f32 step of x/2π, about 3e-6 radians there, which changes the
/// stored 8-bit colour of some pixels; at those pixels the hardware image sides with the exact
/// reduction. Measured 2026-12-05: 968 pixels differ between the two; the hardware agrees with
/// `Exact` at 962 of them and with `Turns` at 6. So the RSX does not round the product to f32
/// (whether its 1/2π has more than 24 bits, test2 cannot tell: with the f32 constant and the
/// product kept whole, 20 pixels move, 10 right each way).
#[test]
fn static_test2_sides_with_the_exact_reduction_against_a_rounded_product() {
    let name = "rsx_fp_static_test2";
    let Some((p, expected)) = with_hardware_image(name) else {
        return;
    };
    let image = |trig| bytes(&cpu_with(&p, |o| o.trig = trig), unorm8);
    let (exact, turns) = (image(TrigReduction::Exact), image(TrigReduction::Turns));
    let (differ, exact_right, turns_right) = sides(&exact, &turns, &expected);
    println!(
        "{name}: {differ} pixels differ between the reductions; the hardware agrees with \
         Exact at {exact_right}, with Turns at {turns_right}"
    );
    assert!(differ >= 500, "{differ} pixels differ");
    assert!(
        exact_right >= 20 * turns_right.max(1),
        "Exact right at {exact_right}, Turns at {turns_right} of {differ}"
    );
}

#[test]
fn static_test1_on_the_device_matches_the_hardware_image() {
    check("rsx_fp_static_test1", 100.0, true);
}

#[test]
fn static_test2_on_the_device_matches_the_hardware_image() {
    check("rsx_fp_static_test2", 99.97, true);
}

#[test]
fn static_test5_on_the_device_matches_the_hardware_image() {
    check("rsx_fp_static_test5", 99.87, true);
}

/// `rsx_fp_static_test3`/`test4` have no hardware image here (they judge the fix): the device
/// image must agree with the interpreter's on `min`% of pixels within `tol`/255. Their hash and
/// ray-marching chains amplify ULP differences (see `gpu_corpus_programs.rs`): test4 adds
/// 0.02 · hash, a hash of cos of thousands of radians, to every pixel, so the paths differ by
/// up to 0.02 · 255 ≈ 5 steps there (measured: 76.0% exact, 84.3% within 1/255, 99.45% within
/// 4/255, 99.90% within 5/255; test3: 99.96% exact, 99.998% within 1/255).
fn device_agrees(name: &str, tol: u8, min: f64) {
    let Some(dir) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let Some(gpu) = gpu_support::gpu(name) else {
        return;
    };
    let p = load(&dir.path("ps3autotests"), name);
    let interp = bytes(&cpu(&p, HalfRounding::Truncate), unorm8);
    let dev = bytes(&device(&gpu, &p, HalfRounding::Truncate), unorm8);
    keep(&format!("{name}.interpreter.Truncate"), &interp);
    keep(&format!("{name}.device.Truncate"), &dev);
    let (exact, within1) = agreement(&dev, &interp);
    let share = Comparison::of(&dev, &interp).percent_within(tol);
    println!(
        "{name}: device vs interpreter {exact:.3}% exact, {within1:.3}% within 1/255, \
         {share:.3}% within {tol}/255"
    );
    assert!(share >= min, "{name}: {share:.3}% within {tol}/255");
}

#[test]
fn static_test3_on_the_device_agrees_with_the_interpreter() {
    device_agrees("rsx_fp_static_test3", 1, 99.9);
}

#[test]
fn static_test4_on_the_device_agrees_with_the_interpreter() {
    device_agrees("rsx_fp_static_test4", 5, 99.8);
}

/// Dot products: each product and sum rounded (the default) or a chain of fused
/// multiply-adds from the last component down (`FragmentOptions::fused_dot`, RPCS3's
/// `DP3_PRECISE` of 3aac7d7, 2026-08, offered at its highest precision preset). Of the programs
/// with hardware images only test2 has dot products (DP2R, in its distances): the two forms
/// move 11 pixels' float colours there and no stored byte, so the seen images cannot decide
/// and the default stays. Measured 2026-12-07 on the unseen programs (interpreter, the two
/// forms against each other): test3 99.977% of pixels equal, test4 99.317% (its DP3R results
/// feed a hash that scales them by 17143).
#[test]
fn static_test2_cannot_tell_the_dot_product_roundings_apart() {
    let name = "rsx_fp_static_test2";
    let Some((p, expected)) = with_hardware_image(name) else {
        return;
    };
    let floats = |fused| cpu_with(&p, |o| o.fused_dot = fused);
    let (rounded, fused) = (floats(false), floats(true));
    let moved = rounded.iter().zip(&fused).filter(|(r, f)| r != f).count();
    println!("{name}: {moved} pixels' float colours differ");
    let (rounded, fused) = (bytes(&rounded, unorm8), bytes(&fused, unorm8));
    let (differ, rounded_right, fused_right) = sides(&rounded, &fused, &expected);
    println!(
        "{name}: {differ} pixels differ between the dot product roundings; the hardware agrees \
         with the rounded sums at {rounded_right}, with the fused chain at {fused_right}"
    );
    assert!(moved > 0, "the fused chain changes some float colours");
    assert_eq!(
        differ, 0,
        "test2 now tells the dot product roundings apart: decide"
    );
}
