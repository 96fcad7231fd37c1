//! The register file gdb sees. Stock Debian gdb accepts a target description only behind an
//! architecture it knows, so the description declares `i386` with the complete
//! `org.gnu.gdb.i386.core` feature (every register zero, except `eip`, which is the slot of the
//! next instruction) and then the RSX fragment registers: R0–R47 and H0–H95 (H2n and H2n+1 are
//! the halves of Rn), the condition registers CC0 and CC1, all as four floats, then A0 (the
//! loop counter) and DEPTH (IF/LOOP nesting) as integers (`stack-notes.md`, "gdbstub").

use gdbstub::arch::{Arch, Registers};
use std::fmt::Write;
use std::sync::OnceLock;

/// R registers.
pub const R_COUNT: usize = 48;
/// H registers.
pub const H_COUNT: usize = 96;
/// Bytes of the i386 core feature in a `g` packet: 16 32-bit registers, 8 80-bit x87
/// registers, 8 32-bit x87 control registers.
pub const CORE_BYTES: usize = 16 * 4 + 8 * 10 + 8 * 4;

/// The architecture (type level only).
pub enum RsxFragment {}

/// One lane's registers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FragmentRegisters {
    /// The slot of the next instruction (`eip`).
    pub pc: u32,
    /// R0–R47 (missing entries read as zero).
    pub r: Vec<[f32; 4]>,
    /// H0–H95.
    pub h: Vec<[f32; 4]>,
    /// CC0, CC1.
    pub cc: [[f32; 4]; 2],
    /// A0.
    pub a0: i32,
    /// Nesting depth.
    pub depth: i32,
}

fn vec4(out: &mut impl FnMut(Option<u8>), v: Option<&[f32; 4]>) {
    for c in v.copied().unwrap_or([0.0; 4]) {
        for b in c.to_le_bytes() {
            out(Some(b));
        }
    }
}

/// A `G` packet's register bytes, read in order after the i386 core.
struct Packet<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Packet<'a> {
    /// `bytes` when it is exactly `len` long: `eip` and a reader after the core feature.
    fn after_core(bytes: &'a [u8], len: usize) -> Result<(u32, Packet<'a>), ()> {
        if bytes.len() != len {
            return Err(());
        }
        let mut eip = Packet { bytes, at: 8 * 4 };
        let pc = u32::from_le_bytes(eip.word()?);
        Ok((
            pc,
            Packet {
                bytes,
                at: CORE_BYTES,
            },
        ))
    }

    fn word(&mut self) -> Result<[u8; 4], ()> {
        let w = self
            .bytes
            .get(self.at..self.at + 4)
            .and_then(|b| b.try_into().ok())
            .ok_or(())?;
        self.at += 4;
        Ok(w)
    }

    fn i32(&mut self) -> Result<i32, ()> {
        self.word().map(i32::from_le_bytes)
    }

    fn f32x4(&mut self) -> Result<[f32; 4], ()> {
        let mut v = [0f32; 4];
        for x in &mut v {
            *x = f32::from_le_bytes(self.word()?);
        }
        Ok(v)
    }

    fn vectors(&mut self, n: usize) -> Result<Vec<[f32; 4]>, ()> {
        (0..n).map(|_| self.f32x4()).collect()
    }
}

/// The i386 core feature's bytes: every register zero but `eip` = `pc`.
fn core(out: &mut impl FnMut(Option<u8>), pc: u32) {
    for reg in 0..16 {
        let v: u32 = if reg == 8 { pc } else { 0 };
        for b in v.to_le_bytes() {
            out(Some(b));
        }
    }
    for _ in 0..(8 * 10 + 8 * 4) {
        out(Some(0));
    }
}

impl Registers for FragmentRegisters {
    type ProgramCounter = u32;

    fn pc(&self) -> u32 {
        self.pc
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        core(&mut write_byte, self.pc);
        for i in 0..R_COUNT {
            vec4(&mut write_byte, self.r.get(i));
        }
        for i in 0..H_COUNT {
            vec4(&mut write_byte, self.h.get(i));
        }
        for cc in &self.cc {
            vec4(&mut write_byte, Some(cc));
        }
        for v in [self.a0, self.depth] {
            for b in v.to_le_bytes() {
                write_byte(Some(b));
            }
        }
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        let (pc, mut p) = Packet::after_core(bytes, CORE_BYTES + (R_COUNT + H_COUNT + 2) * 16 + 8)?;
        self.pc = pc;
        self.r = p.vectors(R_COUNT)?;
        self.h = p.vectors(H_COUNT)?;
        self.cc = [p.f32x4()?, p.f32x4()?];
        self.a0 = p.i32()?;
        self.depth = p.i32()?;
        Ok(())
    }
}

