//! Writing `CgBinaryProgram` containers (binary format revision 6), so test fixtures and the
//! synthetic level carry programs made by our own code, with named uniforms and their
//! embedded-constant tables.
//!
//! Layout written (big-endian; the record layouts are those [`super::cg`] documents, from RPCS3
//! `CgBinaryProgram.h`): the 32-byte header, the parameter array at 0x20, then for each
//! parameter its name, its semantic (NUL-terminated), its default values and its
//! embedded-constant table (each 4-byte aligned), then the stage descriptor (4-byte aligned,
//! the fragment one padded to 24 bytes) and the microcode (16-byte aligned) last, which is
//! the order `sce-cgc` output in the corpus uses. `totalSize` is the end of the microcode.
//!
//! [`write_program`] takes a [`CgProgram`] and ignores its offset fields (`total_size`,
//! `ucode_offset`, `record_offset`); [`CgProgram::parse`] of the result gives the same program
//! with those fields filled in.

use super::cg::{
    CgFragmentInfo, CgParameter, CgProgram, CgStageInfo, FORMAT_REVISION, PROFILE_FRAGMENT,
    PROFILE_VERTEX, SLOT_SIZE,
};
use super::cg_enums::{CgBase, CgDirection, CgResource, CgType, CgVariability};

/// Largest container written: offsets are u32.
const MAX_SIZE: usize = u32::MAX as usize;

/// A program that cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The microcode is empty or not a whole number of 16-byte slots.
    #[error("microcode of {0} bytes is not a non-zero multiple of 16")]
    Ucode(usize),
    /// The profile does not agree with the stage descriptor.
    #[error("profile {profile} does not agree with the stage descriptor")]
    Profile {
        /// The profile given.
        profile: u32,
    },
    /// A parameter's default value has the wrong number of components for its type.
    #[error(
        "parameter {parameter} ({name:?}): default value has {got} components, its type {expected}"
    )]
    DefaultValue {
        /// Index of the parameter.
        parameter: usize,
        /// Its name.
        name: Option<String>,
        /// Components the type has.
        expected: u32,
        /// Components given.
        got: usize,
    },
    /// An embedded-constant offset is not a slot inside the microcode.
    #[error("parameter {parameter} ({name:?}): embedded-constant offset {offset} is not a 16-byte slot inside the {ucode_size}-byte microcode")]
    EmbeddedOffset {
        /// Index of the parameter.
        parameter: usize,
        /// Its name.
        name: Option<String>,
        /// The offset.
        offset: u32,
        /// The microcode size.
        ucode_size: usize,
    },
    /// A name or semantic contains a NUL byte.
    #[error("parameter {parameter}: {field} contains a NUL byte")]
    Nul {
        /// Index of the parameter.
        parameter: usize,
        /// `name` or `semantic`.
        field: &'static str,
    },
    /// The container would not fit u32 offsets.
    #[error("the container would exceed 4 GiB")]
    TooLarge,
}

