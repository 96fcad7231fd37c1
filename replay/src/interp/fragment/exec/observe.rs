//! What a debugger sees of the engine: per-step reports to an observer, a lane's register
//! snapshot, and patches applied to registers at chosen steps.

use super::{Engine, Observer};
use crate::interp::fragment::compile::{Kind, Op};
use crate::interp::fragment::options::HalfRounding;
use crate::interp::fragment::precision::to_half;
use crate::interp::fragment::real::Real;
use crate::interp::fragment::regfile::{LANES, R_COUNT};
use crate::interp::fragment::rowops::Rows;
use crate::interp::fragment::trace::{Patch, QuadValue, RegisterSnapshot, Step, Written};

impl<'a, T: Real> Engine<'a, T> {
    /// Each reported [`Step`] carries the register file of quad 0's lane `lane` (debuggers).
    pub fn snapshot_lane(&mut self, lane: usize) {
        self.snapshot_lane = Some(lane & 3);
    }

    /// Makes each patch's register write just before the instruction numbered `patch.step`
    /// (debuggers: a register written by the user takes effect).
    pub fn patch(&mut self, patches: Vec<Patch>) {
        self.patches = patches;
    }

    /// The patches due before step `step`.
    pub(super) fn apply_patches(&mut self, step: u64) {
        for k in 0..self.patches.len() {
            let p = self.patches[k];
            if p.step != step {
                continue;
            }
            let lanes = 1u64 << (p.lane & 3);
            for c in 0..4 {
                let mut row = [T::ZERO; LANES];
                let v = T::from_f64(p.value[c]);
                if let Some(x) = row.get_mut(p.lane & 3) {
                    *x = if p.fp16 {
                        to_half(v, HalfRounding::Nearest)
                    } else {
                        v
                    };
                }
                if p.fp16 {
                    self.regs.write_h_row(p.index, c, &row, lanes);
                } else {
                    self.regs.write_r_row(p.index, c, &row, lanes);
                }
            }
        }
    }

    /// The register file of quad 0's lane `lane`.
    pub(super) fn snapshot(&self, lane: usize) -> RegisterSnapshot {
        RegisterSnapshot {
            r: (0..R_COUNT as u8)
                .map(|r| std::array::from_fn(|c| self.regs.read_r(r, c, lane).to_f64()))
                .collect(),
            h: (0..(2 * R_COUNT) as u8)
                .map(|h| std::array::from_fn(|c| self.regs.read_h(h, c, lane).to_f64()))
                .collect(),
        }
    }

    /// Calls `observer` with quad 0's [`Step`] after every executed instruction (tracing
    /// and debugging; one quad per block is what they run).
    pub fn observe(&mut self, observer: Observer<'a>) {
        self.observer = Some(observer);
    }

    /// Quad 0's four lanes of `rows`.
    pub(super) fn quad0(rows: &Rows<T>) -> QuadValue {
        std::array::from_fn(|l| std::array::from_fn(|c| rows[c][l].to_f64()))
    }

    /// Reports `op` to the observer, if any.
    pub(super) fn report(&mut self, op: &Op<T>, active: u64, branch: Option<String>) {
        let Some(mut observer) = self.observer.take() else {
            return;
        };
        let d = op.dst;
        let flow = matches!(
            op.kind,
            Kind::Ife { .. } | Kind::Loop { .. } | Kind::Brk | Kind::Ret | Kind::Cal | Kind::Kil
        );
        let written = (!flow && d.write && !d.skip).then(|| Written {
            register: format!("{}{}", if d.fp16 { "H" } else { "R" }, d.index),
            mask: d.mask,
            value: std::array::from_fn(|l| {
                std::array::from_fn(|c| {
                    if d.fp16 {
                        self.regs.read_h(d.index, c, l).to_f64()
                    } else {
                        self.regs.read_r(d.index, c, l).to_f64()
                    }
                })
            }),
        });
        let sources: Vec<QuadValue> = if flow {
            Vec::new()
        } else {
            (0..op.sources).map(|k| Self::quad0(&self.src[k])).collect()
        };
        let source_components = (0..sources.len()).map(|k| op.need[k]).collect();
        let registers = self.snapshot_lane.map(|l| Box::new(self.snapshot(l)));
        observer(Step {
            registers,
            step: self.steps.saturating_sub(1),
            slot: op.slot,
            opcode: op.opcode,
            active: (active & 0xF) as u8,
            sources,
            source_components,
            written,
            cc: [Self::quad0(&self.cc[0]), Self::quad0(&self.cc[1])],
            a0: self.a0,
            depth: self.depth,
            killed: (self.killed & 0xF) as u8,
            branch,
        });
        self.observer = Some(observer);
    }
}
