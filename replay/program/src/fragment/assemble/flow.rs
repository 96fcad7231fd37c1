//! Flow-control lines: BRK, RET, CAL, IFE, LOOP and REP with their condition, targets (as
//! labels, resolved by the caller) and loop fields, and the reserved-bits comment.

use super::operand::parse_condition;
use crate::fragment::ir::{FlowKind, FlowOperands, FragmentInstruction, LoopFields, Operands};
use crate::fragment::opcode::FpOpcode;

/// The default swizzle bits of a flow instruction's `SRC0` (`.xyzw`), which the disassembly
/// leaves out of its reserved-bits comment.
const FLOW_SRC0_DEFAULT: u32 = 0xE4 << 9;

pub(super) fn parse_flow(
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
