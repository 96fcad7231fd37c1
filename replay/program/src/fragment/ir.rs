//! The typed fragment-program IR: one [`FragmentInstruction`] per instruction slot, holding
//! every field of the four instruction words (rsx-microcode.md B.1), plus the inline constant
//! that follows it when one of its sources is a constant.
//!
//! Every bit of the four words is represented, so `encode(decode(bytes)) == bytes` for any
//! program the decoder accepts (flow-control words keep their unused bits in
//! [`FlowOperands::reserved`]).

use serde::{Serialize, Serializer};

use super::opcode::FpOpcode;

/// A decoded fragment program.
///
/// JSON form: `{"stage": "fragment", "slot_count": n, "instructions": [...]}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentProgram {
    /// Instructions in slot order; inline-constant slots are not listed here but attached to
    /// the instruction that owns them.
    pub instructions: Vec<FragmentInstruction>,
    /// 16-byte slots consumed, instructions and constant slots together (up to and including
    /// the END instruction and its constant).
    pub slot_count: u32,
}

impl Serialize for FragmentProgram {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("FragmentProgram", 3)?;
        st.serialize_field("stage", "fragment")?;
        st.serialize_field("slot_count", &self.slot_count)?;
        st.serialize_field("instructions", &self.instructions)?;
        st.end()
    }
}

impl FragmentProgram {
    /// A program from instructions; `slot_count` is computed from the last instruction's slot
    /// and constant.
    pub fn new(instructions: Vec<FragmentInstruction>) -> FragmentProgram {
        let slot_count = instructions
            .iter()
            .map(|i| i.slot.saturating_add(1 + u32::from(i.constant.is_some())))
            .max()
            .unwrap_or(0);
        FragmentProgram {
            instructions,
            slot_count,
        }
    }

    /// The input attributes the program reads, bit n = input n (WPOS = 0, COL0 = 1, COL1 = 2,
    /// FOGC = 3, TEX0..TEX9 = 4..13, FACING = 14): the attribute of every instruction with an
    /// input-type source among the operands its opcode reads (`FpOpcode::operands_read`, the
    /// sources the interpreter and the recompiler read), or every texture coordinate when
    /// that attribute is `TEX[A0 + displacement]` (`SRC2` 30; rsx-microcode.md B.3).
    pub fn inputs_read(&self) -> u16 {
        /// TEX0..TEX9.
        const TEXCOORDS: u16 = 0x3FF << 4;
        let mut read = 0u16;
        for insn in &self.instructions {
            let Some(alu) = insn.alu() else { continue };
            let sources = &alu.sources[..insn.opcode.operands_read().min(3)];
            if sources.iter().any(|s| s.kind == SourceKind::Input) {
                read |= if alu.indexed_input {
                    TEXCOORDS
                } else {
                    1 << (insn.input.0 & 15)
                };
            }
        }
        read
    }

    /// The texture units the program samples, bit n = unit n: the unit of every texture
    /// instruction (TEX, TXP, TXD, TXB, TXL, ...).
    pub fn texture_units_read(&self) -> u16 {
        self.instructions
            .iter()
            .filter(|i| i.opcode.is_texture())
            .fold(0u16, |m, i| {
                m | 1u16.checked_shl(u32::from(i.texture_unit)).unwrap_or(0)
            })
    }

    /// Number of inline-constant slots.
    pub fn constant_slot_count(&self) -> usize {
        self.instructions
            .iter()
            .filter(|i| i.constant.is_some())
            .count()
    }
}

