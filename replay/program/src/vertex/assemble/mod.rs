//! Vertex-program assembler: the text [`super::disassemble`] writes, back to a
//! [`VertexProgram`], so that a program can be disassembled, edited as text and encoded
//! again (`rsxtrace edit --vertex N=prog.vasm`).
//!
//! The syntax is the disassembly's (`vertex/disasm.rs` documents it), one slot per line:
//! `[SLOT:] [VECTOR-PART;] [SCALAR-PART;] [END;] [START]`, where a part is
//! `OP[C|C1][_SAT] DEST[.mask] [(COND)], SRC, ...` (`, texN` after a TXL's sources), and the
//! flow forms are `BRI|CAL|CLI SLOT [(COND)]`, `BRB|CLB SLOT, [!]bN`, `BRA A0.x [(COND)]`,
//! `PSH|POP A0 [(COND)]` and `RET [(COND)]`. A part alone is the vector unit's when a vector
//! opcode has its name (so `MOV` alone is the vector MOV; `NOP; MOV ...` is the scalar one).
//! Lines that are empty or start with `;` are comments, and so is the rest of a line from
//! `#`.
//!
//! - Slots: the first line's `SLOT:` label (0 without one) is where the program is loaded;
//!   each line takes the next slot, or the slot its label names when that lies ahead (the
//!   slots between stay idle: a disassembly from memory skips the slots its program cannot
//!   reach, and branch targets share bits with sources, so the slots are kept). It starts
//!   at the line marked `START` (after its operations, like `END`), else at its first line.
//!   Branch targets name labels, so lines can be added or removed and the targets follow (a
//!   label behind the next slot names the slot its line gets). In a text with no label at
//!   all, targets are slots.
//! - One slot holds one input attribute, one constant index, one address register, one
//!   condition, one `C` and one `_SAT` bit, and one output field, shared by its two units;
//!   branch targets, the BRB/CLB boolean and the TXL texture unit share bits with sources.
//!   Parts of a line that state different values for shared bits are refused, naming both.
//! - Fields the text does not show take the idle slot's values
//!   ([`super::VertexInstruction::idle`]): unread sources read `v[POS]`, no destination.
//! - When no line has `END`, the last one gets it; what the decoder would refuse is refused
//!   at its line.
//!
//! `operand` reads operands, `part` one unit's part of a line, `words` builds the slot.

mod operand;
mod part;
mod words;

use super::decode::decode_instruction;
use super::fields as f;
use super::instruction::VertexProgram;
use super::operand::Relation;
use super::MEMORY_SLOTS;
use crate::assembly::{code_lines, AssembleError};
use part::{claim_part, part_units, PartInfo, Unit};
use std::collections::HashMap;
use words::Words;

/// One line's slot before its branch target is known.
struct Line {
    words: Words,
    target: Option<u32>,
    end: bool,
    /// The line is the entry (`START`).
    start: bool,
}

