//! Disassembly text: one line per slot in RPCS3-like syntax.
//!
//! Line form: `SSS: <vector part>; <scalar part>` (each unit shown when active, `NOP` when
//! both are idle, and `NOP; MOV ...` for a scalar MOV alone, which would otherwise read as the
//! vector MOV), then `; END` on the last instruction, and `; START` on the entry when it is
//! not the first line (the program reaches slots below its start). Conventions:
//! - destinations `R<n>` (temp), `o[NAME]` (output, e.g. `o[HPOS]`), `A<n>` (ARL/ARR/ARA: the
//!   destination temp field); a temp and an output written together print as `R1+o[HPOS]`; a
//!   unit with no temp that is not the output writer prints the CC register (`CC0`), which
//!   RPCS3 writes in that case, and the output writer with no output register `NONE` (it
//!   writes nothing, RPCS3 `GetDST`); write masks as `.xy` (omitted when full, `.none` when
//!   empty);
//! - `C`/`C1` after the mnemonic: CC0/CC1 update; `_SAT`: saturate;
//! - condition `(NE.xxxx)` (CC1: `(NE1.xxxx)`) after the destination when the test is enabled
//!   or the relation is FL (which writes nothing, enabled or not), and after branch targets
//!   whenever the test is enabled or the relation is not TR;
//! - sources `R<n>`, `v[NAME]`, `c[256]`, relative `c[A0.x+12]` / `v[A0.x+3]`, swizzle suffix,
//!   `-` negate, `|..|` abs;
//! - branch targets are absolute slot numbers; BRB/CLB show `b<n>` / `!b<n>`.

use super::instruction::{CcRegister, VertexInstruction, VertexProgram};
use super::opcode::{ScalarOpcode, VectorOpcode};
use super::operand::{ConditionTest, RegisterType, Relation, Source, WriteMask};
use std::fmt::{self, Write as _};

fn cc_suffix(i: &VertexInstruction) -> &'static str {
    match i.cc_register {
        CcRegister::CC0 => "",
        CcRegister::CC1 => "1",
    }
}

fn mnemonic(name: &str, i: &VertexInstruction) -> String {
    let mut s = name.to_string();
    if i.cc_update.any() {
        s.push('C');
        s.push_str(cc_suffix(i));
    }
    if i.saturate {
        s.push_str("_SAT");
    }
    s
}

/// Whether a writing operation shows its condition: when the test is enabled, and when the
/// relation is FL whatever the enable bit says (nothing is written then, RPCS3 `SetDST`).
fn shows_condition(i: &VertexInstruction) -> bool {
    i.condition.enabled || i.condition.relation == Relation::FL
}

fn condition(c: &ConditionTest, i: &VertexInstruction) -> String {
    format!(
        " ({}{}.{})",
        c.relation.name(),
        cc_suffix(i),
        c.swizzle.letters()
    )
}

fn mask(m: WriteMask) -> String {
    if m == WriteMask::XYZW {
        String::new()
    } else if m.0 == 0 {
        ".none".to_string()
    } else {
        format!(".{}", m.letters())
    }
}

/// Source operand `s` of instruction `i` as the disassembly writes it (`-|c[A0.x+40].xxxx|`).
pub fn operand_text(i: &VertexInstruction, s: &Source) -> String {
    source(i, s)
}

fn source(i: &VertexInstruction, s: &Source) -> String {
    let base = match s.reg_type {
        RegisterType::Temp => format!("R{}", s.temp_index),
        RegisterType::Input if i.index_input => format!("v[{}+{}]", i.address, i.input.0),
        RegisterType::Input => format!("v[{}]", i.input.name()),
        RegisterType::Constant if i.index_const => format!("c[{}+{}]", i.address, i.const_index),
        RegisterType::Constant => format!("c[{}]", i.const_index),
    };
    let inner = format!("{base}{}", s.swizzle.suffix());
    let inner = if s.abs { format!("|{inner}|") } else { inner };
    if s.negate {
        format!("-{inner}")
    } else {
        inner
    }
}

