//! One invocation of a fragment program, recorded once by the reference interpreter
//! (`trace_quad_with`, with the traced lane's register file after every instruction) and then
//! stepped through: the position is the number of records executed, the program counter is
//! the slot of the next record. A register write from the debugger becomes a [`Patch`] made
//! before the next instruction, and the invocation is recorded again with it, so the write
//! takes effect on everything after it.
//!
//! Address map of memory reads (little-endian f32 values; `docs/debug.md`):
//! - `0x0000_0000 + 16·slot`: the program's microcode as in guest memory;
//! - `0x1000_0000 + 16·n`: input attribute n (WPOS, COL0, COL1, FOGC, TEX0–TEX9, FACING) of the
//!   traced lane;
//! - `0x2000_0000 + 16·n`: the program's n-th inline constant (in slot order);
//! - `0x3000_0000 + 16·n`: colour output n (0–3) of the traced lane once the program ended,
//!   then depth at `+64` (zero before the end).

use super::arch::FragmentRegisters;
use super::arch::RsxFragment;
use super::cursor::{at, listing, Cursor, Stop};
use super::invocation::Invocation;
use rsxtrace_program::fragment::FragmentProgram;
use rsxtrace_replay::interp::fragment::trace::{
    trace_quad_with, Patch, QuadTrace, Step, TraceOptions,
};
use rsxtrace_replay::interp::fragment::{FragmentExecError, FragmentState, QuadInputs};
use rsxtrace_replay::texture::Sampler;

/// Base address of the inputs.
pub const INPUTS: u32 = 0x1000_0000;
/// Base address of the inline constants.
pub const CONSTANTS: u32 = 0x2000_0000;
/// Base address of the outputs.
pub const OUTPUTS: u32 = 0x3000_0000;

/// Why a session cannot run.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The interpreter refused the program.
    #[error("the interpreter refused the program: {0}")]
    Exec(#[from] FragmentExecError),
}

/// A stepped invocation.
pub struct Session {
    program: FragmentProgram,
    ucode: Vec<u8>,
    state: FragmentState,
    quad: QuadInputs,
    lane: usize,
    sampler: Box<dyn Sampler + Send>,
    patches: Vec<Patch>,
    trace: QuadTrace,
    cursor: Cursor,
    /// The sampled units, for `monitor rsx textures`.
    textures: String,
}

impl Session {
    /// A session on lane `lane` of `quad`, stopped before the first instruction. `ucode` is
    /// the program's microcode for memory reads.
    pub fn new(
        program: FragmentProgram,
        ucode: Vec<u8>,
        state: FragmentState,
        (quad, lane): (QuadInputs, usize),
        sampler: Box<dyn Sampler + Send>,
    ) -> Result<Session, SessionError> {
        let lane = lane & 3;
        let trace = record(&program, &state, &quad, lane, sampler.as_ref(), &[])?;
        Ok(Session {
            program,
            ucode,
            state,
            quad,
            lane,
            sampler,
            patches: Vec::new(),
            trace,
            cursor: Cursor::default(),
            textures: "no texture unit sampled".to_string(),
        })
    }

    /// Sets the text `monitor rsx textures` answers.
    pub fn describe_textures(&mut self, text: String) {
        self.textures = text;
    }

    /// The record of the next instruction, `None` after the end.
    pub fn next(&self) -> Option<&Step> {
        self.trace.steps.get(self.cursor.position)
    }

    /// The record of the last executed instruction.
    pub fn last(&self) -> Option<&Step> {
        self.cursor
            .position
            .checked_sub(1)
            .and_then(|p| self.trace.steps.get(p))
    }

    /// The program counter: the next instruction's slot, or the slot after the last one
    /// once the program has ended.
    pub fn pc(&self) -> u32 {
        self.next()
            .map_or_else(|| self.program.slot_count, |s| s.slot)
    }

    /// Whether the program has ended.
    pub fn ended(&self) -> bool {
        self.cursor.position >= self.trace.steps.len()
    }

