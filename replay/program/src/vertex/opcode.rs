//! Vertex-program opcodes: the 5-bit vector opcode (D1 bits 22–26) and the 5-bit scalar opcode
//! (D1 bits 27–31), with their RPCS3 and Mesa (nouveau) names.
//!
//! Sources: RPCS3 `RSXVertexProgram.h` (`vec_opcode`, `sca_opcode`, name tables), PSL1GHT
//! `nv40_vertprog.h` / Mesa `nvfx_shader.h` (`NV40_VP_INST_OP_*`), rsx-microcode.md B.8.

use serde::Serialize;

/// Vector-unit opcode (D1 bits 22–26). Codes 0x1A–0x1F are not defined by any source and are
/// refused by the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VectorOpcode {
    /// 0x00: no operation.
    Nop,
    /// 0x01: move.
    Mov,
    /// 0x02: multiply.
    Mul,
    /// 0x03: add (src0 + src2; rsx-microcode.md B.8 "Operand slots").
    Add,
    /// 0x04: multiply-add (src0 * src1 + src2).
    Mad,
    /// 0x05: 3-component dot product.
    Dp3,
    /// 0x06: homogeneous dot product.
    Dph,
    /// 0x07: 4-component dot product.
    Dp4,
    /// 0x08: distance vector.
    Dst,
    /// 0x09: minimum.
    Min,
    /// 0x0A: maximum.
    Max,
    /// 0x0B: set on less than.
    Slt,
    /// 0x0C: set on greater or equal.
    Sge,
    /// 0x0D: load the address register.
    Arl,
    /// 0x0E: fraction.
    Frc,
    /// 0x0F: floor.
    Flr,
    /// 0x10: set on equal.
    Seq,
    /// 0x11: set to false (0).
    Sfl,
    /// 0x12: set on greater than.
    Sgt,
    /// 0x13: set on less or equal.
    Sle,
    /// 0x14: set on not equal.
    Sne,
    /// 0x15: set to true (1).
    Str,
    /// 0x16: set sign (-1/0/+1).
    Ssg,
    /// 0x17: address register load with rounding (nouveau only; RPCS3 lists "NULL").
    Arr,
    /// 0x18: address register add (nouveau only; RPCS3 lists "NULL").
    Ara,
    /// 0x19: vertex texture fetch with explicit LOD (nouveau calls it `TXWHAT`).
    Txl,
}

impl VectorOpcode {
    /// Every vector opcode, in code order.
    pub const ALL: [VectorOpcode; 26] = [
        Self::Nop,
        Self::Mov,
        Self::Mul,
        Self::Add,
        Self::Mad,
        Self::Dp3,
        Self::Dph,
        Self::Dp4,
        Self::Dst,
        Self::Min,
        Self::Max,
        Self::Slt,
        Self::Sge,
        Self::Arl,
        Self::Frc,
        Self::Flr,
        Self::Seq,
        Self::Sfl,
        Self::Sgt,
        Self::Sle,
        Self::Sne,
        Self::Str,
        Self::Ssg,
        Self::Arr,
        Self::Ara,
        Self::Txl,
    ];

    /// Opcode for a 5-bit code, or `None` for the undefined codes 0x1A–0x1F.
    pub fn from_code(code: u32) -> Option<Self> {
        usize::try_from(code)
            .ok()
            .and_then(|i| Self::ALL.get(i))
            .copied()
    }

