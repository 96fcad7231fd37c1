//! Generated programs: one using every opcode with known semantics inside IF/ELSE, LOOP, REP
//! and BRK/RET (so derivatives and implicit-LOD samples sit inside flow and must still pass
//! naga's uniformity analysis), plus checks on the emitted text for the key rules (H aliasing,
//! conditional per-component writes, saturate, exact constants, refusals).

use rsxtrace_program::fragment::{
    AluOperands, Condition, Destination, FlowKind, FlowOperands, FpOpcode, FragmentInstruction,
    FragmentProgram, InlineConstant, InputAttribute, LoopFields, Operands, OutputScale, Precision,
    PrecisionModifier, Relation, Source, SourceKind, Swizzle, WriteMask,
};
use rsxtrace_wgsl::fragment::{translate, FragmentTranslateOptions, HalfRounding, TextureDim};
use rsxtrace_wgsl::TranslateError;

fn dest(index: u8, fp16: bool) -> Destination {
    Destination {
        index,
        fp16,
        mask: WriteMask::XYZW,
        precision: Precision::Fp32,
        saturate: false,
        no_dest: false,
        set_cond: false,
        cc_write: 0,
    }
}

fn alu_insn(
    slot: u32,
    opcode: FpOpcode,
    d: Destination,
    sources: [Source; 3],
) -> FragmentInstruction {
    FragmentInstruction {
        slot,
        opcode,
        end: false,
        dest: d,
        input: InputAttribute::tex(0),
        texture_unit: 0,
        exp_tex: false,
        condition: Condition::ALWAYS,
        operands: Operands::Alu(AluOperands {
            sources,
            scale: OutputScale::None,
            perspective: false,
            indexed_input: false,
            input_displacement: 0,
        }),
        constant: None,
    }
}

fn flow_insn(
    slot: u32,
    opcode: FpOpcode,
    kind: FlowKind,
    condition: Condition,
) -> FragmentInstruction {
    FragmentInstruction {
        slot,
        opcode,
        end: false,
        dest: Destination {
            no_dest: true,
            ..dest(0, false)
        },
        input: InputAttribute::WPOS,
        texture_unit: 0,
        exp_tex: false,
        condition,
        operands: Operands::Flow(FlowOperands {
            kind,
            reserved: [0; 3],
        }),
        constant: None,
    }
}

fn input() -> Source {
    Source {
        kind: SourceKind::Input,
        ..Source::temp(0)
    }
}

fn h(index: u8) -> Source {
    Source {
        fp16: true,
        ..Source::temp(index)
    }
}

/// CC0.x != 0, tested with `any` on .xxxx.
fn ne_x() -> Condition {
    Condition {
        relation: Relation::Ne,
        swizzle: Swizzle([0, 0, 0, 0]),
        cc: 0,
    }
}

