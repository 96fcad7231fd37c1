//! PSL1GHT/Tiny3D program containers (`.rvp`/`.vpo` vertex, `.rfp`/`.fpo` fragment), all
//! big-endian. PSL1GHT's `cgcomp` wrote three layouts: `reality_program.h`'s from January to
//! April 2011 (PSL1GHT e488c61: `realityVertexProgram`, `realityFragmentProgram`), the
//! `rsxVertexProgram`/`rsxFragmentProgram` of PSL1GHT V2 until 2020-07-10, and since then
//! (PSL1GHT d0eea6e, "improve cgcomp") 36-byte headers: anything built with a PSL1GHT of the
//! last years carries the last.
//!
//! Four vertex layouts share the magic `"VP"`:
//!
//! * **libreality** (PSL1GHT v1, Tiny3D; Tiny3D `lib/source/realityVP.h`, `#pragma pack(1)`):
//!   28-byte header `magic u16, NumInsts u16, UCodeOffset u32, NumConstants u16,
//!   NumAttributes u16, ConstantsOffset u32, AttributesOffset u32, InputMask u32,
//!   OutputMask u32`; attribute = `NameOffset u32, Index u32` (8 bytes); constant =
//!   `NameOffset u32, Index u32, Type u8, Internal u8, Values[4] u32` (26 bytes).
//! * **realityVertexProgram** (cgcomp of early 2011, `include/rsx/reality_program.h` and
//!   `tools/cgcomp/source/main.cpp` @ e488c61): the 32-byte header below with 8-byte
//!   attributes (`name_off u32, index u32`, no type); its loader (`libreality` `commands.c`
//!   `realityLoadVertexProgram`) loads it at slot 0 and uploads *every* constant's values at
//!   its `index`.
//! * **rsxVertexProgram until July 2020** (PSL1GHT `ppu/include/rsx/rsx_program.h` @ fc31d59,
//!   natural alignment): 32-byte header `magic u16, num_attrib u16, attrib_off u32,
//!   input_mask u32, output_mask u32, const_start u16, num_const u16, const_off u32,
//!   start_insn u16, num_insn u16, ucode_off u32`.
//! * **rsxVertexProgram since July 2020** (rsx_program.h @ d0eea6e and later): 36-byte
//!   header `magic u16, _pad0 u16, num_regs u16, num_attr u16, num_const u16, num_insn u16,
//!   attr_off u32, const_off u32, ucode_off u32, input_mask u32, output_mask u32,
//!   const_start u16, insn_start u16`.
//!
//! Both `rsxVertexProgram` layouts share `rsxProgramAttrib` = `name_off u32, index u32,
//! type u8, pad[3]` (12 bytes) and `rsxProgramConst` = `name_off u32, index u32, type u8,
//! is_internal u8, count u8, pad u8, values[4] u32` (28 bytes); the `type` numbers differ
//! between PSL1GHT versions (`PARAM_*`), so they are kept as stored.
//!
//! `cgcomp` (`tools/cgcomp/source/main.cpp`) always places the attribute table right after
//! the header and the constants right after it, so a `"VP"` file whose u32 at byte 4 is 32 is
//! read as `realityVertexProgram` when its constants start 8 bytes per attribute after its
//! attributes, else as the first `rsxVertexProgram`; one whose u16 at byte 2 is 0 (the
//! padding; libreality has its instruction count there) and whose u32 at byte 12 is 36 as the
//! second, any other as libreality.
//!
//! The fragment container (magic `"FP"`) has three layouts too:
//!
//! * **realityFragmentProgram** (early 2011): 32-byte header `magic u16, num_attrib u16,
//!   attrib_off u32, num_regs u32, fp_control u32, pad u16, num_const u16, const_off u32,
//!   num_insn u16, (pad 2), ucode_off u32`, 8-byte attributes; a constant's `index` is the
//!   ucode byte offset of its inline slot itself (`(slot + row) * 16`, its first use only; a
//!   negative one when unused).
//! * **rsxFragmentProgram until July 2020**: 40-byte header `magic u16, num_attrib u16,
//!   attrib_off u32, num_regs u32, fp_control u32, texcoords u16, texcoord2D u16,
//!   texcoord3D u16, pad u16, num_const u16, (pad 2), const_off u32, num_insn u16, (pad 2),
//!   ucode_off u32` (attributes at 40).
//! * **rsxFragmentProgram since July 2020**: 36-byte header `magic u16, _pad0 u16,
//!   num_regs u16, num_attr u16, num_const u16, num_insn u16, attr_off u32, const_off u32,
//!   ucode_off u32, fp_control u32, texcoords u16, texcoord2D u16, texcoord3D u16,
//!   _pad1 u16` (attributes at 36).
//!
//! An `"FP"` file whose attributes start at 32 is the early-2011 layout. In the two later
//! ones cgcomp stores in a constant's `index` the offset of an `rsxConstOffsetTable` (`num
//! u32, offset[num] u32`): the ucode byte offsets of the inline-constant slots to patch (-1
//! when the constant is unused). The microcode is stored half-word swapped, exactly as the
//! RSX reads it.
//!
//! Microcode is `num_insn` 16-byte slots at the ucode offset (16-aligned, last in the file).

