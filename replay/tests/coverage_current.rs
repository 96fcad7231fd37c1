//! `docs/COVERAGE.md` must equal `rsxtrace_replay::coverage::markdown()`, and the interpret
//! column must say what the interpreters really do: each opcode is run on a one-instruction
//! program and only the opcodes the column marks "no" may be refused as unsupported.
//! Regenerate the file with
//! `RSXTRACE_UPDATE_COVERAGE=1 cargo test -p rsxtrace-replay --test integration coverage_current::`.

use rsxtrace_program::coverage::{Opcode, Support};
use rsxtrace_program::fragment::{self, FpOpcode};
use rsxtrace_program::vertex::{self, ScalarOpcode, VectorOpcode};
use rsxtrace_replay::coverage::{interpret_support, markdown};
use rsxtrace_replay::interp::fragment::{
    run_single_quad, FragmentExecError, FragmentState, QuadInputs,
};
use rsxtrace_replay::interp::vertex::{
    run_vertex, ConstantBank, VertexEnvironment, VertexExecError, VertexOptions,
};
use rsxtrace_replay::texture::NoTextures;
use std::path::PathBuf;

fn coverage_path() -> PathBuf {
    rsxtrace_testkit::workspace!()
        .root()
        .join("docs/COVERAGE.md")
}

#[test]
fn coverage_doc_is_current() {
    let path = coverage_path();
    let generated = markdown();
    if std::env::var("RSXTRACE_UPDATE_COVERAGE").as_deref() == Ok("1") {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "{} is out of date; regenerate with \
         `RSXTRACE_UPDATE_COVERAGE=1 cargo test -p rsxtrace-replay --test integration coverage_current::`",
        path.display()
    );
}

#[test]
fn coverage_lists_every_opcode() {
    let md = markdown();
    let rows = |stage: &str| {
        md.lines()
            .filter(|l| l.starts_with(&format!("| {stage} |")))
            .count()
    };
    assert_eq!(rows("vertex vector"), 26);
    assert_eq!(rows("vertex scalar"), 21);
    assert_eq!(rows("fragment"), FpOpcode::ALL.len());
    assert!(md.contains("| vertex scalar | 0x09 | BRI | BRA | yes | yes | yes |"));
    assert!(md.contains("| vertex vector | 0x17 | — (NULL) | ARR | yes | no (no semantics) |"));
}

/// `MOV R0, f[COL0]` with END (rsx-microcode.md B.1, primitives.fpo), as stored.
const FP_MOV: [u8; 16] = [
    0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00, 0x3f, 0xe1,
];

#[test]
fn fragment_interpret_column_matches_the_interpreter() {
    let base = fragment::decode(&FP_MOV).unwrap();
    let mut checked = 0;
    for &op in FpOpcode::ALL {
        let mut program = base.clone();
        program.instructions[0].opcode = op;
        // Re-decode the words so the operands take the shape this opcode has (flow opcodes
        // read offsets); opcodes whose fields are then invalid are not runnable this way.
        let Ok(program) = fragment::decode(&fragment::encode(&program)) else {
            continue;
        };
        let result = run_single_quad(
            &program,
            &FragmentState::new(0x40),
            &QuadInputs::default(),
            &NoTextures,
        );
        let refused = matches!(result, Err(FragmentExecError::UnsupportedOpcode { .. }));
        let supported = interpret_support(Opcode::Fragment(op)) == Support::Yes;
        assert_eq!(refused, !supported, "{}: {result:?}", op.name());
        checked += 1;
    }
    assert!(checked > 50, "only {checked} opcodes could be run");
}

#[test]
fn vertex_interpret_column_matches_the_interpreter() {
    // DP4 o[HPOS].x, v[POS], c[32] with END (the last slot of an mvp program).
    let words = rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program(32);
    let base = vertex::decode_words(&words[words.len() - 4..]).unwrap();
    let mut bank = ConstantBank::new();
    for i in 0..468 {
        bank.set(i, [0.0; 4]);
    }
    let mut env = VertexEnvironment::new(&bank);
    env.branch_bits = Some(0);
    let inputs = [[[1.0f32; 4]; 16]];
    let options = VertexOptions::default();
    let run = |program: &vertex::VertexProgram| {
        let mut program = program.clone();
        program.instructions[0].slot = 0;
        program.start_slot = 0;
        run_vertex(&program, &[], &env, &inputs, &options)
    };
    for op in VectorOpcode::ALL {
        let mut program = base.clone();
        program.instructions[0].vector = op;
        let result = run(&program);
        let refused = matches!(result, Err(VertexExecError::Unimplemented { .. }));
        let supported = interpret_support(Opcode::Vector(op)) == Support::Yes;
        assert_eq!(refused, !supported, "{}: {result:?}", op.name());
    }
    for op in ScalarOpcode::ALL {
        let mut program = base.clone();
        program.instructions[0].scalar = op;
        let result = run(&program);
        let refused = matches!(result, Err(VertexExecError::Unimplemented { .. }));
        let supported = interpret_support(Opcode::Scalar(op)) == Support::Yes;
        assert_eq!(refused, !supported, "{}: {result:?}", op.name());
    }
}

#[test]
fn translate_column_matches_the_recompiler() {
    use rsxtrace_replay::coverage::translate_support;
    use rsxtrace_replay::wgsl::{fragment as fwgsl, vertex as vwgsl, TranslateError};
    /// The recompiler refuses `opcode` (never as invalid) exactly where the column says No.
    fn agrees<T: std::fmt::Debug>(name: &str, opcode: Opcode, result: Result<T, TranslateError>) {
        assert!(
            !matches!(result, Err(TranslateError::Invalid { .. })),
            "{name}: {result:?}"
        );
        let refused = matches!(result, Err(TranslateError::Unsupported { .. }));
        let supported = translate_support(opcode) == Support::Yes;
        assert_eq!(refused, !supported, "{name}: {:?}", result.err());
    }
    let base = fragment::decode(&FP_MOV).unwrap();
    let mut checked = 0;
    for &op in FpOpcode::ALL {
        let mut program = base.clone();
        program.instructions[0].opcode = op;
        let Ok(program) = fragment::decode(&fragment::encode(&program)) else {
            continue;
        };
        let result = fwgsl::translate(&program, &fwgsl::FragmentTranslateOptions::default());
        agrees(op.name(), Opcode::Fragment(op), result);
        checked += 1;
    }
    assert!(checked > 50);
    let words = rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program(32);
    let mut base = vertex::decode_words(&words[words.len() - 4..]).unwrap();
    base.instructions[0].slot = 0;
    base.start_slot = 0;
    let options = vwgsl::VertexTranslateOptions::default();
    for op in VectorOpcode::ALL {
        let mut program = base.clone();
        program.instructions[0].vector = op;
        let result = vwgsl::translate(&program, &[], &options);
        agrees(op.name(), Opcode::Vector(op), result);
    }
    for op in ScalarOpcode::ALL {
        let mut program = base.clone();
        program.instructions[0].scalar = op;
        let result = vwgsl::translate(&program, &[], &options);
        agrees(op.name(), Opcode::Scalar(op), result);
    }
}
