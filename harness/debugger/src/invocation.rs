//! What the GDB server needs from an invocation: its registers in the architecture's layout,
//! stepping and breakpoints, register writes, memory reads and monitor commands. Implemented by
//! the fragment [`crate::Session`] and the [`crate::VertexSession`].

use super::cursor::Stop;
use gdbstub::arch::Arch;

/// A steppable invocation.
pub trait Invocation {
    /// The register file gdb sees.
    type Arch: Arch<Usize = u32, BreakpointKind = usize>;
    /// The registers now.
    fn registers(&self) -> <Self::Arch as Arch>::Registers;
    /// Makes changed registers hold the new values from the next instruction on.
    fn write_registers(&mut self, regs: &<Self::Arch as Arch>::Registers) -> Result<(), String>;
    /// One instruction.
    fn step(&mut self) -> Stop;
    /// To a breakpoint or the end.
    fn resume(&mut self) -> Stop;
    /// Adds a breakpoint on a slot.
    fn add_breakpoint(&mut self, slot: u32) -> bool;
    /// Removes one.
    fn remove_breakpoint(&mut self, slot: u32) -> bool;
    /// Reads memory at `addr` (the invocation's documented map); returns the bytes read.
    fn read(&self, addr: u32, data: &mut [u8]) -> usize;
    /// The answer to `monitor rsx WORDS...`.
    fn monitor(&self, words: &[&str]) -> String;
}
