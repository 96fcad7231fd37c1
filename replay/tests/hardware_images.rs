//! Agreement with PS3 hardware: `shade` of the ps3autotests `rsx_fp_static_test{1,2,5}`
//! programs (Sony-compiled) against their `.expected.png` images, taken on a PS3 by the
//! public ps3autotests suite, on the reference interpreter and recompiled on the device.
//! Uniforms are those of the Cg sources (`cg/*.cg` global initialisers); the image is
//! 720 × 480 (the sources' `WIDTH`/`HEIGHT`, the images' size).
//!
//! Each program runs under the hardware rules (the defaults: fp32 → fp16 by truncation,
//! rsx-microcode.md B.9) and under RPCS3's nearest rounding; both go through the 8-bit
//! surface write rule (`render::color8`). The test asserts the share of pixels whose four
//! channels equal the hardware's (exact) and lie within 1/255, and that truncation does at
//! least as well as nearest rounding.
//!
//! Measured (2026-12-01, interpreter and lavapipe alike, exact / within 1/255):
//!
//! | program | before (nearest, round(x·255)) | nearest + 8-bit rule | truncation + 8-bit rule |
//! |---|---|---|---|
//! | test1 | 93.98% / 100% | 97.17% / 100% | 97.17% / 100% |
//! | test2 | 82.07% / 100% | 82.41% / 100% | 99.00% / 100% |
//! | test5 | 63.71% / 100% | 67.07% / 100% | 96.64% / 100% |
//!
//! What remains is one step, almost always ours one above the hardware's. test1 is an
//! identity of TEX0 (`COL0 = (0, tex.y, tex.x, 1)`), so its 2.8% cannot be arithmetic: the
//! hardware's interpolated TEX0 lies slightly below `shade`'s (x + 0.5) / W (whole columns
//! differ, e.g. every pixel of columns 1, 32, 49, 80), a rasterizer/interpolator effect `shade`
//! does not model; test2 and test5 read TEX0 the same way. Other output conversions fitted
//! to the float results score lower (clearing 13..16 mantissa bits, fp16 truncation before
//! the rule, plain rounding, floor(x·256)).
//!
//! `RSXTRACE_SHADE_OUT=DIR` writes every image computed here into DIR for inspection.

mod gpu_support;

use std::path::{Path, PathBuf};

use rsxtrace_gpu::{shade_gpu, Gpu};
use rsxtrace_replay::interp::fragment::{FragmentState, HalfRounding};
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

fn cpu(p: &LoadedProgram, half: HalfRounding) -> Vec<u8> {
    let mut state = FragmentState::new(p.control);
    state.options.half_rounding = half;
    shade_with(&p.program, &state, WIDTH, HEIGHT, &NoTextures)
        .expect("shade")
        .rgba8
}

fn device(gpu: &Gpu, p: &LoadedProgram, half: HalfRounding) -> Vec<u8> {
    let options = FragmentTranslateOptions {
        half_rounding: half,
        ..FragmentTranslateOptions::with_control(p.control)
    };
    let module = translate(&p.program, &options).expect("translate");
    shade_gpu(gpu, &module, WIDTH, HEIGHT)
        .expect("shade_gpu")
        .pixels
        .iter()
        .flat_map(|c| c.map(|v| to_unorm8(f64::from(v))))
        .collect()
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
        let image = match &gpu {
            Some(g) => device(g, &p, half),
            None => cpu(&p, half),
        };
        keep(&format!("{name}.{path}.{half:?}"), &image);
        let (exact, within1) = agreement(&image, &expected);
        println!(
            "{name} on the {path}, fp16 {half:?}: {exact:.3}% of pixels exact, {within1:.3}% within 1/255"
        );
        scores.push((exact, within1));
    }
    let (exact, within1) = scores[0];
    assert!(
        exact >= min_exact && within1 >= 99.9,
        "{name} on the {path}: {exact:.3}% exact, {within1:.3}% within 1/255"
    );
    assert!(
        exact >= scores[1].0,
        "{name} on the {path}: truncation {exact:.3}% exact, nearest {:.3}%",
        scores[1].0
    );
}

// Bars: the measured shares rounded down (see the table in the module doc).

#[test]
fn static_test1_matches_the_hardware_image() {
    check("rsx_fp_static_test1", 97.0, false);
}

#[test]
fn static_test2_matches_the_hardware_image() {
    check("rsx_fp_static_test2", 98.9, false);
}

#[test]
fn static_test5_matches_the_hardware_image() {
    check("rsx_fp_static_test5", 96.5, false);
}

#[test]
fn static_test1_on_the_device_matches_the_hardware_image() {
    check("rsx_fp_static_test1", 97.0, true);
}

#[test]
fn static_test2_on_the_device_matches_the_hardware_image() {
    check("rsx_fp_static_test2", 98.9, true);
}

#[test]
fn static_test5_on_the_device_matches_the_hardware_image() {
    check("rsx_fp_static_test5", 96.5, true);
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
    let interp = cpu(&p, HalfRounding::Truncate);
    let dev = device(&gpu, &p, HalfRounding::Truncate);
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
