//! Vertex decoder field tests. Every word here is laid out by hand from the B.8 tables of
//! rsx-microcode.md (RPCS3 `RSXVertexProgram.h`); the comments show the arithmetic. The encoder
//! is not used to build inputs.

use rsxtrace_program::vertex::{
    self, CcRegister, Component, OutputRegister, RegisterType, Relation, ScalarOpcode, Swizzle,
    VectorOpcode, VertexDecodeError, WriteMask,
};

fn one(words: [u32; 4]) -> vertex::VertexInstruction {
    match vertex::decode_words(&words) {
        Ok(p) => p.instructions[0],
        Err(e) => panic!("decode of {words:08x?} failed: {e}"),
    }
}

fn text(words: &[u32]) -> String {
    let p = vertex::decode_words(words).unwrap_or_else(|e| panic!("{words:08x?}: {e}"));
    vertex::disassemble(&p)
}

fn swz(s: &str) -> Swizzle {
    let c = |ch| match ch {
        'x' => Component::X,
        'y' => Component::Y,
        'z' => Component::Z,
        _ => Component::W,
    };
    let v: Vec<Component> = s.chars().map(c).collect();
    Swizzle([v[0], v[1], v[2], v[3]])
}

/// Slot 2 of ps3autotests `sce_cube_common.vpo`: DP4 o[HPOS].w, v[POS], c[259].
#[test]
fn cube_dp4_slot_fields() {
    // D0 0x401f9c6c: bits 0-1 addr_swz 0 (x); bits 2-9 = 0x1b = 00 01 10 11 (cond swizzle
    //    x=0,y=1,z=2,w=3: xyzw); bits 10-12 = 111 (TR); bits 13,14 = 0; bits 15-20 = 0x3f (no
    //    vector temp); bits 21-29 = 0; bit 30 = 1 (vec_result).
    // D1 0x01d0300d: bits 0-7 src0h 0x0d; bits 8-11 input 0; bits 12-21 = 0x103 = 259;
    //    bits 22-26 = 7 (DP4); bits 27-31 = 0 (NOP).
    // D2 0x8106c0c3: bits 23-31 src0l 0x102 -> src0 = 0x0d<<9 | 0x102 = 0x1b02: type 2 (input),
    //    swizzle 0x1b (xyzw); bits 6-22 src1 = 0x1b03: type 3 (constant), xyzw; bits 0-5 src2h 3.
    // D3 0x60403f80: bit 0 END 0; bits 2-6 = 0 (HPOS); bits 7-12 = 0x3f (no scalar temp);
    //    bits 13-16 = 0b0001 (hardware order x=8..w=1: w); bits 17-20 = 0;
    //    bits 21-31 src2l 0x302 -> src2 = 3<<11 | 0x302 = 0x1b02 (input, xyzw).
    let i = one([0x401f9c6c, 0x01d0300d, 0x8106c0c3, 0x60403f80]);
    assert_eq!(i.vector, VectorOpcode::Dp4);
    assert_eq!(i.scalar, ScalarOpcode::Nop);
    assert_eq!(i.const_index, 259);
    assert_eq!(i.input.0, 0);
    assert_eq!(i.input.name(), "POS");
    assert_eq!(i.output, Some(OutputRegister(0)));
    assert_eq!(i.output.and_then(|o| o.name()), Some("HPOS"));
    assert!(i.vec_result);
    assert_eq!(i.vec_dst_temp, None);
    assert_eq!(i.sca_dst_temp, None);
    assert_eq!(i.vec_mask, WriteMask(0b1000)); // w only
    assert_eq!(i.sca_mask, WriteMask(0));
    assert_eq!(i.sources[0].reg_type, RegisterType::Input);
    assert_eq!(i.sources[1].reg_type, RegisterType::Constant);
    assert_eq!(i.sources[2].reg_type, RegisterType::Input);
    assert_eq!(i.sources[1].swizzle, Swizzle::IDENTITY);
    assert_eq!(i.condition.relation, Relation::TR);
    assert!(!i.condition.enabled);
    assert_eq!(i.condition.swizzle, Swizzle::IDENTITY);
    assert!(!i.end);
    assert_eq!(
        text(&[0x401f9c6c, 0x01d0300d, 0x8106c0c3, 0x60403f80]),
        "000: DP4 o[HPOS].w, v[POS], c[259]\n"
    );
}

