//! Field-by-field decoder tests on words laid out by hand from the tables of
//! rsx-microcode.md B.1 (never produced by the encoder), plus every refusal.

use rsxtrace_program::fragment::{
    decode, decode_until_end, disassemble, program_start, FlowField, FlowKind, FlowTargetProblem,
    FpOpcode, FragmentDecodeError, InputAttribute, OutputScale, Precision, PrecisionModifier,
    Relation, SourceKind, Swizzle,
};

/// Guest-memory bytes of nouveau-order words: each word big-endian with its 16-bit halves
/// swapped (B.1), written out byte by byte here rather than through the crate.
fn guest(words: &[u32]) -> Vec<u8> {
    words
        .iter()
        .flat_map(|&w| [(w >> 8) as u8, w as u8, (w >> 24) as u8, (w >> 16) as u8])
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn refuse(words: &[u32], expected: FragmentDecodeError) {
    let bytes = guest(words);
    assert_eq!(decode(&bytes), Err(expected), "input {}", hex(&bytes));
}

#[test]
fn primitives_fpo_raw_bytes() {
    // Raw from primitives.fpo (B.1): 3e010100 c8011c9d c8000001 c8003fe1.
    let raw = [
        0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00, 0x3f,
        0xe1,
    ];
    assert_eq!(
        guest(&[0x01003e01, 0x1c9dc801, 0x0001c800, 0x3fe1c800]),
        raw
    );
    let p = decode(&raw).unwrap();
    assert_eq!(p.slot_count, 1);
    let i = &p.instructions[0];
    assert_eq!(i.opcode, FpOpcode::Mov);
    assert!(i.end);
    assert_eq!((i.dest.index, i.dest.fp16, i.dest.mask.0), (0, false, 0xF));
    assert_eq!(i.input, InputAttribute::COL0);
    assert_eq!(i.condition.relation, Relation::Tr);
    let alu = i.alu().unwrap();
    assert_eq!(alu.sources[0].kind, SourceKind::Input);
    assert_eq!(alu.sources[0].swizzle, Swizzle::IDENTITY);
    // SRC2 = 0x3fe1c800: bits 19-29 = 0x7fc, bit 30 = 0, bit 31 = 0.
    assert_eq!(alu.input_displacement, 0x7FC);
    assert!(!alu.indexed_input && !alu.perspective);
    assert_eq!(disassemble(&p), "   0: MOVR R0, f[COL0]; END\n");
}

/// Every OPDEST/SRC field set to a distinct non-default value.
///
/// OPDEST: end 1 (0x1) | H5: 5<<1 (0xA) | fp16 0x80 | set_cond 0x100 | mask xz 0b0101<<9
/// (0xA00) | input 7=TEX3 <<13 (0xE000) | tex 9<<17 (0x120000) | exp_tex 0x200000 | prec fx12
/// 2<<22 (0x800000) | TXD 0x19<<24 (0x19000000) | sat 0x80000000 = 0x99B2EB8B.
///
/// SRC0: input (1) | swizzle wzyx = 3|2<<2|1<<4|0<<6 = 0x1B, <<9 = 0x3600 | neg 0x20000 |
/// NE 5<<18 (0x140000) | cond swizzle xxxx 0 | abs 1<<29 | CC1 written 1<<30 | CC1 read 1<<31
/// = 0xE0163601.
///
/// SRC1: temp 9<<2 (0x24) | fp16 0x100 | identity 0xE4<<9 (0x1C800) | abs 1<<18 (0x40000) |
/// src0 mod fp16 1<<19 (0x80000) | src1 mod sat 4<<22 (0x1000000) | src2 mod fx9 3<<25
/// (0x6000000) | scale ÷4 6<<28 (0x60000000) = 0x670DC924.
///
/// SRC2: constant (2) | yyyy 0x55<<9 (0xAA00) | neg 0x20000 | abs 0x40000 | displacement
/// 0x5A3<<19 (0x2D180000) | indexed 1<<30 | perspective 1<<31 = 0xED1EAA02.
#[test]
fn every_field_of_an_alu_instruction() {
    let words = [
        0x99B2EB8B, 0xE0163601, 0x670DC924, 0xED1EAA02, // TXD
        0x3F800000, 0x3F000000, 0x00000000, 0xBF800000, // {1.0, 0.5, 0.0, -1.0}
    ];
    let p = decode(&guest(&words)).unwrap();
    assert_eq!(p.slot_count, 2);
    assert_eq!(p.instructions.len(), 1);
    let i = &p.instructions[0];
    assert_eq!(i.slot, 0);
    assert_eq!(i.opcode, FpOpcode::Txd);
    assert!(i.end);
    let d = &i.dest;
    assert_eq!(
        (d.index, d.fp16, d.set_cond, d.mask.0),
        (5, true, true, 0b0101)
    );
    assert_eq!(d.precision, Precision::Fx12);
    assert!(d.saturate && !d.no_dest);
    assert_eq!(d.cc_write, 1);
    assert_eq!(i.input, InputAttribute::tex(3));
    assert_eq!(i.texture_unit, 9);
    assert!(i.exp_tex);
    assert_eq!(i.condition.relation, Relation::Ne);
    assert_eq!(i.condition.swizzle, Swizzle([0, 0, 0, 0]));
    assert_eq!(i.condition.cc, 1);
    let a = i.alu().unwrap();
    let [s0, s1, s2] = a.sources;
    assert_eq!(s0.kind, SourceKind::Input);
    assert_eq!(s0.swizzle, Swizzle([3, 2, 1, 0]));
    assert!(s0.negate && s0.abs);
    assert_eq!(s0.modifier, PrecisionModifier::Fp16);
    assert_eq!((s1.kind, s1.index, s1.fp16), (SourceKind::Temp, 9, true));
    assert!(s1.abs && !s1.negate);
    assert_eq!(s1.modifier, PrecisionModifier::Sat);
    assert_eq!(s2.kind, SourceKind::Constant);
    assert_eq!(s2.swizzle, Swizzle([1, 1, 1, 1]));
    assert!(s2.negate && s2.abs);
    assert_eq!(s2.modifier, PrecisionModifier::Fx9);
    assert_eq!(a.scale, OutputScale::Div4);
    assert!(a.perspective && a.indexed_input);
    assert_eq!(a.input_displacement, 0x5A3);
    let c = i.constant.unwrap();
    assert_eq!(c.0, [0x3F800000, 0x3F000000, 0, 0xBF800000]);
    assert_eq!(c.values(), [1.0, 0.5, 0.0, -1.0]);
    assert_eq!(
        disassemble(&p),
        "   0: TXDXC1_SAT_d4_PC H5.xz (NE1.xxxx), -h(|f[TEX(A0+1443)].wzyx|), sat(|H9|), \
         -x9(|{1.0, 0.5, 0.0, -1.0}.yyyy|), TEX9.bx2; END\n"
    );
}

/// LOOP / IFE / BRK laid out by hand.
///
/// 0 LOOP: OPDEST 0x43<<24 low 6 bits (0x03000000) | no_dest 0x40000000 = 0x43000000;
///   SRC0 TR 7<<18 | identity cond swizzle 0xE4<<21 = 0x1C9C0000;
///   SRC1 count 4<<2 (0x10) | init 2<<10 (0x800) | incr -1 = 0xFF<<19 (0x7F80000) | branch
///   1<<31 = 0x87F80810; SRC2 end = slot 4 = 16 dwords = 0x10.
/// 1 IFE: 0x42000000; SRC0 GT 4<<18, swizzle xxxx = 0x00100000; SRC1 else slot 3 = 12 dwords
///   | branch = 0x8000000C; SRC2 end slot 4 = 0x10.
/// 2 MOV R0, R1: 0x01001E00; SRC0 R1 (0x4) | identity 0x1C800 | TR + identity = 0x1C9DC804.
/// 3 BRK (EQ): 0x40000000; SRC0 EQ 2<<18 | identity = 0x1C880000; SRC1 branch 0x80000000.
/// 4 MOV R0, f[COL0] END: 0x01003E01, 0x1C9DC801.
const LOOP_PROGRAM: [u32; 20] = [
    0x43000000, 0x1C9C0000, 0x87F80810, 0x00000010, //
    0x42000000, 0x00100000, 0x8000000C, 0x00000010, //
    0x01001E00, 0x1C9DC804, 0x00000000, 0x00000000, //
    0x40000000, 0x1C880000, 0x80000000, 0x00000000, //
    0x01003E01, 0x1C9DC801, 0x00000000, 0x00000000,
];

#[test]
fn flow_control_fields() {
    let p = decode(&guest(&LOOP_PROGRAM)).unwrap();
    let ops: Vec<_> = p.instructions.iter().map(|i| i.opcode).collect();
    assert_eq!(
        ops,
        [
            FpOpcode::Loop,
            FpOpcode::Ife,
            FpOpcode::Mov,
            FpOpcode::Brk,
            FpOpcode::Mov
        ]
    );
    let FlowKind::Loop(l) = p.instructions[0].flow().unwrap().kind else {
        panic!("not LOOP")
    };
    assert_eq!((l.count, l.init, l.increment, l.end_slot), (4, 2, -1, 4));
    assert_eq!(
        p.instructions[1].flow().unwrap().kind,
        FlowKind::Ife {
            else_slot: 3,
            end_slot: 4
        }
    );
    assert_eq!(p.instructions[1].condition.relation, Relation::Gt);
    assert_eq!(p.instructions[3].condition.relation, Relation::Eq);
    assert_eq!(
        disassemble(&p),
        "   0: LOOP count=4 init=2 incr=-1 end @4;\n\
         \x20  1: IFE (GT.xxxx) else @3 end @4;\n\
         \x20  2: MOVR R0, R1;\n\
         \x20  3: BRK (EQ.xyzw);\n\
         \x20  4: MOVR R0, f[COL0]; END\n"
    );
}

const MOV_END: [u32; 4] = [0x01003E01, 0x1C9DC801, 0, 0];

#[test]
fn nop_with_constant_swallows_next_slot() {
    // NOP with SRC0 type 2 (constant): 0x00000000, 0x00000002; then its data slot (whose first
    // word would otherwise read as opcode 0x3F, an invalid opcode), then MOV END.
    let words = [
        0x00000000, 0x00000002, 0, 0, //
        0x3F800000, 0, 0, 0, //
        MOV_END[0], MOV_END[1], 0, 0,
    ];
    let p = decode(&guest(&words)).unwrap();
    assert_eq!(p.slot_count, 3);
    assert_eq!(p.instructions.len(), 2);
    assert_eq!(p.instructions[0].opcode, FpOpcode::Nop);
    assert_eq!(p.instructions[0].constant.unwrap().values()[0], 1.0);
    assert_eq!(p.instructions[1].slot, 2);
}

#[test]
fn flow_words_never_own_a_constant_slot() {
    // BRK whose SRC1/SRC2 low bits read as type 2: 0x80000002 / 0x00000002. No constant slot.
    let words = [
        0x40000000, 0x1C9C0000, 0x80000002, 0x00000002, MOV_END[0], MOV_END[1], 0, 0,
    ];
    let p = decode(&guest(&words)).unwrap();
    assert_eq!(p.instructions.len(), 2);
    assert!(p.instructions[0].constant.is_none());
    assert_eq!(p.instructions[0].flow().unwrap().reserved, [0, 2, 2]);
}

#[test]
fn refuses_empty_and_truncated() {
    assert_eq!(decode(&[]), Err(FragmentDecodeError::Empty));
    let mut bytes = guest(&MOV_END);
    bytes.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(
        decode(&bytes),
        Err(FragmentDecodeError::Truncated {
            offset: 16,
            available: 4
        })
    );
    // A partial slot after END is tolerated by decode_until_end.
    assert_eq!(decode_until_end(&bytes).unwrap().slot_count, 1);
    // MOV (no END) then 8 bytes: the next slot is partial.
    let mut bytes = guest(&[0x01003E00, 0x1C9DC801, 0, 0]);
    bytes.extend_from_slice(&[0; 8]);
    assert_eq!(
        decode_until_end(&bytes),
        Err(FragmentDecodeError::Truncated {
            offset: 16,
            available: 8
        })
    );
}

#[test]
fn refuses_missing_constant_and_missing_end() {
    // MOV R0, {c} END with SRC0 type 2 (0x1C9DC802) and no constant slot.
    refuse(
        &[0x01003E01, 0x1C9DC802, 0, 0],
        FragmentDecodeError::MissingConstant {
            slot: 0,
            offset: 16,
        },
    );
    // MOV without END (0x01003E00).
    refuse(
        &[0x01003E00, 0x1C9DC801, 0, 0],
        FragmentDecodeError::MissingEnd { offset: 16 },
    );
}

#[test]
fn refuses_unnamed_opcodes() {
    // 0x30 << 24 | END.
    refuse(
        &[0x30000001, 0x1C9DC801, 0, 0],
        FragmentDecodeError::InvalidOpcode {
            slot: 0,
            value: 0x30,
        },
    );
    // Slot 1: 0x32.
    refuse(
        &[0x01001E00, 0x1C9DC804, 0, 0, 0x32000001, 0, 0, 0],
        FragmentDecodeError::InvalidOpcode {
            slot: 1,
            value: 0x32,
        },
    );
    // Low bits 0x06 plus the branch bit (SRC1 bit 31) = 0x46.
    refuse(
        &[0x06000001, 0x1C9C0000, 0x80000000, 0],
        FragmentDecodeError::InvalidOpcode {
            slot: 0,
            value: 0x46,
        },
    );
}

#[test]
fn refuses_source_type_3() {
    // SRC1 = 0x00000003.
    refuse(
        &[0x02001E01, 0x1C9DC804, 0x00000003, 0],
        FragmentDecodeError::InvalidSourceType {
            slot: 0,
            operand: 1,
        },
    );
    // SRC0 type 3: 0x1C9DC807.
    refuse(
        &[0x01001E01, 0x1C9DC807, 0, 0],
        FragmentDecodeError::InvalidSourceType {
            slot: 0,
            operand: 0,
        },
    );
}

#[test]
fn refuses_trailing_data() {
    let mut words = MOV_END.to_vec();
    words.extend_from_slice(&[0; 4]);
    refuse(
        &words,
        FragmentDecodeError::TrailingData {
            slot: 1,
            offset: 16,
        },
    );
    assert_eq!(
        decode_until_end(&guest(&words)).unwrap().instructions.len(),
        1
    );
}

fn bad_flow(
    slot: u32,
    field: FlowField,
    offset: u32,
    problem: FlowTargetProblem,
) -> FragmentDecodeError {
    FragmentDecodeError::BadFlowTarget {
        slot,
        field,
        offset,
        problem,
    }
}

#[test]
fn refuses_bad_flow_targets() {
    // IFE at slot 0 with else/end in SRC1/SRC2, then ADD R0, R0, {c} (SRC1 type 2) at slot 1,
    // its constant at slot 2, MOV END at slot 3.
    let ife = |else_dw: u32, end_dw: u32| {
        vec![
            0x42000000,
            0x1C9C0000,
            0x80000000 | else_dw,
            end_dw, //
            0x03001E00,
            0x1C9DC800,
            0x0001C802,
            0, //
            0x3F800000,
            0,
            0,
            0, //
            MOV_END[0],
            MOV_END[1],
            0,
            0,
        ]
    };
    assert!(decode(&guest(&ife(4, 12))).is_ok());
    // End offset 8 dwords = slot 2, the constant slot.
    refuse(
        &ife(4, 8),
        bad_flow(0, FlowField::End, 8, FlowTargetProblem::ConstantSlot),
    );
    // Else offset 6 dwords: not a slot start.
    refuse(
        &ife(6, 12),
        bad_flow(0, FlowField::Else, 6, FlowTargetProblem::Misaligned),
    );
    // End offset 16 dwords = slot 4, past the 4-slot program.
    refuse(
        &ife(4, 16),
        bad_flow(0, FlowField::End, 16, FlowTargetProblem::PastEnd),
    );
    // Else offset 0: not forward.
    refuse(
        &ife(0, 12),
        bad_flow(0, FlowField::Else, 0, FlowTargetProblem::NotForward),
    );
    // Else slot 3 after end slot 1.
    refuse(
        &ife(12, 4),
        bad_flow(0, FlowField::Else, 12, FlowTargetProblem::ElseAfterEnd),
    );
    // CAL to the constant slot (SRC1 = 8 dwords).
    let mut cal = ife(0, 0);
    cal[0] = 0x01000000; // low 6 bits of 0x41; SRC1 bit 31 supplies 0x40
    cal[2] = 0x80000008;
    cal[3] = 0;
    refuse(
        &cal,
        bad_flow(0, FlowField::Target, 8, FlowTargetProblem::ConstantSlot),
    );
    // LOOP whose end is slot 2 (constant).
    let mut lp = ife(0, 8);
    lp[0] = 0x03000000;
    lp[2] = 0x80000010;
    refuse(
        &lp,
        bad_flow(0, FlowField::End, 8, FlowTargetProblem::ConstantSlot),
    );
}

#[test]
fn program_start_skips_leading_zero_slots() {
    // Two all-zero slots, then MOV END.
    let mut words = vec![0u32; 8];
    words.extend_from_slice(&MOV_END);
    assert_eq!(program_start(&guest(&words)), 32);
    // Leading NOP with a constant: its data slot (first word 0x3F800000, opcode bits 0x3F) is
    // skipped, not taken as the start.
    let words = [
        0x00000000, 0x00000002, 0, 0, //
        0x3F800000, 0, 0, 0, //
        MOV_END[0], MOV_END[1], 0, 0,
    ];
    assert_eq!(program_start(&guest(&words)), 32);
    // A zero-opcode END slot first: a NOP shader at slot 1.
    let words = [
        0, 0, 0, 0, 0x00000001, 0, 0, 0, MOV_END[0], MOV_END[1], 0, 0,
    ];
    assert_eq!(program_start(&guest(&words)), 16);
    // Nothing found: the length rounded down to a slot.
    assert_eq!(program_start(&[0u8; 40]), 32);
    assert_eq!(program_start(&guest(&MOV_END)), 0);
}
