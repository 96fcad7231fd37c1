//! One vertex of a draw, recorded once by the reference vertex interpreter
//! (`rsxtrace_replay::interp::vertex::trace`) and stepped through like a fragment
//! [`crate::Session`]. The registers at a position are the initial state (temps and CC zero,
//! outputs (0, 0, 0, 1), address registers zero) with every recorded change applied in order;
//! a register write becomes a [`VertexPatch`] before the next instruction and the vertex is
//! recorded again with it.
//!
//! Address map of memory reads (little-endian; `docs/debug.md`):
//! - `0x0000_0000 + 16·slot`: transform program memory, each word big-endian as in microcode;
//! - `0x1000_0000 + 16·n`: input attribute n of the vertex (f32);
//! - `0x2000_0000 + 16·n`: transform constant `c[n]` (f32);
//! - `0x3000_0000 + 16·n`: output register n once the vertex ended (f32).

use super::arch::{RsxVertex, VertexRegisters, VERTEX_OUTPUTS, VERTEX_TEMPS};
use super::cursor::{at, listing, Cursor, Stop};
use super::invocation::Invocation;
use super::session::{CONSTANTS, INPUTS, OUTPUTS};
use rsxtrace_program::vertex::VertexProgram;
use rsxtrace_replay::interp::vertex::trace::{
    trace_vertex_with, VertexPatch, VertexRegister, VertexTrace,
};
use rsxtrace_replay::interp::vertex::{
    output_name, ConstantBank, VertexAttributes, VertexEnvironment, VertexExecError, VertexOptions,
};

/// What a vertex runs with.
pub struct VertexInputs {
    /// The program.
    pub program: VertexProgram,
    /// Transform program memory.
    pub memory_words: Vec<u32>,
    /// Transform constants.
    pub constants: ConstantBank,
    /// Their values, for memory reads.
    pub constant_values: Vec<[f32; 4]>,
    /// `SET_TRANSFORM_BRANCH_BITS`.
    pub branch_bits: u32,
    /// Attributes provided.
    pub input_mask: u16,
    /// The vertex's attributes.
    pub input: VertexAttributes,
    /// Interpreter options.
    pub options: VertexOptions,
}

/// A stepped vertex.
pub struct VertexSession {
    inputs: VertexInputs,
    patches: Vec<VertexPatch>,
    trace: VertexTrace,
    cursor: Cursor,
}

impl VertexSession {
    /// A session stopped before the first instruction.
    pub fn new(inputs: VertexInputs) -> Result<VertexSession, VertexExecError> {
        let trace = record(&inputs, &[])?;
        Ok(VertexSession {
            inputs,
            patches: Vec::new(),
            trace,
            cursor: Cursor::default(),
        })
    }

    fn pc(&self) -> u32 {
        let end = self
            .inputs
            .program
            .instructions
            .last()
            .map_or(0, |i| i.slot + 1);
        let slot = self
            .trace
            .steps
            .get(self.cursor.position)
            .map_or(end, |s| s.slot);
        u32::try_from(slot).unwrap_or(u32::MAX)
    }

    /// The next instruction's text.
    fn instruction(&self) -> String {
        at(self.slots(), u64::from(self.pc()))
    }

    /// The disassembly, with `=>` at the next instruction.
    fn disassembly(&self) -> String {
        listing(self.slots(), u64::from(self.pc()))
    }

    /// The instructions with their slots.
    fn slots(&self) -> impl Iterator<Item = (u64, &rsxtrace_program::vertex::VertexInstruction)> {
        self.inputs
            .program
            .instructions
            .iter()
            .map(|i| (i.slot as u64, i))
    }

    /// The instruction count of the next instruction.
    fn next_step(&self) -> u32 {
        self.cursor
            .position
            .checked_sub(1)
            .and_then(|p| self.trace.steps.get(p))
            .map_or(0, |s| s.step + 1)
    }
}

/// The vertex recorded with `patches`.
fn record(inputs: &VertexInputs, patches: &[VertexPatch]) -> Result<VertexTrace, VertexExecError> {
    let env = VertexEnvironment {
        constants: &inputs.constants,
        branch_bits: Some(inputs.branch_bits),
        sampler: None,
        input_mask: inputs.input_mask,
    };
    trace_vertex_with(
        &inputs.program,
        &inputs.memory_words,
        &env,
        &inputs.input,
        &inputs.options,
        patches,
    )
}

/// `name`'s register, by the names the trace uses (`R3`, `o[HPOS]`, `CC0`, `A1`).
fn parse_register(name: &str) -> Option<VertexRegister> {
    let n = |s: &str| s.parse::<u8>().ok();
    if let Some(o) = name.strip_prefix("o[").and_then(|s| s.strip_suffix(']')) {
        return (0..VERTEX_OUTPUTS as u8)
            .find(|&k| output_name(k) == Some(o) || format!("{k}") == o)
            .map(VertexRegister::Output);
    }
    if let Some(c) = name.strip_prefix("CC") {
        return n(c).map(VertexRegister::Cc);
    }
    if let Some(r) = name.strip_prefix('R') {
        return n(r).map(VertexRegister::Temp);
    }
    name.strip_prefix('A').and_then(n).map(VertexRegister::Addr)
}