/// Write `program` as a `CgBinaryProgram`.
pub fn write_program(program: &CgProgram) -> Result<Vec<u8>, WriteError> {
    let ucode = &program.ucode;
    if ucode.is_empty() || ucode.len() % SLOT_SIZE as usize != 0 {
        return Err(WriteError::Ucode(ucode.len()));
    }
    let expected_profile = match program.stage_info {
        CgStageInfo::Vertex(_) => PROFILE_VERTEX,
        CgStageInfo::Fragment(_) => PROFILE_FRAGMENT,
    };
    if program.profile != expected_profile {
        return Err(WriteError::Profile {
            profile: program.profile,
        });
    }
    for (i, p) in program.parameters.iter().enumerate() {
        check_parameter(i, p, ucode.len())?;
    }

    let parameter_array = 32usize;
    let mut out = vec![0u8; parameter_array + 48 * program.parameters.len()];
    // Variable-size data of each parameter, then the records pointing at it.
    let mut records = Vec::with_capacity(program.parameters.len());
    for p in &program.parameters {
        let name = push_string(&mut out, p.name.as_deref())?;
        let semantic = push_string(&mut out, p.semantic.as_deref())?;
        align(&mut out, 4);
        let default = match &p.default_value {
            Some(values) => {
                let at = offset(&out)?;
                for v in values {
                    out.extend_from_slice(&v.to_be_bytes());
                }
                at
            }
            None => 0,
        };
        let embedded = if p.embedded_constants.is_empty() {
            0
        } else {
            let at = offset(&out)?;
            let count =
                u32::try_from(p.embedded_constants.len()).map_err(|_| WriteError::TooLarge)?;
            out.extend_from_slice(&count.to_be_bytes());
            for o in &p.embedded_constants {
                out.extend_from_slice(&o.to_be_bytes());
            }
            at
        };
        records.push([
            p.ty.to_raw(),
            p.resource.to_raw(),
            p.variability.to_raw(),
            p.resource_index as u32,
            name,
            default,
            embedded,
            semantic,
            p.direction.to_raw(),
            p.paramno as u32,
            u32::from(p.is_referenced),
            u32::from(p.is_shared),
        ]);
    }
    for (i, record) in records.iter().enumerate() {
        let at = parameter_array + 48 * i;
        for (k, word) in record.iter().enumerate() {
            put_u32(&mut out, at + 4 * k, *word);
        }
    }

    align(&mut out, 4);
    let descriptor = offset(&out)?;
    match &program.stage_info {
        CgStageInfo::Vertex(v) => {
            for word in v.words() {
                out.extend_from_slice(&word.to_be_bytes());
            }
        }
        CgStageInfo::Fragment(f) => push_fragment_descriptor(&mut out, f),
    }
    align(&mut out, SLOT_SIZE as usize);
    let ucode_offset = offset(&out)?;
    out.extend_from_slice(ucode);
    let total = offset(&out)?;
    let ucode_size = u32::try_from(ucode.len()).map_err(|_| WriteError::TooLarge)?;
    let parameter_count =
        u32::try_from(program.parameters.len()).map_err(|_| WriteError::TooLarge)?;
    for (k, word) in [
        program.profile,
        FORMAT_REVISION,
        total,
        parameter_count,
        parameter_array as u32,
        descriptor,
        ucode_size,
        ucode_offset,
    ]
    .into_iter()
    .enumerate()
    {
        put_u32(&mut out, 4 * k, word);
    }
    Ok(out)
}

/// A fragment uniform `float4` (or other numeric type) parameter whose value lives in the
/// inline-constant slots at `embedded_constants` (ucode byte offsets), as `sce-cgc` records
/// fragment uniforms in the corpus: resource 3256 (undefined), variability uniform,
/// direction in, referenced, not shared.
pub fn fragment_uniform(
    name: &str,
    ty: CgType,
    paramno: i32,
    embedded_constants: Vec<u32>,
) -> CgParameter {
    CgParameter {
        record_offset: 0,
        ty,
        resource: CgResource::Undefined,
        resource_index: -1,
        variability: CgVariability::Uniform,
        name: Some(name.to_string()),
        semantic: None,
        default_value: None,
        embedded_constants,
        direction: CgDirection::In,
        paramno,
        is_referenced: true,
        is_shared: false,
    }
}

/// The parameters of a `float4x4` fragment uniform: the matrix itself (no table), then one
/// `float4` per row named `name[k]` with the slots of that row, as `sce-cgc` lists a matrix
/// (the corpus' `sce_cube_common.vpo` lists `modelViewProj` then `modelViewProj[0]` to `[3]`).
pub fn fragment_matrix_uniform(name: &str, paramno: i32, rows: [Vec<u32>; 4]) -> Vec<CgParameter> {
    let mut out = vec![fragment_uniform(
        name,
        CgType::Matrix {
            base: CgBase::Float,
            rows: 4,
            cols: 4,
        },
        paramno,
        Vec::new(),
    )];
    for (k, slots) in rows.into_iter().enumerate() {
        out.push(fragment_uniform(
            &format!("{name}[{k}]"),
            CgType::Vector(CgBase::Float, 4),
            paramno,
            slots,
        ));
    }
    out
}

