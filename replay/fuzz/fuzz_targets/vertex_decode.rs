//! Fuzz the vertex decoder: `decode_bytes` on arbitrary input, and `decode_from_memory` on the
//! input padded to the 544-slot transform memory with a start slot from the first byte. On
//! success, disassembly and JSON must not panic and `decode(encode(p)) == p`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_program::vertex;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = vertex::decode_bytes(data) {
        let _ = vertex::disassemble(&p);
        let _ = vertex::to_json(&p);
        assert_eq!(vertex::decode_words(&vertex::encode(&p)).as_ref(), Ok(&p));
    }

    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let mut mem = vec![0u32; vertex::MEMORY_SLOTS * 4];
    for (word, c) in mem.iter_mut().zip(rest.chunks(4)) {
        let mut b = [0u8; 4];
        b[..c.len()].copy_from_slice(c);
        *word = u32::from_be_bytes(b);
    }
    let start = usize::from(first) % vertex::MEMORY_SLOTS;
    if let Ok(p) = vertex::decode_from_memory(&mem, start) {
        let _ = vertex::disassemble(&p);
        let again = vertex::decode_from_memory(&vertex::encode_memory(&p), start);
        assert_eq!(again.as_ref(), Ok(&p));
    }
});
