//! The vertex assembler reads back what the disassembler writes: generated programs with
//! every field random, the corpus's genuine programs, labels, and refusals by line.

use crate::vertex_roundtrip::{instruction, Rng};
use rsxtrace_program::vertex::{
    self, assemble, disassemble, RegisterType, Relation, ScalarOpcode, VectorOpcode,
    VertexInstruction, VertexProgram,
};

/// A source as the units read it: the register, then swizzle, negate, abs.
fn source_meaning(i: &VertexInstruction, n: usize) -> String {
    let s = &i.sources[n];
    let a = format!("A{}.{:?}", i.address.register, i.address.component);
    let base = match s.reg_type {
        RegisterType::Temp => format!("R{}", s.temp_index),
        RegisterType::Input if i.index_input => format!("v[{a}+{}]", i.input.0),
        RegisterType::Input => format!("v[{}]", i.input.0),
        RegisterType::Constant if i.index_const => format!("c[{a}+{}]", i.const_index),
        RegisterType::Constant => format!("c[{}]", i.const_index),
    };
    format!(
        "src{n} {base} {:?} neg={} abs={}",
        s.swizzle, s.negate, s.abs
    )
}

/// What a slot does, field by field, as the interpreter reads it (`replay/src/interp/vertex`:
/// `table.rs` for conditions and CC writes, `lanes.rs` for FL): only the fields an active
/// unit uses, so that two encodings of one instruction compare equal.
fn meaning(i: &VertexInstruction) -> Vec<String> {
    let mut m = vec![format!("end={}", i.end)];
    let cc = format!("{:?}", i.cc_register);
    let write_condition = match i.condition.relation {
        Relation::FL => "never".to_string(),
        Relation::TR => "always".to_string(),
        r if i.condition.enabled => format!("{r:?} {:?} {cc}", i.condition.swizzle),
        _ => "always".to_string(),
    };
    let unit =
        |m: &mut Vec<String>, name: &str, temp: Option<u8>, writer: bool, address_op: bool| {
            m.push(format!("{name} temp={temp:?} when={write_condition}"));
            // The writer with no output register writes none (as a unit that is not the
            // writer): only an output written counts.
            if let Some(o) = i.output.filter(|_| writer && !address_op) {
                m.push(format!("{name} output={o:?}"));
            }
            let writes_cc = i.cc_update.any() || (temp.is_none() && !writer);
            m.push(format!("{name} cc_write={writes_cc} sat={}", i.saturate));
            if writes_cc {
                m.push(format!("{name} cc={cc}"));
            }
        };
    if i.vector_active() {
        m.push(format!("vector {:?} mask={:?}", i.vector, i.vec_mask));
        for n in (0..3).filter(|&n| i.vector.reads()[n]) {
            m.push(source_meaning(i, n));
        }
        let address_op = matches!(
            i.vector,
            VectorOpcode::Arl | VectorOpcode::Arr | VectorOpcode::Ara
        );
        unit(&mut m, "vector", i.vec_dst_temp, i.vec_result, address_op);
        m.push(format!("texture unit {:?}", i.texture_unit()));
    }
    if i.scalar.is_flow() {
        m.push(format!("flow {:?}", i.scalar));
        match i.scalar {
            ScalarOpcode::Brb | ScalarOpcode::Clb => {
                m.push(format!(
                    "target {:?} {:?}",
                    i.branch_target(),
                    i.boolean_branch()
                ));
            }
            op => {
                let branch_condition = match i.condition.relation {
                    r @ (Relation::TR | Relation::FL) => format!("{r:?}"),
                    r => format!("{r:?} {:?} {cc}", i.condition.swizzle),
                };
                m.push(format!(
                    "target {:?} if {branch_condition}",
                    i.branch_target()
                ));
                match op {
                    ScalarOpcode::Bra => m.push(format!("address {}", i.address)),
                    ScalarOpcode::Psh | ScalarOpcode::Pop => {
                        m.push(format!("address A{}", i.address.register))
                    }
                    _ => {}
                }
            }
        }
    } else if i.scalar_active() {
        m.push(format!("scalar {:?} mask={:?}", i.scalar, i.sca_mask));
        m.push(source_meaning(i, 2));
        unit(&mut m, "scalar", i.sca_dst_temp, !i.vec_result, false);
    }
    m
}

