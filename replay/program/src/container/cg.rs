//! `CgBinaryProgram` (`.vpo`/`.fpo`, Sony `sce-cgc` output, binary format revision 6): header,
//! parameter array with its strings, default values and embedded-constant tables, and the
//! vertex or fragment stage descriptor.
//!
//! Layouts (all big-endian) from RPCS3 `rpcs3/Emu/RSX/Program/CgBinaryProgram.h` (facts only):
//!
//! | struct | bytes | fields |
//! |---|---|---|
//! | `CgBinaryProgram` | 32 | profile, binaryFormatRevision, totalSize, parameterCount, parameterArray, program, ucodeSize, ucode (u32 each) |
//! | `CgBinaryParameter` | 48 | type, res, var, resIndex (s32), name, defaultValue, embeddedConst, semantic, direction, paramno (s32), isReferenced, isShared |
//! | `CgBinaryEmbeddedConstant` | 4 + 4n | ucodeCount, ucodeOffset\[ucodeCount\] |
//! | `CgBinaryVertexProgram` | 24 | instructionCount, instructionSlot, registerCount, attributeInputMask, attributeOutputMask, userClipMask |
//! | `CgBinaryFragmentProgram` | 22 (+2 pad) | instructionCount, attributeInputMask, partialTexType (u32); texCoordsInputMask, texCoords2D, texCoordsCentroid (u16); registerCount, outputFromH0, depthReplace, pixelKill (u8) |
//!
//! Offsets are from the start of the program; every one is checked against `totalSize` and the
//! real buffer length.
//!
//! **Byte order.** `sce-cgc` writes big-endian containers, and the profile word tells the order
//! ("BE/LE as well", RPCS3 `CgBinaryProgram.h`). RPCS3 also accepts one already swapped to
//! little-endian (`CgBinaryDisasm::BuildShaderBody`): the header, the parameter records and
//! the stage descriptor's fields read little-endian, and so does every 32-bit word from the
//! microcode to the end of the file (`ConvertToLE` swaps exactly those). A little-endian
//! container parses to the same [`CgProgram`] as its big-endian form: the microcode is given
//! in the big-endian layout (each word's bytes reversed back). Embedded-constant tables and
//! default values stay big-endian, as `ConvertToLE` leaves them (`CgBinaryEmbeddedConstant`
//! is `be_t`, and RPCS3 reads the tables' offsets big-endian, `GetCgParamValue`).

use serde::Serialize;

use super::cg_enums::{CgDirection, CgResource, CgType, CgVariability};
use super::error::{ContainerError, ContainerErrorKind};
use super::reader::{ByteOrder, Reader};
use super::Stage;

/// `CG_PROFILE_SCE_VP_RSX` (RPCS3 CgBinaryProgram.h / corpus `.vpo` files).
pub const PROFILE_VERTEX: u32 = 7003;
/// `CG_PROFILE_SCE_FP_RSX`.
pub const PROFILE_FRAGMENT: u32 = 7004;
/// `CG_BINARY_FORMAT_REVISION`.
pub const FORMAT_REVISION: u32 = 6;

const HEADER_SIZE: u64 = 32;
const PARAMETER_SIZE: u64 = 48;
const VERTEX_DESCRIPTOR_SIZE: u64 = 24;
const FRAGMENT_DESCRIPTOR_SIZE: u64 = 22;
/// One microcode slot (instruction or inline constant) is 16 bytes (rsx-microcode.md B.1, B.8).
pub const SLOT_SIZE: u32 = 16;

/// A parsed `CgBinaryProgram`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CgProgram {
    /// `profile` (7003 vertex, 7004 fragment).
    pub profile: u32,
    /// `binaryFormatRevision` (always 6 once parsed).
    pub revision: u32,
    /// `totalSize` in bytes.
    pub total_size: u32,
    /// The parameter array, in file order.
    pub parameters: Vec<CgParameter>,
    /// The stage descriptor at `program`.
    pub stage_info: CgStageInfo,
    /// Byte offset of the microcode (`ucode`).
    pub ucode_offset: u32,
    /// The microcode exactly as stored (`ucodeSize` bytes).
    pub ucode: Vec<u8>,
}

