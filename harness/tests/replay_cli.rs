//! `rsxtrace replay` end to end: the bundled sample on the CPU (and on a GPU device when one
//! exists), per-draw snapshots, draw ranges, a small builder-made capture whose draw reads a
//! constant the capture does not hold (listed as a warning), and bad input (exit status 2);
//! `rsxtrace history`, the pixel history of the sample's output image; `rsxtrace trim`, the
//! game sample cut to a range of draws that replays as `replay --draws` does; occlusion queries
//! deciding conditional draws, listed in the JSON and counted in the text.

use crate::cli_support;
use cli_support::*;

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::rrc::Location;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// Decoded RGBA8 PNG: (width, height, pixels).
fn read_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let png = rsxtrace_testkit::image::read_rgba_png(path);
    (png.width, png.height, png.rgba)
}

/// Whether a GPU adapter opens; a loud skip when none exists (a failure under CI=true, and
/// on any other error).
fn gpu_available(test: &str) -> bool {
    rsxtrace_testkit::device::open_or_skip(
        test,
        || rsxtrace_gpu::Gpu::new(Default::default()),
        |e| matches!(e, rsxtrace_gpu::GpuError::NoAdapter { .. }),
    )
    .is_some()
}

#[test]
fn cpu_replay_of_the_sample_with_per_draw_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("frame.png");
    let per_draw = dir.path().join("draws");
    let report = json_ok(&[
        "replay",
        &sample(),
        "--cpu",
        "--out",
        s(&out),
        "--per-draw",
        s(&per_draw),
        "--json",
    ]);
    assert_eq!(report["renderer"], "CPU reference interpreter");
    assert_eq!(report["draws_rendered"], 3);
    // The GPU render's target traffic: zeros on the CPU.
    for key in ["uploads", "readbacks", "kept_binds", "aliased", "evicted"] {
        assert_eq!(report["surface_traffic"][key], 0, "{key}: {report}");
    }
    assert_eq!(
        (report["width"].clone(), report["height"].clone()),
        (256.into(), 256.into())
    );
    let (w, h, pixels) = read_png(&out);
    assert_eq!((w, h), (256, 256));
    assert_eq!(
        report["checksum"].as_str().unwrap(),
        format!("{:016x}", xxh3_64(&pixels))
    );
    // One snapshot per draw, named by draw, each with its checksum; the last is the frame.
    let files: Vec<&str> = report["per_draw"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 3);
    for (i, file) in files.iter().enumerate() {
        assert_eq!(
            Path::new(file),
            per_draw.join(format!("draw-{i:04}.png")),
            "{file}"
        );
        let (_, _, snapshot) = read_png(Path::new(file));
        assert_eq!(
            report["per_draw"][i]["checksum"].as_str().unwrap(),
            format!("{:016x}", xxh3_64(&snapshot))
        );
    }
    let (_, _, last) = read_png(Path::new(files[2]));
    assert_eq!(
        last, pixels,
        "the snapshot after the last draw is the frame"
    );
}

#[test]
fn draw_range_renders_only_those_draws() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("frame.png");
    let per_draw = dir.path().join("draws");
    let report = json_ok(&[
        "replay",
        &sample(),
        "--cpu",
        "--draws",
        "1..3",
        "--out",
        s(&out),
        "--per-draw",
        s(&per_draw),
        "--json",
    ]);
    assert_eq!(report["draws_rendered"], 2);
    let draws: Vec<u64> = report["per_draw"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["draw"].as_u64().unwrap())
        .collect();
    assert_eq!(draws, [1, 2]);
    assert!(!per_draw.join("draw-0000.png").exists());
    assert!(per_draw.join("draw-0002.png").is_file());
}

