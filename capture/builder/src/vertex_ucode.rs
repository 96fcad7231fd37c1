//! Hand encoding of the few vertex-program instructions the synthetic frame uses, field by
//! field from rsx-microcode.md B.8 (RPCS3 `RSXVertexProgram.h`; PSL1GHT `nv40_vertprog.h`).
//! Vertex program words are plain u32 method data (no half swap).

/// Source register type (bits 0..1 of a 17-bit source operand): input attribute.
pub const REG_INPUT: u32 = 2;
/// Source register type: constant.
pub const REG_CONST: u32 = 3;
/// Identity swizzle field (bits 8..15 of a source): x=0 in bits 14..15, y=1 in 12..13,
/// z=2 in 10..11, w=3 in 8..9.
#[allow(clippy::identity_op)]
pub const SWIZZLE_XYZW: u32 = (0 << 6) | (1 << 4) | (2 << 2) | 3;
/// Vector opcode MOV.
pub const VEC_MOV: u32 = 0x01;
/// Vector opcode DP4.
pub const VEC_DP4: u32 = 0x07;
/// Vector write-mask bits (D3 bits 13..16 hold w, z, y, x from low to high).
pub const MASK_X: u32 = 8;
/// Write y.
pub const MASK_Y: u32 = 4;
/// Write z.
pub const MASK_Z: u32 = 2;
/// Write w.
pub const MASK_W: u32 = 1;
/// Output register HPOS.
pub const OUT_HPOS: u32 = 0;
/// Output register COL0.
pub const OUT_COL0: u32 = 1;

/// A 17-bit source operand: register type, temp index 0, swizzle, no negate.
pub const fn source(reg_type: u32, swizzle: u32) -> u32 {
    reg_type | (swizzle << 8)
}

/// A straight-line vector instruction writing an output register; the scalar half is a NOP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VecInstruction {
    /// Vector opcode (D1 bits 22..26).
    pub opcode: u32,
    /// Input attribute read by input-typed sources (D1 bits 8..11).
    pub input: u32,
    /// Constant index read by constant-typed sources (D1 bits 12..21).
    pub constant: u32,
    /// Sources 0, 1, 2 (17 bits each).
    pub sources: [u32; 3],
    /// Output register (D3 bits 2..6).
    pub output: u32,
    /// Vector write mask (`MASK_*`).
    pub mask: u32,
    /// Last instruction (D3 bit 0).
    pub end: bool,
}

impl VecInstruction {
    /// The four words D0..D3.
    pub fn encode(&self) -> [u32; 4] {
        let [src0, src1, src2] = self.sources.map(|s| s & 0x1_FFFF);
        let d0 = (SWIZZLE_XYZW << 2) // condition swizzle xyzw (bits 2..9)
            | (7 << 10)              // condition TR: always (bits 10..12)
            | (0x3F << 15)           // no vector temp destination (bits 15..20)
            | (1 << 30); // vec_result: the vector op writes the output register
        let d1 = (src0 >> 9)                 // src0 high 8 bits (bits 0..7)
            | ((self.input & 0xF) << 8)      // input_src (bits 8..11)
            | ((self.constant & 0x3FF) << 12) // const_src (bits 12..21)
            | ((self.opcode & 0x1F) << 22); // vector opcode (bits 22..26); scalar opcode 0 = NOP
        let d2 = (src2 >> 11)          // src2 high 6 bits (bits 0..5)
            | (src1 << 6)              // src1 (bits 6..22)
            | ((src0 & 0x1FF) << 23); // src0 low 9 bits (bits 23..31)
        let d3 = u32::from(self.end)  // END (bit 0)
            | ((self.output & 0x1F) << 2) // output register (bits 2..6)
            | (0x3F << 7)                 // no scalar temp destination (bits 7..12)
            | ((self.mask & 0xF) << 13)   // vector write mask (bits 13..16); scalar mask 0
            | ((src2 & 0x7FF) << 21); // src2 low 11 bits (bits 21..31)
        [d0, d1, d2, d3]
    }
}

/// `o[1] = v[3]; o[0].w = dot(v[0], c[k+3]); o[0].z = ..c[k+2]; o[0].y = ..c[k+1];
/// o[0].x = dot(v[0], c[k])` with END on the last, in the order Sony's compiler emits it.
/// Unused sources hold `v` with an identity swizzle, as the compiler leaves them.
pub fn mvp_vertex_program(first_constant: u32) -> Vec<u32> {
    let input = source(REG_INPUT, SWIZZLE_XYZW);
    let constant = source(REG_CONST, SWIZZLE_XYZW);
    let mut insns = vec![VecInstruction {
        opcode: VEC_MOV,
        input: 3,
        constant: 0,
        sources: [input, input, input],
        output: OUT_COL0,
        mask: MASK_X | MASK_Y | MASK_Z | MASK_W,
        end: false,
    }];
    for (row, mask) in [(3, MASK_W), (2, MASK_Z), (1, MASK_Y), (0, MASK_X)] {
        insns.push(VecInstruction {
            opcode: VEC_DP4,
            input: 0,
            constant: first_constant + row,
            sources: [input, constant, input],
            output: OUT_HPOS,
            mask,
            end: row == 0,
        });
    }
    insns.iter().flat_map(VecInstruction::encode).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dp4_fields_by_hand() {
        // DP4 o[0].x, v[0], c[32], END.
        let w = VecInstruction {
            opcode: VEC_DP4,
            input: 0,
            constant: 32,
            sources: [
                source(REG_INPUT, SWIZZLE_XYZW),
                source(REG_CONST, SWIZZLE_XYZW),
                source(REG_INPUT, SWIZZLE_XYZW),
            ],
            output: OUT_HPOS,
            mask: MASK_X,
            end: true,
        }
        .encode();
        // src0 = 0x1B02: high 8 bits 0x0D, low 9 bits 0x102. src1 = 0x1B03. src2 = 0x1B02:
        // high 6 bits 0x03, low 11 bits 0x302.
        assert_eq!(w[0], 0x401F_9C6C);
        assert_eq!(w[1], 0x0D | (32 << 12) | (7 << 22));
        assert_eq!(w[2], 0x03 | (0x1B03 << 6) | (0x102 << 23));
        assert_eq!(w[3], 1 | (0x3F << 7) | (8 << 13) | (0x302 << 21));
    }
}