/// Every opcode with known semantics, laid out slot by slot:
/// 0 MOV R1 <- TEX0 (sets CC0) | 1 IFE NE.xxxx else 2+n end ... | body: all ALU opcodes |
/// else: DDX/DDY and texture opcodes | LOOP 4x containing TEX, BRK, KIL | REP | RET | END.
fn every_opcode_program() -> FragmentProgram {
    let r1 = Source::temp(1);
    let r2 = Source::temp(2);
    let mut v = Vec::new();
    let mut slot = 0u32;
    let mut mov = alu_insn(slot, FpOpcode::Mov, dest(1, false), [input(), r1, r1]);
    mov.dest.set_cond = true;
    v.push(mov);
    slot += 1;
    let alu_ops: Vec<FpOpcode> = FpOpcode::ALL
        .iter()
        .copied()
        .filter(|o| {
            !o.is_flow()
                && !o.is_texture()
                && !matches!(
                    o,
                    FpOpcode::Ddx
                        | FpOpcode::Ddy
                        | FpOpcode::Kil
                        | FpOpcode::Bemlum
                        | FpOpcode::Timeswtex
                )
        })
        .collect();
    let texture_ops: Vec<FpOpcode> = FpOpcode::ALL
        .iter()
        .copied()
        .filter(|o| o.is_texture() || matches!(o, FpOpcode::Ddx | FpOpcode::Ddy))
        .collect();
    let ife_slot = slot;
    let else_slot = ife_slot + 1 + alu_ops.len() as u32;
    let end_slot = else_slot + texture_ops.len() as u32;
    v.push(flow_insn(
        ife_slot,
        FpOpcode::Ife,
        FlowKind::Ife {
            else_slot,
            end_slot,
        },
        ne_x(),
    ));
    slot += 1;
    for (k, &op) in alu_ops.iter().enumerate() {
        // Alternate R and H destinations and sources so both views are exercised.
        let d = dest(2 + (k % 6) as u8, k % 2 == 1);
        let srcs = if k % 3 == 0 {
            [r1, h(3), r2]
        } else {
            [h(2), r1, r2]
        };
        v.push(alu_insn(slot, op, d, srcs));
        slot += 1;
    }
    assert_eq!(slot, else_slot);
    for (k, &op) in texture_ops.iter().enumerate() {
        let mut i = alu_insn(slot, op, dest(5, false), [r1, r2, Source::temp(3)]);
        i.texture_unit = k as u8;
        i.exp_tex = k % 2 == 0;
        v.push(i);
        slot += 1;
    }
    assert_eq!(slot, end_slot);
    // LOOP 4 { TEX with indexed input; BRK NE.xxxx; KIL NE.xxxx }
    let loop_slot = slot;
    let fields = LoopFields {
        count: 4,
        init: 0,
        increment: 1,
        end_slot: loop_slot + 4,
    };
    v.push(flow_insn(
        loop_slot,
        FpOpcode::Loop,
        FlowKind::Loop(fields),
        Condition::ALWAYS,
    ));
    let mut tex = alu_insn(
        loop_slot + 1,
        FpOpcode::Tex,
        dest(6, false),
        [input(), r1, r1],
    );
    if let Operands::Alu(a) = &mut tex.operands {
        a.indexed_input = true;
        a.input_displacement = 1;
    }
    v.push(tex);
    v.push(flow_insn(
        loop_slot + 2,
        FpOpcode::Brk,
        FlowKind::Brk,
        ne_x(),
    ));
    let mut kil = alu_insn(loop_slot + 3, FpOpcode::Kil, dest(0, false), [r1, r1, r1]);
    kil.dest.no_dest = true;
    kil.condition = ne_x();
    v.push(kil);
    slot = loop_slot + 4;
    // REP 2 { ADD R0, R0, R1 }
    v.push(flow_insn(
        slot,
        FpOpcode::Rep,
        FlowKind::Rep(LoopFields {
            count: 2,
            init: 2,
            increment: 2,
            end_slot: slot + 2,
        }),
        Condition::ALWAYS,
    ));
    v.push(alu_insn(
        slot + 1,
        FpOpcode::Add,
        dest(0, false),
        [Source::temp(0), r1, r1],
    ));
    slot += 2;
    v.push(flow_insn(slot, FpOpcode::Ret, FlowKind::Ret, ne_x()));
    let mut last = alu_insn(slot + 1, FpOpcode::Mov, dest(0, true), [h(12), r1, r1]);
    last.end = true;
    v.push(last);
    FragmentProgram::new(v)
}

#[test]
fn every_opcode_translates_and_validates() {
    let program = every_opcode_program();
    let ops: std::collections::BTreeSet<_> =
        program.instructions.iter().map(|i| i.opcode).collect();
    let known = FpOpcode::ALL
        .iter()
        .filter(|o| !matches!(o, FpOpcode::Cal | FpOpcode::Bemlum | FpOpcode::Timeswtex))
        .count();
    assert_eq!(
        ops.len(),
        known,
        "the program uses every opcode with semantics"
    );
    for control in [0x00, 0x40, 0x4E] {
        for dim in [
            TextureDim::D1,
            TextureDim::D2,
            TextureDim::D3,
            TextureDim::Cube,
        ] {
            for (half_rounding, native_f16) in [
                (HalfRounding::Truncate, false),
                (HalfRounding::Truncate, true),
                (HalfRounding::Nearest, false),
                (HalfRounding::Nearest, true),
            ] {
                let options = FragmentTranslateOptions {
                    texture_dims: [dim; 16],
                    half_rounding,
                    native_f16,
                    ..FragmentTranslateOptions::with_control(control)
                };
                let m = translate(&program, &options).unwrap_or_else(|e| panic!("{e}"));
                // Derivatives run inside the IF's else block and the loop: predicated, not
                // branched, so naga accepted them.
                assert!(m.source.contains("dpdxFine(s0)"));
                assert!(m.source.contains("for (var k"));
                // Native f16 only with nearest rounding; truncation is on the bits.
                let native = native_f16 && half_rounding == HalfRounding::Nearest;
                assert_eq!(m.source.contains("enable f16;"), native);
                assert_eq!(
                    m.source.contains("rsx_f2h_tz("),
                    half_rounding == HalfRounding::Truncate
                );
                // Levels of detail are the shared rule's, not the host sampler's.
                if dim != TextureDim::D1 {
                    assert!(m.source.contains("rsx_lod_choose("), "{dim:?}");
                    assert!(!m.source.contains("textureSampleGrad"), "{dim:?}");
                }
            }
        }
    }
}

