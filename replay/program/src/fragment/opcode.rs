//! The fragment-program opcode table: the 7-bit opcode (`OPDEST` bits 24–29 plus `SRC1` bit 31),
//! its RPCS3 and Mesa/nouveau names, and per-opcode operand facts (source count, texture use,
//! flow control).
//!
//! Table: rsx-microcode.md B.1 "Opcode table" (RPCS3 `Assembler/FPOpcodes.h`; nouveau names
//! from PSL1GHT `nvfx_shader.h`). Source counts: rsx-microcode.md B.4 and B.7.

use serde::{Serialize, Serializer};

macro_rules! opcodes {
    ($( $variant:ident = $value:literal, $name:literal, $mesa:literal, $srcs:literal; )*) => {
        /// A fragment-program opcode (7 bits). Values with no name (0x30, 0x32, 0x3F and
        /// 0x46–0x7F) are not representable; the decoder refuses them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum FpOpcode {
            $(
                #[doc = concat!("`", $name, "` (", stringify!($value), ")")]
                $variant = $value,
            )*
        }

        impl FpOpcode {
    /// How many register operands the opcode really reads when it executes: its
    /// [`source_count`](Self::source_count), except NOP, FENCT, FENCB and KIL, which read none
    /// (their source fields may still hold a constant type, which only affects the slot layout).
    pub const fn operands_read(self) -> usize {
        match self {
            FpOpcode::Nop | FpOpcode::Fenct | FpOpcode::Fencb | FpOpcode::Kil => 0,
            _ => self.source_count(),
        }
    }

            /// Every opcode, in numeric order.
            pub const ALL: &'static [FpOpcode] = &[$(FpOpcode::$variant,)*];

            /// The opcode with this 7-bit value, or `None` for the unnamed gaps.
            pub const fn from_u8(value: u8) -> Option<FpOpcode> {
                match value {
                    $($value => Some(FpOpcode::$variant),)*
                    _ => None,
                }
            }

            /// The RPCS3 name (`FPOpcodes.h`), e.g. `"MOV"`, `"DIVSQ"`, `"IFE"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(FpOpcode::$variant => $name,)*
                }
            }

            /// The Mesa/nouveau name (`nvfx_shader.h`); equal to [`FpOpcode::name`] where
            /// the two agree.
            pub const fn mesa_name(self) -> &'static str {
                match self {
                    $(FpOpcode::$variant => $mesa,)*
                }
            }

            /// How many of SRC0..SRC2 the opcode reads as register operands (0 for flow
            /// control, whose SRC words hold offsets and counts).
            pub const fn source_count(self) -> usize {
                match self {
                    $(FpOpcode::$variant => $srcs,)*
                }
            }
        }
    };
}

