//! Container parsing against the genuine programs in `shared/corpus` (never copied into the
//! repository): every `.fpo`/`.vpo` and the Tiny3D `.rvp` parse, their header facts match
//! `MANIFEST.json`, parameter names and bindings match what the programs declare, and every
//! truncation is refused with an error instead of a panic.

use rsxtrace_program::container::{
    decode_word, get_uniform, Binding, CgBase, CgDirection, CgResource, CgStageInfo, CgType,
    CgVariability, Container, ContainerErrorKind, Stage, VpLayout,
};
use rsxtrace_testkit::tiny3d::VERTEX_PROGRAM;
use serde_json::Value;

fn num(v: &Value) -> u64 {
    match v {
        Value::Number(n) => n.as_u64().expect("unsigned"),
        Value::String(s) => {
            u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex string")
        }
        other => panic!("not a number: {other}"),
    }
}

fn cg_files(items: &[Value]) -> Vec<(String, Value)> {
    items
        .iter()
        .filter_map(|it| {
            let file = it["file"].as_str()?;
            (file.ends_with(".fpo") || file.ends_with(".vpo"))
                .then(|| (file.to_string(), it["info"].clone()))
        })
        .collect()
}

#[test]
fn every_cg_program_matches_its_manifest_facts() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let items = corpus.manifest_items();
    let files = cg_files(&items);
    assert_eq!(
        files.len(),
        11,
        "expected 9 .fpo and 2 .vpo in the manifest"
    );
    let mut with_facts = 0;
    for (file, info) in files {
        let bytes = corpus.read(&file);
        let c = Container::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let Container::Cg(p) = &c else {
            panic!("{file}: not detected as Cg")
        };
        // Later additions (rsx_fp_static_test3/4) list only their size and hash: they must
        // parse, whole; the header facts below are checked where the manifest gives them.
        if info.get("profile").is_none() {
            assert_eq!(bytes.len() as u64, num(&info["bytes"]), "{file} bytes");
            assert_eq!(u64::from(p.total_size), bytes.len() as u64, "{file} total");
            continue;
        }
        with_facts += 1;
        assert_eq!(
            u64::from(p.profile),
            num(&info["profile"]),
            "{file} profile"
        );
        assert_eq!(u64::from(p.total_size), num(&info["total"]), "{file} total");
        assert_eq!(
            p.parameters.len() as u64,
            num(&info["params"]),
            "{file} params"
        );
        assert_eq!(
            p.ucode.len() as u64,
            num(&info["ucode_size"]),
            "{file} ucode"
        );
        assert_eq!(c.slot_count() as u64, num(&info["slots"]), "{file} slots");
        // The microcode is exactly the stored bytes.
        let at = p.ucode_offset as usize;
        assert_eq!(
            c.ucode(),
            &bytes[at..at + p.ucode.len()],
            "{file} ucode bytes"
        );
        match p.stage_info {
            CgStageInfo::Fragment(f) => {
                assert_eq!(c.stage(), Stage::Fragment, "{file}");
                assert_eq!(
                    u64::from(f.instruction_count),
                    num(&info["instructionCount"])
                );
                assert_eq!(
                    u64::from(f.attribute_input_mask),
                    num(&info["attributeInputMask"]),
                    "{file}"
                );
                assert_eq!(
                    u64::from(f.tex_coords_input_mask),
                    num(&info["texCoordsInputMask"]),
                    "{file}"
                );
                assert_eq!(
                    u64::from(f.register_count),
                    num(&info["registerCount"]),
                    "{file}"
                );
                assert_eq!(u64::from(f.output_from_h0), num(&info["outputFromH0"]));
                assert_eq!(u64::from(f.depth_replace), num(&info["depthReplace"]));
                assert_eq!(u64::from(f.pixel_kill), num(&info["pixelKill"]));
                // All corpus FPs export R0 (0x40), no depth, no kill.
                let want = 0x40 | (num(&info["registerCount"]) as u32) << 24;
                assert_eq!(c.control_word(), Some(want), "{file} control word");
            }
            CgStageInfo::Vertex(v) => {
                assert_eq!(c.stage(), Stage::Vertex, "{file}");
                assert_eq!(
                    u64::from(v.instruction_count),
                    num(&info["instructionCount"])
                );
                assert_eq!(u64::from(v.instruction_slot), num(&info["instructionSlot"]));
                assert_eq!(u64::from(v.register_count), num(&info["registerCount"]));
                assert_eq!(
                    u64::from(v.attribute_input_mask),
                    num(&info["attributeInputMask"]),
                    "{file}"
                );
                assert_eq!(
                    u64::from(v.attribute_output_mask),
                    num(&info["attributeOutputMask"]),
                    "{file}"
                );
                assert_eq!(c.control_word(), None);
                // Vertex input parameters are bound to the attributes in the input mask.
                for q in &p.parameters {
                    if let (CgResource::Attr(i), CgDirection::In) = (q.resource, q.direction) {
                        assert_ne!(v.attribute_input_mask & (1 << i), 0, "{file} ATTR{i}");
                    }
                }
            }
        }
        // Serialisable.
        serde_json::to_string(&c).expect("serialize");
    }
    assert_eq!(with_facts, 9, "programs with header facts in the manifest");
}

