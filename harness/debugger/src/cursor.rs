//! Stepping through a recorded invocation: the position (records executed), the breakpoints
//! (slots), what `stepi` and `continue` do, and the program listing around the program
//! counter. Shared by the fragment and vertex sessions.

use std::collections::BTreeSet;
use std::fmt::Display;

/// Where a resumed session stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// One instruction done.
    Step,
    /// A breakpoint's slot is next.
    Breakpoint,
    /// The program ended (exit code 0) or the traced pixel was killed (exit code 1).
    Exited(u8),
}

/// A position in a record of `len` instructions, with breakpoints.
#[derive(Clone, Debug, Default)]
pub struct Cursor {
    /// Records executed.
    pub position: usize,
    breakpoints: BTreeSet<u32>,
}

impl Cursor {
    /// Executes one record of the `len`; `exit` is the code at the end.
    pub fn step(&mut self, len: usize, exit: u8) -> Stop {
        if self.position < len {
            self.position += 1;
        }
        if self.position >= len {
            Stop::Exited(exit)
        } else {
            Stop::Step
        }
    }

    /// Executes until the slot of the next record (`slot_at(position)`) has a breakpoint,
    /// after at least one record, or the end.
    pub fn resume(&mut self, len: usize, exit: u8, slot_at: impl Fn(usize) -> u32) -> Stop {
        loop {
            if let Stop::Exited(code) = self.step(len, exit) {
                return Stop::Exited(code);
            }
            if self.breakpoints.contains(&slot_at(self.position)) {
                return Stop::Breakpoint;
            }
        }
    }

    /// Adds a breakpoint on `slot` (idempotent, as gdb re-inserts them around every resume).
    pub fn add_breakpoint(&mut self, slot: u32) -> bool {
        self.breakpoints.insert(slot);
        true
    }

    /// Removes the breakpoint on `slot`.
    pub fn remove_breakpoint(&mut self, slot: u32) -> bool {
        self.breakpoints.remove(&slot)
    }
}

/// The program, one instruction (`(slot, text)`) per line, with `=>` at slot `pc`.
pub fn listing<D: Display>(instructions: impl Iterator<Item = (u64, D)>, pc: u64) -> String {
    instructions
        .map(|(slot, i)| {
            let mark = if slot == pc { "=>" } else { "  " };
            format!("{mark} {i}\n")
        })
        .collect()
}

/// The instruction at slot `pc`, or `PC: (end)`.
pub fn at<D: Display>(mut instructions: impl Iterator<Item = (u64, D)>, pc: u64) -> String {
    instructions
        .find(|(slot, _)| *slot == pc)
        .map_or_else(|| format!("{pc}: (end)"), |(_, i)| i.to_string())
}
