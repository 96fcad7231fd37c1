//! Vertex-program operand vocabulary: source operands, swizzles, write masks, input attributes,
//! output registers, the address register and condition-code tests.
//!
//! Sources: RPCS3 `RSXVertexProgram.h` (`SRC`, `D0`, `D3`), PSL1GHT `nv40_vertprog.h`
//! (`NV40_VP_SRC_*`, `NV40_VP_INST_DEST_*`, `NV40_VP_INST_IN_*`), rsx-microcode.md B.8 tables.

use serde::Serialize;
use std::fmt;

/// One vector component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Component {
    /// x (code 0).
    X,
    /// y (code 1).
    Y,
    /// z (code 2).
    Z,
    /// w (code 3).
    W,
}

impl Component {
    /// Component for a 2-bit code (only the low two bits are used).
    pub fn from_code(code: u32) -> Self {
        match code & 3 {
            0 => Self::X,
            1 => Self::Y,
            2 => Self::Z,
            _ => Self::W,
        }
    }

    /// The 2-bit code.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Lower-case letter.
    pub fn letter(self) -> char {
        match self {
            Self::X => 'x',
            Self::Y => 'y',
            Self::Z => 'z',
            Self::W => 'w',
        }
    }
}

/// A swizzle: the component each of x, y, z, w reads, in logical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle(pub [Component; 4]);

impl Swizzle {
    /// The identity swizzle `.xyzw`.
    pub const IDENTITY: Swizzle = Swizzle([Component::X, Component::Y, Component::Z, Component::W]);

    /// Decode an 8-bit swizzle field laid out w,z,y,x from the low bits up (x in bits 6–7),
    /// as both source swizzles and the D0 condition swizzle are (nouveau `NV40_VP_SRC_SWZ_X_SHIFT`
    /// 14 vs `_W_SHIFT` 8; RPCS3 `mask_w..mask_x`).
    pub fn from_field(field: u32) -> Self {
        Swizzle([
            Component::from_code(field >> 6),
            Component::from_code(field >> 4),
            Component::from_code(field >> 2),
            Component::from_code(field),
        ])
    }

    /// The 8-bit field (inverse of [`Swizzle::from_field`]).
    pub fn to_field(self) -> u32 {
        let [x, y, z, w] = self.0;
        (x.code() << 6) | (y.code() << 4) | (z.code() << 2) | w.code()
    }

    /// Letters, e.g. `"xyzw"`.
    pub fn letters(self) -> String {
        self.0.iter().map(|c| c.letter()).collect()
    }

    /// Disassembly suffix: empty for the identity, one letter when all four agree, else four.
    pub fn suffix(self) -> String {
        if self == Self::IDENTITY {
            String::new()
        } else if self.0.iter().all(|c| *c == self.0[0]) {
            format!(".{}", self.0[0].letter())
        } else {
            format!(".{}", self.letters())
        }
    }
}

impl Serialize for Swizzle {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.letters())
    }
}

/// A write mask in logical order: bit 0 = x, 1 = y, 2 = z, 3 = w.
///
/// The hardware field is ordered the other way round (x in the highest bit; PSL1GHT
/// `nv40_vertprog.h` "this are ordered differently", rsx-microcode.md B.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct WriteMask(pub u8);

impl WriteMask {
    /// All four components.
    pub const XYZW: WriteMask = WriteMask(0xF);

    /// Decode a 4-bit hardware field (x = bit 3, w = bit 0).
    pub fn from_field(field: u32) -> Self {
        let f = field & 0xF;
        let bit = |n: u32| u8::from((f >> n) & 1 == 1);
        WriteMask(bit(3) | (bit(2) << 1) | (bit(1) << 2) | (bit(0) << 3))
    }

    /// The 4-bit hardware field.
    pub fn to_field(self) -> u32 {
        let m = u32::from(self.0);
        ((m & 1) << 3) | (((m >> 1) & 1) << 2) | (((m >> 2) & 1) << 1) | ((m >> 3) & 1)
    }

    /// Whether a component is written.
    pub fn has(self, c: Component) -> bool {
        (self.0 >> c.code()) & 1 == 1
    }

    /// Letters of the written components, e.g. `"xy"`; empty when nothing is written.
    pub fn letters(self) -> String {
        [Component::X, Component::Y, Component::Z, Component::W]
            .into_iter()
            .filter(|c| self.has(*c))
            .map(Component::letter)
            .collect()
    }
}

impl Serialize for WriteMask {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.letters())
    }
}

/// Source register type (2-bit field; 0 is invalid and refused — RPCS3 aborts the program,
/// `VertexProgramDecompiler.cpp` "Src check failed").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum RegisterType {
    /// 1: temporary register `R<n>` (index in the operand).
    Temp,
    /// 2: the instruction's input attribute (D1 input_src).
    Input,
    /// 3: the instruction's constant (D1 const_src, optionally relative).
    Constant,
}

impl RegisterType {
    /// Type for a 2-bit code, `None` for the invalid 0.
    pub fn from_code(code: u32) -> Option<Self> {
        match code & 3 {
            1 => Some(Self::Temp),
            2 => Some(Self::Input),
            3 => Some(Self::Constant),
            _ => None,
        }
    }

    /// The 2-bit code.
    pub fn code(self) -> u32 {
        match self {
            Self::Temp => 1,
            Self::Input => 2,
            Self::Constant => 3,
        }
    }
}

