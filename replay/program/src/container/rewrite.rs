//! A `CgBinaryProgram` with other microcode: the container a game loads (its parameters,
//! their bindings and its stage descriptor) around an edited program, so a modder's program
//! drops into the game's shader files (`rsxtrace asm --like`).
//!
//! What follows the microcode:
//! - **Embedded constants** (fragment uniforms, which the game writes into inline constant
//!   slots by byte offset): each offset the original's table names is the k-th inline
//!   constant there, and becomes the k-th inline constant's offset in the new microcode. With
//!   another number of inline constants, a table cannot follow and the program is refused.
//! - **Counts and masks**: `instructionCount` (fragment: slots, inline constants included;
//!   vertex: instructions), the vertex `instructionSlot`; `registerCount` at least what the
//!   program needs (fragment: the largest of R index + 1, H index / 2 + 1 and 2, which is
//!   what `sce-cgc` wrote for all nine corpus fragment programs; vertex: R index + 1, at
//!   least 1); every input the program reads and output it writes added to the masks
//!   (`pixelKill` set for KIL). Masks keep the original's other bits.
//!
//! Mask bits are libgcm's `CELL_GCM_ATTRIB_OUTPUT_MASK_*` (RPCS3 `gcm_enums.h`): front and
//! back diffuse 0 and 2, front and back specular 1 and 3, fog 4, point size 5, TEX8 12,
//! TEX9 13, TEX0-TEX7 14-21. A fragment program's `attributeInputMask` uses them too (the
//! corpus: COL0 is 0x5, front and back diffuse, TEX0 0x4000; COL1 is taken as front and back
//! specular by analogy), its `texCoordsInputMask` bit n is TEXn (the corpus: TEX0 is 0x1);
//! the vertex input mask's bit n is `v[n]`.

use super::cg::{CgProgram, CgStageInfo};
use crate::fragment::{self, FragmentProgram, SourceKind};
use crate::vertex::{self, RegisterType, VertexProgram};

/// Why microcode cannot go into a container.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RewriteError {
    /// The microcode does not decode as the container's stage.
    #[error("the new {stage} microcode does not decode: {why}")]
    Decode {
        /// `vertex` or `fragment`.
        stage: &'static str,
        /// The decoder's message.
        why: String,
    },
    /// The original's microcode does not decode (its constant table cannot be followed).
    #[error("the container's own microcode does not decode: {0}")]
    Original(String),
    /// Uniforms name inline constants, and the new program has another number of them.
    #[error(
        "the container's uniforms {names} live in its {old} inline constants; the new program \
         has {new}, so their offsets cannot follow (keep the constants where they are, or write \
         raw microcode)"
    )]
    ConstantsMoved {
        /// The uniforms with embedded constants.
        names: String,
        /// Inline constants in the original.
        old: usize,
        /// Inline constants in the new program.
        new: usize,
    },
    /// A load slot the container cannot state.
    #[error("the program loads at slot {slot}, which {layout}")]
    LoadSlot {
        /// The program's load slot.
        slot: u32,
        /// Why the container cannot state it.
        layout: &'static str,
    },
    /// A PSL1GHT container whose tables or names lie after its microcode, where the new
    /// microcode goes, or whose microcode overlaps its header.
    #[error(
        "the container keeps its tables or names after its microcode, or its microcode \
         overlaps its header (cgcomp and Tiny3D write the microcode last, after the rest), so \
         new microcode cannot take its place"
    )]
    NotLast,
    /// More slots than the container's 16-bit count holds.
    #[error("{slots} slots do not fit the container's 16-bit instruction count")]
    TooManySlots {
        /// The new program's slots.
        slots: usize,
    },
    /// An embedded-constant offset that is no inline constant of the original.
    #[error(
        "uniform {name}: offset {offset:#x} is no inline constant of the container's microcode"
    )]
    NotAConstant {
        /// The uniform.
        name: String,
        /// The offset.
        offset: u32,
    },
}

/// What changed besides the microcode.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RewriteNotes {
    /// Uniforms whose embedded-constant offsets moved, with the new offsets.
    pub moved_uniforms: Vec<(String, Vec<u32>)>,
    /// Header fields changed: `(field, before, after)`.
    pub fields: Vec<(&'static str, u32, u32)>,
}

