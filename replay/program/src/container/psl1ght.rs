//! PSL1GHT/Tiny3D program containers (`.rvp` vertex, `.rfp` fragment), all big-endian.
//!
//! Two vertex layouts share the magic `"VP"`:
//!
//! * **libreality** (PSL1GHT v1, Tiny3D; Tiny3D `lib/source/realityVP.h`, `#pragma pack(1)`):
//!   28-byte header `magic u16, NumInsts u16, UCodeOffset u32, NumConstants u16,
//!   NumAttributes u16, ConstantsOffset u32, AttributesOffset u32, InputMask u32,
//!   OutputMask u32`; attribute = `NameOffset u32, Index u32` (8 bytes); constant =
//!   `NameOffset u32, Index u32, Type u8, Internal u8, Values[4] u32` (26 bytes).
//! * **rsxVertexProgram** (current PSL1GHT `ppu/include/rsx/rsx_program.h`, natural
//!   alignment): 32-byte header `magic u16, num_attrib u16, attrib_off u32, input_mask u32,
//!   output_mask u32, const_start u16, num_const u16, const_off u32, start_insn u16,
//!   num_insn u16, ucode_off u32`; `rsxProgramAttrib` = `name_off u32, index u32, type u8,
//!   pad[3]` (12 bytes); `rsxProgramConst` = `name_off u32, index u32, type u8,
//!   is_internal u8, count u8, pad u8, values[4] u32` (28 bytes).
//!
//! PSL1GHT `tools/cgcomp/source/main.cpp` always places the attribute table right after the
//! 32-byte header, so a `"VP"` file whose u32 at byte 4 is 32 is read as `rsxVertexProgram`
//! and any other as libreality.
//!
//! The fragment container `rsxFragmentProgram` (magic `"FP"`, rsx_program.h) has a 40-byte
//! header `magic u16, num_attrib u16, attrib_off u32, num_regs u32, fp_control u32,
//! texcoords u16, texcoord2D u16, texcoord3D u16, pad u16, num_const u16, (pad 2),
//! const_off u32, num_insn u16, (pad 2), ucode_off u32`. For fragment constants cgcomp stores
//! in `index` the offset of an `rsxConstOffsetTable` (`num u32, offset[num] u32`): the ucode
//! byte offsets of the inline-constant slots to patch (-1 when the constant is unused). The
//! microcode is stored half-word swapped, exactly as the RSX reads it.
//!
//! Microcode is `num_insn` 16-byte slots at the ucode offset.

use serde::Serialize;

use super::cg::{check_constant_slot, SLOT_SIZE};
use super::error::{ContainerError, ContainerErrorKind};
use super::reader::Reader;

/// `'V' << 8 | 'P'` (cgcomp main.cpp).
pub const MAGIC_VERTEX: u16 = 0x5650;
/// `'F' << 8 | 'P'` (cgcomp main.cpp).
pub const MAGIC_FRAGMENT: u16 = 0x4650;

const LIBREALITY_HEADER: u64 = 28;
const LIBREALITY_ATTRIBUTE: u64 = 8;
const LIBREALITY_CONSTANT: u64 = 26;
const RSX_VP_HEADER: u64 = 32;
const RSX_FP_HEADER: u64 = 40;
const RSX_ATTRIBUTE: u64 = 12;
const RSX_CONSTANT: u64 = 28;

/// Which vertex container layout a `"VP"` file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum VpLayout {
    /// libreality / PSL1GHT v1 / Tiny3D `realityVP.h`.
    Libreality,
    /// current PSL1GHT `rsxVertexProgram`.
    RsxProgram,
}

/// A named input attribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Psl1ghtAttribute {
    /// Attribute name (`None` when the name offset is 0).
    pub name: Option<String>,
    /// Attribute index (vertex input register / fragment input).
    pub index: u32,
    /// `type` (rsx_program.h `PARAM_*`); absent in the libreality layout.
    pub ty: Option<u8>,
}