#[test]
fn cube_vertex_program_binds_model_view_proj_to_c256() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let bytes = corpus.read("ps3autotests/sce_cube_common.vpo");
    let Container::Cg(p) = Container::parse(&bytes).expect("parse") else {
        panic!("not Cg")
    };
    let names: Vec<_> = p.parameters.iter().map(|q| q.name.as_deref()).collect();
    assert_eq!(
        names,
        [
            Some("a2v.objCoord"),
            Some("a2v.color"),
            Some("a2v.tex"),
            Some("modelViewProj"),
            Some("modelViewProj[0]"),
            Some("modelViewProj[1]"),
            Some("modelViewProj[2]"),
            Some("modelViewProj[3]"),
            Some("main.projCoord"),
            Some("main.color"),
            Some("main.tex"),
        ]
    );
    let mvp = p.parameter("modelViewProj").expect("modelViewProj");
    assert_eq!(
        mvp.ty,
        CgType::Matrix {
            base: CgBase::Float,
            rows: 4,
            cols: 4
        }
    );
    assert_eq!(mvp.resource, CgResource::C);
    assert_eq!(mvp.resource_index, 256);
    assert_eq!(mvp.variability, CgVariability::Uniform);
    assert_eq!(mvp.direction, CgDirection::In);
    for row in 0..4 {
        let r = p
            .parameter(&format!("modelViewProj[{row}]"))
            .expect("matrix row");
        assert_eq!(r.ty, CgType::Vector(CgBase::Float, 4));
        assert_eq!(r.resource, CgResource::C);
        assert_eq!(r.resource_index, 256 + row);
    }
    let inputs: Vec<_> = p.parameters[..3].iter().map(|q| q.resource).collect();
    assert_eq!(
        inputs,
        [
            CgResource::Attr(0),
            CgResource::Attr(1),
            CgResource::Attr(2)
        ]
    );
    let out = p.parameter("main.projCoord").expect("projCoord");
    assert_eq!(
        (out.resource, out.semantic.as_deref(), out.direction),
        (CgResource::HPos, Some("POSITION"), CgDirection::Out)
    );
    let tex = p.parameter("main.tex").expect("tex");
    assert_eq!(
        (tex.resource, tex.semantic.as_deref()),
        (CgResource::TexCoord(0), Some("TEX0"))
    );
    // Vertex programs have no inline constants.
    let c = Container::Cg(p.clone());
    assert_eq!(c.embedded_constants("modelViewProj"), None);
    let view = c.parameters();
    assert_eq!(
        view[3].binding,
        Binding::Cg {
            resource: CgResource::C,
            resource_index: 256,
            variability: CgVariability::Uniform,
            direction: CgDirection::In
        }
    );
}

