//! The texture-format sample (`traces/samples/texture_formats.rrc.gz`, built by
//! `rsxtrace_scenes::texture_formats`) rendered on the CPU reference renderer and on the GPU, every
//! texel of every quad checked against the colour its format's documented rule gives.
//!
//! The rules are written out from the stored fields (`texture_formats::fields`), not taken
//! from the decoder under test, in `texture_rules` (shared with the texture dump's tests).
//!
//! The A8R8G8B8 surface stores `round(clamp(c, 0, 1) * 255)`; a pixel may differ by one step
//! (`TOLERANCE`) for rounding. Both renderers scale unnormalised (UN) coordinates (the
//! recompiled shader through `TextureLod::unnormalized`), so every quad is checked on both.

use crate::texture_rules;

use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::read_file;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame, Rgba8Image};
use rsxtrace_scenes::texture_formats as tf;
use std::path::PathBuf;
use texture_rules::{expected, half};

/// Steps of 1/255 a channel may differ by (rounding of the 8-bit surface write).
const TOLERANCE: i32 = 1;

fn sample_path() -> PathBuf {
    rsxtrace_testkit::workspace!().sample(tf::FILE)
}

fn to_byte(c: f32) -> i32 {
    (c.clamp(0.0, 1.0) * 255.0).round() as i32
}

fn pixel(image: &Rgba8Image, x: u32, y: u32) -> [i32; 4] {
    let i = ((y * image.width + x) * 4) as usize;
    std::array::from_fn(|k| i32::from(image.pixels[i + k]))
}

/// Every texel of every quad (but the names in `skip`) against its rule; the failures listed.
fn check(image: &Rgba8Image, renderer: &str, skip: &[&str]) {
    assert_eq!((image.width, image.height), (tf::SURFACE, tf::SURFACE));
    let mut failures = Vec::new();
    let mut checked = 0;
    for (index, cell) in tf::cells().iter().enumerate() {
        if skip.contains(&cell.name) {
            continue;
        }
        for y in 0..tf::TEXELS {
            for x in 0..tf::TEXELS {
                let want = expected(cell, x, y).map(to_byte);
                let (px, py) = tf::texel_pixel(index as u32, x, y);
                let got = pixel(image, px, py);
                checked += 1;
                if got
                    .iter()
                    .zip(&want)
                    .any(|(g, w)| (g - w).abs() > TOLERANCE)
                {
                    failures.push(format!(
                        "{} texel ({x}, {y}) at pixel ({px}, {py}): got {got:?}, want {want:?}",
                        cell.name
                    ));
                }
            }
        }
    }
    // Between the quads: the clear colour (ARGB 0xFF202020).
    assert_eq!(
        pixel(image, 0, 0),
        [0x20, 0x20, 0x20, 0xFF],
        "{renderer}: clear"
    );
    assert!(
        failures.is_empty(),
        "{renderer}: {} of {checked} texels wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn frame_and_events() -> (Frame, FrameEvents) {
    let capture = read_file(&sample_path()).expect("read the texture-format sample");
    let frame = Frame::from_capture(&capture).expect("frame model");
    let events = FrameEvents::from_capture(&capture, &frame);
    (frame, events)
}

fn assert_every_draw_rendered(out: &RenderedFrame, renderer: &str) {
    assert!(
        out.skipped.is_empty(),
        "{renderer}: skipped {:?}",
        out.skipped
    );
    assert_eq!(out.draws_rendered, tf::cells().len(), "{renderer}");
}

#[test]
fn the_rules_here_disagree_with_a_wrong_channel_order() {
    // The check can fail: Y16_X16_FLOAT with its halves in the other order (the old decoding)
    // differs from the rule for the sample's texels.
    let cell = tf::cells()
        .into_iter()
        .find(|c| c.name == "Y16_X16_FLOAT")
        .unwrap();
    let differs = (0..16).any(|i| {
        let f = tf::fields(&cell, i % 4, i / 4);
        let swapped = [half(f[0]), half(f[1]), half(f[0]), half(f[1])].map(to_byte);
        swapped != expected(&cell, i % 4, i / 4).map(to_byte)
    });
    assert!(differs);
}

#[test]
fn cpu_render_reads_every_format_by_its_rule() {
    let (frame, events) = frame_and_events();
    let out =
        rsxtrace_replay::render::cpu::render_frame(&frame, &events, &RenderOptions::default())
            .expect("CPU render");
    assert_every_draw_rendered(&out, "CPU");
    let texture_warnings: Vec<_> = out
        .warnings
        .iter()
        .filter(|w| w.message.contains("texture"))
        .collect();
    assert!(texture_warnings.is_empty(), "{texture_warnings:?}");
    check(&out.image, "CPU", &[]);
}

#[test]
fn gpu_render_reads_every_format_by_its_rule() {
    let Some(gpu) = rsxtrace_testkit::device::open_or_skip(
        "gpu_render_reads_every_format_by_its_rule",
        || rsxtrace_gpu::Gpu::new(Default::default()),
        |e| matches!(e, rsxtrace_gpu::GpuError::NoAdapter { .. }),
    ) else {
        return;
    };
    let (frame, events) = frame_and_events();
    let out = rsxtrace_replay::render::gpu::render_frame(
        &gpu,
        &frame,
        &events,
        &RenderOptions::default(),
    )
    .expect("GPU render");
    assert_every_draw_rendered(&out, "GPU");
    // Unnormalised coordinates are scaled by the shader: no warning, and the quad is right.
    assert!(
        out.warnings
            .iter()
            .all(|w| !w.message.contains("unnormalised")),
        "GPU: {:?}",
        out.warnings
    );
    check(&out.image, "GPU", &[]);
}

#[test]
fn verify_compares_every_format_clean() {
    // The recompiled fragment program on the device against the interpreter, both sampling
    // the units decoded by the one texture model: every stage clean, the unnormalised quad's
    // included (the shader scales its texel coordinates as the interpreter does).
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("v.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args([
            "verify",
            "--quiet",
            sample_path().to_str().unwrap(),
            "--json",
        ])
        .arg(&json)
        .output()
        .expect("run rsxtrace verify");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if rsxtrace_testkit::device::cli_adapter_missing(
        "verify_compares_every_format_clean",
        out.status.code(),
        &stderr,
    ) {
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let cells = tf::cells();
    let stages = 2 * cells.len() as u64;
    assert_eq!(v["totals"]["diverged"], 0);
    assert_eq!(v["totals"]["failed"], 0);
    assert_eq!(v["totals"]["skipped"], 0);
    assert_eq!(v["totals"]["clean"], stages);
    let un = cells.iter().position(|c| c.unnormalized).unwrap();
    let outcome = &v["draws"][un]["stages"][1]["outcome"];
    assert_eq!(outcome["kind"], "clean", "{outcome}");
}
