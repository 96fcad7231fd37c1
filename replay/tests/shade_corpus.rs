//! `shade` on the ps3autotests `rsx_fp_static_test{1,2,5}` programs against their
//! `.expected.png` reference images: at least 99% of pixels within 3/255 on every channel.

use rsxtrace_testkit::image::{read_png, Png};

use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::shade::{load_program_file, shade};
use rsxtrace_replay::texture::NoTextures;

fn check(name: &str) {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let dir = corpus.path("ps3autotests");
    let loaded = load_program_file(dir.join(format!("{name}.fpo")), &[]).expect("load program");
    let Png {
        width: w,
        height: h,
        rgba: expected,
    } = read_png(&dir.join(format!("{name}.expected.png")));
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
