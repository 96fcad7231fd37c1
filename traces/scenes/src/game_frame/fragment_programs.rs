//! Seeded fragment programs for the game frame, built as rsxtrace fragment IR and encoded with
//! rsxtrace's own encoder (never from corpus files).
//!
//! A program computes a colour in R0 from a base (a TEX or TXP of `f[TEX0]`, the colour
//! `f[COL0]`, or both), an optional detail texture of `f[TEX1]`, one or two arithmetic blocks
//! (a tint, a normalised N·L term, a SIN wave, a LG2/EX2 gamma, FRC/FLR, DIV), and optional
//! flow control the recompiler supports (an IFE on a condition set by ADDC, a REP loop), and
//! exports it either as R0 (SHADER_CONTROL 0x40, 32-bit) or through `MOV H0, R0` (fp16 export,
//! 0x40 clear; rsx-microcode.md B.6). Inline constants carry the material values; the tint's
//! slot is recorded so that the frame can patch it per draw, as games patch uniforms.
//!
//! Temporaries are R0 (the colour), R1 (the detail texel), R5 and R6: never R2, R3 or R4,
//! which are the other colour outputs of a 32-bit export and hold H4, H6 and H8 of an fp16
//! export (B.6), so that no stray temporary is read as a render-target output.

use super::rng::Rng;
use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_program::fragment::{
    self, Condition, FlowKind, FlowOperands, FpOpcode, FragmentInstruction, FragmentProgram,
    InlineConstant, InputAttribute, LoopFields, Operands, Relation, Source, SourceKind, Swizzle,
    WriteMask,
};
use rsxtrace_verify::probe::uniforms::ProgramKey;

/// Input attributes (rsx-microcode.md B.3): COL0 1, TEX0 4, TEX1 5.
const COL0: u8 = 1;
const TEX0: u8 = 4;
const TEX1: u8 = 5;
/// SHADER_CONTROL: 32-bit exports, and the temp count (R0..R6) in bits 24..31 (B.6).
const CONTROL_R: u32 = 0x40 | (7 << 24);
const CONTROL_H: u32 = 7 << 24;

/// A generated fragment program.
#[derive(Clone, Debug, PartialEq)]
pub struct FragmentProgramSpec {
    /// Guest-order microcode.
    pub ucode: Vec<u8>,
    /// SHADER_CONTROL.
    pub control: u32,
    /// Texture units sampled, ascending.
    pub units: Vec<u8>,
    /// Slot (from the first instruction) of the tint constant, when the program has one.
    pub tint_slot: Option<u32>,
}