/// `original` with `ucode` (as a container stores it: a fragment program as in guest
/// memory, a vertex program as big-endian words) and, for a vertex program, `load_slot`.
pub fn with_microcode(
    original: &CgProgram,
    ucode: &[u8],
    load_slot: u32,
) -> Result<(CgProgram, RewriteNotes), RewriteError> {
    let mut out = original.clone();
    out.ucode = ucode.to_vec();
    let mut notes = RewriteNotes::default();
    match &mut out.stage_info {
        CgStageInfo::Vertex(v) => {
            let p = vertex::decode_bytes(ucode).map_err(|e| RewriteError::Decode {
                stage: "vertex",
                why: e.to_string(),
            })?;
            let count = u32::try_from(p.instructions.len()).unwrap_or(u32::MAX);
            set(
                &mut notes,
                "instructionCount",
                &mut v.instruction_count,
                count,
            );
            set(
                &mut notes,
                "instructionSlot",
                &mut v.instruction_slot,
                load_slot,
            );
            let registers = v.register_count.max(vertex_registers(&p));
            set(
                &mut notes,
                "registerCount",
                &mut v.register_count,
                registers,
            );
            let inputs = v.attribute_input_mask | p.inputs_read();
            set(
                &mut notes,
                "attributeInputMask",
                &mut v.attribute_input_mask,
                inputs,
            );
            let outputs = v.attribute_output_mask | vertex_outputs(&p);
            set(
                &mut notes,
                "attributeOutputMask",
                &mut v.attribute_output_mask,
                outputs,
            );
        }
        CgStageInfo::Fragment(f) => {
            let p = fragment::decode(ucode).map_err(|e| RewriteError::Decode {
                stage: "fragment",
                why: e.to_string(),
            })?;
            notes.moved_uniforms = follow_constants(&mut out.parameters, &original.ucode, &p)?;
            let slots = u32::try_from(ucode.len() / 16).unwrap_or(u32::MAX);
            set(
                &mut notes,
                "instructionCount",
                &mut f.instruction_count,
                slots,
            );
            let mut registers = u32::from(f.register_count);
            let needed = registers.max(fragment_registers(&p));
            set(&mut notes, "registerCount", &mut registers, needed);
            f.register_count = u8::try_from(registers).unwrap_or(u8::MAX);
            let read = p.inputs_read();
            let inputs = f.attribute_input_mask | fragment_input_bits(read);
            set(
                &mut notes,
                "attributeInputMask",
                &mut f.attribute_input_mask,
                inputs,
            );
            let mut texcoords = u32::from(f.tex_coords_input_mask);
            let wanted = texcoords | u32::from((read >> 4) & 0x3FF);
            set(&mut notes, "texCoordsInputMask", &mut texcoords, wanted);
            f.tex_coords_input_mask = u16::try_from(texcoords).unwrap_or(u16::MAX);
            let kills = p
                .instructions
                .iter()
                .any(|i| i.opcode == fragment::FpOpcode::Kil);
            let mut kill = u32::from(f.pixel_kill);
            let wanted = kill | u32::from(kills);
            set(&mut notes, "pixelKill", &mut kill, wanted);
            f.pixel_kill = kill != 0;
        }
    }
    Ok((out, notes))
}

/// Set a header field, noting it when it changes.
pub(super) fn set(notes: &mut RewriteNotes, field: &'static str, slot: &mut u32, value: u32) {
    if *slot != value {
        notes.fields.push((field, *slot, value));
        *slot = value;
    }
}

/// Byte offsets of a fragment program's inline constants, in order.
fn constant_offsets(p: &FragmentProgram) -> Vec<u32> {
    p.instructions
        .iter()
        .filter(|i| i.constant.is_some())
        .map(|i| (i.slot + 1) * 16)
        .collect()
}

/// Each embedded-constant offset moved from the k-th inline constant of the original
/// microcode `old` to the k-th of `new`; the uniforms that moved.
fn follow_constants(
    parameters: &mut [super::cg::CgParameter],
    old: &[u8],
    new: &FragmentProgram,
) -> Result<Vec<(String, Vec<u32>)>, RewriteError> {
    let tables = parameters.iter_mut().map(|p| {
        let name = p.name.clone().unwrap_or_else(|| "?".into());
        (name, &mut p.embedded_constants)
    });
    follow_offsets(tables.collect(), old, new)
}

