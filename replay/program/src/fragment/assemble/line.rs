//! One instruction line: the mnemonic with its suffixes, the destination, the condition, the
//! sources and the texture unit, into an instruction whose slot and flow targets the caller
//! sets.

use super::flow::parse_flow;
use super::operand::{parse_condition, parse_mask, parse_source, temp, Base};
use crate::fragment::ir::{
    AluOperands, Condition, Destination, FragmentInstruction, InlineConstant, InputAttribute,
    Operands, OutputScale, Precision, Source, WriteMask,
};
use crate::fragment::opcode::FpOpcode;

/// One parsed line: its instruction with slot 0 and flow targets still as labels.
pub(super) struct Parsed {
    pub(super) insn: FragmentInstruction,
}

fn default_instruction(opcode: FpOpcode) -> FragmentInstruction {
    FragmentInstruction {
        slot: 0,
        opcode,
        end: false,
        dest: Destination::temp(0),
        input: InputAttribute::WPOS,
        texture_unit: 0,
        exp_tex: false,
        condition: Condition::ALWAYS,
        operands: Operands::Alu(AluOperands {
            sources: [Source::temp(0); 3],
            scale: OutputScale::None,
            perspective: false,
            indexed_input: false,
            input_displacement: 0,
        }),
        constant: None,
    }
}

/// The opcode a mnemonic starts with and the rest of it: the longest opcode name that
/// leaves a rest the suffix grammar accepts.
fn split_mnemonic(word: &str) -> Result<(FpOpcode, &str), String> {
    let upper = word;
    let mut best: Option<(FpOpcode, &str)> = None;
    for &op in FpOpcode::ALL {
        let name = op.name();
        if let Some(rest) = upper.strip_prefix(name) {
            let ok = if op.is_flow()
                || matches!(
                    op,
                    FpOpcode::Nop | FpOpcode::Kil | FpOpcode::Fenct | FpOpcode::Fencb
                ) {
                rest.is_empty()
            } else {
                parse_suffix(rest).is_ok()
            };
            if ok && best.is_none_or(|(b, _)| b.name().len() < name.len()) {
                best = Some((op, rest));
            }
        }
    }
    best.ok_or_else(|| format!("{word}: no such opcode (or suffix)"))
}

/// What a mnemonic's suffix sets.
struct Suffix {
    precision: Precision,
    set_cond: bool,
    cc_write: u8,
    saturate: bool,
    scale: OutputScale,
    perspective: bool,
}

fn parse_suffix(s: &str) -> Result<Suffix, String> {
    let (precision, mut rest) = if let Some(r) = s.strip_prefix("X9") {
        (Precision::Fx9, r)
    } else if let Some(r) = s.strip_prefix('R') {
        (Precision::Fp32, r)
    } else if let Some(r) = s.strip_prefix('H') {
        (Precision::Fp16, r)
    } else if let Some(r) = s.strip_prefix('X') {
        (Precision::Fx12, r)
    } else {
        return Err(format!("{s}: expected a precision R, H, X or X9"));
    };
    let (mut set_cond, mut cc_write) = (false, 0);
    if let Some(r) = rest.strip_prefix("C1") {
        (set_cond, cc_write, rest) = (true, 1, r);
    } else if let Some(r) = rest.strip_prefix('C') {
        (set_cond, rest) = (true, r);
    }
    let mut saturate = false;
    if let Some(r) = rest.strip_prefix("_SAT") {
        (saturate, rest) = (true, r);
    }
    let mut scale = OutputScale::None;
    for (text, s) in [
        ("_x2", OutputScale::Mul2),
        ("_x4", OutputScale::Mul4),
        ("_x8", OutputScale::Mul8),
        ("_scale4", OutputScale::Invalid4),
        ("_d2", OutputScale::Div2),
        ("_d4", OutputScale::Div4),
        ("_d8", OutputScale::Div8),
    ] {
        if let Some(r) = rest.strip_prefix(text) {
            (scale, rest) = (s, r);
            break;
        }
    }
    let mut perspective = false;
    if let Some(r) = rest.strip_prefix("_PC") {
        (perspective, rest) = (true, r);
    }
    if !rest.is_empty() {
        return Err(format!("{rest}: unexpected in the mnemonic"));
    }
    Ok(Suffix {
        precision,
        set_cond,
        cc_write,
        saturate,
        scale,
        perspective,
    })
}