/// One `CgBinaryParameter`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CgParameter {
    /// Byte offset of this record in the container.
    pub record_offset: u32,
    /// `type`.
    pub ty: CgType,
    /// `res`.
    pub resource: CgResource,
    /// `resIndex` (e.g. the constant register for `CG_C`; -1 when unused).
    pub resource_index: i32,
    /// `var`.
    pub variability: CgVariability,
    /// The string at `name` (`None` when the offset is 0).
    pub name: Option<String>,
    /// The string at `semantic` (`None` when the offset is 0).
    pub semantic: Option<String>,
    /// The floats at `defaultValue`, one per component of `ty` (`None` when the offset is 0 or
    /// the type has no fixed component count).
    pub default_value: Option<Vec<f32>>,
    /// `embeddedConst` table: byte offsets, from the start of the microcode, of the inline
    /// constant slots holding this uniform (fragment programs). Empty when absent.
    pub embedded_constants: Vec<u32>,
    /// `direction`.
    pub direction: CgDirection,
    /// `paramno` (-1 for globals).
    pub paramno: i32,
    /// `isReferenced`.
    pub is_referenced: bool,
    /// `isShared`.
    pub is_shared: bool,
}

/// The stage descriptor that follows the parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CgStageInfo {
    /// `CgBinaryVertexProgram`.
    Vertex(CgVertexInfo),
    /// `CgBinaryFragmentProgram`.
    Fragment(CgFragmentInfo),
}

/// `CgBinaryVertexProgram`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CgVertexInfo {
    /// `instructionCount`.
    pub instruction_count: u32,
    /// `instructionSlot`: load address in the 512-slot program memory.
    pub instruction_slot: u32,
    /// `registerCount`.
    pub register_count: u32,
    /// `attributeInputMask`.
    pub attribute_input_mask: u32,
    /// `attributeOutputMask`.
    pub attribute_output_mask: u32,
    /// `userClipMask`.
    pub user_clip_mask: u32,
}

impl CgVertexInfo {
    /// The descriptor's six words in file order.
    pub fn words(&self) -> [u32; 6] {
        [
            self.instruction_count,
            self.instruction_slot,
            self.register_count,
            self.attribute_input_mask,
            self.attribute_output_mask,
            self.user_clip_mask,
        ]
    }
}

/// `CgBinaryFragmentProgram`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CgFragmentInfo {
    /// `instructionCount` (16-byte slots, inline constants included).
    pub instruction_count: u32,
    /// `attributeInputMask`.
    pub attribute_input_mask: u32,
    /// `partialTexType`.
    pub partial_tex_type: u32,
    /// `texCoordsInputMask`.
    pub tex_coords_input_mask: u16,
    /// `texCoords2D`.
    pub tex_coords_2d: u16,
    /// `texCoordsCentroid`.
    pub tex_coords_centroid: u16,
    /// `registerCount`.
    pub register_count: u8,
    /// `outputFromH0`: colour comes from H0 (fp16) instead of R0.
    pub output_from_h0: bool,
    /// `depthReplace`: the program writes depth.
    pub depth_replace: bool,
    /// `pixelKill`: the program may discard.
    pub pixel_kill: bool,
}

impl CgFragmentInfo {
    /// The `SHADER_CONTROL` word for this program: `(outputFromH0 ? 0 : 0x40) |
    /// (depthReplace ? 0xE : 0)` as RPCS3 `CgBinaryProgram.cpp` builds it, plus `0x80` for
    /// pixel kill and the register count in bits 24..31 (rsx-microcode.md B.6).
    pub fn control_word(&self) -> u32 {
        let mut ctrl = if self.output_from_h0 { 0 } else { 0x40 };
        if self.depth_replace {
            ctrl |= 0xE;
        }
        if self.pixel_kill {
            ctrl |= 0x80;
        }
        ctrl | (u32::from(self.register_count) << 24)
    }
}

impl CgProgram {
    /// The pipeline stage given by the profile.
    pub fn stage(&self) -> Stage {
        match self.stage_info {
            CgStageInfo::Vertex(_) => Stage::Vertex,
            CgStageInfo::Fragment(_) => Stage::Fragment,
        }
    }

    /// The first parameter named `name`.
    pub fn parameter(&self, name: &str) -> Option<&CgParameter> {
        self.parameters
            .iter()
            .find(|p| p.name.as_deref() == Some(name))
    }