#[test]
fn bad_input_is_exit_status_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.png");
    let cases: &[(&[&str], &str)] = &[
        (&["--draws", "1..9"], "3 draws"),
        (&["--draws", "3..1"], "empty range"),
        (&["--draws", "x"], "expected A..B"),
    ];
    let sample = sample();
    for (extra, message) in cases {
        let mut args = vec!["replay", sample.as_str(), "--cpu", "--out", s(&out)];
        args.extend_from_slice(extra);
        let o = rsxtrace(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let missing = dir.path().join("missing.rrc");
    let o = rsxtrace(&["replay", s(&missing), "--cpu", "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.rrc"));
    assert!(!out.exists());
}

/// `--target`: the sample's colour target A (its output) gives the output image; its depth
/// surface, grey levels fitted to its range (the cleared background at the far end, white;
/// the triangles nearer, darker); the same depth image on a GPU device; an address no draw
/// renders into, and `--target` with `--shard`, are errors.
#[test]
fn a_named_target_is_written_instead_of_the_output_image() {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample();
    let replay = |extra: &[&str], name: &str| {
        let out = dir.path().join(name);
        let mut args = vec!["replay", sample.as_str(), "--out", s(&out), "--json"];
        args.extend_from_slice(extra);
        (json_ok(&args), out)
    };
    let (output, _) = replay(&["--cpu"], "output.png");
    assert_eq!(output["target"], serde_json::Value::Null);
    let (colour, _) = replay(&["--cpu", "--target", "local:0"], "a.png");
    assert_eq!(colour["checksum"], output["checksum"], "{colour}");
    assert_eq!(colour["target"]["format"], "a8r8g8b8");
    assert_eq!(colour["target"]["depth"], false);

    let (depth, depth_png) = replay(&["--cpu", "--target", "0x200000"], "z.png");
    assert_eq!(depth["target"]["format"], "z24s8", "{depth}");
    assert_eq!(depth["target"]["depth"], true);
    let (w, h, pixels) = read_png(&depth_png);
    assert_eq!((w, h), (256, 256));
    let at = |x: usize, y: usize| &pixels[(y * 256 + x) * 4..(y * 256 + x) * 4 + 4];
    assert_eq!(at(2, 2), [255, 255, 255, 255], "the cleared far plane");
    assert!(
        pixels.chunks(4).any(|p| p[0] < 128 && p[3] == 255),
        "the triangles are nearer than the far plane"
    );
    assert!(
        pixels.chunks(4).all(|p| p[0] == p[1] && p[1] == p[2]),
        "grey"
    );

    if gpu_available("a_named_target_is_written_instead_of_the_output_image") {
        let (gpu, _) = replay(&["--target", "0x200000"], "z-gpu.png");
        assert_eq!(gpu["checksum"], depth["checksum"], "{gpu}");
    }

    let o = rsxtrace(&[
        "replay",
        sample.as_str(),
        "--cpu",
        "--out",
        s(&dir.path().join("x.png")),
        "--target",
        "main:0x10",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("no draw renders into a colour or depth target at main 0x00000010"));
    let o = rsxtrace(&[
        "replay",
        sample.as_str(),
        "--cpu",
        "--out",
        s(&dir.path().join("x.png")),
        "--target",
        "0",
        "--shard",
        "1/2",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// `rsxtrace targets`: the sample's colour target (the output) and depth surface, each of
/// which `replay --target` writes at the address listed.
#[test]
fn targets_lists_what_replay_target_writes() {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample();
    let listed = json_ok(&["targets", &sample, "--json"]);
    let targets = listed.as_array().unwrap();
    let summary: Vec<(u64, bool, bool, u64)> = targets
        .iter()
        .map(|t| {
            (
                t["address"].as_u64().unwrap(),
                t["depth"].as_bool().unwrap(),
                t["output"].as_bool().unwrap(),
                t["draws"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(summary, [(0, false, true, 3), (0x20_0000, true, false, 3)]);
    for t in targets {
        let address = format!("{}:{}", t["location"].as_str().unwrap(), t["address"]);
        let out = dir.path().join(format!("{}.png", t["address"]));
        let written = json_ok(&[
            "replay",
            &sample,
            "--cpu",
            "--target",
            &address,
            "--out",
            s(&out),
            "--json",
        ]);
        assert_eq!(written["target"]["format"], t["format"], "{written}");
        assert_eq!(written["width"], t["width"]);
    }
    let text = String::from_utf8(rsxtrace(&["targets", &sample]).stdout).unwrap();
    assert!(text.contains("local:0x00200000  depth"), "{text}");
}

/// `--target ADDRESS --stencil`: the stencil of the depth surface there, the triangle's 3 white
/// over the cleared 0 black, each value's pixels counted (the triangle's half of the 64x64
/// surface); a surface without stencil, and `--stencil` without `--target`, are refused.
#[test]
fn the_stencil_of_a_depth_surface_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("stencil.rrc.gz");
    one_triangle(&capture, true);
    let out = dir.path().join("stencil.png");
    let replay = |extra: &[&str]| {
        let mut args = vec!["replay", s(&capture), "--out", s(&out), "--json"];
        args.extend_from_slice(extra);
        json_ok(&args)
    };
    let cpu = replay(&["--cpu", "--target", "0x40000", "--stencil"]);
    assert_eq!(cpu["target"]["stencil"], true, "{cpu}");
    assert_eq!(cpu["target"]["format"], "z24s8");
    let values = cpu["target"]["stencil_values"].as_array().unwrap();
    let listed: Vec<(u64, u64)> = values
        .iter()
        .map(|v| (v["value"].as_u64().unwrap(), v["pixels"].as_u64().unwrap()))
        .collect();
    assert_eq!(listed.iter().map(|v| v.0).collect::<Vec<_>>(), [0, 3]);
    assert_eq!(listed[0].1 + listed[1].1, 64 * 64);
    assert!((1900..=2200).contains(&listed[1].1), "{listed:?}");
    let (w, h, pixels) = read_png(&out);
    assert_eq!((w, h), (64, 64));
    let at = |x: usize, y: usize| &pixels[(y * 64 + x) * 4..(y * 64 + x) * 4 + 4];
    assert_eq!(at(32, 40), [255, 255, 255, 255], "inside the triangle");
    assert_eq!(at(1, 1), [0, 0, 0, 255], "the cleared corner");
    let white = pixels.chunks(4).filter(|p| p[0] == 255).count() as u64;
    assert_eq!(white, listed[1].1);
    if gpu_available("the_stencil_of_a_depth_surface_is_written") {
        let gpu = replay(&["--target", "0x40000", "--stencil"]);
        assert_eq!(gpu["checksum"], cpu["checksum"], "{gpu}");
    }
    // The text form, and the same command at the colour target (no stencil there).
    let stencil_at = |address: &str| {
        rsxtrace(&[
            "replay",
            s(&capture),
            "--cpu",
            "--out",
            s(&out),
            "--target",
            address,
            "--stencil",
        ])
    };
    let text = String::from_utf8(stencil_at("0x40000").stdout).unwrap();
    assert!(text.contains("stencil values: 0 ("), "{text}");
    // `targets` says which depth surface has its stencil written, and by how many draws.
    let listed = json_ok(&["targets", s(&capture), "--json"]);
    let depth = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["depth"] == true)
        .expect("the depth surface");
    assert_eq!(
        (depth["address"].as_u64(), depth["stencil_writes"].as_u64()),
        (Some(0x40000), Some(1))
    );
    let text = String::from_utf8(rsxtrace(&["targets", s(&capture)]).stdout).unwrap();
    assert!(text.contains("stencil written by 1 draws"), "{text}");
    // The colour target has no stencil; the option needs a target.
    let o = stencil_at("0");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("no draw's depth surface lies at local 0x00000000"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = rsxtrace(&[
        "replay",
        s(&capture),
        "--cpu",
        "--out",
        s(&out),
        "--stencil",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// `rsxtrace overdraw`: the basic sample's three draws counted on its output image (each
/// draw's fragments, the heat map the size of the image, coloured where counted), its depth
/// surface by `--target`, a draw range, and an address no draw renders into (exit 2).
#[test]
fn overdraw_counts_each_draws_fragments_on_the_output_image() {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample();
    let out = dir.path().join("overdraw.png");
    let run = |extra: &[&str]| {
        let mut args = vec!["overdraw", sample.as_str(), "--out", s(&out), "--json"];
        args.extend_from_slice(extra);
        json_ok(&args)
    };
    let all = run(&[]);
    assert_eq!(
        (all["width"].as_u64(), all["height"].as_u64()),
        (Some(256), Some(256))
    );
    let draws = all["draws"].as_array().unwrap();
    assert_eq!(draws.len(), 3, "{all}");
    let sum: u64 = draws.iter().map(|d| d["fragments"].as_u64().unwrap()).sum();
    assert_eq!(all["fragments"].as_u64(), Some(sum));
    let histogram: Vec<u64> = all["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert_eq!(histogram.iter().sum::<u64>(), 256 * 256);
    assert_eq!(
        all["covered_pixels"].as_u64(),
        Some(256 * 256 - histogram[0])
    );
    let (w, h, pixels) = read_png(&out);
    assert_eq!((w, h), (256, 256));
    let coloured = pixels.chunks(4).filter(|p| p[..3] != [0, 0, 0]).count() as u64;
    assert_eq!(Some(coloured), all["covered_pixels"].as_u64());
    // The depth surface: the draws test depth, so they count there alike.
    let depth = run(&["--target", "0x200000"]);
    assert_eq!(depth["target"]["depth"], true);
    assert_eq!(depth["fragments"], all["fragments"]);
    let first = run(&["--draws", "0"]);
    assert_eq!(first["draws"].as_array().unwrap().len(), 1);
    assert_eq!(first["fragments"], draws[0]["fragments"]);
    let text = String::from_utf8(rsxtrace(&["overdraw", sample.as_str(), "--out", s(&out)]).stdout)
        .unwrap();
    assert!(text.contains("fragments from 3 draws"), "{text}");
    // --passed: each draw's fragments that passed every test, from the CPU render; none
    // more than it rasterized, their sum in the summary.
    let passed = run(&["--passed"]);
    let mut sum = 0;
    for d in passed["draws"].as_array().unwrap() {
        let (f, p) = (
            d["fragments"].as_u64().unwrap(),
            d["passed"].as_u64().unwrap(),
        );
        assert!(p <= f, "{d}");
        sum += p;
    }
    assert!(sum > 0);
    assert_eq!(passed["passed"]["fragments"].as_u64(), Some(sum));
    assert!(passed["passed"]["hidden_draws"].is_array());
    assert!(all["passed"].is_null());
    let text = String::from_utf8(
        rsxtrace(&["overdraw", sample.as_str(), "--out", s(&out), "--passed"]).stdout,
    )
    .unwrap();
    assert!(text.contains("passed every test and written"), "{text}");
    let o = rsxtrace(&[
        "overdraw",
        sample.as_str(),
        "--out",
        s(&out),
        "--target",
        "main:0x10",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// One triangle whose vertex program reads c32..c35, which the capture never uploads.
fn capture_without_constants(path: &Path) {
    one_triangle(path, false);
}

/// One triangle (x from -1 to 1 at the bottom, its apex at the top centre) into a 64x64
/// A8R8G8B8 + Z24S8 surface cleared to stencil 0. With `stencil`, the constants c32..c35 are
/// the identity and the triangle writes stencil 3 (ALWAYS, REPLACE); without, the vertex
/// program's constants are missing from the capture.
fn one_triangle(path: &Path, stencil: bool) {
    triangle(path, stencil, 1);
}

/// [`one_triangle`] with colour target field `color_target` (0: none, a depth-only frame).
fn triangle(path: &Path, stencil: bool, color_target: u32) {
    let mut b = CaptureBuilder::new("no-constants");
    let target = |offset| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: 256,
    };
    b.set_surface(&SurfaceDesc {
        color_format: 8, // A8R8G8B8
        depth_format: 2, // Z24S8
        surface_type: 1,
        antialias: 0,
        log2_size: (6, 6),
        color_target,
        colors: [
            target(0),
            target(0x1_0000),
            target(0x2_0000),
            target(0x3_0000),
        ],
        zeta: target(0x4_0000),
        clip: (0, 0, 64, 64),
    });
    b.set_viewport(
        0,
        0,
        64,
        64,
        (0.0, 1.0),
        [32.0, 32.0, 0.5, 0.0],
        [32.0, -32.0, 0.5, 0.0],
    );
    b.set_scissor(0, 0, 64, 64);
    b.clear_surface(0xF3, 0xFF10_2030, 0xFFFF_FF00);
    b.set_vertex_program(&mvp_vertex_program(32), 0, 0, 0b1001, 0b1)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x5_0000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    if stencil {
        let identity = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ];
        b.set_transform_constants(32, &identity).unwrap();
        for (method, value) in [
            (0x0328, 1),      // STENCIL_TEST_ENABLE
            (0x032C, 0xFF),   // STENCIL_MASK
            (0x0330, 0x207),  // STENCIL_FUNC: ALWAYS
            (0x0334, 3),      // STENCIL_FUNC_REF
            (0x0338, 0xFF),   // STENCIL_FUNC_MASK
            (0x033C, 0x1E00), // STENCIL_OP_FAIL: KEEP
            (0x0340, 0x1E00), // STENCIL_OP_ZFAIL: KEEP
            (0x0344, 0x1E01), // STENCIL_OP_ZPASS: REPLACE
        ] {
            b.method(method / 4, value).unwrap();
        }
    }
    let positions: Vec<u8> = [-1.0f32, -1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    b.put_memory(Location::Main, 0x1_0000, &positions).unwrap();
    b.put_memory(Location::Main, 0x1_1000, &[0xFF; 12]).unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1_0000) // float3
        .unwrap();
    b.set_vertex_array(3, 4, 4, 4, 0, Location::Main, 0x1_1000) // ub4
        .unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap(); // triangles
    b.write_rrc(path).unwrap();
}

#[test]
fn the_depth_surface_of_a_depth_only_frame_is_written_and_watched() {
    // No draw writes colour (colour target field 0, a shadow map or depth pre-pass): there is
    // no output image, but `--target` writes the depth surface (replay --help) and history
    // watches it; without --target replay says there is nothing to show.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("depth_only.rrc.gz");
    triangle(&path, true, 0);
    let png = dir.path().join("z.png");
    let out = rsxtrace(&[
        "replay",
        s(&path),
        "--cpu",
        "--target",
        "0x40000",
        "--out",
        s(&png),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, h, _) = read_png(&png);
    assert_eq!((w, h), (64, 64));
    let out = rsxtrace(&[
        "history",
        s(&path),
        "--pixel",
        "32,40",
        "--target",
        "0x40000",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = rsxtrace(&["replay", s(&path), "--cpu", "--out", s(&png)]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains(
            "no draw writes colour (a depth-only frame: `--target` shows a depth target)"
        ),
        "{text}"
    );
}

/// `replay` says which draws conditional rendering left out, on both renderers: the
/// occlusion scene's flare behind the occluder is not drawn, the one in the open is, the one
/// on a report no query wrote is drawn with a warning.
#[test]
fn conditional_draws_are_listed() {
    use rsxtrace_scenes::occlusion::*;
    let dir = tempfile::tempdir().unwrap();
    let capture = scene_file(dir.path(), "occlusion.rrc", &occlusion_capture());
    let out = dir.path().join("frame.png");
    // The GPU renders by default.
    for renderer in ["--cpu", "GPU"] {
        if renderer == "GPU" && !gpu_available("conditional_draws_are_listed") {
            continue;
        }
        let mut args = vec!["replay", s(&capture), "--out", s(&out)];
        // The CPU render counts every draw's samples; the GPU render when asked.
        args.push(if renderer == "--cpu" {
            renderer
        } else {
            "--count-samples"
        });
        let report = json_ok(&[&args[..], &["--json"]].concat());
        let decided: Vec<(u64, bool, String)> = report["conditional"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let source = match &c["source"] {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.as_object().unwrap().keys().next().unwrap().clone(),
                };
                (
                    c["draw"].as_u64().unwrap(),
                    c["drawn"].as_bool().unwrap(),
                    source,
                )
            })
            .collect();
        assert_eq!(
            decided,
            [
                (HIDDEN_FLARE as u64, false, "query".to_string()),
                (VISIBLE_FLARE as u64, true, "query".to_string()),
                (UNKNOWN_FLARE as u64, true, "unknown".to_string()),
            ],
            "{renderer}: {report}"
        );
        assert_eq!(report["conditional"][1]["samples"], 256, "{renderer}");
        let passed: Vec<(u64, u64)> = report["draw_shading"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let n = d["fragments_passed"].as_u64().unwrap();
                (d["draw"].as_u64().unwrap(), n)
            })
            .collect();
        // The occluder's half, the queries' 0 and 256, the flares' quarters (the hidden one
        // not drawn).
        assert_eq!(
            passed,
            [(0, 2048), (1, 0), (2, 256), (3, 0), (4, 1024), (5, 1024)],
            "{renderer}"
        );
        assert_eq!(report["draws_rendered"], 5, "{renderer}");
        // The flares: the hidden one's quarter is the occluder's red, the visible one's blue.
        let (_, _, pixels) = read_png(&out);
        let px = |x: usize, y: usize| &pixels[(y * 64 + x) * 4..][..4];
        assert_eq!(px(8, 56), [255, 0, 0, 255], "{renderer}");
        assert_eq!(px(56, 56), [0, 0, 255, 255], "{renderer}");
        assert_eq!(px(32, 8), [255, 255, 255, 255], "{renderer}");
        let o = rsxtrace(&args);
        assert!(o.status.success());
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("conditional rendering: 3 draws decided by occlusion reports, 1 not drawn (3), 1 drawn on a report the replay does not know"),
            "{renderer}: {text}"
        );
        assert!(
            text.contains("samples passed: 4352 over 6 draws (2 passed none)"),
            "{renderer}: {text}"
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("warning: draw 5: conditional rendering"),
            "{err}"
        );
    }
}

/// `history` of a pixel under the flare conditional rendering left out: no fragment of it, and
/// the draw named among those left out (text and JSON).
#[test]
fn history_names_the_draws_conditional_rendering_left_out() {
    use rsxtrace_scenes::occlusion::*;
    let dir = tempfile::tempdir().unwrap();
    let capture = scene_file(dir.path(), "occlusion.rrc", &occlusion_capture());
    let json = json_ok(&["history", s(&capture), "--pixel", "8,56", "--json"]);
    let drawn: Vec<u64> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["draw"].as_u64())
        .collect();
    assert!(!drawn.contains(&(HIDDEN_FLARE as u64)), "{json}");
    assert_eq!(json["not_drawn"][0]["draw"], HIDDEN_FLARE, "{json}");
    let o = rsxtrace(&["history", s(&capture), "--pixel", "8,56"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(
            "left out by conditional rendering (their occlusion report counted no sample): 1 draw (3)"
        ),
        "{text}"
    );
}

/// `overdraw --passed --passed-out`: per pixel, the fragments that passed every test, beside
/// the rasterized counts. On the occlusion scene the flare conditional rendering left out and
/// the query behind the occluder rasterize fragments that never pass: where the hidden flare
/// lies over the occluder, 2 fragments are rasterized and 1 passes; the counts per pixel add
/// up to the passed total.
#[test]
fn overdraw_passed_counts_each_pixel() {
    use rsxtrace_scenes::occlusion::*;
    let dir = tempfile::tempdir().unwrap();
    let capture = scene_file(dir.path(), "occlusion.rrc", &occlusion_capture());
    let (out, passed_out) = (dir.path().join("od.png"), dir.path().join("passed.png"));
    let json = json_ok(&[
        "overdraw",
        s(&capture),
        "--out",
        s(&out),
        "--passed",
        "--passed-out",
        s(&passed_out),
        "--json",
    ]);
    let pixels = &json["passed"]["pixels"];
    let histogram: Vec<u64> = pixels["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    let sum: u64 = histogram
        .iter()
        .enumerate()
        .map(|(k, n)| k as u64 * n)
        .sum();
    assert_eq!(sum, json["passed"]["fragments"].as_u64().unwrap(), "{json}");
    assert_eq!(sum, 4352);
    assert_eq!(pixels["max"]["fragments"], 2, "{json}");
    let (_, _, rasterized) = read_png(&out);
    let (w, h, passed) = read_png(&passed_out);
    assert_eq!((w, h), (64, 64));
    let px = |img: &[u8], x: usize, y: usize| img[(y * 64 + x) * 4..][..4].to_vec();
    let ramp = |n| rsxtrace_replay::render::overdraw::ramp(n).to_vec();
    assert_eq!(px(&rasterized, 8, 56), ramp(2));
    assert_eq!(px(&passed, 8, 56), ramp(1));
    // The text says it.
    let o = rsxtrace(&["overdraw", s(&capture), "--out", s(&out), "--passed"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("passed per pixel: 3648 of 4096 pixels written"),
        "{text}"
    );
    // Without --passed, --passed-out is refused.
    let refused = rsxtrace(&[
        "overdraw",
        s(&capture),
        "--out",
        s(&out),
        "--passed-out",
        s(&passed_out),
    ]);
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn constants_the_capture_lacks_are_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("no-constants.rrc.gz");
    capture_without_constants(&capture);
    let out = dir.path().join("frame.png");
    let report = json_ok(&["replay", s(&capture), "--cpu", "--out", s(&out), "--json"]);
    assert_eq!(report["draws_rendered"], 1);
    let warnings = report["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w["draw"] == 0 && w["message"].as_str().unwrap().contains("32")),
        "{warnings:?}"
    );
    let (w, h, _) = read_png(&out);
    assert_eq!((w, h), (64, 64));
    // The text form lists them on stderr.
    let o = rsxtrace(&["replay", s(&capture), "--cpu", "--out", s(&out)]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("warning: draw 0:"), "{err}");
}

#[test]
fn gpu_replay_of_the_sample() {
    if !gpu_available("gpu_replay_of_the_sample") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gpu.png");
    let report = json_ok(&["replay", &sample(), "--out", s(&out), "--json"]);
    assert!(
        report["renderer"].as_str().unwrap().starts_with("GPU: "),
        "{report}"
    );
    assert_eq!(report["draws_rendered"], 3);
    // The sample's one surface state: its targets filled once, read back once for the image.
    let traffic = &report["surface_traffic"];
    assert!(traffic["uploads"].as_u64().unwrap() >= 1, "{report}");
    assert!(traffic["readbacks"].as_u64().unwrap() >= 1, "{report}");
    assert_eq!(traffic["evicted"], 0, "{report}");
    let (w, h, pixels) = read_png(&out);
    assert_eq!((w, h), (256, 256));
    assert_eq!(
        report["checksum"].as_str().unwrap(),
        format!("{:016x}", xxh3_64(&pixels))
    );
}

#[test]
fn pixel_history_of_the_sample() {
    // Pixel (128, 128): the clear, draw 0 written, draw 1 behind it (depth test), draw 2 in
    // front; the last value written is the CPU replay's pixel.
    let h = json_ok(&["history", &sample(), "--pixel", "128,128", "--json"]);
    let events = h["events"].as_array().expect("events");
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["clear", "fragment", "fragment", "fragment"], "{h}");
    let fragments: Vec<(u64, &str)> = events[1..]
        .iter()
        .map(|e| (e["draw"].as_u64().unwrap(), e["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fragments,
        [(0, "written"), (1, "depth_test"), (2, "written")]
    );
    assert_eq!(events[2]["before"], events[2]["after"], "a failed fragment");
    assert_eq!(events[1]["before"], events[0]["after"]);
    let last: Vec<u64> = h["last"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let written: Vec<u64> = events[3]["after"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v.as_f64().unwrap() * 255.0).round() as u64)
        .collect();
    assert_eq!(last, written);
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("frame.png");
    let out = rsxtrace(&["replay", &sample(), "--cpu", "--out", s(&png)]);
    assert!(out.status.success());
    let (w, _, pixels) = read_png(&png);
    let at = ((128 * w + 128) * 4) as usize;
    let image: Vec<u64> = pixels[at..at + 4].iter().map(|&v| u64::from(v)).collect();
    assert_eq!(last, image, "the replay's pixel");

    let text = rsxtrace(&["history", &sample(), "--pixel", "128,128"]);
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("4 events (3 fragments)") && text.contains("depth test failed"),
        "{text}"
    );
    // The same surface named as a target: the same events, no image pixel, its final value.
    let t = json_ok(&[
        "history",
        &sample(),
        "--pixel",
        "128,128",
        "--target",
        "local:0x0",
        "--json",
    ]);
    assert_eq!(t["events"], h["events"]);
    assert!(
        t["last"].is_null() && t["surface"]["output"].is_null(),
        "{t}"
    );
    assert_eq!(t["value"], events[3]["after"]);
    assert_eq!(h["surface"]["output"]["kind"], "displayed");
    // The sample's depth buffer (local 0x200000): the same fragments, on depth values.
    let z = json_ok(&[
        "history",
        &sample(),
        "--pixel",
        "128,128",
        "--target",
        "0x200000",
        "--json",
    ]);
    assert_eq!(z["surface"]["depth"], true, "{z}");
    assert_eq!(z["surface"]["format"], "z24s8");
    let zev = z["events"].as_array().unwrap();
    assert_eq!(zev.len(), events.len());
    for (a, b) in zev[1..].iter().zip(&events[1..]) {
        assert_eq!((&a["draw"], &a["outcome"]), (&b["draw"], &b["outcome"]));
        assert!(a["output"].is_null() && a["after"].is_null(), "{a}");
    }
    assert_eq!(zev[0]["after"], serde_json::json!([1.0, 0.0, 0.0, 0.0]));
    assert_eq!(z["value"][0], zev[3]["depth_after"]);
    // Bad input: a pixel outside the image, a malformed pixel, a bad or unrendered target.
    assert!(failure(&["history", &sample(), "--pixel", "256,0"]).contains("outside"));
    assert!(failure(&["history", &sample(), "--pixel", "3"]).contains("X,Y"));
    assert!(failure(&[
        "history",
        &sample(),
        "--pixel",
        "1,1",
        "--target",
        "vram:0x10"
    ])
    .contains("local or main"));
    assert!(failure(&[
        "history",
        &sample(),
        "--pixel",
        "1,1",
        "--target",
        "main:0x10"
    ])
    .contains("no draw renders into a colour or depth target at main 0x00000010"));
}

#[test]
fn a_trimmed_capture_replays_its_draws_as_the_whole_file_does() {
    let game: String = rsxtrace_testkit::workspace!()
        .sample("game.rrc.gz")
        .to_str()
        .unwrap()
        .to_string();
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.rrc.gz");
    let report = json_ok(&[
        "trim",
        &game,
        "--draws",
        "100..120",
        "--out",
        s(&small),
        "--json",
    ]);
    assert_eq!(report["draws"], serde_json::json!([100, 120]));
    let sizes = &report["file_bytes"];
    assert!(
        sizes[1].as_u64().unwrap() * 4 < sizes[0].as_u64().unwrap(),
        "{report}"
    );
    assert_eq!(
        std::fs::metadata(&small).unwrap().len(),
        sizes[1].as_u64().unwrap()
    );
    // The same image as the whole file's draws 100..120.
    let (a, b) = (dir.path().join("a.png"), dir.path().join("b.png"));
    for args in [
        vec![
            "replay",
            &game,
            "--cpu",
            "--draws",
            "100..120",
            "--out",
            s(&a),
        ],
        vec!["replay", s(&small), "--cpu", "--out", s(&b)],
    ] {
        let out = rsxtrace(&args);
        assert!(
            out.status.success(),
            "{:?}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(read_png(&a), read_png(&b));
    // The same draws: programs, primitives, vertex counts.
    let whole = json_ok(&["draws", &game, "--json"]);
    let trimmed = json_ok(&["draws", s(&small), "--json"]);
    let trimmed = trimmed.as_array().unwrap();
    assert_eq!(trimmed.len(), 20);
    for (k, d) in trimmed.iter().enumerate() {
        let w = &whole[100 + k];
        for key in ["primitive", "ranges", "vertex_count", "vp_hash", "fp_hash"] {
            assert!(!w[key].is_null(), "draw {k}: {key}");
            assert_eq!(d[key], w[key], "draw {k}: {key}");
        }
    }
    // Bad input: a range past the frame.
    assert!(
        failure(&["trim", &game, "--draws", "2399..2401", "--out", s(&small)]).contains("2400")
    );
    // Compressed as the name says, since RPCS3 picks its reader by name; every form reads
    // back as the same capture.
    let gz = rsxtrace_capture::rrc::read_file(&small).unwrap();
    for (name, magic) in [
        ("small.rrc", &b"RRC\0"[..]),
        ("small.rrc.zst", &[0x28, 0xB5, 0x2F, 0xFD][..]),
        ("small.rrc.gz", &[0x1F, 0x8B][..]),
    ] {
        let out = dir.path().join(name);
        json_ok(&[
            "trim",
            &game,
            "--draws",
            "100..120",
            "--out",
            s(&out),
            "--json",
        ]);
        let bytes = std::fs::read(&out).unwrap();
        assert!(bytes.starts_with(magic), "{name}");
        let back = rsxtrace_capture::rrc::read_file(&out).unwrap();
        assert_eq!(back.commands, gz.commands, "{name}");
    }
}