    /// The exit code at the end: 1 when the traced pixel was killed, else 0.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.trace.outputs.lanes[self.lane].killed)
    }

    /// The traced lane's registers now.
    pub fn registers(&self) -> FragmentRegisters {
        let f = |v: &[f64; 4]| v.map(|c| c as f32);
        let mut regs = FragmentRegisters {
            pc: self.pc(),
            ..FragmentRegisters::default()
        };
        if let Some(s) = self.last() {
            if let Some(file) = &s.registers {
                regs.r = file.r.iter().map(f).collect();
                regs.h = file.h.iter().map(f).collect();
            }
            regs.cc = [f(&s.cc[0][self.lane]), f(&s.cc[1][self.lane])];
        }
        // A0 and the depth the next instruction runs with (a LOOP record sets A0 for the body
        // it enters; the body runs one level deeper than the LOOP).
        if let Some(s) = self.next().or(self.last()) {
            regs.a0 = i32::try_from(s.a0).unwrap_or(i32::MAX);
            regs.depth = i32::try_from(s.depth).unwrap_or(i32::MAX);
        }
        // Writes made here and not yet reached by an instruction already hold.
        let next = self.last().map_or(0, |s| s.step + 1);
        for p in self.patches.iter().filter(|p| p.step == next) {
            let file = if p.fp16 { &mut regs.h } else { &mut regs.r };
            let count = if p.fp16 { 96 } else { 48 };
            if file.len() < count {
                file.resize(count, [0.0; 4]);
            }
            if let Some(v) = file.get_mut(usize::from(p.index)) {
                *v = p.value.map(|c| c as f32);
            }
        }
        regs
    }

    /// Makes the R and H registers that differ in `regs` hold its values from the next
    /// instruction on (the invocation is recorded again with the writes).
    pub fn write_registers(&mut self, regs: &FragmentRegisters) -> Result<(), SessionError> {
        let now = self.registers();
        let step = self.last().map_or(0, |s| s.step + 1);
        let mut patches = self.patches.clone();
        let mut push = |fp16: bool, index: usize, new: &[f32; 4], old: Option<&[f32; 4]>| {
            if old.copied().unwrap_or([0.0; 4]) != *new {
                patches.push(Patch {
                    step,
                    fp16,
                    index: index as u8,
                    lane: self.lane,
                    value: new.map(f64::from),
                });
            }
        };
        for (i, v) in regs.r.iter().enumerate() {
            push(false, i, v, now.r.get(i));
        }
        for (i, v) in regs.h.iter().enumerate() {
            push(true, i, v, now.h.get(i));
        }
        if patches.len() == self.patches.len() {
            return Ok(());
        }
        let trace = record(
            &self.program,
            &self.state,
            &self.quad,
            self.lane,
            self.sampler.as_ref(),
            &patches,
        )?;
        self.patches = patches;
        self.trace = trace;
        Ok(())
    }

    /// Reads `data.len()` bytes at `addr` (the module docs' map); returns how many exist.
    pub fn read(&self, addr: u32, data: &mut [u8]) -> usize {
        let bytes = self.region(addr);
        let n = bytes.len().min(data.len());
        data[..n].copy_from_slice(&bytes[..n]);
        n
    }

    /// The bytes from `addr` to the end of its region.
    fn region(&self, addr: u32) -> Vec<u8> {
        let floats = |v: Vec<f32>, off: u32| -> Vec<u8> {
            v.iter()
                .flat_map(|x| x.to_le_bytes())
                .skip(off as usize)
                .collect()
        };
        match addr {
            a if a < INPUTS => self.ucode.iter().skip(a as usize).copied().collect(),
            a if a < CONSTANTS => {
                let lane = &self.quad.lanes[self.lane];
                floats(
                    lane.attributes.iter().flatten().copied().collect(),
                    a - INPUTS,
                )
            }
            a if a < OUTPUTS => floats(self.inline_constants(), a - CONSTANTS),
            a => {
                let mut v = Vec::with_capacity(17);
                let o = &self.trace.outputs.lanes[self.lane];
                let ended = self.ended();
                for c in &o.colors {
                    v.extend(c.map(|x| if ended { x as f32 } else { 0.0 }));
                }
                v.push(if ended {
                    o.depth.unwrap_or(0.0) as f32
                } else {
                    0.0
                });
                floats(v, a - OUTPUTS)
            }
        }
    }

    /// The inline constants in slot order.
    fn inline_constants(&self) -> Vec<f32> {
        self.program
            .instructions
            .iter()
            .filter_map(|i| i.constant.map(|c| c.values()))
            .flatten()
            .collect()
    }

    /// The disassembly, with `=>` at the next instruction.
    pub fn disassembly(&self) -> String {
        listing(self.slots(), u64::from(self.pc()))
    }

    /// The next instruction's text.
    pub fn instruction(&self) -> String {
        at(self.slots(), u64::from(self.pc()))
    }

    /// The instructions with their slots.
    fn slots(
        &self,
    ) -> impl Iterator<Item = (u64, &rsxtrace_program::fragment::FragmentInstruction)> {
        self.program
            .instructions
            .iter()
            .map(|i| (u64::from(i.slot), i))
    }

    /// The last written register in all four lanes of the quad with its screen-space
    /// derivatives (right − left, bottom − top, per row and column as DDX/DDY compute them).
    pub fn quad_view(&self) -> String {
        let Some(w) = self.last().and_then(|s| s.written.as_ref()) else {
            return "no register written yet".to_string();
        };
        let v = &w.value;
        let d = |a: usize, b: usize| -> [f64; 4] { std::array::from_fn(|c| v[b][c] - v[a][c]) };
        format!(
            "{} (lane {} traced)\n  lane 0 {:?}  lane 1 {:?}\n  lane 2 {:?}  lane 3 {:?}\n  ddx top {:?}  bottom {:?}\n  ddy left {:?}  right {:?}\n",
            w.register,
            self.lane,
            v[0],
            v[1],
            v[2],
            v[3],
            d(0, 1),
            d(2, 3),
            d(0, 2),
            d(1, 3)
        )
    }
}

