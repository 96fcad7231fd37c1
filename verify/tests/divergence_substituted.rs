//! Draws whose transform constants the capture lacks run twice, with the constants zero and
//! with seeded random values, and each run counts: a translation that reads the wrong
//! constant is invisible under the zero fill (every missing constant reads 0 either way) and
//! caught under the random fill.

use crate::divergence_support;

use divergence_support::{gpu, samples_dir};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc;
use rsxtrace_program::vertex::{RegisterType, VertexProgram};
use rsxtrace_verify::divergence::{
    verify_frame, ConstantFill, Outcome, Stage, StageSelection, VerifyOptions,
};

/// The basic sample without its transform-constant uploads (`TRANSFORM_CONSTANT_LOAD` 0x1EFC
/// and `TRANSFORM_CONSTANT[0..32]` 0x1F00..=0x1F7C with their batched continuation entries,
/// rrc-format.md 3.2 and 4.5), as a capture whose constants were set before the frame.
fn basic_without_constants() -> Frame {
    let mut capture = rrc::read_file(&samples_dir().join("basic.rrc.gz")).expect("basic sample");
    let mut dropping = false;
    let mut memory: Vec<u64> = Vec::new();
    let mut kept = Vec::new();
    for mut c in std::mem::take(&mut capture.commands) {
        if c.first != 0 {
            let method = c.first & 0xFFFC;
            dropping = method == 0x1EFC || (0x1F00..=0x1F7C).contains(&method);
        }
        if dropping {
            memory.append(&mut c.memory);
            continue;
        }
        if !memory.is_empty() {
            memory.append(&mut c.memory);
            c.memory = std::mem::take(&mut memory);
        }
        kept.push(c);
    }
    capture.commands = kept;
    capture.reg_state.transform_constants = None;
    Frame::from_capture(&capture).expect("frame")
}

/// Every constant read moves to the next constant register, as a recompiler with an
/// off-by-one constant index would.
fn next_constant(_draw: usize, p: &mut VertexProgram) {
    for i in &mut p.instructions {
        if i.sources
            .iter()
            .any(|s| s.reg_type == RegisterType::Constant)
        {
            i.const_index += 1;
        }
    }
}

#[test]
fn a_wrong_constant_index_is_caught_by_the_random_fill_only() {
    let Some(gpu) = gpu("a_wrong_constant_index_is_caught_by_the_random_fill_only") else {
        return;
    };
    let frame = basic_without_constants();
    assert!(frame.draws.iter().all(|d| d.constants.known_count() == 0));
    let options = VerifyOptions {
        stage: StageSelection::Vertex,
        ..VerifyOptions::default()
    };
    let clean = verify_frame(&frame, &options, &gpu, None).unwrap();
    assert!(!clean.diverged() && !clean.failed(), "{:?}", clean.totals);
    assert_eq!(
        clean.totals.skipped, 0,
        "no draw is skipped for its constants"
    );

    let hooked = VerifyOptions {
        vertex_hook: Some(next_constant),
        ..options
    };
    let report = verify_frame(&frame, &hooked, &gpu, None).unwrap();
    let mut substituted_draws = 0;
    for d in &report.draws {
        let runs: Vec<_> = d
            .stages
            .iter()
            .filter(|s| s.stage == Stage::Vertex)
            .collect();
        let Some(fill) = runs[0].substituted.as_ref().and_then(|s| s.constants) else {
            continue;
        };
        substituted_draws += 1;
        assert_eq!(fill, ConstantFill::Zeros);
        assert_eq!(runs.len(), 2, "draw {}: zeros and random", d.draw);
        // Under zeros every missing constant reads 0, wherever the index points.
        assert_eq!(runs[0].outcome, Outcome::Clean, "draw {}", d.draw);
        let random = runs[1].substituted.as_ref().unwrap();
        assert_eq!(random.constants, Some(ConstantFill::Random));
        assert!(random.seed.is_some());
        assert!(!random.registers.is_empty());
        assert_eq!(runs[1].outcome, Outcome::Diverged, "draw {}", d.draw);
    }
    assert!(
        substituted_draws > 0,
        "the basic sample's programs read constants"
    );
    assert!(report.diverged(), "the random run counts");
}