    /// The 5-bit code.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Mnemonic as used by RPCS3 (`rsx_vp_vec_op_names`); ARR/ARA, which RPCS3 lists as "NULL",
    /// take nouveau's names.
    pub fn name(self) -> &'static str {
        match self {
            Self::Nop => "NOP",
            Self::Mov => "MOV",
            Self::Mul => "MUL",
            Self::Add => "ADD",
            Self::Mad => "MAD",
            Self::Dp3 => "DP3",
            Self::Dph => "DPH",
            Self::Dp4 => "DP4",
            Self::Dst => "DST",
            Self::Min => "MIN",
            Self::Max => "MAX",
            Self::Slt => "SLT",
            Self::Sge => "SGE",
            Self::Arl => "ARL",
            Self::Frc => "FRC",
            Self::Flr => "FLR",
            Self::Seq => "SEQ",
            Self::Sfl => "SFL",
            Self::Sgt => "SGT",
            Self::Sle => "SLE",
            Self::Sne => "SNE",
            Self::Str => "STR",
            Self::Ssg => "SSG",
            Self::Arr => "ARR",
            Self::Ara => "ARA",
            Self::Txl => "TXL",
        }
    }

    /// Name in RPCS3's table, where it differs from [`Self::name`]: `None` for ARR/ARA
    /// (RPCS3 "NULL").
    pub fn rpcs3_name(self) -> Option<&'static str> {
        match self {
            Self::Arr | Self::Ara => None,
            other => Some(other.name()),
        }
    }

    /// Name in Mesa/nouveau (`NV40_VP_INST_OP_*`); 0x19 is `TXWHAT` there.
    pub fn mesa_name(self) -> &'static str {
        match self {
            Self::Txl => "TXWHAT",
            other => other.name(),
        }
    }

    /// Which of src0, src1, src2 the vector op reads (RPCS3 `VertexProgramDecompiler.cpp`:
    /// ADD is `$0 + $2`, MAD `fma($0, $1, $2)`, SFL/STR read nothing; TXL reads src0 and, per
    /// RPCS3, src1.x as LOD — rsx-microcode.md open question 1).
    pub fn reads(self) -> [bool; 3] {
        match self {
            Self::Nop | Self::Sfl | Self::Str => [false, false, false],
            Self::Mov | Self::Arl | Self::Frc | Self::Flr | Self::Ssg | Self::Arr | Self::Ara => {
                [true, false, false]
            }
            Self::Add => [true, false, true],
            Self::Mad => [true, true, true],
            Self::Mul
            | Self::Dp3
            | Self::Dph
            | Self::Dp4
            | Self::Dst
            | Self::Min
            | Self::Max
            | Self::Slt
            | Self::Sge
            | Self::Seq
            | Self::Sgt
            | Self::Sle
            | Self::Sne
            | Self::Txl => [true, true, false],
        }
    }
}

/// Scalar-unit opcode (D1 bits 27–31), numbered as RPCS3 does. Codes 0x15–0x1F are refused.
///
/// RPCS3 and Mesa disagree on 0x08–0x0B (rsx-microcode.md B.8): Mesa's `BRA` (0x09) is RPCS3's
/// `BRI` and Mesa's `CAL` (0x0B) is RPCS3's `CLI`; see [`ScalarOpcode::mesa_name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarOpcode {
    /// 0x00: no operation.
    Nop,
    /// 0x01: move.
    Mov,
    /// 0x02: reciprocal.
    Rcp,
    /// 0x03: clamped reciprocal.
    Rcc,
    /// 0x04: reciprocal square root.
    Rsq,
    /// 0x05: low-precision 2^x.
    Exp,
    /// 0x06: low-precision log2.
    Log,
    /// 0x07: lighting coefficients.
    Lit,
    /// 0x08: branch to the address register.
    Bra,
    /// 0x09: branch to an immediate target, conditional on the CC.
    Bri,
    /// 0x0A: call an immediate target.
    Cal,
    /// 0x0B: call an immediate target, conditional on the CC.
    Cli,
    /// 0x0C: return from a subroutine.
    Ret,
    /// 0x0D: log2.
    Lg2,
    /// 0x0E: 2^x.
    Ex2,
    /// 0x0F: sine.
    Sin,
    /// 0x10: cosine.
    Cos,
    /// 0x11: branch on a boolean constant bit.
    Brb,
    /// 0x12: call on a boolean constant bit.
    Clb,
    /// 0x13: push the address register.
    Psh,
    /// 0x14: pop the address register.
    Pop,
}

