//! The checked-in game frame equals what `rsxtrace_scenes::game_frame::build` makes today, and it is at
//! game scale: at least 2,000 draws, 500,000 vertices, 40 distinct programs of each stage,
//! and every constant a draw's vertex program reads is known.
//! Regenerate: `RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration game_frame_current::`.

use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc;
use rsxtrace_program::vertex::{self, RegisterType};
use rsxtrace_scenes::game_frame::{build, GameFrameOptions, GAME};
use rsxtrace_verify::probe::uniforms::ProgramKey;
use std::collections::HashSet;
use std::path::PathBuf;

fn samples_dir() -> PathBuf {
    rsxtrace_testkit::workspace!().samples_dir()
}

#[test]
fn game_frame_is_current_and_at_game_scale() {
    let built = build(&GameFrameOptions::default()).expect("build the game frame");
    let path = samples_dir().join(GAME);
    if std::env::var_os("RSXTRACE_UPDATE_SAMPLES").is_some() {
        std::fs::create_dir_all(samples_dir()).unwrap();
        std::fs::write(&path, rrc::write_v6(&built)).unwrap();
        eprintln!("wrote {}", path.display());
    }
    let size = std::fs::metadata(&path)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e}; regenerate with RSXTRACE_UPDATE_SAMPLES=1",
                path.display()
            )
        })
        .len();
    assert!(
        size < 8 << 20,
        "{} is {size} bytes, over 8 MiB",
        path.display()
    );
    crate::samples_current::shows_a_frame_in_rpcs3(&built, GAME);
    let stored = rrc::read_file(&path).unwrap();
    assert_eq!(stored.provenance.rrc_version, 6);
    assert!(
        (
            &stored.tiles,
            &stored.blocks,
            &stored.data,
            &stored.display_buffers,
            &stored.commands,
            &stored.reg_state
        ) == (
            &built.tiles,
            &built.blocks,
            &built.data,
            &built.display_buffers,
            &built.commands,
            &built.reg_state
        ),
        "{} is stale: regenerate with RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration game_frame_current::",
        path.display()
    );

    let frame = Frame::from_capture(&stored).expect("the frame decodes");
    assert!(frame.draws.len() >= 2_000, "{} draws", frame.draws.len());
    let vertices: u64 = frame.draws.iter().map(|d| d.vertex_count).sum();
    assert!(vertices >= 500_000, "{vertices} vertices");
    let stats = frame.stats();
    assert!(stats.distinct_vertex_programs >= 40, "{stats:?}");
    assert!(stats.distinct_fragment_programs >= 40, "{stats:?}");
    assert_eq!(stats.draws_with_problems, 0, "{stats:?}");
    let primitives: HashSet<_> = frame.draws.iter().map(|d| d.primitive).collect();
    assert!(primitives.len() >= 3, "{primitives:?}");
    assert!(frame.draws.iter().any(|d| d.indexed) && frame.draws.iter().any(|d| !d.indexed));

    // Every constant every draw's vertex program reads is in the capture.
    for d in &frame.draws {
        let program = vertex::decode_from_memory(&d.vertex_program, d.vp_start as usize)
            .unwrap_or_else(|e| panic!("draw {}: {e}", d.index));
        for insn in &program.instructions {
            if insn
                .sources
                .iter()
                .any(|s| s.reg_type == RegisterType::Constant)
            {
                let c = usize::from(insn.const_index);
                assert!(
                    d.constants.is_known(c),
                    "draw {} reads c[{c}], which the capture does not hold",
                    d.index
                );
            }
        }
        assert!(d.mvp().is_some(), "draw {}: c32..c35 unknown", d.index);
    }
}

#[test]
fn the_corpus_variant_mixes_corpus_programs_in() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let corpus = corpus.dir().to_path_buf();
    let programs = rsxtrace_scenes::game_frame::corpus::load(&corpus).expect("read the corpus");
    let options = GameFrameOptions {
        corpus: Some(corpus),
        draws: 400,
        ..GameFrameOptions::default()
    };
    let frame = Frame::from_capture(&build(&options).unwrap()).unwrap();
    assert_eq!(frame.draws.len(), 400);
    assert!(frame.draws.iter().all(|d| d.problems.is_empty()));
    // Some draws run a corpus fragment program, and some a corpus vertex program.
    let keys: Vec<ProgramKey> = programs
        .fragment
        .iter()
        .map(|p| ProgramKey::from_ucode(&p.ucode).unwrap())
        .collect();
    assert!(!keys.is_empty() && !programs.vertex.is_empty());
    let corpus_fp = frame
        .draws
        .iter()
        .filter(|d| {
            d.fragment_program
                .as_deref()
                .is_some_and(|fp| keys.iter().any(|k| k.matches(fp)))
        })
        .count();
    let corpus_vp = frame
        .draws
        .iter()
        .filter(|d| {
            programs
                .vertex
                .iter()
                .any(|p| d.vertex_program_words() == p.words.as_slice())
        })
        .count();
    assert!(corpus_fp > 0 && corpus_vp > 0, "{corpus_fp} {corpus_vp}");
}
