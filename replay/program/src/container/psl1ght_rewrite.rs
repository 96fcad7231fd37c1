//! A PSL1GHT or Tiny3D container with other microcode, so an edited program drops into a
//! homebrew's files (`rsxtrace asm --like`): the header, tables and names stay byte for byte,
//! the microcode (always last in the file: cgcomp `main.cpp`, Tiny3D) is replaced, and the
//! header fields follow the new program as a `CgBinaryProgram`'s do (`rewrite`):
//!
//! - `num_insn` counts the new slots (fragment: inline constants included);
//! - vertex: the load slot (`start_insn`; libreality states none and the early-2011 loader
//!   loads at slot 0, so their programs must load there), `input_mask` and `output_mask`
//!   with every input read and output written added, `num_regs` (the July 2020 layout) at
//!   least what the program needs;
//! - fragment: `num_regs` at least what the program needs, `fp_control` with KIL (0x80) when
//!   the program kills, `texcoords` (where the layout has it) with every texture coordinate
//!   it reads, and each constant's `rsxConstOffsetTable`, or early in 2011 its `index` (the
//!   slot itself), following its inline constants (the k-th inline constant's slot becomes
//!   the k-th of the new microcode; another number of inline constants is refused).
//!
//! A container that keeps anything after its microcode, or whose microcode overlaps its
//! header (which neither tool writes), is refused: the rewritten file is read back, and its
//! tables must be the original's and its microcode the new one.

use super::psl1ght::{FpLayout, Psl1ghtFragmentProgram, Psl1ghtVertexProgram, VpLayout};
use super::rewrite::{
    follow_offsets, fragment_registers, set, vertex_outputs, vertex_registers, RewriteError,
    RewriteNotes,
};
use super::SLOT_SIZE;
use crate::fragment::{self, FpOpcode};
use crate::vertex;

/// `SHADER_CONTROL` KIL bit (rsx-microcode.md B.6), which cgcomp sets in `fp_control`.
const CONTROL_KIL: u32 = 0x80;

/// The bytes of `original` (a parsed vertex container, `bytes` its file) with `ucode`
/// (big-endian words) loaded at `load_slot`.
pub fn psl1ght_vertex_with_microcode(
    bytes: &[u8],
    original: &Psl1ghtVertexProgram,
    ucode: &[u8],
    load_slot: u32,
) -> Result<(Vec<u8>, RewriteNotes), RewriteError> {
    let p = vertex::decode_bytes(ucode).map_err(|e| RewriteError::Decode {
        stage: "vertex",
        why: e.to_string(),
    })?;
    let mut out = with_ucode(bytes, original.ucode_offset, ucode);
    let mut notes = RewriteNotes::default();
    let f = original.layout.fields();
    let (input_at, output_at, slots) = original.layout.masks();
    let count = slot_count(ucode)?;
    put16(&mut out, f.num_insn, "num_insn", count, &mut notes);
    match slots.filter(|_| original.layout != VpLayout::Reality) {
        Some((_, start_at)) => {
            let slot = u16::try_from(load_slot).map_err(|_| RewriteError::LoadSlot {
                slot: load_slot,
                layout: "a 16-bit start_insn cannot hold",
            })?;
            put16(&mut out, start_at, "start_insn", slot, &mut notes);
        }
        None if load_slot != 0 => {
            // libreality states no load slot; the early-2011 loader ignores it (slot 0).
            return Err(RewriteError::LoadSlot {
                slot: load_slot,
                layout: if original.layout == VpLayout::Reality {
                    "the early-2011 loader (realityLoadVertexProgram) ignores: it loads at 0"
                } else {
                    "libreality (Tiny3D) states no field for: it loads at 0"
                },
            });
        }
        None => {}
    }
    let inputs = original.input_mask | p.inputs_read();
    put32(&mut out, input_at, "input_mask", inputs, &mut notes);
    let outputs = original.output_mask | vertex_outputs(&p);
    put32(&mut out, output_at, "output_mask", outputs, &mut notes);
    if let (VpLayout::RsxProgram2020, Some(regs)) = (original.layout, original.num_regs) {
        let needed = u32::from(regs).max(vertex_registers(&p));
        let needed = u16::try_from(needed).unwrap_or(u16::MAX);
        put16(&mut out, 4, "num_regs", needed, &mut notes);
    }
    let back = Psl1ghtVertexProgram::parse(&out).map_err(|_| RewriteError::NotLast)?;
    if back.attributes != original.attributes
        || back.constants != original.constants
        || back.ucode != ucode
    {
        return Err(RewriteError::NotLast);
    }
    Ok((out, notes))
}