fn destination(temp: Option<u8>, writes_output: bool, i: &VertexInstruction) -> String {
    let out = i.output.filter(|_| writes_output);
    match (temp, out) {
        (Some(t), Some(o)) => format!("R{t}+{o}"),
        (Some(t), None) => format!("R{t}"),
        (None, Some(o)) => o.to_string(),
        // The output writer with no output register writes nothing (RPCS3 `GetDST`); only a
        // unit that is not the writer falls back to the CC register.
        (None, None) if writes_output => "NONE".to_string(),
        (None, None) => match i.cc_register {
            CcRegister::CC0 => "CC0".to_string(),
            CcRegister::CC1 => "CC1".to_string(),
        },
    }
}

fn vector_part(i: &VertexInstruction) -> String {
    // ARL writes the address register its destination temp field names (RPCS3 `GetDST`:
    // `a` + `d0.dst_tmp`); reads go through `address` (`d0.addr_reg_sel_1`).
    let dst = match (i.vector, i.vec_dst_temp) {
        (VectorOpcode::Arl | VectorOpcode::Arr | VectorOpcode::Ara, Some(t)) => format!("A{t}"),
        _ => destination(i.vec_dst_temp, i.vec_result, i),
    };
    let mut s = format!("{} {dst}{}", mnemonic(i.vector.name(), i), mask(i.vec_mask));
    if shows_condition(i) {
        s.push_str(&condition(&i.condition, i));
    }
    for (n, reads) in i.vector.reads().into_iter().enumerate() {
        if reads {
            let _ = write!(s, ", {}", source(i, &i.sources[n]));
        }
    }
    if let Some(unit) = i.texture_unit() {
        let _ = write!(s, ", tex{unit}");
    }
    s
}

fn scalar_part(i: &VertexInstruction) -> String {
    let cond_shown = i.condition.enabled || i.condition.relation != Relation::TR;
    let cond = if cond_shown {
        condition(&i.condition, i)
    } else {
        String::new()
    };
    match i.scalar {
        ScalarOpcode::Bri | ScalarOpcode::Cal | ScalarOpcode::Cli => {
            format!("{} {}{cond}", i.scalar.name(), i.raw_branch_address())
        }
        ScalarOpcode::Brb | ScalarOpcode::Clb => {
            let b = i.boolean_branch().map_or(String::new(), |b| {
                format!(", {}b{}", if b.if_true { "" } else { "!" }, b.index)
            });
            format!("{} {}{b}", i.scalar.name(), i.raw_branch_address())
        }
        ScalarOpcode::Bra => format!("BRA {}{cond}", i.address),
        ScalarOpcode::Psh | ScalarOpcode::Pop => {
            format!("{} A{}{cond}", i.scalar.name(), i.address.register)
        }
        ScalarOpcode::Ret => format!("RET{cond}"),
        op => {
            let dst = destination(i.sca_dst_temp, !i.vec_result, i);
            let mut s = format!("{} {dst}{}", mnemonic(op.name(), i), mask(i.sca_mask));
            if shows_condition(i) {
                s.push_str(&condition(&i.condition, i));
            }
            if op.reads_src2() {
                let _ = write!(s, ", {}", source(i, &i.sources[2]));
            }
            s
        }
    }
}

impl fmt::Display for VertexInstruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::with_capacity(3);
        if self.vector_active() {
            parts.push(vector_part(self));
        } else if self.scalar == ScalarOpcode::Mov {
            // MOV is a vector and a scalar opcode: a lone scalar one shows the idle vector
            // unit, so that it reads as the scalar MOV (which reads src2).
            parts.push("NOP".to_string());
        }
        if self.scalar_active() {
            parts.push(scalar_part(self));
        }
        if parts.is_empty() {
            parts.push("NOP".to_string());
        }
        if self.end {
            parts.push("END".to_string());
        }
        write!(f, "{:03}: {}", self.slot, parts.join("; "))
    }
}

/// The whole program, one line per slot, each ending in a newline. When the program starts
/// at another slot than its first (a subroutine lies below its entry), the entry's line ends
/// with `; START`.
pub fn disassemble(p: &VertexProgram) -> String {
    let marked = p
        .instructions
        .first()
        .is_some_and(|i| i.slot != p.start_slot);
    let mut s = String::new();
    for i in &p.instructions {
        if marked && i.slot == p.start_slot {
            let _ = writeln!(s, "{i}; START");
        } else {
            let _ = writeln!(s, "{i}");
        }
    }
    s
}
