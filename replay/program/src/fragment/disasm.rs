//! Fragment-program disassembly: stable text, one line per instruction, in the style of
//! RPCS3's decompiler comments and NV_fragment_program assembly.
//!
//! Line format:
//! `SLOT: OP[R|H|X|X9][C|C1][_SAT][_x2|_x4|_x8|_d2|_d4|_d8][_PC] DEST[.mask][ (REL[1].swz)], SRC, ...[, TEXn][;][ END]`
//!
//! - precision suffix: `R` fp32, `H` fp16, `X` fx12, `X9` fx9 (flow control has none);
//! - `C` when the CC is written (`C1` for CC1); destination `RC`/`HC` when `no_dest` (with
//!   its mask, which limits the condition-code components written);
//! - `_PC`: the input attribute is multiplied by the fragment's w (`SRC2` bit 31, RPCS3's
//!   "perspective_corr");
//! - sources: `R1.xxyz`, `H2`, `f[TEX0]`, `f[TEX(A0+2)]` (indexed), inline constants as
//!   `{1.0, 0.5, 0.0, 1.0}`; `-` negate, `|..|` abs, precision modifiers as `h(..)`,
//!   `x(..)`, `x9(..)`, `sat(..)`, `m5(..)`; identity swizzles are omitted;
//! - condition `(NE.xxxx)` (omitted for `TR`); CC1 reads show `NE1`;
//! - texture instructions end with the unit `TEX3` (`TEX3.bx2` with exp_tex);
//! - NOP, KIL, FENCT and FENCB show only the condition;
//! - flow targets are slots: `IFE (NE.xxxx) else @5 end @9`;
//! - non-zero reserved bits of flow words are shown as a trailing comment.

use std::fmt::{self, Write as _};

use super::ir::{
    FlowKind, FragmentInstruction, FragmentProgram, InlineConstant, Operands, OutputScale,
    Precision, PrecisionModifier, Source, SourceKind, Swizzle,
};
use super::opcode::FpOpcode;

/// The whole program, one line per instruction (constant slots are shown inline).
pub fn disassemble(program: &FragmentProgram) -> String {
    let mut out = String::with_capacity(program.instructions.len() * 48);
    for insn in &program.instructions {
        // Writing into a String cannot fail.
        let _ = writeln!(out, "{insn}");
    }
    out
}

impl fmt::Display for FragmentInstruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>4}: {}", self.slot, self.opcode.name())?;
        match &self.operands {
            Operands::Flow(flow) => {
                let cond = &self.condition;
                if cond.is_conditional() || cond.swizzle != Swizzle::IDENTITY || cond.cc != 0 {
                    write!(f, " ")?;
                    write_condition(f, self)?;
                }
                match flow.kind {
                    FlowKind::Brk | FlowKind::Ret => {}
                    FlowKind::Cal { target } => write!(f, " @{target}")?,
                    FlowKind::Ife {
                        else_slot,
                        end_slot,
                    } => write!(f, " else @{else_slot} end @{end_slot}")?,
                    FlowKind::Loop(l) | FlowKind::Rep(l) => write!(
                        f,
                        " count={} init={} incr={} end @{}",
                        l.count, l.init, l.increment, l.end_slot
                    )?,
                }
                f.write_str(";")?;
                if self.end {
                    f.write_str(" END")?;
                }
                // SRC0's swizzle bits (9–16) usually hold the compiler's default `.xyzw`
                // (0x1c800); only other reserved bits are shown.
                let [a, b, c] = flow.reserved;
                let a = a & !(0xFF << 9);
                if [a, b, c] != [0; 3] {
                    write!(f, " # reserved {a:#x} {b:#x} {c:#x}")?;
                }
                Ok(())
            }
            Operands::Alu(_)
                if matches!(
                    self.opcode,
                    FpOpcode::Nop | FpOpcode::Kil | FpOpcode::Fenct | FpOpcode::Fencb
                ) =>
            {
                // No destination and no register operands.
                if self.condition.is_conditional() {
                    f.write_str(" ")?;
                    write_condition(f, self)?;
                }
                f.write_str(if self.end { "; END" } else { ";" })
            }
            Operands::Alu(alu) => {
                let d = &self.dest;
                f.write_str(match d.precision {
                    Precision::Fp32 => "R",
                    Precision::Fp16 => "H",
                    Precision::Fx12 => "X",
                    Precision::Fx9 => "X9",
                })?;
                if d.set_cond {
                    f.write_str(if d.cc_write == 0 { "C" } else { "C1" })?;
                }
                if d.saturate {
                    f.write_str("_SAT")?;
                }
                f.write_str(match alu.scale {
                    OutputScale::None => "",
                    OutputScale::Mul2 => "_x2",
                    OutputScale::Mul4 => "_x4",
                    OutputScale::Mul8 => "_x8",
                    OutputScale::Invalid4 => "_scale4",
                    OutputScale::Div2 => "_d2",
                    OutputScale::Div4 => "_d4",
                    OutputScale::Div8 => "_d8",
                })?;
                if alu.perspective {
                    f.write_str("_PC")?;
                }
                let file = if d.fp16 { 'H' } else { 'R' };
                if d.no_dest {
                    write!(f, " {file}C")?;
                } else {
                    write!(f, " {file}{}", d.index)?;
                }
                if d.mask.0 != 0xF {
                    write!(f, ".{}", d.mask)?;
                }
                if self.condition.is_conditional() {
                    f.write_str(" ")?;
                    write_condition(f, self)?;
                }
                for s in alu.sources.iter().take(self.opcode.source_count()) {
                    f.write_str(", ")?;
                    write_source(f, self, alu.indexed_input, alu.input_displacement, s)?;
                }
                if self.opcode.is_texture() {
                    write!(f, ", TEX{}", self.texture_unit)?;
                    if self.exp_tex {
                        f.write_str(".bx2")?;
                    }
                }
                f.write_str(";")?;
                if self.end {
                    f.write_str(" END")?;
                }
                Ok(())
            }
        }
    }
}