/// The slot before an inline constant must be an instruction with a constant-typed source
/// (rsx-microcode.md B.3): SRCn bits 0..1 == 2 after the half-word swap.
fn previous_slot_reads_a_constant(ucode: &[u8], offset: u32) -> bool {
    let prev = offset as usize - 16;
    (1..4).any(|w| {
        let at = prev + 4 * w;
        let word = decode_word(ucode[at..at + 4].try_into().unwrap()).to_bits();
        word & 3 == 2
    })
}

#[test]
fn fragment_uniforms_point_at_inline_constant_slots() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    // (file, uniform, type, expected offsets)
    let cases: [(&str, &str, CgType, &[u32]); 6] = [
        (
            "rsx_fp_dynamic_test1.fpo",
            "iGlobalTime",
            CgType::Scalar(CgBase::Float),
            &[128, 80],
        ),
        (
            "rsx_fp_dynamic_test1.fpo",
            "iGamePad",
            CgType::Vector(CgBase::Float, 2),
            &[16],
        ),
        (
            "rsx_fp_dynamic_test2.fpo",
            "iGlobalTime",
            CgType::Scalar(CgBase::Float),
            &[16],
        ),
        (
            "rsx_fp_static_test2.fpo",
            "col1",
            CgType::Vector(CgBase::Float, 3),
            &[2320],
        ),
        (
            "rsx_fp_static_test2.fpo",
            "col2",
            CgType::Vector(CgBase::Float, 3),
            &[288],
        ),
        (
            "rsx_fp_static_test2.fpo",
            "col3",
            CgType::Vector(CgBase::Float, 3),
            &[1344],
        ),
    ];
    for (file, name, ty, offsets) in cases {
        let bytes = corpus.read(&format!("ps3autotests/{file}"));
        let c = Container::parse(&bytes).expect("parse");
        let Container::Cg(p) = &c else { panic!() };
        let q = p.parameter(name).expect(name);
        assert_eq!(q.ty, ty, "{file} {name}");
        assert_eq!(q.resource, CgResource::Undefined, "{file} {name}");
        assert_eq!(q.variability, CgVariability::Uniform, "{file} {name}");
        let got = c.embedded_constants(name).expect("uniform present");
        assert_eq!(got, offsets, "{file} {name}");
        for &o in got {
            assert_eq!(o % 16, 0);
            assert!((o as usize) + 16 <= c.ucode().len());
            assert!(
                previous_slot_reads_a_constant(c.ucode(), o),
                "{file} {name}: slot before {o} uses no constant"
            );
        }
    }
    // An unreferenced uniform has no slots; an unknown name is None.
    let bytes = corpus.read("ps3autotests/rsx_fp_dynamic_test2.fpo");
    let c = Container::parse(&bytes).expect("parse");
    assert_eq!(c.embedded_constants("iGamePad"), Some(&[][..]));
    assert_eq!(c.embedded_constants("noSuchUniform"), None);
}

#[test]
fn static_test2_slots_hold_the_declared_defaults() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let bytes = corpus.read("ps3autotests/rsx_fp_static_test2.fpo");
    let c = Container::parse(&bytes).expect("parse");
    let Container::Cg(p) = &c else { panic!() };
    let col1 = p.parameter("col1").expect("col1");
    // float3 col1 = {0.216, 0.471, 0.698}
    assert_eq!(
        col1.default_value.as_deref(),
        Some(&[0.216f32, 0.471, 0.698][..])
    );
    for name in ["col1", "col2", "col3"] {
        let q = p.parameter(name).expect(name);
        let dv = q.default_value.as_ref().expect("default");
        for &o in &q.embedded_constants {
            let slot = get_uniform(c.ucode(), o).expect("slot");
            assert_eq!(&slot[..3], dv.as_slice(), "{name} slot {o}");
        }
    }
}