/// A program constant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Psl1ghtConstant {
    /// Constant name (`None` for internal constants, whose name offset is 0).
    pub name: Option<String>,
    /// `index`: the constant register for vertex programs; for fragment programs the offset
    /// of the constant's offset table (`u32::MAX` when unused).
    pub index: u32,
    /// `type` (`PARAM_FLOAT` = 0 .. `PARAM_FLOAT4x4` = 4, samplers 5..9).
    pub ty: u8,
    /// `is_internal` / `Internal`: an unnamed literal that must still be uploaded.
    pub internal: bool,
    /// `count` (rsxProgramConst only).
    pub count: Option<u8>,
    /// The four values as stored (raw bits; read as `f32` with [`f32::from_bits`]).
    pub values: [u32; 4],
    /// Fragment programs: ucode byte offsets of the inline-constant slots holding this
    /// constant. Empty for vertex programs.
    pub embedded_constants: Vec<u32>,
}

/// A PSL1GHT/Tiny3D vertex program container.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Psl1ghtVertexProgram {
    /// Which header layout the file uses.
    pub layout: VpLayout,
    /// Used input attributes.
    pub input_mask: u32,
    /// Used output registers.
    pub output_mask: u32,
    /// `const_start` (0 in the libreality layout).
    pub const_start: u16,
    /// `start_insn` (0 in the libreality layout).
    pub start_insn: u16,
    /// Number of 16-byte instructions.
    pub instruction_count: u16,
    /// Byte offset of the microcode.
    pub ucode_offset: u32,
    /// Attribute table.
    pub attributes: Vec<Psl1ghtAttribute>,
    /// Constant table.
    pub constants: Vec<Psl1ghtConstant>,
    /// Microcode exactly as stored.
    pub ucode: Vec<u8>,
}

/// A PSL1GHT `rsxFragmentProgram` container.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Psl1ghtFragmentProgram {
    /// `num_regs`.
    pub num_regs: u32,
    /// `fp_control` (SHADER_CONTROL bits without the register count).
    pub fp_control: u32,
    /// `texcoords` mask.
    pub texcoords: u16,
    /// `texcoord2D` mask.
    pub texcoord_2d: u16,
    /// `texcoord3D` mask.
    pub texcoord_3d: u16,
    /// Number of 16-byte slots.
    pub instruction_count: u16,
    /// Byte offset of the microcode.
    pub ucode_offset: u32,
    /// Attribute table.
    pub attributes: Vec<Psl1ghtAttribute>,
    /// Constant table.
    pub constants: Vec<Psl1ghtConstant>,
    /// Microcode exactly as stored (half-word swapped).
    pub ucode: Vec<u8>,
}

impl Psl1ghtFragmentProgram {
    /// SHADER_CONTROL: `fp_control | num_regs << 24` (rsx-microcode.md B.6 TEMP_COUNT).
    pub fn control_word(&self) -> u32 {
        self.fp_control | ((self.num_regs & 0xFF) << 24)
    }
}

fn check_magic(r: &Reader<'_>, want: u16) -> Result<(), ContainerError> {
    let magic = r.u16(0, "magic")?;
    if magic != want {
        return Err(ContainerError::new(
            0,
            "magic",
            ContainerErrorKind::Invalid {
                value: magic.into(),
                reason: "wrong magic",
            },
        ));
    }
    Ok(())
}

fn name_at(
    r: &Reader<'_>,
    field_at: u64,
    field: &'static str,
) -> Result<Option<String>, ContainerError> {
    let off = r.u32(field_at, field)?;
    if off == 0 {
        return Ok(None);
    }
    r.cstr(u64::from(off), r.len(), field_at, field).map(Some)
}

fn ucode(
    r: &Reader<'_>,
    offset: u32,
    count: u16,
    field_at: u64,
) -> Result<Vec<u8>, ContainerError> {
    let len = u64::from(count) * u64::from(SLOT_SIZE);
    Ok(r.range(u64::from(offset), len, r.len(), field_at, "ucode")?
        .to_vec())
}

fn values(r: &Reader<'_>, at: u64) -> Result<[u32; 4], ContainerError> {
    Ok([
        r.u32(at, "constant value")?,
        r.u32(at + 4, "constant value")?,
        r.u32(at + 8, "constant value")?,
        r.u32(at + 12, "constant value")?,
    ])
}

impl Psl1ghtVertexProgram {
    /// Parses a `"VP"` container, choosing the layout as described in the module docs.
    pub fn parse(bytes: &[u8]) -> Result<Self, ContainerError> {
        let r = Reader::new(bytes);
        check_magic(&r, MAGIC_VERTEX)?;
        if r.u32(4, "attrib_off / UCodeOffset")? == RSX_VP_HEADER as u32 {
            Self::parse_rsx(&r)
        } else {
            Self::parse_libreality(&r)
        }
    }

