//! Fuzz the fragment-program decoder: arbitrary bytes must decode or be refused without
//! panicking; accepted programs must disassemble, serialise, and survive
//! `decode(encode(p)) == p` (and re-encode to the same bytes), and their disassembly must
//! assemble into a program that encodes and decodes, and that with the original's encoding
//! kept is the input again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_program::fragment::{
    assemble, decode, decode_until_end, disassemble, encode, program_start, to_json,
};
use rsxtrace_program::kept_encoding::keep_fragment;

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
        let canonical = encode(&assembled);
        let back = decode(&canonical).expect("the assembled program decodes");
        // With the original's encoding kept: the input itself where the slots did not move,
        // else a program that says what the text says with its slots where the text put them.
        let (kept, report) = keep_fragment(&canonical, data);
        let slots = |p: &rsxtrace_program::fragment::FragmentProgram| -> Vec<u32> {
            p.instructions.iter().map(|i| i.slot).collect()
        };
        if slots(&back) == slots(&program) && canonical.len() == data.len() {
            assert_eq!(kept, data, "{text}");
            assert_eq!(report.kept, report.instructions);
        } else {
            let k = decode(&kept).expect("the kept program decodes");
            assert_eq!(slots(&k), slots(&back), "{text}");
            assert_eq!(disassemble(&k), disassemble(&back), "{text}");
        }
    }
});
