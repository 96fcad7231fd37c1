//! Fuzz the fragment-program assembler: arbitrary text must assemble or be refused with a
//! line number, without panicking; an assembled program must encode into microcode that
//! decodes, and disassemble into text that assembles again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_program::fragment::{assemble, assembly_text, decode, disassemble, encode};

fuzz_target!(|data: &[u8]| {
    let Some(text) = assembly_text(data) else {
        return;
    };
    if let Ok(program) = assemble(text) {
        let back = decode(&encode(&program)).expect("an assembled program decodes");
        let again = disassemble(&back);
        assemble(&again).unwrap_or_else(|e| panic!("{e}\n{again}"));
    }
});
