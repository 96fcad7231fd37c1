//! Fragment-program encoder: [`FragmentProgram`] back to words and guest bytes. The inverse
//! of the decoder (field layout rsx-microcode.md B.1). Field values wider than their bit
//! field are truncated to it.

use super::decode::{word_to_guest, SLOT_BYTES};
use super::ir::{FlowKind, FragmentInstruction, FragmentProgram, Operands, Source, SourceKind};

/// Encode to guest bytes (each word big-endian with its halves swapped). Every instruction is
/// written at its `slot` and its constant at `slot + 1`; slots nothing covers are zero.
pub fn encode(program: &FragmentProgram) -> Vec<u8> {
    let words = encode_words(program);
    let mut out = Vec::with_capacity(words.len() * 4);
    for w in words {
        out.extend_from_slice(&word_to_guest(w));
    }
    debug_assert_eq!(out.len() % SLOT_BYTES, 0);
    out
}

/// Encode to words in nouveau/host order (no half-word swap).
pub fn encode_words(program: &FragmentProgram) -> Vec<u32> {
    let slots = program
        .instructions
        .iter()
        .map(|i| i.slot as usize + 1 + usize::from(i.constant.is_some()))
        .max()
        .unwrap_or(0);
    let mut words = vec![0u32; slots * 4];
    for insn in &program.instructions {
        let at = insn.slot as usize * 4;
        words[at..at + 4].copy_from_slice(&encode_instruction(insn));
        if let Some(c) = insn.constant {
            words[at + 4..at + 8].copy_from_slice(&c.0);
        }
    }
    words
}

fn source_bits(s: &Source) -> u32 {
    let kind = match s.kind {
        SourceKind::Temp => 0,
        SourceKind::Input => 1,
        SourceKind::Constant => 2,
    };
    kind | (u32::from(s.index & 0x3F) << 2)
        | (u32::from(s.fp16) << 8)
        | (s.swizzle.bits() << 9)
        | (u32::from(s.negate) << 17)
}

/// The four words of one instruction (nouveau order).
pub fn encode_instruction(insn: &FragmentInstruction) -> [u32; 4] {
    let op = insn.opcode.value();
    let d = &insn.dest;
    let w0 = u32::from(insn.end)
        | (u32::from(d.index & 0x3F) << 1)
        | (u32::from(d.fp16) << 7)
        | (u32::from(d.set_cond) << 8)
        | (u32::from(d.mask.0 & 0xF) << 9)
        | (u32::from(insn.input.0 & 0xF) << 13)
        | (u32::from(insn.texture_unit & 0xF) << 17)
        | (u32::from(insn.exp_tex) << 21)
        | (d.precision.bits() << 22)
        | (u32::from(op & 0x3F) << 24)
        | (u32::from(d.no_dest) << 30)
        | (u32::from(d.saturate) << 31);
    let c = &insn.condition;
    let cond = (c.relation.bits() << 18)
        | (c.swizzle.bits() << 21)
        | (u32::from(d.cc_write & 1) << 30)
        | (u32::from(c.cc & 1) << 31);
    let branch = u32::from(op >> 6) << 31;
    match &insn.operands {
        Operands::Alu(a) => {
            let [s0, s1, s2] = &a.sources;
            let w1 = source_bits(s0) | cond | (u32::from(s0.abs) << 29);
            let w2 = source_bits(s1)
                | (u32::from(s1.abs) << 18)
                | (s0.modifier.bits() << 19)
                | (s1.modifier.bits() << 22)
                | (s2.modifier.bits() << 25)
                | (a.scale.bits() << 28)
                | branch;
            let w3 = source_bits(s2)
                | (u32::from(s2.abs) << 18)
                | (u32::from(a.input_displacement & 0x7FF) << 19)
                | (u32::from(a.indexed_input) << 30)
                | (u32::from(a.perspective) << 31);
            [w0, w1, w2, w3]
        }
        Operands::Flow(f) => {
            const OFFSET: u32 = 0x7FFF_FFFF;
            let dwords = |slot: u32| slot.wrapping_mul(4) & OFFSET;
            let [r0, r1, r2] = f.reserved;
            let (w2, w3) = match f.kind {
                FlowKind::Brk | FlowKind::Ret => (r1 & OFFSET, r2),
                FlowKind::Cal { target } => (dwords(target), r2),
                FlowKind::Ife {
                    else_slot,
                    end_slot,
                } => (dwords(else_slot), dwords(end_slot) | (r2 & !OFFSET)),
                FlowKind::Loop(l) | FlowKind::Rep(l) => (
                    (u32::from(l.count) << 2)
                        | (u32::from(l.init) << 10)
                        | (u32::from(l.increment as u8) << 19)
                        | (r1 & (0b11 | (1 << 18) | (0xF << 27))),
                    dwords(l.end_slot) | (r2 & !OFFSET),
                ),
            };
            let w1 = cond | (r0 & (0x3_FFFF | (1 << 29)));
            [w0, w1, w2 | branch, w3]
        }
    }
}
