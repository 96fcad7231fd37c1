//! The texture-format sample (`traces/samples/texture_formats.rrc.gz`, built by
//! `rsxtrace_scenes::texture_formats`) rendered on the CPU reference renderer and on the GPU, every
//! texel of every quad checked against the colour its format's documented rule gives.
//!
//! The rules are written out here from the stored fields (`texture_formats::fields`), not
//! taken from the decoder under test (`rsxtrace_replay::texture`):
//! * unsigned normalised fields: `v / (2^bits - 1)`; IEEE half and single floats; the 24-bit
//!   depth float is the f32 with its bits shifted left by 7 (RPCS3 `ShuffleBytes.glsl`);
//! * channel placement, default remap (R, G, B, A): B8 (b, b, b, 1); G8B8 (second, first,
//!   second, first); X16 (1, x, 1, x) and Y16_X16_FLOAT (X, Y, X, Y) as the hardware image of
//!   ps3autotests `texture_formats` shows them; Y16_X16 / HILO8 / HILO_S8 (first, second,
//!   first, second); depth formats (d, d, d, d); W16/W32 formats in memory order; the formats
//!   without alpha read alpha 1;
//! * DXT (S3TC): four-colour palette c0, c1, (2c0 + c1) / 3, (c0 + 2c1) / 3 from R5G6B5
//!   endpoints; DXT3 4-bit alpha / 15; DXT5 eight-value alpha ((8 - k) a0 + (k - 1) a1) / 7;
//! * the unit rules (RPCS3 `RSXFragmentTextureOps.glsl` `_process_texel`): sRGB decode
//!   (IEC 61966-2-1), signed `sext8(v) / 127`, biased `(v - 128) / 127`; the remap selectors
//!   and ZERO / ONE modes; the 16-bit formats' remap rewrites (RPCS3 `decoded_remap`).
//!
//! The A8R8G8B8 surface stores `round(clamp(c, 0, 1) * 255)`; a pixel may differ by one step
//! (`TOLERANCE`) for rounding. Both renderers scale unnormalised (UN) coordinates (the
//! recompiled shader through `TextureLod::unnormalized`), so every quad is checked on both.

use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::read_file;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame, Rgba8Image};
use rsxtrace_scenes::texture_formats::{self as tf, Cell};
use std::path::PathBuf;

/// Steps of 1/255 a channel may differ by (rounding of the 8-bit surface write).
const TOLERANCE: i32 = 1;

fn sample_path() -> PathBuf {
    rsxtrace_testkit::workspace!().sample(tf::FILE)
}

fn unorm(v: u32, bits: u32) -> f32 {
    v as f32 / ((1u64 << bits) - 1) as f32
}

/// IEEE 754 binary16 (the fields are non-negative).
fn half(bits: u32) -> f32 {
    let (e, m) = ((bits >> 10) & 0x1F, (bits & 0x3FF) as f32);
    if e == 0 {
        m / 1024.0 * 2f32.powi(-14)
    } else {
        (1.0 + m / 1024.0) * 2f32.powi(e as i32 - 15)
    }
}

fn srgb_to_linear(x: f32) -> f32 {
    if x <= 0.04045 {
        x / 12.92
    } else {
        ((x + 0.055) / 1.055).powf(2.4)
    }
}

fn rgb565(c: u16) -> [f32; 3] {
    [
        unorm(u32::from(c >> 11), 5),
        unorm(u32::from((c >> 5) & 0x3F), 6),
        unorm(u32::from(c & 0x1F), 5),
    ]
}

/// The DXT colour of palette index `i` (four-colour mode: c0 > c1).
fn dxt_colour(i: u32) -> [f32; 3] {
    let (c0, c1) = (rgb565(tf::DXT_COLOURS.0), rgb565(tf::DXT_COLOURS.1));
    let mix = |w0: f32, w1: f32| std::array::from_fn(|k| (c0[k] * w0 + c1[k] * w1) / 3.0);
    match i {
        0 => c0,
        1 => c1,
        2 => mix(2.0, 1.0),
        _ => mix(1.0, 2.0),
    }
}

/// DXT5 alpha of code `k` (eight-value mode: a0 > a1).
fn dxt5_alpha(k: u32) -> f32 {
    let (a0, a1) = (f32::from(tf::DXT5_ALPHA.0), f32::from(tf::DXT5_ALPHA.1));
    let v = match k {
        0 => a0,
        1 => a1,
        k => ((8 - k) as f32 * a0 + (k - 1) as f32 * a1) / 7.0,
    };
    v / 255.0
}