/// One instruction (16 bytes) and its inline constant, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FragmentInstruction {
    /// Slot index (16-byte units) from the start of the ucode given to the decoder.
    pub slot: u32,
    /// Full 7-bit opcode (`OPDEST` 24–29 | `SRC1` bit 31 << 6).
    pub opcode: FpOpcode,
    /// `OPDEST` bit 0: last instruction.
    pub end: bool,
    /// Destination fields of `OPDEST` (and `SRC0` bit 30, the CC written).
    pub dest: Destination,
    /// `OPDEST` 13–16: the input attribute read by every input-type source.
    pub input: InputAttribute,
    /// `OPDEST` 17–20: texture unit.
    pub texture_unit: u8,
    /// `OPDEST` 21: texel expanded with 2x−1 ("bx2").
    pub exp_tex: bool,
    /// `SRC0` 18–28 and 31: the condition test.
    pub condition: Condition,
    /// Register operands (ALU/texture) or flow-control fields.
    pub operands: Operands,
    /// The inline constant in the following slot (only for non-flow instructions with a
    /// constant-type source; B.3).
    pub constant: Option<InlineConstant>,
}

impl FragmentInstruction {
    /// Whether the result skips the precision clamp of its destination (rsx-microcode.md B.2
    /// step 4, from RPCS3's `SetDst`): NRM, MAX, MIN, COS, SIN, REFL, FRC, LIT, LIF and LG2,
    /// and a MOV from an fp16 temp into an fp16 destination. One rule for the interpreter and
    /// the recompiler.
    pub fn skips_precision_clamp(&self) -> bool {
        match self.opcode {
            FpOpcode::Nrm
            | FpOpcode::Max
            | FpOpcode::Min
            | FpOpcode::Cos
            | FpOpcode::Sin
            | FpOpcode::Refl
            | FpOpcode::Frc
            | FpOpcode::Lit
            | FpOpcode::Lif
            | FpOpcode::Lg2 => true,
            FpOpcode::Mov => {
                self.dest.fp16
                    && self.alu().is_some_and(|a| {
                        let s = &a.sources[0];
                        s.kind == SourceKind::Temp && s.fp16
                    })
            }
            _ => false,
        }
    }

    /// The ALU operands, or `None` for flow control.
    pub fn alu(&self) -> Option<&AluOperands> {
        match &self.operands {
            Operands::Alu(a) => Some(a),
            Operands::Flow(_) => None,
        }
    }

    /// The flow-control operands, or `None` for ALU/texture instructions.
    pub fn flow(&self) -> Option<&FlowOperands> {
        match &self.operands {
            Operands::Flow(f) => Some(f),
            Operands::Alu(_) => None,
        }
    }
}

/// Destination register and result modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Destination {
    /// `OPDEST` 1–6: register index.
    pub index: u8,
    /// `OPDEST` 7: H (fp16) register instead of R.
    pub fp16: bool,
    /// `OPDEST` 9–12.
    pub mask: WriteMask,
    /// `OPDEST` 22–23: result precision.
    pub precision: Precision,
    /// `OPDEST` 31: clamp to [0, 1].
    pub saturate: bool,
    /// `OPDEST` 30: no register write (condition code only, or flow).
    pub no_dest: bool,
    /// `OPDEST` 8: write the condition code.
    pub set_cond: bool,
    /// `SRC0` 30: which condition register (0 or 1) `set_cond` writes.
    pub cc_write: u8,
}

impl Destination {
    /// All four components of fp32 register `R<index>`, nothing else set.
    pub fn temp(index: u8) -> Destination {
        Destination {
            index,
            fp16: false,
            mask: WriteMask::XYZW,
            precision: Precision::Fp32,
            saturate: false,
            no_dest: false,
            set_cond: false,
            cc_write: 0,
        }
    }
}

/// 4-bit component write mask, bit 0 = x.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WriteMask(pub u8);

impl WriteMask {
    /// All four components.
    pub const XYZW: WriteMask = WriteMask(0xF);

    /// Whether component `c` (0 = x) is written.
    pub fn has(self, c: usize) -> bool {
        c < 4 && self.0 & (1 << c) != 0
    }
}

impl std::fmt::Display for WriteMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (c, name) in ['x', 'y', 'z', 'w'].into_iter().enumerate() {
            if self.has(c) {
                write!(f, "{name}")?;
            }
        }
        Ok(())
    }
}

impl Serialize for WriteMask {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Component selector for each of x, y, z, w (0 = x … 3 = w).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle(pub [u8; 4]);

impl Swizzle {
    /// `.xyzw`.
    pub const IDENTITY: Swizzle = Swizzle([0, 1, 2, 3]);

