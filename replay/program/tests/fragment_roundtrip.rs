//! `decode(encode(p)) == p` over generated programs, and the JSON form.

use rsxtrace_program::fragment::{
    decode, decode_words, encode, encode_words, to_json, AluOperands, Condition, Destination,
    FlowKind, FlowOperands, FpOpcode, FragmentInstruction, FragmentProgram, InlineConstant,
    InputAttribute, LoopFields, Operands, OutputScale, Precision, PrecisionModifier, Relation,
    Source, SourceKind, Swizzle, WriteMask,
};
use rsxtrace_testkit::rng::XorShift64Star;

/// xorshift64*'s high halves: deterministic.
pub(crate) struct Rng(pub(crate) XorShift64Star);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0.next_u32()
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    fn bit(&mut self) -> bool {
        self.next() & 1 != 0
    }
}

fn swizzle(r: &mut Rng) -> Swizzle {
    Swizzle::from_bits(r.below(256))
}

fn source(r: &mut Rng, allow_constant: bool) -> Source {
    let kind = match r.below(if allow_constant { 3 } else { 2 }) {
        0 => SourceKind::Temp,
        1 => SourceKind::Input,
        _ => SourceKind::Constant,
    };
    Source {
        kind,
        index: r.below(64) as u8,
        fp16: r.bit(),
        swizzle: swizzle(r),
        negate: r.bit(),
        abs: r.bit(),
        modifier: PrecisionModifier::from_bits(r.below(8)),
    }
}

fn common(r: &mut Rng, slot: u32, opcode: FpOpcode, operands: Operands) -> FragmentInstruction {
    FragmentInstruction {
        slot,
        opcode,
        end: false,
        dest: Destination {
            index: r.below(64) as u8,
            fp16: r.bit(),
            mask: WriteMask(r.below(16) as u8),
            precision: Precision::from_bits(r.below(4)),
            saturate: r.bit(),
            no_dest: r.bit(),
            set_cond: r.bit(),
            cc_write: r.below(2) as u8,
        },
        input: InputAttribute(r.below(16) as u8),
        texture_unit: r.below(16) as u8,
        exp_tex: r.bit(),
        condition: Condition {
            relation: Relation::from_bits(r.below(8)),
            swizzle: swizzle(r),
            cc: r.below(2) as u8,
        },
        operands,
        constant: None,
    }
}

