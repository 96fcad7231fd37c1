//! The opcode coverage report (`docs/COVERAGE.md`): the program layer's table with the
//! interpret column filled in from the reference interpreters (and the translate column from the
//! WGSL recompiler once it exists).

use rsxtrace_program::coverage::{coverage_markdown_with, Opcode, Support};
use rsxtrace_program::fragment::FpOpcode;
use rsxtrace_program::vertex::{ScalarOpcode, VectorOpcode};

/// Whether the reference interpreters execute an opcode. The exceptions are the opcodes no
/// source gives semantics for; `tests/coverage_current.rs` checks that the interpreters really
/// refuse exactly these.
pub fn interpret_support(op: Opcode) -> Support {
    match op {
        // ARR/ARA: nouveau only, RPCS3 lists them as NULL (rsx-microcode.md B.8).
        Opcode::Vector(VectorOpcode::Arr | VectorOpcode::Ara) => Support::No("no semantics"),
        // PSH/POP: RPCS3 "Unimplemented sca_opcode" (rsx-microcode.md B.8 table).
        Opcode::Scalar(ScalarOpcode::Psh | ScalarOpcode::Pop) => Support::No("no semantics"),
        // CAL: RPCS3 throws "Unimplemented. Also unused by the RSX compiler" (B.5);
        // BEMLUM/TIMESWTEX: unimplemented in every source (B.7).
        Opcode::Fragment(FpOpcode::Cal | FpOpcode::Bemlum | FpOpcode::Timeswtex) => {
            Support::No("no semantics")
        }
        _ => Support::Yes,
    }
}

/// Whether the WGSL recompiler translates an opcode (emits WGSL that naga validates). The
/// exceptions are the interpreter's; `tests/coverage_current.rs` checks that the recompiler
/// refuses exactly these.
pub fn translate_support(op: Opcode) -> Support {
    interpret_support(op)
}

/// The report as Markdown.
pub fn markdown() -> String {
    coverage_markdown_with(&interpret_support, &translate_support)
}