    /// From the 8-bit field (2 bits per component, x lowest; B.1).
    pub fn from_bits(bits: u32) -> Swizzle {
        Swizzle([
            (bits & 3) as u8,
            ((bits >> 2) & 3) as u8,
            ((bits >> 4) & 3) as u8,
            ((bits >> 6) & 3) as u8,
        ])
    }

    /// The 8-bit field.
    pub fn bits(self) -> u32 {
        self.0
            .iter()
            .enumerate()
            .fold(0, |acc, (i, &c)| acc | (u32::from(c & 3) << (2 * i)))
    }
}

impl std::fmt::Display for Swizzle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for &c in &self.0 {
            f.write_str(["x", "y", "z", "w"][usize::from(c & 3)])?;
        }
        Ok(())
    }
}

impl Serialize for Swizzle {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Destination precision (`OPDEST` 22–23; B.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// IEEE single.
    Fp32,
    /// IEEE half.
    Fp16,
    /// Fixed point, [−2, 2).
    Fx12,
    /// Fixed point, nouveau "s0.8"; RPCS3 clamps to [−1, 1].
    Fx9,
}

impl Precision {
    /// From the 2-bit field.
    pub fn from_bits(bits: u32) -> Precision {
        match bits & 3 {
            0 => Precision::Fp32,
            1 => Precision::Fp16,
            2 => Precision::Fx12,
            _ => Precision::Fx9,
        }
    }

    /// The 2-bit field.
    pub fn bits(self) -> u32 {
        self as u32
    }
}

/// Source precision modifier (`SRC1` 19–21 / 22–24 / 25–27; B.1, B.2). Applied after `abs`,
/// before `negate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrecisionModifier {
    /// 0: no conversion (fp32).
    None,
    /// 1: round through fp16.
    Fp16,
    /// 2: clamp to fx12.
    Fx12,
    /// 3: clamp to fx9.
    Fx9,
    /// 4: saturate.
    Sat,
    /// 5: "unknown, no effect in HW tests" (RPCS3).
    Unknown5,
    /// 6: undocumented.
    Unknown6,
    /// 7: undocumented.
    Unknown7,
}

impl PrecisionModifier {
    /// From the 3-bit field.
    pub fn from_bits(bits: u32) -> PrecisionModifier {
        match bits & 7 {
            0 => PrecisionModifier::None,
            1 => PrecisionModifier::Fp16,
            2 => PrecisionModifier::Fx12,
            3 => PrecisionModifier::Fx9,
            4 => PrecisionModifier::Sat,
            5 => PrecisionModifier::Unknown5,
            6 => PrecisionModifier::Unknown6,
            _ => PrecisionModifier::Unknown7,
        }
    }

    /// The 3-bit field.
    pub fn bits(self) -> u32 {
        self as u32
    }
}

/// Output scale (`SRC1` 28–30; B.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputScale {
    /// ×1.
    None,
    /// ×2.
    Mul2,
    /// ×4.
    Mul4,
    /// ×8.
    Mul8,
    /// Encoding 4, documented as invalid; kept so the word round-trips.
    Invalid4,
    /// ÷2.
    Div2,
    /// ÷4.
    Div4,
    /// ÷8.
    Div8,
}

impl OutputScale {
    /// From the 3-bit field.
    pub fn from_bits(bits: u32) -> OutputScale {
        match bits & 7 {
            0 => OutputScale::None,
            1 => OutputScale::Mul2,
            2 => OutputScale::Mul4,
            3 => OutputScale::Mul8,
            4 => OutputScale::Invalid4,
            5 => OutputScale::Div2,
            6 => OutputScale::Div4,
            _ => OutputScale::Div8,
        }
    }

    /// The 3-bit field.
    pub fn bits(self) -> u32 {
        self as u32
    }

