//! A `CgBinaryProgram` written over the original file it was made from ([`write_over`]):
//! the original's bytes with the new microcode, stage descriptor and embedded-constant
//! offsets put in place, so everything else (the string table's order and packing, padding,
//! the parameter records) stays byte for byte what the game shipped, and a program written
//! back unchanged is the very file. [`super::write_program`] instead lays a container out
//! anew, as our own fixtures are.
//!
//! In place works when the parameters are the original's but for their embedded-constant
//! offsets (same count each), and the microcode keeps its size or ends the file (`sce-cgc`
//! puts it last: every corpus container).

use super::cg::{byte_order, CgProgram, CgStageInfo};
use super::reader::ByteOrder;

/// `program` (the parse of `original` with other microcode, stage descriptor or
/// embedded-constant offsets, as [`super::with_microcode`] makes it) written over
/// `original`'s bytes; `None` when it cannot be done in place (another parameter table,
/// microcode of another size that does not end the file, structures that overlap it, or a
/// little-endian original).
pub fn write_over(original: &[u8], program: &CgProgram) -> Option<Vec<u8>> {
    // A little-endian original (see `cg`) is laid out anew, big-endian, as `sce-cgc` writes.
    if byte_order(original) != Some(ByteOrder::Big) {
        return None;
    }
    let old = CgProgram::parse(original).ok()?;
    let same_parameters = old.parameters.len() == program.parameters.len()
        && old
            .parameters
            .iter()
            .zip(&program.parameters)
            .all(|(a, b)| {
                let mut b = b.clone();
                b.record_offset = a.record_offset;
                if a.embedded_constants.len() != b.embedded_constants.len() {
                    return false;
                }
                b.embedded_constants.clone_from(&a.embedded_constants);
                *a == b
            });
    let ucode_at = usize::try_from(old.ucode_offset).ok()?;
    let total = usize::try_from(old.total_size).ok()?;
    let ends_file = ucode_at.checked_add(old.ucode.len()) == Some(total);
    if !same_parameters
        || old.profile != program.profile
        || program.ucode.is_empty()
        || !(program.ucode.len() == old.ucode.len() || ends_file)
    {
        return None;
    }
    let mut out = original.get(..total)?.to_vec();
    out.truncate(ucode_at);
    out.extend_from_slice(&program.ucode);
    out.extend_from_slice(original.get(ucode_at + old.ucode.len()..total)?);
    let put = |out: &mut Vec<u8>, at: usize, bytes: &[u8]| -> Option<()> {
        out.get_mut(at..at.checked_add(bytes.len())?)?
            .copy_from_slice(bytes);
        Some(())
    };
    if program.ucode.len() != old.ucode.len() {
        let size = u32::try_from(out.len()).ok()?;
        put(&mut out, 8, &size.to_be_bytes())?;
        let ucode_size = u32::try_from(program.ucode.len()).ok()?;
        put(&mut out, 24, &ucode_size.to_be_bytes())?;
    }
    let descriptor =
        usize::try_from(u32::from_be_bytes(original.get(20..24)?.try_into().ok()?)).ok()?;
    // Only the fields whose value changed are written: a field read as a flag keeps the
    // byte the file has (a pixelKill of 2 stays 2).
    let (before, after) = (
        descriptor_fields(&old.stage_info),
        descriptor_fields(&program.stage_info),
    );
    if before.len() != after.len() {
        return None;
    }
    for ((at, old_bytes), (_, new_bytes)) in before.iter().zip(&after) {
        if old_bytes != new_bytes {
            put(&mut out, descriptor + at, new_bytes)?;
        }
    }
    // Each embedded-constant table: its count, then the offsets (CgBinaryEmbeddedConstant).
    for (old, new) in old.parameters.iter().zip(&program.parameters) {
        if new.embedded_constants.is_empty() {
            continue;
        }
        let field = usize::try_from(old.record_offset).ok()? + 24;
        let table = u32::from_be_bytes(original.get(field..field + 4)?.try_into().ok()?);
        let table = usize::try_from(table).ok()?;
        for (k, (was, offset)) in old
            .embedded_constants
            .iter()
            .zip(&new.embedded_constants)
            .enumerate()
        {
            if was != offset {
                put(&mut out, table + 4 + 4 * k, &offset.to_be_bytes())?;
            }
        }
    }
    // A file whose structures overlap the microcode cannot be written over: what it reads
    // back as must be the program.
    let back = CgProgram::parse(&out).ok()?;
    (back.parameters == program.parameters
        && back.stage_info == program.stage_info
        && back.ucode == program.ucode)
        .then_some(out)
}

/// The stage descriptor's fields as (offset in the descriptor, big-endian bytes).
fn descriptor_fields(info: &CgStageInfo) -> Vec<(usize, Vec<u8>)> {
    match info {
        CgStageInfo::Vertex(v) => v
            .words()
            .iter()
            .enumerate()
            .map(|(k, w)| (4 * k, w.to_be_bytes().to_vec()))
            .collect(),
        CgStageInfo::Fragment(f) => vec![
            (0, f.instruction_count.to_be_bytes().to_vec()),
            (4, f.attribute_input_mask.to_be_bytes().to_vec()),
            (8, f.partial_tex_type.to_be_bytes().to_vec()),
            (12, f.tex_coords_input_mask.to_be_bytes().to_vec()),
            (14, f.tex_coords_2d.to_be_bytes().to_vec()),
            (16, f.tex_coords_centroid.to_be_bytes().to_vec()),
            (18, vec![f.register_count]),
            (19, vec![u8::from(f.output_from_h0)]),
            (20, vec![u8::from(f.depth_replace)]),
            (21, vec![u8::from(f.pixel_kill)]),
        ],
    }
}