/// A source operand.
#[derive(Clone, Copy)]
enum S {
    R(u8, &'static str),
    In(&'static str),
    C(&'static str),
    NegC(&'static str),
}

/// A destination.
#[derive(Clone, Copy)]
enum D {
    R(u8),
    H(u8),
    /// Only the condition register (no_dest with set_cond).
    Cc,
}

fn swizzle(s: &str) -> Swizzle {
    let mut out = [0u8; 4];
    for (slot, ch) in out.iter_mut().zip(s.chars().cycle()) {
        *slot = match ch {
            'y' => 1,
            'z' => 2,
            'w' => 3,
            _ => 0,
        };
    }
    Swizzle(out)
}

fn mask(s: &str) -> WriteMask {
    WriteMask(s.chars().fold(0, |m, ch| {
        m | match ch {
            'x' => 1,
            'y' => 2,
            'z' => 4,
            'w' => 8,
            _ => 0,
        }
    }))
}

/// Instructions laid out slot by slot (an inline constant takes the slot after its
/// instruction).
struct Writer {
    template: FragmentInstruction,
    insns: Vec<FragmentInstruction>,
    next_slot: u32,
}

impl Writer {
    fn new() -> Option<Writer> {
        let template = *fragment::decode(&FRAGMENT_MOV_COL0)
            .ok()?
            .instructions
            .first()?;
        Some(Writer {
            template,
            insns: Vec::new(),
            next_slot: 0,
        })
    }

    /// An ALU or texture instruction; returns the slot of its constant, if any.
    fn op(
        &mut self,
        opcode: FpOpcode,
        dst: D,
        m: &str,
        input: u8,
        srcs: &[S],
        constant: Option<[f32; 4]>,
    ) -> Option<u32> {
        self.op_unit(opcode, dst, m, input, 0, srcs, constant)
    }

    #[allow(clippy::too_many_arguments)]
    fn op_unit(
        &mut self,
        opcode: FpOpcode,
        dst: D,
        m: &str,
        input: u8,
        unit: u8,
        srcs: &[S],
        constant: Option<[f32; 4]>,
    ) -> Option<u32> {
        let mut insn = self.template;
        insn.slot = self.next_slot;
        insn.opcode = opcode;
        insn.end = false;
        insn.input = InputAttribute(input);
        insn.texture_unit = unit;
        insn.condition = Condition::ALWAYS;
        insn.dest.mask = mask(m);
        insn.dest.set_cond = false;
        insn.dest.no_dest = false;
        match dst {
            D::R(i) => {
                insn.dest.index = i;
                insn.dest.fp16 = false;
            }
            D::H(i) => {
                insn.dest.index = i;
                insn.dest.fp16 = true;
            }
            D::Cc => {
                insn.dest.index = 0;
                insn.dest.fp16 = false;
                insn.dest.no_dest = true;
                insn.dest.set_cond = true;
            }
        }
        let mut operands = match insn.operands {
            Operands::Alu(a) => a,
            Operands::Flow(_) => return None,
        };
        for (slot, s) in operands.sources.iter_mut().zip(srcs) {
            let (kind, index, sw, negate) = match *s {
                S::R(i, sw) => (SourceKind::Temp, i, sw, false),
                S::In(sw) => (SourceKind::Input, 0, sw, false),
                S::C(sw) => (SourceKind::Constant, 0, sw, false),
                S::NegC(sw) => (SourceKind::Constant, 0, sw, true),
            };
            *slot = Source {
                kind,
                index,
                swizzle: swizzle(sw),
                negate,
                ..Source::temp(0)
            };
        }
        insn.operands = Operands::Alu(operands);
        insn.constant = constant.map(|c| InlineConstant(c.map(f32::to_bits)));
        self.insns.push(insn);
        self.next_slot += 1;
        let constant_slot = constant.map(|_| self.next_slot);
        if constant.is_some() {
            self.next_slot += 1;
        }
        constant_slot
    }

    /// A flow instruction (targets fixed later with [`Writer::set_flow`]); returns its index.
    fn flow(&mut self, opcode: FpOpcode, kind: FlowKind, relation: Relation) -> usize {
        let mut insn = self.template;
        insn.slot = self.next_slot;
        insn.opcode = opcode;
        insn.end = false;
        insn.input = InputAttribute(0);
        insn.dest.mask = WriteMask(0);
        insn.condition = Condition {
            relation,
            swizzle: swizzle("xxxx"),
            cc: 0,
        };
        insn.operands = Operands::Flow(FlowOperands {
            kind,
            reserved: [0; 3],
        });
        insn.constant = None;
        self.insns.push(insn);
        self.next_slot += 1;
        self.insns.len() - 1
    }

    fn set_flow(&mut self, index: usize, kind: FlowKind) {
        if let Some(Operands::Flow(f)) = self.insns.get_mut(index).map(|i| &mut i.operands) {
            f.kind = kind;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if let Some(last) = self.insns.last_mut() {
            last.end = true;
        }
        fragment::encode(&FragmentProgram::new(self.insns))
    }
}

fn vec4(rng: &mut Rng, lo: f32, hi: f32) -> [f32; 4] {
    [
        rng.range(lo, hi),
        rng.range(lo, hi),
        rng.range(lo, hi),
        rng.range(lo, hi),
    ]
}

/// One program from the seed's choices.
fn one(rng: &mut Rng) -> Option<FragmentProgramSpec> {
    let mut w = Writer::new()?;
    let mut units = Vec::new();
    let mut tint_slot = None;
    let base_unit = if rng.chance(70) { 0 } else { 2 };
    let detail_unit = if rng.chance(70) { 1 } else { 3 };

    // Base colour in R0.
    match rng.below(4) {
        0 => {
            w.op_unit(
                FpOpcode::Tex,
                D::R(0),
                "xyzw",
                TEX0,
                base_unit,
                &[S::In("xyzw")],
                None,
            );
            units.push(base_unit);
        }
        1 => {
            w.op_unit(
                FpOpcode::Txp,
                D::R(0),
                "xyzw",
                TEX0,
                base_unit,
                &[S::In("xyzw")],
                None,
            );
            units.push(base_unit);
        }
        2 => {
            w.op(FpOpcode::Mov, D::R(0), "xyzw", COL0, &[S::In("xyzw")], None);
        }
        _ => {
            w.op_unit(
                FpOpcode::Tex,
                D::R(0),
                "xyzw",
                TEX0,
                base_unit,
                &[S::In("xyzw")],
                None,
            );
            w.op(
                FpOpcode::Mul,
                D::R(0),
                "xyzw",
                COL0,
                &[S::R(0, "xyzw"), S::In("xyzw")],
                None,
            );
            units.push(base_unit);
        }
    }
    // Detail texture.
    if rng.chance(50) {
        w.op_unit(
            FpOpcode::Tex,
            D::R(1),
            "xyzw",
            TEX1,
            detail_unit,
            &[S::In("xyzw")],
            None,
        );
        units.push(detail_unit);
        if rng.chance(50) {
            w.op(
                FpOpcode::Mul,
                D::R(0),
                "xyz",
                0,
                &[S::R(0, "xyzw"), S::R(1, "xyzw")],
                None,
            );
        } else {
            let c = vec4(rng, 0.1, 0.6);
            w.op(
                FpOpcode::Mad,
                D::R(0),
                "xyz",
                0,
                &[S::R(1, "xyzw"), S::C("xyzw"), S::R(0, "xyzw")],
                Some(c),
            );
        }
    }
    // One or two arithmetic blocks, in a seeded order.
    let blocks = 1 + rng.below(2);
    for _ in 0..blocks {
        match rng.below(6) {
            0 => {
                let c = vec4(rng, 0.5, 1.5);
                let slot = w.op(
                    FpOpcode::Mul,
                    D::R(0),
                    "xyzw",
                    0,
                    &[S::R(0, "xyzw"), S::C("xyzw")],
                    Some(c),
                );
                tint_slot = tint_slot.or(slot);
            }
            1 => {
                // N.L from the interpolated normal (TEX1), clamped at 0.
                let mut light = vec4(rng, -1.0, 1.0);
                light[3] = 0.0;
                w.op(FpOpcode::Nrm, D::R(5), "xyz", TEX1, &[S::In("xyzw")], None);
                w.op(
                    FpOpcode::Dp3,
                    D::R(5),
                    "x",
                    0,
                    &[S::R(5, "xyzw"), S::C("xyzw")],
                    Some(light),
                );
                w.op(
                    FpOpcode::Max,
                    D::R(5),
                    "x",
                    0,
                    &[S::R(5, "xxxx"), S::C("xxxx")],
                    Some([0.2, 0.0, 0.0, 0.0]),
                );
                w.op(
                    FpOpcode::Mul,
                    D::R(0),
                    "xyz",
                    0,
                    &[S::R(0, "xyzw"), S::R(5, "xxxx")],
                    None,
                );
            }
            2 => {
                let c = vec4(rng, 1.0, 8.0);
                w.op(
                    FpOpcode::Mul,
                    D::R(6),
                    "x",
                    TEX0,
                    &[S::In("xxxx"), S::C("xxxx")],
                    Some(c),
                );
                let op = rng.pick(&[FpOpcode::Sin, FpOpcode::Cos])?;
                w.op(op, D::R(6), "x", 0, &[S::R(6, "xxxx")], None);
                let amp = vec4(rng, 0.05, 0.2);
                w.op(
                    FpOpcode::Mad,
                    D::R(0),
                    "xyz",
                    0,
                    &[S::R(6, "xxxx"), S::C("xyzw"), S::R(0, "xyzw")],
                    Some(amp),
                );
            }
            3 => {
                // Gamma on the green channel's brightness: 2^(g * log2(y)) with y kept > 0.
                w.op(
                    FpOpcode::Max,
                    D::R(6),
                    "x",
                    0,
                    &[S::R(0, "yyyy"), S::C("xxxx")],
                    Some([0.01, 0.0, 0.0, 0.0]),
                );
                w.op(FpOpcode::Lg2, D::R(6), "x", 0, &[S::R(6, "xxxx")], None);
                let g = vec4(rng, 0.4, 2.2);
                w.op(
                    FpOpcode::Mul,
                    D::R(6),
                    "x",
                    0,
                    &[S::R(6, "xxxx"), S::C("xxxx")],
                    Some(g),
                );
                w.op(FpOpcode::Ex2, D::R(6), "x", 0, &[S::R(6, "xxxx")], None);
                w.op(
                    FpOpcode::Mul,
                    D::R(0),
                    "xyz",
                    0,
                    &[S::R(0, "xyzw"), S::R(6, "xxxx")],
                    None,
                );
            }
            4 => {
                let op = rng.pick(&[FpOpcode::Frc, FpOpcode::Flr])?;
                w.op(op, D::R(6), "xy", TEX0, &[S::In("xyxy")], None);
                w.op(
                    FpOpcode::Mad,
                    D::R(0),
                    "xy",
                    0,
                    &[S::R(6, "xyxy"), S::C("xxxx"), S::R(0, "xyzw")],
                    Some([0.125, 0.0, 0.0, 0.0]),
                );
            }
            _ => {
                let c = vec4(rng, 0.75, 2.0);
                w.op(
                    FpOpcode::Div,
                    D::R(0),
                    "xyz",
                    0,
                    &[S::R(0, "xyzw"), S::C("wwww")],
                    Some(c),
                );
            }
        }
    }
    // Flow control.
    match rng.below(5) {
        0 | 1 => {
            // ADDC RC.x, f[COL0].x, -{t}.x; IFE (GT.x) { MUL } else { ADD }.
            let t = rng.range(0.2, 0.8);
            w.op(
                FpOpcode::Add,
                D::Cc,
                "x",
                COL0,
                &[S::In("xxxx"), S::NegC("xxxx")],
                Some([t, 0.0, 0.0, 0.0]),
            );
            let ife = w.flow(
                FpOpcode::Ife,
                FlowKind::Ife {
                    else_slot: 0,
                    end_slot: 0,
                },
                Relation::Gt,
            );
            let a = vec4(rng, 0.6, 1.2);
            w.op(
                FpOpcode::Mul,
                D::R(0),
                "xyz",
                0,
                &[S::R(0, "xyzw"), S::C("xyzw")],
                Some(a),
            );
            let else_slot = w.next_slot;
            let b = vec4(rng, -0.2, 0.2);
            w.op(
                FpOpcode::Add,
                D::R(0),
                "xyz",
                0,
                &[S::R(0, "xyzw"), S::C("xyzw")],
                Some(b),
            );
            let end_slot = w.next_slot;
            w.set_flow(
                ife,
                FlowKind::Ife {
                    else_slot,
                    end_slot,
                },
            );
        }
        2 => {
            let count = 2 + rng.below(3) as u8;
            let fields = |end_slot| LoopFields {
                count,
                init: 0,
                increment: 1,
                end_slot,
            };
            let rep = w.flow(FpOpcode::Rep, FlowKind::Rep(fields(0)), Relation::Tr);
            w.op(
                FpOpcode::Mad,
                D::R(0),
                "xyz",
                0,
                &[S::R(0, "xyzw"), S::C("xxxx"), S::C("yyyy")],
                Some([0.9, 0.05, 0.0, 0.0]),
            );
            let end_slot = w.next_slot;
            w.set_flow(rep, FlowKind::Rep(fields(end_slot)));
        }
        _ => {}
    }
    // Export.
    let control = if rng.chance(60) {
        w.op(FpOpcode::Mov, D::R(0), "xyzw", 0, &[S::R(0, "xyzw")], None);
        CONTROL_R
    } else {
        w.op(FpOpcode::Mov, D::H(0), "xyzw", 0, &[S::R(0, "xyzw")], None);
        CONTROL_H
    };
    units.sort_unstable();
    units.dedup();
    Some(FragmentProgramSpec {
        ucode: w.finish(),
        control,
        units,
        tint_slot,
    })
}

/// `count` programs distinct by their microcode with the inline constants masked out (the
/// frame's `fp_hash` rule), from `rng`.
pub fn generate(rng: &mut Rng, count: usize) -> Vec<FragmentProgramSpec> {
    let mut out: Vec<FragmentProgramSpec> = Vec::with_capacity(count);
    let mut keys: Vec<Vec<u8>> = Vec::with_capacity(count);
    let mut attempts = 0;
    while out.len() < count && attempts < count * 50 {
        attempts += 1;
        let Some(p) = one(rng) else { continue };
        let Ok(key) = ProgramKey::from_ucode(&p.ucode) else {
            continue;
        };
        if !keys.contains(&key.masked) {
            keys.push(key.masked);
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::flow::analyze;

    #[test]
    fn programs_decode_round_trip_and_sample_the_listed_units() {
        let mut rng = Rng::new(11);
        let programs = generate(&mut rng, 48);
        assert_eq!(programs.len(), 48);
        let mut saw = (false, false, false, false);
        for p in &programs {
            let decoded = fragment::decode(&p.ucode).expect("decodes");
            assert_eq!(fragment::encode(&decoded), p.ucode, "round trip");
            let flow = analyze(&decoded);
            assert!(flow.complete);
            let mut sampled: Vec<u8> = flow.textures.iter().map(|t| t.unit).collect();
            sampled.sort_unstable();
            sampled.dedup();
            assert_eq!(sampled, p.units);
            saw.0 |= p.control & 0x40 != 0;
            saw.1 |= p.control & 0x40 == 0;
            saw.2 |= decoded
                .instructions
                .iter()
                .any(|i| i.opcode == FpOpcode::Ife);
            saw.3 |= decoded
                .instructions
                .iter()
                .any(|i| i.opcode == FpOpcode::Rep);
            if let Some(slot) = p.tint_slot {
                let key = ProgramKey::from_ucode(&p.ucode).unwrap();
                assert!(key.constant_slots.contains(&slot));
            }
        }
        assert_eq!(
            saw,
            (true, true, true, true),
            "R and H exports, IFE and REP all occur"
        );
    }

    #[test]
    fn an_ife_targets_its_blocks() {
        // Force the IFE shape by hand: ADDC (slot 0, constant 1), IFE (2), MUL (3, constant
        // 4), ADD (5, constant 6), MOV END (7): else at 5, end at 7.
        let mut w = Writer::new().unwrap();
        w.op(
            FpOpcode::Add,
            D::Cc,
            "x",
            COL0,
            &[S::In("xxxx"), S::NegC("xxxx")],
            Some([0.5, 0.0, 0.0, 0.0]),
        );
        let ife = w.flow(
            FpOpcode::Ife,
            FlowKind::Ife {
                else_slot: 0,
                end_slot: 0,
            },
            Relation::Gt,
        );
        w.op(
            FpOpcode::Mul,
            D::R(0),
            "xyz",
            0,
            &[S::R(0, "xyzw"), S::C("xyzw")],
            Some([1.0; 4]),
        );
        let else_slot = w.next_slot;
        w.op(
            FpOpcode::Add,
            D::R(0),
            "xyz",
            0,
            &[S::R(0, "xyzw"), S::C("xyzw")],
            Some([0.0; 4]),
        );
        let end_slot = w.next_slot;
        w.set_flow(
            ife,
            FlowKind::Ife {
                else_slot,
                end_slot,
            },
        );
        w.op(FpOpcode::Mov, D::R(0), "xyzw", 0, &[S::R(0, "xyzw")], None);
        let ucode = w.finish();
        let p = fragment::decode(&ucode).unwrap();
        assert_eq!((else_slot, end_slot), (5, 7));
        assert_eq!(p.slot_count, 8);
        assert_eq!(
            p.instructions[1].flow().map(|f| f.kind),
            Some(FlowKind::Ife {
                else_slot: 5,
                end_slot: 7
            })
        );
        // The IFE encodes its offsets in 32-bit words: else 5 x 4 = 20 in SRC1, end 28 in
        // SRC2 (rsx-microcode.md B.5), with the branch flag (SRC1 bit 31).
        let words = fragment::encode_words(&p);
        assert_eq!(words[2 * 4 + 2], 0x8000_0014);
        assert_eq!(words[2 * 4 + 3], 28);
    }
}