#[test]
fn tiny3d_rvp_parses_with_its_facts() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let bytes = corpus.read(VERTEX_PROGRAM);
    let c = Container::parse(&bytes).expect("parse");
    assert_eq!(c.stage(), Stage::Vertex);
    let Container::Psl1ghtVertex(p) = &c else {
        panic!("not a VP container")
    };
    assert_eq!(p.layout, VpLayout::Libreality);
    assert_eq!(p.instruction_count, 188);
    assert_eq!(p.ucode_offset, 0x240);
    assert_eq!(c.ucode().len(), 188 * 16);
    assert_eq!(c.ucode(), &bytes[0x240..0x240 + 188 * 16]);
    assert_eq!(p.input_mask, 0x30d);
    assert_eq!(p.output_mask, 0xc003);
    let attrs: Vec<_> = p
        .attributes
        .iter()
        .map(|a| (a.name.as_deref().unwrap(), a.index))
        .collect();
    assert_eq!(
        attrs,
        [
            ("inputvertex.vertex", 0),
            ("inputvertex.normal", 2),
            ("inputvertex.color", 3),
            ("inputvertex.texcoord", 8),
            ("inputvertex.texcoord2", 9),
        ]
    );
    // The input mask is exactly the attribute indices.
    let mask = p.attributes.iter().fold(0u32, |m, a| m | 1 << a.index);
    assert_eq!(mask, p.input_mask);
    let consts: Vec<_> = p
        .constants
        .iter()
        .map(|k| (k.name.as_deref(), k.index, k.ty, k.internal))
        .collect();
    assert_eq!(
        consts,
        [
            (Some("ProjMatrix"), 0, 4, false),
            (Some("WorldMatrix"), 4, 4, false),
            (Some("CameraPosition"), 16, 2, false),
            (Some("lightAmbient"), 17, 3, false),
            (Some("lightColor"), 8, 4, false),
            (Some("lightPosition"), 12, 4, false),
            (Some("Memissive"), 18, 3, false),
            (Some("Mambient"), 19, 3, false),
            (Some("Mdiffuse"), 20, 3, false),
            (Some("Mspecular"), 21, 3, false),
            (None, 22, 3, true),
        ]
    );
    let internal = p.constants.last().unwrap();
    assert_eq!(internal.values.map(f32::from_bits), [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(c.parameters().len(), 16);
    assert_eq!(c.control_word(), None);
    serde_json::to_string(&c).expect("serialize");
}

#[test]
fn every_truncation_of_every_corpus_container_is_refused() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let mut files: Vec<String> = cg_files(&corpus.manifest_items())
        .into_iter()
        .map(|(f, _)| f)
        .collect();
    files.push(VERTEX_PROGRAM.into());
    for file in files {
        let bytes = corpus.read(&file);
        Container::parse(&bytes).expect("whole file parses");
        for len in 0..bytes.len() {
            let err = Container::parse(&bytes[..len])
                .expect_err(&format!("{file} truncated to {len} bytes parsed"));
            // The error points inside (or at the end of) the truncated buffer, or at the
            // header field whose value reaches past it.
            assert!(err.offset <= bytes.len() as u64, "{file}[..{len}]: {err}");
            if len < 2 {
                assert_eq!(err.kind, ContainerErrorKind::UnknownFormat);
            }
        }
    }
}

#[test]
fn patching_i_global_time_changes_only_its_slots() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let bytes = corpus.read("ps3autotests/rsx_fp_dynamic_test1.fpo");
    let mut c = Container::parse(&bytes).expect("parse");
    let before = c.ucode().to_vec();
    let offsets = c
        .embedded_constants("iGlobalTime")
        .expect("uniform")
        .to_vec();
    rsxtrace_program::container::set_uniform(c.ucode_mut(), &offsets, [1.5, 0.0, 0.0, 0.0])
        .expect("patch");
    for (i, (a, b)) in before.iter().zip(c.ucode()).enumerate() {
        let in_slot = offsets
            .iter()
            .any(|&o| (o as usize..o as usize + 16).contains(&i));
        if !in_slot {
            assert_eq!(a, b, "byte {i} outside the uniform slots changed");
        }
    }
    for &o in &offsets {
        assert_eq!(get_uniform(c.ucode(), o).unwrap(), [1.5, 0.0, 0.0, 0.0]);
        // 1.5 = 0x3FC00000, stored half-swapped as 00 00 3F C0.
        assert_eq!(
            &c.ucode()[o as usize..o as usize + 4],
            &[0x00, 0x00, 0x3F, 0xC0]
        );
    }
}
