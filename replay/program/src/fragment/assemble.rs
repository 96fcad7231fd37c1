//! Fragment-program assembler: the text [`super::disassemble`] writes, back to a
//! [`FragmentProgram`], so that a program can be disassembled, edited as text and encoded
//! again (`rsxtrace edit --fragment N=prog.asm`).
//!
//! The syntax is the disassembly's (see [`super::disasm`]), one instruction per line:
//! `[SLOT:] OP[R|H|X|X9][C|C1][_SAT][_x2|_x4|_x8|_d2|_d4|_d8|_scale4][_PC] DEST[.mask]
//! [(COND)], SRC, ...[, TEXn[.bx2]]; [END]`. Lines that are empty or start with `;` are
//! comments; so is the rest of a line from `#`, except the `# reserved a b c` comment of a
//! flow instruction, which sets its reserved bits.
//!
//! - Slots are counted here: each instruction takes one, and one more for its inline
//!   constant. A `SLOT:` prefix is a label: flow targets (`@9`) name labels, so instructions
//!   can be added or removed between them and the targets follow.
//! - Fields the text does not show take the values the decoder gives a program that does not
//!   use them: sources an opcode does not read are `R0`, the input attribute of an
//!   instruction without an input source is `WPOS`, the texture unit of a non-texture
//!   instruction is 0.
//! - When no instruction has `END`, the last one gets it.

use super::decode::decode;
use super::encode::encode;
use super::error::FragmentDecodeError;
use super::ir::{
    AluOperands, Condition, Destination, FlowKind, FlowOperands, FragmentInstruction,
    FragmentProgram, InlineConstant, InputAttribute, LoopFields, Operands, OutputScale, Precision,
    PrecisionModifier, Relation, Source, SourceKind, Swizzle, WriteMask,
};
use super::opcode::FpOpcode;
use std::collections::HashMap;

/// Why a line does not assemble.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct AssembleError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The default swizzle bits of a flow instruction's `SRC0` (`.xyzw`), which the disassembly
/// leaves out of its reserved-bits comment.
const FLOW_SRC0_DEFAULT: u32 = 0xE4 << 9;

/// `bytes` as assembly text: UTF-8 without NUL bytes (microcode and containers have them)
/// and with a line that is not a comment. `None` for anything else.
pub fn assembly_text(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    let code = |l: &str| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with(';') && !l.starts_with('#')
    };
    (!text.contains('\0') && text.lines().any(code)).then_some(text)
}