/// Each of the named offset lists (a uniform's inline-constant slots: a CgBinaryProgram's
/// embedded constants, a PSL1GHT constant's offset table) moved from the k-th inline
/// constant of the original microcode `old` to the k-th of `new`; the lists that moved,
/// with their new offsets.
pub(super) fn follow_offsets(
    mut tables: Vec<(String, &mut Vec<u32>)>,
    old: &[u8],
    new: &FragmentProgram,
) -> Result<Vec<(String, Vec<u32>)>, RewriteError> {
    tables.retain(|(_, offsets)| !offsets.is_empty());
    if tables.is_empty() {
        return Ok(Vec::new());
    }
    let old = fragment::decode(old).map_err(|e| RewriteError::Original(e.to_string()))?;
    let (before, after) = (constant_offsets(&old), constant_offsets(new));
    if before.len() != after.len() {
        let names: Vec<&str> = tables.iter().map(|(name, _)| name.as_str()).collect();
        return Err(RewriteError::ConstantsMoved {
            names: names.join(", "),
            old: before.len(),
            new: after.len(),
        });
    }
    let mut moved = Vec::new();
    for (name, embedded) in tables {
        let offsets = embedded
            .iter()
            .map(|&offset| {
                before
                    .iter()
                    .position(|&o| o == offset)
                    .map(|k| after[k])
                    .ok_or_else(|| RewriteError::NotAConstant {
                        name: name.clone(),
                        offset,
                    })
            })
            .collect::<Result<Vec<u32>, _>>()?;
        if offsets != *embedded {
            embedded.clone_from(&offsets);
            moved.push((name, offsets));
        }
    }
    Ok(moved)
}

/// The temp-register count a fragment program needs: max(R + 1, H / 2 + 1, 2) over every
/// register it reads or writes (H(2n) and H(2n+1) are halves of R(n), rsx-microcode.md).
pub fn fragment_registers(p: &FragmentProgram) -> u32 {
    let count = |index: u8, half: bool| {
        if half {
            u32::from(index) / 2 + 1
        } else {
            u32::from(index) + 1
        }
    };
    let mut needed = 2;
    for i in &p.instructions {
        let Some(alu) = i.alu() else { continue };
        if !i.dest.no_dest {
            needed = needed.max(count(i.dest.index, i.dest.fp16));
        }
        for s in &alu.sources[..i.opcode.operands_read().min(3)] {
            if s.kind == SourceKind::Temp {
                needed = needed.max(count(s.index, s.fp16));
            }
        }
    }
    needed
}

/// The temp registers a vertex program needs: the largest R index it reads or writes + 1,
/// at least 1.
pub(super) fn vertex_registers(p: &VertexProgram) -> u32 {
    let mut needed = 1;
    for i in &p.instructions {
        for (s, _) in i.sources.iter().zip(i.operands_read()).filter(|(_, r)| *r) {
            if s.reg_type == RegisterType::Temp {
                needed = needed.max(u32::from(s.temp_index) + 1);
            }
        }
        let address_op = matches!(
            i.vector,
            vertex::VectorOpcode::Arl | vertex::VectorOpcode::Arr | vertex::VectorOpcode::Ara
        );
        if let Some(t) = i.vec_dst_temp.filter(|_| i.vector_active() && !address_op) {
            needed = needed.max(u32::from(t) + 1);
        }
        if let Some(t) = i
            .sca_dst_temp
            .filter(|_| i.scalar_active() && !i.scalar.is_flow())
        {
            needed = needed.max(u32::from(t) + 1);
        }
    }
    needed
}

/// The output-mask bit of vertex output register `o[n]` (COL0 1, COL1 2, BFC0 3, BFC1 4,
/// FOGC 5, PSZ 6, TEX0-TEX8 7-15); HPOS and the rest have none.
fn output_bit(register: u8) -> u32 {
    match register {
        1 => 1 << 0,
        2 => 1 << 1,
        3 => 1 << 2,
        4 => 1 << 3,
        5 => 1 << 4,
        6 => 1 << 5,
        7..=14 => 1 << (14 + u32::from(register - 7)),
        15 => 1 << 12,
        _ => 0,
    }
}

/// The output-mask bits of the outputs a vertex program writes.
pub(super) fn vertex_outputs(p: &VertexProgram) -> u32 {
    p.instructions
        .iter()
        .filter_map(|i| {
            let vector = i.vec_result
                && i.vector_active()
                && !matches!(
                    i.vector,
                    vertex::VectorOpcode::Arl
                        | vertex::VectorOpcode::Arr
                        | vertex::VectorOpcode::Ara
                );
            let scalar = !i.vec_result && i.scalar_active() && !i.scalar.is_flow();
            i.output.filter(|_| vector || scalar)
        })
        .fold(0, |m, o| m | output_bit(o.0))
}

/// A fragment program's inputs (bit n = input n: COL0 1, COL1 2, FOGC 3, TEX0-TEX9 4-13) as
/// `attributeInputMask` bits.
fn fragment_input_bits(read: u16) -> u32 {
    let mut bits = 0;
    if read & (1 << 1) != 0 {
        bits |= 0b101;
    }
    if read & (1 << 2) != 0 {
        bits |= 0b1010;
    }
    if read & (1 << 3) != 0 {
        bits |= 1 << 4;
    }
    for n in 0..10u32 {
        if read & (1 << (4 + n)) != 0 {
            bits |= if n < 8 {
                1 << (14 + n)
            } else {
                1 << (12 + n - 8)
            };
        }
    }
    bits
}
