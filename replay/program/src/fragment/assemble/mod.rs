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
//! - When no instruction has `END`, the last one gets it; what the decoder would refuse (a
//!   flow target that does not point forward) is refused at its line.
//!
//! `line` reads one instruction line, `operand` its operands, `flow` flow control.

mod flow;
mod line;
mod operand;

use super::decode::decode;
use super::encode::encode;
use super::error::FragmentDecodeError;
use super::ir::{FlowKind, FragmentProgram, LoopFields, Operands};
use line::{parse_line, Parsed};
use std::collections::HashMap;

use crate::assembly::code_lines;
pub use crate::assembly::{assembly_text, AssembleError};

/// Assemble `text` (see the module documentation).
pub fn assemble(text: &str) -> Result<FragmentProgram, AssembleError> {
    let mut parsed: Vec<(usize, Option<u32>, Parsed)> = Vec::new();
    for l in code_lines(text)? {
        let p = parse_line(l.body, l.comment).map_err(|message| AssembleError {
            line: l.line,
            message,
        })?;
        parsed.push((l.line, l.label, p));
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