/// Assemble `text` (see the module documentation).
pub fn assemble(text: &str) -> Result<FragmentProgram, AssembleError> {
    let mut parsed: Vec<(usize, Option<u32>, Parsed)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let err = |message: String| AssembleError { line, message };
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        let (body, comment) = match trimmed.split_once('#') {
            Some((b, c)) => (b.trim(), Some(c.trim())),
            None => (trimmed, None),
        };
        let (label, body) = match body.split_once(':') {
            Some((l, rest)) if l.trim().chars().all(|c| c.is_ascii_digit()) => (
                Some(
                    l.trim()
                        .parse::<u32>()
                        .map_err(|e| err(format!("slot: {e}")))?,
                ),
                rest.trim(),
            ),
            _ => (None, body),
        };
        let p = parse_line(body, comment).map_err(err)?;
        parsed.push((line, label, p));
    }
    if parsed.is_empty() {
        return Err(AssembleError {
            line: 1,
            message: "no instruction".into(),
        });
    }
    // Slots, and labels to slots.
    let mut slot = 0u32;
    let mut labels = HashMap::new();
    let mut slots = Vec::with_capacity(parsed.len());
    for (line, label, p) in &parsed {
        if let Some(l) = label {
            if labels.insert(*l, slot).is_some() {
                return Err(AssembleError {
                    line: *line,
                    message: format!("label {l} is given twice"),
                });
            }
        }
        slots.push(slot);
        slot += 1 + u32::from(p.insn.constant.is_some());
    }
    let any_end = parsed.iter().any(|(_, _, p)| p.insn.end);
    let last = parsed.len() - 1;
    let mut instructions = Vec::with_capacity(parsed.len());
    for (i, ((line, _, p), &slot)) in parsed.iter().zip(&slots).enumerate() {
        let err = |message: String| AssembleError {
            line: *line,
            message,
        };
        let mut insn = p.insn;
        insn.slot = slot;
        if insn.end && i != last {
            return Err(err(
                "END before the last instruction (the program would stop there)".into(),
            ));
        }
        if !any_end && i == last {
            insn.end = true;
        }
        if let Operands::Flow(flow) = &mut insn.operands {
            let target = |t: u32| {
                labels
                    .get(&t)
                    .copied()
                    .ok_or_else(|| err(format!("@{t} names no instruction's slot label")))
            };
            flow.kind = match flow.kind {
                FlowKind::Cal { target: t } => FlowKind::Cal { target: target(t)? },
                FlowKind::Ife {
                    else_slot,
                    end_slot,
                } => FlowKind::Ife {
                    else_slot: target(else_slot)?,
                    end_slot: target(end_slot)?,
                },
                FlowKind::Loop(l) => FlowKind::Loop(LoopFields {
                    end_slot: target(l.end_slot)?,
                    ..l
                }),
                FlowKind::Rep(l) => FlowKind::Rep(LoopFields {
                    end_slot: target(l.end_slot)?,
                    ..l
                }),
                k => k,
            };
        }
        instructions.push(insn);
    }
    let program = FragmentProgram::new(instructions);
    // What the decoder refuses (a flow target that does not point forward, say) is refused
    // here, at the line of the instruction at fault.
    if let Err(e) = decode(&encode(&program)) {
        let slot = match e {
            FragmentDecodeError::MissingConstant { slot, .. }
            | FragmentDecodeError::InvalidOpcode { slot, .. }
            | FragmentDecodeError::InvalidSourceType { slot, .. }
            | FragmentDecodeError::BadFlowTarget { slot, .. } => Some(slot),
            _ => None,
        };
        let at = slot
            .and_then(|s| slots.iter().position(|&x| x == s))
            .unwrap_or(last);
        return Err(AssembleError {
            line: parsed[at].0,
            message: format!("the hardware would refuse it: {e}"),
        });
    }
    Ok(program)
}

/// One parsed line: its instruction with slot 0 and flow targets still as labels.
struct Parsed {
    insn: FragmentInstruction,
}