/// Dual issue with every D0 flag: MADC1_SAT R2.xyz (LT1.xxxx) and RSQC1_SAT R1.x, END.
#[test]
fn dual_issue_every_flag() {
    // src0 = constant (3) | swizzle xyzw 0x1b<<8 | negate 1<<16 = 0x11b03
    //        -> src0h = 0x11b03>>9 = 0x8d, src0l = 0x11b03 & 0x1ff = 0x103.
    // src1 = input (2) | swizzle zzzz (2,2,2,2 -> 0xaa)<<8 = 0xaa02.
    // src2 = temp (1) | index 3<<2 | swizzle yyyy 0x55<<8 | negate 1<<16 = 0x1550d
    //        -> src2h = 0x1550d>>11 = 0x2a, src2l = 0x1550d & 0x7ff = 0x50d.
    // D0 = addr_swz w 0x3 | cond LT 1<<10 | test 1<<13 | update0 1<<14 | vec temp 2<<15
    //    | src1 abs 1<<22 | src2 abs 1<<23 | A1 1<<24 | CC1 1<<25 | sat 1<<26
    //    | index_input 1<<27 | update1 1<<29 = 0x2fc16403 (cond swizzle 0 = xxxx).
    // D1 = src0h 0x8d | input 2<<8 | const 300<<12 | MAD 4<<22 | RSQ 4<<27 = 0x2112c28d.
    // D2 = src0l 0x103<<23 | src1 0xaa02<<6 | src2h 0x2a = 0x81aa80aa.
    // D3 = END 1 | index_const 1<<1 | no output 0x1f<<2 | scalar temp 1<<7
    //    | vec mask xyz (x=8,y=4,z=2 -> 0xe)<<13 | sca mask x 8<<17 | src2l 0x50d<<21 = 0xa1b1c0ff.
    let w = [0x2fc16403, 0x2112c28d, 0x81aa80aa, 0xa1b1c0ff];
    let i = one(w);
    assert_eq!(i.vector, VectorOpcode::Mad);
    assert_eq!(i.scalar, ScalarOpcode::Rsq);
    assert_eq!(i.address.component, Component::W);
    assert_eq!(i.address.register, 1);
    assert_eq!(i.condition.relation, Relation::LT);
    assert!(i.condition.enabled);
    assert_eq!(i.condition.swizzle, swz("xxxx"));
    assert!(i.cc_update.enable_0 && i.cc_update.enable_1);
    assert_eq!(i.cc_register, CcRegister::CC1);
    assert_eq!(i.vec_dst_temp, Some(2));
    assert_eq!(i.sca_dst_temp, Some(1));
    assert_eq!(i.output, None);
    assert!(!i.vec_result);
    assert!(i.saturate && i.index_input && i.index_const && i.end);
    assert_eq!(i.const_index, 300);
    assert_eq!(i.input.0, 2);
    assert_eq!(i.vec_mask, WriteMask(0b0111));
    assert_eq!(i.sca_mask, WriteMask(0b0001));
    let [s0, s1, s2] = i.sources;
    assert_eq!(
        (s0.reg_type, s0.negate, s0.abs),
        (RegisterType::Constant, true, false)
    );
    assert_eq!(
        (s1.reg_type, s1.swizzle, s1.abs),
        (RegisterType::Input, swz("zzzz"), true)
    );
    assert_eq!(
        (s2.reg_type, s2.temp_index, s2.swizzle, s2.negate, s2.abs),
        (RegisterType::Temp, 3, swz("yyyy"), true, true)
    );
    assert_eq!(
        text(&w),
        "000: MADC1_SAT R2.xyz (LT1.xxxx), -c[A1.w+300], |v[A1.w+2].z|, -|R3.y|; \
         RSQC1_SAT R1.x (LT1.xxxx), -|R3.y|; END\n"
    );
}