/// The invocation recorded with `patches`.
fn record(
    program: &FragmentProgram,
    state: &FragmentState,
    quad: &QuadInputs,
    lane: usize,
    sampler: &dyn Sampler,
    patches: &[Patch],
) -> Result<QuadTrace, SessionError> {
    let options = TraceOptions {
        snapshot_lane: Some(lane),
        patches: patches.to_vec(),
    };
    Ok(trace_quad_with(program, state, quad, sampler, &options)?)
}

impl Invocation for Session {
    type Arch = RsxFragment;

    fn registers(&self) -> FragmentRegisters {
        Session::registers(self)
    }

    fn write_registers(&mut self, regs: &FragmentRegisters) -> Result<(), String> {
        Session::write_registers(self, regs).map_err(|e| e.to_string())
    }

    fn step(&mut self) -> Stop {
        let exit = self.exit_code();
        self.cursor.step(self.trace.steps.len(), exit)
    }

    fn resume(&mut self) -> Stop {
        let exit = self.exit_code();
        let steps = &self.trace.steps;
        let end = self.program.slot_count;
        self.cursor
            .resume(steps.len(), exit, |p| steps.get(p).map_or(end, |s| s.slot))
    }

    fn add_breakpoint(&mut self, slot: u32) -> bool {
        self.cursor.add_breakpoint(slot)
    }

    fn remove_breakpoint(&mut self, slot: u32) -> bool {
        self.cursor.remove_breakpoint(slot)
    }

    fn read(&self, addr: u32, data: &mut [u8]) -> usize {
        Session::read(self, addr, data)
    }

    fn monitor(&self, words: &[&str]) -> String {
        match words {
            ["disasm"] => self.disassembly(),
            ["insn"] => self.instruction(),
            ["quad"] => self.quad_view(),
            ["textures"] => self.textures.clone(),
            _ => "monitor commands: rsx disasm | rsx insn | rsx quad | rsx textures".to_string(),
        }
    }
}