    fn parse_libreality(r: &Reader<'_>) -> Result<Self, ContainerError> {
        r.bytes(0, LIBREALITY_HEADER, "libreality VP header")?;
        let instruction_count = r.u16(2, "NumInsts")?;
        let ucode_offset = r.u32(4, "UCodeOffset")?;
        let num_const = r.u16(8, "NumConstants")?;
        let num_attr = r.u16(10, "NumAttributes")?;
        let const_off = u64::from(r.u32(12, "ConstantsOffset")?);
        let attr_off = u64::from(r.u32(16, "AttributesOffset")?);
        let input_mask = r.u32(20, "InputMask")?;
        let output_mask = r.u32(24, "OutputMask")?;

        let ucode = ucode(r, ucode_offset, instruction_count, 4)?;
        r.check_array(
            attr_off,
            num_attr.into(),
            LIBREALITY_ATTRIBUTE,
            r.len(),
            10,
            "NumAttributes",
        )?;
        r.check_array(
            const_off,
            num_const.into(),
            LIBREALITY_CONSTANT,
            r.len(),
            8,
            "NumConstants",
        )?;
        let mut attributes = Vec::with_capacity(num_attr.into());
        for i in 0..u64::from(num_attr) {
            let at = attr_off + i * LIBREALITY_ATTRIBUTE;
            attributes.push(Psl1ghtAttribute {
                name: name_at(r, at, "attribute NameOffset")?,
                index: r.u32(at + 4, "attribute Index")?,
                ty: None,
            });
        }
        let mut constants = Vec::with_capacity(num_const.into());
        for i in 0..u64::from(num_const) {
            let at = const_off + i * LIBREALITY_CONSTANT;
            constants.push(Psl1ghtConstant {
                name: name_at(r, at, "constant NameOffset")?,
                index: r.u32(at + 4, "constant Index")?,
                ty: r.u8(at + 8, "constant Type")?,
                internal: r.u8(at + 9, "constant Internal")? != 0,
                count: None,
                values: values(r, at + 10)?,
                embedded_constants: Vec::new(),
            });
        }
        Ok(Self {
            layout: VpLayout::Libreality,
            input_mask,
            output_mask,
            const_start: 0,
            start_insn: 0,
            instruction_count,
            ucode_offset,
            attributes,
            constants,
            ucode,
        })
    }

    fn parse_rsx(r: &Reader<'_>) -> Result<Self, ContainerError> {
        r.bytes(0, RSX_VP_HEADER, "rsxVertexProgram header")?;
        let num_attr = r.u16(2, "num_attrib")?;
        let attr_off = u64::from(r.u32(4, "attrib_off")?);
        let input_mask = r.u32(8, "input_mask")?;
        let output_mask = r.u32(12, "output_mask")?;
        let const_start = r.u16(16, "const_start")?;
        let num_const = r.u16(18, "num_const")?;
        let const_off = u64::from(r.u32(20, "const_off")?);
        let start_insn = r.u16(24, "start_insn")?;
        let instruction_count = r.u16(26, "num_insn")?;
        let ucode_offset = r.u32(28, "ucode_off")?;

        let ucode = ucode(r, ucode_offset, instruction_count, 28)?;
        let attributes = rsx_attributes(r, attr_off, num_attr, 2)?;
        let constants = rsx_constants(r, const_off, num_const, 18, None)?;
        Ok(Self {
            layout: VpLayout::RsxProgram,
            input_mask,
            output_mask,
            const_start,
            start_insn,
            instruction_count,
            ucode_offset,
            attributes,
            constants,
            ucode,
        })
    }

    /// The first constant named `name`.
    pub fn constant(&self, name: &str) -> Option<&Psl1ghtConstant> {
        self.constants
            .iter()
            .find(|c| c.name.as_deref() == Some(name))
    }
}

fn rsx_attributes(
    r: &Reader<'_>,
    off: u64,
    count: u16,
    count_field_at: u64,
) -> Result<Vec<Psl1ghtAttribute>, ContainerError> {
    r.check_array(
        off,
        count.into(),
        RSX_ATTRIBUTE,
        r.len(),
        count_field_at,
        "num_attrib",
    )?;
    let mut out = Vec::with_capacity(count.into());
    for i in 0..u64::from(count) {
        let at = off + i * RSX_ATTRIBUTE;
        out.push(Psl1ghtAttribute {
            name: name_at(r, at, "attribute name_off")?,
            index: r.u32(at + 4, "attribute index")?,
            ty: Some(r.u8(at + 8, "attribute type")?),
        });
    }
    Ok(out)
}