/// BRI (RPCS3 0x09; Mesa "BRA") to slot 530 on NE.xxxx, exercising all three iaddr parts.
#[test]
fn bri_target_from_three_fields() {
    // target 530 = 0b10_0001_0010: iaddrh2 (bit 9) = 1, iaddrh (bits 3-8) = 2, iaddrl (0-2) = 2.
    // D0 = cond swizzle xxxx 0 | NE 5<<10 | no vec temp 0x3f<<15 | iaddrh2 1<<23 = 0x009f9400.
    // D1 = src0h 0x0d (src0 0x1b02: input xyzw) | BRI 9<<27 = 0x4800000d.
    // D2 = src0l 0x102<<23 | src1 0x1b02<<6 | iaddrh 2 = 0x8106c082.
    // D3 = iaddrl 2<<29 | src2 type input 2<<21 | no output 0x1f<<2 | no sca temp 0x3f<<7
    //    = 0x40401ffc.
    let w = [0x009f9400, 0x4800000d, 0x8106c082, 0x40401ffc];
    let i = one(w);
    assert_eq!(i.scalar, ScalarOpcode::Bri);
    assert_eq!(i.scalar.mesa_name(), Some("BRA"));
    assert_eq!(i.branch_target(), Some(530));
    assert_eq!(i.condition.relation, Relation::NE);
    assert_eq!(i.condition.swizzle, swz("xxxx"));
    assert!(!i.condition.enabled);
    assert!(i.sources[2].abs, "iaddrh2 aliases src2 abs");
    assert_eq!(text(&w), "000: BRI 530 (NE.xxxx)\n");
}

/// BRB to slot 40 when boolean 13 is true.
#[test]
fn brb_boolean_index_and_flag() {
    // target 40 = 0b101_000: iaddrh2 0, iaddrh 5, iaddrl 0.
    // D0 = swizzle xyzw 0x1b<<2 = 0x6c | TR 7<<10 | no vec temp 0x3f<<15 = 0x001f9c6c.
    // D1 = src0h 0x0d | BRB 0x11<<27 = 0x8800000d.
    // D2 = 0x8106c080 | iaddrh 5 = 0x8106c085.
    // D3 = branch_index 13<<23 | brb_cond_true 1<<28 | src2 type temp 1<<21 | 0x7c | 0x1f80
    //    = 0x16a01ffc.
    let w = [0x001f9c6c, 0x8800000d, 0x8106c085, 0x16a01ffc];
    let i = one(w);
    assert_eq!(i.scalar, ScalarOpcode::Brb);
    assert_eq!(i.scalar.mesa_name(), None);
    assert_eq!(i.branch_target(), Some(40));
    let b = i.boolean_branch().expect("BRB has a boolean");
    assert_eq!((b.index, b.if_true), (13, true));
    assert_eq!(text(&w), "000: BRB 40, b13\n");
}