#[test]
fn anisotropic_units_validate_with_and_without_a_depth_comparison() {
    // Every texture opcode on 2D units taking up to 4 samples along the longer derivative,
    // plain and comparing depth (`rsxtrace_semantics::lod::Anisotropy`, `rsx_aniso`).
    use rsxtrace_semantics::lod::{MipFilter, TextureLod};
    use rsxtrace_semantics::shadow::DepthCompare;
    let program = every_opcode_program();
    for mip in [MipFilter::None, MipFilter::Linear] {
        for compare in [None, DepthCompare::of_unit(1, false, true, true)] {
            let lod = TextureLod::from_values(0.0, 0.0, 12.0, mip)
                .with_sampling(compare, false)
                .with_aniso(4);
            let mut options = FragmentTranslateOptions {
                texture_dims: [TextureDim::D2; 16],
                ..FragmentTranslateOptions::with_control(0x40)
            };
            options.texture_lod = [lod; 16];
            let m = translate(&program, &options).unwrap_or_else(|e| panic!("{e}"));
            assert!(m.source.contains("rsx_aniso(dx.xy, dy.xy, 4.0)"), "{mip:?}");
            assert!(m.source.contains("let t = ts / an.y;"));
            assert_eq!(
                m.source.contains("rsx_shadow_level("),
                compare.is_some(),
                "{mip:?}"
            );
            // The unit's maximum is part of the module's hash.
            let mut x8 = options;
            x8.texture_lod[0] = lod.with_aniso(8);
            assert_ne!(rsxtrace_wgsl::fragment::module_hash(&program, &x8), m.hash);
        }
    }
}

#[test]
fn units_narrowed_to_their_pitch_scale_s_and_validate() {
    // Every texture opcode on units whose s is rescaled (`TextureLod::narrow_pitch`), 1D, 2D
    // and 3D; the scale is part of the module's hash.
    use rsxtrace_semantics::lod::{MipFilter, TextureLod};
    let program = every_opcode_program();
    let lod =
        TextureLod::from_values(0.0, 0.0, 12.0, MipFilter::Linear).with_narrow_pitch(Some((16, 8)));
    for dim in [TextureDim::D1, TextureDim::D2, TextureDim::D3] {
        let mut options = FragmentTranslateOptions {
            texture_dims: [dim; 16],
            ..FragmentTranslateOptions::with_control(0x40)
        };
        options.texture_lod = [lod; 16];
        let m = translate(&program, &options).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.source.contains("cp.x * 2.0"), "{dim:?}");
        let mut wider = options;
        wider.texture_lod[0] = lod.with_narrow_pitch(Some((24, 8)));
        assert_ne!(
            rsxtrace_wgsl::fragment::module_hash(&program, &wider),
            m.hash
        );
    }
}