/// Reads `rsxProgramConst` records. For fragment programs (`ucode_size` given) `index` is the
/// offset of a `rsxConstOffsetTable` whose entries are checked as inline-constant slots.
fn rsx_constants(
    r: &Reader<'_>,
    off: u64,
    count: u16,
    count_field_at: u64,
    ucode_size: Option<u32>,
) -> Result<Vec<Psl1ghtConstant>, ContainerError> {
    r.check_array(
        off,
        count.into(),
        RSX_CONSTANT,
        r.len(),
        count_field_at,
        "num_const",
    )?;
    let mut out = Vec::with_capacity(count.into());
    for i in 0..u64::from(count) {
        let at = off + i * RSX_CONSTANT;
        let index = r.u32(at + 4, "constant index")?;
        let embedded_constants = match ucode_size {
            // cgcomp writes -1 when no slot uses the constant.
            Some(size) if index != u32::MAX => const_offset_table(r, index, size, at + 4)?,
            _ => Vec::new(),
        };
        out.push(Psl1ghtConstant {
            name: name_at(r, at, "constant name_off")?,
            index,
            ty: r.u8(at + 8, "constant type")?,
            internal: r.u8(at + 9, "constant is_internal")? != 0,
            count: Some(r.u8(at + 10, "constant count")?),
            values: values(r, at + 12)?,
            embedded_constants,
        });
    }
    Ok(out)
}

fn const_offset_table(
    r: &Reader<'_>,
    table: u32,
    ucode_size: u32,
    field_at: u64,
) -> Result<Vec<u32>, ContainerError> {
    let t = u64::from(table);
    r.range(t, 4, r.len(), field_at, "rsxConstOffsetTable")?;
    let num = r.u32(t, "rsxConstOffsetTable num")?;
    r.check_array(t + 4, num.into(), 4, r.len(), t, "rsxConstOffsetTable num")?;
    let mut out = Vec::with_capacity(num as usize);
    for k in 0..u64::from(num) {
        let at = t + 4 + 4 * k;
        let o = r.u32(at, "rsxConstOffsetTable offset")?;
        check_constant_slot(o, ucode_size, at, "rsxConstOffsetTable offset")?;
        out.push(o);
    }
    Ok(out)
}

impl Psl1ghtFragmentProgram {
    /// Parses an `"FP"` (`rsxFragmentProgram`) container.
    pub fn parse(bytes: &[u8]) -> Result<Self, ContainerError> {
        let r = Reader::new(bytes);
        check_magic(&r, MAGIC_FRAGMENT)?;
        r.bytes(0, RSX_FP_HEADER, "rsxFragmentProgram header")?;
        let num_attr = r.u16(2, "num_attrib")?;
        let attr_off = u64::from(r.u32(4, "attrib_off")?);
        let num_regs = r.u32(8, "num_regs")?;
        let fp_control = r.u32(12, "fp_control")?;
        let texcoords = r.u16(16, "texcoords")?;
        let texcoord_2d = r.u16(18, "texcoord2D")?;
        let texcoord_3d = r.u16(20, "texcoord3D")?;
        let num_const = r.u16(24, "num_const")?;
        let const_off = u64::from(r.u32(28, "const_off")?);
        let instruction_count = r.u16(32, "num_insn")?;
        let ucode_offset = r.u32(36, "ucode_off")?;

        let ucode = ucode(&r, ucode_offset, instruction_count, 36)?;
        let ucode_size = u32::from(instruction_count) * SLOT_SIZE;
        let attributes = rsx_attributes(&r, attr_off, num_attr, 2)?;
        let constants = rsx_constants(&r, const_off, num_const, 24, Some(ucode_size))?;
        Ok(Self {
            num_regs,
            fp_control,
            texcoords,
            texcoord_2d,
            texcoord_3d,
            instruction_count,
            ucode_offset,
            attributes,
            constants,
            ucode,
        })
    }

    /// The first constant named `name`.
    pub fn constant(&self, name: &str) -> Option<&Psl1ghtConstant> {
        self.constants
            .iter()
            .find(|c| c.name.as_deref() == Some(name))
    }
}