/// TXL R4, R0, R3 on vertex texture unit 3.
#[test]
fn txl_texture_unit() {
    // src0 = temp 1 | xyzw 0x1b<<8 = 0x1b01 -> src0h 0x0d, src0l 0x101.
    // src1 = temp 1 | index 3<<2 | xyzw 0x1b<<8 = 0x1b0d: in D2 at bit 6 -> bits 6-7 type,
    //        bits 8-13 index (tex_num = D2 bits 8-9 = 3).
    // D0 = 0x6c | TR 0x1c00 | vec temp 4<<15 = 0x00021c6c.
    // D1 = src0h 0x0d | TXL 0x19<<22 = 0x0640000d.
    // D2 = 0x101<<23 | 0x1b0d<<6 | src2h 3 = 0x8086c343.
    // D3 = src2l 0x302<<21 | vec mask 0xf<<13 | 0x1f80 | 0x7c = 0x6041fffc.
    let w = [0x00021c6c, 0x0640000d, 0x8086c343, 0x6041fffc];
    let i = one(w);
    assert_eq!(i.vector, VectorOpcode::Txl);
    assert_eq!(i.vector.mesa_name(), "TXWHAT");
    assert_eq!(i.texture_unit(), Some(3));
    assert_eq!(i.sources[1].temp_index, 3);
    assert_eq!(i.vec_dst_temp, Some(4));
    assert_eq!(text(&w), "000: TXL R4, R0, R3, tex3\n");
}

/// MOV o[TEX2], c[A0.y+12] (relative constant).
#[test]
fn relative_constant() {
    // D0 = addr_swz y 1 | 0x6c | TR 0x1c00 | 0x3f<<15 | vec_result 1<<30 = 0x401f9c6d.
    // D1 = src0h 0x0d (src0 0x1b03: constant xyzw) | const 12<<12 | MOV 1<<22 = 0x0040c00d.
    // D2 = src0l 0x103<<23 | src1 0x1b02<<6 | src2h 3 = 0x8186c083.
    // D3 = index_const 1<<1 | output TEX2 = 9<<2 | 0x1f80 | 0xf<<13 | 0x302<<21 = 0x6041ffa6.
    let w = [0x401f9c6d, 0x0040c00d, 0x8186c083, 0x6041ffa6];
    let i = one(w);
    assert_eq!(i.output, Some(OutputRegister(9)));
    assert_eq!(i.output.and_then(|o| o.name()), Some("TEX2"));
    assert!(i.index_const);
    assert_eq!(i.const_index, 12);
    assert_eq!(i.address.component, Component::Y);
    assert_eq!(text(&w), "000: MOV o[TEX2], c[A0.y+12]\n");
}

#[test]
fn output_names_follow_b8_table() {
    let names: Vec<Option<&str>> = (0..17).map(|n| OutputRegister(n).name()).collect();
    assert_eq!(
        names,
        [
            Some("HPOS"),
            Some("COL0"),
            Some("COL1"),
            Some("BFC0"),
            Some("BFC1"),
            Some("FOGC"),
            Some("PSZ"),
            Some("TEX0"),
            Some("TEX1"),
            Some("TEX2"),
            Some("TEX3"),
            Some("TEX4"),
            Some("TEX5"),
            Some("TEX6"),
            Some("TEX7"),
            Some("TEX8"),
            None
        ]
    );
}

#[test]
fn opcode_tables() {
    assert_eq!(VectorOpcode::ALL.len(), 26);
    for (code, op) in VectorOpcode::ALL.iter().enumerate() {
        assert_eq!(op.code() as usize, code);
        assert_eq!(VectorOpcode::from_code(op.code()), Some(*op));
    }
    assert_eq!(VectorOpcode::from_code(0x0d).map(|o| o.name()), Some("ARL"));
    assert_eq!(VectorOpcode::from_code(0x16).map(|o| o.name()), Some("SSG"));
    assert_eq!(VectorOpcode::from_code(0x17).map(|o| o.name()), Some("ARR"));
    assert_eq!(VectorOpcode::from_code(0x18).map(|o| o.name()), Some("ARA"));
    assert_eq!(
        VectorOpcode::from_code(0x17).and_then(|o| o.rpcs3_name()),
        None
    );
    assert_eq!(VectorOpcode::from_code(0x19).map(|o| o.name()), Some("TXL"));
    assert_eq!(VectorOpcode::from_code(0x1a), None);
    let rpcs3: Vec<&str> = ScalarOpcode::ALL.iter().map(|o| o.name()).collect();
    assert_eq!(
        rpcs3,
        [
            "NOP", "MOV", "RCP", "RCC", "RSQ", "EXP", "LOG", "LIT", "BRA", "BRI", "CAL", "CLI",
            "RET", "LG2", "EX2", "SIN", "COS", "BRB", "CLB", "PSH", "POP"
        ]
    );
    assert_eq!(
        ScalarOpcode::from_code(0x0b).and_then(|o| o.mesa_name()),
        Some("CAL")
    );
    assert_eq!(
        ScalarOpcode::from_code(0x13).and_then(|o| o.mesa_name()),
        Some("PUSHA")
    );
    assert_eq!(ScalarOpcode::from_code(0x15), None);
}