fn write_condition(f: &mut fmt::Formatter<'_>, insn: &FragmentInstruction) -> fmt::Result {
    let c = &insn.condition;
    let cc = if c.cc == 0 { "" } else { "1" };
    write!(f, "({}{cc}.{})", c.relation.name(), c.swizzle)
}

fn write_source(
    f: &mut fmt::Formatter<'_>,
    insn: &FragmentInstruction,
    indexed: bool,
    displacement: u16,
    s: &Source,
) -> fmt::Result {
    if s.negate {
        f.write_str("-")?;
    }
    let modifier = match s.modifier {
        PrecisionModifier::None => None,
        PrecisionModifier::Fp16 => Some("h"),
        PrecisionModifier::Fx12 => Some("x"),
        PrecisionModifier::Fx9 => Some("x9"),
        PrecisionModifier::Sat => Some("sat"),
        PrecisionModifier::Unknown5 => Some("m5"),
        PrecisionModifier::Unknown6 => Some("m6"),
        PrecisionModifier::Unknown7 => Some("m7"),
    };
    if let Some(m) = modifier {
        write!(f, "{m}(")?;
    }
    if s.abs {
        f.write_str("|")?;
    }
    match s.kind {
        SourceKind::Temp => write!(f, "{}{}", if s.fp16 { 'H' } else { 'R' }, s.index)?,
        SourceKind::Input if indexed => write!(f, "f[TEX(A0+{displacement})]")?,
        SourceKind::Input => write!(f, "f[{}]", insn.input)?,
        SourceKind::Constant => match &insn.constant {
            Some(c) => write_constant(f, c)?,
            None => f.write_str("{?}")?,
        },
    }
    if s.swizzle != Swizzle::IDENTITY {
        write!(f, ".{}", s.swizzle)?;
    }
    if s.abs {
        f.write_str("|")?;
    }
    if modifier.is_some() {
        f.write_str(")")?;
    }
    Ok(())
}

fn write_constant(f: &mut fmt::Formatter<'_>, c: &InlineConstant) -> fmt::Result {
    f.write_str("{")?;
    for (n, (v, bits)) in c.values().iter().zip(c.0).enumerate() {
        if n > 0 {
            f.write_str(", ")?;
        }
        if v.is_finite() {
            write!(f, "{v:?}")?;
        } else {
            write!(f, "{bits:#010x}")?;
        }
    }
    f.write_str("}")
}
