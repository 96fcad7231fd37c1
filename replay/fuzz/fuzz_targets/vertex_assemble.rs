//! Fuzz the vertex-program assembler: arbitrary text must assemble or be refused with a
//! line number, without panicking; an assembled program's span (idle slots in its gaps) must
//! decode with every instruction at its own slot, and its disassembly must assemble back into
//! the very same program.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_program::vertex::{assemble, assembly_text, decode_words, disassemble, encode_span};

fuzz_target!(|data: &[u8]| {
    let Some(text) = assembly_text(data) else {
        return;
    };
    if let Ok(program) = assemble(text) {
        let base = program.instructions.first().map_or(0, |i| i.slot);
        let span = decode_words(&encode_span(&program))
            .expect("an assembled program decodes")
            .loaded_at(base);
        for i in &program.instructions {
            assert_eq!(span.instructions.get(i.slot - base), Some(i));
        }
        let again = disassemble(&program);
        let q = assemble(&again).unwrap_or_else(|e| panic!("{e}\n{again}"));
        assert_eq!(q, program, "{again}");
    }
});