// ---- refusals -------------------------------------------------------------------------------

const CUBE0: [u32; 4] = [0x401f9c6c, 0x0040010d, 0x8106c083, 0x6041ff84];

fn refuse(words: &[u32]) -> VertexDecodeError {
    match vertex::decode_words(words) {
        Ok(p) => panic!("{words:08x?} decoded: {}", vertex::disassemble(&p)),
        Err(e) => e,
    }
}

#[test]
fn refuses_source_type_zero() {
    // D2 bits 6-7 are src1's type: 0x8106c083 & !0xc0 = 0x8106c003.
    let mut w = CUBE0.to_vec();
    w.extend([CUBE0[0], CUBE0[1], 0x8106c003, CUBE0[3]]);
    let e = refuse(&w);
    assert_eq!(
        e,
        VertexDecodeError::InvalidSourceType {
            slot: 1,
            operand: 1
        }
    );
    assert!(e.to_string().contains("slot 1 (byte offset 16)"), "{e}");
    assert!(e.to_string().contains("src1.reg_type"), "{e}");
    // src0 type: D2 bits 23-24 are src0 bits 0-1: 0x8106c083 & !0x01800000 = 0x8006c083.
    let e = refuse(&[CUBE0[0], CUBE0[1], 0x8006c083, CUBE0[3]]);
    assert_eq!(
        e,
        VertexDecodeError::InvalidSourceType {
            slot: 0,
            operand: 0
        }
    );
    // src2 type: D3 bits 21-22: 0x6041ff84 & !0x00600000 = 0x6001ff84.
    let e = refuse(&[CUBE0[0], CUBE0[1], CUBE0[2], 0x6001ff84]);
    assert_eq!(
        e,
        VertexDecodeError::InvalidSourceType {
            slot: 0,
            operand: 2
        }
    );
}

#[test]
fn refuses_undefined_opcodes() {
    // vector 0x1a: D1 = (0x0040010d & !(0x1f<<22)) | 0x1a<<22 = 0x0680010d.
    let e = refuse(&[CUBE0[0], 0x0680010d, CUBE0[2], CUBE0[3]]);
    assert_eq!(
        e,
        VertexDecodeError::UnsupportedVectorOpcode {
            slot: 0,
            code: 0x1a
        }
    );
    assert!(e.to_string().contains("vec_opcode"), "{e}");
    // scalar 0x15: D1 = 0x0040010d | 0x15<<27 = 0xa840010d.
    let e = refuse(&[CUBE0[0], 0xa840010d, CUBE0[2], CUBE0[3]]);
    assert_eq!(
        e,
        VertexDecodeError::UnsupportedScalarOpcode {
            slot: 0,
            code: 0x15
        }
    );
}

#[test]
fn refuses_unknown_d0_bits() {
    let e = refuse(&[CUBE0[0] | 1 << 28, CUBE0[1], CUBE0[2], CUBE0[3]]);
    assert_eq!(
        e,
        VertexDecodeError::UnsupportedBits {
            slot: 0,
            mask: 0x1000_0000
        }
    );
    let e = refuse(&[CUBE0[0] | 1 << 31, CUBE0[1], CUBE0[2], CUBE0[3]]);
    assert_eq!(
        e,
        VertexDecodeError::UnsupportedBits {
            slot: 0,
            mask: 0x8000_0000
        }
    );
}