/// The colour (R, G, B, A) the default remap gives for `format` with stored fields `f`.
fn format_rule(format: u8, f: [u32; 4]) -> [f32; 4] {
    let u8n = |v: u32| unorm(v, 8);
    let s8 = |v: u32| (f32::from(v as u8 as i8) / 127.0).max(-1.0);
    match format {
        0x81 => [u8n(f[0]), u8n(f[0]), u8n(f[0]), 1.0],
        0x82 | 0x97 => [
            unorm(f[1], 5),
            unorm(f[2], 5),
            unorm(f[3], 5),
            unorm(f[0], 1),
        ],
        0x83 => [
            unorm(f[1], 4),
            unorm(f[2], 4),
            unorm(f[3], 4),
            unorm(f[0], 4),
        ],
        0x84 => [unorm(f[1], 5), unorm(f[2], 6), unorm(f[3], 5), 1.0],
        0x85 => [u8n(f[1]), u8n(f[2]), u8n(f[3]), u8n(f[0])],
        0x86..=0x88 => {
            let [r, g, b] = dxt_colour(f[0]);
            let a = match format {
                0x86 => 1.0,
                0x87 => unorm(f[1], 4),
                _ => dxt5_alpha(f[1]),
            };
            [r, g, b, a]
        }
        0x8B => [u8n(f[1]), u8n(f[0]), u8n(f[1]), u8n(f[0])],
        0x8D | 0x8E => [u8n(f[0]), u8n(f[1]), u8n(f[2]), 1.0],
        0x8F => [unorm(f[1], 6), unorm(f[2], 5), unorm(f[3], 5), 1.0],
        0x90 => [unorm(f[0], 24); 4],
        0x91 => [f32::from_bits(f[0] << 7); 4],
        0x92 => [unorm(f[0], 16); 4],
        0x93 => [half(f[0]); 4],
        0x94 => {
            let x = unorm(f[0], 16);
            [1.0, x, 1.0, x]
        }
        0x95 => {
            let (c0, c1) = (unorm(f[0], 16), unorm(f[1], 16));
            [c0, c1, c0, c1]
        }
        0x98 => [u8n(f[0]), u8n(f[1]), u8n(f[0]), u8n(f[1])],
        0x99 => [s8(f[0]), s8(f[1]), s8(f[0]), s8(f[1])],
        0x9A => f.map(half),
        0x9B => f.map(f32::from_bits),
        0x9C => [f32::from_bits(f[0]); 4],
        0x9D => [unorm(f[1], 5), unorm(f[2], 5), unorm(f[3], 5), 1.0],
        0x9E => [u8n(f[1]), u8n(f[2]), u8n(f[3]), 1.0],
        0x9F => {
            let (y, x) = (half(f[0]), half(f[1]));
            [x, y, x, y]
        }
        other => panic!("no rule for format {other:#x}"),
    }
}

/// The colour of texel `(x, y)` of `cell`, with the cell's unit rules.
fn expected(cell: &Cell, x: u32, y: u32) -> [f32; 4] {
    let f = tf::fields(cell, x, y);
    let base = format_rule(cell.format, f);
    let stored = |v: u32| v as f32;
    match cell.name {
        // A8R8G8B8: fields a, r, g, b. Selectors R<-B, B<-R; G ZERO, A ONE.
        "A8R8G8B8 remap B0R1" => [base[2], 0.0, base[0], 1.0],
        "A8R8G8B8 gamma RGB" => [
            srgb_to_linear(base[0]),
            srgb_to_linear(base[1]),
            srgb_to_linear(base[2]),
            base[3],
        ],
        // FILTER bits 29 (R) and 30 (G): the stored byte read as a signed byte / 127.
        "A8R8G8B8 signed RG" => [
            f32::from(f[1] as u8 as i8) / 127.0,
            f32::from(f[2] as u8 as i8) / 127.0,
            base[2],
            base[3],
        ],
        "A8R8G8B8 biased" => [
            (stored(f[1]) - 128.0) / 127.0,
            (stored(f[2]) - 128.0) / 127.0,
            (stored(f[3]) - 128.0) / 127.0,
            (stored(f[0]) - 128.0) / 127.0,
        ],
        // 0x4E becomes 0x99 for the 16-bit formats: A<-R, R<-G, G<-R, B<-G of (x, 1, x, 1).
        "X16 remap 0x4E" => {
            let v = unorm(f[0], 16);
            [v, 1.0, v, 1.0]
        }
        // A non-zero override turns 0xE4 into 0x56: R-R-R-G.
        "HILO8 override" => [base[0], base[0], base[0], base[1]],
        _ => base,
    }
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
    let events = FrameEvents::from_capture(&capture, &frame).expect("frame events");
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