fn check_parameter(i: usize, p: &CgParameter, ucode_size: usize) -> Result<(), WriteError> {
    for (field, text) in [("name", &p.name), ("semantic", &p.semantic)] {
        if text.as_deref().is_some_and(|t| t.contains('\0')) {
            return Err(WriteError::Nul {
                parameter: i,
                field,
            });
        }
    }
    if let Some(values) = &p.default_value {
        let expected = p.ty.components().unwrap_or(0);
        if values.len() != expected as usize {
            return Err(WriteError::DefaultValue {
                parameter: i,
                name: p.name.clone(),
                expected,
                got: values.len(),
            });
        }
    }
    for &o in &p.embedded_constants {
        let inside = (o as usize)
            .checked_add(SLOT_SIZE as usize)
            .is_some_and(|end| end <= ucode_size);
        if o % SLOT_SIZE != 0 || !inside {
            return Err(WriteError::EmbeddedOffset {
                parameter: i,
                name: p.name.clone(),
                offset: o,
                ucode_size,
            });
        }
    }
    Ok(())
}

fn push_fragment_descriptor(out: &mut Vec<u8>, f: &CgFragmentInfo) {
    out.extend_from_slice(&f.instruction_count.to_be_bytes());
    out.extend_from_slice(&f.attribute_input_mask.to_be_bytes());
    out.extend_from_slice(&f.partial_tex_type.to_be_bytes());
    out.extend_from_slice(&f.tex_coords_input_mask.to_be_bytes());
    out.extend_from_slice(&f.tex_coords_2d.to_be_bytes());
    out.extend_from_slice(&f.tex_coords_centroid.to_be_bytes());
    out.push(f.register_count);
    out.push(u8::from(f.output_from_h0));
    out.push(u8::from(f.depth_replace));
    out.push(u8::from(f.pixel_kill));
    // Two bytes of padding to the struct's 4-byte alignment.
    out.extend_from_slice(&[0, 0]);
}

/// Append a NUL-terminated string and return its offset (0 for none).
fn push_string(out: &mut Vec<u8>, text: Option<&str>) -> Result<u32, WriteError> {
    match text {
        None => Ok(0),
        Some(t) => {
            let at = offset(out)?;
            out.extend_from_slice(t.as_bytes());
            out.push(0);
            Ok(at)
        }
    }
}

fn offset(out: &[u8]) -> Result<u32, WriteError> {
    if out.len() > MAX_SIZE {
        return Err(WriteError::TooLarge);
    }
    u32::try_from(out.len()).map_err(|_| WriteError::TooLarge)
}

fn align(out: &mut Vec<u8>, to: usize) {
    while out.len() % to != 0 {
        out.push(0);
    }
}

