//! Generated vertex programs (instructions built field by field from a hand-laid cube slot):
//! every translated opcode, every option, relative addressing, condition codes, every
//! flow-control op and the fault paths produce modules naga validates, and the WGSL carries
//! the rule each option selects; untranslated opcodes are refused with their slot.

use crate::vertex_support;

use rsxtrace_program::vertex::{
    OutputRegister, Relation, ScalarOpcode, VectorOpcode, VertexProgram, WriteMask, MEMORY_SLOTS,
};
use rsxtrace_wgsl::fragment::MipFilter;
use rsxtrace_wgsl::vertex::{
    translate, translate_textured, ArlRounding, ExpLog, Lg2Guard, MadRounding, MinMaxNan, RccClamp,
    RsqGuard, SaturateNan, ScalarOperand, TextureDim, TextureLod, VertexTextureUnits,
    VertexTranslateOptions, FAULT_BRANCH_RANGE, FAULT_CALL_DEPTH, FAULT_INDEX, FAULT_INVALID_SLOT,
    FAULT_NO_INSTRUCTION, FAULT_STEP_LIMIT, MAX_CALL_DEPTH,
};
use rsxtrace_wgsl::TranslateError;
use vertex_support::{arith, branch, every_opcode, mov_hpos, program};

fn ok(p: &VertexProgram, words: &[u32], o: &VertexTranslateOptions) -> String {
    match translate(p, words, o) {
        Ok(m) => {
            assert!(m.module.entry_points.iter().any(|e| e.name == "vp_compute"));
            assert!(m.module.entry_points.iter().any(|e| e.name == "vp_main"));
            m.source
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn every_opcode_validates_with_default_options() {
    let p = every_opcode();
    let s = ok(&p, &[], &VertexTranslateOptions::default());
    for needle in [
        "fma(s0, s1, s2)",
        "s0 + s2",
        "rsx_dot3(s0, s1) + s1.w",
        "rsx_dot3(s0, s1) + s0.w * s1.w",
        "vec4<f32>(1.0, s0.y * s1.y, s0.z, s1.w)",
        "rsx_ssg(s0)",
        "rsx_sat(",
        "rsx_f2i(floor(s0))",
        "rsx_exp_spec(s2.x)",
        "rsx_log_spec(s2.x)",
        "rsx_rsq(vec4<f32>(s2.x))",
        "rsx_rcc(vec4<f32>(s2.x))",
        "rsx_lit(s2)",
        // SIN/COS of the argument reduced by 2π first (Vulkan bounds them on [-π, π] only).
        "sin(rsx_reduce_2pi4(vec4<f32>(s2.x)))",
        "cos(rsx_reduce_2pi4(vec4<f32>(s2.x)))",
        "fn rsx_reduce_2pi4(",
        "s0 - floor(s0)",
        // Sources: c[7].wzyx negated, |v[3].yyxw|.
        "let s1 = -(vp_constants[7].wzyx);",
        "let s2 = abs(vin[3].yyxw);",
        // The conditional write of CC1 tested on GE.wxxy, updating CC1.
        "let cm = (cc1.wxxy >= vec4<f32>(0.0));",
        "cc1 = select(cc1, sv, sm);",
        "written |= select(0u, 32u, any(sm));",
        // Relative addressing through A1.z, clamped, with the fault bit.
        "let ci = 7i + a1.z;",
        "vp_constants[clamp(ci, 0i, 467i)]",
        "let vi = 3i + a1.z;",
        "vin[clamp(vi, 0i, 15i)]",
        // Flow.
        "((vp_params.branch_bits >>",
        "stack[sp] = ",
        "pc = stack[sp];",
        "let t = a0.x;",
    ] {
        assert!(s.contains(needle), "missing {needle:?} in\n{s}");
    }
    assert!(s.contains(&format!("written |= {FAULT_INDEX}u;")));
    assert!(s.contains(&format!("written |= {FAULT_CALL_DEPTH}u;")));
    assert!(s.contains(&format!("written |= {FAULT_BRANCH_RANGE}u;")));
    assert!(s.contains(&format!("written |= {FAULT_NO_INSTRUCTION}u;")));
    assert!(s.contains(&format!("written |= {FAULT_STEP_LIMIT}u;")));
    // The relation FL writes nothing: no `let cm` for it, and the other six relations appear.
    for op in ["<", "==", "<=", ">", ">="] {
        assert!(
            s.contains(&format!("let cm = (cc0 {op} vec4<f32>(0.0));")),
            "{op}"
        );
    }
    // NE also holds for a NaN CC component, tested on the bits (devices may assume NaNs away).
    assert!(s.contains("let cm = ((cc0 != vec4<f32>(0.0)) | rsx_isnan(cc0));"));
}

#[test]
fn every_option_variant_validates_and_changes_the_wgsl() {
    let p = every_opcode();
    let d = VertexTranslateOptions::default();
    let default_source = ok(&p, &[], &d);
    let variants: Vec<(VertexTranslateOptions, &str)> = vec![
        (
            VertexTranslateOptions {
                arl: ArlRounding::Truncate,
                ..d
            },
            "rsx_f2i(trunc(s0))",
        ),
        (
            VertexTranslateOptions {
                exp_log: ExpLog::Natural,
                ..d
            },
            "exp(vec4<f32>(s2.x))",
        ),
        (
            VertexTranslateOptions {
                rcc: RccClamp::Rpcs3,
                ..d
            },
            "return rsx_min_num(rsx_max_num(r, vec4<f32>(",
        ),
        (
            VertexTranslateOptions {
                rsq: RsqGuard::Clamp,
                ..d
            },
            "sqrt(rsx_max_num(x, vec4<f32>(1e-10f)))",
        ),
        (
            VertexTranslateOptions {
                rsq: RsqGuard::Raw,
                ..d
            },
            "vec4<f32>(1.0) / sqrt(x);",
        ),
        (
            VertexTranslateOptions {
                lg2: Lg2Guard::Raw,
                ..d
            },
            "return log2(x);",
        ),
        (
            VertexTranslateOptions {
                saturate_nan: SaturateNan::Keep,
                ..d
            },
            "let c = v;",
        ),
        (
            VertexTranslateOptions {
                min_max_nan: MinMaxNan::Propagate,
                ..d
            },
            "select(select(rsx_max_num(a, b), b, rsx_isnan(b)), a, rsx_isnan(a))",
        ),
        (
            VertexTranslateOptions {
                mad: MadRounding::Separate,
                ..d
            },
            "let vv = s0 * s1 + s2;",
        ),
        (
            VertexTranslateOptions {
                scalar_operand: ScalarOperand::PerComponent,
                ..d
            },
            "rsx_rcc(s2)",
        ),
        (
            VertexTranslateOptions {
                lit_clamp_exponent: true,
                ..d
            },
            "rsx_min_num1(rsx_max_num1(s.w, -128.0), 128.0)",
        ),
        (
            VertexTranslateOptions {
                relative_inputs: false,
                ..d
            },
            "abs(vin[3].yyxw)",
        ),
        (
            VertexTranslateOptions { call_depth: 3, ..d },
            "array<u32, 3>",
        ),
        (
            VertexTranslateOptions {
                step_limit: 100,
                ..d
            },
            "if (steps >= 100u)",
        ),
        (VertexTranslateOptions::rpcs3(), "rsx_f2i(trunc(s0))"),
    ];
    let mut hashes = vec![translate(&p, &[], &d).unwrap().hash];
    for (o, needle) in &variants {
        let m = translate(&p, &[], o).unwrap_or_else(|e| panic!("{o:?}: {e}"));
        assert!(m.source.contains(needle), "{o:?}: missing {needle:?}");
        assert!(
            !default_source.contains(needle) || *needle == "abs(vin[3].yyxw)",
            "{needle:?} already in the default module"
        );
        hashes.push(m.hash);
    }
    let n = hashes.len();
    hashes.sort_unstable();
    hashes.dedup();
    assert_eq!(hashes.len(), n, "every option set has its own hash");
    // relative_inputs=false: the relative input is read directly.
    let o = VertexTranslateOptions {
        relative_inputs: false,
        ..d
    };
    assert!(!ok(&p, &[], &o).contains("let vi ="));
}

#[test]
fn untranslated_opcodes_are_refused_with_their_slot() {
    for (vector, scalar, what) in [
        (VectorOpcode::Arr, ScalarOpcode::Nop, "ARR"),
        (VectorOpcode::Ara, ScalarOpcode::Nop, "ARA"),
        (VectorOpcode::Nop, ScalarOpcode::Psh, "PSH"),
        (VectorOpcode::Nop, ScalarOpcode::Pop, "POP"),
    ] {
        let p = program(vec![mov_hpos(0), arith(0, vector, scalar), mov_hpos(0)]);
        match translate(&p, &[], &VertexTranslateOptions::default()) {
            Err(TranslateError::Unsupported { slot, what: w }) => {
                assert_eq!(slot, 1, "{what}");
                assert!(w.contains(what), "{w}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}

/// TXL of unit `unit` into R2 (TEX_NUM, D2 bits 8–9, aliases src1's temp index bits 0–1).
fn txl(unit: u8) -> rsxtrace_program::vertex::VertexInstruction {
    let mut i = arith(0, VectorOpcode::Txl, ScalarOpcode::Nop);
    i.sources[1] = i.sources[0];
    i.sources[1].temp_index = unit;
    assert_eq!(i.texture_unit(), Some(unit));
    i
}

#[test]
fn txl_samples_its_unit_in_group_2_at_the_explicit_lod() {
    // Units 0 (2D, trilinear, texel coordinates), 1 (cube), 3 (1D, bound as 2D); unit 2 unused.
    let p = program(vec![txl(0), txl(1), txl(3), mov_hpos(0)]);
    let mut lod = [TextureLod::default(); 4];
    lod[0] = TextureLod::from_values(0.5, 0.0, 4.0, MipFilter::Linear).with_unnormalized(true);
    let textures = VertexTextureUnits {
        dims: [
            TextureDim::D2,
            TextureDim::Cube,
            TextureDim::D3,
            TextureDim::D1,
        ],
        lod,
    };
    let m = translate_textured(&p, &[], &VertexTranslateOptions::default(), &textures)
        .unwrap_or_else(|e| panic!("{e}"));
    let s = &m.source;
    for needle in [
        "@group(2) @binding(0) var rsx_vtex0: texture_2d<f32>;",
        "@group(2) @binding(1) var rsx_vsmp0: sampler;",
        "@group(2) @binding(2) var rsx_vtex1: texture_cube<f32>;",
        "@group(2) @binding(6) var rsx_vtex3: texture_2d<f32>;",
        // Unit 0: texel coordinates scaled, two levels blended, lambda = src1.x.
        "let c = vec4<f32>(s0.xy / vec2<f32>(textureDimensions(rsx_vtex0, 0)), s0.zw);",
        "let lv = rsx_lod_choose(s1.x, 0.5, 0.0, 4.0, ",
        "let lb = textureSampleLevel(rsx_vtex0, rsx_vsmp0, c.xy,",
        "let t = la + (lb - la) * lv.z;",
        // Unit 1: a cube direction; unit 3: the middle of a one-texel-high 2D texture.
        "textureSampleLevel(rsx_vtex1, rsx_vsmp1, c.xyz,",
        "textureSampleLevel(rsx_vtex3, rsx_vsmp3, vec2<f32>(c.x, 0.5),",
        "let vv = t;",
        "fn rsx_lod_choose(",
    ] {
        assert!(s.contains(needle), "missing {needle:?} in\n{s}");
    }
    assert!(!s.contains("rsx_vtex2"), "unit 2 is not sampled");
    // The units' state is part of the module's identity; without TXL nothing is declared.
    let plain = translate(&p, &[], &VertexTranslateOptions::default()).unwrap();
    assert_ne!(plain.hash, m.hash);
    let none = translate(
        &program(vec![mov_hpos(0)]),
        &[],
        &VertexTranslateOptions::default(),
    )
    .unwrap();
    assert!(!none.source.contains("@group(2)"));
}

#[test]
fn txl_reflects_mirror_once_axes_and_stretches_a_narrowed_s() {
    // Unit 0 (2D) mirrors once on s and t; unit 3 (1D) is narrowed to half its row
    // (`TextureLod::mirror_once`, `narrow_pitch`, as the fragment recompiler applies them).
    let p = program(vec![txl(0), txl(3), mov_hpos(0)]);
    let mut lod = [TextureLod::default(); 4];
    lod[0] = TextureLod::default().with_mirror_once(0b011);
    lod[3] = TextureLod::default().with_narrow_pitch(Some((32, 16)));
    let textures = VertexTextureUnits {
        dims: [
            TextureDim::D2,
            TextureDim::D2,
            TextureDim::D2,
            TextureDim::D1,
        ],
        lod,
    };
    let m = translate_textured(&p, &[], &VertexTranslateOptions::default(), &textures)
        .unwrap_or_else(|e| panic!("{e}"));
    let s = &m.source;
    for needle in [
        "select(c.xy, abs(c.xy), vec2<bool>(true, true))",
        "let c = vec4<f32>(s0.x * 2.0, s0.yzw);",
    ] {
        assert!(s.contains(needle), "missing {needle:?} in\n{s}");
    }
}

#[test]
fn txl_adds_a_border_the_device_lacks() {
    // Units 0 (2D), 1 (3D) and 2 (1D) read a border colour wgpu has not
    // (`TextureLod::border`): each sample adds it with the nearest filter's inside weight.
    use rsxtrace_semantics::border::ShaderBorder;
    let p = program(vec![txl(0), txl(1), txl(2), mov_hpos(0)]);
    let border = Some(ShaderBorder::new(
        0b111,
        [0.5, 0.25, 0.0, 1.0],
        false,
        false,
    ));
    let lod = [TextureLod::default().with_border(border); 4];
    let textures = VertexTextureUnits {
        dims: [
            TextureDim::D2,
            TextureDim::D3,
            TextureDim::D1,
            TextureDim::D2,
        ],
        lod,
    };
    let m = translate_textured(&p, &[], &VertexTranslateOptions::default(), &textures)
        .unwrap_or_else(|e| panic!("{e}"));
    let s = &m.source;
    assert_eq!(
        s.matches("vec4<f32>(0.5, 0.25, 0.0, 1.0) * (1.0 - rsx_border_inside(")
            .count(),
        3,
        "{s}"
    );
    assert!(s.contains("fn rsx_border_inside("), "{s}");
}

#[test]
fn unreachable_untranslated_opcode_is_ignored() {
    // END at slot 0: the PSH at slot 1 never runs (the interpreter would not refuse it).
    let mut end = mov_hpos(0);
    end.end = true;
    let mut p = program(vec![end, arith(0, VectorOpcode::Nop, ScalarOpcode::Psh)]);
    p.instructions[1].end = false;
    let s = ok(&p, &[], &VertexTranslateOptions::default());
    assert!(!s.contains("case 1u:"));
}

#[test]
fn call_depth_above_the_maximum_is_refused() {
    let p = program(vec![mov_hpos(0)]);
    let o = VertexTranslateOptions {
        call_depth: MAX_CALL_DEPTH + 1,
        ..VertexTranslateOptions::default()
    };
    assert!(matches!(
        translate(&p, &[], &o),
        Err(TranslateError::Unsupported { slot: 0, .. })
    ));
    let o = VertexTranslateOptions {
        call_depth: 0,
        ..VertexTranslateOptions::default()
    };
    let s = ok(&every_opcode(), &[], &o);
    assert!(s.contains("if (sp >= 0u)"), "depth 0: every call faults");
}

#[test]
fn runtime_refusals_become_fault_slots() {
    // ARL to A5: the interpreter refuses it when reached.
    let mut arl = arith(0, VectorOpcode::Arl, ScalarOpcode::Nop);
    arl.vec_dst_temp = Some(5);
    let p = program(vec![mov_hpos(0), arl, mov_hpos(0)]);
    let s = ok(&p, &[], &VertexTranslateOptions::default());
    assert!(
        s.contains(&format!("written |= {FAULT_INVALID_SLOT}u;")),
        "{s}"
    );
    // A vector write to o[20] is dropped, as the interpreter drops it: no fault, no write.
    let mut out = arith(0, VectorOpcode::Mov, ScalarOpcode::Nop);
    out.output = Some(OutputRegister(20));
    let p = program(vec![mov_hpos(0), out, mov_hpos(0)]);
    let s = ok(&p, &[], &VertexTranslateOptions::default());
    assert!(
        !s.contains(&format!("written |= {FAULT_INVALID_SLOT}u;")),
        "{s}"
    );
    assert!(!s.contains("o[20] ="), "{s}");
    // An absolute constant index beyond c[467] faults and reads c[467].
    let mut c = arith(0, VectorOpcode::Mov, ScalarOpcode::Nop);
    c.sources[0] = c.sources[1];
    c.const_index = 600;
    let s = ok(&program(vec![c]), &[], &VertexTranslateOptions::default());
    assert!(s.contains("vp_constants[467]"));
    assert!(s.contains(&format!("written |= {FAULT_INDEX}u;")));
}

/// Words of `insns` placed at their slots in a 544-slot memory of undecodable zeros.
fn memory(insns: &[rsxtrace_program::vertex::VertexInstruction]) -> Vec<u32> {
    let mut m = vec![0u32; MEMORY_SLOTS * 4];
    for i in insns {
        m[i.slot * 4..i.slot * 4 + 4].copy_from_slice(&i.to_words());
    }
    m
}

#[test]
fn static_target_outside_the_program_runs_memory_words() {
    // The program (slots 0..2) calls slot 300, which only the memory holds.
    let p = program(vec![
        branch(0, ScalarOpcode::Cal, 300, Relation::TR),
        mov_hpos(0),
    ]);
    let mut sub = arith(300, VectorOpcode::Mov, ScalarOpcode::Nop);
    sub.output = Some(OutputRegister(1));
    let ret = branch(301, ScalarOpcode::Ret, 0, Relation::TR);
    let words = memory(&[sub, ret]);
    let s = ok(&p, &words, &VertexTranslateOptions::default());
    assert!(s.contains("case 300u:"), "{s}");
    assert!(s.contains("written |= 2u;"), "the subroutine writes COL0");
    // Without the memory the call lands on nothing: only the default case handles slot 300.
    let s = ok(&p, &[], &VertexTranslateOptions::default());
    assert!(!s.contains("case 300u:"));
}

#[test]
fn bra_reaches_every_memory_slot() {
    // ARL A0.x from c[7]; BRA A0.x; MOV END. Memory adds a MOV o[COL1]; END at slot 400.
    let mut arl = arith(0, VectorOpcode::Arl, ScalarOpcode::Nop);
    arl.vec_dst_temp = Some(0);
    arl.sources[0] = arl.sources[1];
    let p = program(vec![
        arl,
        branch(0, ScalarOpcode::Bra, 0, Relation::TR),
        mov_hpos(0),
    ]);
    let mut far = arith(400, VectorOpcode::Mov, ScalarOpcode::Nop);
    far.output = Some(OutputRegister(2));
    far.vec_mask = WriteMask(0b0101);
    far.end = true;
    let words = memory(&[far]);
    let s = ok(&p, &words, &VertexTranslateOptions::default());
    assert!(s.contains("case 400u:"));
    assert!(
        s.contains("if (t < 0i || t >= 544i)"),
        "BRA range = the slot table"
    );
    // Every program slot is its own block once a BRA can land anywhere.
    for slot in 0..3 {
        assert!(s.contains(&format!("case {slot}u:")));
    }
    // Without memory the table is the program's three slots.
    let s = ok(&p, &[], &VertexTranslateOptions::default());
    assert!(s.contains("if (t < 0i || t >= 3i)"));
}

#[test]
fn step_limit_is_checked_per_block() {
    let p = program((0..5).map(mov_hpos).collect());
    let o = VertexTranslateOptions {
        step_limit: 3,
        ..VertexTranslateOptions::default()
    };
    // A 5-instruction block always passes a limit of 3: unconditional fault.
    let s = ok(&p, &[], &o);
    assert!(s.contains("steps += 5u;"));
    assert!(s.contains(&format!("written |= {FAULT_STEP_LIMIT}u;\n")));
    assert!(!s.contains("if (steps >="));
    let o = VertexTranslateOptions {
        step_limit: 5,
        ..VertexTranslateOptions::default()
    };
    assert!(ok(&p, &[], &o).contains("if (steps >= 1u)"));
}

#[test]
fn hash_depends_on_the_words() {
    let a = program(vec![mov_hpos(0)]);
    let mut b = a.clone();
    b.instructions[0].vec_mask = WriteMask(0b0011);
    let o = VertexTranslateOptions::default();
    let ha = translate(&a, &[], &o).unwrap().hash;
    assert_eq!(ha, translate(&a, &[], &o).unwrap().hash, "deterministic");
    assert_ne!(ha, translate(&b, &[], &o).unwrap().hash);
    assert_ne!(ha, translate(&a, &memory(&[]), &o).unwrap().hash);
}
