//! The level's full-screen fog pass: a fragment program in the form the notes read from the
//! game's `fog.psp` (shred-shader-notes, "The fog pass"), encoded with our own fragment
//! encoder and wrapped in a `CgBinaryProgram` that names `MainInv` (four rows of inline
//! constants) and the fog parameters.
//!
//! With `u, v` = TEX0 and the depth texture at unit 1 holding 24-bit depth in its R, G, B
//! bytes, the program computes
//! `depth = r/2^8 + g/2^16 + b/2^24`,
//! `P = MainInv[0] (2u-1) + MainInv[1] (1-2v) + MainInv[2] depth + MainInv[3]`, `P /= P.w`,
//! `tD = sat((P.z - a1)/(a2 - a1))`, `tH1 = sat((P.y - a3)/h)`, `tH2 = sat((a4 - P.y)/h)`
//! with `h = (a4 - a3)/2`, `f = S(tD) S(tH1) S(tH2)` with `S(t) = t^2 (3 - 2t)`, and
//! `out = scene + f a8 ((a5, a6, a7) - scene)` with the scene colour at unit 0.

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_program::container::{
    fragment_matrix_uniform, fragment_uniform, write_program, CgBase, CgFragmentInfo, CgProgram,
    CgStageInfo, CgType, FORMAT_REVISION, PROFILE_FRAGMENT,
};
use rsxtrace_program::fragment::{
    self, FpOpcode, FragmentInstruction, FragmentProgram, InlineConstant, InputAttribute, Operands,
    Source, SourceKind, Swizzle, WriteMask,
};

/// The fog parameters `a1..a8` of the notes: distance band, height band, colour, opacity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FogParams {
    /// Distance where fog starts (`a1`) and is full (`a2`), along P.z.
    pub distance: [f32; 2],
    /// Height band (`a3`, `a4`) along P.y.
    pub height: [f32; 2],
    /// Colour (`a5..a7`) and opacity (`a8`).
    pub colour: [f32; 4],
}

/// The encoded program, its container and where `MainInv`'s rows sit.
#[derive(Clone, Debug, PartialEq)]
pub struct FogProgram {
    /// The microcode as the RSX reads it (guest byte order).
    pub ucode: Vec<u8>,
    /// The `CgBinaryProgram` naming the uniforms.
    pub container: Vec<u8>,
    /// The `SHADER_CONTROL` word.
    pub control: u32,
    /// Byte offsets in the microcode of the inline constants of `MainInv[0..4]`.
    pub main_inv_slots: [u32; 4],
}