/// One of the three 17-bit source operands plus its abs flag from D0.
///
/// Operand bits (RPCS3 `SRC`): 0–1 register type, 2–7 temp index, 8–15 swizzle (w lowest),
/// 16 negate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Source {
    /// Register file read.
    pub reg_type: RegisterType,
    /// Temp index (6 bits). Kept for every type so that encoding is lossless; only meaningful
    /// for [`RegisterType::Temp`]. For src2 of a branch and src1 of TXL these bits alias the
    /// BRB index and the texture unit.
    pub temp_index: u8,
    /// Swizzle.
    pub swizzle: Swizzle,
    /// Negate.
    pub negate: bool,
    /// Absolute value (D0 bit 21/22/23 for src0/1/2; bit 23 aliases the branch target bit 9).
    pub abs: bool,
}

/// Vertex input attribute (D1 input_src, 4 bits; RPCS3 reg_table, nouveau `NV40_VP_INST_IN_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InputAttribute(pub u8);

impl InputAttribute {
    /// Conventional name: POS, WEIGHT, NORMAL, COL0, COL1, FOG, PSIZE, IN7 (unused), TEX0–TEX7.
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 16] = [
            "POS", "WEIGHT", "NORMAL", "COL0", "COL1", "FOG", "PSIZE", "IN7", "TEX0", "TEX1",
            "TEX2", "TEX3", "TEX4", "TEX5", "TEX6", "TEX7",
        ];
        NAMES.get(usize::from(self.0)).copied().unwrap_or("IN?")
    }
}

impl Serialize for InputAttribute {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Output register (D3 dst, 5 bits; 0x1F means "no output" and is represented as `None` at the
/// instruction level). Names from rsx-microcode.md B.8 "Outputs" (nouveau
/// `NV40_VP_INST_DEST_*`, RPCS3 `GLVertexProgram.cpp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OutputRegister(pub u8);

impl OutputRegister {
    /// NV40 register number.
    pub fn number(self) -> u8 {
        self.0
    }

    /// Name (HPOS, COL0, COL1, BFC0, BFC1, FOGC, PSZ, TEX0–TEX8), `None` for 16–30, which no
    /// source names.
    pub fn name(self) -> Option<&'static str> {
        const NAMES: [&str; 16] = [
            "HPOS", "COL0", "COL1", "BFC0", "BFC1", "FOGC", "PSZ", "TEX0", "TEX1", "TEX2", "TEX3",
            "TEX4", "TEX5", "TEX6", "TEX7", "TEX8",
        ];
        NAMES.get(usize::from(self.0)).copied()
    }
}

impl fmt::Display for OutputRegister {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "o[{n}]"),
            None => write!(f, "o[{}]", self.0),
        }
    }
}

impl Serialize for OutputRegister {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("OutputRegister", 2)?;
        st.serialize_field("number", &self.0)?;
        st.serialize_field("name", &self.name())?;
        st.end()
    }
}

/// Address register used for relative addressing: A0 or A1 (D0 bit 24) and the component
/// (D0 bits 0–1, `addr_swz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct AddressRegister {
    /// 0 for A0, 1 for A1.
    pub register: u8,
    /// Component of the register that indexes.
    pub component: Component,
}

impl fmt::Display for AddressRegister {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "A{}.{}", self.register, self.component.letter())
    }
}

/// Condition relation (D0 bits 10–12; lt = 1, eq = 2, gt = 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Relation {
    /// 0: never.
    FL,
    /// 1: less than.
    LT,
    /// 2: equal.
    EQ,
    /// 3: less or equal.
    LE,
    /// 4: greater than.
    GT,
    /// 5: not equal.
    NE,
    /// 6: greater or equal.
    GE,
    /// 7: always.
    TR,
}

impl Relation {
    /// Relation for a 3-bit code.
    pub fn from_code(code: u32) -> Self {
        match code & 7 {
            0 => Self::FL,
            1 => Self::LT,
            2 => Self::EQ,
            3 => Self::LE,
            4 => Self::GT,
            5 => Self::NE,
            6 => Self::GE,
            _ => Self::TR,
        }
    }

    /// The 3-bit code.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Mnemonic (`FL`, `LT`, ... `TR`).
    pub fn name(self) -> &'static str {
        match self {
            Self::FL => "FL",
            Self::LT => "LT",
            Self::EQ => "EQ",
            Self::LE => "LE",
            Self::GT => "GT",
            Self::NE => "NE",
            Self::GE => "GE",
            Self::TR => "TR",
        }
    }
}

/// Condition test: relation against zero of a swizzled condition-code register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct ConditionTest {
    /// D0 bit 13 `cond_test_enable` (conditional writes). Branches use the relation whatever
    /// this bit says (RPCS3 analyser treats BRI with relation TR as unconditional).
    pub enabled: bool,
    /// Relation.
    pub relation: Relation,
    /// CC swizzle (D0 bits 2–9).
    pub swizzle: Swizzle,
}

/// Condition-code update: D0 bit 14 `cond_update_enable_0` and bit 29 `cond_update_enable_1`
/// (nouveau sets both together as `COND_UPDATE_ENABLE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct ConditionUpdate {
    /// D0 bit 14.
    pub enable_0: bool,
    /// D0 bit 29.
    pub enable_1: bool,
}

impl ConditionUpdate {
    /// Whether either enable bit is set.
    pub fn any(self) -> bool {
        self.enable_0 || self.enable_1
    }
}