/// No single-register access: gdb reads and writes the whole file (`g`/`G`).
#[derive(Debug)]
pub enum NoRegId {}

impl gdbstub::arch::RegId for NoRegId {
    fn from_raw_id(_id: usize) -> Option<(Self, Option<std::num::NonZeroUsize>)> {
        None
    }
}

impl Arch for RsxFragment {
    type Usize = u32;
    type Registers = FragmentRegisters;
    type BreakpointKind = usize;
    type RegId = NoRegId;

    fn target_description_xml() -> Option<&'static str> {
        static XML: OnceLock<String> = OnceLock::new();
        Some(XML.get_or_init(target_xml).as_str())
    }
}

/// The target description (see the module docs).
fn target_xml() -> String {
    let mut x = core_xml();
    x.push_str("<feature name=\"org.rsxtrace.fragment\">\n<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n");
    for i in 0..R_COUNT {
        let _ = writeln!(
            x,
            "<reg name=\"R{i}\" bitsize=\"128\" type=\"v4f\" group=\"vector\"/>"
        );
    }
    for i in 0..H_COUNT {
        let _ = writeln!(
            x,
            "<reg name=\"H{i}\" bitsize=\"128\" type=\"v4f\" group=\"vector\"/>"
        );
    }
    for i in 0..2 {
        let _ = writeln!(
            x,
            "<reg name=\"CC{i}\" bitsize=\"128\" type=\"v4f\" group=\"vector\"/>"
        );
    }
    x.push_str("<reg name=\"A0\" bitsize=\"32\" type=\"int\" group=\"general\"/>\n<reg name=\"DEPTH\" bitsize=\"32\" type=\"int\" group=\"general\"/>\n</feature>\n</target>\n");
    x
}

/// The description's start: the i386 architecture and its complete core feature.
fn core_xml() -> String {
    let mut x = String::from(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n<architecture>i386</architecture>\n<feature name=\"org.gnu.gdb.i386.core\">\n",
    );
    for (name, ty) in [
        ("eax", "int32"),
        ("ecx", "int32"),
        ("edx", "int32"),
        ("ebx", "int32"),
        ("esp", "data_ptr"),
        ("ebp", "data_ptr"),
        ("esi", "int32"),
        ("edi", "int32"),
        ("eip", "code_ptr"),
        ("eflags", "int32"),
        ("cs", "int32"),
        ("ss", "int32"),
        ("ds", "int32"),
        ("es", "int32"),
        ("fs", "int32"),
        ("gs", "int32"),
    ] {
        let _ = writeln!(x, "<reg name=\"{name}\" bitsize=\"32\" type=\"{ty}\"/>");
    }
    for i in 0..8 {
        let _ = writeln!(x, "<reg name=\"st{i}\" bitsize=\"80\" type=\"i387_ext\"/>");
    }
    for name in [
        "fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff", "fop",
    ] {
        let _ = writeln!(
            x,
            "<reg name=\"{name}\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
        );
    }
    x.push_str("</feature>\n");
    x
}

/// Temp registers gdb sees for vertex programs (the RSX's 32).
pub const VERTEX_TEMPS: usize = 32;
/// Vertex output registers.
pub const VERTEX_OUTPUTS: usize = 16;

/// The vertex architecture (type level only): after the i386 core, `R0`–`R31` and the 16
/// outputs (named `HPOS`, `COL0`, ... as the disassembly names them) as four floats, `CC0` and
/// `CC1`, and the address registers `A0` and `A1` as four integers.
pub enum RsxVertex {}

/// One vertex's registers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexRegisters {
    /// The slot of the next instruction (`eip`).
    pub pc: u32,
    /// R0–R31.
    pub r: Vec<[f32; 4]>,
    /// The outputs.
    pub o: Vec<[f32; 4]>,
    /// CC0, CC1.
    pub cc: [[f32; 4]; 2],
    /// A0, A1.
    pub a: [[i32; 4]; 2],
}

impl Registers for VertexRegisters {
    type ProgramCounter = u32;

    fn pc(&self) -> u32 {
        self.pc
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        core(&mut write_byte, self.pc);
        for i in 0..VERTEX_TEMPS {
            vec4(&mut write_byte, self.r.get(i));
        }
        for i in 0..VERTEX_OUTPUTS {
            vec4(&mut write_byte, self.o.get(i));
        }
        for cc in &self.cc {
            vec4(&mut write_byte, Some(cc));
        }
        for a in &self.a {
            for v in a {
                for b in v.to_le_bytes() {
                    write_byte(Some(b));
                }
            }
        }
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        let (pc, mut p) =
            Packet::after_core(bytes, CORE_BYTES + (VERTEX_TEMPS + VERTEX_OUTPUTS + 4) * 16)?;
        self.pc = pc;
        self.r = p.vectors(VERTEX_TEMPS)?;
        self.o = p.vectors(VERTEX_OUTPUTS)?;
        self.cc = [p.f32x4()?, p.f32x4()?];
        for a in &mut self.a {
            *a = [p.i32()?, p.i32()?, p.i32()?, p.i32()?];
        }
        Ok(())
    }
}