    /// Parses a `CgBinaryProgram`, big-endian as `sce-cgc` writes it or already swapped to
    /// little-endian as RPCS3 also accepts (the module's "Byte order": either gives the same
    /// program). The buffer may be longer than `totalSize`; bytes past it are ignored.
    pub fn parse(bytes: &[u8]) -> Result<Self, ContainerError> {
        let r = Reader::new(bytes);
        r.bytes(0, HEADER_SIZE, "CgBinaryProgram header")?;
        let order = byte_order(bytes).unwrap_or(ByteOrder::Big);
        let r = r.in_order(order);
        let profile = r.u32(0, "profile")?;
        let revision = r.u32(4, "binaryFormatRevision")?;
        let total_size = r.u32(8, "totalSize")?;
        let parameter_count = r.u32(12, "parameterCount")?;
        let parameter_array = r.u32(16, "parameterArray")?;
        let program = r.u32(20, "program")?;
        let ucode_size = r.u32(24, "ucodeSize")?;
        let ucode_offset = r.u32(28, "ucode")?;

        if profile != PROFILE_VERTEX && profile != PROFILE_FRAGMENT {
            return Err(ContainerError::new(
                0,
                "profile",
                ContainerErrorKind::Unsupported {
                    what: "profile",
                    value: profile.into(),
                },
            ));
        }
        if revision != FORMAT_REVISION {
            return Err(ContainerError::new(
                4,
                "binaryFormatRevision",
                ContainerErrorKind::Unsupported {
                    what: "binary format revision",
                    value: revision.into(),
                },
            ));
        }
        let total = u64::from(total_size);
        if total > r.len() {
            return Err(ContainerError::new(
                8,
                "totalSize",
                ContainerErrorKind::OutOfBounds {
                    value: total,
                    limit: r.len(),
                },
            ));
        }
        if total < HEADER_SIZE {
            return Err(ContainerError::new(
                8,
                "totalSize",
                ContainerErrorKind::Invalid {
                    value: total,
                    reason: "smaller than the 32-byte header",
                },
            ));
        }

        // Stage descriptor.
        let stage_info = if profile == PROFILE_VERTEX {
            let d = u64::from(program);
            r.range(d, VERTEX_DESCRIPTOR_SIZE, total, 20, "program")?;
            CgStageInfo::Vertex(CgVertexInfo {
                instruction_count: r.u32(d, "instructionCount")?,
                instruction_slot: r.u32(d + 4, "instructionSlot")?,
                register_count: r.u32(d + 8, "registerCount")?,
                attribute_input_mask: r.u32(d + 12, "attributeInputMask")?,
                attribute_output_mask: r.u32(d + 16, "attributeOutputMask")?,
                user_clip_mask: r.u32(d + 20, "userClipMask")?,
            })
        } else {
            let d = u64::from(program);
            r.range(d, FRAGMENT_DESCRIPTOR_SIZE, total, 20, "program")?;
            CgStageInfo::Fragment(CgFragmentInfo {
                instruction_count: r.u32(d, "instructionCount")?,
                attribute_input_mask: r.u32(d + 4, "attributeInputMask")?,
                partial_tex_type: r.u32(d + 8, "partialTexType")?,
                tex_coords_input_mask: r.u16(d + 12, "texCoordsInputMask")?,
                tex_coords_2d: r.u16(d + 14, "texCoords2D")?,
                tex_coords_centroid: r.u16(d + 16, "texCoordsCentroid")?,
                register_count: r.u8(d + 18, "registerCount")?,
                output_from_h0: r.u8(d + 19, "outputFromH0")? != 0,
                depth_replace: r.u8(d + 20, "depthReplace")? != 0,
                pixel_kill: r.u8(d + 21, "pixelKill")? != 0,
            })
        };

        // Microcode.
        if ucode_size % SLOT_SIZE != 0 {
            return Err(ContainerError::new(
                24,
                "ucodeSize",
                ContainerErrorKind::Misaligned {
                    value: ucode_size.into(),
                    align: SLOT_SIZE.into(),
                },
            ));
        }
        let mut ucode = r
            .range(
                u64::from(ucode_offset),
                u64::from(ucode_size),
                total,
                28,
                "ucode",
            )?
            .to_vec();
        if order == ByteOrder::Little {
            for word in ucode.chunks_exact_mut(4) {
                word.reverse();
            }
        }

        // Parameters: check the whole array fits before allocating for it.
        let array = u64::from(parameter_array);
        r.check_array(
            array,
            u64::from(parameter_count),
            PARAMETER_SIZE,
            total,
            12,
            "parameterCount",
        )?;
        let mut parameters = Vec::with_capacity(parameter_count as usize);
        for i in 0..u64::from(parameter_count) {
            let at = array + i * PARAMETER_SIZE;
            parameters.push(parse_parameter(&r, at, total, ucode_size)?);
        }

        Ok(Self {
            profile,
            revision,
            total_size,
            parameters,
            stage_info,
            ucode_offset,
            ucode,
        })
    }
}

fn optional_string(
    r: &Reader<'_>,
    field_offset: u64,
    limit: u64,
    field: &'static str,
) -> Result<Option<String>, ContainerError> {
    let off = r.u32(field_offset, field)?;
    if off == 0 {
        return Ok(None);
    }
    r.cstr(u64::from(off), limit, field_offset, field).map(Some)
}