/// Split at commas outside braces.
fn operands(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

pub(super) fn parse_line(body: &str, comment: Option<&str>) -> Result<Parsed, String> {
    // `...;` then optional `END`.
    let (stmt, after) = match body.rsplit_once(';') {
        Some((s, a)) => (s.trim(), a.trim()),
        None => (body.trim(), ""),
    };
    let end = match after {
        "" => false,
        "END" => true,
        other => return Err(format!("{other}: expected END or nothing after ';'")),
    };
    let (word, rest) = match stmt.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (stmt, ""),
    };
    let (opcode, suffix) = split_mnemonic(word)?;
    let mut insn = default_instruction(opcode);
    insn.end = end;
    if opcode.is_flow() {
        parse_flow(&mut insn, rest, comment)?;
        return Ok(Parsed { insn });
    }
    if matches!(
        opcode,
        FpOpcode::Nop | FpOpcode::Kil | FpOpcode::Fenct | FpOpcode::Fencb
    ) {
        if !rest.is_empty() {
            let (cond, tail) = parse_condition(rest)?;
            if !tail.trim().is_empty() {
                return Err(format!("{tail}: {} takes only a condition", opcode.name()));
            }
            insn.condition = cond;
        }
        return Ok(Parsed { insn });
    }
    let suffix = parse_suffix(suffix)?;
    let ops = operands(rest);
    let (dest_text, sources_text) = ops
        .split_first()
        .ok_or_else(|| format!("{}: no destination", opcode.name()))?;
    // Destination, then an optional condition.
    let (dest_word, cond_text) = match dest_text.split_once('(') {
        Some((d, c)) => (d.trim(), Some(format!("({c}"))),
        None => (dest_text.trim(), None),
    };
    let (reg, mask) = match dest_word.split_once('.') {
        Some((r, m)) => (r, parse_mask(m)?),
        None => (dest_word, WriteMask::XYZW),
    };
    let d = &mut insn.dest;
    d.precision = suffix.precision;
    d.set_cond = suffix.set_cond;
    d.cc_write = suffix.cc_write;
    d.saturate = suffix.saturate;
    d.mask = mask;
    match reg {
        "RC" | "HC" => {
            d.no_dest = true;
            d.fp16 = reg == "HC";
        }
        _ => {
            let (fp16, index) = temp(reg)?;
            d.fp16 = fp16;
            d.index = index;
        }
    }
    if let Some(c) = cond_text {
        let (cond, tail) = parse_condition(&c)?;
        if !tail.trim().is_empty() {
            return Err(format!("{tail}: unexpected after the condition"));
        }
        insn.condition = cond;
    }
    let mut sources_text = sources_text.to_vec();
    if opcode.is_texture() {
        let unit = sources_text
            .pop()
            .ok_or_else(|| format!("{}: no texture unit", opcode.name()))?;
        let (unit, bx2) = match unit.strip_suffix(".bx2") {
            Some(u) => (u, true),
            None => (unit, false),
        };
        insn.texture_unit = unit
            .strip_prefix("TEX")
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|&n| n < 16)
            .ok_or_else(|| format!("{unit}: expected a texture unit TEX0..TEX15"))?;
        insn.exp_tex = bx2;
    }
    if sources_text.len() != opcode.source_count() {
        return Err(format!(
            "{} takes {} source{}, not {}",
            opcode.name(),
            opcode.source_count(),
            if opcode.source_count() == 1 { "" } else { "s" },
            sources_text.len()
        ));
    }
    let mut alu = AluOperands {
        sources: [Source::temp(0); 3],
        scale: suffix.scale,
        perspective: suffix.perspective,
        indexed_input: false,
        input_displacement: 0,
    };
    let mut input: Option<(InputAttribute, Option<u16>)> = None;
    let mut constant: Option<InlineConstant> = None;
    for (k, text) in sources_text.iter().enumerate() {
        let (source, base) = parse_source(text)?;
        alu.sources[k] = source;
        match base {
            Base::Input(attribute, displacement) => {
                if input.is_some_and(|i| i != (attribute, displacement)) {
                    return Err(format!("{text}: one instruction reads one input attribute"));
                }
                input = Some((attribute, displacement));
            }
            Base::Constant(c) => {
                if constant.is_some_and(|k| k != c) {
                    return Err(format!("{text}: one instruction has one inline constant"));
                }
                constant = Some(c);
            }
            Base::Temp => {}
        }
    }
    if let Some((attribute, displacement)) = input {
        insn.input = attribute;
        if let Some(d) = displacement {
            alu.indexed_input = true;
            alu.input_displacement = d;
        }
    }
    insn.constant = constant;
    insn.operands = Operands::Alu(alu);
    Ok(Parsed { insn })
}
