//! The program check done once before execution: every instruction's opcode has known
//! semantics, registers lie in the 48-entry file, constant sources have their inline slot,
//! scales and input attributes are valid, and flow targets are instruction slots. After it
//! passes, execution only fails on data-dependent limits (indexed inputs, nesting, steps).

use rsxtrace_program::fragment::{
    FlowKind, FpOpcode, FragmentInstruction, FragmentProgram, OutputScale, SourceKind,
};

use super::error::FragmentExecError;
use super::regfile::R_COUNT;

/// A checked program.
#[derive(Debug)]
pub struct Prepared<'p> {
    /// Instructions in slot order.
    pub insns: &'p [FragmentInstruction],
}

/// Opcodes with no known semantics (rsx-microcode.md B.5: CAL unimplemented in RPCS3; B.7:
/// BEMLUM and TIMESWTEX unimplemented).
fn unsupported(op: FpOpcode) -> bool {
    matches!(op, FpOpcode::Cal | FpOpcode::Bemlum | FpOpcode::Timeswtex)
}

impl<'p> Prepared<'p> {
    /// Checks `program`.
    pub fn new(program: &'p FragmentProgram) -> Result<Prepared<'p>, FragmentExecError> {
        if program.instructions.is_empty() {
            return Err(FragmentExecError::EmptyProgram);
        }
        let prepared = Prepared {
            insns: &program.instructions,
        };
        for insn in prepared.insns {
            prepared.check(insn)?;
        }
        Ok(prepared)
    }

    fn check(&self, insn: &FragmentInstruction) -> Result<(), FragmentExecError> {
        let slot = insn.slot;
        if unsupported(insn.opcode) {
            return Err(FragmentExecError::UnsupportedOpcode {
                slot,
                opcode: insn.opcode,
            });
        }
        if let Some(flow) = insn.flow() {
            let targets: &[u32] = match flow.kind {
                FlowKind::Ife {
                    else_slot,
                    end_slot,
                } => &[else_slot, end_slot],
                FlowKind::Loop(l) | FlowKind::Rep(l) => &[l.end_slot],
                _ => &[],
            };
            for &t in targets {
                self.index_of(t, slot)?;
            }
            return Ok(());
        }
        let Some(alu) = insn.alu() else {
            return Ok(());
        };
        let d = insn.dest;
        // Writes land in the register file only without no_dest; H(n) lives in R(n/2).
        let dest_r = if d.fp16 { d.index >> 1 } else { d.index };
        if !d.no_dest && usize::from(dest_r) >= R_COUNT {
            return Err(FragmentExecError::RegisterOutOfRange {
                slot,
                field: "destination",
                index: dest_r,
            });
        }
        if alu.scale == OutputScale::Invalid4 {
            return Err(FragmentExecError::InvalidScale { slot });
        }
        const FIELDS: [&str; 3] = ["source 0", "source 1", "source 2"];
        for (i, src) in alu
            .sources
            .iter()
            .enumerate()
            .take(insn.opcode.operands_read())
        {
            match src.kind {
                SourceKind::Temp => {
                    let r = if src.fp16 { src.index >> 1 } else { src.index };
                    if usize::from(r) >= R_COUNT {
                        return Err(FragmentExecError::RegisterOutOfRange {
                            slot,
                            field: FIELDS[i],
                            index: r,
                        });
                    }
                }
                SourceKind::Constant if insn.constant.is_none() => {
                    return Err(FragmentExecError::MissingConstant {
                        slot,
                        source_index: i as u8,
                    });
                }
                SourceKind::Input if !alu.indexed_input && insn.input.0 > 14 => {
                    return Err(FragmentExecError::InvalidInput {
                        slot,
                        attribute: insn.input.0,
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Index of the instruction at `target` (a slot), or the past-the-end index when
    /// `target` is just after the last instruction's slots.
    pub fn index_of(&self, target: u32, from: u32) -> Result<usize, FragmentExecError> {
        match self.insns.binary_search_by_key(&target, |i| i.slot) {
            Ok(i) => Ok(i),
            Err(i) if i == self.insns.len() => Ok(i),
            Err(_) => Err(FragmentExecError::FlowTarget { slot: from, target }),
        }
    }
}