#[test]
fn refuses_branch_beyond_memory() {
    // BRI to 544 = 0b10_0010_0000: iaddrh2 1 (D0 bit 23), iaddrh 4 (D2 bits 0-5), iaddrl 0.
    let e = refuse(&[
        CUBE0[0], CUBE0[1], CUBE0[2], CUBE0[3], // slot 0
        0x009f9400, 0x4800000d, 0x8106c084, 0x00401ffc, // slot 1
    ]);
    assert_eq!(
        e,
        VertexDecodeError::BranchOutOfRange {
            slot: 1,
            target: 544,
            limit: 544
        }
    );
    assert!(e.to_string().contains("branch target"), "{e}");
}

#[test]
fn refuses_bad_lengths() {
    let bytes: Vec<u8> = CUBE0
        .iter()
        .flat_map(|w| w.to_be_bytes())
        .chain([0, 1, 2, 3])
        .collect();
    let e = vertex::decode_bytes(&bytes).unwrap_err();
    assert_eq!(
        e,
        VertexDecodeError::TrailingBytes {
            offset: 16,
            len: 20
        }
    );
    assert!(e.to_string().contains("byte offset 16"), "{e}");
    assert_eq!(
        refuse(&[1, 2, 3, 4, 5]),
        VertexDecodeError::IncompleteSlot { slot: 1, len: 5 }
    );
    assert_eq!(refuse(&[]), VertexDecodeError::Empty);
    assert_eq!(
        vertex::decode_bytes(&[]).unwrap_err(),
        VertexDecodeError::Empty
    );
}

#[test]
fn bytes_are_big_endian() {
    let bytes: Vec<u8> = CUBE0.iter().flat_map(|w| w.to_be_bytes()).collect();
    assert_eq!(bytes[..4], [0x40, 0x1f, 0x9c, 0x6c]);
    let p = vertex::decode_bytes(&bytes).unwrap();
    assert_eq!(p.instructions[0].input.name(), "WEIGHT");
    assert_eq!(
        p.instructions[0].output.and_then(|o| o.name()),
        Some("COL0")
    );
}

#[test]
fn destinations_name_what_is_written() {
    use rsxtrace_program::vertex::VertexInstruction;
    let line = |i: VertexInstruction| {
        vertex::disassemble(&vertex::VertexProgram {
            start_slot: 0,
            instructions: vec![i],
        })
    };
    let mut i = VertexInstruction::idle(0);
    i.vector = VectorOpcode::Mov;
    i.vec_mask = WriteMask::XYZW;
    // No temp, not the output writer: the CC register (RPCS3 `GetDST`, the Far Cry 2 case).
    assert_eq!(line(i), "000: MOV CC0, v[POS]\n");
    // The output writer with no output register writes nothing.
    i.vec_result = true;
    assert_eq!(line(i), "000: MOV NONE, v[POS]\n");
    i.output = Some(OutputRegister(0));
    assert_eq!(line(i), "000: MOV o[HPOS], v[POS]\n");
    // ARL writes the address register its destination temp field names (`a` + `d0.dst_tmp`),
    // whatever register relative reads select.
    let mut arl = VertexInstruction::idle(0);
    arl.vector = VectorOpcode::Arl;
    arl.vec_mask = WriteMask(1);
    arl.vec_dst_temp = Some(1);
    arl.address.register = 0;
    assert_eq!(line(arl), "000: ARL A1.x, v[POS]\n");
    // A scalar MOV alone shows the idle vector unit: it is not the vector MOV.
    let mut mov = VertexInstruction::idle(0);
    mov.scalar = ScalarOpcode::Mov;
    mov.sca_mask = WriteMask(1);
    mov.sca_dst_temp = Some(2);
    assert_eq!(line(mov), "000: NOP; MOV R2.x, v[POS]\n");
}
