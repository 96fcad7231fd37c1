//! Structured flow control on per-lane active masks: blocks of instructions, IF/ELSE, LOOP
//! and REP, BRK, RET, and the condition tests they make (rsx-microcode.md B.5).

use rsxtrace_program::fragment::Relation;

use super::{lanes_where, whole_quads, Engine, MAX_NESTING};
use crate::interp::fragment::compile::{Cond, Kind, Op};
use crate::interp::fragment::error::FragmentExecError;
use crate::interp::fragment::options::LoopCounter;
use crate::interp::fragment::real::Real;

impl<'a, T: Real> Engine<'a, T> {
    /// Executes instructions from index `i` while their slot is below `end_slot`, for the
    /// lanes in `mask`.
    pub(super) fn block(
        &mut self,
        mut i: usize,
        end_slot: u32,
        mask: u64,
    ) -> Result<(), FragmentExecError> {
        let prog = self.prog;
        while let Some(op) = prog.ops.get(i) {
            if op.slot >= end_slot {
                break;
            }
            let active = mask & !self.returned & !self.broken & !self.ended;
            if active == 0 {
                break;
            }
            self.steps += 1;
            if self.steps > self.opts.max_steps {
                return Err(FragmentExecError::StepLimit {
                    slot: op.slot,
                    limit: self.opts.max_steps,
                });
            }
            if !self.patches.is_empty() {
                self.apply_patches(self.steps - 1);
            }
            match op.kind {
                Kind::Ife {
                    else_slot,
                    end_slot: end,
                    else_index,
                    end_index,
                } => {
                    let taken = self.flow_test(&op.cond, active);
                    if self.observer.is_some() {
                        let why = format!("IF: lanes {:#06b} take the IF branch", taken & 0xF);
                        self.report(op, active, Some(why));
                    }
                    if taken != 0 {
                        self.nested(op, |e| e.block(i + 1, else_slot, taken))?;
                    }
                    let other = active & !taken;
                    if other != 0 && else_slot < end {
                        self.nested(op, |e| e.block(else_index, end, other))?;
                    }
                    if op.end {
                        self.ended |= whole_quads(active);
                    }
                    i = end_index;
                    continue;
                }
                Kind::Loop {
                    count,
                    init,
                    increment,
                    end_slot: end,
                    end_index,
                } => {
                    // The loop runs on the lanes its condition passes (`any()`, as IFE's;
                    // RPCS3 `FragmentProgramDecompiler` wraps LOOP and REP in `if (cond)`).
                    let entering = self.flow_test(&op.cond, active);
                    self.run_loop(op, i, (count, init, increment, end), entering)?;
                    if op.end {
                        self.ended |= whole_quads(active);
                    }
                    i = end_index;
                    continue;
                }
                // BRK leaves the innermost loop (B.5); outside a loop it stops the lanes like
                // RET.
                Kind::Brk => {
                    let lanes = self.flow_test(&op.cond, active);
                    self.broken |= lanes;
                    if self.observer.is_some() {
                        self.report(op, active, Some(format!("BRK: lanes {:#06b}", lanes & 0xF)));
                    }
                }
                // RET outside a subroutine ends the program for the passing lanes (B.5).
                Kind::Ret => {
                    let lanes = self.flow_test(&op.cond, active);
                    self.returned |= lanes;
                    if self.observer.is_some() {
                        self.report(op, active, Some(format!("RET: lanes {:#06b}", lanes & 0xF)));
                    }
                }
                Kind::Cal => {
                    return Err(FragmentExecError::UnsupportedOpcode {
                        slot: op.slot,
                        opcode: op.opcode,
                    })
                }
                _ => {
                    self.instruction(op, active)?;
                    if self.observer.is_some() {
                        let why = (op.kind == Kind::Kil)
                            .then(|| format!("KIL: lanes {:#06b} killed", self.killed & 0xF));
                        self.report(op, active, why);
                    }
                }
            }
            // END stops the program after this instruction (B.5), for the whole quad.
            if op.end {
                self.ended |= whole_quads(active);
            }
            i += 1;
        }
        Ok(())
    }

    pub(super) fn nested(
        &mut self,
        op: &Op<T>,
        f: impl FnOnce(&mut Self) -> Result<(), FragmentExecError>,
    ) -> Result<(), FragmentExecError> {
        if self.depth >= MAX_NESTING {
            return Err(FragmentExecError::NestingTooDeep {
                slot: op.slot,
                limit: MAX_NESTING,
            });
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// LOOP/REP: `count` iterations of the body (B.5), A0 per [`LoopCounter`] (by default
    /// `init + k × increment`); BRK removes lanes until the loop ends.
    pub(super) fn run_loop(
        &mut self,
        op: &Op<T>,
        i: usize,
        (count, init, increment, end_slot): (u8, u8, i8, u32),
        active: u64,
    ) -> Result<(), FragmentExecError> {
        let saved_broken = self.broken;
        let saved_a0 = self.a0;
        self.broken = 0;
        for k in 0..i64::from(count) {
            let m = active & !self.returned & !self.broken & !self.ended;
            if m == 0 {
                break;
            }
            self.a0 = match self.opts.loop_counter {
                LoopCounter::Iteration => k,
                LoopCounter::InitIncrement => i64::from(init) + k * i64::from(increment),
            };
            if self.observer.is_some() {
                let why = format!(
                    "LOOP: iteration {k} of {count}, A0 = {}, lanes {:#06b}",
                    self.a0,
                    m & 0xF
                );
                self.report(op, active, Some(why));
            }
            self.nested(op, |e| e.block(i + 1, end_slot, m))?;
        }
        self.broken = saved_broken;
        self.a0 = saved_a0;
        Ok(())
    }

    /// Lanes where the condition passes for component `c` (B.2; IEEE comparisons: a NaN
    /// passes only NE and TR).
    #[inline]
    pub(super) fn cond_lanes(&self, cond: &Cond, c: usize) -> u64 {
        let sel = usize::from(cond.swizzle[c & 3] & 3);
        let row = &self.cc[usize::from(cond.cc & 1)][sel];
        match cond.relation {
            Relation::Fl => 0,
            Relation::Tr => u64::MAX,
            Relation::Lt => lanes_where(row, |v| v < T::ZERO),
            Relation::Eq => lanes_where(row, |v| v == T::ZERO),
            Relation::Le => lanes_where(row, |v| v <= T::ZERO),
            Relation::Gt => lanes_where(row, |v| v > T::ZERO),
            Relation::Ne => lanes_where(row, |v| v != T::ZERO),
            Relation::Ge => lanes_where(row, |v| v >= T::ZERO),
        }
    }

    /// The lanes of `active` where any swizzled component passes (flow ops and KIL use
    /// `any()`, B.2 / RPCS3 `AddFlowOp`).
    pub(super) fn flow_test(&self, cond: &Cond, active: u64) -> u64 {
        active & (0..4).fold(0, |m, c| m | self.cond_lanes(cond, c))
    }
}
