//! `rsxtrace_verify::batch` on the genuine programs of the corpus (`../shared/corpus`, loud
//! when absent) and on files made here: statuses, the export and its manifest, a deliberately
//! wrong translation caught, the negative control, bad files reported without stopping the
//! batch, `--no-gpu`, and sharding.

use crate::divergence_support;

use divergence_support::gpu;
use rsxtrace_program::fragment::FragmentProgram;
use rsxtrace_program::source::discover;
use rsxtrace_program::vertex::{OutputRegister, VertexProgram};
use rsxtrace_testkit::corpus::Corpus;
use rsxtrace_verify::batch::report::ProgramReport;
use rsxtrace_verify::batch::{run_batch, BatchOptions, BatchReport, Status};
use rsxtrace_verify::shard::Shard;
use std::path::PathBuf;

/// Programs of the corpus whose recompiled form agrees with the interpreter on lavapipe: all
/// but `rsx_fp_static_test5`, whose screen-space derivatives of EX2/LG2 chains show the
/// device's transcendental accuracy (`docs/batch.md`, "Known differences").
const PROVEN: [&str; 10] = [
    "primitives.vpo",
    "sce_cube_common.vpo",
    "primitives.fpo",
    "texture_formats.fpo",
    "rsx_fp_static_test1.fpo",
    "rsx_fp_static_test2.fpo",
    "rsx_fp_static_test3.fpo",
    "rsx_fp_static_test4.fpo",
    "rsx_fp_dynamic_test1.fpo",
    "rsx_fp_dynamic_test2.fpo",
];

fn corpus() -> Option<Corpus> {
    rsxtrace_testkit::workspace!().corpus()
}

/// A folder holding copies of some corpus programs (never in the repository: a temp dir).
fn folder_of(corpus: &Corpus, names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in names {
        std::fs::write(
            dir.path().join(n),
            corpus.read(&format!("ps3autotests/{n}")),
        )
        .unwrap();
    }
    dir
}

fn by_name<'a>(report: &'a BatchReport, name: &str) -> &'a ProgramReport {
    report
        .programs
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("{name} not in the report"))
}

fn run(paths: &[PathBuf], gpu: Option<&rsxtrace_gpu::Gpu>, options: &BatchOptions) -> BatchReport {
    run_batch(&discover(paths), gpu, options, None).expect("batch runs")
}

#[test]
fn corpus_programs_are_recompiled_exported_and_proven_on_the_device() {
    let Some(corpus) = corpus() else { return };
    let Some(gpu) = gpu("corpus_programs_are_recompiled_exported_and_proven") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let options = BatchOptions {
        out: Some(out.path().to_path_buf()),
        mutate: 24,
        seed: 3,
        ..BatchOptions::default()
    };
    let report = run(&[corpus.path("ps3autotests")], Some(&gpu), &options);
    // Every program of the folder, once each.
    assert_eq!(report.totals.programs, 11, "{:#?}", report.totals);
    for p in &report.programs {
        assert!(
            !matches!(
                p.status,
                Status::Undecodable | Status::NotRecompiled | Status::Failed
            ),
            "{}: {:?} {:?}",
            p.name,
            p.status,
            p.reason
        );
    }
    for name in PROVEN {
        let p = by_name(&report, name);
        assert_eq!(p.status, Status::Proven, "{name}: {:?}", p.reason);
        assert!(p.compared > 0, "{name} compared nothing");
    }
    // Vertex programs on 2,048 input sets.
    let vp = by_name(&report, "sce_cube_common.vpo");
    assert_eq!(vp.comparison.as_ref().unwrap().elements, 2048);
    // The export: WGSL and SPIR-V for every recompiled program, named by key, listed in the
    // manifest.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("manifest.json")).unwrap()).unwrap();
    let entries = manifest["programs"].as_array().unwrap();
    assert_eq!(entries.len(), 11);
    for p in &report.programs {
        let wgsl = format!("{}/{}.wgsl", p.stage.name(), p.key);
        assert!(p.files.contains(&wgsl), "{}: {:?}", p.name, p.files);
        assert!(out.path().join(&wgsl).is_file());
        let spv = out.path().join(format!("{}/{}.spv", p.stage.name(), p.key));
        let bytes = std::fs::read(&spv).unwrap();
        assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes(), "SPIR-V magic");
        assert!(entries.iter().any(|e| e["key"] == p.key.as_str()));
    }
    // The negative control catches the changes that matter.
    let m = report.mutation.expect("negative control ran");
    assert!(m.applied > 0 && m.effective > 0, "{m:?}");
    assert!(m.detection_rate >= 0.9, "{m:?}");
}

/// o[COL0] negated on the device side of batch program `index` 0 (a dropped sign).
fn negate_col0(index: usize, p: &mut VertexProgram) {
    if index != 0 {
        return;
    }
    for i in &mut p.instructions {
        if i.output == Some(OutputRegister(1)) {
            i.sources[0].negate ^= true;
        }
    }
}

/// R0.w no longer written on the device side of every fragment program.
fn drop_alpha(_: usize, p: &mut FragmentProgram) {
    for i in &mut p.instructions {
        if i.dest.index == 0 && !i.dest.fp16 {
            i.dest.mask.0 &= !0b1000;
        }
    }
}