use serde::Serialize;

use super::cg::{check_constant_slot, slot_table, TableFields, SLOT_SIZE};
use super::error::{ContainerError, ContainerErrorKind};
use super::reader::Reader;

/// `'V' << 8 | 'P'` (cgcomp main.cpp).
pub const MAGIC_VERTEX: u16 = 0x5650;
/// `'F' << 8 | 'P'` (cgcomp main.cpp).
pub const MAGIC_FRAGMENT: u16 = 0x4650;

/// An attribute record without a type (`name_off u32, index u32`): libreality's, and
/// `realityProgramAttrib` of early 2011.
const SHORT_ATTRIBUTE: u64 = 8;
const LIBREALITY_CONSTANT: u64 = 26;
const RSX_ATTRIBUTE: u64 = 12;
const RSX_CONSTANT: u64 = 28;
/// The header of `rsxVertexProgram` and `rsxFragmentProgram` since July 2020.
const RSX_2020_HEADER: u32 = 36;
/// `GCM_ATTRIB_OUTPUT_MASK_POINTSIZE` (PSL1GHT `gcm_sys.h`), which PSL1GHT's loader since July
/// 2020 adds to every vertex program's output mask (`commands_impl.h`
/// `LoadVertexProgramBlock`).
const OUTPUT_MASK_POINT_SIZE: u32 = 1 << 5;
/// `SHADER_CONTROL` bit 10, which PSL1GHT's fragment loader since July 2020 always sets
/// (`LoadFragmentProgramLocation`; RPCS3 `gcm_enums.h`: "seemingly always set").
const CONTROL_BIT_10: u32 = 1 << 10;

/// Which vertex container layout a `"VP"` file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum VpLayout {
    /// libreality / PSL1GHT v1 / Tiny3D `realityVP.h`.
    Libreality,
    /// PSL1GHT `realityVertexProgram` (cgcomp of early 2011: 8-byte attributes).
    Reality,
    /// PSL1GHT `rsxVertexProgram` until July 2020 (32-byte header).
    RsxProgram,
    /// PSL1GHT `rsxVertexProgram` since July 2020 (36-byte header with `num_regs`).
    RsxProgram2020,
}

/// Which fragment container layout an `"FP"` file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FpLayout {
    /// PSL1GHT `realityFragmentProgram` (cgcomp of early 2011: 32-byte header, 8-byte
    /// attributes, constants naming their slot).
    Reality,
    /// PSL1GHT `rsxFragmentProgram` until July 2020 (40-byte header).
    RsxProgram,
    /// PSL1GHT `rsxFragmentProgram` since July 2020 (36-byte header).
    RsxProgram2020,
}