opcodes! {
    Nop = 0x00, "NOP", "NOP", 0;
    Mov = 0x01, "MOV", "MOV", 1;
    Mul = 0x02, "MUL", "MUL", 2;
    Add = 0x03, "ADD", "ADD", 2;
    Mad = 0x04, "MAD", "MAD", 3;
    Dp3 = 0x05, "DP3", "DP3", 2;
    Dp4 = 0x06, "DP4", "DP4", 2;
    Dst = 0x07, "DST", "DST", 2;
    Min = 0x08, "MIN", "MIN", 2;
    Max = 0x09, "MAX", "MAX", 2;
    Slt = 0x0A, "SLT", "SLT", 2;
    Sge = 0x0B, "SGE", "SGE", 2;
    Sle = 0x0C, "SLE", "SLE", 2;
    Sgt = 0x0D, "SGT", "SGT", 2;
    Sne = 0x0E, "SNE", "SNE", 2;
    Seq = 0x0F, "SEQ", "SEQ", 2;
    Frc = 0x10, "FRC", "FRC", 1;
    Flr = 0x11, "FLR", "FLR", 1;
    Kil = 0x12, "KIL", "KIL", 0;
    Pk4 = 0x13, "PK4", "PK4B", 1;
    Up4 = 0x14, "UP4", "UP4B", 1;
    Ddx = 0x15, "DDX", "DDX", 1;
    Ddy = 0x16, "DDY", "DDY", 1;
    Tex = 0x17, "TEX", "TEX", 1;
    Txp = 0x18, "TXP", "TXP", 1;
    Txd = 0x19, "TXD", "TXD", 3;
    Rcp = 0x1A, "RCP", "RCP", 1;
    Rsq = 0x1B, "RSQ", "RSQ", 1;
    Ex2 = 0x1C, "EX2", "EX2", 1;
    Lg2 = 0x1D, "LG2", "LG2", 1;
    Lit = 0x1E, "LIT", "LIT", 1;
    Lrp = 0x1F, "LRP", "LRP", 3;
    Str = 0x20, "STR", "STR", 0;
    Sfl = 0x21, "SFL", "SFL", 0;
    Cos = 0x22, "COS", "COS", 1;
    Sin = 0x23, "SIN", "SIN", 1;
    Pk2 = 0x24, "PK2", "PK2H", 1;
    Up2 = 0x25, "UP2", "UP2H", 1;
    Pow = 0x26, "POW", "POW", 2;
    Pkb = 0x27, "PKB", "PK4UB", 1;
    Upb = 0x28, "UPB", "UP4UB", 1;
    Pk16 = 0x29, "PK16", "PK2US", 1;
    Up16 = 0x2A, "UP16", "UP2US", 1;
    Bem = 0x2B, "BEM", "BEM", 3;
    Pkg = 0x2C, "PKG", "PKG", 1;
    Upg = 0x2D, "UPG", "UPG", 1;
    Dp2a = 0x2E, "DP2A", "DP2A", 3;
    Txl = 0x2F, "TXL", "TXL", 2;
    Txb = 0x31, "TXB", "TXB", 2;
    Texbem = 0x33, "TEXBEM", "TEXBEM", 3;
    Txpbem = 0x34, "TXPBEM", "TXPBEM", 3;
    Bemlum = 0x35, "BEMLUM", "BEMLUM", 3;
    Refl = 0x36, "REFL", "RFL", 2;
    Timeswtex = 0x37, "TIMESWTEX", "TIMESWTEX", 1;
    Dp2 = 0x38, "DP2", "DP2", 2;
    Nrm = 0x39, "NRM", "NRM", 1;
    Div = 0x3A, "DIV", "DIV", 2;
    Divsq = 0x3B, "DIVSQ", "DIVRSQ", 2;
    Lif = 0x3C, "LIF", "LITEX2", 1;
    Fenct = 0x3D, "FENCT", "FENCT", 0;
    Fencb = 0x3E, "FENCB", "FENCB", 0;
    Brk = 0x40, "BRK", "BRK", 0;
    Cal = 0x41, "CAL", "CAL", 0;
    Ife = 0x42, "IFE", "IF", 0;
    Loop = 0x43, "LOOP", "LOOP", 0;
    Rep = 0x44, "REP", "REP", 0;
    Ret = 0x45, "RET", "RET", 0;
}

impl FpOpcode {
    /// The 7-bit encoding.
    pub const fn value(self) -> u8 {
        self as u8
    }

    /// Flow-control ("branch") opcodes 0x40–0x45: `SRC1` bit 31 set; their `SRC1`/`SRC2`
    /// words hold offsets and loop counts, and they never own an inline constant slot
    /// (rsx-microcode.md B.3; RPCS3 `analyse_fragment_program`).
    pub const fn is_flow(self) -> bool {
        (self as u8) & 0x40 != 0
    }

    /// Opcodes that sample the texture unit named in `OPDEST` bits 17–20 (RPCS3
    /// `analyse_fragment_program` texture list; B.4).
    pub const fn is_texture(self) -> bool {
        matches!(
            self,
            FpOpcode::Tex
                | FpOpcode::Txp
                | FpOpcode::Txd
                | FpOpcode::Txl
                | FpOpcode::Txb
                | FpOpcode::Texbem
                | FpOpcode::Txpbem
        )
    }
}

impl std::fmt::Display for FpOpcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for FpOpcode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_round_trips() {
        let mut previous = None;
        for &op in FpOpcode::ALL {
            assert_eq!(FpOpcode::from_u8(op.value()), Some(op));
            if let Some(p) = previous {
                assert!(op.value() > p);
            }
            previous = Some(op.value());
        }
        // 0x00..=0x45 less the three gaps 0x30, 0x32, 0x3F.
        assert_eq!(FpOpcode::ALL.len(), 0x46 - 3);
    }

    #[test]
    fn gaps_have_no_name() {
        for v in [0x30u8, 0x32, 0x3F, 0x46, 0x47, 0x7F, 0xFF] {
            assert_eq!(FpOpcode::from_u8(v), None, "{v:#x}");
        }
    }

    #[test]
    fn names() {
        assert_eq!(FpOpcode::Divsq.name(), "DIVSQ");
        assert_eq!(FpOpcode::Divsq.mesa_name(), "DIVRSQ");
        assert_eq!(FpOpcode::Ife.name(), "IFE");
        assert_eq!(FpOpcode::Ife.mesa_name(), "IF");
        assert_eq!(FpOpcode::Pkb.mesa_name(), "PK4UB");
        assert_eq!(FpOpcode::Lif.mesa_name(), "LITEX2");
        assert!(FpOpcode::Rep.is_flow() && !FpOpcode::Fencb.is_flow());
        assert!(FpOpcode::Txl.is_texture() && !FpOpcode::Ddx.is_texture());
    }
}
