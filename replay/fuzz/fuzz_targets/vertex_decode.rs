//! Fuzz the vertex decoder: `decode_bytes` on arbitrary input, and `decode_from_memory` on the
//! input padded to the 544-slot transform memory with a start slot from the first byte. On
//! success, disassembly and JSON must not panic and `decode(encode(p)) == p`, and the
//! disassembly of a program whose branches stay inside it must assemble back into the same
//! text, and keeping the original's encoding gives back the input's words.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_program::kept_encoding::keep_vertex;
use rsxtrace_program::vertex::{self, VertexProgram};

/// The disassembly assembles; where the slots are consecutive and END is written, into a
/// program with the same disassembly; given the words `p` was decoded from (slot 0 on), the
/// assembled program with the original's encoding kept (`kept_encoding`) is those words.
fn reads_back(p: &VertexProgram, words: Option<&[u32]>) {
    let slots: Vec<usize> = p.instructions.iter().map(|i| i.slot).collect();
    let inside = p.instructions.iter().all(|i| {
        i.branch_target()
            .is_none_or(|t| slots.contains(&usize::from(t)))
    });
    if !inside {
        return;
    }
    let text = vertex::disassemble(p);
    let q = vertex::assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let consecutive = slots.windows(2).all(|w| w[1] == w[0] + 1);
    if consecutive && p.instructions.iter().any(|i| i.end) {
        assert_eq!(vertex::disassemble(&q), text);
    }
    if let Some(words) = words {
        let (kept, report) = keep_vertex(&vertex::encode_span(&q), 0, words, 0);
        assert_eq!(report.kept, report.instructions, "{text}");
        assert_eq!(kept, words, "{text}");
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = vertex::decode_bytes(data) {
        let _ = vertex::disassemble(&p);
        let _ = vertex::to_json(&p);
        assert_eq!(vertex::decode_words(&vertex::encode(&p)).as_ref(), Ok(&p));
        let words = vertex::words_of(data);
        reads_back(&p, Some(&words));
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
        reads_back(&p, None);
        let again = vertex::decode_from_memory(&vertex::encode_memory(&p), start);
        assert_eq!(again.as_ref(), Ok(&p));
    }
});