/// Where one layout keeps the header fields every layout has (byte offsets).
pub(crate) struct Fields {
    pub(crate) header: u64,
    pub(crate) num_attr: u64,
    pub(crate) attr_off: u64,
    pub(crate) num_const: u64,
    pub(crate) const_off: u64,
    pub(crate) num_insn: u64,
    pub(crate) ucode_off: u64,
}

impl VpLayout {
    /// The layout of a `"VP"` file (module docs); `None` when it is shorter than 16 bytes.
    pub fn detect(bytes: &[u8]) -> Option<Self> {
        let r = Reader::new(bytes);
        let (pad, at4, at12) = (r.u16(2, "").ok()?, r.u32(4, "").ok()?, r.u32(12, "").ok()?);
        Some(if at4 == 32 {
            // The constants follow the attributes: 8 bytes each early in 2011, 12 after.
            let const_off = r.u32(20, "").ok()?;
            let short = u64::from(at4) + u64::from(pad) * SHORT_ATTRIBUTE;
            if pad > 0 && u64::from(const_off) == short {
                Self::Reality
            } else {
                Self::RsxProgram
            }
        } else if pad == 0 && at12 == RSX_2020_HEADER {
            Self::RsxProgram2020
        } else {
            Self::Libreality
        })
    }

    pub(crate) fn fields(self) -> Fields {
        match self {
            Self::Libreality => Fields {
                header: 28,
                num_attr: 10,
                attr_off: 16,
                num_const: 8,
                const_off: 12,
                num_insn: 2,
                ucode_off: 4,
            },
            Self::Reality | Self::RsxProgram => Fields {
                header: 32,
                num_attr: 2,
                attr_off: 4,
                num_const: 18,
                const_off: 20,
                num_insn: 26,
                ucode_off: 28,
            },
            Self::RsxProgram2020 => RSX_2020_FIELDS,
        }
    }

    /// Byte offsets of `(input_mask, output_mask, const_start, start_insn)` (the last two
    /// absent from libreality).
    pub(crate) fn masks(self) -> (u64, u64, Option<(u64, u64)>) {
        match self {
            Self::Libreality => (20, 24, None),
            Self::Reality | Self::RsxProgram => (8, 12, Some((16, 24))),
            Self::RsxProgram2020 => (24, 28, Some((32, 34))),
        }
    }
}

/// The tables and microcode of both July 2020 headers sit alike.
const RSX_2020_FIELDS: Fields = Fields {
    header: RSX_2020_HEADER as u64,
    num_attr: 6,
    attr_off: 12,
    num_const: 8,
    const_off: 16,
    num_insn: 10,
    ucode_off: 20,
};

impl FpLayout {
    /// Byte offsets of `(num_regs, fp_control, texcoords)` (`num_regs` a u32 until July 2020,
    /// a u16 since; `texcoord2D` and `texcoord3D` follow `texcoords`, which the early-2011
    /// layout has not).
    pub(crate) fn control_fields(self) -> (u64, u64, Option<u64>) {
        match self {
            Self::Reality => (8, 12, None),
            Self::RsxProgram => (8, 12, Some(16)),
            Self::RsxProgram2020 => (4, 24, Some(28)),
        }
    }

    /// The layout of an `"FP"` file (module docs): early 2011's when its attributes start at
    /// 32 (byte 4), the July 2020 one when its padding at byte 2 is 0 and its attributes start
    /// at 36 (byte 12), else V2's of 2011; `None` when it is shorter than 16 bytes.
    pub fn detect(bytes: &[u8]) -> Option<Self> {
        let r = Reader::new(bytes);
        let (pad, at4, at12) = (r.u16(2, "").ok()?, r.u32(4, "").ok()?, r.u32(12, "").ok()?);
        Some(if at4 == 32 {
            Self::Reality
        } else if at4 != 40 && pad == 0 && at12 == RSX_2020_HEADER {
            Self::RsxProgram2020
        } else {
            Self::RsxProgram
        })
    }

