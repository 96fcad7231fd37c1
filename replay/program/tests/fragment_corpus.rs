//! Genuine fragment programs from `shared/corpus`: Tiny3D's hand-assembled programs (JSON with
//! mnemonic comments) and Sony-compiled `.fpo` CgBinaryProgram containers from ps3autotests.

use rsxtrace_testkit::Corpus;

use rsxtrace_program::fragment::{
    decode, decode_words, disassemble, encode, encode_words, to_json, FpOpcode, FragmentProgram,
    InputAttribute, Operands, SourceKind,
};

/// The ucode of a CgBinaryProgram: big-endian `ucodeSize` at byte 24 and `ucode` offset at
/// byte 28 of the header (RPCS3 `CgBinaryProgram.h`, field order profile, revision,
/// totalSize, parameterCount, parameterArray, program, ucodeSize, ucode).
fn fpo_ucode(bytes: &[u8]) -> &[u8] {
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let (size, offset) = (be(24), be(28));
    &bytes[offset..offset + size]
}

fn load_fpo(corpus: &Corpus, name: &str) -> (Vec<u8>, FragmentProgram) {
    let bytes = corpus.read(&format!("ps3autotests/{name}"));
    let ucode = fpo_ucode(&bytes).to_vec();
    let program = decode(&ucode).unwrap_or_else(|e| panic!("{name}: {e}"));
    (ucode, program)
}

const FPOS: &[&str] = &[
    "primitives.fpo",
    "rsx_fp_dynamic_test1.fpo",
    "rsx_fp_dynamic_test2.fpo",
    "rsx_fp_static_test1.fpo",
    "rsx_fp_static_test2.fpo",
    "rsx_fp_static_test5.fpo",
    "texture_formats.fpo",
];

#[test]
fn every_fpo_decodes_and_matches_manifest() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    for name in FPOS {
        let (ucode, program) = load_fpo(&corpus, name);
        let file = format!("ps3autotests/{name}");
        let info = corpus
            .manifest_info(&file)
            .unwrap_or_else(|| panic!("{file} not in MANIFEST.json"));
        println!("== {name}\n{}", disassemble(&program));
        let slots = info["slots"].as_u64().unwrap() as u32;
        assert_eq!(program.slot_count, slots, "{name}: slots");
        assert_eq!(
            u64::from(program.slot_count),
            info["instructionCount"].as_u64().unwrap(),
            "{name}: instructionCount"
        );
        assert_eq!(
            program.instructions.len() as u64,
            info["decoded_ops"].as_u64().unwrap(),
            "{name}: decoded_ops"
        );
        assert_eq!(
            program.instructions.len() + program.constant_slot_count(),
            slots as usize,
            "{name}: instructions + constants"
        );
        let last = program.instructions.last().unwrap();
        assert!(last.end);
        assert_eq!(
            u64::from(last.slot),
            info["end_at_slot"].as_u64().unwrap(),
            "{name}"
        );
        let mut ops: Vec<u64> = program
            .instructions
            .iter()
            .map(|i| u64::from(i.opcode.value()))
            .collect();
        ops.sort_unstable();
        ops.dedup();
        let expected: Vec<u64> = info["distinct_opcodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(ops, expected, "{name}: distinct opcodes");
        // Every bit is represented: re-encoding gives the original bytes.
        assert_eq!(encode(&program), ucode, "{name}: byte round trip");
        let flow = rsxtrace_program::flow::analyze(&program);
        assert!(flow.complete, "{name}: structured flow");
        assert!(!flow.has_kill, "{name}: pixelKill is 0 in the MANIFEST");
        let json = to_json(&program);
        assert_eq!(
            json["instructions"].as_array().unwrap().len(),
            program.instructions.len()
        );
    }
}

#[test]
fn primitives_is_one_mov_from_col0() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let (_, program) = load_fpo(&corpus, "primitives.fpo");
    assert_eq!(program.instructions.len(), 1);
    let mov = &program.instructions[0];
    assert_eq!(mov.opcode, FpOpcode::Mov);
    assert!(mov.end);
    assert_eq!(mov.dest.index, 0);
    assert!(!mov.dest.fp16);
    assert_eq!(mov.input, InputAttribute::COL0);
    let Operands::Alu(alu) = mov.operands else {
        panic!("not ALU")
    };
    assert_eq!(alu.sources[0].kind, SourceKind::Input);
    assert_eq!(disassemble(&program), "   0: MOVR R0, f[COL0]; END\n");
}

#[test]
fn static_test2_contains_fences_and_texture_formats_samples() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let (_, program) = load_fpo(&corpus, "rsx_fp_static_test2.fpo");
    let has = |op| program.instructions.iter().any(|i| i.opcode == op);
    assert!(has(FpOpcode::Fenct), "FENCT missing");
    assert!(
        !has(FpOpcode::Fencb),
        "static_test2 has no FENCB (0x3E) per MANIFEST"
    );
    let (_, t5) = load_fpo(&corpus, "rsx_fp_static_test5.fpo");
    assert!(t5.instructions.iter().any(|i| i.opcode == FpOpcode::Fencb));
    let (_, tex) = load_fpo(&corpus, "texture_formats.fpo");
    assert_eq!(tex.instructions.len(), 1);
    assert_eq!(tex.instructions[0].opcode, FpOpcode::Tex);
    assert_eq!(tex.instructions[0].input, InputAttribute::tex(0));
}

#[test]
fn every_tiny3d_program_decodes_with_commented_opcodes() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let programs = corpus.tiny3d_fragment_programs();
    assert_eq!(programs.len(), 13);
    let mut commented = 0;
    for p in &programs {
        let name = &p.name;
        let rows = &p.rows;
        let words = p.words();
        assert_eq!(Some(words.len() as u64), p.size_words, "{name}");
        let program = decode_words(&words).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("== {name}\n{}", disassemble(&program));
        assert_eq!(encode_words(&program), words, "{name}: word round trip");
        assert_eq!(program.slot_count as usize, rows.len(), "{name}");
        // Rows whose comment names an opcode ("TEXX   R0, ...") are instructions, "{0.5 ...}"
        // rows are constants; compare in order.
        let comments: Vec<&str> = rows.iter().filter_map(|r| r.comment.as_deref()).collect();
        if comments.is_empty() {
            continue;
        }
        commented += 1;
        let named: Vec<&str> = comments
            .iter()
            .filter(|c| !c.starts_with('{'))
            .copied()
            .collect();
        assert_eq!(named.len(), program.instructions.len(), "{name}");
        for (c, insn) in named.iter().zip(&program.instructions) {
            let mnemonic = c.split_whitespace().next().unwrap();
            // Tiny3D writes the precision as a suffix: R fp32, H fp16, X fx12, none = fp32.
            let (base, prec) = match mnemonic.strip_suffix(['R', 'H', 'X']) {
                Some(b) if FpOpcode::ALL.iter().any(|o| o.name() == b) => {
                    (b, mnemonic.chars().last())
                }
                _ => (mnemonic, None),
            };
            assert_eq!(insn.opcode.name(), base, "{name}: {c}");
            let expected_prec = match prec {
                Some('H') => 1,
                Some('X') => 2,
                _ => 0,
            };
            assert_eq!(insn.dest.precision.bits(), expected_prec, "{name}: {c}");
            assert_eq!(insn.dest.fp16, c.contains("o[COLH]"), "{name}: {c}");
        }
    }
    assert_eq!(commented, 9);
}