/// An operand of [`Asm::op`].
#[derive(Clone, Copy)]
enum Src {
    /// `R{n}.swizzle`, optionally negated.
    R(u8, &'static str, bool),
    /// The instruction's input attribute with a swizzle.
    In(&'static str),
    /// The inline constant with a swizzle.
    C(&'static str),
}

/// A swizzle from text; a shorter one repeats its last component, as in Cg (`.xy` = `.xyyy`).
fn swizzle(text: &str) -> Swizzle {
    let component = |c: u8| match c {
        b'x' => 0,
        b'y' => 1,
        b'z' => 2,
        _ => 3,
    };
    let last = text.bytes().last().map_or(3, component);
    Swizzle(std::array::from_fn(|i| {
        text.as_bytes().get(i).map_or(last, |&c| component(c))
    }))
}

fn mask(text: &str) -> WriteMask {
    WriteMask(text.bytes().fold(0, |m, c| {
        m | match c {
            b'x' => 1,
            b'y' => 2,
            b'z' => 4,
            _ => 8,
        }
    }))
}

/// A tiny assembler: instructions in order, each followed by its inline constant's slot.
struct Asm {
    template: FragmentInstruction,
    instructions: Vec<FragmentInstruction>,
    next_slot: u32,
}

impl Asm {
    fn new() -> Asm {
        // The decoded `MOV R0, f[COL0]` gives every field a realistic default.
        let template = fragment::decode(&FRAGMENT_MOV_COL0)
            .ok()
            .and_then(|p| p.instructions.first().copied())
            .unwrap_or_else(fallback_template);
        Asm {
            template,
            instructions: Vec::new(),
            next_slot: 0,
        }
    }

    /// Append `op dest.mask, srcs` (with `_SAT` when `saturate`); returns the byte offset of
    /// its inline constant when `constant` is given.
    #[allow(clippy::too_many_arguments)]
    fn op(
        &mut self,
        opcode: FpOpcode,
        dest: u8,
        write: &str,
        saturate: bool,
        srcs: &[Src],
        input: InputAttribute,
        texture_unit: u8,
        constant: Option<[f32; 4]>,
    ) -> Option<u32> {
        let mut insn = self.template;
        insn.slot = self.next_slot;
        insn.opcode = opcode;
        insn.end = false;
        insn.dest.index = dest;
        insn.dest.fp16 = false;
        insn.dest.mask = mask(write);
        insn.dest.saturate = saturate;
        insn.input = input;
        insn.texture_unit = texture_unit;
        let Operands::Alu(mut alu) = insn.operands else {
            return None;
        };
        for (i, slot) in alu.sources.iter_mut().enumerate() {
            *slot = match srcs.get(i) {
                Some(Src::R(n, s, neg)) => Source {
                    swizzle: swizzle(s),
                    negate: *neg,
                    ..Source::temp(*n)
                },
                Some(Src::In(s)) => Source {
                    kind: SourceKind::Input,
                    swizzle: swizzle(s),
                    ..Source::temp(0)
                },
                Some(Src::C(s)) => Source {
                    kind: SourceKind::Constant,
                    swizzle: swizzle(s),
                    ..Source::temp(0)
                },
                None => Source::temp(0),
            };
        }
        insn.operands = Operands::Alu(alu);
        insn.constant = constant.map(|c| InlineConstant(c.map(f32::to_bits)));
        let constant_offset = constant.map(|_| (self.next_slot + 1) * 16);
        self.next_slot += 1 + u32::from(constant.is_some());
        self.instructions.push(insn);
        constant_offset
    }

    fn finish(mut self) -> FragmentProgram {
        if let Some(last) = self.instructions.last_mut() {
            last.end = true;
        }
        FragmentProgram::new(self.instructions)
    }
}

/// The same `MOV R0, f[COL0]` built field by field, used only if `FRAGMENT_MOV_COL0` stopped
/// decoding (it is a valid ALU instruction), so no unwrap is needed.
fn fallback_template() -> FragmentInstruction {
    FragmentInstruction {
        slot: 0,
        opcode: FpOpcode::Mov,
        end: true,
        dest: fragment::Destination {
            index: 0,
            fp16: false,
            mask: WriteMask::XYZW,
            precision: fragment::Precision::Fp32,
            saturate: false,
            no_dest: false,
            set_cond: false,
            cc_write: 0,
        },
        input: InputAttribute::COL0,
        texture_unit: 0,
        exp_tex: false,
        condition: fragment::Condition::ALWAYS,
        operands: Operands::Alu(fragment::AluOperands {
            sources: [Source::temp(0); 3],
            scale: fragment::OutputScale::None,
            perspective: false,
            indexed_input: false,
            input_displacement: 0,
        }),
        constant: None,
    }
}

/// Build the fog program with `main_inv` (row-vector rows) and `params` in its constants.
pub fn fog_program(main_inv: &[[f32; 4]; 4], params: &FogParams) -> Result<FogProgram, String> {
    use FpOpcode::*;
    let tex0 = InputAttribute::tex(0);
    let none = InputAttribute::WPOS;
    let [a1, a2] = params.distance;
    let [a3, a4] = params.height;
    let h = (a4 - a3) / 2.0;
    let range = [1.0 / (a2 - a1), -a1 / (a2 - a1), 0.0, 0.0];
    let band = [1.0 / h, -1.0 / h, -a3 / h, a4 / h];
    let mut a = Asm::new();
    // Depth bytes, then depth = r/2^8 + g/2^16 + b/2^24 (the texture returns byte/255).
    a.op(Tex, 1, "xyzw", false, &[Src::In("xyzw")], tex0, 1, None);
    let depth_scale = [255.0 / 256.0, 255.0 / 65536.0, 255.0 / 16_777_216.0, 0.0];
    a.op(
        Dp3,
        1,
        "w",
        false,
        &[Src::R(1, "xyz", false), Src::C("xyz")],
        none,
        0,
        Some(depth_scale),
    );
    // ndc.xy = (2u - 1, 1 - 2v).
    a.op(
        Mad,
        2,
        "xy",
        false,
        &[Src::In("xy"), Src::C("xy"), Src::C("zw")],
        tex0,
        0,
        Some([2.0, -2.0, -1.0, 1.0]),
    );
    // P = ndc.x MainInv[0] + ndc.y MainInv[1] + depth MainInv[2] + MainInv[3].
    let mut slots = [0u32; 4];
    let rows = *main_inv;
    slots[0] = a
        .op(
            Mul,
            3,
            "xyzw",
            false,
            &[Src::R(2, "xxxx", false), Src::C("xyzw")],
            none,
            0,
            Some(rows[0]),
        )
        .unwrap_or(0);
    slots[1] = a
        .op(
            Mad,
            3,
            "xyzw",
            false,
            &[
                Src::R(2, "yyyy", false),
                Src::C("xyzw"),
                Src::R(3, "xyzw", false),
            ],
            none,
            0,
            Some(rows[1]),
        )
        .unwrap_or(0);
    slots[2] = a
        .op(
            Mad,
            3,
            "xyzw",
            false,
            &[
                Src::R(1, "wwww", false),
                Src::C("xyzw"),
                Src::R(3, "xyzw", false),
            ],
            none,
            0,
            Some(rows[2]),
        )
        .unwrap_or(0);
    slots[3] = a
        .op(
            Add,
            3,
            "xyzw",
            false,
            &[Src::R(3, "xyzw", false), Src::C("xyzw")],
            none,
            0,
            Some(rows[3]),
        )
        .unwrap_or(0);
    a.op(
        Rcp,
        4,
        "x",
        false,
        &[Src::R(3, "wwww", false)],
        none,
        0,
        None,
    );
    a.op(
        Mul,
        3,
        "xyz",
        false,
        &[Src::R(3, "xyz", false), Src::R(4, "xxxx", false)],
        none,
        0,
        None,
    );
    // tD, tH1, tH2 into R5.xyz.
    let range_slot = a.op(
        Mad,
        5,
        "x",
        true,
        &[Src::R(3, "zzzz", false), Src::C("xxxx"), Src::C("yyyy")],
        none,
        0,
        Some(range),
    );
    let band_slot = a.op(
        Mad,
        5,
        "yz",
        true,
        &[Src::R(3, "yyyy", false), Src::C("xxyy"), Src::C("zzww")],
        none,
        0,
        Some(band),
    );
    // Smoothstep: S = t t (3 - 2t), then f = S(tD) S(tH1) S(tH2).
    a.op(
        Mad,
        6,
        "xyz",
        false,
        &[Src::R(5, "xyz", false), Src::C("xxxx"), Src::C("yyyy")],
        none,
        0,
        Some([-2.0, 3.0, 0.0, 0.0]),
    );
    a.op(
        Mul,
        6,
        "xyz",
        false,
        &[Src::R(6, "xyz", false), Src::R(5, "xyz", false)],
        none,
        0,
        None,
    );
    a.op(
        Mul,
        6,
        "xyz",
        false,
        &[Src::R(6, "xyz", false), Src::R(5, "xyz", false)],
        none,
        0,
        None,
    );
    a.op(
        Mul,
        6,
        "x",
        false,
        &[Src::R(6, "xxxx", false), Src::R(6, "yyyy", false)],
        none,
        0,
        None,
    );
    a.op(
        Mul,
        6,
        "x",
        false,
        &[Src::R(6, "xxxx", false), Src::R(6, "zzzz", false)],
        none,
        0,
        None,
    );
    // Blend toward the fog colour by f * a8.
    a.op(Tex, 7, "xyzw", false, &[Src::In("xyzw")], tex0, 0, None);
    let colour_slot = a.op(
        Add,
        8,
        "xyz",
        false,
        &[Src::R(7, "xyz", true), Src::C("xyz")],
        none,
        0,
        Some(params.colour),
    );
    let opacity_slot = a.op(
        Mul,
        6,
        "x",
        false,
        &[Src::R(6, "xxxx", false), Src::C("wwww")],
        none,
        0,
        Some(params.colour),
    );
    a.op(
        Mad,
        0,
        "xyz",
        false,
        &[
            Src::R(8, "xyz", false),
            Src::R(6, "xxxx", false),
            Src::R(7, "xyz", false),
        ],
        none,
        0,
        None,
    );
    a.op(
        Mov,
        0,
        "w",
        false,
        &[Src::R(7, "wwww", false)],
        none,
        0,
        None,
    );
    let program = a.finish();
    let ucode = fragment::encode(&program);

    let mut parameters = fragment_matrix_uniform("MainInv", 0, slots.map(|s| vec![s]));
    let float4 = CgType::Vector(CgBase::Float, 4);
    let slot_list = |s: Option<u32>| s.into_iter().collect::<Vec<u32>>();
    parameters.push(fragment_uniform(
        "FogRange",
        float4,
        1,
        slot_list(range_slot),
    ));
    parameters.push(fragment_uniform("FogBand", float4, 2, slot_list(band_slot)));
    parameters.push(fragment_uniform(
        "FogColor",
        float4,
        3,
        slot_list(colour_slot)
            .into_iter()
            .chain(slot_list(opacity_slot))
            .collect(),
    ));
    let info = CgFragmentInfo {
        instruction_count: program.slot_count,
        // TEX0 read: attribute-input bit 14 + 0, texture-coordinate bit 0 (notes, "Header
        // flags and interpolants").
        attribute_input_mask: 1 << 14,
        partial_tex_type: 0,
        tex_coords_input_mask: 1,
        tex_coords_2d: 0xFFFF,
        tex_coords_centroid: 0,
        register_count: 9,
        output_from_h0: false,
        depth_replace: false,
        pixel_kill: false,
    };
    let control = info.control_word();
    let container = write_program(&CgProgram {
        profile: PROFILE_FRAGMENT,
        revision: FORMAT_REVISION,
        total_size: 0,
        parameters,
        stage_info: CgStageInfo::Fragment(info),
        ucode_offset: 0,
        ucode: ucode.clone(),
    })
    .map_err(|e| e.to_string())?;
    Ok(FogProgram {
        ucode,
        container,
        control,
        main_inv_slots: slots,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::container::{get_uniform, Container};

    #[test]
    fn main_inv_rows_are_named_in_the_container() {
        let rows = [
            [1.0, 2.0, 3.0, 4.0],
            [5.0, 6.0, 7.0, 8.0],
            [9.0, 10.0, 11.0, 12.0],
            [13.0, 14.0, 15.0, 16.0],
        ];
        let params = FogParams {
            distance: [10.0, 60.0],
            height: [-1.0, 9.0],
            colour: [0.6, 0.65, 0.7, 0.4],
        };
        let fog = fog_program(&rows, &params).unwrap();
        let c = Container::parse(&fog.container).unwrap();
        assert_eq!(c.ucode(), fog.ucode.as_slice());
        for (k, row) in rows.iter().enumerate() {
            let slots = c.embedded_constants(&format!("MainInv[{k}]")).unwrap();
            assert_eq!(slots, &[fog.main_inv_slots[k]]);
            assert_eq!(&get_uniform(c.ucode(), slots[0]).unwrap(), row);
        }
        assert_eq!(c.embedded_constants("FogColor").map(<[u32]>::len), Some(2));
        let decoded = fragment::decode(&fog.ucode).unwrap();
        assert_eq!(decoded.instructions.len(), 21);
        assert!(decoded.instructions.last().is_some_and(|i| i.end));
        assert_eq!(decoded.instructions[0].opcode, FpOpcode::Tex);
        assert_eq!(decoded.instructions[0].texture_unit, 1);
        assert_eq!(c.control_word(), Some(fog.control));
    }
}