    /// The factor, or `None` for the invalid encoding.
    pub fn factor(self) -> Option<f32> {
        match self {
            OutputScale::None => Some(1.0),
            OutputScale::Mul2 => Some(2.0),
            OutputScale::Mul4 => Some(4.0),
            OutputScale::Mul8 => Some(8.0),
            OutputScale::Invalid4 => None,
            OutputScale::Div2 => Some(0.5),
            OutputScale::Div4 => Some(0.25),
            OutputScale::Div8 => Some(0.125),
        }
    }
}

/// Condition relation (`SRC0` 18–20: lt, eq, gt; PSL1GHT `NVFX_FP_OP_COND_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Relation {
    /// Never.
    Fl,
    /// `<`.
    Lt,
    /// `==`.
    Eq,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `!=`.
    Ne,
    /// `>=`.
    Ge,
    /// Always.
    Tr,
}

impl Relation {
    /// From the 3-bit field.
    pub fn from_bits(bits: u32) -> Relation {
        match bits & 7 {
            0 => Relation::Fl,
            1 => Relation::Lt,
            2 => Relation::Eq,
            3 => Relation::Le,
            4 => Relation::Gt,
            5 => Relation::Ne,
            6 => Relation::Ge,
            _ => Relation::Tr,
        }
    }

    /// The 3-bit field.
    pub fn bits(self) -> u32 {
        self as u32
    }

    /// Upper-case mnemonic (`"NE"`).
    pub fn name(self) -> &'static str {
        ["FL", "LT", "EQ", "LE", "GT", "NE", "GE", "TR"][self as usize]
    }
}

/// The condition test of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Condition {
    /// `SRC0` 18–20.
    pub relation: Relation,
    /// `SRC0` 21–28: which CC components are tested per lane.
    pub swizzle: Swizzle,
    /// `SRC0` 31: which condition register (0 or 1) the test reads.
    pub cc: u8,
}

impl Condition {
    /// `TR` on CC0 with the identity swizzle: no condition.
    pub const ALWAYS: Condition = Condition {
        relation: Relation::Tr,
        swizzle: Swizzle::IDENTITY,
        cc: 0,
    };

    /// Whether the test can be false for some lane (anything but `TR`).
    pub fn is_conditional(&self) -> bool {
        self.relation != Relation::Tr
    }
}

/// Input attribute number (`OPDEST` 13–16; B.3 table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputAttribute(pub u8);

impl InputAttribute {
    /// Window position.
    pub const WPOS: InputAttribute = InputAttribute(0);
    /// Primary colour.
    pub const COL0: InputAttribute = InputAttribute(1);
    /// Secondary colour.
    pub const COL1: InputAttribute = InputAttribute(2);
    /// Fog coordinate.
    pub const FOGC: InputAttribute = InputAttribute(3);
    /// Front/back facing.
    pub const FACING: InputAttribute = InputAttribute(14);

    /// Texture coordinate set `n` (0–9).
    pub fn tex(n: u8) -> InputAttribute {
        InputAttribute(4 + n.min(9))
    }

    /// The name (`"WPOS"`, `"COL0"`, `"TEX3"`, `"FACING"`), or `None` for 15.
    pub fn name(self) -> Option<&'static str> {
        const NAMES: [&str; 15] = [
            "WPOS", "COL0", "COL1", "FOGC", "TEX0", "TEX1", "TEX2", "TEX3", "TEX4", "TEX5", "TEX6",
            "TEX7", "TEX8", "TEX9", "FACING",
        ];
        NAMES.get(usize::from(self.0)).copied()
    }
}

impl std::fmt::Display for InputAttribute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "ATTR{}", self.0),
        }
    }
}

impl Serialize for InputAttribute {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Source register file (bits 0–1 of a source word; type 3 is refused by the decoder).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// R/H temporary.
    Temp,
    /// The instruction's input attribute.
    Input,
    /// The inline constant.
    Constant,
}