    pub(crate) fn fields(self) -> Fields {
        match self {
            Self::Reality => Fields {
                header: 32,
                num_attr: 2,
                attr_off: 4,
                num_const: 18,
                const_off: 20,
                num_insn: 24,
                ucode_off: 28,
            },
            Self::RsxProgram => Fields {
                header: 40,
                num_attr: 2,
                attr_off: 4,
                num_const: 24,
                const_off: 28,
                num_insn: 32,
                ucode_off: 36,
            },
            Self::RsxProgram2020 => RSX_2020_FIELDS,
        }
    }
}

/// What a header says of a container's tables and microcode, read without any check, for a
/// scanner that must tell a container from other data before parsing it: `(header bytes,
/// [(count, offset)] of the attribute and constant tables, microcode offset, slot count)`;
/// `None` when the bytes end inside the header.
pub(crate) type HeaderSpans = (u64, [(u16, u32); 2], u32, u16);

fn spans(bytes: &[u8], f: &Fields) -> Option<HeaderSpans> {
    let r = Reader::new(bytes);
    r.bytes(0, f.header, "").ok()?;
    let table = |count: u64, off: u64| Some((r.u16(count, "").ok()?, r.u32(off, "").ok()?));
    Some((
        f.header,
        [
            table(f.num_attr, f.attr_off)?,
            table(f.num_const, f.const_off)?,
        ],
        r.u32(f.ucode_off, "").ok()?,
        r.u16(f.num_insn, "").ok()?,
    ))
}

/// [`HeaderSpans`] of a `"VP"` file.
pub(crate) fn vertex_spans(bytes: &[u8]) -> Option<HeaderSpans> {
    spans(bytes, &VpLayout::detect(bytes)?.fields())
}