/// A random valid program: ALU instructions with random fields (constants where a source
/// is constant-typed), with structured IFE/LOOP/REP regions whose targets are real
/// instruction slots, ending with an END instruction.
pub(crate) fn generate(r: &mut Rng) -> FragmentProgram {
    let alu_ops: Vec<FpOpcode> = FpOpcode::ALL
        .iter()
        .copied()
        .filter(|o| !o.is_flow())
        .collect();
    let count = 1 + r.below(24) as usize;
    let mut insns: Vec<FragmentInstruction> = Vec::new();
    let mut slot = 0u32;
    for _ in 0..count {
        let op = alu_ops[r.below(alu_ops.len() as u32) as usize];
        let sources = [source(r, true), source(r, true), source(r, true)];
        let operands = Operands::Alu(AluOperands {
            sources,
            scale: OutputScale::from_bits(r.below(8)),
            perspective: r.bit(),
            indexed_input: r.bit(),
            input_displacement: r.below(0x800) as u16,
        });
        let mut i = common(r, slot, op, operands);
        if sources.iter().any(|s| s.kind == SourceKind::Constant) {
            i.constant = Some(InlineConstant([r.next(), r.next(), r.next(), r.next()]));
        }
        slot += 1 + u32::from(i.constant.is_some());
        insns.push(i);
    }
    // Wrap a random range [a, b) of instructions in a flow construct by inserting the flow
    // instruction before `a`: shift the slots that follow by one.
    if insns.len() >= 2 && r.bit() {
        let a = r.below(insns.len() as u32 - 1) as usize;
        let b = a + 1 + r.below((insns.len() - a - 1) as u32) as usize;
        let at = insns[a].slot;
        for i in &mut insns[a..] {
            i.slot += 1;
        }
        let end_slot = insns[b].slot;
        let else_slot = insns[a + r.below((b - a) as u32 + 1) as usize]
            .slot
            .min(end_slot);
        let loop_fields = LoopFields {
            count: r.below(256) as u8,
            init: r.below(256) as u8,
            increment: r.below(256) as u8 as i8,
            end_slot,
        };
        let kind = match r.below(5) {
            0 => FlowKind::Ife {
                else_slot,
                end_slot,
            },
            1 => FlowKind::Loop(loop_fields),
            2 => FlowKind::Rep(loop_fields),
            3 => FlowKind::Brk,
            _ => FlowKind::Ret,
        };
        let opcode = match kind {
            FlowKind::Ife { .. } => FpOpcode::Ife,
            FlowKind::Loop(_) => FpOpcode::Loop,
            FlowKind::Rep(_) => FpOpcode::Rep,
            FlowKind::Brk => FpOpcode::Brk,
            _ => FpOpcode::Ret,
        };
        let reserved = match kind {
            // Reserved bits where the kind leaves some unused.
            FlowKind::Brk | FlowKind::Ret => {
                [r.next() & 0x2003_FFFF, r.next() & 0x7FFF_FFFF, r.next()]
            }
            FlowKind::Loop(_) | FlowKind::Rep(_) => [
                0,
                r.next() & (0b11 | (1 << 18) | (0xF << 27)),
                r.next() & 0x8000_0000,
            ],
            _ => [r.next() & 0x2003_FFFF, 0, r.next() & 0x8000_0000],
        };
        let flow = common(
            r,
            at,
            opcode,
            Operands::Flow(FlowOperands { kind, reserved }),
        );
        insns.insert(a, flow);
    }
    if let Some(last) = insns.last_mut() {
        last.end = true;
    }
    FragmentProgram::new(insns)
}

#[test]
fn decode_of_encode_is_identity_on_generated_programs() {
    let mut r = Rng(XorShift64Star(0x9E37_79B9_7F4A_7C15));
    let mut flows = 0;
    for n in 0..3000 {
        let p = generate(&mut r);
        flows += p.instructions.iter().filter(|i| i.opcode.is_flow()).count();
        let bytes = encode(&p);
        assert_eq!(bytes.len(), p.slot_count as usize * 16, "program {n}");
        let back = decode(&bytes).unwrap_or_else(|e| panic!("program {n}: {e}\n{p:#?}"));
        assert_eq!(back, p, "program {n}");
        assert_eq!(
            decode_words(&encode_words(&p)).unwrap(),
            p,
            "program {n} (words)"
        );
        assert_eq!(encode(&back), bytes);
    }
    assert!(
        flows > 500,
        "generator produced only {flows} flow instructions"
    );
}

#[test]
fn json_form() {
    // MOV R0, {1.0, 0, 0, NaN} then its constant slot, then MOV R0, f[COL0] END.
    let p = decode_words(&[
        0x01003E00, 0x1C9DC802, 0, 0, 0x3F800000, 0, 0, 0x7FC00000, 0x01003E01, 0x1C9DC801, 0, 0,
    ])
    .unwrap();
    let j = to_json(&p);
    assert_eq!(j["stage"], "fragment");
    assert_eq!(j["slot_count"], 3);
    let insns = j["instructions"].as_array().unwrap();
    assert_eq!(
        insns.len(),
        2,
        "one object per instruction, none per constant slot"
    );
    assert_eq!(insns[0]["slot"], 0);
    assert_eq!(insns[0]["opcode"], "MOV");
    assert_eq!(insns[0]["dest"]["mask"], "xyzw");
    assert_eq!(insns[0]["operands"]["kind"], "alu");
    assert_eq!(insns[0]["operands"]["sources"][0]["type"], "constant");
    assert_eq!(insns[0]["constant"]["bits"][0], "0x3f800000");
    assert_eq!(insns[0]["constant"]["values"][0], 1.0);
    // NaN has no JSON number: null, with the bits kept.
    assert!(insns[0]["constant"]["values"][3].is_null());
    assert_eq!(insns[0]["constant"]["bits"][3], "0x7fc00000");
    assert_eq!(insns[1]["slot"], 2);
    assert_eq!(insns[1]["input"], "COL0");
    assert_eq!(insns[1]["end"], true);
    assert!(insns[1]["constant"].is_null());
}

