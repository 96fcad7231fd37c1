//! `rsxtrace shade --rpcs3`: the fp32 → fp16 conversion switch. `rsx_fp_static_test2` keeps
//! its colours in H registers, so truncation (the default, the hardware's rule) and RPCS3's
//! nearest rounding give different images; the default matches the PS3 image far better
//! (replay/tests/hardware_images.rs: 99.0% against 82.4% of pixels exact). `--trig turns`
//! reduces SIN/COS arguments in turns: `rsx_fp_static_test4`'s hash of cos of thousands of
//! radians changes with it (docs/arithmetic.md).

use std::path::{Path, PathBuf};
use std::process::Command;

/// `../shared/corpus` beside the checkout, or None (loudly; a failure under CI=true).
fn corpus() -> Option<PathBuf> {
    let corpus = rsxtrace_testkit::workspace!().corpus()?;
    Some(corpus.dir().to_path_buf())
}

fn shade(program: &Path, out: &Path, extra: &[&str]) -> Vec<u8> {
    shade_sized(program, out, "720x480", extra)
}

fn shade_sized(program: &Path, out: &Path, size: &str, extra: &[&str]) -> Vec<u8> {
    let mut args = vec![
        "shade".to_string(),
        program.display().to_string(),
        "--size".into(),
        size.into(),
        "--out".into(),
        out.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let o = Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(&args)
        .output()
        .expect("run rsxtrace");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let mode = if extra.contains(&"--rpcs3") {
        "fp16 Nearest"
    } else {
        "fp16 Truncate"
    };
    assert!(stderr.contains(mode), "{stderr}");
    let trig = if extra.contains(&"turns") {
        "trig Turns"
    } else {
        "trig Exact"
    };
    assert!(stderr.contains(trig), "{stderr}");
    rsxtrace_testkit::image::read_rgba_png(out).rgba
}

#[test]
fn rpcs3_switches_the_fp16_conversion_to_nearest() {
    let Some(corpus) = corpus() else { return };
    let program = corpus.join("ps3autotests/rsx_fp_static_test2.fpo");
    let dir = tempfile::tempdir().expect("tempdir");
    let truncated = shade(&program, &dir.path().join("t.png"), &[]);
    let nearest = shade(&program, &dir.path().join("n.png"), &["--rpcs3"]);
    let differing = truncated
        .chunks_exact(4)
        .zip(nearest.chunks_exact(4))
        .filter(|(a, b)| a != b)
        .count();
    // 17% of the pixels differ (the exact shares against the PS3 image: 99.0% vs 82.4%).
    assert!(
        differing > truncated.len() / 4 / 10,
        "only {differing} pixels differ"
    );
}

#[test]
fn trig_turns_changes_the_hash_of_large_angles() {
    let Some(corpus) = corpus() else { return };
    let program = corpus.join("ps3autotests/rsx_fp_static_test4.fpo");
    let dir = tempfile::tempdir().expect("tempdir");
    let uniform = ["--uniform", "iGlobalTime=2.0"];
    let exact = shade_sized(&program, &dir.path().join("e.png"), "64x32", &uniform);
    let turns = shade_sized(
        &program,
        &dir.path().join("t.png"),
        "64x32",
        &[uniform[0], uniform[1], "--trig", "turns"],
    );
    let differing = exact
        .chunks_exact(4)
        .zip(turns.chunks_exact(4))
        .filter(|(a, b)| a != b)
        .count();
    // At 720x480, 26% of the pixels differ (by at most 5/255, the hash's weight).
    assert!(differing > 64 * 32 / 20, "only {differing} pixels differ");
}