fn assert_same_meaning(p: &VertexProgram, q: &VertexProgram, text: &str) {
    assert_eq!(p.instructions.len(), q.instructions.len(), "{text}");
    for (a, b) in p.instructions.iter().zip(&q.instructions) {
        assert_eq!(a.slot, b.slot, "{text}");
        assert_eq!(meaning(a), meaning(b), "slot {}: {a}\n{text}", a.slot);
    }
}

#[test]
fn assemble_reads_back_what_disassemble_writes() {
    let mut r = Rng(0x51ed_2701_c0ff_ee11);
    for n in 0..3_000 {
        let len = 1 + r.below(16) as usize;
        // One program in four skips slots, as a disassembly from memory skips the slots its
        // program cannot reach.
        let gaps = r.below(4) == 0;
        let mut slot = 0;
        let mut slots = Vec::with_capacity(len);
        for _ in 0..len {
            slots.push(slot);
            slot += 1 + if gaps { r.below(3) as usize } else { 0 };
        }
        let mut instructions: Vec<VertexInstruction> =
            slots.iter().map(|&s| instruction(&mut r, s)).collect();
        for i in &mut instructions {
            if i.scalar.has_immediate_target() {
                // Targets name slots of the program (an assembler target names a label).
                let t = slots[r.below(len as u64) as usize];
                vertex::set_branch_target(i, t as u16);
            }
        }
        if let Some(last) = instructions.last_mut() {
            last.end = true;
        }
        // One program in four starts past its first slot (a subroutine below its entry).
        let start_slot = if r.below(4) == 0 {
            slots[r.below(len as u64) as usize]
        } else {
            0
        };
        let p = VertexProgram {
            start_slot,
            instructions,
        };
        let text = disassemble(&p);
        let q = assemble(&text).unwrap_or_else(|e| panic!("program {n}: {e}\n{text}"));
        assert_same_meaning(&p, &q, &text);
        assert_eq!(q.start_slot, p.start_slot, "{text}");
        assert_eq!(disassemble(&q), text, "program {n}");
        // Its span encodes every instruction at its own slot, idle slots between.
        let span = vertex::decode_words(&vertex::encode_span(&q)).unwrap();
        for i in &q.instructions {
            assert_eq!(span.instructions[i.slot], *i, "slot {}", i.slot);
        }
        assert_eq!(
            span.instructions.len(),
            q.instructions.last().unwrap().slot + 1
        );
    }
}

/// Every vertex program the corpus holds (containers, executables): its disassembly
/// assembles into a program that does what it does.
#[test]
fn corpus_programs_read_back() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let found = rsxtrace_program::source::discover(&[corpus.dir().to_path_buf()]);
    let mut checked = 0;
    for program in found
        .programs
        .iter()
        .filter(|p| p.stage == rsxtrace_program::container::Stage::Vertex)
    {
        let p = vertex::decode_bytes(&program.ucode).unwrap();
        let text = disassemble(&p);
        let q = assemble(&text).unwrap_or_else(|e| panic!("{:?}: {e}\n{text}", program.origin));
        assert_same_meaning(&p, &q, &text);
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} vertex programs in the corpus");
}