/// The disassembly with slot labels dropped and flow targets given as instruction numbers:
/// what two programs that differ only in where their (unread) constant slots fall share.
fn normalized(text: &str) -> Vec<String> {
    let lines: Vec<(&str, &str)> = text
        .lines()
        .map(|l| {
            l.split_once(':')
                .map(|(s, r)| (s.trim(), r.trim()))
                .unwrap()
        })
        .collect();
    let index: std::collections::HashMap<&str, usize> = lines
        .iter()
        .enumerate()
        .map(|(i, (s, _))| (*s, i))
        .collect();
    lines
        .iter()
        .map(|(_, body)| {
            body.split(' ')
                .map(|w| {
                    match w
                        .strip_prefix('@')
                        .and_then(|t| index.get(t.trim_end_matches(';')))
                    {
                        Some(i) => format!("@#{i}{}", if w.ends_with(';') { ";" } else { "" }),
                        None => w.to_string(),
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Each instruction with the fields no unit reads set to what the assembler gives them,
/// and its flow targets as instruction numbers: two programs that do the same have the same
/// meaning.
fn meaning(p: &FragmentProgram) -> Vec<FragmentInstruction> {
    let index = |slot: u32| {
        p.instructions
            .iter()
            .position(|i| i.slot == slot)
            .unwrap_or(usize::MAX) as u32
    };
    p.instructions
        .iter()
        .map(|i| {
            let mut c = *i;
            c.slot = 0;
            let unread_condition = !c.condition.is_conditional();
            match &mut c.operands {
                Operands::Flow(f) => {
                    c.dest = Destination::temp(0);
                    c.input = InputAttribute(0);
                    (c.texture_unit, c.exp_tex) = (0, false);
                    f.reserved[0] = (f.reserved[0] & !(0xFF << 9)) | (0xE4 << 9);
                    f.kind = match f.kind {
                        FlowKind::Cal { target } => FlowKind::Cal {
                            target: index(target),
                        },
                        FlowKind::Ife {
                            else_slot,
                            end_slot,
                        } => FlowKind::Ife {
                            else_slot: index(else_slot),
                            end_slot: index(end_slot),
                        },
                        FlowKind::Loop(l) => FlowKind::Loop(LoopFields {
                            end_slot: index(l.end_slot),
                            ..l
                        }),
                        FlowKind::Rep(l) => FlowKind::Rep(LoopFields {
                            end_slot: index(l.end_slot),
                            ..l
                        }),
                        k => k,
                    };
                }
                Operands::Alu(a) => {
                    if unread_condition {
                        c.condition = Condition {
                            relation: Relation::Tr,
                            swizzle: Swizzle::IDENTITY,
                            cc: 0,
                        };
                    }
                    let bare = matches!(
                        c.opcode,
                        FpOpcode::Nop | FpOpcode::Kil | FpOpcode::Fenct | FpOpcode::Fencb
                    );
                    let read = if bare { 0 } else { c.opcode.source_count() };
                    for s in &mut a.sources[read..] {
                        *s = Source::temp(0);
                    }
                    // The register fields of an input or constant source are not read.
                    for s in &mut a.sources[..read] {
                        if s.kind != SourceKind::Temp {
                            (s.index, s.fp16) = (0, false);
                        }
                    }
                    if bare {
                        c.dest = Destination::temp(0);
                        a.scale = OutputScale::None;
                        a.perspective = false;
                    }
                    if c.dest.no_dest {
                        c.dest.index = 0;
                    }
                    if !c.dest.set_cond {
                        c.dest.cc_write = 0;
                    }
                    let reads = |k: SourceKind| a.sources[..read].iter().any(|s| s.kind == k);
                    if !reads(SourceKind::Input) {
                        c.input = InputAttribute(0);
                        a.indexed_input = false;
                    }
                    if a.indexed_input {
                        c.input = InputAttribute(4);
                    } else {
                        a.input_displacement = 0;
                    }
                    if !reads(SourceKind::Constant) {
                        c.constant = None;
                    }
                    if !c.opcode.is_texture() {
                        (c.texture_unit, c.exp_tex) = (0, false);
                    }
                }
            }
            c
        })
        .collect()
}

#[test]
fn assemble_reads_back_what_disassemble_writes() {
    use rsxtrace_program::fragment::{assemble, disassemble};
    let mut r = Rng(XorShift64Star(0x0123_4567_89AB_CDEF));
    for n in 0..3000 {
        let p = generate(&mut r);
        let text = disassemble(&p);
        let q = assemble(&text).unwrap_or_else(|e| panic!("program {n}: {e}\n{text}"));
        // The assembled program encodes and decodes, says what the original says, and has
        // every field the hardware reads from the original.
        let back = decode(&encode(&q)).unwrap_or_else(|e| panic!("program {n}: {e}\n{text}"));
        assert_eq!(
            normalized(&disassemble(&back)),
            normalized(&text),
            "program {n}"
        );
        for (k, (a, b)) in meaning(&back).iter().zip(meaning(&p)).enumerate() {
            assert_eq!(*a, b, "program {n}, instruction {k}\n{text}");
        }
        assert_eq!(back.instructions.len(), p.instructions.len(), "program {n}");
    }
}

#[test]
fn assemble_labels_comments_and_refusals() {
    use rsxtrace_program::fragment::{assemble, disassemble};
    // Labels as the disassembly gives them; an instruction inserted between an IFE and its
    // targets: the targets follow their labels.
    let text = "; a comment\n\
                0: ADDRC RC, f[COL0].xxxx, -{0.5, 0.0, 0.0, 0.0}.xxxx;\n\
                2: IFE (GT.xxxx) else @4 end @5;\n\
                3: MOVR R0, {1.0, 0.0, 0.0, 1.0};\n\
                   MULR R0, R0, f[COL0];   # added\n\
                4: MOVR R0, f[TEX0];\n\
                5: MOVR H0.xy, R0;\n";
    let p = assemble(text).unwrap();
    let flow = p.instructions[1].flow().unwrap().kind;
    assert_eq!(
        flow,
        FlowKind::Ife {
            else_slot: 6,
            end_slot: 7
        }
    );
    assert!(p.instructions.last().unwrap().end, "END added to the last");
    assert_eq!(p.slot_count, 8);
    assert_eq!(
        disassemble(&p).lines().nth(3).unwrap(),
        "   5: MULR R0, R0, f[COL0];"
    );
    for (bad, says) in [
        ("MOVQ R0, R1;", "no such opcode"),
        ("MOVR R0, R1, R2;", "takes 1 source, not 2"),
        ("MOVR R0, f[COL0], f[TEX0];", "takes 1 source"),
        ("ADDR R0, f[COL0], f[TEX0];", "one input attribute"),
        ("MOVR R0.yx, R1;", "in order"),
        ("MOVR R0, R1; END\nMOVR R0, R1;", "END before the last"),
        ("IFE (GT.xxxx) else @4 end @5;\nMOVR R0, R1;", "@4 names no"),
        ("TEXR R0, f[TEX0];", "expected a texture unit"),
        // A loop whose end is behind it: the decoder would refuse the microcode.
        (
            "0: MOVR R0, R1;\n1: LOOP count=4 init=0 incr=1 end @0;\n2: MOVR R0, R1;",
            "line 2: the hardware would refuse it",
        ),
        ("MOVR R0, {1.0, 2.0};", "four values"),
        ("", "no instruction"),
    ] {
        let e = assemble(bad).unwrap_err().to_string();
        assert!(e.contains(says), "{bad:?}: {e}");
    }
    assert!(assemble("; comment\nMOVR R0, R1;\nMOVQ R0, R1;")
        .unwrap_err()
        .to_string()
        .starts_with("line 3: MOVQ"));
}