#[test]
fn mirror_once_units_reflect_their_coordinates_and_validate() {
    // Every texture opcode on units that mirror once on every axis (`TextureLod::mirror_once`),
    // each dimension, with and without a depth comparison on 2D units.
    use rsxtrace_semantics::lod::{MipFilter, TextureLod};
    use rsxtrace_semantics::shadow::DepthCompare;
    let program = every_opcode_program();
    for dim in [
        TextureDim::D1,
        TextureDim::D2,
        TextureDim::D3,
        TextureDim::Cube,
    ] {
        for compare in [None, DepthCompare::of_unit(1, false, true, true)] {
            let lod = TextureLod::from_values(0.0, 0.0, 12.0, MipFilter::Linear)
                .with_sampling(compare, false)
                .with_mirror_once(0b111);
            let mut options = FragmentTranslateOptions {
                texture_dims: [dim; 16],
                ..FragmentTranslateOptions::with_control(0x40)
            };
            options.texture_lod = [lod; 16];
            let m = translate(&program, &options).unwrap_or_else(|e| panic!("{e}"));
            // A cube map's direction is never reflected (it clamps per face).
            assert_eq!(
                m.source.contains("abs(c.") || m.source.contains("abs(vec2<f32>(c.x, 0.5))"),
                dim != TextureDim::Cube,
                "{dim:?} {compare:?}"
            );
        }
    }
}

#[test]
fn units_with_a_border_the_device_lacks_add_it_and_validate() {
    // Every texture opcode on units whose border the shader adds (`TextureLod::border`), each
    // dimension, with and without a depth comparison on 2D units, mip filter linear (two
    // levels, each with its border term) and anisotropic.
    use rsxtrace_semantics::border::ShaderBorder;
    use rsxtrace_semantics::lod::{MipFilter, TextureLod};
    use rsxtrace_semantics::shadow::DepthCompare;
    let program = every_opcode_program();
    let border = ShaderBorder::new(0b111, [0.25, 0.5, 0.75, 1.0], true, false);
    for dim in [TextureDim::D1, TextureDim::D2, TextureDim::D3] {
        for compare in [None, DepthCompare::of_unit(1, false, true, true)] {
            let lod = TextureLod::from_values(0.0, 0.0, 12.0, MipFilter::Linear)
                .with_sampling(compare, false)
                .with_aniso(4)
                .with_border(Some(border));
            let mut options = FragmentTranslateOptions {
                texture_dims: [dim; 16],
                ..FragmentTranslateOptions::with_control(0x40)
            };
            options.texture_lod = [lod; 16];
            let m = translate(&program, &options).unwrap_or_else(|e| panic!("{e}"));
            let shadow = compare.is_some() && dim == TextureDim::D2;
            let added = "vec4<f32>(0.25, 0.5, 0.75, 1.0) * (1.0 - rsx_border_inside(";
            assert_eq!(m.source.contains(added), !shadow, "{dim:?} {compare:?}");
            // A shadow map compares the border's first channel on its two axes.
            assert_eq!(
                m.source.contains("vec2<bool>(true, true), 0.25)"),
                shadow,
                "{dim:?} {compare:?}"
            );
            let mut plain = options;
            plain.texture_lod[0] = lod.with_border(None);
            assert_ne!(
                rsxtrace_wgsl::fragment::module_hash(&program, &plain),
                m.hash
            );
        }
    }
}