/// One register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Source {
    /// Bits 0–1.
    #[serde(rename = "type")]
    pub kind: SourceKind,
    /// Bits 2–7: temp index (kept for other kinds too, so words round-trip).
    pub index: u8,
    /// Bit 8: H register.
    pub fp16: bool,
    /// Bits 9–16.
    pub swizzle: Swizzle,
    /// Bit 17.
    pub negate: bool,
    /// `SRC0` 29 / `SRC1` 18 / `SRC2` 18.
    pub abs: bool,
    /// `SRC1` 19–27, three bits per source.
    pub modifier: PrecisionModifier,
}

impl Source {
    /// `R{index}` with the identity swizzle and no modifiers.
    pub fn temp(index: u8) -> Source {
        Source {
            kind: SourceKind::Temp,
            index,
            fp16: false,
            swizzle: Swizzle::IDENTITY,
            negate: false,
            abs: false,
            modifier: PrecisionModifier::None,
        }
    }
}

/// Operands of ALU and texture instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct AluOperands {
    /// SRC0, SRC1, SRC2 (all three are kept even when the opcode reads fewer).
    pub sources: [Source; 3],
    /// `SRC1` 28–30.
    pub scale: OutputScale,
    /// `SRC2` 31: RPCS3 "perspective_corr" (multiply the attribute by gl_FragCoord.w);
    /// nouveau: "disable perspective-correct interpolation?".
    pub perspective: bool,
    /// `SRC2` 30: the input attribute is `TEX[A0 + input_displacement]`.
    pub indexed_input: bool,
    /// `SRC2` 19–29: displacement added to the loop counter A0.
    pub input_displacement: u16,
}

/// Operands of flow-control instructions (0x40–0x45).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FlowOperands {
    /// The offsets and counts.
    pub kind: FlowKind,
    /// Bits of SRC0, SRC1, SRC2 that no flow field covers (SRC0 0–17 and 29; the loop word's
    /// 0–1, 18 and 27–30; the whole unused offset words; SRC2 bit 31). Normally zero.
    pub reserved: [u32; 3],
}

/// Flow-control fields. Targets are slot indices (the encoded offsets are absolute dword
/// offsets from program start, `slot * 4`; B.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum FlowKind {
    /// Break out of the innermost loop.
    Brk,
    /// Return (ends the program outside a subroutine).
    Ret,
    /// Call the subroutine at `target` (`SRC1`).
    Cal {
        /// Subroutine entry slot.
        target: u32,
    },
    /// If/else: the else block starts at `else_slot` (`SRC1`), the construct ends at
    /// `end_slot` (`SRC2`); `else_slot == end_slot` means no else block.
    Ife {
        /// First slot of the else block.
        else_slot: u32,
        /// First slot after the construct.
        end_slot: u32,
    },
    /// `LOOP` (`SRC1` 2–9 count, 10–17 initial counter, 19–26 increment; `SRC2` end).
    Loop(LoopFields),
    /// `REP`, same fields as `LOOP`.
    Rep(LoopFields),
}

/// Loop counter fields (PSL1GHT `NV40_FP_OP_LOOP_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct LoopFields {
    /// `SRC1` 2–9: iteration count.
    pub count: u8,
    /// `SRC1` 10–17: initial counter (A0).
    pub init: u8,
    /// `SRC1` 19–26: counter increment (signed).
    pub increment: i8,
    /// `SRC2` 0–30 / 4: first slot after the loop body.
    pub end_slot: u32,
}

/// The instruction's operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Operands {
    /// ALU and texture instructions.
    Alu(AluOperands),
    /// Flow control.
    Flow(FlowOperands),
}

/// The 16-byte constant slot following an instruction, as four raw 32-bit values (after the
/// half-word swap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InlineConstant(pub [u32; 4]);

impl InlineConstant {
    /// The four values as f32.
    pub fn values(&self) -> [f32; 4] {
        self.0.map(f32::from_bits)
    }
}

impl Serialize for InlineConstant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let bits = self.0.map(|b| format!("{b:#010x}"));
        let mut st = s.serialize_struct("InlineConstant", 2)?;
        st.serialize_field("bits", &bits)?;
        st.serialize_field("values", &self.values())?;
        st.end()
    }
}
