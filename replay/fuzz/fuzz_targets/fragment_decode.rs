//! Fuzz the fragment-program decoder: arbitrary bytes must decode or be refused without
//! panicking; accepted programs must disassemble, serialise, and survive
//! `decode(encode(p)) == p` (and re-encode to the same bytes), and their disassembly must
//! assemble into a program that encodes and decodes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_program::fragment::{
    assemble, decode, decode_until_end, disassemble, encode, program_start, to_json,
};

fuzz_target!(|data: &[u8]| {
    let _ = program_start(data);
    let _ = decode_until_end(data);
    if let Ok(program) = decode(data) {
        let _ = disassemble(&program);
        let _ = to_json(&program);
        let bytes = encode(&program);
        assert_eq!(bytes, data, "re-encoding changed the bytes");
        let again = decode(&bytes).expect("re-encoded program decodes");
        assert_eq!(again, program);
        let text = disassemble(&program);
        let assembled = assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        decode(&encode(&assembled)).expect("the assembled program decodes");
    }
});
