//! An edited program keeps the original's words for every instruction left alone
//! (`rsxtrace_program::kept_encoding`): a program assembled from its own disassembly is its
//! very words again, generated and genuine, and an edit changes only its own slots.

use crate::fragment_roundtrip::{self, generate};
use crate::vertex_roundtrip::{instruction, Rng};
use rsxtrace_program::container::Stage;
use rsxtrace_program::kept_encoding::{keep_fragment, keep_vertex};
use rsxtrace_program::{fragment, vertex};
use rsxtrace_testkit::rng::XorShift64Star;

/// Generated vertex programs loaded at random slots, every field random (so most carry bits
/// no unit reads): reassembled and kept, they are their own words; with one instruction
/// replaced, every other slot still is.
#[test]
fn a_vertex_programs_disassembly_gives_back_its_words() {
    let mut r = Rng(0x6b65_7074_2076_7031);
    let mut restored = 0;
    for n in 0..2_000 {
        let len = 1 + r.below(12) as usize;
        let base = r.below(40) as usize;
        let mut p = vertex::VertexProgram {
            start_slot: base,
            instructions: (base..base + len).map(|s| instruction(&mut r, s)).collect(),
        };
        for i in &mut p.instructions {
            if i.scalar.has_immediate_target() {
                let t = base + r.below(len as u64) as usize;
                vertex::set_branch_target(i, t as u16);
            }
        }
        p.instructions.last_mut().unwrap().end = true;
        let words = vertex::encode(&p);
        let text = vertex::disassemble(&p);
        let q = vertex::assemble(&text).unwrap_or_else(|e| panic!("program {n}: {e}\n{text}"));
        let canonical = vertex::encode_span(&q);
        let (kept, report) = keep_vertex(&canonical, base, &words, base);
        assert_eq!(kept, words, "program {n}\n{text}");
        assert_eq!(
            (report.instructions, report.kept),
            (len, len),
            "program {n}"
        );
        restored += report.restored;

        // One slot replaced: it alone differs from the original's words.
        let k = r.below(len as u64) as usize;
        let mut edited = q.clone();
        edited.instructions[k] = instruction(&mut r, base + k);
        edited.instructions[k].end = k == len - 1;
        if edited.instructions[k].scalar.has_immediate_target() {
            vertex::set_branch_target(&mut edited.instructions[k], base as u16);
        }
        let (kept, _) = keep_vertex(&vertex::encode_span(&edited), base, &words, base);
        for s in (0..len).filter(|&s| s != k) {
            assert_eq!(
                kept[4 * s..4 * s + 4],
                words[4 * s..4 * s + 4],
                "program {n} slot {s}"
            );
        }
        assert_eq!(
            vertex::decode_words(&kept).unwrap().instructions[k].scalar,
            edited.instructions[k].scalar,
            "program {n}"
        );
    }
    // Without keeping, most programs would not have come back: their words carry bits the
    // canonical encoding clears.
    assert!(restored > 2_000, "only {restored} instructions restored");
}

/// Generated fragment programs (every operand field random, flow included): reassembled and
/// kept, they are their own bytes, or where the text moved slots, a program that says what
/// the text says with every slot in place.
#[test]
fn a_fragment_programs_disassembly_gives_back_its_bytes() {
    let mut r = fragment_roundtrip::Rng(XorShift64Star(0x6b65_7074_2066_7031));
    let (mut restored, mut same_layout) = (0, 0);
    for n in 0..2_000 {
        let p = generate(&mut r);
        let bytes = fragment::encode(&p);
        let text = fragment::disassemble(&p);
        let q = fragment::assemble(&text).unwrap_or_else(|e| panic!("program {n}: {e}\n{text}"));
        let canonical = fragment::encode(&q);
        let (kept, report) = keep_fragment(&canonical, &bytes);
        if canonical.len() == bytes.len() {
            assert_eq!(kept, bytes, "program {n}\n{text}");
            assert_eq!(report.kept, p.instructions.len(), "program {n}");
            same_layout += 1;
        } else {
            // An operand of constant type the operation does not read still takes the slot
            // after it on the hardware; the text drops it, so the slots move and those
            // instructions keep their text's encoding. The rest keep theirs, in place.
            let back = fragment::decode(&kept).unwrap();
            let slots = |p: &fragment::FragmentProgram| -> Vec<u32> {
                p.instructions.iter().map(|i| i.slot).collect()
            };
            assert_eq!(slots(&back), slots(&q), "program {n}");
            assert_eq!(
                fragment::disassemble(&back),
                fragment::disassemble(&q),
                "program {n}"
            );
        }
        restored += report.restored;
    }
    assert!(restored > 1_000, "only {restored} instructions restored");
    assert!(
        same_layout > 100,
        "only {same_layout} programs kept their layout"
    );
}

/// Every program of the corpus (containers, executables): its disassembly, assembled and
/// kept, is its very microcode; and a fragment program with a line inserted at the top keeps
/// the words of every instruction whose meaning the insertion did not move.
#[test]
fn corpus_programs_come_back_to_their_words() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let found = rsxtrace_program::source::discover(&[corpus.dir().to_path_buf()]);
    let (mut vertex_checked, mut fragment_checked, mut restored) = (0, 0, 0);
    for program in &found.programs {
        let origin = format!("{:?}", program.origin);
        match program.stage {
            Stage::Vertex => {
                let words = vertex::words_of(&program.ucode);
                let p = vertex::decode_words(&words).unwrap();
                let q = vertex::assemble(&vertex::disassemble(&p)).unwrap();
                let (kept, report) = keep_vertex(&vertex::encode_span(&q), 0, &words, 0);
                assert_eq!(kept, words, "{origin}");
                restored += report.restored;
                vertex_checked += 1;
            }
            Stage::Fragment => {
                let Ok(p) = fragment::decode(&program.ucode) else {
                    continue;
                };
                let text = fragment::disassemble(&p);
                let q = fragment::assemble(&text).unwrap();
                let (kept, report) = keep_fragment(&fragment::encode(&q), &program.ucode);
                assert_eq!(kept, program.ucode, "{origin}");
                restored += report.restored;
                fragment_checked += 1;

                // A line inserted at the top: the rest move a slot on and keep their words
                // unless they are flow instructions (their targets moved with them).
                let first = text.lines().find(|l| !l.starts_with(';')).unwrap();
                let edited = text.replacen(first, &format!("MOVR R9, f[TEX7];\n{first}"), 1);
                let e = fragment::assemble(&edited).unwrap();
                let (kept, report) = keep_fragment(&fragment::encode(&e), &program.ucode);
                let flows = p.instructions.iter().filter(|i| i.opcode.is_flow()).count();
                assert!(
                    report.kept >= p.instructions.len() - flows,
                    "{origin}: {report:?}"
                );
                for i in p.instructions.iter().filter(|i| !i.opcode.is_flow()) {
                    let (at, moved) = (i.slot as usize * 16, (i.slot as usize + 1) * 16);
                    assert_eq!(
                        kept[moved..moved + 16],
                        program.ucode[at..at + 16],
                        "{origin}: slot {}",
                        i.slot
                    );
                }
                assert_eq!(
                    fragment::decode(&kept).unwrap().instructions.len(),
                    p.instructions.len() + 1
                );
            }
        }
    }
    assert!(
        vertex_checked >= 3 && fragment_checked >= 9,
        "{vertex_checked} {fragment_checked}"
    );
    assert!(
        restored > 0,
        "no corpus instruction carried bits no unit reads"
    );
}