impl Invocation for VertexSession {
    type Arch = RsxVertex;

    fn registers(&self) -> VertexRegisters {
        let mut regs = VertexRegisters {
            pc: self.pc(),
            r: vec![[0.0; 4]; VERTEX_TEMPS],
            o: vec![[0.0, 0.0, 0.0, 1.0]; VERTEX_OUTPUTS],
            ..VertexRegisters::default()
        };
        let mut apply = |register: VertexRegister, v: [f64; 4]| {
            let f = v.map(|c| c as f32);
            match register {
                VertexRegister::Temp(i) => {
                    if let Some(x) = regs.r.get_mut(usize::from(i)) {
                        *x = f;
                    }
                }
                VertexRegister::Output(i) => {
                    if let Some(x) = regs.o.get_mut(usize::from(i)) {
                        *x = f;
                    }
                }
                VertexRegister::Cc(i) => {
                    if let Some(x) = regs.cc.get_mut(usize::from(i)) {
                        *x = f;
                    }
                }
                VertexRegister::Addr(i) => {
                    if let Some(x) = regs.a.get_mut(usize::from(i)) {
                        *x = v.map(|c| c as i32);
                    }
                }
            }
        };
        for s in self.trace.steps.iter().take(self.cursor.position) {
            for (name, v) in &s.changed {
                if let Some(r) = parse_register(name) {
                    apply(r, *v);
                }
            }
        }
        // Writes made here and not yet reached by an instruction already hold.
        let next = self.next_step();
        for p in self.patches.iter().filter(|p| p.step == next) {
            apply(p.register, p.value);
        }
        regs
    }

    fn write_registers(&mut self, regs: &VertexRegisters) -> Result<(), String> {
        let now = self.registers();
        let step = self.next_step();
        let mut patches = self.patches.clone();
        let mut push = |register: VertexRegister, new: [f64; 4], old: [f64; 4]| {
            if new != old {
                patches.push(VertexPatch {
                    step,
                    register,
                    value: new,
                });
            }
        };
        let f = |v: &[f32; 4]| v.map(f64::from);
        let i = |v: &[i32; 4]| v.map(f64::from);
        for (k, (new, old)) in regs.r.iter().zip(&now.r).enumerate() {
            push(VertexRegister::Temp(k as u8), f(new), f(old));
        }
        for (k, (new, old)) in regs.o.iter().zip(&now.o).enumerate() {
            push(VertexRegister::Output(k as u8), f(new), f(old));
        }
        for (k, (new, old)) in regs.cc.iter().zip(&now.cc).enumerate() {
            push(VertexRegister::Cc(k as u8), f(new), f(old));
        }
        for (k, (new, old)) in regs.a.iter().zip(&now.a).enumerate() {
            push(VertexRegister::Addr(k as u8), i(new), i(old));
        }
        if patches.len() == self.patches.len() {
            return Ok(());
        }
        self.trace = record(&self.inputs, &patches).map_err(|e| e.to_string())?;
        self.patches = patches;
        Ok(())
    }

    fn step(&mut self) -> Stop {
        self.cursor.step(self.trace.steps.len(), 0)
    }

    fn resume(&mut self) -> Stop {
        let steps = &self.trace.steps;
        let end = self.pc();
        self.cursor.resume(steps.len(), 0, |p| {
            steps
                .get(p)
                .map_or(end, |s| u32::try_from(s.slot).unwrap_or(u32::MAX))
        })
    }

    fn add_breakpoint(&mut self, slot: u32) -> bool {
        self.cursor.add_breakpoint(slot)
    }

    fn remove_breakpoint(&mut self, slot: u32) -> bool {
        self.cursor.remove_breakpoint(slot)
    }

    fn read(&self, addr: u32, data: &mut [u8]) -> usize {
        let floats = |v: &[[f32; 4]], off: u32| -> Vec<u8> {
            v.iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .skip(off as usize)
                .collect()
        };
        let bytes: Vec<u8> = match addr {
            a if a < INPUTS => self
                .inputs
                .memory_words
                .iter()
                .flat_map(|w| w.to_be_bytes())
                .skip(a as usize)
                .collect(),
            a if a < CONSTANTS => floats(&self.inputs.input, a - INPUTS),
            a if a < OUTPUTS => floats(&self.inputs.constant_values, a - CONSTANTS),
            a => {
                let ended = self.cursor.position >= self.trace.steps.len();
                let out: Vec<[f32; 4]> = self
                    .trace
                    .output
                    .registers
                    .iter()
                    .map(|r| if ended { r.map(|c| c as f32) } else { [0.0; 4] })
                    .collect();
                floats(&out, a - OUTPUTS)
            }
        };
        let n = bytes.len().min(data.len());
        data[..n].copy_from_slice(&bytes[..n]);
        n
    }

    fn monitor(&self, words: &[&str]) -> String {
        match words {
            ["disasm"] => self.disassembly(),
            ["insn"] => self.instruction(),
            _ => "monitor commands (vertex): rsx disasm | rsx insn".to_string(),
        }
    }
}