fn parse_parameter(
    r: &Reader<'_>,
    at: u64,
    total: u64,
    ucode_size: u32,
) -> Result<CgParameter, ContainerError> {
    let ty = CgType::from_raw(r.u32(at, "parameter type")?);
    let resource = CgResource::from_raw(r.u32(at + 4, "parameter res")?);
    let variability = CgVariability::from_raw(r.u32(at + 8, "parameter var")?);
    let resource_index = r.i32(at + 12, "parameter resIndex")?;
    let name = optional_string(r, at + 16, total, "parameter name")?;
    let default_offset = r.u32(at + 20, "parameter defaultValue")?;
    let embedded_offset = r.u32(at + 24, "parameter embeddedConst")?;
    let semantic = optional_string(r, at + 28, total, "parameter semantic")?;
    let direction = CgDirection::from_raw(r.u32(at + 32, "parameter direction")?);
    let paramno = r.i32(at + 36, "parameter paramno")?;
    let is_referenced = r.u32(at + 40, "parameter isReferenced")? != 0;
    let is_shared = r.u32(at + 44, "parameter isShared")? != 0;

    // Default values and embedded-constant tables are big-endian in either byte order.
    let data = r.in_order(ByteOrder::Big);
    let default_value = match (default_offset, ty.components()) {
        (0, _) | (_, None) => None,
        (off, Some(n)) => {
            let off = u64::from(off);
            r.check_array(
                off,
                u64::from(n),
                4,
                total,
                at + 20,
                "parameter defaultValue",
            )?;
            let mut v = Vec::with_capacity(n as usize);
            for k in 0..u64::from(n) {
                v.push(data.f32(off + 4 * k, "default value")?);
            }
            Some(v)
        }
    };

    let embedded_constants = if embedded_offset == 0 {
        Vec::new()
    } else {
        let names = TableFields {
            table: "parameter embeddedConst",
            count: "ucodeCount",
            offset: "ucodeOffset",
        };
        let e = u64::from(embedded_offset);
        slot_table(&data, e, total, at + 24, ucode_size, &names)?
    };

    Ok(CgParameter {
        record_offset: at as u32,
        ty,
        resource,
        resource_index,
        variability,
        name,
        semantic,
        default_value,
        embedded_constants,
        direction,
        paramno,
        is_referenced,
        is_shared,
    })
}

/// The names of a slot-offset table's fields, as errors give them.
pub(crate) struct TableFields {
    /// The table (where its offset was read).
    pub table: &'static str,
    /// Its count.
    pub count: &'static str,
    /// Each offset.
    pub offset: &'static str,
}

/// A table of inline-constant slots at `at`, below `limit`: a u32 count, then that many u32
/// byte offsets into the microcode, each a slot there ([`check_constant_slot`]). A
/// `CgBinaryEmbeddedConstant`, a PSL1GHT `rsxConstOffsetTable`. `field_at` is where the
/// table's offset was read.
pub(crate) fn slot_table(
    r: &Reader<'_>,
    at: u64,
    limit: u64,
    field_at: u64,
    ucode_size: u32,
    names: &TableFields,
) -> Result<Vec<u32>, ContainerError> {
    r.range(at, 4, limit, field_at, names.table)?;
    let count = r.u32(at, names.count)?;
    r.check_array(at + 4, u64::from(count), 4, limit, at, names.count)?;
    let mut offsets = Vec::with_capacity(count as usize);
    for k in 0..u64::from(count) {
        let entry = at + 4 + 4 * k;
        let off = r.u32(entry, names.offset)?;
        check_constant_slot(off, ucode_size, entry, names.offset)?;
        offsets.push(off);
    }
    Ok(offsets)
}

/// The byte order of a `CgBinaryProgram`: the order its first word reads as a Cg profile
/// (7003 or 7004) in; `None` when it is neither (not a Cg container).
pub(crate) fn byte_order(bytes: &[u8]) -> Option<ByteOrder> {
    let word: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    let is_profile = |v: u32| v == PROFILE_VERTEX || v == PROFILE_FRAGMENT;
    if is_profile(u32::from_be_bytes(word)) {
        Some(ByteOrder::Big)
    } else if is_profile(u32::from_le_bytes(word)) {
        Some(ByteOrder::Little)
    } else {
        None
    }
}

/// An inline-constant slot offset must be slot-aligned and lie inside the microcode.
pub(crate) fn check_constant_slot(
    off: u32,
    ucode_size: u32,
    field_at: u64,
    field: &'static str,
) -> Result<(), ContainerError> {
    if off % SLOT_SIZE != 0 {
        return Err(ContainerError::new(
            field_at,
            field,
            ContainerErrorKind::Misaligned {
                value: off.into(),
                align: SLOT_SIZE.into(),
            },
        ));
    }
    let end = u64::from(off) + u64::from(SLOT_SIZE);
    if end > u64::from(ucode_size) {
        return Err(ContainerError::new(
            field_at,
            field,
            ContainerErrorKind::OutOfBounds {
                value: end,
                limit: ucode_size.into(),
            },
        ));
    }
    Ok(())
}