#[test]
fn a_wrong_translation_is_caught_by_the_batch() {
    let Some(corpus) = corpus() else { return };
    let Some(gpu) = gpu("a_wrong_translation_is_caught_by_the_batch") else {
        return;
    };
    let dir = folder_of(&corpus, &["primitives.vpo", "rsx_fp_dynamic_test1.fpo"]);
    let options = BatchOptions {
        vertex_hook: Some(negate_col0),
        fragment_hook: Some(drop_alpha),
        ..BatchOptions::default()
    };
    let report = run(&[dir.path().to_path_buf()], Some(&gpu), &options);
    assert!(!report.all_proven());
    let vp = by_name(&report, "primitives.vpo");
    assert_eq!(vp.status, Status::Diverged, "{:?}", vp.reason);
    assert_eq!(vp.reason.as_deref(), Some("COL0 diverged"));
    let fp = by_name(&report, "rsx_fp_dynamic_test1.fpo");
    assert_eq!(fp.status, Status::Diverged, "{:?}", fp.reason);
    // Worst first: the diverged programs lead the table.
    assert_eq!(report.programs[0].status, Status::Diverged);
}

#[test]
fn bad_files_are_reported_and_the_rest_goes_on() {
    let Some(corpus) = corpus() else { return };
    let dir = folder_of(&corpus, &["primitives.vpo", "primitives.fpo"]);
    let fpo = corpus.read("ps3autotests/rsx_fp_static_test1.fpo");
    // A container cut short, and a fragment program whose END was cleared.
    std::fs::write(dir.path().join("cut.fpo"), &fpo[..fpo.len() / 2]).unwrap();
    let report = run(&[dir.path().to_path_buf()], None, &BatchOptions::default());
    assert!(
        report.problems.iter().any(|p| p.path.ends_with("cut.fpo")),
        "{:?}",
        report.problems
    );
    assert_eq!(report.totals.programs, 2);
    // Without a device: decoded, interpreted and recompiled, not proven.
    for p in &report.programs {
        assert_eq!(p.status, Status::Recompiled, "{}: {:?}", p.name, p.reason);
        assert!(p.comparison.is_none());
        assert!(!p.disassembly.is_empty());
    }
    assert!(report.all_proven(), "--no-gpu: every program recompiled");
    assert_eq!(report.device, None);
}

#[test]
fn shards_partition_the_programs() {
    let Some(corpus) = corpus() else { return };
    let all = run(
        &[corpus.path("ps3autotests")],
        None,
        &BatchOptions::default(),
    );
    let mut keys: Vec<String> = Vec::new();
    for index in 1..=3 {
        let options = BatchOptions {
            shard: Some(Shard { index, count: 3 }),
            ..BatchOptions::default()
        };
        let part = run(&[corpus.path("ps3autotests")], None, &options);
        assert_eq!(part.shard.as_deref(), Some(format!("{index}/3").as_str()));
        keys.extend(part.programs.iter().map(|p| p.key.clone()));
    }
    keys.sort();
    let mut want: Vec<String> = all.programs.iter().map(|p| p.key.clone()).collect();
    want.sort();
    assert_eq!(keys, want);
}

/// A vertex program whose subroutine lies after its END, and one whose dispatch block comes
/// after its subroutine (RPCS3 cache files keep both: `rpcs3-shader-cache.md` §2.1), are
/// checked whole from their entry slot: interpreted and recompiled, and proven on a device.
#[test]
fn vertex_programs_with_subroutines_are_checked_from_their_entry() {
    use rsxtrace_verify::batch::catalog::Entry;
    use rsxtrace_verify::batch::check::check;
    use rsxtrace_verify::divergence::context::Context;
    use rsxtrace_verify::divergence::tolerance::Tolerances;
    let after = "000: CAL 3\n001: MOV o[COL0], v[WEIGHT]\n\
                 002: DP4 o[HPOS].x, v[POS], c[256]; END\n\
                 003: MOV o[TEX0], v[NORMAL]\n004: RET\n";
    let before = "000: MOV o[TEX0], v[NORMAL]\n001: RET\n002: CAL 0\n\
                  003: MOV o[COL0], v[WEIGHT]\n004: DP4 o[HPOS].x, v[POS], c[256]; END\n";
    let gpu = gpu("vertex_programs_with_subroutines_are_checked_from_their_entry");
    for (text, start) in [(after, 0), (before, 2)] {
        let program = rsxtrace_program::vertex::assemble(text).expect("assembles");
        let entry = Entry::new(
            rsxtrace_verify::divergence::Stage::Vertex,
            0x5ab,
            rsxtrace_program::vertex::encode_bytes(&program),
            start,
        );
        let checked = check(0, &entry, None);
        assert_eq!(
            checked.status,
            Status::Recompiled,
            "{text}: {:?}",
            checked.reason
        );
        if let Some(gpu) = &gpu {
            let cx = Context::new(gpu, Tolerances::default(), 1024);
            let checked = check(0, &entry, Some(&cx));
            assert_eq!(
                checked.status,
                Status::Proven,
                "{text}: {:?}",
                checked.reason
            );
        }
    }
}