/// Assemble `text` (see the module documentation).
pub fn assemble(text: &str) -> Result<VertexProgram, AssembleError> {
    let lines = code_lines(text)?;
    let base = lines[0].label.map_or(0, |l| l as usize);
    let mut labels = HashMap::new();
    let mut parsed = Vec::with_capacity(lines.len());
    let mut slots = Vec::with_capacity(lines.len());
    let mut next = base;
    for l in &lines {
        let err = |message: String| AssembleError {
            line: l.line,
            message,
        };
        // A label ahead of the next slot places its line there (the slots between stay
        // idle); one behind it (lines were added before it) names the slot the line gets.
        let slot = match l.label {
            Some(label) if label as usize > next => label as usize,
            _ => next,
        };
        next = slot + 1;
        slots.push(slot);
        if slot >= MEMORY_SLOTS {
            return Err(err(format!(
                "slot {slot} is past the {MEMORY_SLOTS} slots of transform program memory"
            )));
        }
        if let Some(label) = l.label {
            if labels.insert(label, slot).is_some() {
                return Err(err(format!("label {label} is given twice")));
            }
        }
        parsed.push(parse_line(l.body).map_err(err)?);
    }
    // With no label at all, every line is labelled by its slot.
    if labels.is_empty() {
        labels.extend(slots.iter().map(|&s| (s as u32, s)));
    }
    let mut starts = parsed.iter().enumerate().filter(|(_, p)| p.start);
    let entry = starts.next().map_or(base, |(k, _)| slots[k]);
    if let Some((k, _)) = starts.next() {
        return Err(AssembleError {
            line: lines[k].line,
            message: "a second START (a program has one entry)".into(),
        });
    }
    let any_end = parsed.iter().any(|p| p.end);
    let last = parsed.len() - 1;
    let mut instructions = Vec::with_capacity(parsed.len());
    for (k, (mut p, l)) in parsed.into_iter().zip(&lines).enumerate() {
        let err = |message: String| AssembleError {
            line: l.line,
            message,
        };
        if let Some(label) = p.target {
            let target = *labels
                .get(&label)
                .ok_or_else(|| err(format!("{label} names no line's slot label")))?;
            let t = target as u32;
            let what = format!("the branch target {label}");
            p.words
                .claim(f::IADDRH2, (t >> 9) & 1, &what)
                .and_then(|()| p.words.claim(f::IADDRH, (t >> 3) & 0x3F, &what))
                .and_then(|()| p.words.claim(f::IADDRL, t & 7, &what))
                .map_err(err)?;
        }
        if !any_end && k == last {
            p.words.claim(f::END, 1, "END").map_err(err)?;
        }
        let insn = decode_instruction(p.words.words(), slots[k])
            .map_err(|e| err(format!("the hardware would refuse it: {e}")))?;
        instructions.push(insn);
    }
    Ok(VertexProgram {
        start_slot: entry,
        instructions,
    })
}

/// One line's parts, claimed into its slot's words.
fn parse_line(body: &str) -> Result<Line, String> {
    let mut parts: Vec<&str> = body.split(';').map(str::trim).collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    // END and START, in either order, after the operations.
    let (mut end, mut start) = (false, false);
    while let Some(last) = parts.last() {
        if last.eq_ignore_ascii_case("END") && !end {
            end = true;
        } else if last.eq_ignore_ascii_case("START") && !start {
            start = true;
        } else {
            break;
        }
        parts.pop();
    }
    let mut words = Words::idle();
    let mut infos: Vec<PartInfo> = Vec::with_capacity(2);
    match parts.as_slice() {
        [] if end || start => {}
        [] => return Err("no instruction".into()),
        [one] => {
            let unit = match part_units(one) {
                (Some(_), _) => Unit::Vector,
                (None, Some(_)) => Unit::Scalar,
                (None, None) => {
                    let word = one.split_whitespace().next().unwrap_or(one);
                    return Err(format!("{word}: no such opcode (or suffix)"));
                }
            };
            infos.push(claim_part(&mut words, unit, one)?);
        }
        [vector, scalar] => {
            infos.push(claim_part(&mut words, Unit::Vector, vector)?);
            infos.push(claim_part(&mut words, Unit::Scalar, scalar)?);
        }
        _ => return Err("a slot holds at most a vector and a scalar operation, then END".into()),
    }
    if end {
        words.claim(f::END, 1, "END")?;
    }
    // A branch's FL relation is also the writing unit's: it would write nothing
    // (RPCS3 `SetDST`), which its text must say.
    let relation = Relation::from_code(f::COND.get(&words.words()));
    if relation == Relation::FL && infos.iter().any(|i| i.unconditional_write) {
        return Err(
            "the branch's relation FL is also the other unit's condition: it writes nothing \
             unless its condition is written as (FL...)"
                .into(),
        );
    }
    let target = infos.iter().find_map(|i| i.target);
    Ok(Line {
        words,
        target,
        end,
        start,
    })
}
