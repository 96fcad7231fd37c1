//! Fuzz the vertex-program assembler: arbitrary text must assemble or be refused with a
//! line number, without panicking; an assembled program must encode into microcode that
//! decodes, and disassemble into text that assembles into the same text again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_program::vertex::{assemble, assembly_text, decode_words, disassemble, encode};

fuzz_target!(|data: &[u8]| {
    let Some(text) = assembly_text(data) else {
        return;
    };
    if let Ok(program) = assemble(text) {
        let base = program.instructions.first().map_or(0, |i| i.slot);
        let mut back = decode_words(&encode(&program))
            .expect("an assembled program decodes")
            .loaded_at(base);
        back.start_slot = program.start_slot;
        assert_eq!(back, program);
        let again = disassemble(&back);
        let q = assemble(&again).unwrap_or_else(|e| panic!("{e}\n{again}"));
        assert_eq!(disassemble(&q), again);
    }
});