/// [`HeaderSpans`] of an `"FP"` file.
pub(crate) fn fragment_spans(bytes: &[u8]) -> Option<HeaderSpans> {
    spans(bytes, &FpLayout::detect(bytes)?.fields())
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
    /// `num_regs` (the July 2020 layout only).
    pub num_regs: Option<u16>,
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
    /// Which header layout the file uses.
    pub layout: FpLayout,
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
    /// Bytes the container covers: through its microcode, which cgcomp writes last.
    pub fn extent(&self) -> u64 {
        u64::from(self.ucode_offset) + self.ucode.len() as u64
    }

    /// SHADER_CONTROL as the PSL1GHT of the container's layout loads it
    /// (rsx-microcode.md B.6 TEMP_COUNT): until July 2020 `fp_control | num_regs << 24`
    /// (`commands.c` `rsxLoadFragmentProgramLocation` @ fc31d59); since, `fp_control |
    /// max(num_regs, 2) << 24 | 1 << 10` (`commands_impl.h` `LoadFragmentProgramLocation`).
    pub fn control_word(&self) -> u32 {
        match self.layout {
            // libreality's `realityLoadFragmentProgram` (e488c61) writes it alike.
            FpLayout::Reality | FpLayout::RsxProgram => {
                self.fp_control | ((self.num_regs & 0xFF) << 24)
            }
            FpLayout::RsxProgram2020 => {
                self.fp_control | (self.num_regs.clamp(2, 0xFF) << 24) | CONTROL_BIT_10
            }
        }
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
        let layout = VpLayout::detect(bytes).unwrap_or(VpLayout::Libreality);
        let f = layout.fields();
        r.bytes(0, f.header, "VP header")?;
        let instruction_count = r.u16(f.num_insn, "num_insn")?;
        let ucode_offset = r.u32(f.ucode_off, "ucode_off")?;
        let num_attr = r.u16(f.num_attr, "num_attr")?;
        let num_const = r.u16(f.num_const, "num_const")?;
        let attr_off = u64::from(r.u32(f.attr_off, "attr_off")?);
        let const_off = u64::from(r.u32(f.const_off, "const_off")?);
        let (input_at, output_at, slots) = layout.masks();
        let input_mask = r.u32(input_at, "input_mask")?;
        let output_mask = r.u32(output_at, "output_mask")?;
        let (const_start, start_insn) = match slots {
            Some((c, s)) => (r.u16(c, "const_start")?, r.u16(s, "start_insn")?),
            None => (0, 0),
        };
        let num_regs = match layout {
            VpLayout::RsxProgram2020 => Some(r.u16(4, "num_regs")?),
            _ => None,
        };
        let ucode = ucode(&r, ucode_offset, instruction_count, f.ucode_off)?;
        let (attributes, constants) = match layout {
            VpLayout::Libreality => {
                libreality_tables(&r, (attr_off, num_attr), (const_off, num_const), &f)?
            }
            // Early 2011 has 8-byte attribute records, the later layouts 12-byte ones.
            _ => (
                attributes(
                    &r,
                    attr_off,
                    num_attr,
                    f.num_attr,
                    layout != VpLayout::Reality,
                )?,
                rsx_constants(
                    &r,
                    const_off,
                    num_const,
                    f.num_const,
                    ConstantIndex::Register,
                )?,
            ),
        };
        Ok(Self {
            layout,
            input_mask,
            output_mask,
            num_regs,
            const_start,
            start_insn,
            instruction_count,
            ucode_offset,
            attributes,
            constants,
            ucode,
        })
    }

    /// Bytes the container covers: through its microcode, which cgcomp and Tiny3D write last.
    pub fn extent(&self) -> u64 {
        u64::from(self.ucode_offset) + self.ucode.len() as u64
    }

    /// The output mask PSL1GHT's loader of the container's layout writes to
    /// `SET_VERTEX_ATTRIB_OUTPUT_MASK`: as stored until July 2020 (`commands.c` @ fc31d59),
    /// with the point size added since (`commands_impl.h` `LoadVertexProgramBlock`).
    pub fn loaded_output_mask(&self) -> u32 {
        match self.layout {
            VpLayout::RsxProgram2020 => self.output_mask | OUTPUT_MASK_POINT_SIZE,
            _ => self.output_mask,
        }
    }

    /// The first constant named `name`.
    pub fn constant(&self, name: &str) -> Option<&Psl1ghtConstant> {
        self.constants
            .iter()
            .find(|c| c.name.as_deref() == Some(name))
    }
}

/// The libreality attribute and constant tables (module docs).
#[allow(clippy::type_complexity)]
fn libreality_tables(
    r: &Reader<'_>,
    (attr_off, num_attr): (u64, u16),
    (const_off, num_const): (u64, u16),
    f: &Fields,
) -> Result<(Vec<Psl1ghtAttribute>, Vec<Psl1ghtConstant>), ContainerError> {
    let attributes = attributes(r, attr_off, num_attr, f.num_attr, false)?;
    r.check_array(
        const_off,
        num_const.into(),
        LIBREALITY_CONSTANT,
        r.len(),
        f.num_const,
        "NumConstants",
    )?;
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
    Ok((attributes, constants))
}

/// Attribute records: `name_off u32, index u32` (8 bytes: libreality, early-2011
/// `realityProgramAttrib`), or with a type byte after them (`typed`, 12 bytes:
/// `rsxProgramAttrib`).
fn attributes(
    r: &Reader<'_>,
    off: u64,
    count: u16,
    count_field_at: u64,
    typed: bool,
) -> Result<Vec<Psl1ghtAttribute>, ContainerError> {
    let record = if typed {
        RSX_ATTRIBUTE
    } else {
        SHORT_ATTRIBUTE
    };
    r.check_array(
        off,
        count.into(),
        record,
        r.len(),
        count_field_at,
        "num_attrib",
    )?;
    let mut out = Vec::with_capacity(count.into());
    for i in 0..u64::from(count) {
        let at = off + i * record;
        out.push(Psl1ghtAttribute {
            name: name_at(r, at, "attribute name_off")?,
            index: r.u32(at + 4, "attribute index")?,
            ty: if typed {
                Some(r.u8(at + 8, "attribute type")?)
            } else {
                None
            },
        });
    }
    Ok(out)
}