impl Arch for RsxVertex {
    type Usize = u32;
    type Registers = VertexRegisters;
    type BreakpointKind = usize;
    type RegId = NoRegId;

    fn target_description_xml() -> Option<&'static str> {
        static XML: OnceLock<String> = OnceLock::new();
        Some(XML.get_or_init(vertex_xml).as_str())
    }
}

/// The vertex target description.
fn vertex_xml() -> String {
    let mut x = core_xml();
    x.push_str("<feature name=\"org.rsxtrace.vertex\">\n<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n<vector id=\"v4i\" type=\"int32\" count=\"4\"/>\n");
    for i in 0..VERTEX_TEMPS {
        let _ = writeln!(
            x,
            "<reg name=\"R{i}\" bitsize=\"128\" type=\"v4f\" group=\"vector\"/>"
        );
    }
    for o in 0..VERTEX_OUTPUTS {
        let name = rsxtrace_replay::interp::vertex::output_name(o as u8)
            .map_or(format!("O{o}"), str::to_string);
        let _ = writeln!(
            x,
            "<reg name=\"{name}\" bitsize=\"128\" type=\"v4f\" group=\"vector\"/>"
        );
    }
    for i in 0..2 {
        let _ = writeln!(
            x,
            "<reg name=\"CC{i}\" bitsize=\"128\" type=\"v4f\" group=\"vector\"/>"
        );
    }
    for i in 0..2 {
        let _ = writeln!(
            x,
            "<reg name=\"A{i}\" bitsize=\"128\" type=\"v4i\" group=\"vector\"/>"
        );
    }
    x.push_str("</feature>\n</target>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_round_trip_through_the_g_packet_layout() {
        let regs = FragmentRegisters {
            pc: 7,
            r: (0..R_COUNT).map(|i| [i as f32, 0.5, -1.0, 2.0]).collect(),
            h: (0..H_COUNT).map(|i| [0.25, i as f32, 0.0, 1.0]).collect(),
            cc: [[1.0, 0.0, -1.0, 0.0], [0.0; 4]],
            a0: 3,
            depth: 1,
        };
        let mut bytes = Vec::new();
        regs.gdb_serialize(|b| bytes.push(b.unwrap_or(0)));
        assert_eq!(bytes.len(), CORE_BYTES + (R_COUNT + H_COUNT + 2) * 16 + 8);
        let mut back = FragmentRegisters::default();
        back.gdb_deserialize(&bytes).unwrap();
        assert_eq!(back, regs);
        assert!(back.gdb_deserialize(&bytes[1..]).is_err());
    }

    #[test]
    fn the_description_declares_the_i386_core_and_every_register() {
        let xml = RsxFragment::target_description_xml().unwrap();
        assert!(xml.contains("<architecture>i386</architecture>"));
        assert!(xml.contains("org.gnu.gdb.i386.core"));
        for r in ["R0\"", "R47\"", "H95\"", "CC1\"", "A0\"", "DEPTH\""] {
            assert!(xml.contains(&format!("name=\"{r}")), "{r}");
        }
    }

    #[test]
    fn vertex_registers_round_trip_and_are_described() {
        let regs = VertexRegisters {
            pc: 3,
            r: (0..VERTEX_TEMPS)
                .map(|i| [i as f32, 1.0, 2.0, 3.0])
                .collect(),
            o: (0..VERTEX_OUTPUTS)
                .map(|i| [0.5, i as f32, 0.0, 1.0])
                .collect(),
            cc: [[1.0, 0.0, 0.0, -1.0], [0.0; 4]],
            a: [[1, -2, 3, 4], [0; 4]],
        };
        let mut bytes = Vec::new();
        regs.gdb_serialize(|b| bytes.push(b.unwrap_or(0)));
        let mut back = VertexRegisters::default();
        back.gdb_deserialize(&bytes).unwrap();
        assert_eq!(back, regs);
        let xml = RsxVertex::target_description_xml().unwrap();
        for r in ["R31\"", "HPOS\"", "COL0\"", "CC1\"", "A1\""] {
            assert!(xml.contains(&format!("name=\"{r}")), "{r}");
        }
    }
}