/// A program written by hand: comments, a load slot, labels that follow an inserted line,
/// END added to the last line, and the fields the text does not show at the idle slot's
/// values.
#[test]
fn labels_comments_and_load_slot() {
    let text = "\
; skinning prologue
100: DP4 o[HPOS].x, v[POS], c[32]   # row 0
101: BRI 104 (NE.xxxx)
     MOV R1, v[NORMAL]
102: MUL R0, v[COL0], c[A0.x+4]; RCP R2.x, R1.w
104: NOP; MOV o[COL0], R0
";
    let p = assemble(text).unwrap();
    assert_eq!(p.start_slot, 100);
    let slots: Vec<usize> = p.instructions.iter().map(|i| i.slot).collect();
    assert_eq!(slots, [100, 101, 102, 103, 104]);
    // The target named label 104, which is now slot 104 (the line labelled 102 is 103).
    assert_eq!(p.instructions[1].branch_target(), Some(104));
    assert_eq!(
        p.instructions[1].condition.relation,
        rsxtrace_program::vertex::Relation::NE
    );
    assert!(p.instructions[4].end && !p.instructions[3].end);
    assert_eq!(
        disassemble(&p),
        "100: DP4 o[HPOS].x, v[POS], c[32]\n\
         101: BRI 104 (NE.xxxx)\n\
         102: MOV R1, v[NORMAL]\n\
         103: MUL R0, v[COL0], c[A0.x+4]; RCP R2.x, R1.w\n\
         104: NOP; MOV o[COL0], R0; END\n"
    );
    // A START line is the entry; the program still loads at its first line.
    let sub = assemble(
        "20: MOV o[COL0], v[COL0]\n21: RET\n22: CAL 20; START\n23: MOV o[HPOS], v[POS]; END",
    )
    .unwrap();
    assert_eq!((sub.start_slot, sub.instructions[0].slot), (22, 20));
    assert!(disassemble(&sub).contains("022: CAL 20; START\n"));
    assert_eq!(assemble(&disassemble(&sub)).unwrap(), sub);
    // Unread sources and unused fields are the idle slot's.
    let idle = VertexInstruction::idle(0);
    let dp4 = &p.instructions[0];
    assert_eq!(dp4.sources[2], idle.sources[2]);
    assert_eq!(dp4.sca_dst_temp, None);
    assert_eq!(dp4.scalar, ScalarOpcode::Nop);
    // The words: D0 vec_result (bit 30) and D3 output HPOS (0) with mask x (D3 bit 16).
    let w = dp4.to_words();
    assert_eq!((w[0] >> 30) & 1, 1);
    assert_eq!((w[3] >> 2) & 0x1F, 0);
    assert_eq!((w[3] >> 13) & 0xF, 0b1000);
}

/// What cannot be one slot, or is not the syntax, is refused at its line, naming the
/// claims that disagree.
#[test]
fn refusals_name_the_line_and_the_clash() {
    let cases = [
        ("MOV R0, v[POS]\nMAD R1, c[1], c[2], R0", 2, "contradicts"),
        ("MAD R1, v[POS], v[NORMAL], R0", 1, "contradicts"),
        ("MOV R1, c[A0.x+1]; RCP R2, c[1]", 1, "contradicts"),
        ("MAD R1, R2, R3, c[3]; RCP R2.x, c[3].w", 1, "src2"),
        ("MOVC R1, v[POS]; RCP R2, R1", 1, "condition-code update"),
        ("MOV_SAT R1, v[POS]; RCP R2, R1", 1, "saturation"),
        ("MOV o[HPOS], v[POS]; RCP o[COL0], R1", 1, "contradicts"),
        ("MOV R1 (NE.xxxx), v[POS]; BRI 0", 1, "condition"),
        ("MAD R1, R2, R3, R4; BRI 0", 1, "branch target"),
        ("TXL R1, R2, R5, tex2", 1, "texture unit"),
        ("ARL R1, v[POS]", 1, "address register"),
        ("MOV A1, v[POS]", 1, "address register"),
        ("BRI 7", 1, "names no line"),
        ("0: NOP\n0: NOP", 2, "twice"),
        ("MOVQ R1, v[POS]", 1, "no such"),
        ("MOV R1, v[POS], R2", 1, "operand"),
        ("MOV R1, c[1024]", 1, "0..1023"),
        ("MOV R63, v[POS]", 1, "0..62"),
        ("MOV R1.yx, v[POS]", 1, "xyzw order"),
        ("MOV R1, v[POS]; RCP R2, R1; END; NOP", 1, "at most"),
        ("MOV R1, v[POS]; BRI 0 (FL.xxxx)", 1, "writes nothing"),
        ("543: NOP\nNOP", 2, "past the 544 slots"),
        ("BRB 0, b40", 1, "b0..b31"),
        ("NOP; START\nNOP; START", 2, "second START"),
    ];
    for (text, line, words) in cases {
        let e = assemble(text).expect_err(text);
        assert_eq!(e.line, line, "{text}: {e}");
        assert!(e.message.contains(words), "{text}: {e}");
    }
    // The shared fields agree: one slot.
    for ok in [
        // MAD's src2 is the scalar unit's operand too.
        "MAD R1, v[POS].xxxx, v[POS].yyyy, c[3]; RCP R2.x, c[3]",
        "MOV R1, v[A1.y+3]; RCP R2, c[A1.y+4]",
        "MOVC1_SAT R1 (NE1.xyzw), v[POS]; RCPC1_SAT o[COL0] (NE1.xyzw), R1",
        "TXL R1, R2, R5, tex1",
        "MOV CC1, v[POS]; BRI 0 (GT1.xxxx)",
    ] {
        assemble(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}
