//! `shade` on the ps3autotests `rsx_fp_static_test{1,2,5}` programs against their
//! `.expected.png` reference images: at least 99% of pixels within 3/255 on every channel.

use std::path::PathBuf;

use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::shade::{load_program_file, shade};
use rsxtrace_replay::texture::NoTextures;

/// `../shared/corpus` beside the workspace root (the directory holding `Cargo.lock`).
fn corpus_dir() -> Option<PathBuf> {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        if dir.join("Cargo.lock").is_file() {
            let c = dir.join("../shared/corpus");
            return c.is_dir().then_some(c);
        }
        if !dir.pop() {
            return None;
        }
    }
}

fn corpus_or_skip() -> Option<PathBuf> {
    let dir = corpus_dir();
    if dir.is_none() {
        eprintln!("CORPUS MISSING: ../shared/corpus not found beside the workspace root");
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CORPUS MISSING and CI=true"
        );
    }
    dir
}

/// Decodes a PNG to (width, height, RGBA8).
fn read_png(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("open png"));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png frame");
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("unexpected png colour type {other:?}"),
    };
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    (info.width, info.height, rgba)
}

fn check(name: &str) {
    let Some(dir) = corpus_or_skip() else {
        return;
    };
    let dir = dir.join("ps3autotests");
    let loaded = load_program_file(dir.join(format!("{name}.fpo")), &[]).expect("load program");
    let (w, h, expected) = read_png(&dir.join(format!("{name}.expected.png")));
    let image = shade(
        &loaded.program,
        loaded.control,
        w,
        h,
        &NoTextures,
        Arithmetic::F32,
    )
    .expect("shade");
    assert_eq!(image.rgba8.len(), expected.len());
    let mut within = 0usize;
    let mut max_err = 0u8;
    let mut worst = (0usize, [0u8; 4], [0u8; 4]);
    for (i, (got, exp)) in image
        .rgba8
        .chunks_exact(4)
        .zip(expected.chunks_exact(4))
        .enumerate()
    {
        let err = got
            .iter()
            .zip(exp)
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap_or(0);
        if err <= 3 {
            within += 1;
        }
        if err > max_err {
            max_err = err;
            worst = (
                i,
                got.try_into().unwrap_or_default(),
                exp.try_into().unwrap_or_default(),
            );
        }
    }
    let pixels = (w * h) as usize;
    let pct = 100.0 * within as f64 / pixels as f64;
    println!(
        "{name}: {w}x{h}, {pct:.3}% of pixels within 3/255, max channel error {max_err} \
         (pixel {} at ({}, {}): got {:?}, expected {:?})",
        worst.0,
        worst.0 % w as usize,
        worst.0 / w as usize,
        worst.1,
        worst.2
    );
    assert!(pct >= 99.0, "{name}: only {pct:.3}% of pixels within 3/255");
}

#[test]
fn rsx_fp_static_test1_matches_expected_png() {
    check("rsx_fp_static_test1");
}

#[test]
fn rsx_fp_static_test2_matches_expected_png() {
    check("rsx_fp_static_test2");
}

#[test]
fn rsx_fp_static_test5_matches_expected_png() {
    check("rsx_fp_static_test5");
}