fn one(insn: FragmentInstruction) -> String {
    let mut insn = insn;
    insn.end = true;
    let p = FragmentProgram::new(vec![insn]);
    translate(&p, &FragmentTranslateOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .source
}

#[test]
fn h_registers_alias_halves_of_r_words() {
    // MOV H5.xy, R7: H5 = H(2·2+1) = the halves of R2.zw.
    let mut i = alu_insn(
        0,
        FpOpcode::Mov,
        dest(5, true),
        [Source::temp(7), Source::temp(0), Source::temp(0)],
    );
    i.dest.mask = WriteMask(0b0011);
    let s = one(i);
    assert!(
        s.contains("r2 = vec4<u32>(r2.xy, rsx_wr_h(r2.zw, res, wm));"),
        "{s}"
    );
    assert!(
        s.contains("let wm = vec4<bool>(true, true, false, false);"),
        "{s}"
    );
    assert!(s.contains("let res = rsx_hrt(v);"), "{s}");
    // Reading H4 = halves of R2.xy.
    let i = alu_insn(
        0,
        FpOpcode::Mov,
        dest(0, false),
        [h(4), Source::temp(0), Source::temp(0)],
    );
    assert!(one(i).contains("let s0 = rsx_rd_h(r2.xy);"));
}

#[test]
fn conditional_write_is_per_component_and_updates_the_selected_cc() {
    // MOVC1 R3.xz (LT1.yxwz), R1 : writes CC1, tests CC1 with a swizzle.
    let mut i = alu_insn(
        0,
        FpOpcode::Mov,
        dest(3, false),
        [Source::temp(1), Source::temp(0), Source::temp(0)],
    );
    i.dest.mask = WriteMask(0b0101);
    i.dest.set_cond = true;
    i.dest.cc_write = 1;
    i.condition = Condition {
        relation: Relation::Lt,
        swizzle: Swizzle([1, 0, 3, 2]),
        cc: 1,
    };
    let s = one(i);
    assert!(s.contains("let cnd = (cc1.yxwz < vec4<f32>(0.0));"), "{s}");
    assert!(
        s.contains("let wm = vec4<bool>(cnd.x, false, cnd.z, false);"),
        "{s}"
    );
    assert!(
        s.contains("r3 = select(r3, bitcast<vec4<u32>>(res), wm);"),
        "{s}"
    );
    assert!(s.contains("cc1 = select(cc1, res, wm);"), "{s}");
}

#[test]
fn saturate_scale_and_precision_follow_setdst_order() {
    // ADD_SAT H0 x4, with fx12 precision: scale, fp16 rounding (of the sum carried to 26
    // bits, its excess scaled too), saturate (wins over fx12).
    let mut i = alu_insn(
        0,
        FpOpcode::Add,
        dest(0, true),
        [Source::temp(1), Source::temp(2), Source::temp(0)],
    );
    i.dest.saturate = true;
    i.dest.precision = Precision::Fx12;
    if let Operands::Alu(a) = &mut i.operands {
        a.scale = OutputScale::Mul4;
    }
    let s = one(i);
    assert!(
        s.contains(
            "let res = rsx_sat(rsx_hrt(rsx_carry(v * 4.0, rsx_excess_add(s0, s1, v) * 4.0)));"
        ),
        "{s}"
    );
    // fx12 without saturate clamps; MIN is exempt from the precision clamp.
    let mut i = alu_insn(
        0,
        FpOpcode::Mul,
        dest(0, false),
        [Source::temp(1), Source::temp(2), Source::temp(0)],
    );
    i.dest.precision = Precision::Fx12;
    assert!(one(i).contains("let res = rsx_clamp0(v, -2.0, 2.0);"));
    let mut i = alu_insn(
        0,
        FpOpcode::Min,
        dest(0, false),
        [Source::temp(1), Source::temp(2), Source::temp(0)],
    );
    i.dest.precision = Precision::Fx12;
    assert!(one(i).contains("let res = v;"));
}

#[test]
fn sources_keep_constant_bits_and_apply_modifiers_in_order() {
    // MOV R0, -|c.yxzw| with an fp16 modifier; the constant holds a NaN payload and a
    // denormal, which must survive as bit patterns.
    let c = Source {
        kind: SourceKind::Constant,
        swizzle: Swizzle([1, 0, 2, 3]),
        negate: true,
        abs: true,
        modifier: PrecisionModifier::Fp16,
        ..Source::temp(0)
    };
    let mut i = alu_insn(
        0,
        FpOpcode::Mov,
        dest(0, false),
        [c, Source::temp(0), Source::temp(0)],
    );
    i.constant = Some(InlineConstant([
        0x7fc0_1234,
        0x0000_0001,
        0x3f80_0000,
        0xff80_0000,
    ]));
    let s = one(i);
    assert!(
        s.contains("let s0 = -(rsx_hrt(abs((bitcast<vec4<f32>>(vec4<u32>(0x7fc01234u, 0x00000001u, 0x3f800000u, 0xff800000u))).yxzw)));"),
        "{s}"
    );
    // COL0 is saturated on read and skips the modifier; FOGC.w reads 0.
    let col = Source {
        modifier: PrecisionModifier::Fx9,
        ..input()
    };
    let mut i = alu_insn(
        0,
        FpOpcode::Mov,
        dest(0, false),
        [col, Source::temp(0), Source::temp(0)],
    );
    i.input = InputAttribute::COL0;
    assert!(one(i).contains("let s0 = rsx_sat(attr[1]);"));
    let mut i = alu_insn(
        0,
        FpOpcode::Mov,
        dest(0, false),
        [input(), Source::temp(0), Source::temp(0)],
    );
    i.input = InputAttribute::FOGC;
    assert!(one(i).contains("let s0 = vec4<f32>((attr[3]).xyz, 0.0);"));
}

#[test]
fn refusals_name_the_slot() {
    let mut i = alu_insn(3, FpOpcode::Bemlum, dest(0, false), [Source::temp(0); 3]);
    i.end = true;
    let p = FragmentProgram::new(vec![i]);
    match translate(&p, &FragmentTranslateOptions::default()) {
        Err(TranslateError::Unsupported { slot: 3, what }) => assert!(what.contains("BEMLUM")),
        other => panic!("{other:?}"),
    }
    // R50 is outside the 48-entry file.
    let mut i = alu_insn(0, FpOpcode::Mov, dest(50, false), [Source::temp(0); 3]);
    i.end = true;
    let p = FragmentProgram::new(vec![i]);
    assert!(matches!(
        translate(&p, &FragmentTranslateOptions::default()),
        Err(TranslateError::Unsupported { slot: 0, .. })
    ));
    // A constant source without its slot.
    let c = Source {
        kind: SourceKind::Constant,
        ..Source::temp(0)
    };
    let mut i = alu_insn(0, FpOpcode::Mov, dest(0, false), [c, c, c]);
    i.end = true;
    assert!(translate(
        &FragmentProgram::new(vec![i]),
        &FragmentTranslateOptions::default()
    )
    .is_err());
    assert!(translate(
        &FragmentProgram::new(vec![]),
        &FragmentTranslateOptions::default()
    )
    .is_err());
    // The interpreter's oracle option has no WGSL form.
    let mut i = alu_insn(0, FpOpcode::Mov, dest(0, true), [Source::temp(0); 3]);
    i.end = true;
    let keep = FragmentTranslateOptions {
        half_rounding: HalfRounding::Keep,
        ..FragmentTranslateOptions::default()
    };
    match translate(&FragmentProgram::new(vec![i]), &keep) {
        Err(TranslateError::Unsupported { slot: 0, what }) => assert!(what.contains("Keep")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn hash_depends_on_program_and_options() {
    let p = every_opcode_program();
    let a = translate(&p, &FragmentTranslateOptions::with_control(0x40)).unwrap();
    let b = translate(&p, &FragmentTranslateOptions::with_control(0x00)).unwrap();
    assert_ne!(a.hash, b.hash);
    assert_eq!(
        a.hash,
        rsxtrace_wgsl::fragment::module_hash(&p, &FragmentTranslateOptions::with_control(0x40))
    );
    assert!(a.source.contains("out.colors[0] = bitcast<vec4<f32>>(r0);"));
    assert!(b.source.contains("out.colors[1] = rsx_rd_h(r2.xy);"));
    // Each piece of a unit's texture state is in the hash (the GPU render caches wrapped
    // modules by it): here the channels bx2 expands.
    let mut options = FragmentTranslateOptions::with_control(0x40);
    options.texture_lod[0] = options.texture_lod[0].with_bx2(0b0111);
    assert_ne!(rsxtrace_wgsl::fragment::module_hash(&p, &options), a.hash);
}

#[test]
fn end_inside_a_loop_stops_the_quad_through_a_quad_wide_any() {
    // 0 LOOP 3 end 2 | 1 ADD R0, R0, R1; END  (END inside the loop body)
    let l = flow_insn(
        0,
        FpOpcode::Loop,
        FlowKind::Loop(LoopFields {
            count: 3,
            init: 0,
            increment: 1,
            end_slot: 2,
        }),
        Condition::ALWAYS,
    );
    let mut add = alu_insn(
        1,
        FpOpcode::Add,
        dest(0, false),
        [Source::temp(0), Source::temp(1), Source::temp(0)],
    );
    add.end = true;
    let p = FragmentProgram::new(vec![l, add]);
    let s = translate(&p, &FragmentTranslateOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .source;
    assert!(
        s.contains("ended = ended || rsx_quad_any(lm1 && !ended);"),
        "{s}"
    );
    assert!(s.contains("let act = lm1 && !ended;"), "{s}");
}