/// What a constant's `index` names.
#[derive(Clone, Copy)]
enum ConstantIndex {
    /// A vertex program's constant register.
    Register,
    /// A fragment program's `rsxConstOffsetTable` (offset of; -1 unused); `ucode_size` bytes.
    Table(u32),
    /// A fragment program's inline-constant slot itself (ucode byte offset; early 2011): one
    /// that is not a slot after the first (a negative offset) marks the constant unused.
    Slot(u32),
}

/// Reads `rsxProgramConst` records, `index` read as `kind` says (a table's entries are
/// checked as inline-constant slots).
fn rsx_constants(
    r: &Reader<'_>,
    off: u64,
    count: u16,
    count_field_at: u64,
    kind: ConstantIndex,
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
        let embedded_constants = match kind {
            // cgcomp writes -1 when no slot uses the constant.
            ConstantIndex::Table(size) if index != u32::MAX => {
                const_offset_table(r, index, size, at + 4)?
            }
            // Slot 0 is an instruction, never a constant's.
            ConstantIndex::Slot(size)
                if index >= SLOT_SIZE && check_constant_slot(index, size, 0, "").is_ok() =>
            {
                vec![index]
            }
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
    let names = TableFields {
        table: "rsxConstOffsetTable",
        count: "rsxConstOffsetTable num",
        offset: "rsxConstOffsetTable offset",
    };
    slot_table(r, u64::from(table), r.len(), field_at, ucode_size, &names)
}

impl Psl1ghtFragmentProgram {
    /// Parses an `"FP"` (`rsxFragmentProgram`) container in either layout (module docs).
    pub fn parse(bytes: &[u8]) -> Result<Self, ContainerError> {
        let r = Reader::new(bytes);
        check_magic(&r, MAGIC_FRAGMENT)?;
        let layout = FpLayout::detect(bytes).unwrap_or(FpLayout::RsxProgram);
        let f = layout.fields();
        r.bytes(0, f.header, "rsxFragmentProgram header")?;
        let num_attr = r.u16(f.num_attr, "num_attr")?;
        let attr_off = u64::from(r.u32(f.attr_off, "attr_off")?);
        let num_const = r.u16(f.num_const, "num_const")?;
        let const_off = u64::from(r.u32(f.const_off, "const_off")?);
        let instruction_count = r.u16(f.num_insn, "num_insn")?;
        let ucode_offset = r.u32(f.ucode_off, "ucode_off")?;
        // num_regs, fp_control and the three texture coordinate masks.
        let (regs_at, control_at, texcoords_at) = layout.control_fields();
        let num_regs = match layout {
            FpLayout::RsxProgram2020 => u32::from(r.u16(regs_at, "num_regs")?),
            _ => r.u32(regs_at, "num_regs")?,
        };
        let fp_control = r.u32(control_at, "fp_control")?;
        let (texcoords, texcoord_2d, texcoord_3d) = match texcoords_at {
            Some(at) => (
                r.u16(at, "texcoords")?,
                r.u16(at + 2, "texcoord2D")?,
                r.u16(at + 4, "texcoord3D")?,
            ),
            None => (0, 0, 0),
        };

        let ucode = ucode(&r, ucode_offset, instruction_count, f.ucode_off)?;
        let ucode_size = u32::from(instruction_count) * SLOT_SIZE;
        let (attributes, kind) = match layout {
            FpLayout::Reality => (
                attributes(&r, attr_off, num_attr, f.num_attr, false)?,
                ConstantIndex::Slot(ucode_size),
            ),
            _ => (
                attributes(&r, attr_off, num_attr, f.num_attr, true)?,
                ConstantIndex::Table(ucode_size),
            ),
        };
        let constants = rsx_constants(&r, const_off, num_const, f.num_const, kind)?;
        Ok(Self {
            layout,
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