/// The bytes of `original` (a parsed fragment container, `bytes` its file) with `ucode` (as
/// in guest memory).
pub fn psl1ght_fragment_with_microcode(
    bytes: &[u8],
    original: &Psl1ghtFragmentProgram,
    ucode: &[u8],
) -> Result<(Vec<u8>, RewriteNotes), RewriteError> {
    let p = fragment::decode(ucode).map_err(|e| RewriteError::Decode {
        stage: "fragment",
        why: e.to_string(),
    })?;
    let mut out = with_ucode(bytes, original.ucode_offset, ucode);
    let mut notes = RewriteNotes::default();
    // The offset tables, each written where the constant's `index` points.
    let mut constants = original.constants.clone();
    let tables = constants.iter_mut().map(|c| {
        let name = c.name.clone().unwrap_or_else(|| "?".into());
        (name, &mut c.embedded_constants)
    });
    notes.moved_uniforms = follow_offsets(tables.collect(), &original.ucode, &p)?;
    let f = original.layout.fields();
    let const_off = bytes
        .get(f.const_off as usize..f.const_off as usize + 4)
        .map_or(0, |b| {
            u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        });
    for (n, (old, new)) in original.constants.iter().zip(&mut constants).enumerate() {
        for (k, (&before, &after)) in old
            .embedded_constants
            .iter()
            .zip(&new.embedded_constants)
            .enumerate()
        {
            if before != after {
                // Early 2011 the constant's index is its slot; since, a table's entry.
                let at = match original.layout {
                    FpLayout::Reality => {
                        new.index = after;
                        const_off + 28 * n as u64 + 4
                    }
                    _ => u64::from(old.index) + 4 + 4 * k as u64,
                };
                write(&mut out, at, &after.to_be_bytes());
            }
        }
    }
    put16(
        &mut out,
        f.num_insn,
        "num_insn",
        slot_count(ucode)?,
        &mut notes,
    );
    let (regs_at, control_at, texcoords_at) = original.layout.control_fields();
    let registers = original.num_regs.max(fragment_registers(&p));
    match original.layout {
        FpLayout::RsxProgram2020 => {
            let registers = u16::try_from(registers).unwrap_or(u16::MAX);
            put16(&mut out, regs_at, "num_regs", registers, &mut notes)
        }
        _ => put32(&mut out, regs_at, "num_regs", registers, &mut notes),
    }
    let kills = p.instructions.iter().any(|i| i.opcode == FpOpcode::Kil);
    let control = original.fp_control | if kills { CONTROL_KIL } else { 0 };
    put32(&mut out, control_at, "fp_control", control, &mut notes);
    if let Some(at) = texcoords_at {
        let texcoords = original.texcoords | ((p.inputs_read() >> 4) & 0x3FF);
        put16(&mut out, at, "texcoords", texcoords, &mut notes);
    }
    let back = Psl1ghtFragmentProgram::parse(&out).map_err(|_| RewriteError::NotLast)?;
    if back.attributes != original.attributes || back.constants != constants || back.ucode != ucode
    {
        return Err(RewriteError::NotLast);
    }
    Ok((out, notes))
}

/// The file through its microcode's offset, then `ucode`.
fn with_ucode(bytes: &[u8], ucode_offset: u32, ucode: &[u8]) -> Vec<u8> {
    let keep = (ucode_offset as usize).min(bytes.len());
    let mut out = Vec::with_capacity(keep + ucode.len());
    out.extend_from_slice(&bytes[..keep]);
    out.extend_from_slice(ucode);
    out
}

fn slot_count(ucode: &[u8]) -> Result<u16, RewriteError> {
    let slots = ucode.len() / SLOT_SIZE as usize;
    u16::try_from(slots).map_err(|_| RewriteError::TooManySlots { slots })
}

fn write(out: &mut [u8], at: u64, value: &[u8]) {
    let at = at as usize;
    if let Some(place) = out.get_mut(at..at + value.len()) {
        place.copy_from_slice(value);
    }
}

fn put16(out: &mut [u8], at: u64, field: &'static str, value: u16, notes: &mut RewriteNotes) {
    let before = out
        .get(at as usize..at as usize + 2)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]));
    let mut slot = u32::from(before);
    set(notes, field, &mut slot, u32::from(value));
    write(out, at, &value.to_be_bytes());
}

fn put32(out: &mut [u8], at: u64, field: &'static str, value: u32, notes: &mut RewriteNotes) {
    let before = out
        .get(at as usize..at as usize + 4)
        .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let mut slot = before;
    set(notes, field, &mut slot, value);
    write(out, at, &value.to_be_bytes());
}