fn put_u32(out: &mut [u8], at: usize, v: u32) {
    if let Some(slot) = out.get_mut(at..at + 4) {
        slot.copy_from_slice(&v.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::super::{get_uniform, Container};
    use super::*;

    /// Three slots: an instruction, the inline constant it reads, and a second instruction
    /// with END; the bytes themselves only need to be 48 bytes for the container.
    fn ucode() -> Vec<u8> {
        let mut u = vec![0u8; 48];
        // The inline constant slot (bytes 16..32): 1.0, 2.0, 3.0, 4.0 with each 32-bit word's
        // half-words swapped, as fragment microcode stores words (rsx-microcode.md B.1).
        for (k, v) in [1.0f32, 2.0, 3.0, 4.0].iter().enumerate() {
            let b = v.to_be_bytes();
            u[16 + 4 * k..20 + 4 * k].copy_from_slice(&[b[2], b[3], b[0], b[1]]);
        }
        u
    }

    fn fragment(parameters: Vec<CgParameter>) -> CgProgram {
        CgProgram {
            profile: PROFILE_FRAGMENT,
            revision: FORMAT_REVISION,
            total_size: 0,
            parameters,
            stage_info: CgStageInfo::Fragment(CgFragmentInfo {
                instruction_count: 3,
                attribute_input_mask: 0x1,
                partial_tex_type: 0,
                tex_coords_input_mask: 0,
                tex_coords_2d: 0xFFFF,
                tex_coords_centroid: 0,
                register_count: 4,
                output_from_h0: false,
                depth_replace: false,
                pixel_kill: true,
            }),
            ucode_offset: 0,
            ucode: ucode(),
        }
    }

    #[test]
    fn fragment_program_round_trips_with_named_uniforms() {
        let mut params =
            fragment_matrix_uniform("MainInv", 1, [vec![16], vec![], vec![16], vec![]]);
        let mut scale = fragment_uniform("Scale", CgType::Vector(CgBase::Float, 4), 2, vec![16]);
        scale.default_value = Some(vec![0.5, 0.25, 1.0, 2.0]);
        scale.semantic = Some("FOO".into());
        params.push(scale);
        let program = fragment(params);
        let bytes = write_program(&program).unwrap();
        // Header by hand: profile 7004, revision 6, the parameter array at 0x20.
        assert_eq!(&bytes[0..8], &[0, 0, 0x1B, 0x5C, 0, 0, 0, 6]);
        assert_eq!(
            u32::from_be_bytes(bytes[8..12].try_into().unwrap()) as usize,
            bytes.len()
        );
        assert_eq!(&bytes[12..20], &[0, 0, 0, 6, 0, 0, 0, 0x20]);
        let parsed = CgProgram::parse(&bytes).unwrap();
        assert_eq!(parsed.ucode_offset % 16, 0);
        assert_eq!(parsed.total_size as usize, bytes.len());
        let mut want = program.clone();
        want.total_size = parsed.total_size;
        want.ucode_offset = parsed.ucode_offset;
        for (w, p) in want.parameters.iter_mut().zip(&parsed.parameters) {
            w.record_offset = p.record_offset;
        }
        assert_eq!(parsed, want);
        assert_eq!(parsed.parameters[0].record_offset, 0x20);
        // Through the format-detecting parser and the uniform accessors.
        let c = Container::parse(&bytes).unwrap();
        assert_eq!(c.embedded_constants("MainInv[0]"), Some(&[16u32][..]));
        assert_eq!(c.embedded_constants("MainInv"), Some(&[][..]));
        assert_eq!(get_uniform(c.ucode(), 16).unwrap(), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(c.control_word(), Some(0x0400_00C0));
    }

    #[test]
    fn vertex_program_round_trips() {
        let program = CgProgram {
            profile: PROFILE_VERTEX,
            revision: FORMAT_REVISION,
            total_size: 0,
            parameters: Vec::new(),
            stage_info: CgStageInfo::Vertex(super::super::CgVertexInfo {
                instruction_count: 1,
                instruction_slot: 0,
                register_count: 1,
                attribute_input_mask: 1,
                attribute_output_mask: 1,
                user_clip_mask: 0,
            }),
            ucode_offset: 0,
            ucode: vec![0x11; 16],
        };
        let bytes = write_program(&program).unwrap();
        let parsed = CgProgram::parse(&bytes).unwrap();
        assert_eq!(parsed.stage_info, program.stage_info);
        assert_eq!(parsed.ucode, program.ucode);
        assert!(parsed.parameters.is_empty());
    }

    #[test]
    fn refuses_inconsistent_programs() {
        let mut bad = fragment(vec![fragment_uniform(
            "x",
            CgType::Vector(CgBase::Float, 4),
            0,
            vec![40],
        )]);
        assert!(matches!(
            write_program(&bad),
            Err(WriteError::EmbeddedOffset { offset: 40, .. })
        ));
        bad.parameters[0].embedded_constants = vec![48];
        assert!(matches!(
            write_program(&bad),
            Err(WriteError::EmbeddedOffset { offset: 48, .. })
        ));
        bad.parameters[0].embedded_constants = vec![32];
        bad.parameters[0].default_value = Some(vec![1.0]);
        assert!(matches!(
            write_program(&bad),
            Err(WriteError::DefaultValue {
                expected: 4,
                got: 1,
                ..
            })
        ));
        bad.parameters[0].default_value = None;
        bad.parameters[0].name = Some("a\0b".into());
        assert!(matches!(
            write_program(&bad),
            Err(WriteError::Nul { field: "name", .. })
        ));
        bad.parameters.clear();
        bad.ucode.truncate(40);
        assert_eq!(write_program(&bad), Err(WriteError::Ucode(40)));
        bad.ucode = ucode();
        bad.profile = PROFILE_VERTEX;
        assert!(matches!(
            write_program(&bad),
            Err(WriteError::Profile { .. })
        ));
    }
}