impl ScalarOpcode {
    /// Every scalar opcode, in code order.
    pub const ALL: [ScalarOpcode; 21] = [
        Self::Nop,
        Self::Mov,
        Self::Rcp,
        Self::Rcc,
        Self::Rsq,
        Self::Exp,
        Self::Log,
        Self::Lit,
        Self::Bra,
        Self::Bri,
        Self::Cal,
        Self::Cli,
        Self::Ret,
        Self::Lg2,
        Self::Ex2,
        Self::Sin,
        Self::Cos,
        Self::Brb,
        Self::Clb,
        Self::Psh,
        Self::Pop,
    ];

    /// Opcode for a 5-bit code, or `None` for the undefined codes 0x15–0x1F.
    pub fn from_code(code: u32) -> Option<Self> {
        usize::try_from(code)
            .ok()
            .and_then(|i| Self::ALL.get(i))
            .copied()
    }

    /// The 5-bit code.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Mnemonic as used by RPCS3 (`rsx_vp_sca_op_names`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Nop => "NOP",
            Self::Mov => "MOV",
            Self::Rcp => "RCP",
            Self::Rcc => "RCC",
            Self::Rsq => "RSQ",
            Self::Exp => "EXP",
            Self::Log => "LOG",
            Self::Lit => "LIT",
            Self::Bra => "BRA",
            Self::Bri => "BRI",
            Self::Cal => "CAL",
            Self::Cli => "CLI",
            Self::Ret => "RET",
            Self::Lg2 => "LG2",
            Self::Ex2 => "EX2",
            Self::Sin => "SIN",
            Self::Cos => "COS",
            Self::Brb => "BRB",
            Self::Clb => "CLB",
            Self::Psh => "PSH",
            Self::Pop => "POP",
        }
    }

    /// Name in Mesa/nouveau (`NV40_VP_INST_OP_*`), or `None` where nouveau defines no opcode
    /// for the code (0x08, 0x0A, 0x11, 0x12).
    pub fn mesa_name(self) -> Option<&'static str> {
        match self {
            Self::Bra | Self::Cal | Self::Brb | Self::Clb => None,
            // nvfx_shader.h: NV40_VP_INST_OP_BRA = 0x09, NV40_VP_INST_OP_CAL = 0x0B.
            Self::Bri => Some("BRA"),
            Self::Cli => Some("CAL"),
            Self::Psh => Some("PUSHA"),
            Self::Pop => Some("POPA"),
            other => Some(other.name()),
        }
    }

    /// Whether the op transfers control to the immediate target in the iaddr fields
    /// (BRI, CAL, CLI, BRB, CLB — RPCS3 `ProgramStateCache.cpp` analyser). BRA jumps to the
    /// address register instead and has no static target.
    pub fn has_immediate_target(self) -> bool {
        matches!(
            self,
            Self::Bri | Self::Cal | Self::Cli | Self::Brb | Self::Clb
        )
    }

    /// Whether the op is a subroutine call (returns to the next slot).
    pub fn is_call(self) -> bool {
        matches!(self, Self::Cal | Self::Cli | Self::Clb)
    }

    /// Whether the op is flow control rather than arithmetic (no destination written).
    pub fn is_flow(self) -> bool {
        matches!(
            self,
            Self::Bra
                | Self::Bri
                | Self::Cal
                | Self::Cli
                | Self::Ret
                | Self::Brb
                | Self::Clb
                | Self::Psh
                | Self::Pop
        )
    }

    /// Whether the op reads src2 (the scalar operand; RPCS3 `$s`).
    pub fn reads_src2(self) -> bool {
        matches!(
            self,
            Self::Mov
                | Self::Rcp
                | Self::Rcc
                | Self::Rsq
                | Self::Exp
                | Self::Log
                | Self::Lit
                | Self::Lg2
                | Self::Ex2
                | Self::Sin
                | Self::Cos
        )
    }
}

impl Serialize for VectorOpcode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Serialize for ScalarOpcode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
