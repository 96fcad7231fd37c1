//! Every genuine fragment program of `shared/corpus` translates to WGSL that naga validates:
//! the ps3autotests `.fpo` CgBinaryPrograms (with their own `SHADER_CONTROL` word) and the
//! Tiny3D hand-assembled programs (with R and H exports). Prints translate+validate time.

use std::time::Instant;

use rsxtrace_program::container::{CgStageInfo, Container};
use rsxtrace_program::fragment::{decode, decode_words, FragmentProgram};
use rsxtrace_testkit::Corpus;
use rsxtrace_wgsl::fragment::{translate, FragmentTranslateOptions, TextureDim};

/// The `.fpo` programs with their control words.
fn fpo_programs(corpus: &Corpus) -> Vec<(String, FragmentProgram, u32)> {
    let mut out = Vec::new();
    for rel in corpus.files_ending("ps3autotests", ".fpo") {
        let name = rel.trim_start_matches("ps3autotests/").to_string();
        let bytes = corpus.read(&rel);
        let Container::Cg(cg) = Container::parse(&bytes).unwrap() else {
            panic!("{name}: not a CgBinaryProgram");
        };
        let CgStageInfo::Fragment(info) = cg.stage_info else {
            panic!("{name}: not a fragment program");
        };
        let program = decode(&cg.ucode).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.push((name, program, info.control_word()));
    }
    out
}

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

fn check(name: &str, program: &FragmentProgram, options: &FragmentTranslateOptions) -> f64 {
    let t = Instant::now();
    let m = translate(program, options).unwrap_or_else(|e| panic!("{name}: {e}"));
    let ms = t.elapsed().as_secs_f64() * 1e3;
    assert!(m
        .source
        .contains("fn rsx_fragment(inp: FpInputs) -> FpResult"));
    for entry in ["fp_main", "fp_eval"] {
        assert!(
            m.module.entry_points.iter().any(|e| e.name == entry),
            "{name}: no {entry}"
        );
    }
    ms
}

#[test]
fn every_corpus_fragment_program_translates_and_validates() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let mut times = Vec::new();
    let fpos = fpo_programs(&corpus);
    // primitives, texture_formats, rsx_fp_dynamic_test1-2, rsx_fp_static_test1-5.
    assert_eq!(fpos.len(), 9, "ps3autotests .fpo count");
    for (name, program, control) in &fpos {
        let options = FragmentTranslateOptions::with_control(*control);
        times.push(check(name, program, &options));
    }
    let tiny = tiny3d_programs(&corpus);
    assert_eq!(tiny.len(), 13, "Tiny3D program count");
    for (name, program) in &tiny {
        for control in [0x00, 0x40, 0x4E] {
            let options = FragmentTranslateOptions::with_control(control);
            times.push(check(name, program, &options));
        }
    }
    // Other option sets on every program: nearest fp16 rounding with native f16, quantised fixed point, Mesa LOD
    // operand, NaN-propagating MIN/MAX, other texture dimensions.
    for (name, program) in fpos
        .iter()
        .map(|(n, p, _)| (n, p))
        .chain(tiny.iter().map(|(n, p)| (n, p)))
    {
        for dim in [TextureDim::D1, TextureDim::D3, TextureDim::Cube] {
            let options = FragmentTranslateOptions {
                texture_dims: [dim; 16],
                half_rounding: rsxtrace_wgsl::fragment::HalfRounding::Nearest,
                native_f16: true,
                fx12: rsxtrace_wgsl::fragment::FixedPointMode::Quantise,
                fx9: rsxtrace_wgsl::fragment::FixedPointMode::Quantise,
                lod_operand: rsxtrace_wgsl::fragment::LodOperand::Src0W,
                min_max_nan: rsxtrace_wgsl::fragment::MinMaxNan::Propagate,
                fused_mad: false,
                // The instrumented form (verify --explain) validates too.
                instrument: dim == TextureDim::Cube,
                ..FragmentTranslateOptions::with_control(0x40)
            };
            times.push(check(name, program, &options));
        }
    }
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let max = times.iter().cloned().fold(0.0, f64::max);
    println!(
        "translate+validate: {} modules, mean {mean:.2} ms, max {max:.2} ms",
        times.len()
    );
}