fn default_instruction(opcode: FpOpcode) -> FragmentInstruction {
    FragmentInstruction {
        slot: 0,
        opcode,
        end: false,
        dest: Destination {
            index: 0,
            fp16: false,
            mask: WriteMask::XYZW,
            precision: Precision::Fp32,
            saturate: false,
            no_dest: false,
            set_cond: false,
            cc_write: 0,
        },
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

fn parse_line(body: &str, comment: Option<&str>) -> Result<Parsed, String> {
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

enum Base {
    Temp,
    Input(InputAttribute, Option<u16>),
    Constant(InlineConstant),
}

fn temp(s: &str) -> Result<(bool, u8), String> {
    let (fp16, n) = if let Some(n) = s.strip_prefix('R') {
        (false, n)
    } else if let Some(n) = s.strip_prefix('H') {
        (true, n)
    } else {
        return Err(format!("{s}: expected a register R<n>, H<n>, RC or HC"));
    };
    let index = n
        .parse::<u8>()
        .ok()
        .filter(|&i| i < 64)
        .ok_or_else(|| format!("{s}: register number 0..63"))?;
    Ok((fp16, index))
}

fn parse_mask(m: &str) -> Result<WriteMask, String> {
    let mut bits = 0u8;
    let mut last = None;
    for c in m.chars() {
        let i = "xyzw"
            .find(c)
            .ok_or_else(|| format!(".{m}: a write mask is x, y, z, w in order"))?;
        if last.is_some_and(|l| l >= i) {
            return Err(format!(".{m}: a write mask is x, y, z, w in order"));
        }
        last = Some(i);
        bits |= 1 << i;
    }
    Ok(WriteMask(bits))
}

fn parse_swizzle(s: &str) -> Result<Swizzle, String> {
    let comps: Vec<u8> = s
        .chars()
        .map(|c| "xyzw".find(c).map(|i| i as u8))
        .collect::<Option<_>>()
        .ok_or_else(|| format!(".{s}: a swizzle is made of x, y, z, w"))?;
    match comps.len() {
        4 => Ok(Swizzle([comps[0], comps[1], comps[2], comps[3]])),
        // One component: replicated, as NV assembly reads `.x`.
        1 => Ok(Swizzle([comps[0]; 4])),
        _ => Err(format!(".{s}: a swizzle has 1 or 4 components")),
    }
}

fn parse_condition(s: &str) -> Result<(Condition, &str), String> {
    let s = s.trim_start();
    let inner_end = s
        .find(')')
        .filter(|_| s.starts_with('('))
        .ok_or_else(|| format!("{s}: expected a condition (NE.xxxx)"))?;
    let inner = &s[1..inner_end];
    let (rel, swz) = inner.split_once('.').unwrap_or((inner, "xyzw"));
    let (rel, cc) = match rel.strip_suffix('1') {
        Some(r) => (r, 1),
        None => (rel, 0),
    };
    let relation = (0..8)
        .map(Relation::from_bits)
        .find(|r| r.name() == rel)
        .ok_or_else(|| format!("{rel}: no such relation (FL LT EQ LE GT NE GE TR)"))?;
    Ok((
        Condition {
            relation,
            swizzle: parse_swizzle(swz)?,
            cc,
        },
        &s[inner_end + 1..],
    ))
}

fn parse_source(text: &str) -> Result<(Source, Base), String> {
    let mut s = text.trim();
    let mut source = Source::temp(0);
    if let Some(r) = s.strip_prefix('-') {
        source.negate = true;
        s = r.trim_start();
    }
    for (name, m) in [
        ("x9(", PrecisionModifier::Fx9),
        ("h(", PrecisionModifier::Fp16),
        ("x(", PrecisionModifier::Fx12),
        ("sat(", PrecisionModifier::Sat),
        ("m5(", PrecisionModifier::Unknown5),
        ("m6(", PrecisionModifier::Unknown6),
        ("m7(", PrecisionModifier::Unknown7),
    ] {
        if let Some(r) = s.strip_prefix(name) {
            s = r
                .strip_suffix(')')
                .ok_or_else(|| format!("{text}: unclosed {name}"))?;
            source.modifier = m;
            break;
        }
    }
    if let Some(r) = s.strip_prefix('|') {
        s = r
            .strip_suffix('|')
            .ok_or_else(|| format!("{text}: unclosed |"))?;
        source.abs = true;
    }
    // Base, then an optional swizzle after the last '.' outside brackets and braces.
    let close = s.rfind([']', '}']).map_or(0, |i| i + 1);
    let (base, swizzle) = match s[close..].rfind('.') {
        Some(dot) => (&s[..close + dot], Some(&s[close + dot + 1..])),
        None => (s, None),
    };
    if let Some(swz) = swizzle {
        source.swizzle = parse_swizzle(swz)?;
    }
    let kind = if let Some(inner) = base.strip_prefix("f[").and_then(|b| b.strip_suffix(']')) {
        source.kind = SourceKind::Input;
        if let Some(d) = inner
            .strip_prefix("TEX(A0+")
            .and_then(|d| d.strip_suffix(')'))
        {
            let d = d
                .parse::<u16>()
                .ok()
                .filter(|&d| d < 2048)
                .ok_or_else(|| format!("{inner}: displacement 0..2047"))?;
            Base::Input(InputAttribute::tex(0), Some(d))
        } else {
            Base::Input(input_attribute(inner)?, None)
        }
    } else if let Some(inner) = base.strip_prefix('{').and_then(|b| b.strip_suffix('}')) {
        source.kind = SourceKind::Constant;
        let values: Vec<&str> = inner.split(',').map(str::trim).collect();
        if values.len() != 4 {
            return Err(format!("{base}: an inline constant has four values"));
        }
        let mut bits = [0u32; 4];
        for (b, v) in bits.iter_mut().zip(values) {
            *b = match v.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16).map_err(|e| format!("{v}: {e}"))?,
                None => v.parse::<f32>().map_err(|e| format!("{v}: {e}"))?.to_bits(),
            };
        }
        Base::Constant(InlineConstant(bits))
    } else {
        let (fp16, index) = temp(base)?;
        source.fp16 = fp16;
        source.index = index;
        Base::Temp
    };
    Ok((source, kind))
}

fn input_attribute(name: &str) -> Result<InputAttribute, String> {
    if let Some(n) = name.strip_prefix("ATTR") {
        return n
            .parse::<u8>()
            .ok()
            .filter(|&n| n < 16)
            .map(InputAttribute)
            .ok_or_else(|| format!("{name}: attribute number 0..15"));
    }
    (0..15)
        .map(InputAttribute)
        .find(|a| a.name() == Some(name))
        .ok_or_else(|| {
            format!("{name}: no such input (WPOS COL0 COL1 FOGC TEX0..TEX9 FACING ATTRn)")
        })
}

fn parse_flow(
    insn: &mut FragmentInstruction,
    rest: &str,
    comment: Option<&str>,
) -> Result<(), String> {
    let mut rest = rest.trim();
    if rest.starts_with('(') {
        let (cond, tail) = parse_condition(rest)?;
        insn.condition = cond;
        rest = tail.trim();
    }
    let words: Vec<&str> = rest.split_whitespace().collect();
    let target = |w: &str| -> Result<u32, String> {
        w.strip_prefix('@')
            .and_then(|n| n.parse::<u32>().ok())
            .ok_or_else(|| format!("{w}: expected a slot label @N"))
    };
    let field = |w: &str, name: &str| -> Result<i64, String> {
        w.strip_prefix(name)
            .and_then(|v| v.strip_prefix('='))
            .and_then(|v| v.parse::<i64>().ok())
            .ok_or_else(|| format!("{w}: expected {name}=N"))
    };
    let kind = match (insn.opcode, words.as_slice()) {
        (FpOpcode::Brk, []) => FlowKind::Brk,
        (FpOpcode::Ret, []) => FlowKind::Ret,
        (FpOpcode::Cal, [t]) => FlowKind::Cal { target: target(t)? },
        (FpOpcode::Ife, ["else", e, "end", t]) => FlowKind::Ife {
            else_slot: target(e)?,
            end_slot: target(t)?,
        },
        (FpOpcode::Loop | FpOpcode::Rep, [count, init, incr, "end", t]) => {
            let byte =
                |v: i64, what: &str| u8::try_from(v).map_err(|_| format!("{what}={v}: 0..255"));
            let l = LoopFields {
                count: byte(field(count, "count")?, "count")?,
                init: byte(field(init, "init")?, "init")?,
                increment: i8::try_from(field(incr, "incr")?)
                    .map_err(|_| format!("{incr}: -128..127"))?,
                end_slot: target(t)?,
            };
            if insn.opcode == FpOpcode::Loop {
                FlowKind::Loop(l)
            } else {
                FlowKind::Rep(l)
            }
        }
        (op, _) => {
            return Err(format!(
                "{}: expected {}",
                op.name(),
                match op {
                    FpOpcode::Cal => "CAL @N",
                    FpOpcode::Ife => "IFE (COND) else @N end @M",
                    FpOpcode::Loop | FpOpcode::Rep => "count=N init=N incr=N end @M",
                    _ => "only a condition",
                }
            ))
        }
    };
    let mut reserved = [FLOW_SRC0_DEFAULT, 0, 0];
    if let Some(c) = comment.and_then(|c| c.strip_prefix("reserved")) {
        let values: Vec<u32> = c
            .split_whitespace()
            .map(|v| u32::from_str_radix(v.trim_start_matches("0x"), 16))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("# reserved {c}: {e}"))?;
        if let [a, b, d] = values.as_slice() {
            reserved = [a | FLOW_SRC0_DEFAULT, *b, *d];
        } else {
            return Err(format!("# reserved {c}: three words"));
        }
    }
    insn.operands = Operands::Flow(FlowOperands { kind, reserved });
    Ok(())
}
